"""Words of like and opposite meaning from WordNet's adjectives and verbs, and words read that say the opposite."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.polarity import contradiction, said_alike
from vidmem_ros.perception.opposites import Opposites, opposites_of
from vidmem_ros.perception.wordnet import WordNet


@pytest.fixture(scope="module")
def opposites(nouns: WordNet) -> Opposites:
    return opposites_of(nouns)


def test_antonyms_come_from_the_word_its_cluster_head_or_a_negative_prefix(opposites: Opposites) -> None:
    assert {"closed", "shut"} <= opposites.opposed("open")  # a head adjective's antonym, with its synonyms
    assert "open" in opposites.opposed("closed")
    assert "dry" in opposites.opposed("wet")
    assert "locked" in opposites.opposed("unlocked")  # by its prefix
    assert "unavailable" in opposites.opposed("available")
    assert {"forbid", "prohibit"} <= opposites.opposed("permitted")  # a verb, by its base form
    assert "open" not in opposites.opposed("open") and not opposites.opposed("teapot")


def test_words_of_like_meaning_share_a_sense(opposites: Opposites) -> None:
    assert "shut" in opposites.alike("closed") and "permit" in opposites.alike("allowed")
    assert "dry" not in opposites.alike("wet")


@pytest.mark.parametrize(
    ("wanted", "text", "expected"),
    [
        (["gallery", "open", "monday"], "GALLERY CLOSED ON MONDAYS", ("open", "closed")),
        (["kiosk", "shut"], "The kiosk is open until late.", ("shut", "open")),
        (["paint", "dry"], "WET PAINT", ("dry", "wet")),
        (["skateboards", "allowed"], "NO SKATEBOARDS", ("skateboards", "no skateboards")),
        (["ferry", "running"], "The ferry is not running today.", ("running", "not running")),
        (["gallery", "closed", "monday"], "GALLERY CLOSED ON MONDAYS", None),
        (["kiosk", "closed"], "The kiosk is shut until noon.", None),  # said by a word of like meaning
        (["skateboards"], "No skateboards in the lobby, skateboards go in the rack.", None),  # not every one negated
        (["teapot", "kyoto"], "TEAPOT MADE IN KYOTO", None),
    ],
)
def test_words_read_that_say_the_opposite_or_negate_what_is_asked(
    nouns: WordNet, opposites: Opposites, wanted: list[str], text: str, expected: tuple[str, str] | None
) -> None:
    assert contradiction(nouns, opposites, wanted, text) == expected


def test_a_word_said_alike_counts_as_said(nouns: WordNet, opposites: Opposites) -> None:
    assert said_alike(nouns, opposites, "closed", "The kiosk is shut.")
    assert said_alike(nouns, opposites, "cancelled", "The match was cancelled.")
    assert not said_alike(nouns, opposites, "open", "The kiosk is shut.")
