"""A "who" question set: twenty questions about who said what, over a patrol in which five espeak-ng voices
(``voices.CAST``) speak the conversation of ``voices.SCRIPT`` in four rooms, scored like the sample patrol's.

Every answer is derived from who said which line when (the script and its timing), as of the question's
``ask_at``: a person is named only once a line of theirs that says their name has been heard; a count is of
the people heard by then.  Nothing is typed in by hand but the phrasings (``TOPICS``: what each line is about
and words a question quotes from it, with words of the sentence itself that an answer quoting it holds) and the
trap.  The questions use many grammatical forms of who-questions: who said / told you about / was it that
mentioned, which person, whose voice, do you know who, what else did the person who … say, how many different
people, did the same person say … and …

``face_questions`` adds questions about people seen (faces), from who was in view where and when: how many
different people were seen or met, when and where a named person (named by a self-introduction, or by a badge
read below the face) was first or last seen, whether the person seen at one place is the one seen at another,
and whether a named person is the one who said something.

``write_who_bag`` writes the patrol as a rosbag2 (through ``sample_bag.write_bag``: camera, odometry, and the
voices on /audio) and the set beside it, for ``vidmem eval BAG BAG.questions.jsonl``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

from vidmem_dev.sample_bag import SHORT_PATROL, Room, Utterance, questions_path, spoken, spoken_by, write_bag
from vidmem_dev.voices import SCRIPT

QUESTIONS = 20
GAP_S = 2.5  # silence between two lines of the patrol: each is its own speech segment, and a count asked
# between two lines has time to spare either side
LEAD_S = 2.0  # from entering a room to its first line, and from its last line to leaving it
ASK_AFTER_S = 1.5  # questions about all of it are asked this long after the last line is over


@dataclass(frozen=True)
class Topic:
    about: str  # what the line is about, as a question names it
    phrase: str  # what a question quotes of it ("that <phrase>")
    key: str  # words of the sentence itself: an answer that quotes the line holds them


# What each line of the script is about (introductions carry no topic).  Checked against ``voices.SCRIPT``.
TOPICS = {
    "The delivery arrived at the loading dock this morning.": Topic(
        "the delivery", "the delivery arrived at the loading dock", "loading dock"
    ),
    "Please remember to lock the side door after six.": Topic(
        "the side door", "we should lock the side door", "side door"
    ),
    "Marco here, the lift on the east side is broken again.": Topic("the lift", "the lift is broken", "lift"),
    "There is a water leak under the sink in the kitchen.": Topic(
        "the water leak", "there is a water leak", "water leak"
    ),
    "We need three more boxes of printer paper.": Topic(
        "the printer paper", "we need more printer paper", "printer paper"
    ),
    "The meeting about the new lab moved to Thursday.": Topic(
        "the meeting", "the meeting moved to thursday", "thursday"
    ),
    "I left the spare keys with the front desk.": Topic(
        "the spare keys", "the spare keys are at the front desk", "spare keys"
    ),
    "The coffee machine on the second floor needs cleaning.": Topic(
        "the coffee machine", "the coffee machine needs cleaning", "coffee machine"
    ),
    "I will call the plumber before lunch.": Topic("the plumber", "they will call the plumber", "plumber"),
    "Can you bring the boxes to the storage room?": Topic(
        "the storage room", "the boxes go to the storage room", "storage room"
    ),
    "The fire drill starts at ten tomorrow.": Topic("the fire drill", "the fire drill starts at ten", "fire drill"),
    "The back gate camera has stopped recording.": Topic(
        "the back gate camera", "the back gate camera stopped", "camera"
    ),
    "Somebody parked in front of the emergency exit.": Topic(
        "the emergency exit", "somebody parked at the emergency exit", "emergency exit"
    ),
    "The heating in the lab is too high.": Topic("the heating", "the heating is too high", "heating"),
    "The printer on the third floor is out of toner.": Topic("the toner", "the printer is out of toner", "toner"),
    "Visitors must sign in at reception.": Topic("reception", "visitors must sign in", "reception"),
    "Please keep the server room door closed.": Topic(
        "the server room", "the server room door must stay closed", "server room"
    ),
    "The window in meeting room two does not open.": Topic("the window", "the window does not open", "window"),
}
TRAP = "the swimming pool"  # said by no one
NOT_HEARD = ("did not hear", "nobody", "no one", "not heard")  # an answer to the trap holds one of these

# Forms of "who said X" (topic or phrase), of "what else did they say", and of "the same person".
WHO_FORMS = (
    "Who told you about {about}?",
    "Who said that {phrase}?",
    "Who was it that mentioned {about}?",
    "Which person mentioned {about}?",
    "Do you know who said that {phrase}?",
    "Tell me who talked about {about}.",
    "Whose voice said that {phrase}?",
    "Who is the one who mentioned {about}?",
)
ALSO_FORMS = (
    "What else did the person who said that {phrase} say?",
    "What did the speaker who mentioned {about} also say?",
    "What other things did the person who told you about {about} say?",
    "What else did they say, the one who mentioned {about}?",
)
COUNT_FORMS = (
    "How many different people spoke?",
    "How many distinct voices did you hear?",
    "How many people have talked to you so far?",
)
SAME_FORMS = (
    "Was it the same person who mentioned {a} and who told you about {b}?",
    "Did the same person say that {pa} and that {pb}?",
    "Were {a} and {b} mentioned by the same person?",
    "Was it one and the same person who talked about {a} and {b}?",
)


@dataclass(frozen=True)
class Said:
    """A line of the conversation: who said it, and when (seconds from the recording's or bag's start)."""

    person: str  # a person of ``voices.CAST``
    text: str
    start: float
    end: float

    @property
    def topic(self) -> Topic | None:
        return TOPICS.get(self.text)


def named_by(lines: Sequence[Said], person: str, as_of: float) -> bool:
    """Whether ``person`` said their own name (capitalised, as a word) in a line over by ``as_of``."""
    name = person.capitalize()
    return any(line.person == person and line.end <= as_of and re.search(rf"\b{name}\b", line.text) for line in lines)


def who_questions(lines: Sequence[Said], count: int = QUESTIONS) -> list[dict[str, Any]]:
    """Up to ``count`` questions (20 for the whole conversation) with their answers, from who said which line."""
    lines = sorted(lines, key=lambda line: line.start)
    end = max(line.end for line in lines) + ASK_AFTER_S
    topical = [line for line in lines if line.topic is not None]
    named = [line for line in topical if named_by(lines, line.person, end)]
    unnamed = [line for line in topical if not named_by(lines, line.person, end)]
    rows: list[dict[str, Any]] = []

    def add(kind: str, question: str, ask_at: float, **truth: Any) -> None:
        rows.append({"id": f"who-{len(rows) + 1:02d}-{kind}", "ask_at": round(ask_at, 2), "question": question,
                     **truth})  # fmt: skip

    for form, line in zip(WHO_FORMS, _spread(named, len(WHO_FORMS)), strict=False):
        topic = _topic(line)
        add("who", form.format(about=topic.about, phrase=topic.phrase), end, type="text",
            answer=line.person.capitalize())  # fmt: skip
    also = [line for line in unnamed + named if any(o.person == line.person and o is not line for o in topical)]
    for form, line in zip(ALSO_FORMS, _spread(also, len(ALSO_FORMS)), strict=False):
        topic = _topic(line)
        others = [_topic(o).key for o in topical if o.person == line.person and o is not line]
        add("also", form.format(about=topic.about, phrase=topic.phrase), end, type="text", accept=others)
    for form, ask_at in zip(COUNT_FORMS, _count_moments(lines, end), strict=False):
        heard = {line.person for line in lines if line.end <= ask_at}
        add("count", form, ask_at, type="count", answer=len(heard), tolerance=0)
    for form, (a, b) in zip(SAME_FORMS, _pairs(topical), strict=False):
        ta, tb = _topic(a), _topic(b)
        question = form.format(a=ta.about, b=tb.about, pa=ta.phrase, pb=tb.phrase)
        add("same", question, end, type="binary", answer=a.person == b.person)
    add("trap", f"Who told you about {TRAP}?", end, type="text", accept=list(NOT_HEARD))
    return rows[:count]


def _topic(line: Said) -> Topic:
    assert line.topic is not None
    return line.topic


def _spread(lines: Sequence[Said], n: int) -> list[Said]:
    """``n`` of the lines (fewer if there are fewer), spread over the conversation and its speakers."""
    if len(lines) <= n:
        return list(lines)
    step = len(lines) / n
    return [lines[math.floor(i * step)] for i in range(n)]


def _count_moments(lines: Sequence[Said], end: float) -> list[float]:
    """When to ask how many people spoke: at the end, and where two people and one less than all had spoken
    (midway between the last line by then and the next, by someone new: clear of either)."""
    moments = [end]
    everyone = len({line.person for line in lines})
    heard: set[str] = set()
    for line, after in pairwise(lines):
        heard.add(line.person)
        if after.person not in heard and len(heard) in (2, everyone - 1):
            moments.append((line.end + after.start) / 2)
    return list(dict.fromkeys(moments))


def _pairs(topical: Sequence[Said]) -> list[tuple[Said, Said]]:
    """Pairs of lines, by the same person and by two people by turns, over the conversation."""
    same = [(a, b) for i, a in enumerate(topical) for b in topical[i + 1 :] if a.person == b.person]
    other = [(a, b) for i, a in enumerate(topical) for b in topical[i + 1 :] if a.person != b.person]
    same, other = _spread_pairs(same, 2), _spread_pairs(other, 2)
    return [p for pair in zip(same, other, strict=False) for p in pair] + same[len(other) :] + other[len(same) :]


def _spread_pairs(pairs: Sequence[tuple[Said, Said]], n: int) -> list[tuple[Said, Said]]:
    if len(pairs) <= n:
        return list(pairs)
    step = len(pairs) / n
    return [pairs[math.floor(i * step)] for i in range(n)]


# -- people seen ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A frame: whose face was in view ("" for nobody), where the robot was, when (seconds from the start)."""

    face: str
    place: tuple[float, float]
    stamp: float


def face_questions(
    lines: Sequence[Said], shown: Sequence[Shown], face_of: dict[str, str], badges: dict[str, str]
) -> list[dict[str, Any]]:
    """Questions about people seen, with their answers: ``face_of`` is each speaker's face (the others are heard
    only), ``badges`` the name read below a face.  Asked once everything was seen, a count also once the talk
    was over."""
    lines = sorted(lines, key=lambda line: line.start)
    end = max([line.end for line in lines] + [s.stamp for s in shown]) + ASK_AFTER_S
    talked = max(line.end for line in lines) + ASK_AFTER_S
    seen = [s for s in shown if s.face]
    names = dict(badges)
    names |= {face: p.capitalize() for p, face in face_of.items() if named_by(lines, p, end)}
    rows: list[dict[str, Any]] = []

    def add(kind: str, question: str, ask_at: float, **truth: Any) -> None:
        rows.append({"id": f"face-{len(rows) + 1:02d}-{kind}", "ask_at": round(ask_at, 2), "question": question,
                     **truth})  # fmt: skip

    add("seen", "How many different people did you see?", end, type="count", answer=len({s.face for s in seen}))
    add("seen", "How many different people have you seen so far?", talked, type="count",
        answer=len({s.face for s in seen if s.stamp <= talked}))  # fmt: skip
    heard = {line.person for line in lines}
    met = len(heard) + len({s.face for s in seen} - {face_of[p] for p in heard if p in face_of})
    add("met", "How many different people did you meet?", end, type="count", answer=met)
    named = [face for face in dict.fromkeys(s.face for s in seen) if face in names]
    for face, edge in zip(named, ("first", "last"), strict=False):
        when = [s for s in seen if s.face == face]
        at = when[0] if edge == "first" else when[-1]
        add("when", f"When did you {edge} see {names[face]}?", end, type="time", answer=round(at.stamp, 2))
        add("where", f"Where did you {edge} see {names[face]}?", end, type="position", answer=list(at.place))
    speaker = {face: p for p, face in face_of.items()}
    said_seen = [line for line in lines if line.topic and line.person in face_of]
    if said_seen:
        line = said_seen[len(said_seen) // 2]
        last = [s for s in seen if s.face == face_of[line.person]][-1]
        add("when", f"When did you last see the person who said that {_topic(line).phrase}?", end, type="time",
            answer=round(last.stamp, 2))  # fmt: skip
    for a, b, same in _place_pairs(seen):
        add("place", f"Was the person you saw at {_at(a)} the same one you saw at {_at(b)}?", end, type="binary",
            answer=same)  # fmt: skip
    for name, line, said in _name_said(lines, names, speaker, end):
        add("is", f"Is {name} the person who said that {_topic(line).phrase}?", end, type="binary", answer=said)
    return rows


def _at(place: tuple[float, float]) -> str:
    return f"({place[0]:g}, {place[1]:g})"


def _place_pairs(seen: Sequence[Shown]) -> list[tuple[tuple[float, float], tuple[float, float], bool]]:
    """A place where one person alone was seen, with another place they were seen at (the same one) and with a
    place where someone else alone was seen (not the same)."""
    at: dict[tuple[float, float], set[str]] = {}
    for s in seen:
        at.setdefault(s.place, set()).add(s.face)
    alone = [(place, next(iter(faces))) for place, faces in at.items() if len(faces) == 1]
    pairs = []
    for place, face in alone:
        elsewhere = [p for p, faces in at.items() if p != place and face in faces]
        other = [p for p, f in alone if f != face]
        if elsewhere and other:
            pairs += [(place, elsewhere[0], True), (place, other[0], False)]
            break
    return pairs


def _name_said(
    lines: Sequence[Said], names: dict[str, str], speaker: dict[str, str], end: float
) -> list[tuple[str, Said, bool]]:
    """A named person seen asked about a line of theirs and one of someone else's, and a person named but never
    seen asked about a line of theirs."""
    topical = [line for line in lines if line.topic is not None]
    found: list[tuple[str, Said, bool]] = []
    for face, name in names.items():
        mine = [line for line in topical if line.person == speaker.get(face)]
        other = [line for line in topical if line.person != speaker.get(face)]
        if mine and other:
            found += [(name, mine[-1], True), (name, other[len(found) % len(other)], False)]
    unseen = [line for line in topical if line.person not in speaker.values() and named_by(lines, line.person, end)]
    found += [(unseen[0].person.capitalize(), unseen[0], True)] if unseen else []
    return found


# -- the patrol ---------------------------------------------------------------------------------


def who_patrol(rooms: int = 4, lines: int | None = None) -> tuple[Room, ...]:
    """The conversation (its first ``lines`` lines, a shorter patrol) spread over the first ``rooms`` rooms of the
    short patrol, its lines in turn, each in its speaker's voice: every person speaks in every room, so each is
    heard at several places."""
    script = SCRIPT[:lines]
    per_room = -(-len(script) // rooms)
    scenario = []
    for i, base in enumerate(SHORT_PATROL[:rooms]):
        speech, at = [], LEAD_S
        for person, text in script[i * per_room : (i + 1) * per_room]:
            topic = TOPICS.get(text, Topic("", "", ""))
            utterance = Utterance(text, at, topic.about, topic.phrase, (topic.key,) if topic.key else (), voice=person)
            seconds = math.ceil((spoken_by(utterance).seconds + 0.2) * 10) / 10
            speech.append(replace(utterance, seconds=seconds))
            at += seconds + GAP_S
        scenario.append(replace(base, seconds=round(at - GAP_S + LEAD_S, 1), speech=tuple(speech)))
    return tuple(scenario)


def patrol_lines(scenario: tuple[Room, ...]) -> list[Said]:
    """Who said what when in a patrol, in seconds from the bag's first message."""
    return [Said(line.utterance.voice, line.text, line.start, line.end) for line in spoken(scenario)]


def write_questions(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_who_bag(path: str | Path, camera_hz: float = 5.0) -> Path:
    """The who patrol as a rosbag2 (MCAP) and its twenty questions beside it (``BAG.questions.jsonl``)."""
    scenario = who_patrol()
    bag = write_bag(path, camera_hz=camera_hz, scenario=scenario)
    write_questions(questions_path(bag), who_questions(patrol_lines(scenario)))
    return bag
