"""What was met while something else was, read from the grammar of such a question and answered from the records
of the asked sense during the other thing's occasions in a real store; and two things ordered where one side is
said in the passive, or named in capitals as a sign prints it."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.meanwhile import meanwhile_question
from vidmem_ros.agent.question import Modality
from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import VidmemConfig
from vidmem_ros.memory.records import Moment, Pose, Transcript
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.coco import COCO_LABELS
from vidmem_ros.perception.types import Detection, TextLine

T0 = 1_761_000_000.0
BOX = (4.0, 4.0, 40.0, 40.0)


@pytest.mark.parametrize(
    ("question", "asked", "anchor", "met"),
    [
        ("What did you hear when you saw the giraffe?", Modality.SPEECH, "giraffe", Modality.OBJECT),
        ("What was being said while the bus was in view?", Modality.SPEECH, "bus", Modality.OBJECT),
        ("What were you hearing as you passed the kite?", Modality.SPEECH, "kite", Modality.OBJECT),
        ("What did you see while you heard about the flood?", Modality.OBJECT, "flood", Modality.SPEECH),
        ("Which sign was in view when somebody mentioned the flood?", Modality.TEXT, "flood", Modality.SPEECH),
        ("What could you read at the time you spotted the bus?", Modality.TEXT, "bus", Modality.OBJECT),
        ("When you read STAIRS, what could you hear?", Modality.SPEECH, "stairs", Modality.TEXT),
        ("What sign were you next to when you heard about the flood?", Modality.TEXT, "flood", Modality.SPEECH),
    ],
)
def test_what_was_met_meanwhile_is_read_from_the_moment_clause(
    question: str, asked: Modality, anchor: str, met: Modality
) -> None:
    c = meanwhile_question(question)
    assert c is not None and (c.asked, c.anchor, c.anchor_met, c.place) == (asked, anchor, met, False), c


@pytest.mark.parametrize(
    "question",
    [
        "What did you see while you were in the room with the suitcase?",
        "What did you hear while standing near the room with the suitcase?",
        "What could you see while parked by the room with the suitcase?",
    ],
)
def test_a_place_the_robot_was_at_sets_the_moment_too(question: str) -> None:
    c = meanwhile_question(question)
    assert c is not None and c.place and c.anchor == "the room with the suitcase"


@pytest.mark.parametrize(
    ("question", "asked", "anchor"),
    [
        ("What did you hear in the room with the suitcase?", Modality.SPEECH, "the room with the suitcase"),
        ("What was said at the car park?", Modality.SPEECH, "the car park"),
        ("What could you read inside the stairwell?", Modality.TEXT, "the stairwell"),
        ("What did you see inside the boiler house?", Modality.OBJECT, "the boiler house"),
    ],
)
def test_what_was_met_at_a_place_said_without_while_is_met_while_there(
    question: str, asked: Modality, anchor: str
) -> None:
    c = meanwhile_question(question)
    assert c is not None and c.place and (c.asked, c.anchor) == (asked, anchor), c


@pytest.mark.parametrize(
    "question",
    ["What did you hear in the last minute?", "What was said at 3 pm?", "What did you read in total?",
     "What did you see in the first five minutes?", "What did you hear at noon?"],
)  # fmt: skip
def test_a_time_after_in_or_at_is_no_place(question: str) -> None:
    assert meanwhile_question(question) is None


@pytest.mark.parametrize(
    "question",
    [
        "What did you see when it rained?",  # nothing met sets the moment
        "What did you hear right after you saw the bus?",  # next, not meanwhile
        "Where were you when you heard about the flood?",
        "What time was it when you saw the bus?",
    ],
)
def test_questions_that_set_no_moment_by_something_met_are_not_read_so(question: str) -> None:
    assert meanwhile_question(question) is None


@pytest.fixture
def street(config: VidmemConfig) -> Reasoner:
    """A bus in view 100-130 s while a flood warning about the car park is heard at 110 s; STAIRS read 300-320 s, a
    suitcase seen then, and nothing heard; CAR PARK read at 400 s; an kite seen at 500 s."""
    store = SqliteStore(config.store_path())
    for t in range(100, 131, 5):
        store.add_moment(
            Moment(T0 + t, "/cam", 64, 48, None, detections=[Detection("bus", 0.9, BOX)], pose=Pose("map", 1, 0))
        )
    for t in range(300, 321, 5):
        texts, seen = [TextLine("STAIRS", 0.95, BOX)], [Detection("suitcase", 0.8, BOX)]
        store.add_moment(Moment(T0 + t, "/cam", 64, 48, None, detections=seen, texts=texts, pose=Pose("map", 5, 0)))
    store.add_moment(Moment(T0 + 400, "/cam", 64, 48, None, texts=[TextLine("CAR PARK", 0.95, BOX)]))
    store.add_moment(Moment(T0 + 500, "/cam", 64, 48, None, detections=[Detection("kite", 0.9, BOX)]))
    store.add_transcript(Transcript(T0 + 110, T0 + 113, "The river may flood the car park tonight."))
    return Reasoner(store, config.query, tuple(COCO_LABELS.values()))


def test_what_was_heard_while_a_thing_was_in_view(street: Reasoner) -> None:
    heard = street.answer("What was being said while you could see the bus?", as_of=T0 + 600)
    assert heard.value == "The river may flood the car park tonight.", heard.text
    assert heard.stamp == pytest.approx(T0 + 110, abs=0.5)


def test_what_was_seen_or_read_while_something_was_heard_or_read(street: Reasoner) -> None:
    seen = street.answer("What did you see when you heard about the flood?", as_of=T0 + 600)
    assert seen.value == "bus", seen.text
    beside = street.answer("When you read STAIRS, what else was there?", as_of=T0 + 600)
    assert beside.value == "suitcase", beside.text


def test_nothing_met_meanwhile_is_said_so_and_a_thing_never_met_is_not_guessed(street: Reasoner) -> None:
    quiet = street.answer("What did you hear while you read STAIRS?", as_of=T0 + 600)
    assert quiet.value is None and quiet.text.startswith("Nothing"), quiet.text
    never = street.answer("What did you hear when you saw the giraffe?", as_of=T0 + 600)
    assert never.value is None and "have not met giraffe" in never.text, never.text


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Was the bus spotted before anybody talked about the flood?", True),
        ("Was the flood mentioned before the bus was seen?", False),
        ("Was STAIRS read before or after the flood was brought up?", "after"),
    ],
)
def test_a_participle_after_a_sides_name_says_how_it_was_met(street: Reasoner, question: str, value: object) -> None:
    """The bus was seen (100 s) before the flood was heard of (110 s); a side said in the passive is met as its
    participle says, not as the other side was."""
    answer = street.answer(question, as_of=T0 + 600)
    assert answer.value == value, answer.text


@pytest.mark.parametrize(
    "question",
    ["What did you read right before CAR PARK?", "Which sign came just before 'car park'?"],
)
def test_a_thing_named_in_capitals_or_quoted_is_words_read(street: Reasoner, question: str) -> None:
    """ "car park" was heard at 110 s, before anything was read; in capitals or quotes it is the sign read at 400 s."""
    before = street.answer(question, as_of=T0 + 600)
    assert before.value == "STAIRS", before.text


def test_a_moment_asked_for_after_the_thing_is_the_edge_of_its_occasion(street: Reasoner) -> None:
    """The bus was in view 100-130 s: its last time ends at 130 s, whichever frame of it was clearest."""
    last = street.answer("The last time a bus was in front of you, when was that?", as_of=T0 + 600)
    assert last.stamp == pytest.approx(T0 + 130, abs=0.5), last.text
    first = street.answer("The first time you noticed a bus, when was that?", as_of=T0 + 600)
    assert first.stamp == pytest.approx(T0 + 100, abs=0.5), first.text


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Which did you come across first: the STAIRS sign or the bus?", "bus"),
        ("Of the kite and the CAR PARK sign, which did you notice sooner?", "car park"),
    ],
)
def test_one_side_being_a_sign_leaves_the_other_met_any_way(street: Reasoner, question: str, value: str) -> None:
    """The bus (100 s) before STAIRS (300 s); CAR PARK (400 s) before the kite (500 s)."""
    answer = street.answer(question, as_of=T0 + 600)
    assert str(answer.value).lower() == value, answer.text


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Was the flood mentioned more than once?", False),
        ("Did you hear about the flood exactly once?", True),
        ("Was the bus seen fewer than two times?", True),
    ],
)
def test_a_count_checked_of_a_thing_heard_or_seen(street: Reasoner, question: str, value: bool) -> None:
    answer = street.answer(question, as_of=T0 + 600)
    assert answer.value is value, answer.text


@pytest.mark.parametrize(
    ("question", "asked", "target", "anchor"),
    [
        ("Were you near the kite when the flood was mentioned?", Modality.OBJECT, "kite", "flood"),
        ("Was the bus in view when someone brought up the flood?", Modality.OBJECT, "bus", "flood"),
        ("Did you hear about the flood while the bus was in view?", Modality.SPEECH, "flood", "bus"),
        (
            "Were you in the room with the kite when the flood was mentioned?",
            Modality.PLACE,
            "room with the kite",
            "flood",
        ),
    ],
)
def test_whether_one_thing_was_met_while_another_was_is_read_with_both(
    question: str, asked: Modality, target: str, anchor: str
) -> None:
    c = meanwhile_question(question)
    assert c is not None and (c.asked, c.target, c.anchor) == (asked, target, anchor)


@pytest.mark.parametrize(
    ("text", "noun", "amount"),
    [
        ("Please bring twelve folding chairs to the hall.", "chairs", 12),
        ("There are 9 crates of fresh pears at the gate.", "crates", 9),
        ("Twenty one large blue crates came in.", "crates", 21),
        ("Gate 3 needs two guards tonight.", "guards", 2),
        ("Gate 3 needs guards tonight.", "guards", None),
    ],
)
def test_the_number_a_sentence_gives_of_a_thing(text: str, noun: str, amount: float | None) -> None:
    from vidmem_ros.spoken_numbers import amount_of

    assert amount_of(text, noun) == amount


def test_a_count_of_things_said_is_the_number_the_sentence_gives(street: Reasoner) -> None:
    street.store.add_transcript(Transcript(T0 + 200, T0 + 204, "Please bring twelve folding chairs to the car park."))
    for question in (
        "How many chairs were we asked to bring?",
        "According to the announcement, how many folding chairs are needed?",
    ):
        said = street.answer(question, as_of=T0 + 600)
        assert said.value == 12, said.text
    occasions = street.answer("How many times were the chairs mentioned?", as_of=T0 + 600)
    assert occasions.value == 1, occasions.text


def test_a_topic_heard_is_found_by_a_kind_of_it_said(street: Reasoner) -> None:
    street.store.add_transcript(Transcript(T0 + 250, T0 + 253, "A pair of swans is nesting by the pond."))
    for question in ("Did anyone mention a bird?", "Did anyone say anything about birds?"):
        assert street.answer(question, as_of=T0 + 600).value is True, question
    when = street.answer("When did you hear about a bird?", as_of=T0 + 600)
    assert when.stamp == pytest.approx(T0 + 250, abs=0.5), when.text
    assert street.answer("Was anything said about a vehicle?", as_of=T0 + 600).value is False


def test_what_was_heard_by_a_thing_is_heard_while_it_was_in_view(street: Reasoner) -> None:
    for question in ("What did you hear near the bus?", "What was said next to the bus?"):
        heard = street.answer(question, as_of=T0 + 600)
        assert heard.value == "The river may flood the car park tonight.", (question, heard.text)
    c = meanwhile_question("What did you hear beside the giraffe?")
    assert c is not None and (c.anchor, c.anchor_met, c.said_at) == ("giraffe", Modality.OBJECT, True)
    never = street.answer("What did you hear beside the giraffe?", as_of=T0 + 600)
    assert never.value in (None, "") and "while" not in never.text, never.text


def test_what_a_sentence_heard_does_not_say_happened_did_not_happen(street: Reasoner) -> None:
    for question in (
        "Was it announced that the car park had been closed?",
        "Did anyone say the river was frozen?",
        "Was the flood cancelled?",
    ):
        said = street.answer(question, as_of=T0 + 600)
        assert said.value is False and "does not say" in said.text, (question, said.text)
    assert street.answer("Did anyone say the river may flood?", as_of=T0 + 600).value is True
    assert street.answer("Could the car park flood, according to what you heard?", as_of=T0 + 600).value is True
