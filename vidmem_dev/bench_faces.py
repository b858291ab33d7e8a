"""The faces part of ``vidmem bench identity``: packaged photos seen in a camera stream (``faces``), through the
real ingest pipeline with dlib's detector and descriptor, clustered into faces; purity, coverage and the number of
faces against the truth, and the cost per kept frame.  Face identity is off by default (``face.backend``), so the
bench turns it on for itself."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_dev.faces import PATROL, Shot, portraits, stream
from vidmem_dev.identity_scores import calibration, score
from vidmem_ros.config import VidmemConfig
from vidmem_ros.ingest.frames import DecodedImage, FrameInput
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.rows import stored_vector
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.face import DlibFaceEmbedder

T0 = 1_000.0


def face_figures(config: VidmemConfig, folder: Path) -> dict[str, Any]:
    config = config.model_copy(update={"face": config.face.model_copy(update={"backend": "dlib"})})
    embedder = DlibFaceEmbedder(config.face)
    shots = stream(PATROL)
    with_faces = _ingest(config, folder / "faces.db", embedder, shots)
    without = _ingest(config, folder / "no-faces.db", None, shots)
    found = with_faces["found"]
    kept = [s for s in shots if s.stamp in found]
    seen = [s for s in shots if s.person and s.stamp in with_faces["kept"]]
    scores = score([s.person for s in seen], [found.get(s.stamp) for s in seen])
    return {
        "model": embedder.name,
        "people": len(portraits()),
        "frames": len(shots),
        "kept_frames": len(with_faces["kept"]),
        "frames_with_a_person_kept": len(seen),
        "faces_found_where_nobody_was": sum(1 for s in kept if not s.person),
        "clustering": scores.__dict__,
        "calibration": {
            k: round(v, 3)
            for k, v in calibration(
                [s.person for s in seen], np.stack([with_faces["vectors"][s.stamp] for s in seen])
            ).items()
        },
        "s_per_kept_frame": round(with_faces["cost"], 4),
        "s_per_kept_frame_without_faces": round(without["cost"], 4),
        "refused": {k: v for k, v in with_faces["counts"].items() if k.startswith("face_refused")},
        "settings": {k: getattr(config.face, k) for k in ("match_distance", "margin", "merge_distance")},
    }


def _ingest(config: VidmemConfig, path: Path, embedder: DlibFaceEmbedder | None, shots: list[Shot]) -> dict[str, Any]:
    store = SqliteStore(path)
    pipeline = IngestPipeline(config, store, None, face_embedder=embedder)
    began = time.perf_counter()
    for shot in shots:
        pipeline.ingest(FrameInput(T0 + shot.stamp, "camera", DecodedImage(shot.frame)))
    pipeline.finish()
    elapsed = time.perf_counter() - began
    with store.read() as db:
        kept = {round(r[0] - T0, 3) for r in db.execute("SELECT stamp FROM moments")}
        rows = db.execute(
            "SELECT m.stamp, f.face_id, f.vector FROM face_sightings f JOIN moments m ON m.id = f.moment_id"
        ).fetchall()
        found = {round(stamp - T0, 3): face for stamp, face, _ in rows}
        vectors = {round(stamp - T0, 3): stored_vector(blob) for stamp, _, blob in rows}
    store.close()
    return {
        "kept": kept,
        "found": found,
        "vectors": vectors,
        "cost": elapsed / max(len(kept), 1),
        "counts": dict(pipeline.engine.counts),
    }


def print_faces(figures: dict[str, Any]) -> None:
    c = figures["clustering"]
    print(
        f"face identity ({figures['model']}) over {figures['frames_with_a_person_kept']} kept frames of "
        f"{figures['people']} people from packaged photos ({figures['kept_frames']} of {figures['frames']} frames kept):"
    )
    print(
        f"  faces found {c['voices']} (truth {c['speakers']}); purity {c['purity']:.3f}, coverage {c['coverage']:.3f}; "
        f"faces where nobody was {figures['faces_found_where_nobody_was']}; "
        f"{figures['s_per_kept_frame'] * 1000:.0f} ms per kept frame "
        f"({figures['s_per_kept_frame_without_faces'] * 1000:.0f} ms without faces)"
    )
    k = figures["calibration"]
    print(
        f"  distance to own face's centroid (left out): max {k['own_max']:.3f}; to the nearest other face's: "
        f"min {k['other_min']:.3f} (face.match_distance {figures['settings']['match_distance']})"
    )
