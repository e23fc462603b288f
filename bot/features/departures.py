"""Tables whose place is gone: the bot removed from a server, a channel or thread deleted.

Each table there is stopped and forgotten at once: closed in storage with no game recorded
(nobody can see its result there, and nobody ended it by playing), taken out of play (its
timers, its driver, its pending edit), and not a single request is sent to the gone place
(it would answer 403 or 404). The players with a hand in their DMs see that hand become
one line saying why (an edit of their DM, in their language), so no dead menu is left.
Wired to Discord's events by ``bot.app.departures``.
"""

from __future__ import annotations

import logging

from bot.play.endings import Endings
from bot.table.manager import TableManager
from bot.table.state import STOPPED, Table
from bot.table.step import Steps
from bot.ui.hands import Hands
from engine.text import T, Text
from locales import say, speaking

log = logging.getLogger(__name__)

SERVER_LEFT = T("The {game} table ended: I was removed from its server.")
CHANNEL_DELETED = T("The {game} table ended: its channel was deleted.")
THREAD_DELETED = T("The {game} table ended: its thread was deleted.")


class Departures:
    def __init__(self, manager: TableManager, steps: Steps, endings: Endings, hands: Hands):
        self.manager = manager
        self.steps = steps
        self.endings = endings
        self.hands = hands

    async def server_left(self, guild_id: int) -> int:
        """The bot is no longer in the server: every table of it ended. How many."""
        tables = [t for t in self.manager.all() if t.guild_id == guild_id]
        ended = 0
        for table in tables:
            ended += await self._end(table, SERVER_LEFT)
        return ended

    async def channel_deleted(self, channel_id: int, thread: bool = False) -> bool:
        """The channel (or thread) is deleted: its table ended, if it had one."""
        table = self.manager.in_channel(channel_id)
        if table is None:
            return False
        return await self._end(table, THREAD_DELETED if thread else CHANNEL_DELETED)

    async def _end(self, table: Table, why: Text) -> bool:
        line = why.filled(game=table.title)
        async with self.steps.hold(table) as live:
            if not live:
                return False  # ended meanwhile
            table.status, table.stopped_by = STOPPED, None
            table.turn_deadline = table.reminder_at = None
            table.lines = [line]
            # Forgotten here even if storage fails (a restart would then find it open,
            # and the idle stop end it); a lobby's close, no game recorded.
            await self.endings.close(table)
        log.info("table %s ended: %s", table.table_id, say(line))
        await self._tell_players(table, line)
        return True

    async def _tell_players(self, table: Table, line: Text) -> None:
        """Each live hand DM becomes the one line (the DM channels are not the gone place)."""
        for seat, player in enumerate(table.seats):
            if player.user_id not in table.posts.hand_messages:
                continue
            with speaking(self.hands.language_of(player.user_id)):
                note = f"⏹️ {say(line)}"
            try:
                await self.hands.retire_menu(table, seat, note=note)
            except Exception:  # a DM is a courtesy: the table is ended whatever happens
                log.exception("cannot tell a player of table %s that it ended",
                              table.table_id)
