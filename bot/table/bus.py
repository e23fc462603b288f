"""The table bus: every saved step of this process, published to whoever follows tables.

``TableManager`` publishes here after each write that changes a table's version —
a table opened, a step saved (a player's move, a timer's, an AI seat's, a lobby
change, a mark), a table closed — in version order, since a table's writes happen
one at a time under its lock. Subscribers are plain callbacks, called at once and in
order; one that fails is logged and does not stop the others or the step. Another
process follows the same changes through the store's notices (on PostgreSQL, a
NOTIFY sent in the same transaction as each write: ``Store.listen``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

log = logging.getLogger(__name__)


class Change(StrEnum):
    OPENED = "opened"  # a new table stored (a lobby)
    SAVED = "saved"  # a step saved
    CLOSED = "closed"  # the table finished, was stopped, or its lobby closed


@dataclass(frozen=True)
class Saved:
    """One write of a table, at the version it saved."""

    table_id: str
    version: int
    change: Change
    status: str  # the table's status after it


Subscriber = Callable[[Saved], None]


class TableBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Follow every saved step from now on; returns the call that stops following."""
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)

        return unsubscribe

    def publish(self, saved: Saved) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber(saved)
            except Exception:  # a follower's trouble never undoes or stops a step
                log.exception("a table bus subscriber failed on %s", saved)
