"""``/leaderboard`` (ratings per game, per server or global) and ``/chips`` (AttackJack).

Both answer with a public page and a row of buttons to turn pages. The buttons
belong to whoever ran the command: their custom_id carries that person's id
and the page it leads to (``ct:lb:<game>:<s|g>:<owner>:<action>:<page>``,
``ct:chips:<owner>:<action>:<page>``), so a click is served from the database
alone, also after a restart. Anyone else who clicks gets that page as a
message of their own instead of changing someone else's.

Chips have their own command rather than a ``board`` option on /leaderboard:
a balance is money, not skill, it exists only per server and only for
AttackJack, and Discord cannot hide an option that makes sense for one game of
four. ``/chips`` is also what a player types to check their balance before
setting a stake.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.storage import STARTING_CHIPS, ChipsRow, LeaderboardRow, Store
from bot.storage.ratings import PROVISIONAL_GAMES
from bot.ui import answer_guard, markup, replies
from bot.ui.pages import NAV_PATTERN, Page, nav_button, nav_view
from cogs.board_texts import (
    TROUBLE,
    Scope,
    answer_click,
    board_line,
    game_choices,
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
from locales import _, _n, say

log = logging.getLogger(__name__)

COG_NAME = "Leaderboards"  # not for players: the cog's name, for get_cog


def counting_note() -> str:
    """What storage counts (bot.storage.is_rated / moves_chips), said where the numbers
    are shown, in the current language."""
    return " ".join((
        # Translators: the footer of a leaderboard; openskill is a rating system's name
        _n("Rating = openskill ordinal (μ − 3σ); provisional = fewer than {n} rated game.",
           "Rating = openskill ordinal (μ − 3σ); provisional = fewer than {n} rated games.",
           PROVISIONAL_GAMES),
        _("Finished games count for the people who played; only games without AI seats "
          "change ratings."),
        _("A stopped game counts for nothing."),
    ))


def chips_note() -> str:
    """How chips move, in the current language."""
    return " ".join((
        _n("Everyone starts with {chips} chip on each server.",
           "Everyone starts with {chips} chips on each server.",
           STARTING_CHIPS, chips=format(STARTING_CHIPS, ",")),
        _("Only finished AttackJack games without AI seats move chips."),
    ))

BOARD_TEMPLATE = (rf"ct:lb:(?P<game>[a-z_]{{1,24}}):(?P<scope>[sg]):(?P<owner>\d{{1,20}}):"
                  rf"{NAV_PATTERN}")
CHIPS_TEMPLATE = rf"ct:chips:(?P<owner>\d{{1,20}}):{NAV_PATTERN}"


# /leaderboard period (cogs.period_boards): all time, the rolling windows, a season.
PERIOD_CHOICES = [app_commands.Choice(name="All time", value="all"),
                  app_commands.Choice(name="Last 7 days", value="week"),
                  app_commands.Choice(name="Last 30 days", value="month"),
                  app_commands.Choice(name="Season", value="season")]






def board_id(game: str, scope: Scope, owner: int, action: str, page: int) -> str:
    return _checked(f"ct:lb:{game}:{scope[0]}:{owner}:{action}:{page}", BOARD_TEMPLATE)


def chips_id(owner: int, action: str, page: int) -> str:
    return _checked(f"ct:chips:{owner}:{action}:{page}", CHIPS_TEMPLATE)


def _checked(custom_id: str, template: str) -> str:
    if len(custom_id) > 100 or re.fullmatch(template, custom_id) is None:
        raise ValueError(f"bad custom_id {custom_id!r}")
    return custom_id








def chips_text(balance: int) -> str:
    """"1,000 chips"."""
    # Translators: a balance of AttackJack chips
    return _n("{count} chip", "{count} chips", abs(balance), count=format(balance, ","))










# ------------------------------------------------------------------ ratings board


@dataclass(frozen=True)
class Board:
    """One page of a game's leaderboard as drawn for ``viewer``."""

    game: str
    scope: Scope
    where: str  # "Card Club" or "all servers" (where_text)
    page: Page
    rows: list[LeaderboardRow]
    viewer: int
    mine: LeaderboardRow | None


async def load_board(store: Store, game: str, scope: Scope, guild_id: int | None,
                     where: str, viewer: int, page: int | None) -> Board:
    """Page ``page`` of the board; None: the page the viewer stands on (else the first)."""
    guild = guild_id if scope == "server" else None
    total = await store.leaderboard_size(game, guild)
    mine = await store.rank_of(game, guild, viewer)
    if page is None:
        shown = Page.of_rank(mine.rank, total) if mine else Page.of(0, total)
    else:
        shown = Page.of(page, total)
    rows = await store.leaderboard(game, guild, shown.offset, shown.size) if total else []
    return Board(game, scope, where, shown, rows, viewer, mine)






def mine_text(board: Board) -> str:
    mine = board.mine
    if mine is None:
        return _("You are not on this leaderboard yet: finish a game of {game} with at least "
                 "one other person to appear here.", game=game_title(board.game))
    shown = f"{mine.ordinal:.1f}" + (f" ({provisional_text()})" if mine.provisional else "")
    # Translators: the reader's own rating, in the line of their place on a leaderboard
    rating = _("rating {rating}", rating=shown)
    return " · ".join((rank_of_text(mine.rank, board.page.total), rating,
                       games_text(mine.games), wins_text(mine.wins, mine.win_rate),
                       points_text(mine.points)))


def board_embed(board: Board) -> discord.Embed:
    # Translators: a leaderboard's title, followed by where its numbers come from
    title = _("{game} leaderboard", game=game_title(board.game)) + " · " + board.where
    embed = discord.Embed(title=title, colour=markup.COLOUR)
    if board.rows:
        embed.description = "\n".join(board_line(r, board.viewer) for r in board.rows)
    else:
        embed.description = _("Nobody is on this leaderboard yet. Finish a game of {game} with "
                              "friends to be the first.", game=game_title(board.game))
    if board.mine is None or not board.page.shows(board.mine.rank):
        embed.add_field(name=_("Your rank"), value=mine_text(board), inline=False)
    players = _n("{n} player", "{n} players", board.page.total)
    embed.set_footer(text=f"{board.page.label()} · {players}\n{counting_note()}")
    return markup.fit_embed(embed)


def board_view(board: Board) -> discord.ui.View | None:
    def make(action: str, page: int, disabled: bool) -> discord.ui.Item[Any]:
        return BoardButton(board.game, board.scope, board.viewer, action, page, disabled)

    me = Page.of_rank(board.mine.rank, board.page.total).index if board.mine else None
    return nav_view(board.page, make, me)


class BoardButton(discord.ui.DynamicItem[discord.ui.Button], template=BOARD_TEMPLATE):
    def __init__(self, game: str, scope: Scope, owner: int, action: str, page: int,
                 disabled: bool = False):
        super().__init__(nav_button(action, board_id(game, scope, owner, action, page),
                                    disabled))
        self.game, self.scope, self.owner = game, scope, owner
        self.action, self.page = action, page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> BoardButton:
        scope: Scope = "server" if match["scope"] == "s" else "global"
        return cls(match["game"], scope, int(match["owner"]), match["action"],
                   int(match["page"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = cast(CardTableBot, interaction.client).get_cog(COG_NAME)
        if isinstance(cog, Leaderboards):
            await answer_guard.run_click(interaction, lambda: cog.board_click(interaction, self))


# ------------------------------------------------------------------ chips board


@dataclass(frozen=True)
class ChipsBoard:
    where: str
    page: Page
    rows: list[ChipsRow]
    viewer: int
    balance: int
    rank: int | None


async def load_chips(store: Store, guild_id: int, where: str, viewer: int,
                     page: int | None) -> ChipsBoard:
    """Page ``page`` of the server's chips board; None: the viewer's page (else the first).
    Three bounded queries, however long the board (``bot/storage/board_sql.py``)."""
    total = await store.chips_board_size(guild_id)
    mine = await store.chips_rank_of(guild_id, viewer)
    rank = mine.rank if mine else None
    if page is None:
        shown = Page.of_rank(rank, total) if rank else Page.of(0, total)
    else:
        shown = Page.of(page, total)
    rows = await store.chips_leaderboard(guild_id, shown.offset, shown.size) if total else []
    # Off the board means no chips ever moved: the starting balance, as store.chips says.
    balance = mine.balance if mine else STARTING_CHIPS
    return ChipsBoard(where, shown, rows, viewer, balance, rank)


def chips_embed(board: ChipsBoard) -> discord.Embed:
    # Translators: the title of the chips board, followed by the server's name
    embed = discord.Embed(title=_("AttackJack chips") + " · " + board.where,
                          colour=markup.GOLD)
    you = f" ⬅️ {you_text()}"
    lines = [f"**{r.rank}.** {player_name(r.name, r.user_id)} — {chips_text(r.balance)}"
             + (you if r.user_id == board.viewer else "") for r in board.rows]
    embed.description = "\n".join(lines) or _(
        "Nobody has won or lost chips here yet: play AttackJack with a stake.")
    if board.rank is None or not board.page.shows(board.rank):
        where = f" ({rank_of_text(board.rank, board.page.total)})" if board.rank else ""
        embed.add_field(name=_("Your balance"), value=chips_text(board.balance) + where,
                        inline=False)
    embed.set_footer(text=f"{board.page.label()}\n{chips_note()}")
    return markup.fit_embed(embed)


def chips_view(board: ChipsBoard) -> discord.ui.View | None:
    def make(action: str, page: int, disabled: bool) -> discord.ui.Item[Any]:
        return ChipsButton(board.viewer, action, page, disabled)

    me = Page.of_rank(board.rank, board.page.total).index if board.rank else None
    return nav_view(board.page, make, me)


class ChipsButton(discord.ui.DynamicItem[discord.ui.Button], template=CHIPS_TEMPLATE):
    def __init__(self, owner: int, action: str, page: int, disabled: bool = False):
        super().__init__(nav_button(action, chips_id(owner, action, page), disabled))
        self.owner, self.action, self.page = owner, action, page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ChipsButton:
        return cls(int(match["owner"]), match["action"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = cast(CardTableBot, interaction.client).get_cog(COG_NAME)
        if isinstance(cog, Leaderboards):
            await answer_guard.run_click(interaction, lambda: cog.chips_click(interaction, self))


# ------------------------------------------------------------------ the cog






class Leaderboards(commands.Cog):
    def __init__(self, bot: CardTableBot):
        self.bot = bot

    @property
    def store(self) -> Store:
        return self.bot.store

    async def cog_load(self) -> None:
        from cogs.period_boards import PeriodButton  # (it imports this module)

        self.bot.add_dynamic_items(BoardButton, ChipsButton, PeriodButton)

    async def cog_unload(self) -> None:
        from cogs.period_boards import PeriodButton

        self.bot.remove_dynamic_items(BoardButton, ChipsButton, PeriodButton)

    @app_commands.command(name="leaderboard", description="Who plays a game best, by rating")
    @app_commands.guild_only()
    @app_commands.describe(game="Which game", scope="This server (default) or every server",
                           period="All time (default), the last 7 or 30 days, or a season",
                           season="A season's number (default: the current one)")
    @app_commands.choices(game=game_choices(), period=PERIOD_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction, game: str,
                          scope: Scope = "server", period: str = "all",
                          season: app_commands.Range[int, 1, 999_999] | None = None) -> None:
        replies.answers_publicly(interaction)
        if period != "all" or season is not None:
            from cogs import period_boards  # (a board of a time: it imports this module)

            await period_boards.show(self.bot, interaction, game, scope, period, season)
            return
        try:
            board = await load_board(self.store, game, scope, interaction.guild_id,
                                     _where(interaction, scope), interaction.user.id, 0)
        except Exception:
            log.exception("cannot read the %s leaderboard", game)
            await replies.reply(interaction, say(TROUBLE))
            return
        await send_board(interaction, board_embed(board), board_view(board))

    async def board_click(self, interaction: discord.Interaction, button: BoardButton) -> None:
        viewer = interaction.user.id
        page = None if button.action == "me" else button.page  # "me": where I stand now
        try:
            board = await load_board(self.store, button.game, button.scope,
                                     interaction.guild_id, _where(interaction, button.scope),
                                     viewer, page)
        except Exception:
            log.exception("cannot read the %s leaderboard", button.game)
            await replies.reply(interaction, say(TROUBLE))
            return
        await answer_click(interaction, button.owner, board_embed(board), board_view(board))

    @app_commands.command(name="chips", description="AttackJack chip balances on this server")
    @app_commands.guild_only()
    async def chips(self, interaction: discord.Interaction) -> None:
        replies.answers_publicly(interaction)
        try:
            board = await load_chips(self.store, interaction.guild_id or 0,
                                     _where(interaction, "server"), interaction.user.id, 0)
        except Exception:
            log.exception("cannot read the chips board")
            await replies.reply(interaction, say(TROUBLE))
            return
        await send_board(interaction, chips_embed(board), chips_view(board))

    async def chips_click(self, interaction: discord.Interaction, button: ChipsButton) -> None:
        page = None if button.action == "me" else button.page
        try:
            board = await load_chips(self.store, interaction.guild_id or 0,
                                     _where(interaction, "server"), interaction.user.id, page)
        except Exception:
            log.exception("cannot read the chips board")
            await replies.reply(interaction, say(TROUBLE))
            return
        await answer_click(interaction, button.owner, chips_embed(board), chips_view(board))


def _where(interaction: discord.Interaction, scope: Scope) -> str:
    return where_text(scope, interaction.guild)






async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(Leaderboards(bot))

