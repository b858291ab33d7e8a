"""Numbers and times of day as people say and write them."""

from __future__ import annotations

import pytest

from vidmem_ros.spoken_numbers import amount_of, spoken_clock_times


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("the class at quarter past nine", [(9, 15)]),
        ("by half past two or quarter to ten", [(2, 30), (9, 45)]),
        ("it leaves at eleven o'clock", [(11, 0)]),
        ("twenty-five to one", [(12, 35)]),
        ("ten minutes after six", [(6, 10)]),
        ("a quarter of the stock went past the gate", []),
        ("open nine to five", []),  # a range of hours, not four minutes to five
        ("from six to ten", []),
        ("two to three days", []),
        ("rows 5 to 9", []),
    ],
)
def test_times_of_day_said_in_words_are_read_as_hours_and_minutes(text: str, times: list[tuple[int, int]]) -> None:
    assert spoken_clock_times(text) == times


def test_a_clock_time_is_no_amount_of_the_thing_after_it() -> None:
    assert amount_of("09:30 harbour trip", "trips") is None
    assert amount_of("3 trips leave at 10:00", "trips") == 3
    assert amount_of("the 7.15 pm ferry", "ferries") is None
    assert amount_of("1.25 litres of milk", "litres") == 1.25  # a decimal is no clock time
