"""One search over memory combining text, time range and place filters, as the search service offers it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from vidmem_ros.memory.records import Moment, SearchHit
from vidmem_ros.memory.store import SqliteStore


@dataclass(frozen=True)
class Place:
    x: float
    y: float
    radius: float


def search_memory(
    store: SqliteStore,
    text: str = "",
    start: float | None = None,
    end: float | None = None,
    place: Place | None = None,
    as_of: float | None = None,
    limit: int = 10,
    kinds: Sequence[str] = (),
) -> list[SearchHit]:
    """Best hits first.  Text ranks; time range and place filter; without text, the newest matches come first.

    ``kinds`` limits text search to some document kinds (moment, event, super_event, text, transcript).
    """
    lo = -math.inf if start is None else start
    hi = math.inf if end is None else end
    if text.strip():
        hits = store.search_text(text, limit=limit * 5, as_of=as_of, kinds=kinds)
        hits = [h for h in hits if h.end_stamp >= lo and h.stamp <= hi]
        if place is not None:
            hits = [h for h in hits if _near(store, h, place)]
        return hits[:limit]
    if place is not None:
        hits = store.search_place(place.x, place.y, place.radius, as_of=as_of, limit=limit * 5)
        return [h for h in hits if lo <= h.stamp <= hi][:limit]
    events = store.events(lo, hi, as_of=as_of)
    return [SearchHit("event", e.id, e.start, e.end, 1.0, e.caption, e.start_pose) for e in reversed(events)][:limit]


def _near(store: SqliteStore, hit: SearchHit, place: Place) -> bool:
    """Whether a text hit was seen within the place: its moment's pose, or any moment of its event."""
    if hit.kind == "event":
        moments = store.event_moments(hit.ref)
    elif hit.kind == "moment":
        moment = store.moment(hit.ref, with_payload=False)
        moments = [moment] if moment else []
    else:
        moments = store.moments(hit.stamp - 1.0, hit.end_stamp + 1.0)
    return any(m.pose and math.hypot(m.pose.x - place.x, m.pose.y - place.y) <= place.radius for m in moments)


def view_end(store: SqliteStore, moment: Moment, as_of: float | None = None) -> Moment:
    """The last moment of a moment's view: the last of the moments after it in its event, each sharing a scene tag
    with the one before (the moment itself where none does).  A thing named in one frame's tags stayed in view
    while the view did: the gate keeps few frames of a still scene, and a weak model names a thing in only some."""
    if moment.event_id is None:
        return moment
    last, labels = moment, {t.label for t in moment.tags}
    for later in store.event_moments(moment.event_id):
        if later.stamp <= moment.stamp or (as_of is not None and later.stamp > as_of):
            continue
        tagged = {t.label for t in later.tags}
        if not labels & tagged:
            break
        last, labels = later, tagged
    return last
