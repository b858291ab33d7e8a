"""What a row of the store means: the column lists the queries select, and the conversions between records and
stored values.  Reading never trusts the file: a store may hold what no reader expects (NaN written as NULL, a
hand-edited field, a record of an older build), and such a field reads as its empty value, never as an exception.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from vidmem_ros.memory import schema
from vidmem_ros.memory.records import Event, Moment, Pose
from vidmem_ros.validation import QUATERNION_NORM_TOLERANCE


def pose_columns(prefix: str = "") -> str:
    """The pose columns as a select list, each with ``prefix`` ("m." of a joined table, "start_" of an event)."""
    return ", ".join(prefix + c for c in schema.POSE_COLUMNS)


POSE_SQL = pose_columns()

MOMENT_SQL = f"id, stamp, source, width, height, sharpness, quality, event_id, tier, {POSE_SQL}"

EVENT_SQL = (
    "id, start, end, status, reason, frame_count, caption, change, labels, texts, transcript, keyframes, super_id, "
    + pose_columns("start_")
    + ", "
    + pose_columns("end_")
    + ", path_m"
)


def pose_values(pose: Pose | None) -> tuple[object, ...]:
    """A pose's columns; a pose that is not finite is written as none (SQLite would store NaN as NULL)."""
    numbers = (pose.x, pose.y, pose.z, pose.qx, pose.qy, pose.qz, pose.qw) if pose is not None else ()
    if pose is None or not pose.frame_id or not all(math.isfinite(v) for v in numbers):
        return (None,) * 8
    return (pose.frame_id, *numbers)


def vector_blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


def stored_vector(blob: bytes) -> np.ndarray:
    """A vector written by ``vector_blob``."""
    return np.frombuffer(blob, dtype=np.float32).copy()


T = TypeVar("T")
# What converting a stored value can raise; RecursionError comes from absurdly nested JSON.
_UNREADABLE = (TypeError, ValueError, OverflowError, RecursionError)


def cell(value: object, convert: Callable[[Any], T], neutral: T) -> T:
    """A stored field as ``convert`` makes it, or ``neutral`` when it is NULL or ``convert`` cannot read it."""
    if value is None:
        return neutral
    try:
        return convert(value)
    except _UNREADABLE:
        return neutral


def json_list(value: object, item: type = str) -> list[Any]:
    """A stored JSON list with only its items of type ``item``; [] when the field is not a JSON list."""
    parsed = cell(value, json.loads, None)
    return [x for x in parsed if isinstance(x, item)] if isinstance(parsed, list) else []


def pose_from(values: Sequence[object]) -> Pose | None:
    """A stored pose, or None unless it has a frame id, seven finite numbers and a unit quaternion."""
    frame_id = values[0]
    if not isinstance(frame_id, str) or not frame_id.strip():
        return None
    numbers: tuple[float, ...] = cell(values[1:8], _floats, ())
    if len(numbers) != 7 or not all(map(math.isfinite, numbers)):
        return None
    x, y, z, qx, qy, qz, qw = numbers
    if abs(math.hypot(qx, qy, qz, qw) - 1.0) > QUATERNION_NORM_TOLERANCE:
        return None
    return Pose(frame_id, x, y, z, qx, qy, qz, qw)


def _floats(values: Sequence[Any]) -> tuple[float, ...]:
    return tuple(map(float, values))


def event_from(row: Sequence[Any]) -> Event:
    return Event(
        id=cell(row[0], int, 0),
        start=cell(row[1], float, 0.0),
        end=cell(row[2], float, 0.0),
        status=cell(row[3], str, ""),
        reason=cell(row[4], str, ""),
        frame_count=cell(row[5], int, 0),
        caption=cell(row[6], str, ""),
        change=cell(row[7], str, ""),
        labels=json_list(row[8]),
        texts=json_list(row[9]),
        transcript=json_list(row[10]),
        keyframe_ids=json_list(row[11], int),
        super_id=cell(row[12], int, None),
        start_pose=pose_from(row[13:21]),
        end_pose=pose_from(row[21:29]),
        path_m=cell(row[29], float, 0.0),
    )


def moment_from(row: Sequence[Any]) -> Moment:
    return Moment(
        id=cell(row[0], int, 0),
        stamp=cell(row[1], float, 0.0),
        source=cell(row[2], str, ""),
        width=cell(row[3], int, 0),
        height=cell(row[4], int, 0),
        sharpness=cell(row[5], float, 0.0),
        quality=cell(row[6], float, 0.0),
        event_id=cell(row[7], int, None),
        tier=cell(row[8], str, "recent"),
        pose=pose_from(row[9:17]),
        jpeg=None,
    )
