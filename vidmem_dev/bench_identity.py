"""``vidmem bench identity``: who spoke, measured on a conversation of espeak-ng voices (``voices``), who was
seen (``bench_faces``), and who is one person across both: link precision and recall on the conversation played
while packaged faces are in view (``meeting``).

Each turn's speech is embedded by the configured speaker model and stored through the real memory engine, which
clusters it into voices; the bench prints purity (the share of segments in a voice whose majority they share),
coverage (the share in the voice that holds most of their speaker's segments), the number of voices against the
truth, and the cost per second of audio.  It also prints the figures the clustering thresholds are calibrated
from: each segment's distance to its own speaker's centroid (left out of it) and to the nearest other speaker's.
With ``--asr`` the recording goes through the whole audio pipeline instead (VAD, Whisper, speaker model), and
transcripts are matched to turns by time.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from vidmem_dev.bench_faces import face_figures, print_faces
from vidmem_dev.identity_scores import calibration, score
from vidmem_dev.meeting import FACE_OF, link_scores, meeting, remember
from vidmem_dev.voices import RATE, Recording, conversation
from vidmem_ros.config import VidmemConfig, load_config
from vidmem_ros.memory.engine import MemoryEngine
from vidmem_ros.memory.reader import MemoryReader
from vidmem_ros.memory.records import Transcript
from vidmem_ros.memory.store import SqliteStore
from vidmem_ros.perception.audio import AudioChunkData
from vidmem_ros.perception.face import DlibFaceEmbedder
from vidmem_ros.perception.registry import build_speaker_embedder
from vidmem_ros.perception.types import SpeakerEmbedder


def embed_turns(recording: Recording, embedder: SpeakerEmbedder) -> tuple[np.ndarray, float]:
    """Each turn's vector, and the seconds spent per second of speech."""
    began = time.perf_counter()
    vectors = np.stack([embedder.embed(recording.segment(turn)) for turn in recording.turns])
    spoken = sum(turn.end - turn.start for turn in recording.turns)
    return vectors, (time.perf_counter() - began) / spoken


def cluster(config: VidmemConfig, recording: Recording, vectors: np.ndarray, folder: Path) -> list[int | None]:
    """Store each turn with its vector through the engine; the voice each one was given."""
    store = SqliteStore(folder / "identity.db")
    engine = MemoryEngine(store, config)
    try:
        refs = [
            engine.add_transcript(Transcript(turn.start, turn.end, turn.text, voice=vector))
            for turn, vector in zip(recording.turns, vectors, strict=True)
        ]
        return [_speaker_of(store, ref) for ref in refs]
    finally:
        store.close()


def through_pipeline(config: VidmemConfig, recording: Recording, folder: Path) -> tuple[list[int | None], float]:
    """The recording through VAD, Whisper and the speaker model into the engine; each turn's voice (by the
    transcript that overlaps it most) and the pipeline's seconds per second of audio."""
    from vidmem_ros.ingest.audio import AudioPipeline

    store = SqliteStore(folder / "pipeline.db")
    engine = MemoryEngine(store, config)
    pipeline = AudioPipeline(config, engine, background=False)
    pcm = np.clip(np.round(recording.audio * 32767), -32768, 32767).astype("<i2")
    chunk = RATE // 10
    began = time.perf_counter()
    for i in range(0, len(pcm), chunk):
        pipeline.push(AudioChunkData(1000.0 + i / RATE, RATE, 1, "S16LE", pcm[i : i + chunk].tobytes()))
    pipeline.close()
    cost = (time.perf_counter() - began) / recording.seconds
    heard = store.transcripts(-np.inf, np.inf)
    store.close()
    found = []
    for turn in recording.turns:
        start, end = 1000.0 + turn.start, 1000.0 + turn.end
        best = max(heard, key=lambda t: min(t.end, end) - max(t.start, start), default=None)
        overlaps = best is not None and min(best.end, end) > max(best.start, start)
        found.append(best.speaker_id if overlaps and best is not None else None)
    return found, cost


def link_figures(config: VidmemConfig, recording: Recording, vectors: np.ndarray, folder: Path) -> dict[str, Any]:
    """The conversation heard while packaged faces are in view (``meeting``): links against the truth."""
    config = config.model_copy(update={"face": config.face.model_copy(update={"backend": "dlib"})})
    scene = meeting(recording)
    store = remember(scene, config, folder / "meeting.db", DlibFaceEmbedder(config.face), vectors, 1000.0)
    try:
        found = link_scores(scene, store, 1000.0)
        people = len(MemoryReader(store).people())
    finally:
        store.close()
    voices = {t.person for t in recording.turns}
    faces = {f.face for f in scene.frames if f.face}
    return found | {"people": people, "true_people": len(voices) + len(faces) - len(FACE_OF)}


def _speaker_of(store: SqliteStore, ref: int) -> int | None:
    with store.read() as db:
        row = db.execute("SELECT speaker_id FROM transcripts WHERE id = ?", (ref,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def run_identity_bench(asr: bool = False, json_path: Path | None = None) -> int:
    config = load_config()
    recording = conversation()
    embedder = build_speaker_embedder(config.speaker)
    if embedder is None:
        print("speaker.backend is none: nothing to measure")
        return 1
    truth = [turn.person for turn in recording.turns]
    vectors, cost = embed_turns(recording, embedder)
    calibrated = calibration(truth, vectors)
    with tempfile.TemporaryDirectory(prefix="vidmem-identity-") as folder:
        found = cluster(config, recording, vectors, Path(folder))
        piped = through_pipeline(config, recording, Path(folder)) if asr else None
        faces = face_figures(config, Path(folder))
        linked = link_figures(config, recording, vectors, Path(folder))
    scores = score(truth, found)
    figures = {
        "model": embedder.name,
        "recording_s": round(recording.seconds, 1),
        "speech_s": round(sum(t.end - t.start for t in recording.turns), 1),
        "clustering": scores.__dict__,
        "speaker_s_per_audio_s": round(cost, 4),
        "calibration": {k: round(v, 3) for k, v in calibrated.items()},
        "settings": {k: getattr(config.speaker, k) for k in ("match_distance", "margin", "merge_distance")},
    }
    print(
        f"speaker identity ({embedder.name}) over {len(truth)} turns of {scores.speakers} espeak-ng voices, "
        f"{figures['speech_s']} s of speech in {figures['recording_s']} s:"
    )
    print(
        f"  voices found {scores.voices} (truth {scores.speakers}); purity {scores.purity:.3f}, "
        f"coverage {scores.coverage:.3f}; {cost * 1000:.1f} ms of speaker model per second of speech"
    )
    c = calibrated
    print(
        f"  distance to own speaker's centroid (left out): p95 {c['own_p95']:.3f}, max {c['own_max']:.3f}; "
        f"to the nearest other speaker's: p5 {c['other_p5']:.3f}, min {c['other_min']:.3f}; "
        f"midway {c['between']:.3f} (speaker.match_distance {config.speaker.match_distance})"
    )
    if piped is not None:
        piped_scores = score(truth, piped[0])
        figures["pipeline"] = piped_scores.__dict__ | {"s_per_audio_s": round(piped[1], 4)}
        print(
            f"  through VAD + Whisper + speaker model: voices {piped_scores.voices}, purity {piped_scores.purity:.3f}, "
            f"coverage {piped_scores.coverage:.3f}, turns without a voice {piped[0].count(None)}; "
            f"{piped[1]:.3f} s per second of audio"
        )
    figures["faces"] = faces
    print_faces(faces)
    figures["links"] = linked
    print(
        f"one person across voice and face ({linked['true_pairs']} speak in view, 2 heard unseen, 2 seen silent, one "
        f"seen at two places): links {linked['links']}, right {linked['right']}; link precision "
        f"{linked['precision']:.3f}, recall {linked['recall']:.3f}; people met {linked['people']} "
        f"(truth {linked['true_people']})"
    )
    if json_path is not None:
        json_path.write_text(json.dumps(figures, indent=2))
    return 0
