"""Runs: a sensor clock that goes back (a looped bag, a clock corrected an hour back) starts a new run of memory's
own time, through the real engine into a real store, and questions answer in (run, stamp) order."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

from chat_server import ChatServer
from chat_server import text as chat_text
from two_runs import HOUR, T0, config, play, two_runs

from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.clock import utc_clock
from vidmem_ros.config import CaptionerConfig, VidmemConfig, load_config
from vidmem_ros.evaluation.baselines import SingleShotRetriever
from vidmem_ros.memory.engine import MemoryEngine
from vidmem_ros.memory.hierarchy import ROOT_KEY
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.records import Transcript
from vidmem_ros.memory.runs import RUN_GAP_S, clock_note, clock_spans, describe_time, memory_time, sensor_stamp
from vidmem_ros.memory.schema import SCHEMA_VERSION
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.vlm_captioner import OpenAiVlmCaptioner
from vidmem_ros.perception.coco import COCO_LABELS
from vidmem_ros.perception.registry import build_text_embedder


def reasoner(store: SqliteStore, cfg: VidmemConfig) -> Reasoner:
    return Reasoner(store, cfg.query, tuple(COCO_LABELS.values()), detector_min_score=0.5)


def test_three_loops_of_one_minute_are_three_runs_and_three_occasions(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    cfg = config(path)
    store = SqliteStore(path)
    engine = MemoryEngine(store, cfg)
    for _ in range(3):  # the same 60 s of stamps, three times: a bag played with --loop
        play(engine, T0, 60, {"person": range(20, 26)})
    engine.finish()

    runs = store.runs()
    assert [r.id for r in runs] == [1, 2, 3]
    assert all(r.first_stamp == T0 and r.last_stamp == T0 + 59 for r in runs)
    assert runs[1].start == runs[0].end + RUN_GAP_S and runs[2].start == runs[1].end + RUN_GAP_S
    with store.read() as db:
        moments = db.execute("SELECT stamp, run_id FROM moments ORDER BY id").fetchall()
        crossing = db.execute(
            "SELECT COUNT(*) FROM events e WHERE EXISTS (SELECT 1 FROM moments m WHERE m.event_id = e.id "
            "AND m.run_id != e.run_id)"
        ).fetchone()[0]
        periods = db.execute("SELECT COUNT(DISTINCT run_id) FROM super_events").fetchone()[0]
    stamps = [s for s, _ in moments]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps), "the loops do not interleave"
    assert [r for _, r in moments] == [1] * 60 + [2] * 60 + [3] * 60
    assert crossing == 0, "no event spans two runs"
    assert periods == 3, "no period spans two runs"
    assert store.time_span() == (T0, runs[2].end)

    count = reasoner(store, cfg).answer("How many times did you see a person?")
    assert count.value == 3, count.text
    assert "run" in count.text
    last = reasoner(store, cfg).answer("When did you last see a person?")
    assert last.stamp is not None and runs[2].start <= last.stamp <= runs[2].end
    assert "run 3" in last.text and "UTC" in last.text
    store.close()


def test_an_hour_back_answers_from_after_the_correction_and_memory_begins_where_it_did(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    cfg = config(path)
    store = SqliteStore(path)
    engine = MemoryEngine(store, cfg)
    play(engine, T0, 120, {"cup": range(40, 50), "laptop": range(90, 120)})
    corrected = T0 + 120 - HOUR  # a live clock set back an hour: the next frames are stamped an hour earlier
    play(engine, corrected, 120, {"cup": range(20, 30), "dog": range(80, 120)})
    engine.add_transcript(Transcript(corrected + 100, corrected + 103, "the spare keys are on the shelf"))
    engine.finish()

    runs = store.runs()
    assert len(runs) == 2 and "went back 3599.0 s" in runs[1].reason
    assert store.time_span() is not None and store.time_span()[0] == T0, "memory begins where it began"  # type: ignore[index]
    ask = reasoner(store, cfg)
    last = ask.answer("When did you last see a cup?")
    assert last.stamp is not None and last.stamp >= runs[1].start, "the last cup is the one after the correction"
    assert sensor_stamp(runs, last.stamp) == corrected + 29
    assert "run 2" in last.text
    first = ask.answer("When did you first see a cup?")
    assert first.stamp == T0 + 40 and "run 1" in first.text
    recent = ask.answer("What did you see in the last minute?")
    assert "dog" in recent.text and "laptop" not in recent.text, recent.text
    before = ask.answer("When did you last see a cup?", as_of=T0 + 100)  # a clock time only run 1 reached
    assert before.stamp == T0 + 49 and "run" not in before.text, "as of then, memory had one run"
    begins = ask.answer("How long have you been remembering?")
    assert begins.stamp is None or begins.stamp >= T0
    with store.read() as db:
        heard = db.execute("SELECT start, run_id FROM transcripts").fetchone()
    assert heard == (corrected + 100 + runs[1].offset, 2)
    store.close()


def test_a_restart_continues_the_run_and_a_loop_after_it_starts_the_next(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    cfg = config(path)
    store = SqliteStore(path)
    engine = MemoryEngine(store, cfg)
    play(engine, T0, 60, {})
    play(engine, T0, 30, {})
    store.close()
    store = SqliteStore(path)
    engine = MemoryEngine(store, cfg)
    assert engine.latest_sensor_stamp == T0 + 29, "intake's clock is seeded on the sensor clock"
    play(engine, T0 + 30, 10, {})  # the restarted process goes on where the run was
    play(engine, T0, 10, {})
    assert [r.id for r in store.runs()] == [1, 2, 3]
    store.close()


def test_an_ask_time_on_the_robots_clock_is_read_in_the_latest_run_that_reached_it(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteStore(path)
    engine = MemoryEngine(store, config(path))
    play(engine, T0, 60, {})
    play(engine, T0, 30, {})
    runs = store.runs()
    assert memory_time(runs, T0 + 10) == T0 + 10 + runs[1].offset
    assert memory_time(runs, T0 - 100) == T0 - 100, "before every run: the first run's reading"
    assert describe_time(runs[:1], T0).endswith("UTC"), "one run: no run named"
    assert "run 2" in describe_time(runs, T0 + 10 + runs[1].offset)
    store.close()


def test_a_store_from_before_runs_opens_and_migrates(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteStore(path)
    engine = MemoryEngine(store, config(path))
    play(engine, T0, 30, {"cup": range(5, 10)})
    engine.add_transcript(Transcript(T0 + 40, T0 + 42, "hello"))
    engine.finish()
    store.close()
    # Take it back to version 2: no runs table and no run ids, as the build before runs wrote it.
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TABLE runs; ALTER TABLE moments DROP COLUMN run_id; ALTER TABLE events DROP COLUMN run_id; "
        "ALTER TABLE transcripts DROP COLUMN run_id; ALTER TABLE super_events DROP COLUMN run_id; "
        "UPDATE meta SET value = '2' WHERE key = 'schema_version';"
    )
    db.close()

    store = SqliteStore(path)
    assert store.get_meta("schema_version") == str(SCHEMA_VERSION)
    (run,) = store.runs()
    assert (run.id, run.first_stamp, run.last_stamp, run.offset) == (1, T0, T0 + 42, 0.0)
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM moments WHERE run_id != 1").fetchone()[0] == 0
    engine = MemoryEngine(store, config(path))
    play(engine, T0 + 60, 5, {})  # goes on in run 1
    play(engine, T0, 5, {})  # then the clock goes back: run 2
    assert [r.id for r in store.runs()] == [1, 2]
    cup = reasoner(store, config(path)).answer("When did you last see a cup?")
    assert cup.stamp == T0 + 9
    store.close()


def test_the_fault_bench_clock_cases_keep_runs_and_answer_per_run(tmp_path: Path) -> None:
    """``vidmem bench faults``' clock cases, through the real intake: a jump is refused until confirmed, then
    memory starts a run; three plays count three occasions, and an hour back answers from after it."""
    from vidmem_dev.bench_clock import clock_faults, clock_lines

    figures = clock_faults(tmp_path)
    loop, back = figures["loop"], figures["hour_back"]
    assert [r["id"] for r in loop["runs"]] == [1, 2, 3] and loop["refused"].get("stamp_behind", 0) > 0
    assert sum(r["frames"] for r in loop["runs"]) == loop["kept"]
    assert "3 separate occasions" in loop["answers"]["How many times did you see a person?"]
    assert "run 3" in loop["answers"]["When did you last see a person?"]
    assert len(back["runs"]) == 2 and back["memory_begins"] == 0
    assert "run 2" in back["answers"]["When did you last see a person?"]
    assert "run 1" in back["answers"]["When did you first see a person?"]
    assert any("looped 3 times" in line for line in clock_lines(figures))


def test_a_clock_window_reaches_every_run_that_went_through_it(tmp_path: Path) -> None:
    store, corrected = two_runs(tmp_path / "memory.db")
    runs = store.runs()
    # Run 2 went through T0 - 3600 + 120 .. +239; run 1 through T0 .. T0 + 119: a window over both clocks.
    spans = clock_spans(runs, corrected + 100, T0 + 20)
    assert spans == [(corrected + 100, T0 + 20), (corrected + 100 + runs[1].offset, T0 + 20 + runs[1].offset)]
    assert [sensor_stamp(runs, t) for span in spans for t in span] == [corrected + 100, T0 + 20] * 2
    only_run2 = clock_spans(runs, corrected + 10, corrected + 20)
    found = [m.stamp for span in only_run2 for m in store.moments(*span)]
    assert found == [corrected + i + runs[1].offset for i in range(10, 21)], "run 1 never read those clock times"
    assert clock_spans([], 5.0, None) == [(5.0, math.inf)], "no runs: the window as it is"
    assert clock_note(runs, runs[1].start, [T0 + 5, runs[1].start]) == {
        "runs": 2,
        "evidence_runs": [1, 2],
        "answer_run": 2,
    }
    assert clock_note(runs[:1], T0, [T0]) == {}
    store.close()


def test_summaries_tell_the_robots_clock_with_the_run(tmp_path: Path) -> None:
    store, corrected = two_runs(tmp_path / "memory.db")
    runs = store.runs()
    shifted = utc_clock(corrected + runs[1].offset)[:16]  # the minute memory time would show for run 2's start
    with store.read() as db:
        periods = db.execute("SELECT summary, run_id FROM super_events ORDER BY id").fetchall()
        (root,) = db.execute("SELECT text FROM summaries WHERE key = ?", (ROOT_KEY,)).fetchone()
    later = [text for text, run in periods if run == 2]
    assert later and all("in run 2" in text and shifted not in text for text in later), later
    assert utc_clock(corrected) in later[0], "run 2's first period begins at the corrected clock"
    assert f"Memory from {utc_clock(T0)} in run 1 to {utc_clock(corrected + 119)} in run 2" in root, root
    summary = MemoryReader(store).summary(runs[1].start, runs[1].end)
    assert summary.text.startswith(f"{utc_clock(corrected)} to ") and "in run 2" in summary.text
    store.close()


def test_a_vlm_captioner_is_told_the_robots_clock(tmp_path: Path) -> None:
    reply = json.dumps({"caption": "A table.", "change": "", "relations": []})
    chat = ChatServer([chat_text(reply)] * 50, models=("tiny-vlm",))
    key = tmp_path / "key"
    key.write_text("sk-test\n")
    vlm = OpenAiVlmCaptioner(
        CaptionerConfig(backend="openai_vlm", url=chat.url, model="tiny-vlm", api_key_file=str(key), timeout_s=5.0)
    )
    try:
        store, corrected = two_runs(tmp_path / "memory.db", vlm)
    finally:
        chat.close()
    prompts = [body["messages"][1]["content"][0]["text"] for body in chat.bodies]
    after = [p for p in prompts if "in run 2" in p]
    assert after and f"Event from {utc_clock(corrected)}" in after[0], after[:1]
    assert not any(utc_clock(corrected + store.runs()[1].offset) in p for p in prompts)
    store.close()


def test_the_uniform_baseline_reads_as_of_on_the_robots_clock(tmp_path: Path) -> None:
    store, corrected = two_runs(tmp_path / "memory.db")
    runs = store.runs()
    embedder = build_text_embedder(load_config().text_embedder)  # the packaged MiniLM
    assert embedder is not None
    ask = SingleShotRetriever(store, embedder, min_score=0.5)
    dog = ask.answer("Did you see a dog?", as_of=corrected + 100)  # a clock time run 2 reached, after the dog came
    assert dog.stamp is not None and corrected + 80 <= sensor_stamp(runs, dog.stamp) <= corrected + 100, dog.text
    assert "dog" in dog.text
    before = ask.answer("Did you see a dog?", as_of=corrected + 50)  # the same run, before the dog
    assert before.stamp is not None and before.stamp <= corrected + 50 + runs[1].offset
    assert "dog" not in before.text
    store.close()
