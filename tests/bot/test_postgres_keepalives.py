"""The server drops a connection whose client vanished within about a minute.

``postgres_pool.server_settings`` asks, at connection, for TCP keepalives (and a limit
on unacknowledged data); without them the server keeps a vanished client's session and
locks for the kernel's two hours. Read here from the server itself, on a connection
over TCP (on a Unix-domain socket these settings are ignored and read 0) made by a role
without privileges, as a production bot's is: the pool's and a dedicated one's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import asyncpg
import pytest

from bot.storage.postgres_pool import Connections
from testkit.pgcluster import run_sql

NAMES = ("tcp_keepalives_idle", "tcp_keepalives_interval", "tcp_keepalives_count",
         "tcp_user_timeout")


@pytest.fixture
def plain_url(postgres_url: str) -> Iterator[str]:
    """``postgres_url`` as a role that may log in and nothing more."""
    role = f"plain_{os.getpid()}_{id(postgres_url) % 10_000}"
    run_sql(postgres_url, f"CREATE ROLE {role} LOGIN NOSUPERUSER")
    yield postgres_url.replace("postgres@", f"{role}@", 1)
    run_sql(postgres_url, f"DROP ROLE {role}")


async def session(conn: asyncpg.Connection) -> dict[str, object]:
    rows = await conn.fetch("SELECT name, setting, source FROM pg_settings"
                            " WHERE name = ANY($1::text[])", list(NAMES))
    found: dict[str, object] = {r["name"]: (int(r["setting"]), r["source"]) for r in rows}
    found["tcp"] = await conn.fetchval("SELECT inet_client_addr() IS NOT NULL")
    found["superuser"] = await conn.fetchval(
        "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    return found


async def test_every_connection_lets_the_server_find_a_vanished_client_in_a_minute(
        plain_url: str) -> None:
    db = await Connections.open(plain_url, 5.0, 2)
    try:
        async with db.connection() as pooled:
            seen = [await session(pooled)]
        dedicated = await db.dedicated("keepalive-test")
        try:
            seen.append(await session(dedicated))
        finally:
            await dedicated.close()
    finally:
        await db.close()
    for found in seen:
        assert found["tcp"] is True and found["superuser"] is False
        settings = {name: found[name] for name in NAMES}
        # Set by the client at connection, not the server's configuration.
        assert {source for _, source in settings.values()} == {"client"}, settings
        idle, interval, count, user_timeout_ms = (settings[n][0] for n in NAMES)
        assert idle > 0 and interval > 0 and count > 0
        assert idle + interval * count <= 60, "an idle client's absence found in a minute"
        assert 0 < user_timeout_ms <= 60_000, "unacknowledged data given up in a minute"
