"""The fleet store on Milvus: embedded Milvus Lite (a file, the default) or a standalone or cluster server by URI.

Two collections, each with a partition per robot: moments (visual vector, stamp, pose, labels) and texts
(text read, speech heard, event captions: the words with Milvus's built-in BM25 function, and a sentence vector).
Text search is hybrid: BM25 and the sentence vector, fused by reciprocal rank.  Every search is limited to the
robots' partitions and filtered by time window and ``as_of`` in the same request.  Writes are upserts keyed by
``robot/kind/local_id``.  A partition per robot rather than the robot id as partition key: Milvus Lite does not
prune by a partition key (a search of one robot's 10 k frames among 100 k took 113 ms that way, 22 ms in its own
partition), and Milvus allows 1,024 partitions a collection by default, beyond any one fleet.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from vidmem_ros.config import FleetConfig
from vidmem_ros.errors import ConfigError, FleetUnavailableError
from vidmem_ros.fleet.records import TEXT_KINDS, FleetHit, FleetMoment, FleetScope, FleetText, Forgotten
from vidmem_ros.memory.records import Pose

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_TEXT_CHARS = 8192  # Milvus VARCHAR bound: longer text is cut (an event's caption, a long speech)
MAX_LABELS_CHARS = 2048
# Reciprocal-rank fusion's constant (the usual 60): ranks matter, raw scores of BM25 and cosine never mix.
RRF_K = 60
_MOMENT_FIELDS = ["robot", "local_id", "stamp", "x", "y", "has_pose", "frame_id", "labels"]
_TEXT_FIELDS = ["robot", "kind", "local_id", "stamp", "end_stamp", "x", "y", "has_pose", "frame_id", "text"]


class MilvusFleetStore:
    def __init__(
        self,
        uri: str,
        image_dim: int | None,
        text_dim: int,
        *,
        token: str = "",
        prefix: str = "vidmem",
        hnsw_m: int = 16,
        ef_construction: int = 200,
        ef_search: int = 64,
    ) -> None:
        try:
            from pymilvus import MilvusClient
        except ImportError as exc:
            raise ConfigError(
                "fleet.uri is set but pymilvus is not installed: pip install -r requirements/fleet.txt"
            ) from exc
        self.uri = str(Path(uri).expanduser()) if embedded(uri) else uri
        if embedded(uri):
            Path(self.uri).parent.mkdir(parents=True, exist_ok=True)
        self.moments_name, self.texts_name = f"{prefix}_moments", f"{prefix}_texts"
        self.image_dim, self.text_dim = image_dim, text_dim
        self.ef_search = ef_search
        self._known: dict[str, set[str]] = {}  # collection -> robots with a partition
        with _reaching(self.uri):
            self.client = MilvusClient(self.uri, token=token) if token else MilvusClient(self.uri)
            if image_dim is not None:
                self._ensure(self.moments_name, self._moments_schema, "vector", image_dim, hnsw_m, ef_construction)
            elif self.client.has_collection(self.moments_name):  # None: read the frames with the dimension they have
                fields = {f["name"]: f for f in self.client.describe_collection(self.moments_name)["fields"]}
                self.image_dim = int(fields["vector"]["params"]["dim"])
                self.client.load_collection(self.moments_name)
            self._ensure(self.texts_name, self._texts_schema, "dense", text_dim, hnsw_m, ef_construction)

    # -- collections ---------------------------------------------------------------------

    def _ensure(
        self, name: str, schema: Callable[[], Any], vector_field: str, dim: int, m: int, ef_construction: int
    ) -> None:
        if self.client.has_collection(name):
            fields = {f["name"]: f for f in self.client.describe_collection(name)["fields"]}
            have = int(fields[vector_field]["params"]["dim"])
            if have != dim:
                raise ConfigError(
                    f"fleet store collection {name} holds {have}-d vectors, this robot's embedder makes {dim}-d: "
                    "every robot of a fleet needs the same embedders (or another fleet.collection_prefix)"
                )
            self.client.load_collection(name)
            return
        index = self.client.prepare_index_params()
        index.add_index(
            vector_field,
            index_type="HNSW",
            metric_type="COSINE",
            params={"M": m, "efConstruction": ef_construction},
        )
        if name == self.texts_name:
            index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        self.client.create_collection(name, schema=schema(), index_params=index)

    def _base_schema(self) -> Any:
        from pymilvus import DataType, MilvusClient

        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("pk", DataType.VARCHAR, is_primary=True, max_length=160)
        schema.add_field("robot", DataType.VARCHAR, max_length=64)
        schema.add_field("local_id", DataType.INT64)
        schema.add_field("stamp", DataType.DOUBLE)
        schema.add_field("x", DataType.FLOAT)
        schema.add_field("y", DataType.FLOAT)
        schema.add_field("has_pose", DataType.BOOL)
        schema.add_field("frame_id", DataType.VARCHAR, max_length=128)
        return schema

    def _moments_schema(self) -> Any:
        from pymilvus import DataType

        schema = self._base_schema()
        schema.add_field("event_id", DataType.INT64)
        schema.add_field("labels", DataType.VARCHAR, max_length=MAX_LABELS_CHARS)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=self.image_dim)
        return schema

    def _texts_schema(self) -> Any:
        from pymilvus import DataType, Function, FunctionType

        schema = self._base_schema()
        schema.add_field("kind", DataType.VARCHAR, max_length=16)
        schema.add_field("end_stamp", DataType.DOUBLE)
        schema.add_field("moment_id", DataType.INT64)
        schema.add_field("text", DataType.VARCHAR, max_length=MAX_TEXT_CHARS, enable_analyzer=True)
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_field("dense", DataType.FLOAT_VECTOR, dim=self.text_dim)
        schema.add_function(
            Function(
                name="text_bm25",
                function_type=FunctionType.BM25,
                input_field_names=["text"],
                output_field_names=["sparse"],
            )
        )
        return schema

    def _ensure_partition(self, name: str, robot: str) -> None:
        if not self._has_partition(name, robot):
            self.client.create_partition(name, robot)
            self._known[name].add(robot)

    def _has_partition(self, name: str, robot: str) -> bool:
        """Whether ``robot`` has a partition in ``name``; another robot's connection may have made one since
        this one last looked, so a miss looks again."""
        if robot not in self._known.get(name, set()):
            self._known[name] = set(self.client.list_partitions(name)) - {"_default"}
        return robot in self._known[name]

    def _scoped(self, name: str, scope: FleetScope) -> list[str] | None:
        """The partitions a search of ``scope`` reads: the robots named (those that have one), or all (None)."""
        if not scope.robots:
            return None
        return [robot for robot in scope.robots if self._has_partition(name, robot)]

    def _image_dim(self) -> int:
        if self.image_dim is None:
            raise ConfigError("this fleet store connection was opened for text only")
        return self.image_dim

    # -- writing -------------------------------------------------------------------------

    def upsert_moments(self, moments: Sequence[FleetMoment]) -> None:
        rows = [
            {
                **_place(m.pose),
                "pk": f"{m.robot}/moment/{m.local_id}",
                "robot": m.robot,
                "local_id": m.local_id,
                "stamp": m.stamp,
                "event_id": m.event_id,
                "labels": " ".join(m.labels)[:MAX_LABELS_CHARS],
                "vector": _vector(m.vector, self._image_dim(), "image"),
            }
            for m in moments
        ]
        self._upsert(self.moments_name, rows)

    def upsert_texts(self, texts: Sequence[FleetText]) -> None:
        rows = []
        for t in texts:
            if t.kind not in TEXT_KINDS:
                raise ValueError(f"text kind must be one of {', '.join(TEXT_KINDS)}, got {t.kind!r}")
            rows.append(
                {
                    **_place(t.pose),
                    "pk": f"{t.robot}/{t.kind}/{t.local_id}",
                    "robot": t.robot,
                    "kind": t.kind,
                    "local_id": t.local_id,
                    "stamp": t.stamp,
                    "end_stamp": t.end,
                    "moment_id": t.moment_id,
                    "text": t.text[:MAX_TEXT_CHARS],
                    "dense": _vector(t.vector, self.text_dim, "text"),
                }
            )
        self._upsert(self.texts_name, rows)

    def _upsert(self, name: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        by_robot: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            by_robot.setdefault(row["robot"], []).append(row)
        with _reaching(self.uri):
            for robot, own in by_robot.items():
                self._ensure_partition(name, robot)
                self.client.upsert(name, own, partition_name=robot)
            # Searched unflushed, the rows sit in a growing segment that every query scans (about 500 ms at 20 k
            # rows on Milvus Lite); flushed, they are sealed and indexed.
            self.client.flush(name)

    def forget(self, robot: str, forgotten: Forgotten) -> None:
        """Remove what the robot forgot: its moments by id and in the spans, the text read in those frames, and
        the speech and events that overlap a span or were forgotten by id."""
        moment_filters = [f"stamp >= {a!r} and stamp <= {b!r}" for a, b in forgotten.spans]
        text_filters = [f"end_stamp >= {a!r} and stamp <= {b!r}" for a, b in forgotten.spans]
        for ids in _chunks(sorted(set(forgotten.moment_ids)), 1000):
            moment_filters.append(f"local_id in {list(ids)}")
            text_filters.append(f'kind == "text" and moment_id in {list(ids)}')
        for ids in _chunks(sorted(set(forgotten.event_ids)), 1000):
            moment_filters.append(f"event_id in {list(ids)}")
            text_filters.append(f'kind == "event" and local_id in {list(ids)}')
        with _reaching(self.uri):
            for name, filters in ((self.moments_name, moment_filters), (self.texts_name, text_filters)):
                if (name == self.moments_name and self.image_dim is None) or not self._has_partition(name, robot):
                    continue  # nothing of this robot's there
                for condition in filters:
                    self.client.delete(
                        name, filter=f"robot == {_quoted(robot)} and ({condition})", partition_name=robot
                    )
                self.client.flush(name)

    # -- reading -------------------------------------------------------------------------

    def search_text(self, query: str, vector: np.ndarray | None, limit: int, scope: FleetScope) -> list[FleetHit]:
        """Best first: BM25 over the words, fused with the sentence vector's nearest when ``vector`` is given."""
        from pymilvus import AnnSearchRequest, RRFRanker

        expr = _text_filter(scope)
        with _reaching(self.uri):
            partitions = self._scoped(self.texts_name, scope)
            if partitions == []:
                return []
            if vector is None:
                found = self.client.search(
                    self.texts_name,
                    data=[query],
                    anns_field="sparse",
                    limit=limit,
                    filter=expr,
                    output_fields=_TEXT_FIELDS,
                    search_params={"metric_type": "BM25"},
                    partition_names=partitions,
                )
            else:
                requests = [
                    AnnSearchRequest([query], "sparse", {"metric_type": "BM25"}, limit, expr=expr),
                    AnnSearchRequest(
                        [_vector(vector, self.text_dim, "text")],
                        "dense",
                        {"metric_type": "COSINE", "params": {"ef": max(self.ef_search, limit)}},
                        limit,
                        expr=expr,
                    ),
                ]
                found = self.client.hybrid_search(
                    self.texts_name,
                    requests,
                    RRFRanker(RRF_K),
                    limit=limit,
                    output_fields=_TEXT_FIELDS,
                    partition_names=partitions,
                )
        # Milvus Lite reports a BM25 score as a negated distance, a server as the score: best first either way.
        return [
            _text_hit(hit, abs(float(hit["distance"])) if vector is None else float(hit["distance"]))
            for hit in found[0]
        ]

    def search_images(self, vector: np.ndarray, limit: int, scope: FleetScope) -> list[FleetHit]:
        with _reaching(self.uri):
            partitions = self._scoped(self.moments_name, scope)
            if partitions == []:
                return []
            found = self.client.search(
                self.moments_name,
                partition_names=partitions,
                data=[_vector(vector, self._image_dim(), "image")],
                anns_field="vector",
                limit=limit,
                filter=_moment_filter(scope),
                output_fields=_MOMENT_FIELDS,
                search_params={"metric_type": "COSINE", "params": {"ef": max(self.ef_search, limit)}},
            )
        return [_moment_hit(hit) for hit in found[0]]

    def moment_vector(self, robot: str, local_id: int) -> np.ndarray | None:
        """A frame's visual vector as the robot sent it; None if the store has no such frame."""
        if self.image_dim is None or not self._has_partition(self.moments_name, robot):
            return None
        with _reaching(self.uri):
            found = self.client.get(
                self.moments_name, ids=[f"{robot}/moment/{local_id}"], output_fields=["vector"], partition_names=[robot]
            )
        return np.asarray(found[0]["vector"], np.float32) if found else None

    def counts(self, robot: str | None = None) -> dict[str, int]:
        names = (("moments", self.moments_name),) if self.image_dim is not None else ()
        counts = {}
        with _reaching(self.uri):
            for kind, name in (*names, ("texts", self.texts_name)):
                if robot is not None and not self._has_partition(name, robot):
                    counts[kind] = 0
                    continue
                # The filter as well as the partition: Milvus Lite counts a whole collection by partition alone.
                found = self.client.query(
                    name,
                    filter=f"robot == {_quoted(robot)}" if robot else "",
                    output_fields=["count(*)"],
                    partition_names=[robot] if robot else None,
                )
                counts[kind] = int(found[0]["count(*)"])
        return counts

    def close(self, release: bool = False) -> None:
        """Close the connection; ``release`` also lets go of an embedded store's file, which one process holds
        at a time (pymilvus keeps it until the process ends), so another process can open it."""
        self.client.close()
        if release and embedded(self.uri):
            from milvus_lite.server_manager import server_manager_instance

            server_manager_instance.release_server(self.uri)


def embedded(uri: str) -> bool:
    """Whether ``uri`` names an embedded Milvus Lite file (one process at a time) rather than a server."""
    return "://" not in uri


def fleet_connector(config: FleetConfig, image_dim: int | None, text_dim: int) -> Callable[[], MilvusFleetStore]:
    """Opens the configured fleet store; the token is read from the environment, never from a parameter."""
    token = os.environ.get(config.token_env, "")

    def open_store() -> MilvusFleetStore:
        return MilvusFleetStore(
            config.uri,
            image_dim,
            text_dim,
            token=token,
            prefix=config.collection_prefix,
            hnsw_m=config.hnsw_m,
            ef_construction=config.hnsw_ef_construction,
            ef_search=config.hnsw_ef_search,
        )

    return lambda: opened_when_free(open_store, config.uri, config.open_wait_s)


def opened_when_free(open_store: Callable[[], T], uri: str, wait_s: float) -> T:
    """``open_store()``, waiting up to ``wait_s`` while another process holds an embedded store's file: the query
    node and the ingest node's sync take turns with it, and a turn is short."""
    deadline = time.monotonic() + wait_s
    while True:
        while embedded(uri) and held_elsewhere(uri) and time.monotonic() < deadline:
            time.sleep(_LOCK_POLL_S)
        try:
            return open_store()
        except FleetUnavailableError:
            # Taken between the look and the open: wait again; any other failure is the caller's to wait out.
            if not (embedded(uri) and held_elsewhere(uri)) or time.monotonic() >= deadline:
                raise


_LOCK_POLL_S = 0.1


def held_elsewhere(uri: str) -> bool:
    """Whether the advisory lock Milvus Lite keeps on an embedded store's folder is taken by another holder."""
    lock = Path(uri).expanduser() / "LOCK"
    if not lock.is_file():
        return False
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def robot_id(config: FleetConfig) -> str:
    """This robot's name in the fleet: ``fleet.robot_id``, else the host name in the characters it allows."""
    return config.robot_id or re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname())[:64] or "robot"


# -- filters and rows ----------------------------------------------------------------------


def _quoted(text: str) -> str:
    return json.dumps(text)  # a Milvus string literal: double quotes, backslash escapes


def _scope_terms(scope: FleetScope) -> list[str]:
    return [f"robot in {json.dumps(list(scope.robots))}"] if scope.robots else []


def _moment_filter(scope: FleetScope) -> str:
    terms = _scope_terms(scope)
    hi = min(v for v in (scope.end, scope.as_of, np.inf) if v is not None)
    if scope.start is not None:
        terms.append(f"stamp >= {scope.start!r}")
    if np.isfinite(hi):
        terms.append(f"stamp <= {float(hi)!r}")
    return " and ".join(terms)


def _text_filter(scope: FleetScope) -> str:
    """Records that overlap the window and had ended by ``as_of`` (speech is not heard before it is over)."""
    terms = _scope_terms(scope)
    if scope.kinds:
        terms.append(f"kind in {json.dumps(list(scope.kinds))}")
    if scope.start is not None:
        terms.append(f"end_stamp >= {scope.start!r}")
    if scope.end is not None:
        terms.append(f"stamp <= {scope.end!r}")
    if scope.as_of is not None:
        terms.append(f"end_stamp <= {scope.as_of!r}")
    return " and ".join(terms)


def _place(pose: Pose | None) -> dict[str, Any]:
    if pose is None:
        return {"x": 0.0, "y": 0.0, "has_pose": False, "frame_id": ""}
    return {"x": float(pose.x), "y": float(pose.y), "has_pose": True, "frame_id": pose.frame_id[:128]}


def _vector(vector: np.ndarray, dim: int, what: str) -> list[float]:
    flat = np.asarray(vector, np.float32).reshape(-1)
    if flat.size != dim or not np.all(np.isfinite(flat)) or not np.any(flat):
        raise ValueError(f"a {what} vector for the fleet store needs {dim} finite values, not all zero")
    return flat.tolist()


def _text_hit(hit: dict[str, Any], score: float) -> FleetHit:
    e = hit["entity"]
    return FleetHit(
        e["robot"],
        e["kind"],
        int(e["local_id"]),
        float(e["stamp"]),
        float(e["end_stamp"]),
        score,
        e["text"],
        *_xy(e),
    )


def _moment_hit(hit: dict[str, Any]) -> FleetHit:
    e = hit["entity"]
    stamp = float(e["stamp"])
    return FleetHit(
        e["robot"], "moment", int(e["local_id"]), stamp, stamp, float(hit["distance"]), e["labels"], *_xy(e)
    )


def _xy(entity: dict[str, Any]) -> tuple[float | None, float | None, str]:
    if not entity["has_pose"]:
        return None, None, ""
    return float(entity["x"]), float(entity["y"]), str(entity["frame_id"])


def _chunks(items: list[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


@contextmanager
def _reaching(uri: str) -> Iterator[None]:
    """Milvus's own errors (a server down, a refused request) as one error the sync can wait out."""
    from pymilvus.exceptions import MilvusException

    try:
        yield
    except MilvusException as exc:
        raise FleetUnavailableError(f"fleet store {uri}: {exc}") from exc
    except (ConnectionError, TimeoutError, OSError) as exc:
        raise FleetUnavailableError(f"fleet store {uri} cannot be reached: {exc}") from exc
