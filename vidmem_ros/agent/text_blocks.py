"""What a question picks among the lines read in one frame: the block whose bearer shows the colour it gives ("the
green folder"), the row of a table it names by its key, the entries of a list (the blocks and rows themselves are
``perception.text_layout``'s)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from vidmem_ros.agent.question import CALENDAR
from vidmem_ros.agent.readable import FUNCTION_WORDS
from vidmem_ros.agent.text_match import squash
from vidmem_ros.perception.colour_names import colour_shares
from vidmem_ros.perception.types import TextLine
from vidmem_ros.spoken_numbers import spoken_clock_times

MARGIN = 0.5  # around a block, this many line heights of the bearer are looked at for its colour
COLOUR_MIN = 0.15  # a block shows a colour where this share of its region has it
COLOUR_LEAD = 1.5  # and it stands out from the next block by this factor


def row_named(lines: Sequence[str], question: str) -> str:
    """The one row of a table or list that a question names by its key, a name or a code it gives ("the Elmstead
    train", "stand 7", "the 10:40 boat", "at half past ten", "on Saturday" of "Sat"), where a row below the heading
    holds it with more besides; else ""."""
    keys = _row_keys(question)
    if not keys or len(lines) < 3:
        return ""
    held = {line: [key for key in keys if _holds_key(line, key)] for line in lines[1:]}
    most = max(len(found) for found in held.values())
    best = [line for line, found in held.items() if len(found) == most]
    if not most or len(best) != 1:
        return ""
    row = best[0]
    besides = [token for token in re.findall(r"[A-Za-z0-9]+", row) if not any(_holds_key(token, k) for k in held[row])]
    return row if besides else ""


def entries(lines: Sequence[str]) -> list[str]:
    """The entries of a list or table a sign gives: its rows that open alike with a bullet, a time, a number or a
    code ("• ...", "09:10 ...", "12 ...", "B7 ..."), the most of one kind where two or more do; [] where none or
    one does."""
    by_kind: dict[str, list[str]] = {}
    for line in lines:
        opening = re.match(r"\s*(\S+)", line)
        kind = _entry_kind(opening[1]) if opening else ""
        if kind == "bullet" and not re.search(r"[^\W\d_]", line):
            continue  # a rule drawn with dashes ("-----") or a lone mark: no entry
        if kind:
            by_kind.setdefault(kind, []).append(line)
    alike = max(by_kind.values(), key=len, default=[])
    return alike if len(alike) >= ENTRIES_MIN else []


# The marks that open a list's entries.
_BULLET = re.compile(r"[·•●○◦▪■□‣►➤✓✔*+–—-](?!\d)")
# A list gives this many entries at least; one line that opens with a number is no list.
ENTRIES_MIN = 2


def _entry_kind(token: str) -> str:
    if _BULLET.match(token):  # "• Gloves on", "- Gloves on": a list's bullet, read with its entry or apart
        return "bullet"
    if re.fullmatch(r"\d{1,2}[:.]\d{2}", token):
        return "time"
    if re.fullmatch(r"\d+[.)]?", token):
        return "number"
    if re.fullmatch(r"[A-Za-z]{1,3}-?\d+[A-Za-z]?", token):
        return "code"
    return ""


def _holds_key(line: str, key: str) -> bool:
    """Whether a line holds a key: a clock time as written any way ("9:15", "09.15"), else the key's letters and
    digits, or a word it shortens to ("SAT" of "Saturday")."""
    clock = re.fullmatch(r"(\d{1,2}):(\d{2})", key)
    if clock:  # said in words, the hour may be the afternoon's ("half past four" of "16:30")
        hours = {int(clock[1])} | ({int(clock[1]) + 12} if int(clock[1]) < 12 else set())
        return any(re.search(rf"(?<![\d:.])0?{hour}[:.]{clock[2]}(?!\d)", line) for hour in hours)
    if key.isdigit():  # "bay 7": the number standing alone, not inside "10:17"
        return re.search(rf"(?<![\d:.]){key}(?![\d:.])", line) is not None
    if squash(key) in squash(line):
        return True
    word = key.lower()
    return (
        re.fullmatch(CALENDAR, word) is not None  # a calendar's names are what a board shortens ("Sat", "Dec")
        and len(word) > ABBREVIATION_MIN
        and any(
            len(token) >= ABBREVIATION_MIN and token not in FUNCTION_WORDS and word.startswith(token)
            for token in re.findall(r"[a-z]+", line.lower())
        )
    )


# A word a sign shortens keeps at least its first three letters ("Sat", "Dec", "Ave").
ABBREVIATION_MIN = 3


def _row_keys(question: str) -> list[str]:
    """The words of a question that name one thing among others of its kind: a name written with a capital inside
    a sentence, a word with a digit in it, or a time of day said in words ("quarter past nine" as "9:15")."""
    keys = [f"{hour}:{minute:02d}" for hour, minute in spoken_clock_times(question)]
    keys += [f"{int(h)}:{m}" for h, m in re.findall(r"(?<![\d:.])(\d{1,2})[:.](\d{2})(?![\d:.])", question)]
    question = re.sub(r"\d{1,2}[:.]\d{2}", " ", question)
    for sentence in re.split(r"(?<=[.?!:;])\s+", question.strip()):
        for at, word in enumerate(re.findall(r"[A-Za-z0-9][\w'-]*", sentence)):
            word = word.removesuffix("'s")
            if "'" in word:
                continue  # "I'm", "don't": no name
            if any(c.isdigit() for c in word) or (at > 0 and word[:1].isupper() and len(word) >= 2 and word != "I"):
                keys.append(word)
    return keys


def block_in_colour(
    rgb: np.ndarray, blocks: list[list[TextLine]], colour: str, size: tuple[int, int] | None = None
) -> list[TextLine] | None:
    """The block whose bearer shows ``colour``, where one does and stands out from the others; else None.
    ``size`` is the (width, height) the lines' boxes were read at, where the image kept is smaller or larger."""
    if len(blocks) < 2:
        return None
    scale = rgb.shape[1] / size[0] if size and size[0] > 0 else 1.0
    shares = sorted(((colour_shares(_region(rgb, b, scale))[colour], k) for k, b in enumerate(blocks)), reverse=True)
    (best, k), runner_up = shares[0], shares[1][0]
    return blocks[k] if best >= COLOUR_MIN and best >= COLOUR_LEAD * runner_up else None


def _region(rgb: np.ndarray, block: list[TextLine], scale: float = 1.0) -> np.ndarray:
    height = float(np.mean([line.box[3] - line.box[1] for line in block]))
    pad = MARGIN * height
    x0 = max(0, int((min(line.box[0] for line in block) - pad) * scale))
    y0 = max(0, int((min(line.box[1] for line in block) - pad) * scale))
    x1 = min(rgb.shape[1], int((max(line.box[2] for line in block) + pad) * scale))
    y1 = min(rgb.shape[0], int((max(line.box[3] for line in block) + pad) * scale))
    return rgb[y0:y1, x0:x1]
