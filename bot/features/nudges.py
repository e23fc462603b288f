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

The button's custom_id: ``ct:nudge:<table>`` (it acts on the table as it is now, so it
carries no version).
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import TYPE_CHECKING, Any, Protocol, cast

import discord

from bot.table.durations import DAY, MINUTE
from bot.table.state import Table, TableError
from bot.ui import answers, custom_ids, markup, replies, turn_notices
from bot.ui.poster import DMClosed, Poster
from engine.text import T
from locales import _, say, speaking

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.clicks import Clicks
    from bot.table.manager import TableManager
    from bot.table.step import Steps
    from bot.table.timers import Clock


class HandSender(Protocol):
    """What a nudge needs of the hands (``bot.ui.hands.Hands``; named by its shape, since the
    hands draw this module's button)."""

    poster: Poster

    def language_of(self, user_id: int) -> str: ...


log = logging.getLogger(__name__)

NUDGE_TEMPLATE = r"ct:nudge:(?P<table>[0-9a-f]{6,16})"
SILENCE_WITHOUT_TIMER = 5 * MINUTE
GAP, SLOW_GAP = 10 * MINUTE, 60 * MINUTE


def nudge_id(table_id: str) -> str:
    return custom_ids.checked(f"ct:nudge:{table_id}", NUDGE_TEMPLATE)


# ------------------------------------------------------------------------ the rules


def silence_needed(turn_timer: float) -> float:
    """How long the player to act must have been silent before a nudge (seconds)."""
    return SILENCE_WITHOUT_TIMER if turn_timer <= 0 else max(float(MINUTE), turn_timer / 4)


def nudge_gap(turn_timer: float) -> float:
    """The least time between two nudges at a table (seconds)."""
    return SLOW_GAP if turn_timer > DAY else GAP


def waiting_for(table: Table) -> int | None:
    """The seat of the person the table waits for now, or None (the bot plays)."""
    seat = table.to_act
    return seat if seat is not None and table.automation() is None else None


def check_nudge(table: Table, user_id: int, now: float) -> int:
    """The seat a nudge by ``user_id`` reaches now, or ``TableError`` with the reason;
    changes nothing."""
    table.require_playing()
    table.seated(user_id)
    seat = waiting_for(table)
    if seat is None:
        raise TableError(T("Nobody is being waited for just now: the bot is playing."))
    player = table.seats[seat]
    if player.user_id == user_id:
        raise TableError(T("It is your own turn: there is nobody to nudge but you."))
    ready = table.last_activity + silence_needed(table.turn_timer)
    if now < ready:
        raise TableError(T("{player} has only just got the turn. You can nudge them {when}.",
                           player=player.name_text, when=markup.relative_time(ready)))
    if table.nudged_at is not None:
        again = table.nudged_at + nudge_gap(table.turn_timer)
        if now < again:
            raise TableError(T("This table had a nudge a short while ago. The next one can "
                               "be sent {when}.", when=markup.relative_time(again)))
    return seat


# ------------------------------------------------------------------------ the button


class _NudgeHandler(Protocol):
    async def nudge_click(self, interaction: discord.Interaction, table_id: str) -> None: ...


class _ClientWithNudges(Protocol):
    @property
    def croupier(self) -> _NudgeHandler: ...


def handler_of(interaction: discord.Interaction) -> _NudgeHandler:
    # Components are only registered by CardTableBot (bot.app.client), which has a croupier.
    return cast(_ClientWithNudges, interaction.client).croupier


class NudgeButton(discord.ui.DynamicItem[discord.ui.Button], template=NUDGE_TEMPLATE):
    def __init__(self, table_id: str):
        super().__init__(discord.ui.Button(
            # Translators: a button on the table: remind the player to act that it is their turn
            style=discord.ButtonStyle.secondary, label=_("Nudge"), emoji="👋",
            custom_id=nudge_id(table_id)))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> NudgeButton:
        return cls(match["table"])

    async def callback(self, interaction: discord.Interaction) -> None:
        replies.answers_with_new_message(interaction)  # a private answer, not an edit
        await answers.run_click(interaction, lambda: handler_of(interaction).nudge_click(
            interaction, self.table_id))


def add_to_table(view: discord.ui.View, table: Table) -> discord.ui.View:
    """The table message's Nudge button (in the current language), while a person is to
    act."""
    if waiting_for(table) is not None:
        view.add_item(NudgeButton(table.table_id))
    return view


# ------------------------------------------------------------------------ the click


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
                seat = check_nudge(table, interaction.user.id, now)
            except TableError as error:
                await replies.reply(interaction, say(error))
                return

            def nudged(t: Table) -> None:
                t.nudged_at = now

            outcome = await self.steps.apply(table, nudged)
            if not outcome.saved:
                await replies.reply(interaction, say(answers.SOMETHING_WRONG))
                return
            target = table.seats[seat]
            await replies.reply(interaction, _("👋 I nudged {player}.", player=target.shown))
            await self._nudge(table, seat, interaction.user.display_name)

    async def _nudge(self, table: Table, seat: int, nudger: str) -> None:
        """Ping the player to act: by DM when their hand comes by DM, else in the channel."""
        player, posts, poster = table.seats[seat], table.posts, self.hands.poster
        name = discord.utils.escape_mentions(discord.utils.escape_markdown(nudger))
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
