"""This robot's frames in the fleet store, read back where retention let their vectors go here (the read side's
cold tier): a frame's vector by its local id, and the frames nearest a vector, within this robot's partition."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vidmem_ros.errors import FleetUnavailableError
from vidmem_ros.fleet.records import FleetScope, FleetStore
from vidmem_ros.fleet.session import FleetSession
from vidmem_ros.memory.vector_index import VectorHit


class RobotColdTier:
    """``keep_open`` False lets go of an embedded store's file after each read (the sync opens it too).  An
    unreachable fleet store reads as nothing there: the answer comes from this robot's own store alone."""

    def __init__(self, connect: Callable[[], FleetStore], robot: str, keep_open: bool = True) -> None:
        self.session = FleetSession(connect, keep_open)
        self.robot = robot

    def moment_vector(self, moment_id: int) -> np.ndarray | None:
        try:
            return self.session.use(lambda fleet: fleet.moment_vector(self.robot, moment_id))
        except FleetUnavailableError:
            return None

    def similar(self, vector: np.ndarray, k: int, as_of: float | None) -> list[VectorHit]:
        scope = FleetScope([self.robot], as_of=as_of)
        try:
            hits = self.session.use(lambda fleet: fleet.search_images(vector, k, scope))
        except FleetUnavailableError:
            return []
        return [VectorHit(h.local_id, h.score, h.stamp) for h in hits]
