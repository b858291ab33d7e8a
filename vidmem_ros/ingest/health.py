"""How ingestion is doing, in the three levels a diagnostics aggregator shows: OK, WARN, ERROR."""

from __future__ import annotations

from dataclasses import dataclass

from vidmem_ros.ingest.stats import StatsSnapshot

OK, WARN, ERROR = 0, 1, 2
# Drop reasons that mean the robot is losing input it wanted, not input that was redundant by design.
LOSS_REASONS = ("queue_full", "queue_stale", "internal_error")
# Input refused at the door because it cannot be true: a source sending it needs looking at.
REFUSED_REASONS = ("bad_stamp", "stamp_ahead", "stamp_behind", "oversized")
FAULT_REASONS = ("store_error",)
# Retention keeps the store between its low and high marks, just under the budget; above the budget
# itself, eviction is not keeping up (or a reader holds the WAL).
OVER_BUDGET = 1.0


@dataclass(frozen=True)
class Health:
    level: int
    message: str


def assess(
    before: StatsSnapshot | None,
    now: StatsSnapshot,
    used_bytes: int,
    max_disk_bytes: float,
    audio_drops: int = 0,
    quarantined: int = 0,
    store_problem: str | None = None,
) -> Health:
    """Compare two consecutive snapshots: faults are errors; losses, a nearly full budget and quarantined
    events (``quarantined``: how many the store holds now) are warnings.  ``store_problem`` says why the store
    refused the last frame it refused ("the disk is full")."""
    new = _since(before.dropped if before else {}, now.dropped)
    faults = sum(new.get(r, 0) for r in FAULT_REASONS)
    if faults:
        why = f": {store_problem}" if store_problem else ""
        return Health(ERROR, f"{faults} frame(s) could not be written to the memory store{why}")
    problems = []
    lost = sum(new.get(r, 0) for r in LOSS_REASONS)
    if lost:
        problems.append(f"dropping input: {lost} frame(s) lost since the last report (pipeline behind)")
    refused = {r: n for r, n in new.items() if r in REFUSED_REASONS and n}
    refused.update((r, n) for r, n in _since(before.refused if before else {}, now.refused).items() if n)
    if refused:
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(refused.items()))
        problems.append(f"refusing input that cannot be true: {reasons} since the last report")
    if audio_drops:
        problems.append(f"{audio_drops} audio piece(s) dropped")
    if max_disk_bytes > 0 and used_bytes >= OVER_BUDGET * max_disk_bytes:
        problems.append(f"store at {used_bytes / max_disk_bytes:.0%} of its disk budget; eviction is not keeping up")
    if quarantined:
        problems.append(f"{quarantined} event(s) quarantined: they could not be archived (run `vidmem doctor`)")
    if problems:
        return Health(WARN, "; ".join(problems))
    return Health(OK, "ingesting")


def _since(before: dict[str, int], now: dict[str, int]) -> dict[str, int]:
    """Counts added between two snapshots of one counter."""
    return {reason: count - before.get(reason, 0) for reason, count in now.items()}


def pose_problem(frames_kept: int, pose_samples: int, source: str) -> str:
    """What to say when frames are being kept but no pose ever arrived from ``source`` (memory then has no
    "where"); empty while poses arrive or before any frame was kept."""
    if frames_kept == 0 or pose_samples > 0:
        return ""
    return (
        f"no pose received from {source} while {frames_kept} frame(s) were kept: memory has no positions "
        "(check the topic's remapping, its message type and that its publisher is running)"
    )
