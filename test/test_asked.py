"""The kind of value a question asks for, read from its grammar, and answers that carry it typed or say so."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.answer import Answer
from vidmem_ros.agent.asked import Asked, asked_field, asked_kind, asks_a_time_said, interrogative, settle
from vidmem_ros.memory.records import Pose

CASES = [
    ("Could you tell me when the fridge door was left open?", Asked.TIME),  # a request around a question
    ("Do you happen to know where the trolley was parked?", Asked.POSITION),
    ("The courier left a parcel by the stairs. Which door did they use?", Asked.NAME),
    ("So far, have you come across a fire extinguisher?", Asked.YES_NO),
    ("Up until now, how many times did someone ring the bell?", Asked.COUNT),
    ("How often was the lift out of order?", Asked.COUNT),
    ("Count the crates stacked by the door.", Asked.COUNT),
    ("Please count the chairs in the hall.", Asked.COUNT),
    ("How many minutes did you spend by the lift?", Asked.DURATION),
    ("For how long was the garage door open?", Asked.DURATION),
    ("What were your coordinates when the alarm sounded?", Asked.POSITION),
    ("Where were you when you heard the kettle whistle?", Asked.POSITION),
    ("Report your position (x, y) when you passed the ladder.", Asked.POSITION),
    ("When did you last pass the vending machine?", Asked.TIME),
    ("On the second lap, when did the janitor show up?", Asked.TIME),
    ("At what time did the janitor arrive?", Asked.TIME),
    ("What time does the canteen close?", Asked.NAME),  # what was read or heard, not a moment of memory
    ("When will the east lift be repaired?", Asked.NAME),  # what was planned, as it was said or written
    ("When is the parcel supposed to arrive?", Asked.NAME),
    ("When was the boiler service due?", Asked.NAME),
    ("When is the first time you saw a kettle?", Asked.TIME),
    ("When was the alarm reported?", Asked.TIME),
    ("Tell me the code written on the locker.", Asked.NAME),
    ("Which corridor did you take after the library?", Asked.NAME),
    ("Isn't there a whiteboard in the staff kitchen?", Asked.YES_NO),
    ("Where was the teapot made, according to its label?", Asked.NAME),  # what a text or someone says
    ("According to the guard, when does the pool open?", Asked.NAME),
]


@pytest.mark.parametrize(("question", "kind"), CASES)
def test_the_kind_of_value_asked_comes_from_the_interrogative_clause(question: str, kind: Asked) -> None:
    assert asked_kind(question) is kind


def test_context_and_adverbials_before_the_question_are_passed_over() -> None:
    assert interrogative("A truck arrived at noon. Later, on the ramp, what was unloaded?") == "what was unloaded"


POSE = Pose("map", 3.0, -2.0, 0.0, 0.0, 0.0, 0.0, 1.0)


def test_a_position_question_answered_with_a_moment_gets_the_robots_pose_then() -> None:
    answer = Answer(success=True, text="I heard it 40 s in.", stamp=1040.0)
    settled = settle(answer, Asked.POSITION, lambda stamp: POSE if stamp == 1040.0 else None)
    assert settled.pose == POSE and settled.text == "I heard it 40 s in."


@pytest.mark.parametrize(
    ("asked", "answer", "says"),
    [
        (Asked.POSITION, Answer(success=True, text="Seen in event 3 (room 214, 2024)."), "a position"),
        (Asked.TIME, Answer(success=True, text="The closest thing: a sign reading 10:45."), "a time"),
        (Asked.COUNT, Answer(success=True, text="Yes, I saw it.", value=True), "a count"),
        (Asked.DURATION, Answer(success=True, text="Something about 12 chairs.", value="chairs"), "a duration"),
    ],
)
def test_an_answer_without_the_value_asked_says_it_has_none(asked: Asked, answer: Answer, says: str) -> None:
    settled = settle(answer, asked, lambda stamp: None)
    assert settled.text.startswith(f"I cannot give {says} for that.")
    assert settled.trace["no_value"] == asked.value


def test_answers_that_carry_the_value_or_found_nothing_are_left_as_they_are() -> None:
    counted = Answer(success=True, text="I saw it on 3 occasions.", value=3)
    never = Answer(success=True, text="No, I have not seen a ladder.", value=0)
    timed = Answer(success=True, text="I last saw it 12 s in.", stamp=12.0)
    assert settle(counted, Asked.COUNT, lambda s: None).text == "I saw it on 3 occasions."
    assert settle(never, Asked.COUNT, lambda s: None).text == "No, I have not seen a ladder."
    assert settle(timed, Asked.TIME, lambda s: None).text == "I last saw it 12 s in."
    assert "no_value" not in counted.trace and counted.trace["asked"] == "count"


def test_a_count_carried_as_a_whole_float_is_a_count() -> None:
    settled = settle(Answer(success=True, text="I was there twice.", value=2.0), Asked.COUNT, lambda s: None)
    assert settled.text == "I was there twice." and "no_value" not in settled.trace
    halves = settle(Answer(success=True, text="About 2.5.", value=2.5), Asked.COUNT, lambda s: None)
    assert halves.text.startswith("I cannot give a count")


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When you passed the boiler room, had the gym lights been switched off?", Asked.YES_NO),
        ("When the alarm went off, where were you standing?", Asked.POSITION),
        ("When you left the garage, how many people did you see?", Asked.COUNT),
        ("When did you pass the boiler room, and was anyone there?", Asked.TIME),
    ],
)
def test_a_when_clause_with_its_own_subject_sets_the_time_and_the_clause_after_it_asks(
    question: str, kind: Asked
) -> None:
    assert asked_kind(question) is kind


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("The last tram is at what time?", True),
        ("Closing time for the sauna: at what time does it close?", True),
        ("When does the kiosk open?", True),
        ("Viewing hours are at what time tomorrow?", True),
        ("At what time did you see the tram?", False),
        ("When was the sauna mentioned?", False),
        ("What time did the clock over the arch show?", True),  # a time a thing gave
        ("The notice moved the meeting. What time did it give?", True),
        ("What time did you see the clock over the arch?", False),
        ("What time did the porter give the keys back?", False),  # a thing done then, not a time stated
    ],
)
def test_a_time_asked_of_what_is_or_will_be_is_a_time_said_not_a_moment_met(question: str, said: bool) -> None:
    assert asks_a_time_said(question) is said
    assert (asked_kind(question) is Asked.TIME) is not said  # a time said is read out, a moment met is a time


@pytest.mark.parametrize(
    ("question", "field"),
    [
        ("What use-by date is printed on the honey jar?", "use-by date"),
        ("Which birds does the hide's board list?", "birds"),
        ("The boiler: what error code does it show?", "error code"),
        ("What is the serial number on the boiler?", "serial number"),
        ("What kind of tree was on the poster?", "tree"),
        ("To which country is the crate being shipped?", "country"),
        ("The shop reopens in what month?", "month"),
        ("The clinic is closed which day?", "day"),
        ("What does the boiler's display say?", ""),
        ("What did you see?", ""),
        ("Which came first, the bell or the horn?", ""),
    ],
)
def test_the_field_a_question_asks_the_value_of_is_its_question_phrase(question: str, field: str) -> None:
    assert asked_field(question) == field
