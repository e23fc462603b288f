"""What ``/stats`` shows beside a player's numbers: their winning streaks, the line of
their rating, and with ``opponent:`` two players head-to-head. Not a cog: ``cogs.stats``
answers with these.

* **Streaks**: per game, the completed games won in a row up to the last one (0 after a
  game not won) and the longest such run (``Store.streaks``).
* **Rating**: the player's rating (the leaderboard's ordinal) after each rated game of
  one game, drawn as a line (``bot.images.chart``) by the bot's ``Painter`` in a worker
  thread. If it is not drawn within ``PICTURE_WAIT`` the numbers go out at once and the
  picture follows as an edit of that answer.
* **Head-to-head** (``opponent:``): per game, their completed games together, each one's
  wins, points and how often each placed higher; then their last games together, only
  those of channels the asker can see (``bot.ui.visibility.may_see``, as ``/history``
  lists them), each with its record to download through ``/history``'s select
  (``ct:rec``, which checks again). The answer is private: the games listed are the
  asker's view, and others in the channel may not see the channels they were played in.
"""

from __future__ import annotations

import asyncio
import logging
from typing import cast

import discord
from discord.ext import commands

from bot.images.chart import Chart
from bot.images.painter import Painter
from bot.storage import GameStats, GameSummary, HeadToHead, RatingPoint, Store, Streak
from bot.ui import markup, replies
from bot.ui.attachments import Picture, show
from bot.ui.visibility import may_see
from cogs.board_texts import Scope, game_title
from cogs.history import COG_NAME as HISTORY
from locales import _, _n

log = logging.getLogger(__name__)

LAST_GAMES = 5  # games together listed
SCAN_GAMES = 250  # at most this many games together are read to find the ones listed
SCAN_BATCH = 50
NAME_WIDTH = 24
LINE_LIMIT = 200  # one listed game: five stay far below a field's 1024
PICTURE_WAIT = 1.0  # seconds the answer waits for its picture before going without
CHART_FILE = "rating.png"


# ------------------------------------------------------------------ streaks and the rating


def streak_text(streak: Streak) -> str:
    # Translators: a player's winning streaks in one game: the games won in a row up to
    # their last game, and the most they ever won in a row
    current, longest = f"**{streak.current}**", f"**{streak.longest}**"
    return _("Winning streak {current} · longest {longest}", current=current,
             longest=longest)


def most_played(stats: list[GameStats]) -> str | None:
    """The game the player finished most games of (the first by game id on a tie)."""
    return max(stats, key=lambda s: s.games).game if stats else None


def plain_where(scope: Scope, guild: discord.Guild | None) -> str:
    """Where the numbers come from, for a picture (no markdown there)."""
    if scope == "global":
        return _("all servers")
    return markup.safe_name(guild.name, markdown=False) if guild is not None else \
        _("this server")


def rating_chart(name: str, game: str, where: str, points: list[RatingPoint]) -> Chart | None:
    """The line of a player's rating in ``game``; None below two rated games (one point
    draws no line)."""
    if len(points) < 2:
        return None
    player = markup.safe_name(name, markdown=False)
    return Chart(
        # Translators: the title of the picture of a player's rating over their games
        title=_("Rating of {player} in {game}", player=player, game=game_title(game)),
        # Translators: under that title: where the games were played, and what each point is
        heading=where + " · " + _("the rating after each rated game"),
        values=tuple(p.ordinal for p in points),
        start=points[0].ended_at.strftime("%Y-%m-%d"),
        end=points[-1].ended_at.strftime("%Y-%m-%d"),
        # Translators: under the picture of a rating: how many games its line shows
        caption=_n("{count} rated game", "{count} rated games", len(points),
                   count=len(points)))


async def send_with_chart(interaction: discord.Interaction, embed: discord.Embed,
                          chart: Chart | None, painter: Painter) -> None:
    """The public answer, with the chart as its picture: in the answer itself if drawn
    within ``PICTURE_WAIT``, else added by an edit once drawn (none if it fails)."""
    if chart is None:
        await replies.reply(interaction, embed=embed, ephemeral=False)
        return
    drawing = asyncio.ensure_future(painter.render_or_none(chart, "rating"))
    done, _pending = await asyncio.wait({drawing}, timeout=PICTURE_WAIT)
    if done:
        picture = Picture(CHART_FILE, data) if (data := drawing.result()) else None
        await replies.reply(interaction, embed=show(embed, picture), picture=picture,
                            ephemeral=False)
        return
    await replies.reply(interaction, embed=embed, ephemeral=False)
    data = await drawing
    if data is not None:
        picture = Picture(CHART_FILE, data)
        await replies.update(interaction, embed=show(embed, picture), picture=picture)


# ------------------------------------------------------------------ head-to-head


async def visible_games(interaction: discord.Interaction, store: Store, user_id: int,
                        other_id: int, guild_id: int | None, game: str | None
                        ) -> list[GameSummary]:
    """Their latest ``LAST_GAMES`` games together that the asker may see, newest first;
    at most ``SCAN_GAMES`` are read to find them."""
    shown: list[GameSummary] = []
    before, read, limit = None, 0, LAST_GAMES
    while read < SCAN_GAMES:
        batch = await store.games_together(user_id, other_id, guild_id, game, limit=limit,
                                           before=before)
        shown += [g for g in batch if may_see(interaction, g)]
        if len(shown) >= LAST_GAMES or len(batch) < limit:
            break
        read, before, limit = read + len(batch), batch[-1].game_id, SCAN_BATCH
    return shown[:LAST_GAMES]


def _bold(value: int, signed: bool = False) -> str:
    return f"**{value:+d}**" if signed else f"**{value}**"


def duel_text(row: HeadToHead, player: str, opponent: str) -> str:
    """One game's numbers of the two (names escaped already)."""
    # Translators: how many games two players finished together (in bold)
    together = _n("{count} game together", "{count} games together", row.games,
                  count=_bold(row.games))
    # Translators: each of two players, then the games they won (in bold)
    wins = _("Wins: {player} {mine} · {opponent} {theirs}", player=player,
             mine=_bold(row.wins), opponent=opponent, theirs=_bold(row.other_wins))
    # Translators: each of two players, then the points they scored in their games together
    points = _("Points: {player} {mine} · {opponent} {theirs}", player=player,
               mine=_bold(row.points, True), opponent=opponent,
               theirs=_bold(row.other_points, True))
    # Translators: how often each of two players finished above the other, and how often
    # they shared a place
    higher = _("Placed higher: {player} {mine} · {opponent} {theirs} · same place {level}",
               player=player, mine=_bold(row.ahead), opponent=opponent,
               theirs=_bold(row.behind), level=_bold(row.level))
    return "\n".join((together, wins, points, higher))


def seat_text(game: GameSummary, user_id: int, name: str) -> str:
    """A player's points and place in a game (``name`` escaped already)."""
    seat = next((s for s in game.players if s.user_id == user_id), None)
    if seat is None:  # cannot happen: both played it
        return name
    shown = f"👑 **{name}**" if seat.won else name
    # Translators: a player in a game of a head-to-head: their points (signed) and place
    return _("{player} {points} (place {place})", player=shown,
             points=format(seat.points, "+d"), place=seat.place + 1)


def game_line(game: GameSummary, user_id: int, player: str, other_id: int,
              opponent: str) -> str:
    when = discord.utils.format_dt(game.ended_at, "R")  # each reader's client says it
    head = f"`#{game.game_id}` **{game_title(game.game)}** · {when} · "
    seats = " · ".join((seat_text(game, user_id, player), seat_text(game, other_id, opponent)))
    return markup.clip(head + seats, LINE_LIMIT)


def head_to_head_embed(names: tuple[str, str], ids: tuple[int, int], where: str,
                       rows: list[HeadToHead], games: list[GameSummary]) -> discord.Embed:
    """Two players' numbers per game and their last games together; ``names`` as they
    display (escaped here)."""
    player, opponent = (markup.safe_name(markup.clip(n, NAME_WIDTH)) for n in names)
    # Translators: the title of /stats with an opponent, followed by where the games were
    title = _("Head-to-head: {player} and {opponent}", player=player, opponent=opponent)
    embed = discord.Embed(title=title + " · " + where, colour=markup.COLOUR)
    for row in rows:
        embed.add_field(name=game_title(row.game), value=duel_text(row, player, opponent),
                        inline=False)
    if not rows:
        embed.description = _("{player} and {opponent} have not finished a game together "
                              "yet.", player=player, opponent=opponent)
    elif games:
        embed.add_field(name=_("Last games together"), inline=False, value="\n".join(
            game_line(g, ids[0], player, ids[1], opponent) for g in games))
        # Translators: `python -m engine replay FILE` is a command: keep it as it is
        embed.set_footer(text=_("Pick a game below to download its record (JSON); "
                                "python -m engine replay FILE checks every score."))
    else:
        embed.add_field(name=_("Last games together"), inline=False,
                        value=_("None in a channel you can see."))
    return markup.fit_embed(embed)


def head_to_head_view(interaction: discord.Interaction, games: list[GameSummary]
                      ) -> discord.ui.View | None:
    """``/history``'s download select for the games listed, made by the loaded
    ``/history`` cog (``History.records_view`` says why); none without it."""
    cog = cast(commands.Bot, interaction.client).get_cog(HISTORY)
    make = getattr(cog, "records_view", None)
    return make(games) if make is not None else None


async def answer(interaction: discord.Interaction, store: Store, who: discord.abc.User,
                 opponent: discord.abc.User, scope: Scope, where: str, game: str | None
                 ) -> None:
    """``/stats opponent:``: privately, the two players head-to-head."""
    if opponent.id == who.id:
        await replies.reply(interaction, _("Pick someone other than {player} to compare "
                                           "them with.", player=markup.safe_name(
                                               markup.clip(who.display_name, NAME_WIDTH))))
        return
    guild = interaction.guild_id if scope == "server" else None
    try:
        rows = await store.head_to_head(who.id, opponent.id, guild, game)
        games = await visible_games(interaction, store, who.id, opponent.id, guild,
                                    game) if rows else []
    except Exception:
        log.exception("cannot read the games of %s with %s", who.id, opponent.id)
        await replies.reply(interaction, _("I could not read the game history just now. "
                                           "Please try again in a moment."))
        return
    embed = head_to_head_embed((who.display_name, opponent.display_name),
                               (who.id, opponent.id), where, rows, games)
    await replies.reply(interaction, embed=embed, view=head_to_head_view(interaction, games))
