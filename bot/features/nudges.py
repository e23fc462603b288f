"""The Nudge button: the other players remind a silent player that the table waits for them.

**Decisions** (issue #18):

* The table message carries **Nudge** beside **My hand** while a person is to act
  (``add_to_table``). Any seated player but the one to act may press it, once the
  player to act has been silent for a while: a quarter of the turn timer, at least
  a minute (``silence_needed``; 5 minutes when the table has no timer). Before that,
  and for anyone not seated, or the player to act themself, it is refused politely
  and privately, and nothing changes.
* At most one nudge per table every 10 minutes; every hour at a table whose timer is
  longer than a day (``nudge_gap``). The time of the last one is kept in the table's
  snapshot (``Table.nudged_at``, saved without a new step: nobody's menu goes stale),
  so a restart does not reset the limit.
* The nudge reaches the player where their turn was told (``bot.ui.turn_notices``): a
  **DM** when their hand comes by DM and their DMs are open (that is where they look
  for their turn, and a DM notifies even on a muted server), with a link to their live
  hand; **otherwise a mention in the channel**, which replaces their turn notice and is
  deleted with it once their turn ends — so nudges never pile up in the channel.
  The nudge names who nudged; it never shows a card.

The rules (who may nudge whom, when) are ``bot.table.nudge_rules``; the button is
``bot.ui.feature_buttons.NudgeButton``; this module answers its click.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Protocol

import discord

from bot.table.nudge_rules import check_nudge
from bot.table.state import Table, TableError
from bot.ui import answer_guard, markup, replies, turn_notices
from bot.ui.poster import DMClosed, Poster
from locales import _, say, speaking

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.clicks import Clicks
    from bot.table.manager import TableManager
    from bot.table.step import Steps
    from bot.table.timers import Clock


class HandSender(Protocol):
    """What a nudge needs of the hands (``bot.ui.hands.Hands``)."""

    poster: Poster

    def language_of(self, user_id: int) -> str: ...


log = logging.getLogger(__name__)


class Nudges:
    def __init__(self, clicks: Clicks, steps: Steps, manager: TableManager, hands: HandSender,
                 clock: Clock):
        self.clicks = clicks
        self.steps = steps
        self.manager = manager
        self.hands = hands
        self.clock = clock

    async def click(self, interaction: discord.Interaction, table_id: str) -> None:
        async with self.clicks.table(interaction, table_id, channel_bound=True) as table:
            if table is None:
                return
            now = self.clock.now()
            try:
                seat = check_nudge(table, interaction.user.id, now, markup.relative_time)
            except TableError as error:
                await replies.reply(interaction, markup.say_safe(error))
                return
            outcome = await self.steps.apply(table, lambda t: t.mark_nudged(now))
            if not outcome.saved:
                await replies.reply(interaction, say(answer_guard.SOMETHING_WRONG))
                return
            target = table.seats[seat]
            await replies.reply(interaction, _("👋 I nudged {player}.",
                                                 player=markup.safe_name(target.name_text)))
            await self._nudge(table, seat, interaction.user.display_name)

    async def _nudge(self, table: Table, seat: int, nudger: str) -> None:
        """Ping the player to act: by DM when their hand comes by DM, else in the channel."""
        player, posts, poster = table.seats[seat], table.posts, self.hands.poster
        name = markup.safe_name(nudger)
        if not turn_notices.needs_mention(table, seat):
            hand = posts.hand_messages.get(player.user_id)
            dm_channel = posts.dm_channels.get(player.user_id)
            where = (markup.jump_url(None, dm_channel, hand) if hand and dm_channel
                     else markup.jump_url(table.guild_id, table.channel_id, posts.message_id))
            with speaking(self.hands.language_of(player.user_id)):  # a DM: theirs
                text = _("👋 {nudger} nudged you: it is your turn at {game}. Your hand: {link}",
                         nudger=name, game=table.title, link=where)
            with contextlib.suppress(DMClosed):
                if await poster.dm(player.user_id, dm_channel,
                                   content=markup.content(text)) is not None:
                    return
        with speaking(table.language):  # the channel reads the table's language
            text = _("👋 {player}, {nudger} nudged you: it is your turn at {game}. Your "
                     "cards are under **My hand**.", player=markup.mention(player.user_id),
                     nudger=name, game=table.title)
        await turn_notices.tell(poster, table, seat, text)
        try:
            await self.manager.save_posts(table)
        except Exception:  # a lost notice id costs a message left in the channel, no more
            log.exception("cannot save the posts of table %s", table.table_id)
