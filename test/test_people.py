"""Voices: the packaged speaker encoder on a conversation of espeak-ng voices, clustered into people through the
memory engine, kept across restarts and schema versions, and asked about through the reasoner."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from vidmem_dev.bench_identity import score
from vidmem_dev.synth import espeak_available
from vidmem_dev.voices import Recording, conversation
from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.errors import InputError
from vidmem_ros.evaluation.report import write_report
from vidmem_ros.memory import schema
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.captions import ComposedCaptioner
from vidmem_ros.memory.engine import MemoryEngine
from vidmem_ros.memory.forget import forget, forget_person
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.records import Moment, Pose, Transcript
from vidmem_ros.memory.speakers import load_voices
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.speaker import ResemblyzerEmbedder, check_segment

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
T0 = 1_000.0


@pytest.fixture(scope="module")
def config() -> VidmemConfig:
    return load_config(overrides={"query.parser": "rules"})


@pytest.fixture(scope="module")
def voiced(config: VidmemConfig) -> tuple[Recording, np.ndarray]:
    """The conversation and each turn's speaker vector from the real packaged encoder."""
    recording = conversation()
    embedder = ResemblyzerEmbedder(config.speaker)
    return recording, np.stack([embedder.embed(recording.segment(turn)) for turn in recording.turns])


def _heard(engine: MemoryEngine, recording: Recording, vectors: np.ndarray, turns: range | None = None) -> list[int]:
    chosen = turns if turns is not None else range(len(recording.turns))
    return [
        engine.add_transcript(
            Transcript(T0 + recording.turns[i].start, T0 + recording.turns[i].end, recording.turns[i].text,
                       voice=vectors[i])
        )
        for i in chosen
    ]  # fmt: skip


def _speaker_ids(store: SqliteStore, refs: list[int]) -> list[int | None]:
    with store.read() as db:
        found = dict(db.execute("SELECT id, speaker_id FROM transcripts").fetchall())
    return [found.get(ref) for ref in refs]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "memory.db")
    yield opened
    opened.close()


def test_the_voices_cluster_into_the_people_who_spoke(config, voiced, store) -> None:  # type: ignore[no-untyped-def]
    recording, vectors = voiced
    refs = _heard(MemoryEngine(store, config), recording, vectors)
    found = score([t.person for t in recording.turns], _speaker_ids(store, refs))
    assert found.purity >= 0.9
    assert abs(found.voices - found.speakers) <= 1
    assert found.speakers == 5


def test_voice_ids_stay_the_same_across_a_restart(config, voiced, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    recording, vectors = voiced
    half = len(recording.turns) // 2
    first = SqliteStore(tmp_path / "memory.db")
    before = _speaker_ids(first, _heard(MemoryEngine(first, config), recording, vectors, range(half)))
    first.close()
    again = SqliteStore(tmp_path / "memory.db")
    after = _speaker_ids(again, _heard(MemoryEngine(again, config), recording, vectors, range(half, len(vectors))))
    again.close()
    people = [t.person for t in recording.turns]
    ids_before = {people[i]: before[i] for i in range(half)}
    assert all(after[i - half] == ids_before[people[i]] for i in range(half, len(people)) if people[i] in ids_before)


def test_voices_that_prove_to_be_one_are_merged_into_the_older(voiced, store) -> None:  # type: ignore[no-untyped-def]
    recording, vectors = voiced
    # Every segment founds its own voice (the threshold admits none), and merging is all that joins them.
    strict = load_config(
        overrides={"speaker.match_distance": 1e-4, "speaker.merge_distance": 0.15, "speaker.merge_min_segments": 1}
    )
    engine = MemoryEngine(store, strict)
    refs = _heard(engine, recording, vectors)
    assert engine.counts["voices_merged"] > 0
    found = score([t.person for t in recording.turns], _speaker_ids(store, refs))
    assert found.purity >= 0.9 and found.voices <= found.segments // 2  # merging alone joined most of them
    with store.read() as db:
        merged = db.execute("SELECT id, merged_into FROM speakers WHERE merged_into IS NOT NULL").fetchall()
        live = {r[0] for r in db.execute("SELECT id FROM speakers WHERE merged_into IS NULL")}
    assert merged and all(into in live and into < ref for ref, into in merged)  # the older voice survives
    assert set(_speaker_ids(store, refs)) <= live


def test_a_version_3_store_is_migrated_and_its_speech_kept(config, voiced, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "memory.db"
    SqliteStore(path).close()
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TABLE speakers; DROP TABLE transcript_voices; DROP INDEX transcripts_speaker;"
        "ALTER TABLE transcripts DROP COLUMN speaker_id;"
        "INSERT INTO transcripts (start, end, text) VALUES (10, 12, 'Kept from before voices.');"
        "UPDATE meta SET value = '3' WHERE key = 'schema_version';"
    )
    db.commit()
    db.close()
    store = SqliteStore(path)
    assert store.get_meta("schema_version") == str(schema.SCHEMA_VERSION) == "6"
    old = store.transcripts(0, 20)
    assert [(t.text, t.speaker_id) for t in old] == [("Kept from before voices.", None)]
    recording, vectors = voiced
    refs = _heard(MemoryEngine(store, config), recording, vectors, range(3))
    assert None not in _speaker_ids(store, refs)
    store.close()


def test_bad_segments_and_vectors_are_refused_and_nothing_else_is_lost(config, voiced, store) -> None:  # type: ignore[no-untyped-def]
    recording, vectors = voiced
    speech = recording.segment(recording.turns[1])
    with pytest.raises(InputError, match="silent"):
        check_segment(np.zeros(32_000, np.float32), 1.0)
    with pytest.raises(InputError, match="clipped"):
        check_segment(np.clip(speech * 50, -1, 1), 1.0)
    with pytest.raises(InputError, match="too_short"):
        check_segment(speech[:8_000], 1.0)
    engine = MemoryEngine(store, config)
    good = _heard(engine, recording, vectors, range(2))
    nan = engine.add_transcript(Transcript(T0 + 200, T0 + 202, "Static.", voice=np.full(256, np.nan, np.float32)))
    short = engine.add_transcript(Transcript(T0 + 210, T0 + 212, "Odd.", voice=np.ones(7, np.float32)))
    assert engine.counts["voice_refused_bad_embedding"] == 2
    assert _speaker_ids(store, [nan, short]) == [None, None]  # the words are kept without a speaker
    assert [t.text for t in store.transcripts(T0 + 199, T0 + 213)] == ["Static.", "Odd."]
    # A voice row whose centroid was damaged is left out; the others load and go on matching.
    with store.write() as db:
        db.execute("UPDATE speakers SET centroid = x'0102' WHERE id = ?", (_speaker_ids(store, good)[0],))
    assert len(load_voices(store._reader())) == 1
    again = MemoryEngine(store, config)
    assert _speaker_ids(store, _heard(again, recording, vectors, range(6, 7))) == [_speaker_ids(store, good)[1]]


def test_forgetting_all_a_person_said_removes_the_voice(config, voiced, store) -> None:  # type: ignore[no-untyped-def]
    recording, vectors = voiced
    engine = MemoryEngine(store, config)
    refs = _heard(engine, recording, vectors, range(5))
    first = recording.turns[0]
    forget(engine.archive, T0 + first.start - 0.1, T0 + first.end + 0.1)
    with store.read() as db:
        voices = {r[0] for r in db.execute("SELECT id FROM speakers")}
    assert _speaker_ids(store, refs[:1]) == [None] and len(voices) == 4


def test_who_questions_are_answered_from_the_voices(config, voiced, store) -> None:  # type: ignore[no-untyped-def]
    recording, vectors = voiced
    for second in range(0, int(recording.seconds) + 5, 5):  # frames along a corridor: memory's time and places
        store.add_moment(Moment(T0 + second, "camera", 8, 8, None, pose=Pose("map", second / 10, 2.0)))
    _heard(MemoryEngine(store, config), recording, vectors)
    reasoner = Reasoner(store, config.query, ())

    def ask(question: str) -> tuple[str, object]:
        answer = reasoner.answer(question)
        return answer.text, answer.value

    text, value = ask("Who told you about the water leak?")
    assert value == "Dana" and "leak" in text
    text, value = ask("Who said the lift is broken?")
    assert value == "Marco"
    text, value = ask("Who reported that the printer is out of toner?")
    assert str(value).startswith("the speaker I first heard at t=")  # never introduced: no name is invented
    text, value = ask("What else did the person who mentioned the fire drill say?")
    assert "visitors must sign in" in text.lower() and "lock the side door" in text.lower()
    assert ask("How many different people spoke?")[1] == 5
    assert (
        ask("Was it the same person who mentioned the spare keys and who said the back gate camera stopped?")[1] is True
    )
    assert ask("Was it the same person who asked for the boxes and who mentioned the plumber?")[1] is False


def _corridor(store: SqliteStore, recording: Recording) -> None:
    """Frames along a corridor, one per 2 s: memory's time, and where the robot was as each person spoke."""
    for second in range(0, int(recording.seconds) + 2, 2):
        store.add_moment(Moment(T0 + second, "camera", 8, 8, None, pose=Pose("map", second / 10, 2.0)))


def test_search_and_summary_show_people_with_times_places_and_what_they_said(config, voiced, store) -> None:  # type: ignore[no-untyped-def]
    recording, vectors = voiced
    _corridor(store, recording)
    _heard(MemoryEngine(store, config), recording, vectors)
    reader = MemoryReader(store)
    truth = [t.person for t in recording.turns]

    summary = reader.summary()
    assert len(summary.people) == len(set(truth)) == 5
    assert f"People heard: {len(summary.people)} different people." in summary.text
    dana = next(p for p in summary.people if p.name == "Dana")
    danas = [t for t in recording.turns if t.person == "dana"]
    assert [line.text for line in dana.lines] == [t.text for t in danas]
    assert dana.first == pytest.approx(T0 + danas[0].start) and dana.last == pytest.approx(T0 + danas[-1].end)
    # The robot moved 0.1 m/s: she was heard at different metres of the corridor, each where she spoke.
    spoken_at = [t.start / 10 for t in danas]
    assert len(dana.places()) >= 3 and all(y == 2.0 for _, y in dana.places())
    assert all(min(abs(x - at) for at in spoken_at) <= 0.15 for x, _ in dana.places())
    assert f"Dana ({dana.ref}): heard {len(danas)} times" in summary.text and danas[1].text in summary.text

    hits = reader.search("water leak", people=True)
    assert hits[0].kind == "transcript" and "leak" in hits[0].text
    person_hits = [h for h in hits if h.kind == "speaker"]
    assert person_hits[0].ref == dana.id and person_hits[0].text.startswith("Dana (speaker/")
    assert not [h for h in reader.search("water leak") if h.kind == "speaker"]  # the agent's search is unchanged
    named = reader.search("Marco", people=True)
    marco = [h for h in named if h.kind == "speaker"]
    assert len(marco) == 1 and "lift on the east side is broken" in marco[0].text
    # A window holds only what was said in it: the summary of the first turns names only their speakers.
    early = reader.summary(T0, T0 + recording.turns[1].end + 0.1)
    assert [p.label(T0) for p in early.people][:1] == ["Dana"] and len(early.people) == 2


def test_the_report_has_a_row_per_person_in_a_real_browser(config, voiced, store, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from rendered_page import Dom, render

    recording, vectors = voiced
    _corridor(store, recording)
    engine = MemoryEngine(store, config)
    _heard(engine, recording, vectors)
    hostile = "<img src=x onerror=alert(3)> the side door"
    engine.add_transcript(Transcript(T0 + recording.seconds + 1, T0 + recording.seconds + 3, hostile, voice=vectors[0]))
    out = tmp_path / "report.html"
    write_report(out, store.path, [], {}, [], T0)
    dom = Dom(render(out, tmp_path / "chromium-profile"))
    text = "".join(dom.text)
    with store.read() as db:
        live = {r[0] for r in db.execute("SELECT id FROM speakers WHERE merged_into IS NULL")}
    assert {row["id"] for row in dom.with_class("person")} == {f"speaker-{ref}" for ref in live}
    assert len(live) == 5 and "Dana" in text and "Marco" in text and "Omar" in text
    assert all(t.text in text for t in recording.turns)  # what each said, every sentence
    assert hostile in text and not any("onerror" in attrs for _, attrs in dom.elements)  # shown as text
    assert text.count("the speaker I first heard at t=") >= 2  # no name invented for those who never gave one


def test_forgetting_a_person_removes_their_voice_and_keeps_their_words(config, voiced, store) -> None:  # type: ignore[no-untyped-def]
    recording, vectors = voiced
    _corridor(store, recording)
    engine = MemoryEngine(store, config)
    refs = _heard(engine, recording, vectors)
    people = [t.person for t in recording.turns]
    ids = _speaker_ids(store, refs)
    marco = ids[people.index("marco")]
    assert marco is not None
    reasoner = Reasoner(store, config.query, ())
    assert reasoner.answer("Who said the lift is broken?").value == "Marco"

    report = forget_person(EventArchive(store, config, ComposedCaptioner()), marco)
    assert report.voices == [marco] and report.unlinked == people.count("marco") and report.transcripts == 0
    after = _speaker_ids(store, refs)
    assert all((a is None) == (p == "marco") for a, p in zip(after, people, strict=True))
    assert after == [None if p == "marco" else i for i, p in zip(ids, people, strict=True)]  # no one else changed
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM speakers WHERE id = ?", (marco,)).fetchone()[0] == 0
        kept_vectors = {r[0] for r in db.execute("SELECT transcript_id FROM transcript_voices")}
    assert kept_vectors == {r for r, p in zip(refs, people, strict=True) if p != "marco"}
    assert "lift on the east side" in " ".join(t.text for t in store.transcripts(-np.inf, np.inf))  # words kept
    assert reasoner.answer("Who said the lift is broken?").value != "Marco"
    assert "Marco" not in MemoryReader(store).summary().text
    # The engine that was running drops its cache: his voice heard again is a new person, with a new id.
    again = engine.add_transcript(
        Transcript(T0 + recording.seconds + 1, T0 + recording.seconds + 4, "Me again.", voice=vectors[4])
    )
    [new] = _speaker_ids(store, [again])
    assert new is not None and new not in set(ids)

    with pytest.raises(InputError, match="unknown_person"):
        forget_person(EventArchive(store, config, ComposedCaptioner()), marco)
    dana = ids[people.index("dana")]
    assert dana is not None
    gone = forget_person(EventArchive(store, config, ComposedCaptioner()), dana, with_speech=True)
    assert gone.transcripts == people.count("dana") and gone.unlinked == 0
    left = " ".join(t.text for t in store.transcripts(-np.inf, np.inf))
    assert "water leak" not in left and "Dana" not in left and "lock the side door" in left
    assert not [h for h in MemoryReader(store).search("leak plumber") if h.kind == "transcript"]
