"""Faces: sightings on kept frames clustered online into face identities, kept in the store.

Each sighting's unit descriptor (``perception.face``) is clustered by ``memory.identities`` with the ``face``
settings, as voices are; a face that overlaps one on the event's frame before continues that face's track and
joins its identity within a looser distance (the same person turning or lit otherwise).  A sighting is a row of
``face_sightings`` tied to its frame (``moments``), so retention, the disk budget and forget take it with the frame.  Its crop is kept only while its frame is a keyframe with an
image: the event's close drops the others, and a trigger drops a crop with its frame's image.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from vidmem_ros.config import FaceConfig
from vidmem_ros.errors import InputError
from vidmem_ros.memory import identities
from vidmem_ros.memory.identities import Assignment, Clusters, Kind
from vidmem_ros.memory.rows import vector_blob
from vidmem_ros.perception.types import FaceSeen

FACES = Kind(
    noun="face",
    table="faces",
    members="face_sightings",
    column="face_id",
    vectors_sql="SELECT stamp, vector FROM face_sightings WHERE face_id = ?",
    retired_key="face_ids_retired",
)


class FaceClusters(Clusters):
    """The faces in memory; every change is written in the caller's transaction."""

    def __init__(self, config: FaceConfig) -> None:
        super().__init__(FACES, config)
        self.face = config  # the tracking settings too

    def add(
        self, db: sqlite3.Connection, moment_id: int, stamp: float, face: FaceSeen, track: int | None = None
    ) -> Assignment:
        """Store one face seen on frame ``moment_id`` and give it its identity (``track``'s, the face it continues
        on the frame before, where its descriptor is near enough); InputError (nothing written) for a descriptor
        no face can hold."""
        tracked = (track, self.face.track_distance) if track is not None else None
        chosen, vector, distance, new = self.place(db, face.vector, stamp, tracked)
        ref = db.execute(
            "INSERT INTO face_sightings (moment_id, stamp, x0, y0, x1, y1, sharpness, vector, face_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (moment_id, stamp, *face.box, face.sharpness, vector_blob(vector), chosen.id),
        ).lastrowid
        if face.crop:
            db.execute("INSERT INTO face_crops VALUES (?, ?)", (ref, face.crop))
        merged = self.settle(db, chosen)
        return Assignment(merged[0] if merged else chosen.id, distance, new, tuple(merged[1:]))


def add_faces(
    db: sqlite3.Connection, clusters: FaceClusters, moment_id: int, stamp: float, faces: Sequence[FaceSeen]
) -> tuple[list[Assignment], list[str]]:
    """Every face of one frame stored; the assignments, and the reasons of those refused (the rest still kept).  A
    face that overlaps one on the event's frame before continues its track."""
    done: list[Assignment] = []
    refused: list[str] = []
    before = _previous_faces(db, moment_id, stamp, clusters.face.track_gap_s)
    for face in faces:
        track = max(((iou(face.box, box), ref) for box, ref in before), default=(0.0, None))
        try:
            tracked = track[1] if track[0] >= clusters.face.track_iou else None
            done.append(clusters.add(db, moment_id, stamp, face, tracked))
        except InputError as exc:
            refused.append(exc.reason)
    return done, refused


def _previous_faces(
    db: sqlite3.Connection, moment_id: int, stamp: float, gap_s: float
) -> list[tuple[tuple[float, float, float, float], int]]:
    """The faces (box, identity) on the latest earlier frame of the same event with any, no more than ``gap_s``
    before."""
    rows = db.execute(
        "SELECT f.x0, f.y0, f.x1, f.y1, f.face_id, f.moment_id FROM face_sightings f JOIN moments m "
        "ON m.id = f.moment_id WHERE m.event_id = (SELECT event_id FROM moments WHERE id = ?) AND f.moment_id < ? "
        "AND f.stamp >= ? AND f.face_id IS NOT NULL ORDER BY f.moment_id DESC",
        (moment_id, moment_id, stamp - gap_s),
    ).fetchall()
    latest = rows[0][5] if rows else None
    return [((x0, y0, x1, y1), ref) for x0, y0, x1, y1, ref, frame in rows if frame == latest]


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1)."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def keep_keyframe_crops(db: sqlite3.Connection, event_id: int) -> None:
    """Drop the face crops of an event's frames that are not its keyframes (the event was just summarised)."""
    db.execute(
        "DELETE FROM face_crops WHERE sighting_id IN (SELECT f.id FROM face_sightings f JOIN moments m "
        "ON m.id = f.moment_id WHERE m.event_id = ? AND m.keyframe = 0)",
        (event_id,),
    )


def retire(db: sqlite3.Connection, ids: list[int]) -> None:
    """Remove these faces (and those merged into them) for good: their sightings, descriptors and crops too."""
    for ref in ids:
        db.execute(
            "DELETE FROM face_sightings WHERE face_id IN (SELECT id FROM faces WHERE id = ? OR merged_into = ?) "
            "OR face_id = ?",
            (ref, ref, ref),
        )  # cascades their crops
    identities.retire(db, FACES, ids)


def refresh(db: sqlite3.Connection) -> int:
    """After frames were forgotten: each face rebuilt from the sightings it has left, a face with none removed."""
    return identities.refresh(db, FACES)
