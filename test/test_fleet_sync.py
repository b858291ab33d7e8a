"""Three robots' memories sent to one fleet store (embedded Milvus Lite) through the real sync: everything once,
nothing lost when the sync is cut off, no eviction before the fleet store has a frame, forgets that reach it even
when it was down."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fleet_robots import SIGNS, local_counts, robot_memory, sync_of
from planner_memory import SCHEDULE, T0, ingest_photos

from vidmem_dev.bench_fleet import add_frames
from vidmem_ros.config import load_config
from vidmem_ros.errors import FleetUnavailableError
from vidmem_ros.fleet.milvus import MilvusFleetStore, fleet_connector
from vidmem_ros.fleet.records import FleetScope
from vidmem_ros.fleet.sync import FleetSync, build_fleet_sync
from vidmem_ros.memory.forget import forget, logged_forgets
from vidmem_ros.memory.retention import Retention
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.embedding import ColorLayoutEmbedder


def test_three_robots_send_everything_once_and_the_fleet_knows_who_saw_what(tmp_path: Path, detector, photos) -> None:  # type: ignore[no-untyped-def]
    robots = {robot: robot_memory(tmp_path, robot, detector, photos) for robot in SIGNS}
    syncs = {robot: sync_of(p) for robot, p in robots.items()}
    for sync in syncs.values():
        report = sync.run_once()
        assert not report.error and report.sent["moments"] == len(SCHEDULE)
    fleet = syncs["amr-1"].fleet
    for robot, pipeline in robots.items():
        assert fleet.counts(robot) == local_counts(pipeline.store)
        assert sync_of(pipeline).lag() == {"moments": 0, "texts": 0, "transcripts": 0, "events": 0}
    again = syncs["amr-2"].run_once()  # nothing new: nothing sent, nothing doubled
    assert sum(again.sent.values()) == 0 and fleet.counts("amr-2") == local_counts(robots["amr-2"].store)

    (sign,) = [h for h in fleet.search_text("paint store", None, 5, FleetScope(kinds=["text"]))]
    assert (sign.robot, sign.x, sign.y) == ("amr-2", 0.0, 0.5)  # read on the brick wall, the first stop
    heard = fleet.search_text("who is at the weighbridge", None, 3, FleetScope(kinds=["transcript"]))
    assert heard[0].robot == "amr-2" and heard[0].stamp == T0 + 12
    assert fleet.search_text("authorised", None, 5, FleetScope(robots=["amr-1", "amr-2"])) == []
    assert fleet.search_text("authorised", None, 5, FleetScope())[0].robot == "amr-3"


class ClosingStore(MilvusFleetStore):
    """The real fleet store, closed after ``upserts`` successful writes: the sync is cut off half-way."""

    upserts = 2

    def _upsert(self, name: str, rows: list[dict[str, Any]]) -> None:
        super()._upsert(name, rows)
        ClosingStore.upserts -= 1
        if ClosingStore.upserts <= 0:
            self.close()


def test_a_sync_cut_off_half_way_resumes_with_nothing_lost_or_doubled(tmp_path: Path, detector, photos) -> None:  # type: ignore[no-untyped-def]
    pipeline = robot_memory(tmp_path, "amr-1", detector, photos, **{"fleet.batch_size": 2})
    store = pipeline.store
    good = sync_of(pipeline)
    fleet = good.fleet
    cut = FleetSync(
        store, lambda: ClosingStore(fleet.uri, fleet.image_dim, fleet.text_dim), "amr-1", good.text_embedder, 2
    )
    report = cut.run_once()
    assert report.error and 0 < store.synced_through("moments") < max(local_counts(store).values())
    # As if killed after a batch was sent but before its position was written: the batch goes again.
    store.set_meta("fleet_synced_moments", "0")
    waiting = good.lag()
    assert waiting["moments"] > 0
    report = good.run_once()
    assert not report.error and report.sent == waiting  # the lag counts exactly what a round sends
    assert fleet.counts("amr-1") == local_counts(store)
    assert good.lag() == {"moments": 0, "texts": 0, "transcripts": 0, "events": 0}


def test_a_sync_process_killed_mid_round_resumes_with_nothing_lost_or_doubled(tmp_path: Path, detector, photos) -> None:  # type: ignore[no-untyped-def]
    pipeline = robot_memory(tmp_path, "amr-1", detector, photos)
    with pipeline.store.read() as db:
        after = float(db.execute("SELECT MAX(stamp) FROM moments").fetchone()[0]) + 1.0
    # Many batches, so a kill lands mid-round.
    add_frames(pipeline.store, 20_000, ColorLayoutEmbedder().dim, np.random.default_rng(7), after)
    path = pipeline.store.path
    pipeline.store.close()
    uri = str(tmp_path / "fleet.db")
    sync = [sys.executable, "-m", "vidmem_ros.command", "sync", "--store", str(path), "--uri", uri, "--robot", "amr-1"]
    local = SqliteStore(path, readonly=True)
    proc = subprocess.Popen([*sync, "--once"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while local.synced_through("moments") == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.kill()  # SIGKILL: no cleanup, the fleet store's file lock dies with the process
    _, err = proc.communicate(timeout=30)
    acknowledged = local.synced_through("moments")
    with local.read() as db:
        newest = db.execute("SELECT MAX(moment_id) FROM moment_vectors").fetchone()[0]
    assert 0 < acknowledged < newest, err.decode()[-2000:]
    resumed = subprocess.run([*sync, "--once"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert local.synced_through("moments") == newest
    fleet = MilvusFleetStore(uri, ColorLayoutEmbedder().dim, 384)
    assert fleet.counts("amr-1") == local_counts(local)  # none lost, none twice
    fleet.close(release=True)


def test_retention_evicts_no_vector_the_fleet_store_has_not_acknowledged(tmp_path: Path, detector, photos) -> None:  # type: ignore[no-untyped-def]
    pipeline = robot_memory(tmp_path, "amr-3", detector, photos, **{"retention.max_ram_mb": 0.001})
    store = pipeline.store
    retention = Retention(store, pipeline.config.retention, lambda: store.synced_through("moments"))
    huge = lambda: 10**9  # noqa: E731  # far over the RAM budget
    assert retention.run(T0 + 60, huge).evicted_vectors == 0  # nothing acknowledged yet
    assert not sync_of(pipeline).run_once().error
    assert retention.run(T0 + 60, huge).evicted_vectors > 0


def test_a_forget_issued_while_the_fleet_store_is_down_reaches_it_when_it_is_back(
    tmp_path: Path, detector, photos
) -> None:  # type: ignore[no-untyped-def]
    pipeline = robot_memory(tmp_path, "amr-2", detector, photos)
    store = pipeline.store
    up = sync_of(pipeline)
    assert not up.run_once().error
    fleet = up.fleet
    forget(pipeline.engine.archive, T0 - 1, T0 + 15)  # the brick wall with its sign, the first coffee, the speech
    down = FleetSync(
        store,
        fleet_connector(pipeline.config.fleet.model_copy(update={"uri": "http://127.0.0.1:9"}), 1, 1),
        "amr-2",
        up.text_embedder,
    )
    assert "127.0.0.1:9" in down.run_once().error
    assert len(logged_forgets(store)) == 1  # kept until the fleet store has it
    assert fleet.search_text("paint store", None, 5, FleetScope()) != []
    assert not up.run_once().error
    assert logged_forgets(store) == []
    assert fleet.search_text("paint store", None, 5, FleetScope()) == []
    assert fleet.search_text("truck at the weighbridge", None, 5, FleetScope(kinds=["transcript"])) == []
    assert fleet.search_images(ColorLayoutEmbedder().embed(photos["brick"]), 10, FleetScope(end=T0 + 15)) == []
    assert fleet.counts("amr-2") == local_counts(store)


def test_without_a_fleet_store_nothing_is_logged_or_held(tmp_path: Path, detector, photos) -> None:  # type: ignore[no-untyped-def]
    config = load_config(overrides={"store.path": str(tmp_path / "solo.db")})
    pipeline, _ = ingest_photos(config, SqliteStore(config.store_path()), detector, photos)
    assert build_fleet_sync(config, pipeline.store, ColorLayoutEmbedder().dim) is None
    forget(pipeline.engine.archive, T0 - 1, T0 + 15)
    assert logged_forgets(pipeline.store) == []
    assert pipeline.engine.retention.synced_through is None


def test_an_unreachable_fleet_store_at_start_is_retried(tmp_path: Path, detector, photos) -> None:  # type: ignore[no-untyped-def]
    pipeline = robot_memory(tmp_path, "amr-1", detector, photos)
    attempts: list[str] = []
    real = sync_of(pipeline)

    def connect() -> MilvusFleetStore:
        attempts.append("try")
        if len(attempts) == 1:
            raise FleetUnavailableError("fleet store http://fleet:19530 cannot be reached")
        return real.connect()  # type: ignore[return-value]

    sync = FleetSync(pipeline.store, connect, "amr-1", real.text_embedder)
    assert sync.run_once().error and pipeline.store.synced_through("moments") == 0
    assert not sync.run_once().error and len(attempts) == 2
    assert sync.fleet.counts("amr-1") == local_counts(pipeline.store)


@pytest.fixture(autouse=True)
def _reset_closing_store() -> None:
    ClosingStore.upserts = 2


def test_vidmem_sync_sends_a_store_from_the_command_line(tmp_path: Path, detector, photos, capsys) -> None:  # type: ignore[no-untyped-def]
    from vidmem_ros.command.main import main

    pipeline = robot_memory(tmp_path, "amr-1", detector, photos)
    path = pipeline.store.path
    pipeline.store.close()
    uri = str(tmp_path / "other-fleet.db")
    assert main(["sync", "--store", str(path), "--uri", uri, "--robot", "amr-9", "--once"]) == 0
    assert "sent 5 moments" in capsys.readouterr().out
    fleet = MilvusFleetStore(uri, ColorLayoutEmbedder().dim, 384)
    assert fleet.counts("amr-9") == local_counts(SqliteStore(path)) and fleet.counts("amr-1")["moments"] == 0
    assert main(["sync", "--store", str(tmp_path / "missing.db"), "--uri", uri, "--once"]) == 2


def test_frames_whose_vectors_retention_evicted_are_still_found_alike_through_the_cold_tier(
    tmp_path: Path, detector, photos
) -> None:  # type: ignore[no-untyped-def]
    from vidmem_ros.agent.reasoner import build_reasoner
    from vidmem_ros.agent.tool_args import SearchArgs
    from vidmem_ros.agent.tools import search

    pipeline = robot_memory(tmp_path, "amr-2", detector, photos, **{"retention.max_ram_mb": 0.001})
    store = pipeline.store
    coffee = [m.id for m in store.moments(T0 - 1, T0 + 100) if m.stamp in (T0 + 10, T0 + 40)]
    sync = sync_of(pipeline)
    assert not sync.run_once().error
    sync.close(release=True)
    evicted = Retention(store, pipeline.config.retention, lambda: store.synced_through("moments"))
    assert evicted.run(T0 + 60, lambda: 10**9).evicted_vectors == len(SCHEDULE)
    assert store.moment_vector(coffee[0]) is None  # gone here
    reasoner = build_reasoner(pipeline.config, store)
    found = search(reasoner.context(None), SearchArgs(similar_to=f"moment/{coffee[0]}", limit=3))
    assert not found.error, found.error
    assert found.findings and found.findings[0].ref == f"moment/{coffee[1]}"  # the other coffee frame
