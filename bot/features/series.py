"""A game of one deal played as a series (AttackJack): the next deal follows by itself.

A game whose UI says ``SERIES`` is played deal after deal with the same players.
Each deal is a table of its own, so its record, its chips, the ratings and the
history are those of any game (a record holds one AttackJack deal). When a deal
finishes, the next one is opened in the same channel as a lobby that starts by
itself ``Timing.series_pause`` seconds later; its start time is saved with it,
so a restart in between keeps the series going. Why chained tables and not one
table playing deal after deal: everything else in the bot (records, chips,
restore, timers, stale clicks) knows a table as lobby → playing → finished
around one game, and stays as it is.

Each next deal follows the server's ``/settings`` as they are when it is set up, as a
rematch does (``bot.features.rematch``): the series ends if games may no longer be
opened in its channel or the settings cannot be read, AI seats leave it if the server no
longer allows them, and hints in rated games and pictures-off are the server's now.

The next deal seats the same players in the same order, minus those who left
the table during the deal and those who can no longer pay the stake (the chips
of the deal just played have moved by then). Who acts first is drawn by lot
again each deal: the rules file has no dealer, "a lot decides who acts first",
and each deal is a new game. Every result shows the series standings: each
player's net over the deals so far (chips with a stake, else deals won). The
host ends the series with **End series** (pressed between deals, the next one
does not start; during a deal, that deal is the last); fewer than two players
able to play end it too, and so does the ``MAX_DEALS``-th deal (a series with
nothing to choose plays itself, and nobody's timer would ever stop it). Its last
result offers **Rematch**: a new series with the same seats (``bot.features.rematch``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.actions.clicks import Clicks
from bot.config import server_settings
from bot.config.server_settings import ServerSettings, SettingsUnavailable
from bot.config.settings import Timing
from bot.features.rematch import NO_AI, next_table
from bot.storage import Store
from bot.table.manager import TableManager
from bot.table.seats import Seat, fresh_seats
from bot.table.state import LOBBY, Table, TableError
from bot.table.step import Steps
from bot.table.timers import Clock, TableTimers
from bot.ui import answer_guard, markup, replies
from bot.ui.feature_buttons import end_view, rematch_view
from bot.ui.game_ui import GameUI
from bot.ui.poster import Poster, once
from engine.text import TN, T, Text
from locales import _, _n, say, speaking

if TYPE_CHECKING:  # wired by the croupier; imported for the types only (no cycle)
    from bot.actions.lobby import Lobby
    from bot.features.rematch import Rematches
    from bot.play.endings import Endings

log = logging.getLogger(__name__)

# A series without a choice to make plays itself: nobody's timer ever runs out, so without
# an end it would deal on for as long as nobody presses End series. It ends after this
# many deals (Rematch starts another).
MAX_DEALS = 10

ENDED = T("The host ended the series.")
TOO_FEW = T("The series is over: fewer than two players can play another deal.")
LATE = T("The series is over: its next deal waited too long while the bot was away.")
NOT_SET_UP = T("The series is over: I could not set up the next deal.")
NOT_HERE = T("The series is over: this server no longer opens games in this channel.")
ALREADY_OVER = T("This series is already over.")
NOT_HOST = T("Only the host, {host}, can end the series.")
LAST_DEAL = T("The series ends after this deal.")
LAST_ALREADY = T("The series already ends after this deal.")
# Translators: the line on the table when a deal of an AttackJack series is dealt.
DEALT = T("Deal {number} of the series is dealt.")
LEFT = T("{player} left the table and leaves the series.")


def counted(totals: Sequence[Sequence[Any]], seats: Sequence[Seat],
            nets: Sequence[int]) -> list[list[Any]]:
    """The series standings ``[user id, name, net, AI level]`` with one more deal's nets
    added (a new list: a table's ``series_totals`` is replaced, never changed)."""
    out = [list(entry) for entry in totals]
    by_user = {entry[0]: entry for entry in out}
    for seat, net in zip(seats, nets, strict=True):
        entry = by_user.get(seat.user_id)
        if entry is None:
            entry = by_user[seat.user_id] = [seat.user_id, seat.name, 0, seat.ai]
            out.append(entry)
        entry[2] += net
    return out


def stake_of(table: Table) -> int:
    stake = table.options.to_dict().get("stake", 0)
    return stake if isinstance(stake, int) else 0


def add_standings(embed: discord.Embed, table: Table, deals: int) -> None:
    """The series standings after ``deals`` deals, best first, as a field of ``embed``
    (in the current language)."""
    if not table.series_totals or deals < 1:
        return
    chips = stake_of(table) > 0
    rows = sorted(table.series_totals, key=lambda entry: -entry[2])  # stable: seat order
    lines = []
    for user_id, name, net, ai in rows:
        shown = markup.safe_name(Seat(user_id, name, ai=ai).name_text)
        lines.append(f"**{shown}** {net:+d}" if chips else f"**{shown}** {net}")
    if chips:
        # Translators: the heading of each player's chips won or lost over a series so far.
        title = _n("Series after {n} deal: net chips", "Series after {n} deals: net chips",
                   deals)
    else:
        # Translators: the heading of how many deals each player won in a series so far.
        title = _n("Series after {n} deal: deals won", "Series after {n} deals: deals won",
                   deals)
    embed.add_field(name=title, value=markup.clip("\n".join(lines), 1024), inline=False)


def _rematch_line() -> str:
    # Translators: **Rematch** is the button's label.
    return _("**Rematch** starts a new series with the same players.")


class Series:
    def __init__(self, manager: TableManager, steps: Steps, clicks: Clicks, lobby: Lobby,
                 endings: Endings, rematches: Rematches, poster: Poster, timers: TableTimers,
                 store: Store, uis: dict[str, GameUI], timing: Timing, clock: Clock):
        self.manager = manager
        self.steps = steps
        self.clicks = clicks
        self.lobby = lobby
        self.endings = endings
        self.rematches = rematches
        self.poster = poster
        self.timers = timers
        self.store = store
        self.uis = uis
        self.timing = timing
        self.clock = clock

    def is_series(self, table: Table) -> bool:
        ui = self.uis.get(table.game_id)
        return ui is not None and ui.SERIES

    # -- a deal finished (bot.play.endings) ------------------------------------------------

    def count(self, table: Table) -> None:
        """The finished deal counts in its series' standings (its first deal starts it)."""
        if not self.is_series(table) or table.game is None:
            return
        if table.series_id is None:
            table.series_id = table.table_id
        table.series_deal = max(table.series_deal, 1)
        table.series_totals = counted(table.series_totals, table.seats, table.game.totals)

    async def follow(self, table: Table, embed: discord.Embed) -> discord.ui.View | None:
        """What follows a finished game: its result's buttons (``embed`` gets the series'
        standings and what comes next); a series' next deal is set up here."""
        if table.tournament_id is not None:  # its tournament plays on: no rematch, no deal
            return None
        if not self.is_series(table):
            with speaking(table.language):
                return rematch_view(table.table_id)
        notes: list[Text] = []
        why: Text | None = ENDED if table.series_over else None
        waiting: Table | None = None
        if why is None and table.series_deal >= MAX_DEALS:
            why = TN("The series is over after {n} deal, the most a series plays.",
                     "The series is over after {n} deals, the most a series plays.",
                     MAX_DEALS)
        opened = self._opened_next(table)
        if why is None and opened is not None:  # shown again after a restart: opened already
            waiting = opened
        elif why is None:
            seats, notes = await self._next_seats(table)
            settings = await self._settings(table)
            if settings is None:
                why = NOT_SET_UP
            elif not self._allows_channel(settings, table):
                why = NOT_HERE
            else:
                if not settings.ai_allowed and any(s.is_ai for s in seats):
                    seats = [s for s in seats if not s.is_ai]  # (as next_table would)
                    notes.append(NO_AI)
                if len(seats) < 2 or all(s.is_ai for s in seats):
                    why = TOO_FEW
                else:
                    waiting = await self._open_next(table, seats, settings)
                    why = NOT_SET_UP if waiting is None else None
        with speaking(table.language):
            add_standings(embed, table, table.series_deal)
            lines = [markup.say_safe(note) for note in notes]
            if waiting is not None:
                if waiting.series_start_at is not None:  # (else it started meanwhile)
                    lines.append(_("Deal {number} of the series starts {when}. The host can "
                                   "end the series with **End series**.",
                                   number=waiting.series_deal,
                                   when=markup.relative_time(waiting.series_start_at)))
                view = end_view(waiting.series_id or table.table_id)
            else:
                lines += [markup.say_safe(why or ENDED), _rematch_line()]
                view = rematch_view(table.table_id)
            embed.description = "\n\n".join(filter(None, [embed.description,
                                                          "\n".join(lines)]))
        markup.fit_embed(embed)
        return view

    def _opened_next(self, table: Table) -> Table | None:
        """The series' next deal if it is open already: the result of ``table`` is being
        shown once more, after a restart that came between the two."""
        live = self.manager.in_channel(table.channel_id)
        if live is not None and live.series_id == table.series_id \
                and live.series_deal == table.series_deal + 1:
            return live
        return None

    async def _next_seats(self, table: Table) -> tuple[list[Seat], list[Text]]:
        """Who plays the next deal, and why anyone else does not."""
        notes = [LEFT.filled(player=s.name_text) for s in table.seats if s.left]
        seats = [s for s in table.seats if not s.left]
        stake = stake_of(table)
        people = [s.user_id for s in seats if not s.is_ai]
        if stake > 0 and table.guild_id is not None and people:
            try:
                poor = {b.user_id for b in await self.store.check_stake(table.guild_id, people,
                                                                         stake)}
            except Exception:  # the next deal's start checks the stake again
                log.exception("cannot check the stakes of table %s's series", table.table_id)
                poor = set()
            notes += [TN("{player} cannot pay the stake of {n} chip and leaves the series.",
                         "{player} cannot pay the stake of {n} chips and leaves the series.",
                         stake, player=s.name_text) for s in seats if s.user_id in poor]
            seats = [s for s in seats if s.user_id not in poor]
        return fresh_seats(seats), notes

    async def _settings(self, table: Table) -> ServerSettings | None:
        """The server's settings now; None if they cannot be read (then nothing opens:
        unread settings are not "no restrictions")."""
        try:
            return await server_settings.read(self.store, table.guild_id)
        except SettingsUnavailable:
            return None

    def _allows_channel(self, settings: ServerSettings, table: Table) -> bool:
        """Whether games may still be opened in the table's channel (a thread: also where
        its parent is allowed, as Discord's cache knows the thread)."""
        channel = self.poster.client.get_channel(table.channel_id)
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        return settings.allows_channel(table.channel_id, parent)

    async def _open_next(self, table: Table, seats: list[Seat], settings: ServerSettings
                         ) -> Table | None:
        """The series' next deal, waiting in a lobby until its start time, under the
        server's ``settings`` as they are now."""
        now = self.clock.now()
        waiting = next_table(table, seats, now, self.rematches.rngs(), settings=settings,
                             series_id=table.series_id, series_deal=table.series_deal + 1,
                             series_totals=table.series_totals,
                             series_start_at=now + self.timing.series_pause)
        try:
            await self.manager.open(waiting)
        except Exception:
            log.exception("cannot open the next deal of series %s", table.series_id)
            return None
        self.timers.schedule(waiting)
        return waiting

    # -- the next deal's time has come (bot.table.timers: "series") -----------------------------

    async def due(self, table_id: str) -> None:
        table = self.manager.get(table_id)
        if table is None:
            return
        async with self.steps.hold(table) as live:
            if not live or table.status != LOBBY or table.series_start_at is None:
                return
            now = self.clock.now()
            if now < table.series_start_at:
                self.timers.schedule(table)  # woke early
                return
            if now > table.series_start_at + table.lobby_idle:  # a restart long after
                await self._over(table, LATE)
                return

            def dealt(t: Table) -> None:
                t.series_start_at = None
                t.lines = [DEALT.filled(number=t.series_deal)]

            try:
                await self.lobby.start_game(table, table.host_id, also=dealt)
            except TableError as error:  # a stake nobody can pay any more, storage trouble
                await self._over(table, error.args[0] if error.args else NOT_SET_UP)
                return
            # Everyone was pinged at the series' first deal; this one comes to their DMs.
            await self.lobby.show_start(table, ping=False)

    # -- the host's End series ------------------------------------------------------

    async def end_click(self, interaction: discord.Interaction, series_id: str) -> None:
        live = self.manager.in_channel(interaction.channel_id or 0)
        if live is None or live.series_id != series_id:
            await replies.reply(interaction, say(ALREADY_OVER))
            return
        async with self.clicks.table(interaction, live.table_id, channel_bound=True) as table:
            if table is None:
                return
            if interaction.user.id != table.host_id:
                await replies.reply(interaction,
                                    markup.say_safe(NOT_HOST.filled(host=table.host_name)))
                return
            if table.status == LOBBY:  # between deals: the next one does not start
                await self.endings.close_lobby(table, ENDED, owed="series_over")
                await replies.update(interaction, view=None)
                await self.endings.debts.pay(table, "series_over")
                return
            if table.series_over:
                await replies.reply(interaction, say(LAST_ALREADY))
                return
            outcome = await self.steps.apply(table, Table.end_series_after_this)
            await replies.reply(interaction, say(LAST_DEAL if outcome.saved
                                                 else answer_guard.SOMETHING_WRONG))

    async def _over(self, waiting: Table, why: Text) -> None:
        """End the series before its next deal (``waiting``, a lobby): closed, then its
        final standings shown (after a restart, if this process dies in between)."""
        await self.endings.close_lobby(waiting, why, owed="series_over")
        await self.endings.debts.pay(waiting, "series_over")

    async def post_over(self, waiting: Table) -> None:
        """The series ended before its next deal (``waiting``, closed; its line says why):
        the final standings, and a Rematch of the last deal played."""
        why = waiting.lines[0] if waiting.lines else ENDED
        ui = self.uis[waiting.game_id]
        with speaking(waiting.language):
            # Translators: the title of a series' final standings: "AttackJack · series over".
            over = _("series over")
            embed = discord.Embed(title=f"{ui.title} · {over}", colour=markup.GOLD,
                                  description=f"{markup.say_safe(why)}\n{_rematch_line()}")
            add_standings(embed, waiting, waiting.series_deal - 1)
            view = rematch_view(waiting.follows) if waiting.follows else None
        await self.poster.send(waiting.channel_id, waiting.guild_id,
                               embed=markup.fit_embed(embed), nonce=once("over", waiting.table_id),
                               **({"view": view} if view is not None else {}))
