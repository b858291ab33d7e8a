"""Questions asked indirectly are read as the direct question inside them."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.indirect import direct_question
from vidmem_ros.agent.question import Intent, Modality, Window, parse_question
from vidmem_ros.config import load_config
from vidmem_ros.perception import wordnet as wn

WORDNET = wn.load(load_config().lexicon.wordnet_dir)


@pytest.mark.parametrize(
    "asked, direct",
    [
        ("Tell me where you heard about the boiler.", "where did you hear about the boiler?"),
        ("Could you tell me how many times you passed the kiosk?", "how many times did you pass the kiosk?"),
        ("I'd like to know when you first noticed the toolbox.", "when did you first notice the toolbox?"),
        ("Let me know which sign you read near 'BAY 4'.", "which sign did you read near 'BAY 4'?"),
        ("Do you know what time the inspection starts?", "what time does the inspection start?"),
        ("Please remind me when the van was last seen.", "when was the van last seen?"),
        ("I wonder whether there was a toolbox in the hall.", "was there a toolbox in the hall?"),
        ("Can you check if anybody mentioned the boiler?", "did anybody mention the boiler?"),
        ("I need to know whether the robot has been to the lab.", "has the robot been to the lab?"),
        ("Tell me what was said about the boiler.", "what was said about the boiler?"),
        # a question phrase of several words ("how many spoken messages", "which big red door")
        (
            "Tell me how many radio calls or spoken messages you got.",
            "how many radio calls or spoken messages did you get?",
        ),
        ("Can you tell me which big green van you passed first?", "which big green van did you pass first?"),
        ("I wonder what kind of bird the robot spotted.", "what kind of bird did the robot spot?"),
        ("Do you remember seeing a toolbox?", "did you see a toolbox?"),
        # the time of a moment named by what happened then
        ("What time was it when you set off?", "when did you set off?"),
        ("At what time was it when the robot passed the kiosk?", "when did the robot pass the kiosk?"),
        ("What was the time when you first heard the siren?", "when did you first hear the siren?"),
    ],
)
def test_an_indirect_question_is_said_directly(asked: str, direct: str) -> None:
    assert direct_question(asked, WORDNET) == direct


@pytest.mark.parametrize(
    "asked", ["Where did you see the toolbox?", "Tell me about the toolbox.", "I saw you near the van. Was it parked?"]
)
def test_a_direct_question_or_a_request_without_one_is_left_as_asked(asked: str) -> None:
    assert direct_question(asked, WORDNET) == asked


@pytest.mark.parametrize(
    "question, intent, target",
    [
        ("When did you first catch sight of the kettle?", Intent.FIRST, "kettle"),
        ("Have you ever laid eyes on a tortoise?", Intent.DID, "tortoise"),
        ("When did you first set eyes on the teapot?", Intent.FIRST, "teapot"),
        ("Did you catch sight of a scooter?", Intent.DID, "scooter"),
    ],
)
def test_an_idiom_of_seeing_is_read_as_seeing(question: str, intent: Intent, target: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None and (parsed.intent, parsed.modality, parsed.target) == (intent, Modality.OBJECT, target)


@pytest.mark.parametrize(
    "question, target",
    [
        ("When you saw the kettle, where were you?", "kettle"),
        ("When you read 'BAY 4', what were your coordinates?", "bay 4"),
        ("While the robot was watching the teapot, where was it?", "teapot"),
    ],
)
def test_a_moment_said_before_the_question_sets_where_it_asks_about(question: str, target: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.intent is Intent.WHERE and parsed.target == target


@pytest.mark.parametrize(
    "question",
    [
        "What should happen after the inspection?",
        "What is the robot supposed to do after lunch?",
        "What must be done before the meeting?",
        "What are you meant to bring after the break?",
    ],
)
def test_what_is_to_be_done_before_or_after_something_is_not_what_was_met_next_to_it(question: str) -> None:
    parsed = parse_question(question)
    assert parsed is None or parsed.intent not in (Intent.BEFORE, Intent.AFTER), parsed


@pytest.mark.parametrize(
    "question, check",
    [
        ("Did you see the kettle twice?", ("eq", 2)),
        ("Have you seen a heron more than once?", ("gt", 1)),
        ("Did you read 'BAY 4' at least 3 times?", ("ge", 3)),
        ("Did you see a toolbox four times or more?", ("ge", 4)),
        ("Did you spot the van only once?", ("eq", 1)),
    ],
)
def test_a_yes_no_question_that_names_how_often_checks_that_count(question: str, check: tuple[str, int]) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.intent is Intent.DID and parsed.times == check
    assert "once" not in parsed.target and "time" not in parsed.target


@pytest.mark.parametrize(
    "question, intent, target, other",
    [
        ("Did you see a heron or a stork?", Intent.DID, "heron", "stork"),
        ("Have you come across a toolbox or a wheelbarrow?", Intent.DID, "toolbox", "wheelbarrow"),
        ("Did you see the heron or the stork first?", Intent.ORDER, "heron", "stork"),
        ("Which came first, the toolbox or the van?", Intent.ORDER, "toolbox", "van"),
    ],
)
def test_either_of_two_is_asked_unless_the_question_asks_which_came_first(
    question: str, intent: Intent, target: str, other: str
) -> None:
    parsed = parse_question(question)
    assert parsed is not None and (parsed.intent, parsed.target, parsed.other) == (intent, target, other)
    assert (parsed.relation == "or") == (intent is Intent.DID)


@pytest.mark.parametrize(
    "question",
    ["At what clock time did you first see the kettle?", "At what time of day did you first see the kettle?"],
)
def test_a_time_of_day_asked_for_is_when(question: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.intent is Intent.FIRST and parsed.target == "kettle"


@pytest.mark.parametrize(
    "question",
    ["How long did you see the kettle the first time?", "How long did you see the van on the first occasion?"],
)
def test_the_first_occasions_length_is_asked_by_its_order(question: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.intent is Intent.DURATION and parsed.ordinal == 1


@pytest.mark.parametrize(
    "question, intent, seconds",
    [
        ("What was said at around 300 seconds?", Intent.SAID, 300.0),
        ("What did you see at the 90 second mark?", Intent.WHAT, 90.0),
        ("What was in front of you two minutes into the shift?", Intent.WHAT, 120.0),
        ("What did you read five minutes in?", Intent.READ, 300.0),
    ],
)
def test_a_moment_named_by_its_time_is_a_window_around_it(question: str, intent: Intent, seconds: float) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.intent is intent and parsed.window == Window("at", seconds)


@pytest.mark.parametrize(
    "question, window",
    [
        ("Within the first thirty seconds, did you see a kettle?", Window("first", 30.0)),
        ("Did you see a kettle in the last fifteen minutes?", Window("last", 900.0)),
        ("How long did you watch the kettle for?", None),
    ],
)
def test_windows_from_the_start_or_the_end_are_read_as_before(question: str, window: Window | None) -> None:
    parsed = parse_question(question)
    assert parsed is not None and parsed.window == window


@pytest.mark.parametrize(
    "question, intent, target",
    [
        ("Did the robot see a kettle?", Intent.DID, "kettle"),
        ("Has the robot come across a toolbox?", Intent.DID, "toolbox"),
        ("When did the robot first notice the toolbox?", Intent.FIRST, "toolbox"),
    ],
)
def test_the_robot_named_in_the_third_person_is_you(question: str, intent: Intent, target: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None and (parsed.intent, parsed.target) == (intent, target)


@pytest.mark.parametrize(
    "asked, direct",
    [
        # a statement to confirm
        ("Someone was waiting at the fountain, right?", "was someone waiting at the fountain?"),
        ("You passed a canoe in the shed, didn't you?", "did you pass a canoe in the shed?"),
        ("The hatch had been left open, correct?", "had the hatch been left open?"),
        ("There were crates by the ramp, weren't there?", "were there crates by the ramp?"),
        ("The robot heard the siren, is that right?", "did the robot hear the siren?"),
        # "did you" left out
        ("Notice any puddles near the ramp?", "did you notice any puddles near the ramp?"),
        ("Hear anything about the lift today?", "did you hear anything about the lift today?"),
        ("Come across anybody in the cloister?", "did you come across anybody in the cloister?"),
        # the moment first, then the question
        ("When you reached the shed, was the door open?", "was the door open when you reached the shed?"),
        (
            "Once the robot left the kiln room, did it pass anyone?",
            "did it pass anyone once the robot left the kiln room?",
        ),
    ],
)
def test_a_statement_to_confirm_an_elided_question_and_a_moment_said_first_are_asked_directly(
    asked: str, direct: str
) -> None:
    assert direct_question(asked, WORDNET) == direct


@pytest.mark.parametrize(
    "asked",
    [
        "What is on the left, right?",
        "Read me the sign by the door.",
        "Marta was at the counter, right?",
        "See you later?",
    ],
)
def test_questions_of_other_forms_stay_as_asked(asked: str) -> None:
    assert direct_question(asked, WORDNET) == asked


@pytest.mark.parametrize(
    "asked, direct",
    [
        ("Tally of golf carts so far, please.", "how many golf carts so far?"),
        ("What's your count of trips to the boiler house?", "how many trips to the boiler house?"),
        ("Give me the total number of barrels you passed.", "how many barrels did you pass?"),
        ("Number of people you have greeted?", "how many people have you greeted?"),
        ("Can you give me a running count of the announcements?", "how many announcements?"),
    ],
)
def test_a_count_asked_for_as_a_quantity_is_how_many(asked: str, direct: str) -> None:
    assert direct_question(asked, WORDNET) == direct


def test_the_number_of_one_thing_is_no_count() -> None:
    assert direct_question("What was the number of the tram?", WORDNET) == "What was the number of the tram?"


@pytest.mark.parametrize(
    "asked, direct",
    [
        ("At what second of the recording did you first notice the kite?", "when did you first notice the kite?"),
        ("The kite - at which point did you spot it?", "The kite - when did you spot it?"),
        ("First sighting of the florist's van: when was it?", "when did you first see the florist's van?"),
        ("When was your most recent sighting of a golf cart?", "when did you last see a golf cart?"),
        ("The scullery was followed by which area?", "where did you go after the scullery?"),
        ("The refectory was preceded by which room of the mill?", "where did you go before the refectory?"),
        ("The mill: what was the length of your visit there?", "The mill: how long was your visit there?"),
        ("What was the duration of your stop at the pavilion?", "how long was your stop at the pavilion?"),
        ("The golf cart was spotted from which map x, y?", "where did you spot the golf cart?"),
        ("A wet paint notice was read at what position?", "where did you read a wet paint notice?"),
        ("As of right now, how many barrels have you passed?", "how many barrels have you passed?"),
        ("pavilion visit: duration in seconds?", "how long was your visit to pavilion?"),
        ("Mill stop - length?", "how long was your visit to Mill?"),
        ("Just after the mill you were somewhere else. Where?", "where were you just after the mill?"),
        (
            "Right before the refectory the robot went somewhere; where was that?",
            "where were you right before the refectory?",
        ),
        ("scullery -> ? (next stop)", "where did you go after scullery?"),
        ("? -> refectory", "where did you go before refectory?"),
        ("pavilion visits: how many?", "how many visits to pavilion?"),
        ("the pavilion - trips: how many so far?", "how many trips to the pavilion so far?"),
        ("Up to now, what's your count of stops at the pavilion?", "how many stops at the pavilion?"),
    ],
)
def test_a_question_said_another_way_than_the_patterns_read_is_said_plainly(asked: str, direct: str) -> None:
    assert direct_question(asked, WORDNET) == direct
