"""The query node over DDS on memory of people heard and seen (``vidmem_dev.meeting``): a who-question through the
Query service, then a person forgotten through Forget (voice, face, crops and link) and asked about again."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import rclpy
from ros_robot import NAMESPACE

from vidmem_dev.meeting import meeting, remember
from vidmem_dev.synth import espeak_available
from vidmem_dev.voices import conversation
from vidmem_ros.command.launcher import NodeOptions, start_node, stop_processes
from vidmem_ros.config import load_config
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.face import DlibFaceEmbedder
from vidmem_ros.perception.speaker import ResemblyzerEmbedder
from vidmem_ros.ros.client import MemoryClient

pytestmark = [pytest.mark.ros, pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")]
T0 = 1_760_000_000.0


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MemoryClient, Path]]:
    workdir = tmp_path_factory.mktemp("people")
    config = load_config(overrides={"face.backend": "dlib"})
    recording = conversation(turns_per_person=2)
    speaker = ResemblyzerEmbedder(config.speaker)
    voices = np.stack([speaker.embed(recording.segment(turn)) for turn in recording.turns])
    store = workdir / "memory.db"
    remember(meeting(recording), config, store, DlibFaceEmbedder(config.face), voices, T0).close()
    options = NodeOptions(store=str(store), namespace=NAMESPACE, params={"query.parser": "rules"})
    procs = [start_node("query", options, os.environ, str(workdir / "query.log"))]
    rclpy.init()
    node = rclpy.create_node("vidmem_people_test")
    try:
        memory = MemoryClient(node, NAMESPACE)
        deadline = time.monotonic() + 60
        while not memory.wait_for_service(0.5) and time.monotonic() < deadline:
            pass
        yield memory, store
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(procs)


def test_a_who_question_and_forgetting_a_person_through_the_services(client) -> None:  # type: ignore[no-untyped-def]
    memory, path = client
    met = memory.ask("How many different people did you see?", timeout_s=60)
    assert met.success and "saw 5 different people" in met.answer, met.answer
    dana = next(p for p in MemoryReader(SqliteStore(path, readonly=True)).people() if p.name == "Dana")
    assert dana.speaker_id is not None and dana.face_id is not None  # heard and seen: one person

    refused = memory.forget(person="someone/1")
    assert not refused.success and "speaker/N or face/N" in refused.error
    gone = memory.forget(person=f"speaker/{dana.speaker_id}")
    assert gone.success and gone.voices_removed == 1 and gone.faces_removed == 1 and gone.transcripts_removed == 0
    reader = SqliteStore(path, readonly=True)
    with reader.read() as db:
        assert db.execute("SELECT COUNT(*) FROM face_sightings WHERE face_id = ?", (dana.face_id,)).fetchone()[0] == 0
        assert (
            db.execute("SELECT COUNT(*) FROM person_links WHERE speaker_id = ?", (dana.speaker_id,)).fetchone()[0] == 0
        )
    assert "water leak" in " ".join(t.text for t in reader.transcripts(-np.inf, np.inf))  # her words stay
    after = memory.ask("How many different people did you see?", timeout_s=60)
    assert "saw 4 different people" in after.answer, after.answer
    assert not memory.forget(person=f"speaker/{dana.speaker_id}").success  # no such person any more
