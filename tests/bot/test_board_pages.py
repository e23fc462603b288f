"""A leaderboard page costs a few bounded queries, however long the board.

``/chips`` used to find the board's size and the reader's rank by reading the whole
board 100 rows a query (up to 100 queries a page), and every page of ``/leaderboard``
ranked the whole board inside its query (a window over all its rows). Here a board of
300 players is paged through as the cog does (``load_chips``, ``load_board``), on both
backends, with the statements counted on the store's own connection: the pages come in
order and complete, three queries each; on SQLite the page query's work (virtual
machine steps, deterministic) does not grow with the board.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.storage import STARTING_CHIPS, PostgresStorage, SQLiteStorage, Store
from cogs.leaderboard import load_board, load_chips
from testkit.clock import FakeClock
from tests.bot.conftest import Database

GUILD, SMALL_GUILD = 1001, 1002
PLAYERS = 300
QUERIES_PER_PAGE = 3  # the board's size, the reader's line, the page


class Seeded:
    """The boards as written, in the order the bot must show them."""

    def __init__(self) -> None:
        self.chips: dict[int, list[tuple[int, int]]] = {}  # guild -> (user, balance)
        self.ratings: list[tuple[int, float, int]] = []  # GUILD's jazz: (user, ordinal, games)

    def chips_order(self, guild: int) -> list[int]:
        return [u for u, _ in sorted(self.chips[guild], key=lambda ub: (-ub[1], ub[0]))]

    def ratings_order(self) -> list[int]:
        return [u for u, _, _ in sorted(self.ratings, key=lambda r: (-r[1], -r[2], r[0]))]


async def seed(database: Database) -> Seeded:
    """300 players with chips and a jazz rating on GUILD, 30 with chips on SMALL_GUILD;
    few distinct balances and ratings, so that ties are broken as the bot breaks them."""
    rng, seeded = random.Random(26), Seeded()
    users = list(range(5000, 5000 + PLAYERS))
    rng.shuffle(users)  # user ids not in the order of anything
    await insert(database, "users (user_id, name, updated_at)",
                 [(u, f"P{u}", datetime(2026, 1, 1, tzinfo=UTC)) for u in users])
    seeded.chips[GUILD] = [(u, STARTING_CHIPS + 20 * rng.randrange(-40, 40)) for u in users]
    seeded.chips[SMALL_GUILD] = seeded.chips[GUILD][:30]
    for guild in (GUILD, SMALL_GUILD):
        await insert(database, "chips (guild_id, user_id, balance)",
                     [(guild, u, b) for u, b in seeded.chips[guild]])
    seeded.ratings = [(u, rng.randrange(-20, 20) / 2, rng.randint(1, 3)) for u in users]
    await insert(database, "ratings (scope, game, user_id, mu, sigma, ordinal, games, wins,"
                 " points, rated_games)",
                 [(GUILD, "jazz", u, o + 6, 2.0, o, g, 0, 0, g) for u, o, g in seeded.ratings])
    return seeded


async def insert(database: Database, into: str, rows: list[tuple[Any, ...]]) -> None:
    marks = ", ".join("(" + ", ".join("?" * len(rows[0])) + ")" for _ in rows)
    await database.raw(f"INSERT INTO {into} VALUES {marks}",
                       [value for row in rows for value in row])


@asynccontextmanager
async def counting(store: Store) -> AsyncIterator[list[str]]:
    """The statements ``store`` sends while the block runs (transaction control left out),
    as its own connection sees them: SQLite's trace callback, asyncpg's query logger on
    every pooled connection the store takes."""
    sent: list[str] = []
    if isinstance(store, SQLiteStorage):
        def trace(sql: str) -> None:
            if sql.split()[0].upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
                sent.append(sql)

        conn = store._conn
        await conn.set_trace_callback(trace)
        try:
            yield sent
        finally:
            await conn.set_trace_callback(None)
        return
    assert isinstance(store, PostgresStorage)
    db = store._db
    real = db.connection

    def log(record: Any) -> None:
        sent.append(record.query)

    @asynccontextmanager
    async def logged() -> AsyncIterator[Any]:
        async with real() as conn:
            conn.add_query_logger(log)
            try:
                yield conn
            finally:
                conn.remove_query_logger(log)

    db.connection = logged  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        del db.connection  # the class's method again
        await _settled()


async def _settled() -> None:
    """asyncpg calls its query loggers with call_soon: let them run."""
    await asyncio.sleep(0)


async def test_the_chips_board_pages_in_order_three_queries_a_page(database: Database) -> None:
    async with await database.open(clock=FakeClock()) as store:
        seeded = await seed(database)
        order = seeded.chips_order(GUILD)
        balances = dict(seeded.chips[GUILD])
        viewer = order[156]  # rank 157: page 16 of 30
        seen: list[int] = []
        for index in range(PLAYERS // 10):
            async with counting(store) as sent:
                board = await load_chips(store, GUILD, "here", viewer, index)
            await _settled()
            assert len(sent) == QUERIES_PER_PAGE, sent
            assert (board.page.index, board.page.total) == (index, PLAYERS)
            assert [r.rank for r in board.rows] == list(range(10 * index + 1, 10 * index + 11))
            assert all(r.balance == balances[r.user_id] and r.name == f"P{r.user_id}"
                       for r in board.rows)
            assert (board.rank, board.balance) == (157, balances[viewer])
            seen += [r.user_id for r in board.rows]
        assert seen == order  # every player once, in the board's order
        # "Me": the page the reader stands on, in the same three queries.
        async with counting(store) as sent:
            mine = await load_chips(store, GUILD, "here", viewer, None)
        await _settled()
        assert len(sent) == QUERIES_PER_PAGE
        assert mine.page.index == 15 and mine.rows[6].user_id == viewer
        # Someone who never moved chips: the starting balance, no rank, the first page.
        newcomer = await load_chips(store, GUILD, "here", 42, None)
        assert (newcomer.rank, newcomer.balance, newcomer.page.index) == (None,
                                                                          STARTING_CHIPS, 0)
        assert await store.chips(GUILD, 42) == STARTING_CHIPS
        # Each player's own line agrees with the pages.
        for rank in (1, 2, 150, 299, 300):
            row = await store.chips_rank_of(GUILD, order[rank - 1])
            assert row is not None and (row.rank, row.balance) == (rank,
                                                                   balances[order[rank - 1]])
        assert await store.chips_board_size(SMALL_GUILD) == 30
        assert ([r.user_id for r in await store.chips_leaderboard(SMALL_GUILD, 0, 100)]
                == seeded.chips_order(SMALL_GUILD))


async def test_the_ratings_board_pages_in_order_three_queries_a_page(
        database: Database) -> None:
    async with await database.open(clock=FakeClock()) as store:
        seeded = await seed(database)
        order = seeded.ratings_order()
        viewer = order[41]
        seen: list[int] = []
        for index in range(PLAYERS // 10):
            async with counting(store) as sent:
                board = await load_board(store, "jazz", "server", GUILD, "here", viewer, index)
            await _settled()
            assert len(sent) == QUERIES_PER_PAGE, sent
            assert [r.rank for r in board.rows] == list(range(10 * index + 1, 10 * index + 11))
            assert board.mine is not None and board.mine.rank == 42
            seen += [r.user_id for r in board.rows]
        assert seen == order
        full = await store.leaderboard("jazz", GUILD, 0, PLAYERS)
        for row in full[::37] + full[-1:]:
            assert await store.rank_of("jazz", GUILD, row.user_id) == row
        [stats] = await store.stats(order[-1], GUILD)
        assert (stats.rank, stats.ranked_players) == (PLAYERS, PLAYERS)


async def vm_steps(store: SQLiteStorage, read: Callable[[], Any]) -> int:
    """How many SQLite virtual machine instructions ``read`` costs (deterministic)."""
    steps = 0

    def tick() -> int:
        nonlocal steps
        steps += 1
        return 0  # go on

    await store._conn.set_progress_handler(tick, 1)
    try:
        await read()
    finally:
        await store._conn.set_progress_handler(None, 1)  # type: ignore[arg-type]
    return steps


async def test_a_first_page_costs_the_same_on_a_board_ten_times_longer(db_path: Any) -> None:
    database = Database("sqlite", path=db_path)
    async with await database.open(clock=FakeClock()) as store:
        assert isinstance(store, SQLiteStorage)
        await seed(database)
        big = await vm_steps(store, lambda: store.chips_leaderboard(GUILD, 0, 10))
        small = await vm_steps(store, lambda: store.chips_leaderboard(SMALL_GUILD, 0, 10))
        # A window over the whole board made the first page of 300 players cost about ten
        # times the first page of 30; read along the index they cost the same.
        assert big <= small * 1.1, (big, small)


@pytest.mark.parametrize("query", ["chips", "ratings"])
async def test_pages_are_read_along_the_boards_index(db_path: Any, query: str) -> None:
    database = Database("sqlite", path=db_path)
    async with await database.open(clock=FakeClock()) as store:
        assert isinstance(store, SQLiteStorage)
        await seed(database)
        async with counting(store) as sent:
            if query == "chips":
                await store.chips_leaderboard(GUILD, 100, 10)
            else:
                await store.leaderboard("jazz", GUILD, 100, 10)
        [page] = sent
        plan = " / ".join(row[3] for row in await store._conn.execute_fetchall(
            f"EXPLAIN QUERY PLAN {page}"))
        index = "chips_board" if query == "chips" else "ratings_board"
        assert f"INDEX {index}" in plan and "TEMP B-TREE" not in plan, plan
