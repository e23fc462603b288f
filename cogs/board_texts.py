"""The words and the sending of a leaderboard page, shared by ``/leaderboard``'s boards
(``cogs.leaderboard``: all time, ``cogs.period_boards``: a week, a month, a season), so
that neither imports the other."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands

from bot.storage import LeaderboardRow
from bot.ui import markup, replies
from engine.registry import available_games, game_class
from engine.text import T
from locales import _, _n

NAME_WIDTH = 32


Scope = Literal["server", "global"]


def game_choices() -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=game_class(g).TITLE, value=g) for g in available_games()]


def game_title(game: str) -> str:
    try:
        return game_class(game).TITLE
    except (KeyError, ImportError, AttributeError):
        return game


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


TROUBLE = T("I could not read the scores just now. Please try again in a moment.")


def not_yours(owner: int) -> str:
    mention = f"<@{owner}>"
    # Translators: {owner} mentions the person who ran the command
    return _("Those buttons belong to {owner}, so their message stays as it is. Here is that "
             "page just for you:", owner=mention)


async def send_board(interaction: discord.Interaction, embed: discord.Embed,
                view: discord.ui.View | None) -> None:
    await replies.reply(interaction, embed=embed, view=view, ephemeral=False)


async def answer_click(interaction: discord.Interaction, owner: int, embed: discord.Embed,
                        view: discord.ui.View | None) -> None:
    """The owner's click turns their page; anyone else's gets a page of their own."""
    if interaction.user.id == owner:
        await replies.update(interaction, embed=embed, view=view)
        return
    await replies.reply(interaction, not_yours(owner), embed=embed, view=view)
