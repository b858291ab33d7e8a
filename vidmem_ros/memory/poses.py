"""Pose arithmetic: the pose between two samples (linear position, spherical orientation) and the angle
turned between two orientations.  The pose buffer and track (``ingest.poses``) and the read side's
``pose_at`` (``memory.reader``) both interpolate with it."""

from __future__ import annotations

import math

from vidmem_ros.memory.records import Pose


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
