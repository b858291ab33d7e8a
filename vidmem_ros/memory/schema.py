"""SQLite schema of the memory store, and upgrades from older versions.

Payloads (JPEG) and vectors live in their own tables so moment rows stay small
to scan, and retention can drop a payload without touching what the moment
says (when, where, what was detected or read).
"""

from __future__ import annotations

import sqlite3
import time

from vidmem_ros.memory import links

SCHEMA_VERSION = 6  # 3: runs (memory's own time, see ``runs``); 4: voices (who spoke, see ``speakers``); 5: faces;
# 6: a voice and a face linked as one person (``links``)

POSE_COLUMNS = ("pose_frame", "px", "py", "pz", "qx", "qy", "qz", "qw")
_POSE_DDL = "pose_frame TEXT, px REAL, py REAL, pz REAL, qx REAL, qy REAL, qz REAL, qw REAL"

TABLES = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS moments (
    id INTEGER PRIMARY KEY,
    stamp REAL NOT NULL,
    source TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    sharpness REAL NOT NULL,
    jpeg BLOB,  -- version 1 kept payloads here; version 2 moves them to payloads
    {_POSE_DDL},
    quality REAL NOT NULL DEFAULT 0,
    event_id INTEGER,
    keyframe INTEGER NOT NULL DEFAULT 0,
    tier TEXT NOT NULL DEFAULT 'recent',
    run_id INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS moments_stamp ON moments (stamp);
CREATE INDEX IF NOT EXISTS moments_event ON moments (event_id, stamp);
CREATE INDEX IF NOT EXISTS moments_tier ON moments (tier, stamp);
CREATE INDEX IF NOT EXISTS moments_place ON moments (px, py);
CREATE TABLE IF NOT EXISTS payloads (
    moment_id INTEGER PRIMARY KEY REFERENCES moments (id) ON DELETE CASCADE,
    jpeg BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS moment_vectors (
    moment_id INTEGER PRIMARY KEY REFERENCES moments (id) ON DELETE CASCADE,
    stamp REAL NOT NULL,
    vector BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS detections (
    id INTEGER PRIMARY KEY,
    moment_id INTEGER NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    stamp REAL NOT NULL,
    label TEXT NOT NULL,
    score REAL NOT NULL,
    x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS detections_label_stamp ON detections (label, stamp);
CREATE INDEX IF NOT EXISTS detections_moment ON detections (moment_id);
CREATE TABLE IF NOT EXISTS tags (  -- one row per word a tag answers to: its class and its everyday terms
    moment_id INTEGER NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    stamp REAL NOT NULL,
    label TEXT NOT NULL,
    word TEXT NOT NULL,
    score REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tags_word_stamp ON tags (word, stamp);
CREATE INDEX IF NOT EXISTS tags_moment ON tags (moment_id);
CREATE INDEX IF NOT EXISTS tags_stamp ON tags (stamp);  -- what was seen at a visit, read per question
CREATE TABLE IF NOT EXISTS texts (
    id INTEGER PRIMARY KEY,
    moment_id INTEGER NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    stamp REAL NOT NULL,
    text TEXT NOT NULL,
    score REAL NOT NULL,
    x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS texts_moment ON texts (moment_id);
CREATE INDEX IF NOT EXISTS texts_stamp ON texts (stamp);
CREATE TABLE IF NOT EXISTS transcripts (
    id INTEGER PRIMARY KEY,
    start REAL NOT NULL,
    end REAL NOT NULL,
    text TEXT NOT NULL,
    speaker TEXT NOT NULL DEFAULT '',
    run_id INTEGER NOT NULL DEFAULT 1,
    speaker_id INTEGER  -- the voice that said it (speakers.id); NULL when none could be told
);
CREATE INDEX IF NOT EXISTS transcripts_start ON transcripts (start);
CREATE TABLE IF NOT EXISTS speakers (  -- voices: identities clustered from transcripts' speaker vectors
    id INTEGER PRIMARY KEY,
    centroid BLOB NOT NULL,  -- sum of its segments' unit vectors (float32)
    segments INTEGER NOT NULL DEFAULT 0,
    first_stamp REAL NOT NULL,
    last_stamp REAL NOT NULL,
    name TEXT NOT NULL DEFAULT '',  -- only from evidence: a self-introduction heard
    name_ref INTEGER,  -- the transcript that named it
    merged_into INTEGER  -- a voice found to be another one points at it
);
CREATE TABLE IF NOT EXISTS transcript_voices (  -- a transcript's speaker vector, apart so speech rows stay small
    transcript_id INTEGER PRIMARY KEY REFERENCES transcripts (id) ON DELETE CASCADE,
    vector BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS faces (  -- faces: identities clustered from face sightings' descriptors
    id INTEGER PRIMARY KEY,
    centroid BLOB NOT NULL,  -- sum of its sightings' unit descriptors (float32)
    segments INTEGER NOT NULL DEFAULT 0,  -- sightings
    first_stamp REAL NOT NULL,
    last_stamp REAL NOT NULL,
    name TEXT NOT NULL DEFAULT '',  -- never guessed; kept empty until evidence names it
    name_ref INTEGER,
    merged_into INTEGER  -- a face found to be another one points at it
);
CREATE TABLE IF NOT EXISTS face_sightings (  -- a face seen on a kept frame, with its descriptor
    id INTEGER PRIMARY KEY,
    moment_id INTEGER NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    stamp REAL NOT NULL,
    x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL,
    sharpness REAL NOT NULL,
    vector BLOB NOT NULL,
    face_id INTEGER  -- faces.id; NULL once that face was forgotten
);
CREATE INDEX IF NOT EXISTS face_sightings_face ON face_sightings (face_id, stamp);
CREATE INDEX IF NOT EXISTS face_sightings_moment ON face_sightings (moment_id);
CREATE INDEX IF NOT EXISTS face_sightings_stamp ON face_sightings (stamp);
CREATE TABLE IF NOT EXISTS face_crops (  -- a small JPEG of the face, kept only while its frame is a kept keyframe
    sighting_id INTEGER PRIMARY KEY REFERENCES face_sightings (id) ON DELETE CASCADE,
    jpeg BLOB NOT NULL
);
-- A frame's image dropped (retention, the disk budget, forget) takes its faces' crops with it.
CREATE TRIGGER IF NOT EXISTS payload_gone_face_crops AFTER DELETE ON payloads BEGIN
    DELETE FROM face_crops WHERE sighting_id IN (SELECT id FROM face_sightings WHERE moment_id = OLD.moment_id);
END;
CREATE TABLE IF NOT EXISTS person_links (  -- a voice and a face found to be one person (``links``), recomputed
    speaker_id INTEGER PRIMARY KEY,
    face_id INTEGER NOT NULL UNIQUE,
    together INTEGER NOT NULL,  -- transcripts of the voice heard while that face alone was in view
    confidence REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS super_events (
    id INTEGER PRIMARY KEY,
    start REAL NOT NULL,
    end REAL NOT NULL,
    event_count INTEGER NOT NULL DEFAULT 0,
    summary TEXT NOT NULL DEFAULT '',
    run_id INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    start REAL NOT NULL,
    end REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'open',
    reason TEXT NOT NULL DEFAULT '',
    frame_count INTEGER NOT NULL DEFAULT 0,
    caption TEXT NOT NULL DEFAULT '',
    change TEXT NOT NULL DEFAULT '',
    labels TEXT NOT NULL DEFAULT '[]',
    texts TEXT NOT NULL DEFAULT '[]',
    transcript TEXT NOT NULL DEFAULT '[]',
    keyframes TEXT NOT NULL DEFAULT '[]',
    super_id INTEGER REFERENCES super_events (id) ON DELETE SET NULL,
    start_{_POSE_DDL.replace(", ", ", start_")},
    end_{_POSE_DDL.replace(", ", ", end_")},
    path_m REAL NOT NULL DEFAULT 0,
    run_id INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS events_start ON events (start);
CREATE INDEX IF NOT EXISTS events_end ON events (end);
CREATE INDEX IF NOT EXISTS events_super ON events (super_id);
CREATE TABLE IF NOT EXISTS event_vectors (
    event_id INTEGER PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
    stamp REAL NOT NULL,
    vector BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS edges (
    id INTEGER PRIMARY KEY,
    src INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    dst INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 1.0,
    origin TEXT NOT NULL DEFAULT 'auto',
    evidence TEXT NOT NULL DEFAULT '',
    UNIQUE (src, dst, kind)
);
CREATE INDEX IF NOT EXISTS edges_dst ON edges (dst);
CREATE TABLE IF NOT EXISTS entities (
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL,
    prototype BLOB,
    sightings INTEGER NOT NULL DEFAULT 0,
    first_stamp REAL NOT NULL,
    last_stamp REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS entities_label ON entities (label);
CREATE TABLE IF NOT EXISTS entity_sightings (
    entity_id INTEGER NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    moment_id INTEGER NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    event_id INTEGER,
    stamp REAL NOT NULL,
    score REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS entity_sightings_entity ON entity_sightings (entity_id, stamp);
CREATE INDEX IF NOT EXISTS entity_sightings_moment ON entity_sightings (moment_id);
CREATE TABLE IF NOT EXISTS pose_track (  -- the robot's path, downsampled (ingest.pose_track_*)
    stamp REAL PRIMARY KEY,
    {_POSE_DDL}
);
CREATE TABLE IF NOT EXISTS folded_events (  -- consolidation: an event whose ordinary frame rows were folded away
    event_id INTEGER PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
    frames INTEGER NOT NULL,  -- frame rows it had
    kept INTEGER NOT NULL,  -- keyframes, best sighting per label, text read
    labels TEXT NOT NULL DEFAULT '{{}}'  -- label -> [frames, first, last, best score]
);
CREATE TABLE IF NOT EXISTS folded_periods (  -- consolidation: events folded into their super event
    super_id INTEGER PRIMARY KEY REFERENCES super_events (id) ON DELETE CASCADE,
    events INTEGER NOT NULL DEFAULT 0,
    labels TEXT NOT NULL DEFAULT '{{}}'
);
CREATE TABLE IF NOT EXISTS runs (  -- stretches of the sensor clock; every stored time is stamp + offset
    id INTEGER PRIMARY KEY,
    first_stamp REAL NOT NULL,  -- sensor clock
    last_stamp REAL NOT NULL,
    offset REAL NOT NULL DEFAULT 0,
    started_wall REAL NOT NULL,  -- Unix time it began
    reason TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, start REAL, end REAL, text TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS documents USING fts5 (
    text, kind UNINDEXED, ref UNINDEXED, stamp UNINDEXED, end_stamp UNINDEXED, tokenize = 'porter unicode61'
);
"""

# Tables whose rows carry their run's id since version 3.
RUN_TABLES = ("moments", "events", "transcripts", "super_events")

# Columns added to version-1 moments rows.
_V2_MOMENT_COLUMNS = (
    "quality REAL NOT NULL DEFAULT 0",
    "event_id INTEGER",
    "keyframe INTEGER NOT NULL DEFAULT 0",
    "tier TEXT NOT NULL DEFAULT 'recent'",
)


def create_or_upgrade(db: sqlite3.Connection) -> None:
    """Create missing tables and bring an older store up to date, in one transaction."""
    fresh = db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'moments'").fetchone()[0] == 0
    with db:
        if not fresh:
            _upgrade_moments(db)
        db.executescript(TABLES)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        version = int(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
        if version == 1:
            db.execute("INSERT INTO payloads SELECT id, jpeg FROM moments WHERE jpeg IS NOT NULL")
            db.execute("UPDATE moments SET jpeg = NULL")
        if version < 3:
            _upgrade_runs(db)
        if version < 4:
            _upgrade_voices(db)
        db.execute("CREATE INDEX IF NOT EXISTS transcripts_speaker ON transcripts (speaker_id, start)")
        if 4 <= version < 6:
            links.relink(db)  # voices and faces kept before links: linked from what they hold
        if version < SCHEMA_VERSION:
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))


def _upgrade_voices(db: sqlite3.Connection) -> None:
    """Speech kept before voices were told apart has no speaker: ``speaker_id`` stays NULL (its tables are new)."""
    if "speaker_id" not in {row[1] for row in db.execute("PRAGMA table_info(transcripts)")}:
        db.execute("ALTER TABLE transcripts ADD COLUMN speaker_id INTEGER")


def _upgrade_moments(db: sqlite3.Connection) -> None:
    have = {row[1] for row in db.execute("PRAGMA table_info(moments)")}
    for column in _V2_MOMENT_COLUMNS:
        if column.split()[0] not in have:
            db.execute(f"ALTER TABLE moments ADD COLUMN {column}")


def _upgrade_runs(db: sqlite3.Connection) -> None:
    """Before runs, memory was one run on the sensor clock: every record joins run 1, at offset 0."""
    for table in RUN_TABLES:
        if "run_id" not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN run_id INTEGER NOT NULL DEFAULT 1")
    first, last = db.execute(
        "SELECT MIN(t), MAX(t) FROM (SELECT stamp AS t FROM moments UNION ALL SELECT start FROM transcripts "
        "UNION ALL SELECT end FROM transcripts)"
    ).fetchone()
    if first is not None and db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0:
        db.execute("INSERT INTO runs VALUES (1, ?, ?, 0, ?, 'kept before memory had runs')", (first, last, time.time()))
