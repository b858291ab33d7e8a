"""Poses between samples, and where the robot was at a moment of memory.

``interpolate`` and ``slerp`` give the pose between two samples; ``pose_at`` reads the stored path (or the
nearest kept frame) for a stamp.  The samples arrive through ``ingest.poses``.
"""

from __future__ import annotations

import bisect
import math

from vidmem_ros.memory.records import Pose
from vidmem_ros.memory.store import SqliteStore


def interpolate(p0: Pose, p1: Pose, w: float) -> Pose:
    """The pose a fraction ``w`` of the way from ``p0`` to ``p1``: linear position, spherical orientation."""
    x, y, z = (a + w * (b - a) for a, b in ((p0.x, p1.x), (p0.y, p1.y), (p0.z, p1.z)))
    qx, qy, qz, qw = slerp((p0.qx, p0.qy, p0.qz, p0.qw), (p1.qx, p1.qy, p1.qz, p1.qw), w)
    return Pose(p0.frame_id, x, y, z, qx, qy, qz, qw)


def slerp(
    q0: tuple[float, float, float, float], q1: tuple[float, float, float, float], w: float
) -> tuple[float, float, float, float]:
    """Spherical interpolation of unit quaternions, along the shorter arc."""
    dot = sum(a * b for a, b in zip(q0, q1, strict=True))
    if dot < 0:  # q and -q are one rotation; go the short way
        q1, dot = (-q1[0], -q1[1], -q1[2], -q1[3]), -dot
    if dot > 0.9995:  # nearly equal: the arc is a line, and sin(theta) would divide by almost zero
        a, b = 1.0 - w, w
    else:
        theta = math.acos(dot)
        a, b = math.sin((1.0 - w) * theta) / math.sin(theta), math.sin(w * theta) / math.sin(theta)
    q = [a * u + b * v for u, v in zip(q0, q1, strict=True)]
    norm = math.sqrt(sum(v * v for v in q))
    return (q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm)


def turned_deg(p0: Pose, p1: Pose) -> float:
    """The angle of the rotation from one orientation to the other, in degrees."""
    dot = abs(p0.qx * p1.qx + p0.qy * p1.qy + p0.qz * p1.qz + p0.qw * p1.qw)
    return math.degrees(2.0 * math.acos(min(1.0, dot)))


# Reading the robot's pose at a moment of memory: the stored path is read this far either side (it keeps a
# sample at least every pose_track_still_s while the robot stands still), else a kept frame this close.
TRACK_REACH_S = 10.5
FRAME_REACH_S = 2.0


def pose_at(store: SqliteStore, stamp: float, as_of: float | None = None) -> Pose | None:
    """Where the robot was at ``stamp``: interpolated along the stored path, else the nearest kept frame's pose."""
    track = store.pose_track(stamp - TRACK_REACH_S, stamp + TRACK_REACH_S, as_of)
    if track:
        i = bisect.bisect_right([t for t, _ in track], stamp)
        before, after = (track[i - 1] if i else None), (track[i] if i < len(track) else None)
        if before and after and before[1].frame_id == after[1].frame_id and after[0] > before[0]:
            return interpolate(before[1], after[1], (stamp - before[0]) / (after[0] - before[0]))
        return min((s for s in (before, after) if s), key=lambda s: abs(s[0] - stamp))[1]
    frames = [m for m in store.moments(stamp - FRAME_REACH_S, stamp + FRAME_REACH_S, as_of) if m.pose is not None]
    nearest = min(frames, key=lambda m: abs(m.stamp - stamp), default=None)
    return nearest.pose if nearest else None
