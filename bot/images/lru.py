"""A small least-recently-used cache, bounded in entries and in bytes, safe across threads.

The drawing keeps its ready sprites here. Pictures may be drawn from worker threads,
so every read and write holds the cache's lock; a value is made outside the lock (two
threads missing the same key at once both make it, and both get an equal value,
since making one is a pure function of its key).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_ALL: weakref.WeakSet[LRU[Any, Any]] = weakref.WeakSet()


class LRU(Generic[K, V]):
    def __init__(self, entries: int, max_bytes: int, weigh: Callable[[V], int]) -> None:
        self.entries = entries
        self.max_bytes = max_bytes
        self._weigh = weigh
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        _ALL.add(self)

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, made with ``make()`` (and kept) if there is none."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found[0]
        value = make()
        weight = self._weigh(value)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, weight)
            self._bytes += weight
            while len(self._items) > self.entries or (self._bytes > self.max_bytes
                                                      and len(self._items) > 1):
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped
        return value

    def peek(self, key: K) -> V | None:
        """The value kept for ``key`` (now the most recently used), or None: for a caller
        that must fetch what ``make`` needs before making it (asynchronously)."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def __len__(self) -> int:
        return len(self._items)

    @property
    def bytes(self) -> int:
        """The weight of what is kept now (its pixels' bytes, for sprites)."""
        return self._bytes

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def _after_fork(self) -> None:
        # A fork copies the lock as it was: if another thread held it then, the child
        # would wait forever. The child starts with a new lock, and counts its bytes again
        # (each dictionary operation is atomic, but a change under way had done only part).
        self._lock = threading.Lock()
        self._bytes = sum(weight for _, weight in self._items.values())


def _after_fork_in_child() -> None:
    for cache in _ALL:
        cache._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
