"""``/leaderboard period: week|month|season``: a game's board on this server for a time.

* **week**, **month**: the rolling windows of the last 7 or 30 days up to the moment the
  page is drawn (``bot.config.competition.WINDOWS``), from the games themselves; ranked by
  wins, then points, then games (``bot.storage.season_sql`` says why: a window has no
  rating of its own).
* **season**: the current season's own ratings (``season: <n>`` any season, the past
  ones kept), as the all-time board ranks its ratings.

Global scope keeps all-time only: the windows and seasons are each server's. Pages
turn as the all-time board's (``cogs.leaderboard``): the buttons carry the board, the
owner and the page (``ct:lbp:<game>:<w|m|s>:<season>:<owner>:<action>:<page>``), and each
click reads the board again (a window moves on with time).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import discord

from bot.app.client import CardTableBot
from bot.config.competition import Schedule, window_start
from bot.config.server_settings import ServerSettings
from bot.storage import LeaderboardRow, Store
from bot.storage.rows import WindowRow
from bot.ui import answer_guard, markup, replies
from bot.ui.pages import NAV_PATTERN, Page, nav_button, nav_view
from cogs.board_texts import (
    TROUBLE,
    answer_click,
    board_line,
    game_title,
    games_text,
    player_name,
    points_text,
    provisional_text,
    rank_of_text,
    send_board,
    where_text,
    wins_text,
    you_text,
)
from engine.text import T
from locales import _, _n, say

log = logging.getLogger(__name__)

KINDS = {"week": "w", "month": "m", "season": "s"}
PERIOD_TEMPLATE = (rf"ct:lbp:(?P<game>[a-z_]{{1,24}}):(?P<period>[wms]):(?P<season>\d{{1,6}}):"
                   rf"(?P<owner>\d{{1,20}}):{NAV_PATTERN}")
MAX_SEASON = 999_999

ALL_TIME_ONLY = T("Only the all-time leaderboard spans every server: the last 7 or 30 "
                  "days and seasons are each server's own. Leave out the scope, or choose "
                  "the period All time.")
NO_SEASONS = T("This server keeps no seasons: a manager can start them with /settings "
               "season.")


def period_id(game: str, period: str, season: int, owner: int, action: str, page: int) -> str:
    custom_id = f"ct:lbp:{game}:{KINDS[period]}:{season}:{owner}:{action}:{page}"
    if len(custom_id) > 100 or re.fullmatch(PERIOD_TEMPLATE, custom_id) is None:
        raise ValueError(f"bad custom_id {custom_id!r}")
    return custom_id


@dataclass(frozen=True)
class PeriodBoard:
    """One page of a game's board of a window or a season, as drawn for ``viewer``."""

    game: str
    period: str  # week, month or season
    season: int  # season: its number; else 0
    where: str
    page: Page
    rows: list[WindowRow] | list[LeaderboardRow]
    viewer: int
    mine: WindowRow | LeaderboardRow | None
    schedule: Schedule | None = None  # season: the server's, for its dates


async def load(bot: CardTableBot, guild_id: int, game: str, period: str, season: int | None,
               where: str, viewer: int, page: int | None) -> PeriodBoard | str:
    """A page of the board (None: the viewer's page), or why there is none (said)."""
    store: Store = bot.store
    now = bot.clock.now()
    if period != "season":
        since = datetime.fromtimestamp(window_start(period, now), UTC)
        total = await store.window_board_size(game, guild_id, since)
        mine_w = await store.window_rank_of(game, guild_id, since, viewer)
        shown = _page(page, mine_w.rank if mine_w else None, total)
        rows_w = (await store.window_board(game, guild_id, since, shown.offset, shown.size)
                  if total else [])
        return PeriodBoard(game, period, 0, where, shown, rows_w, viewer, mine_w)
    schedule = ServerSettings.from_data(await store.server_settings(guild_id)).schedule()
    current = schedule.season_at(now) if schedule is not None else None
    if season is None:
        if schedule is None:
            return say(NO_SEASONS)
        if current is None:
            return _("Season {season} starts {when}: its board opens then.",
                     season=schedule.first,
                     when=markup.relative_time(schedule.start_of(schedule.first)))
        season = current
    elif current is not None and season > current:
        return _("Season {season} has not started yet: this is season {current}.",
                 season=season, current=current)
    total = await store.season_board_size(game, guild_id, season)
    mine = await store.season_rank_of(game, guild_id, season, viewer)
    shown = _page(page, mine.rank if mine else None, total)
    rows = await store.season_board(game, guild_id, season, shown.offset,
                                    shown.size) if total else []
    return PeriodBoard(game, period, season, where, shown, rows, viewer, mine, schedule)


def _page(page: int | None, rank: int | None, total: int) -> Page:
    if page is None:
        return Page.of_rank(rank, total) if rank else Page.of(0, total)
    return Page.of(page, total)


def period_text(board: PeriodBoard) -> str:
    if board.period == "week":
        # Translators: which games a leaderboard counts (after the game's name)
        return _("last 7 days")
    if board.period == "month":
        return _("last 30 days")
    return _("season {season}", season=board.season)


def window_line(row: WindowRow, viewer: int) -> str:
    line = " · ".join((f"**{row.rank}.** {player_name(row.name, row.user_id)} — "
                       f"{wins_text(row.wins, row.win_rate, f'**{row.wins}**')}",
                       games_text(row.games), points_text(row.points)))
    return line + (f" ⬅️ {you_text()}" if row.user_id == viewer else "")


def mine_text(board: PeriodBoard) -> str:
    mine = board.mine
    if mine is None:
        if board.period == "season":
            return _("You are not on this season's board: play a rated game of {game} (all "
                     "seats people) this season to appear here.", game=game_title(board.game))
        return _("You are not on this board: finish a game of {game} here to appear on it.",
                 game=game_title(board.game))
    parts = [rank_of_text(mine.rank, board.page.total)]
    if isinstance(mine, LeaderboardRow):
        shown = f"{mine.ordinal:.1f}" + (f" ({provisional_text()})" if mine.provisional
                                         else "")
        parts.append(_("rating {rating}", rating=shown))
    parts += [games_text(mine.games), wins_text(mine.wins, mine.win_rate),
              points_text(mine.points)]
    return " · ".join(parts)


def how_text(board: PeriodBoard) -> str:
    if board.period != "season":
        days = 7 if board.period == "week" else 30
        return _n("A rolling window: the games that ended in the last {n} day, up to now. "
                  "Ranked by wins, then points, then games played.",
                  "A rolling window: the games that ended in the last {n} days, up to now. "
                  "Ranked by wins, then points, then games played.", days)
    return _("Season ratings: only this season's rated games count, and everyone starts "
             "the season afresh.")


def period_embed(board: PeriodBoard) -> discord.Embed:
    title = (_("{game} leaderboard", game=game_title(board.game)) + " · "
             + period_text(board) + " · " + board.where)
    embed = discord.Embed(title=title, colour=markup.COLOUR)
    if board.rows:
        lines = [window_line(r, board.viewer) if isinstance(r, WindowRow)
                 else board_line(r, board.viewer) for r in board.rows]
        embed.description = "\n".join(lines)
    else:
        embed.description = (_("Nobody has played a rated game of {game} this season yet.",
                               game=game_title(board.game)) if board.period == "season"
                             else _("Nobody finished a game of {game} here in that time.",
                                    game=game_title(board.game)))
    # (a season of an earlier schedule: its dates are not this one's to say)
    if board.schedule is not None and board.period == "season" \
            and board.season >= board.schedule.first:
        embed.add_field(name=_("Season {season}", season=board.season),
                        value=f"<t:{int(board.schedule.start_of(board.season))}:D> – "
                              f"<t:{int(board.schedule.end_of(board.season))}:D>",
                        inline=False)
    if board.mine is None or not board.page.shows(board.mine.rank):
        embed.add_field(name=_("Your rank"), value=mine_text(board), inline=False)
    players = _n("{n} player", "{n} players", board.page.total)
    embed.set_footer(text=f"{board.page.label()} · {players}\n{how_text(board)}")
    return markup.fit_embed(embed)


def period_view(board: PeriodBoard) -> discord.ui.View | None:
    def make(action: str, page: int, disabled: bool) -> discord.ui.Item[Any]:
        return PeriodButton(board.game, board.period, board.season, board.viewer, action,
                            page, disabled)

    me = Page.of_rank(board.mine.rank, board.page.total).index if board.mine else None
    return nav_view(board.page, make, me)


class PeriodButton(discord.ui.DynamicItem[discord.ui.Button], template=PERIOD_TEMPLATE):
    def __init__(self, game: str, period: str, season: int, owner: int, action: str,
                 page: int, disabled: bool = False):
        super().__init__(nav_button(action, period_id(game, period, season, owner, action,
                                                      page), disabled))
        self.game, self.period, self.season, self.owner = game, period, season, owner
        self.action, self.page = action, page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PeriodButton:
        period = {v: k for k, v in KINDS.items()}[match["period"]]
        return cls(match["game"], period, int(match["season"]), int(match["owner"]),
                   match["action"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = cast(CardTableBot, interaction.client)
        await answer_guard.run_click(interaction, lambda: click(bot, interaction, self))


async def show(bot: CardTableBot, interaction: discord.Interaction, game: str, scope: str,
               period: str, season: int | None) -> None:
    """The answer to ``/leaderboard`` with a period (or a season)."""
    if scope == "global":
        await replies.reply(interaction, say(ALL_TIME_ONLY))
        return
    if season is not None:
        period = "season"
    await _draw(bot, interaction, None, game, period, season, 0)


async def click(bot: CardTableBot, interaction: discord.Interaction,
                button: PeriodButton) -> None:
    page = None if button.action == "me" else button.page  # "me": where I stand now
    await _draw(bot, interaction, button.owner, button.game, button.period,
                button.season or None, page)


async def _draw(bot: CardTableBot, interaction: discord.Interaction, owner: int | None,
                game: str, period: str, season: int | None, page: int | None) -> None:
    try:
        board = await load(bot, interaction.guild_id or 0, game, period, season,
                           where_text("server", interaction.guild), interaction.user.id,
                           page)
    except Exception:
        log.exception("cannot read the %s leaderboard of %s", game, period)
        await replies.reply(interaction, say(TROUBLE))
        return
    if isinstance(board, str):
        await replies.reply(interaction, board)
        return
    embed, view = period_embed(board), period_view(board)
    if owner is None:
        await send_board(interaction, embed, view)
    else:
        await answer_click(interaction, owner, embed, view)
