"""Rematch: the result of a finished game offers its players the next one, in one click.

**Decision** (issue #18, taken by the lead): the host's click on **Rematch** opens
the next game at once, with the same seats (AI seats too, in the same order), the
same options and table settings (hands mode, pictures, turn timer, language), and
starts it: everyone just played together, so a round of confirmations would only
slow the loop down.

**Decision** (hardening): what is the server's policy comes from its ``/settings`` as
they are *now*, not as the finished table took them, since a manager who forbids
something means it for the next game too. Policy: the channel must still be one
games may open in (else the rematch is refused with the start command's words);
AI seats only if the server still allows them (they are left out if not, and if too
few players are left the rematch is refused); hints in rated games as the server
allows them now; no pictures if the server turned them off (a table that chose none
stays without). The table's own choices stay as they were, because its players made
them at its start and just played with them: the options (house rules are only the
defaults under a start's options, and the finished game's options were agreed), the
hands mode, the turn timer and the language. Settings that cannot be read open
nothing (``server_settings.read``: never read as "no restrictions"). The first dealer (or,
in AttackJack, who acts first) is drawn by lot again, as each rules file says of a
new game. A player who wants no more leaves the new game the usual way (the bot
plays their seat). A seated player who is not the host is told, privately, that
the host starts it; anyone else is refused politely; a click once the channel has
a live table (the rematch itself, or any other) points to it and creates nothing.

The button's custom_id names the finished table (``ct:rematch:<table>``): the
click rebuilds it from its row in storage (a finished table keeps its last
snapshot there), so the button works after a restart too. ``next_table`` is the
one place that makes a game follow another (``bot.features.series`` uses it for the next
deal of a series).
"""

from __future__ import annotations

import dataclasses
import logging
import random
import secrets
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.actions import table_setup
from bot.actions.clicks import OTHER_CHANNEL
from bot.config import server_settings
from bot.config.server_settings import ServerSettings, SettingsUnavailable
from bot.storage import Store, TableRow
from bot.table.manager import TableManager
from bot.table.posts import Posts
from bot.table.seats import Seat, fresh_seats
from bot.table.state import FINISHED, LOBBY, Table, TableError, new_table_id
from bot.table.timers import Clock
from bot.ui import markup, replies
from bot.ui.feature_buttons import rematch_view
from bot.ui.game_ui import GameUI
from bot.ui.permissions import can_attach, missing_permissions
from bot.ui.replay_buttons import with_replay
from engine.text import T, Text
from locales import _n, say, speaking

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.lobby import Lobby

log = logging.getLogger(__name__)


GONE = T("That game is no longer kept, so I cannot set up its rematch. Start a new table "
         "whenever you like.")
NOT_SEATED = T("Only the players of that game can ask for its rematch.")
# Translators: {host} is the host's name; the host's click on Rematch starts the next game.
NOT_HOST = T("Only the host, {host}, can start the rematch: it starts as soon as they press "
             "**Rematch**.")
ALREADY = T("The rematch has already started: {link}")
BUSY = T("There is already a table of {game} in this channel: {link}")
ON_ITS_WAY = T("The rematch is being set up right now.")
NOT_OPENED = T("I could not open the rematch just now. Please try again.")
# (The lobby's own words: bot.table.state.Table.add_ai.)
NO_AI = T("This server does not allow AI players at its tables.")


def next_table(old: Table, seats: Sequence[Seat], now: float,
               rng: random.Random | None = None, *, settings: ServerSettings | None = None,
               **changes: Any) -> Table:
    """A new table in ``old``'s channel that follows it: every setting kept (options,
    hands, pictures, timer, language), the game's own state fresh. ``seats`` as given
    (``fresh_seats``); the host stays the host if seated, else the first person seated
    does. ``changes``: more fields to set (a series').

    ``settings``: the server's settings as they are now, whose policy then applies
    (``under_policy``); without them the server's choices the old table took are kept.

    The fields reset here are the ones a game changes; a new Table field that holds the
    state of one game must be reset here too."""
    if settings is not None and not settings.ai_allowed:
        seats = [s for s in seats if not s.is_ai]
    people = [s.user_id for s in seats if not s.is_ai]
    host = old.host_id if old.host_id in people else (people[0] if people else old.host_id)
    fresh: dict[str, Any] = dict(
        table_id=new_table_id(), host_id=host, created_at=now, status=LOBBY, version=0,
        step=0, seats=list(seats), rng=rng or random.Random(secrets.randbits(64)), game=None,
        started_at=None, last_activity=now, turn_deadline=None, reminder_at=None, lines=[],
        stopped_by=None, follows=old.table_id, series_id=None, series_deal=0,
        series_totals=[], series_over=False, series_start_at=None, hinted=[],
        nudged_at=None, removed=[],  # (a new game has had no hint, no nudge, no removal)
        # Not scheduled, nobody invited or called: its players are seated already.
        starts_at=None, fill_ai=False, reminders_done=0, reserved=[], invite_only=False,
        called=False, declined=[],
        # Not paused, nobody voting (the quiet hours and the longest pause stay).
        pause_votes=[], paused_until=None, paused_by=[], turn_left=None,
        # No seat has changed hands, nobody asks for one (bot.features.takeover).
        seat_changes=[], takeover_ask=None, takeover_asks=0,
        # Not a tournament's table: a tournament opens its own (bot.features.tournaments).
        tournament_id=None, tournament_round=0, tournament_table=0, tournament_order=[],
        tournament_start_by=None,
        # Where each player's DMs are (and whose are closed) is still true: no second notice.
        posts=Posts(dm_channels=dict(old.posts.dm_channels), dm_closed=set(old.posts.dm_closed)))
    known = {f.name for f in dataclasses.fields(Table)}  # (fields other features add)
    table = dataclasses.replace(old, **{**{k: v for k, v in fresh.items() if k in known},
                                        **changes})
    if settings is not None:
        under_policy(table, settings)
    return table


def under_policy(table: Table, settings: ServerSettings) -> None:
    """The server's policy as ``settings`` say it now, on a table that follows another:
    AI seats allowed or not (``next_table`` leaves existing ones out), hints in rated
    games, and pictures only if the server still shows them. The channel is the caller's
    to check (it needs the click's channel, a thread's parent)."""
    table.ai_allowed = settings.ai_allowed
    table.hints_allowed = settings.hints_allowed
    table.images = table.images and settings.images


def table_link(table: Table) -> str:
    return markup.jump_url(table.guild_id, table.channel_id, table.posts.message_id)


class Rematches:
    def __init__(self, manager: TableManager, store: Store, lobby: Lobby,
                 uis: dict[str, GameUI], clock: Clock,
                 rngs: Callable[[], random.Random | None] = lambda: None):
        self.manager = manager
        self.store = store
        self.lobby = lobby
        self.uis = uis
        self.clock = clock
        self.rngs = rngs  # each new table's Random (seeded in tests: bot.actions.commands)
        self._opening: set[str] = set()  # finished tables whose rematch is being opened

    async def finished(self, table_id: str) -> Table | None:
        """The finished table ``table_id`` as storage keeps it, or None (gone, unreadable,
        not finished, or of a game this bot does not run)."""
        try:
            row = await self.store.load_table(table_id)
        except Exception:
            log.exception("cannot load table %s for its rematch", table_id)
            return None
        if not isinstance(row, TableRow) or row.status != FINISHED:
            return None
        ui = self.uis.get(row.game)
        if ui is None:
            return None
        try:
            table = Table.from_data(row.data, ui.ENGINE, row.version, row.posts)
        except Exception:
            log.exception("cannot read table %s for its rematch", table_id)
            return None
        table.status = row.status
        return table

    async def click(self, interaction: discord.Interaction, table_id: str) -> None:
        """Someone pressed Rematch under the result of table ``table_id``."""
        old = await self.finished(table_id)
        if old is None:
            await replies.reply(interaction, say(GONE))
            return
        if interaction.channel_id != old.channel_id:
            await replies.reply(interaction, say(OTHER_CHANNEL))
            return
        user = interaction.user
        if old.seat_of(user.id) is None:
            await replies.reply(interaction, say(NOT_SEATED))
            return
        if await self._channel_busy(interaction, old):
            return
        if user.id != old.host_id:
            await replies.reply(interaction,
                                markup.say_safe(NOT_HOST.filled(host=old.host_name)))
            return
        missing = missing_permissions(interaction)
        if missing:
            await replies.reply(interaction, _n(
                "I cannot start the rematch here: I am missing the permission {permissions} "
                "in this channel.",
                "I cannot start the rematch here: I am missing the permissions {permissions} "
                "in this channel.", len(missing), permissions=", ".join(missing)))
            return
        if table_id in self._opening:  # a second click while this one loaded the table
            await replies.reply(interaction, say(ON_ITS_WAY))
            return
        self._opening.add(table_id)
        try:
            await self._rematch(interaction, old)
        finally:
            self._opening.discard(table_id)

    async def from_web(self, table_id: str, user_id: int,
                       parent_of: Callable[[int], int | None]) -> Text | None:
        """Rematch asked at the web table (its host's page): the same rules as the button,
        without a click to answer. None once started, else why not (said by the page).
        ``parent_of``: the channel a thread is in (None: not a thread)."""
        old = await self.finished(table_id)
        if old is None:
            return GONE
        if old.seat_of(user_id) is None:
            return NOT_SEATED
        live = self.manager.in_channel(old.channel_id)
        if live is not None:
            return (ALREADY.filled(link=table_link(live)) if live.follows == old.table_id
                    else BUSY.filled(game=live.title, link=table_link(live)))
        if user_id != old.host_id:
            return NOT_HOST.filled(host=old.host_name)
        if table_id in self._opening:
            return ON_ITS_WAY
        try:
            settings = await server_settings.read(self.store, old.guild_id)
        except SettingsUnavailable:
            return NOT_OPENED
        if not settings.allows_channel(old.channel_id, parent_of(old.channel_id)):
            return NOT_OPENED
        table = next_table(old, fresh_seats(old.seats), self.clock.now(), self.rngs(),
                           settings=settings)
        if len(table.seats) < len(old.seats) and not table.count_fits:
            return NO_AI
        self._opening.add(table_id)
        try:
            async with self.manager.lock(table):
                problem = await self._open_and_start(table)
                if problem is not None:
                    return problem if isinstance(problem, Text) else Text(str(problem))
                await self.lobby.show_start(table)
        finally:
            self._opening.discard(table_id)
        return None

    async def _channel_busy(self, interaction: discord.Interaction, old: Table) -> bool:
        """Answer (True) if the channel already has a live table: the rematch, or another."""
        live = self.manager.in_channel(old.channel_id)
        if live is None:
            return False
        if live.follows == old.table_id:
            await replies.reply(interaction, say(ALREADY.filled(link=table_link(live))))
        else:
            await replies.reply(interaction, say(BUSY.filled(game=live.title,
                                                             link=table_link(live))))
        return True

    async def _rematch(self, interaction: discord.Interaction, old: Table) -> None:
        try:
            settings = await server_settings.read(self.store, old.guild_id)
        except SettingsUnavailable:
            await replies.reply(interaction, say(NOT_OPENED))
            return
        refusal = table_setup.channel_refusal(settings, interaction)
        if refusal is not None:  # the server no longer opens games here
            await replies.reply(interaction, refusal)
            return
        table = next_table(old, fresh_seats(old.seats), self.clock.now(), self.rngs(),
                           settings=settings)
        if len(table.seats) < len(old.seats) and not table.count_fits:
            await replies.reply(interaction, say(NO_AI))  # too few without the AI seats
            return
        table.images = table.images and can_attach(interaction)  # (Attach Files may be gone)
        async with self.manager.lock(table):  # nobody reaches the new table before it starts
            problem = await self._open_and_start(table)
            if problem is not None:
                if not await self._channel_busy(interaction, old):
                    await replies.reply(interaction, markup.say_safe(problem))
                return
            # The answer first (one API call): the clicked result shows its rematch started.
            with speaking(old.language):  # the channel's message: the table's language
                started = with_replay(rematch_view(old.table_id, started=True), old.table_id)
            await replies.update(interaction, view=started)
            await self.lobby.show_start(table)  # the table message, the hands, the bot

    async def _open_and_start(self, table: Table) -> str | None:
        """Start the game of ``table`` (a ``next_table``) and open it in its channel, started
        (one write), holding its lock. None, or why it did not start (a ``Text``: nothing
        is left open then)."""
        try:
            await self.lobby.start_unopened(table, table.host_id)
            await self.manager.open(table)
        except TableError as error:  # a stake not paid; the channel got a table meanwhile
            return error.args[0]
        except Exception:  # storage trouble
            log.exception("cannot open the table following %s", table.follows)
            return NOT_OPENED
        return None
