"""A conversation of several voices, spoken by espeak-ng, with who said what: the truth the identity bench and
tests score against.

The voices differ in espeak voice (another language's voice speaking English is another accent), variant
(formants), pitch and speed; the five below were chosen as the most separable of a dozen by the packaged
speaker encoder.  Some people introduce themselves by name, some never do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vidmem_dev.synth import speak

RATE = 16_000
GAP_S = 1.2  # silence between turns: longer than the VAD's min_silence_ms, so each turn is its own segment


@dataclass(frozen=True)
class Voice:
    person: str
    espeak: str  # voice+variant
    wpm: int
    pitch: int  # 0-99


CAST = (
    Voice("dana", "en+f2", 150, 70),
    Voice("sam", "en-us+m3", 160, 40),
    Voice("lena", "de+f4", 140, 60),
    Voice("omar", "en-gb-x-rp+m7", 150, 20),
    Voice("marco", "it+m2", 150, 55),
)

# (person, line), in the order spoken.
SCRIPT = (
    ("dana", "Hi, I'm Dana from facilities."),
    ("sam", "The delivery arrived at the loading dock this morning."),
    ("lena", "Please remember to lock the side door after six."),
    ("omar", "This is Omar from security."),
    ("marco", "Marco here, the lift on the east side is broken again."),
    ("dana", "There is a water leak under the sink in the kitchen."),
    ("sam", "We need three more boxes of printer paper."),
    ("lena", "The meeting about the new lab moved to Thursday."),
    ("omar", "I left the spare keys with the front desk."),
    ("marco", "The coffee machine on the second floor needs cleaning."),
    ("dana", "I will call the plumber before lunch."),
    ("sam", "Can you bring the boxes to the storage room?"),
    ("lena", "The fire drill starts at ten tomorrow."),
    ("omar", "The back gate camera has stopped recording."),
    ("marco", "Somebody parked in front of the emergency exit."),
    ("dana", "The heating in the lab is too high."),
    ("sam", "The printer on the third floor is out of toner."),
    ("lena", "Visitors must sign in at reception."),
    ("omar", "Please keep the server room door closed."),
    ("marco", "The window in meeting room two does not open."),
)


@dataclass(frozen=True)
class Turn:
    person: str
    text: str
    start: float  # seconds into the recording where the voice starts
    end: float


@dataclass(frozen=True)
class Recording:
    audio: np.ndarray  # float32 mono, 16 kHz
    turns: tuple[Turn, ...]

    @property
    def seconds(self) -> float:
        return len(self.audio) / RATE

    def segment(self, turn: Turn) -> np.ndarray:
        return self.audio[int(turn.start * RATE) : int(turn.end * RATE)]


def conversation(turns_per_person: int | None = None, people: int | None = None) -> Recording:
    """The script spoken turn by turn, ``GAP_S`` apart; optionally only its first ``people`` voices and the first
    ``turns_per_person`` turns of each (a short recording for tests)."""
    cast = {v.person: v for v in CAST[: people or len(CAST)]}
    said: dict[str, int] = {}
    pieces: list[np.ndarray] = [np.zeros(int(0.5 * RATE), np.float32)]
    turns = []
    at = 0.5
    for person, line in SCRIPT:
        if person not in cast or (turns_per_person is not None and said.get(person, 0) >= turns_per_person):
            continue
        said[person] = said.get(person, 0) + 1
        voice = cast[person]
        speech = speak(line, voice.espeak, voice.wpm, RATE, voice.pitch)
        audio = speech.pcm.astype(np.float32) / 32768.0
        first, last = speech.audible()
        turns.append(Turn(person, line, at + first, at + last))
        pieces += [audio, np.zeros(int(GAP_S * RATE), np.float32)]
        at += len(audio) / RATE + GAP_S
    return Recording(np.concatenate(pieces), tuple(turns))
