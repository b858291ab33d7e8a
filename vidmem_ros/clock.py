"""Stamps as a person reads them, in answers, summaries and prompts."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_clock(stamp: float) -> str:
    """UTC time of a stamp; one no calendar can show (stored before intake checked stamps) is shown as it is."""
    try:
        return datetime.fromtimestamp(stamp, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, ValueError, OSError):
        return f"t={stamp:g} s"
