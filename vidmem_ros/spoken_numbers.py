"""Numbers and amounts of time as people write them ("twenty one", "a minute and a half", "1 min 30 s", "1:30"):
read from answers by the scorer and from questions by the agent."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15}
TEENS |= {"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
NUMBER_WORDS = {"zero": 0, "none": 0, **UNITS, **TEENS, **TENS, "dozen": 12, "hundred": 100}
TIMES_WORDS = {"never": 0, "once": 1, "twice": 2, "thrice": 3}
SECONDS_PER = {"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600}
SECONDS_PER |= {"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60}
SECONDS_PER |= {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1}
# Words allowed between the parts of one duration ("1 min and 30 s", "about two minutes").
DURATION_FILLERS = frozenset({"and", "about", "around", "roughly", "approximately", "approx", "some", "over", "under"})


def number_tokens(text: str) -> list[str]:
    text = re.sub(r"['’`]", "", unicodedata.normalize("NFKC", text).casefold())
    return re.findall(r"\d+(?:\.\d+)?|[a-z]+", text)


def number_at(tokens: Sequence[str], i: int) -> tuple[float | None, int]:
    """The number starting at ``tokens[i]`` and how many tokens it used ("twenty one" is 21)."""
    token = tokens[i]
    if re.fullmatch(r"\d+(?:\.\d+)?", token):
        return float(token), 1
    if token in TENS and i + 1 < len(tokens) and tokens[i + 1] in UNITS:
        return float(TENS[token] + UNITS[tokens[i + 1]]), 2
    if token in NUMBER_WORDS:
        return float(NUMBER_WORDS[token]), 1
    return None, 1


def spoken_clock_times(text: str) -> list[tuple[int, int]]:
    """The times of day a text says in words, as (hour, minute): "quarter past nine" (9, 15), "half past two"
    (2, 30), "quarter to ten" (9, 45), "ten o'clock" (10, 0), "twenty past six" (6, 20)."""
    found = []
    for m in _SPOKEN_CLOCK.finditer(text.lower()):
        hour = _clock_number(m["hour"] or m["hour2"])
        if hour is None or not 1 <= hour <= 24:
            continue
        if m["oclock"]:
            found.append((hour, 0))
            continue
        minutes = {"quarter": 15, "half": 30}.get(m["amount"] or "")
        minutes = minutes if minutes is not None else _clock_number(m["amount"] or "")
        # "five to nine" is a time; "nine to five", "two to three days" and "from six to ten" are ranges
        if minutes is None or not 0 < minutes < 60 or (minutes % 5 and not m["minutes"]) or m["range"]:
            continue
        found.append((hour, minutes) if m["way"] in ("past", "after") else ((hour - 2) % 12 + 1, 60 - minutes))
    return found


def clock_spans(text: str) -> list[tuple[int, int]]:
    """Where a text says a time of day, in words ("quarter to nine", "20 past 3") or figures ("14:05"): the spans,
    so the time is read out whole, not as its numbers."""
    said = [m.span() for m in _SPOKEN_CLOCK.finditer(text.lower()) if not m["range"]]
    return sorted(said + [m.span() for m in _CLOCK_TIME.finditer(text)])


def _clock_number(words: str) -> int | None:
    tokens = number_tokens(words)
    if not tokens:
        return None
    value, used = number_at(tokens, 0)
    return int(value) if value is not None and used == len(tokens) and float(value).is_integer() else None


_CLOCK_WORD = rf"(?:\d{{1,2}}|(?:{'|'.join(TENS)})[ -](?:{'|'.join(UNITS)})|{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))})"
_SPOKEN_CLOCK = re.compile(
    rf"(?P<range>\b(?:from|between|rows?|aged?|ages|for) )?\b(?:(?P<amount>quarter|half|{_CLOCK_WORD})"
    rf"(?P<minutes> minutes?)? (?P<way>past|after|to) (?P<hour>{_CLOCK_WORD})(?! (?:days?|weeks?|hours?|years?|months?)\b)"
    rf"|(?P<oclock>(?P<hour2>{_CLOCK_WORD}) o'?clock))\b"
)


def parse_duration(text: str) -> float | None:
    """Seconds in "45 s", "1 min 30 s", "about 2 minutes", "a minute and a half", "1:30" or a bare "90"."""
    clock = re.search(r"\b(\d+):([0-5]\d)(?::([0-5]\d))?\b", text)
    if clock:
        parts = [int(p) for p in clock.groups() if p is not None]
        return float(sum(p * 60**k for k, p in enumerate(reversed(parts))))
    tokens = number_tokens(text)
    if len(tokens) == 1 and re.fullmatch(r"\d+(?:\.\d+)?", tokens[0]):
        return float(tokens[0])
    return _first_duration(tokens)


def _first_duration(tokens: Sequence[str]) -> float | None:
    """Sum of the first run of number-unit pairs; any other word after a pair ends the run."""
    total, pending, last_unit, found = 0.0, None, 0, False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        number, used = number_at(tokens, i)
        if number is not None:
            pending = number
            i += used
            continue
        if token == "half":
            if pending == 1 and last_unit:  # "a minute and a half"
                total, pending = total + last_unit / 2, None
            else:
                pending = 0.5
        elif token in ("a", "an"):
            pending = 1.0 if pending is None else pending  # "a minute"; "half a minute" keeps the half
        elif token in SECONDS_PER and pending is not None:
            last_unit = SECONDS_PER[token]
            total, pending, found = total + pending * last_unit, None, True
        elif found and token not in DURATION_FILLERS:
            break
        elif token not in DURATION_FILLERS:
            pending = None
        i += 1
    return total if found else None


def amount_of(text: str, noun: str, gap: int = 3) -> float | None:
    """The number a text gives of a thing: "9 crates of fresh pears" holds 9 crates; up to ``gap`` words may stand
    between the number and the thing ("twelve large blue crates").  A clock time counts nothing ("09:30 trip").  A
    thing named in several words is known by its last ("12 BERTHS" gives the mooring berths)."""
    tokens = number_tokens(_CLOCK_TIME.sub(" ", text))
    stem = (noun.lower().split() or [""])[-1].rstrip("s")
    i = 0
    while i < len(tokens):
        number, used = number_at(tokens, i)
        if number is not None:
            after = tokens[i + used : i + used + gap + 1]
            at = next((k for k, t in enumerate(after) if t.startswith(stem)), None)
            # What stands between is what the things were like ("large blue"), not a verb or another number.
            if at is not None and not any(t in _NOT_DESCRIBING or number_at(after, k)[0] is not None
                                          for k, t in enumerate(after[:at])):  # fmt: skip
                return number
        i += used
    return None


_CLOCK_TIME = re.compile(
    r"(?<![\d.:])\d{1,2}:[0-5]\d(?![\d.:])(?:\s*(?:am|pm|a\.m\.|p\.m\.))?"
    r"|(?<![\d.:])\d{1,2}\.[0-5]\d\s*(?:am|pm|a\.m\.|p\.m\.)",
    re.IGNORECASE,
)


def how_often(text: str) -> float | None:
    """How many times a text says something happened: "once", "twice", "three times", "4 times"; None where it says
    no such thing."""
    lowered = text.lower()
    found = _OFTEN.search(lowered)
    if found is not None:
        return float(_OFTEN_WORDS[found[0]])
    tokens = number_tokens(lowered)
    for i in range(len(tokens)):
        number, used = number_at(tokens, i)
        if number is not None and tokens[i + used : i + used + 1] == ["times"]:
            return number
    return None


_OFTEN_WORDS = {"once": 1, "twice": 2, "thrice": 3}
_OFTEN = re.compile(rf"\b(?:{'|'.join(_OFTEN_WORDS)})\b")


# Words that end the phrase a number counts ("gate 3 needs guards": 3 counts no guards).
_NOT_DESCRIBING = frozenset(
    re.findall(
        r"\w+",
        "is are was were be been being has have had needs need needed will would must should can could may might and or"
        " but to for with at in on by from than",
    )
)
