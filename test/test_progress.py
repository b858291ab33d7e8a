"""The progress bar, on an injected stream and clock: figures, throttling, final line, silence off a terminal."""

from __future__ import annotations

import io

from vidmem_ros.progress import ProgressBar


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _bar(clock: FakeClock, stream: io.StringIO | None = None, **kwargs: object) -> tuple[ProgressBar, io.StringIO]:
    stream = stream if stream is not None else Terminal()
    return ProgressBar(total=100.0, label="replay", stream=stream, clock=clock, **kwargs), stream  # type: ignore[arg-type]


def _lines(stream: io.StringIO) -> list[str]:
    return [part.rstrip() for part in stream.getvalue().split("\r") if part]


def test_eta_and_real_time_factor_come_from_the_clock() -> None:
    clock = FakeClock()
    bar, stream = _bar(clock)
    clock.now += 10.0
    bar.update(40.0)  # 40 bag seconds in 10 wall seconds: 4x, 60 left -> 15 s
    assert bar.speed(clock.now) == 4.0 and bar.eta(clock.now) == 15.0
    line = _lines(stream)[-1]
    for part in ("replay", "40.0/100.0 s", "40%", "elapsed 0:10", "ETA 0:15", "4.0x"):
        assert part in line


def test_redraws_at_most_every_interval() -> None:
    clock = FakeClock()
    bar, stream = _bar(clock, interval=0.25)
    for step in range(10):  # 10 updates over 0.45 s: drawn at 0, 0.25
        clock.now = 100.0 + step * 0.05
        bar.update(float(step))
    assert len(_lines(stream)) == 2
    clock.now = 101.0
    bar.update(20.0)
    assert len(_lines(stream)) == 3 and "20.0/100.0 s" in _lines(stream)[-1]


def test_final_line_is_drawn_despite_throttling_and_ends_the_line() -> None:
    clock = FakeClock()
    bar, stream = _bar(clock)
    clock.now += 50.0
    bar.update(99.0)
    clock.now += 0.01
    bar.update(100.0)  # throttled
    bar.finish()
    assert stream.getvalue().endswith("\n")
    final = _lines(stream)[-1]
    assert "100.0/100.0 s" in final and "100%" in final and "done" in final and "ETA" not in final


def test_shorter_line_overwrites_a_longer_one() -> None:
    clock = FakeClock()
    bar, stream = _bar(clock, interval=0.0)
    clock.now += 1.0
    bar.update(1.0)
    first = stream.getvalue().split("\r")[-1]
    bar.update(2.0)
    assert len(stream.getvalue().split("\r")[-1]) >= len(first)


def test_silent_when_the_stream_is_no_terminal_unless_forced() -> None:
    clock = FakeClock()
    bar, stream = _bar(clock, stream=io.StringIO())
    bar.update(50.0)
    bar.finish()
    assert stream.getvalue() == ""
    forced, stream = _bar(clock, stream=io.StringIO(), force=True)
    forced.finish()
    assert "done" in stream.getvalue()


def test_quiet_wins_over_force_and_a_terminal() -> None:
    clock = FakeClock()
    bar, stream = _bar(clock, force=True, quiet=True)
    bar.update(50.0)
    bar.finish()
    assert stream.getvalue() == ""


def test_unknown_total_shows_done_and_speed_only() -> None:
    clock = FakeClock()
    stream = Terminal()
    bar = ProgressBar(stream=stream, clock=clock, unit="frames")
    bar.start(None)
    clock.now += 4.0
    for _ in range(8):
        bar.advance()
    bar.finish()
    final = _lines(stream)[-1]
    assert "8.0 frames" in final and "2.0 frames/s" in final and "%" not in final and "ETA" not in final


def test_start_sets_the_total_and_restarts_the_clock() -> None:
    clock = FakeClock()
    bar = ProgressBar(stream=Terminal(), clock=clock)
    clock.now += 30.0
    bar.start(60.0)
    clock.now += 2.0
    bar.update(6.0)
    assert bar.total == 60.0 and bar.speed(clock.now) == 3.0 and bar.eta(clock.now) == 18.0


def test_hours_in_the_elapsed_time() -> None:
    clock = FakeClock()
    bar, _ = _bar(clock)
    clock.now += 3725.0
    bar.update(50.0)
    assert "elapsed 1:02:05" in bar.line(clock.now)
