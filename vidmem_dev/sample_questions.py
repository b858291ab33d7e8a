"""The sample patrol's question set, with ground truth derived from the scenario's data.

Every answer is computed from a ``sample_bag`` scenario (visits, the objects of each room, when each sign is
whole in the frame, who said what when, the robot's poses) as of the question's ``ask_at``: only what
happened before it counts.  Nothing is typed in by hand but the phrasings and the traps (things never shown
or said).  ``write_sample_bag`` writes the set beside the bag as ``<bag>.questions.jsonl``, one question a line::

    {"id": str, "ask_at": s from the bag's first message, "question": str, "type": one of QUESTION_TYPES,
     "answer": ..., "accept": [phrases, any one matching counts], "tolerance": s or m (0 where exact)}

Conventions (what a memory should answer):

- an object is *seen* for the whole of each visit to a room that holds it; a *time* it was seen is a visit's
  start (first) or end (last); *how many times* counts visits; *how long* adds the visits' lengths;
- a sign is *read* while its lettering is whole in the camera frame (``sign_sightings``); when it was read is
  the middle of that stretch, with a tolerance that covers it and ``READ_SLACK_S`` either side (OCR still
  reads a sign whose first or last letter the frame's edge has begun to cut);
- *where* is the pose in the middle of the last visit, stretch or utterance, with a tolerance that covers the
  path driven meanwhile (at least ``POSITION_TOLERANCE``);
- *when someone said X* is the utterance's start.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from vidmem_dev.sample_bag import (
    Room,
    SignSighting,
    SpokenLine,
    duration,
    pose_at,
    sign_sightings,
    spoken,
    timeline,
)

QUESTION_TYPES = ("text", "binary", "time", "position", "count", "duration", "order")
TIME_TOLERANCE = 5.0  # s
POSITION_TOLERANCE = 2.5  # m
DURATION_SHARE = 0.25  # of the answer, and at least MIN_DURATION_TOLERANCE
MIN_DURATION_TOLERANCE = 5.0  # s
READ_SLACK_S = 5.0  # s: OCR still reads a sign for a few seconds while the frame's edge cuts into a letter
ONLINE_LEAD_S = 30.0  # an online trap is asked this long before the thing first appears
# Never shown or said in any scenario; a sign or phrase here must not occur in one (checked).
TRAP_OBJECTS = ("giraffe", "elephant", "zebra")
TRAP_SIGNS = ("CAFETERIA", "NO PARKING")
TRAP_TOPICS = ("the swimming pool", "the birthday party")
TRAP_PHRASES = ("the train is late",)
# Words that name a detector label in an answer (any one will do).
SYNONYMS = {
    "cup": ("cup", "mug"),
    "person": ("person", "people", "man", "woman"),
    "cat": ("cat", "kitten"),
    "motorcycle": ("motorcycle", "motorbike"),
}


@dataclass(frozen=True)
class Question:
    question: str
    type: str
    ask_at: float
    answer: Any
    accept: list[str] = field(default_factory=list)
    tolerance: float = 0.0
    id: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "ask_at": round(self.ask_at, 2),
            "question": self.question,
            "type": self.type,
            "answer": self.answer,
            "accept": self.accept,
            "tolerance": self.tolerance,
        }


class Patrol:
    """What the scenario holds, and what had happened as of a time."""

    def __init__(self, scenario: tuple[Room, ...]) -> None:
        self.visits = timeline(scenario)
        self.end = duration(scenario)
        self.signs = sign_sightings(scenario)
        self.lines = spoken(scenario)
        self.labels = sorted({label for room in scenario for label in room.objects})

    # -- as of a time ------------------------------------------------------------------------

    def seen(self, label: str, at: float) -> list[tuple[float, float]]:
        """(start, end) of each visit to a room holding ``label`` that began before ``at``, cut at ``at``."""
        return [(v.start, min(v.end, at)) for v in self.visits if label in v.room.objects and v.start < at]

    def read(self, text: str | None, at: float) -> list[SignSighting]:
        """Stretches a sign (any with ``text=None``) was whole in the frame that began before ``at``."""
        return [s for s in self.signs if (text is None or s.text == text) and s.start < at]

    def heard(self, at: float) -> list[SpokenLine]:
        """Utterances over by ``at``."""
        return [line for line in self.lines if line.end <= at]

    def first_seen(self, label: str) -> float:
        return min((v.start for v in self.visits if label in v.room.objects), default=math.inf)

    # -- geometry --------------------------------------------------------------------------

    def place(self, start: float, end: float, cover: tuple[float, float] | None = None) -> tuple[list[float], float]:
        """Pose in the middle of [start, end], and the distance from it that covers the path meanwhile
        (or during ``cover``)."""
        mid = (start + end) / 2
        x, y, _ = pose_at(self.visits, mid)
        a, b = cover or (start, end)
        steps = max(int((b - a) / 0.5), 1)
        reach = 0.0
        for k in range(steps + 1):
            px, py, _ = pose_at(self.visits, a + (b - a) * k / steps)
            reach = max(reach, math.hypot(px - x, py - y))
        return [round(x, 2), round(y, 2)], round(max(POSITION_TOLERANCE, reach + 0.5), 2)


def patrol_questions(scenario: tuple[Room, ...]) -> list[dict[str, Any]]:
    """The question set of a scenario, as JSON-ready dicts (see the module's docstring)."""
    p = Patrol(scenario)
    _check_traps(scenario, p)
    questions: list[Question] = []
    add = questions.append
    end = p.end

    # -- objects ----------------------------------------------------------------------------
    for label in p.labels:
        add(_binary_seen(p, label, end, "Did you see {a}?" if label != "motorcycle" else "Have you seen {a}?"))
    for label in TRAP_OBJECTS:
        add(_binary_seen(p, label, end, "Did you see {a}?"))
    for label in p.labels:
        add(_first_seen(p, label, end))
        add(_last_seen(p, label, end))
        add(_count(p, label, end))
        add(_how_long(p, label, end, definite=label != "motorcycle"))
        add(_where_seen(p, label, end))
    add(_count(p, TRAP_OBJECTS[0], end))
    order = sorted(p.labels, key=p.first_seen)
    for a, b in pairwise(order):  # each pair of neighbours, asked both ways round
        add(_order(p, b, a, end))
        add(_order(p, a, b, end))
    for label in p.labels:
        for after in (True, False):
            question = _neighbour(p, label, after, end)
            if question is not None:
                add(question)

    # -- signs -----------------------------------------------------------------------------
    texts = list(dict.fromkeys(s.text for s in p.signs))
    for i, text in enumerate(texts):
        add(_binary_sign(p, text, end))
        add(_where_read(p, text, end))
        once = _last_single_read(p, text)
        if once is not None:
            add(_when_read(p, text, once, "When did you read '{text}'?" if i % 2 else None))
    for text in TRAP_SIGNS:
        add(_binary_sign(p, text, end))
    for label in p.labels:  # "what did you read after the cat?" where the cat's room has no sign of its own
        question = _read_after(p, label, end)
        if question is not None:
            add(question)

    # -- speech ----------------------------------------------------------------------------
    for i, line in enumerate(p.lines):
        u, heard = line.utterance, line in p.heard(end)
        if i % 2:
            add(_binary(_worded(_MENTIONED, f"mentioned:{u.about}", about=u.about), end, heard))
            where, reach = p.place(line.start, line.end)
            wording = _worded(_WHERE_SAID, f"where-said:{u.phrase}", phrase=u.phrase)
            add(Question(wording, "position", end, where, [], reach))
        else:
            add(_binary(_worded(_SAID, f"said:{u.phrase}", phrase=u.phrase), end, heard))
            wording = _worded(_WHEN_SAID, f"when-said:{u.phrase}", phrase=u.phrase)
            add(Question(wording, "time", end, round(line.start, 2), [], TIME_TOLERANCE))
        add(
            Question(
                _worded(_SAID_ABOUT, f"said-about:{u.about}", about=u.about), "text", end, u.answers[0], list(u.answers)
            )
        )
    for topic in TRAP_TOPICS:
        add(_binary(_worded(_MENTIONED, f"mentioned:{topic}", about=topic), end, False))
    for phrase in TRAP_PHRASES:
        add(_binary(_worded(_SAID, f"said:{phrase}", phrase=phrase), end, False))

    # -- mid-patrol: online traps and questions whose answer changes later ----------------------
    questions += _mid_patrol(p)
    return _with_ids(questions, end)


def _mid_patrol(p: Patrol) -> list[Question]:
    out: list[Question] = []
    for label in p.labels:  # online traps: asked before the thing first appears
        first = p.first_seen(label)
        if first - ONLINE_LEAD_S > 1.0:
            out.append(
                _binary_seen(p, label, first - ONLINE_LEAD_S, "Have you seen {a}?" if label == "motorcycle" else None)
            )
    if p.signs:
        firsts: dict[str, float] = {}
        for s in p.signs:
            firsts.setdefault(s.text, s.start)
        late = max(firsts, key=lambda text: firsts[text])  # the sign that shows up last
        if firsts[late] - ONLINE_LEAD_S > 1.0:
            out.append(_binary_sign(p, late, firsts[late] - ONLINE_LEAD_S))
        single = _first_quiet_gap(p)
        if single is not None:
            sighting, ask_at = single
            out.append(Question("What did you read?", "text", ask_at, sighting.text, [sighting.text.lower()]))
    if p.lines:
        line = p.lines[len(p.lines) // 2]
        ask_at = line.start - ONLINE_LEAD_S
        if ask_at > 1.0:
            out.append(_binary(f"Did anyone say '{line.utterance.phrase}'?", ask_at, line in p.heard(ask_at)))
        said = p.lines[0].utterance  # asked before anything else was said
        ask_at = _between(p, p.lines[0].end, p.lines[1].start if len(p.lines) > 1 else p.end)
        out.append(
            Question(f"What did someone say about {said.about}?", "text", ask_at, said.answers[0], list(said.answers))
        )
    # Between the first and the second visit to a room with an object seen more than once.
    for label in p.labels:
        visits = p.seen(label, p.end)
        if len(visits) >= 2:
            ask_at = _between(p, visits[0][1], visits[1][0])
            out.append(_binary_seen(p, label, ask_at, None))
            out.append(_count(p, label, ask_at))
            out.append(_how_long(p, label, ask_at, definite=False))
            out.append(_where_seen(p, label, ask_at))
            out.append(_last_seen(p, label, ask_at))
            break
    order = sorted(p.labels, key=p.first_seen)
    if len(order) >= 2:
        out.append(_order(p, order[0], order[1], p.first_seen(order[1]) + 10.0))
    return out


# -- wordings ------------------------------------------------------------------------------------
# People ask the same thing many ways: with context first, as a request, with other verbs.  Each question
# maker draws one wording per subject (stable across runs), so the set mixes them.

_SEEN = (
    "Did you see {a}?",
    "Have you come across {a} anywhere?",
    "I am looking for {a}. Did you notice one on your rounds?",
    "Tell me whether you spotted {a}.",
    "Was there {a} anywhere along your route?",
)
_FIRST_SEEN = (
    "When did you first see {a}?",
    "At what time did you first spot {a}?",
    "Tell me when {a} first came into view.",
    "What time was it when you first noticed {a}?",
)
_LAST_SEEN = (
    "When did you last see {a}?",
    "When was the last time you saw {a}?",
    "Tell me the most recent time you spotted {a}.",
    "I need to know when {a} was last in view.",
)
_COUNT = (
    "How many times did you see {a}?",
    "How often did you come across {a}?",
    "On how many separate occasions did you spot {a}?",
    "Count the times you noticed {a}.",
)
_HOW_LONG = (
    "How long did you see the {label}?",
    "For how long was the {label} in view?",
    "Tell me how long you watched the {label} for.",
    "How much time did you spend looking at the {label}?",
)
_WHERE_SEEN = (
    "Where did you see the {label}?",
    "Where were you when you saw the {label}?",
    "Give me your position from when you last spotted the {label}.",
    "What were your x, y coordinates when you noticed the {label}?",
)
_ORDER = (
    "Did you see the {a} before or after the {b}?",
    "Was the {a} seen before or after the {b}?",
    "Think back: did the {a} come into view before or after the {b}?",
)
_NEIGHBOUR = (
    "What did you see {word} the {label}?",
    "What came into view {word} the {label}?",
    "Tell me what you saw {word} the {label}.",
)
_SIGN_READ = (
    "Did you see a sign that said '{text}'?",
    "Was there a notice reading '{text}' anywhere?",
    "Did you read the words '{text}' on your patrol?",
)
_WHERE_READ = (
    "Where did you read '{text}'?",
    "Where were you when you read '{text}'?",
    "Give your x, y position from when you read the sign saying '{text}'.",
)
_WHEN_READ = (
    "When did you see the sign that said '{text}'?",
    "At what time did you read '{text}'?",
    "Tell me when you read the notice '{text}'.",
)
_READ_AFTER = (
    "What text did you read after you saw the {label}?",
    "After you saw the {label}, what did you read next?",
)
_MENTIONED = (
    "Did you hear anyone mention {about}?",
    "Did somebody talk about {about}?",
    "Has anyone brought up {about} so far?",
)
_SAID = ("Did anyone say '{phrase}'?", "Did you hear someone say '{phrase}'?")
_WHERE_SAID = (
    "Where were you when someone said '{phrase}'?",
    "What was your position when you heard '{phrase}'?",
)
_WHEN_SAID = ("When did someone say '{phrase}'?", "At what time did you hear '{phrase}'?")
_SAID_ABOUT = (
    "What did someone say about {about}?",
    "What was said about {about}?",
    "Someone talked about {about}. What did they say?",
)


# Every wording a question of each kind may have (the banks, and the fixed phrasings some makers are given).
WORDINGS: dict[str, tuple[str, ...]] = {
    "seen": (*_SEEN, "Have you seen {a}?"),
    "first": _FIRST_SEEN,
    "last": _LAST_SEEN,
    "count": _COUNT,
    "how_long": (*_HOW_LONG, "For how long did you see {a}?"),
    "where": _WHERE_SEEN,
    "order": _ORDER,
    "neighbour": _NEIGHBOUR,
    "sign": _SIGN_READ,
    "where_read": _WHERE_READ,
    "when_read": (*_WHEN_READ, "When did you read '{text}'?"),
    "read_after": _READ_AFTER,
    "mentioned": _MENTIONED,
    "said": _SAID,
    "where_said": _WHERE_SAID,
    "when_said": _WHEN_SAID,
    "said_about": _SAID_ABOUT,
}


def _worded(bank: tuple[str, ...], key: str, **fields: str) -> str:
    """One wording of ``bank`` for ``key``, the same on every run."""
    return bank[zlib.crc32(key.encode()) % len(bank)].format(**fields)


# -- question makers -------------------------------------------------------------------------


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _binary(question: str, ask_at: float, truth: bool) -> Question:
    return Question(question, "binary", ask_at, truth, ["yes" if truth else "no"])


def _binary_seen(p: Patrol, label: str, ask_at: float, phrasing: str | None) -> Question:
    key = f"seen:{label}:{ask_at:.0f}"
    question = phrasing.format(a=_a(label)) if phrasing else _worded(_SEEN, key, a=_a(label))
    return _binary(question, ask_at, bool(p.seen(label, ask_at)))


def _binary_sign(p: Patrol, text: str, ask_at: float) -> Question:
    return _binary(_worded(_SIGN_READ, f"sign:{text}", text=text), ask_at, bool(p.read(text, ask_at)))


def _first_seen(p: Patrol, label: str, ask_at: float) -> Question:
    question = _worded(_FIRST_SEEN, f"first:{label}", a=_a(label))
    return Question(question, "time", ask_at, p.seen(label, ask_at)[0][0], [], TIME_TOLERANCE)


def _last_seen(p: Patrol, label: str, ask_at: float) -> Question:
    question = _worded(_LAST_SEEN, f"last:{label}:{ask_at:.0f}", a=_a(label))
    return Question(question, "time", ask_at, p.seen(label, ask_at)[-1][1], [], TIME_TOLERANCE)


def _count(p: Patrol, label: str, ask_at: float) -> Question:
    question = _worded(_COUNT, f"count:{label}:{ask_at:.0f}", a=_a(label))
    return Question(question, "count", ask_at, len(p.seen(label, ask_at)), [], 0.0)


def _how_long(p: Patrol, label: str, ask_at: float, definite: bool) -> Question:
    total = sum(b - a for a, b in p.seen(label, ask_at))
    tolerance = max(MIN_DURATION_TOLERANCE, round(DURATION_SHARE * total, 1))
    if definite:
        question = _worded(_HOW_LONG, f"long:{label}:{ask_at:.0f}", label=label)
    else:
        question = f"For how long did you see {_a(label)}?"
    return Question(question, "duration", ask_at, round(total, 1), [], tolerance)


def _where_seen(p: Patrol, label: str, ask_at: float) -> Question:
    start, end = p.seen(label, ask_at)[-1]
    where, reach = p.place(start, end)
    question = _worded(_WHERE_SEEN, f"where:{label}:{ask_at:.0f}", label=label)
    return Question(question, "position", ask_at, where, [], reach)


def _order(p: Patrol, a: str, b: str, ask_at: float) -> Question:
    answer = "before" if p.seen(a, ask_at)[0][0] < p.seen(b, ask_at)[0][0] else "after"
    question = _worded(_ORDER, f"order:{a}:{b}:{ask_at:.0f}", a=a, b=b)
    return Question(question, "order", ask_at, answer, [answer])


def _neighbour(p: Patrol, label: str, after: bool, ask_at: float) -> Question | None:
    """What was seen next after (or last before) the first sighting of ``label``: the nearest other room
    with objects, when that room holds exactly one label."""
    first = next(i for i, v in enumerate(p.visits) if label in v.room.objects)
    others = range(first + 1, len(p.visits)) if after else range(first - 1, -1, -1)
    for i in others:
        visit = p.visits[i]
        if visit.start >= ask_at:
            return None
        labels = [x for x in visit.room.objects if x != label]
        if label in visit.room.objects or not visit.room.objects:
            continue
        if len(labels) != 1:
            return None
        word = "after" if after else "before"
        seen = labels[0]
        question = _worded(_NEIGHBOUR, f"next:{label}:{word}", word=word, label=label)
        return Question(question, "text", ask_at, seen, list(SYNONYMS.get(seen, (seen,))))
    return None


def _where_read(p: Patrol, text: str, ask_at: float) -> Question:
    last = p.read(text, ask_at)[-1]
    visit = p.visits[last.visit]
    end = min(last.end, ask_at)
    cover = (max(last.start - READ_SLACK_S, visit.start), min(end + READ_SLACK_S, visit.end, ask_at))
    where, reach = p.place(last.start, end, cover)
    return Question(_worded(_WHERE_READ, f"where-read:{text}", text=text), "position", ask_at, where, [], reach)


def _last_single_read(p: Patrol, text: str) -> float | None:
    """The latest time at which ``text`` had been read in exactly one stretch (None if never read)."""
    stretches = [s for s in p.signs if s.text == text]
    if not stretches:
        return None
    if len(stretches) == 1:
        return p.end
    return _between(p, stretches[0].end, stretches[1].start)


def _when_read(p: Patrol, text: str, ask_at: float, phrasing: str | None) -> Question:
    (only,) = p.read(text, ask_at)
    question = phrasing.format(text=text) if phrasing else _worded(_WHEN_READ, f"when-read:{text}", text=text)
    tolerance = max(TIME_TOLERANCE, math.ceil(((only.end - only.start) / 2 + READ_SLACK_S) * 10) / 10)
    return Question(question, "time", ask_at, round((only.start + only.end) / 2, 2), [], tolerance)


def _read_after(p: Patrol, label: str, ask_at: float) -> Question | None:
    visits = [i for i, v in enumerate(p.visits) if label in v.room.objects]
    if not visits or p.visits[visits[0]].room.signs:
        return None
    after = [s for s in p.read(None, ask_at) if s.start >= p.visits[visits[0]].end]
    if not after:
        return None
    text = after[0].text
    question = _worded(_READ_AFTER, f"read-after:{label}", label=label)
    return Question(question, "text", ask_at, text, [text.lower()])


def _first_quiet_gap(p: Patrol) -> tuple[SignSighting, float] | None:
    """The first sign stretch, and a time after it before any other sign was read (for "what did you read?")."""
    first = p.signs[0]
    others = [s for s in p.signs[1:] if s.start > first.end]
    if any(s.start <= first.end for s in p.signs[1:]):
        return None
    until = others[0].start if others else p.end
    if until - first.end < 2.0:
        return None
    return first, _between(p, first.end, until)


def _between(p: Patrol, a: float, b: float) -> float:
    """A time between a and b, away from both, rounded to a second where there is room."""
    mid = (a + b) / 2
    return float(round(mid)) if a + 0.5 < round(mid) < b - 0.5 else round(mid, 2)


def _check_traps(scenario: tuple[Room, ...], p: Patrol) -> None:
    shown = {label for room in scenario for label in room.objects}
    signs = {s.text.lower() for room in scenario for s in room.signs}
    said = " ".join(line.text.lower() for line in p.lines)
    clash = (
        [x for x in TRAP_OBJECTS if x in shown]
        + [x for x in TRAP_SIGNS if x.lower() in signs]
        + [x for x in (*TRAP_PHRASES, *TRAP_TOPICS) if _words(x) & _words(said) - _STOP]
    )
    if clash:
        raise ValueError(f"trap questions would not be traps in this scenario: {clash}")


_STOP = frozenset({"the", "a", "an", "is", "at", "of", "on", "to", "in"})


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9']+", text.lower()))


def _with_ids(questions: list[Question], end: float) -> list[dict[str, Any]]:
    seen: Counter[str] = Counter()
    out = []
    for q in questions:
        slug = "-".join(re.findall(r"[a-z0-9]+", q.question.lower()))[:48].strip("-")
        key = f"{q.type}-{slug}"
        if q.ask_at < end:
            key += f"-at{round(q.ask_at)}"
        seen[key] += 1
        ident = key if seen[key] == 1 else f"{key}-{seen[key]}"
        out.append({**q.as_dict(), "id": ident})
    return out


def write_questions(path: str | Path, scenario: tuple[Room, ...]) -> Path:
    """Write ``patrol_questions(scenario)`` as JSON lines; returns the path."""
    path = Path(path)
    lines = [json.dumps(q, ensure_ascii=False) for q in patrol_questions(scenario)]
    path.write_text("\n".join(lines) + "\n")
    return path


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
