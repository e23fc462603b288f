"""A tournament's scores: each table's, each round's, the standings, the knockout's winners.

Exact fractions (``Fraction``), so a standing is exactly what a hand computation gives;
the front end rounds them to show. Every score of a table is between 0 and 1, so tables
of different sizes weigh the same:

* **By places** (Swiss without duplicate): a player scores, for each opponent at their
  table, 1 for a better place and ½ for the same place, divided by the opponents
  (n − 1): the winner of a table of four scores 1, the last 0, and two-player games score
  1, ½ or 0 as chess does. Places are the game's own (``Game.ranking``: Jazz's penalties
  are negative points, so higher totals place better in every game).
* **Duplicate**: the same sum, but over the players who held the same cards, that is
  the same position at the round's other tables, comparing the game's points (higher is
  better in every game): matchpoints, 1 for a better result than another table's, ½ for
  the same, divided by the comparisons. Why matchpoints and not the points themselves:
  a deal's points vary wildly with the cards (a Jazz Sevens deal swings tens of points),
  so only the comparison with the same cards says who played them better. A round with
  one table played has nothing to compare with, and scores by places.
* A player who did not show (an AI played their seat) scores 0 for that table; the AI's
  result still stands, as a place at its table and as a result of its cards for the
  players it is compared with. A table where nobody came scores 0 for all and is no
  comparison for anybody. A **bye** scores ½: the average result.

Standings: the total, then the tables won (first place), then the seed. A knockout's
standings are by how far each player came (the winner, the finalist, the semi-finalists
...), then by seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from bot.table.tournament import KNOCKOUT, Entrant, Pairing, Round, TableResult, Tournament

HALF = Fraction(1, 2)
BYE = HALF  # a bye's score


def _versus(mine: int, theirs: int, lower_better: bool) -> Fraction:
    if mine == theirs:
        return HALF
    return Fraction(1) if (mine < theirs) == lower_better else Fraction(0)


def by_places(result: TableResult, position: int) -> Fraction:
    """A position's score at its table from the places (0 for a no-show, or no game)."""
    n = len(result.places)
    if not result.played or position in result.absent or n < 2:
        return Fraction(0)
    total = sum((_versus(result.places[position], result.places[j], lower_better=True)
                 for j in range(n) if j != position), Fraction(0))
    return total / (n - 1)


def duplicate(tables: list[Pairing], table: Pairing, position: int) -> Fraction:
    """A position's duplicate score: its points against the same position's at the
    round's other played tables (by places when there is none to compare with)."""
    result = table.result
    if result is None or not result.played or position in result.absent:
        return Fraction(0)
    others = [p.result for p in tables if p is not table and p.result is not None
              and p.result.played and position < len(p.result.points)]
    if not others:
        return by_places(result, position)
    total = sum((_versus(result.points[position], other.points[position], lower_better=False)
                 for other in others), Fraction(0))
    return total / len(others)


def round_scores(t: Tournament, rnd: Round) -> dict[int, Fraction]:
    """Each player's score in a round (those at a table with a result, and the byes)."""
    scores = {user: BYE for user in rnd.byes}
    for table in rnd.tables:
        if table.result is None:
            continue
        for position, user in enumerate(table.players):
            scores[user] = (duplicate(rnd.tables, table, position) if t.duplicate
                            else by_places(table.result, position))
    return scores


def won(table: Pairing, position: int) -> bool:
    result = table.result
    return (result is not None and result.played and position not in result.absent
            and result.places[position] == 0)


@dataclass
class Standing:
    entrant: Entrant
    score: Fraction = Fraction(0)
    rounds: list[Fraction | None] = field(default_factory=list)  # None: did not play it
    firsts: int = 0  # tables won
    out_in: int | None = None  # knockout: the round they lost (None: still in)
    place: int = 0  # 1, 2, ... (ties broken as sorted)


def knockout_winner(t: Tournament, p: Pairing) -> int:
    """Who goes through from a knockout table: a player who did not show never does (a
    walkover); else the better place, and on equal places (or no game) the better seed."""
    seeds = {e.user_id: e.seed for e in t.entrants}
    result = p.result
    if result is None or not result.played:
        return min(p.players, key=lambda u: seeds.get(u, 0))
    present = [k for k in range(len(p.players)) if k not in result.absent]
    best = min(present or range(len(p.players)),
               key=lambda k: (result.places[k], seeds.get(p.players[k], 0)))
    return p.players[best]


def knockout_after(t: Tournament, rnd: Round) -> list[int | None]:
    """The bracket after a played knockout round: each match's winner, in order (None: a
    match not decided yet)."""
    winners = {frozenset(p.players): knockout_winner(t, p) for p in rnd.tables
               if p.result is not None}
    slots = rnd.slots or []
    out: list[int | None] = []
    for i in range(0, len(slots) - 1, 2):
        a, b = slots[i], slots[i + 1]
        if a is not None and b is not None:
            out.append(winners.get(frozenset((a, b))))
        else:
            out.append(a if a is not None else b)
    return out


def standings(t: Tournament) -> list[Standing]:
    """Everyone's standing, best first (``place`` set)."""
    rows = {e.user_id: Standing(e) for e in t.entrants}
    for rnd in t.played:
        scores = round_scores(t, rnd)
        for user, row in rows.items():
            score = scores.get(user)
            row.rounds.append(score)
            row.score += score or 0
        for table in rnd.tables:
            for position, user in enumerate(table.players):
                if user in rows and won(table, position):
                    rows[user].firsts += 1
            if t.format == KNOCKOUT and table.result is not None:
                winner = knockout_winner(t, table)
                for user in table.players:
                    if user != winner and user in rows:
                        rows[user].out_in = rnd.number
    if t.format == KNOCKOUT:
        for row in rows.values():  # who withdrew went out in the round after their last
            if row.entrant.withdrawn and row.out_in is None:
                played = [n for n, score in enumerate(row.rounds, 1) if score is not None]
                row.out_in = min(max(played, default=0) + 1, len(t.played))
        last = len(t.played) + 1  # still in: past every round played
        ordered = sorted(rows.values(), key=lambda r: (-(r.out_in or last), r.entrant.seed))
    else:
        ordered = sorted(rows.values(), key=lambda r: (-r.score, -r.firsts, r.entrant.seed))
    for place, row in enumerate(ordered, start=1):
        row.place = place
    return ordered


def standing_order(t: Tournament) -> list[Entrant]:
    """The entrants in standing order (Swiss pairing reads it)."""
    return [row.entrant for row in standings(t)]
