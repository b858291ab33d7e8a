"""One person across modalities: the espeak-ng conversation played while packaged faces are in view
(``vidmem_dev.meeting``), through the ingest pipeline with dlib's and resemblyzer's packaged models; voices and
faces linked against the truth, people counted, placed, named by a badge, asked about, shown and forgotten."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from vidmem_dev.meeting import BADGE, FACE_OF, Meeting, link_scores, meeting, remember, truth
from vidmem_dev.synth import espeak_available
from vidmem_dev.voices import conversation
from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.evaluation.report import write_report
from vidmem_ros.memory import links, schema
from vidmem_ros.memory.archive import EventArchive
from vidmem_ros.memory.captions import ComposedCaptioner
from vidmem_ros.memory.forget import forget_person, forget_ref
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.records import Moment
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.face import DlibFaceEmbedder
from vidmem_ros.perception.speaker import ResemblyzerEmbedder

pytestmark = pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
T0 = 2_000.0


@pytest.fixture(scope="module")
def config() -> VidmemConfig:
    return load_config(overrides={"face.backend": "dlib", "query.parser": "rules"})


@pytest.fixture(scope="module")
def met(config: VidmemConfig, tmp_path_factory: pytest.TempPathFactory) -> tuple[Meeting, Path]:
    """The meeting remembered once; each test works on its own copy of the store."""
    recording = conversation()
    speaker = ResemblyzerEmbedder(config.speaker)
    voices = np.stack([speaker.embed(recording.segment(turn)) for turn in recording.turns])
    scene = meeting(recording)
    path = tmp_path_factory.mktemp("meeting") / "memory.db"
    remember(scene, config, path, DlibFaceEmbedder(config.face), voices, T0).close()
    return scene, path


@pytest.fixture
def store(met: tuple[Meeting, Path], tmp_path: Path) -> SqliteStore:
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{met[1]}{suffix}").exists():
            shutil.copy(f"{met[1]}{suffix}", tmp_path / f"memory.db{suffix}")
    return SqliteStore(tmp_path / "memory.db")


def test_voices_and_faces_heard_together_are_linked_and_no_others(met, store) -> None:  # type: ignore[no-untyped-def]
    scene, _ = met
    scores = link_scores(scene, store, T0)
    assert scores["precision"] == 1.0 and scores["recall"] == 1.0 and scores["links"] == len(FACE_OF)
    voices, faces = truth(scene, store, T0)
    linked = {(voices[v], faces[f]) for v, f, _ in store.person_links()}
    assert linked == set(FACE_OF.items())  # the bystander seen once while Marco spoke is not Marco
    assert all(c >= links.MIN_CONFIDENCE for _, _, c in store.person_links())


def test_one_co_occurrence_or_a_face_in_front_of_several_voices_links_nothing() -> None:
    assert links.links([(1, 7)]) == []  # once is chance
    assert links.links([(1, 7), (1, 7), (2, 7), (2, 7), (3, 7), (3, 7)]) == []  # the face of a crowd
    [only] = links.links([(1, 7), (1, 7), (1, 7), (2, 7)])
    assert (only.speaker_id, only.face_id, only.together, only.confidence) == (1, 7, 3, 0.75)


def test_links_asked_as_of_a_moment_stand_on_the_evidence_up_to_it(met, store) -> None:  # type: ignore[no-untyped-def]
    scene, _ = met
    dana = [t for t in scene.recording.turns if t.person == "dana"]
    before_second = T0 + dana[1].start - 1.0  # Dana heard once in front of her face: chance, not yet a link
    voices, faces = truth(scene, store, T0)
    early = {(voices[v], faces[f]) for v, f, _ in store.person_links(as_of=before_second)}
    assert ("dana", "astronaut") not in early
    assert store.person_links(as_of=T0 + scene.seconds + 60) == store.person_links()  # nothing later: as stored
    reader = MemoryReader(store)
    then = next(p for p in reader.people(as_of=before_second) if p.name == "Dana")
    assert then.face_id is None and then.link == 0.0  # her face is someone else's as of then
    now = next(p for p in reader.people() if p.name == "Dana")
    assert now.face_id is not None and now.link >= links.MIN_CONFIDENCE


def test_a_link_later_evidence_breaks_stands_as_of_before_it(tmp_path: Path) -> None:
    """A face in view twice while voice 1 spoke is voice 1's; later the same face is in view while voices 2 and 3
    speak, four times, and is nobody's: asked as of before that, the link stands."""
    store = SqliteStore(tmp_path / "memory.db")
    speech = [(10.0, 1), (20.0, 1), (40.0, 2), (50.0, 3), (60.0, 2), (70.0, 3)]
    with store.write() as db:
        for k, (start, voice) in enumerate(speech):
            db.execute(
                "INSERT INTO transcripts (start, end, text, speaker_id) VALUES (?, ?, ?, ?)",
                (T0 + start, T0 + start + 2.0, f"line {k}", voice),
            )
    for start, _ in speech:
        moment = store.add_moment(Moment(T0 + start + 1.0, "camera", 8, 8, None))
        with store.write() as db:
            db.execute(
                "INSERT INTO face_sightings (moment_id, stamp, x0, y0, x1, y1, sharpness, vector, face_id) "
                "VALUES (?, ?, 0, 0, 4, 4, 1.0, x'00', 7)",
                (moment, T0 + start + 1.0),
            )
    with store.write() as db:
        assert links.relink(db) == []  # the face of four voices is none of them
    assert store.person_links() == []
    assert store.person_links(as_of=T0 + 30.0) == [(1, 7, 1.0)]
    assert store.person_links(as_of=T0 + 55.0) == [(1, 7, 0.5)]  # two of the face's four co-occurrences
    assert store.person_links(as_of=T0 + 15.0) == []  # once is chance
    store.close()


def test_people_are_counted_placed_and_named_only_from_evidence(store) -> None:  # type: ignore[no-untyped-def]
    people = MemoryReader(store).people()
    assert len(people) == 7  # five voices, five faces, three of them one person each
    assert sum(1 for p in people if p.lines and p.seen) == 3
    assert sorted(p.name for p in people if p.name) == sorted(["Dana", "Omar", "Marco", BADGE[1]])
    sam = next(p for p in people if p.name == BADGE[1])
    assert sam.badge is not None and sam.named_by is None and sam.lines  # named by the badge, heard too
    dana = next(p for p in people if p.name == "Dana")
    assert {(2.0, 1.0), (9.0, 4.0)} <= set(dana.seen_places())  # the coffee corner and the lobby
    silent = [p for p in people if not p.lines]
    assert len(silent) == 2 and all(p.label(T0).startswith("the person I first saw at t=") for p in silent)
    text = MemoryReader(store).summary().text
    assert "People met: 7 different people (5 heard, 5 seen, 3 both heard and seen)." in text
    hits = MemoryReader(store).search("Okafor", people=True)
    assert [h.ref for h in hits if h.kind == "speaker"] == [sam.speaker_id]


def test_who_questions_about_people_seen(config, store) -> None:  # type: ignore[no-untyped-def]
    reasoner = Reasoner(store, config.query, ())

    def ask(question: str) -> object:
        return reasoner.answer(question).value

    assert ask("How many different people did you see?") == 5
    assert ask("How many different people did you meet?") == 7
    assert ask("How many different people spoke?") == 5
    assert "(9.0, 4.0)" in str(ask("Where did you see Dana?"))
    last = ask("When did you last see the person who said the lift is broken?")  # Marco was never seen
    assert last == ""
    seen_last = ask("When did you last see the person who said there is a water leak?")
    dana = next(p for p in MemoryReader(store).people() if p.name == "Dana")
    assert seen_last == pytest.approx(dana.seen[-1].stamp - MemoryReader(store).memory_start(), abs=1)
    assert ask(f"When did you first see {BADGE[1]}?") is not None
    answer = reasoner.answer("When did you last see the fire extinguisher?")
    assert "first saw" not in answer.text and "last saw" not in answer.text  # a thing, not a person


def test_forgetting_a_linked_person_takes_the_face_too_and_keeps_the_words(config, met, store) -> None:  # type: ignore[no-untyped-def]
    dana = next(p for p in MemoryReader(store).people() if p.name == "Dana")
    assert dana.speaker_id is not None and dana.face_id is not None
    with store.read() as db:
        frames = db.execute("SELECT COUNT(*) FROM moments").fetchone()[0]
        crops = db.execute("SELECT COUNT(*) FROM face_crops").fetchone()[0]
    report = forget_person(EventArchive(store, config, ComposedCaptioner()), dana.speaker_id)
    assert report.voices == [dana.speaker_id] and report.faces == [dana.face_id]
    assert report.sightings == len(dana.seen) and report.unlinked == len(dana.lines) and report.transcripts == 0
    with store.read() as db:
        assert db.execute("SELECT COUNT(*) FROM face_sightings WHERE face_id = ?", (dana.face_id,)).fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM moments").fetchone()[0] == frames  # the frames stay
        assert db.execute("SELECT COUNT(*) FROM face_crops").fetchone()[0] < crops
        assert (
            db.execute("SELECT COUNT(*) FROM person_links WHERE speaker_id = ?", (dana.speaker_id,)).fetchone()[0] == 0
        )
    assert len(store.person_links()) == 2  # the others' links stand
    assert "water leak" in " ".join(t.text for t in store.transcripts(-np.inf, np.inf))
    assert "Dana" not in MemoryReader(store).summary().text.split("People met")[1]
    sam = next(p for p in MemoryReader(store).people() if p.name == BADGE[1])
    gone = forget_ref(EventArchive(store, config, ComposedCaptioner()), f"face/{sam.face_id}", with_speech=True)
    assert gone.faces == [sam.face_id] and gone.voices == [sam.speaker_id] and gone.transcripts == len(sam.lines)


def test_a_version_5_store_is_migrated_and_its_people_linked(met, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "memory.db"
    SqliteStore(met[1]).close()
    shutil.copy(met[1], path)
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE person_links; UPDATE meta SET value = '5' WHERE key = 'schema_version';")
    db.commit()
    db.close()
    store = SqliteStore(path)
    assert store.get_meta("schema_version") == str(schema.SCHEMA_VERSION) == "6"
    assert len(store.person_links()) == len(FACE_OF)


def test_the_report_has_a_row_per_person_with_faces_in_a_real_browser(store, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from rendered_page import Dom, render

    out = tmp_path / "report.html"
    write_report(out, store.path, [], {}, [], T0)
    dom = Dom(render(out, tmp_path / "chromium-profile"))
    text = "".join(dom.text)
    rows = {row["id"] for row in dom.with_class("person")}
    assert len(rows) == 7 and sum(r.startswith("face-") for r in rows) == 2
    assert BADGE[1] in text and "(9.0, 4.0)" in text and "linked" in text
