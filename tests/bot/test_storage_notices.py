"""Table notices: every version a store writes is announced, in the write's transaction.

On PostgreSQL, ``create_table``, ``save_table``, ``close_table`` and ``finish_table`` send
a ``TableChange`` (``"opened"``, ``"saved"``, ``"closed"``, ``"closed"``) with ``pg_notify``
in the transaction of the write, ``announce`` sends ``"answered"``; ``listen`` picks kinds
and whether a store hears its own. Several stores on one database stand for several processes.

No test here waits for a notice to *not* come: a listener hears notices in the order
their transactions committed, so once it heard a marker sent after something, it would
have heard that something already (a refused write, a transaction still open).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest

from bot.storage import (
    CHANGE_KINDS,
    ChannelBusy,
    FinishedGame,
    PostgresStorage,
    SQLiteStorage,
    TableChange,
    TableExists,
    TableRow,
    VersionConflict,
)
from bot.storage.postgres_notices import CHANNEL, NOTICE_LIMIT, change_of, change_payload
from tests.bot.test_storage import finished

GUILD = 1111
GUARD_S = 10.0
"""How long a test waits for a notice before it fails: only a guard, never a wait."""


class Heard:
    """A listener's callback: the changes it heard, and a wait for one of them."""

    def __init__(self) -> None:
        self.changes: list[TableChange] = []
        self._news = asyncio.Event()

    def __call__(self, change: TableChange) -> None:
        self.changes.append(change)
        self._news.set()

    async def until(self, done: Callable[[TableChange], bool]) -> list[TableChange]:
        """Every change heard, once one of them is ``done``."""
        async with asyncio.timeout(GUARD_S):
            while not any(done(change) for change in self.changes):
                self._news.clear()  # (no await since the check: nothing came in between)
                await self._news.wait()
        return self.changes


def is_(kind: str, table_id: str) -> Callable[[TableChange], bool]:
    return lambda change: change.kind == kind and change.table_id == table_id


def row(table_id: str, channel_id: int, status: str = "lobby") -> TableRow:
    return TableRow(table_id, GUILD, channel_id, "jazz", status, data={"step": 0})


@pytest.fixture
async def stores(postgres_url: str) -> AsyncIterator[tuple[PostgresStorage, ...]]:
    """Three processes' stores on one database."""
    async with (await PostgresStorage.open(postgres_url) as a,
                await PostgresStorage.open(postgres_url) as b,
                await PostgresStorage.open(postgres_url) as c):
        yield a, b, c


async def follow(store: PostgresStorage) -> Heard:
    """Every change of every other store, from now on."""
    heard = Heard()
    await store.listen(heard, kinds=CHANGE_KINDS)
    return heard


# ================================================================ the payload


def test_every_kind_survives_its_payload_which_stays_small() -> None:
    changes = [TableChange("t-1", 0, "a1b2c3d4e5f60718", kind="opened", status="lobby"),
               TableChange("t-1", 7, "a1b2c3d4e5f60718", kind="saved", status="playing"),
               TableChange("t-1", 8, "a1b2c3d4e5f60718", kind="closed", status="finished"),
               TableChange("t-1", 9, "origin", seat=2, collapsed=901),
               TableChange("t", 1)]
    for change in changes:
        payload = change_payload(change)
        assert change_of(payload) == change
        assert len(payload) < 150  # a notice holds 8000 bytes
    assert json.loads(change_payload(changes[1])) == {
        "table_id": "t-1", "version": 7, "origin": "a1b2c3d4e5f60718", "kind": "saved",
        "status": "playing"}  # what is not set is left out
    assert changes[3].kind == "answered"  # announce's callers name no kind


def test_a_notice_without_a_kind_is_an_answer_and_unknown_fields_are_left_out() -> None:
    older = '{"table_id":"t","version":3,"origin":"o","seat":1,"collapsed":null}'
    assert change_of(older) == TableChange("t", 3, "o", seat=1, kind="answered")
    newer = '{"table_id":"t","version":3,"kind":"saved","status":"lobby","shard":4}'
    assert change_of(newer) == TableChange("t", 3, kind="saved", status="lobby")


@pytest.mark.parametrize("payload", [
    "[]", "{}", "not json", '"saved"',
    '{"table_id": "t", "version": "1"}',
    '{"table_id": "t", "version": true}',
    '{"table_id": "t", "version": 1, "seat": true}',
    '{"table_id": 5, "version": 1}',
    '{"table_id": "t", "version": 1, "kind": "exploded"}',
    '{"table_id": "t", "version": 1, "kind": 1}',
    '{"table_id": "t", "version": 1, "kind": null}',
    '{"table_id": "t", "version": 1, "kind": ["saved"]}',
    '{"table_id": "t", "version": 1, "kind": "saved", "status": "gone"}',
    '{"table_id": "t", "version": 1, "kind": "saved", "status": 2}',
    '{"table_id": "t", "version": 1, "origin": 7}',
])
def test_a_malformed_payload_is_refused(payload: str) -> None:
    with pytest.raises(ValueError):
        change_of(payload)


def test_a_change_that_would_not_fit_a_notice_is_refused() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        change_payload(TableChange("t" * NOTICE_LIMIT, 1, kind="saved"))
    with pytest.raises(ValueError):
        TableChange("t", 1, kind="exploded")


async def test_sqlite_announces_nothing_but_checks_what_a_listener_asks_for(
        sqlite_store: SQLiteStorage) -> None:
    heard = Heard()
    await sqlite_store.listen(heard)
    await sqlite_store.listen(heard, own=True, kinds=CHANGE_KINDS)
    for kinds in (["saved", "exploded"], "saved"):
        with pytest.raises(ValueError):
            await sqlite_store.listen(heard, kinds=kinds)
    await sqlite_store.create_table(row("t1", 51))
    await sqlite_store.announce(TableChange("t1", 0))
    assert heard.changes == []


# ================================================================ every version, once, in order


async def test_a_listener_hears_every_version_of_a_table_once_in_order(
        stores: tuple[PostgresStorage, ...]) -> None:
    a, b, _ = stores
    heard = await follow(b)
    created = await a.create_table(row("t1", 51))
    statuses = ["lobby", "playing", "playing", "playing", "finished"]
    version = created.version
    for number, status in enumerate(statuses, start=1):
        version = await a.save_table("t1", status, {"step": number}, version)
        await a.save_posts("t1", {"message": number})  # no version, no notice
    closed = await a.close_table("t1", "stopped")
    assert closed == len(statuses) + 1
    changes = await heard.until(is_("closed", "t1"))
    assert changes == [
        TableChange("t1", 0, a.origin, kind="opened", status="lobby"),
        *(TableChange("t1", v, a.origin, kind="saved", status=s)
          for v, s in enumerate(statuses, start=1)),
        TableChange("t1", closed, a.origin, kind="closed", status="stopped")]


async def test_a_finished_table_is_heard_as_one_closed_version_after_its_saves(
        stores: tuple[PostgresStorage, ...]) -> None:
    """``finish_table`` writes the final snapshot, the closing and the game as ONE version
    (where a save then a close wrote two): announced once, as "closed", in order."""
    a, b, _ = stores
    heard = await follow(b)
    await a.create_table(row("t1", 51))
    version = await a.save_table("t1", "playing", {"step": 1}, 0)
    version = await a.save_table("t1", "playing", {"step": 2}, version)
    ended = await a.finish_table("t1", "finished", {"step": 3}, version, the_game("t1"))
    await a.create_table(row("t2", 52))
    stopped = await a.finish_table("t2", "stopped", {}, 0)  # a lobby: no game
    assert (ended, stopped) == (3, 1)
    changes = await heard.until(is_("closed", "t2"))
    assert [(c.table_id, c.version, c.kind, c.status) for c in changes] == [
        ("t1", 0, "opened", "lobby"), ("t1", 1, "saved", "playing"),
        ("t1", 2, "saved", "playing"), ("t1", 3, "closed", "finished"),
        ("t2", 0, "opened", "lobby"), ("t2", 1, "closed", "stopped")]
    with pytest.raises(VersionConflict):  # a second end of the same version: no notice
        await a.finish_table("t1", "finished", {"step": 3}, version, the_game("t1"))
    await a.announce(TableChange("marker", 1))
    assert [c.kind for c in await heard.until(is_("answered", "marker"))][-2:] == [
        "closed", "answered"]
    assert len(await a.history(None)) == 1


async def test_two_processes_saving_one_table_are_heard_in_version_order(
        stores: tuple[PostgresStorage, ...]) -> None:
    """Saves racing from two processes: each version is written by one of them, and a
    third hears each version once, in order, from the process that wrote it."""
    a, b, c = stores
    heard = await follow(c)
    await a.create_table(row("t1", 51, "playing"))
    writers: dict[int, str] = {0: a.origin}

    async def save(store: PostgresStorage, times: int) -> None:
        saved = 0
        while saved < times:
            loaded = await store.load_table("t1")
            assert isinstance(loaded, TableRow)
            try:
                version = await store.save_table("t1", "playing", {"by": store.origin},
                                                 loaded.version)
            except VersionConflict:
                continue  # the other one was first: read again
            writers[version] = store.origin
            saved += 1

    await asyncio.gather(save(a, 25), save(b, 25))
    last = await b.close_table("t1", "finished")
    assert last == 51
    changes = await heard.until(is_("closed", "t1"))
    assert [change.version for change in changes] == list(range(52))
    assert [change.origin for change in changes[:-1]] == [writers[v] for v in range(51)]
    assert [change.kind for change in changes] == ["opened"] + ["saved"] * 50 + ["closed"]
    assert {a.origin, b.origin} == set(writers.values())


async def test_a_refused_write_sends_nothing(stores: tuple[PostgresStorage, ...]) -> None:
    a, b, _ = stores
    heard = await follow(b)
    await a.create_table(row("t1", 51))
    with pytest.raises(VersionConflict):
        await a.save_table("t1", "playing", {}, 3)  # not its version
    with pytest.raises(VersionConflict):
        await a.save_table("nowhere", "playing", {}, 0)
    with pytest.raises(TableExists):
        await a.create_table(row("t1", 52))
    with pytest.raises(ChannelBusy):
        await a.create_table(row("t2", 51))  # the channel has an active table
    await a.create_table(row("t3", 51, "finished"))
    with pytest.raises(ChannelBusy):
        await a.save_table("t3", "lobby", {}, 0)  # active again, beside t1
    assert await a.close_table("nowhere", "stopped") is None
    await a.close_table("t1", "stopped")  # the marker: everything before it was heard
    changes = await heard.until(is_("closed", "t1"))
    assert [(c.kind, c.table_id, c.version, c.status) for c in changes] == [
        ("opened", "t1", 0, "lobby"), ("opened", "t3", 0, "finished"),
        ("closed", "t1", 1, "stopped")]


# ================================================================ at commit, and only then

GATE_KEY = 4242  # an advisory lock key (the tables' keys are 64-bit hashes)

GATE = f"""
    CREATE TABLE gate (refuse BOOLEAN NOT NULL);
    INSERT INTO gate VALUES (FALSE);
    CREATE FUNCTION gate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF (SELECT refuse FROM gate) THEN
            RAISE EXCEPTION 'the gate refuses this write';
        END IF;
        PERFORM pg_advisory_xact_lock_shared({GATE_KEY});  -- waits while a test holds it
        RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER gate AFTER INSERT OR UPDATE ON live_tables
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION gate();
"""
"""A trigger that runs as a write's transaction commits, after all its statements
(pg_notify included) but before PostgreSQL queues its notices: it refuses the write
(a rollback at commit) when ``gate.refuse`` is set, and holds the commit while the test
holds the advisory lock ``GATE_KEY``."""


@pytest.fixture
async def gate(postgres_url: str) -> AsyncIterator[asyncpg.Connection]:
    """The test's own connection, on a database with the gate."""
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute(GATE)
        yield conn
    finally:
        await conn.close()


def the_game(table_id: str) -> FinishedGame:
    return dataclasses.replace(finished([(7, 10), (8, 3)], guild=GUILD), table_id=table_id)


WRITES: dict[str, tuple[str, Callable[[PostgresStorage], Awaitable[object]]]] = {
    "create": ("opened", lambda store: store.create_table(row("t2", 52))),
    "save": ("saved", lambda store: store.save_table("t1", "playing", {"step": 1}, 0)),
    "close": ("closed", lambda store: store.close_table("t1", "finished")),
    "finish": ("closed", lambda store: store.finish_table("t1", "finished", {"step": 9}, 0,
                                                          the_game("t1"))),
}
"""Every write of a version: the kind of its notice, and the write."""


@pytest.mark.parametrize("write", WRITES)
async def test_a_write_rolled_back_at_its_commit_sends_nothing(
        stores: tuple[PostgresStorage, ...], gate: asyncpg.Connection, write: str) -> None:
    a, b, c = stores
    heard = await follow(c)
    await a.create_table(row("t1", 51))
    await gate.execute("UPDATE gate SET refuse = TRUE")
    with pytest.raises(asyncpg.RaiseError, match="the gate refuses"):
        await WRITES[write][1](a)
    await b.announce(TableChange("marker", 1))
    changes = await heard.until(is_("answered", "marker"))
    assert [(change.kind, change.table_id) for change in changes] == [
        ("opened", "t1"), ("answered", "marker")]
    loaded = await a.load_table("t1")
    assert isinstance(loaded, TableRow) and (loaded.version, loaded.status) == (0, "lobby")
    assert await a.load_table("t2") is None
    assert await a.history(None) == []  # a finish's game went with its table's row


@pytest.mark.parametrize("write", WRITES)
async def test_a_notice_is_sent_when_its_write_commits_not_before(
        stores: tuple[PostgresStorage, ...], gate: asyncpg.Connection,
        postgres_url: str, write: str) -> None:
    """The write has run, pg_notify too, and its transaction waits to commit: another
    process's notice sent meanwhile is heard, the write's only once it commits."""
    _, b, c = stores
    heard = await follow(c)
    async with await PostgresStorage.open(postgres_url,
                                          busy_timeout_ms=60_000) as a:  # patient at the gate
        await a.create_table(row("t1", 51))
        await gate.execute("SELECT pg_advisory_lock($1)", GATE_KEY)
        kind = WRITES[write][0]
        writing = asyncio.ensure_future(WRITES[write][1](a))
        async with asyncio.timeout(GUARD_S):  # until it waits at the gate, committing
            while not await gate.fetchval(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                    " AND objid = $1 AND NOT granted", GATE_KEY):
                assert not writing.done(), writing
                await asyncio.sleep(0.01)
        await b.announce(TableChange("marker", 1))
        await heard.until(is_("answered", "marker"))
        assert [(ch.kind, ch.table_id) for ch in heard.changes] == [
            ("opened", "t1"), ("answered", "marker")]  # not the write's: not committed yet
        assert await b.history(None) == []  # nor a finish's game
        await gate.execute("SELECT pg_advisory_unlock($1)", GATE_KEY)
        await writing
        target = "t2" if kind == "opened" else "t1"
        changes = await heard.until(is_(kind, target))
    assert [(ch.kind, ch.table_id) for ch in changes] == [
        ("opened", "t1"), ("answered", "marker"), (kind, target)]


# ================================================================ who hears what


async def test_own_notices_are_heard_only_when_asked_for(
        stores: tuple[PostgresStorage, ...]) -> None:
    a, b, _ = stores
    a_others, a_every, a_default, a_own_answers = Heard(), Heard(), Heard(), Heard()
    await a.listen(a_others, kinds=CHANGE_KINDS)
    await a.listen(a_every, own=True, kinds=CHANGE_KINDS)
    await a.listen(a_default)
    await a.listen(a_own_answers, own=True)
    b_default, b_every = Heard(), Heard()
    await b.listen(b_default)
    await b.listen(b_every, kinds=CHANGE_KINDS)

    await a.create_table(row("t1", 51))
    await a.save_table("t1", "playing", {}, 0)
    await a.announce(TableChange("t1", 1, seat=2, collapsed=901))
    await b.announce(TableChange("t9", 4))  # the last notice
    mine = [TableChange("t1", 0, a.origin, kind="opened", status="lobby"),
            TableChange("t1", 1, a.origin, kind="saved", status="playing"),
            TableChange("t1", 1, a.origin, seat=2, collapsed=901)]
    theirs = TableChange("t9", 4, b.origin)
    assert await a_every.until(is_("answered", "t9")) == [*mine, theirs]
    assert a_others.changes == a_default.changes == [theirs]
    assert a_own_answers.changes == [mine[2], theirs]
    assert await b_every.until(lambda change: change == mine[2]) == mine
    assert b_default.changes == [mine[2]]  # by default, answers alone (as before)


async def test_listening_for_unknown_kinds_is_refused(
        stores: tuple[PostgresStorage, ...]) -> None:
    a, b, _ = stores
    heard = Heard()
    for kinds in (["saved", "exploded"], "saved"):
        with pytest.raises(ValueError):
            await a.listen(heard, kinds=kinds)
    await a.listen(heard, kinds=["closed"])
    await b.create_table(row("t1", 51))
    await b.close_table("t1", "stopped")
    assert await heard.until(is_("closed", "t1")) == [
        TableChange("t1", 1, b.origin, kind="closed", status="stopped")]


async def test_a_notice_of_an_unknown_kind_is_ignored_with_a_warning(
        stores: tuple[PostgresStorage, ...], postgres_url: str,
        caplog: pytest.LogCaptureFixture) -> None:
    a, b, _ = stores
    heard = await follow(a)
    saved = TableChange("t1", 1, b.origin, kind="saved", status="playing")
    payload = change_payload(saved).replace('"saved"', '"exploded"')
    conn = await asyncpg.connect(postgres_url)
    try:
        with caplog.at_level(logging.WARNING, logger="bot.storage.postgres_notices"):
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, payload)
            await b.announce(TableChange("t1", 2))
            assert await heard.until(is_("answered", "t1")) == [TableChange("t1", 2, b.origin)]
    finally:
        await conn.close()
    assert any("malformed table notice" in r.getMessage() and "exploded" in r.getMessage()
               for r in caplog.records)
