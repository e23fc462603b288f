"""The croupier runs every table: it wires the parts together and brings tables back.

Where each job lives:

* ``bot.actions.clicks`` — the preamble of every click (find the table, check it, lock it);
* ``bot.table.step`` — the kernel: check, apply, save once with its version, roll back;
* ``bot.ui.presenter`` — an outcome as Discord messages (``bot.ui.board``: the table
  message; ``bot.ui.hands``: the players' hands);
* ``bot.actions.lobby``, ``.moves``, ``.commands`` — what players click and type;
* ``bot.play.driver`` — the bot's own moves; ``bot.play.deadlines`` — turn timers;
* ``bot.play.endings`` — results, records, closing a table;
* ``bot.actions.visits`` — a DM click on a table another process drives (shards).

With several processes on one PostgreSQL (``Settings.shards``), each drives the
tables of its own shards that it could claim, looks every ``Timing.takeover_every``
seconds for tables of its shards whose process stopped (and claims again those whose
ownership went with a database restart: ``recheck``), and catches up
(``caught_up``) when another process announces a step it saved on one of its tables.

Discord errors are logged and absorbed (``bot.ui.poster.Poster``): a table never
crashes on them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import discord

from bot.actions.clicks import Clicks
from bot.actions.commands import Commands
from bot.actions.host_controls import HostControls
from bot.actions.lobby import Lobby
from bot.actions.moves import Moves
from bot.actions.visits import Visits
from bot.app.health import Metrics
from bot.config.settings import Limits, Shards, Timing
from bot.features.gathering import Gathering
from bot.features.hints import Hints
from bot.features.nudges import Nudges
from bot.features.pause import Pauses
from bot.features.rematch import Rematches
from bot.features.replays import Replays
from bot.features.seasons import Seasons
from bot.features.series import Series
from bot.features.takeover import Takeovers
from bot.features.tournament_commands import TournamentDesk
from bot.features.tournaments import Tournaments
from bot.images.painter import Painter
from bot.play.deadlines import Deadlines
from bot.play.driver import Driver
from bot.play.endings import Endings
from bot.storage import CHANGE_KINDS, Store, TableChange
from bot.table.ai_runner import AIRunner
from bot.table.manager import TableManager
from bot.table.retention import Pruner
from bot.table.state import PLAYING, Table
from bot.table.step import Outcome, Steps
from bot.table.tasks import TableTasks
from bot.table.timers import Clock, TableTimers
from bot.ui import replies
from bot.ui.board import Board, save_posts
from bot.ui.front import DiscordFront
from bot.ui.game_ui import GameUI
from bot.ui.gathering import Gatherings
from bot.ui.hands import Hands
from bot.ui.pacer import Pacer
from bot.ui.poster import Poster
from bot.ui.presenter import Presenter
from bot.ui.rewards import Rewards
from bot.ui.web_buttons import WebClicks
from engine.core import Game
from engine.text import T, Text
from locales import say

log = logging.getLogger(__name__)

WEB_OFF = T("The web table is not served any more.")


class Croupier:
    def __init__(self, client: discord.Client, store: Store, uis: dict[str, GameUI],
                 timing: Timing, clock: Clock, seed: int | None = None,
                 ai: AIRunner | None = None, metrics: Metrics | None = None,
                 shards: Shards | None = None, ai_workers: int | None = None,
                 limits: Limits | None = None, painter: Painter | None = None,
                 picture_workers: int | None = None):
        self.store = store
        self.uis = uis
        self.clock = clock
        self.timing = timing
        self.shards = shards or Shards()
        self.limits = limits or Limits()
        self.manager = TableManager(store, self._engine_of)
        self.steps = Steps(self.manager, clock, timing.lock_patience, metrics)
        self.steps.on_stale = self._stale
        self._noticed: dict[str, int] = {}  # per table: the latest change announced to us
        self.poster = Poster(client, Pacer(timing.request_rate * self.shards.share))
        self.tasks = TableTasks()
        self.ai = ai if ai is not None else AIRunner(workers=ai_workers)
        # The pictures of the table and the hands, drawn off the event loop.
        self.painter = painter if painter is not None else Painter(picture_workers)
        self.board = Board(self.poster, self.manager, uis, timing, clock, self.painter)
        readers = getattr(client, "readers", None)
        self.hands = Hands(self.poster, uis, self.painter,
                           readers.of if readers is not None else lambda user_id: "en")
        self.presenter = Presenter(self.poster, self.manager, uis, self.board, self.hands)
        self.timers = TableTimers(clock, self._on_due)
        # What the bot does by itself (bot.play) is shown by the fronts: Discord's here.
        self.front = DiscordFront(self.presenter, self.manager, uis)
        self.endings = Endings(store, self.manager, self.front, uis, self.timers, self.tasks,
                               clock)
        self.driver = Driver(self.steps, self.front, self.endings, self.tasks, self.timers,
                             self.ai, uis, timing, clock)
        self.deadlines = Deadlines(self.steps, self.manager, self.front, self.endings,
                                   self.driver, clock)
        self.clicks = Clicks(self.manager, self.steps)
        self.lobby = Lobby(self.clicks, self.steps, self.board, self.hands, self.endings,
                           self.driver, store, uis, clock)
        self.visits = Visits(store, self.presenter)  # DM clicks of other shards'
        self.moves = Moves(self.clicks, self.steps, self.presenter, self.board, self.hands,
                           self.driver, self.visits, clock)
        self.hints = Hints(self.clicks, self.steps, self.board, self.ai,  # the Hint button
                           self.visits, clock)  # its cooldown on the bot's clock
        # The table's Nudge button (bot.features.nudges).
        self.nudges = Nudges(self.clicks, self.steps, self.manager, self.hands, clock)
        # The table's Pause / Resume vote (bot.features.pause).
        self.pauses = Pauses(self.clicks, self.steps, self.presenter, self.driver, clock)
        # Taking over a seat that was left (bot.features.takeover).
        self.takeovers = Takeovers(self.clicks, self.steps, self.manager, self.board,
                                   self.hands, self.driver, clock)
        self.commands = Commands(self.manager, self.clicks, self.lobby, self.moves, self.board,
                                 self.endings, self.timers, uis, timing, clock, seed,
                                 self.limits)
        # The host's lobby controls: remove a player, change the options.
        self.host_controls = HostControls(self.clicks, self.steps, self.board, self.timers,
                                          uis, clock)
        # What follows a finished game: a rematch, a series' next deal (bot.features).
        self.rematches = Rematches(self.manager, store, self.lobby, uis, clock,
                                   self.commands.table_rng)
        self.series = Series(self.manager, self.steps, self.clicks, self.lobby, self.endings,
                             self.rematches, self.poster, self.timers, store, uis, timing, clock)
        self.endings.standings = self.front.follow = self.series
        self.endings.debts.payers["series_over"] = self.series.post_over
        # Scheduled tables, the role call, invitations (bot.features.gathering).
        self.gathering = Gathering(self.manager, self.steps, self.lobby, self.board,
                                   self.endings, self.timers, self.tasks,
                                   Gatherings(client, self.poster), clock)
        self.commands.opened, self.commands.invited = (self.gathering.opened,
                                                       self.gathering.invite)
        # A finished game stepped through in a private message (bot.features.replays).
        self.replays = Replays(store, self.painter)
        # Closed tables' rows deleted after a while (their games stay): bot.table.retention.
        self.web_links: WebClicks | None = None  # the web table's (offer_web)
        self.pruner = Pruner(store, clock, self.tasks, self.limits.keep_closed,
                             self.limits.prune_every)
        # Tournaments: rounds of tables in threads, standings (bot.features.tournaments).
        self.tournaments = Tournaments(self.manager, self.steps, self.lobby, self.endings,
                                       self.board, self.poster, store, uis, timing,
                                       self.limits, clock, self.tasks, self.shards.owns_guild)
        self.tournament_desk = TournamentDesk(self.tournaments)
        # Seasons' ends and role rewards (bot.features.seasons): a rated game's season.
        self.seasons = Seasons(store, Rewards(client, self.poster), self.tasks, clock)
        self.endings.season_of, self.endings.recorded = (self.seasons.season_of,
                                                         self.seasons.recorded)

    def _engine_of(self, game_id: str) -> type[Game] | None:
        ui = self.uis.get(game_id)
        return ui.ENGINE if ui is not None else None

    async def _on_due(self, table_id: str, kind: str) -> None:
        if kind == "series":  # a series' next deal starts (bot.features.series)
            await self.series.due(table_id)
            return
        if kind in ("call", "begin"):  # a scheduled table's reminder, its time
            await self.gathering.due(table_id, kind)
            return
        await self.deadlines.on_due(table_id, kind)

    # -- what the components and commands call ---------------------------------------

    async def lobby_click(self, interaction: discord.Interaction, table_id: str, step: int,
                          action: str) -> None:
        await self.lobby.click(interaction, table_id, step, action)

    async def hand_click(self, interaction: discord.Interaction, table_id: str) -> None:
        await self.moves.hand_click(interaction, table_id)

    async def move_click(self, interaction: discord.Interaction, table_id: str, step: int,
                         code: str) -> None:
        await self.moves.move_click(interaction, table_id, step, code)

    async def host_click(self, interaction: discord.Interaction, table_id: str, step: int,
                         kind: str, option: str, values: Sequence[str]) -> None:
        await self.host_controls.click(interaction, table_id, step, kind, option, values)

    async def rematch_click(self, interaction: discord.Interaction, table_id: str) -> None:
        await self.rematches.click(interaction, table_id)

    async def end_series_click(self, interaction: discord.Interaction, series_id: str) -> None:
        await self.series.end_click(interaction, series_id)

    async def replay_click(self, interaction: discord.Interaction, game_id: int | None,
                           table_id: str | None) -> None:
        await self.replays.click(interaction, game_id, table_id)

    async def replay_step(self, interaction: discord.Interaction, game_id: int,
                          frame: int) -> None:
        await self.replays.step(interaction, game_id, frame)

    async def tournament_click(self, interaction: discord.Interaction, tournament_id: str,
                               join: bool) -> None:
        await self.tournament_desk.click(interaction, tournament_id, join)

    async def hint_click(self, interaction: discord.Interaction, table_id: str,
                         step: int) -> None:
        await self.hints.click(interaction, table_id, step)

    async def nudge_click(self, interaction: discord.Interaction, table_id: str) -> None:
        await self.nudges.click(interaction, table_id)

    async def pause_click(self, interaction: discord.Interaction, table_id: str,
                          motion: str) -> None:
        await self.pauses.click(interaction, table_id, motion)

    async def takeover_click(self, interaction: discord.Interaction, table_id: str,
                             seat: int | None) -> None:
        await self.takeovers.click(interaction, table_id, seat)

    async def takeover_vote(self, interaction: discord.Interaction, table_id: str, ask: int,
                            accept: bool) -> None:
        await self.takeovers.vote(interaction, table_id, ask, accept)

    def offer_web(self, links: WebClicks, activity: bool = False) -> None:
        """The web table is served (``cogs.web_table``): its buttons on tables and hands
        (with ``activity``, Play in Discord on lobbies and tables), their clicks to
        ``links``."""
        self.web_links = links
        self.board.web_table = self.hands.web_table = True
        self.board.activity = activity

    async def web_click(self, interaction: discord.Interaction, table_id: str,
                        kind: str) -> None:
        if self.web_links is None:
            await replies.reply(interaction, say(WEB_OFF))
            return
        await self.web_links.web_click(interaction, table_id, kind)

    async def web_moved(self, outcome: Outcome) -> None:
        """A move made at the web table (``web``) and saved, its table still held: shown
        in Discord as a DM click's would be, then the bot plays on. A table another
        process drives is only told (its owner shows the rest)."""
        if self.manager.is_visiting(outcome.table):
            await self.presenter.deal_reports(outcome)
            await self.visits.announce(outcome)
            return
        await self.presenter.played_elsewhere(outcome)
        self.driver.settle(outcome.table)

    async def web_rematch(self, user_id: int, table_id: str) -> Text | None:
        """Rematch from the web table's page (the host's): None once started, else why not."""
        def parent_of(channel_id: int) -> int | None:
            channel = self.poster.client.get_channel(channel_id)
            return channel.parent_id if isinstance(channel, discord.Thread) else None

        return await self.rematches.from_web(table_id, user_id, parent_of)

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> list[Table]:
        """Start driving: this process's tables back from storage, and with a shared store
        the notices of other processes and the takeover of tables left by one that stopped."""
        if self.store.shared:
            await self.store.listen(self.changed_elsewhere, kinds=CHANGE_KINDS)
        tables = await self.restore()
        await self.tournaments.restore()  # (after the tables: their rounds go on)
        if self.store.shared:
            self.tasks.serve(self._take_over(), "take-over")
        if self.shards.receives_dms:  # one process of the bot deletes old closed tables
            self.tasks.serve(self.pruner.run(), "prune")
        self.tasks.serve(self.seasons.run(), "seasons")  # each process: its own servers'
        return tables

    async def _take_over(self) -> None:
        while True:
            await asyncio.sleep(self.timing.takeover_every)
            try:
                await self.recheck()
                tables = await self.restore()
                await self.tournaments.restore()  # (one a stopped process drove: ours now)
            except Exception:  # storage trouble: try again next time
                log.exception("cannot look for tables to take over")
                continue
            if tables:
                log.info("took over %d table(s) of a process that stopped", len(tables))
            for table_id in [t for t in self._noticed if self.manager.get(t) is None]:
                del self._noticed[table_id]  # closed here since: no notice is due

    async def recheck(self) -> None:
        """The tables whose ownership went (a database restart, a lease that ran out):
        those claimed again are caught up if another process wrote them meanwhile, those
        another process holds now are let go here (their timers and bot moves with them)."""
        kept, gone = await self.manager.recheck()
        for table in gone:
            self.timers.cancel(table.table_id)
            log.warning("table %s is no longer this process's: another process drives it",
                        table.table_id)
        for table, stored in kept:
            log.info("table %s is this process's again", table.table_id)
            if stored > table.version:
                await self.caught_up(table, TableChange(table.table_id, stored, kind="saved"))

    async def restore(self) -> list[Table]:
        """Bring back every table after a restart: timers, pending bot moves, the message.

        Only the tables of this process's shards that it can claim; called again, those
        it does not hold yet (another process held them)."""
        tables, problems = await self.manager.restore(self.shards.owns_guild)
        for problem in problems:
            await self.endings.abandon(problem.table_id, problem.channel_id, problem.guild_id,
                                       problem.reason, problem.language)
        for table in tables:
            self.timers.schedule(table)
            if table.status == PLAYING:
                self.tasks.spawn(self._resume(table), f"resume-{table.table_id}")
            else:
                self.driver.kick(table)
        # After the open tables: a series' next deal opened before the crash is found there.
        for closed, owed in await self.endings.debts.collect(self.shards.owns_guild):
            log.info("table %s closed without showing its end (%s): shown now",
                     closed.table_id, owed)
            self.tasks.spawn(self.endings.debts.pay(closed, owed), f"owed-{closed.table_id}")
        return tables

    async def _resume(self, table: Table) -> None:
        """After a restart: say so on the table, and redo the table edit and the next
        player's DM of the last move (they may have died with the old process)."""
        async with self.steps.hold(table) as live:
            if not live:
                return
            if not table.paused:  # (paused, the game has not resumed: no such line)
                await self.steps.apply(table, Table.note_restart)
            await self.board.edit_now(table)
            seat = table.to_act
            if seat is not None and table.automation() is None and not table.paused:
                # (A turn notice the old process posted stays: no second ping.)
                await self.hands.tell_turn(table, seat, renew=False)
            await save_posts(self.manager, table)
        self.driver.kick(table)

    # -- another process changed one of our tables ------------------------------------

    def changed_elsewhere(self, change: TableChange) -> None:
        """Another process wrote one of our tables (a DM click reached it). Its answer to
        the click (``"answered"``) says what to show: the rest is shown at once and the
        table driven from the new version. The write itself (``"saved"``, heard at its
        commit, before that process has answered) is caught up from storage alone if no
        answer follows within ``notice_grace`` (that process may have died meanwhile)."""
        table = self.manager.get(change.table_id)
        if table is None or change.version <= self._noticed.get(change.table_id, 0):
            return
        if change.kind != "answered":
            self._stale(table, change.version)
            return
        self._noticed[change.table_id] = change.version
        self.tasks.spawn(self.caught_up(table, change), f"catch-up-{table.table_id}")

    def _stale(self, table: Table, version: int | None = None) -> None:
        """Another process changed the table (a save of ours was refused for its version,
        or its write was heard): its answer normally follows at once; if it does not,
        catch up from storage alone."""
        self.tasks.spawn(self._catch_up_later(
            table, table.version if version is None else version), f"stale-{table.table_id}")

    async def _catch_up_later(self, table: Table, version: int) -> None:
        await asyncio.sleep(self.timing.notice_grace)
        if self._noticed.get(table.table_id, 0) < version:
            await self.caught_up(table, TableChange(table.table_id, version, kind="saved"))

    async def caught_up(self, table: Table, change: TableChange) -> None:
        """Read the table as another process saved it, then what its step shows: the
        table message and the next player's hand (that process posted any deal's result);
        then timers and the bot's moves. A ``change`` that is not ``"answered"`` is known
        from storage alone: nobody's answer says who moved."""
        async with self.steps.hold(table) as live:
            if not live:
                return
            answered = change.kind == "answered"
            known = self._noticed.get(table.table_id, 0)
            if not answered and change.version <= known:
                return  # shown meanwhile: its answer came, or a later catch-up
            reloaded = table.version < change.version
            if reloaded and not await self.manager.reload(table):
                return
            if not answered:
                self._noticed[table.table_id] = max(known, table.version)
            if change.collapsed is not None:
                hands = table.posts.hand_messages  # that DM shows one line now, no menu
                for user, message in list(hands.items()):
                    if message == change.collapsed:
                        del hands[user]
            if change.deals:  # a web table's move: its process has no Discord to post them
                await self.presenter.deal_results(table, change.deals)
            if table.version > change.version and (answered or not reloaded):
                return  # this process has stepped on since: that step showed the table
            await self.presenter.after_step(table, answered=change.seat)
        self.driver.settle(table)

    async def drain(self, timeout: float) -> bool:
        """Wait for a moment when no step holds a table, no table edit is pending and no
        picture is being drawn (a move being saved finishes and shows); False if
        ``timeout`` passed first."""
        self.board.edits.flush()  # edits still merging are drawn now, not lost
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.manager.any_locked() or self.board.edits.pending() or self.painter.busy():
            if loop.time() >= deadline:
                log.warning("closing with steps still running after %.0f s", timeout)
                return False
            await asyncio.sleep(0.01)
        return True

    async def close(self) -> None:
        """Stop every task of the croupier and wait for them (before the cogs go away).

        Drivers and timers are cancelled together, with no await in between: after a
        drain none holds a table, so none is cut off in the middle of a step."""
        stopped = (self.tasks.cancel_all() + self.timers.cancel_all()
                   + self.tournaments.close())
        await asyncio.gather(*stopped, return_exceptions=True)
        await self.board.edits.close()
        self.ai.close()
        self.painter.close()

    def busy(self) -> bool:
        """Whether a step, a bot move, a table edit, a save or a picture is still under way
        (tests, shutdown)."""
        return (self.manager.any_locked() or self.board.edits.pending() or self.tasks.busy()
                or self.painter.busy())
