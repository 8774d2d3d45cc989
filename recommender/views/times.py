"""A moment as every surface of raidsweep writes one: in UTC, to the second, the zone named
(``2026-11-29 22:27:50 UTC``), as ``raidsweep characterize`` writes a phase's times and the
report its own (``… 22:27 UTC``). The store keeps its times in UTC (``sweep.json``'s
``created_at``, a run's ``finished_at``); a time written elsewhere in another zone is turned
into UTC, and one that names no zone is never taken for UTC: it is said to name none."""

from __future__ import annotations

from datetime import UTC, datetime

#: how a moment is written, the zone after it
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
#: said after a time whose zone was not recorded
NO_ZONE = "(time zone not recorded)"


def time_text(value: object) -> str | None:
    """``value`` (a datetime, or ISO 8601 text as the store's records hold it) as
    ``2026-11-29 22:27:50 UTC``; a time without a zone with ``NO_ZONE`` after it; None for
    anything that is no time (None, other text: the caller says what it is)."""
    moment = value
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(moment, datetime):
        return None
    if moment.tzinfo is None or moment.utcoffset() is None:
        return f"{moment:{TIME_FORMAT}} {NO_ZONE}"
    return f"{moment.astimezone(UTC):{TIME_FORMAT}} UTC"
