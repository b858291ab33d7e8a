"""The sample patrol as the demo, the benchmarks and the tests use it: a scenario's bag with its question set."""

from __future__ import annotations

from pathlib import Path

from vidmem_dev.sample_bag import SHORT_PATROL, Room, questions_path, write_bag
from vidmem_dev.sample_questions import write_questions


def write_sample_bag(
    path: str | Path,
    camera_hz: float = 10.0,
    odom_hz: float = 10.0,
    raw: bool = False,
    scenario: tuple[Room, ...] = SHORT_PATROL,
    jpeg_quality: int = 85,
    questions: bool = True,
) -> Path:
    """Write the scenario as a rosbag2 directory (MCAP) and, unless ``questions`` is false, its question set
    beside it (``questions_path``); returns the bag's path."""
    bag = write_bag(path, camera_hz, odom_hz, raw, scenario, jpeg_quality)
    if questions:
        write_questions(questions_path(bag), scenario)
    return bag
