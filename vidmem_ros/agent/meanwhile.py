"""Questions about what was met at the same time as something else: "what did you hear when you saw the cat?",
"what was being said while the van was in view?", "what sign was in view when you heard about the boiler?", "what
could you see while you were in the room with the aquarium?".

Read from the grammar of such a question (what was met by one sense, then a clause that sets the moment: "when",
"while", "as" and a thing met, or a place the robot was at), not from sentence patterns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from vidmem_ros.agent.interval import side_named
from vidmem_ros.agent.question import IN_SIGHT, Modality, clean_target, last_sentence

# Being by a thing, or looking at it: having it in view.
_BESIDE = r"(?:next to|near|beside|by|close to|in front of|facing|looking at|watching)"
# What is asked for, by the sense it was met with.
_ASKED = (
    (Modality.SPEECH, r"what (?:did|were|could|can) you (?:hear|hearing|overhear)|what (?:was|were|got) (?:being )?"
     r"(?:said|mentioned|announced|talked about|discussed)|what did (?:someone|anyone|somebody|anybody|people) say"),
    (Modality.TEXT, r"what (?:did|were|could|can) you (?:read|reading)|what (?:was|were) (?:written|read|on the "
     r"(?:sign|notice|screen|label|board))|(?:what|which) (?:sign|notice|text|label|words?) (?:was|were"
     r"|did you (?:read|see))"
     r"(?: in view| visible| there)?"
     rf"|(?:what|which) (?:sign|notice|label|board) (?:were you|was the robot|was it) {_BESIDE}"),
    (Modality.OBJECT, r"what (?:did|were|could|can) you (?:see|seeing|notice|spot)|what (?:was|were) (?:in view"
     r"|visible|in front of you|on camera|around)|what (?:else )?(?:was|were) there"
     rf"|what (?:were you|was the robot|was it) {_BESIDE}"),
)  # fmt: skip
# Whether one thing was met while another was ("were you near the kite when the picnic was mentioned?", "did you
# hear about the picnic while the kite was in view?"): the thing asked about, by the sense it was met with.
_ASKED_WHETHER = (
    (Modality.SPEECH, r"did (?:you|the robot|it) hear (?:about |of )?(?P<t>.+?)|(?:was|were) (?P<t2>.+?) (?:mentioned"
     r"|said|announced|talked about|discussed|brought up)|did (?:someone|anyone|somebody|anybody|people) (?:mention"
     r"|say|talk about|bring up|announce) (?P<t3>.+?)"),
    (Modality.TEXT, r"did (?:you|the robot|it) read (?P<t>.+?)|(?:was|were) (?P<t2>.+?) read"),
    (Modality.PLACE, r"(?:were|was) (?:you|the robot|it) (?:(?:still|already|standing|waiting|parked|stopped) )?"
     r"(?:at|in|inside) (?P<t>.+?)"),
    (Modality.OBJECT, rf"(?:were|was) (?:you|the robot|it) {_BESIDE} (?P<t>.+?)|(?:was|were) (?P<t2>.+?) "
     rf"(?:{IN_SIGHT}|around|there|nearby|in front of you)|did (?:you|the robot|it) (?:see|spot|notice|have) "
     rf"(?P<t3>.+?)(?: {IN_SIGHT})?"),
)  # fmt: skip
_MOMENT = r"(?:right |just |exactly )?(?:when|while|as|at the (?:same )?(?:time|moment)|during the time)"
# The robot at a place as the moment ("while you were in the room with the aquarium").
_AT_PLACE = re.compile(
    r"^(?:(?:you|the robot|it) (?:were|was) )?(?:(?:standing|waiting|parked|stopped|staying|sitting|being|still) )?"
    r"(?:at|in|inside|near|by|beside|next to|in front of|close to) (?P<place>.+)$"
)
# A thing in view as the moment ("while the van was in view").
_IN_VIEW = re.compile(rf"^(?P<thing>.+?) (?:was|were) (?:{IN_SIGHT}|in front of you|around)$")


@dataclass(frozen=True)
class Meanwhile:
    asked: Modality  # the sense the question asks about: heard, read or seen
    anchor: str  # the thing (or, with ``place``, the place) that sets the moment
    anchor_met: Modality | None  # how the anchor was met, where the question says
    place: bool = False
    target: str = ""  # "were you near X when ...": whether X was met meanwhile (empty: what was)
    said_at: bool = False  # the place was said with no "while" ("what did you hear in X"): it may be no place


def meanwhile_question(text: str) -> Meanwhile | None:
    """The question read as one about what was met (or whether one thing was met) at the time something else
    was, or None."""
    sentence = last_sentence(text)
    for asked, words in (*_ASKED, *_ASKED_WHETHER):
        found = re.match(rf"^(?:{words}) {_MOMENT} (?P<a>.+)$", sentence)
        if found is None:
            continue
        named = found.groupdict()
        target = clean_target(named.get("t") or named.get("t2") or named.get("t3") or "")
        moment = _moment(asked, found["a"])
        return replace(moment, target=target) if moment is not None else None
    for asked, words in _ASKED:  # "what did you hear in the room with the kettle": while the robot was there
        found = re.match(rf"^(?:{words}) (?P<a>(?:at|in|inside) .+)$", sentence)
        if found is not None and not _TIME_SAID.match(found["a"]) and (place := _AT_PLACE.match(found["a"])):
            return Meanwhile(asked, place["place"], None, place=True, said_at=True)
        # "what did you hear near the kettle": while it was in view (what was read by a thing is its sign, elsewhere)
        beside = re.match(rf"^(?:{words}) (?:near|by|beside|next to|close to) (?P<a>.+)$", sentence)
        if beside is not None and asked is not Modality.TEXT and not _TIME_SAID.match(f"by {beside['a']}"):
            return Meanwhile(asked, clean_target(beside["a"]), Modality.OBJECT, said_at=True)
    return None


# A time or an amount said after "in" or "at" ("in the last minute", "at 3 pm", "in total"): no place.
_TIME_SAID = re.compile(
    r"^(?:at|in|by|near) (?:the )?(?:(?:last|first|past|next|previous|final|early|late|whole|meantime|morning"
    r"|afternoon|evening|beginning|start|end|middle|total|all|general|particular|\d)\b|.*\b(?:seconds?|minutes?|hours?"
    r"|o'clock|noon|midnight|[ap]\.?m\.?|today|yesterday|tonight)\b)"
)


def _moment(asked: Modality, clause: str) -> Meanwhile | None:
    """The clause that sets the moment, read as the thing (or place) met then."""
    if (place := _AT_PLACE.match(clause)) is not None:
        return Meanwhile(asked, place["place"], None, place=True)
    if (thing := _IN_VIEW.match(clause)) is not None:
        clause, met = thing["thing"], Modality.OBJECT
    else:
        met = None
    name, said_met = side_named(re.sub(r"^(?:you|the robot|it) (?:were |was |could |can )?", "", clause))
    if not name or (not said_met and met is None and not _MET_FIRST.match(clause)):
        return None  # "what did you see when it rained": nothing named as met
    return Meanwhile(asked, name, met or said_met)


# A moment clause that opens with the robot meeting something ("you found", "you came across").
_MET_FIRST = re.compile(r"^(?:you|the robot) (?:were |was |could |can )?\w+")
