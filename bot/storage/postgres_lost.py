"""A write whose connection was lost: did it commit all the same?

A database that restarts (or a network that drops) can close the connection after a
write was sent and committed but before its reply arrived. Reported as "not saved",
the bot would roll the table back in memory and the player would play the move a
second time over the stored one. So a write lost that way is checked again.
"""

from __future__ import annotations

import asyncio
import logging

from bot.storage.postgres_pool import GONE, Connections
from bot.storage.rows import StorageError

log = logging.getLogger(__name__)


async def written_anyway(db: Connections, error: StorageError, table_id: str, version: int,
                         text: str) -> bool:
    """Whether the lost write of table ``table_id`` at ``version`` with the snapshot
    ``text`` committed: read again on a fresh connection (as long as the database takes
    to come back, within the wait bound). The row at ``version`` holding exactly
    ``text`` is this write. False also when it cannot be told: reported as not saved."""
    if not isinstance(error.__cause__, GONE):
        return False  # refused or busy: the write surely did not happen
    loop = asyncio.get_running_loop()
    deadline = loop.time() + db.wait_s
    while True:
        try:
            rows = await db.fetch(
                "SELECT version, data FROM live_tables WHERE table_id = $1", table_id)
        except StorageError:
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.2)
            continue
        written = bool(rows) and rows[0]["version"] == version and rows[0]["data"] == text
        if written:
            log.warning("storage: the connection was lost as table %s was saved, but the "
                        "save at version %d had committed", table_id, version)
        return written
