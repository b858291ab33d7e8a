"""What both nodes share: a lifecycle node over one memory store.

Parameters are declared and validated at construction (``ros2 param`` works on an unconfigured node);
configure opens the store and runs ``_configure``; activate runs ``_activate``; deactivate runs ``_stop``;
cleanup runs ``_release`` and closes the store; shutdown, and the process's exit, do both.  A transition that
fails leaves the reason in ``startup_failure`` and the node where it was.
"""

from __future__ import annotations

from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn

from vidmem_ros.config import VidmemConfig
from vidmem_ros.errors import VidmemError
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.ros.params import declare_config, watch_runtime_changes
from vidmem_ros.ros.runtime import bridge_logging, declare_autostart


class MemoryNode(LifecycleNode):
    def __init__(self, name: str, **kwargs: object) -> None:
        super().__init__(name, **kwargs)  # type: ignore[arg-type]
        bridge_logging(self)
        self.config: VidmemConfig = declare_config(self)
        declare_autostart(self)
        watch_runtime_changes(self, self.config)
        self.startup_failure: VidmemError | None = None
        self._store: SqliteStore | None = None

    @property
    def store(self) -> SqliteStore:
        assert self._store is not None, "the store is open from configure to cleanup"
        return self._store

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            self._store = self._open_store()
            self._configure()
        except VidmemError as exc:
            self.startup_failure = exc
            self.get_logger().error(f"cannot configure: {exc}")
            self._release()
            return TransitionCallbackReturn.FAILURE
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            self._activate()
        except VidmemError as exc:
            self.startup_failure = exc
            self.get_logger().error(f"cannot activate: {exc}")
            self._stop()  # what was set up before the failure
            return TransitionCallbackReturn.FAILURE
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._stop()
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._release()
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.close()
        return TransitionCallbackReturn.SUCCESS

    def close(self) -> None:
        """Whatever the state: stop, then release (at the process's exit, and on shutdown)."""
        self._stop()
        self._release()

    def _open_store(self) -> SqliteStore:
        """The store for writing; a damaged one raises DamagedStoreError with nothing written."""
        return SqliteStore(self.config.store_path(), check_s=self.config.store.check_s)

    def _configure(self) -> None:
        """What the node builds over the open store; raises VidmemError when it cannot."""

    def _activate(self) -> None:
        """Start serving; raises VidmemError when it cannot."""

    def _stop(self) -> None:
        """Undo what activate did (also after an activate that failed half-way)."""

    def _release(self) -> None:
        """Undo what configure did."""
        if self._store is not None:
            self._store.close()
            self._store = None
