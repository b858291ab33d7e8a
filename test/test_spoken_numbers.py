"""Numbers as people write them: spelled out or in digits."""

from __future__ import annotations

import pytest

from vidmem_ros.spoken_numbers import amount_of, spoken_clock_times, with_digits


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


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("the class at quarter past nine", [(9, 15)]),
        ("by half past two or quarter to ten", [(2, 30), (9, 45)]),
        ("it leaves at eleven o'clock", [(11, 0)]),
        ("twenty-five to one", [(12, 35)]),
        ("ten minutes after six", [(6, 10)]),
        ("a quarter of the stock went past the gate", []),
    ],
)
def test_times_of_day_said_in_words_are_read_as_hours_and_minutes(text: str, times: list[tuple[int, int]]) -> None:
    assert spoken_clock_times(text) == times


def test_a_clock_time_is_no_amount_of_the_thing_after_it() -> None:
    assert amount_of("09:30 harbour trip", "trips") is None
    assert amount_of("3 trips leave at 10:00", "trips") == 3
    assert amount_of("the 7.15 pm ferry", "ferries") is None
