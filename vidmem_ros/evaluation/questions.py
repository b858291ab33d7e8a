"""Questions about a rosbag, one JSON object a line (JSONL).

Each line::

    {"id": "q1", "ask_at": 42.0, "question": "Did you see a cat?",
     "type": "binary", "answer": true, "accept": ["yes"], "tolerance": 5}

``id`` (non-empty, unique in the file), ``ask_at`` (seconds from the bag's first message, >= 0) and
``question`` are required.  The rest is ground truth and optional: ``type`` is one of ``QUESTION_TYPES``;
``answer`` is a bool (binary), seconds from the bag's first message (time), ``[x, y]`` in metres in the
map frame (position), a whole number (count), seconds (duration), ``"before"``/``"after"`` or the thing that
came first or next (order) or a string (text); ``accept`` lists further acceptable phrases (text, order); ``tolerance`` is in seconds,
metres or counts.  A line without ``answer`` or ``accept`` has no ground truth: it is asked, not scored.
Without ``type``, a bool answer means binary, ``[x, y]`` position and a string text; a number needs a type.
Blank lines are skipped.  Any other key is an error.

A bad line (not JSON, a missing or invalid field, an unknown type, a duplicate id) becomes a problem
message naming the file and line; the rest of the file still loads.  The system under test is handed
``Question`` objects only (id, ask_at, question); ``GroundTruth`` stays with the scorer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

QuestionType = Literal["text", "binary", "time", "position", "count", "duration", "order"]
QUESTION_TYPES: tuple[str, ...] = ("text", "binary", "time", "position", "count", "duration", "order")
TruthValue = bool | int | float | str | list[float]
Beyond = Literal["ask_at_end", "skip"]


class Question(BaseModel):
    """What the system under test is shown: no type, no answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    ask_at: float  # seconds from the bag's first message
    question: str


class GroundTruth(BaseModel):
    """What the scorer compares an answer with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    type: QuestionType
    answer: TruthValue | None = None
    accept: tuple[str, ...] = ()
    tolerance: float | None = None


class QuestionLine(BaseModel):
    """One line of a questions file, validated strictly."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    id: str = Field(min_length=1, pattern=r"\S")
    ask_at: float = Field(ge=0.0)
    question: str = Field(min_length=1, pattern=r"\S")
    type: QuestionType | None = None
    answer: TruthValue | None = None
    accept: list[str] | None = None
    tolerance: float | None = Field(None, ge=0.0)

    @model_validator(mode="after")
    def _answer_fits_type(self) -> QuestionLine:
        if self.answer is None and not self.accept:
            return self  # no ground truth: asked, not scored
        problem = _truth_problem(self.resolved_type(), self.answer, bool(self.accept))
        if problem:
            raise ValueError(problem)
        return self

    def resolved_type(self) -> str | None:
        """The declared type, else the one a bool, [x, y] or string answer implies."""
        if self.type is not None:
            return self.type
        if isinstance(self.answer, bool):
            return "binary"
        if isinstance(self.answer, list):
            return "position"
        if isinstance(self.answer, str) or (self.answer is None and self.accept):
            return "text"
        return None

    def truth(self) -> GroundTruth | None:
        if self.answer is None and not self.accept:
            return None
        kind = self.resolved_type()
        assert kind is not None  # the validator checked it
        return GroundTruth.model_validate(
            {
                "id": self.id,
                "type": kind,
                "answer": self.answer,
                "accept": tuple(self.accept or ()),
                "tolerance": self.tolerance,
            }
        )


def _truth_problem(kind: str | None, answer: TruthValue | None, has_accept: bool) -> str:
    """Why an answer cannot be ground truth for a question type ("" when it can)."""
    if kind is None:
        return "a numeric answer needs a type (time, count or duration)"
    if answer is None:
        return (
            ""
            if kind in ("text", "order")
            else f"a {kind} question needs an answer; accept alone is for text and order"
        )
    number = answer if isinstance(answer, int | float) and not isinstance(answer, bool) else None
    checks = {
        "binary": (isinstance(answer, bool), "true or false"),
        "time": (number is not None and number >= 0, "seconds from the bag's first message (>= 0)"),
        "position": (isinstance(answer, list) and len(answer) == 2, "[x, y] in metres"),
        "count": (isinstance(number, int) and number >= 0, "a whole number >= 0"),
        "duration": (number is not None and number >= 0, "seconds (>= 0)"),
        "order": (isinstance(answer, str) and bool(answer.strip()), '"before", "after" or what came first or next'),
        "text": (isinstance(answer, str) and bool(answer.strip()), "a non-empty string"),
    }
    ok, expected = checks[kind]
    return "" if ok else f"a {kind} answer must be {expected}, got {json.dumps(answer)}"


@dataclass
class QuestionSet:
    """The questions of one file, their ground truth by id, and what was wrong with the file."""

    questions: list[Question] = field(default_factory=list)
    truth: dict[str, GroundTruth] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_lines(path: Path, what: str) -> tuple[list[str], str | None]:
    """The lines of a UTF-8 file, or none and a problem naming the file when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8").splitlines(), None
    except (OSError, UnicodeDecodeError) as exc:
        return [], f"{path}: cannot read the {what} file: {exc}"


def load_questions(path: str | Path) -> QuestionSet:
    """Read a questions JSONL file; an unreadable file is one problem and no questions."""
    path = Path(path)
    lines, problem = read_lines(path, "questions")
    if problem is not None:
        return QuestionSet(problems=[problem])
    return parse_questions(lines, str(path))


def parse_questions(lines: Iterable[str], source: str = "<questions>") -> QuestionSet:
    """Validate lines of a questions file; bad lines become problems ``source:line: why``."""
    found = QuestionSet()
    first_line: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        line, problem = _parse_line(raw)
        if line is None:
            found.problems.append(f"{source}:{number}: {problem}")
            continue
        if line.id in first_line:
            found.problems.append(f"{source}:{number}: duplicate id {line.id!r} (first on line {first_line[line.id]})")
            continue
        first_line[line.id] = number
        found.questions.append(Question(id=line.id, ask_at=line.ask_at, question=line.question))
        truth = line.truth()
        if truth is not None:
            found.truth[line.id] = truth
    return found


def _parse_line(raw: str) -> tuple[QuestionLine | None, str]:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(value, dict):
        return None, f"expected a JSON object, got {type(value).__name__}"
    try:
        return QuestionLine.model_validate_json(raw), ""
    except ValidationError as exc:
        return None, validation_message(exc)


def validation_message(exc: ValidationError) -> str:
    """Pydantic's errors as one line: ``field: why; field: why``."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


def fit_to_bag(
    questions: Sequence[Question], bag_duration_s: float, beyond: Beyond = "ask_at_end"
) -> tuple[list[Question], list[str]]:
    """Questions whose ask_at lies past the bag's end, named as problems.

    With ``beyond="ask_at_end"`` (default) they are kept and asked at the bag's end; with ``"skip"``
    they are dropped.  Returns the questions to ask (file order) and one problem line per late question.
    """
    if not math.isfinite(bag_duration_s) or bag_duration_s < 0:
        raise ValueError(f"bag duration must be a finite number of seconds >= 0, got {bag_duration_s}")
    kept: list[Question] = []
    problems: list[str] = []
    for question in questions:
        if question.ask_at <= bag_duration_s:
            kept.append(question)
            continue
        late = (
            f"question {question.id!r}: ask_at {question.ask_at:.1f} s is past the bag's end ({bag_duration_s:.1f} s)"
        )
        if beyond == "skip":
            problems.append(f"{late}; skipped")
        else:
            problems.append(f"{late}; asked at the end")
            kept.append(question.model_copy(update={"ask_at": bag_duration_s}))
    return kept, problems
