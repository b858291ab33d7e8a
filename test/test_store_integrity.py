"""A damaged store is never written: a writer's open checks the file first; the ingest side sets a damaged
store aside and starts a fresh one; ``vidmem doctor --repair`` recovers what is readable into a new file,
in-process.  The stores are real, filled through the memory engine, and damaged the way the field did it:
4 KB of random bytes in the middle of the file, or the file cut to half."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from vidmem_dev.damaged_stores import cut_to_half, digest, fill, scribble_mid_file
from vidmem_ros.memory.integrity import DamagedStoreError, check_connection, header_problems
from vidmem_ros.memory.recovery import recover
from vidmem_ros.memory.store import SqliteStore, open_writer_or_start_fresh


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("healthy") / "memory.db"
    fill(path)
    return path


def copy_of(healthy: Path, tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"
    path.write_bytes(healthy.read_bytes())
    return path


@pytest.mark.parametrize("damage", [scribble_mid_file, cut_to_half])
def test_a_writer_refuses_a_damaged_store_and_writes_nothing_into_it(healthy: Path, tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    path = copy_of(healthy, tmp_path)
    damage(path)
    before = digest(path)
    with pytest.raises(DamagedStoreError, match="damaged"):
        SqliteStore(path)
    assert digest(path) == before, "the damaged file was not written"
    wal = path.with_name("memory.db-wal")
    assert not wal.exists() or wal.stat().st_size == 0, "nor its WAL"


def test_a_sound_store_passes_the_check_and_a_cut_file_is_seen_from_its_header(healthy: Path, tmp_path: Path) -> None:
    db = sqlite3.connect(f"file:{healthy}?mode=ro", uri=True)
    found = check_connection(db, healthy, 10.0)
    db.close()
    assert found.ok and not found.unchecked
    assert found.checked[-1] == "payloads" and "moments" in found.checked, "records first, the bulk last"
    path = copy_of(healthy, tmp_path)
    cut_to_half(path)
    assert "truncated" in header_problems(path)[0]


def test_a_check_out_of_time_names_what_it_left_unchecked(healthy: Path) -> None:
    db = sqlite3.connect(f"file:{healthy}?mode=ro", uri=True)
    found = check_connection(db, healthy, 0.0)
    db.close()
    assert found.ok, "what was not checked is not called damaged"
    assert found.unchecked and found.unchecked[-1] == "payloads"
    assert set(found.checked) | set(found.unchecked) >= {"moments", "events", "payloads"}


@pytest.mark.parametrize("damage", [scribble_mid_file, cut_to_half])
def test_the_ingest_side_sets_a_damaged_store_aside_and_starts_afresh(  # type: ignore[no-untyped-def]
    healthy: Path, tmp_path: Path, damage, caplog
) -> None:
    path = copy_of(healthy, tmp_path)
    damage(path)
    before = digest(path)
    store = open_writer_or_start_fresh(path, 10.0)
    assert store.moment_count() == 0, "a fresh store"
    store.close()
    aside = [p for p in tmp_path.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1 and digest(aside[0]) == before, "set aside untouched"
    assert "set aside" in caplog.text and "vidmem doctor" in caplog.text and str(aside[0]) in caplog.text


def test_recovery_copies_every_row_of_a_sound_store(healthy: Path, tmp_path: Path) -> None:
    done = recover(healthy, tmp_path / "recovered.db")
    assert done.integrity == "ok" and not done.damaged and not done.dropped
    old, new = SqliteStore(healthy, readonly=True), SqliteStore(tmp_path / "recovered.db", readonly=True)
    for table in ("moments", "payloads", "detections", "texts", "transcripts", "events", "moment_vectors"):
        with old.read() as a, new.read() as b:
            assert a.execute(f"SELECT * FROM {table}").fetchall() == b.execute(f"SELECT * FROM {table}").fetchall()
    assert [h.ref for h in new.search_text("ROOM")] == [h.ref for h in old.search_text("ROOM")] != []


def test_recovery_of_a_scribbled_store_keeps_what_is_readable(healthy: Path, tmp_path: Path) -> None:
    path = copy_of(healthy, tmp_path)
    scribble_mid_file(path)
    before = digest(path)
    done = recover(path, tmp_path / "recovered.db")
    assert digest(path) == before, "the damaged file was only read"
    assert done.integrity == "ok" and done.damaged.get("moments")
    new = SqliteStore(tmp_path / "recovered.db")  # a writer's check passes: it can be used
    lost = 400 - new.moment_count()
    assert 0 < lost < 100, f"one page of moment rows lost, not the table ({lost})"
    with new.read() as db:
        orphans = db.execute("SELECT COUNT(*) FROM payloads WHERE moment_id NOT IN (SELECT id FROM moments)")
        assert orphans.fetchone()[0] == 0
    assert new.event_count() > 0 and new.transcripts(0.0, 2e9) != []


def test_doctor_repair_recovers_a_cut_store_into_a_new_file(healthy: Path, tmp_path: Path) -> None:
    path = copy_of(healthy, tmp_path)
    cut_to_half(path)
    before = digest(path)
    command = [sys.executable, "-m", "vidmem_ros.command", "doctor", "--store", str(path), "--repair"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "DAMAGED" in result.stdout and "sqlite3" not in result.stdout
    recovered = tmp_path / "memory.recovered.db"
    assert f"integrity of {recovered}: ok" in result.stdout
    assert digest(path) == before
    new = SqliteStore(recovered)
    assert 0 < new.moment_count() < 400, "the first half of the frames"
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "exists already" in again.stdout, "a recovered file is never overwritten"


def test_a_store_set_aside_as_damaged_is_recovered_beside_it_and_the_way_back_is_told(
    healthy: Path, tmp_path: Path
) -> None:
    aside = tmp_path / "memory.db.damaged-20261127T101500Z"
    shutil.copy(healthy, aside)
    cut_to_half(aside)
    (tmp_path / "memory.db").write_bytes(b"")  # the fresh store the ingest node began
    command = [sys.executable, "-m", "vidmem_ros.command", "doctor", "--store", str(aside), "--repair"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    recovered = tmp_path / "memory.recovered-20261127T101500Z.db"
    assert f"integrity of {recovered}: ok" in result.stdout, result.stdout + result.stderr
    assert f"move {tmp_path / 'memory.db'} to another name" in result.stdout
    assert f"move {recovered} to {tmp_path / 'memory.db'}" in result.stdout
