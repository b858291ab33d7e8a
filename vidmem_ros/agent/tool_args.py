"""The tools' argument schemas: strict (extra keys forbidden), bounded, and described for a model's
function calling."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Range(_Args):
    start_t: float | None = Field(None, description="only from this time (seconds since memory began)")
    end_t: float | None = Field(None, description="only up to this time (seconds since memory began)")


class Near(_Args):
    x: float
    y: float
    radius: float = Field(3.0, gt=0.0, le=1000.0, description="metres")


class SearchArgs(_Range):
    query: str = Field("", max_length=300, description="words to look for; empty lists events newest first")
    sources: list[Literal["moments", "events", "summaries", "transcripts", "texts"]] = Field(
        default_factory=list, description="where to look; empty means everywhere"
    )
    near: Near | None = Field(None, description="only what was seen within radius metres of x, y")
    similar_to: str | None = Field(None, pattern=r"^moment/\d+$", description="frames that look like this one")
    limit: int = Field(8, ge=1, le=20)


class FindObjectArgs(_Range):
    name: str = Field(min_length=1, max_length=80, description="a thing the detector may have reported")


class KindsArgs(_Range):
    kind: str = Field(min_length=1, max_length=60, description="a kind of thing: animal, fruit, vehicle, country")
    at: str = Field("", max_length=200, description="only what was met at the place so described")
    how: Literal["seen", "read", "any"] = Field("any", description="seen by the models, read on signs, or both")
    numbers: list[str] = Field(
        default_factory=list,
        max_length=4,
        description='what the sign must bear beside the name, a word and its number ("tank 14"); names read '
        "elsewhere are left out",
    )


class FindTextArgs(_Range):
    text: str = Field(min_length=1, max_length=200, description="words read on a sign, label or screen")


TRANSCRIPTS_MAX = 30  # the most sentences one search_transcripts call returns


class TranscriptArgs(_Range):
    query: str = Field("", max_length=300, description="words heard; empty lists everything said in the range")
    limit: int = Field(8, ge=1, le=TRANSCRIPTS_MAX)
    newest: bool = Field(False, description="with an empty query, the most recent lines rather than the oldest")
    questions: bool = Field(False, description="only sentences that ask something (a question put to the robot)")


class NavigateArgs(_Args):
    ref: str = Field(pattern=r"^(root|super_event/\d+|event/\d+)$", description="root, super_event/N or event/N")


class NeighborsArgs(_Args):
    event: str = Field(pattern=r"^event/\d+$")
    kinds: list[str] = Field(default_factory=list, description="edge kinds to follow, e.g. before, causes")
    depth: int = Field(1, ge=1, le=2)


class InspectArgs(_Args):
    refs: list[str] = Field(min_length=1, max_length=4, description="moment/N references of stored frames")
    look_for: Literal["objects", "text", "scene"] = "objects"


class RecentArgs(_Args):
    limit: int = Field(8, ge=1, le=16)


class PoseAtArgs(_Args):
    t: float = Field(description="seconds since memory began")


class WhenNearArgs(_Range):
    x: float
    y: float
    radius: float = Field(3.0, gt=0.0, le=1000.0)


class TimelineArgs(_Range):
    what: list[Literal["objects", "text", "speech", "scenes"]] = Field(
        default_factory=list,
        description="what to list: objects, text, speech, or scenes (the events the stream was cut into at each "
        "change of view); empty means objects, text and speech",
    )
    limit: int = Field(20, ge=1, le=50)


class GroundArgs(_Range):
    description: str = Field(
        min_length=1, max_length=300, description="the thing as the question describes it: what it was, said or read"
    )
    how: list[Literal["read", "heard", "seen"]] = Field(
        default_factory=list, description="how it was met, where the question says so; empty: every kind competes"
    )
    at: str = Field("", max_length=200, description='only what was met at the place this describes ("the boiler room")')
    named: bool = Field(
        False, description="only records that name the thing by a word (a sighting), not ones that only mean it"
    )
    seen_with: str = Field(
        "",
        max_length=200,
        description='what bore or stood by the words, as the question describes it ("the green folder"): words read '
        "while the detector saw it count first",
    )
    field: str = Field(
        "",
        max_length=100,
        description='what the question asks the value of ("the use-by date", "which insects"): the lines of a '
        "sign that name it, or a kind of it, are read out without its own words",
    )
    value: Literal["", "person", "name", "occupation", "number", "duration", "reason"] = Field(
        "", description="the kind of value to be read out, where the question asks for one; records holding one first"
    )
    limit: int = Field(8, ge=1, le=20)


class PlacesArgs(_Range):
    about: str = Field(
        "",
        max_length=200,
        description="What the place is like or called: things seen, words read or heard there. Empty: every place",
    )


class CountThingsArgs(_Range):
    about: str = Field(min_length=1, max_length=200, description="the kind of thing counted: 'chairs', 'dogs'")
    at: str = Field("", max_length=200, description="the place they were at, as described; empty: every place")


class AnswerArgs(_Args):
    text: str = Field(min_length=1, max_length=1500, description="the answer in one or two sentences")
    confidence: float = Field(ge=0.0, le=1.0)
    time_ref: str | None = Field(None, description="the reference whose time answers a 'when' question")
    place_ref: str | None = Field(None, description="the reference whose pose answers a 'where' question")
    evidence: list[str] = Field(default_factory=list, max_length=10, description="references the answer rests on")
    value: bool | float | str | None = Field(
        None, description="the answer as a value when it is yes/no, a count, a duration in seconds or a short name"
    )


# -- search ------------------------------------------------------------------------


class PeopleArgs(_Range):
    limit: int = Field(10, ge=1, le=50, description="the most people listed, the first met first")
    how: Literal["met", "heard", "seen"] = Field(
        "met", description="everyone heard or seen (met), only those heard speaking, or only those seen (faces)"
    )


class PersonArgs(_Args):
    ref: str = Field(
        pattern=r"^(speaker|face|transcript)/\d+$",
        description="speaker/N or face/N from the people tool, or transcript/N: the person who said that sentence",
    )
    limit: int = Field(TRANSCRIPTS_MAX, ge=1, le=TRANSCRIPTS_MAX, description="the most sentences listed")
