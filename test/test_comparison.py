"""Two things compared by how often or how long they were met: read from a comparison's grammar, then each side
counted or timed in a real store as the question about it alone would be."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.comparison import comparison_question
from vidmem_ros.agent.interval import interval_question
from vidmem_ros.agent.question import Intent, Modality
from vidmem_ros.agent.reasoner import Reasoner
from vidmem_ros.config import VidmemConfig
from vidmem_ros.memory.records import Moment, Pose
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.coco import COCO_LABELS
from vidmem_ros.perception.types import Detection, TextLine

T0 = 1_760_500_000.0
BOX = (4.0, 4.0, 40.0, 40.0)


@pytest.mark.parametrize(
    ("question", "measure", "more", "sides", "yes_no"),
    [
        ("Which did you see more often, the kettle or the toaster?", Intent.COUNT, True, ("kettle", "toaster"), False),
        ("Which did you spot more frequently: a kettle or a toaster?", Intent.COUNT, True, ("kettle", "toaster"), False),
        ("What did you see more of, mugs or plates?", Intent.COUNT, True, ("mugs", "plates"), False),
        ("Did you see more mugs or more plates?", Intent.COUNT, True, ("mugs", "plates"), False),
        ("Between the teapot and the scooter, which did you see more?", Intent.COUNT, True, ("teapot", "scooter"), False),
        ("Of kettles and toasters, which did you see less often?", Intent.COUNT, False, ("kettles", "toasters"), False),
        ("Which was more frequent, sightings of the dog or of the cat?", Intent.COUNT, True, ("dog", "cat"), False),
        ("Did you see the kettle more often than the toaster?", Intent.COUNT, True, ("kettle", "toaster"), True),
        ("Were there more kettles than toasters?", Intent.COUNT, True, ("kettles", "toasters"), True),
        ("Was the scooter or the teapot in view longer?", Intent.DURATION, True, ("scooter", "teapot"), False),
        ("Which was visible for a shorter time, the scooter or the teapot?", Intent.DURATION, False,
         ("scooter", "teapot"), False),
        ("Was the teapot seen for longer than the scooter?", Intent.DURATION, True, ("teapot", "scooter"), True),
    ],
)  # fmt: skip
def test_a_comparison_is_read_from_its_comparative_and_the_two_things_it_sets_against_each_other(
    question: str, measure: Intent, more: bool, sides: tuple[str, str], yes_no: bool
) -> None:
    c = comparison_question(question)
    assert c is not None, question
    assert (c.measure, c.more, (c.target, c.other), c.yes_no) == (measure, more, sides, yes_no)


def test_how_a_comparison_says_the_things_were_met_is_kept() -> None:
    read = comparison_question("Did you read STAFF ONLY more often than EXIT?")
    assert read is not None and read.modality is Modality.TEXT and (read.target, read.other) == ("STAFF ONLY", "EXIT")
    heard = comparison_question("Did you hear about the boiler more times than about the lift?")
    assert heard is not None and heard.modality is Modality.SPEECH
    place = comparison_question("Which room did you spend more time in, the workshop or the pantry?")
    assert place is not None and place.modality is Modality.PLACE and place.measure is Intent.DURATION


@pytest.mark.parametrize(
    "question",
    [
        "Which did you see first, the kettle or the toaster?",  # an order
        "Which did you read more recently, EXIT or STAFF ONLY?",  # an order too
        "Did you see a kettle or a toaster?",  # either of two
        "Did you see more than three kettles?",  # a count checked
        "Did you see the kettle more than once?",
        "How many more times did you see the kettle than the toaster?",  # a difference
        "Which sign did you read more often?",  # one thing
    ],
)
def test_questions_that_compare_nothing_are_not_read_as_comparisons(question: str) -> None:
    assert comparison_question(question) is None


@pytest.fixture
def compared(config: VidmemConfig) -> Reasoner:
    """A dog in view for half a minute once; a cat seen on three short occasions; two signs read."""
    store = SqliteStore(config.store_path())
    seen = [(t, "dog") for t in range(0, 31, 3)] + [(t, "cat") for t in (100, 102, 200, 202, 300)]
    for t, label in seen:
        pose = Pose("map", t / 10, 0.0)
        store.add_moment(Moment(T0 + t, "/cam", 64, 48, None, detections=[Detection(label, 0.9, BOX)], pose=pose))
    for t, words in ((400, "LOADING BAY"), (500, "NO ENTRY"), (600, "LOADING BAY")):
        store.add_moment(Moment(T0 + t, "/cam", 64, 48, None, texts=[TextLine(words, 0.95, BOX)]))
    return Reasoner(store, config.query, tuple(COCO_LABELS.values()))


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Which did you see more often, the dog or the cat?", "cat"),
        ("Which animal did you spot less frequently: the dog or the cat?", "dog"),
        ("Was the dog or the cat in view longer?", "dog"),
        ("Which was visible for a shorter time, the dog or the cat?", "cat"),
        ("Did you see the dog more often than the cat?", False),
        ("Were there more cats than dogs?", True),
        ("Was the cat seen for longer than the dog?", False),
        ("Between the dog and the giraffe, which did you see more?", "dog"),
        ("Which did you read more often, LOADING BAY or NO ENTRY?", "LOADING BAY"),
    ],
)
def test_the_side_met_more_or_less_is_answered_with_both_figures(
    compared: Reasoner, question: str, value: object
) -> None:
    answer = compared.answer(question, as_of=T0 + 700)
    assert answer.success and answer.value == value, answer.text
    assert answer.evidence  # each side's occasions are cited


def test_two_things_met_alike_are_said_to_be_even(compared: Reasoner) -> None:
    even = compared.answer("Which did you see more often, the giraffe or the zebra?", as_of=T0 + 700)
    assert even.value == "neither" and "not at all" in even.text


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Was the dog in view for over 20 seconds?", True),
        ("Did you see the cat for more than a minute?", False),
        ("Was the cat visible for at least three seconds in total?", True),  # 2 s + 2 s + one frame
        ("Was the giraffe in view for over a second?", False),
    ],
)
def test_one_things_time_in_view_is_checked_against_an_amount_of_time(
    compared: Reasoner, question: str, value: bool
) -> None:
    answer = compared.answer(question, as_of=T0 + 700)
    assert answer.value is value, answer.text
    assert " s in all" in answer.text or "not met" in answer.text


@pytest.mark.parametrize(
    ("question", "first", "second", "after"),
    [
        ("How long was it between seeing the dog and seeing the cat?", "dog", "cat", False),
        ("Between reading LOADING BAY and reading NO ENTRY, how much time passed?", "loading bay", "no entry", False),
        ("What was the gap between the kettle announcement and the van?", "kettle", "van", False),
        ("How many seconds separated the scooter and the teapot?", "scooter", "teapot", False),
        ("How long after seeing the cat did you read NO ENTRY?", "cat", "no entry", True),
        ("How long did it take you to get from the kettle to the van?", "kettle", "van", True),
        ("What's the gap in time between reading LOADING BAY and the van?", "loading bay", "van", False),
        ("What was the elapsed time between the kettle and the scooter?", "kettle", "scooter", False),
        ("How long was it from the kettle sighting to the van sighting?", "kettle", "van", True),
        ("How long did the robot take to drive from the scooter to the teapot?", "scooter", "teapot", True),
    ],
)
def test_the_time_between_two_things_is_read_from_between_and_after(
    question: str, first: str, second: str, after: bool
) -> None:
    c = interval_question(question)
    assert c is not None and (c.first, c.second, c.after) == (first, second, after), c


@pytest.mark.parametrize(
    ("question", "edges"),
    [
        ("How long was the ride from the greenhouse to the bakery?", ("left", "reached")),
        ("What was the walking time from the greenhouse to the bakery?", ("left", "reached")),
        ("How many seconds did the trip from the greenhouse to the bakery take?", ("left", "reached")),
        ("How much time went by between leaving the greenhouse and entering the bakery?", ("left", "reached")),
        ("How long after you reached the greenhouse did you hear the bakery mentioned?", ("reached", "")),
        ("How long before departing from the greenhouse did you see the kettle?", ("", "left")),
        ("How long did it take to get to the bakery?", ("", "reached")),
        ("How long was it from the kettle sighting to the van sighting?", ("", "")),
    ],
)
def test_leaving_or_reaching_a_place_marks_which_edge_of_the_stay_a_side_means(
    question: str, edges: tuple[str, str]
) -> None:
    c = interval_question(question)
    assert c is not None and (c.first_edge, c.second_edge) == edges, c
    said = f"{c.first} {c.second}"
    assert not any(verb in said for verb in ("leaving", "entering", "reached", "departing", "get to")), c


def test_a_trip_joins_the_first_visit_to_the_second_place_with_the_last_stay_before_it() -> None:
    from vidmem_ros.agent.interval import journey

    lab, yard = [(0.0, 10.0, "p1"), (40.0, 50.0, "p1"), (90.0, 95.0, "p1")], [(20.0, 30.0, "p2"), (60.0, 70.0, "p2")]
    assert journey(lab, yard, "left", "reached") == ((0.0, 10.0, "p1"), (20.0, 30.0, "p2"))
    assert journey(yard, lab, "left", "reached") == ((20.0, 30.0, "p2"), (40.0, 50.0, "p1"))
    assert journey(lab[2:], yard, "left", "reached") is None  # the yard was never reached after that stay
    assert journey(lab, lab, "left", "reached") == ((0.0, 10.0, "p1"), (40.0, 50.0, "p1"))  # back to the same place


@pytest.mark.parametrize(
    "question",
    [
        "How many minutes were there between the first and the last time you saw the van?",  # one thing's span
        "How long did you see the van?",
        "How long were you listening to the message about the boiler?",  # how long it was heard
        "How long were you watching the van before it left?",
    ],
)
def test_questions_about_one_thing_are_not_read_as_intervals(question: str) -> None:
    assert interval_question(question) is None


@pytest.mark.parametrize(
    ("question", "seconds"),
    [
        ("How long was it between seeing the dog and seeing the cat?", 100.0),
        ("Between reading LOADING BAY and reading NO ENTRY, how much time passed?", 100.0),
        ("How long after seeing the cat did you read NO ENTRY?", 400.0),
    ],
)
def test_the_time_between_two_things_is_from_the_first_occasion_of_one_to_that_of_the_other(
    compared: Reasoner, question: str, seconds: float
) -> None:
    answer = compared.answer(question, as_of=T0 + 700)
    assert answer.value == pytest.approx(seconds, abs=0.5), answer.text
    assert len(answer.evidence) == 2


def test_how_long_after_a_thing_something_came_that_came_before_it_has_no_duration(compared: Reasoner) -> None:
    answer = compared.answer("How long after reading NO ENTRY did you see the cat?", as_of=T0 + 700)
    assert answer.value is None and "not after" in answer.text, answer.text


def test_the_time_between_a_thing_met_and_one_never_met_is_not_guessed(compared: Reasoner) -> None:
    answer = compared.answer("How long was it between seeing the dog and seeing a giraffe?", as_of=T0 + 700)
    assert answer.value is None and "have not met giraffe" in answer.text


@pytest.mark.parametrize(
    ("question", "second", "met"),
    [
        ("How long did it take you to find a badger?", "badger", None),
        ("How long until you first noticed the wheelbarrow?", "wheelbarrow", Modality.OBJECT),
        ("How much time had passed before you read SLOW?", "slow", Modality.TEXT),
        ("How long had you been patrolling when you first heard about the boiler?", "boiler", Modality.SPEECH),
        ("How long were you out and about before the first notice came into view?", "notice", Modality.TEXT),
        ("After how many minutes did you first hear someone mention the boiler?", "boiler", Modality.SPEECH),
        ("How many seconds elapsed before anything was said?", "anything", Modality.SPEECH),
        ("How long was it from the start until the first announcement?", "announcement", Modality.SPEECH),
        ("How much time passed from when you set off until you read SLOW?", "slow", Modality.TEXT),
        ("How many seconds after starting did you spot the badger?", "badger", Modality.OBJECT),
        ("How long after setting off did you first read SLOW?", "slow", Modality.TEXT),
        ("How long after the start did you first see the van?", "van", Modality.OBJECT),
        ("How many minutes after the start of the shift did you hear about the boiler?", "boiler", Modality.SPEECH),
    ],
)
def test_the_delay_to_a_thing_is_counted_from_the_start_of_memory(
    question: str, second: str, met: Modality | None
) -> None:
    c = interval_question(question)
    assert c is not None and c.from_start and (c.second, c.second_met) == (second, met), c


def test_how_long_before_one_thing_another_came_is_the_later_ones_moment_less_the_earlier() -> None:
    c = interval_question("How long before the alarm did somebody talk about the fire drill?")
    assert c is not None and (c.first, c.second, c.after, c.from_start) == ("fire drill", "alarm", True, False)


@pytest.mark.parametrize(
    ("question", "seconds"),
    [
        ("How long did it take you to find the cat?", 100.0),
        ("How long had you been on duty when you first spotted a cat?", 100.0),
        ("How long were you on the move before the first sign came into view?", 400.0),
        ("After how long did you first read NO ENTRY?", 500.0),
    ],
)
def test_the_delay_to_a_thing_is_its_first_moment_less_the_start(
    compared: Reasoner, question: str, seconds: float
) -> None:
    answer = compared.answer(question, as_of=T0 + 700)
    assert answer.value == pytest.approx(seconds, abs=0.5), answer.text
    assert answer.stamp == pytest.approx(T0 + seconds, abs=0.5)


def test_the_delay_to_a_thing_never_met_is_not_guessed(compared: Reasoner) -> None:
    answer = compared.answer("How long did it take you to find a giraffe?", as_of=T0 + 700)
    assert answer.value is None and "giraffe" in answer.text


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("How long was the gap between the two cat sightings?", "cat"),
        ("How much time passed between the first and second time you saw the cat?", "cat"),
        ("How long was it between the two readings of LOADING BAY?", "loading bay"),
    ],
)
def test_the_gap_between_two_occasions_of_one_thing(compared: Reasoner, question: str, name: str) -> None:
    c = interval_question(question)
    assert c is not None and c.repeat and c.first == c.second == name, c
    gap = compared.answer(question, as_of=T0 + 700)
    expected = {"cat": 200 - 102, "loading bay": 600 - 400}[name]  # the end of one occasion to the next's start
    assert gap.value == pytest.approx(expected, abs=1.0), gap.text


def test_a_thing_met_once_has_no_gap_to_measure(compared: Reasoner) -> None:
    once = compared.answer("How long was the gap between the two dog sightings?", as_of=T0 + 700)
    assert once.value is None and "once" in once.text, once.text


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("Did you read LOADING BAY after NO ENTRY?", True),  # read first at 400 s, and again at 600 s
        ("Was the dog seen after the cat?", False),  # only before it
        ("Did you see the cat before the dog?", False),
    ],
)
def test_whether_a_thing_was_met_after_another_counts_any_later_occasion(
    compared: Reasoner, question: str, value: bool
) -> None:
    answer = compared.answer(question, as_of=T0 + 700)
    assert answer.value is value, answer.text


@pytest.mark.parametrize(
    "text",
    [
        "What did you hear less than two minutes ago?",
        "Did you see a fox more than an hour ago?",
        "Was it under a minute?",
    ],
)
def test_an_amount_of_time_after_than_is_no_second_thing_compared(text: str) -> None:
    assert comparison_question(text) is None
