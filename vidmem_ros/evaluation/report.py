"""One self-contained HTML page about an evaluation run: what the memory holds and how each system answered.

The page has, in order: the score summary (systems side by side), problems found in the input files,
the questions table (each system's answer, typed parts, evidence with thumbnails of cited ``moment/N``
frames, and a pass/fail mark), the robot's path (inline SVG from the poses of stored moments, with a
marker where each event began, ground-truth places and the systems' answered places), the people met (a row
per person memory told apart, a linked voice and face once: its name if it introduced itself or a badge read it,
first and last time, the frames it was seen in, the places the robot was when it heard or saw them, and what they
said), and a timeline of events with keyframe thumbnails, captions, texts
read and speech heard.

Everything is inline: CSS, a few lines of JS (a "failures only" filter), SVG, and images as base64 JPEG
data URIs at most ``thumb_width`` pixels wide.  A Content-Security-Policy meta tag forbids any fetch.
All text from the store and the answer files is HTML-escaped: sign texts and speech are untrusted.
Size stays bounded: at most ``max_thumbnails`` keyframe images (spread over the events) and as many
evidence images, at most ``max_evidence_images`` per answer; the page says how many were left out.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vidmem_ros.errors import VidmemError
from vidmem_ros.evaluation.answers import AnswerLine
from vidmem_ros.evaluation.questions import GroundTruth, Question
from vidmem_ros.evaluation.scoring import Score, summarise, summary_rows
from vidmem_ros.imaging import jpeg_to_rgb, rgb_to_jpeg
from vidmem_ros.memory.people import Person
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.records import Event, Pose, Transcript
from vidmem_ros.memory.store import SqliteStore

THUMB_QUALITY = 70
MAX_PATH_POINTS = 2000
SVG_WIDTH = 640

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#f3f3f3}.num{text-align:right}
.mark{font-weight:bold;white-space:nowrap}.pass{color:#176e2c}.fail{color:#b3261e}.unscored{color:#777}
.event{display:flex;gap:12px;border-bottom:1px solid #eee;padding:6px 0}.meta{min-width:16em;max-width:40em}
.thumbs img{margin:0 4px 4px 0;border:1px solid #ccc}img.ev{max-width:96px}
.small{color:#666;font-size:.9em}.note{color:#8a5a00}ul.evidence{margin:2px 0;padding-left:1.2em}
svg{border:1px solid #ccc;background:#fafafa}
"""

JS = """
document.getElementById('failures-only').addEventListener('change', function (e) {
  document.querySelectorAll('tr.question.all-pass').forEach(function (row) {
    row.style.display = e.target.checked ? 'none' : '';
  });
});
"""

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


@dataclass(frozen=True)
class ReportStats:
    """What went into a written report."""

    path: Path
    size_bytes: int
    events: int
    keyframe_images: int
    keyframes_left_out: int
    evidence_images: int
    evidence_left_out: int


@dataclass
class _Thumbnails:
    """Thumbnails as data URIs, each frame encoded once; each pool (keyframes, evidence) shows at most its budget."""

    store: SqliteStore
    width: int
    budgets: dict[str, int]
    shown: dict[str, set[int]] = field(default_factory=dict)
    left_out: dict[str, int] = field(default_factory=dict)
    cache: dict[int, str | None] = field(default_factory=dict)

    def get(self, moment_id: int, pool: str) -> str | None:
        shown = self.shown.setdefault(pool, set())
        if moment_id not in shown and len(shown) >= self.budgets[pool]:
            self.left_out[pool] = self.left_out.get(pool, 0) + 1
            return None
        if moment_id not in self.cache:
            self.cache[moment_id] = self._encode(moment_id)
        uri = self.cache[moment_id]
        if uri is not None:
            shown.add(moment_id)
        return uri

    def used(self, pool: str) -> int:
        return len(self.shown.get(pool, ()))

    def _encode(self, moment_id: int) -> str | None:
        moment = self.store.moment(moment_id)
        if moment is None or moment.jpeg is None:  # forgotten, or retention dropped the image
            return None
        try:
            small = rgb_to_jpeg(jpeg_to_rgb(moment.jpeg), THUMB_QUALITY, self.width)
        except VidmemError:
            return None
        return "data:image/jpeg;base64," + base64.b64encode(small).decode("ascii")


def write_report(
    out_html: str | Path,
    store_path: str | Path,
    questions: Sequence[Question],
    answers_by_system: Mapping[str, Mapping[str, AnswerLine]],
    scores: Sequence[Score],
    bag_start_stamp: float,
    *,
    truth: Mapping[str, GroundTruth] | None = None,
    problems: Sequence[str] = (),
    title: str = "vidmem evaluation report",
    max_thumbnails: int = 200,
    max_evidence_images: int = 3,
    thumb_width: int = 160,
) -> ReportStats:
    """Write the report for a memory store (opened read-only) and each system's scored answers."""
    truth = truth or {}
    store = SqliteStore(store_path, readonly=True)
    try:
        events = store.events()
        thumbs = _Thumbnails(store, thumb_width, {"keyframes": max_thumbnails, "evidence": max_thumbnails})
        path = _path_points(store, events)
        people = MemoryReader(store).people()
        voices = {p.id: p.label(bag_start_stamp) for p in people}
        body = [
            f"<h1>{esc(title)}</h1>",
            _overview(store_path, bag_start_stamp, events, questions, answers_by_system),
            _summary_section(scores, questions, truth),
            _problems_section(problems),
            _questions_section(questions, answers_by_system, scores, truth, thumbs, max_evidence_images),
            _path_section(path, events, bag_start_stamp, questions, answers_by_system, truth),
            _people_section(people, bag_start_stamp),
            _timeline_section(store, events, bag_start_stamp, thumbs, voices),
        ]
    finally:
        store.close()
    out = Path(out_html)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_page(title, body), encoding="utf-8")
    return ReportStats(
        path=out,
        size_bytes=out.stat().st_size,
        events=len(events),
        keyframe_images=thumbs.used("keyframes"),
        keyframes_left_out=thumbs.left_out.get("keyframes", 0),
        evidence_images=thumbs.used("evidence"),
        evidence_left_out=thumbs.left_out.get("evidence", 0),
    )


def _page(title: str, body: Sequence[str]) -> str:
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
        f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n"
        + "\n".join(part for part in body if part)
        + f"\n<script>{JS}</script>\n</body></html>\n"
    )


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


# -- overview, summary, problems ----------------------------------------------------------


def _overview(
    store_path: str | Path,
    bag_start: float,
    events: Sequence[Event],
    questions: Sequence[Question],
    answers_by_system: Mapping[str, Mapping[str, AnswerLine]],
) -> str:
    span = f"{events[0].start - bag_start:.1f}-{events[-1].end - bag_start:.1f} s" if events else "nothing stored"
    items = [
        f"memory store: <code>{esc(Path(store_path).name)}</code>",
        f"bag start (sensor time): {bag_start:.3f}",
        f"{len(events)} events, {span} from the bag's start",
        f"{len(questions)} questions; systems: {esc(', '.join(answers_by_system) or 'none')}",
    ]
    return "<ul class='overview'>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def _summary_section(scores: Sequence[Score], questions: Sequence[Question], truth: Mapping[str, GroundTruth]) -> str:
    summary = summarise(scores, [q.id for q in questions if q.id not in truth])
    if not summary.systems:
        return "<h2>Summary</h2><p>No scored questions.</p>"
    head = "".join(f"<th>{esc(s.system)}</th>" for s in summary.systems)
    rows = "".join(
        f"<tr><th>{esc(label.strip())}</th>" + "".join(f"<td class='num'>{esc(c)}</td>" for c in cells) + "</tr>"
        for label, cells in summary_rows(summary)
    )
    note = f"<p class='small'>{len(summary.unscored)} question(s) have no ground truth and are not scored.</p>"
    return f"<h2>Summary</h2><table id='summary'><tr><th></th>{head}</tr>{rows}</table>" + (
        note if summary.unscored else ""
    )


def _problems_section(problems: Sequence[str]) -> str:
    if not problems:
        return ""
    items = "".join(f"<li>{esc(p)}</li>" for p in problems)
    return f"<h2>Problems in the input</h2><ul class='problems note'>{items}</ul>"


# -- questions ----------------------------------------------------------------------------------


def _questions_section(
    questions: Sequence[Question],
    answers_by_system: Mapping[str, Mapping[str, AnswerLine]],
    scores: Sequence[Score],
    truth: Mapping[str, GroundTruth],
    thumbs: _Thumbnails,
    max_evidence_images: int,
) -> str:
    by_key = {(s.system, s.id): s for s in scores}
    systems = list(answers_by_system)
    head = "<tr><th>id</th><th>asked at</th><th>question</th><th>expected</th>"
    head += "".join(f"<th>{esc(system)}</th>" for system in systems) + "</tr>"
    rows = []
    for q in questions:
        marks = [by_key.get((system, q.id)) for system in systems]
        all_pass = all(m is not None and m.correct for m in marks) or q.id not in truth
        cells = "".join(
            _answer_cell(answers_by_system[system].get(q.id), mark, thumbs, max_evidence_images)
            for system, mark in zip(systems, marks, strict=True)
        )
        rows.append(
            f"<tr class='question{' all-pass' if all_pass else ''}' id='q-{esc(q.id)}'>"
            f"<td>{esc(q.id)}</td><td class='num'>{_seconds(q.ask_at)}</td><td>{esc(q.question)}</td>"
            f"<td>{_expected(truth.get(q.id))}</td>{cells}</tr>"
        )
    left = thumbs.left_out.get("evidence", 0)
    note = f"<p class='note'>{left} evidence image(s) left out to bound the file size.</p>" if left else ""
    toggle = "<label><input type='checkbox' id='failures-only'> show failures only</label>"
    return f"<h2>Questions</h2>{toggle}<table id='questions'>{head}{''.join(rows)}</table>{note}"


def _expected(truth: GroundTruth | None) -> str:
    if truth is None:
        return "<span class='unscored'>no ground truth</span>"
    parts = [f"<b>{esc(truth.type)}</b>"]
    if truth.answer is not None:
        parts.append(esc(truth.answer if isinstance(truth.answer, str) else json.dumps(truth.answer)))
    if truth.accept:
        parts.append("accept: " + esc(" | ".join(truth.accept)))
    if truth.tolerance is not None:
        parts.append(f"tolerance {truth.tolerance:g}")
    return "<br>".join(parts)


def _mark(score: Score | None) -> str:
    if score is None:
        return "<span class='mark unscored' data-result='unscored'>– not scored</span>"
    if score.correct:
        return "<span class='mark pass' data-result='pass'>✓ pass</span>"
    return "<span class='mark fail' data-result='fail'>✗ fail</span>"


def _answer_cell(answer: AnswerLine | None, score: Score | None, thumbs: _Thumbnails, max_images: int) -> str:
    parts = [_mark(score)]
    if score is not None and score.answered and (score.got or score.reason):  # else the cell says why below
        parts.append(f"<div class='small'>{esc('; '.join(p for p in (score.got, score.reason) if p))}</div>")
    if answer is None:
        parts.append("<div class='small'>no answer</div>")
        return f"<td>{''.join(parts)}</td>"
    if answer.error:
        parts.append(f"<div class='note'>error: {esc(answer.error)}</div>")
    parts.append(f"<div>{esc(answer.answer)}</div>")
    typed = [f"time {_seconds(answer.time)}" if answer.time is not None else ""]
    typed.append(f"position [{answer.position[0]:.2f}, {answer.position[1]:.2f}]" if answer.position else "")
    typed.append(f"value {answer.value!r}" if answer.value is not None else "")
    typed.append(f"confidence {answer.confidence:.2f}, {answer.latency_s:.2f} s")
    parts.append(f"<div class='small'>{esc(' · '.join(t for t in typed if t))}</div>")
    parts.append(_evidence(answer, thumbs, max_images))
    return f"<td>{''.join(parts)}</td>"


def _evidence(answer: AnswerLine, thumbs: _Thumbnails, max_images: int) -> str:
    if not answer.evidence:
        return ""
    items: list[str] = []
    images: list[str] = []
    for item in answer.evidence:
        items.append(
            f"<li>{esc(item.kind)} {esc(item.ref)} {_seconds(item.time)}"
            f"{' ' + esc(item.text) if item.text else ''}</li>"
        )
        moment_id = item.moment_id()
        if moment_id is not None and len(images) < max_images:
            uri = thumbs.get(moment_id, "evidence")
            if uri:
                images.append(f"<img class='ev' src='{uri}' alt='{esc(item.ref)}' title='{esc(item.ref)}'>")
    return f"<ul class='evidence'>{''.join(items)}</ul><div class='thumbs'>{''.join(images)}</div>"


# -- path ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Mark:
    x: float
    y: float
    label: str  # tooltip
    css: str  # event | truth | answer
    text: str = ""  # shown beside the marker


def _path_points(store: SqliteStore, events: Sequence[Event]) -> list[tuple[float, float]]:
    poses = [m.pose for e in events for m in store.event_moments(e.id) if m.pose is not None]
    step = max(1, len(poses) // MAX_PATH_POINTS)  # thin long paths; the shape survives
    return [(p.x, p.y) for p in poses[::step]]


def _path_section(
    path: Sequence[tuple[float, float]],
    events: Sequence[Event],
    bag_start: float,
    questions: Sequence[Question],
    answers_by_system: Mapping[str, Mapping[str, AnswerLine]],
    truth: Mapping[str, GroundTruth],
) -> str:
    marks = [
        _Mark(p.x, p.y, f"event {e.id} at {e.start - bag_start:.1f} s", "event", str(e.id))
        for e, p in _event_poses(events)
    ]
    for q in questions:
        expected = truth.get(q.id)
        if expected is not None and expected.type == "position" and isinstance(expected.answer, list):
            marks.append(_Mark(expected.answer[0], expected.answer[1], f"{q.id}: expected place", "truth"))
        for system, answers in answers_by_system.items():
            answer = answers.get(q.id)
            if answer is not None and answer.position is not None:
                marks.append(_Mark(*answer.position, f"{q.id}: {system}'s answer", "answer"))
    if not path and not marks:
        return "<h2>Path</h2><p>No poses were stored with the moments.</p>"
    return (
        "<h2>Path</h2>"
        + _svg(path, marks)
        + (
            "<p class='small'>Line: the robot's path (map frame, metres). Blue dots: where events began; "
            "green diamonds: expected places; orange crosses: answered places.</p>"
        )
    )


def _event_poses(events: Iterable[Event]) -> list[tuple[Event, Pose]]:
    return [(e, e.start_pose) for e in events if e.start_pose is not None]


def _svg(path: Sequence[tuple[float, float]], marks: Sequence[_Mark]) -> str:
    xs = [p[0] for p in path] + [m.x for m in marks]
    ys = [p[1] for p in path] + [m.y for m in marks]
    x0, y0 = min(xs) - 1.0, min(ys) - 1.0  # a metre of margin
    span = max(max(xs) + 1.0 - x0, max(ys) + 1.0 - y0)
    scale = SVG_WIDTH / span
    height = round((max(ys) + 1.0 - y0) * scale)

    def at(x: float, y: float) -> tuple[float, float]:
        return (x - x0) * scale, height - (y - y0) * scale  # map y points up, SVG y down

    line = " ".join("{:.1f},{:.1f}".format(*at(x, y)) for x, y in path)
    shapes = [f"<polyline id='path' points='{line}' fill='none' stroke='#555' stroke-width='1.5'/>"] if path else []
    shapes += [_marker(m, *at(m.x, m.y)) for m in marks]
    return f"<svg id='path-map' width='{SVG_WIDTH}' height='{height}' viewBox='0 0 {SVG_WIDTH} {height}'>{''.join(shapes)}</svg>"


def _marker(mark: _Mark, x: float, y: float) -> str:
    title = f"<title>{esc(mark.label)}</title>"
    if mark.css == "event":
        label = f"<text x='{x + 5:.1f}' y='{y - 5:.1f}' font-size='10' fill='#1f5fbf'>{esc(mark.text)}</text>"
        return f"<circle class='event-marker' cx='{x:.1f}' cy='{y:.1f}' r='4' fill='#1f5fbf'>{title}</circle>{label}"
    if mark.css == "truth":
        points = f"{x:.1f},{y - 6:.1f} {x + 6:.1f},{y:.1f} {x:.1f},{y + 6:.1f} {x - 6:.1f},{y:.1f}"
        return f"<polygon class='truth-marker' points='{points}' fill='#2e9c48'>{title}</polygon>"
    cross = f"M{x - 5:.1f},{y - 5:.1f}L{x + 5:.1f},{y + 5:.1f}M{x - 5:.1f},{y + 5:.1f}L{x + 5:.1f},{y - 5:.1f}"
    return f"<path class='answer-marker' d='{cross}' stroke='#e07b00' stroke-width='2'>{title}</path>"


# -- timeline ----------------------------------------------------------------------------------------


# -- people --------------------------------------------------------------------------------

SAID_IN_REPORT = 20  # sentences quoted per person


def _people_section(people: Sequence[Person], bag_start: float) -> str:
    if not people:
        return ""
    rows = "".join(_person_row(p, bag_start) for p in people)
    heard = sum(1 for p in people if p.lines)
    seen = sum(1 for p in people if p.seen)
    return (
        f"<h2>People</h2><p>{len(people)} different people: {heard} voice(s) and {seen} face(s) told apart, a voice "
        "and a face heard together repeatedly linked as one person; a name only where the person introduced "
        "themself or a badge below their face read it.</p><table id='people'><tr><th>who</th><th>first</th>"
        f"<th>last</th><th>seen</th><th>places (x, y)</th><th>said</th></tr>{rows}</table>"
    )


def _person_row(person: Person, bag_start: float) -> str:
    places = ", ".join(f"({x:.1f}, {y:.1f})" for x, y in person.places()) or "-"
    said = "".join(
        f"<li><span class='small'>{line.start - bag_start:.1f} s</span> “{esc(line.text)}”</li>"
        for line in person.lines[:SAID_IN_REPORT]
    )
    more = len(person.lines) - SAID_IN_REPORT
    said += f"<li class='small'>and {more} more</li>" if more > 0 else ""
    linked = f" · linked {person.link:.2f}" if person.lines and person.seen else ""
    badge = f" · badge “{esc(person.badge.text)}”" if person.badge is not None and person.named_by is None else ""
    seen = (
        f"{len(person.seen)} frame(s), {person.seen[0].stamp - bag_start:.1f}–{person.seen[-1].stamp - bag_start:.1f} s"
        if person.seen
        else "-"
    )
    return (
        f"<tr class='person' id='{esc(person.ref.replace('/', '-'))}'><td>{esc(person.label(bag_start))}"
        f"<div class='small'>{esc(' + '.join(person.refs))}{linked}{badge} · {len(person.lines)} sentence(s)"
        f"</div></td><td class='num'>{person.first - bag_start:.1f} s</td>"
        f"<td class='num'>{person.last - bag_start:.1f} s</td><td class='num'>{seen}</td>"
        f"<td>{places}</td><td><ul class='said'>{said}</ul></td></tr>"
    )


def _timeline_section(
    store: SqliteStore, events: Sequence[Event], bag_start: float, thumbs: _Thumbnails, voices: Mapping[int, str]
) -> str:
    if not events:
        return "<h2>Timeline</h2><p>The memory holds no events.</p>"
    chosen = _spread(events, thumbs.budgets["keyframes"])
    rows = [_event_row(e, bag_start, chosen.get(e.id, []), thumbs) for e in events]
    skipped = sum(len(e.keyframe_ids) for e in events) - sum(len(ids) for ids in chosen.values())
    thumbs.left_out["keyframes"] = thumbs.left_out.get("keyframes", 0) + skipped
    left = thumbs.left_out["keyframes"]
    note = f"<p class='note' id='keyframes-left-out'>{left} keyframe image(s) left out to bound the file size.</p>"
    return "<h2>Timeline</h2>" + (note if left else "") + "".join(rows) + _speech_list(store, bag_start, voices)


def _spread(events: Sequence[Event], budget: int) -> dict[int, list[int]]:
    """Keyframes to show, round-robin over events so a long run still shows every event's first one."""
    chosen: dict[int, list[int]] = {e.id: [] for e in events}
    rank = 0
    while budget > 0 and any(rank < len(e.keyframe_ids) for e in events):
        for e in events:
            if rank < len(e.keyframe_ids) and budget > 0:
                chosen[e.id].append(e.keyframe_ids[rank])
                budget -= 1
        rank += 1
    return chosen


def _event_row(event: Event, bag_start: float, keyframes: Sequence[int], thumbs: _Thumbnails) -> str:
    start, end = event.start - bag_start, event.end - bag_start
    details = [
        f"<b>event {event.id}</b> <span class='small'>{start:.1f}–{end:.1f} s · {event.frame_count} frames · "
        f"{esc(event.reason)}</span>",
        f"<div class='caption'>{esc(event.caption)}</div>" if event.caption else "",
        f"<div class='small'>seen: {esc(', '.join(event.labels))}</div>" if event.labels else "",
        _quoted("read", "texts", event.texts),
        _quoted("heard", "speech", event.transcript),
    ]
    images = []
    for moment_id in keyframes:
        uri = thumbs.get(moment_id, "keyframes")
        if uri:
            images.append(f"<img class='kf' src='{uri}' alt='moment/{moment_id}' title='moment/{moment_id}'>")
    return (
        f"<div class='event' id='event-{event.id}'><div class='meta'>{''.join(details)}</div>"
        f"<div class='thumbs'>{''.join(images)}</div></div>"
    )


def _quoted(verb: str, css: str, lines: Sequence[str]) -> str:
    if not lines:
        return ""
    quoted = "".join(f"<li>“{esc(line)}”</li>" for line in lines)
    return f"<div class='{css}'>{verb}:<ul>{quoted}</ul></div>"


def _speech_list(store: SqliteStore, bag_start: float, voices: Mapping[int, str]) -> str:
    heard = store.transcripts(float("-inf"), float("inf"))
    if not heard:
        return ""
    rows = "".join(
        f"<tr><td class='num'>{t.start - bag_start:.1f}–{t.end - bag_start:.1f} s</td><td>{esc(_speaker(t, voices))}</td>"
        f"<td>{esc(t.text)}</td></tr>"
        for t in heard
    )
    return f"<h2>Speech heard</h2><table id='speech'><tr><th>when</th><th>speaker</th><th>said</th></tr>{rows}</table>"


def _speaker(line: Transcript, voices: Mapping[int, str]) -> str:
    """Who said a line: the voice memory told apart (its name or where it was first heard), else the speaker
    field a transcriber filled, else nothing."""
    voice = voices.get(line.speaker_id) if line.speaker_id is not None else None
    return voice or line.speaker
