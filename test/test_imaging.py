import cv2
import numpy as np
import pytest

from vidmem_ros.errors import InputError
from vidmem_ros.imaging import compressed_to_rgb, raw_to_rgb, rgb_to_jpeg

RNG = np.random.default_rng(3)
RGB = RNG.integers(0, 256, (5, 7, 3), dtype=np.uint8)


def padded(pixels: np.ndarray, pad: int) -> tuple[bytes, int]:
    """Row-major bytes with ``pad`` extra bytes at the end of every row."""
    rows = pixels.reshape(pixels.shape[0], -1).view(np.uint8)
    step = rows.shape[1] + pad
    out = np.zeros((rows.shape[0], step), np.uint8)
    out[:, : rows.shape[1]] = rows
    return out.tobytes(), step


@pytest.mark.parametrize("pad", [0, 3])
@pytest.mark.parametrize(
    ("encoding", "pixels"),
    [
        ("rgb8", RGB),
        ("bgr8", RGB[..., ::-1]),
        ("rgba8", np.dstack([RGB, np.full(RGB.shape[:2], 9, np.uint8)])),
        ("bgra8", np.dstack([RGB[..., ::-1], np.full(RGB.shape[:2], 9, np.uint8)])),
    ],
)
def test_colour_encodings_give_the_same_rgb(encoding: str, pixels: np.ndarray, pad: int) -> None:
    data, step = padded(np.ascontiguousarray(pixels), pad)
    out = raw_to_rgb(data, 7, 5, encoding, step)
    assert out.shape == (5, 7, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, RGB)


@pytest.mark.parametrize("pad", [0, 2])
def test_mono8_becomes_grey_rgb(pad: int) -> None:
    grey = RGB[..., 0].copy()
    data, step = padded(grey, pad)
    out = raw_to_rgb(data, 7, 5, "mono8", step)
    for c in range(3):
        np.testing.assert_array_equal(out[..., c], grey)


@pytest.mark.parametrize("bigendian", [False, True])
def test_mono16_either_endianness_keeps_high_byte(bigendian: bool) -> None:
    values = RNG.integers(0, 65536, (5, 7), dtype=np.uint16)
    data = values.astype(">u2" if bigendian else "<u2").tobytes()
    out = raw_to_rgb(data, 7, 5, "mono16", 14, is_bigendian=bigendian)
    np.testing.assert_array_equal(out[..., 1], (values >> 8).astype(np.uint8))


def test_mono16_with_odd_padding() -> None:
    values = RNG.integers(0, 65536, (4, 3), dtype=np.uint16)
    data, step = padded(values.astype("<u2"), 1)  # odd step: rows are not 2-byte aligned
    out = raw_to_rgb(data, 3, 4, "mono16", step)
    np.testing.assert_array_equal(out[..., 0], (values >> 8).astype(np.uint8))


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"encoding": "yuv422_yuy2"}, "bad_encoding"),
        ({"step": 20}, "bad_step"),
        ({"data": bytes(50)}, "truncated"),
        ({"width": 0}, "bad_size"),
        ({"height": 100000}, "bad_size"),
    ],
)
def test_malformed_raw_images_are_rejected_with_a_reason(kwargs: dict, reason: str) -> None:
    args = {"data": RGB.tobytes(), "width": 7, "height": 5, "encoding": "rgb8", "step": 21, **kwargs}
    with pytest.raises(InputError) as err:
        raw_to_rgb(**args)
    assert err.value.reason == reason


def test_jpeg_and_png_decode_to_rgb() -> None:
    smooth = cv2.GaussianBlur(
        np.repeat(np.linspace(0, 255, 64, dtype=np.uint8)[None, :, None], 48, 0).repeat(3, 2), (5, 5), 0
    )
    back = compressed_to_rgb(rgb_to_jpeg(smooth, 95), "jpeg")
    assert back.shape == smooth.shape
    assert np.abs(back.astype(int) - smooth).mean() < 3
    ok, png = cv2.imencode(".png", cv2.cvtColor(RGB, cv2.COLOR_RGB2BGR))
    assert ok
    np.testing.assert_array_equal(compressed_to_rgb(png.tobytes(), "png"), RGB)


@pytest.mark.parametrize("payload", [b"", b"\xff\xd8\xff not really a jpeg", bytes(1000)])
def test_undecodable_compressed_images_are_rejected(payload: bytes) -> None:
    with pytest.raises(InputError) as err:
        compressed_to_rgb(payload, "jpeg")
    assert err.value.reason == "decode_error"


def test_jpeg_encoding_downscales_wide_frames() -> None:
    wide = np.zeros((100, 400, 3), np.uint8)
    assert compressed_to_rgb(rgb_to_jpeg(wide, 80, max_width=200)).shape == (50, 200, 3)


def test_decoded_arrays_are_normalised_or_rejected() -> None:
    from vidmem_ros.imaging import ensure_rgb

    assert ensure_rgb(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    assert ensure_rgb(np.zeros((4, 5, 4), np.uint8)).shape == (4, 5, 3)
    for bad in (np.zeros((4, 5, 3), np.float32), np.zeros((4, 5, 2), np.uint8), np.zeros((0, 5, 3), np.uint8)):
        with pytest.raises(InputError) as err:
            ensure_rgb(bad)
        assert err.value.reason == "bad_image"


def test_empty_grey_arrays_are_rejected_with_a_reason() -> None:
    from vidmem_ros.imaging import ensure_rgb

    with pytest.raises(InputError) as err:
        ensure_rgb(np.zeros((0, 5), np.uint8))
    assert err.value.reason == "bad_image"
