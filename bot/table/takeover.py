"""Taking over a seat that was left: the ask, the answer, and what the record keeps.

``TakeoverState`` (``bot.table.takeover_state``) is a ``Table`` field group, saved with
the snapshot. The rules over its fields are the functions below; no I/O, so they are
tested with plain numbers. The click's handler is ``bot.features.takeover``, the buttons
``bot.ui.takeover_buttons``.

**Decisions** (issue #30):

* **Which seats.** A person's seat whose player left (``Table.leave``) or is away (timed
  out ``AWAY_AFTER`` times), while the game runs: the bot plays it meanwhile. An AI seat
  is never taken.
* **Who may ask.** A member who is not seated at the table, not a bot, not removed by the
  host (``Table.removed``), and who never held a seat of this game (a player whose seat
  was taken over knows that seat's old hand, and so does a player who gave theirs up).
* **One open ask per table.** Those who decide answer one question at a time, and the
  channel holds one ask with its buttons, not a pile. An ask nobody answers blocks no
  one for ever: after ``ask_patience`` (10 minutes, or the turn timer if longer, at most
  a day) another may ask, and the new ask replaces it (its message then says it
  lapsed). The same member asking again after that pings the deciders afresh.
* **Who decides.** The host, if they are seated and present (not away, not left) and it
  is not their seat that is asked for. Otherwise the seated present people (not the seat
  asked for, not AI seats) vote, and more than half of them accepting accepts; as many
  refusing as can stop that (half or more) refuses. A voter may change their vote; the
  votes of someone who is no longer present do not count. If nobody present is left to
  decide (every other seat AI or gone), the ask is accepted at once: there is nobody to
  object, and the newcomer keeps the game going. (While a game runs that hardly happens:
  a table whose people are all away is stopped, ``Automation.ABANDON``.)
* **The player comes back first.** A seat whose player acted again (``come_back``,
  ``welcome_back``, or a move) is theirs: an open ask for it lapses (``live_ask``), and a
  click on it says so and closes it.
* **Accepted.** The seat becomes the newcomer's (id, name, nothing away or left), the table
  keeps the change (``seat_changes``: the deal, the number of actions taken in that deal,
  the seat, the old and new user ids and the old name) and says "{name} took over
  {player}'s seat." The old player is no longer seated, so their menus and My hand are
  refused (``Table.seated``). No new step: the other players' menus stay good. If the
  host's seat was taken, the first present person in seat order who played the whole
  game hosts now (the newcomer only if there is nobody else).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.table.durations import DAY, MINUTE
from bot.table.errors import TableError
from bot.table.state import Table
from bot.table.status import Status
from engine.text import T

PATIENCE, LONGEST_PATIENCE = 10 * MINUTE, DAY
# What an answer did (``decide``).
PENDING, ACCEPTED, REFUSED, LAPSED = "pending", "accepted", "refused", "lapsed"
HOST, VOTE = "host", "vote"  # who decides: the host alone, or the present players

# Translators: a line on the table message: {name} now plays the seat {player} left
TOOK_OVER = T("{name} took over {player}'s seat.")
NOT_OPEN = T("This request is no longer open.")


@dataclass(frozen=True)
class Verdict:
    """What an answer to an ask did, with what its message says."""

    kind: str  # PENDING, ACCEPTED, REFUSED or LAPSED
    ask: dict[str, Any]  # the ask as it was answered (its votes included)
    by: int  # who answered


def ask_patience(turn_timer: float) -> float:
    """How long an open ask keeps others from asking (seconds)."""
    return max(float(PATIENCE), min(turn_timer, float(LONGEST_PATIENCE)))


def takeable(table: Table) -> list[int]:
    """The seats a newcomer may ask for now: people's seats that were left or are away,
    while the game runs. Never at a tournament's table: its seats are its players'."""
    if table.status != Status.PLAYING or table.game is None or table.game.is_over \
            or table.tournament_id is not None:
        return []
    return [i for i, s in enumerate(table.seats) if not s.is_ai and (s.left or s.away)]


def former_players(table: Table) -> set[int]:
    """Everyone whose seat changed hands at this table (they left it)."""
    return {int(c["old"]) for c in table.seat_changes}


def live_ask(table: Table) -> dict[str, Any] | None:
    """The open ask, if it still stands: its seat is still free to take and held by the
    same player (None: no ask, or its player came back, or the game ended)."""
    ask = table.takeover_ask
    if ask is None:
        return None
    seat = int(ask["seat"])
    if seat not in takeable(table) or table.seats[seat].user_id != ask["old"]:
        return None
    return ask


def blocking_ask(table: Table, now: float) -> dict[str, Any] | None:
    """The open ask that keeps others from asking now (``ask_patience``)."""
    ask = live_ask(table)
    if ask is None or now >= float(ask["at"]) + ask_patience(table.turn_timer):
        return None
    return ask


def check_ask(table: Table, user_id: int, is_bot: bool, seat: int | None, now: float,
              when: Callable[[float], str]) -> list[int]:
    """The seats ``user_id`` may ask for now (``seat``: just that one), or ``TableError``
    with the reason; changes nothing. ``when`` shows a moment to the reader."""
    table.require_playing()
    if is_bot:
        raise TableError(T("Bots cannot take a seat."))
    mine = table.seat_of(user_id)
    if mine is not None:
        if table.seats[mine].away:
            raise TableError(T("Your seat is still yours: press **My hand** to play it "
                               "again."))
        raise TableError(T("You are seated at this table already."))
    if user_id in table.removed:
        raise TableError(T("The host removed you from this table, so you cannot take a seat "
                           "at it."))
    if user_id in former_players(table):
        raise TableError(T("You held a seat in this game: you cannot take another one."))
    free = takeable(table)
    if not free:
        raise TableError(T("No seat is free to take: every player is here."))
    if seat is not None:
        if seat not in free:
            raise TableError(T("That seat is not free any more: its player is back."))
        free = [seat]
    ask = blocking_ask(table, now)
    if ask is not None:
        until = when(float(ask["at"]) + ask_patience(table.turn_timer))
        if ask["user"] == user_id:
            raise TableError(T("You have asked already: the answer is awaited. You can ask "
                               "again {when}.", when=until))
        raise TableError(T("{name} has asked to take a seat: the answer is awaited. You "
                           "can ask {when}.", name=ask["name"], when=until))
    return free


def deciders(table: Table, seat: int) -> tuple[str, list[int]]:
    """Who decides an ask for ``seat``: ``(HOST, [host])`` if the host is seated, present
    and not the one asked for; else ``(VOTE, the present people of the other seats)``."""
    host = table.seat_of(table.host_id)
    if host is not None and host != seat and _present(table, host):
        return HOST, [table.host_id]
    return VOTE, [s.user_id for i, s in enumerate(table.seats)
                  if i != seat and not s.is_ai and _present(table, i)]


def _present(table: Table, seat: int) -> bool:
    player = table.seats[seat]
    return not (player.away or player.left)


def ask(table: Table, seat: int, user_id: int, name: str, now: float) -> Verdict:
    """``user_id`` (checked: ``check_ask``) asks for ``seat``. The ask replaces any open
    one; accepted at once if nobody is there to decide (``ACCEPTED``), else ``PENDING``."""
    table.takeover_asks += 1
    held = table.seats[seat]
    new = {"n": table.takeover_asks, "seat": seat, "old": held.user_id, "player": held.name,
           "user": user_id, "name": name, "at": now, "message": None, "yes": [], "no": []}
    if not deciders(table, seat)[1]:
        table.takeover_ask = None
        take_over(table, seat, user_id, name, now)
        return Verdict(ACCEPTED, new, user_id)
    table.takeover_ask = new
    return Verdict(PENDING, new, user_id)


def note_message(table: Table, n: int, message_id: int) -> None:
    """The ask ``n``'s message in the channel (its buttons), to edit when it lapses."""
    ask = table.takeover_ask
    if ask is not None and ask["n"] == n:
        table.takeover_ask = {**ask, "message": message_id}


def withdraw(table: Table, n: int) -> None:
    """The ask ``n`` is dropped (its message could not be posted: nobody can answer it)."""
    if table.takeover_ask is not None and table.takeover_ask["n"] == n:
        table.takeover_ask = None


def decide(table: Table, n: int, user_id: int, accept: bool, now: float) -> Verdict:
    """``user_id`` answers the ask ``n``: its ``Verdict`` (the seat moves on ``ACCEPTED``);
    ``TableError`` for a click that may not answer it (nothing changed)."""
    table.require_playing()
    ask = table.takeover_ask
    if ask is None or ask["n"] != n:
        raise TableError(NOT_OPEN)
    if live_ask(table) is None:  # the player came back: the seat is theirs
        table.takeover_ask = None
        return Verdict(LAPSED, ask, user_id)
    if user_id == ask["user"]:
        raise TableError(T("You cannot answer your own request: the players decide."))
    seat = int(ask["seat"])
    mode, who = deciders(table, seat)
    if user_id not in who:
        if mode == HOST:
            raise TableError(T("Only the host, {host}, can answer this request.",
                               host=table.host_name))
        raise TableError(T("Only the players at the table can answer this request."))
    if mode == HOST:
        yes, no = ([user_id], []) if accept else ([], [user_id])
    else:  # a vote replaces the voter's earlier one
        yes = [u for u in ask["yes"] if u != user_id] + ([user_id] if accept else [])
        no = [u for u in ask["no"] if u != user_id] + ([] if accept else [user_id])
    answered = {**ask, "yes": yes, "no": no}
    kind = tally(answered, who)
    if kind == PENDING:
        table.takeover_ask = answered
    else:
        table.takeover_ask = None
        if kind == ACCEPTED:
            take_over(table, seat, int(ask["user"]), str(ask["name"]), now)
    return Verdict(kind, answered, user_id)


def tally(ask: dict[str, Any], who: list[int]) -> str:
    """Where the votes of ``who`` (those who decide now) leave an ask: more than half
    accepting accepts it, half or more refusing refuses it (it can no longer pass)."""
    yes = sum(1 for u in ask["yes"] if u in who)
    no = sum(1 for u in ask["no"] if u in who)
    if 2 * yes > len(who):
        return ACCEPTED
    if 2 * no >= len(who):
        return REFUSED
    return PENDING


def votes_for(ask: dict[str, Any], who: list[int]) -> int:
    """How many of ``who`` accepted the ask so far."""
    return sum(1 for u in ask["yes"] if u in who)


def take_over(table: Table, seat: int, user_id: int, name: str, now: float) -> None:
    """The seat is ``user_id``'s from now on (see the decisions above)."""
    game = table.require_playing()
    player = table.seats[seat]
    history = game.history or []
    change = {"deal": max(0, len(history) - 1),
              "step": len(history[-1].actions) if history else 0,
              "seat": seat, "old": player.user_id, "new": user_id, "old_name": player.name}
    table.seat_changes = [*table.seat_changes, change]
    old_text = player.name_text
    player.user_id, player.name = user_id, name
    player.away = player.left = False
    player.expiries = 0
    if change["old"] == table.host_id:
        table.host_id = next_host(table, seat)
    table.last_activity = now
    if table.to_act == seat:
        table.arm_turn_timer(now)  # their own timer runs (the bot no longer plays the seat)
    table.add_line(TOOK_OVER.filled(name=name, player=old_text))


def next_host(table: Table, taken: int) -> int:
    """Who hosts once the host's seat was taken: the first present person in seat order
    who played the whole game, else the newcomer."""
    for i, s in enumerate(table.seats):
        if i != taken and not s.is_ai and _present(table, i):
            return s.user_id
    return table.seats[taken].user_id


def changed_seats(table: Table) -> list[int]:
    """The seats that changed hands in this game (credited to nobody: storage)."""
    return sorted({int(c["seat"]) for c in table.seat_changes})


def record_changes(table: Table) -> list[dict[str, int]]:
    """The seat changes as a public record keeps them: where, never who
    (``docs/records.md``, ``seat_changes``)."""
    return [{"deal": int(c["deal"]), "step": int(c["step"]), "seat": int(c["seat"])}
            for c in table.seat_changes]


def holders(table: Table, seat: int) -> list[str]:
    """The names of everyone who held ``seat`` in this game, in order (the last: now)."""
    before = [str(c["old_name"]) for c in table.seat_changes if c["seat"] == seat]
    return [*before, table.seats[seat].name]
