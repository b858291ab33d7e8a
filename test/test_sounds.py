"""Words that sound alike, for what speech recognition wrote in place of what was said."""

from __future__ import annotations

import pytest

from vidmem_ros.agent.sounds import misheard_as, sound_key


def test_a_sound_key_keeps_consonant_sounds_and_merges_voiced_pairs() -> None:
    assert sound_key("fuse") == sound_key("views") == "fs"
    assert sound_key("mop") == sound_key("map")
    assert sound_key("ship") == sound_key("chip")  # "sh" and "ch"
    assert sound_key("knot") == sound_key("not")  # a silent first letter
    assert sound_key("kettle") != sound_key("bottle")


@pytest.mark.parametrize(
    ("wanted", "heard", "found"),
    [
        (["fuse", "box"], "The views box in the hall is sparking.", {"fuse": "views"}),  # a run of two, one alike
        (["salt", "bins"], "The sold bins by the ramp are empty.", {"salt": "sold"}),
        (["marlow", "bakery"], "The marlowe bakeries van is outside.", {"marlow": "marlowe", "bakery": "bakeries"}),
        (["gas", "leak"], "Please lock the guest lounge.", {}),  # no run of words alike
        (["fuse"], "The views are lovely.", {}),  # one short word alone proves nothing
    ],
)
def test_words_heard_in_place_of_those_asked_are_found_by_runs_of_like_sound(
    wanted: list[str], heard: str, found: dict[str, str]
) -> None:
    assert {w: h for w, h in misheard_as(wanted, heard).items() if w != h} == found
