"""Deliberately broken bots, to show that each count of the kill soak counts.

Each entry is Python run in the bot process before ``python -m bot`` (in the soak's
launcher), patching one behaviour the soak must catch. They reach into the bot's
internals (``TableManager``, ``Presenter``), so a refactoring there may need them
changed; they are never used by the bot itself.

* ``lose``: a move is answered before it is stored (its save runs a moment later, in
  the background): a kill in between loses moves the players were told were played.
* ``twice``: a click on a menu the table has moved past (the second of a double click,
  a retry after a kill) is answered as played, as if it had been applied again.
* ``record``: every finished game is recorded a second time (without its table id, so
  that the schema's one-game-per-table index lets it in) with its counts.
* ``stop``: a restarted process does not bring the tables back: they stop.
"""

from __future__ import annotations

LOSE = """
import asyncio
import bot.table.manager as _manager
from bot.table.bus import Change as _Change

_writes = {}


async def _save_later(self, table):
    table_id, status, data, version = table.table_id, table.status, table.to_data(), table.version
    before = _writes.get(table_id)

    async def write():
        if before is not None:
            await asyncio.gather(before, return_exceptions=True)
        await asyncio.sleep(0.25)
        await self.store.save_table(table_id, status, data, version)

    _writes[table_id] = asyncio.get_running_loop().create_task(write())
    table.version = version + 1
    self._publish(table, _Change.SAVED)

_finish = _manager.TableManager.finish


async def _finish_after_the_writes(self, table, game=None):
    before = _writes.pop(table.table_id, None)
    if before is not None:
        await asyncio.gather(before, return_exceptions=True)
    return await _finish(self, table, game)

_manager.TableManager.save = _save_later
_manager.TableManager.finish = _finish_after_the_writes
"""

TWICE = """
import bot.ui.presenter as _presenter
from bot.table.state import StaleClick as _StaleClick
from bot.ui import replies as _replies

_refusal = _presenter.Presenter.refusal


async def _played_anyway(self, interaction, outcome):
    if isinstance(outcome.refusal, _StaleClick):
        await _replies.update(interaction, content="Played.", embeds=[], view=None)
        return
    await _refusal(self, interaction, outcome)

_presenter.Presenter.refusal = _played_anyway
"""

RECORD = """
import dataclasses
import bot.table.manager as _manager

_finish = _manager.TableManager.finish


async def _finish_and_record_again(self, table, game=None):
    await _finish(self, table, game)
    if game is not None:
        await self.store.record_game(dataclasses.replace(game, table_id=None))

_manager.TableManager.finish = _finish_and_record_again
"""

STOP = """
import os
import bot.table.manager as _manager

_once = os.path.join(os.environ["CARDTABLE_SOAK_FOLDER"], "started-once")
if os.path.exists(_once):
    async def _restore_nothing(self, wanted=lambda guild_id: True):
        return [], []

    _manager.TableManager.restore = _restore_nothing
else:
    open(_once, "w").close()
"""

SABOTAGES: dict[str, str] = {"lose": LOSE, "twice": TWICE, "record": RECORD, "stop": STOP}
