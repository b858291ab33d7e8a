"""Numbers as people write them: spelled out or in digits."""

from __future__ import annotations

import pytest

from vidmem_ros.spoken_numbers import with_digits


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("tables eleven to twenty", "tables 11 to 20"),
        ("Bay twenty-one", "Bay 21"),
        ("forty two boxes", "42 boxes"),
        ("platform two.", "platform 2."),
        ("the forty-fifth floor", "the forty-fifth floor"),  # an ordinal is no count
        ("none of them, a dozen times", "none of them, a dozen times"),
        ("someone was seventeen", "someone was 17"),
        ("a three-way valve", "a three-way valve"),
    ],
)
def test_spelled_out_numbers_are_written_in_digits(text: str, digits: str) -> None:
    assert with_digits(text) == digits
