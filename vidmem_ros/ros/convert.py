"""Conversions between ROS messages and the library's plain records.  No algorithm lives here.

Stamps in the store are memory time (``memory.runs``); a message carries the robot's clock, read back with the
store's runs (none: memory time as it is, for a store without runs or a fleet store, which keeps no runs).

Sensor messages are converted by ``vidmem_ros.ingest.messages`` (shared with the bag evaluator) and re-exported here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseStamped

from vidmem_ros.agent.answer import Answer, EvidenceItem
from vidmem_ros.ingest.messages import audio_chunk, compressed_frame, image_frame, stamped_pose, to_seconds
from vidmem_ros.memory.records import Event, Pose, SearchHit
from vidmem_ros.memory.runs import Run, clock_note, sensor_stamp
from vidmem_ros.msg import Event as EventMsg
from vidmem_ros.msg import Evidence
from vidmem_ros.srv import Query

__all__ = [
    "audio_chunk",
    "compressed_frame",
    "image_frame",
    "stamped_pose",
    "to_seconds",
]


def to_time(seconds: float) -> Time:
    sec = int(seconds // 1)
    nanosec = min(round((seconds - sec) * 1e9), 999_999_999)
    return Time(sec=sec, nanosec=nanosec)


def pose_stamped(pose: Pose, stamp: float) -> PoseStamped:
    msg = PoseStamped()
    msg.header.frame_id = pose.frame_id
    msg.header.stamp = to_time(stamp)
    msg.pose.position.x, msg.pose.position.y, msg.pose.position.z = pose.x, pose.y, pose.z
    o = msg.pose.orientation
    o.x, o.y, o.z, o.w = pose.qx, pose.qy, pose.qz, pose.qw
    return msg


def clock_time(runs: Sequence[Run], t: float) -> Time:
    """A memory time as the robot's clock read it."""
    return to_time(sensor_stamp(runs, t))


def event_msg(event: Event, runs: Sequence[Run] = ()) -> EventMsg:
    msg = EventMsg(
        id=str(event.id),
        caption=event.caption,
        labels=list(event.labels),
        texts=list(event.texts),
        frame_count=event.frame_count,
    )
    msg.start, msg.end = clock_time(runs, event.start), clock_time(runs, event.end)
    if event.start_pose is not None:
        msg.pose, msg.has_pose = pose_stamped(event.start_pose, sensor_stamp(runs, event.start)), True
    return msg


_HIT_KINDS = {
    "moment": Evidence.KIND_FRAME,
    "event": Evidence.KIND_EVENT,
    "text": Evidence.KIND_TEXT,
    "transcript": Evidence.KIND_TRANSCRIPT,
    "super_event": Evidence.KIND_SUMMARY,
    "speaker": "person",  # a voice memory told apart: who, first and last time, places, what they said
}


def hit_evidence(hit: SearchHit, runs: Sequence[Run] = ()) -> Evidence:
    msg = Evidence(kind=_HIT_KINDS.get(hit.kind, hit.kind), ref=f"{hit.kind}/{hit.ref}", text=hit.text)
    msg.stamp, msg.end_stamp, msg.score = (
        clock_time(runs, hit.stamp),
        clock_time(runs, hit.end_stamp),
        float(min(1.0, max(0.0, hit.score))),
    )
    if hit.pose is not None:
        msg.pose, msg.has_pose = pose_stamped(hit.pose, sensor_stamp(runs, hit.stamp)), True
    return msg


def time_range(start: Time, end: Time) -> tuple[float | None, float | None]:
    """A request's time range; zero stamps mean unbounded on that side."""
    return to_seconds(start) or None, to_seconds(end) or None


def evidence_msg(item: EvidenceItem, runs: Sequence[Run] = ()) -> Evidence:
    msg = Evidence(kind=item.kind, ref=item.ref, text=item.text, score=float(item.score), robot=item.robot)
    msg.stamp = clock_time(runs, item.stamp)
    msg.end_stamp = clock_time(runs, item.end_stamp)
    if item.pose is not None:
        msg.pose = pose_stamped(item.pose, sensor_stamp(runs, item.stamp))
        msg.has_pose = True
    return msg


def fill_response(
    response: Query.Response, answer: Answer, trace: dict[str, Any], runs: Sequence[Run] = ()
) -> Query.Response:
    """The answer with its stamps on the robot's clock; where memory holds several runs, the trace's
    ``robot_clock`` says which run the answer's stamp and each evidence stamp fell in (the response has no field
    for it)."""
    note = clock_note(runs, answer.stamp, [e.stamp for e in answer.evidence])
    response.success = answer.success
    response.answer = answer.text
    response.confidence = float(answer.confidence)
    response.error = answer.error
    response.trace = json.dumps({**trace, "robot_clock": note} if note else trace, default=str)
    if answer.stamp is not None:
        response.answer_stamp = clock_time(runs, answer.stamp)
        response.has_answer_stamp = True
    if answer.pose is not None and answer.stamp is not None:
        response.answer_pose = pose_stamped(answer.pose, sensor_stamp(runs, answer.stamp))
        response.has_answer_pose = True
    response.evidence = [evidence_msg(e, runs) for e in answer.evidence]
    return response
