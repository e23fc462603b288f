"""Whether a game's deals are still secret: a duplicate tournament round still under way.

Every table of a duplicate round is dealt the same cards, so a table that has finished
must not show its hands (a replay, its record, the web replay) while another table of
the round may still be dealt them. Read from storage alone, so the bot and the web
process (which drives no tournament) decide alike.
"""

from __future__ import annotations

import logging

from bot.storage import Store
from bot.table.tournament import RUNNING, Tournament
from engine.text import T

log = logging.getLogger(__name__)

SECRET_DEALS = T("This game's deals are still being played at other tables of its "
                 "tournament round: its replay opens when the round is over.")


def secret_tables(t: Tournament) -> list[str]:
    """The tables whose deals are secret: those of a duplicate round not over yet (only
    the current round may be: the next is planned when it is over)."""
    rnd = t.current
    if not t.duplicate or t.status != RUNNING or rnd is None or rnd.over:
        return []
    return [p.table_id for p in rnd.tables]


async def deals_secret(store: Store, game_id: int, guild_id: int | None = None) -> bool:
    """Whether stored game ``game_id`` was played at a table of a duplicate tournament
    round still under way (``guild_id``: only that server's tournaments)."""
    for row in await store.active_tournaments():
        if guild_id is not None and row.guild_id != guild_id:
            continue
        if not row.data.get("duplicate"):
            continue
        try:
            t = Tournament.from_data(row.data, row.version)
        except Exception:  # (unreadable: nobody drives it either)
            log.exception("cannot read tournament %s", row.tournament_id)
            continue
        for table_id in secret_tables(t):
            if await store.game_of_table(table_id) == game_id:
                return True
    return False
