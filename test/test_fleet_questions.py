"""Questions over the fleet: three robots' memories sent through the real sync to embedded Milvus Lite, then
asked which robot saw, read or heard something; the answer names the robot, when and where."""

from __future__ import annotations

from pathlib import Path

import pytest
from fleet_robots import robot_config, robot_memory, sync_of
from planner_memory import T0

from vidmem_ros.agent.reasoner import Reasoner, build_reasoner
from vidmem_ros.config import load_config
from vidmem_ros.memory.store import SqliteStore


@pytest.fixture(scope="module")
def asker(tmp_path_factory: pytest.TempPathFactory, detector, photos) -> Reasoner:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("fleet")
    for robot in ("amr-1", "amr-2", "amr-3"):
        pipeline = robot_memory(tmp, robot, detector, photos)
        sync = sync_of(pipeline)
        assert not sync.run_once().error
        sync.close()
    config = robot_config(tmp, "amr-1")
    return build_reasoner(config, SqliteStore(config.store_path()))


def test_the_answer_names_the_robot_that_read_it_with_when_and_where(asker: Reasoner) -> None:
    answer = asker.answer("Which robot read the paint store sign?", scope="fleet")
    assert answer.success and answer.value == "amr-2" and answer.text.startswith("amr-2 read")
    assert answer.stamp == T0 and answer.pose is not None and (answer.pose.x, answer.pose.y) == (0.0, 0.5)
    assert answer.evidence[0].robot == "amr-2" and answer.evidence[0].kind == "text"


def test_speech_is_found_by_meaning_and_only_among_the_robots_asked(asker: Reasoner) -> None:
    heard = asker.answer("Has anyone heard that a lorry arrived at the weighbridge?", scope="fleet")
    assert heard.value == "amr-2" and "truck nine is at the weighbridge" in heard.text
    others = asker.answer("Has anyone heard that a lorry arrived at the weighbridge?", scope="fleet", robots=["amr-3"])
    assert others.value != "amr-2" and all(e.robot == "amr-3" for e in others.evidence)


def test_nothing_after_as_of_is_visible_to_a_fleet_question(asker: Reasoner) -> None:
    before = asker.answer("Which robot read the paint store sign?", as_of=T0 - 1, scope="fleet")
    assert before.success and before.value == "" and before.confidence < 0.5 and not before.evidence


def test_a_fleet_question_without_a_fleet_store_or_with_an_unknown_scope_is_refused(
    asker: Reasoner, tmp_path: Path
) -> None:
    config = load_config(overrides={"store.path": str(tmp_path / "solo.db")})
    solo = build_reasoner(config, SqliteStore(config.store_path()))
    refused = solo.answer("Which robot read the paint store sign?", scope="fleet")
    assert not refused.success and "fleet.uri" in refused.error
    odd = asker.answer("Which robot read the paint store sign?", scope="galaxy")
    assert not odd.success and odd.trace["rejected"] == "bad_scope"
