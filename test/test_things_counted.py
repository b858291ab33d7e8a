"""A question that counts things of a kind, as against occasions, messages, signs or stays."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.things_counted import ThingsCounted, things_counted


@pytest.mark.parametrize(
    ("question", "counted"),
    [
        ("How many forklifts did you see?", ThingsCounted("forklifts", "")),
        ("How many bins were there in the yard?", ThingsCounted("bins", "yard")),
        ("How many vans were parked outside the depot?", ThingsCounted("vans", "depot")),
        ("How many kids were flying kites in the park?", ThingsCounted("kids", "park")),
        ("How many mugs were on the worktop?", ThingsCounted("mugs", "worktop", on_thing=True)),
        ("So far, how many pallets could you make out by the door?", ThingsCounted("pallets", "door", on_thing=True)),
        ("How many forklifts did you see in the first ten minutes?", ThingsCounted("forklifts", "")),  # when
        ("How many bins were there in the yard in the last hour?", ThingsCounted("bins", "yard")),
        ("How many trolleys did you count during the night?", ThingsCounted("trolleys", "")),
        ("How many kites did you see at once?", ThingsCounted("kites", "", on_thing=True)),  # in one view
        ("How many kites were there at the same time?", ThingsCounted("kites", "", on_thing=True)),
        ("How many chairs were in the yard at once?", ThingsCounted("chairs", "yard")),  # a place's count is so
    ],
)
def test_things_counted_are_read_with_where_they_were(question: str, counted: ThingsCounted) -> None:
    assert things_counted(question) == counted


@pytest.mark.parametrize(
    "question",
    [
        "How many times did you see a forklift?",
        "How many signs did you read?",
        "How many announcements were there?",
        "How many rooms did you go to?",
        "How many crates did the driver say were coming?",  # a number heard, not things seen
        "How many minutes were you in the yard?",
        "How many rules are on the pool notice?",  # lines read
        "How many taxis are on their way?",  # coming, as heard
    ],
)
def test_occasions_stays_messages_and_numbers_said_are_not_things_counted(question: str) -> None:
    assert things_counted(question) is None
