"""Words text recognition ran together, set apart again with WordNet's words and the closed classes of English."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.readable import readable
from vidmem_ros.perception.opposites import dictionary_senses
from vidmem_ros.perception.wordnet import WordNet


@pytest.mark.parametrize(
    ("read", "apart"),
    [
        ("FARESNOW2.40", "FARES NOW 2.40"),  # words and a price run together, in capitals
        ("PLATFORMCLOSED", "PLATFORM CLOSED"),
        ("LIFTCLOSED / FORREPAIRS", "LIFT CLOSED / FOR REPAIRS"),  # a run after another run set apart
        ("Keepyourticketwithyou", "Keep your ticket with you"),  # a sentence, with the closed-class words
        ("askAtTheDesk", "ask At The Desk"),  # the case turns at each word
        ("MONDAY08:00-12:00", "MONDAY 08:00-12:00"),
        ("Tue-Thu09:15-17:00", "Tue-Thu 09:15-17:00"),  # a clock time, whatever the case
        ("B0ATH0USE", "BOATHOUSE"),  # zeros read for the letter O
        ("LIMIT3.5t", "LIMIT 3.5 t"),  # a unit of measure is a word of its own
        ("ROOM 12a", "ROOM 12a"),  # a letter that is no unit stays with its number
        ("2nd floor", "2nd floor"),  # an ordinal stays whole
        ("Password: heron4417", "Password: heron4417"),  # in lower case, a password or a code stays whole
        ("Ask for Dr 0yelaran", "Ask for Dr Oyelaran"),  # a zero before a word is the letter O
        ("DANGER:WETFLOORS", "DANGER:WET FLOORS"),  # an adjective is a word too
        ("Wojciechowska", "Wojciechowska"),  # a name the dictionary lacks stays whole
        ("Shoeshine", "Shoeshine"),  # two words by chance are no reason to split a word in sentence case
        ("iPad", "iPad"),
        ("DR. ANNIKA LINDBERG", "DR. ANNIKA LINDBERG"),  # a surname after a title or a first name stays whole
        ("ROBUSTA BEANS", "ROBUSTA BEANS"),  # a word the dictionary lacks is no word and a letter ("ROBUST A")
        ("GATE B12", "GATE B12"),
        ("ODDLEWICK / DUCKPOND", "ODDLEWICK / DUCK POND"),
        ("Scone f2.15 / Jam fO.40", "Scone £2.15 / Jam fO.40"),  # a pound sign read as f, before two decimals
        (
            "f16 lens",
            "f16 lens",
        ),  # an f before a whole number is no pound sign  # a name holds on to no word of another line
    ],
)
def test_words_run_together_are_set_apart(nouns: WordNet, read: str, apart: str) -> None:
    assert readable(read, dictionary_senses(nouns)) == apart
