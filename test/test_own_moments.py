"""Where the robot itself was, or when, at a moment named by the clock or by its run."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vidmem_ros.agent.own_moments import MomentKind, NamedMoment, moment_stamp, own_question
from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import VidmemConfig
from vidmem_ros.memory.records import Moment, Pose
from vidmem_ros.memory.runs import Run
from vidmem_ros.memory.store import SqliteStore

T0 = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC).timestamp()  # memory begins at 09:00 UTC
SPAN_S = 120.0  # the robot drives along x at 1 m/s for two minutes


@pytest.mark.parametrize(
    ("question", "asks", "kind", "seconds"),
    [
        ("Where did you begin your inspection?", "where", MomentKind.START, 0.0),
        ("where did the robot set off from", "where", MomentKind.START, 0.0),
        ("What was your initial position?", "where", MomentKind.START, 0.0),
        ("Where were you at the very beginning of the shift?", "where", MomentKind.START, 0.0),
        ("Where was the robot when it was switched on?", "where", MomentKind.START, 0.0),
        ("Where did your sweep finish?", "where", MomentKind.END, 0.0),
        ("Where did you end up?", "where", MomentKind.END, 0.0),
        ("Where did you end up at the end of your shift?", "where", MomentKind.END, 0.0),
        ("What is your last known location?", "where", MomentKind.END, 0.0),
        ("Where were you when you had finished your round?", "where", MomentKind.END, 0.0),
        ("Where are you right now?", "where", MomentKind.NOW, 0.0),
        ("Where is the robot?", "where", MomentKind.NOW, 0.0),
        ("What is your present position?", "where", MomentKind.NOW, 0.0),
        ("Where were you ten minutes ago?", "where", MomentKind.AGO, 600.0),
        ("Tell me your coordinates 45 seconds ago", "where", MomentKind.AGO, 45.0),
        ("Where were you about a minute and a half earlier?", "where", MomentKind.AGO, 90.0),
        ("Where were you 20 seconds into your shift?", "where", MomentKind.INTO, 20.0),
        ("What was your position at the 75 second mark?", "where", MomentKind.INTO, 75.0),
        ("Where was the robot three minutes after it started?", "where", MomentKind.INTO, 180.0),
        ("Where were you twenty-five seconds before the end?", "where", MomentKind.BEFORE_END, 25.0),
        ("Where were you at 9:01?", "where", MomentKind.CLOCK, 9 * 3600 + 60.0),
        ("Where was the robot at around 09:01:30 UTC?", "where", MomentKind.CLOCK, 9 * 3600 + 90.0),
        ("What was your location at 2 p.m.?", "where", MomentKind.CLOCK, 14 * 3600.0),
        ("Where were you at midnight?", "where", MomentKind.CLOCK, 0.0),
        ("When did you set out?", "when", MomentKind.START, 0.0),
        ("At what time did the patrol come to an end?", "when", MomentKind.END, 0.0),
    ],
)
def test_a_moment_named_by_the_clock_or_the_run_is_read(
    question: str, asks: str, kind: MomentKind, seconds: float
) -> None:
    own = own_question(question)
    assert own is not None, question
    assert (own.asks, own.moment.kind, own.moment.seconds) == (asks, kind, seconds)


@pytest.mark.parametrize(
    "question",
    [
        "Where were you?",  # no moment named
        "Where were you at the time?",  # a moment named only by what came before
        "Where were you when you saw the kettle?",  # a moment named by something met: grounded, not read here
        "Where is the kettle now?",  # another thing's position
        "Where did you see the scooter at the start?",
        "Where were you at 9?",  # a bare number is no time of day
        "Where were you hundreds of minutes ago?",
        "Where were you at 25:30?",  # no such time of day
        "Where were you at 14 p.m.?",
    ],
)
def test_other_questions_are_not_read_as_the_robots_own_moment(question: str) -> None:
    assert own_question(question) is None


def test_a_moment_falls_in_the_latest_run_and_a_time_of_day_in_its_latest_occurrence() -> None:
    runs = [Run(1, T0, T0 + 100, 0.0, T0, "start"), Run(2, T0 + 500, T0 + 900, 0.0, T0 + 500, "restart")]
    span = (T0, T0 + 900)
    at = lambda kind, s=0.0, as_of=T0 + 800: moment_stamp(NamedMoment(kind, s), span, as_of, runs)  # noqa: E731
    assert at(MomentKind.START) == T0 + 500  # this run's start, not memory's
    assert at(MomentKind.START, as_of=T0 + 50) == T0  # asked during the first run
    assert at(MomentKind.INTO, 30.0) == T0 + 530
    assert at(MomentKind.END) == T0 + 800  # nothing after the question's moment
    assert at(MomentKind.END, as_of=T0 + 2000) == T0 + 900
    assert at(MomentKind.AGO, 60.0) == T0 + 740
    assert at(MomentKind.BEFORE_END, 60.0, as_of=None) == T0 + 840
    assert at(MomentKind.CLOCK, 9 * 3600 + 120.0) == T0 + 120
    # 23:59 asked at 00:01 the next day is two minutes before, not a day ahead
    midnight = datetime(2026, 3, 3, 0, 1, tzinfo=UTC).timestamp()
    late = moment_stamp(NamedMoment(MomentKind.CLOCK, 23 * 3600 + 59 * 60), (T0, midnight), midnight, [])
    assert late == midnight - 120


@pytest.fixture
def driving(config: VidmemConfig) -> Reasoner:
    store = SqliteStore(config.store_path())
    store.add_pose_track([(T0 + t, Pose("map", float(t), 2.0)) for t in range(0, int(SPAN_S) + 1, 2)])
    for t in range(0, int(SPAN_S) + 1, 15):  # kept frames, sparser than the path
        store.add_moment(Moment(T0 + t, "/cam", 64, 48, None, pose=Pose("map", float(t), 2.0)))
    return Reasoner(store, config.query, ())


@pytest.mark.parametrize(
    ("question", "as_of", "x"),
    [
        ("Where were you at 9:01 UTC?", SPAN_S, 60.0),
        ("Where was the robot at 09:00:47?", SPAN_S, 47.0),  # between kept frames: read along the path
        ("What was your position half a minute ago?", 100.0, 70.0),
        ("Where were you 33 seconds into the patrol?", SPAN_S, 33.0),
        ("What was your starting point?", SPAN_S, 0.0),
        ("Where did your route end?", 300.0, SPAN_S),  # asked later: the end of memory
        ("Where are you now?", 90.0, 90.0),
    ],
)
def test_the_robots_own_position_at_a_named_moment_is_read_along_its_path(
    driving: Reasoner, question: str, as_of: float, x: float
) -> None:
    answer = driving.answer(question, as_of=T0 + as_of)
    assert answer.success and answer.pose is not None, answer.text
    assert (answer.pose.x, answer.pose.y) == pytest.approx((x, 2.0), abs=0.6), answer.text
    assert f"x={x:.1f} m" in answer.text
    assert answer.evidence  # cited by the kept frame nearest the moment


def test_when_the_robot_started_and_stopped_is_answered_with_a_time(driving: Reasoner) -> None:
    started = driving.answer("When did you set off?", as_of=T0 + 200)
    assert started.stamp == pytest.approx(T0) and "09:00:00" in started.text
    stopped = driving.answer("At what time did your round finish?", as_of=T0 + 200)
    assert stopped.stamp == pytest.approx(T0 + SPAN_S), stopped.text


def test_a_moment_outside_memory_is_said_to_be_so_without_a_position(driving: Reasoner) -> None:
    before = driving.answer("Where were you at 8:30?", as_of=T0 + SPAN_S)
    assert before.pose is None and "no memory from" in before.text, before.text
    assert "09:00" in before.text  # and says what memory holds
    too_long_ago = driving.answer("Where were you an hour ago?", as_of=T0 + SPAN_S)
    assert too_long_ago.pose is None and "no memory from" in too_long_ago.text
