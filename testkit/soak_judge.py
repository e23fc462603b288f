"""The kill soak's verdict: what the players were told against what storage keeps.

The players (``testkit.soak_players``) log every click with the answer it got:
``done`` (the clicked hand was redrawn: the bot said the move was made), ``refused``
(a new message saying no, nothing changed) or ``unknown`` (no final answer: the process
died first). Clicks on the same menu's same choice — a double click, a retry after a
kill — are one *intent*. Storage holds each game's record (``games``, or the live
snapshot of a game that did not finish), its seats, the counts and the chips.

The moves of one table are judged by aligning its intents (in the order of their menus'
steps) with the players' moves in its record, at the smallest cost: an intent the bot
answered ``done`` that no record move explains is a move **lost**; a record move no
intent explains is a move **applied twice** (a move replayed, or one nobody made: the
bot's forced passes are exempt); a record move explained only by refused clicks was
applied although the player was told nothing changed. An intent answered ``done``
twice (a double click both answered as played) is a move applied twice too. The
alignment is the most charitable reading of the record, so a count above 0 means no
reading explains it; and none of them is 0 by construction (``tests/e2e/test_soak.py``
feeds it broken records, and ``python -m benchmarks soak --sabotage ...`` broken bots).

A game **recorded twice**: more than one ``games`` row for a table, a row of a soak
channel that belongs to none of its tables, or a player's ``games`` count in the
ratings above the games they sat at (the row is unique per table in the schema, the
counts are not). Tables that **stopped** are the soak's: channels whose game could not
go on (reported by the players) or is not over at the end. A table closed in storage
whose result never reached its channel (no result, no Rematch, at AttackJack no next
deal) is counted apart, as a result never shown.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

DONE, REFUSED, UNKNOWN = "done", "refused", "unknown"
FORCED = "pass"  # the only action the bot plays for a person at these tables (forced)


@dataclass(frozen=True)
class Click:
    """One click on a move menu and the answer it got."""

    table_id: str
    user_id: int
    step: int  # the menu's step (its custom_id)
    code: str  # the action chosen
    outcome: str  # DONE, REFUSED or UNKNOWN
    answer: str = ""  # what a refusal said (for the report)


@dataclass(frozen=True)
class GameRow:
    game_id: int
    table_id: str | None
    channel_id: int
    game: str
    completed: bool
    chips_applied: bool
    record: dict[str, Any]
    seats: tuple[int | None, ...]  # each seat's user id
    chips: tuple[int, ...]  # each seat's chips won or lost


@dataclass(frozen=True)
class TableRow:
    table_id: str
    channel_id: int
    status: str
    data: dict[str, Any]


@dataclass
class Stored:
    """What storage holds at the end of a soak, on either backend."""

    tables: dict[str, TableRow] = field(default_factory=dict)
    games: list[GameRow] = field(default_factory=list)
    ratings: dict[tuple[int, str, int], int] = field(default_factory=dict)  # scope, game, user
    chips: dict[tuple[int, int], int] = field(default_factory=dict)  # (guild, user): balance


@dataclass
class Counts:
    """The four counts the soak must keep at 0, the other findings, and why."""

    lost: int = 0
    twice: int = 0
    recorded_twice: int = 0
    stopped: int = 0
    refused_but_applied: int = 0
    games_missing: int = 0
    chips_wrong: int = 0
    results_posted_twice: int = 0
    results_never_shown: int = 0
    why: list[str] = field(default_factory=list)

    HEADLINE = ("lost", "twice", "recorded_twice", "stopped")
    OTHER = ("refused_but_applied", "games_missing", "chips_wrong", "results_posted_twice",
             "results_never_shown")

    @property
    def failed(self) -> bool:
        return any(getattr(self, name) for name in self.HEADLINE + self.OTHER)

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.HEADLINE + self.OTHER}


@dataclass(frozen=True)
class Intent:
    """The clicks on one menu's one choice."""

    user_id: int
    step: int
    code: str
    outcomes: tuple[str, ...]

    @property
    def key(self) -> tuple[int, str]:
        return self.user_id, self.code

    @property
    def done(self) -> bool:
        return DONE in self.outcomes

    @property
    def refused_only(self) -> bool:
        return all(o == REFUSED for o in self.outcomes)


def intents_of(clicks: Iterable[Click]) -> list[Intent]:
    """The clicks of one table as intents, in the order of their menus' steps."""
    grouped: dict[tuple[int, int, str], list[str]] = defaultdict(list)
    for click in clicks:  # (dict order: the first click of each intent)
        grouped[(click.step, click.user_id, click.code)].append(click.outcome)
    return [Intent(user, step, code, tuple(outcomes))
            for (step, user, code), outcomes in sorted(grouped.items(), key=lambda kv: kv[0][0])]


def players_moves(record: dict[str, Any], seats: Sequence[int | None]
                  ) -> list[tuple[int | None, str]]:
    """Every action of a record, as (the seat's user, code), in order."""
    return [(seats[seat], str(code)) for deal in record.get("deals", [])
            for seat, code in deal.get("actions", [])]


@dataclass
class Alignment:
    lost: list[Intent] = field(default_factory=list)
    unexplained: list[tuple[int | None, str]] = field(default_factory=list)
    refused_but_applied: list[Intent] = field(default_factory=list)


def align(intents: Sequence[Intent], moves: Sequence[tuple[int | None, str]]) -> Alignment:
    """The cheapest reading of ``moves`` (a record's, in order) as made by ``intents`` (in
    step order): skipping an intent answered ``done`` costs 1 (lost), a move no intent
    makes costs 1 (applied twice) unless it is a forced pass, and a move made by an intent
    whose every click was refused costs 1. An edit distance: O(intents × moves)."""
    n, m = len(intents), len(moves)
    skip_intent = [1 if i.done else 0 for i in intents]
    skip_move = [0 if code == FORCED else 1 for _, code in moves]
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + skip_move[j - 1]
    for i in range(1, n + 1):
        row, above = cost[i], cost[i - 1]
        row[0] = above[0] + skip_intent[i - 1]
        key, pay = intents[i - 1].key, (1 if intents[i - 1].refused_only else 0)
        for j in range(1, m + 1):
            best = min(above[j] + skip_intent[i - 1], row[j - 1] + skip_move[j - 1])
            if moves[j - 1] == key:
                best = min(best, above[j - 1] + pay)
            row[j] = best
    found = Alignment()
    i, j = n, m
    while i or j:  # walk back along one cheapest path
        if i and j and moves[j - 1] == intents[i - 1].key and \
                cost[i][j] == cost[i - 1][j - 1] + (1 if intents[i - 1].refused_only else 0):
            if intents[i - 1].refused_only:
                found.refused_but_applied.append(intents[i - 1])
            i, j = i - 1, j - 1
        elif i and cost[i][j] == cost[i - 1][j] + skip_intent[i - 1]:
            if intents[i - 1].done:
                found.lost.append(intents[i - 1])
            i -= 1
        else:
            if skip_move[j - 1]:
                found.unexplained.append(moves[j - 1])
            j -= 1
    return found


@dataclass(frozen=True)
class SoakTable:
    """One soak table (a channel) as the judge needs it."""

    channel_id: int
    name: str
    game: str
    stops: tuple[str, ...] = ()  # why its players could not go on, as they reported it
    unshown: tuple[str, ...] = ()  # games that ended without their result in the channel


def judge(clicks: Sequence[Click], stored: Stored, tables: Sequence[SoakTable],
          guild_id: int, starting_chips: int,
          result_posts: Mapping[str, int] | None = None) -> Counts:
    """The counts of a soak (see the module's docstring)."""
    counts = Counts()
    channels = {t.channel_id: t for t in tables}
    by_table: dict[str, list[Click]] = defaultdict(list)
    for click in clicks:
        by_table[click.table_id].append(click)
    rows_of: dict[str, list[GameRow]] = defaultdict(list)
    for game in stored.games:
        if game.channel_id in channels and game.table_id is not None:
            rows_of[game.table_id].append(game)
    ours = {tid for tid, row in stored.tables.items() if row.channel_id in channels}
    for table_id in sorted(ours | set(by_table)):
        _judge_moves(counts, table_id, by_table.get(table_id, []), rows_of.get(table_id, []),
                     stored.tables.get(table_id))
    _judge_games(counts, stored, channels, ours, rows_of, guild_id, starting_chips)
    for table_id, posts in sorted((result_posts or {}).items()):
        if posts > 1:
            counts.results_posted_twice += posts - 1
            counts.why.append(f"table {table_id}: its final result was posted {posts} times")
    for table in tables:
        counts.results_never_shown += len(table.unshown)
        counts.why += [f"#{table.name} ({table.game}): {why}" for why in table.unshown]
        active = [row for row in stored.tables.values() if row.channel_id == table.channel_id
                  and row.status in ("lobby", "playing")]
        reasons = list(table.stops) + [f"table {row.table_id} is still {row.status} at the end"
                                       for row in active]
        if reasons:
            counts.stopped += 1
            counts.why.append(f"#{table.name} ({table.game}) stopped: " + "; ".join(reasons))
    return counts


def _judge_moves(counts: Counts, table_id: str, clicks: Sequence[Click],
                 rows: Sequence[GameRow], live: TableRow | None) -> None:
    if rows:
        record, seats = rows[0].record, list(rows[0].seats)
    elif live is not None and live.data.get("game") is not None:
        record = live.data["game"]
        seats = [seat.get("user_id") for seat in live.data.get("seats", [])]
    else:
        record, seats = {"deals": []}, []
    intents = intents_of(clicks)
    found = align(intents, players_moves(record, seats))
    for intent in found.lost:
        counts.why.append(f"table {table_id}: <@{intent.user_id}>'s {intent.code} at step "
                          f"{intent.step} was answered as played but is not in the record")
    for user, code in found.unexplained:
        counts.why.append(f"table {table_id}: <@{user}>'s {code} is in the record, but no "
                          "click made it (or made it once only)")
    for intent in found.refused_but_applied:
        counts.why.append(f"table {table_id}: <@{intent.user_id}>'s {intent.code} at step "
                          f"{intent.step} is in the record, but every click on it was refused")
    doubled = [i for i in intents if i.outcomes.count(DONE) > 1]
    for intent in doubled:
        counts.why.append(f"table {table_id}: <@{intent.user_id}>'s {intent.code} at step "
                          f"{intent.step} was answered as played {intent.outcomes.count(DONE)} "
                          "times")
    counts.lost += len(found.lost)
    counts.twice += len(found.unexplained) + sum(i.outcomes.count(DONE) - 1 for i in doubled)
    counts.refused_but_applied += len(found.refused_but_applied)


def _judge_games(counts: Counts, stored: Stored, channels: Mapping[int, SoakTable],
                 ours: set[str], rows_of: Mapping[str, Sequence[GameRow]], guild_id: int,
                 starting_chips: int) -> None:
    for table_id, rows in sorted(rows_of.items()):
        if len(rows) > 1:
            counts.recorded_twice += len(rows) - 1
            counts.why.append(f"table {table_id} has {len(rows)} games recorded")
    for game in stored.games:
        if game.channel_id in channels and game.table_id not in ours:
            counts.recorded_twice += 1
            counts.why.append(f"game {game.game_id} in #{channels[game.channel_id].name} "
                              f"belongs to no table of it (table id {game.table_id!r})")
    for table_id in sorted(ours):
        if stored.tables[table_id].status == "finished" and \
                stored.tables[table_id].data.get("game") is not None and not rows_of.get(table_id):
            counts.games_missing += 1
            counts.why.append(f"table {table_id} finished, but no game of it is recorded")
    # The counts: each person's games per game and scope (their server's, and the global
    # one) against the completed games they sat at, and their chips against the chips
    # those games moved (a game of no soak table counts as a twin here).
    played: Counter[tuple[int, str, int]] = Counter()
    balance: Counter[tuple[int, int]] = Counter()
    for game in (rows[0] for rows in rows_of.values()):  # each table's game, once
        people = {user for user in game.seats if user is not None}
        if game.completed:
            for user in people:
                played[(guild_id, game.game, user)] += 1
                played[(0, game.game, user)] += 1
        if game.chips_applied:
            for seated, chips in zip(game.seats, game.chips, strict=True):
                if seated is not None:
                    balance[(guild_id, seated)] += chips
    for rating in sorted(set(played) | set(stored.ratings)):
        have, want = stored.ratings.get(rating, 0), played.get(rating, 0)
        if have > want:
            counts.recorded_twice += have - want
        elif have < want:
            counts.games_missing += want - have
        if have != want:
            counts.why.append(f"<@{rating[2]}> has {have} {rating[1]} games counted in scope "
                              f"{rating[0]}, but sat at {want}")
    for holder in sorted(set(balance) | set(stored.chips)):
        have = stored.chips.get(holder, starting_chips)
        want = starting_chips + balance.get(holder, 0)
        if have != want:
            counts.chips_wrong += 1
            counts.why.append(f"<@{holder[1]}> holds {have} chips, but their games say {want}")


def loads(value: Any) -> Any:
    """A JSON column as read from either backend (text, or already decoded)."""
    return json.loads(value) if isinstance(value, str | bytes) else value
