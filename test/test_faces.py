"""Faces: dlib's packaged detector and descriptor on photos that ship in scikit-image, clustered into face identities
through the ingest pipeline, crops kept with keyframes only, and bad faces and rows refused without loss."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import cv2
import numpy as np
import pytest
from skimage import data

from vidmem_dev.bench_identity import score
from vidmem_dev.faces import PATROL, Shot, portraits, stream
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.errors import ConfigError, InputError, ModelUnavailableError
from vidmem_ros.ingest.frames import DecodedImage, FrameInput
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory import schema
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.captions import ComposedCaptioner
from vidmem_ros.memory.faces import FACES
from vidmem_ros.memory.forget import forget, forget_face
from vidmem_ros.memory.identities import load
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.face import DlibFaceEmbedder, check_face
from vidmem_ros.perception.registry import build_face_embedder

T0 = 1_000.0


@pytest.fixture(scope="module")
def face_config() -> VidmemConfig:
    return load_config(overrides={"face.backend": "dlib", "query.parser": "rules"})


@pytest.fixture(scope="module")
def embedder(face_config: VidmemConfig) -> DlibFaceEmbedder:
    return DlibFaceEmbedder(face_config.face)


@pytest.fixture(scope="module")
def shots() -> list[Shot]:
    return stream(PATROL)


def ingest(config: VidmemConfig, path: Path, embedder: DlibFaceEmbedder, shots: list[Shot]) -> SqliteStore:
    store = SqliteStore(path)
    pipeline = IngestPipeline(config, store, None, face_embedder=embedder)
    for shot in shots:
        pipeline.ingest(FrameInput(T0 + shot.stamp, "camera", DecodedImage(shot.frame)))
    pipeline.finish()
    return store


def test_face_embedding_is_off_by_default_and_its_backend_is_checked() -> None:
    assert load_config().face.backend == "none"
    assert build_face_embedder(load_config().face) is None
    with pytest.raises(ConfigError):
        load_config(overrides={"face.backend": "opencv"})
    with pytest.raises(ConfigError):
        load_config(overrides={"face.min_face_px": 2})


def test_missing_model_files_name_the_setting_and_the_fix(tmp_path: Path) -> None:
    config = load_config(overrides={"face.backend": "dlib", "face.model_dir": str(tmp_path)})
    with pytest.raises(ModelUnavailableError, match=r"shape_predictor_5.*face\.model_dir=.*face\.backend=none"):
        DlibFaceEmbedder(config.face)


def test_the_astronauts_face_is_found_embedded_and_cropped(embedder: DlibFaceEmbedder) -> None:
    seen, refused = embedder.faces(data.astronaut())
    assert refused == []
    assert len(seen) == 1  # the mission patch, a face to the detector when upsampled, is not one at upsample 0
    x0, y0, x1, y1 = seen[0].box
    assert 150 < x0 < x1 < 300 and 50 < y0 < y1 < 200
    assert seen[0].vector.shape == (128,) and abs(float(np.linalg.norm(seen[0].vector)) - 1.0) < 1e-5
    assert cv2.imdecode(np.frombuffer(seen[0].crop, np.uint8), cv2.IMREAD_COLOR).shape[0] <= 96


def test_a_tiny_or_blurred_face_is_refused_with_a_reason(embedder: DlibFaceEmbedder) -> None:
    photo = data.astronaut()
    with pytest.raises(InputError, match="too_small"):
        embedder.embed(photo, (200, 100, 202, 102))  # a 2x2 crop
    with pytest.raises(InputError, match="too_small"):
        check_face(np.zeros((2, 2, 3), np.uint8), embedder.config)
    blurred = cv2.GaussianBlur(photo, (0, 0), 6.0)
    with pytest.raises(InputError, match="blurred"):
        embedder.embed(blurred, (179, 83, 267, 171))
    assert len(embedder.embed(photo, (179, 83, 267, 171)).vector) == 128  # the same box, sharp, is embedded


def test_one_photo_seen_again_is_one_face_and_different_photos_are_not(
    embedder: DlibFaceEmbedder, shots: list[Shot]
) -> None:
    vectors: dict[str, list[np.ndarray]] = {}
    for shot in shots[::2]:
        if shot.person:
            vectors.setdefault(shot.person, []).extend(seen.vector for seen in embedder.faces(shot.frame)[0])
    assert set(vectors) == set(portraits())
    own = max(1 - float(a @ b) for v in vectors.values() for a in v for b in v)
    other = min(1 - float(a @ b) for m in vectors for n in vectors if m < n for a in vectors[m] for b in vectors[n])
    assert own < load_config().face.match_distance < other


def test_the_patrol_is_told_apart_into_its_five_people(
    face_config: VidmemConfig, embedder: DlibFaceEmbedder, shots: list[Shot], tmp_path: Path
) -> None:
    store = ingest(face_config, tmp_path / "faces.db", embedder, shots)
    with store.read() as db:
        rows = db.execute("SELECT m.stamp, f.face_id FROM face_sightings f JOIN moments m ON m.id = f.moment_id")
        found = {round(stamp - T0, 3): face for stamp, face in rows}
        crops = db.execute(
            "SELECT COUNT(*), SUM(m.keyframe = 0) FROM face_crops c JOIN face_sightings f ON f.id = c.sighting_id "
            "JOIN moments m ON m.id = f.moment_id"
        ).fetchone()
    nobody = {s.stamp for s in shots if not s.person}
    assert found and not nobody & set(found)  # nobody is found where nobody is in view
    kept = [s for s in shots if s.stamp in found]  # the frames the gates kept, near duplicates left out
    assert len(kept) >= 20
    scores = score([s.person for s in kept], [found[s.stamp] for s in kept])
    assert scores.voices == 5 and scores.purity == 1.0 and scores.coverage == 1.0
    assert crops[0] > 0 and crops[1] == 0  # crops are kept with keyframes only


def test_a_corrupt_face_row_is_left_out_and_the_rest_still_load(
    face_config: VidmemConfig, embedder: DlibFaceEmbedder, shots: list[Shot], tmp_path: Path
) -> None:
    store = ingest(face_config, tmp_path / "faces.db", embedder, shots[:10])
    with store.write() as db:
        before = load(db, FACES)
        assert len(before) == 2
        db.execute("UPDATE faces SET centroid = X'00ff' WHERE id = ?", (min(before),))
        after = load(db, FACES)
        sightings = db.execute("SELECT COUNT(*) FROM face_sightings").fetchone()[0]
    assert set(after) == set(before) - {min(before)}
    assert sightings >= 6  # no sighting was lost with the row
    # A sighting whose descriptor is not a vector is refused with its reason, and the frame is kept.
    pipeline = IngestPipeline(face_config, store, None, face_embedder=embedder)
    seen = embedder.faces(shots[0].frame)[0][0]
    broken = type(seen)(seen.box, np.full(128, np.nan, np.float32), seen.sharpness)
    moment = pipeline.engine.observe(_perceived(pipeline, shots[1], [broken]))
    assert moment.id is not None and pipeline.engine.counts["face_refused_bad_embedding"] == 1


def _perceived(pipeline: IngestPipeline, shot: Shot, faces: list) -> object:  # type: ignore[type-arg]
    from vidmem_ros.imaging import rgb_to_jpeg
    from vidmem_ros.memory.engine import PerceivedFrame

    grey = cv2.cvtColor(shot.frame, cv2.COLOR_RGB2GRAY)
    return PerceivedFrame(T0 + 100 + shot.stamp, "camera", shot.frame.shape[1], shot.frame.shape[0],
                          rgb_to_jpeg(shot.frame), grey, faces=faces)  # fmt: skip


def test_a_version_4_store_is_migrated_and_its_frames_kept(
    face_config: VidmemConfig, embedder: DlibFaceEmbedder, shots: list[Shot], tmp_path: Path
) -> None:
    path = tmp_path / "memory.db"
    ingest(load_config(), path, embedder, shots[:3]).close()  # face.backend none: frames without faces
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TRIGGER payload_gone_face_crops; DROP TABLE face_crops; DROP TABLE face_sightings; DROP TABLE faces;"
        "UPDATE meta SET value = '4' WHERE key = 'schema_version';"
    )
    db.commit()
    db.close()
    store = ingest(face_config, path, embedder, [Shot(s.stamp + 10, s.person, s.place, s.frame) for s in shots[:3]])
    assert store.get_meta("schema_version") == str(schema.SCHEMA_VERSION) == "6"
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM moments").fetchone()[0] == 6
        assert db.execute("SELECT COUNT(DISTINCT face_id) FROM face_sightings").fetchone()[0] == 1


def test_forgetting_a_face_removes_its_descriptors_and_crops_and_its_id_is_never_given_again(
    face_config: VidmemConfig, embedder: DlibFaceEmbedder, shots: list[Shot], tmp_path: Path
) -> None:
    store = ingest(face_config, tmp_path / "faces.db", embedder, shots[:12])
    with store.read() as db:
        astronaut = db.execute("SELECT face_id FROM face_sightings ORDER BY stamp LIMIT 1").fetchone()[0]
        others = db.execute("SELECT COUNT(*) FROM face_sightings WHERE face_id != ?", (astronaut,)).fetchone()[0]
        frames = db.execute("SELECT COUNT(*) FROM moments").fetchone()[0]
    report = forget_face(EventArchive(store, face_config, ComposedCaptioner()), astronaut)
    assert report.faces == [astronaut] and report.sightings > 0
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM faces WHERE id = ?", (astronaut,)).fetchone()[0] == 0
        left = db.execute("SELECT face_id FROM face_sightings").fetchall()
        orphan_crops = db.execute(
            "SELECT COUNT(*) FROM face_crops WHERE sighting_id NOT IN (SELECT id FROM face_sightings)"
        ).fetchone()[0]
        assert db.execute("SELECT COUNT(*) FROM moments").fetchone()[0] == frames  # the frames stay
    assert len(left) == others and astronaut not in {r[0] for r in left} and orphan_crops == 0
    with pytest.raises(InputError, match="unknown_person"):
        forget_face(EventArchive(store, face_config, ComposedCaptioner()), astronaut)
    # Seen again, the astronaut is a new person.
    again = ingest(face_config, tmp_path / "faces.db", embedder, [Shot(s.stamp + 100, *rest) for s, *rest in
                   [(s, s.person, s.place, s.frame) for s in shots[:2]]])  # fmt: skip
    with again.read() as db:
        newest = db.execute("SELECT face_id FROM face_sightings ORDER BY stamp DESC LIMIT 1").fetchone()[0]
    assert newest > astronaut


def test_forgetting_frames_forgets_the_faces_seen_only_there(
    face_config: VidmemConfig, embedder: DlibFaceEmbedder, shots: list[Shot], tmp_path: Path
) -> None:
    store = ingest(face_config, tmp_path / "faces.db", embedder, shots[:12])
    with store.read() as db:
        before = set(load(db, FACES))
    forget(EventArchive(store, face_config, ComposedCaptioner()), T0 + 6.0, T0 + 11.5)  # lfw0's visit
    with store.read() as db:
        after = load(db, FACES)
    assert len(after) == len(before) - 1 and after[min(after)].segments >= 1


def _unit_at(distance: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two unit 128-d descriptors ``distance`` apart (cosine distance)."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=(2, 128))
    a /= np.linalg.norm(a)
    b -= (b @ a) * a
    b /= np.linalg.norm(b)
    angle = np.arccos(1.0 - distance)
    return a.astype(np.float32), (np.cos(angle) * a + np.sin(angle) * b).astype(np.float32)


@pytest.mark.parametrize(
    "distance, box, same",
    [
        (0.07, (102.0, 52.0, 182.0, 132.0), True),  # past match_distance, but it continues the face on the frame before
        (0.07, (300.0, 200.0, 380.0, 280.0), False),  # as far, elsewhere in the frame: no track, a face of its own
        (0.09, (102.0, 52.0, 182.0, 132.0), False),  # where the face was, but as far as other people's faces are
    ],
)
def test_a_face_continuing_the_one_on_the_frame_before_keeps_its_identity(
    face_config: VidmemConfig, shots: list[Shot], tmp_path: Path, distance: float, box: tuple, same: bool
) -> None:
    from vidmem_ros.perception.types import FaceSeen

    assert face_config.face.match_distance < 0.07 < face_config.face.track_distance < 0.09
    pipeline = IngestPipeline(face_config, SqliteStore(tmp_path / "faces.db"), None)
    first, later = _unit_at(distance)
    scene = Shot(0.0, "", "brick", shots[0].frame)
    a = pipeline.engine.observe(_perceived(pipeline, scene, [FaceSeen((100.0, 50.0, 180.0, 130.0), first, 50.0)]))
    b = pipeline.engine.observe(_perceived(pipeline, Shot(1.0, "", "brick", scene.frame), [FaceSeen(box, later, 50.0)]))
    assert a.event_id == b.event_id  # one view: one event
    with pipeline.store.read() as db:
        faces = [ref for (ref,) in db.execute("SELECT face_id FROM face_sightings ORDER BY moment_id")]
    assert len(faces) == 2 and (faces[0] == faces[1]) == same
