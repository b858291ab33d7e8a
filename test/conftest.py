"""Shared fixtures.  DDS is kept on loopback, on a random domain, with logs in a temporary directory."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import numpy as np
import pytest

from vidmem_dev.sample_images import photo
from vidmem_ros.command.launcher import loopback_env
from vidmem_ros.config import VidmemConfig, load_config

# Before anything imports rclpy (the launcher module does not).
os.environ["ROS_DOMAIN_ID"] = str(random.randint(1, 101))
os.environ["ROS_LOG_DIR"] = tempfile.mkdtemp(prefix="vidmem-test-ros-log-")
os.environ.update(loopback_env())


@pytest.fixture(scope="session")
def photos() -> dict[str, np.ndarray]:
    return {name: photo(name) for name in ("coffee", "chelsea", "astronaut", "stereo_motorcycle", "brick")}


@pytest.fixture(scope="session")
def nouns():  # type: ignore[no-untyped-def]
    """WordNet as the lexicon reads it (the package wordnet-base, installed by `make setup`)."""
    from vidmem_ros.config import LexiconConfig
    from vidmem_ros.perception import wordnet

    loaded = wordnet.load(LexiconConfig().wordnet_dir)
    assert loaded is not None, "WordNet is installed by `make setup` (Debian package wordnet-base)"
    return loaded


@pytest.fixture(scope="session")
def detector():  # type: ignore[no-untyped-def]
    from vidmem_ros.perception.registry import build_detector

    return build_detector(load_config().detector)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory, detector, photos):  # type: ignore[no-untyped-def]
    """The planner tests' small memory (planner_memory.py)."""
    from planner_memory import small_memory

    yield from small_memory(tmp_path_factory, detector, photos)


@pytest.fixture
def config(tmp_path: Path) -> VidmemConfig:
    return load_config(overrides={"store.path": str(tmp_path / "memory.db")})


@pytest.fixture(scope="session")
def sample_bag(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vidmem_dev.sample_patrol import write_sample_bag

    return write_sample_bag(tmp_path_factory.mktemp("bags") / "sample_patrol", camera_hz=5.0)


@pytest.fixture(scope="session")
def patrol_bag(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ten-minute patrol (signs, speech, revisits) at 2 Hz, with its questions file beside it."""
    from vidmem_dev.sample_bag import PATROL
    from vidmem_dev.sample_patrol import write_sample_bag

    return write_sample_bag(tmp_path_factory.mktemp("bags") / "patrol", camera_hz=2.0, scenario=PATROL)
