"""``vidmem bench faults --quick``: the real nodes through a kill -9, a flood of malformed messages and concurrent
clients; the figures it prints say memory stayed intact and every bad message was counted.  Its store cases, in
process: a damaged and a truncated store are never written and what is recovered of them answers; a full disk is
named once and what was kept still answers.  Speed is not checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.ros
def test_quick_fault_bench_restarts_after_every_kill_and_counts_every_malformed_message(tmp_path: Path) -> None:
    saved = tmp_path / "faults.json"
    run = subprocess.run(
        [sys.executable, "-m", "vidmem_dev.command", "bench", "faults", "--quick", "--json", str(saved)],
        env=os.environ,  # DDS on loopback, on this session's domain (conftest)
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures == json.loads(saved.read_text())

    kills = figures["kills"]
    assert len(kills) == figures["settings"]["rounds"] == 1
    for r in kills:
        assert r["alive_before_kill"] and r["integrity_ok"] and r["restarted"], r
        assert r["to_stats_s"] is not None and r["loss_window_s"] >= 0
        assert r["kept_during"] <= r["published_during"]

    flood = figures["flood"]
    assert "error" not in flood and flood["ingest_alive"]
    sent = flood["sent"]
    assert flood["malformed"] == sum(sent.values()) and all(n > 0 for n in sent.values())
    assert {k.split("_")[0] for k in sent} == {"image", "compressed", "audio", "odom"}
    frames, audio, poses = flood["frames"], flood["audio"], flood["poses"]
    assert frames["unaccounted"] == 0, frames  # every frame received was kept or dropped with a reason
    assert frames["kept"] <= flood["valid_frames"], frames  # no malformed frame became memory
    assert frames["dropped"].get("stamp_ahead", 0) >= sent["image_2038"] - frames["lost_in_transport"], frames
    assert audio["uncounted"] == 0, audio
    assert poses["uncounted"] == 0, poses
    assert flood["questions"]["answered"] == flood["questions"]["asked"] > 0
    assert flood["stats_messages"]["count"] > 0

    clients = figures["clients"]
    assert clients["answered"] == clients["asked"] == 2 * 3 and clients["failed"] == 0

    end = figures["end"]
    assert end["integrity_ok"] and end["drained"] and not end["stored_after_last_frame"], end
    assert end["moments"] > 0 and end["exit_codes"] == {"ingest": 0, "query": 0}, end


def test_the_store_cases_never_write_a_damaged_store_and_name_a_full_disk_once(tmp_path: Path) -> None:
    from vidmem_dev.bench_store_faults import store_faults, store_lines

    figures = store_faults(tmp_path)
    filled = figures["filled"]
    assert all(a["right"] for a in filled["answers"].values()), filled["answers"]
    for case in ("damaged", "truncated"):
        f = figures[case]
        assert f["set_aside"] and f["fresh_moments"] == 0 and f["logged_names_it"], f
        assert f["check"]["problems"], "the check finds the damage by itself"
        assert f["untouched_after_open"] and f["untouched_after_repair"], "the damaged file is never written"
        recovered = f["recovered"]
        assert recovered["integrity"] == "ok" and f["doctor_exit"] == 1
        assert 0 < recovered["counts"]["moments"] < filled["counts"]["moments"], recovered["counts"]
        assert all(a["right"] for a in recovered["answers"].values()), recovered["answers"]

    disk = figures["full_disk"]
    full, freed = disk["while_full"], disk["after_freeing"]
    assert disk["kept_before"] > 0 and full["refused"] > 0
    # The log names a full disk once, then once per 10 s with a count: once, unless refusing took that long.
    assert full["named"] == 1 or full["s"] >= 10.0, full
    assert full["diagnostics"].endswith("could not be written to the memory store: the disk is full")
    assert "25 s after my memory begins" in full["answers"]["When did you last see a person?"], "kept still answers"
    assert freed["kept"] > 0 and freed["refused"] == 0 and disk["integrity_ok"], freed
    assert "155 s after my memory begins" in freed["answers"]["When did you last see a person?"]
    assert any("full disk" in line for line in store_lines(figures))
