"""What a description of a thing names, and how many of it it asks for."""

import pytest

from vidmem_ros.agent.description import description_rest, head_words, held_in, wanted_count, without_count


@pytest.mark.parametrize(
    ("phrase", "head"),
    [
        ("books on a shelf", "books"),
        ("three children flying a kite", "three children"),
        ("a woman carrying an umbrella", "a woman"),
        ("the van that was parked outside", "the van"),
        ("a sleeping cat", "a sleeping cat"),  # a modifier, not what the cat did
        ("the ceiling fan", "the ceiling fan"),
        ("the old building", "the old building"),  # an -ing noun at the end of a phrase
    ],
)
def test_the_head_of_a_description_is_the_thing_before_what_places_or_qualifies_it(phrase: str, head: str) -> None:
    assert head_words(phrase) == head


@pytest.mark.parametrize(
    ("phrase", "count"),
    [
        ("three children flying a kite", 3),
        ("a pair of swans on the lake", 2),
        ("4 trucks", 4),
        ("a dozen eggs", 12),
        ("a truck", 1),
    ],
)
def test_a_number_before_the_thing_asks_for_that_many_at_once(phrase: str, count: int) -> None:
    assert wanted_count(phrase) == count


def test_the_rest_of_a_description_leaves_out_where_the_thing_was() -> None:
    assert description_rest("three children flying a kite") == "flying a kite"
    assert description_rest("books on a shelf") == ""
    assert without_count("a pair of swans") == "swans" and without_count("two boats") == "boats"


def test_a_participle_before_the_thing_names_what_it_was_in() -> None:
    assert "cage" in held_in("a caged parrot") and "box" in held_in("the boxed kettle")
    assert "bottle" in held_in("bottled water") and held_in("a red car") == []


@pytest.mark.parametrize(
    ("phrase", "head", "rest"),
    [
        ("van with its doors open", "van", "with its doors open"),
        ("a woman with a pram", "a woman", "with a pram"),
        ("the bike without a saddle", "the bike", "without a saddle"),
    ],
)
def test_what_a_thing_had_with_it_is_not_the_thing(phrase: str, head: str, rest: str) -> None:
    assert (head_words(phrase), description_rest(phrase)) == (head, rest)
