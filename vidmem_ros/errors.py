"""Errors the library raises; each says what was wrong and, where it can, how to fix it."""


class VidmemError(Exception):
    """Base class for every error raised on purpose by vidmem_ros."""


class ConfigError(VidmemError):
    """A setting is missing or out of range."""


class InputError(VidmemError):
    """An input (image, audio chunk, question) is malformed; it is skipped, nothing stored is touched."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class ModelUnavailableError(VidmemError):
    """A model's package, weight file or server is missing; the message names the setting and the fix."""


class StoreError(VidmemError):
    """The memory store cannot be opened or written."""


class DiskFullError(StoreError):
    """The memory store's file system (or SQLite's page limit) has no room for a write; nothing committed is lost."""


class FleetUnavailableError(VidmemError):
    """The fleet store cannot be reached or refused a request; the robot's own memory is untouched and the sync
    tries again."""
