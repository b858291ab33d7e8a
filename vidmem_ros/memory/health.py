"""How ingestion is doing, in the three levels a diagnostics aggregator shows: OK, WARN, ERROR."""

from __future__ import annotations

from dataclasses import dataclass

from vidmem_ros.memory.stats import StatsSnapshot

OK, WARN, ERROR = 0, 1, 2
# Drop reasons that mean the robot is losing input it wanted, not input that was redundant by design.
LOSS_REASONS = ("queue_full", "internal_error")
FAULT_REASONS = ("store_error",)
NEAR_BUDGET = 0.9


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
) -> Health:
    """Compare two consecutive snapshots: faults are errors; losses, a nearly full budget and quarantined
    events (``quarantined``: how many the store holds now) are warnings."""
    new = {r: now.dropped.get(r, 0) - (before.dropped.get(r, 0) if before else 0) for r in now.dropped}
    faults = sum(new.get(r, 0) for r in FAULT_REASONS)
    if faults:
        return Health(ERROR, f"{faults} frame(s) could not be written to the memory store")
    problems = []
    lost = sum(new.get(r, 0) for r in LOSS_REASONS)
    if lost:
        problems.append(f"dropping input: {lost} frame(s) lost since the last report (pipeline behind)")
    if audio_drops:
        problems.append(f"{audio_drops} audio piece(s) dropped")
    if max_disk_bytes > 0 and used_bytes >= NEAR_BUDGET * max_disk_bytes:
        problems.append(f"store at {used_bytes / max_disk_bytes:.0%} of its disk budget; oldest frames are evicted")
    if quarantined:
        problems.append(f"{quarantined} event(s) quarantined: they could not be archived (run `vidmem doctor`)")
    if problems:
        return Health(WARN, "; ".join(problems))
    return Health(OK, "ingesting")
