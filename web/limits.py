"""A sliding one-minute limit per key (an address, a user): how sessions are rate-limited."""

from __future__ import annotations

from collections import deque


class RateLimit:
    def __init__(self, per_minute: int, most_keys: int = 100_000):
        self.per_minute = per_minute
        self.most_keys = most_keys  # bounded memory: the oldest keys go first
        self._hits: dict[str, deque[float]] = {}

    def allow(self, key: str, now: float) -> bool:
        """Count one try of ``key`` at ``now``: False if it had ``per_minute`` already."""
        hits = self._hits.get(key)
        if hits is None:
            if len(self._hits) >= self.most_keys:
                del self._hits[next(iter(self._hits))]
            hits = self._hits[key] = deque()
        while hits and hits[0] <= now - 60.0:
            hits.popleft()
        if len(hits) >= self.per_minute:
            return False
        hits.append(now)
        return True
