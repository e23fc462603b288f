"""Tournaments: rounds of tables opened, started, timed and scored, restart-proof.

A tournament (``bot.table.tournament``) is kept in storage with a version and driven by
``tick``: one pass that brings it up to date with the clock and its tables, and is safe
to run again at any moment (after a restart it picks up wherever things are). A tick
runs when the tournament's own alarm rings (its start, a round's start by, a round's end:
``tournament_rounds.next_due``), when one of its tables is saved in its lobby or closes
(the table bus), and after a command. What it does, in order:

* sign-up over (the start time came, or ``/tournament start``): the signed-up players
  are seeded by their rating in the game and round 1 is planned (or, with too few, the
  tournament is cancelled);
* each table of the round not opened yet gets a thread in the tournament's channel and a
  lobby whose seats are kept for its players (``bot.table.tournament_seat``);
* a lobby whose players have all joined starts; at the round's start by, every lobby
  starts with AI players in the empty seats (or closes if nobody came);
* at the round's end (its time limit), tables still playing are stopped;
* a table that closed gives its result (read from the table as stored: the same after a
  restart); when every table of the round has one, the next round is planned and opened,
  or the final standings are posted.

Every game is a normal table's game: recorded, rated (unless an AI played a no-show's
seat: such games are never rated), in the history. The tournament's message in its
channel (sign-up, then standings) is edited as things change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import Callable
from typing import Any

import discord

from bot.actions import table_setup
from bot.actions.lobby import Lobby
from bot.config import server_settings
from bot.config.settings import Limits, Timing
from bot.play.endings import Endings
from bot.storage import Store, TournamentRow
from bot.table import tournament_rounds as rounds
from bot.table.bus import Change, Saved
from bot.table.manager import TableManager
from bot.table.state import FINISHED, LOBBY, PLAYING, STOPPED, Table, new_table_id
from bot.table.step import Steps
from bot.table.tasks import TableTasks
from bot.table.timers import Clock
from bot.table.tournament import ACTIVE, RUNNING, SIGNUP, Pairing, Round, TableResult, Tournament
from bot.table.tournament_pairing import PairingError
from bot.table.tournament_seat import all_joined, seat_by_position
from bot.ui import markup, tournament_text
from bot.ui.board import Board, save_posts
from bot.ui.game_ui import GameUI
from bot.ui.poster import Gone, Poster, once
from bot.ui.replies import NO_PINGS, PINGS
from bot.ui.tournament_buttons import tournament_view
from engine.text import T
from locales import speaking

log = logging.getLogger(__name__)

RETRY = 60.0  # seconds before a tick that could not finish tries again
OPEN_TRIES = 5  # tries to open a table before it is given up (also given up at start by)
NOBODY_CAME = T("Nobody came to this table: no game was played.")
TIME_UP = T("The round's time is up: the game was stopped and scores as it stands.")
CALLED_OFF = T("The tournament was cancelled.")


def result_of(table: Table) -> TableResult:
    """A closed tournament table's result by position (its AI seats are the no-shows')."""
    n = len(table.tournament_order) or len(table.seats)
    game = table.game
    if game is None:  # closed in its lobby: nobody came, or the tournament was cancelled
        return TableResult([0] * n, [0] * n, list(range(n)), completed=False, played=False)
    return TableResult(list(game.totals), list(game.ranking()),
                       [k for k, seat in enumerate(table.seats) if seat.is_ai],
                       completed=table.status == FINISHED)


class Alarms:
    """One sleeping task per tournament, replaced whenever its next moment changes."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def set(self, key: str, when: float | None, ring: Callable[[], None]) -> None:
        task = self._tasks.pop(key, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        if when is not None:
            self._tasks[key] = asyncio.create_task(self._wait(key, when, ring),
                                                   name=f"tournament-{key}")

    async def _wait(self, key: str, when: float, ring: Callable[[], None]) -> None:
        await self.clock.sleep_until(when)
        if self._tasks.get(key) is asyncio.current_task():
            del self._tasks[key]
        ring()

    def cancel_all(self) -> list[asyncio.Task[None]]:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        return tasks


class Tournaments:
    def __init__(self, manager: TableManager, steps: Steps, lobby: Lobby, endings: Endings,
                 board: Board, poster: Poster, store: Store, uis: dict[str, GameUI],
                 timing: Timing, limits: Limits, clock: Clock, tasks: TableTasks,
                 owns_guild: Callable[[int], bool] = lambda guild_id: True):
        self.manager = manager
        self.steps = steps
        self.lobby = lobby
        self.endings = endings
        self.board = board
        self.poster = poster
        self.store = store
        self.uis = uis
        self.timing = timing
        self.limits = limits
        self.clock = clock
        self.tasks = tasks
        self.owns_guild = owns_guild
        self.alarms = Alarms(clock)
        self._live: dict[str, Tournament] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._retry: dict[str, float] = {}  # a tick that failed: when to try again
        self._open_failed: dict[str, int] = {}  # a table that could not open: its tries
        manager.bus.subscribe(self._follow)

    # -- the tournaments this process drives --------------------------------------------

    def get(self, tournament_id: str) -> Tournament | None:
        return self._live.get(tournament_id)

    def in_channel(self, channel_id: int, parent_id: int | None = None) -> Tournament | None:
        """The tournament of a channel (or of the channel a thread is in)."""
        return next((t for t in self._live.values()
                     if t.channel_id in (channel_id, parent_id)), None)

    def lock(self, tournament_id: str) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    def title(self, t: Tournament) -> str:
        ui = self.uis.get(t.game_id)
        return ui.title if ui is not None else t.game_id

    async def add(self, t: Tournament) -> None:
        """Store a new tournament (``ChannelBusy``: its channel has one) and drive it."""
        await self.store.create_tournament(TournamentRow(
            t.tournament_id, t.guild_id, t.channel_id, t.status, t.version, t.to_data()))
        self._live[t.tournament_id] = t
        self._arm(t)

    async def save(self, t: Tournament) -> None:
        """Save ``t`` at its version. On a failure its state is read back from storage
        (nothing of the change stays here) and the error raised."""
        try:
            t.version = await self.store.save_tournament(t.tournament_id, t.status,
                                                         t.to_data(), t.version)
        except Exception:
            await self._reload(t.tournament_id)
            raise
        if t.status not in ACTIVE:
            self._live.pop(t.tournament_id, None)
            self.alarms.set(t.tournament_id, None, lambda: None)

    async def _reload(self, tournament_id: str) -> None:
        try:
            row = await self.store.load_tournament(tournament_id)
        except Exception:
            log.exception("cannot read tournament %s again", tournament_id)
            return
        if row is None or row.status not in ACTIVE:
            self._live.pop(tournament_id, None)
            return
        self._live[tournament_id] = Tournament.from_data(row.data, row.version)

    async def restore(self) -> None:
        """After a restart (the tables restored already): every tournament of this
        process's servers signing up or running, brought up to date."""
        for row in await self.store.active_tournaments():
            if not self.owns_guild(row.guild_id) or row.tournament_id in self._live:
                continue
            try:
                t = Tournament.from_data(row.data, row.version)
            except Exception:
                log.exception("cannot read tournament %s", row.tournament_id)
                continue
            self._live[t.tournament_id] = t
            self.poke(t.tournament_id)

    def close(self) -> list[asyncio.Task[None]]:
        """Stop every alarm (the croupier closes)."""
        return self.alarms.cancel_all()

    # -- what wakes a tournament ---------------------------------------------------------

    def poke(self, tournament_id: str) -> None:
        """Bring the tournament up to date soon (a background task: tests wait for it)."""
        self.tasks.spawn(self.tick(tournament_id), f"tournament-{tournament_id}")

    def _follow(self, saved: Saved) -> None:
        """A tournament table's lobby changed (someone joined) or the table closed."""
        if saved.status != LOBBY and saved.change != Change.CLOSED:
            return  # (a move: nothing for the tournament)
        table = self.manager.get(saved.table_id)
        if table is None or table.tournament_id not in self._live:
            return
        self.poke(table.tournament_id)

    def _arm(self, t: Tournament) -> None:
        due = rounds.next_due(t, self.clock.now()) if t.status in ACTIVE else None
        retry = self._retry.get(t.tournament_id)
        if retry is not None:
            due = retry if due is None else min(due, retry)
        tid = t.tournament_id
        self.alarms.set(tid, due, lambda: self.poke(tid))

    async def tick(self, tournament_id: str) -> None:
        async with self.lock(tournament_id):
            t = self._live.get(tournament_id)
            if t is None:
                return
            self._retry.pop(tournament_id, None)
            try:
                await self._advance(t)
            except Exception:
                log.exception("tournament %s could not go on; trying again later",
                              tournament_id)
                self._retry[tournament_id] = self.clock.now() + RETRY
            current = self._live.get(tournament_id)
            if current is not None:
                self._arm(current)

    # -- one pass -----------------------------------------------------------------------

    async def _advance(self, t: Tournament) -> None:
        now = self.clock.now()
        if t.status == SIGNUP:
            if t.starts_at is None or now < t.starts_at:
                await self._show(t)  # (sign-up may have closed)
                return
            if not await self._begin(t):
                return
        rnd = t.current
        if t.status != RUNNING or rnd is None:
            return
        await self._tend(t, rnd)
        while rnd.over and t.status == RUNNING:
            if rounds.is_over(t):
                await self._finish(t)
                return
            rnd = rounds.plan_round(t, self.clock.now(), secrets.randbits(48),
                                    [new_table_id() for _ in t.entrants])
            await self.save(t)
            await self._tend(t, rnd)
        await self._show(t)

    async def _begin(self, t: Tournament) -> bool:
        """Sign-up is over: seed the players and plan round 1 (False: cancelled)."""
        signed = await self.store.signups(t.tournament_id)
        ratings: dict[int, float] = {}
        for user, _name in signed:
            row = await self.store.rank_of(t.game_id, t.guild_id, user)
            if row is not None and row.rated_games > 0:  # (else a starting rating: unrated)
                ratings[user] = row.ordinal
        try:
            rounds.begin(t, signed, ratings)
        except PairingError:
            rounds.cancel(t, "too few players")  # not for players: the log's reason
            await self.save(t)
            await self._show(t)
            await self._say(t, tournament_text.cancelled_text(t, self.title(t), too_few=True),
                            "tcancel")
            return False
        rounds.plan_round(t, self.clock.now(), secrets.randbits(48),
                          [new_table_id() for _ in t.entrants])
        await self.save(t)
        return True

    async def _tend(self, t: Tournament, rnd: Round) -> None:
        """Open, start, stop and score the round's tables as the clock and their players
        say; then announce the round once all its tables are open."""
        changed = False
        for p in rnd.tables:
            if p.result is None:
                changed = await self._tend_table(t, rnd, p) or changed
        if changed:
            await self.save(t)
        if not rnd.announced and all(p.channel_id is not None for p in rnd.tables):
            await self._say(t, tournament_text.round_call(t, rnd, self.title(t)),
                            f"tround{rnd.number}", pings=True)
            rnd.announced = True
            await self.save(t)

    async def _tend_table(self, t: Tournament, rnd: Round, p: Pairing) -> bool:
        """One table of the round; True if the tournament's state changed."""
        now = self.clock.now()
        table = self.manager.get(p.table_id)
        if table is None:
            stored = await self.manager.read(p.table_id)
            if stored is None:  # not opened yet (or its opening was cut short)
                return await self._open_or_give_up(t, rnd, p)
            if stored.status in (FINISHED, STOPPED):
                return rounds.record(t, p.table_id, result_of(stored))
            return False  # open, but not driven here (another process holds it)
        if p.channel_id is None:  # opened before a restart that came before this was saved
            p.channel_id = table.channel_id
            return True
        if table.status == LOBBY and (all_joined(table) or now >= rnd.start_by):
            await self._start(table)
        # (A lobby started past the round's end, after a long restart, stops at once.)
        if table.status == PLAYING and rnd.end_by is not None and now >= rnd.end_by:
            async with self.steps.hold(table) as live:
                if live and table.status == PLAYING:
                    await self.endings.stop(table, None, TIME_UP)
        return False

    # -- a table --------------------------------------------------------------------------

    async def _open_or_give_up(self, t: Tournament, rnd: Round, p: Pairing) -> bool:
        """Open the table; one that fails is tried again (the other tables go on), and
        given up after its tries or at the round's start by: not played, nobody scores,
        and the channel told (else the round would wait for it forever)."""
        now = self.clock.now()
        tries = self._open_failed.get(p.table_id, 0)
        if tries >= OPEN_TRIES or (tries and now >= rnd.start_by):
            self._open_failed.pop(p.table_id, None)
            n = len(p.players)
            rounds.record(t, p.table_id, TableResult([0] * n, [0] * n, list(range(n)),
                                                     completed=False, played=False))
            log.warning("tournament %s: table %s given up", t.tournament_id, p.table_id)
            with speaking(t.language):
                text = tournament_text.not_opened(rnd, p)
            await self._say(t, text, f"tlost{rnd.number}.{p.number}")
            return True
        try:
            await self._open(t, rnd, p)
        except Exception:
            log.exception("tournament %s: table %s could not open; trying again later",
                          t.tournament_id, p.table_id)
            self._open_failed[p.table_id] = tries + 1
            self._retry[t.tournament_id] = now + RETRY
            return False
        self._open_failed.pop(p.table_id, None)
        return True

    async def _open(self, t: Tournament, rnd: Round, p: Pairing) -> None:
        """The table's thread and its lobby, its seats kept for its players."""
        ui = self.uis[t.game_id]
        settings = await server_settings.read(self.store, t.guild_id)
        with speaking(t.language):
            name = markup.clip(f"{t.name or self.title(t)} · R{rnd.number} · T{p.number}",
                               table_setup.THREAD_NAME_LIMIT)
        if p.channel_id is None:
            made = await self._thread(t, name)
            if made is None:
                raise RuntimeError(f"no thread for table {p.table_id}")  # tried again later
            p.channel_id = made
            await self.save(t)  # kept first: a retry reuses the thread, opens no other
        thread = p.channel_id
        now = self.clock.now()
        table = Table(table_id=p.table_id, game_id=t.game_id, engine=ui.ENGINE,
                      guild_id=t.guild_id, channel_id=thread, host_id=0, created_at=now,
                      options=ui.ENGINE.OPTIONS.from_dict(t.options),
                      turn_timer=table_setup.turn_timer(settings, self.timing.turn_timer),
                      lobby_idle=self.timing.lobby_idle, idle_limit=self.limits.idle_after,
                      channel_name=name, last_activity=now, language=t.language,
                      # No Add AI in its lobby: the tournament seats AI players itself.
                      ai_allowed=False, hints_allowed=settings.hints_allowed,
                      images=settings.images, rng=random.Random(t.table_seed(rnd, p)),
                      tournament_id=t.tournament_id, tournament_round=rnd.number,
                      tournament_table=p.number, tournament_order=list(p.players),
                      tournament_start_by=rnd.start_by)
        table_setup.settle_in(table, settings, table_setup.Arrival(
            None, list(p.players), table_setup.Invitation(invite_only=True)), now)
        await self.manager.open(table)
        await self.board.post(table)
        await save_posts(self.manager, table)
        with speaking(t.language):
            call = tournament_text.table_call(rnd, p)
        await self.poster.send(thread, t.guild_id, content=call, allowed_mentions=PINGS)

    async def _thread(self, t: Tournament, name: str) -> int | None:
        client = self.poster.client
        channel = client.get_channel(t.channel_id)
        if channel is None:  # (a restart's first tick comes before the gateway's guilds)
            with contextlib.suppress(discord.HTTPException):
                channel = await client.fetch_channel(t.channel_id)
        if not isinstance(channel, discord.TextChannel):
            log.warning("tournament %s: channel %s is gone", t.tournament_id, t.channel_id)
            return None
        try:
            thread = await channel.create_thread(
                name=name, type=discord.ChannelType.public_thread,
                auto_archive_duration=table_setup.THREAD_ARCHIVE_MINUTES)
        except (discord.HTTPException, OSError) as error:  # no permission, gone
            log.warning("tournament %s: cannot open a thread: %s", t.tournament_id, error)
            return None
        return int(thread.id)

    async def _start(self, table: Table) -> None:
        """Start a lobby: the players in their positions, AI players for the absent; a
        lobby nobody came to closes."""
        now = self.clock.now()
        async with self.steps.hold(table) as live:
            if not live or table.status != LOBBY:
                return
            if not any(table.seat_of(u) is not None for u in table.tournament_order):
                await self.endings.close_lobby(table, NOBODY_CAME)
                await self.board.edit(table)
                return

            def begin(t: Table) -> None:
                seat_by_position(t)
                t.start_and_deal(t.host_id, now)

            outcome = await self.steps.apply(table, begin)
            if not outcome.saved:
                raise RuntimeError(f"table {table.table_id} did not start")  # again later
            await self.lobby.started_by_itself(table)

    # -- the end, and what the channel sees ---------------------------------------------------

    async def _finish(self, t: Tournament) -> None:
        """The final standings posted, then the tournament saved as finished (a restart in
        between posts them again: the nonce makes Discord return the first post)."""
        rounds.finish(t)
        t.final_posted = True
        with speaking(t.language):
            content, embed = tournament_text.final_text(t, self.title(t))
        await self.poster.send(t.channel_id, t.guild_id, content=content, embed=embed,
                               allowed_mentions=PINGS, nonce=once("tfinal", t.tournament_id))
        await self.save(t)
        await self._show(t)

    async def cancel(self, t: Tournament) -> None:
        """The organiser cancels: its open tables close (a game under way is stopped and
        recorded as it stands), and nobody is paired again. The caller holds the lock."""
        rnd = t.current
        for p in rnd.tables if rnd is not None and t.status == RUNNING else ():
            table = self.manager.get(p.table_id)
            if table is None:
                continue
            async with self.steps.hold(table) as live:
                if live and table.status == LOBBY:
                    await self.endings.close_lobby(table, CALLED_OFF)
                    await self.board.edit(table)
                elif live and table.status == PLAYING:
                    await self.endings.stop(table, None, CALLED_OFF)
        rounds.cancel(t, "cancelled by the organiser")  # not for players: the log's
        await self.save(t)
        await self._show(t)
        await self._say(t, tournament_text.cancelled_text(t, self.title(t), too_few=False),
                        "tcancel")

    def state_of(self, p: Pairing) -> str:
        if p.result is not None:
            return tournament_text.DONE
        table = self.manager.get(p.table_id)
        if table is None:
            return ""
        return tournament_text.WAITING if table.status == LOBBY else tournament_text.PLAYING

    async def message(self, t: Tournament) -> dict[str, Any]:
        """The tournament message's parts (in its language)."""
        signed = await self.store.signups(t.tournament_id) if t.status == SIGNUP else []
        with speaking(t.language):
            embed = tournament_text.tournament_embed(t, self.title(t), self.clock.now(),
                                                     signed, self.state_of)
            view = (tournament_view(t.tournament_id, rounds.signup_open(t, self.clock.now()))
                    if t.status in ACTIVE else None)
        return {"embed": embed, "view": view}

    async def _show(self, t: Tournament) -> None:
        """Edit the tournament's message to what it is now."""
        if t.message_id is None:
            return
        with contextlib.suppress(Gone):  # (deleted by a moderator: nothing more to edit)
            await self.poster.edit(t.channel_id, t.guild_id, t.message_id,
                                   **await self.message(t))

    async def _say(self, t: Tournament, text: str, kind: str, pings: bool = False) -> None:
        await self.poster.send(t.channel_id, t.guild_id, content=text,
                               allowed_mentions=PINGS if pings else NO_PINGS,
                               nonce=once(kind, t.tournament_id))

