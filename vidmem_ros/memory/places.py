"""Places and visits, from the robot's stored path.

The path (``pose_track``) says directly when the robot stayed somewhere and
when it moved.  It is split into *stays*, runs where the robot went slower
than ``places.still_speed_mps`` (standing, or turning on the spot) for at least
``places.min_stay_s``, and the transits between them.  Stays at one spot with
only a short move between them are one *visit*; visits whose centres lie
within ``places.radius_m`` of each other are one *place*, numbered in the order
first visited.  Each visit is described by what was seen, read and heard
during it, so a place can be found by a description ("the room with the
aquarium") and questions about visits, dwell times and the order of places answer
from here.  Computed when asked, from a path that is downsampled already.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from vidmem_ros.config import PlacesConfig
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.view import MemoryView
from vidmem_ros.perception.text_layout import headings

Track = list[tuple[float, Pose]]


@dataclass
class Visit:
    place: int  # the place's number, from 1 in the order places were first visited
    start: float
    end: float
    x: float
    y: float
    frame_id: str
    seen: list[str] = field(default_factory=list)  # labels, most often seen first
    looked: list[str] = field(default_factory=list)  # what the scene looked like (a classifier's tags)
    read: list[str] = field(default_factory=list)
    heard: list[str] = field(default_factory=list)
    frames: int = 0  # stored frames during the visit
    frames_with: Counter[str] = field(default_factory=Counter)  # label -> frames it was detected in
    at_once: Counter[str] = field(default_factory=Counter)  # label -> the most detected in one frame
    read_in: Counter[str] = field(default_factory=Counter)  # line -> frames it was read in
    headed: Counter[str] = field(default_factory=Counter)  # line -> frames it headed a sign in

    @property
    def dwell_s(self) -> float:
        return self.end - self.start

    def description(self) -> str:
        seen = [counted(label, self.at_once[label]) for label in self.seen[:8]]
        parts = [
            f"saw {', '.join(seen)}" if seen else "",
            f"looked like {', '.join(self.looked[:6])}" if self.looked else "",
            f"read {', '.join(repr(t) for t in self.read[:6])}" if self.read else "",
            f"heard {', '.join(repr(t) for t in self.heard[:3])}" if self.heard else "",
        ]
        return "; ".join(p for p in parts if p)


@dataclass
class Place:
    id: int
    x: float
    y: float
    frame_id: str
    visits: list[Visit] = field(default_factory=list)

    @property
    def dwell_s(self) -> float:
        return sum(v.dwell_s for v in self.visits)

    def share_with(self, labels: Iterable[str]) -> float:
        """The share of its frames in which one of ``labels`` was detected, the most often detected one in each
        visit ("the room with the aquarium")."""
        wanted = set(labels)
        frames = sum(v.frames for v in self.visits)
        return sum(max((v.frames_with[x] for x in wanted), default=0) for v in self.visits) / frames if frames else 0.0

    def description(self, heard: bool = True, unless: Callable[[str], bool] | None = None) -> str:
        """What was seen, read and (unless ``heard`` is False) heard over every visit, most frequent first; without
        the sentences heard for which ``unless`` holds."""
        seen = _ranked(x for v in self.visits for x in v.seen)
        looked = _ranked(x for v in self.visits for x in v.looked)
        read = _ranked(x for v in self.visits for x in v.read)
        said = _ranked(x for v in self.visits for x in v.heard if unless is None or not unless(x)) if heard else []
        at_once: Counter[str] = Counter()
        for visit in self.visits:
            at_once |= visit.at_once
        described = Visit(self.id, 0.0, 0.0, self.x, self.y, self.frame_id, seen, looked, read, said)
        described.at_once = at_once
        return described.description()

    def brief(self) -> str:
        """The place at a glance, as a list of stops names it: the words read there most often, and the things
        seen there most often (a place's other lines and sentences may name other places)."""
        read = _ranked(x for v in self.visits for x in v.read)
        # A sign's heading first: it says what the sign is, its other lines what it says.
        titles = _titles(self.visits)
        read = titles + [t for t in read if t not in titles]
        seen = _ranked(x for v in self.visits for x in v.seen)
        # A heading in words names a place better than a code or a number read there ("DARKROOM", not "B-12").
        worded = [t for t in read if re.search(r"[A-Za-z]{3}", t)] or read
        said = ", ".join(repr(t) for t in _distinct(worded)[:BRIEF_READ])
        parts = [f"read {said}" if worded else "", f"saw {', '.join(seen[:3])}" if seen else ""]
        return " and ".join(p for p in parts if p)


def _titles(visits: list[Visit]) -> list[str]:
    """The lines that headed a sign in most of the frames they were read in (a line under a heading the reader
    missed heads that frame's block, not most of its frames), the surest first."""
    read_in = sum((v.read_in for v in visits), Counter[str]())
    headed = sum((v.headed for v in visits), Counter[str]())
    share = {line: n / read_in[line] for line, n in headed.items() if read_in[line] >= TITLE_MIN_FRAMES}
    return sorted((line for line, s in share.items() if s > TITLE_SHARE), key=lambda t: (-share[t], -read_in[t]))


# A line is a sign's heading where it headed its block in more than this share of this many frames at least.
TITLE_SHARE = 0.5
TITLE_MIN_FRAMES = 2
# The lines read at a place that its brief quotes: one alone is often a word every room has ("ROOM", "EXIT").
BRIEF_READ = 3


def counted(label: str, most: int) -> str:
    """A label with how many were in view at once, where more than one ("2 people", "3 chairs")."""
    if most < 2:
        return label
    plural = "people" if label == "person" else label if label.endswith("s") else f"{label}s"
    return f"{most} {plural}"


def stays(track: Track, config: PlacesConfig) -> list[tuple[int, int]]:
    """Index ranges [i, j] of the path where the robot went slower than the still speed for the minimum stay."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for k in range(1, len(track) + 1):
        still = k < len(track) and _speed(track[k - 1], track[k]) < config.still_speed_mps
        if still and start is None:
            start = k - 1
        if not still and start is not None:
            if track[k - 1][0] - track[start][0] >= config.min_stay_s:
                runs.append((start, k - 1))
            start = None
    return runs


def visits(track: Track, config: PlacesConfig) -> list[Visit]:
    """Stays as visits (a short move within one spot does not end one), each given its place's number."""
    merged: list[Visit] = []
    for i, j in stays(track, config):
        x, y = _centre(track[i : j + 1])
        visit = Visit(0, track[i][0], track[j][0], x, y, track[i][1].frame_id)
        last = merged[-1] if merged else None
        if (
            last is not None
            and visit.start - last.end <= config.merge_gap_s
            and math.dist((last.x, last.y), (x, y)) <= config.radius_m
        ):
            weight = last.dwell_s / max(last.dwell_s + visit.dwell_s, 1e-9)
            last.x, last.y = last.x * weight + x * (1 - weight), last.y * weight + y * (1 - weight)
            last.end = visit.end
        else:
            merged.append(visit)
    _number_places(merged, config.radius_m)
    return merged


def places(found: list[Visit]) -> list[Place]:
    """The places the visits were at, in the order first visited."""
    by_id: dict[int, Place] = {}
    for visit in found:
        place = by_id.setdefault(visit.place, Place(visit.place, visit.x, visit.y, visit.frame_id))
        place.visits.append(visit)
    for place in by_id.values():
        total = sum(v.dwell_s for v in place.visits) or 1.0
        place.x = sum(v.x * v.dwell_s for v in place.visits) / total
        place.y = sum(v.y * v.dwell_s for v in place.visits) / total
    return list(by_id.values())


def described_visits(
    store: MemoryView, config: PlacesConfig, start: float, end: float, as_of: float | None, min_score: float
) -> list[Visit]:
    """The visits in [start, min(end, as_of)] from the stored path, each described by what memory holds of it."""
    found = visits(store.pose_track(start, end, as_of), config)
    for visit in found:
        moments = store.moments(visit.start, visit.end, as_of, limit=2000, with_tags=False)
        visit.seen = _ranked(d.label for m in moments for d in m.detections if d.score >= min_score)
        visit.frames = len(moments)
        visit.frames_with = Counter(x for m in moments for x in {d.label for d in m.detections if d.score >= min_score})
        for m in moments:
            in_frame = Counter(d.label for d in m.detections if d.score >= min_score)
            visit.at_once |= in_frame  # the most of each label in any one frame
        visit.looked = [label for label, _ in store.tag_counts(visit.start, visit.end, as_of)]
        visit.read = _ranked(t.text for m in moments for t in m.texts)
        visit.read_in = Counter(line for m in moments for line in {t.text for t in m.texts})
        visit.headed = Counter(line for m in moments for line in set(headings(m.texts)))
        visit.heard = [t.text for t in store.transcripts(visit.start, visit.end, as_of)]
    return found


def _number_places(found: list[Visit], radius_m: float) -> None:
    """Greedy: a visit joins the first place (by first visit) whose centre is within the radius of its own."""
    centres: list[tuple[float, float, str]] = []
    for visit in found:
        match = next(
            (
                n
                for n, (x, y, frame) in enumerate(centres, 1)
                if frame == visit.frame_id and math.dist((x, y), (visit.x, visit.y)) <= radius_m
            ),
            None,
        )
        if match is None:
            centres.append((visit.x, visit.y, visit.frame_id))
            match = len(centres)
        visit.place = match


def _speed(a: tuple[float, Pose], b: tuple[float, Pose]) -> float:
    dt = b[0] - a[0]
    if dt <= 0 or a[1].frame_id != b[1].frame_id:
        return math.inf  # a jump in time or frame: not a stay across it
    return math.dist((a[1].x, a[1].y), (b[1].x, b[1].y)) / dt


def _centre(samples: Track) -> tuple[float, float]:
    """Time-weighted centre of a stay (a sample stands for the time until the next)."""
    if len(samples) == 1:
        return samples[0][1].x, samples[0][1].y
    weights = [b[0] - a[0] for a, b in itertools.pairwise(samples)]
    total = sum(weights) or 1.0
    return (
        sum(w * s[1].x for w, s in zip(weights, samples, strict=False)) / total,
        sum(w * s[1].y for w, s in zip(weights, samples, strict=False)) / total,
    )


def _distinct(lines: list[str]) -> list[str]:
    """Lines that say different things, in order: one read with its spaces dropped ("STAFFONLY") is the same, and
    a part of another, read where the sign was half in view ("ARKRO" of "DARKROOM"), says nothing of its own."""
    kept: dict[str, str] = {}
    for line in lines:
        kept.setdefault(re.sub(r"[\W_]", "", line.lower()), line)
    return [line for key, line in kept.items() if not any(_part_of(key, other) for other in kept)]


def _part_of(part: str, whole: str) -> bool:
    """Whether ``part`` is a piece of a longer line, read off its edge ("ARKROOM" of "DARKROOM"), with the cut
    letter misread at worst ("ASHCOMP" of "ASHCOMBEROVERS"); lines of one length are different lines ("CAM05",
    "CAM02")."""
    if len(part) >= len(whole):
        return False
    if part in whole:
        return True
    if len(part) < FRAGMENT_MIN or len(part) > len(whole) - 2:
        return False
    match = difflib.SequenceMatcher(None, part, whole, autojunk=False).find_longest_match()
    return match.size >= len(part) - 1


# A piece with a misread letter is this long at least, and two letters shorter than its line at most.
FRAGMENT_MIN = 5


def _ranked(items: Iterable[str]) -> list[str]:
    """Distinct items, the most frequent first."""
    return [name for name, _ in Counter(items).most_common()]
