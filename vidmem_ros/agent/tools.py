"""The tools the reasoner calls over memory and perception, one function each.

Each takes the question's ``ToolContext`` and its validated arguments (``tool_args``) and returns ``Finding``s
(``tool_context``); ``tool_registry`` names and describes them for planners.  Every tool honours the question's
``as_of``: nothing stamped after it is returned, and asking about a later time or a later reference is refused
with an error the planner can read.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from vidmem_ros.agent.description import after_head, description_rest, head_words, wanted_count, without_count
from vidmem_ros.agent.grounding import (
    CLAIM_MARGIN,
    CLAIM_MIN,
    STOP_WORDS,
    TAG_MIN_FRAMES,
    TAG_MIN_SCORE,
    TITLE_WORDS_MAX,
    Grounded,
    Grounder,
    Grounding,
    MeaningCache,
    Sense,
    ValueKind,
    bears_text,
    found_in,
    fused,
    holds_value,
    source_named,
    terms,
    value_borne,
    value_spans,
)
from vidmem_ros.agent.heard_questions import asks_something
from vidmem_ros.agent.labels import LabelLexicon
from vidmem_ros.agent.polarity import contradiction, said_alike
from vidmem_ros.agent.question import GENERIC_PLACES, content_words
from vidmem_ros.agent.readable import FUNCTION_WORDS, readable, words_of_run
from vidmem_ros.agent.runs import group_runs
from vidmem_ros.agent.sounds import misheard_as
from vidmem_ros.agent.text_blocks import block_in_colour
from vidmem_ros.agent.text_match import holds_numbers, squash, text_match, words_covered
from vidmem_ros.agent.tool_args import (
    FindObjectArgs,
    FindTextArgs,
    GroundArgs,
    InspectArgs,
    KindsArgs,
    NavigateArgs,
    NeighborsArgs,
    PlacesArgs,
    PoseAtArgs,
    RecentArgs,
    SearchArgs,
    TimelineArgs,
    TranscriptArgs,
    WhenNearArgs,
)
from vidmem_ros.agent.tool_context import (
    NAMES_ACTIVITY,
    NAMES_ONLY_ACTIVITY,
    SOURCE_KINDS,
    SOURCES,
    Finding,
    ToolContext,
    ToolError,
    ToolResult,
)
from vidmem_ros.errors import VidmemError
from vidmem_ros.imaging import jpeg_to_rgb
from vidmem_ros.memory import places as stays
from vidmem_ros.memory.captions import EventFacts, event_labels, event_texts
from vidmem_ros.memory.hierarchy import ROOT_KEY
from vidmem_ros.memory.reader import Place
from vidmem_ros.memory.records import Event, Moment, Pose, SearchHit, Sighting, TextRead
from vidmem_ros.perception.colour_names import colour_named
from vidmem_ros.perception.opposites import dictionary_senses, opposites_of
from vidmem_ros.perception.text_layout import text_blocks
from vidmem_ros.perception.wordnet import LEX_PERSON, LEX_TIME


def search(ctx: ToolContext, args: SearchArgs) -> ToolResult:
    lo, hi = ctx.window(args.start_t, args.end_t)
    if args.similar_to:
        return _similar(ctx, args, lo, hi)
    kinds = [k for s in (args.sources or SOURCES) for k in SOURCE_KINDS[s]]
    place = Place(args.near.x, args.near.y, args.near.radius) if args.near else None
    hits = ctx.reader.search(args.query, _finite(lo), _finite(hi), place, ctx.as_of, args.limit, kinds)
    findings = [_hit_finding(ctx, h) for h in hits]
    if not args.query.strip() and "summaries" in (args.sources or SOURCES) and place is None:
        findings = _summaries(ctx, lo, hi)[: args.limit // 2] + findings
    return ToolResult("search", findings[: args.limit], "" if findings else "nothing matched")


def _similar(ctx: ToolContext, args: SearchArgs, lo: float, hi: float) -> ToolResult:
    if ctx.images is None and ctx.cold is None:
        return ToolResult("search", error="image similarity needs an image index, which this memory has none of")
    mid = _ref_id(args.similar_to or "")
    vector = ctx.reader.moment_vector(mid)
    if vector is None:
        return ToolResult("search", error=f"{args.similar_to} has no visual vector")
    hits = ctx.reader.similar(vector, args.limit + 1, ctx.as_of)
    found = [
        Finding(f"moment/{h.id}", "moment", h.stamp, h.stamp, "looks similar", h.score)
        for h in hits
        if h.id != mid and lo <= h.stamp <= hi
    ]
    return ToolResult("search", found[: args.limit])


def _summaries(ctx: ToolContext, lo: float, hi: float) -> list[Finding]:
    return [
        Finding(f"super_event/{s.id}", "super_event", s.start, s.end, s.summary)
        for s in ctx.store.super_events(ctx.as_of)
        if s.end >= lo and s.start <= hi
    ]


def _actions(ctx: ToolContext, description: str) -> list[str]:
    """The words of a description that say what happened or what state a thing was in ("cancelled", "broken"):
    verbs with no sense as a thing, other than the verbs of meeting ("announced", "seen") and the -ing forms that
    serve as prepositions ("according", "regarding")."""
    wordnet = _lexicon(ctx).wordnet
    if wordnet is None:
        return []
    return [
        w for w in terms(description)
        if wordnet.is_verb(w) and not wordnet.senses(wordnet.base_form(w)) and not source_named(w)
        and not w.endswith("ing")
    ]  # fmt: skip


def _unmet(ctx: ToolContext, actions: list[str], text: str) -> list[str]:
    """The actions a description says that words heard or read do not say, in any form of the verb or by a word
    of like meaning ("shut" for "closed")."""
    if not actions:
        return []
    wordnet = _lexicon(ctx).wordnet
    if wordnet is None:
        said = set(re.findall(r"[a-z]+", text.lower()))
        return [w for w in actions if w not in said]
    return [w for w in actions if not said_alike(wordnet, opposites_of(wordnet), w, text)]


def _opposed(ctx: ToolContext, description: str, text: str) -> dict[str, list[str]]:
    """Where words heard or read say the opposite of a word of the description, or negate one: that word and
    what they say instead, as a finding's ``opposed``."""
    wordnet = _lexicon(ctx).wordnet
    if wordnet is None:
        return {}
    against = contradiction(wordnet, opposites_of(wordnet), terms(description), text)
    return {"opposed": list(against)} if against else {}


def _set_apart_text(ctx: ToolContext, text: str) -> str:
    """A text read (a sign's line, a place's description) with the words text recognition ran together set apart
    ("KEEPCLEAR" as "KEEP CLEAR"), so that its words can be matched and its meaning read."""
    wordnet = _lexicon(ctx).wordnet
    return text if wordnet is None else readable(text, dictionary_senses(wordnet))


def _set_apart(ctx: ToolContext, grounded: Grounded) -> Grounded:
    """A reading with the words text recognition ran together set apart ("FARE2.40" as "FARE 2.40"), as answers
    quote it and values are read out of it."""
    if grounded.sense is not Sense.READ:
        return grounded
    text = _set_apart_text(ctx, grounded.text)
    return grounded if text == grounded.text else replace(grounded, text=text)


def _hit_finding(ctx: ToolContext, hit: SearchHit) -> Finding:
    """A hit as a finding; a frame found by what it showed has the robot's pose then, and lasts as long as its view
    did."""
    moment = ctx.store.moment(hit.ref, with_payload=False) if hit.kind == "moment" else None
    if moment is None:
        return Finding(
            f"{hit.kind}/{hit.ref}", hit.kind, hit.stamp, hit.end_stamp, hit.text, min(1.0, hit.score), hit.pose
        )
    last = ctx.reader.view_end(moment, ctx.as_of)
    data = {"last_ref": f"moment/{last.id}", "_last_pose": last.pose} if last.id != moment.id else {}
    pose = hit.pose or moment.pose
    return Finding(f"moment/{hit.ref}", "moment", hit.stamp, last.stamp, hit.text, min(1.0, hit.score), pose, data)


# -- grounding a description in every kind of record ---------------------------------


def ground(ctx: ToolContext, args: GroundArgs) -> ToolResult:
    """What in memory a description refers to, whatever kind of record holds it, best first; ``claimed`` marks
    the one that is good enough and stands out from the rest."""
    grounding = grounding_of(ctx, args.description, [Sense(h) for h in args.how], ctx.window(args.start_t, args.end_t))
    grounding = Grounding(args.description, [_set_apart(ctx, g) for g in grounding.found])
    if args.named:  # a record that only means something like the thing, or names what it had, is no sign of it
        named = [g for g in grounding.found if g.words > 0 and g.data.get("names_it", True)]
        grounding = Grounding(args.description, named)
    claimed = grounding.claimed()
    if args.at.strip():
        place = place_claimed(ctx, args.at)
        if place is None:
            return ToolResult("ground", note=f"{NO_PLACE} {args.at!r}")
        # At one place, what the question names there needs only to relate to it and stand out from the rest.
        grounding = Grounding(args.description, [g for g in grounding.found if _mostly_during(g.stamp, g.end, place)])
        claimed = grounding.claimed(min_score=AT_PLACE_CLAIM_MIN)
    if args.seen_with.strip():
        grounding = _with_seen(ctx, grounding, args.seen_with)
        grounding = _bearer_in_colour(ctx, grounding, args.seen_with, args.limit)
        claimed = grounding.claimed(min_score=AT_PLACE_CLAIM_MIN if args.at.strip() else CLAIM_MIN)
    # A record that holds the kind of value asked for (or that the thing is named for: "the name plate") answers
    # before one that does not.
    kind = ValueKind(args.value) if args.value else value_borne(args.description)
    holders: list[Grounded] = []
    if kind is not None:
        holders = [g for g in grounding.found if g.sense is not Sense.SEEN and _holds(ctx, kind, g.text)]
        rest = [g for g in grounding.found if g not in holders]
        # A line of a label's length that holds the value ("ILSE BRANDT") before one long line with it somewhere in
        # it (a product's blurb whose brand looks like a name).
        # "who": one that names someone before one with only a word for a person ("GUESTS' LOUNGE")
        top = max((g.score for g in holders), default=0.0)
        someone = (
            {g.ref for g in holders if g.score >= NAMED_SHARE * top and _holds(ctx, ValueKind.NAME, g.text)}
            if kind is ValueKind.PERSON
            else set()
        )
        holders = sorted((_confirmed(g) for g in holders), key=lambda g: (g.ref not in someone, -g.score, g.stamp))
        labels = [g for g in holders if _labelled(ctx, kind, g) and (not someone or g.ref in someone)]
        holders = labels + [g for g in holders if g not in labels]
        grounding = Grounding(args.description, holders + rest)
        claimed = Grounding(args.description, labels or holders).claimed(min_score=0.0)  # none holds one: none answers
    actions = _actions(ctx, args.description)
    findings = [
        Finding(
            g.ref, "grounded", g.stamp, g.end, g.text, g.score, g.pose,
            {
                "how": g.sense.value, "record": g.kind, "records": g.count, "words": round(g.words, 2),
                "meaning": round(g.meaning, 2), **({"claimed": True} if g is claimed else {}),
                **({"unmet": unmet} if g.sense is not Sense.SEEN and (unmet := _unmet(ctx, actions, g.text)) else {}),
                **(_opposed(ctx, args.description, g.text) if g.sense is not Sense.SEEN else {}),
                **({"holds": _spans(ctx, kind, g.text)} if kind is not None and g in holders else {}),
                **(_field_data(ctx, args, g.text) if g.sense is Sense.READ and args.field.strip() else {}),
                **g.data,
                **_view_end(ctx, g.data.get("last_ref")),
            },
        )
        for g in grounding.found[: args.limit]
    ]  # fmt: skip
    return ToolResult("ground", findings, "" if findings else f"nothing in memory matches {args.description!r}")


def _field_data(ctx: ToolContext, args: GroundArgs, text: str) -> dict[str, list[str]]:
    """For a sign, the lines that name what the question asks the value of (``field``), each without the words the
    question says already ("08/2031" of "USE BY 08/2031" for "the use-by date"), and of those, whole, the ones that
    name it by a word of its own (``field_words``: "Boat 5 ..." for "boats", not a list's heading "FERRIES")."""
    words = terms(args.field.replace("-", " "))  # "use-by date": its words each
    named = _field_lines(ctx, words, text)
    keys = re.findall(r"[a-z0-9]+", f"{args.field} {args.description}".lower())  # what the question says already
    # A line that is only the key ("ORDER NUMBER") names the field but holds no value: another line holds it.
    held = [(line, value) for line in named if (value := _without_words(line, keys))]
    if not held:
        return {}
    own = [line for line, _ in held if any(found_in(w, line) for w in words)]  # every one: what a list counts
    said = _saying_most(ctx, [w for w in terms(args.description) if w not in words], [line for line, _ in held])
    return {"field": [value for line, value in held if line in said], "field_words": own}


def _saying_most(ctx: ToolContext, words: list[str], lines: list[str]) -> list[str]:
    """Of lines that each name what is asked, those that say most of what the question says of it, in some form
    or by a word of like meaning ("CLOSED SUNDAY" for "which day is it shut")."""
    wordnet = _lexicon(ctx).wordnet
    if not words or wordnet is None or len(lines) < 2:
        return lines
    alike = opposites_of(wordnet)
    saying = {line: sum(said_alike(wordnet, alike, w, line) for w in words) for line in lines}
    return [line for line in lines if saying[line] == max(saying.values())]


def _field_lines(ctx: ToolContext, words: list[str], text: str) -> list[str]:
    """The lines of a sign that name a field by one of its words or by a word for a kind of one ("CAUTION: HORNETS"
    for "which insects")."""
    lexicon = _lexicon(ctx)
    senses = dictionary_senses(lexicon.wordnet) if lexicon.wordnet is not None else None

    def names(token: str) -> bool:
        return any(
            found_in(w, token) or lexicon.kind_of(token.lower(), w, FIELD_KIND_LEVELS, as_value=True) for w in words
        )

    def naming(line: str) -> str:
        """The line if a word of it names the field, set apart where the word was run together with others
        ("Monday closed" of "Mondayclosed": a value of the kind asked for is evidence the run is words); else ""."""
        found = False
        for token in set(re.findall(r"[A-Za-z]{3,}", line)):
            if names(token):
                found = True
                continue
            pieces = words_of_run(token, senses) if senses is not None else []
            if any(names(piece) for piece in pieces):
                found = True
                line = re.sub(rf"\b{token}\b", " ".join(pieces), line)
        return line if found else ""

    lines = [line.strip() for line in text.split(" / ") if line.strip()]
    return [named for line in lines if (named := naming(line))]


# A line names what a question asks for by a word for a kind of it this many steps below it at most: "which animals"
# asks for any animal ("hornet" is seven steps below).
FIELD_KIND_LEVELS = 8


def _without_words(line: str, words: list[str]) -> str:
    """A line without the words a question already says that open it, as a label's key opens it ("USE BY" of
    "USE BY 08/2031"), and the punctuation they leave; the whole line where they do not open it (a name that
    ends in one: "HARBOUR LINE"); "" where nothing else is left."""
    tokens = line.split()
    keyed = 0
    while keyed < len(tokens) and (
        tokens[keyed].lower() in STOP_WORDS or any(_is_word(w, tokens[keyed]) for w in words)
    ):
        keyed += 1
    rest = " ".join(tokens[keyed:]).strip(" :-,;.")
    if not re.search(r"[A-Za-z0-9]", rest):
        return ""
    return rest if keyed else line


def _is_word(word: str, token: str) -> bool:
    """Whether a token is the word in some form, not a longer word that begins with it."""
    return found_in(word, token) and len(squash(token)) <= len(squash(word)) + 3


# Words read while the detector saw what the question says bore them ("the title of the green folder") count this much
# more, fused as a second piece of evidence.
SEEN_WITH_SUPPORT = 0.5
# A thing seen this close in time to words read was in view with them.
SEEN_WITH_S = 2.0


def _with_seen(ctx: ToolContext, grounding: Grounding, described: str) -> Grounding:
    """Words read while something the description names was detected count more: a thing other than a person
    (a book, a bottle, a truck) that the detector knows, or one the scene tagger named on frames enough to be a
    sighting (an owl of a "great grey owl" tag)."""
    lexicon = _lexicon(ctx)  # "the card": what bore the words, not a thing seen with them
    words = [w for w in terms(described) if not (bears_text(w) or lexicon.bears_words(w))]
    labels = {label for word in words for label in lexicon.resolve(word) if label != "person"}
    stamps = sorted(s.stamp for s in ctx.store.sightings(sorted(labels), ctx.as_of, ctx.min_score)) if labels else []
    stamps = sorted([*stamps, *_tagged_stamps(ctx, words)])
    if not stamps:
        return grounding

    def seen(g: Grounded) -> bool:
        i = bisect.bisect_left(stamps, g.stamp - SEEN_WITH_S)
        return g.sense is Sense.READ and i < len(stamps) and stamps[i] <= g.end + SEEN_WITH_S

    found = [replace(g, score=fused(g.score, SEEN_WITH_SUPPORT)) if seen(g) else g for g in grounding.found]
    return Grounding(grounding.description, sorted(found, key=lambda g: (-g.score, g.stamp)))


def _tagged_stamps(ctx: ToolContext, words: list[str]) -> list[float]:
    """When the scene tagger named what one of the words names (a class, or a broader word it answers to, by its
    head: "street sign" names no street), on frames enough for a sighting."""
    lo, hi = ctx.window(None, None)
    classes = [
        label
        for label, broader in ctx.store.tag_classes(lo, hi, ctx.as_of, TAG_MIN_SCORE).items()
        if {name.split()[-1] for name in (label, *broader) if name.split()} & set(words)  # by its head: not "street"
    ]
    frames = ctx.store.tag_frames(classes, lo, hi, ctx.as_of, ctx.min_score) if classes else []
    counts = Counter(f.label for f in frames)
    return [f.stamp for f in frames if counts[f.label] >= TAG_MIN_FRAMES]


def _bearer_in_colour(ctx: ToolContext, grounding: Grounding, described: str, limit: int) -> Grounding:
    """Where the description gives what bore the words a colour ("the green folder"), a sign's lines are those of
    the block in the frame that shows it, where one stands out (the book beside it bore other words)."""
    colour = colour_named(described)
    if colour is None:
        return grounding
    found = list(grounding.found)
    for k, g in enumerate(found[:limit]):
        frame = g.data.get("frame_ref")
        if g.sense is not Sense.READ or not isinstance(frame, str):
            continue
        moment = ctx.store.moment(_ref_id(frame), with_payload=True)
        if moment is None or not moment.jpeg or len(moment.texts) < 2:
            continue
        try:
            rgb = jpeg_to_rgb(moment.jpeg)
        except VidmemError:
            continue  # a frame that no longer decodes answers with all its lines
        block = block_in_colour(rgb, text_blocks(moment.texts), colour, (moment.width, moment.height))
        if block is not None:  # a second piece of evidence, as the thing the description names seen with them is
            text, score = " / ".join(line.text for line in block), fused(g.score, SEEN_WITH_SUPPORT)
            found[k] = replace(g, text=text, score=score, data={**g.data, "colour": colour})
    return Grounding(grounding.description, sorted(found, key=lambda g: (-g.score, g.stamp)))


# Among records that hold a value, one read on several frames is the surer reading (a reader's garbage passes once):
# up to this much is added for up to CONFIRMING_FRAMES frames.
CONFIRMED_BONUS = 0.15
CONFIRMING_FRAMES = 3


def _labelled(ctx: ToolContext, kind: ValueKind, g: Grounded) -> bool:
    """For a name, whether a line of a label's length holds one, not only a long line (a blurb whose brand looks
    like a name); any record holding a number or a person's word counts."""
    if kind not in (ValueKind.NAME, ValueKind.OCCUPATION):
        return True
    short = [line for line in g.text.split(" / ") if len(line.split()) <= TITLE_WORDS_MAX]
    return any(_holds(ctx, kind, line) for line in short)


def _confirmed(g: Grounded) -> Grounded:
    return replace(g, score=round(g.score + CONFIRMED_BONUS * min(g.count, CONFIRMING_FRAMES) / CONFIRMING_FRAMES, 4))


# What a question says was met at a place that stands out is claimed there from this score on.
AT_PLACE_CLAIM_MIN = 0.1


# Asked who, a record that names someone answers before one with only a word for a person where it is grounded at
# least this share as well.
NAMED_SHARE = 0.5


def _holds(ctx: ToolContext, kind: ValueKind, text: str) -> bool:
    return holds_value(kind, text, *_word_tests(ctx))


def name_test(ctx: ToolContext) -> Callable[[str], bool]:
    """Whether a line read is a person's name, by the dictionary (``holds_value``): a badge's reading."""
    return lambda text: _holds(ctx, ValueKind.NAME, text)


def _spans(ctx: ToolContext, kind: ValueKind, text: str) -> list[str]:
    return value_spans(kind, text, *_word_tests(ctx))


def _word_tests(ctx: ToolContext) -> tuple[Callable[[str], bool] | None, Callable[[str], bool]]:
    """A dictionary's test for a common word and for a word for a person (none without WordNet)."""
    wordnet = _lexicon(ctx).wordnet
    if wordnet is None:
        return None, lambda word: False

    def person(word: str) -> bool:  # a word for a person in one of its two most frequent senses, not a people's name
        form = wordnet.base_form(word)
        return any(
            wordnet.lexfile(s) == LEX_PERSON and not wordnet.is_proper(s, form) for s in wordnet.senses(form)[:2]
        )

    def common(word: str) -> bool:  # a dictionary word other than a name ("Irena" is a genus, still a name); the
        form = wordnet.base_form(word)  # calendar's names ("Mon", "June") are no one's
        return any(not wordnet.is_proper(s, form) or wordnet.lexfile(s) == LEX_TIME for s in wordnet.senses(form))

    return common, person


def _view_end(ctx: ToolContext, ref: object) -> dict[str, Any]:
    """For a thing last met in a stored frame, the last frame of that frame's view (it stayed in view while the
    view did)."""
    if not isinstance(ref, str) or not ref.startswith("moment/"):
        return {}
    moment = ctx.store.moment(_ref_id(ref), with_payload=False)
    if moment is None:
        return {}
    last = ctx.reader.view_end(moment, ctx.as_of)
    return {"view_end_ref": f"moment/{last.id}", "_view_end": last.stamp}


def grounding_of(
    ctx: ToolContext, description: str, senses: list[Sense], window: tuple[float, float] | None = None
) -> Grounding:
    """The description grounded in memory as of the question, over ``window`` (all of memory by default)."""
    return _grounder(ctx, window or ctx.window(None, None)).ground(description, senses or tuple(Sense))


def read_ahead(ctx: ToolContext, since: float) -> int:
    """Embeds the meaning of what memory holds from ``since`` on (records) and of every place's description,
    before a question needs them; returns how many texts were embedded."""
    lo, hi = ctx.window(None, None)
    grounder = _grounder(ctx, (since, hi))
    listed = stays.places(ctx.visits(lo, hi))
    described = [text for p in listed for text in (p.description(), _set_apart_text(ctx, p.description(heard=False)))]
    return grounder.meaning.fill([*grounder.record_texts(), *(text or "nothing" for text in described)])


def _grounder(ctx: ToolContext, window: tuple[float, float]) -> Grounder:
    if ctx.meaning is None:
        ctx.meaning = MeaningCache(ctx.text_embedder)
    wordnet = _lexicon(ctx).wordnet
    return Grounder(
        ctx.store,
        ctx.as_of,
        window,
        ctx.meaning,
        lambda phrase: labels_for(ctx, phrase),
        ctx.min_score,
        (lambda word: bool(wordnet.senses(wordnet.base_form(word)))) if wordnet is not None else None,
        _lexicon(ctx).synonyms,
        ctx.records,
        _lexicon(ctx).kind_of,
        lambda text: _set_apart_text(ctx, text),
        _lexicon(ctx).bears_words,
        _lexicon(ctx).depicts,
        _lexicon(ctx).class_synonyms,
    )


# -- objects, text read, speech ------------------------------------------------------


def find_object(ctx: ToolContext, args: FindObjectArgs) -> ToolResult:
    labels = labels_for(ctx, args.name)
    if not labels:
        classified = "; the scene tagger knows it" if _lexicon(ctx).classified(head_words(args.name)) else ""
        return ToolResult(
            "find_object",
            note=f"the detector cannot recognise '{args.name}'{classified}; try search or inspect_frames",
        )
    lo, hi = ctx.window(args.start_t, args.end_t)
    sightings = [s for s in ctx.store.sightings(labels, ctx.as_of, ctx.weak_score) if lo <= s.stamp <= hi]
    strong = _at_least(wanted_count(args.name), [s for s in sightings if s.score >= ctx.min_score])
    runs = group_runs(strong, lambda s: s.stamp, ctx.occasion_gap_s)
    runs, company, not_with = _in_company(ctx, args.name, labels, runs, (lo, hi))
    runs, placed = _at_place(ctx, args.name, runs)
    findings = []
    for run in runs:
        best = max(run, key=lambda s: s.score)
        frames = {s.moment_id: s.score for s in run}
        findings.append(
            Finding(
                f"moment/{best.moment_id}",
                "occasion",
                run[0].stamp,
                run[-1].stamp,
                f"{best.label} in {len(frames)} frame(s), best score {best.score:.2f}",
                noisy_or(list(frames.values())),
                run[-1].pose,
                {
                    "label": best.label,
                    "frames": len(frames),
                    "first_ref": f"moment/{run[0].moment_id}",
                    "last_ref": f"moment/{run[-1].moment_id}",
                    "_first_pose": run[0].pose,
                    **({"not_with": not_with} if not_with else {}),
                },
            )
        )
    weak = len(sightings) - len(strong)
    note = f"labels searched: {', '.join(labels)}" + (f"; {weak} weak detection(s) not counted" if weak else "")
    note += company + placed
    if not strong and weak:
        top = max(sightings, key=lambda s: s.score)
        findings.append(
            Finding(f"moment/{top.moment_id}", "weak", top.stamp, top.stamp, f"weak {top.label}", top.score, top.pose)
        )
    return ToolResult("find_object", findings, note)


# A scene tag names a kind only where the tagger gave it at least this score, in at least two frames.
KIND_TAG_MIN_SCORE = 0.1


def kinds_of(ctx: ToolContext, args: KindsArgs) -> ToolResult:
    """The things of a kind that memory holds: detected or tagged (an animal: "dog", "heron") and named on
    signs read ("PELICAN"), each with its frames, most often met first."""
    lexicon = _lexicon(ctx)
    kind = without_count(args.kind.strip().lower())
    senses = lexicon.category(kind)
    if not senses:
        return ToolResult("kinds_of", note=f"'{args.kind}' is not a kind of thing the lexicon knows")
    lo, hi = ctx.window(args.start_t, args.end_t)
    met: list[Sighting] = []
    if args.how in ("seen", "any") and not args.numbers:  # a thing seen bears no number the models read
        met += [s for s in ctx.store.sightings(lexicon.resolve(kind), ctx.as_of, ctx.min_score) if lo <= s.stamp <= hi]
        tags = [s for s in ctx.store.tag_sightings(kind, ctx.as_of, KIND_TAG_MIN_SCORE) if lo <= s.stamp <= hi]
        frames = Counter(t.label for t in tags)
        met += [s for s in tags if frames[s.label] >= 2]
    read: list[Sighting] = []
    if args.how in ("read", "any"):
        named: dict[str, list[str]] = {}
        lines = ctx.store.texts_read(lo, hi, ctx.as_of, limit=5000)
        if args.numbers:  # a name read on the sign that bears the numbers asked about ("the wine in tank 14")
            signs: dict[int, list[str]] = {}
            for line in lines:
                signs.setdefault(line.moment_id, []).append(line.text)
            lines = [t for t in lines if all(_bears(" ".join(signs[t.moment_id]), n) for n in args.numbers)]
        for line in lines:
            for name in named.setdefault(line.text, lexicon.kinds_named(line.text, senses)):
                read.append(Sighting(line.moment_id, line.stamp, name, line.score, line.pose))
    if args.at.strip():  # "the animal at the stables": what was met while the robot was there
        place = place_claimed(ctx, args.at)
        if place is None:
            return ToolResult("kinds_of", note=f"{NO_PLACE} {args.at!r}")
        met, read = ([s for s in group if _mostly_during(s.stamp, s.stamp, place)] for group in (met, read))
    findings = [_kind_finding(g, "seen") for g in _by_label(met)] + [_kind_finding(g, "read") for g in _by_label(read)]
    findings.sort(key=lambda f: -int(f.data["frames"]))
    for f in findings[1:]:  # "pug" after "dog": a closer look at the thing met most, not another thing
        if lexicon.kind_of(str(f.data["label"]).lower(), str(findings[0].data["label"]).lower()):
            f.data["refines"] = True
    return ToolResult("kinds_of", findings, "" if findings else f"nothing of the kind {kind} seen or read")


def _bears(sign: str, named: str) -> bool:
    """Whether a sign's words hold a thing's name and number ("TANK 14" for "tank 14"), the number whole."""
    word, _, number = named.rpartition(" ")
    return holds_numbers(sign, [number]) and (not word or found_in(word, sign))


def _by_label(sightings: list[Sighting]) -> list[list[Sighting]]:
    groups: dict[str, list[Sighting]] = {}
    for sighting in sorted(sightings, key=lambda s: s.stamp):
        groups.setdefault(sighting.label, []).append(sighting)
    return list(groups.values())


def _kind_finding(group: list[Sighting], how: str) -> Finding:
    frames = {s.moment_id for s in group}
    best = max(group, key=lambda s: s.score)
    data = {"label": best.label, "frames": len(frames), "how": how, "first_ref": f"moment/{group[0].moment_id}"}
    text = f"{how} {best.label} in {len(frames)} frame(s)"
    return Finding(
        f"moment/{best.moment_id}", "kind", group[0].stamp, group[-1].stamp, text, best.score, best.pose, data
    )


def _lexicon(ctx: ToolContext) -> LabelLexicon:
    if ctx.lexicon is None:
        ctx.lexicon = LabelLexicon(ctx.vocabulary)
    return ctx.lexicon


def _in_company(
    ctx: ToolContext, name: str, labels: list[str], runs: list[list[Sighting]], window: tuple[float, float]
) -> tuple[list[list[Sighting]], str, list[str]]:
    """Where a description names other things too ("children flying a kite"), the occasions they were seen in as
    well; all occasions, with a note and the labels never seen with it, where they never were (a detector misses
    small things)."""
    rest = description_rest(name)
    if re.match(r"(?:with|without) (?:its|his|her|their)\b", rest):
        rest = ""  # "the car with its lights on": a part of the thing, no other thing seen with it
    others = [label for label in labels_for(ctx, rest) if label not in labels] if rest else []
    if not others or not runs:
        return runs, "", []
    lo, hi = window
    stamps = [s.stamp for s in ctx.store.sightings(others, ctx.as_of, ctx.min_score) if lo <= s.stamp <= hi]
    together = [run for run in runs if any(run[0].stamp <= t <= run[-1].stamp for t in stamps)]
    if together:
        return together, f"; only occasions with {', '.join(others)} in view", []
    return runs, f"; {', '.join(others)} never in view with it", others


# What places a thing where the robot was ("the person at the front desk", "the cup in the room with the cat").
_AT_PLACE = re.compile(r"^(?:at|in|inside|near|by|beside|next to|close to)\s+(.+)$")


def _at_place(ctx: ToolContext, name: str, runs: list[list[Sighting]]) -> tuple[list[list[Sighting]], str]:
    """Where a description places the thing at a place the robot stayed at, only the occasions there; none where
    it was never seen there.  A place that does not stand out restricts nothing."""
    where = _AT_PLACE.match(after_head(name).lower())
    if where is None or not runs:
        return runs, ""
    place = place_claimed(ctx, where.group(1))
    if place is None:
        return runs, ""
    there = [run for run in runs if any(run[0].stamp <= v.end and v.start <= run[-1].stamp for v in place.visits)]
    return there, f"; only occasions at the place that is {where.group(1)!r}" if there else "; never seen there"


def _at_least(count: int, sightings: list[Sighting]) -> list[Sighting]:
    """The sightings in frames that show at least ``count`` of the thing ("two people")."""
    if count <= 1:
        return sightings
    per_frame = Counter(s.moment_id for s in sightings)
    return [s for s in sightings if per_frame[s.moment_id] >= count]


def labels_for(ctx: ToolContext, name: str) -> list[str]:
    """The detector labels a description names: by its head words ("books" of "books on a shelf", never
    "shelf"), directly or by meaning."""
    return _lexicon(ctx).named(without_count(head_words(name)))


def find_text(ctx: ToolContext, args: FindTextArgs) -> ToolResult:
    """Occasions the words were read.  Partial reads (a sign half out of frame) extend an occasion, but its
    representative frame (``mid_ref``) is the middle of the best-matching reads, where the sign was whole."""
    lo, hi = ctx.window(args.start_t, args.end_t)
    candidates = ctx.store.search_text(args.text, limit=2000, as_of=ctx.as_of, kinds=("text",))
    lines = ctx.store.text_lines(sorted({h.ref for h in candidates if lo <= h.stamp <= hi}))
    read = _as_read(args.text, lines)
    found = [t for t in lines if read[t.id][0] >= 0.75]
    findings = []
    for run in group_runs(found, lambda t: t.stamp, ctx.occasion_gap_s):
        match = {t.id: read[t.id][0] for t in run}
        best_match = max(match.values())
        core = [t for t in run if match[t.id] >= best_match - 1e-6]
        mid = core[len(core) // 2]
        findings.append(
            Finding(
                f"moment/{mid.moment_id}",
                "occasion",
                run[0].stamp,
                run[-1].stamp,
                f'read "{read[mid.id][1]}" in {len({t.moment_id for t in run})} frame(s)',
                best_match,
                mid.pose,
                {
                    "read": read[mid.id][1],
                    "first_ref": f"moment/{core[0].moment_id}",
                    "mid_ref": f"moment/{mid.moment_id}",
                    "last_ref": f"moment/{core[-1].moment_id}",
                    "_mid": mid.stamp,
                    "_first": core[0].stamp,
                },
            )
        )
    return ToolResult("find_text", findings, "" if findings else f'nothing like "{args.text}" was read')


def _as_read(wanted: str, lines: Sequence[TextRead]) -> dict[int, tuple[float, str]]:
    """Per line, how well the words asked about match it, and as what: the line alone, or the lines read with it
    in its frame taken together (a sign's words often span several lines: "GATE" over "B12")."""
    signs: dict[int, list[TextRead]] = {}
    for line in lines:
        signs.setdefault(line.moment_id, []).append(line)
    together = {
        moment: (text_match(wanted, " ".join(t.text for t in sign)), " ".join(t.text for t in sign))
        for moment, sign in signs.items()
        if len(sign) > 1
    }
    out: dict[int, tuple[float, str]] = {}
    for line in lines:
        alone = (text_match(wanted, line.text), line.text)
        out[line.id] = max(alone, together.get(line.moment_id, (0.0, "")), key=lambda match: match[0])
    return out


def search_transcripts(ctx: ToolContext, args: TranscriptArgs) -> ToolResult:
    lo, hi = ctx.window(args.start_t, args.end_t)
    if args.query.strip():
        forms = _verb_forms(ctx, args.query)  # "what should be bought": "we need to buy ..." was heard
        query = " ".join([args.query, *forms.values()])
        hits = ctx.store.search_text(query, limit=100, as_of=ctx.as_of, kinds=("transcript",))
        scored = [(words_covered(args.query, h.text, forms), h) for h in hits if h.end_stamp >= lo and h.stamp <= hi]
        actions = _actions(ctx, args.query)
        findings = [
            Finding(
                f"transcript/{h.ref}", "transcript", h.stamp, h.end_stamp, h.text, score,
                data={"unmet": unmet} if (unmet := _unmet(ctx, actions, h.text)) else {},
            )
            for score, h in sorted(scored, key=lambda x: -x[0])
            if score >= 0.5
        ]  # fmt: skip
        if not findings:  # words the recogniser wrote as one ("east wing" heard as "Eastwing"): all of them
            lines = ctx.store.transcripts(lo, hi, ctx.as_of)
            findings = [
                Finding(f"transcript/{t.id}", "transcript", t.start, t.end, t.text, 1.0)
                for t in lines
                if words_covered(args.query, t.text, forms) == 1.0
            ]
        if not findings:  # ... or as words of like sound ("sold pins" for "salt bins"): less sure
            findings = _heard_alike(ctx, args.query, forms, lo, hi)
    else:
        lines = ctx.store.transcripts(lo, hi, ctx.as_of)
        findings = [Finding(f"transcript/{t.id}", "transcript", t.start, t.end, t.text) for t in lines]
    if args.questions:
        findings = [f for f in findings if asks_something(f.text)]
    if not args.query.strip() and args.newest:
        findings = findings[-args.limit :]
    findings = [_with_pose(ctx, f) for f in findings[: args.limit]]
    return ToolResult("search_transcripts", findings, "" if findings else "nothing heard matched")


def _heard_alike(ctx: ToolContext, query: str, forms: dict[str, str], lo: float, hi: float) -> list[Finding]:
    """Sentences heard that hold the query's words, some as words of like sound the recogniser wrote for them."""
    words = content_words(query)
    found = []
    for t in ctx.store.transcripts(lo, hi, ctx.as_of):
        alike = misheard_as(words, t.text)
        score = words_covered(query, t.text, {**forms, **alike}) if alike else 0.0
        if score >= 0.5:
            found.append(Finding(f"transcript/{t.id}", "transcript", t.start, t.end, t.text, SOUNDS_ALIKE * score))
    return sorted(found, key=lambda f: -f.score)


# How much a sentence found by words of like sound counts against one found by the words themselves.
SOUNDS_ALIKE = 0.85


def _verb_forms(ctx: ToolContext, query: str) -> dict[str, str]:
    """The dictionary form of each of the query's words that is an inflected verb ("bought": "buy"), and the word
    a title abbreviated stands for."""
    wordnet = _lexicon(ctx).wordnet
    if wordnet is None:
        return {}
    bases = {w: wordnet.verb_base(w) for w in content_words(query)}
    titles = {w: _TITLES[w] for w in re.findall(r"[a-z]+", query.lower()) if w in _TITLES}  # "Dr" heard as "Doctor"
    return {w: base for w, base in bases.items() if base != w} | titles


# Titles a question abbreviates and a recogniser writes out.
_TITLES = {"dr": "doctor", "prof": "professor", "capt": "captain", "sgt": "sergeant", "insp": "inspector"}


def timeline(ctx: ToolContext, args: TimelineArgs) -> ToolResult:
    """What was seen, read and heard in a time range, as occasions in time order (and the scenes, if asked)."""
    lo, hi = ctx.window(args.start_t, args.end_t)
    what = set(args.what or ("objects", "text", "speech"))
    findings: list[Finding] = []
    if "scenes" in what:
        findings += [event_finding(e) for e in ctx.store.events(lo, hi, ctx.as_of)]
    moments = ctx.store.moments(lo, hi, ctx.as_of, limit=20_000) if what & {"objects", "text"} else []
    if "objects" in what:
        seen = [(d.label, d.score, m) for m in moments for d in m.detections if d.score >= ctx.min_score]
        findings += _occasions(seen, ctx.occasion_gap_s, "saw")
    if "text" in what:
        read = [(line.text, line.score, m) for m in moments for line in m.texts]
        findings += _occasions(read, ctx.occasion_gap_s, "read")
    if "speech" in what:
        heard = ctx.store.transcripts(lo, hi, ctx.as_of)
        findings += [Finding(f"transcript/{t.id}", "transcript", t.start, t.end, t.text) for t in heard]
    findings.sort(key=lambda f: f.stamp)
    note = f"{len(findings) - args.limit} more not shown" if len(findings) > args.limit else ""
    shown = [_with_pose(ctx, f) if f.kind == "transcript" else f for f in findings[: args.limit]]  # only those shown
    return ToolResult("timeline", shown, note or ("" if findings else "nothing in that range"))


def _occasions(items: list[tuple[str, float, Moment]], gap_s: float, verb: str) -> list[Finding]:
    """Per distinct label or text, runs of frames no more than ``gap_s`` apart."""
    by_key: dict[str, list[tuple[str, float, Moment]]] = {}
    for item in items:
        by_key.setdefault(squash(item[0]) or item[0], []).append(item)
    found = []
    for group in by_key.values():
        for run in group_runs(group, lambda x: x[2].stamp, gap_s):
            _, score, best = max(run, key=lambda x: x[1])
            name = Counter(x[0] for x in run).most_common(1)[0][0]  # the commonest reading: one frame's OCR may slip
            first, last = run[0][2], run[-1][2]
            found.append(
                Finding(
                    f"moment/{best.id}",
                    "occasion",
                    first.stamp,
                    last.stamp,
                    f'{verb} "{name}"' if verb == "read" else f"{verb} {name}",
                    round(score, 3),
                    last.pose,
                    {
                        "label" if verb == "saw" else "read": name,
                        "frames": len({x[2].id for x in run}),
                        "first_ref": f"moment/{first.id}",
                        "last_ref": f"moment/{last.id}",
                    },
                )
            )
    return found


# -- navigation ----------------------------------------------------------------------


def navigate(ctx: ToolContext, args: NavigateArgs) -> ToolResult:
    if args.ref == "root":
        root = ctx.store.summary(ROOT_KEY)
        children = _summaries(ctx, -math.inf, math.inf)
        head = [Finding("root", "root", root[0], root[1], root[2])] if root and ctx.as_of is None else []
        return ToolResult("navigate", head + children, "" if children else "memory has no closed periods yet")
    kind, ident = args.ref.split("/")
    if kind == "super_event":
        periods = {s.id: s for s in ctx.store.super_events(ctx.as_of)}
        if int(ident) not in periods:
            raise ToolError(f"{args.ref} does not exist at the question's moment")
        period = periods[int(ident)]
        events = [e for e in ctx.store.events(period.start, period.end, ctx.as_of) if e.super_id == period.id]
        summary = Finding(args.ref, "super_event", period.start, period.end, period.summary)
        return ToolResult("navigate", [summary, *(event_finding(e) for e in events)])
    event = visible_event(ctx, int(ident))
    frames = [ctx.store.moment(k, with_payload=False) for k in event.keyframe_ids]
    keyframes = [moment_finding(m, ctx.min_score) for m in frames if m is not None]
    return ToolResult("navigate", [event_finding(event, detail=True), *keyframes])


def neighbors(ctx: ToolContext, args: NeighborsArgs) -> ToolResult:
    start = visible_event(ctx, _ref_id(args.event))
    seen, frontier, findings = {start.id}, [start.id], []
    for _ in range(args.depth):
        step = []
        for event_id in frontier:
            for edge in ctx.store.edges(event_id, args.kinds):
                other = edge.dst if edge.src == event_id else edge.src
                event = ctx.store.event(other)
                if other in seen or event is None or event.status != "closed" or event.end > ctx.upper:
                    continue
                seen.add(other)
                step.append(other)
                relation = edge.kind if edge.src == event_id else f"{edge.kind} (reversed)"
                finding = event_finding(event)
                findings.append(
                    Finding(
                        finding.ref,
                        "event",
                        event.start,
                        event.end,
                        finding.text,
                        edge.confidence,
                        event.start_pose,
                        {"relation": relation, "from": f"event/{event_id}", "origin": edge.origin},
                    )
                )
        frontier = step
    return ToolResult("neighbors", findings, "" if findings else "no related events")


def visible_event(ctx: ToolContext, event_id: int) -> Event:
    event = ctx.store.event(event_id)
    if event is None:
        raise ToolError(f"event/{event_id} does not exist")
    if event.status != "closed" or event.end > ctx.upper:
        raise ToolError(f"event/{event_id} had not ended by the question's moment; nothing after it can be read")
    return event


def event_finding(event: Event, detail: bool = False) -> Finding:
    data: dict[str, Any] = {}
    if event.labels:
        data["seen"] = event.labels[:8]
    if event.texts:
        data["read"] = event.texts[:5]
    if event.transcript:
        data["heard"] = event.transcript[: 5 if detail else 2]
    if detail:
        data.update(keyframes=[f"moment/{k}" for k in event.keyframe_ids], path_m=round(event.path_m, 1))
        if event.change:
            data["change"] = event.change
    return Finding(f"event/{event.id}", "event", event.start, event.end, event.caption, 1.0, event.start_pose, data)


def moment_finding(moment: Moment, min_score: float) -> Finding:
    labels = sorted({d.label for d in moment.detections if d.score >= min_score})
    data: dict[str, Any] = {}
    if labels:
        data["seen"] = labels
    if moment.texts:
        data["read"] = [t.text for t in moment.texts[:4]]
    if moment.event_id is not None:
        data["event"] = f"event/{moment.event_id}"
    return Finding(f"moment/{moment.id}", "moment", moment.stamp, moment.stamp, "", 1.0, moment.pose, data)


# -- inspection ----------------------------------------------------------------------


def inspect_frames(ctx: ToolContext, args: InspectArgs) -> ToolResult:
    findings, notes = [], []
    for ref in args.refs:
        if not ref.startswith("moment/"):
            raise ToolError(f"{ref}: inspect_frames takes moment/N references")
        moment = ctx.store.moment(_ref_id(ref), with_payload=True)
        if moment is None:
            notes.append(f"{ref} does not exist")
            continue
        ctx.require_visible(moment.stamp, ref)
        findings.append(_inspect(ctx, moment, args.look_for, notes))
    return ToolResult("inspect_frames", findings, "; ".join(notes))


def _inspect(ctx: ToolContext, moment: Moment, look_for: str, notes: list[str]) -> Finding:
    stored = moment_finding(moment, ctx.min_score)
    p = ctx.perception
    kinds = {"objects": ("detector",), "text": ("ocr",), "scene": ("tagger", "captioner")}[look_for]
    kind, model = next(((k, m) for k in kinds if (m := p.model(k)) is not None), (kinds[0], None))
    if moment.jpeg is None or model is None:
        why = "its image was thinned by retention" if moment.jpeg is None else f"no {look_for} model is loaded"
        notes.append(f"{stored.ref}: showing what was stored at ingest ({why})")
        return stored
    rgb = jpeg_to_rgb(moment.jpeg)
    data = dict(stored.data)
    if kind == "detector":
        data["seen"] = [f"{d.label} {d.score:.2f}" for d in model.detect(rgb) if d.score >= ctx.weak_score]
    elif kind == "ocr":
        data["read"] = [line.text for line in model.read(rgb)]
    elif kind == "tagger":
        data["looks_like"] = [f"{t.label} {t.score:.2f}" for t in model.tag(rgb)[:5]]
    else:
        labels, texts = event_labels([moment], ctx.min_score), event_texts([moment])
        data["caption"] = model.caption(EventFacts(moment.stamp, moment.stamp, labels, texts, [], [moment]), None).text
    return Finding(stored.ref, "moment", moment.stamp, moment.stamp, "inspected", 1.0, moment.pose, data)


def recent_frames(ctx: ToolContext, args: RecentArgs) -> ToolResult:
    moments = ctx.reader.in_view(ctx.as_of)
    if not moments:
        return ToolResult("recent_frames", note="memory is empty")
    step = max(1, len(moments) // args.limit)
    chosen = moments[::-1][::step][: args.limit][::-1]
    return ToolResult("recent_frames", [moment_finding(m, ctx.min_score) for m in chosen])


# -- place ---------------------------------------------------------------------------


# How far from the moment asked the kept frame that cites a pose read along the path may be.
POSE_FRAME_REACH_S = 120.0


def pose_at(ctx: ToolContext, args: PoseAtArgs) -> ToolResult:
    """The robot's pose at t, read along its stored path (else the nearest kept frame's), cited by the kept frame
    nearest t: a "pose" finding stands for the moment asked, not for that frame's own."""
    stamp = ctx.stamp(args.t, 0.0)
    ctx.require_visible(stamp, f"t={args.t}")
    pose = ctx.reader.pose_at(stamp, ctx.as_of)
    reach = POSE_FRAME_REACH_S if pose is not None else 10.0
    moments = [m for m in ctx.store.moments(stamp - reach, stamp + reach, ctx.as_of) if m.pose is not None]
    if not moments:
        return ToolResult("pose_at", note=f"no pose recorded within 10 s of t={args.t}")
    nearest = min(moments, key=lambda m: abs(m.stamp - stamp))
    frame = moment_finding(nearest, ctx.min_score)
    data = {**frame.data, "frame_t": round(nearest.stamp - ctx.t0, 1)}
    return ToolResult(
        "pose_at", [replace(frame, kind="pose", stamp=stamp, end=stamp, pose=pose or nearest.pose, data=data)]
    )


def when_near(ctx: ToolContext, args: WhenNearArgs) -> ToolResult:
    lo, hi = ctx.window(args.start_t, args.end_t)
    moments = [m for m in ctx.store.moments_near(args.x, args.y, args.radius, ctx.as_of) if lo <= m.stamp <= hi]
    runs = group_runs(moments, lambda m: m.stamp, ctx.occasion_gap_s)
    findings = [
        Finding(
            f"moment/{run[0].id}", "occasion", run[0].stamp, run[-1].stamp, f"{len(run)} frame(s)", 1.0, run[0].pose
        )
        for run in runs
    ]
    return ToolResult("when_near", findings, "" if findings else "never within that radius")


def find_places(ctx: ToolContext, args: PlacesArgs) -> ToolResult:
    """The places the robot stayed at (from its path), each with its visits, best match to ``about`` first."""
    lo, hi = ctx.window(args.start_t, args.end_t)
    found = ctx.visits(lo, hi)
    if not found:
        return ToolResult("places", note="no stays in the robot's path (no pose recorded, or it never stopped)")
    listed = stays.places(found)
    scores = place_scores(ctx, args.about, listed) if args.about.strip() else [1.0] * len(listed)
    ranked = list(zip(scores, listed, strict=True))
    if args.about.strip():
        ranked.sort(key=lambda sp: -sp[0])
    findings = [place_finding(ctx, place, score) for score, place in ranked]
    order = " > ".join(f"place/{v.place}" for v in found)
    named = _lexicon(ctx).activity_named(args.about)
    activity = f"; {args.about!r} {NAMES_ONLY_ACTIVITY if named == 'only' else NAMES_ACTIVITY}" if named else ""
    return ToolResult("places", findings, f"visits in order: {order}{activity}")


# Why a tool asked about one place found nothing there: no place it stayed at matches the description well enough.
NO_PLACE = "no place I stayed at stands out as"


def place_claimed(ctx: ToolContext, about: str) -> stays.Place | None:
    """The place ``about`` describes, where one matches well enough and ahead of the next by the margin; found once
    per question (several of its tools may ask of the same place)."""
    lo, hi = ctx.window(None, None)
    key = (f"place claimed: {about}", lo, hi)
    if key not in ctx.records:
        ctx.records[key] = _place_claimed(ctx, about, stays.places(ctx.visits(lo, hi)))
    claimed: stays.Place | None = ctx.records[key]
    return claimed


def _place_claimed(ctx: ToolContext, about: str, listed: list[stays.Place]) -> stays.Place | None:
    if not listed:
        return None
    ranked = sorted(zip(place_scores(ctx, about, listed), listed, strict=True), key=lambda sp: -sp[0])
    (best, place), runner_up = ranked[0], (ranked[1][0] if len(ranked) > 1 else 0.0)
    return place if best >= CLAIM_MIN and best - runner_up >= CLAIM_MARGIN else None


def place_scores(ctx: ToolContext, about: str, listed: list[stays.Place]) -> list[float]:
    """How well each place matches ``about``: the best record the description is grounded in during one of its
    visits (a sign read there naming it, a sentence heard there, a thing seen there), or its whole description by
    words and meaning where that is better."""
    named = _by_name(ctx, about, listed)
    things = _WITH_THING.findall(about)
    labels = [label for thing in things for label in labels_for(ctx, thing)]
    shares = [p.share_with(labels) for p in listed]
    if any(shares):  # "the room with the chess players": as much where the things were seen as what it is called
        named = [(a + b) / 2 for a, b in zip(named, shares, strict=True)]
    grounded = _grounded_at(ctx, about, listed)
    return [max(a, b) for a, b in zip(named, grounded, strict=True)]


def _grounded_at(ctx: ToolContext, about: str, listed: list[stays.Place]) -> list[float]:
    """Per place, the best score of what ``about`` is grounded in while the robot was there: records that lie
    mostly within its visits (an event that spans two places places neither)."""
    description = " ".join(w for w in about.split() if w.lower().strip(",.()") not in GENERIC_PLACES)
    if not description.strip():
        return [0.0] * len(listed)
    # What names a place: words read or heard there that share a word with the description, or a thing seen
    # there that it names whole.  A thing seen that only shares a word with it ("sports ball" for "the ball
    # players") is the share of frames above, and a record that only means something like it is no name.
    grounded = grounding_of(ctx, description, []).found
    found = [g for g in grounded if g.words >= 1.0 or (g.sense is not Sense.SEEN and g.words > 0)]
    # ... by its words: not by a kind of one of them ("NO BICYCLES" names no "vehicle queue")
    found = [g for g in found if not g.data.get("by_kind")]
    found = [g for g in found if g.sense is not Sense.HEARD or not names_elsewhere(g.text, description)]
    # ... nor a sign that names another place of its kind ("TYRE STORE" for "the hat shop")
    found = [g for g in found if g.words >= 1.0 or not _names_another(ctx, description, g.text)]
    weight = {Sense.HEARD: HEARD_AT_PLACE}
    scores = [
        max((g.score * weight.get(g.sense, 1.0) for g in found if _mostly_during(g.stamp, g.end, place)), default=0.0)
        for place in listed
    ]
    # A sign read there that only means what the description says ("WASH AT 40 / DETERGENT" for "the
    # laundry") tells the kind of place, for less: one record, not the whole place's mixed description.
    meant = [g for g in grounded if g.sense is Sense.READ and g.words == 0 and g.meaning >= MEANT_AT_PLACE_MIN]
    meant = _meant_beyond_kind(ctx, description, meant)
    return [
        max(score, max((MEANT_AT_PLACE * g.meaning for g in meant if _mostly_during(g.stamp, g.end, p)), default=0.0))
        for score, p in zip(scores, listed, strict=True)
    ]


# A sign that means what a place is called, without its words, names the place for this share of its likeness, from
# this likeness on.
MEANT_AT_PLACE = 0.7
MEANT_AT_PLACE_MIN = 0.4
# ... where the words that say which place carry it: the whole description is this much closer to the sign than the
# kind of place alone ("ceramics studio" than "studio"; not "the boardroom" of a sign that reads "ROOM 4").
MEANT_BEYOND_KIND = 0.1


# What follows a place's name and says more of it ("the lab with the fume hoods", "the shed where the bikes were").
_PLACE_QUALIFIER = re.compile(r"\s+(?:with|of|in|at|on|near|by|beside|where|that|which|whose|full of)\s+")


def _kind_of_place(description: str) -> str:
    """The noun of a place's name of more words ("studio" of "the ceramics studio with the kilns"); a name of
    one word is a kind itself, measured against a room of any kind."""
    head = terms(_PLACE_QUALIFIER.split(head_words(description))[0])
    return head[-1] if len(head) > 1 else "room"


def _meant_beyond_kind(ctx: ToolContext, description: str, meant: list[Grounded]) -> list[Grounded]:
    """The records a description means by more than the kind of place it names: its head noun alone would not."""
    if not meant or ctx.meaning is None:
        return []
    texts = [g.text.lower() for g in meant]
    whole = ctx.meaning.cosines(description, texts)
    kind = ctx.meaning.cosines(_kind_of_place(description), texts)
    return [g for g, a, b in zip(meant, whole, kind, strict=True) if a - b >= MEANT_BEYOND_KIND]


def _names_another(ctx: ToolContext, description: str, text: str) -> bool:
    """Whether a text names another thing of the kind a description of two words or more names: its head noun (or
    a word for it) after a word of its own that the description does not say ("TYRE STORE" of "the hat shop",
    "PUMP ROOM" of "the chart room")."""
    words = terms(description)
    if len(words) < 2:
        return False
    head, modifiers = words[-1], words[:-1]
    heads = {head, *_lexicon(ctx).synonyms(head)}
    tokens = re.findall(r"[a-z]+", text.lower())
    return any(
        any(found_in(h, token) for h in heads)
        and len(before) > 2
        and before not in FUNCTION_WORDS
        and not any(found_in(m, before) for m in modifiers)
        for before, token in itertools.pairwise(tokens)
    )


# A sentence heard at a place may name another ("the van is at the gate"): it names the place it was heard at for
# this share of its score, so a sign read there or a thing seen there that matches as well comes first.
HEARD_AT_PLACE = 0.9


def names_elsewhere(sentence: str, description: str) -> bool:
    """Whether a sentence names the place a description gives only as where to go or where something came from
    ("head back to the loading bay", "bring it over from the garage"): not the place it was said at."""
    words = terms(description)
    hits = towards = 0
    for clause in re.split(r"[,;:.!?]", sentence.lower()):
        tokens = re.findall(r"[a-z0-9']+", clause)
        found = {i for i, t in enumerate(tokens) if any(found_in(w, t) for w in words)}
        after = {
            i + k for i, t in enumerate(tokens) if t in _MOTION_PREPOSITIONS for k in range(1, PLACE_NAME_WORDS + 1)
        }
        hits, towards = hits + len(found), towards + len(found & after)
    return hits > 0 and towards == hits


# Prepositions of motion ("to the", "from the"): what follows names another place than the one a sentence is said at.
_MOTION_PREPOSITIONS = frozenset(("to", "into", "onto", "towards", "toward", "from"))
PLACE_NAME_WORDS = 4  # a determiner and up to three words of a place's name


def _mostly_during(start: float, end: float, place: stays.Place) -> bool:
    inside = sum(max(0.0, min(end, v.end) - max(start, v.start)) for v in place.visits)
    if end - start < 1.0:
        return any(v.start - 1.0 <= start <= v.end + 1.0 for v in place.visits)
    return inside >= 0.5 * (end - start)


# "(the one) with the X": things a place is described by, up to a bracket, comma or the next clause.
_WITH_THING = re.compile(r"\bwith (?:the |a |an |some |many |lots of )?([a-z][a-z -]*?)(?=[),;.]|\band\b|$)")


def _by_name(ctx: ToolContext, about: str, listed: list[stays.Place]) -> list[float]:
    """How well each place's description matches ``about``: what was seen and read there, or with what was heard
    there, which counts for less (see ``HEARD_AT_PLACE``)."""
    about = " ".join(w for w in about.split() if w.lower().strip(",.()") not in GENERIC_PLACES) or about
    unheard = _described(ctx, about, [_set_apart_text(ctx, p.description(heard=False)) for p in listed])
    heard = _described(
        ctx, about, [_set_apart_text(ctx, p.description(unless=lambda s: names_elsewhere(s, about))) for p in listed]
    )
    return [max(a, HEARD_AT_PLACE * b) for a, b in zip(unheard, heard, strict=True)]


def _described(ctx: ToolContext, about: str, texts: list[str]) -> list[float]:
    lexical = [words_covered(about, text) for text in texts]
    if ctx.text_embedder is None or not any(texts):
        return lexical
    if ctx.meaning is None:
        ctx.meaning = MeaningCache(ctx.text_embedder)
    meaning = [max(0.0, c) for c in ctx.meaning.cosines(about, [t or "nothing" for t in texts])]
    return [max(a, b) for a, b in zip(lexical, meaning, strict=True)]


def place_finding(ctx: ToolContext, place: stays.Place, score: float) -> Finding:
    first, last = place.visits[0], place.visits[-1]
    pose = Pose(place.frame_id, place.x, place.y, 0.0, 0.0, 0.0, 0.0, 1.0)
    visits = [[round(v.start - ctx.t0, 1), round(v.end - ctx.t0, 1)] for v in place.visits]
    data = {"place": place.id, "visits": visits, "dwell_s": round(place.dwell_s, 1), "brief": place.brief()}
    return Finding(f"place/{place.id}", "place", first.start, last.end, place.description(), score, pose, data)


def _with_pose(ctx: ToolContext, finding: Finding) -> Finding:
    nearby = [m for m in ctx.store.moments(finding.stamp - 5.0, finding.stamp + 5.0, ctx.as_of) if m.pose]
    if not nearby:
        return finding
    pose = min(nearby, key=lambda m: abs(m.stamp - finding.stamp)).pose
    return Finding(
        finding.ref, finding.kind, finding.stamp, finding.end, finding.text, finding.score, pose, finding.data
    )


# -- helpers -------------------------------------------------------------------------


def noisy_or(scores: list[float]) -> float:
    miss = 1.0
    for score in sorted(scores, reverse=True)[:5]:
        miss *= 1.0 - score
    return round(min(0.99, 1.0 - miss), 3)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _ref_id(ref: str) -> int:
    return int(ref.split("/")[1])
