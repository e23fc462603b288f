"""The background tasks of the tables: one driver per table, and the odd one-off task.

Kept apart so that ending a table can cancel its driver without knowing what a
driver does, and so that shutdown and tests can wait until everything is done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class TableTasks:
    def __init__(self) -> None:
        self.drivers: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._services: set[asyncio.Task[Any]] = set()  # run until shutdown; never busy

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> None:
        task = asyncio.create_task(coro, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def serve(self, coro: Coroutine[Any, Any, Any], name: str) -> None:
        """A task that runs until shutdown (a loop that wakes now and then): it does not
        make the bot busy while it waits."""
        task = asyncio.create_task(coro, name=name)
        self._services.add(task)
        task.add_done_callback(self._services.discard)

    def has_driver(self, table_id: str) -> bool:
        return table_id in self.drivers

    def start_driver(self, table_id: str, coro: Coroutine[Any, Any, None]) -> None:
        self.drivers[table_id] = asyncio.create_task(coro, name=f"drive-{table_id}")

    def driver_done(self, table_id: str) -> None:
        """Called by a driver that stops: forget it if it is still the table's driver."""
        if self.drivers.get(table_id) is asyncio.current_task():
            del self.drivers[table_id]

    def cancel_driver(self, table_id: str) -> None:
        driver = self.drivers.get(table_id)
        if driver is not None and driver is not asyncio.current_task():
            del self.drivers[table_id]  # a running driver removes itself when done
            driver.cancel()

    def busy(self) -> bool:
        return (any(not t.done() for t in self.drivers.values())
                or any(not t.done() for t in self._background))

    def cancel_all(self) -> list[asyncio.Task[Any]]:
        """Cancel every task now (no await: see ``Croupier.close``); returns them."""
        tasks = list(self.drivers.values()) + list(self._background) + list(self._services)
        for task in tasks:
            task.cancel()
        return tasks

    async def close(self) -> None:
        await asyncio.gather(*self.cancel_all(), return_exceptions=True)
