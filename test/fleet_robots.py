"""Robots for the fleet tests: each a small real memory (photos through the real detector and image embedder, a
sign read, a sentence heard) with the fleet store at ``tmp_path / "fleet.db"``; the sync that sends it; the counts
the fleet store must hold of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from planner_memory import T0, ingest_photos

from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.fleet.sync import FleetSync, build_fleet_sync
from vidmem_ros.ingest.worker import IngestPipeline
from vidmem_ros.memory.records import Transcript
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.embedding import ColorLayoutEmbedder

SIGNS = {"amr-1": "COLD ROOM 2", "amr-2": "PAINT STORE EAST", "amr-3": "GENERATOR ROOM AUTHORISED ONLY"}
SPEECH = {
    "amr-1": "the pallet jack is parked",
    "amr-2": "truck nine is at the weighbridge",
    "amr-3": "rack five is humming",
}


def robot_config(tmp_path: Path, robot: str, **overrides: Any) -> VidmemConfig:
    return load_config(
        overrides={
            "store.path": str(tmp_path / robot / "memory.db"),
            "fleet.uri": str(tmp_path / "fleet.db"),
            "fleet.robot_id": robot,
            "ocr.run_on": "every_frame",  # the sign reader reads every kept frame
            **overrides,
        }
    )


def robot_memory(tmp_path: Path, robot: str, detector, photos, **overrides: Any) -> IngestPipeline:  # type: ignore[no-untyped-def]
    config = robot_config(tmp_path, robot, **overrides)
    store = SqliteStore(config.store_path())
    pipeline, _ = ingest_photos(config, store, detector, photos, SIGNS[robot], ColorLayoutEmbedder())
    pipeline.engine.add_transcript(Transcript(T0 + 12, T0 + 14, SPEECH[robot]))
    return pipeline


def sync_of(pipeline: IngestPipeline) -> FleetSync:
    sync = build_fleet_sync(pipeline.config, pipeline.store, ColorLayoutEmbedder().dim)
    assert sync is not None
    return sync


def local_counts(store: SqliteStore) -> dict[str, int]:
    with store.read() as db:
        moments = db.execute("SELECT COUNT(*) FROM moment_vectors").fetchone()[0]
        texts = db.execute("SELECT COUNT(*) FROM texts").fetchone()[0]
        heard = db.execute("SELECT COUNT(*) FROM transcripts").fetchone()[0]
        events = db.execute(
            "SELECT COUNT(*) FROM events e JOIN documents d ON d.kind = 'event' AND d.ref = e.id "
            "WHERE e.status != 'open'"
        ).fetchone()[0]
    return {"moments": moments, "texts": texts + heard + events}
