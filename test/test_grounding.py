"""Grounding a description in every kind of record: signs, sentences heard, detections, tags, captions."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from vidmem_ros.agent.grounding import (
    CLAIM_MIN,
    Grounded,
    Grounder,
    MeaningCache,
    Sense,
    ValueKind,
    found_in,
    naming_words,
    sight_named,
    source_named,
    terms,
    value_kind,
    word_score,
)
from vidmem_ros.memory.records import Detection, Moment, Pose, Transcript
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.types import Tag, TextLine

T0 = 1_800_000_000.0
BOX = (0.0, 0.0, 10.0, 10.0)


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    store = SqliteStore(tmp_path / "memory.db")
    signs = {
        10: ["POOL OPENS", "AT 7 AM"],
        30: ["BOILER ROOM", "STAFF ONLY"],
        50: ["PLATFORM 4"],
    }
    for offset, lines in signs.items():
        for k in range(3):  # a sign is read over a few frames
            texts = [TextLine(line, 0.95) for line in lines]
            store.add_moment(
                Moment(T0 + offset + k, "/cam", 64, 48, None, texts=texts, pose=Pose("map", offset / 10, 0.0))
            )
    store.add_transcript(Transcript(T0 + 60, T0 + 63, "The pool will close early today because of a leak."))
    store.add_transcript(Transcript(T0 + 80, T0 + 83, "Lunch is being served in the dining hall on level two."))
    kite = Detection("kite", 0.9, BOX)
    for offset in (100, 101, 102):
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, detections=[kite], pose=Pose("map", 10.0, 5.0)))
    frog = Tag("tree frog", 0.3, ("tree frog", "frog", "amphibian", "animal"))
    store.add_moment(Moment(T0 + 120, "/cam", 64, 48, None, tags=[frog], pose=Pose("map", 12.0, 5.0)))
    heron = Tag("heron", 0.5, ("heron", "bird", "animal"))
    for offset in (140, 141, 142):
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, tags=[heron], pose=Pose("map", 14.0, 5.0)))
    return store


def grounder(store: SqliteStore, meaning: MeaningCache | None = None, as_of: float | None = None) -> Grounder:
    labels = {"kite": ["kite"], "kites": ["kite"]}
    return Grounder(
        store,
        as_of,
        (-math.inf, math.inf),
        meaning or MeaningCache(None),
        lambda phrase: next((v for k, v in labels.items() if k in phrase.split()), []),
    )


@pytest.mark.parametrize(
    "question, expected",
    [
        ("According to the notice by the pool, when does it open?", [Sense.READ]),
        ("What did the voice on the intercom say about the pool?", [Sense.HEARD]),
        ("The pool: what was announced about it?", [Sense.HEARD]),
        ("Which hours were printed on the card at the desk?", [Sense.READ]),
        ("You saw a plaque near the lift. What did it name?", [Sense.READ]),  # seeing a plaque is reading it
        ("When does the pool open?", []),
        ("When did the request for more blankets come in?", [Sense.HEARD]),  # a request is made in words
        ("What was the complaint about the lift?", [Sense.HEARD]),
        # A verb of saying is a voice's where a person says it, and either's where a thing does.
        ("Did somebody mention the ferry?", [Sense.HEARD]),
        ("What had they said about the boiler?", [Sense.HEARD]),
        ("Which ferry does the brochure in the lobby say to catch?", [Sense.READ, Sense.HEARD]),
        ("The catalogue mentioned which colour?", [Sense.READ, Sense.HEARD]),
        # a bearer's name used as a verb names no bearer
        ("Which families were called to board?", []),
        ("What did the brochure you picked up say about parking?", [Sense.READ, Sense.HEARD]),  # "you" picked it up
        ("Were the visitors asked to sign in at the desk?", []),
        # A thing that bears pictures as well as words: what it had on it was seen too, what it says was read.
        ("Which bird was on the banner over the gate?", [Sense.READ, Sense.SEEN]),
        ("Did the screen in the foyer show a boat?", [Sense.READ, Sense.SEEN]),
        ("What did the leaflet say about refunds?", [Sense.READ]),
        ("What was written on the poster?", [Sense.READ]),
        # a word of hearing that qualifies a thing bearing words names that thing, read
        ("What did the announcement board by the lift say?", [Sense.READ]),
        ("Which did you see first: the kettle or the call sheet?", []),  # seeing names no restriction
        ("Did anyone call about the boiler?", [Sense.HEARD]),
        # words put on a thing by any hand are read
        ("What name is stencilled on the tea chest?", [Sense.READ]),
        ("Which price was chalked up beside the hatch?", [Sense.READ]),
        ("What number is etched into the valve?", [Sense.READ]),
    ],
)
def test_the_source_a_question_names_restricts_the_search(question: str, expected: list[Sense]) -> None:
    assert source_named(question) == expected


def test_word_forms_match_without_hiding_inside_other_words() -> None:
    assert found_in("leaking", "a leak in the roof") and found_in("plates", "PLATE 7")
    assert not found_in("plate", "PLATFORM 4") and not found_in("lab", "LABEL")
    assert found_in("eastwing", "the east wing") and found_in("tower", "EASTTOWER LIFTS")  # run together either way
    assert terms("Which of the signs showed the time the pool opens?") == ["signs", "showed", "pool", "opens"]


def test_words_no_record_holds_describe_the_bearer_and_weigh_little() -> None:
    wanted = ["yellow", "notice", "pool", "opens"]
    known = {"pool", "opens"}
    assert word_score(wanted, "POOL OPENS / AT 7 AM", known) == pytest.approx(2 / 2.5)
    assert word_score(["pool", "opens"], "POOL OPENS", known) == 1.0
    assert word_score(wanted, "BOILER ROOM", known) == 0.0


@pytest.mark.parametrize(
    "description",
    ["the yellow notice about the pool opening", "when the pool opens", "pool opening hours on the sign"],
)
def test_a_sign_is_grounded_by_its_words_whatever_else_the_description_says(
    store: SqliteStore, description: str
) -> None:
    grounding = grounder(store).ground(description, [Sense.READ])
    best = grounding.claimed()
    assert best is not None and best.kind == "text" and best.text == "POOL OPENS / AT 7 AM"
    assert (best.stamp, best.end, best.count) == (T0 + 10, T0 + 12, 3)
    assert best.ref.startswith("text/") and best.pose == Pose("map", 1.0, 0.0)


def test_a_named_source_keeps_other_kinds_out(store: SqliteStore) -> None:
    heard = grounder(store).ground("the pool", [Sense.HEARD]).claimed()
    read = grounder(store).ground("the pool", [Sense.READ]).claimed()
    assert heard is not None and heard.kind == "transcript" and heard.stamp == T0 + 60
    assert read is not None and read.kind == "text" and read.stamp == T0 + 10
    both = grounder(store).ground("the pool")
    assert {g.kind for g in both.found if g.score > 0} == {"text", "transcript"}


def test_nothing_is_claimed_without_a_margin_over_the_next_thing(store: SqliteStore, tmp_path: Path) -> None:
    twin = SqliteStore(tmp_path / "twin.db")
    for offset, line in ((0, "EXIT NORTH"), (40, "EXIT SOUTH")):
        twin.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, texts=[TextLine(line, 0.9)]))
    assert grounder(twin).ground("the exit sign", [Sense.READ]).claimed() is None
    assert grounder(twin).ground("the south exit", [Sense.READ]).claimed() is not None


def test_readings_of_one_sign_that_missed_a_line_are_no_rival_to_it(tmp_path: Path) -> None:
    # One board read in one view, sometimes without its heading and a letter misread: one thing, standing out.
    board = SqliteStore(tmp_path / "board.db")
    readings = [["TIDE TABLE", "HIGH 06:12", "LOW 12:40"]] * 3 + [["HIGH O6:12", "LOW 12:40"]] * 4
    for k, lines in enumerate(readings):
        board.add_moment(Moment(T0 + 2 * k, "/cam", 64, 48, None, texts=[TextLine(line, 0.9) for line in lines]))
    found = grounder(board).ground("the high and low water", [Sense.READ])
    claimed = found.claimed()
    assert claimed is not None and len({g.identity for g in found.found}) == 1  # two readings of one sign ...
    assert claimed.stamp == T0 and claimed.end == T0 + 12  # ... met from the first reading to the last
    # A board beside it that differs in a number, or in a letter no reader takes for another, is another board.
    stairs = SqliteStore(tmp_path / "stairs.db")
    for k, line in enumerate(["STAIR A / EXIT"] * 3 + ["STAIR B / EXIT"] * 3):
        stairs.add_moment(Moment(T0 + 2 * k, "/cam", 64, 48, None, texts=[TextLine(t, 0.9) for t in line.split(" / ")]))
    assert len({g.identity for g in grounder(stairs).ground("the stair exit", [Sense.READ]).found}) == 2
    gates = SqliteStore(tmp_path / "gates.db")
    for k, line in enumerate(["GATE 12 BOARDING"] * 3 + ["GATE 13 BOARDING"] * 3):
        gates.add_moment(Moment(T0 + 2 * k, "/cam", 64, 48, None, texts=[TextLine(line, 0.9)]))
    assert grounder(gates).ground("the gate boarding", [Sense.READ]).claimed() is None
    # Like lines read later, in another view, are another board: a rival as before.
    board.add_moment(
        Moment(T0 + 300, "/cam", 64, 48, None, texts=[TextLine(t, 0.9) for t in ("HIGH 06:12", "LOW 12:40")])
    )
    assert grounder(board).ground("the high and low water", [Sense.READ]).claimed() is None


def test_a_detection_grounds_a_thing_seen_and_a_tag_only_on_more_than_one_frame_or_when_confident(
    store: SqliteStore,
) -> None:
    kite = grounder(store).ground("a kite", [Sense.SEEN]).claimed()
    assert kite is not None and kite.kind == "detection" and (kite.stamp, kite.count) == (T0 + 100, 3)
    heron = grounder(store).ground("any birds", [Sense.SEEN]).claimed()
    assert heron is not None and heron.kind == "tag" and heron.count == 3
    frog = grounder(store).ground("a frog", [Sense.SEEN])
    assert frog.found and frog.found[0].score < CLAIM_MIN and frog.claimed() is None  # one frame's weak guess
    sure = Tag("tree frog", 0.7, ("tree frog", "frog", "amphibian", "animal"))
    store.add_moment(Moment(T0 + 160, "/cam", 64, 48, None, tags=[sure], pose=Pose("map", 16.0, 5.0)))
    amphibian = grounder(store).ground("an amphibian", [Sense.SEEN]).claimed()
    assert amphibian is not None and amphibian.stamp == T0 + 160  # one frame, but a confident tag


def test_a_tag_is_named_by_its_head_not_by_a_word_that_qualifies_it(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "memory.db")
    tag = Tag("lion fish", 0.8, ("lionfish", "scorpaenid fish", "fish", "animal"))
    for offset in (0, 1, 2):
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, tags=[tag], pose=Pose("map", 1.0, 1.0)))
    for description in ("a lion", "lions", "the lion"):  # a lion fish is a fish
        assert grounder(store).ground(description, [Sense.SEEN]).claimed() is None, description
    for description in ("a fish", "the lion fish", "any scorpaenid fish"):
        assert grounder(store).ground(description, [Sense.SEEN]).claimed() is not None, description


def test_nothing_after_the_question_is_grounded(store: SqliteStore) -> None:
    early = grounder(store, as_of=T0 + 70).ground("lunch in the dining hall")
    assert all(g.stamp <= T0 + 70 for g in early.found) and early.claimed() is None


def test_meaning_grounds_a_description_that_shares_no_word_with_what_was_heard(store: SqliteStore) -> None:
    from vidmem_ros.config import load_config
    from vidmem_ros.perception.registry import build_text_embedder

    embedder = build_text_embedder(load_config().text_embedder)
    assert embedder is not None
    meaning = MeaningCache(embedder)
    for description in ("the message about a meal", "food being offered", "when meals are available"):
        best = grounder(store, meaning).ground(description, [Sense.HEARD]).claimed()
        assert best is not None and best.text.startswith("Lunch"), description
        assert best.words == 0.0 and best.meaning > 0


@pytest.mark.parametrize("description", ["spa", "a pub", "the lab"])
def test_a_word_of_three_letters_asked_about_has_a_meaning_to_match(tmp_path: Path, description: str) -> None:
    """A question's short word is a word; only a reader's fragments of two or three letters are noise."""
    from vidmem_ros.config import load_config
    from vidmem_ros.perception.registry import build_text_embedder

    store = SqliteStore(tmp_path / "memory.db")
    sign = [TextLine("SAUNA AND STEAM ROOM", 0.95), TextLine("BEER ON TAP", 0.95), TextLine("FUME CUPBOARD", 0.95)]
    store.add_moment(Moment(T0, "/cam", 64, 48, None, texts=sign, pose=Pose("map", 0.0, 0.0)))
    embedder = build_text_embedder(load_config().text_embedder)
    found = grounder(store, MeaningCache(embedder)).ground(description, [Sense.READ]).found
    assert found and found[0].meaning > 0, description


def _lexicon():  # type: ignore[no-untyped-def]
    from vidmem_ros.agent.labels import LabelLexicon
    from vidmem_ros.config import load_config

    return LabelLexicon(["person"], load_config().lexicon)


@pytest.mark.parametrize("description", ["the box of biscuits", "a biscuit", "biscuits on the counter"])
def test_a_word_is_found_as_its_synonym(tmp_path: Path, description: str) -> None:
    store = SqliteStore(tmp_path / "memory.db")
    for offset, line in ((10, "HOME-MADE COOKIES 2 FOR 1"), (30, "TICKET OFFICE")):
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, texts=[TextLine(line, 0.9)]))
    lexicon = _lexicon()
    plain = grounder(store).ground(description, [Sense.READ])
    assert plain.claimed() is None or "COOKIES" not in plain.claimed().text  # type: ignore[union-attr]
    widened = Grounder(store, None, (-math.inf, math.inf), MeaningCache(None), synonyms_of=lexicon.synonyms).ground(
        description, [Sense.READ]
    )
    best = widened.claimed()
    assert best is not None and "COOKIES" in best.text and best.words < 1.0


def test_synonyms_are_other_words_for_a_words_own_frequent_concrete_sense() -> None:
    lexicon = _lexicon()
    assert "cookie" in lexicon.synonyms("biscuits") and "couch" in lexicon.synonyms("sofa")
    assert "machine" not in lexicon.synonyms("car")  # a car is not what "machine" mostly means
    assert not lexicon.synonyms("rubbish")  # talk called rubbish is no synonym of a thing
    assert "dr" in lexicon.synonyms("physician")  # WordNet's abbreviation ("Dr."), as a recogniser writes it


def test_a_description_is_found_by_an_abbreviation_of_its_word(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "memory.db")
    store.add_transcript(Transcript(T0 + 10, T0 + 13, "Paging Dr. Lindahl, to the east lab please."))
    store.add_transcript(Transcript(T0 + 40, T0 + 43, "The van is parked by the gate."))
    lexicon = _lexicon()
    found = Grounder(
        store, None, (-math.inf, math.inf), MeaningCache(None), lambda phrase: [], synonyms_of=lexicon.synonyms
    ).ground("a physician", [Sense.HEARD])
    best = found.claimed()
    assert best is not None and best.stamp == T0 + 10


def test_readings_of_one_sign_in_one_view_are_one_thing(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "memory.db")
    views = {
        10: "GATE 4 / EAST WING",
        11: "GATE / EAST WING",
        12: "GATE 4 / EAST WING",
        13: "GATE4",
        90: "GATE 4 / EAST WING",
    }
    for offset, text in views.items():
        lines = [TextLine(line, 0.9) for line in text.split(" / ")]
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, texts=lines))
    found = grounder(store).ground("the east wing gate sign", [Sense.READ])
    best = found.claimed()
    assert best is not None and best.text == "GATE 4 / EAST WING"
    assert [round(g.stamp - T0) for g in found.of(best.identity)] == [10, 90]


@pytest.mark.parametrize(
    "text, kind, holds",
    [
        ("IRENA VOSKUIJLEN / Archivist", ValueKind.NAME, True),
        ("Dr Pell will call back", ValueKind.NAME, True),
        ("BOILERROOM / KEEPOUT", ValueKind.NAME, False),  # dictionary words run together
        ("GUEST WI-FI / network: OSPREY", ValueKind.NAME, False),
        ("NETWT 8.8 OZ / ZANTO", ValueKind.NAME, False),  # fragments on separate lines, or too short
        ("Head Librarian", ValueKind.OCCUPATION, True),
        ("Visitor Parking", ValueKind.OCCUPATION, False),  # a word for a person that names something else
        ("Crisp Cookies baked daily with real butter", ValueKind.OCCUPATION, False),
        ("Our electrician will test the sockets on Friday", ValueKind.OCCUPATION, True),
        ("Visitor Parking", ValueKind.PERSON, True),
        ("LOCKER 214", ValueKind.NUMBER, True),
    ],
)
def test_a_record_holds_the_kind_of_value_asked_for(text: str, kind: ValueKind, holds: bool) -> None:
    from vidmem_ros.agent import tools
    from vidmem_ros.agent.tool_context import ToolContext

    ctx = ToolContext(store=None, as_of=None, t0=0.0, vocabulary=("person",))  # type: ignore[arg-type]
    assert tools._holds(ctx, kind, text) is holds, text


@pytest.mark.parametrize(
    "question, kind",
    [
        ("Whose name is on the plaque?", ValueKind.NAME),
        ("I want the name of whoever is listed on the rota.", ValueKind.NAME),
        ("Which year is carved over the door?", ValueKind.NUMBER),
        ("What year does the plaque on the bench give?", ValueKind.NUMBER),
        ("Give me whoever's name was on the locker tag.", ValueKind.NAME),
        ("have you read anyone's name so far", ValueKind.NAME),
        ("did you read any names", ValueKind.NAME),
        ("what was the visitor's name", ValueKind.NAME),
        ("who fixed the boiler", ValueKind.PERSON),
        ("what job title does the sign give", ValueKind.OCCUPATION),
        ("which number was on the locker", ValueKind.NUMBER),
        ("what temperature did the kiln's gauge show", ValueKind.NUMBER),  # a quantity is read as a number
        ("what fee was printed on the ticket", ValueKind.NUMBER),
        ("did you hear a number of complaints", None),
        ("what colour was the van", None),
        ("when does the night bus leave", ValueKind.NUMBER),  # a time a sign or a message gives
        ("when is the next tour", ValueKind.NUMBER),
        ("when will the lift be mended", ValueKind.NUMBER),
        ("when was the van seen", None),  # the moment the robot met something
        ("when did you hear the bell", None),
        ("why was the pool shut", ValueKind.REASON),
        ("how come the tram stopped", ValueKind.REASON),
        ("what was the reason the tour was called off", ValueKind.REASON),
        ("what was the tour about", None),
    ],
)
def test_the_kind_of_value_asked_for_comes_from_the_question_phrase(question: str, kind: ValueKind | None) -> None:
    assert value_kind(question) is kind


@pytest.mark.parametrize(
    "description, names",
    [
        ("the glass desk with the green lamp", ["desk"]),
        ("a crate of apples near the door", ["crate", "apples"]),
        ("the orange sign on the loading bay wall", ["sign"]),
        ("parrot", ["parrot"]),
    ],
)
def test_what_a_description_names_is_its_head_and_what_it_is_of(description: str, names: list[str]) -> None:
    assert naming_words(description) == names


def test_a_record_that_names_only_what_a_thing_had_or_where_it_was_does_not_name_the_thing(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "memory.db")
    lamp = Tag("table lamp", 0.6, ("table lamp", "lamp", "source of illumination"))
    desk = Tag("desk", 0.6, ("desk", "table", "furniture"))
    for offset, tag in ((10, lamp), (11, lamp), (40, desk), (41, desk)):
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, tags=[tag]))
    found = grounder(store).ground("the glass desk with the green lamp", [Sense.SEEN]).found
    by_label = {g.text: g.data["names_it"] for g in found}
    assert by_label == {"table lamp": False, "desk": True}


@pytest.mark.parametrize(
    "description, found",
    [("platform 4", True), ("the platform 14 sign", False), ("PLATFORM 40", False), ("the sign for platform 4", True)],
)
def test_a_number_that_names_a_thing_must_be_in_the_record(store: SqliteStore, description: str, found: bool) -> None:
    best = grounder(store).ground(description, [Sense.READ]).claimed()
    assert (best is not None and best.text == "PLATFORM 4") is found, description


def test_numbers_that_name_things_are_those_after_a_word() -> None:
    from vidmem_ros.agent.text_match import holds_numbers, identifiers, text_match

    assert identifiers("the sign for gate 12 beside 3 trolleys") == ["12"]
    assert identifiers("office C-318") == ["318"] and identifiers("about 5 people") == []
    assert holds_numbers("LEVEL2 / STAIR B", ["2"]) and not holds_numbers("ROOM 19", ["1"])
    assert text_match("room 1", "ROOM 19") == 0.0 and text_match("room 19", "ROOM 19 / EXIT") == 1.0


class _Counting:
    """The packaged sentence embedder, recording what it is asked to embed."""

    def __init__(self, embedder) -> None:  # type: ignore[no-untyped-def]
        self.embedder, self.dim, self.name, self.asked = embedder, embedder.dim, embedder.name, []

    def embed_texts(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.asked += texts
        return self.embedder.embed_texts(texts)


def test_reading_ahead_embeds_records_once_so_a_question_embeds_only_its_own_words(store: SqliteStore) -> None:
    from vidmem_ros.agent.reasoner import Reasoner
    from vidmem_ros.config import load_config
    from vidmem_ros.perception.registry import build_text_embedder

    config = load_config()
    counting = _Counting(build_text_embedder(config.text_embedder))
    reasoner = Reasoner(store, config.query, ["kite"], text_embedder=counting)  # type: ignore[arg-type]
    assert reasoner.read_ahead() >= 4
    held = {t.lower() for t in counting.asked}
    assert {"the pool will close early today because of a leak.", "boiler room / staff only"} <= held
    assert reasoner.read_ahead() == 0  # nothing new written
    counting.asked.clear()
    for question in ("What was said about a meal?", "Which sign did you read about the boiler?"):
        reasoner.answer(question)
    assert counting.asked and not held & set(counting.asked)  # only the questions' own words
    store.add_transcript(Transcript(T0 + 200, T0 + 203, "The east stairs are closed for cleaning."))
    counting.asked.clear()
    assert reasoner.read_ahead() >= 1
    assert "the east stairs are closed for cleaning." in counting.asked
    assert "the pool will close early today because of a leak." not in counting.asked


def test_a_word_no_record_holds_names_what_a_records_word_is_a_kind_of(tmp_path: Path) -> None:
    from vidmem_ros.agent.labels import LabelLexicon
    from vidmem_ros.config import load_config

    lexicon = LabelLexicon((), load_config().lexicon)
    store = SqliteStore(tmp_path / "memory.db")
    store.add_transcript(Transcript(T0 + 10, T0 + 13, "A pair of swans is nesting above the hatch."))
    store.add_transcript(Transcript(T0 + 40, T0 + 43, "A truck is blocking the north gate."))
    store.add_transcript(Transcript(T0 + 70, T0 + 73, "The boiler is broken again."))
    store.add_transcript(Transcript(T0 + 90, T0 + 91, "..."))  # a sentence of no words

    def kinds(description: str) -> Grounded | None:
        grounding = Grounder(store, None, (-math.inf, math.inf), MeaningCache(None), kind_of=lexicon.kind_of)
        return grounding.ground(description, [Sense.HEARD]).claimed()

    bird, vehicle = kinds("a bird"), kinds("a vehicle")
    assert bird is not None and bird.stamp == T0 + 10
    assert vehicle is not None and vehicle.stamp == T0 + 40
    assert kinds("an instrument") is None  # no word heard names a kind of instrument


def test_a_word_heard_names_a_kind_only_in_the_sense_its_sentence_means(tmp_path: Path) -> None:
    from vidmem_ros.agent.labels import LabelLexicon
    from vidmem_ros.config import load_config

    lexicon = LabelLexicon((), load_config().lexicon)
    store = SqliteStore(tmp_path / "memory.db")
    store.add_transcript(Transcript(T0 + 10, T0 + 13, "The computer mouse at the front desk has stopped working."))
    store.add_transcript(Transcript(T0 + 40, T0 + 43, "Somebody saw a mouse running behind the fridge."))
    grounding = Grounder(store, None, (-math.inf, math.inf), MeaningCache(None), kind_of=lexicon.kind_of)
    rodent = grounding.ground("a rodent", [Sense.HEARD]).claimed()
    assert rodent is not None and rodent.stamp == T0 + 40


def test_what_an_events_caption_says_was_heard_is_no_sighting(tmp_path: Path, photos) -> None:  # type: ignore[no-untyped-def]
    """A sentence heard during an event is in its caption; grounding a thing seen must not find it there."""
    from vidmem_ros.config import load_config
    from vidmem_ros.ingest.frames import DecodedImage, FrameInput
    from vidmem_ros.ingest.worker import IngestPipeline
    from vidmem_ros.perception.embedding import ColorLayoutEmbedder

    path = tmp_path / "m.db"
    pipeline = IngestPipeline(
        load_config(overrides={"store.path": str(path)}), SqliteStore(path), None, ColorLayoutEmbedder()
    )
    pipeline.engine.add_transcript(Transcript(T0 - 3, T0, "Please take the canoe paddles back to the boathouse."))
    for k in range(8):
        pipeline.ingest(FrameInput(T0 + k, "/cam", DecodedImage(photos["coffee"])))
    pipeline.finish()
    store = pipeline.store
    assert any("canoe" in e.caption for e in store.events(-math.inf, math.inf, None))
    assert grounder(store).ground("a canoe", [Sense.SEEN, Sense.READ]).claimed() is None
    heard = grounder(store).ground("a canoe", [Sense.HEARD]).claimed()
    assert heard is not None and heard.kind == "transcript"


@pytest.mark.parametrize(
    ("question", "sight"),
    [
        ("Your position while looking into the fuse box, please.", True),
        ("Where were you when you spotted the kayak?", True),
        ("Where were you when you heard about the kayak?", False),
        ("Where is the kayak?", False),
        ("When did the kayak first come into view?", True),
        ("At what time did you catch sight of the kayak?", True),
        ("Report the position from which you looked at the fuse box.", True),
        ("Please state where you were when you glimpsed the kayak.", True),
        ("Report what the caretaker said about the kayak.", False),
    ],
)
def test_a_question_says_when_what_it_asks_about_was_looked_at(question: str, sight: bool) -> None:
    assert sight_named(question) is sight


@pytest.mark.parametrize("description", ["how many people may ride at once", "the most people allowed", "people"])
def test_a_plural_made_otherwise_than_by_an_ending_meets_its_singular(tmp_path: Path, description: str) -> None:
    """ "people" is the plural of "person" as people use it, though it shares no ending with "PERSONS"."""
    from vidmem_ros.agent.labels import LabelLexicon
    from vidmem_ros.config import load_config

    lexicon = LabelLexicon((), load_config().lexicon)
    store = SqliteStore(tmp_path / "memory.db")
    for offset, line in ((10, "MAX 8 PERSONS"), (60, "SERVICE LIFT")):
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, texts=[TextLine(line, 0.9)]))
    grounding = Grounder(store, None, (-math.inf, math.inf), MeaningCache(None), synonyms_of=lexicon.synonyms)
    found = grounding.ground(description, [Sense.READ]).found
    assert found and found[0].text == "MAX 8 PERSONS" and found[0].words > 0, found


def test_a_contracted_question_word_is_no_content_word() -> None:
    from vidmem_ros.agent.question import content_words

    assert content_words("What's on the board? Who's there, and where's the key?") == ["board", "key"]
    assert content_words("Didn't you see the porter's trolley?") == ["porter's", "trolley"]


@pytest.mark.parametrize(
    ("word", "bears"),
    [("timetable", True), ("logbook", True), ("brochure", True), ("touchscreen", True), ("readout", True),
     ("kettle", False), ("ladder", False), ("wheelbarrow", False)],
)  # fmt: skip
def test_a_thing_whose_words_are_read_is_known_from_the_dictionary(word: str, bears: bool) -> None:
    from vidmem_ros.agent.labels import LabelLexicon
    from vidmem_ros.config import load_config

    assert LabelLexicon((), load_config().lexicon).bears_words(word) is bears


@pytest.mark.parametrize(
    ("question", "senses"),
    [
        ("I want the on-call plumber. Which extension was on the rota sign?", [Sense.READ]),
        ("The plumber is on-call tonight. What did the announcement say about him?", [Sense.HEARD]),
        ("What did the on-call plumber's van have on its side?", []),
        ("There was a sign by the gate. What did somebody tell you about it?", [Sense.HEARD]),
        # an asking sentence that leaves the source open takes the one an earlier sentence named
        ("You heard it over the tannoy earlier. What did it say?", [Sense.HEARD]),
        ("A notice was taped up by the till. What did it say?", [Sense.READ]),
        ("Dr. Okoro left a message. What did it say?", [Sense.READ, Sense.HEARD]),
        # a participle or noun that ends a hyphenated word names its source
        ("What did the hand-written card on the gate ask for?", [Sense.READ]),
        ("Which platform did the loud-speaker give?", [Sense.HEARD]),
        ("Was any smoke - a plume, say - visible from the roof?", []),  # the aside says nothing of a source
    ],
)
def test_the_sentence_that_asks_names_the_source_and_a_hyphenated_word_names_none(
    question: str, senses: list[Sense]
) -> None:
    from vidmem_ros.agent.grounding import source_named

    assert source_named(question) == senses


@pytest.mark.parametrize(
    ("clause", "kind"),
    [
        ("what job number did the ticket give", "number"),
        ("which role code was on the badge", "number"),
        ("what job does the badge give", "occupation"),
        ("what is her job title", "occupation"),
    ],
)
def test_a_number_named_by_what_it_numbers_is_a_number(clause: str, kind: str) -> None:
    from vidmem_ros.agent.grounding import value_kind

    found = value_kind(clause)
    assert found is not None and found.value == kind


@pytest.mark.parametrize(
    ("question", "senses"),
    [
        ("What did the lifeguard at the pool say about the slide?", [Sense.HEARD]),
        ("What had the courier told you about the parcel?", [Sense.HEARD]),
        ("Which room did the visitor ask about?", [Sense.HEARD]),
        ("Which bins does the handbook by the door say to use?", [Sense.READ, Sense.HEARD]),
        ("The timetable mentioned which platform?", [Sense.READ, Sense.HEARD]),
    ],
)
def test_a_person_named_by_what_they_are_says_things_aloud(question: str, senses: list[Sense]) -> None:
    from vidmem_ros.config import load_config
    from vidmem_ros.perception import wordnet as wn

    wordnet = wn.load(load_config().lexicon.wordnet_dir)
    assert wordnet is not None
    assert source_named(question, wordnet) == senses


def test_a_place_named_before_a_verb_of_saying_ends_there() -> None:
    from vidmem_ros.agent.question import places_named

    assert places_named("What did the voice in the boiler room say about the valve?") == ["boiler room"]
    assert places_named("What had the guard at the side gate told you?") == ["side gate"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("The tram is held at the depot because a cable came down.", "a cable came down"),
        (
            "Hi, Marta here. The hall floor is still wet, so the dance class moves upstairs.",
            "The hall floor is still wet",
        ),
        (
            "The bridge is icy this morning. That's why the buses go round by the ring road.",
            "The bridge is icy this morning",
        ),
        ("KIOSK / CLOSED FOR STOCKTAKING / Back at 2 pm", "STOCKTAKING"),
        ("Parking suspended due to resurfacing works", "resurfacing works"),
    ],
)
def test_a_reason_is_read_out_of_the_clause_that_gives_it(text: str, reason: str) -> None:
    from vidmem_ros.agent.grounding import holds_value, value_spans

    assert holds_value(ValueKind.REASON, text, None, lambda w: False)
    assert value_spans(ValueKind.REASON, text, None, lambda w: False) == [reason]


@pytest.mark.parametrize("text", ["The tram leaves at ten.", "So far so good", "KIOSK / OPEN 9-5"])
def test_a_record_that_gives_no_cause_holds_no_reason(text: str) -> None:
    from vidmem_ros.agent.grounding import holds_value

    assert not holds_value(ValueKind.REASON, text, None, lambda w: False)


@pytest.mark.parametrize(
    ("clause", "kind"),
    [
        ("what is the dentist's name", ValueKind.NAME),
        ("what's the name of the caretaker", ValueKind.NAME),
        ("what's his full name", ValueKind.NAME),
        ("what was the yacht's name", None),  # a yacht is no person
        ("had you read the caretaker's name plate before noon", None),  # a thing that bears a name
        ("do you know the name of the shift supervisor", ValueKind.NAME),  # the noun phrase's person, not its first
        ("what was the name of today's site foreman", ValueKind.NAME),
        ("have you learnt the name of the relief driver yet", ValueKind.NAME),
        ("what is the name of the lane the supervisor parks in", None),  # the lane's name
        ("what's the name of the show they have on upstairs", None),
    ],
)
def test_the_name_of_anyone_a_noun_calls_a_person_is_a_name_asked_for(clause: str, kind: ValueKind | None) -> None:
    from vidmem_ros.agent.grounding import value_kind
    from vidmem_ros.config import load_config
    from vidmem_ros.perception import wordnet as wn

    assert value_kind(clause, wn.load(load_config().lexicon.wordnet_dir)) is kind


@pytest.mark.parametrize("line", ["Gritting: Ilse", "DUTY:OKAFOR", "Keeper: MARTENS"])
def test_a_duty_and_who_has_it_after_a_colon_holds_a_name(line: str) -> None:
    from vidmem_ros.agent.grounding import holds_value

    assert holds_value(
        ValueKind.NAME, f"ROTA / {line}", lambda w: w in {"rota", "duty", "keeper", "gritting"}, lambda w: False
    )


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("Supervisor: K. DRAKE", True),
        ("Ask for J. Mills at the desk", True),
        ("On duty tonight A. Reed", True),
        ("Gate No. 4", False),
        ("Pier 3. Boats only", False),
    ],
)
def test_an_initial_before_a_capitalised_word_holds_a_name(line: str, named: bool) -> None:
    """Whatever the dictionary says of the word after it ("drake", "mills", "reed" are words)."""
    from vidmem_ros.agent.grounding import holds_value

    words = {"supervisor", "drake", "ask", "for", "mills", "at", "the", "desk", "on", "duty", "tonight", "reed"}
    words |= {"gate", "no", "pier", "boats", "only"}
    assert holds_value(ValueKind.NAME, line, lambda w: w.lower() in words, lambda w: False) is named


@pytest.mark.parametrize(
    "description", ["the bakery's sandwich board", "the sandwich board at the bakery", "bakery sandwich board"]
)
def test_a_word_that_names_a_bearer_with_the_next_is_not_sought_in_what_was_read(
    tmp_path: Path, description: str
) -> None:
    """ "Sandwich board" is one thing the dictionary names: a sign that reads "SANDWICH" is not the one meant."""
    from vidmem_ros.config import load_config
    from vidmem_ros.perception import wordnet as wn

    wordnet = wn.load(load_config().lexicon.wordnet_dir)
    assert wordnet is not None
    store = SqliteStore(tmp_path / "memory.db")
    for offset, lines in {30: ["SANDWICH BAR", "Open 9-5"], 50: ["BAKERY", "Fresh rolls daily"]}.items():
        texts = [TextLine(line, 0.95) for line in lines]
        store.add_moment(Moment(T0 + offset, "/cam", 64, 48, None, texts=texts))
    is_word = lambda word: bool(wordnet.senses(wordnet.base_form(word)))  # noqa: E731
    found = Grounder(store, None, (-math.inf, math.inf), MeaningCache(None), is_word=is_word).ground(
        description, [Sense.READ]
    )
    assert found.found and found.found[0].stamp == T0 + 50, found.found
