from collections.abc import AsyncIterator

import pytest_asyncio

from tests.fakediscord import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A fresh fake Discord; fails the test at teardown if it recorded violations."""
    async with FakeDiscord() as fake:
        yield fake
    fake.assert_no_violations()
