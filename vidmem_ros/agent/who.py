"""Questions about who spoke or was seen, read and answered: who said X, what else did the person who said X
say, how many different people spoke, were seen or were met, was it the same person who said X and Y, when did
you first or last see Dana (or the person who said X), where did you see them, is Dana the person who said X (or
the person you saw at (2, 1), or Sam): whether two ways of naming someone name one person, from the voices and
faces told apart and the links between them.

What was said is found by the ``ground`` tool (how=["heard"]), the one retriever of sentences heard; the voice
that said it by the ``person`` tool.  The offline planner hands a question here when ``who_question`` reads it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Generator
from dataclasses import dataclass
from enum import Enum

from vidmem_ros.agent.harness import AgentState, Observation
from vidmem_ros.agent.steps import NOT_SEEN_CONFIDENCE, Script, Step, answer, call
from vidmem_ros.agent.tool_context import Finding


class WhoAsked(str, Enum):
    WHO = "who"  # who said X
    ALSO = "also"  # what else did the person who said X say
    COUNT = "count"  # how many different people spoke
    SAME = "same"  # was it the same person who said X and Y
    LIST = "list"  # who spoke / who did you hear
    SEEN = "seen"  # how many different people did you see (faces)
    MET = "met"  # how many different people did you meet (voices and faces, a linked pair once)
    WHEN = "when"  # when did you first / last see X
    WHERE = "where"  # where did you see X
    IS = "is"  # is A (a name, the person who said X, the person you saw at P) the same person as B


@dataclass(frozen=True)
class WhoQuestion:
    asked: WhoAsked
    said: str = ""  # X
    other: str = ""  # Y
    who: str = ""  # the person asked about: a name, "the person who said X" or "the person you saw at (x, y)"
    edge: str = "last"  # first or last (WHEN, WHERE)
    whom: str = ""  # the other person named (IS)


_SAY = (
    r"(?:said|say|says|told you(?: about)?|tell you(?: about)?|mentioned|mention|asked(?: for| about)?|ask(?: for)?"
    r"|reported|report|talked about|spoke about|announced|warned(?: you)? about|complained about)"
)
_ONE = r"(?:person|one|speaker|voice|man|woman|guy|lady|somebody|someone|people)"
_SAME = r"(?:the same|one and the same)"
_PATTERNS = (
    (WhoAsked.SEEN, r"^how many (?:different |distinct |separate )?(?:people|persons|faces) (?:did you see|have you seen"
     r"|were seen|were in view|came into view)\b"),
    (WhoAsked.MET, r"^how many (?:different |distinct |separate )?(?:people|persons) (?:did you meet|have you met"
     r"|did you encounter|have you encountered)\b"),
    (WhoAsked.WHEN, r"^when did you (?P<edge>first|last) see (?P<who>.+)$"),
    (WhoAsked.WHEN, r"^when (?:was|were) (?P<who>.+?) (?P<edge>first|last) seen$"),
    (WhoAsked.WHERE, r"^where did you (?:(?P<edge>first|last) )?(?:see|meet) (?P<who>.+)$"),
    (WhoAsked.WHERE, r"^where (?:was|were) (?P<who>.+?) seen$"),
    (WhoAsked.COUNT, r"^how many (?:different |distinct |separate )?(?:people|persons|voices|speakers) "
     r"(?:spoke|talked|have spoken|have talked|did you hear|have you heard|were heard|spoke to you|talked to you)\b"),
    (WhoAsked.SAME, rf"^(?:was|is|were) (?:it|that|they) {_SAME} {_ONE} (?:who|that) "
     rf"{_SAY} (?P<x>.+?),? (?:and|as (?:the {_ONE} )?(?:who|that)) (?:(?:who|that) )?(?:{_SAY} )?(?P<y>.+)$"),
    (WhoAsked.SAME, rf"^did {_SAME} {_ONE} {_SAY} (?P<x>.+?),? and (?:(?:that|also) )?(?:{_SAY} )?(?P<y>.+)$"),
    (WhoAsked.SAME, rf"^(?:were|was) (?P<x>.+?) and (?P<y>.+?) (?:{_SAY}|said|mentioned) by {_SAME} {_ONE}$"),
    (WhoAsked.ALSO, rf"^what (?:else |other things? |more )?did the {_ONE} (?:who|that) {_SAY} (?P<x>.+?) "
     r"(?:also |else )?say(?: else)?$"),
    (WhoAsked.ALSO, rf"^what else did (?:he|she|they) say,? the {_ONE} (?:who|that) {_SAY} (?P<x>.+)$"),
    (WhoAsked.WHO, rf"^who (?:was it (?:that|who) )?{_SAY} (?P<x>.+)$"),
    (WhoAsked.WHO, rf"^(?:which|what) {_ONE} {_SAY} (?P<x>.+)$"),
    (WhoAsked.WHO, rf"^whose voice (?:was it that )?{_SAY} (?P<x>.+)$"),
    (WhoAsked.WHO, rf"^who (?:is|was) the {_ONE} (?:who|that) {_SAY} (?P<x>.+)$"),
    (WhoAsked.IS, rf"^(?:is|was) (?P<who>.+?) (?:the same {_ONE} as |{_SAME} {_ONE} (?:as )?)(?P<whom>.+)$"),
    (WhoAsked.IS, rf"^(?:is|was) (?P<who>.+?) (?P<whom>the {_ONE} (?:who|that) {_SAY} .+)$"),
    (WhoAsked.IS, rf"^(?:is|was) it (?P<who>.+?) (?P<whom>(?:who|that) {_SAY} .+)$"),
    (WhoAsked.LIST, r"^who (?:spoke|talked|did you hear|have you heard|was speaking|spoke to you|talked to you)$"),
)  # fmt: skip
# Words that ask for the question that follows them: "do you know who said X" is "who said X".
_ASKING = re.compile(r"^(?:(?:do|did) you (?:know|remember)|(?:can|could) you tell me|(?:please )?tell me),? ")
_COMPILED = [(asked, re.compile(pattern)) for asked, pattern in _PATTERNS]
_SAID_BY = re.compile(rf"^(?:the {_ONE} )?(?:who|that) {_SAY} (?P<x>.+)$")
_NUMBER = r"-?\d+(?:\.\d+)?"
# "the person you saw at (2, 1)", "the one seen at 2, 1", "the one you saw there" is no place
_SEEN_AT = re.compile(rf"^(?:the )?{_ONE}? ?(?:(?:who|that) )?(?:you saw|you met|seen|(?:was|were) seen) at "
                      rf"\(?(?P<x>{_NUMBER}),\s*(?P<y>{_NUMBER})\)?$")  # fmt: skip
NEAR_M = 1.5  # a place asked about and a spot where someone was seen are one place
_FILLER = re.compile(r"^(?:that |about |the words? |the sentence )")


def who_question(text: str) -> WhoQuestion | None:
    """The question as one about who spoke, or None."""
    clean = re.sub(r"\s+", " ", text.strip().lower().rstrip("?!. ")).replace("\u2019", "'")
    clean = _ASKING.sub("", clean)
    for asked, pattern in _COMPILED:
        match = pattern.match(clean)
        people = [match.group(g) for g in ("who", "whom") if g in match.re.groupindex] if match else []
        if match and not all(_a_person(who, text) for who in people):
            return None  # "when did you last see the fire extinguisher" is about a thing
        if match and asked in (WhoAsked.SEEN, WhoAsked.MET) and _EACH_OCCASION.search(clean):
            return None  # "how many people, counting each sighting": the occasions, not the different people
        if match:
            groups = match.groupdict()
            return WhoQuestion(asked, _said(groups.get("x") or ""), _said(groups.get("y") or ""),
                               (groups.get("who") or "").strip(), groups.get("edge") or "last",
                               (groups.get("whom") or "").strip())  # fmt: skip
    return None


# A remark that every occasion counts ("counting each sighting", "repeats included"): people met more than once count
# each time.
_EACH_OCCASION = re.compile(
    r"\b(?:counting|including|count|counted|with) (?:each|every|all|repeat|repeated)(?: \w+)?"
    r"|\b(?:repeats|repeat sightings|repeated sightings) (?:included|counted|too)\b|\beach (?:sighting|time|occasion)"
    r" (?:separately|on its own|counted)\b"
)


def _a_person(who: str, asked: str) -> bool:
    """Whether the one a question asks about is a person: the one who said something or was seen somewhere, or a
    name (every word capitalised as asked)."""
    if _SAID_BY.match(who) or _SEEN_AT.match(who):
        return True
    found = re.search(re.escape(who), asked, re.IGNORECASE)
    return found is not None and all(word[:1].isupper() for word in found.group(0).split())


def _said(words: str) -> str:
    return _FILLER.sub("", words.strip(" \"'“”,")).strip(" \"'“”,")


def who_script(state: AgentState, q: WhoQuestion) -> Script:
    """The answer to ``q``, from the ground, person and people tools."""
    if q.asked in (WhoAsked.SEEN, WhoAsked.MET):
        yield from _count(q.asked)
        return
    if q.asked in (WhoAsked.WHEN, WhoAsked.WHERE):
        yield from _when_where(state, q)
        return
    if q.asked is WhoAsked.IS:
        yield from _is_same(q)
        return
    if q.asked in (WhoAsked.COUNT, WhoAsked.LIST):
        obs = (yield [call("people", limit=50, how="heard")])[0]
        found = obs.result.findings
        if not found:
            yield answer("I have not told any voices apart.", NOT_SEEN_CONFIDENCE, value=0)
            return
        names = "; ".join(_described(f) for f in found[:5])
        refs = [f.data["first_ref"] for f in found]
        lead = f"I heard {len(found)} different {'person' if len(found) == 1 else 'people'}"
        value: int | str = len(found) if q.asked is WhoAsked.COUNT else ", ".join(f.text for f in found)
        yield answer(f"{lead}: {names}.", 0.8, refs, value=value)
        return
    first = yield from _speaker_of(q.said)
    if first is None:
        yield answer(f'I did not hear anyone say "{q.said}".', NOT_SEEN_CONFIDENCE, value="")
        return
    who, said = first
    if q.asked is WhoAsked.WHO:
        text = f'It was {who.text}: I heard "{said.text}" at t={said.stamp - state.t0:.0f} s.'
        yield answer(text, 0.85 * said.score, [said.ref, who.data["first_ref"]], said.ref, said.ref, value=who.text)
    elif q.asked is WhoAsked.ALSO:
        obs = (yield [call("person", ref=who.ref)])[0]
        others = [f for f in obs.result.findings if f.kind == "transcript" and f.ref != said.ref]
        if not others:
            yield answer(f"{_capital(who.text)} said nothing else that I heard.", 0.6, [said.ref], value="")
            return
        quoted = "; ".join(f'"{f.text}"' for f in others[:5])
        text = f'{_capital(who.text)}, who said "{said.text}", also said: {quoted}.'
        yield answer(text, 0.8 * said.score, [said.ref, *(f.ref for f in others)], value=others[0].text)
    else:
        second = yield from _speaker_of(q.other)
        if second is None:
            yield answer(f'I did not hear anyone say "{q.other}".', NOT_SEEN_CONFIDENCE, [said.ref], value=False)
            return
        same = second[0].ref == who.ref
        verdict = "Yes, both were" if same else f"No: the first was {who.text}, the second"
        text = f'{verdict} {second[0].text} ("{said.text}"; "{second[1].text}").'
        confidence = 0.8 * min(said.score, second[1].score)
        yield answer(text, confidence, [said.ref, second[1].ref], value=same)


def _count(asked: WhoAsked) -> Script:
    """How many different people were seen (faces), or met (a linked voice and face once)."""
    how = "seen" if asked is WhoAsked.SEEN else "met"
    found = yield from people_found(how)
    yield people_counted(found, how)


def people_found(how: str) -> Generator[Step, list[Observation], list[Finding]]:
    """The different people told apart, seen (faces) or met (a linked voice and face once)."""
    return (yield [call("people", limit=50, how=how)])[0].result.findings


def people_counted(found: list[Finding], how: str) -> Step:
    """The answer to how many different people were seen or met, from the people tool's findings."""
    if not found:
        return answer(f"I have not told anyone apart that I {'saw' if how == 'seen' else 'met'}.", NOT_SEEN_CONFIDENCE,
                      value=0)  # fmt: skip
    both = sum(1 for f in found if len(f.data.get("refs", [])) == 2)
    names = "; ".join(f.text for f in found[:7])
    verb = "saw" if how == "seen" else "met"
    lead = f"I {verb} {len(found)} different {'person' if len(found) == 1 else 'people'}"
    detail = f" ({both} of them both heard and seen)" if how == "met" and both else ""
    return answer(f"{lead}{detail}: {names}.", 0.8, [f.data["first_ref"] for f in found], value=len(found))


def _when_where(state: AgentState, q: WhoQuestion) -> Script:
    """When a person was first or last seen, or where: the person named, or the one who said something."""
    person = yield from _person_asked(q.who)
    if person is None:
        yield answer(f"I do not know who {q.who} is.", NOT_SEEN_CONFIDENCE, value="")
        return
    data = person.data
    if "frames_seen" not in data:
        heard = f"I never saw {person.text}; I only heard them, first at t={person.stamp - state.t0:.0f} s"
        yield answer(heard + ".", 0.5, [data["first_ref"]], value="")
        return
    ref = data[f"{q.edge}_seen_ref"]
    if q.asked is WhoAsked.WHERE:
        spots = [tuple(spot) for spot in data["seen_places"]]
        where = ", ".join(f"({x:.1f}, {y:.1f})" for x, y in spots)
        yield answer(f"I saw {person.text} at {where}.", 0.75, [ref], place_ref=ref, value=where)
        return
    at = data[f"{q.edge}_seen_t"]
    text = f"I {q.edge} saw {person.text} at t={at:.0f} s ({data['frames_seen']} frame(s) in all)."
    yield answer(text, 0.75, [ref], time_ref=ref, value=at)


def _is_same(q: WhoQuestion) -> Script:
    """Whether two ways of naming someone name one person: the voice or face each resolves to, one identity when
    they are the same or linked; someone seen at a place where several were is one of them."""
    met = (yield [call("people", limit=50)])[0].result.findings  # once: the harness refuses a call repeated
    first = yield from _people_asked(q.who, met)
    second = yield from _people_asked(q.whom, met)
    for asked, found in ((q.who, first), (q.whom, second)):
        if not found:
            yield answer(f"I do not know who {asked} is.", NOT_SEEN_CONFIDENCE, value="")
            return
    one, many = (first, second) if len(first) == 1 else (second, first)
    if len(one) != 1:
        yield answer(f"I cannot tell: several people fit {q.who} and {q.whom}.", 0.3, value="")
        return
    person = one[0]
    same = person.ref in {f.ref for f in many}
    evidence = [person.data["first_ref"], *(f.data["first_ref"] for f in many[:3])]
    link = person.data.get("link_confidence")
    why = f" (voice and face linked, confidence {link:.2f})" if same and link is not None else ""
    refs = " + ".join(person.data["refs"])
    if same:
        text = f"Yes: {q.who} and {q.whom} are one person, {person.text} ({refs}){why}."
    else:
        others = ", ".join(f.text for f in many[:3])
        text = f"No: {person.text} ({refs}) is not {others}; nothing I heard or saw makes them one person."
    yield answer(text, 0.75 if same else 0.6, evidence, value=same)


def _person_asked(who: str) -> Generator[Step, list[Observation], Finding | None]:
    """The one person a question names, with all they said and everywhere they were seen, or None where none or
    several fit."""
    found = yield from _people_asked(who, None)
    if len(found) != 1 or _SAID_BY.match(who):
        return found[0] if found else None  # the person tool's finding already, for the one who said something
    return (yield [call("person", ref=found[0].ref, limit=1)])[0].result.findings[0]


def _people_asked(who: str, met: list[Finding] | None) -> Generator[Step, list[Observation], list[Finding]]:
    """The people a question's words name among those ``met`` (asked for where None): the one who said
    something, everyone seen at a place, or the one whose name was heard or read."""
    said_by = _SAID_BY.match(who)
    if said_by:
        found = yield from _speaker_of(_said(said_by.group("x")))
        return [found[0]] if found else []
    if met is None:
        met = (yield [call("people", limit=50)])[0].result.findings
    seen_at = _SEEN_AT.match(who)
    if seen_at:
        x, y = float(seen_at.group("x")), float(seen_at.group("y"))
        return [f for f in met if any(math.dist((x, y), spot) <= NEAR_M for spot in f.data.get("seen_places", []))]
    words = set(re.findall(r"[a-z']+", who.lower()))
    named = [f for f in met if words and words <= set(re.findall(r"[a-z']+", f.text.lower()))]
    return named if len(named) == 1 else []


def _speaker_of(words: str) -> Generator[Step, list[Observation], tuple[Finding, Finding] | None]:
    """The person who said ``words`` and the sentence heard, grounded among sentences heard."""
    obs = (yield [call("ground", description=words, how=["heard"], limit=3)])[0]
    heard = [f for f in obs.result.findings if f.ref.startswith("transcript/")]
    # The sentence the ground tool claims, else the best that shares a word with them: a sentence that only comes
    # nearest in meaning ("the swimming pool" and whatever was said) is no one saying them.
    said = next((f for f in heard if f.data.get("claimed")), None) or next(
        (f for f in heard if f.data.get("words", 0) > 0), None
    )
    if said is None:
        return None
    person = (yield [call("person", ref=said.ref, limit=1)])[0]
    if person.result.error or not person.result.findings:
        return None
    return person.result.findings[0], said


def _described(person: Finding) -> str:
    said = person.data.get("said", "")
    return f"{person.text} ({person.data['sentences']} sentence(s), e.g. {said.split('; ')[0]})"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
