"""The buffer that holds what arrives while the models load: the working rate, the byte budget, arrival order."""

from __future__ import annotations

from vidmem_ros.ingest.startup_buffer import StartupBuffer
from vidmem_ros.ingest.stats import IngestStats


def test_frames_are_held_at_the_working_rate_and_delivered_in_arrival_order_with_poses() -> None:
    buffer, got = StartupBuffer(sample_fps=2.0, max_bytes=10_000_000), []
    for i in range(10):  # a 10 Hz camera for 1 s, a pose with each frame
        stamp = 100.0 + i / 10
        buffer.hold(lambda s=stamp: got.append(("pose", s)))
        buffer.hold_frame(lambda s=stamp: got.append(("frame", s)), "/cam", stamp, size=1000)
    stats = IngestStats()
    released = buffer.release(stats)
    frames = [s for kind, s in got if kind == "frame"]
    assert frames == [100.0, 100.5]  # one per working interval
    assert [kind for kind, _ in got].count("pose") == 10
    assert got.index(("pose", 100.5)) < got.index(("frame", 100.5))  # what came first is delivered first
    assert released.thinned == 8 and released.delivered == 12
    snap = stats.snapshot()
    assert snap.received == 8 and snap.dropped == {"rate": 8}  # counted as the live gate would count them
    assert len(buffer) == 0 and buffer.release(IngestStats()).delivered == 0


def test_the_byte_budget_lets_the_oldest_frames_go_and_keeps_the_small_messages() -> None:
    buffer, got = StartupBuffer(sample_fps=10.0, max_bytes=5_000), []
    buffer.hold(lambda: got.append("pose"))
    for i in range(6):
        buffer.hold_frame(lambda i=i: got.append(i), "/cam", 10.0 + i, size=1_500)
    stats = IngestStats()
    released = buffer.release(stats)
    assert got == ["pose", 4, 5]  # 1 KB of pose and two 1.5 KB frames fit in 5 KB
    assert released.overflowed == 4
    assert stats.snapshot().dropped == {"startup_overflow": 4}


def test_a_second_camera_or_a_clock_that_went_back_is_not_thinned_away() -> None:
    buffer, got = StartupBuffer(sample_fps=1.0, max_bytes=10_000_000), []
    buffer.hold_frame(lambda: got.append("a0"), "/a", 50.0, size=10)
    buffer.hold_frame(lambda: got.append("b0"), "/b", 50.2, size=10)
    buffer.hold_frame(lambda: got.append("a-back"), "/a", 10.0, size=10)  # a replay restarted
    buffer.release(IngestStats())
    assert got == ["a0", "b0", "a-back"]
