"""The planner used when no language model is configured: rules from the parsed question.

It drives the same tools through the same harness as a language model would,
one short script per intent, and composes the answer from what the tools
returned.  Weak or missing evidence gives an honest "not seen" with low
confidence; a question it cannot parse becomes a plain memory search whose
result is offered with low confidence, drilling down from period summaries to
events to keyframes when the search finds nothing.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Generator, Sequence
from dataclasses import replace
from typing import TypeVar

from vidmem_ros.agent.asked import Asked, asked_field, asked_kind, cites_a_source, interrogative, without_lead_in
from vidmem_ros.agent.bounded import Bound, occasion_bound
from vidmem_ros.agent.comparison import Comparison, DurationCheck, comparison_question, duration_check
from vidmem_ros.agent.description import head_words, held_in
from vidmem_ros.agent.grounding import (
    CLAIM_MARGIN,
    CLAIM_MIN,
    NOT_COUNTED,
    OCCASION_GAP_S,
    PERSON_TITLES,
    Sense,
    ValueKind,
    bears_text,
    counted_phrase,
    found_in,
    lists_on_a_sign,
    sight_named,
    source_named,
    terms,
    value_kind,
)
from vidmem_ros.agent.harness import AgentState, Observation, PlannerError
from vidmem_ros.agent.heard_questions import asks_something, speaks_of_asking
from vidmem_ros.agent.idioms import BEARER, MESSAGES, plain_sentence
from vidmem_ros.agent.interval import REACHED, Interval, edge_of, interval_question, journey
from vidmem_ros.agent.labels import bears_words, singular
from vidmem_ros.agent.meanwhile import Meanwhile, meanwhile_question
from vidmem_ros.agent.own_moments import own_question, own_script
from vidmem_ros.agent.polarity import negates
from vidmem_ros.agent.question import (
    ARRIVAL,
    Intent,
    Modality,
    ParsedQuestion,
    Window,
    asked_words,
    clean_target,
    content_words,
    counts_stays,
    first_occasion_named,
    modality_named,
    names_any_message,
    occasion_named,
    places_counted,
    places_named,
    sign_words,
    thing_beside,
    times_hold,
    window_of,
    written_as_read,
)
from vidmem_ros.agent.readable import FUNCTION_WORDS
from vidmem_ros.agent.runs import MESSAGE_GAP_S, group_runs
from vidmem_ros.agent.sounds import misheard_as
from vidmem_ros.agent.steps import NOT_SEEN_CONFIDENCE, Script, Step, answer, call, when_said, xy_said
from vidmem_ros.agent.text_blocks import entries, row_named
from vidmem_ros.agent.text_match import SAME_SIGN, distinct_signs, named_numbers, squash, text_match, words_covered
from vidmem_ros.agent.things_counted import NO_LABEL, NO_PLACE, ThingsCounted, things_counted
from vidmem_ros.agent.tool_args import TRANSCRIPTS_MAX
from vidmem_ros.agent.tool_context import NAMES_ACTIVITY, NAMES_ONLY_ACTIVITY, Finding
from vidmem_ros.agent.tool_registry import ANSWER_TOOL
from vidmem_ros.agent.who import WhoAsked, people_counted, people_found, who_question, who_script
from vidmem_ros.memory.captions import NOTHING_RECOGNISED
from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.runs import runs_named
from vidmem_ros.perception.colour_names import colour_named
from vidmem_ros.perception.wordnet import WordNet
from vidmem_ros.spoken_numbers import amount_of, how_often

# Absence of a detection is weak evidence (detectors miss things): the confidence of "not seen".
NEIGHBOUR_WINDOW_S = 300.0  # how far "before X" / "after X" looks
# A place description must match at least this well (share of words, or text-embedding cosine) to be the one meant.
PLACE_MATCH_MIN = 0.3
# What was heard in the window a question sets, where none of it says the question's words: an answer for this share
# of its confidence.
REWORDED = 0.5


class OfflinePlanner:
    name = "offline"

    def __init__(
        self, parsed: ParsedQuestion | None, span: tuple[float, float] | None, wordnet: WordNet | None = None
    ) -> None:
        self.parsed = parsed
        self.span = span  # memory visible at the question's moment
        self.wordnet = wordnet  # tells a person who said something from a thing that bears words
        self._script: Script | None = None
        self._step: Step = []

    def _said_or_read(self, question: str) -> list[str]:
        """How a value asked for was met, as the question names its source: read or heard, else either."""
        return [s.value for s in source_named(question, self.wordnet) if s is not Sense.SEEN] or ["read", "heard"]

    # -- Planner protocol --------------------------------------------------------------

    def start(self, state: AgentState) -> None:
        self._script = self._run(state)
        self._step = next(self._script)

    def next_step(self, state: AgentState) -> Step:
        return self._step

    def repair(self, state: AgentState, error: str) -> Step:
        raise PlannerError(f"the offline planner made an invalid step (a bug): {error}")

    def observe(self, state: AgentState, observations: list[Observation]) -> None:
        assert self._script is not None
        self._step = self._script.send(observations)

    # -- scripts -----------------------------------------------------------------------

    def _run(self, state: AgentState) -> Script:
        p = self.parsed
        if self.span is None:
            yield answer(f"I have no memory from that time, so I cannot say{_about(p)}.", 0.0, value=_empty_value(p))
            return
        who = who_question(state.question)  # who spoke: voices, not the things the parsed plan looks for
        if who is not None and who.asked is WhoAsked.SEEN:
            yield from self._people_seen(state, p)
            return
        if who is not None:
            yield from who_script(state, who)
            return
        own = own_question(state.question)  # the robot itself at a moment named by the clock or the run
        if own is not None:
            yield from own_script(state, own, self.span)
            return
        kind = value_kind(interrogative(state.question), self.wordnet)
        if kind is not None and asked_kind(state.question) is Asked.YES_NO:
            yield from self._value_met(state, p, kind)
            return
        between = interval_question(state.question)  # the time between two things met
        if between is not None:
            yield from self._interval(state, between)
            return
        meanwhile = meanwhile_question(state.question)  # what was met while something else was
        if meanwhile is not None and (yield from self._meanwhile(state, meanwhile)):
            return
        lasting = duration_check(state.question)  # one thing's time in view against an amount of time
        if lasting is not None:
            yield from self._lasting(state, p, lasting)
            return
        compared = comparison_question(state.question)  # two things by how often or how long they were met
        if compared is not None:
            yield from self._compare(state, p, compared)
            return
        counted = things_counted(state.question)  # how many things, not how often they were met
        # "According to the notice, how many beds are there": a number read or heard, searched for, not things seen
        counted = None if counted is not None and p is None and cites_a_source(state.question) else counted
        if counted is not None and (p is None or (p.intent is Intent.COUNT and p.modality is Modality.OBJECT)):
            yield from self._count_things(state, counted, self._asked_bounds(state, p))
            return
        if p is None:
            yield from self._search(state)
            return
        if p.intent is Intent.ACTIVE:
            yield self._active(state)
            return
        bound = occasion_bound(state.question) if p.intent is Intent.COUNT and p.window is None else None
        if bound is not None:  # "how many ... before the kite showed up": counted up to (or from) that moment
            bounded = yield from self._bounded(state, p, bound)
            if bounded is None:
                return
            p = bounded
        planned = self._script_for(state, p)
        final = yield from _held(planned)
        asked = asked_kind(state.question)
        if _unsupported(final) and asked not in (Asked.NAME, Asked.YES_NO) and p.intent is not Intent.ACTIVE:
            # The plan found nothing: the question read as a whole may still be grounded in memory (a "no" stands:
            # the plan looked for that very thing, and a partial match is no sighting of it).
            sighting = p.modality in (Modality.OBJECT, Modality.TEXT) and sight_named(state.question)
            senses = ["seen", "read"] if sighting else None  # what the robot looked at is not what it heard
            # Words the question puts in its own terms ("the tank's temperature"), not quoted or in capitals, were
            # looked for as written: what was read that best fits them answers, standing out or not.
            described = p.modality is Modality.TEXT and not written_as_read(state.question, p.target)
            grounded = yield from self._grounded(state, asked, claimed_only=not described, senses=senses)
            final = grounded or final
        yield final

    def _people_seen(self, state: AgentState, p: ParsedQuestion | None) -> Script:
        """How many different people were seen: by their faces where faces were told apart; else (no face model,
        or no face near enough) counted as any thing is, the most in view at once at each place, added up."""
        found = yield from people_found("seen")
        if found:
            yield people_counted(found, "seen")
            return
        said = things_counted(state.question)  # where they were, as said; "faces" are people in view
        counted = ThingsCounted("people", said.place if said else "", said.on_thing if said else False)
        yield from self._count_things(state, counted, self._asked_bounds(state, p))

    def _count_things(self, state: AgentState, counted: ThingsCounted, window: dict[str, float]) -> Script:
        """How many things of a kind there were: at the place named, the most seen at once there; else that
        figure summed over the places stayed at."""
        state.plan(f"count {counted.thing} per place", "add them up")
        at = "" if counted.on_thing else counted.place
        result = (yield [call("count_things", about=counted.thing, at=at, **window)])[0].result
        found = result.findings
        if counted.on_thing and found:  # "on the counter": one view of it, wherever it was
            found = [max(found, key=lambda f: int(f.data["count"]))]
        if not found:  # none seen, unless the thing or the place could not be told
            unknown = result.note.startswith((NO_LABEL, NO_PLACE))
            lead = "I cannot tell" if unknown else "0"
            yield answer(f"{lead}: {result.note}.", NOT_SEEN_CONFIDENCE, value=None if unknown else 0)
            return
        total = sum(int(f.data["count"]) for f in found)
        if counted.place or len(found) == 1:
            where = f" at {xy_said(found[0].pose)}" if found[0].pose else ""
            text = f"{total}: the most {counted.thing} I saw at once{where} was {total}."
        else:
            each = ", ".join(f"{f.data['count']} at {xy_said(f.pose)}" for f in found if f.pose)
            text = f"{total}: the most I saw at once at each place I stayed at, added up ({each})."
        yield answer(text, 0.6, _refs(found), found[0].ref, found[0].ref, value=total)

    def _bounded(
        self, state: AgentState, p: ParsedQuestion, bound: Bound
    ) -> Generator[Step, list[Observation], ParsedQuestion | None]:
        """A count's plan with its window ending (or starting) at the first occasion of the thing that bounds it;
        None, with the answer given, where that thing was never met."""
        senses = _SENSES_OF.get(bound.anchor_met) if bound.anchor_met else None
        first = yield from self._first_seen(bound.anchor, senses)
        if first is None:
            text = f"I cannot count up to {bound.anchor}: I have not met {bound.anchor}."
            yield answer(text, NOT_SEEN_CONFIDENCE, value=None)
            return None
        at = first.stamp - state.t0
        target = clean_target(p.target.replace(bound.clause, "")) if bound.clause in p.target else p.target
        return replace(p, target=target, window=Window("first" if bound.before else "since", at))

    def _script_for(self, state: AgentState, p: ParsedQuestion) -> Script:
        """The script that answers a parsed question."""
        scripts = {
            Intent.ORDER: self._order,
            Intent.BEFORE: self._neighbour,
            Intent.AFTER: self._neighbour,
            Intent.WHAT: self._what,
            Intent.READ: self._read,
            Intent.SAID: self._said,
        }
        script = self._place if p.modality is Modality.PLACE else scripts.get(p.intent)
        if p.intent is Intent.ROUTE:
            script = self._route
        if p.intent is Intent.COUNT and p.modality is Modality.TEXT and not p.target:
            script = self._count_read
        if p.intent is Intent.DID and _ANYTHING.match(p.target):
            script = self._anything
        if p.intent is Intent.DID and p.relation == "or" and p.other:
            script = self._either
        if p.intent in (Intent.FIRST, Intent.LAST) and p.modality is Modality.OBJECT and _ANYTHING.match(p.target):
            script = self._first_thing
        if script is not None:
            return script(state, p)
        return self._heard(state, p) if p.modality is Modality.SPEECH else self._occasions(state, p)

    def _compare(self, state: AgentState, p: ParsedQuestion | None, c: Comparison) -> Script:
        """Which of two things was met more (or less) often, or for longer: each side counted or timed as the
        same question about it alone would be; the answer names the one asked for, then both figures."""
        a, b = c.target, c.other
        va, sa = yield from self._measured(state, p, c.measure, a, c.modality)
        vb, sb = yield from self._measured(state, p, c.measure, b, c.modality)
        evidence = [*sa[0]["args"].get("evidence", []), *sb[0]["args"].get("evidence", [])]
        confidence = min(float(s[0]["args"].get("confidence", 0.0)) for s in (sa, sb))
        figure = _occasions_said if c.measure is Intent.COUNT else _seconds_said
        verb = _met_verb(c.modality)
        both = f"I {verb} {a} {figure(va)} and {b} {figure(vb)}"
        if va == vb:
            text = f"{'No' if c.yes_no else 'Neither'}: {both}."
            yield answer(text, confidence, evidence, value=False if c.yes_no else "neither")
            return
        winner = a if (va > vb) == c.more else b
        if c.yes_no:
            yield answer(f"{'Yes' if winner == a else 'No'}: {both}.", confidence, evidence, value=winner == a)
            return
        yield answer(f"{winner[0].upper()}{winner[1:]}: {both}.", confidence, evidence, value=winner)

    def _measured(
        self,
        state: AgentState,
        p: ParsedQuestion | None,
        measure: Intent,
        name: str,
        modality: Modality,
        ordinal: int = 0,
    ) -> Generator[Step, list[Observation], tuple[float, Step]]:
        """How often (COUNT) or how long (DURATION) a thing was met, counted or timed as the question about it
        alone would be, in the question's window (on the ``ordinal`` occasion, where named); 0 where it was not
        met.  The answer step is kept for its evidence."""
        window = p.window if p is not None else None
        side = ParsedQuestion(state.question, measure, name, modality, window=window, ordinal=ordinal)
        step = yield from _held(self._script_for(state, side))
        value = step[0]["args"].get("value")
        return (float(value) if isinstance(value, int | float) else 0.0), step

    def _lasting(self, state: AgentState, p: ParsedQuestion | None, c: DurationCheck) -> Script:
        """ "Was X in view for over a minute?": yes or no by the total time it was met, which the answer gives."""
        total, step = yield from self._measured(state, p, Intent.DURATION, c.target, c.modality, c.ordinal)
        args = step[0]["args"]
        holds = times_hold(c.check, c.seconds, total)
        verb = "was at" if c.modality is Modality.PLACE else _met_verb(c.modality)
        which = f"on the {_ORDINAL_WORDS.get(c.ordinal, str(c.ordinal))} occasion" if c.ordinal else "in all"
        met = f"I {verb} {c.target} for about {total:.0f} s {which}" if total else f"I have not met {c.target}"
        yield answer(
            f"{'Yes' if holds else 'No'}: {met}.",
            float(args.get("confidence", 0.3)),
            args.get("evidence", []),
            value=holds,
        )

    def _interval(self, state: AgentState, c: Interval) -> Script:
        """The time between two things: from the first time one was met to the first time the other was (after
        it, where the question asks how long after); both moments are given."""
        if c.from_start:
            yield from self._delay(state, c)
            return
        if c.repeat:
            yield from self._between_occasions(state, c)
            return
        if c.first_edge or c.second_edge:
            trip = yield from self._between_stays(state, c)
            if trip is not None:
                yield trip
                return
        state.plan(f"find when I first met {c.first}", f"find when I first met {c.second}", "subtract")
        a = yield from self._first_seen(c.first, _SENSES_OF.get(c.first_met) if c.first_met else None)
        b = yield from self._first_seen(c.second, _SENSES_OF.get(c.second_met) if c.second_met else None)
        if a is None or b is None:
            yield self._one_side(state, "met", "met", (c.first, a), (c.second, b), unknown="how long was between them")
            return
        seconds = b.stamp - a.stamp if c.after else abs(b.stamp - a.stamp)
        times = f"{c.first} at {a.stamp - state.t0:.0f} s and {c.second} at {b.stamp - state.t0:.0f} s"
        text = f"About {seconds:.0f} s: I first met {times} after my memory begins."
        if c.after and seconds < 0:  # no time "after" to give: the answer says which came first, with no duration
            text = f"{c.second[0].upper()}{c.second[1:]} came {-seconds:.0f} s before {c.first}, not after: {times}."
            yield answer(text, min(a.score, b.score), [a.ref, b.ref])
            return
        yield answer(text, min(a.score, b.score), [a.ref, b.ref], value=round(seconds, 1))

    def _between_stays(self, state: AgentState, c: Interval) -> Generator[Step, list[Observation], Step | None]:
        """The time from leaving (or reaching) one place to reaching (or leaving) another: the visits the trip
        joins, not the first moment each place was in view; where one side is a thing met, from the first stay at
        the place to that thing's first occasion.  None where no side said to be left or reached is a place."""
        state.plan(f"find my visits to {c.first}", f"find my visits to {c.second}", "pair them and subtract")
        first = yield from self._stays_of(c.first, c.first_edge, c.first_met, state.t0)
        second = yield from self._stays_of(c.second, c.second_edge, c.second_met, state.t0)
        if first and second:
            trip = journey(first, second, c.first_edge, c.second_edge)
            if trip is None:
                text = f"I cannot tell: I never came to {c.second} after {c.first}."
                return answer(text, NOT_SEEN_CONFIDENCE, [first[0][2], second[0][2]], value=None)
            a, b = trip
            moments = [(edge_of(a, c.first_edge), a[2]), (edge_of(b, c.second_edge), b[2])]
        elif (first and c.first_edge) or (second and c.second_edge):
            other, met = (c.second, c.second_met) if first else (c.first, c.first_met)
            occasions = yield from self._spans_of(other, met, state.t0)
            if not occasions:
                return None
            stay = (edge_of(first[0], c.first_edge), first[0][2]) if first else None
            stay = stay or (edge_of(second[0], c.second_edge), second[0][2])
            # The thing's occasion on the side of the stay the question puts it: the first after leaving a place,
            # the last before reaching one; its first occasion where none lies there.
            after = [o for o in occasions if o[0] >= stay[0]]
            before = [o for o in occasions if o[0] <= stay[0]]
            side = after if first else before
            if c.after and not side:  # nothing met on the side the trip needs: no trip to time, and none made up
                where = f"after I left {c.first}" if first else f"before I reached {c.second}"
                text = f"I cannot tell: I met nothing I took for {other} {where}."
                return answer(text, NOT_SEEN_CONFIDENCE, [stay[1]], value=None)
            near = (after[0] if after else occasions[0]) if first else (before[-1] if before else occasions[0])
            moments = [stay, (near[0], near[2])] if first else [(near[0], near[2]), stay]
        else:
            return None
        (start, a_ref), (end, b_ref) = moments
        seconds = end - start if c.after else abs(end - start)
        said = [_moment_said(c.first, c.first_edge, bool(first)), _moment_said(c.second, c.second_edge, bool(second))]
        times = f"{said[0]} at {start - state.t0:.0f} s and {said[1]} at {end - state.t0:.0f} s after my memory begins"
        if seconds < 0:  # no time "after" to give: say which came first, with no duration
            return answer(
                f"The second came {-seconds:.0f} s before the first, not after: {times}.", 0.5, [a_ref, b_ref]
            )
        return answer(
            f"About {seconds:.0f} s: {times}.", 0.7, list(dict.fromkeys([a_ref, b_ref])), value=round(seconds, 1)
        )

    def _stays_of(
        self, name: str, edge: str, met: Modality | None, t0: float
    ) -> Generator[Step, list[Observation], list[tuple[float, float, str]]]:
        """The visits to the place a side names, where it may be a place: one left or reached, or one said with no
        sense of its own ("the lab", not "the alarm heard")."""
        if not edge and met is not None:
            return []
        return (yield from self._spans_of(name, None, t0, place=True))

    def _between_occasions(self, state: AgentState, c: Interval) -> Script:
        """The gap between the first two occasions of one thing: from the end of the first to the start of the
        second."""
        state.plan(f"find every occasion of {c.first}", "measure the gap between the first two")
        spans = yield from self._spans_of(c.first, c.first_met, state.t0)
        if len(spans) < 2:
            met = "once" if spans else "not at all"
            yield answer(f"I met {c.first} {met}, so there is no gap to measure.", 0.5, [r for *_, r in spans])
            return
        (_, left, a), (back, _, b) = spans[0], spans[1]
        text = f"About {back - left:.0f} s: {c.first} went at {left - state.t0:.0f} s and came again at "
        text += f"{back - state.t0:.0f} s after my memory begins."
        yield answer(text, 0.7, [a, b], value=round(back - left, 1))

    def _delay(self, state: AgentState, c: Interval) -> Script:
        """How long after the start of memory a thing was first met ("how long did it take to find X"); a thing
        named by its kind alone ("the first sign", "anything said") is the first thing met that way."""
        state.plan(f"find when I first met {c.second}", "count from the start of memory")
        stays = (yield from self._spans_of(c.second, None, state.t0, place=True)) if c.second_edge else []
        if stays:  # "how long did it take to reach B": the start of the first visit (its end, for "leave")
            moment = edge_of(stays[0], c.second_edge)
            text = f"About {moment - state.t0:.0f} s: I first {c.second_edge} {c.second} {when_said(state, moment)}."
            yield answer(text, 0.7, [stays[0][2]], value=round(moment - state.t0, 1))
            return
        senses = _SENSES_OF.get(c.second_met) if c.second_met else None
        kind_only = re.fullmatch(rf"(?:{BEARER}|text|writing|words?)s?", c.second) or names_any_message(c.second)
        if _ANYTHING.match(c.second) or kind_only:
            what = _TIMELINE_OF.get(c.second_met or Modality.OBJECT, "objects")
            obs = (yield [call("timeline", what=[what], limit=1, start_t=0.0)])[0]
            met = obs.result.findings[0] if obs.result.findings else None
        else:
            met = yield from self._first_seen(c.second, senses)
        if met is None:
            yield answer(f"I cannot tell: I have not met {c.second}.", NOT_SEEN_CONFIDENCE, value=None)
            return
        seconds = met.stamp - state.t0
        verb = _met_verb(c.second_met) if c.second_met else "met"
        text = f"About {seconds:.0f} s: I first {verb} {c.second} {when_said(state, met.stamp)}."
        first = str(met.data.get("first_ref", met.ref))
        yield answer(text, met.score, list(dict.fromkeys([met.ref, first])), first, value=round(seconds, 1))

    def _meanwhile(self, state: AgentState, c: Meanwhile) -> Generator[Step, list[Observation], bool]:
        """What was heard, read or seen while something else was met (or while the robot was at a place): the
        records of that sense during the first of its occasions that has any, the thing itself left out.  False,
        having answered nothing, where a place said without "while" is no place the robot stayed at."""
        state.plan(f"find every occasion of {c.anchor}", f"list what was {_MET_AS[c.asked]} during each")
        anchor = f"{_met_verb(Modality.PLACE if c.place else c.anchor_met or Modality.OBJECT)} {c.anchor}"
        spans = (yield from self._spans_of(c.anchor, c.anchor_met, state.t0, place=c.place))[:MEANWHILE_OCCASIONS]
        if not spans and c.said_at:
            return False
        if not spans:
            yield answer(f"I cannot tell: I have not met {c.anchor}.", NOT_SEEN_CONFIDENCE, value=None)
            return True
        pad = 0.0 if c.place else MEANWHILE_PAD_S  # a stay is the robot's own span; a sighting is a frame's
        if c.target:
            yield from self._whether_meanwhile(state, c, spans, anchor, pad)
            return True
        what = _TIMELINE_OF.get(c.asked, "objects")
        # A place is every visit to it, all told; a thing met sets the moment of its first occasion with any.
        groups = [spans] if c.place else [[span] for span in spans]
        for group in groups:
            found: list[Finding] = []
            for start, end, _ in group:
                window = {"start_t": start - state.t0 - pad, "end_t": end - state.t0 + pad}
                found += (yield [call("timeline", what=[what], limit=10, **window)])[0].result.findings
            others = [f for f in found if not _mentions(f, c.anchor)]
            met = _first_of_each(others or (found if c.place else []))
            if met:
                ref = group[0][2]
                named = [_met_named(f) for f in met]
                said = [n if c.asked is Modality.OBJECT else f'"{n}"' for n in named]
                listed = "; ".join(
                    f"{n} ({f.stamp - state.t0:.0f} s)" for n, f in list(zip(said, met, strict=True))[:4]
                )
                visits = ", ".join(f"{a - state.t0:.0f}-{b - state.t0:.0f} s" for a, b, _ in group)
                span = f"{visits} after my memory begins"
                text = f"{said[0]}: while I {anchor} ({span}) I {_MET_AS[c.asked]} {listed}."
                first = str(met[0].data.get("first_ref", met[0].ref))
                yield answer(text, min(0.8, met[0].score), [ref, *_refs(met)], first, first, value=named[0])
                return True
        when = ", ".join(f"{a - state.t0:.0f}-{b - state.t0:.0f} s" for a, b, _ in spans)
        text = f"Nothing: I {_MET_AS[c.asked]} nothing while I {anchor} ({when} after my memory begins)."
        yield answer(text, 0.5, [ref for _, _, ref in spans], value=None)
        return True

    def _whether_meanwhile(
        self, state: AgentState, c: Meanwhile, spans: list[tuple[float, float, str]], anchor: str, pad: float
    ) -> Script:
        """Whether the thing asked about was met while the anchor was: its occasions set against the anchor's."""
        at_place = c.asked is Modality.PLACE
        mine = yield from self._spans_of(c.target, None if at_place else c.asked, state.t0, place=at_place)
        verb, t0 = _met_verb(c.asked), state.t0
        if not mine:
            never = "found no place I stayed at like" if at_place else f"have not {_perfect(c.asked)}"
            yield answer(f"No: I {never} {c.target}.", NOT_SEEN_CONFIDENCE, value=False)
            return
        together = [(a, b, r, s, e) for s, e, _ in spans for a, b, r in mine if a <= e + pad and b >= s - pad]
        if together:
            a, b, ref, s, e = together[0]
            text = (
                f"Yes: I {verb} {c.target} ({a - t0:.0f}-{b - t0:.0f} s) while I {anchor} ({s - t0:.0f}-{e - t0:.0f} s"
            )
            yield answer(f"{text} after my memory begins).", 0.7, [ref, spans[0][2]], ref, ref, value=True)
            return
        times = ", ".join(f"{a - t0:.0f}-{b - t0:.0f} s" for a, b, _ in mine[:4])
        when = ", ".join(f"{s - t0:.0f}-{e - t0:.0f} s" for s, e, _ in spans)
        text = f"No: I {verb} {c.target} at {times}, not while I {anchor} ({when} after my memory begins)."
        yield answer(text, 0.6, [r for _, _, r in mine[:4]] + [spans[0][2]], value=False)

    def _spans_of(
        self, name: str, met: Modality | None, t0: float, place: bool = False
    ) -> Generator[Step, list[Observation], list[tuple[float, float, str]]]:
        """The occasions (start, end, reference) of a thing met as ``met`` says (any way where None): its
        sightings, or the records its description is grounded in; with ``place``, the visits to the place it
        describes."""
        if place:
            found = (yield [call("places", about=name)])[0].result.findings
            if not found or found[0].score < PLACE_MATCH_MIN:
                return []
            return [(t0 + a, t0 + b, found[0].ref) for a, b in found[0].data["visits"]]
        if met in (None, Modality.OBJECT):
            obs = (yield [call("find_object", name=name)])[0]
            seen = [f for f in obs.result.findings if f.kind == "occasion"]
            if seen or (met is Modality.OBJECT and "cannot recognise" not in obs.result.note):
                return [(f.stamp, f.end, f.ref) for f in seen]  # a thing the detector knows and never saw: none
        senses = _SENSES_OF.get(met) if met else None
        _, grounded = yield from self._occasions_of(name, senses or [], sighting=senses == ["seen"])
        return [(f.stamp, max(f.end, f.stamp), f.ref) for f in grounded]

    def _occasions(self, state: AgentState, p: ParsedQuestion) -> Script:
        """Did / first / last / where / how many / how long, for a thing seen or words read.  A thing that bears
        words ("the red sign on the fence", "the wet paint notice", "the door that says PRIVATE") is found by what
        was read on it."""
        bearer = bears_text(head_words(p.target)) or _SAYS_WHAT.search(p.target) is not None
        if p.modality is Modality.OBJECT and bearer and p.intent is not Intent.DID:
            words = sign_words(p.target)  # "the EXIT sign": when or where it was read, as "when did you read EXIT"
            if p.intent in (Intent.FIRST, Intent.LAST, Intent.WHERE) and words != p.target:
                read = yield from _held(self._occasions(state, replace(p, modality=Modality.TEXT, target=words)))
                if read[0]["args"].get("time_ref"):
                    yield read
                    return
            grounded = yield from self._grounded(state, asked_kind(state.question), senses=["read"], about=p.target)
            if grounded is not None:
                yield grounded
                return
        tool, key = ("find_text", "text") if p.modality is Modality.TEXT else ("find_object", "name")
        # words read are looked for without what bore them or where it hung ("staff" of "the staff notice on the
        # kitchen whiteboard"): those describe the sign, they need not be written on it
        wanted = sign_words(head_words(p.target)) if p.modality is Modality.TEXT and bearer else p.target
        state.plan(f"find every occasion of {p.target}", "compose the answer")
        obs = (yield [call(tool, **{key: wanted}, **self._window(state, p))])[0]
        found = [f for f in obs.result.findings if f.kind == "occasion"]
        weak = [f for f in obs.result.findings if f.kind == "weak"]
        if p.intent is Intent.DID and (said := _read_not_detected(p, found)):
            # "any flood warning signs": a sign detected ("stop sign") is not one that says so; what was read is
            yield from self._sign_saying(state, p, said)
            return
        if p.times is not None and (found or "cannot recognise" not in obs.result.note):
            yield self._times_checked(p, found)
            return
        if not found and "never seen there" in obs.result.note:  # seen elsewhere only: not at the place named
            yield self._not_seen(state, p, [])
            return
        if "cannot recognise" in obs.result.note or (not found and p.modality is Modality.OBJECT):
            note = obs.result.note
            known, tagged = "cannot recognise" not in note, "tagger knows it" in note
            yield from self._named_elsewhere(state, p, weak, known, tagged)
            return
        if not found:
            yield self._not_seen(state, p, weak)
            return
        if p.intent is Intent.WHERE and p.modality is Modality.OBJECT and _SAYS_FIRST.search(p.text.lower()):
            yield from self._first_position(state, p, found)  # "where did you first see X": where I was then
            return
        not_with = next((f.data["not_with"] for f in found if f.data.get("not_with")), None)
        if not_with and p.intent is Intent.DID:  # "anyone holding a kite": the detector knows kites, and saw none by
            first = found[0]  # anyone, so not as described
            text = f"No: I saw {head_words(p.target)}, but never with {', '.join(not_with)} in view."
            yield answer(text, NOT_SEEN_CONFIDENCE, [first.ref], value=False)
            return
        step = self._compose(state, p, found)
        if not_with:  # the thing was seen, but not what the description says it was with: say so, less sure
            args = step[0]["args"]
            args["text"] = f"{args['text']} I did not make out {', '.join(not_with)} with it, though."
            args["confidence"] = min(float(args.get("confidence", 0.5)), 0.5)
        yield step

    def _sign_saying(self, state: AgentState, p: ParsedQuestion, said: list[str]) -> Script:
        """Whether a sign that says certain words was read: the best reading, yes only where it holds them all."""
        best, occasions = yield from self._occasions_of(p.target, ["read"])
        if best is None:
            yield answer(f"No, I have not read {p.target}.", NOT_SEEN_CONFIDENCE, value=False)
            return
        when, what = when_said(state, best.stamp), f'"{best.text}"'
        missing = [w for w in said if not found_in(w, best.text)]
        if missing:
            text = f'No: the nearest I read was {what} {when}, which does not say "{" ".join(missing)}".'
            yield answer(text, NOT_SEEN_CONFIDENCE, _refs(occasions), best.ref, best.ref, value=False)
            return
        yield answer(f"Yes: I read {what} {when}.", 0.7 * best.score, _refs(occasions), best.ref, best.ref, value=True)

    def _value_met(self, state: AgentState, p: ParsedQuestion | None, kind: ValueKind) -> Script:
        """Whether any value of a kind was read or heard ("have you read anyone's name", "did you hear a phone
        number"): yes with the record that holds one and best fits the question, else no."""
        how = self._said_or_read(state.question)
        state.plan(f"find a {kind.value} {' or '.join(how)}", "compose the answer")
        described = " ".join(asked_words(state.question)) or state.question
        window = self._window(state, p) if p is not None else {}
        obs = (yield [call("ground", description=described, how=how, value=kind.value, **window)])[0]
        holder = next((f for f in obs.result.findings if f.data.get("holds")), None)
        verb = "heard" if how == ["heard"] else "read" if how == ["read"] else "read or heard"
        if holder is None:
            yield answer(f"No, I have not {verb} a {kind.value} so far.", NOT_SEEN_CONFIDENCE, value=False)
            return
        said = "heard" if holder.data.get("record") == "transcript" else "read"
        text = f'Yes: I {said} "{holder.text}" {when_said(state, holder.stamp)}.'
        yield answer(text, 0.6, [holder.ref], holder.ref, holder.ref, value=True)

    def _either(self, state: AgentState, p: ParsedQuestion) -> Script:
        """ "Did you see a fox or a badger?": yes with the one met (the first offered, where both were), else no."""
        for thing in (p.target, p.other):  # each as a question of its own, heard, read or seen as asked
            step = yield from _held(self._script_for(state, replace(p, target=thing, other="", relation="")))
            if step[0]["args"].get("value") is True:
                yield step
                return
        verb = _perfect(p.modality)
        text = f"No: I have {verb} neither {p.target} nor {p.other}."
        yield answer(text, NOT_SEEN_CONFIDENCE, value=False)

    @staticmethod
    def _times_checked(p: ParsedQuestion, found: list[Finding]) -> Step:
        """ "Did you see X twice?": yes or no by the number of occasions, which the answer gives."""
        assert p.times is not None
        check, n = p.times
        holds = times_hold(check, n, len(found))
        verb = _met_verb(p.modality)
        what = f'"{p.target}"' if p.modality is Modality.TEXT else p.target
        met = f"I {verb} {what} on {_times(len(found))}" if found else f"I have not {_perfect(p.modality)} {what}"
        confidence = max((f.score for f in found), default=NOT_SEEN_CONFIDENCE)
        return answer(f"{'Yes' if holds else 'No'}: {met}.", confidence, _refs(found), value=holds)

    def _compose(self, state: AgentState, p: ParsedQuestion, found: list[Finding]) -> Step:
        verb = "read" if p.modality is Modality.TEXT else "saw"
        what = f'"{p.target}"' if p.modality is Modality.TEXT else p.target
        if p.modality is Modality.TEXT and found and bears_text(head_words(p.target)) and found[-1].data.get("read"):
            what = f'"{found[-1].data["read"]}"'  # a sign described ("the notice on the door"): what it said
        if p.ordinal and p.intent is not Intent.COUNT:  # "the second time": that occasion alone
            if len(found) < p.ordinal:
                text = (
                    f"I {verb} {what} only on {_times(len(found))}, so there was no {_ORDINAL_WORDS[p.ordinal]} time."
                )
                return answer(text, max(f.score for f in found), _refs(found), value=_empty_value(p))
            found = [found[p.ordinal - 1]]
            if p.intent in (Intent.FIRST, Intent.LAST, Intent.DID):
                nth, ref = found[0], str(found[0].data.get("first_ref", found[0].ref))
                text = f"The {_ORDINAL_WORDS[p.ordinal]} time I {verb} {what} was {when_said(state, nth.stamp)}."
                value = True if p.intent is Intent.DID else None
                return answer(text, nth.score, _refs(found), ref, ref, value=value)
        first, last = found[0], found[-1]
        confidence = max(f.score for f in found)
        refs = _refs(found)
        if p.modality is Modality.TEXT and p.intent in (Intent.FIRST, Intent.LAST, Intent.WHERE):
            return self._read_at(state, p, first if p.intent is Intent.FIRST else last, confidence, refs)
        if p.intent is Intent.FIRST:
            ref = first.data.get("first_ref", first.ref)
            kind, named = _kind_met(state, p, first)
            return answer(
                f"I first {verb} {kind} {when_said(state, first.stamp)}.", confidence, refs, ref, ref, value=named
            )
        if p.intent is Intent.COUNT:
            times = ", ".join(f"{f.stamp - state.t0:.0f} s" for f in found[:10])
            runs = runs_named(state.runs, [f.stamp for f in found])
            text = f"I {verb} {what} on {_times(len(found))} (at {times} after my memory begins{runs})."
            return answer(text, confidence, refs, value=len(found))
        if p.intent is Intent.DURATION:
            total = sum(f.end - f.stamp for f in found)
            text = f"I {verb} {what} for about {total:.0f} s in total, over {_times(len(found))}."
            return answer(text, confidence, refs, value=round(total, 1))
        ref = last.data.get("last_ref", last.ref)
        when = when_said(state, last.end)
        if p.intent is Intent.WHERE:
            place = f"at {xy_said(last.pose)}" if last.pose else "but I had no pose then"
            return answer(f"I last {verb} {what} {place}, {when}.", confidence, refs, ref, ref)
        if p.intent is Intent.LAST:
            kind, named = _kind_met(state, p, last)
            return answer(f"I last {verb} {kind} {when}.", confidence, refs, ref, ref, value=named)
        text = f"Yes, I {verb} {what} on {_times(len(found))}; most recently {when}."
        return answer(text, confidence, refs, ref, ref, value=True)

    def _first_position(self, state: AgentState, p: ParsedQuestion, found: list[Finding]) -> Script:
        """Where the robot was when it first saw the thing: its pose at the first occasion's start."""
        first = found[0]
        at = (yield [call("pose_at", t=round(first.stamp - state.t0, 2))])[0].result.findings
        pose = at[0] if at and at[0].pose is not None else first
        where = f"at {xy_said(pose.pose)}" if pose.pose else "but I had no pose then"
        text = f"I first saw {p.target} {where}, {when_said(state, first.stamp)}."
        refs = [*_refs(found), *([pose.ref] if pose is not first else [])]
        yield answer(text, max(f.score for f in found), refs, pose.ref, pose.ref)

    def _read_at(
        self, state: AgentState, p: ParsedQuestion, found: Finding, confidence: float, refs: list[str]
    ) -> Step:
        """A sign is read over a stretch of frames: answer with the middle of its clearest reads, or, asked when
        it was first read, with the first of them, and asked when it was last read, with the last."""
        said = p.text.lower()
        first = p.intent is Intent.FIRST or (p.intent is Intent.WHERE and _SAYS_FIRST.search(said) is not None)
        key = "first" if first else "last" if _SAYS_LAST.search(said) else "mid"
        ref = str(found.data.get(f"{key}_ref", found.ref))
        stamp = found.end if key == "last" else float(found.data.get(f"_{key}", found.stamp))
        when = when_said(state, stamp)
        span = f"(read from {found.stamp - state.t0:.0f} s to {found.end - state.t0:.0f} s)"
        order = "first " if p.intent is Intent.FIRST else ""
        if p.intent is Intent.WHERE:
            place = f"at {xy_said(found.pose)}" if found.pose else "but I had no pose then"
            return answer(f'I read "{p.target}" {place}, {when} {span}.', confidence, refs, ref, ref)
        return answer(f'I {order}read "{p.target}" {when} {span}.', confidence, refs, ref, ref)

    def _not_seen(self, state: AgentState, p: ParsedQuestion, weak: list[Finding]) -> Step:
        verb = _perfect(p.modality)
        what = f'"{p.target}"' if p.modality is not Modality.OBJECT else p.target
        if weak:
            best = weak[0]
            text = f"I am not sure: the only sign of {what} is a weak detection {when_said(state, best.stamp)}."
            return answer(text, NOT_SEEN_CONFIDENCE, [best.ref], best.ref, best.ref, value=_empty_value(p))
        return answer(f"No, I have not {verb} {what}.", NOT_SEEN_CONFIDENCE, value=_empty_value(p))

    def _weak_guess(self, state: AgentState, p: ParsedQuestion, guess: Finding) -> Step:
        """The only sign of a thing is a guess too weak to call a sighting: whether it was seen stays "no"; when
        or where is given, hedged (for "last", when the view it was guessed in ended)."""
        if p.intent not in (Intent.FIRST, Intent.LAST, Intent.WHERE):
            return self._not_seen(state, p, [replace(guess, text=f"weak {guess.text}")])
        last = p.intent is Intent.LAST and "view_end_ref" in guess.data
        ref = str(guess.data["view_end_ref"]) if last else guess.ref
        stamp = float(guess.data["_view_end"]) if last else guess.stamp
        what = "ended" if last else "was"
        text = f"I am not sure I saw {p.target}: the only sign of it is a weak guess ({guess.text}), in a view that "
        text += f"{what} {when_said(state, stamp)}."
        return answer(text, NOT_SEEN_CONFIDENCE, [guess.ref], ref, ref)

    def _named_elsewhere(
        self, state: AgentState, p: ParsedQuestion, weak: list[Finding], known: bool, tagged: bool = False
    ) -> Script:
        """No clear detection (or no detector label at all): the scene tags, captions or signs may still name it.
        ``tagged``: the scene tagger knows the thing the detector does not."""
        # A thing the detector knows but missed may still be what a scene looked like (a tag); a sign naming it is
        # not a sighting of it.  For a thing it has no label for, captions and signs are evidence too.
        if known:
            named = yield from self._named(p.target, head_words(p.target), ["moments"], self._window(state, p))
            hits = [f for f in named if f.text.startswith("looked like")]
        else:  # whatever shows it: a scene tag or a caption, or a sign that names it, with a margin; a sentence
            # heard about it ("the canoe paddles") is no sighting
            best, hits = yield from self._occasions_of(p.target, ["seen", "read"], weak=True, sighting=True)
            if best is not None and best.score < CLAIM_MIN:  # one weak guess: said as such, never a sighting
                yield self._weak_guess(state, p, best)
                return
        if not hits:  # "a caged parrot": a scene that looked like the cage it was in
            hits = yield from self._held_in(state, p)
        if not hits:
            if known:
                yield self._not_seen(state, p, weak)
            elif tagged:
                text = f"No, I have not seen {p.target}: my detector has no label for it, and my scene tagger, "
                yield answer(text + "which knows it, never named it.", NOT_SEEN_CONFIDENCE, value=_empty_value(p))
            else:
                yield answer(f"I cannot tell whether I saw {p.target}: my detector does not recognise it.", 0.0)
            return
        if not known and p.intent in (Intent.DURATION, Intent.COUNT) and all(h.data.get("how") == "seen" for h in hits):
            # seen by what the scene looked like on each occasion: how long or how often, as for a detection
            step = self._compose(state, p, hits)
            said = step[0]["args"]["text"]
            step[0]["args"]["text"] = f"My detector has no label for {p.target}; going by the scene tags, {said}"
            yield step
            return
        chosen = hits[0] if p.intent is Intent.FIRST else hits[-1]
        lead = f"My detector did not see {p.target} clearly" if known else f"My detector has no label for {p.target}"
        if p.intent is Intent.LAST:  # last in view when the view it was named in ended
            ref = str(chosen.data.get("view_end_ref", chosen.data.get("last_ref", chosen.ref)))
            text = (
                f"{lead}, but memory mentions it ({chosen.text}) in a view that ended {when_said(state, chosen.end)}."
            )
            yield answer(text, 0.4, _refs(hits), ref, ref)
            return
        where = f" at {xy_said(chosen.pose)}" if chosen.pose else ""
        text = f"{lead}, but memory mentions it{where} {when_said(state, chosen.stamp)} ({chosen.text})."
        value = True if p.intent is Intent.DID else None
        # first in view when the occasion it was named on began, not at its clearest frame
        ref = str(chosen.data.get("first_ref", chosen.ref)) if p.intent is Intent.FIRST else chosen.ref
        yield answer(text, 0.4, _refs(hits), ref, ref, value=value)

    def _held_in(self, state: AgentState, p: ParsedQuestion) -> Generator[Step, list[Observation], list[Finding]]:
        """Frames whose scene tags name what the thing was described as being in ("cage" of "caged parrot")."""
        for word in held_in(p.target):
            named = yield from self._named(word, word, ["moments"], self._window(state, p))
            hits = [f for f in named if f.text.startswith("looked like") and re.search(rf"\b{word}\b", f.text.lower())]
            if hits:
                return hits
        return []

    def _heard(self, state: AgentState, p: ParsedQuestion) -> Script:
        state.plan(f"find speech about {p.target}", "compose the answer")
        limit = TRANSCRIPTS_MAX if p.intent is Intent.COUNT or p.times is not None or not p.target else 8
        newest = (p.intent is Intent.LAST or (p.intent is Intent.WHERE and p.latest)) and not p.target  # the last one
        window = self._window(state, p)
        asking = {"questions": True} if speaks_of_asking(state.question) else {}  # "has anyone asked about X"
        query = call("search_transcripts", query=p.target, limit=limit, newest=newest, **asking, **window)
        obs = (yield [query])[0]
        lines = sorted(obs.result.findings, key=lambda f: f.stamp)
        bounded = window or _BOUNDED_IN_TIME.search(state.question.lower())  # grounding the target alone bounds none
        if not lines and p.target and p.intent is not Intent.COUNT and not bounded and not asking:
            # No sentence holds its words: one that says a kind of it ("swans" of "birds"), or means it.
            grounded = yield from self._grounded(state, asked_kind(state.question), True, ["heard"], p.target)
            if grounded is not None:
                yield grounded
                return
        head = head_words(p.target)
        if asking and p.intent is Intent.DID and head != p.target and all(f.data.get("unmet") for f in lines):
            # "did anyone ask about a ladder that had disappeared": a question about the ladder, however its fate was put
            obs = (yield [call("search_transcripts", query=head, limit=limit, **asking, **window)])[0]
            if obs.result.findings:
                best = min(obs.result.findings, key=lambda f: f.stamp)
                text = f'Yes, I was asked about {head}: "{best.text}" {when_said(state, best.stamp)}.'
                yield answer(text, best.score * 0.6, _refs(obs.result.findings), best.ref, value=True)
                return
        if not lines:
            yield self._not_seen(state, p, [])
            return
        if p.intent is Intent.DID and all(f.data.get("unmet") for f in lines):  # "was the drill called off": no
            unmet = ", ".join(str(w) for w in lines[0].data["unmet"])
            text = f'No: the nearest I heard was "{lines[0].text}" {when_said(state, lines[0].stamp)}, which does not '
            yield answer(text + f'say "{unmet}".', NOT_SEEN_CONFIDENCE, _refs(lines), value=False)
            return
        if p.times is not None and p.target:  # "was X mentioned more than once": by the number of sentences
            yield self._times_checked(p, lines)
            return
        if p.intent is Intent.COUNT and not p.target:  # how many messages: sentences with no pause between are one
            messages = group_runs(lines, lambda f: f.stamp, MESSAGE_GAP_S, end=lambda f: f.end)
            some = "at least " if len(lines) >= limit else ""
            text = f"I heard {some}{len(messages)} message(s): " + "; ".join(f'"{m[0].text}"' for m in messages[:5])
            yield answer(text + ".", 0.8, _refs(lines), value=len(messages))
            return
        first_one = p.intent is Intent.WHERE and not p.target and not p.latest  # where the first message was heard
        chosen = lines[0] if p.intent is Intent.FIRST or first_one else lines[-1]
        quote = f'"{chosen.text}"'
        when = when_said(state, chosen.stamp)
        confidence = chosen.score * 0.95
        if p.intent is Intent.COUNT and (said := _amount_said(state.question, lines)) is not None:
            amount, line = said  # "how many boxes were said to be waiting": the number the sentence gives
            text = f'{amount:g}: I heard "{line.text}" {when_said(state, line.stamp)}.'
            yield answer(text, line.score * 0.9, [line.ref], line.ref, line.ref, value=amount)
        elif p.intent is Intent.COUNT:
            yield answer(f"I heard it {_times(len(lines))}.", confidence, _refs(lines), value=len(lines))
        elif p.intent is Intent.DURATION:  # how long the sentences about it lasted, together
            total = sum(f.end - f.stamp for f in lines)
            text = f"About {total:.0f} s: I heard {quote} {when}" + (
                f", and {len(lines) - 1} more" if len(lines) > 1 else ""
            )
            yield answer(text + ".", confidence, _refs(lines), chosen.ref, chosen.ref, value=round(total, 1))
        elif p.intent is Intent.WHERE:
            at = chosen
            if chosen.pose is None:  # a line found by its order alone comes without the pose it was heard at
                read = (yield [call("pose_at", t=round(chosen.stamp - state.t0, 2))])[0].result.findings
                at = read[0] if read else chosen
            place = f"at {xy_said(at.pose)}" if at.pose else "(no pose recorded)"
            refs = _refs(lines) + ([at.ref] if at is not chosen else [])
            yield answer(f"I was {place} when I heard {quote}, {when}.", confidence, refs, chosen.ref, at.ref)
        elif p.intent in (Intent.FIRST, Intent.LAST):
            yield answer(f"I heard {quote} {when}.", confidence, _refs(lines), chosen.ref, chosen.ref)
        else:
            yield answer(f"Yes, I heard {quote} {when}.", confidence, _refs(lines), chosen.ref, value=True)

    def _order(self, state: AgentState, p: ParsedQuestion) -> Script:
        """Which of two things came first: each grounded in memory (restricted to how the question says they were
        met), its earliest occasion compared; the answer names what came first, then both times."""
        heard = p.modality is Modality.SPEECH
        sides = (p.target, p.other)
        arrived = any(_arrived_at(p.text, n) for n in sides)  # "... after you got to the kiosk": a visit
        if heard and not arrived and {_side_senses(p.text, n, ["heard"])[0] for n in sides} == {"heard"}:
            yield from self._heard_order(state, p)
            return
        senses = (
            ["read"]
            if p.modality is Modality.TEXT
            else ["heard"]
            if heard
            else [s.value for s in source_named(p.text, self.wordnet)]
        )
        if not senses and not arrived and modality_named(p.text) is None:
            # "Which came first, the A or the B?" says not how they were met: two messages both heard, perhaps.
            heard_a, heard_b = yield from self._first_heard(p)
            if heard_a is not None and heard_b is not None:
                yield self._heard_answer(state, p, heard_a, heard_b)
                return
        # "Which did you read more recently": the last occasions; "which came later": the first, the later named.
        recent = p.latest and _RECENTLY.search(p.text.lower()) is not None
        which = "last" if recent else "first"
        state.plan(f"find when I {which} met {p.target}", f"find when I {which} met {p.other}", "compare")
        # Each side as the verb before it says ("did you read A before you heard about B"), else as the question;
        # a question that reads as one about signs only because one side is a sign leaves the other side open.
        sense_a, sense_b = (_side_senses(p.text, name, _read_if_sign(p, name, senses)) for name in (p.target, p.other))
        edges_a = yield from self._side_edges(state, p.text, p.target, sense_a)
        first_a = edges_a[1] if recent else edges_a[0]
        edges_b = yield from self._side_edges(state, p.text, p.other, sense_b)
        first_b = edges_b[1] if recent else edges_b[0]
        if first_a is None or first_b is None:
            did, done = _verbs_of(sense_a, sense_b)
            yield self._one_side(state, did, done, (p.target, first_a), (p.other, first_b))
            return
        if p.relation == "after" and not recent and first_a.stamp < first_b.stamp:
            # "Was A seen after B?": yes where A was met again after B, though first before it.
            again = edges_a[1]
            if again is not None and again.stamp > first_b.stamp:
                verb_a, verb_b = _verb_of(sense_a), _verb_of(sense_b)
                at_b, at_a = first_b.stamp - state.t0, first_a.stamp - state.t0
                times = f"at {again.stamp - state.t0:.0f} s, after I {verb_b} {p.other} at {at_b:.0f} s"
                text = f"Yes: I {verb_a} {p.target} again {times} (and first at {at_a:.0f} s)."
                yield answer(text, min(again.score, first_b.score), [again.ref, first_b.ref], again.ref, value=True)
                return
        (early, f1), (late, f2) = sorted(((p.target, first_a), (p.other, first_b)), key=lambda nf: nf[1].stamp)
        early_senses = sense_a if early == p.target else sense_b
        verb = _verb_of(early_senses)
        times = f"{f1.stamp - state.t0:.0f} s, and {late} at {f2.stamp - state.t0:.0f} s after my memory begins"
        relation = "before" if early == p.target else "after"
        lead, named = _order_lead(p, early, late, relation, _verb_of(sense_a))
        text = f"{lead}: I {verb} {early} at {times}."
        value, text = _as_asked(p, relation, named, text)
        yield answer(text, min(f1.score, f2.score), [f1.ref, f2.ref], f1.ref, f1.ref, value=value)

    def _one_side(
        self,
        state: AgentState,
        did: str,
        done: str,
        *sides: tuple[str, Finding | None],
        unknown: str = "which came first",
    ) -> Step:
        """Two things to order (or to time apart), one (or both) not in memory: lead with what was found and when,
        then say what was not, so the answer carries what memory holds without claiming an order."""
        found = [(name, f) for name, f in sides if f is not None]
        missing = " or ".join(name for name, f in sides if f is None)
        if not found:
            return answer(f"I cannot compare them: I have not {done} {missing}.", NOT_SEEN_CONFIDENCE)
        name, first = found[0]
        text = (
            f"I first {did} {name} {when_said(state, first.stamp)}, but I have not {done} {missing}, "
            f"so I cannot say {unknown}."
        )
        return answer(text, NOT_SEEN_CONFIDENCE, [first.ref], first.ref, first.ref)

    @staticmethod
    def _scene_edge(state: AgentState, anchor: Finding, after: bool) -> Generator[Step, list[Observation], float]:
        """Where "after" (or "before") the anchor begins: the end (or start) of the scene it was seen in.  A thing
        is in view for as long as its scene lasts, though a weak model names it in only some of the frames, so what
        else that scene's frames show came with it, not after it."""
        at = anchor.end if after else anchor.stamp
        span = {"start_t": at - state.t0, "end_t": at - state.t0}
        scenes = (yield [call("timeline", what=["scenes"], limit=5, **span)])[0].result.findings  # those holding it
        return max([at, *(f.end for f in scenes)]) if after else min([at, *(f.stamp for f in scenes)])

    def _side_edges(
        self, state: AgentState, question: str, name: str, senses: list[str]
    ) -> Generator[Step, list[Observation], tuple[Finding | None, Finding | None]]:
        """The first and last occasion of one side of an order: a place the question says was got to ("had you
        been to the archive before ...") by its first and last visits, where one matches; else as met."""
        best = (yield from self._place_standing_out(name)) if _arrived_at(question, name) else None
        if best is not None:
            first, last = best.data["visits"][0], best.data["visits"][-1]
            return (
                replace(best, stamp=state.t0 + first[0], end=state.t0 + first[1]),
                replace(best, stamp=state.t0 + last[0], end=state.t0 + last[1]),
            )
        return (yield from self._seen_edges(name, senses))

    @staticmethod
    def _place_standing_out(about: str) -> Generator[Step, list[Observation], Finding | None]:
        """The place that matches ``about`` well and ahead of the next by the margin, else None."""
        found = (yield [call("places", about=about)])[0].result.findings
        return found[0] if _stands_out(found) else None

    def _first_arrival(self, state: AgentState, said: str) -> Generator[Step, list[Observation], Finding | None]:
        """The first visit to the place a clause says the robot got to ("you reached the kiosk"), where one stands
        out; None for anything else."""
        arrived = _GOT_TO.match(said)
        best = (yield from self._place_standing_out(arrived["place"])) if arrived else None
        if best is None:
            return None
        start, _ = best.data["visits"][0]
        return replace(best, stamp=state.t0 + start, end=state.t0 + start)

    def _first_seen(
        self, name: str, senses: list[str] | None = None, latest: bool = False
    ) -> Generator[Step, list[Observation], Finding | None]:
        """The first (or with ``latest`` the last) occasion something was met: detected (where nothing restricts
        it to words read or heard), or the earliest occasion of what its description is grounded in: a sign, a
        sentence, a tag or a caption."""
        first, last = yield from self._seen_edges(name, senses)
        return last if latest else first

    def _seen_edges(
        self, name: str, senses: list[str] | None = None
    ) -> Generator[Step, list[Observation], tuple[Finding | None, Finding | None]]:
        """The first and the last occasion something was met, as ``_first_seen`` finds them."""
        if (not senses or senses == ["seen"]) and bears_text(head_words(name)):
            # "the lunch board": a thing that bears words is met where they were read, not where a detector
            # saw something of the same name (a dining table is a "board" too)
            _, read = yield from self._occasions_of(name, ["read"])
            if read:
                return read[0], read[-1]
        if not senses or senses == ["seen"]:
            obs = (yield [call("find_object", name=name)])[0]
            occasions = [f for f in obs.result.findings if f.kind == "occasion"]
            if occasions:
                return occasions[0], max(occasions, key=lambda f: f.stamp)
        # A thing said to be seen counts only where a record names it: a tag that means something like it is no
        # sighting (a zebra is not a striped cat).
        _, grounded = yield from self._occasions_of(name, senses or [], sighting=senses == ["seen"])
        return (grounded[0], grounded[-1]) if grounded else (None, None)

    @staticmethod
    def _named(
        query: str, words: str, sources: list[str], window: dict[str, float]
    ) -> Generator[Step, list[Observation], list[Finding]]:
        """Frames, events or signs whose tags, caption or text mention ``words``, oldest first."""
        obs = (yield [call("search", query=query, sources=sources, limit=20, **window)])[0]
        return sorted((f for f in obs.result.findings if _mentions(f, words)), key=lambda f: f.stamp)

    def _heard_order(self, state: AgentState, p: ParsedQuestion) -> Script:
        """Which of two things was heard first: the earliest sentence about each."""
        state.plan(f"find when I first heard about {p.target}", f"find when I first heard about {p.other}", "compare")
        first_a, first_b = yield from self._first_heard(p)
        if first_a is None or first_b is None:
            yield self._one_side(state, "heard about", "heard about", (p.target, first_a), (p.other, first_b))
            return
        yield self._heard_answer(state, p, first_a, first_b)

    @staticmethod
    def _first_heard(p: ParsedQuestion) -> Generator[Step, list[Observation], tuple[Finding | None, Finding | None]]:
        """The earliest sentence heard about each of the two things: the earliest holding its words, else the
        message it is grounded in where one stands out (by words, numbers spelled out or not, or meaning)."""
        a, b = yield [call("search_transcripts", query=p.target), call("search_transcripts", query=p.other)]
        first = [min(side.result.findings, key=lambda f: f.stamp, default=None) for side in (a, b)]
        missing = [k for k, found in enumerate(first) if found is None]
        if missing:
            grounded = yield [
                call("ground", description=(p.target, p.other)[k], how=["heard"], limit=3) for k in missing
            ]
            for k, side in zip(missing, grounded, strict=True):
                first[k] = next((f for f in side.result.findings if f.data.get("claimed")), None)
        return first[0], first[1]

    @staticmethod
    def _heard_answer(state: AgentState, p: ParsedQuestion, first_a: Finding, first_b: Finding) -> Step:
        (early, f1), (late, f2) = sorted(((p.target, first_a), (p.other, first_b)), key=lambda nf: nf[1].stamp)
        relation = "before" if early == p.target else "after"
        lead, named = _order_lead(p, early, late, relation, "heard about")
        text = (
            f'{lead}: I heard "{f1.text}" at {f1.stamp - state.t0:.0f} s, '
            f'and "{f2.text}" about {late} at {f2.stamp - state.t0:.0f} s after my memory begins.'
        )
        value, text = _as_asked(p, relation, named, text)
        return answer(text, min(f1.score, f2.score), [f1.ref, f2.ref], f1.ref, f1.ref, value=value)

    def _neighbour(self, state: AgentState, p: ParsedQuestion) -> Script:
        """What was seen (or read) just before or just after the first occasion of something."""
        after = p.intent is Intent.AFTER
        if p.modality is Modality.SPEECH:
            yield from self._heard_next(state, p, after)
            return
        state.plan(f"find when I first saw {p.other}", f"list what came {'after' if after else 'before'} it")
        arrival = yield from self._first_arrival(state, p.other)  # "just before you got to the kiosk"
        anchor = arrival or (yield from self._first_seen(p.other, _side_senses(p.text, p.other, []) or None))
        if anchor is None:
            yield answer(f"I have not seen {p.other}, so I cannot say what came around it.", NOT_SEEN_CONFIDENCE)
            return
        what = "text" if p.modality is Modality.TEXT else "objects"
        # the moment of getting there, else the edge of the view that held the thing
        edge_at = arrival.stamp if arrival else (yield from self._scene_edge(state, anchor, after))
        edge = edge_at - state.t0
        window = (
            (edge + 0.01, edge + NEIGHBOUR_WINDOW_S) if after else (max(0.0, edge - NEIGHBOUR_WINDOW_S), edge - 0.01)
        )
        # a sign is a thing looked at as much as an object is: "what did you see before X" may be a notice
        kinds = ["text"] if what == "text" else ["objects", "text"]
        obs = (yield [call("timeline", start_t=window[0], end_t=window[1], what=kinds, limit=50)])[0]
        # Not the thing itself (a sign's other readings and clipped parts of it are the sign), not what was in view
        # together with it (a frame's other detections are not "after" it), and not a thing detected in one frame
        # only where others were seen over several (a detector's passing mistake).
        apart = [
            f
            for f in obs.result.findings
            if not _same_thing(f, anchor) and (f.stamp > edge_at if after else f.end < edge_at)
        ]
        steady = [f for f in apart if int(f.data.get("frames", 1)) > 1]
        others = steady or apart
        if not others and what == "objects":  # nothing detected near it: the view next to it, by its caption
            scenes = (yield [call("timeline", start_t=window[0], end_t=window[1], what=["scenes"], limit=50)])[0]
            scene = _adjacent_scene(scenes.result.findings, edge_at, after)
            if scene is not None:
                yield self._scene_answer(state, p, anchor, scene, after)
                return
        if not others:
            where = "after" if after else "before"
            yield answer(
                f"I did not {'read' if what == 'text' else 'see'} anything {where} {p.other}.", 0.3, [anchor.ref]
            )
            return
        nearest = others[0] if after else others[-1]
        # Everything in view together with the nearest occasion, the most often seen first.
        together = sorted(
            (f for f in others if f.stamp <= nearest.end and f.end >= nearest.stamp),
            key=lambda f: -int(f.data.get("frames", 1)),
        )
        names = list(dict.fromkeys(str(f.data.get("label") or f.data.get("read") or f.text) for f in together))
        if what == "text":  # a reading clipped at the frame's edge ("FLOOR") by the sign's fullest reading nearby
            read = [str(f.data.get("read") or f.text) for f in others]
            names = list(dict.fromkeys(max((r for r in read if squash(n) in squash(r)), key=len) for n in names))
        names = [n for n in names if re.search(r"[^\W_]{2}", n)] or names  # not a reading of stray marks ("(((")
        verb = "read" if what == "text" else "saw"
        relation = "after" if after else "before"
        listed = " and ".join(f'"{n}"' for n in names[:4])
        text = f"Right {relation} {p.other}, I {verb} {listed} {when_said(state, nearest.stamp)}."
        refs = [anchor.ref, *(f.ref for f in together[:4])]
        yield answer(text, nearest.score * 0.9, refs, nearest.ref, nearest.ref, value=names[0])

    def _heard_next(self, state: AgentState, p: ParsedQuestion, after: bool) -> Script:
        """What was said right after (or before) the first sentence heard about something: the next sentence."""
        relation = "after" if after else "before"
        state.plan(f"find when I first heard about {p.other}", f"find what was said right {relation} it")
        about = (yield [call("search_transcripts", query=p.other)])[0].result.findings
        anchor = min(about, key=lambda f: f.stamp, default=None)
        if anchor is None:
            yield answer(f'I have not heard anything about "{p.other}".', NOT_SEEN_CONFIDENCE)
            return
        span = {"start_t": anchor.end - state.t0 + 0.01} if after else {"end_t": anchor.stamp - state.t0 - 0.01}
        obs = (yield [call("search_transcripts", query="", limit=1, newest=not after, **span)])[0]
        said = obs.result.findings
        if not said:
            yield answer(f'I heard nothing {relation} "{anchor.text}".', 0.3, [anchor.ref])
            return
        line = said[0]
        text = f'Right {relation} "{anchor.text}", I heard "{line.text}" {when_said(state, line.stamp)}.'
        yield answer(text, 0.8 * line.score, [anchor.ref, line.ref], line.ref, line.ref, value=line.text)

    def _scene_answer(self, state: AgentState, p: ParsedQuestion, anchor: Finding, scene: Finding, after: bool) -> Step:
        """The view right before or after a thing, where it showed nothing the detector names: its caption."""
        relation = "after" if after else "before"
        text = f"Right {relation} {p.other}, {when_said(state, scene.stamp)}: {scene.text}"
        value = str((scene.data.get("seen") or [scene.text])[0])
        return answer(text, 0.5, [anchor.ref, scene.ref], scene.ref, scene.ref, value=value)

    def _active(self, state: AgentState) -> Step:
        """How long the robot has been at it: from the start of memory to the question's moment."""
        assert self.span is not None
        now = state.as_of if state.as_of is not None else self.span[1]
        seconds = max(0.0, now - state.t0)
        text = f"For {seconds:.0f} s ({seconds / 60:.1f} min): my memory begins {seconds:.0f} s before this question."
        return answer(text, 0.9, value=round(seconds, 1))

    def _place(self, state: AgentState, p: ParsedQuestion) -> Script:
        """Visits to a place found by its description: how many, how long, which place came before or after."""
        about = p.other if p.intent in (Intent.BEFORE, Intent.AFTER) else p.target
        counted = places_counted(state.question)
        # "how many visits?" counts every stay, unless the question's topic names the place ("the boathouse - how
        # many visits?"): then the visits to it
        if p.intent is Intent.COUNT and (not about or (counted is not None and counted.target)):
            yield from self._count_places(state, p)
            return
        state.plan(f"find the place that matches {about}", "compose the answer")
        obs = (yield [call("places", about=about, **self._window(state, p))])[0]
        found = obs.result.findings
        # "How long were you in X" presumes X was visited: the best match answers.  "Have you been to X" does not:
        # a yes needs a place that matches well and stands out from the next one.
        if p.intent is Intent.DID:
            best = found[0] if _stands_out(found) else None
        elif p.ordinal < 0 and not about:  # "how long have you been here": the place of the latest stay
            best = max(found, key=lambda f: f.data["visits"][-1][1], default=None)
        else:
            best = found[0] if found and found[0].score >= PLACE_MATCH_MIN else None
        # "How long have you been on duty", "... on this circuit (which names no place I stayed at)": since memory
        # began.
        if p.intent is Intent.DURATION and _ON_IT_SINCE.search(state.question.lower()):
            note = obs.result.note
            if NAMES_ONLY_ACTIVITY in note or (best is None and NAMES_ACTIVITY in note):
                yield self._active(state)
                return
        if best is None:
            why = "my path shows no place I stayed at" if not found else f"no place I stayed at matches {about}"
            value = (
                False if p.intent is Intent.DID and found else None
            )  # "have you been there?": not as far as I can tell
            yield answer(f"I cannot tell: {why}.", NOT_SEEN_CONFIDENCE, _refs(found[:1]), value=value)
            return
        visits = best.data["visits"]
        confidence = min(0.9, best.score)
        if p.intent in (Intent.BEFORE, Intent.AFTER) and not p.ordinal and _RETURNED.search(state.question.lower()):
            p = replace(p, ordinal=-1)  # "before coming back to the boathouse": around the latest visit, not the first
        if p.ordinal and p.intent is not Intent.COUNT:  # "the second time": that visit alone
            if len(visits) < p.ordinal:
                text = f"I was at {_place_name(best)} only {_visits(len(visits))}."
                yield answer(text, confidence, [best.ref], place_ref=best.ref, value=_empty_value(p))
                return
            start, end = _nth(visits, p.ordinal)
            best = replace(best, data={**best.data, "visits": [(start, end)], "dwell_s": end - start})
            visits = best.data["visits"]
        if p.intent in (Intent.DID, Intent.FIRST, Intent.LAST, Intent.WHERE):
            yield from self._visit_time(state, p, best, confidence)
        elif p.intent is Intent.COUNT:
            spans = ", ".join(f"{a:.0f}-{b:.0f} s" for a, b in visits)
            text = f"I was at {_place_name(best)} {_visits(len(visits))} ({spans} after my memory begins)."
            yield answer(text, confidence, [best.ref], place_ref=best.ref, value=len(visits))
        elif p.intent is Intent.DURATION and p.leaving:
            yield self._away(best, confidence, p.ordinal)
        elif p.intent is Intent.DURATION:
            dwell = float(best.data["dwell_s"])
            over = "one visit" if len(visits) == 1 else f"{len(visits)} visits"
            text = f"I spent about {dwell:.0f} s at {_place_name(best)}, over {over}."
            yield answer(text, confidence, [best.ref], place_ref=best.ref, value=round(dwell, 1))
        else:
            yield self._next_place(found, best, after=p.intent is Intent.AFTER, confidence=confidence)

    @staticmethod
    def _away(place: Finding, confidence: float, ordinal: int) -> Step:
        """How long the robot was away from a place between leaving it and coming back (after the visit named by
        order, else the first)."""
        visits = place.data["visits"]
        name = _place_name(place)
        if len(visits) < 2:
            return answer(
                f"I did not come back to {name}: I was there {_visits(len(visits))}.", confidence, [place.ref]
            )
        n = min(max(ordinal, 1), len(visits) - 1)
        (_, left), (back, _) = visits[n - 1], visits[n]
        text = f"About {back - left:.0f} s: I left {name} at {left:.0f} s and came back at {back:.0f} s."
        return answer(text, confidence, [place.ref], place_ref=place.ref, value=round(back - left, 1))

    def _count_places(self, state: AgentState, p: ParsedQuestion) -> Script:
        """How many places the robot stayed at, or (where stops or visits are counted) how many stays."""
        state.plan("list the places I stayed at", "count them")
        about = f"place with {p.target}" if p.target else ""  # where the thing was met, as the places tool reads it
        obs = (yield [call("places", about=about, **self._window(state, p))])[0]
        found = obs.result.findings
        if p.target and re.fullmatch(BEARER, p.target):  # "places with a sign": where words were read
            found = [f for f in found if _READ_THERE.search(f.text)]
        elif p.target:  # "places with a kite": where it matches what was met
            found = [f for f in found if f.score >= CLAIM_MIN]
        if p.target and not found:
            listed = len(obs.result.findings)
            text = f"0: none of the {listed} places I stayed at had {p.target}."
            yield answer(text, 0.5, _refs(obs.result.findings), value=0)
            return
        stays = sum(len(f.data["visits"]) for f in found)
        each = ", ".join(_place_and_visits(f) for f in found if f.pose is not None)
        n = stays if counts_stays(state.question) else len(found)
        text = f"{n}: I stayed at {len(found)} different place{'' if len(found) == 1 else 's'}, {stays} stay"
        text += f"{'' if stays == 1 else 's'} in all" + (f": around {each}." if each else ".")
        yield answer(text, 0.8 if found else NOT_SEEN_CONFIDENCE, _refs(found), value=n)

    def _route(self, state: AgentState, p: ParsedQuestion) -> Script:
        """Where the robot stayed, stop by stop in order, or the one stop the question names by its order."""
        state.plan("list the places I stayed at", "put my stops in order")
        obs = (yield [call("places", about="", **self._window(state, p))])[0]
        stops = sorted(((a, b, f) for f in obs.result.findings for a, b in f.data["visits"]), key=lambda s: s[0])
        if not stops:
            yield answer("I cannot tell: my path shows no place I stayed at.", NOT_SEEN_CONFIDENCE, value=None)
            return
        places = len(obs.result.findings)
        if p.ordinal:
            if abs(p.ordinal) > len(stops):
                text = f"I made only {len(stops)} stop{'' if len(stops) == 1 else 's'}."
                yield answer(text, 0.6, _refs([f for _, _, f in stops]), value=None)
                return
            start, end, place = _nth(stops, p.ordinal)
            which = "last" if p.ordinal < 0 else _ORDINAL_WORDS.get(p.ordinal, str(p.ordinal))
            name = _place_name(place)
            text = f"My {which} stop, of {len(stops)}, was {name}, from {start:.0f} s to {end:.0f} s after my memory"
            text += " begins."
            yield answer(text, 0.8, [place.ref], place.ref, place.ref, value=name)
            return
        listed = "; ".join(f"{i}. {a:.0f}-{b:.0f} s: {_place_brief(f)}" for i, (a, b, f) in enumerate(stops, 1))
        text = f"I made {len(stops)} stop{'' if len(stops) == 1 else 's'} at {places} different place"
        text += f"{'' if places == 1 else 's'}, in this order (seconds after my memory begins): {listed}."
        yield answer(text, 0.8, _refs(obs.result.findings), value=places)

    def _visit_time(self, state: AgentState, p: ParsedQuestion, place: Finding, confidence: float) -> Script:
        """Whether, when first or last, and where the robot was at a place: its first (or last) visit's start."""
        start, end = place.data["visits"][-1 if p.intent is Intent.LAST else 0]
        name = _place_name(place)
        if p.leaving:  # "when did you leave X": the end of that visit, cited by the path there
            at = (yield [call("pose_at", t=end)])[0].result.findings
            ref = at[0].ref if at else place.ref
            which = {Intent.FIRST: "first ", Intent.LAST: "last "}.get(p.intent, "")
            text = f"I {which}left {name} {when_said(state, state.t0 + end)}, after {end - start:.0f} s there."
            yield answer(text, confidence, [place.ref, ref], ref, place.ref)
            return
        if p.intent is Intent.WHERE:
            text = f"{name[0].upper()}{name[1:]}, first from {start:.0f} s to {end:.0f} s after my memory begins."
            yield answer(text, confidence, [place.ref], place.ref, place.ref, value=name)
            return
        ref = place.ref  # its time is the first visit's start
        if (p.intent is Intent.LAST and len(place.data["visits"]) > 1) or p.ordinal > 1:
            at = (yield [call("pose_at", t=start)])[0].result.findings  # the kept frame nearest the last visit's start
            ref = at[0].ref if at else ref
        which = {Intent.FIRST: "first ", Intent.LAST: "last "}.get(p.intent, "")
        if p.ordinal > 1:
            which = f"for the {_ORDINAL_WORDS.get(p.ordinal, str(p.ordinal))} time "
        text = f"I {which}got to {name} {when_said(state, state.t0 + start)} and stayed until {end:.0f} s."
        if p.intent is Intent.DID:
            text = f"Yes. {text}"
        value = True if p.intent is Intent.DID else None
        yield answer(text, confidence, [place.ref, ref], ref, place.ref, value=value)

    @staticmethod
    def _next_place(found: list[Finding], anchor: Finding, after: bool, confidence: float) -> Step:
        """The place visited right after (or before) the anchor place's first visit."""
        start, end = anchor.data["visits"][0]
        sequence = sorted((a, b, f) for f in found if f.ref != anchor.ref for a, b in f.data["visits"])
        nearest = next((f for a, _, f in sequence if a >= end), None) if after else None
        if not after:
            nearest = next((f for _, b, f in reversed(sequence) if b <= start), None)
        relation = "after" if after else "before"
        if nearest is None:
            return answer(f"I stayed nowhere {relation} {_place_brief(anchor)}.", 0.3, [anchor.ref])
        # Each place at a glance: its whole description would quote what was read and heard there of other places.
        text = f"Right {relation} {_place_brief(anchor)}, I went to {_place_brief(nearest)}."
        brief = str(nearest.data.get("brief", "")) or nearest.text
        return answer(text, confidence, [nearest.ref, anchor.ref], place_ref=nearest.ref, value=brief)

    def _what(self, state: AgentState, p: ParsedQuestion) -> Script:
        if p.now:
            obs = (yield [call("recent_frames", limit=8)])[0]
            labels = sorted({x for f in obs.result.findings for x in f.data.get("seen", [])})
            texts = sorted({x for f in obs.result.findings for x in f.data.get("read", [])})
            text = "In view now: " + (", ".join(labels) or "nothing my detector recognises")
            text += f"; text: {', '.join(texts)}." if texts else "."
            yield answer(text, 0.8, _refs(obs.result.findings[-3:]), value=", ".join(labels))
            return
        window = self._window(state, p)
        obs = (yield [call("timeline", what=["objects", "text"], limit=50, **window)])[0]
        found = obs.result.findings
        if not found:
            nav = (yield [call("navigate", ref="root")])[0]
            summaries = [f.text for f in nav.result.findings if f.text]
            yield answer(summaries[0] if summaries else "I recorded nothing I can name in that time.", 0.3)
            return
        seen = _counted([str(f.data.get("label")) for f in found if "label" in f.data])
        signs = _first_of_each([f for f in found if "read" in f.data])  # each sign once, however it was read
        read = ", ".join(f'"{f.data["read"]}"' for f in signs)
        parts = [f"I saw {seen}" if seen else "", f"I read {read}" if read else ""]
        yield answer("; ".join(x for x in parts if x) + ".", 0.8, _refs(found))

    def _anything(self, state: AgentState, p: ParsedQuestion) -> Script:
        """Whether anything at all was seen, read or heard (in the question's window): yes with what it was."""
        what = {Modality.TEXT: ["text"], Modality.SPEECH: ["speech"]}.get(p.modality, ["objects", "text"])
        obs = (yield [call("timeline", what=what, limit=50, **self._window(state, p))])[0]
        found = obs.result.findings
        if p.modality is Modality.SPEECH and speaks_of_asking(state.question):  # "has anyone asked you anything"
            found = [f for f in found if asks_something(f.text)]
        verb = {Modality.TEXT: "read", Modality.SPEECH: "heard"}.get(p.modality, "saw")
        if not found:
            yield answer(f"No, I {verb} nothing then.", NOT_SEEN_CONFIDENCE, value=False)
            return
        seen = list(dict.fromkeys(str(f.data["label"]) for f in found if "label" in f.data))
        read = distinct_signs([str(f.data["read"]) for f in found if "read" in f.data])
        heard = [f.text for f in found if f.kind == "transcript"]
        names = ", ".join([*seen, *(f'"{x}"' for x in [*read, *heard])])
        latest = found[-1]
        text = f"Yes, I {verb} {names}; most recently {when_said(state, latest.stamp)}."
        yield answer(text, 0.8, _refs(found), latest.ref, latest.ref, value=True)

    def _first_thing(self, state: AgentState, p: ParsedQuestion) -> Script:
        """The first (or last) thing seen at all: the earliest (or latest) occasion of anything detected."""
        obs = (yield [call("timeline", what=["objects"], limit=50, **self._window(state, p))])[0]
        found = [f for f in obs.result.findings if "label" in f.data]
        if not found:
            yield answer("I have seen nothing my detector recognises.", NOT_SEEN_CONFIDENCE)
            return
        which = "first" if p.intent is Intent.FIRST else "last"
        edge = found[0] if p.intent is Intent.FIRST else max(found, key=lambda f: f.end)
        label = str(edge.data["label"])
        first = p.intent is Intent.FIRST
        ref = str(edge.data.get("first_ref" if first else "last_ref", edge.ref))
        text = f"The {which} thing I saw was {label}, {when_said(state, edge.stamp if first else edge.end)}."
        yield answer(text, 0.8 * edge.score, [edge.ref, ref], ref, ref, value=label)

    def _count_read(self, state: AgentState, p: ParsedQuestion) -> Script:
        """How many signs were read, no sign named: the different signs, a reading clipped at the frame's edge
        being the same sign as its whole reading."""
        obs = (yield [call("timeline", what=["text"], limit=50, **self._window(state, p))])[0]
        found = obs.result.findings
        signs = distinct_signs([str(f.data.get("read", f.text)) for f in found])
        n = len(signs)
        listed = ", ".join(f'"{s}"' for s in signs)
        text = f"{n}: I read {n} different sign{'' if n == 1 else 's'}" + (f": {listed}." if signs else ".")
        yield answer(text, 0.7 if signs else NOT_SEEN_CONFIDENCE, _refs(found), value=n)

    def _read(self, state: AgentState, p: ParsedQuestion) -> Script:
        """What was read: out of the sign the question describes ("what did the notice by the shutter say"), else
        everything read."""
        words = asked_words(state.question)
        nth = _NTH_SIGN.search(interrogative(state.question))
        beside = thing_beside(state.question)
        if beside and p.window is None and not nth:
            read = yield from self._read_beside(state, p, beside)
            if read:
                return
        if words and p.window is None and not nth:
            read = yield from self._read_out(state, words)
            if read:
                return
        obs = (yield [call("timeline", what=["text"], limit=50, **self._window(state, p))])[0]
        found = obs.result.findings
        if not found:
            yield answer("I have not read any text.", NOT_SEEN_CONFIDENCE, value="")
            return
        if nth:  # "what did the last sign you read say": that sign, by its fullest reading
            word = nth.group(1) or nth.group(2)
            yield self._nth_sign(state, found, -1 if word == "last" else _NTH_WORDS.get(word, 1))
            return
        latest = found[-1]
        texts = _counted([f'"{f.data["read"]}"' for f in found])
        text = f'I read {texts}; most recently "{latest.data["read"]}" {when_said(state, latest.stamp)}.'
        yield answer(text, max(f.score for f in found), _refs(found), latest.ref, latest.ref, value=latest.data["read"])

    def _unseen_bearer(self, state: AgentState) -> Generator[Step, list[Observation], bool]:
        """Whether the thing a question says words were on ("what was printed on the bus") is one the detector
        knows and never saw: then nothing was read on it, whatever was read elsewhere (answered so)."""
        found = _WRITTEN_ON.search(state.question.lower())
        thing = found["x"] if found else ""
        head = thing.split()[-1] if thing else ""
        if not head or re.fullmatch(rf"{BEARER}s?", head):
            return False
        if self.wordnet is not None and bears_words(self.wordnet, self.wordnet.base_form(head)):
            return False
        obs = (yield [call("find_object", name=thing)])[0]
        if any(f.kind == "occasion" for f in obs.result.findings) or "cannot recognise" in obs.result.note:
            return False
        yield answer(
            f"I have not seen {thing}, so I cannot tell what was written on it.", NOT_SEEN_CONFIDENCE, value=""
        )
        return True

    def _read_beside(
        self, state: AgentState, p: ParsedQuestion, thing: str
    ) -> Generator[Step, list[Observation], bool]:
        """What the sign beside a thing said ("the notice by the trolley"): the signs read while the thing was in
        view, on the occasion the question names ("the first time you met it"), else on each.  False when the
        detector cannot tell the thing, or nothing was read while it was in view."""
        state.plan(f"find when {thing} was in view", "list the signs read meanwhile", "compose the answer")
        obs = (yield [call("find_object", name=thing)])[0]
        seen = sorted((f for f in obs.result.findings if f.kind == "occasion"), key=lambda f: f.stamp)
        n = p.ordinal or (1 if first_occasion_named(state.question) else 0)
        if not seen and "cannot recognise" not in obs.result.note:  # a thing the detector knows, never seen
            yield answer(f"I have not seen {thing}, so I read no sign beside it.", NOT_SEEN_CONFIDENCE, value="")
            return True
        if not seen or n > len(seen):
            return False
        signs: list[tuple[str, Finding]] = []
        for occasion in [seen[n - 1]] if n else seen:
            window = {"start_t": occasion.stamp - state.t0, "end_t": occasion.end - state.t0}
            read = (yield [call("timeline", what=["text"], limit=50, **window)])[0].result.findings
            sign = _main_sign(read)
            if sign is not None and all(text_match(sign[0], s) < SAME_SIGN for s, _ in signs):
                signs.append(sign)
        if not signs:
            return False
        (first, reading), others = signs[0], signs[1:]
        text = f'{first}: the sign I read while {thing} was in view said "{first}", {when_said(state, reading.stamp)}'
        also = "; ".join(f'"{s}" {when_said(state, f.stamp)}' for s, f in others)
        text += f"; on other occasions with {thing} in view I read {also}." if also else "."
        refs = [f.ref for _, f in signs]
        yield answer(text, 0.5 if others else 0.6, refs, reading.ref, reading.ref, value=first)
        return True

    def _nth_sign(self, state: AgentState, found: list[Finding], n: int) -> Step:
        """The n-th sign read (-1: the last), named by its fullest reading (a clipped one is that sign); a sign
        read again later keeps its first place."""
        signs = distinct_signs([str(f.data["read"]) for f in found])
        ordered = found if n > 0 else list(reversed(found))
        met: list[tuple[str, Finding]] = []  # each sign with its first (or, for the last, latest) reading
        for f in ordered:
            sign = max((s for s in signs if text_match(str(f.data["read"]), s) >= SAME_SIGN), key=len, default="")
            sign = sign or str(f.data["read"])
            if all(text_match(sign, s) < SAME_SIGN for s, _ in met):
                met.append((sign, f))
        which = _ORDINAL_WORDS.get(n, "last") if n > 0 else "last"
        if abs(n) > len(met):
            return answer(f"I read only {len(met)} different sign(s).", 0.5, _refs(found[:5]), value="")
        sign, hit = met[abs(n) - 1]
        text = f'The {which} sign I read said "{sign}", {when_said(state, hit.stamp)}.'
        return answer(text, hit.score, [hit.ref], hit.ref, hit.ref, value=sign)

    def _said(self, state: AgentState, p: ParsedQuestion) -> Script:
        obs = (yield [call("search_transcripts", query=p.target, limit=10, **self._window(state, p))])[0]
        lines = sorted(obs.result.findings, key=lambda f: f.stamp)
        reworded = 1.0
        if not lines and p.target and p.window is not None:
            # "What did the woman say a minute ago was broken": what was said then, however it was put ("cracked").
            obs = (yield [call("search_transcripts", query="", limit=10, **self._window(state, p))])[0]
            lines, reworded = sorted(obs.result.findings, key=lambda f: f.stamp), REWORDED
        if not lines:
            about = f" about {p.target}" if p.target else ""
            yield answer(f"I have not heard anything{about}.", NOT_SEEN_CONFIDENCE, value="")
            return
        best = max(lines, key=lambda f: (f.score, f.stamp))
        if p.target:
            text = f'I heard "{best.text}" {when_said(state, best.stamp)}.'
        else:
            text = "I heard: " + "; ".join(f'"{f.text}" at {f.stamp - state.t0:.0f} s' for f in lines[-5:]) + "."
        yield answer(text, best.score * 0.95 * reworded, _refs(lines), best.ref, best.ref, value=best.text)

    def _search(self, state: AgentState) -> Script:
        """A question outside the known phrasings: search its words; drill down from summaries if nothing matches."""
        words = content_words(without_lead_in(state.question))[:12]
        asks_name = asked_kind(state.question) is Asked.NAME
        kind = _KIND_ASKED.match(interrogative(state.question))
        sources = source_named(state.question, self.wordnet)
        said = (  # "which room ... in the message", "according to the timetable, which surgeon ...": what it says
            sources == [Sense.HEARD]
            or re.search(rf"\b{MESSAGES}", state.question.lower()) is not None
            or cites_a_source(state.question)
            # "the porter reported a leak: which tap ...": a thing someone said or wrote of, not every one met
            or (Sense.HEARD in sources and not _BY_WRITING.search(state.question.lower()))
        )
        if kind and asks_name and not said:
            named = yield from self._kinds(state, kind.group("kind"))
            if named:
                return
        if words and asks_name:
            read = yield from self._read_out(state, words)
            if read:
                return
        asked = asked_kind(state.question)
        if words and asked is not Asked.NAME:
            grounded = yield from self._grounded(state, asked)
            if grounded is not None:
                yield grounded
                return
        state.plan("search memory for the question's words", "drill down from summaries", "compose")
        if words:
            obs = (yield [call("search", query=" ".join(words), limit=6)])[0]
            hits = [f for f in obs.result.findings if f.score >= 0.3]
            if hits:
                lines = "; ".join(f"{f.ref} ({f.text[:80]})" for f in hits[:3])
                text = f"I did not understand the question exactly; the closest things in memory are: {lines}."
                yield answer(text, 0.2, _refs(hits))
                return
        nav = (yield [call("navigate", ref="root")])[0]
        periods = [f for f in nav.result.findings if f.kind == "super_event"]
        best = max(periods, key=lambda f: _overlap(words, f.text), default=None)
        if best is not None and _overlap(words, best.text) > 0:
            detail = (yield [call("navigate", ref=best.ref)])[0]
            events = [f for f in detail.result.findings if f.kind == "event" and _overlap(words, f.text) > 0]
            if events:
                text = f"I did not understand the question exactly; the closest event in memory: {events[0].text}."
                yield answer(text, 0.2, [best.ref, events[0].ref])
                return
        text = (
            "I could not find anything in memory about that. I answer questions such as: did you see X, when did "
            "you first / last see X, where did you see X, how many times, how long, what did you read or hear, "
            "what did you see before or after X."
        )
        yield answer(text, 0.0)

    def _grounded(
        self,
        state: AgentState,
        asked: Asked,
        claimed_only: bool = False,
        senses: list[str] | None = None,
        about: str = "",
    ) -> Generator[Step, list[Observation], Step | None]:
        """The answer to a question read as a whole (or about one thing it names): what its description is
        grounded in, given as the kind of value its grammar asks for (a time, a position, yes or no, a count or a
        duration).  None when nothing grounds it (or, with ``claimed_only``, nothing stands out)."""
        state.plan("ground the question's description in memory", f"give the {asked.value} it asks for")
        described = " ".join(asked_words(about or state.question)) or about or state.question
        how = senses if senses is not None else [s.value for s in source_named(state.question, self.wordnet)]
        listed = counted_phrase(state.question) if asked is Asked.COUNT and lists_on_a_sign(state.question) else ""
        best: Finding | None = None
        occasions: list[Finding] = []
        if asked is Asked.YES_NO:  # "did she say that something in the boiler room leaked": heard there, of it
            best, occasions = yield from self._at_place_named(state, described, how)
        if best is None:
            best, occasions = yield from self._occasions_of(described, how, field=listed)
        if best is None or (claimed_only and not best.data.get("claimed")):
            if asked is Asked.YES_NO and not claimed_only:
                return answer("No, nothing I remember matches that.", NOT_SEEN_CONFIDENCE, value=False)
            return None
        sure = 0.7 if best.data.get("claimed") else 0.4
        verb = {"read": "read", "heard": "heard"}.get(str(best.data.get("how")), "saw")
        what = f'"{best.text}"' if verb != "saw" else best.text.rstrip(". ")
        if verb == "saw" and what.lower().startswith("looked like "):  # a scene's tags: "what looked like X"
            what = f"what l{what[1:]}"
        first, last = occasions[0], occasions[-1]
        refs = _refs(occasions)
        confidence = sure * best.score
        if asked is Asked.TIME:  # the start of the first occasion, or the end of the last (its last record)
            early = _FIRST_WORDS.search(state.question.lower()) is not None
            ref = str(first.data.get("first_ref", first.ref) if early else last.data.get("last_ref", last.ref))
            stamp = first.stamp if early else last.end
            if verb == "heard":  # a sentence was heard when it was said: its start
                ref, stamp = (first.ref, first.stamp) if early else (last.ref, last.stamp)
            if ref == (first.ref if early else last.ref) and (first.end if early else last.stamp) != stamp:
                # An occasion cited by its best frame only: the moment is cited as read along the path at its edge.
                at = (yield [call("pose_at", t=stamp - state.t0)])[0].result.findings
                ref = at[0].ref if at else ref
            which = "first" if early else "last"
            text = f"{stamp - state.t0:.0f} s: I {which} {verb} {what} {when_said(state, stamp)}."
            return answer(text, confidence, [ref, *refs], ref, ref)
        if asked is Asked.POSITION:
            pose, place_ref = best.pose, best.ref
            if pose is None:  # a sentence heard has no pose of its own: where the robot was when it was said
                at = (yield [call("pose_at", t=best.stamp - state.t0)])[0].result.findings
                pose, place_ref = (at[0].pose, at[0].ref) if at else (None, place_ref)
            where = xy_said(pose) if pose else "a place I have no pose for"
            text = f"At {where}: I {verb} {what} there {when_said(state, best.stamp)}."
            return answer(text, confidence, refs, best.ref, place_ref)
        other_days = _other_dates(state.question, best.text) if verb != "saw" else []
        if asked is Asked.YES_NO and other_days:  # "does it open on Fridays" of a notice that says Tuesdays
            text = f'No: I {verb} {what} {when_said(state, best.stamp)}, which says "{other_days[0]}"'
            return answer(
                text + f', not "{other_days[1]}".', NOT_SEEN_CONFIDENCE, refs, best.ref, best.ref, value=False
            )
        if asked is Asked.YES_NO and (opposed := _says_otherwise(state.question, best)):
            # "is the pool open on Mondays" of a sign that reads "CLOSED MONDAYS", "are bikes allowed" of "NO BIKES"
            text = f'No: I {verb} {what} {when_said(state, best.stamp)}, which says "{opposed[1]}", not "{opposed[0]}".'
            return answer(text, NOT_SEEN_CONFIDENCE, refs, best.ref, best.ref, value=False)
        if asked is Asked.YES_NO and best.data.get("head_unmet"):
            # "any mention of a metal theft" of a sentence about copper: a metal, but no theft
            unmet = str(best.data["head_unmet"])
            text = f'No: the nearest I {verb} was {what} {when_said(state, best.stamp)}, which does not say "{unmet}".'
            return answer(text, NOT_SEEN_CONFIDENCE, refs, best.ref, best.ref, value=False)
        if asked is Asked.YES_NO and best.data.get("unmet"):  # "was the concert called off": not if nothing says so
            unmet = ", ".join(str(w) for w in best.data["unmet"])
            text = f'No: the nearest I {verb} was {what} {when_said(state, best.stamp)}, which does not say "{unmet}".'
            return answer(text, NOT_SEEN_CONFIDENCE, refs, best.ref, best.ref, value=False)
        if asked is Asked.YES_NO and verb != "heard" and _SOMEONE.search(interrogative(state.question)):
            # "was anybody rowing at the club": the club's sign is no person; someone must have been seen then
            span = {"start_t": best.stamp - state.t0 - PERSON_NEAR_S, "end_t": best.end - state.t0 + PERSON_NEAR_S}
            people = (yield [call("find_object", name="person", **span)])[0].result.findings
            if not any(f.kind == "occasion" for f in people):
                text = f"No: I {verb} {what} {when_said(state, best.stamp)}, but saw nobody there."
                return answer(text, NOT_SEEN_CONFIDENCE, refs, best.ref, best.ref, value=False)
        if asked is Asked.YES_NO:
            text = f"Yes: I {verb} {what} {when_said(state, best.stamp)}."
            return answer(text, confidence, refs, best.ref, best.ref, value=True)
        if asked is Asked.COUNT and verb != "saw" and (said := _amount_said(state.question, [best])) is not None:
            amount = said[0]  # "how many chairs were we asked to bring": the number the words give
            lines = [line.strip() for line in best.text.split(" / ") if line.strip()]
            giving = [line for line in lines if _amount_said(state.question, [replace(best, text=line)])]
            what = f'"{" / ".join(giving)}"' if giving and len(giving) < len(lines) else what  # its line alone
            text = f"{amount:g}: I {verb} {what} {when_said(state, best.stamp)}."
            return answer(text, confidence, refs, best.ref, best.ref, value=amount)
        if asked is Asked.COUNT and verb == "read" and (items := _items_listed(listed, best)):
            # "how many rooms does the board list", "how many fares does the timetable give": the lines that name them
            text = (
                f"{len(items)}: I read {' / '.join(f'{i!r}' for i in items)} on {what} {when_said(state, best.stamp)}."
            )
            return answer(text, confidence, refs, best.ref, best.ref, value=len(items))
        if asked is Asked.COUNT and verb != "saw" and not _COUNTS_MEETINGS.search(interrogative(state.question)):
            # "how many ladders were by the stacking notice": a notice that names them is no count of them
            text = f"I cannot count that: what I {verb} of it, {what} {when_said(state, best.stamp)}, gives no number."
            return answer(text, NOT_SEEN_CONFIDENCE, refs, best.ref, best.ref)
        if asked is Asked.COUNT:
            text = f"{len(occasions)}: I {verb} {what} on {_times(len(occasions))}."
            return answer(text, confidence, refs, value=len(occasions))
        if asked is Asked.DURATION:
            total = sum(f.end - f.stamp for f in occasions)
            text = f"About {total:.0f} s: I {verb} {what} for that long over {_times(len(occasions))}."
            return answer(text, confidence, refs, value=round(total, 1))
        return None

    def _at_place_named(
        self, state: AgentState, described: str, how: list[str]
    ) -> Generator[Step, list[Observation], tuple[Finding | None, list[Finding]]]:
        """What the rest of a description is claimed in while the robot was at a place the question names ("in the
        boiler room"): words read or heard there need not name the place they were met at ("in here")."""
        for place in _stood_at(state.question):
            words = described.split()
            for word in terms(place):  # the place's own mention of it, the last: "the kitchen door ... in the kitchen"
                if word in words:
                    del words[len(words) - 1 - words[::-1].index(word)]
            rest = " ".join(words)
            if not rest or rest == described:
                continue
            best, occasions = yield from self._occasions_of(rest, how, at=place)
            if best is not None and best.data.get("claimed"):
                return best, occasions
        return None, []

    def _occasions_of(
        self,
        description: str,
        how: list[str],
        weak: bool = False,
        sighting: bool = False,
        field: str = "",
        at: str = "",
    ) -> Generator[Step, list[Observation], tuple[Finding | None, list[Finding]]]:
        """What a description is grounded in (claimed, or the best where good enough, or with ``weak`` the best
        that matches at all) and every occasion of that same thing that grounds it as well, oldest first.  For a
        ``sighting`` a record counts only where it names the thing (a tag by its own name or a broader word, a sign
        by its words): one that only means something like it ("PADDLE HIRE" for a kayak, a canoe for a kayak) is no
        sign of having seen it.  ``field``: what the question asks of a sign (its lines that name it are marked).
        ``at``: only what was met at the place so described."""
        step = call("ground", description=description, how=how, named=sighting, limit=20, field=field, at=at)
        obs = (yield [step])[0]
        found = obs.result.findings
        best = next((f for f in found if f.data.get("claimed")), None)
        if best is None and found and (found[0].score >= CLAIM_MIN or (weak and found[0].score > 0)):
            best = found[0]
        if best is None:
            return None, []
        if best.score < CLAIM_MIN:
            return best, [best]
        same = [
            f
            for f in found
            if f.data.get("how") == best.data.get("how")
            and (squash(f.text) == squash(best.text) or _same_board(f, best))  # a screen whose values changed
            and f.score >= CLAIM_MIN
        ]
        return best, sorted(same or [best], key=lambda f: f.stamp)

    def _kinds(self, state: AgentState, kind: str) -> Generator[Step, list[Observation], bool]:
        """ "What animal / which fruit ...": the things of that kind seen, or named on signs where the question goes
        by what was written; the one met most often first.  False when memory holds nothing of the kind."""
        how = "read" if _BY_WRITING.search(state.question.lower()) else "any"
        state.plan(f"find the kinds of {kind} {'read' if how == 'read' else 'seen or read'}", "compose the answer")
        numbers = named_numbers(state.question)  # "which wine is in tank 14": the name on the sign of "TANK 14"
        obs = (yield [call("kinds_of", kind=kind, how=how, **({"numbers": numbers[:4]} if numbers else {}))])[0]
        if numbers and not obs.result.findings:
            obs = (yield [call("kinds_of", kind=kind, how=how)])[0]
        for place in [] if numbers else _stood_at(state.question):  # "the animal at the stables": met there
            there = (yield [call("kinds_of", kind=kind, how=how, at=place)])[0]
            if there.result.findings:
                obs = there
                break
        found = obs.result.findings
        if not found:
            return False
        best = found[0]
        # Others worth naming: a kind of the one met most ("pug" of "dog"), or one met nearly as often; a thing
        # guessed on a few frames beside it is no second answer.
        rivals = [
            f for f in found[1:] if f.data.get("refines") or int(f.data["frames"]) * 2 >= int(best.data["frames"])
        ]
        others = ", ".join(f"{f.data['label']} ({f.data['how']}, {f.data['frames']} frame(s))" for f in rivals[:4])
        verb = "read the name" if best.data["how"] == "read" else "saw"
        text = f"{best.data['label']}: I {verb} {best.data['label']}, a kind of {kind}, {when_said(state, best.stamp)}"
        text += f"; also {others}." if others else "."
        yield answer(text, min(0.8, best.score), _refs(found[:5]), best.ref, best.ref, value=best.data["label"])
        return True

    def _read_out(self, state: AgentState, words: list[str]) -> Generator[Step, list[Observation], bool]:
        """Read the answer out of what was read or heard: the sign or sentence the question is grounded in (by
        words and meaning, restricted to the source it names); for a sign, every line read with it, those that are
        not wholly the question's own words first (the value).  False when nothing read or heard matches."""
        state.plan("ground the question in what was read or heard", "read the answer out of it")
        how = self._said_or_read(state.question)
        # The place a question says a thing was at ("in the boiler room") tells where, not what was written:
        # what was read or heard there, where that place stands out, else anywhere.
        described = " ".join(asked_words(without_lead_in(state.question))) or state.question
        kind = value_kind(interrogative(state.question), self.wordnet)
        value: dict[str, str] = {"value": kind.value} if kind else {}
        if field := asked_field(state.question):
            value["field"] = field  # "what expiry date is on it": the line that names the date
        if "read" in how:
            value["seen_with"] = described  # the book whose title is asked, the bottle whose label
        found, by_place = [], False
        for place in _stood_at(state.question):
            step = [call("ground", description=described, how=how, at=place, limit=8, **value)]
            there = (yield step)[0].result.findings
            if any(f.data.get("claimed") for f in there):
                found, by_place = there, True
                break
        if not found:
            found = (yield [call("ground", description=described, how=how, limit=8, **value)])[0].result.findings
        best = next((f for f in found if f.data.get("claimed")), None)
        if best is None and found and found[0].score >= CLAIM_MIN and float(found[0].data.get("words", 0)) > 0:
            best = found[0]  # not ahead by the margin, but the question's own words are there: offered, less sure
        # Words read only where the thing was said to be are not on it where it was never seen ("the kite in the
        # boathouse"); words that answer the question itself may be ("the use-by date on the jar").
        if (best is None or by_place) and (yield from self._unseen_bearer(state)):
            return True
        if best is None:
            return False
        if n := occasion_named(state.question):  # "on your later visit": that occasion's reading of the same sign
            best = _on_occasion(best, found, n)
        elif _ASKS_CURRENT.search(state.question.lower()):  # "when is the van due now": the latest word on it
            best = _latest_on(best, found, words)
        sure = 0.6 if best.data.get("claimed") else 0.35
        when = when_said(state, best.stamp)
        question = " ".join(words)
        held = [str(v) for v in best.data.get("holds") or []]  # the parts that hold the kind of value asked for
        # "who is the duty nurse": the name the sign gives, not the words it answers to ("Duty Nurse")
        held = [h for h in held if not _named_in(h, question)] or held
        quoted = best.text
        if kind is ValueKind.NUMBER and best.data.get("record") == "transcript" and len(held) > 1:
            # "gate 4 is stuck, ... through gate 6": the stuck one, by the question's words but the one that
            # names the kind of value ("which number"); quoted with its own clause, not the other number's
            kind_word = re.match(r"(?:which|what) (\w+)", interrogative(state.question))
            topic = [w for w in words if not kind_word or w != kind_word[1]]
            held = _nearest_asked(held, best.text, topic)
            quoted = _clause_of(held[0], best.text) if len(held) == 1 else best.text
        elif not held and best.data.get("record") == "transcript" and _WHICH_ONE.match(interrogative(state.question)):
            # "which sailing was cancelled": the clause that says so, not the one about another ("..., but the
            # afternoon crossing runs")
            clause = _clause_naming(best.text, words)
            quoted, held = (clause, [clause.strip(" …")]) if clause != best.text else (quoted, held)
        # A claim stands out from every other record, and one that holds the value asked for from every other that
        # could: as sure as a good match, however few of the question's words it shares.
        confidence = sure * (max(best.score, CLAIM_MIN) if best.data.get("claimed") else best.score)
        if best.data.get("record") == "transcript":
            when = when if not _has_digit(held) else when_said(state, best.stamp, clock=False)
            text = f'{"; ".join(held) + ": " if held else ""}"{quoted}", as I heard {when}.'
            said = "; ".join(held) or best.text
            yield answer(text, confidence, [best.ref], best.ref, best.ref, value=said)
            return True
        lines = [line.strip() for line in best.text.split(" / ") if line.strip()]
        # A line tells something the question does not say: words of its own, or a number ("CLEARANCE 2.3 m").
        named = [str(v) for v in best.data.get("field") or []]  # the lines that name what is asked, if not all do
        named = named if len(named) < len(lines) else []
        if kind is ValueKind.NUMBER:  # "which locker number": the line with the number, not the one saying "LOCKER"
            named = [line for line in named if any(c.isdigit() for c in line)]
        # A table's row the question names by its key ("the Elmstead train") holds the value, under whatever heading.
        row = row_named(lines, state.question)
        values = (
            ([row] if row else [])
            or named
            or held
            or [line for line in lines if words_covered(line, question) < 1.0 or _new_number(line, state.question)]
        )
        values = _keyed_values(values or lines, lines)
        # The lines that hold the answer are cited with those the question names, not the whole sign: its other
        # lines may hold other values.
        giving = [line for line in lines if any(squash(v) in squash(line) for v in values)] or lines
        # Of the lines that give a value, those that share most of the question's words ("HIGH WATER 06:52" for
        # "when is high water", not "LOW WATER 13:05").
        asked_of = _sharing_most(giving, words)
        if kind is ValueKind.NUMBER and held and asked_of and len(asked_of) < len(giving):  # "on a Saturday"
            narrowed = asked_of
        else:
            # Of several values, the one whose line the question names by words that do not say where it was
            # ("Pears 2.10/kg" of "what do they charge for pears on the board"): any kind of value, not a number only.
            located = _located_words(state.question)
            narrowed = _singled_out(giving, [w for w in words if w not in located])
        if narrowed:
            giving = narrowed
            values = [v for v in values if any(squash(v) in squash(line) for line in giving)] or values
        # A line the question names is quoted with them, unless it holds another value ("LEVEL 4" beside the
        # "LEVEL 2" asked for).
        cited = [
            line
            for line in lines
            if line in giving or (words_covered(line, question) >= 1.0 and not _new_number(line, state.question))
        ]
        listed = ", ".join(f'"{line}"' for line in cited)
        together = " together" if len(cited) > 1 else ""
        when = when if not _has_digit(values) else when_said(state, best.stamp, clock=False)
        text = f"{'; '.join(values)}: I read {listed}{together} {when}."
        yield answer(text, confidence, [best.ref], best.ref, best.ref, value="; ".join(values))
        return True

    # -- helpers -----------------------------------------------------------------------

    def _window(self, state: AgentState, p: ParsedQuestion) -> dict[str, float]:
        return self._bounds(state, p.window)

    def _asked_bounds(self, state: AgentState, p: ParsedQuestion | None) -> dict[str, float]:
        """The window the plan sets, or (no plan) the one the question says."""
        return self._bounds(state, p.window if p else window_of(state.question))

    def _bounds(self, state: AgentState, window: Window | None) -> dict[str, float]:
        """A window as the tools' start_t / end_t."""
        if window is None or self.span is None:
            return {}
        if window.anchor == "first":
            return {"end_t": window.seconds}
        if window.anchor == "since":  # from a thing's first occasion on
            return {"start_t": window.seconds}
        if window.anchor == "between":  # "between 100 and 300 seconds"
            return {"start_t": window.seconds, "end_t": window.until}
        if window.anchor == "at":  # "at the 250 second mark": what was met around that moment
            return {"start_t": max(0.0, window.seconds - AROUND_S), "end_t": window.seconds + AROUND_S}
        now = (state.as_of if state.as_of is not None else self.span[1]) - state.t0
        return {"start_t": max(0.0, now - window.seconds)}


def _latest_on(best: Finding, found: list[Finding], words: list[str]) -> Finding:
    """Of the records that hold every word of the question ``best`` holds (and may say more), the latest: a later
    message or sign about the same thing updates an earlier one ("the van will now come at 10")."""
    held = {w for w in words if found_in(w, best.text)}
    same = [f for f in found if f.score >= CLAIM_MIN and held <= {w for w in words if found_in(w, f.text)}]
    return max(same, key=lambda f: f.stamp, default=best) if held else best


# A question that asks how things stand now, not what was once read or said.
_ASKS_CURRENT = re.compile(
    r"\b(?:now|currently|at present|presently|at the moment|these days|any more|anymore|still|latest|updated"
    r"|revised|new (?:time|date|plan|arrangement))\b"
)


def _on_occasion(best: Finding, found: list[Finding], n: int) -> Finding:
    """Of the readings of the sign ``best`` is one of (its values may have changed between them), the one taken on
    the ``n``-th occasion it was in view (-1: the last); ``best`` where there were not so many.  Readings moments
    apart are one occasion, however often the sign was read then."""
    readings = [f for f in found if f.ref == best.ref or _same_board(f, best)]
    occasions = group_runs(readings, lambda f: f.stamp, OCCASION_GAP_S, lambda f: f.end)
    if n > len(occasions):
        return best
    chosen = occasions[n - 1] if n > 0 else occasions[-1]
    return best if best in chosen else max(chosen, key=lambda f: f.score)


def _same_board(a: Finding, b: Finding) -> bool:
    """Whether two readings are of one sign or screen: most of their lines the same but for their numbers.  Two
    that differ, read moments apart or metres apart, are two signs ("ROOM 4" beside "ROOM 5"), not one whose
    numbers changed between visits."""
    if a.data.get("record") != b.data.get("record") or a.data.get("record") == "transcript":
        return False
    if squash(a.text) != squash(b.text) and (
        abs(a.stamp - b.stamp) <= OCCASION_GAP_S
        or (
            a.pose is not None
            and b.pose is not None
            and math.hypot(a.pose.x - b.pose.x, a.pose.y - b.pose.y) > SAME_SPOT_M
        )
    ):
        return False
    lines_a, lines_b = ({squash(re.sub(r"\d+", "", line)) for line in f.text.split(" / ")} - {""} for f in (a, b))
    shared = len(lines_a & lines_b)
    return shared >= 2 and shared * 2 > min(len(lines_a), len(lines_b))


# How far apart two readings of one sign may be taken: the robot's own drift between two stops before it.
SAME_SPOT_M = 4.0


# A question that bounds what it asks about by time or by another thing met.
_BOUNDED_IN_TIME = re.compile(
    r"\b(?:before|after|until|till|since|when|while|during|between|by the time|first|last|second|third|again|once)\b"
)
# A question that says it asks for the last time, not only when.
_SAYS_LAST = re.compile(r"\b(?:last|latest|most recent|most recently|final)\b")
# Which of two was met last of all, not which came second.
_RECENTLY = re.compile(r"\b(?:last|latest|more recently|most recently|most recent|newest)\b")
# A position question that asks for the first occasion ("where did you first see X", "... for the first time").
_SAYS_FIRST = re.compile(r"\b(?:first|earliest|initially)\b")


def _occasions_said(n: float) -> str:
    return f"on {_times(int(n))}" if n else "not at all"


def _seconds_said(seconds: float) -> str:
    return f"for about {seconds:.0f} s" if seconds else "not at all"


def _met_verb(modality: Modality) -> str:
    """The verb of meeting a thing this way, as in "I ___ it twice"."""
    return {Modality.TEXT: "read", Modality.SPEECH: "heard about", Modality.PLACE: "was at"}.get(modality, "saw")


def _perfect(modality: Modality) -> str:
    """The verb of meeting a thing this way, as in "I have not ___ it"."""
    return {Modality.TEXT: "read", Modality.SPEECH: "heard"}.get(modality, "seen")


def _verb_of(senses: list[str]) -> str:
    """The past of the verb an answer uses for how one thing was met."""
    return _verbs_of(senses, senses)[0]


def _verbs_of(sense_a: list[str], sense_b: list[str]) -> tuple[str, str]:
    """The verbs (past, perfect) an answer uses for how two things were met: one for both where met alike."""
    if sense_a != sense_b:
        return "met", "met"
    alike = {"read": ("read", "read"), "heard": ("heard about", "heard about")}
    return alike.get(sense_a[0] if sense_a else "", ("saw", "seen"))


# What was met while something else was: how far either side of its occasions, and how many of them are looked at.
MEANWHILE_PAD_S = 5.0
MEANWHILE_OCCASIONS = 5
_MET_AS = {Modality.TEXT: "read", Modality.SPEECH: "heard", Modality.OBJECT: "saw", Modality.PLACE: "was at"}


def _met_named(f: Finding) -> str:
    """A record of the timeline by what was met: the words heard or read, or the thing seen."""
    return str(f.data.get("label") or f.data.get("read") or f.text)


def _kind_met(state: AgentState, p: ParsedQuestion, found: Finding) -> tuple[str, str | None]:
    """What was met, said with the label seen where the question named it otherwise ("the first animal": animal
    (cat)), and the label as the value where the question asks for a name."""
    label = str(found.data.get("label", ""))
    if p.modality is not Modality.OBJECT or not label or label in p.target.split() or label == p.target:
        return (f'"{p.target}"' if p.modality is Modality.TEXT else p.target), None
    return f"{p.target} ({label})", (label if asked_kind(state.question) is Asked.NAME else None)


def _main_sign(read: list[Finding]) -> tuple[str, Finding] | None:
    """The sign read longest among some readings (a clipped reading counts for its sign), by its reading of most
    words, with its first reading; None when nothing was read."""
    readings = [f for f in read if "read" in f.data]
    frames: dict[str, int] = {}
    for sign in distinct_signs([str(f.data["read"]) for f in readings]):
        frames[sign] = sum(
            int(f.data["frames"]) for f in readings if text_match(str(f.data["read"]), sign) >= SAME_SIGN
        )
    if not frames:
        return None
    sign = max(frames, key=lambda s: (frames[s], len(s)))
    same = [f for f in readings if text_match(str(f.data["read"]), sign) >= SAME_SIGN]
    fullest = max(same, key=lambda f: (len(str(f.data["read"]).split()), int(f.data["frames"])))
    return str(fullest.data["read"]), min(same, key=lambda f: f.stamp)


# The things a count asks for: "how many boxes" counts boxes; "how many times" counts occasions, not a thing said.
# The thing a question counts: its first word, and the words after it up to the verb ("how many drawing easels are
# there": the number read is of easels).
_COUNTED = re.compile(
    r"\bhow many (?P<n>[a-z][a-z-]+)(?P<more>(?: (?!(?:are|is|were|was|do|does|did|have|has|had|can|could|will|would"
    r"|should|in|on|at|there|of|for|to)\b)[a-z][a-z-]+){0,3})"
)
_MESSAGE_NOUNS = re.compile(rf"(?:{MESSAGES}|calls?|things|words|people|voices|speakers)")


def _keyed_values(values: list[str], lines: list[str]) -> list[str]:
    """Values with a line that only opens a field ("Warden on duty:") given by the line after it, which holds the
    field's value; as they are where that line is none or opens another."""
    out = []
    for value in values:
        at = next((i for i, line in enumerate(lines) if line.endswith(value)), -1)
        after = lines[at + 1] if value.rstrip().endswith(":") and 0 <= at < len(lines) - 1 else ""
        out.append(after if after and not after.rstrip().endswith(":") else value)
    return list(dict.fromkeys(out))


def _items_listed(counted: str, sign: Finding) -> list[str]:
    """The items of a sign a question counts: the amounts of money on it where it counts prices ("how many prices
    does the timetable give", "how many items have a price"), else its lines that name the thing counted ("how many boats
    does the rota list"); none where neither applies, or where the sign states a count itself."""
    if not counted:
        return []
    if _MONEY_NOUN.search(counted):
        text = _ZERO_AS_O.sub("0", sign.text)  # "O.90": text recognition reads a zero as the letter
        return [m.group(0) for m in _MONEY.finditer(text)]
    named = [str(line) for line in sign.data.get("field_words") or sign.data.get("field") or []]
    # A list whose entries no line names by the counted word ("how many ferries does the board list" of its rows
    # "09:40 ... / 10:05 ..."), or only its heading does: its rows that open alike.
    rows = entries([line.strip() for line in sign.text.split(" / ")])
    return named if named and (not rows or set(named) & set(rows)) else rows or named


_ZERO_AS_O = re.compile(r"(?<![A-Za-z])[Oo](?=[.,]\d\d(?!\d))")
# What is counted in money ("prices", "fees", "items with a price").
_MONEY_NOUN = re.compile(r"\b(?:prices?|priced|costs?|fees?|fares?|charges?|tolls?)\b")
# An amount of money: a currency sign before a number, or a number with two decimals that no unit follows.
_MONEY = re.compile(r"[$€£¥]\s?\d+(?:[.,]\d{1,2})?|(?<![\d:./])\d{1,4}[.,]\d{2}(?![\d:./])(?!\s?(?:%|[a-zA-Z°]))")


def _amount_said(question: str, lines: list[Finding]) -> tuple[float, Finding] | None:
    """The number of a thing words heard or read give, where the question counts a thing ("how many boxes ...") and
    not the occasions or messages: from the best-matching sentence first."""
    counted = _COUNTED.search(question.lower())
    if counted is not None and counted["n"] == "times" and cites_a_source(question):
        # "according to the caller, how many times did the pump stall": how often the words say it happened
        return next(((n, line) for line in sorted(lines, key=lambda f: -f.score) if (n := how_often(line.text))), None)
    if counted is None or counted["n"] in NOT_COUNTED or _MESSAGE_NOUNS.fullmatch(counted["n"]):
        return None
    for line in sorted(lines, key=lambda f: -f.score):
        # A sign's lines one by one: a number that ends one line counts nothing on the next ("09:10 / Boat 5").
        amounts = (amount_of(part, counted["n"] + counted["more"]) for part in line.text.split(" / "))
        amount = next((a for a in amounts if a is not None), None)
        if amount is not None:
            return amount, line
    return None


def _first_of_each(found: list[Finding]) -> list[Finding]:
    """Each thing met once, at its first occasion, in time order; a sign read over several frames is one sign,
    named by its commonest reading ("WET FLOOR", not also "ET FLOOR" and "VET FLOOR" as the view cut or blurred it)."""
    counts = Counter(_met_named(f) for f in found)
    firsts: dict[str, Finding] = {}
    for f in sorted(found, key=lambda f: f.stamp):
        name = _met_named(f)
        if "read" in f.data:
            name = next((n for n in firsts if _same_reading(n, name)), name)
            if name in firsts and counts[_met_named(f)] > counts[_met_named(firsts[name])]:
                firsts[name] = replace(f, stamp=firsts[name].stamp)  # the commonest reading names it
        firsts.setdefault(name, f)
    return list(firsts.values())


def _same_reading(a: str, b: str) -> bool:
    """Two readings of one sign: one holds the other, or they differ in a letter or two."""
    return text_match(a, b) >= SAME_SIGN or text_match(b, a) >= SAME_SIGN


# How a thing was met, as the senses a grounding search is restricted to, and as what the timeline lists.
_TIMELINE_OF = {Modality.TEXT: "text", Modality.SPEECH: "speech", Modality.OBJECT: "objects"}
_SENSES_OF: dict[Modality, list[str]] = {Modality.TEXT: ["read"], Modality.SPEECH: ["heard"], Modality.OBJECT: ["seen"]}


def _read_if_sign(p: ParsedQuestion, name: str, senses: list[str]) -> list[str]:
    """The senses a side of an order is met by where no verb says: words read only where the question says so of
    the side itself (a sign, words quoted or in capitals), not where another side was a sign."""
    if senses != ["read"] or re.search(r"\b(?:read|reading|written)\b", p.text.lower()):
        return senses  # "which did you read first, A or B": both were read
    return senses if bears_text(head_words(name)) or written_as_read(p.text, name) else []


def _side_senses(question: str, name: str, fallback: list[str]) -> list[str]:
    """How one side of an order question was met, by the verb just before its name and after the relation or
    the other side ("... before you heard about X": heard); ``fallback`` where no verb says."""
    lower, at = _found_in_question(question, name)
    if at < 0:
        return fallback
    # ... in the side's own clause: "which did you pass first, the pump or the sign" says the question's verb
    before = re.split(r"\b(?:before|after|or|than|and|then)\b|[,;:]", lower[:at])[-1]
    met = modality_named(before) if before.strip() else None
    if met is None and _ARRIVED.search(before):
        met = Modality.OBJECT  # "before reaching X": met where it was, in view
    if met is None and (done := _DONE_TO.match(lower[at + len(name) :])) is not None:
        met = modality_named(done[1]) or Modality.OBJECT  # "was the cat spotted before ...": seen
    if met in (None, Modality.OBJECT) and written_as_read(question, name):
        met = Modality.TEXT  # "right before KEEP CLEAR", "did you pass the EXIT sign": words read, as signs print them
    return _SENSES_OF.get(met, fallback) if met is not None else fallback


_ARRIVED = re.compile(rf"\b{ARRIVAL}(?: (?:the|a|an|that))?\s*$")
# A clause that says the robot got to a place ("you reached the kiosk", "the robot entered the hall").
_GOT_TO = re.compile(rf"^(?:you|the robot|it|we) {ARRIVAL}\s+(?:the |a |an )?(?P<place>\S.*)$")


def _arrived_at(question: str, name: str) -> bool:
    """Whether the question says the robot got to the place a side names ("before reaching X", "had you been to
    X")."""
    lower, at = _found_in_question(question, name)
    # "X or Y: which did you reach first?": the verb after both names is said of each
    return at >= 0 and (_ARRIVED.search(lower[:at]) is not None or _WHICH_REACHED.search(lower) is not None)


# The verb of getting somewhere said of the two sides after them ("which did the patrol reach first", "which of the
# two did you visit earlier").
_WHICH_REACHED = re.compile(
    rf"\b(?:which|what)(?: one| of (?:the|them|these|those)(?: two)?)? (?:did|had|have|has) (?:you|the robot|it|we"
    rf"|the \w+|your \w+) (?:first |last )?{ARRIVAL}(?: (?:first|last|earlier|later|sooner|before))?\b"
)


# Being at something up to now, said in the present perfect ("how long have you been on this circuit").
_ON_IT_SINCE = re.compile(r"\b(?:have|has) (?:you|it|the robot|this|your \w+) been\b")


# A count of meetings with words read or heard ("how many times", "how many notices"), not of things they name.
_COUNTS_MEETINGS = re.compile(rf"\bhow often\b|\bhow many (?:\w+ )?(?:times|occasions|{MESSAGES}|{BEARER}s?)\b")


# Days of the week and months: a question that names one of them of a text that names only others asks of
# something the text contradicts.
_DATES = re.compile(
    r"(?<![a-z])(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july"
    r"|august|september|october|november|december)s?(?![a-z])"
)


def _other_dates(question: str, text: str) -> list[str]:
    """[what the text says, what the question asked] where the question names a day or month the text does not
    while the text names another; else empty."""
    asked = {singular(d) for d in _DATES.findall(interrogative(question))}
    said = [singular(d) for d in _DATES.findall(text.lower())]
    if not asked or not said or asked & set(said):
        return []
    return [said[0], sorted(asked)[0]]


def _read_not_detected(p: ParsedQuestion, found: list[Finding]) -> list[str]:
    """The words a thing asked about bears by the question ("flood warning" of "a flood warning sign") where no
    detector label found for it holds them: then only what was read shows it.  Empty otherwise."""
    if p.modality is not Modality.OBJECT or not bears_text(head_words(p.target)):
        return []
    said = sign_words(p.target)
    # "a red sign" says nothing of its words, and "a flood warning sign" is one about a flood, whatever kind of
    # message it calls itself
    words = [w for w in content_words(said) if colour_named(w) is None and not re.fullmatch(MESSAGES, w)]
    if said == p.target or not words:
        return []
    labels = {str(f.data.get("label", "")).lower() for f in found}
    return [] if any(set(words) <= set(label.split()) for label in labels) else words


# Someone unnamed as the subject of a yes-or-no question ("was anybody rowing"): a yes needs a person seen
# within this many seconds of what the rest of the question is grounded in.
_SOMEONE = re.compile(r"\b(?:anybody|anyone|someone|somebody|any(?:one)? person|a person|any people|people)\b")
PERSON_NEAR_S = 10.0


def _stands_out(found: list[Finding]) -> bool:
    """Whether the best of the places found matches well and ahead of the next by the margin a claim needs."""
    runner_up = found[1].score if len(found) > 1 else 0.0
    return bool(found) and found[0].score >= CLAIM_MIN and found[0].score - runner_up >= CLAIM_MARGIN


def _found_in_question(question: str, name: str) -> tuple[str, int]:
    """The question in the plain form its parts were read from ("had you been to X before Y" for "when Y, had you
    already been to X"), else as asked, and where ``name`` is in it (-1 where in neither)."""
    for lower in (plain_sentence(question.lower()), question.lower()):
        at = lower.find(name.lower())
        if at >= 0:
            return lower, at
    return question.lower(), -1


# A participle said right after a side's name, in the passive ("the cat spotted", "the notice read"): how it was met.
_DONE_TO = re.compile(
    r"^\s+(?:(?:was|were|got|first|ever|being) )*(seen|spotted|noticed|sighted|observed|detected|in view|visible|read"
    r"|heard|mentioned|said|announced|brought up|talked about|discussed|reported)\b"
)


def _same_thing(found: Finding, anchor: Finding) -> bool:
    """Whether a finding is the anchor again: the same label detected, or (for words read) the same words or a
    clipped part of them."""
    label = str(anchor.data.get("label", ""))
    if label:
        return str(found.data.get("label", "")) == label
    mine, its = squash(anchor.text), squash(str(found.data.get("read") or found.text))
    return bool(its) and not found.data.get("label") and (its in mine or mine in its)


def _adjacent_scene(scenes: list[Finding], edge: float, after: bool) -> Finding | None:
    """The nearest scene beyond ``edge`` in which something was recognised."""
    beyond = [
        f for f in scenes if (f.stamp >= edge if after else f.end <= edge) and f.text and f.text != NOTHING_RECOGNISED
    ]
    if not beyond:
        return None
    return min(beyond, key=lambda f: f.stamp) if after else max(beyond, key=lambda f: f.end)


def _held(script: Script) -> Generator[Step, list[Observation], Step]:
    """Run a script's tool steps, holding back its final answer step so another plan may still be weighed."""
    step = next(script)
    while step and step[0]["tool"] != ANSWER_TOOL:
        step = script.send((yield step))
    return step


def _unsupported(step: Step) -> bool:
    """Whether a final answer rests on nothing: no evidence cited and no more than the confidence of "not seen"."""
    args = step[0]["args"]
    return not args.get("evidence") and float(args.get("confidence", 0.0)) <= NOT_SEEN_CONFIDENCE


def _order_lead(p: ParsedQuestion, early: str, late: str, relation: str, verb: str) -> tuple[str, str]:
    """How an order answer opens, and what it names: the relation where the question offers "before or after"
    (``verb`` saying how the thing asked about was met), else what came first (or last, where that is asked)."""
    if _BEFORE_OR_AFTER.search(plain_sentence(p.text.lower())):  # "A before or after B?", "A before B, or after?"
        return f"{relation.capitalize()}: I {verb} {p.target} {relation} {p.other}", relation
    if p.latest:
        return f"{late} last, after {early}", late
    return f"{early} first, before {late}", early


def _as_asked(p: ParsedQuestion, relation: str, value: str, text: str) -> tuple[bool | str, str]:
    """An order's value and text as the question asked it: "was A before B?" (``p.relation``) is answered yes or
    no by whether A came ``relation`` B; "which came first" by ``value``."""
    if not p.relation:
        return value, text
    agrees = relation == p.relation
    return agrees, f"{'Yes' if agrees else 'No'}, {text}"


# The thing a question says words were on ("what was printed on the bus parked outside", "the slogan painted on
# the kite in the boathouse").
_WRITTEN_ON = re.compile(
    r"\b(?:written|printed|painted|stencilled|stenciled|engraved|inscribed|lettered|scrawled|chalked|embroidered"
    r"|iced|stamped) (?:on|across|along|onto|upon) (?:the|a|an|that|this|its) (?P<x>[a-z'-]+(?: [a-z'-]+){0,2}?)"
    r"(?= (?:in|at|on|by|near|beside|outside|inside|next|behind|moored|parked|standing|that|which|you|the robot)\b"
    r"|[?.!,]|$)"
)
# "What did the first / last sign you read say": one sign, by its place in order.
_NTH_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "2nd": 2, "3rd": 3, "4th": 4}
_NTH_SIGN = re.compile(
    rf"\bthe ({'|'.join(_NTH_WORDS)}|last) {BEARER}\b"
    rf"|\b{BEARER} (?:did |have )?(?:you|the robot|it) (?:read|see|saw|pass|passed) (first|last)$"
)
AROUND_S = 15.0  # a moment named by its time ("at around 400 s") is this much either side of it
_ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}
# A thing not named: whatever was met ("did you see anything in the last minute").
_ANYTHING = re.compile(r"^(?:anything|something|any ?thing|things?|objects?|items?)(?: at all| else)?$")
# An order asked as "before or after" wants that word, not a name.
_BEFORE_OR_AFTER = re.compile(r"\b(?:before or after|after or before)\b", re.IGNORECASE)
# Words that ask for the first or earliest of several times ("when did you start reading ...").
_FIRST_WORDS = re.compile(r"\b(?:first|earliest|start|started|starting|begin|began|begun|beginning|initially)\b")
# "What animal ...", "which kind of fruit lived ...": a question for a thing of a kind (one or two words), before a
# verb.
_KIND_VERB = r"(?:is|was|were|are|did|do|does|have|has|had|could|can)"
_KIND_ASKED = re.compile(
    r"^(?:what|which)(?: (?:kind|type|sort|species|breed|variety|make|brand)s? of)? "
    rf"(?P<kind>[a-z]+(?: (?!{_KIND_VERB}\b)[a-z]+)?) (?:{_KIND_VERB}|[a-z]+ed|[a-z]+[^s]s)\b"
)


def _nearest_asked(values: list[str], sentence: str, words: list[str]) -> list[str]:
    """Of several numbers a sentence gives, the one nearest a word of the question it holds ("gate 4 is stuck, use
    gate 6" asked which gate is stuck: 4); all of them where it holds none of the question's words."""
    if len(values) < 2:
        return values
    tokens = [(m.start(), m.group(0)) for m in re.finditer(r"[\w'-]+", sentence)]
    asked = [at for at, token in tokens if any(found_in(w, token) for w in words)]
    places = {v: sentence.find(v) for v in values}
    if not asked or any(at < 0 for at in places.values()):
        return values
    gap = {v: min(abs(at - a) for a in asked) for v, at in places.items()}
    return [min(values, key=lambda v: gap[v])]


def _clause_naming(sentence: str, words: list[str]) -> str:
    """The clause of a sentence holding more of a question's words than any other, cut as ``_clause_of`` cuts;
    the sentence where no one clause does."""
    parts = [p for p in _CLAUSES.split(sentence) if p.strip()]
    best = _sharing_most(parts, words)
    return _clause_of(best[0], sentence) if len(best) == 1 and len(parts) > 1 else sentence


# Where a sentence's clauses meet: after a comma or semicolon, or before a word that joins two.
_CLAUSES = re.compile(r"(?<=[,;:])\s+|\s+(?=(?:so|and|but|or|then|while|because)\b)")
# A question that asks which one of its kind ("which show", "what colour", "who"), not what was said as a whole.
_WHICH_ONE = re.compile(r"^(?:which\b|who\b|whose\b|what (?!(?:did|does|do|was|were|is|are|has|had|have)\b)\w+)")


def _clause_of(value: str, sentence: str) -> str:
    """The clause of a sentence that holds a value, marked as cut where the sentence goes on ("Gate 4 is stuck,
    …")."""
    held = next((part for part in _CLAUSES.split(sentence) if value in part), sentence)
    before = "" if sentence.startswith(held) else "… "
    after = "" if sentence.endswith(held) else " …"
    return f"{before}{held.rstrip(',;: ') if after else held}{after}"


def _singled_out(lines: list[str], words: list[str]) -> list[str]:
    """The lines of several that give a value which share most of a question's words, where they are fewer than all
    and say more than those words; else []."""
    chosen = _sharing_most(lines, words)
    return chosen if chosen and len(chosen) < len(lines) and all(_says_more(line, words) for line in chosen) else []


def _has_digit(values: list[str]) -> bool:
    return any(c.isdigit() for v in values for c in v)


def _sharing_most(texts: list[str], words: list[str]) -> list[str]:
    """The texts that hold the most of the words, in order; [] where none holds any."""
    shared = {text: sum(found_in(w, text) for w in set(words)) for text in texts}
    most = max(shared.values(), default=0)
    return [text for text in texts if most and shared[text] == most]


def _says_more(line: str, words: list[str]) -> bool:
    """Whether a line holds a word of its own beyond the question's and the words of grammar, or a number: "MUST
    BE WORN" tells nothing a question about what must be worn does not."""
    own = [t for t in re.findall(r"[a-z]+|\d+", line.lower()) if t not in FUNCTION_WORDS]
    return any(t.isdigit() or not any(found_in(w, t) for w in words) for t in own)


def _located_words(question: str) -> set[str]:
    """The words of a question that say where a thing was ("on the sign at the gate", "in the loft"): they tell
    which sign, not which of its lines."""
    return {w for phrase in _LOCATED.findall(question.lower()) for w in re.findall(r"[a-z0-9]+", phrase)}


# A phrase of place: a preposition of where, then words up to the next word of grammar or the clause's end.
_LOCATED = re.compile(
    r"\b(?:at|in|on|inside|outside|by|near|beside|behind|above|below|under|over|next to) "
    r"((?:(?:the|a|an|this|that|your|its) )?(?:(?!(?:at|in|on|by|for|of|to|with|and|or|was|were|is|are|did|do)\b)"
    r"[a-z0-9'-]+ ?)+)"
)


def _stood_at(question: str) -> list[str]:
    """The places a question names that the robot stood at: not a thing that bore words ("by the plate on the door")."""
    return [place for place in places_named(question) if not bears_text(head_words(place))]


# A thing named by what is written on it ("the door that says when it was swept", "the crate which read FRAGILE").
_SAYS_WHAT = re.compile(r"\b(?:that|which) (?:says|said|reads|read|states|stated|lists|listed|warns|warned)\b")
# A question that goes by what was written ("going by its label", "according to the sign").
_BY_WRITING = re.compile(
    r"\b(?:going by|according to|judging by|as (?:written|printed|shown))\b|\b(?:label|sign|caption|plaque|poster"
    r"|notice|placard|writing|written|printed|stencill?ed|chalked|painted|engraved|etched|inscription|nameplate)s?\b"
    r"|\b(?:labell?ed|tagged|stamped|marked (?:as|with)|signposted)\b"
)


# A place's description says what was read there.
_READ_THERE = re.compile(r"(?:^|; )read ")


# Going back to a place named by the question ("before coming back to the boathouse", "once you returned to it").
_RETURNED = re.compile(
    r"\b(?:(?:came|come|coming|went|go|going|got|get|getting|headed|head|heading|walked|driven|drove) back"
    r"|return(?:ed|ing|s)?\b|back (?:to|at|in|into)\b|revisit(?:ed|ing)?\b|(?:second|later|last) visit\b)"
)


def _place_name(place: Finding) -> str:
    """A place as the robot knows it: where it is and what was seen, read and heard there."""
    where = _where(place)
    return f"the place around {where} where I {place.text}" if place.text else f"the place around {where}"


_Item = TypeVar("_Item")


def _where(place: Finding) -> str:
    """Where a place is, by its position where known, else by its reference."""
    return _around(place.pose) if place.pose else place.ref


def _nth(items: Sequence[_Item], ordinal: int) -> _Item:
    """The item a question names by its place in order: 1 the first, -1 the last."""
    return items[ordinal - 1 if ordinal > 0 else -1]


def _around(pose: Pose) -> str:
    """A place's position to a tenth of a metre, "(1.0, -2.0)"; never "-0.0"."""
    return f"({round(pose.x, 1) + 0.0:.1f}, {round(pose.y, 1) + 0.0:.1f})"


def _place_brief(place: Finding) -> str:
    """A place at a glance, as a stop of a route: "(1.0, 2.0), where I read 'STORE 2'"."""
    where = _where(place)
    brief = place.data.get("brief", "")
    return f"{where}, where I {brief}" if brief else where


def _place_and_visits(place: Finding) -> str:
    """Where a place is, and how often the robot was there where more than once: "(1.0, 2.0) twice"."""
    assert place.pose is not None
    n = len(place.data["visits"])
    return _around(place.pose) + ("" if n == 1 else f" {_visits(n)}")


def _visits(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} separate times")


def _refs(findings: list[Finding]) -> list[str]:
    return list(dict.fromkeys(f.ref for f in findings))[:10]


def _times(n: int) -> str:
    return {1: "one occasion", 2: "two occasions"}.get(n, f"{n} separate occasions")


def _counted(names: list[str]) -> str:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(name if n == 1 else f"{name} ({n} times)" for name, n in counts.items())


def _mentions(finding: Finding, target: str) -> bool:
    """Whether the finding names one of the target's words, or its singular ("frogs" in "a tree frog")."""
    text = (finding.text + " " + " ".join(str(v) for v in finding.data.values())).lower()
    return any(word in text or _singular_in(word, text) for word in content_words(target))


def _singular_in(word: str, text: str) -> bool:
    """The singular as a word of its own: "books" is in "a book", not in "a bookcase"."""
    one = singular(word)
    return one != word and len(one) >= 3 and re.search(rf"\b{re.escape(one)}\b", text) is not None


def _overlap(words: list[str], text: str) -> int:
    lowered = text.lower()
    return sum(w in lowered for w in words)


def _about(p: ParsedQuestion | None) -> str:
    return f" about {p.target or p.other}" if p is not None and (p.target or p.other) else ""


def _empty_value(p: ParsedQuestion | None) -> bool | float | None:
    if p is None:
        return None
    return {Intent.DID: False, Intent.COUNT: 0, Intent.DURATION: 0.0}.get(p.intent)


def _moment_said(name: str, edge: str, place: bool) -> str:
    """One side of a trip as the answer gives it: "I left the lab", "I reached the yard", "I first met the cat"."""
    return f"I {edge or REACHED} {name}" if place else f"I first met {name}"


# A question that asks only what something was about.
_TOPIC_ONLY = re.compile(r"\b(?:about|regarding|concerning|mention(?:ed|ing|s)?|on the subject of)\b")


def _says_otherwise(question: str, best: Finding) -> list[str] | None:
    """The word a question asks with and the opposite that words read or heard say instead, where the question
    asserts something of its own (neither negated nor only asking what was said about a topic)."""
    opposed = best.data.get("opposed")
    if not opposed:  # found only in what was read or heard
        return None
    text = question.lower()
    return None if negates(text) or _TOPIC_ONLY.search(text) else [str(w) for w in opposed]


def _named_in(value: str, question: str) -> bool:
    """Whether a question already names a value read or heard ("who should be paged instead of Dr Lind?" names
    "Doctor Lind"): every word of it but a title, as written or spelled nearly alike (a name written from its
    sound)."""
    words = [w for w in content_words(value) if w not in PERSON_TITLES]
    alike = misheard_as(words, question)
    return words_covered(" ".join(w for w in words if w not in alike), question) >= 1.0


def _new_number(line: str, question: str) -> bool:
    """Whether a line read holds a number the question does not."""
    asked = set(re.findall(r"\d+(?:[.,:]\d+)?", question))
    return any(n not in asked for n in re.findall(r"\d+(?:[.,:]\d+)?", line))
