import cv2
import numpy as np

from vidmem_ros.config import IngestConfig
from vidmem_ros.ingest.gates import FrameGate


def gate(**settings: float) -> FrameGate:
    return FrameGate(IngestConfig(**settings))


def test_blurred_photo_is_dropped_and_sharp_one_kept(photos: dict[str, np.ndarray]) -> None:
    sharp = photos["coffee"]
    blurred = cv2.GaussianBlur(sharp, (0, 0), 6.0)
    g = gate()
    assert g.check_image(0.0, blurred).reason == "blur"
    assert g.check_image(1.0, sharp).keep


def test_static_view_is_dropped_until_keepalive(photos: dict[str, np.ndarray]) -> None:
    view = photos["chelsea"]
    noise = np.random.default_rng(1).normal(0, 2, view.shape)
    g = gate(static_keepalive_s=10.0)
    assert g.check_image(0.0, view).keep
    again = np.clip(view + noise, 0, 255).astype(np.uint8)
    assert g.check_image(1.0, again).reason == "static"
    assert g.check_image(10.0, again).keep  # keep-alive: a long static view still leaves a trace
    assert g.check_image(11.0, photos["astronaut"]).keep  # a new view is not static


def test_working_rate_is_enforced_from_stamps_alone() -> None:
    g = gate(sample_fps=2.0)
    frame = np.random.default_rng(0).integers(0, 255, (64, 64, 3), dtype=np.uint8)
    assert g.check_time(0.0) == ""
    assert g.check_image(0.0, frame).keep
    assert g.check_time(0.3) == "rate"
    assert g.check_time(0.5) == ""
    assert g.check_time(-5.0) == "stamp_backwards"


def test_after_a_rejection_the_gate_waits_before_decoding_again(photos: dict[str, np.ndarray]) -> None:
    g = gate(sample_fps=1.0)
    blurred = cv2.GaussianBlur(photos["coffee"], (0, 0), 6.0)
    assert g.check_image(0.0, blurred).reason == "blur"
    assert g.check_time(0.1) == "rate"
    assert g.check_time(0.25) == ""


def test_a_change_of_resolution_is_never_static(photos: dict[str, np.ndarray]) -> None:
    g = gate()
    assert g.check_image(0.0, photos["coffee"]).keep
    assert g.check_image(1.0, cv2.resize(photos["coffee"], (300, 200))).keep


def test_a_near_duplicate_is_dropped_by_ssim_but_a_moved_view_is_kept(photos: dict[str, np.ndarray]) -> None:
    view = photos["astronaut"]
    g = gate(static_max_mean_diff=0.0)  # let only the SSIM gate decide
    assert g.check_image(0.0, view).keep
    noisy = np.clip(view + np.random.default_rng(0).normal(0, 6, view.shape), 0, 255).astype(np.uint8)
    assert g.check_image(1.0, noisy).reason == "duplicate"  # sensor noise: same structure
    moved = np.roll(view, 60, axis=1)
    assert g.check_image(2.0, moved).keep


def test_quality_prefers_sharp_colourful_frames(photos: dict[str, np.ndarray]) -> None:
    from vidmem_ros.ingest.gates import hue_entropy, keyframe_quality, sharpness

    colourful, grey = (
        photos["coffee"],
        cv2.cvtColor(cv2.cvtColor(photos["coffee"], cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB),
    )
    assert hue_entropy(grey) == 0.0 < hue_entropy(colourful) <= 1.0
    sharp = sharpness(cv2.cvtColor(colourful, cv2.COLOR_RGB2GRAY))
    assert keyframe_quality(sharp, colourful, 0.5) > keyframe_quality(sharp, grey, 0.5) == sharp
    verdict = gate().check_image(0.0, colourful)
    assert verdict.keep and verdict.quality > verdict.sharpness > 0 and verdict.grey is not None
