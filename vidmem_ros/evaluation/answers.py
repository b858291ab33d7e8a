"""Answers to the questions, one JSON object a line (JSONL), optionally after one header line.

Header (optional, first non-blank line only)::

    {"meta": {"bag_start": 1700000000.0, "system": "vidmem", "bag": "patrol_01", "bag_duration_s": 300.0}}

``bag_start`` is the sensor time (seconds since the epoch) of the bag's first message: every ``time`` in
the file counts from it, and the report uses it to place answers on the memory's clock.  ``system``
names what produced the answers (``vidmem``, ``baseline_uniform``, ``baseline_fixed30``, ...) and is the
default for lines that do not name one.  All header fields are optional.

Answer line::

    {"id": "q1", "answer": "Yes, I saw a cat 12 s in.", "confidence": 0.9, "latency_s": 0.4,
     "evidence": [{"kind": "frame", "ref": "moment/42", "time": 12.0, "text": "cat 0.93", "score": 0.93}],
     "time": 12.0, "position": [2.0, 0.5], "value": true, "system": "vidmem"}

``id`` is the question's.  ``answer`` is the system's words; ``confidence`` 0-1; ``latency_s`` how long the
system took.  Typed parts, each optional: ``time`` (seconds from the bag's first message) when the answer
is a moment, ``position`` ``[x, y]`` (metres, map frame) when it is a place, ``value`` (bool, number or
string) when it is yes/no, a count, a duration in seconds or a short name.  ``error`` says why the system
failed to answer (the answer then scores as wrong).  Evidence items cite what the answer rests on:
``kind`` (frame, event, text, transcript, ...), ``ref`` (``moment/N``, ``event/N``, ...; the report shows
a thumbnail for ``moment/N``), ``time`` (seconds from the bag's first message), ``text`` and ``score``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vidmem_ros.evaluation.questions import read_lines, validation_message

Value = bool | int | float | str
DEFAULT_SYSTEM = "system"


class Evidence(BaseModel):
    """One thing an answer rests on."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    kind: str
    ref: str = ""  # e.g. "moment/42", "event/3", "transcript/7"
    time: float | None = None  # seconds from the bag's first message
    text: str = ""
    score: float | None = None

    def moment_id(self) -> int | None:
        """The moment this cites (``moment/N``), if any."""
        kind, _, number = self.ref.partition("/")
        return int(number) if kind == "moment" and number.isdigit() else None


class AnswerLine(BaseModel):
    """One system's answer to one question."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    id: str = Field(min_length=1)
    answer: str = ""
    confidence: float = Field(0.0, ge=0.0, le=1.0)
    latency_s: float = Field(0.0, ge=0.0)
    evidence: list[Evidence] = Field(default_factory=list)
    time: float | None = None  # seconds from the bag's first message
    position: tuple[float, float] | None = None  # metres, map frame
    value: Value | None = None
    system: str = ""
    error: str = ""


class AnswersMeta(BaseModel):
    """The optional header line's ``meta`` object."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    bag_start: float | None = None  # sensor time of the bag's first message, seconds since the epoch
    system: str = ""
    bag: str = ""
    bag_duration_s: float | None = None


@dataclass
class AnswerFile:
    """An answers file: its header, the answers in file order, and what was wrong with it."""

    meta: AnswersMeta = field(default_factory=AnswersMeta)
    answers: list[AnswerLine] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def answer_json(answer: AnswerLine) -> str:
    """One line, without the optional parts that are unset."""
    data = answer.model_dump(mode="json", exclude_none=True)
    for key in ("system", "error"):
        if not data.get(key):
            data.pop(key, None)
    return json.dumps(data, ensure_ascii=False)


def meta_json(meta: AnswersMeta) -> str:
    return json.dumps({"meta": meta.model_dump(mode="json", exclude_none=True)}, ensure_ascii=False)


@contextmanager
def answer_writer(path: str | Path, meta: AnswersMeta | None = None) -> Iterator[AnswerSink]:
    """Write answers as they come (each line flushed), so a run that dies keeps what it answered."""
    with Path(path).open("w", encoding="utf-8") as out:
        if meta is not None:
            out.write(meta_json(meta) + "\n")
        yield AnswerSink(out)


class AnswerSink:
    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def write(self, answer: AnswerLine) -> None:
        self._out.write(answer_json(answer) + "\n")
        self._out.flush()


def write_answers(path: str | Path, answers: Iterable[AnswerLine], meta: AnswersMeta | None = None) -> None:
    with answer_writer(path, meta) as sink:
        for answer in answers:
            sink.write(answer)


def read_answers(path: str | Path) -> AnswerFile:
    """Read an answers file; lines without a ``system`` take the header's (else the file's stem)."""
    path = Path(path)
    lines, problem = read_lines(path, "answers")
    if problem is not None:
        return AnswerFile(problems=[problem])
    return parse_answers(lines, str(path), default_system=path.stem)


def parse_answers(lines: Iterable[str], source: str = "<answers>", default_system: str = DEFAULT_SYSTEM) -> AnswerFile:
    found = AnswerFile()
    first = True
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        value, problem = _json_object(raw)
        if value is None:
            found.problems.append(f"{source}:{number}: {problem}")
        elif "meta" in value:
            problem = _read_meta(found, value, first)
            if problem:
                found.problems.append(f"{source}:{number}: {problem}")
        else:
            try:
                found.answers.append(AnswerLine.model_validate_json(raw))
            except ValidationError as exc:
                found.problems.append(f"{source}:{number}: {validation_message(exc)}")
        first = False
    system = found.meta.system or default_system
    found.answers = [a if a.system else a.model_copy(update={"system": system}) for a in found.answers]
    return found


def _json_object(raw: str) -> tuple[dict[str, object] | None, str]:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(value, dict):
        return None, f"expected a JSON object, got {type(value).__name__}"
    return value, ""


def _read_meta(found: AnswerFile, value: dict[str, object], first: bool) -> str:
    if not first:
        return 'a {"meta": ...} header is only read on the first line'
    if set(value) != {"meta"}:
        return 'the header line holds only {"meta": {...}}'
    try:
        found.meta = AnswersMeta.model_validate(value["meta"])
    except ValidationError as exc:
        return "meta: " + validation_message(exc)
    return ""


def by_system(files: Sequence[AnswerFile]) -> tuple[dict[str, dict[str, AnswerLine]], list[str]]:
    """Answers keyed by system, then question id; a repeated (system, id) keeps the first and is a problem."""
    grouped: dict[str, dict[str, AnswerLine]] = {}
    problems: list[str] = []
    for answer in (a for f in files for a in f.answers):
        answers = grouped.setdefault(answer.system, {})
        if answer.id in answers:
            problems.append(f"system {answer.system!r} answered {answer.id!r} more than once; the first answer counts")
            continue
        answers[answer.id] = answer
    return grouped, problems
