"""Scoring answers against ground truth, per question type, and summing up per system.

Rules (an answer is correct or wrong; ``Score.error`` keeps how far off a number was):

- binary: ``value`` when it is a bool, else yes/no read from ``value`` or the answer text: a leading
  yes/no decides; otherwise a negation ("I have not seen", "not seen", "never") is no and a sighting
  ("I saw", "seen", "there was") is yes.  Hedges ("I don't know", "not sure") and anything else are wrong.
- time: ``time`` (else a numeric ``value``) within ``tolerance`` (default 5 s) of the answer; error in s.
- position: ``position`` within ``tolerance`` (default 2.5 m, Euclidean) of ``[x, y]``; error in m.
- count: ``int(value)`` equals the answer (within ``tolerance`` if given); without a numeric value the
  first number in the text counts ("3 times", "three times", "once", "twice", "never" = 0), and a
  plain no ("I did not see any") is 0.
- duration: ``value`` in seconds (else parsed from the text: "45 s", "1 min 30 s", "about 2 minutes",
  "1:30") within ``tolerance`` (default max(5 s, 25 % of the answer)); error in s.
- order: the text (or a string ``value``) holds an accepted word ("before"/"earlier" or "after"/"later",
  plus ``accept``) and none of the opposite ones; where the answer is the thing that came first or next, the
  string ``value`` (else the text) names it, as for text.
- text: an accepted phrase (``accept`` and the ``answer`` string) appears in the answer text or a string
  ``value``, case-insensitively, with punctuation and whitespace normalised, on word boundaries.

A question with ground truth but no answer line, or whose answer carries an ``error``, is wrong.
Questions without ground truth are not scored.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from vidmem_ros.evaluation.answers import AnswerLine
from vidmem_ros.evaluation.questions import QUESTION_TYPES, GroundTruth
from vidmem_ros.spoken_numbers import TIMES_WORDS, number_at, number_tokens, parse_duration

DEFAULT_TIME_TOLERANCE_S = 5.0
DEFAULT_POSITION_TOLERANCE_M = 2.5
DEFAULT_DURATION_TOLERANCE_S = 5.0
DEFAULT_DURATION_TOLERANCE_SHARE = 0.25

YES_WORDS = frozenset({"yes", "yeah", "yep", "yup", "correct", "true", "affirmative", "indeed", "certainly"})
NO_WORDS = frozenset({"no", "nope", "false", "negative"})
NEGATIONS = frozenset(
    {"not", "never", "no", "nothing", "none", "nowhere", "neither", "nor", "cannot", "cant"}
    | {"didnt", "havent", "hasnt", "hadnt", "wasnt", "werent", "dont", "doesnt", "isnt", "arent", "wont"}
)
HEDGES = ("dont know", "do not know", "not sure", "unsure", "no idea", "cannot tell", "cant tell", "unknown")
SIGHTINGS = ("saw", "seen", "heard", "noticed", "spotted", "there was", "there were", "there is", "i did")

ORDER_WORDS = {"before": ("before", "earlier"), "after": ("after", "later")}


class Score(BaseModel):
    """One system's answer to one question, judged."""

    model_config = ConfigDict(frozen=True)

    id: str
    system: str
    type: str
    correct: bool
    answered: bool  # a line without an error came back
    error: float | None = None  # |got - expected| in the type's unit: s, m or counts
    got: str = ""  # what the scorer read from the answer
    reason: str = ""
    latency_s: float | None = None


# -- text helpers ------------------------------------------------------------------------


def normalise(text: str) -> str:
    """Casefolded words separated by single spaces; apostrophes dropped ("didn't" -> "didnt")."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"['’`]", "", text)
    return " ".join(re.findall(r"[^\W_]+", text))


def contains_phrase(text: str, phrase: str) -> bool:
    """Whether the normalised phrase appears in the normalised text on word boundaries."""
    needle = normalise(phrase)
    return bool(needle) and f" {needle} " in f" {normalise(text)} "


def parse_yes_no(text: str) -> bool | None:
    """Yes (True), no (False) or unclear (None)."""
    words = normalise(text).split()
    if not words or any(contains_phrase(text, hedge) for hedge in HEDGES):
        return None
    if words[0] in YES_WORDS:
        return True
    if words[0] in NO_WORDS:
        return False
    if any(word in NEGATIONS for word in words):
        return False
    if any(contains_phrase(text, cue) for cue in SIGHTINGS):
        return True
    return None


def parse_count(text: str) -> int | None:
    """The first count in the text ("3 times", "three", "once", "never" = 0); a plain no is 0."""
    tokens = number_tokens(text)
    for i, token in enumerate(tokens):
        if token == "not" and i + 1 < len(tokens) and tokens[i + 1] == "once":
            return 0
        if token in TIMES_WORDS:
            return TIMES_WORDS[token]
        number, _ = number_at(tokens, i)
        if number is not None:
            return int(number)
    return 0 if parse_yes_no(text) is False else None


# -- per-type rules ---------------------------------------------------------------------


Verdict = tuple[bool, str, float | None, str]  # correct, got, error, reason


def _text_of(answer: AnswerLine) -> str:
    return answer.value if isinstance(answer.value, str) and answer.value.strip() else answer.answer


def _number_value(answer: AnswerLine) -> float | None:
    value = answer.value
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _score_binary(truth: GroundTruth, answer: AnswerLine) -> Verdict:
    said = answer.value if isinstance(answer.value, bool) else parse_yes_no(_text_of(answer))
    if said is None:
        return False, "", None, "no yes or no in the answer"
    return said == truth.answer, "yes" if said else "no", None, ""


def _within(got: float, expected: float, tolerance: float, unit: str) -> Verdict:
    error = abs(got - expected)
    return error <= tolerance, f"{got:g} {unit}", error, f"{error:.1f} {unit} off (tolerance {tolerance:g} {unit})"


def _score_time(truth: GroundTruth, answer: AnswerLine) -> Verdict:
    got = answer.time if answer.time is not None else _number_value(answer)
    if got is None:
        return False, "", None, "no time in the answer"
    assert isinstance(truth.answer, int | float)
    tolerance = DEFAULT_TIME_TOLERANCE_S if truth.tolerance is None else truth.tolerance
    return _within(got, float(truth.answer), tolerance, "s")


def _score_position(truth: GroundTruth, answer: AnswerLine) -> Verdict:
    if answer.position is None:
        return False, "", None, "no position in the answer"
    assert isinstance(truth.answer, list)
    tolerance = DEFAULT_POSITION_TOLERANCE_M if truth.tolerance is None else truth.tolerance
    x, y = answer.position
    error = math.dist((x, y), truth.answer)
    return error <= tolerance, f"[{x:g}, {y:g}]", error, f"{error:.2f} m off (tolerance {tolerance:g} m)"


def _score_count(truth: GroundTruth, answer: AnswerLine) -> Verdict:
    number = _number_value(answer)
    got = int(number) if number is not None else parse_count(_text_of(answer))
    if got is None:
        return False, "", None, "no count in the answer"
    assert isinstance(truth.answer, int)
    error = abs(got - truth.answer)
    return error <= (truth.tolerance or 0), str(got), float(error), ""


def _score_duration(truth: GroundTruth, answer: AnswerLine) -> Verdict:
    got = _number_value(answer)
    if got is None:
        got = parse_duration(_text_of(answer))
    if got is None:
        return False, "", None, "no duration in the answer"
    assert isinstance(truth.answer, int | float)
    expected = float(truth.answer)
    default = max(DEFAULT_DURATION_TOLERANCE_S, DEFAULT_DURATION_TOLERANCE_SHARE * expected)
    return _within(got, expected, default if truth.tolerance is None else truth.tolerance, "s")


def _score_order(truth: GroundTruth, answer: AnswerLine) -> Verdict:
    key = truth.answer.strip().lower() if isinstance(truth.answer, str) else ""
    if key not in ORDER_WORDS:  # the thing that came first or next: named by the typed value where there is one
        named = answer.model_copy(update={"answer": ""}) if isinstance(answer.value, str) and answer.value else answer
        return _score_text(truth, named)
    accepted = [*ORDER_WORDS.get(key, ()), *truth.accept]
    opposite = [w for words in ORDER_WORDS.values() for w in words if w not in {normalise(a) for a in accepted}]
    text = _text_of(answer)
    hit = next((a for a in accepted if contains_phrase(text, a)), "")
    clash = next((w for w in opposite if contains_phrase(text, w)), "")
    if clash:
        return False, clash, None, f"says {clash!r}" + (f" and {hit!r}" if hit else "")
    return bool(hit), hit, None, "" if hit else "no order word in the answer"


def _score_text(truth: GroundTruth, answer: AnswerLine) -> Verdict:
    phrases = [*truth.accept, *([truth.answer] if isinstance(truth.answer, str) else [])]
    text = f"{answer.answer} {answer.value if isinstance(answer.value, str) else ''}"
    hit = next((p for p in phrases if contains_phrase(text, p)), None)
    return hit is not None, hit or "", None, "" if hit else "no accepted phrase in the answer"


RULES: dict[str, Callable[[GroundTruth, AnswerLine], Verdict]] = {
    "binary": _score_binary,
    "time": _score_time,
    "position": _score_position,
    "count": _score_count,
    "duration": _score_duration,
    "order": _score_order,
    "text": _score_text,
}


def score_answer(truth: GroundTruth, answer: AnswerLine | None, system: str = "") -> Score:
    """Judge one answer (None: no line came back) against its ground truth."""
    system = system or (answer.system if answer else "")
    base = {"id": truth.id, "system": system, "type": truth.type}
    if answer is None:
        return Score(**base, correct=False, answered=False, reason="no answer")
    if answer.error:
        return Score(
            **base, correct=False, answered=False, reason=f"failed: {answer.error}", latency_s=answer.latency_s
        )
    correct, got, error, reason = RULES[truth.type](truth, answer)
    return Score(
        **base, correct=correct, answered=True, error=error, got=got, reason=reason, latency_s=answer.latency_s
    )


def score_all(
    truth: Mapping[str, GroundTruth], answers_by_system: Mapping[str, Mapping[str, AnswerLine]]
) -> list[Score]:
    """Every system's score on every question with ground truth (in the truth's order, systems as given)."""
    return [
        score_answer(item, answers.get(item.id), system)
        for system, answers in answers_by_system.items()
        for item in truth.values()
    ]


# -- summary ------------------------------------------------------------------------------


class Tally(BaseModel):
    """Scores of one system on one question type (or on all of them)."""

    n: int
    correct: int
    answered: int
    accuracy: float
    mean_time_error_s: float | None = None
    mean_position_error_m: float | None = None
    mean_latency_s: float | None = None


class SystemSummary(BaseModel):
    system: str
    overall: Tally
    by_type: dict[str, Tally]


class Summary(BaseModel):
    systems: list[SystemSummary]
    unscored: list[str] = []  # question ids without ground truth


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def tally(scores: Sequence[Score]) -> Tally:
    correct = sum(s.correct for s in scores)
    return Tally(
        n=len(scores),
        correct=correct,
        answered=sum(s.answered for s in scores),
        accuracy=correct / len(scores) if scores else 0.0,
        mean_time_error_s=_mean(s.error for s in scores if s.type == "time"),
        mean_position_error_m=_mean(s.error for s in scores if s.type == "position"),
        mean_latency_s=_mean(s.latency_s for s in scores),
    )


def summarise(scores: Sequence[Score], unscored: Sequence[str] = ()) -> Summary:
    """Per system (in first-seen order) and per question type."""
    systems = list(dict.fromkeys(s.system for s in scores))
    summaries = []
    for system in systems:
        mine = [s for s in scores if s.system == system]
        by_type = {t: tally([s for s in mine if s.type == t]) for t in QUESTION_TYPES if any(s.type == t for s in mine)}
        summaries.append(SystemSummary(system=system, overall=tally(mine), by_type=by_type))
    return Summary(systems=summaries, unscored=list(unscored))


def _cell(value: float | None, unit: str) -> str:
    return "-" if value is None else f"{value:.2f} {unit}"


def summary_rows(summary: Summary) -> list[tuple[str, list[str]]]:
    """(measure, one cell per system) rows of the summary table, shared by the text table and the report."""

    def share(t: Tally | None) -> str:
        return "-" if t is None else f"{t.correct}/{t.n} {100 * t.accuracy:.1f}%"

    types = [t for t in QUESTION_TYPES if any(t in s.by_type for s in summary.systems)]
    rows = [("overall", [share(s.overall) for s in summary.systems])]
    rows += [(f"  {t}", [share(s.by_type.get(t)) for s in summary.systems]) for t in types]
    rows.append(("answered", [f"{s.overall.answered}/{s.overall.n}" for s in summary.systems]))
    rows.append(("mean time error", [_cell(s.overall.mean_time_error_s, "s") for s in summary.systems]))
    rows.append(("mean position error", [_cell(s.overall.mean_position_error_m, "m") for s in summary.systems]))
    rows.append(("mean latency", [_cell(s.overall.mean_latency_s, "s") for s in summary.systems]))
    return rows


def format_summary(summary: Summary) -> str:
    """A plain-text table: one column per system, one row per measure."""
    if not summary.systems:
        return "no scored questions"
    header = ("", [s.system for s in summary.systems])
    rows = [header, *summary_rows(summary)]
    first = max(len(label) for label, _ in rows)
    widths = [max(len(cells[i]) for _, cells in rows) for i in range(len(summary.systems))]
    lines = [
        "  ".join([label.ljust(first), *(c.rjust(w) for c, w in zip(cells, widths, strict=True))]).rstrip()
        for label, cells in rows
    ]
    if summary.unscored:
        lines.append(f"{len(summary.unscored)} question(s) without ground truth, not scored")
    return "\n".join(lines)


def summary_json(summary: Summary, scores: Sequence[Score] = ()) -> str:
    """The summary, and each score when given, as indented JSON."""
    data = {"summary": summary.model_dump(mode="json"), "scores": [s.model_dump(mode="json") for s in scores]}
    return json.dumps(data, indent=2, ensure_ascii=False)


def write_summary_json(path: str | Path, summary: Summary, scores: Sequence[Score] = ()) -> None:
    Path(path).write_text(summary_json(summary, scores) + "\n", encoding="utf-8")
