"""Seasons and role rewards at work: the season a rated game counts in, a season's end
posted once with its champions crowned, and rating tiers after each rated game
(``docs/competition.md``).

**A season's end.** ``run`` is a service of the bot: it wakes at the next season's end of
any of this process's servers (through the injectable ``Clock``; a change of
``/settings season`` wakes it at once), a minute late so that a game ending on the
boundary has committed, and posts every season that ended and was not posted yet: its
standings per game in the server's season channel, then the champion role of each game
moved to the season's winner (taken back from the champions it was given to), each
change said in the channel. The season is marked as posted in storage
(``mark_season_posted``) as soon as its standings are in the channel, before the
crowning: a restart neither skips it (it is found again: a bot that was down at the
moment posts it when it comes back) nor repeats it (see ``end_season``). A season
without a rated game is not posted.

**Tiers after each rated game**, not at a season's end: a tier follows a rating, which
moves with every rated game, so a player sees their new role at once, and only that
game's players can have changed (a few requests). The rating is the all-time one on
the server (what ``/leaderboard`` shows).

Role rewards need the season channel: every role given or taken is said there, so
without one the bot gives none. A role the bot cannot manage (Manage Roles, its role
below the reward's) is never asked for: the channel is told why instead, once a day per
role at most.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import discord

import locales
from bot.config.competition import Schedule, tier_roles
from bot.config.server_settings import ServerSettings
from bot.storage import FinishedGame, LeaderboardRow, Store, is_rated
from bot.table.tasks import TableTasks
from bot.table.timers import Clock
from bot.ui import season_posts
from bot.ui.poster import once
from bot.ui.rewards import Change, Rewards, why_not

log = logging.getLogger(__name__)

GRACE = 60.0  # after a season's end, before posting it: a game on the boundary commits
RECHECK = 6 * 3600.0  # the longest the service sleeps (the servers this process holds change)
RETRY = 600.0  # after a post Discord did not take
EXPLAIN_EVERY = 86400.0  # a role the bot cannot manage: said again after a day at most


class Seasons:
    def __init__(self, store: Store, rewards: Rewards, tasks: TableTasks, clock: Clock):
        self.store = store
        self.rewards = rewards
        self.tasks = tasks
        self.clock = clock
        self._poked = asyncio.Event()
        self._explained: dict[tuple[int, int], float] = {}  # (guild, role): when
        # (guild, season): standings posted but not yet marked so (storage failed)
        self._posted: set[tuple[int, int]] = set()
        self.passes = 0  # the passes over the servers done so far (tests wait for one)

    async def settings(self, guild_id: int) -> ServerSettings:
        return ServerSettings.from_data(await self.store.server_settings(guild_id))

    def language(self, guild: discord.Guild, settings: ServerSettings) -> str:
        return settings.language or locales.language_of(guild.preferred_locale)

    # -- a finished game (bot.play.endings) -------------------------------------------

    async def season_of(self, guild_id: int | None, when: float) -> int | None:
        """The season of the server a game ending at ``when`` counts in (None: none)."""
        if not guild_id:
            return None
        try:
            schedule = (await self.settings(guild_id)).schedule()
        except Exception as error:  # the game is recorded all the same, in no season
            log.warning("cannot read the season of guild %s: %s", guild_id, error)
            return None
        return schedule.season_at(when) if schedule is not None else None

    def recorded(self, game: FinishedGame) -> None:
        """A game was recorded: a rated one moves its players' tier roles (a task of its
        own: the result is shown meanwhile)."""
        if game.guild_id and is_rated(game):
            self.tasks.spawn(self._tiers_safely(game), f"tiers-{game.table_id}")

    async def _tiers_safely(self, game: FinishedGame) -> None:
        try:
            await self.tiers(game)
        except Exception:  # a role is never worth a crash; the next game tries again
            log.exception("cannot update the tier roles after a game on guild %s",
                          game.guild_id)

    async def tiers(self, game: FinishedGame) -> None:
        settings = await self.settings(game.guild_id)
        guild = self.rewards.guild(game.guild_id)
        channel = settings.season_channel
        if not settings.tiers or channel is None or guild is None:
            return
        lines: list[str] = []
        players = [s.user_id for s in game.seats if s.user_id is not None]
        with locales.speaking(self.language(guild, settings)):
            for user_id in players:
                # only an earned rating counts: the starting one of a player who never
                # played a rated game (0) would reach every tier at or below 0
                mine = await self.store.rank_of(game.game, game.guild_id, user_id)
                best = max((s.ordinal for s in await self.store.stats(user_id, game.guild_id)
                            if s.rated_games > 0), default=None)
                wanted, ladders = tier_roles(settings.tiers, game.game,
                                             mine.ordinal if mine and mine.rated_games > 0
                                             else None, best)
                held = await self.rewards.roles_of(guild, user_id)
                if held is None:
                    continue
                for role in sorted(wanted - held):
                    lines += self._said(guild, await self.rewards.change(guild, user_id,
                                                                         role, True))
                for role in sorted((ladders & held) - wanted):
                    lines += self._said(guild, await self.rewards.change(guild, user_id,
                                                                         role, False))
            if lines:
                await self.rewards.post(guild, channel,
                                        content=season_posts.tiers_text(game.game, lines))

    def _said(self, guild: discord.Guild, change: Change) -> list[str]:
        """A tier's change in a line for the channel; a refusal at most once a day per
        role (every rated game would say it again)."""
        if change.why is not None:
            key, now = (guild.id, change.role_id), self.clock.now()
            if now - self._explained.get(key, -EXPLAIN_EVERY) < EXPLAIN_EVERY:
                return []
            self._explained[key] = now
            log.warning("cannot manage role %s on guild %s: %s", change.role_id, guild.id,
                        change.why)
        return [season_posts.role_line(change)]

    # -- seasons' ends --------------------------------------------------------------

    def poke(self) -> None:
        """A server's seasons changed: look again now."""
        self._poked.set()

    async def run(self) -> None:
        """Post seasons' ends, from the moment the bot is connected until shutdown; each
        pass is a task of ``tasks`` (the bot is busy while it runs, never while waiting)."""
        client = self.rewards.client
        await client.wait_until_ready()
        while True:
            self._poked.clear()
            done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
            self.tasks.spawn(self._pass(client.guilds, done), "seasons")
            await self._nap(await done)

    async def _pass(self, guilds: Sequence[discord.Guild], done: asyncio.Future[float]
                    ) -> None:
        wake = self.clock.now() + RETRY
        try:
            wake = await self.sweep(guilds)
        finally:
            self.passes += 1
            if not done.done():
                done.set_result(wake)

    async def _nap(self, until: float) -> None:
        sleep = asyncio.ensure_future(self.clock.sleep_until(until))
        poked = asyncio.ensure_future(self._poked.wait())
        try:
            await asyncio.wait({sleep, poked}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleep.cancel()
            poked.cancel()

    async def sweep(self, guilds: Sequence[discord.Guild]) -> float:
        """Post every season that ended on these servers and was not posted yet; the
        next moment to look again."""
        now = self.clock.now()
        wake = now + RECHECK
        for guild in list(guilds):
            try:
                settings = await self.settings(guild.id)
                schedule = settings.schedule()
                if schedule is None:
                    continue
                # a season is over for posting a GRACE after its end: a game that ended
                # on the boundary has committed by then (even when poked at the boundary)
                current = schedule.season_at(now - GRACE)
                for season in await self.store.unposted_seasons(guild.id,
                                                                current or schedule.first):
                    if not await self.end_season(guild, settings, schedule, season):
                        wake = min(wake, now + RETRY)
                        break
                wake = min(wake, schedule.next_change(now) + GRACE)
            except Exception:  # storage trouble: this server is looked at again soon
                log.exception("cannot end the seasons of guild %s", guild.id)
                wake = min(wake, now + RETRY)
        return wake

    async def end_season(self, guild: discord.Guild, settings: ServerSettings,
                         schedule: Schedule | None, season: int) -> bool:
        """Post a season's end, mark it posted, then crown its champions; False when
        Discord did not take the post (it is tried again later).

        The season is marked as soon as its standings are in the channel, before the
        champions are crowned: a crash or a storage failure after that never posts it
        again (the post's nonce holds only minutes). A storage failure in marking is
        tried again by this process without posting (``_posted``); a crash between the
        post and the mark, a moment, may still post twice. The price: a crash while
        crowning leaves that season's champion roles unmoved (logged)."""
        channel = settings.season_channel
        key = (guild.id, season)
        if channel is not None and self.rewards.may_post(guild, channel):
            games = await self.store.season_games(guild.id, season)
            boards = {g: await self.store.season_board(g, guild.id, season, 0,
                                                       season_posts.STANDINGS) for g in games}
            totals = {g: await self.store.season_board_size(g, guild.id, season)
                      for g in games}
            with locales.speaking(self.language(guild, settings)):
                if key not in self._posted:
                    posted = await self.rewards.post(
                        guild, channel, content=season_posts.ended_text(season, schedule),
                        embeds=season_posts.standings_embeds(season, boards, totals),
                        nonce=once(f"s{season}", str(guild.id)))
                    if posted is None:
                        return False
                    self._posted.add(key)
                await self.store.mark_season_posted(guild.id, season)
                self._posted.discard(key)
                lines = await self.crown(guild, settings, season, boards)
                if lines:
                    await self.rewards.post(guild, channel,
                                            content=season_posts.champions_text(season, lines),
                                            nonce=once(f"c{season}", str(guild.id)))
        else:
            if channel is not None:
                log.warning("cannot post the end of season %d in channel %s of guild %s: "
                            "no permission", season, channel, guild.id)
            await self.store.mark_season_posted(guild.id, season)
        log.info("season %d of guild %s ended", season, guild.id)
        return True

    async def crown(self, guild: discord.Guild, settings: ServerSettings, season: int,
                    boards: dict[str, list[LeaderboardRow]]) -> list[str]:
        """Each game's champion role moved to the season's winner; the lines saying so."""
        lines: list[str] = []
        for game, rows in boards.items():
            role = settings.champion_roles.get(game)
            if role is None or not rows:
                continue
            winner = rows[0].user_id
            why = why_not(guild, role)
            if why is not None:  # said once, for the champion: nothing is asked of Discord
                log.warning("cannot move role %s on guild %s: %s", role, guild.id, why)
                lines.append(season_posts.champion_line(Change(winner, role, True, why),
                                                        game, season))
                continue
            holders = await self.store.role_holders(guild.id, role)
            for holder in holders:
                if holder == winner:
                    continue
                taken = await self.rewards.change(guild, holder, role, False)
                if taken.done or taken.gone:
                    await self.store.hold_role(guild.id, role, holder, False)
                lines.append(season_posts.role_line(taken))
            if winner in holders:
                lines.append(season_posts.champion_line(
                    Change(winner, role, True), game, season))
                continue
            given = await self.rewards.change(guild, winner, role, True)
            if given.done:
                await self.store.hold_role(guild.id, role, winner, True)
            lines.append(season_posts.champion_line(given, game, season))
        return lines

