from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from testkit.fakediscord import FakeDiscord
from tests.pgserver import PostgresServer, PostgresUnavailable


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A fresh fake Discord; fails the test at teardown if it recorded violations."""
    async with FakeDiscord() as fake:
        yield fake
    fake.assert_no_violations()


# -- a real PostgreSQL (tests/pgserver.py) ------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One throw-away PostgreSQL cluster for the whole run, started when first asked for.

    No PostgreSQL binaries is a failure, never a skip: CI installs them (.ci/run)."""
    server = PostgresServer()
    try:
        server.start()
    except PostgresUnavailable as error:
        pytest.fail(f"A PostgreSQL server is needed for this test: {error}", pytrace=False)
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The DSN of a fresh, empty database of ``postgres_server`` (dropped after the test)."""
    url = postgres_server.create_database()
    yield url
    postgres_server.drop_database(url)
