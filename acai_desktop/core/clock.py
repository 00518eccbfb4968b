"""Timestamps as the database stores them: UTC, ISO 8601, sortable as text."""

from datetime import UTC, datetime


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text)


def parse_utc(text: str) -> datetime:
    """Like :func:`parse_iso`, a time without a zone taken as UTC (an imported
    dialogue's), so that any two stored times compare."""
    at = datetime.fromisoformat(text)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def local_time_text(at: datetime, now: datetime | None = None) -> str:
    """``at`` as the user reads a time soon: "15:02" today, "2026-12-02 15:02" otherwise
    (local time zone)."""
    local = at.astimezone()
    today = (now or datetime.now(UTC)).astimezone().date()
    return local.strftime("%H:%M" if local.date() == today else "%Y-%m-%d %H:%M")
