"""Answers questions about memory: a planner drives the tools through the harness.

The query node, the rosbag evaluator, the benchmarks and the tests all call
``Reasoner.answer``.  The planner is the offline one unless ``query.planner``
is ``llm``; when the language model fails and ``query.llm_fallback`` is set,
the offline planner answers instead, and the trace says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

from vidmem_ros.agent.answer import Answer
from vidmem_ros.agent.asked import Asked, asked_kind, asks_negated, settle, turned_round
from vidmem_ros.agent.fleet_answer import FleetAnswerer
from vidmem_ros.agent.grounding import MeaningCache
from vidmem_ros.agent.harness import Budget, Harness, PlannerFactory
from vidmem_ros.agent.indirect import direct_question
from vidmem_ros.agent.labels import LabelLexicon
from vidmem_ros.agent.offline_planner import OfflinePlanner
from vidmem_ros.agent.question import (
    Intent,
    ParsedQuestion,
    capitals_quoted,
    expanded_contractions,
    spelled_out,
    validate_question,
    without_back_reference,
)
from vidmem_ros.agent.question_model import (
    ModelQuestionParser,
    QuestionParser,
    RuleParser,
    build_question_parser,
    to_parsed,
)
from vidmem_ros.agent.tool_context import Perception, ToolContext
from vidmem_ros.agent.tools import read_ahead
from vidmem_ros.config import LexiconConfig, PlacesConfig, QueryConfig, VidmemConfig
from vidmem_ros.errors import InputError
from vidmem_ros.memory.reader import ColdTier, MemoryReader
from vidmem_ros.memory.runs import memory_time
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.memory.vector_search import VectorSearch
from vidmem_ros.memory.view import MemoryView
from vidmem_ros.perception.embedding import TextEmbedder
from vidmem_ros.perception.vocabulary import LabelMapper

SCOPES = ("", "robot", "fleet")
READ_AHEAD_OVERLAP_S = 300.0  # how far before the last look records may still be written (an event's caption)


class Reasoner:
    def __init__(
        self,
        store: MemoryView,
        config: QueryConfig,
        vocabulary: Sequence[str],
        *,
        detector_min_score: float = 0.3,
        mapper: LabelMapper | None = None,
        perception: Perception | None = None,
        images: VectorSearch | None = None,
        llm: PlannerFactory | None = None,
        places: PlacesConfig | None = None,
        text_embedder: TextEmbedder | None = None,
        lexicon: LexiconConfig | None = None,
        parser: QuestionParser | None = None,
        fleet: FleetAnswerer | None = None,
        cold: ColdTier | None = None,
        model_classes: Sequence[tuple[str, ...]] = (),
    ) -> None:
        self.store = store
        self.config = config
        self.vocabulary = tuple(vocabulary)
        self.weak_score = min(detector_min_score, config.min_score)
        self.perception = perception or Perception()
        self.images = images
        self.llm = llm  # builds the language-model planner for a question; None answers offline
        self.places = places or PlacesConfig()
        self.text_embedder = text_embedder
        self.lexicon = LabelLexicon(self.vocabulary, lexicon, mapper, model_classes)  # the one label resolver
        self.parser = parser or RuleParser()
        self.fleet = fleet  # questions over every robot's memory (scope "fleet"); None without a fleet store
        self.cold = cold
        self.reader = MemoryReader(store, images, cold)  # what the tools read, and the query node's services too
        self.meaning = MeaningCache(text_embedder)  # records' sentence vectors, kept from question to question
        self._read_to = -math.inf  # memory's end when the records' meaning was last read ahead

    def read_ahead(self) -> int:
        """Embeds the meaning of the records written since the last call (and of every place's description), so a
        question embeds only its own words.  Returns how many texts it embedded; cheap when nothing was written."""
        through = self.store.written_through()
        if self.text_embedder is None or through is None or through <= self._read_to:
            return 0
        # Records are written after their stamps (a sentence when it ends, a caption when its event closes).
        count = read_ahead(self.context(None), self._read_to - READ_AHEAD_OVERLAP_S)
        self._read_to = through
        return count

    def answer(
        self,
        question: str,
        as_of: float | None = None,
        max_turns: int = 0,
        timeout_s: float = 0.0,
        scope: str = "",
        robots: Sequence[str] = (),
    ) -> Answer:
        """``scope`` "" or "robot" asks this robot's memory; "fleet" the fleet store, ``robots`` (empty: all)."""
        try:
            asked = validate_question(question, self.config.max_question_chars)
            wordnet = self.lexicon.wordnet
            plain = expanded_contractions(asked, (lambda w: bool(wordnet.irregular_verb(w))) if wordnet else None)
            text = capitals_quoted(spelled_out(without_back_reference(direct_question(plain, wordnet))))
            if scope not in SCOPES:
                raise InputError("bad_scope", f"scope must be one of {', '.join(repr(s) for s in SCOPES)}")
        except InputError as exc:
            return Answer.failure(str(exc), {"question": question[:200], "as_of": as_of, "rejected": exc.reason})
        if scope == "fleet":
            if self.fleet is None:
                return Answer.failure("no fleet store to ask: set fleet.uri", {"scope": scope})
            return self.fleet.answer(text, robots, as_of)
        as_of = None if as_of is None else memory_time(self.store.runs(), as_of)  # the robot's clock to memory's
        ctx = self.context(as_of)
        budget = Budget(max_turns or self.config.max_turns, timeout_s or self.config.timeout_s, self.config.max_tokens)
        span = self.store.time_span(as_of)
        if self.llm is None or self.config.planner != "llm":
            return self._offline(text, ctx, budget, span, as_of)
        answer = Harness(ctx, budget).run(self.llm(text, ctx), text)
        if not answer.success and self.config.llm_fallback and "rejected" not in answer.trace:
            offline = OfflinePlanner(self.parser.parse(text), span, self.lexicon.wordnet)
            fallback = Harness(ctx, replace(budget, timeout_s=max(2.0, budget.timeout_s / 2))).run(offline, text)
            fallback.trace["fallback_from"] = answer.trace
            fallback.trace["fallback_reason"] = answer.error
            return self._trimmed(fallback, text, as_of)
        return self._trimmed(answer, text, as_of)

    def _offline(
        self, text: str, ctx: ToolContext, budget: Budget, span: tuple[float, float] | None, as_of: float | None
    ) -> Answer:
        """The offline planner's answer.  With a model parser that lets the rules read first, a question no
        sentence pattern knows is read by likeness to example questions; only where that finds no reading and the
        search that answers instead is weak does the model read it, and the better supported answer stands."""
        parser = self.parser
        if not (isinstance(parser, ModelQuestionParser) and parser.rules_first):
            return self._planned(text, parser.parse(text), ctx, budget, span, as_of)
        first = parser.rules.parse(text)  # the sentence patterns, then likeness to example questions
        answer = self._planned(text, first, ctx, budget, span, as_of)
        answer.trace["parser"] = "rules"
        if first is not None or not weak(answer, asked_kind(text)):
            return answer  # a reading by the rules stands: the model seldom reads a question better, at seconds each
        reply = parser.plan(text)
        answer.trace["model_read"] = True
        second = to_parsed(text, reply) if reply is not None else None
        if second is None or second == first:
            return answer
        other = self._planned(text, second, ctx, budget, span, as_of)
        best = max((answer, other), key=lambda a: support(a, asked_kind(text)))  # the rules' reading on a tie
        best.trace.update(model_read=True, candidates=[_plan_trace(first), _plan_trace(second)])
        return best

    def _planned(
        self,
        text: str,
        parsed: ParsedQuestion | None,
        ctx: ToolContext,
        budget: Budget,
        span: tuple[float, float] | None,
        as_of: float | None,
    ) -> Answer:
        answer = Harness(ctx, budget).run(OfflinePlanner(parsed, span, self.lexicon.wordnet), text)
        answer.trace["plan"] = _plan_trace(parsed)
        return self._trimmed(answer, text, as_of)

    def context(self, as_of: float | None) -> ToolContext:
        span = self.store.time_span(None)
        t0 = span[0] if span else (as_of or 0.0)
        return ToolContext(
            store=self.store,
            as_of=as_of,
            t0=t0,
            vocabulary=self.vocabulary,
            min_score=self.config.min_score,
            weak_score=self.weak_score,
            occasion_gap_s=self.config.occasion_gap_s,
            perception=self.perception,
            images=self.images,
            cold=self.cold,
            places=self.places,
            text_embedder=self.text_embedder,
            lexicon=self.lexicon,
            meaning=self.meaning,
            runs=self.store.runs(as_of),
        )

    def _trimmed(self, answer: Answer, question: str, as_of: float | None) -> Answer:
        """The answer as returned: the typed value the question asks for (or a plain "none"), evidence capped."""
        if answer.trace.get("planner") == "offline" and asks_negated(question):
            answer = turned_round(answer)  # the offline planner answered the positive question
        asked = asked_kind(question)
        if (answer.trace.get("plan") or {}).get("intent") == Intent.ROUTE.value and answer.pose is None:
            asked = Asked.NAME  # "where have you been": every stop, named with its position, not one position
        settle(answer, asked, lambda stamp: self.reader.pose_at(stamp, as_of))
        answer.evidence = answer.evidence[: self.config.max_evidence]
        if answer.value is not None:
            answer.trace["value"] = answer.value
        if answer.trace.get("planner") == "offline":
            answer.trace["parser"] = self.parser.name
        return answer


# An answer below this confidence rests on a guess ("the closest things in memory are ...").
WEAK_CONFIDENCE = 0.25


def support(answer: Answer, asked: Asked) -> tuple[int, int, float]:
    """How well an answer is borne out, to rank two readings of a question: it gives the kind of value asked for,
    it cites evidence, then its confidence."""
    has_value = answer.success and "no_value" not in answer.trace
    if asked is Asked.YES_NO:
        has_value = has_value and isinstance(answer.value, bool)
    elif asked is Asked.NAME:
        has_value = has_value and answer.value not in (None, "")
    return (int(has_value), int(bool(answer.evidence)), answer.confidence)


def weak(answer: Answer, asked: Asked) -> bool:
    """Whether an answer to a question no rule could read is worth the model's reading: it lacks the value asked
    for, cites nothing (a "no" to a question not understood is a guess), or is surer of nothing than a guess."""
    has_value, has_evidence, confidence = support(answer, asked)
    return not has_value or not has_evidence or confidence < WEAK_CONFIDENCE


def _plan_trace(parsed: ParsedQuestion | None) -> dict[str, str] | None:
    if parsed is None:
        return None
    plan = {"intent": parsed.intent.value, "modality": parsed.modality.value, "subject": parsed.target}
    return plan | ({"other": parsed.other} if parsed.other else {})


def build_reasoner(config: VidmemConfig, store: SqliteStore) -> Reasoner:
    """The reasoner a node or the evaluator uses: label mapping, lazily loaded inspection models, image index."""
    from vidmem_ros.memory.captioner_backends import build_captioner
    from vidmem_ros.perception import registry
    from vidmem_ros.perception.tagger import classes_of

    vocabulary = registry.detector_vocabulary(config.detector)
    text_embedder = registry.build_text_embedder(config.text_embedder)
    mapper = LabelMapper(text_embedder, vocabulary) if text_embedder is not None and vocabulary else None
    loaders: dict[str, Callable[[], object]] = {
        "detector": lambda: registry.build_detector(config.detector),
        "ocr": lambda: registry.build_ocr(config.ocr),
        "tagger": lambda: registry.build_tagger(config.tagger, config.lexicon),
        "captioner": lambda: build_captioner(config.captioner),
    }
    images = VectorSearch(store, "moment_vectors", config.index) if config.embedder.backend != "none" else None
    parser = build_question_parser(config.query, text_embedder)
    fleet = None
    cold = None
    if config.fleet.uri and text_embedder is not None:
        from vidmem_ros.fleet.milvus import embedded, fleet_connector

        # Text only: the query side answers from words and meaning, and need not load an image model.
        connect = fleet_connector(config.fleet, None, text_embedder.dim)
        keep_open = not embedded(config.fleet.uri)
        fleet = FleetAnswerer(connect, text_embedder, parser, keep_open=keep_open)
        if images is not None:  # this robot's frames there, for vectors retention evicted here
            from vidmem_ros.fleet.cold import RobotColdTier
            from vidmem_ros.fleet.milvus import robot_id

            cold = RobotColdTier(connect, robot_id(config.fleet), keep_open)
    llm = None
    if config.query.planner == "llm":
        from vidmem_ros.agent.llm_planner import llm_planner_factory

        llm = llm_planner_factory(config.query)
    return Reasoner(
        store,
        config.query,
        vocabulary,
        detector_min_score=config.detector.min_score,
        mapper=mapper,
        perception=Perception(loader=lambda kind: loaders[kind]()),
        images=images,
        llm=llm,
        places=config.places,
        lexicon=config.lexicon,
        model_classes=classes_of(config.tagger),
        parser=parser,
        text_embedder=text_embedder,
        fleet=fleet,
        cold=cold,
    )
