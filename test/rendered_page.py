"""A page as headless Chromium renders it, and its elements: for the tests of the HTML report."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("headless Chromium is needed to render the report; `make setup` installs it (apt-get install chromium)")


def render(page: Path, profile: Path) -> str:
    """The DOM after Chromium loaded the page (and ran its scripts)."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
    flags += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
    done = subprocess.run(
        [chromium(), *flags, f"--user-data-dir={profile}", "--dump-dom", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "</html>" in done.stdout, done.stderr[-2000:]
    return done.stdout


class Dom(HTMLParser):
    """Elements with their attributes, and the page's text."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def tags(self, name: str) -> list[dict[str, str]]:
        return [attrs for tag, attrs in self.elements if tag == name]

    def with_class(self, css: str) -> list[dict[str, str]]:
        return [attrs for _, attrs in self.elements if css in attrs.get("class", "").split()]
