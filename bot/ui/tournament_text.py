"""A tournament on Discord, in words: its message (sign-up, then standings), a round's
call, a table's call in its thread, the final standings, a tournament table's lobby.

Every function speaks the current language (the caller wraps it in
``locales.speaking(t.language)``: the channel reads it); names are escaped
(``markup.safe_name``). Scores are exact fractions (``bot.table.tournament_scoring``),
shown with at most two decimals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import discord

from bot.config.server_settings import options_text
from bot.table import tournament as tour
from bot.table.durations import describe_duration
from bot.table.state import Table
from bot.table.tournament import KNOCKOUT, Pairing, Round, Tournament
from bot.table.tournament_scoring import Standing, standings
from bot.ui import markup
from bot.ui.markup import safe_name
from locales import _, _n

SHOWN = 30  # players listed in the message; the rest counted
WAITING, PLAYING, DONE = "waiting", "playing", "done"


def score_text(score: Fraction | None) -> str:
    """2, 2.5, 1.83; "–" for a round not played."""
    if score is None:
        return "–"
    if score.denominator == 1:
        return str(score.numerator)
    return f"{float(score):.2f}".rstrip("0").rstrip(".")


def format_text(t: Tournament) -> str:
    if t.format == KNOCKOUT:
        return _("Knockout")
    kind = (_n("Swiss, {n} round, duplicate deals", "Swiss, {n} rounds, duplicate deals",
               t.rounds) if t.duplicate
            else _n("Swiss, {n} round", "Swiss, {n} rounds", t.rounds))
    return kind


def _knockout_word(t: Tournament, row: Standing) -> str:
    total = max(t.total_rounds(), 1)
    if row.out_in is None:
        return _("champion") if t.status == tour.FINISHED else _("still in")
    if row.out_in == total:
        return _("final")
    if row.out_in == total - 1:
        return _("semi-final")
    return _("out in round {n}", n=row.out_in)


def standings_text(t: Tournament, shown: int = SHOWN) -> str:
    """The standings, best first: place, name, score and each round's (or, in a
    knockout, how far each came)."""
    rows = standings(t)
    lines = []
    for row in rows[:shown]:
        name = safe_name(row.entrant.name)
        if row.entrant.withdrawn:
            name += " " + _("(withdrew)")
        if t.format == KNOCKOUT:
            lines.append(f"{row.place}. **{name}** · {_knockout_word(t, row)}")
        else:
            rounds = " · ".join(score_text(s) for s in row.rounds)
            lines.append(f"{row.place}. **{name}** {score_text(row.score)}"
                         + (f" ({rounds})" if rounds else ""))
    if len(rows) > shown:
        lines.append(_n("… and {n} more player", "… and {n} more players", len(rows) - shown))
    return "\n".join(lines) or _("Nobody yet.")


def signed_text(signed: Sequence[tuple[int, str]], shown: int = SHOWN) -> str:
    lines = [f"{i}. {safe_name(name)}" for i, (_user, name) in enumerate(signed[:shown], 1)]
    if len(signed) > shown:
        lines.append(_n("… and {n} more player", "… and {n} more players",
                        len(signed) - shown))
    return "\n".join(lines) or _("Nobody yet: press **Sign up**.")


def _state_word(state: str) -> str:
    return {WAITING: _("waiting for its players"), PLAYING: _("playing"),
            DONE: _("done")}.get(state, _("opening"))


def round_text(t: Tournament, rnd: Round, state_of: Callable[[Pairing], str]) -> str:
    names = {e.user_id: e.name for e in t.entrants}
    lines = []
    for p in rnd.tables:
        where = (f"<#{p.channel_id}>" if p.channel_id is not None
                 else _("Table {n}", n=p.number))
        players = ", ".join(safe_name(names.get(u, "?")) for u in p.players)
        lines.append(f"{where} · {players} · {_state_word(state_of(p))}")
    if rnd.byes:
        lines.append(_("Bye: {players}", players=", ".join(safe_name(names.get(u, "?"))
                                                          for u in rnd.byes)))
    if not rnd.over and rnd.end_by is not None:
        lines.append(_("Tables still playing are stopped {when} and score as they stand.",
                       when=markup.relative_time(rnd.end_by)))
    return "\n".join(lines)


def tournament_embed(t: Tournament, game: str, now: float,
                     signed: Sequence[tuple[int, str]] = (),
                     state_of: Callable[[Pairing], str] = lambda p: DONE) -> discord.Embed:
    """The tournament's message: what it is, then its sign-ups or standings and round."""
    title = t.name or _("{game} tournament", game=game)
    about = [_("{game} · {format} · {seats} seats a table", game=game, format=format_text(t),
               seats=t.seats) if t.format != KNOCKOUT
             else _("{game} · {format}", game=game, format=format_text(t))]
    if t.round_time > 0:
        about.append(_("Each round lasts at most {time} once its tables start.",
                       time=describe_duration(t.round_time)))
    about.append(_("Players have {time} to join their table; a player who does not "
                   "come is replaced by an AI player and scores nothing for that game.",
                   time=describe_duration(t.grace)))
    if t.options:  # (checked by the game at creation: names and values of its own)
        about.append(_("Options: {options}", options=markup.safe_name(
            options_text(t.options))))
    status: str
    if t.status == tour.SIGNUP:
        status = _("Sign-up is open: press **Sign up**.")
        closes = t.signup_until if t.signup_until is not None else t.starts_at
        if closes is not None and closes > now:
            status += " " + _("It closes {when}.", when=markup.relative_time(closes))
        if t.starts_at is not None:
            status += " " + _("The tournament starts {when}.", when=markup.start_time(t.starts_at))
        else:
            status += " " + _("The organiser starts it with {command}.",
                              command="`/tournament start`")
    elif t.status == tour.RUNNING:
        rnd = t.current
        status = _("Round {n} of {total} is under way.", n=rnd.number if rnd else 0,
                   total=t.total_rounds())
    elif t.status == tour.FINISHED:
        status = _("The tournament is over. Thank you for playing!")
    else:
        status = _("The tournament was cancelled.")
    embed = discord.Embed(title=f"🏆 {markup.safe_name(title)}", colour=markup.GOLD,
                          description="\n".join([*about, "", status]))
    if t.status == tour.SIGNUP:
        embed.add_field(name=_("Signed up ({n})", n=len(signed)), value=signed_text(signed),
                        inline=False)
    elif t.entrants:
        embed.add_field(name=_("Standings"), value=standings_text(t), inline=False)
        rnd = t.current
        if rnd is not None and t.status == tour.RUNNING:
            embed.add_field(name=_("Round {n}", n=rnd.number),
                            value=round_text(t, rnd, state_of), inline=False)
    embed.set_footer(text=_("Tournament {id}", id=t.tournament_id))
    return markup.fit_embed(embed)


def round_call(t: Tournament, rnd: Round, game: str) -> str:
    """The round's announcement in the tournament's channel (it pings the players)."""
    title = t.name or _("{game} tournament", game=game)
    lines = [_("**Round {n}** of {tournament} begins. Each table has its own thread: join "
               "yours {when}.", n=rnd.number, tournament=markup.safe_name(title),
               when=markup.relative_time(rnd.start_by))]
    for p in rnd.tables:
        where = f"<#{p.channel_id}>" if p.channel_id is not None else _("Table {n}", n=p.number)
        lines.append(f"{where}: " + " ".join(markup.mention(u) for u in p.players))
    if rnd.byes:
        lines.append(_("Bye this round: {players}",
                       players=" ".join(markup.mention(u) for u in rnd.byes)))
    return markup.content("\n".join(lines))


def not_opened(rnd: Round, p: Pairing) -> str:
    """A table of the round that could not be opened in time (no thread, no lobby)."""
    players = " ".join(markup.mention(u) for u in p.players)
    return markup.content(_("Table {table} of round {n} ({players}) could not be opened: "
                            "its game is not played, and nobody scores for it.",
                            table=p.number, n=rnd.number, players=players))


def table_call(rnd: Round, p: Pairing) -> str:
    """The word to a table's players in its thread (it pings them, and so adds them)."""
    players = " ".join(markup.mention(u) for u in p.players)
    return markup.content(_("{players}: this is your table for round {n}. Press **Join** on "
                            "the lobby; the game starts when all of you have joined, or "
                            "{when} with an AI player in each empty seat.", players=players,
                            n=rnd.number, when=markup.relative_time(rnd.start_by)))


def final_text(t: Tournament, game: str) -> tuple[str, discord.Embed]:
    """The final standings post: who won (pinged) and the standings."""
    title = t.name or _("{game} tournament", game=game)
    rows = standings(t)
    winner = rows[0].entrant.user_id if rows else None
    content = (_("🏆 {player} wins {tournament}!", player=markup.mention(winner),
                 tournament=markup.safe_name(title)) if winner is not None else "")
    embed = discord.Embed(title=_("{tournament}: final standings",
                                  tournament=markup.safe_name(title)),
                          colour=markup.GOLD, description=standings_text(t))
    embed.set_footer(text=_("Every game of the tournament is in /history."))
    return markup.content(content), markup.fit_embed(embed)


def cancelled_text(t: Tournament, game: str, too_few: bool) -> str:
    title = markup.safe_name(t.name or _("{game} tournament", game=game))
    if too_few:
        return _("{tournament} was cancelled: not enough players signed up.", tournament=title)
    return _("{tournament} was cancelled by its organiser.", tournament=title)


def lobby_text(table: Table) -> str:
    """A tournament table's lobby: who it is for, and when it starts."""
    lines = [_("Round {n}, table {table} of a tournament. Press **Join** to take your seat: "
               "the game starts when all {count} players have joined.",
               n=table.tournament_round, table=table.tournament_table,
               count=len(table.tournament_order))]
    if table.tournament_start_by is not None:
        lines.append(_("It starts {when} in any case, with an AI player in each empty seat "
                       "(a player who does not come scores nothing for this game).",
                       when=markup.relative_time(table.tournament_start_by)))
    missing = [u for u in table.tournament_order if table.seat_of(u) is None]
    if missing:
        lines.append(_("Still to join: {players}",
                       players=" ".join(markup.mention(u) for u in missing)))
    return "\n".join(lines)
