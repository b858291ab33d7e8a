"""Questions the robot was asked are told apart from anything else said to it."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.heard_questions import asks_something, speaks_of_asking


@pytest.mark.parametrize(
    ("sentence", "asks"),
    [
        ("Is the coal yard still open?", True),
        ("Excuse me, do you know where the stamps are kept", True),  # no question mark: opens as a question does
        ("Hello robot. Where can I leave this parcel", True),
        ("The coal yard closes at five.", False),
        ("Please take the parcel to the yard.", False),
        ("Whoever finds the keys should bring them to the front office.", False),
    ],
)
def test_a_sentence_heard_asks_something_by_its_mark_or_its_opening_words(sentence: str, asks: bool) -> None:
    assert asks_something(sentence) is asks


@pytest.mark.parametrize(
    ("question", "asking"),
    [
        ("Did a courier ask you about the coal yard?", True),
        ("Has anybody enquired whether the shop sells stamps?", True),
        ("Where were you when the guest's question was put to you?", True),
        ("When did someone ask which way the exit was?", True),
        ("How many questions were you asked?", True),
        ("Did anyone mention the coal yard?", False),
        ("Did the cleaner ask you to move the trolley?", False),  # a request
        ("What was written on the crate in question?", False),
    ],
)
def test_a_question_about_what_the_robot_was_asked_is_told_from_others(question: str, asking: bool) -> None:
    assert speaks_of_asking(question) is asking
