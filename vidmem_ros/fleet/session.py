"""One connection to the fleet store for a reader (the fleet answerer, the cold tier): opened on first use and
again after a use that failed; with ``keep_open`` False it lets go of an embedded store's file after each use,
since one process holds that file at a time and the ingest node's sync opens it too."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from vidmem_ros.errors import FleetUnavailableError
from vidmem_ros.fleet.records import FleetStore

T = TypeVar("T")


class FleetSession:
    def __init__(self, connect: Callable[[], FleetStore], keep_open: bool = True) -> None:
        self.connect = connect
        self.keep_open = keep_open
        self._fleet: FleetStore | None = None

    def use(self, read: Callable[[FleetStore], T]) -> T:
        """``read`` on the open store; raises FleetUnavailableError (and connects afresh next time) on failure."""
        try:
            if self._fleet is None:
                self._fleet = self.connect()
            return read(self._fleet)
        except FleetUnavailableError:
            self._fleet = None
            raise
        finally:
            if not self.keep_open and self._fleet is not None:
                self._fleet.close(release=True)
                self._fleet = None
