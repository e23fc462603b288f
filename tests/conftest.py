from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from testkit.fakediscord import FakeDiscord
from tests.pgserver import PostgresServer, PostgresUnavailable

# -- slow tests first --------------------------------------------------------------------

# Slow tests in files whose owners have not marked them yet (``@pytest.mark.slow`` in the
# file itself is the usual way): node ids without parameters.
SLOW_ELSEWHERE = frozenset({
    "tests/bot/test_images_games.py::test_every_state_draws_inside_its_canvas",
    "tests/bot/test_render.py::test_fit_embed_always_meets_every_limit",
    "tests/bot/test_storage_postgres.py::test_a_server_runs_unprivileged_and_leaves_nothing_behind",
    "tests/bot/test_storage_postgres.py::"
    "test_two_processes_finishing_games_at_once_conserve_chips_and_rate_once",
    "tests/e2e/test_bus.py::test_every_saved_version_of_a_whole_game_is_announced_once_in_order",
})


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``SLOW_ELSEWHERE``, then run every slow test before the quick ones.

    Under xdist (``-n auto --maxschedchunk 1`` in pyproject.toml) each worker takes the
    next test as soon as it is free, so the long ones start first, spread over the
    workers, and the many short ones fill in at the end: the workers finish together.
    The sort is stable, so the quick tests keep their order, and every worker collects
    the same order (xdist requires it)."""
    for item in items:
        if item.nodeid.split("[")[0] in SLOW_ELSEWHERE:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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
