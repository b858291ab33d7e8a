"""Matching a question's words against words read or heard: another form of a word still matches, a short
stem does not match inside unrelated words."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.text_match import distinct_signs, stem, words_covered


@pytest.mark.parametrize(
    ("query", "text", "share"),
    [
        ("pool staying open", "The pool will stay open late tonight.", 1.0),
        ("lift stopping", "The lift stops at every floor.", 1.0),
        ("boiler closing", "The boiler room is closed.", 1.0),
        ("kettle running", "The kettle is broken.", 0.5),
    ],
)
def test_a_word_matches_in_another_form(query: str, text: str, share: float) -> None:
    assert words_covered(query, text) == share


def test_a_stem_keeps_four_letters_at_least() -> None:
    assert stem("running") == "running" and stem("staying") == "stay" and stem("door") == "door"
    assert words_covered("running", "The prune juice is here.") == 0.0


@pytest.mark.parametrize(
    ("word", "text", "found"),
    [
        ("party", "Two parties booked the hall.", True),
        ("parties", "The party starts at nine.", True),
        ("party", "Partners meet on Friday.", False),
        ("city", "Cities of the north", True),
        ("stay", "Nobody stays overnight.", True),
    ],
)
def test_a_word_ending_in_y_is_found_in_its_plural_and_not_in_a_longer_word(word: str, text: str, found: bool) -> None:
    assert (words_covered(word, text) == 1.0) is found


def test_readings_clipped_or_misread_at_an_edge_are_one_sign() -> None:
    readings = [
        "STAFF ENTRANCE", "TAFF ENTRANCE", "STAFF ENTRANC", "XTAFF ENTRANCE", "MIND THE STEP", "MIND THE STEP",
        "THE STEP", "GATE 7", "GATE7", "7", "QX", "GATE 9",
    ]  # fmt: skip
    assert distinct_signs(readings) == ["STAFF ENTRANCE", "MIND THE STEP", "GATE 7", "GATE 9"]
    assert distinct_signs(["NO", "OK"]) == []


def test_a_word_is_covered_by_another_form_given_for_it() -> None:
    assert words_covered("who brought the parcel", "She will bring the parcel tomorrow.") == 0.5
    assert words_covered("who brought the parcel", "She will bring the parcel tomorrow.", {"brought": "bring"}) == 1.0
