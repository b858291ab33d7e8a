"""The sample patrol as the demo, the benchmarks and the tests use it: a scenario's bag with its question set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vidmem_dev.sample_bag import SHORT_PATROL, Room, questions_path, write_bag
from vidmem_dev.sample_questions import write_questions


def write_sample_bag(path: str | Path, scenario: tuple[Room, ...] = SHORT_PATROL, **bag: Any) -> Path:
    """Write the scenario as a rosbag2 directory (MCAP; ``bag`` are ``write_bag``'s options) and its question set
    beside it (``questions_path``); returns the bag's path."""
    written = write_bag(path, scenario=scenario, **bag)
    write_questions(questions_path(written), scenario)
    return written
