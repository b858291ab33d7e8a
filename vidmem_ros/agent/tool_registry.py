"""The registry of tools a planner may call, each with its description, argument schema and function, and the
final-answer tool."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vidmem_ros.agent.people import people, person
from vidmem_ros.agent.things_counted import count_things
from vidmem_ros.agent.tool_args import (
    CountThingsArgs,
    FindObjectArgs,
    FindTextArgs,
    GroundArgs,
    InspectArgs,
    KindsArgs,
    NavigateArgs,
    NeighborsArgs,
    PeopleArgs,
    PersonArgs,
    PlacesArgs,
    PoseAtArgs,
    RecentArgs,
    SearchArgs,
    TimelineArgs,
    TranscriptArgs,
    WhenNearArgs,
    _Args,
)
from vidmem_ros.agent.tool_context import (
    ToolContext,
    ToolResult,
)
from vidmem_ros.agent.tools import (
    find_object,
    find_places,
    find_text,
    ground,
    inspect_frames,
    kinds_of,
    navigate,
    neighbors,
    pose_at,
    recent_frames,
    search,
    search_transcripts,
    timeline,
    when_near,
)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args: type[_Args]
    run: Callable[[ToolContext, Any], ToolResult]

    def schema(self) -> dict[str, Any]:
        """OpenAI function-calling description of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.args.model_json_schema(),
            },
        }


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "search",
            "Search memory by words, time range, place (near x, y) or visual similarity to a frame. Sources: "
            "moments (detected objects), events (captions), summaries (periods), transcripts (speech), texts (signs).",
            SearchArgs,
            search,
        ),
        ToolSpec(
            "ground",
            "What in memory a description refers to, whatever holds it: signs read, sentences heard, things seen "
            "(detections, scene tags) and event captions, scored on one scale; the one that stands out is claimed.",
            GroundArgs,
            ground,
        ),
        ToolSpec(
            "find_object",
            "Every occasion an object was detected, oldest first, with frames, score and where the robot was.",
            FindObjectArgs,
            find_object,
        ),
        ToolSpec("find_text", "Where and when words were read on signs, labels or screens.", FindTextArgs, find_text),
        ToolSpec(
            "kinds_of",
            "The things of a kind (animal, fruit, vehicle, country) that were seen or named on signs read.",
            KindsArgs,
            kinds_of,
        ),
        ToolSpec(
            "search_transcripts",
            "What was heard: speech transcripts matching words, or all in a range.",
            TranscriptArgs,
            search_transcripts,
        ),
        ToolSpec(
            "navigate",
            "Walk the memory hierarchy: root lists periods (super_event/N); a period lists its events; an event "
            "shows its caption, what was seen, read and heard, and its keyframes.",
            NavigateArgs,
            navigate,
        ),
        ToolSpec("neighbors", "Events linked to an event by temporal or causal edges.", NeighborsArgs, neighbors),
        ToolSpec(
            "inspect_frames",
            "Look again at stored frames with a model: objects (detector), text (OCR) or scene (tagger/captioner).",
            InspectArgs,
            inspect_frames,
        ),
        ToolSpec(
            "timeline",
            "What was seen, read and heard in a time range, as occasions in time order.",
            TimelineArgs,
            timeline,
        ),
        ToolSpec("recent_frames", "The latest frames: what is in view now.", RecentArgs, recent_frames),
        ToolSpec("pose_at", "Where the robot was at time t.", PoseAtArgs, pose_at),
        ToolSpec("when_near", "When the robot was within radius metres of x, y.", WhenNearArgs, when_near),
        ToolSpec(
            "places",
            "The places the robot stayed at (rooms, stops), from its path: each with its visits (start and end t), "
            "time spent and what was seen, read and heard there; the best match to a description first.",
            PlacesArgs,
            find_places,
        ),
        ToolSpec(
            "count_things",
            "How many things of a kind there were (not how often they were met): per place stayed at, or at the "
            "place described, the most detected in one frame.",
            CountThingsArgs,
            count_things,
        ),
        ToolSpec(
            "people",
            "The different people met, the first met first: voices told apart and faces told apart, a voice and a "
            "face heard together repeatedly counted once (how: met, heard or seen); each with a name only if they "
            "introduced themselves or a badge below their face read it, first and last time heard and seen, where "
            "the robot was and what they said.",
            PeopleArgs,
            people,
        ),
        ToolSpec(
            "person",
            "One person (speaker/N or face/N), or the person who said a sentence (transcript/N, e.g. from ground "
            'with how=["heard"]): who they are, every sentence they said and every time and place they were seen.',
            PersonArgs,
            person,
        ),
    )
}
ANSWER_TOOL = "final_answer"
ANSWER_DESCRIPTION = (
    "Give the final answer. Cite references from tool results in evidence; set time_ref / place_ref to the "
    "reference whose time or place answers a when / where question."
)
