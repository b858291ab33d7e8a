"""A node started by the launcher stops when the process that started it is gone, even when that process is killed
outright: nothing is left holding models and a store with nobody to stop it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vidmem_ros.memory.store import SqliteStore

pytestmark = pytest.mark.ros

LAUNCHER = """
import os, sys, time
from vidmem_ros.command.launcher import NodeOptions, start_node
options = NodeOptions(store=sys.argv[1], namespace="/vidmem_lifetime", params={"query.parser": "rules"})
node = start_node("query", options, os.environ, sys.argv[2])
print(node.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie has ended: it waits only for its parent to collect it
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(condition, timeout_s: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def test_a_node_stops_when_its_launcher_is_killed(tmp_path: Path) -> None:
    store, log = tmp_path / "memory.db", tmp_path / "query.log"
    SqliteStore(store).close()
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(store), str(log)], stdout=subprocess.PIPE, text=True
    )
    assert launcher.stdout is not None
    node = int(launcher.stdout.readline())
    try:
        started = lambda: "answering questions" in log.read_text(errors="replace")  # noqa: E731
        assert _wait_for(lambda: started() or not _alive(node), 120) and started(), log.read_text()
        launcher.send_signal(signal.SIGKILL)
        launcher.wait()
        assert _wait_for(lambda: not _alive(node), 60), "the node outlived the launcher killed under it"
        assert "is gone; stopping" in log.read_text(errors="replace")
    finally:
        if _alive(node):
            os.kill(node, signal.SIGKILL)
    SqliteStore(store, readonly=True).close()  # the store is left whole
