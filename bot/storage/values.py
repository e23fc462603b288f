"""Checks and conversions (JSON, timestamps as text) every backend applies alike.

Kept out of the backends so that SQLite and a later one refuse the same inputs
and read the same stored text alike.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.storage.rows import GLOBAL_SCOPE


def to_json(value: Any) -> str:
    """The one JSON form stored (compact, UTF-8 as is)."""
    # allow_nan=False: NaN is not JSON, and another backend's JSON type would refuse it.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def parse_object(raw: bytes | str) -> dict[str, Any]:
    """A stored JSON object; ValueError (or UnicodeDecodeError) for anything else."""
    # Read as bytes so that even invalid UTF-8 in one row is that row's problem only.
    data = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    if not isinstance(data, dict):
        raise ValueError(f"the snapshot is a JSON {type(data).__name__}, not an object")
    return data


def parse_posts(raw: bytes | str | None) -> dict[str, Any] | None:
    """Stored posts, or None: they are only hints, so unreadable ones are simply absent."""
    if raw is None:
        return None
    try:
        return parse_object(raw)
    except (ValueError, TypeError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None


def scope_key(guild_id: int | None) -> int:
    """The ratings scope of a server, or the global one for None."""
    return GLOBAL_SCOPE if guild_id is None else guild_id


def check_status(status: str, allowed: Sequence[str]) -> None:
    if status not in allowed:
        raise ValueError(f"Status must be one of {', '.join(allowed)}, not {status!r}.")


def check_page(offset: int, limit: int) -> None:
    if offset < 0 or limit < 1:
        raise ValueError("A page needs offset >= 0 and limit >= 1.")


def win_rate(wins: int, games: int) -> float:
    return wins / games if games else 0.0


def time_text(when: datetime) -> str:
    """A timestamp as text (where a column has no time type): ISO 8601 in UTC, fixed
    width, so text order is time order. A naive ``datetime`` is taken as UTC."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat(timespec="microseconds")


def text_time(text: str) -> datetime:
    return datetime.fromisoformat(text)
