"""Lines read in one frame grouped into the things that bore them, and a colour word picking among those."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vidmem_ros.agent.text_blocks import block_in_colour, entries, row_named
from vidmem_ros.memory.records import Moment, Pose
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.colour_names import colour_named, colour_shares
from vidmem_ros.perception.text_layout import rows, text_blocks
from vidmem_ros.perception.types import TextLine

T0 = 1_800_000_000.0


def line(text: str, x0: float, y0: float, x1: float, y1: float) -> TextLine:
    return TextLine(text, 0.9, (x0, y0, x1, y1))


def texts(blocks: list[list[TextLine]]) -> list[list[str]]:
    return [[x.text for x in b] for b in blocks]


def test_a_title_over_two_lines_is_one_block_and_the_book_beside_it_another() -> None:
    found = text_blocks(
        [line("TIDES", 20, 40, 90, 60), line("NORTHERN", 150, 30, 190, 45), line("LIGHTS", 155, 44, 215, 66)]
    )
    assert texts(found) == [["NORTHERN", "LIGHTS"], ["TIDES"]]


def test_a_signs_heading_over_its_body_is_one_block_even_with_a_symbol_between() -> None:
    found = text_blocks(
        [line("CAUTION", 100, 20, 260, 50), line("WET", 102, 140, 258, 170), line("FLOOR", 100, 176, 262, 206)]
    )
    assert texts(found) == [["CAUTION", "WET", "FLOOR"]]


def test_the_parts_of_a_tables_row_are_one_line_whatever_order_they_were_read_in() -> None:
    board = [
        line("TRAINS", 120, 10, 220, 35),
        line("PLATFORM 4 LATE", 250, 58, 380, 76),  # the right part of a row read first, a little higher
        line("11:05 ELMSTEAD", 20, 60, 170, 78),
        line("11:20 BRACKWOOD", 20, 100, 180, 118),
        line("PLATFORM 1", 250, 101, 350, 119),
        line("Keep behind the yellow line", 20, 140, 300, 160),
    ]
    assert rows(board) == [
        "TRAINS",
        "11:05 ELMSTEAD PLATFORM 4 LATE",
        "11:20 BRACKWOOD PLATFORM 1",
        "Keep behind the yellow line",
    ]
    # Lines one above the other, far apart across, of other heights, or without boxes stay apart.
    assert rows([line("OPEN", 20, 10, 80, 30), line("DAILY", 20, 35, 80, 55)]) == ["OPEN", "DAILY"]
    assert rows([line("EXIT", 20, 10, 60, 30), line("LIFT", 400, 10, 440, 30)]) == ["EXIT", "LIFT"]
    assert rows([line("DANGER", 20, 10, 200, 60), line("keep out", 210, 20, 260, 35)]) == ["DANGER", "keep out"]
    assert rows([TextLine("A1", 0.9), TextLine("B2", 0.9)]) == ["A1", "B2"]
    # Three parts of one row, read in any order.
    parts = [line("PLATFORM 4", 250, 58, 380, 76), line("11:05", 20, 60, 70, 78), line("ELMSTEAD", 80, 60, 170, 78)]
    assert rows(parts) == ["11:05 ELMSTEAD PLATFORM 4"]


@pytest.mark.parametrize(
    ("question", "row"),
    [
        ("Which platform does the Brackwood train leave from?", "11:20 BRACKWOOD PLATFORM 1"),
        ("What was shown for the 11:05 train?", "11:05 ELMSTEAD PLATFORM 4 LATE"),
        ("The train to Elmstead: was it on time?", "11:05 ELMSTEAD PLATFORM 4 LATE"),
        ("What does the train board say?", ""),  # no row named: the whole board answers
        ("Which line should people keep behind?", ""),
        ("Did the board list TRAINS?", ""),  # the heading is no row
    ],
)
def test_the_row_a_question_names_by_a_name_or_a_code_is_the_one_that_holds_it(question: str, row: str) -> None:
    board = ["TRAINS", "11:05 ELMSTEAD PLATFORM 4 LATE", "11:20 BRACKWOOD PLATFORM 1", "Keep behind the yellow line"]
    assert row_named(board, question) == row


@pytest.mark.parametrize(
    ("question", "row"),
    [
        ("Which class starts at quarter past nine?", "09:15 Rowing drills"),
        ("Which class begins at half past four in the afternoon?", "16:30 Lessons"),
        ("What is on at 9.15?", "09:15 Rowing drills"),
        ("When does the pool shut on Saturdays and Sundays?", "Sat - Sun 09:00-17:00"),
        ("On a Friday, when does it open?", "Mon - Fri 07:00-21:00"),
        ("What is on at ten o'clock?", ""),  # no row holds it
        ("What is on at 9?", ""),  # a number stands alone: not the 9 of 09:15
        ("The Sunbury one, I'm told: when is it?", ""),  # no row shortens "Sunbury" to "Sun", nor holds "I'm"
    ],
)
def test_a_row_is_named_by_a_time_said_in_words_or_a_day_the_board_shortens(question: str, row: str) -> None:
    board = ["POOL", "Mon - Fri 07:00-21:00", "Sat - Sun 09:00-17:00", "09:15 Rowing drills", "16:30 Lessons"]
    assert row_named(board, question) == row


def test_lines_far_apart_or_of_other_widths_are_separate_blocks() -> None:
    found = text_blocks(
        [line("EXIT", 10, 10, 60, 30), line("ROOM 12", 20, 200, 90, 220), line("tiny print", 300, 5, 320, 8)]
    )
    assert len(found) == 3


@pytest.mark.parametrize(
    "rgb, colour",
    [
        ((230, 20, 20), "red"),
        ((20, 40, 220), "blue"),
        ((30, 160, 40), "green"),
        ((240, 220, 30), "yellow"),
        ((250, 150, 20), "orange"),
        ((130, 30, 150), "purple"),
        ((250, 185, 200), "pink"),
        ((120, 70, 25), "brown"),
        ((250, 250, 250), "white"),
        ((128, 128, 128), "grey"),
        ((10, 10, 10), "black"),
    ],
)
def test_each_basic_colour_term_names_its_pixels(rgb: tuple[int, int, int], colour: str) -> None:
    patch = np.full((4, 4, 3), rgb, np.uint8)
    shares = colour_shares(patch)
    assert shares[colour] == 1.0 and sum(shares.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "text, colour",
    [("the blue kettle", "blue"), ("a GRAY van", "grey"), ("the violet door", "purple"), ("the blueprint", None)],
)
def test_a_colour_word_is_found_as_a_whole_word(text: str, colour: str | None) -> None:
    assert colour_named(text) == colour


def _two_books(scale: int = 1) -> tuple[np.ndarray, list[TextLine]]:
    """A red book (left) and a green one (right), each with its title in white; lines at ``scale`` times the
    image's size."""
    rgb = np.full((240, 320, 3), (90, 90, 90), np.uint8)
    rgb[40:200, 20:140] = (200, 25, 30)
    rgb[40:200, 180:300] = (25, 140, 50)
    lines = [line("SEA", 40, 80, 120, 100), line("STORIES", 30, 104, 130, 124)]
    lines += [line("MOUNTAIN", 190, 80, 290, 100), line("PATHS", 200, 104, 280, 124)]
    for x in lines:
        x0, _, _, y1 = (int(v) for v in x.box)
        cv2.putText(rgb, x.text, (x0, y1 - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
    scaled = [TextLine(x.text, x.score, tuple(v * scale for v in x.box)) for x in lines]  # type: ignore[misc]
    return rgb, scaled


@pytest.mark.parametrize(
    "colour, title", [("red", ["SEA", "STORIES"]), ("green", ["MOUNTAIN", "PATHS"]), ("blue", None)]
)
def test_a_colour_picks_the_block_whose_bearer_shows_it(colour: str, title: list[str] | None) -> None:
    rgb, lines = _two_books()
    found = block_in_colour(rgb, text_blocks(lines), colour)
    assert (None if found is None else [x.text for x in found]) == title
    rgb, lines = _two_books(scale=2)  # read at twice the size of the image kept
    found = block_in_colour(rgb, text_blocks(lines), colour, (640, 480))
    assert (None if found is None else [x.text for x in found]) == title


def test_one_block_is_never_narrowed_by_colour() -> None:
    rgb, lines = _two_books()
    assert block_in_colour(rgb, text_blocks(lines[:2]), "red") is None


@pytest.mark.parametrize(
    "question, wanted, other",
    [
        ("What is the title of the green book?", "MOUNTAIN", "SEA"),
        ("Which title did the red book have?", "SEA", "MOUNTAIN"),
        ("The green book on the shelf: what was its title?", "PATHS", "STORIES"),
        ("What was written on the red cover?", "STORIES", "PATHS"),
    ],
)
def test_a_question_about_a_coloured_bearer_reads_its_words_only(
    tmp_path: Path, question: str, wanted: str, other: str
) -> None:
    from vidmem_ros.agent.reasoner import build_reasoner
    from vidmem_ros.config import load_config

    rgb, lines = _two_books()
    ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    store = SqliteStore(tmp_path / "memory.db")
    for k in range(3):  # the shelf in view for a few frames
        store.add_moment(
            Moment(T0 + k, "/cam", 320, 240, jpeg.tobytes(), texts=list(lines), pose=Pose("map", 2.0, 1.0))
        )
    config = load_config(None, {"query": {"parser": "rules"}})
    answer = build_reasoner(config, store).answer(question)
    assert wanted in answer.text and other not in answer.text, answer.text


@pytest.mark.parametrize(
    ("lines", "count"),
    [
        (["OPENING TIMES", "• Weekdays 9-5", "• Sundays closed"], 2),
        (["LOST PROPERTY", "-----", "Ask at the desk", "-----"], 0),  # rules drawn with dashes are no list
        (["—", "—", "*"], 0),
    ],
)
def test_only_bullets_before_words_open_entries(lines: list[str], count: int) -> None:
    assert len(entries(lines)) == count
