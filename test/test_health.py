from vidmem_ros.ingest.health import ERROR, OK, WARN, assess
from vidmem_ros.ingest.stats import StatsSnapshot


def snap(**dropped: int) -> StatsSnapshot:
    return StatsSnapshot(received=100, kept=10, dropped=dict(dropped))


def test_redundant_frames_dropped_by_design_are_fine() -> None:
    assert assess(snap(rate=50), snap(rate=80, static=5), used_bytes=10, max_disk_bytes=100).level == OK


def test_losing_frames_or_going_over_the_budget_warns() -> None:
    lost = assess(snap(queue_full=3), snap(queue_full=7, queue_stale=2), used_bytes=10, max_disk_bytes=100)
    assert lost.level == WARN and "6 frame(s) lost" in lost.message
    assert assess(snap(queue_full=7), snap(queue_full=7), used_bytes=10, max_disk_bytes=100).level == OK
    assert assess(None, snap(), used_bytes=95, max_disk_bytes=100).level == OK  # retention's working range
    full = assess(None, snap(), used_bytes=103, max_disk_bytes=100)
    assert full.level == WARN and "103%" in full.message
    assert assess(None, snap(), used_bytes=103, max_disk_bytes=0).level == OK  # no budget set


def test_input_refused_at_the_door_warns_while_it_arrives() -> None:
    before = StatsSnapshot(received=10, kept=5, dropped={"stamp_ahead": 1}, refused={"pose_bad_pose": 2})
    now = StatsSnapshot(received=20, kept=9, dropped={"stamp_ahead": 2, "rate": 5}, refused={"pose_bad_pose": 5})
    health = assess(before, now, used_bytes=10, max_disk_bytes=100)
    assert health.level == WARN and "1 stamp_ahead" in health.message and "3 pose_bad_pose" in health.message
    assert assess(now, now, used_bytes=10, max_disk_bytes=100).level == OK  # nothing new refused


def test_a_store_that_refuses_writes_is_an_error() -> None:
    health = assess(snap(), snap(store_error=1, queue_full=2), used_bytes=10, max_disk_bytes=100)
    assert health.level == ERROR and "store" in health.message


def test_quarantined_events_warn_until_repaired() -> None:
    health = assess(snap(), snap(), used_bytes=10, max_disk_bytes=100, quarantined=2)
    assert health.level == WARN and "2 event(s) quarantined" in health.message and "vidmem doctor" in health.message
    assert assess(snap(), snap(), used_bytes=10, max_disk_bytes=100, quarantined=0).level == OK


def test_kept_frames_without_any_pose_are_a_problem_named_with_its_source() -> None:
    from vidmem_ros.ingest.health import pose_problem

    said = pose_problem(frames_kept=12, pose_samples=0, source="/robot/odom")
    assert "/robot/odom" in said and "12 frame(s)" in said
    assert pose_problem(frames_kept=12, pose_samples=3, source="/robot/odom") == ""
    assert pose_problem(frames_kept=0, pose_samples=0, source="/robot/odom") == ""  # nothing kept yet
