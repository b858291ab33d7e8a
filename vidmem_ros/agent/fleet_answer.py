"""Questions over the fleet: which robot saw, read or heard something, when and where.

The question is read as for one robot (what is asked about, and whether it was seen, read or heard), then the
fleet store is searched by its words (BM25) and its meaning (the sentence vector), within the robots asked
about and nothing after ``as_of``.  The answer names the robot with the time and place; each piece of evidence
carries the robot's id.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from vidmem_ros.agent.answer import Answer, EvidenceItem
from vidmem_ros.agent.question import Intent, Modality, content_words, modality_named
from vidmem_ros.agent.question_model import QuestionParser
from vidmem_ros.clock import utc_clock
from vidmem_ros.errors import FleetUnavailableError
from vidmem_ros.fleet.records import FleetHit, FleetScope, FleetStore
from vidmem_ros.fleet.session import FleetSession
from vidmem_ros.memory.records import Pose
from vidmem_ros.perception.embedding import TextEmbedder

EVIDENCE = 5
# An embedded fleet store (one file) admits one process at a time: a question waits this long for the sync's
# round to finish with it.  A server has no such wait.
BUSY_WAIT_S = 5.0
_KINDS = {Modality.OBJECT: ("event",), Modality.TEXT: ("text",), Modality.SPEECH: ("transcript",)}
_VERBS = {"event": "recorded", "text": "read", "transcript": "heard"}


class FleetAnswerer:
    def __init__(
        self,
        connect: Callable[[], FleetStore],
        text_embedder: TextEmbedder,
        parser: QuestionParser,
        keep_open: bool = True,
    ) -> None:
        self.session = FleetSession(connect, keep_open)  # keep_open False: an embedded store, let go each time
        self.text_embedder = text_embedder
        self.parser = parser

    def answer(self, question: str, robots: Sequence[str] = (), as_of: float | None = None) -> Answer:
        parsed = self.parser.parse(question)
        if parsed is not None and parsed.intent is Intent.SEARCH:
            parsed = None  # not read whole: the question's own words and verbs
        asked = parsed.target if parsed is not None and parsed.target else " ".join(content_words(question))
        modality = parsed.modality if parsed is not None else modality_named(question)
        kinds = _KINDS.get(modality, ()) if modality is not None else ()
        scope = FleetScope(robots=tuple(robots), as_of=as_of, kinds=kinds)
        vector = self.text_embedder.embed_texts([asked])[0]
        trace: dict[str, object] = {"planner": "fleet", "asked": asked, "kinds": list(kinds), "robots": list(robots)}
        try:
            hits = self._search(asked, vector, scope)
        except FleetUnavailableError as exc:
            return Answer.failure(str(exc), trace)
        trace["hits"] = [f"{h.robot}/{h.kind}/{h.local_id}" for h in hits]
        if not hits:
            who = ", ".join(robots) if robots else "no robot of the fleet"
            return Answer(True, f"{who} has no memory of {asked}.", 0.1, trace=trace, value="")
        best = hits[0]
        pose = _pose(best)
        where = f" at x={best.x:.1f}, y={best.y:.1f} ({best.frame_id})" if pose is not None else ""
        what = best.text if best.kind != "event" else _first_line(best.text)
        text = f'{best.robot} {_VERBS[best.kind]} "{what}" at {utc_clock(best.stamp)}{where}.'
        evidence = [
            EvidenceItem(
                h.kind,
                f"{h.kind}/{h.local_id}",
                h.stamp,
                h.end,
                h.text,
                _unit(h.score),
                _pose(h),
                h.robot,
            )
            for h in hits[:EVIDENCE]
        ]
        return Answer(True, text, 0.7, best.stamp, pose, evidence, trace, value=best.robot)

    def _search(self, asked: str, vector: np.ndarray, scope: FleetScope) -> list[FleetHit]:
        deadline = time.monotonic() + BUSY_WAIT_S
        while True:
            try:
                return self.session.use(lambda fleet: fleet.search_text(asked, vector, EVIDENCE, scope))
            except FleetUnavailableError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.25)


def _pose(hit: FleetHit) -> Pose | None:
    if hit.x is None or hit.y is None:
        return None
    return Pose(hit.frame_id, hit.x, hit.y)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _unit(score: float) -> float:
    """A score for the evidence message (0..1): fused ranks and cosine are already there; BM25 is squashed."""
    return score if 0.0 <= score <= 1.0 else score / (1.0 + score)
