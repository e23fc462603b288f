"""What a closed table still owes its channel, shown even across a restart.

A table's end is stored in one transaction (``Store.finish_table``); what it shows comes
after, in Discord: the final result with its Rematch (or a series' next deal), the table
message redrawn as stopped, a series' final standings. A process that died in between
left it unshown: the table closed in storage, its message still naming whose turn it
is, a series ended in silence. So the end is stored together with what it owes
(``OWED_KINDS``) and settled once shown; at a restart, or when another process takes over
the tables of one that stopped, whatever is still owed is shown then.

Shown at most once per process: a table is owed by one process at a time. The one that
ended it keeps its claim until it has shown it (``TableManager.finish``); any other must
claim it first (``Store.claim_table``), and skips the tables being shown here. A crash
after the message but before the settle shows it again after the restart; the message
carries a nonce (``bot.ui.poster.once``), so Discord returns the first one instead of
posting it twice.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.storage import ACTIVE_STATUSES, Store, TableRow
from bot.table.manager import TableManager
from bot.table.state import Table

log = logging.getLogger(__name__)

Payer = Callable[[Table], Awaitable[None]]
"""Shows one kind of what a table owes (``bot.storage.OWED_KINDS``)."""


class Debts:
    def __init__(self, store: Store, manager: TableManager):
        self.store = store
        self.manager = manager
        self.payers: dict[str, Payer] = {}  # by kind: set up by bot.play.endings (and series)
        # What follows once settled, by kind: shown again after a restart, it would do no
        # harm (a redraw); the payer's message would be posted twice.
        self.afterwards: dict[str, Payer] = {}
        self._paying: set[str] = set()  # ids of the tables being shown by this process

    def owing(self, table_id: str) -> None:
        """``table_id``'s end was just stored with what it owes: this process shows it."""
        self._paying.add(table_id)

    async def pay(self, table: Table, owed: str) -> None:
        """Show what ``table`` (closed) owes its channel, then settle it, even if showing it
        failed: a channel that cannot be written to is not tried again and again. Cancelled
        (the process stops), it stays owed: the restart shows it."""
        try:
            await self.payers[owed](table)
        except Exception:
            log.exception("cannot show the end (%s) of table %s", owed, table.table_id)
        await self._settle(table.table_id)
        after = self.afterwards.get(owed)
        if after is not None:
            try:
                await after(table)
            except Exception:
                log.exception("cannot redraw table %s after its end", table.table_id)

    async def _settle(self, table_id: str) -> None:
        try:
            await self.store.settle_owed(table_id)
        except Exception:  # then a restart shows it once more: better than never
            log.exception("cannot settle what table %s owed", table_id)
        finally:
            self._paying.discard(table_id)
            self.manager.let_go(table_id)

    async def collect(self, wanted: Callable[[int], bool]) -> list[tuple[Table, str]]:
        """The closed tables of the servers ``wanted`` (this process's shards) that still
        owe their channel something, claimed by this process, each with what it owes: to
        ``pay`` now. Tables this process is showing, or another holds, are skipped."""
        found: list[tuple[Table, str]] = []
        for table_id, guild_id in await self.store.owed_table_keys():
            if table_id in self._paying or not wanted(guild_id):
                continue
            if self.manager.get(table_id) is not None:
                # Live here: its end failed on the way back from a commit (a database
                # restart) and is tried again; that try finds it ended and shows it.
                continue
            if not await self.store.claim_table(table_id):
                continue  # the process that ended it is showing it
            row = await self.store.load_table(table_id)  # read once it is ours
            if not isinstance(row, TableRow) or row.owed is None \
                    or row.status in ACTIVE_STATUSES:
                await self.store.release_table(table_id)  # shown meanwhile (or unreadable)
                if row is not None and not isinstance(row, TableRow):
                    await self.store.settle_owed(table_id)
                continue
            self.manager.keep_claim(table_id)
            self._paying.add(table_id)
            try:
                table = self.manager.rebuild(row)
            except Exception:  # a game no longer in this build: nothing can be drawn
                log.exception("cannot bring back closed table %s", table_id)
                await self._settle(table_id)
                continue
            found.append((table, row.owed))
        return found
