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
from typing import Any, Literal, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.storage import STARTING_CHIPS, ChipsRow, LeaderboardRow, Store
from bot.storage.ratings import PROVISIONAL_GAMES
from bot.ui import answer_guard, markup, replies
from bot.ui.pages import NAV_PATTERN, Page, nav_button, nav_view
from engine.registry import available_games, game_class
from engine.text import T
from locales import _, _n, say

log = logging.getLogger(__name__)

COG_NAME = "Leaderboards"  # not for players: the cog's name, for get_cog
NAME_WIDTH = 32
Scope = Literal["server", "global"]


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


def game_choices() -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=game_class(g).TITLE, value=g) for g in available_games()]


def game_title(game: str) -> str:
    try:
        return game_class(game).TITLE
    except (KeyError, ImportError, AttributeError):
        return game


def board_id(game: str, scope: Scope, owner: int, action: str, page: int) -> str:
    return _checked(f"ct:lb:{game}:{scope[0]}:{owner}:{action}:{page}", BOARD_TEMPLATE)


def chips_id(owner: int, action: str, page: int) -> str:
    return _checked(f"ct:chips:{owner}:{action}:{page}", CHIPS_TEMPLATE)


def _checked(custom_id: str, template: str) -> str:
    if len(custom_id) > 100 or re.fullmatch(template, custom_id) is None:
        raise ValueError(f"bad custom_id {custom_id!r}")
    return custom_id


def games_text(games: int, shown: str | None = None) -> str:
    """"12 games" (``shown``: the number as written, e.g. in bold)."""
    # Translators: {count} is the number of games, maybe in bold
    return _n("{count} game", "{count} games", games, count=shown or str(games))


def wins_text(wins: int, rate: float, shown: str | None = None) -> str:
    """"5 wins (42%)"."""
    # Translators: {count} is the number of games won, maybe in bold; {rate} the share won
    return _n("{count} win ({rate})", "{count} wins ({rate})", wins,
              count=shown or str(wins), rate=format(rate, ".0%"))


def points_text(points: int, shown: str | None = None) -> str:
    """"+14 points": the points scored in all, signed."""
    # Translators: {points} is a signed sum of points (+14, -3), maybe in bold; English
    # says "points" for one point as well
    return _n("{points} points", "{points} points", abs(points),
              points=shown or format(points, "+d"))


def chips_text(balance: int) -> str:
    """"1,000 chips"."""
    # Translators: a balance of AttackJack chips
    return _n("{count} chip", "{count} chips", abs(balance), count=format(balance, ","))


def provisional_text() -> str:
    # Translators: after a rating (in parentheses): it rests on fewer than five rated games
    return _("provisional")


def you_text() -> str:
    # Translators: marks the reader's own line on a leaderboard ("⬅️ you")
    return _("you")


def where_text(scope: Scope, guild: discord.Guild | None) -> str:
    """Where the numbers come from: the server's name (escaped, for a title), or every
    server."""
    if scope == "global":
        # Translators: where a leaderboard's numbers come from (after its title)
        return _("all servers")
    # Translators: where a leaderboard's numbers come from, when the server has no name
    return markup.safe_name(guild.name) if guild is not None else _("this server")


def player_name(name: str, user_id: int) -> str:
    """A stored name for a message (escaped, clipped); a mention when none is known."""
    if not name.strip():
        return f"<@{user_id}>"
    return markup.safe_name(markup.clip(name, NAME_WIDTH))


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


def rank_of_text(rank: int, total: int) -> str:
    # Translators: a place on a leaderboard: "#3 of 25"
    return _("#{rank} of {total}", rank=rank, total=total)


def board_line(row: LeaderboardRow, viewer: int) -> str:
    rating = f"**{row.ordinal:.1f}**" + (f" *({provisional_text()})*" if row.provisional
                                         else "")
    line = " · ".join((f"**{row.rank}.** {player_name(row.name, row.user_id)} — {rating}",
                       games_text(row.games), wins_text(row.wins, row.win_rate),
                       points_text(row.points)))
    return line + (f" ⬅️ {you_text()}" if row.user_id == viewer else "")


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


TROUBLE = T("I could not read the scores just now. Please try again in a moment.")


def not_yours(owner: int) -> str:
    mention = f"<@{owner}>"
    # Translators: {owner} mentions the person who ran the command
    return _("Those buttons belong to {owner}, so their message stays as it is. Here is that "
             "page just for you:", owner=mention)


class Leaderboards(commands.Cog):
    def __init__(self, bot: CardTableBot):
        self.bot = bot

    @property
    def store(self) -> Store:
        return self.bot.store

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(BoardButton, ChipsButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(BoardButton, ChipsButton)

    @app_commands.command(name="leaderboard", description="Who plays a game best, by rating")
    @app_commands.guild_only()
    @app_commands.describe(game="Which game", scope="This server (default) or every server")
    @app_commands.choices(game=game_choices())
    async def leaderboard(self, interaction: discord.Interaction, game: str,
                          scope: Scope = "server") -> None:
        replies.answers_publicly(interaction)
        try:
            board = await load_board(self.store, game, scope, interaction.guild_id,
                                     _where(interaction, scope), interaction.user.id, 0)
        except Exception:
            log.exception("cannot read the %s leaderboard", game)
            await replies.reply(interaction, say(TROUBLE))
            return
        await _send(interaction, board_embed(board), board_view(board))

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
        await _answer_click(interaction, button.owner, board_embed(board), board_view(board))

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
        await _send(interaction, chips_embed(board), chips_view(board))

    async def chips_click(self, interaction: discord.Interaction, button: ChipsButton) -> None:
        page = None if button.action == "me" else button.page
        try:
            board = await load_chips(self.store, interaction.guild_id or 0,
                                     _where(interaction, "server"), interaction.user.id, page)
        except Exception:
            log.exception("cannot read the chips board")
            await replies.reply(interaction, say(TROUBLE))
            return
        await _answer_click(interaction, button.owner, chips_embed(board), chips_view(board))


def _where(interaction: discord.Interaction, scope: Scope) -> str:
    return where_text(scope, interaction.guild)


async def _send(interaction: discord.Interaction, embed: discord.Embed,
                view: discord.ui.View | None) -> None:
    await replies.reply(interaction, embed=embed, view=view, ephemeral=False)


async def _answer_click(interaction: discord.Interaction, owner: int, embed: discord.Embed,
                        view: discord.ui.View | None) -> None:
    """The owner's click turns their page; anyone else's gets a page of their own."""
    if interaction.user.id == owner:
        await replies.update(interaction, embed=embed, view=view)
        return
    await replies.reply(interaction, not_yours(owner), embed=embed, view=view)


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(Leaderboards(bot))

