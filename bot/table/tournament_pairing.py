"""Who plays whom in a tournament round: table sizes, Swiss tables, knockout brackets.

Pure functions of plain data (user ids, counts), tested on their own
(``tests/bot/test_tournament_pairing.py``).

**Table sizes.** A round seats everyone it can at tables of the game's size, as near the
size the organiser chose (``preferred``) as the player count allows: ``table_sizes``
splits N players into tables whose sizes differ by at most one (9 Jazz players at 3 a
table: 3 × 3; 10: 4 + 3 + 3). A duplicate round needs every table the same size (the
same deals are dealt to each): it takes the size that leaves the fewest players out,
then the nearest the preferred one. Players who cannot be seated get a **bye**.

**Swiss.** Players are ordered by standing (best first). ``swiss_tables`` seats the best
player left at the next table with the next best who have not met them, searching the
partitions in that order (a depth-first search with a bound on the meetings repeated, and
a budget of nodes): the first partition found without a repeat is the one closest to the
standings; if every partition repeats a meeting, the fewest repeats within the budget.
The first round spreads the seeds instead (``first_round``: table t gets seeds t, t + T,
t + 2T, ..., the Swiss system's top half against bottom half for two-player games).

**Knockout.** Seeds by rating; the bracket is the standard one (``bracket_order``: seed 1
meets seed 2 in the final at the earliest), of the next power of two; the missing seeds
are byes, so the top seeds get them.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence

Pair = frozenset[int]
SEARCH_BUDGET = 20_000  # partitions' nodes a Swiss pairing may visit


class PairingError(ValueError):
    """Too few players for a table of the game."""


def _split(n: int, low: int, high: int, preferred: int) -> list[int] | None:
    """``n`` players at tables of ``low``..``high`` whose sizes differ by at most one,
    nearest to ``preferred`` seats a table (None: impossible)."""
    best: tuple[int, list[int]] | None = None
    for count in range(1, n // max(low, 1) + 1):
        base, extra = divmod(n, count)
        if base < low or base + (1 if extra else 0) > high:
            continue
        sizes = [base + 1] * extra + [base] * (count - extra)
        cost = sum(abs(size - preferred) for size in sizes)
        if best is None or cost < best[0]:
            best = cost, sizes
    return best[1] if best is not None else None


def table_sizes(n: int, low: int, high: int, preferred: int, equal: bool = False
                ) -> tuple[list[int], int]:
    """The sizes of a round's tables (largest first) and how many players get a bye.
    ``equal``: every table the same size (duplicate). ``PairingError`` if fewer than
    ``low`` players."""
    if n < low:
        raise PairingError(f"{n} players cannot fill a table of {low}")  # not for players
    preferred = min(max(preferred, low), high)
    if equal:
        # Fewest byes, then the size nearest the preferred one, then the larger size.
        size = min(range(low, high + 1), key=lambda s: (n % s if n >= s else n,
                                                         abs(s - preferred), -s))
        return [size] * (n // size), n % size
    for byes in range(n - low + 1):
        sizes = _split(n - byes, low, high, preferred)
        if sizes is not None:
            return sizes, byes
    raise PairingError(f"{n} players cannot be seated")  # not for players (unreachable)


def choose_byes(order: Sequence[int], count: int, had_bye: Iterable[int] = ()) -> list[int]:
    """The ``count`` players who sit the round out: the lowest in ``order`` (standing, best
    first) who have not had a bye yet; then the lowest of those who have."""
    had = set(had_bye)
    fresh = [p for p in reversed(order) if p not in had]
    again = [p for p in reversed(order) if p in had]
    return (fresh + again)[:count]


def first_round(order: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    """The first round's tables: the seeds (``order``, best first) spread over the tables,
    table t taking seeds t, t + T, t + 2T, ... (a shorter table ends earlier)."""
    tables: list[list[int]] = [[] for _ in sizes]
    players = iter(order)
    for row in range(max(sizes, default=0)):
        for t, size in enumerate(sizes):
            if row < size:
                tables[t].append(next(players))
    return tables


def repeats(tables: Iterable[Sequence[int]], met: Counter[Pair]) -> int:
    """How many earlier meetings the tables repeat (each pair counted per time it met)."""
    return sum(met[frozenset(pair)] for table in tables
               for pair in itertools.combinations(table, 2))


def swiss_tables(order: Sequence[int], sizes: Sequence[int], met: Counter[Pair],
                 budget: int = SEARCH_BUDGET) -> list[list[int]]:
    """Tables of ``sizes`` (a multiset) for the players of ``order`` (best first): the best
    player left at the next table with the best of the rest, repeating as few earlier
    meetings (``met``) as a search of ``budget`` nodes finds, and among the partitions that
    repeat as few, the first in the order of the standings."""
    if sum(sizes) != len(order):
        raise ValueError("the tables do not seat every player")
    best_tables: list[list[int]] = []
    best_cost = -1  # the repeats of the best partition found (-1: none found yet)
    nodes = 0

    def cost_with(table: Sequence[int]) -> int:
        return sum(met[frozenset(pair)] for pair in itertools.combinations(table, 2))

    def search(left: list[int], sizes_left: Counter[int], tables: list[list[int]],
               cost: int) -> bool:
        """True once a partition without a repeat is found (nothing can beat it)."""
        nonlocal nodes, best_tables, best_cost
        nodes += 1
        if best_cost >= 0 and (cost >= best_cost or nodes > budget):
            return False
        if not left:
            best_tables, best_cost = [list(t) for t in tables], cost
            return cost == 0
        anchor, rest = left[0], left[1:]
        for size in sorted((s for s, k in sizes_left.items() if k > 0), reverse=True):
            sizes_left[size] -= 1
            for others in itertools.combinations(range(len(rest)), size - 1):
                chosen = set(others)
                table = [anchor, *(rest[i] for i in others)]
                tables.append(table)
                done = search([p for i, p in enumerate(rest) if i not in chosen],
                              sizes_left, tables, cost + cost_with(table))
                tables.pop()
                if done:
                    sizes_left[size] += 1
                    return True
                if best_cost >= 0 and nodes > budget:
                    break
            sizes_left[size] += 1
        return False

    search(list(order), Counter(sizes), [], 0)
    return best_tables


def bracket_order(size: int) -> list[int]:
    """The seeds (from 1) in bracket order for a bracket of ``size`` (a power of two):
    consecutive pairs meet in the first round, and seeds 1 and 2 only in the final."""
    order = [1]
    while len(order) < size:
        total = len(order) * 2 + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def bracket(seeded: Sequence[int]) -> list[int | None]:
    """The first round's slots of a knockout for ``seeded`` (players, best seed first):
    the bracket of the next power of two, None where a seed is missing (a bye for the
    player it meets: the top seeds)."""
    if not seeded:
        return []
    size = 1
    while size < len(seeded):
        size *= 2
    return [seeded[seed - 1] if seed <= len(seeded) else None for seed in bracket_order(size)]


def matches(slots: Sequence[int | None]) -> tuple[list[list[int]], list[int]]:
    """A knockout round's tables (pairs of ``slots`` in order) and the players who go
    through without playing (their opponent's slot is empty)."""
    tables: list[list[int]] = []
    byes: list[int] = []
    for i in range(0, len(slots) - 1, 2):
        a, b = slots[i], slots[i + 1]
        if a is not None and b is not None:
            tables.append([a, b])
        elif a is not None:
            byes.append(a)
        elif b is not None:
            byes.append(b)
    return tables, byes
