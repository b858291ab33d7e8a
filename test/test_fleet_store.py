"""The fleet store on embedded Milvus Lite: three robots' records, searched by words and meaning, by look, by
robot, time window and as_of; upserts that never double a record; forgetting one robot's range only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vidmem_ros.config import load_config
from vidmem_ros.errors import ConfigError, FleetUnavailableError
from vidmem_ros.fleet.milvus import MilvusFleetStore, fleet_connector, held_elsewhere
from vidmem_ros.fleet.records import FleetMoment, FleetScope, FleetText, Forgotten
from vidmem_ros.memory.records import Pose
from vidmem_ros.perception.embedding import ColorLayoutEmbedder, TextEmbedder
from vidmem_ros.perception.registry import build_text_embedder

T0 = 1_770_000_000.0
ROBOTS = ("amr-1", "amr-2", "amr-3")
# What each robot read or heard, one line a minute: different robots, different days' chores.
LINES = {
    "amr-1": ["parking bay for forklifts", "contractors sign in at the front desk", "the freezer door is jammed"],
    "amr-2": ["paint store 4 closed for repair", "mind the wet floor", "the printer on level two is out of toner"],
    "amr-3": ["fire exit keep clear", "the delivery van is late again", "staff only beyond this point"],
}
PHOTOS = ("coffee", "chelsea", "astronaut")


@pytest.fixture(scope="module")
def text_embedder() -> TextEmbedder:
    embedder = build_text_embedder(load_config().text_embedder)
    assert embedder is not None
    return embedder


def pose(x: float, y: float) -> Pose:
    return Pose("map", x, y, 0.0, 0.0, 0.0, 0.0, 1.0)


@pytest.fixture
def fleet(tmp_path: Path, photos, text_embedder: TextEmbedder) -> MilvusFleetStore:  # type: ignore[no-untyped-def]
    images = ColorLayoutEmbedder()
    store = MilvusFleetStore(str(tmp_path / "fleet.db"), images.dim, text_embedder.dim)
    for r, robot in enumerate(ROBOTS):
        lines = LINES[robot]
        store.upsert_texts(
            [
                FleetText(robot, "text", i, T0 + 60 * i, T0 + 60 * i, pose(10 * r, i), line, vector, moment_id=i)
                for i, (line, vector) in enumerate(zip(lines, text_embedder.embed_texts(lines), strict=True))
            ]
        )
        # Each robot saw one photo, the one at its own index, in every frame.
        seen = images.embed(photos[PHOTOS[r]])
        store.upsert_moments(
            [FleetMoment(robot, i, T0 + 60 * i, 0, pose(10 * r, i), ("cup",), seen) for i in range(len(lines))]
        )
    return store


def test_each_record_is_stored_once_however_often_it_is_sent(fleet: MilvusFleetStore, text_embedder) -> None:  # type: ignore[no-untyped-def]
    assert fleet.counts() == {"moments": 9, "texts": 9}
    assert fleet.counts("amr-2") == {"moments": 3, "texts": 3}
    again = [
        FleetText("amr-2", "text", 0, T0, T0, None, "paint store 4 open again", text_embedder.embed_texts(["x"])[0])
    ]
    fleet.upsert_texts(again)  # the same robot and local id: replaced, not added
    assert fleet.counts("amr-2") == {"moments": 3, "texts": 3}
    (hit,) = fleet.search_text("paint", None, 5, FleetScope(robots=["amr-2"]))
    assert hit.text == "paint store 4 open again" and hit.x is None


def test_words_and_meaning_find_the_robot_that_read_them(fleet: MilvusFleetStore, text_embedder) -> None:  # type: ignore[no-untyped-def]
    words = fleet.search_text("printer toner", None, 3, FleetScope())
    assert (words[0].robot, words[0].local_id) == ("amr-2", 2)
    # No word shared: the sentence vector carries it ("cold storage" ~ "freezer").
    question = "is anything wrong with the cold storage"
    meaning = fleet.search_text(question, text_embedder.embed_texts([question])[0], 3, FleetScope())
    assert (meaning[0].robot, meaning[0].text) == ("amr-1", "the freezer door is jammed")
    assert (meaning[0].x, meaning[0].y, meaning[0].frame_id) == (0.0, 2.0, "map")


def test_robot_time_window_and_as_of_filter_every_search(fleet: MilvusFleetStore, photos) -> None:  # type: ignore[no-untyped-def]
    only = fleet.search_text("the", None, 10, FleetScope(robots=["amr-1", "amr-3"]))
    assert only and {h.robot for h in only} <= {"amr-1", "amr-3"}
    window = fleet.search_text("the", None, 10, FleetScope(start=T0 + 30, end=T0 + 90))
    assert window and all(T0 + 30 <= h.stamp <= T0 + 90 for h in window)
    assert fleet.search_text("freezer", None, 5, FleetScope(as_of=T0 + 119)) == []
    looks = fleet.search_images(ColorLayoutEmbedder().embed(photos["chelsea"]), 3, FleetScope())
    assert {h.robot for h in looks} == {"amr-2"} and looks[0].score > 0.99
    earlier = fleet.search_images(ColorLayoutEmbedder().embed(photos["chelsea"]), 3, FleetScope(as_of=T0 + 61))
    assert [h.local_id for h in earlier if h.robot == "amr-2"] == [0, 1]


def test_forgetting_removes_one_robots_range_only(fleet: MilvusFleetStore) -> None:
    fleet.forget("amr-1", Forgotten(spans=[(T0 + 30, T0 + 130)]))
    assert fleet.counts("amr-1") == {"moments": 1, "texts": 1}
    assert fleet.counts("amr-2") == {"moments": 3, "texts": 3}
    assert fleet.search_text("freezer", None, 5, FleetScope()) == []
    fleet.forget("amr-3", Forgotten(moment_ids=[0]))  # a frame: its text read goes with it
    assert fleet.counts("amr-3") == {"moments": 2, "texts": 2}


def test_a_reopened_store_keeps_its_records_and_refuses_other_embedders(fleet: MilvusFleetStore) -> None:
    uri, image_dim, text_dim = fleet.uri, fleet.image_dim, fleet.text_dim
    fleet.close()
    reopened = MilvusFleetStore(uri, image_dim, text_dim)
    assert reopened.counts() == {"moments": 9, "texts": 9}
    reopened.close()
    with pytest.raises(ConfigError, match="same embedders"):
        MilvusFleetStore(uri, image_dim + 1, text_dim)


def test_a_server_that_cannot_be_reached_is_a_clear_error(text_embedder: TextEmbedder) -> None:
    with pytest.raises(FleetUnavailableError, match=r"127\.0\.0\.1:9"):
        MilvusFleetStore("http://127.0.0.1:9", 8, text_embedder.dim)


def test_malformed_vectors_are_refused_before_they_reach_the_store(fleet: MilvusFleetStore) -> None:
    bad = FleetMoment("amr-1", 99, T0, 0, None, (), np.zeros(fleet.image_dim, np.float32))
    with pytest.raises(ValueError, match="not all zero"):
        fleet.upsert_moments([bad])
    assert fleet.counts("amr-1")["moments"] == 3


def test_the_fleet_benchmark_measures_at_a_small_size(tmp_path: Path) -> None:
    import json

    from vidmem_dev.bench_fleet import run_fleet_bench

    out = tmp_path / "fleet.json"
    assert run_fleet_bench([2000], 4, 5, 1000, 200, out, 0) == 0
    figures = json.loads(out.read_text())
    searched = figures["sizes"]["2000"]["search"]
    assert set(searched) == {"robot", "robot + window", "as_of"}
    assert all(row["recall_at_10"] >= 0.9 and row["n"] == 5 for row in searched.values())
    assert figures["sync"]["moments"] == 200 and figures["sync"]["rows_per_s"] > 0


HOLDER = """
import sys, time
from vidmem_ros.fleet.milvus import MilvusFleetStore
store = MilvusFleetStore(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
print("holding", flush=True)
time.sleep(float(sys.argv[4]))
store.close(release=True)
"""


def _held_by_another_process(fleet: MilvusFleetStore, hold_s: float) -> subprocess.Popen[str]:
    """A second process opens the embedded store's file and keeps it ``hold_s``, as the other node does."""
    uri, dims = fleet.uri, (str(fleet.image_dim), str(fleet.text_dim))
    fleet.close(release=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, uri, *dims, str(hold_s)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    assert held_elsewhere(uri)
    return holder


def test_opening_a_file_another_process_holds_waits_for_its_turn(fleet: MilvusFleetStore) -> None:
    uri = fleet.uri
    config = load_config().fleet.model_copy(update={"uri": uri})
    holder = _held_by_another_process(fleet, 1.5)
    try:
        reopened = fleet_connector(config.model_copy(update={"open_wait_s": 60.0}), fleet.image_dim, fleet.text_dim)()
        assert holder.wait(5) == 0  # opened only once the holder let go
        assert reopened.counts() == {"moments": 9, "texts": 9}
        reopened.close(release=True)
        assert not held_elsewhere(uri)
    finally:
        holder.kill()


def test_a_file_held_past_the_wait_is_a_clear_error(fleet: MilvusFleetStore) -> None:
    config = load_config().fleet.model_copy(update={"uri": fleet.uri, "open_wait_s": 0.5})
    holder = _held_by_another_process(fleet, 30.0)
    try:
        with pytest.raises(FleetUnavailableError, match="fleet store"):
            fleet_connector(config, fleet.image_dim, fleet.text_dim)()
        assert holder.poll() is None
    finally:
        holder.kill()
