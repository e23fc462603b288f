"""What a season's end and the role rewards say in a server's season channel: the
standings of each game, and one line for every role given, taken back or not changed.

Drawn in the current language (the caller speaks the server's: ``locales.speaking``);
names are escaped, and mentions ping nobody (the bot's messages allow none).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import discord

from bot.config.competition import Schedule
from bot.storage import LeaderboardRow
from bot.ui import markup
from bot.ui.rewards import Change
from engine.registry import game_class
from locales import _, _n, say

STANDINGS = 10  # the places a season's post shows per game
NAME_WIDTH = 32
MEDALS = ("🥇", "🥈", "🥉")


def game_title(game: str) -> str:
    try:
        return game_class(game).TITLE
    except (KeyError, ImportError, AttributeError):
        return game


def player(row: LeaderboardRow) -> str:
    return (markup.safe_name(markup.clip(row.name, NAME_WIDTH)) if row.name.strip()
            else markup.mention(row.user_id))


def dates_text(schedule: Schedule | None, season: int) -> str:
    """"1 June 2025 – 1 July 2025" as each reader's client shows dates ("" unknown)."""
    if schedule is None or season < schedule.first:  # an earlier schedule's season
        return ""
    return f"<t:{int(schedule.start_of(season))}:D> – <t:{int(schedule.end_of(season))}:D>"


def ended_text(season: int, schedule: Schedule | None) -> str:
    dates = dates_text(schedule, season)
    if dates:
        # Translators: {dates} is a season's first and last day ("1 June – 1 July")
        return _("🏁 **Season {season} is over** ({dates}). Here are its standings: "
                 "congratulations to the champions!", season=season, dates=dates)
    return _("🏁 **Season {season} is over.** Here are its standings: congratulations to "
             "the champions!", season=season)


def standings_line(row: LeaderboardRow) -> str:
    place = MEDALS[row.rank - 1] if row.rank <= len(MEDALS) else f"**{row.rank}.**"
    rating = f"{row.ordinal:.1f}"
    # Translators: a season's standings: a player's season rating, games and wins
    return _("{place} {player} — **{rating}** · {games} · {wins}", place=place,
             player=player(row), rating=rating,
             games=_n("{n} game", "{n} games", row.games),
             wins=_n("{n} win", "{n} wins", row.wins))


def standings_embeds(season: int, boards: Mapping[str, Sequence[LeaderboardRow]],
                     totals: Mapping[str, int]) -> list[discord.Embed]:
    """One embed per game of the season (its top places), at most ten (Discord's)."""
    embeds = []
    for game, rows in list(boards.items())[:10]:
        embed = discord.Embed(title=_("{game} · season {season}", game=game_title(game),
                                      season=season), colour=markup.GOLD)
        embed.description = "\n".join(standings_line(r) for r in rows[:STANDINGS])
        more = totals.get(game, len(rows)) - STANDINGS
        footer = _("Season ratings count this season's rated games only.")
        if more > 0:
            footer = _n("…and {n} more player.", "…and {n} more players.", more) + " " + footer
        embed.set_footer(text=footer + " " + _("Every season: /leaderboard period:season"))
        embeds.append(markup.fit_embed(embed))
    return embeds


def champion_line(change: Change, game: str, season: int) -> str:
    who, role = markup.mention(change.user_id), markup.role_mention(change.role_id)
    if change.give:
        if change.done:
            return _("🏅 {player} is the {game} champion of season {season}: {role} is "
                     "theirs.", player=who, game=game_title(game), season=season, role=role)
        return (_("⚠️ I could not give {role} to {player}, the {game} champion of season "
                  "{season}:", role=role, player=who, game=game_title(game), season=season)
                + " " + say(change.why or ""))
    return role_line(change)


def role_line(change: Change) -> str:
    """A role given or taken back after a rated game (a tier), or the champion's role
    taken back from last season's champion; or why it was not."""
    who, role = markup.mention(change.user_id), markup.role_mention(change.role_id)
    if change.gone:
        return _("↩️ {player} left the server: there is no {role} to take back from them.",
                 player=who, role=role)
    if change.why is not None:
        line = (_("⚠️ I could not give {role} to {player}:", role=role, player=who)
                if change.give else
                _("⚠️ I could not take {role} back from {player}:", role=role, player=who))
        return line + " " + say(change.why)
    if change.give:
        return _("⬆️ {player} now holds {role}.", player=who, role=role)
    return _("↩️ {role} was taken back from {player}.", role=role, player=who)


def tiers_text(game: str, lines: Iterable[str]) -> str:
    """The role changes after a rated game of ``game``."""
    head = _("Rating tiers after a game of {game}:", game=game_title(game))
    return markup.clip("\n".join((head, *lines)), 2000)


def champions_text(season: int, lines: Iterable[str]) -> str:
    head = _("Champion roles of season {season}:", season=season)
    return markup.clip("\n".join((head, *lines)), 2000)
