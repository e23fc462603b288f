"""A table as plain data and back: the versioned snapshot storage keeps, and copies.

Every plain field of ``Table`` is saved as it is (so a new field cannot be
forgotten); the others have a form of their own. Two fields keep the names they
were first stored under (``_STORED_AS``), so snapshots written by this version and
by the one before it are read by both: shard processes may be upgraded one at a
time over one database.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any, Self, cast

from bot.table.errors import TableError
from bot.table.posts import Posts
from bot.table.seats import Seat
from engine.core import Game
from engine.records import restore as restore_game
from engine.text import Text

# Fields that are not saved as they are: the engine and version come from the storage
# row, the posts are saved apart; the rest have a plain-data form of their own.
_OWN_FORM = frozenset({"engine", "version", "posts", "rng", "game", "seats", "options",
                       "lines"})
# A field's name in the stored snapshot, where it differs from the field's.
_STORED_AS = {"lines": "events", "hands_mode": "hands"}


class Snapshots:
    """``Table``'s plain-data form and copies (``Table`` is a dataclass of these fields)."""

    engine: type[Game]
    rng: random.Random
    seats: list[Seat]
    options: Any
    game: Game | None
    lines: list[Text]
    posts: Posts

    def to_data(self) -> dict[str, Any]:
        """The versioned snapshot (storage's ``data``); the posts are saved on their own."""
        version, internal, gauss = self.rng.getstate()
        data = {_STORED_AS.get(f.name, f.name): copy.deepcopy(getattr(self, f.name))
                for f in _fields(self) if f.name not in _OWN_FORM}
        data.update(options=self.options.to_dict(),
                    seats=[dataclasses.asdict(s) for s in self.seats],
                    rng=[version, list(internal), gauss],
                    game=self.game.to_data() if self.game is not None else None)
        data[_STORED_AS["lines"]] = [_as_text(line).to_data() for line in self.lines]
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any], engine: type[Game], version: int,
                  posts: dict[str, Any] | None = None) -> Self:
        """The table ``to_data`` saved; the game is replayed from its record.

        A snapshot from before posts had their own column (``posts`` None) still holds
        them in its own fields: they are read from there."""
        rng = _blank_rng()
        rng_version, internal, gauss = data["rng"]
        rng.setstate((rng_version, tuple(internal), gauss))
        stored = {_STORED_AS.get(f.name, f.name): f.name for f in _fields(cls)
                  if f.name not in _OWN_FORM}
        seat_fields = {f.name for f in dataclasses.fields(Seat)}
        table = cast(Any, cls)(
            engine=engine, version=version, rng=rng,
            # Unbounded: a lobby saved before the options had bounds still loads.
            options=engine.OPTIONS.from_dict(data["options"], bounded=False),
            seats=[Seat(**{k: v for k, v in s.items() if k in seat_fields})
                   for s in data["seats"]],
            posts=(Posts.from_data(posts) if posts is not None
                   else Posts.from_legacy_snapshot(data)),
            # Texts as dicts; an older snapshot's plain English lines are kept as is
            lines=[Text.from_data(e) for e in data.get(_STORED_AS["lines"]) or ()],
            **{stored[k]: v for k, v in data.items() if k in stored})
        if data.get("game") is not None:
            game = restore_game(data["game"])
            if not isinstance(game, engine):
                raise TableError(  # not for players: the restore log says it
                    f"The saved game is {game.TITLE}, not {engine.TITLE}.")
            # The record ends at the last action: the forced steps saved after it too.
            for _ in range(int(data.get("auto_steps") or 0)):
                if not game.has_auto_step:
                    break
                game.auto_step_quietly()
            table.game = game
        return cast(Self, table)

    def clone(self) -> Self:
        """An independent copy of the state (not the posts), kept to roll a failed step
        back."""
        rng = _blank_rng()
        rng.setstate(self.rng.getstate())
        return cast(Self, dataclasses.replace(
            cast(Any, self), seats=[dataclasses.replace(s) for s in self.seats], rng=rng,
            game=self.game.clone() if self.game is not None else None,
            lines=list(self.lines)))

    def restore(self, kept: Self) -> None:
        """Go back to the state ``kept`` (a ``clone``) holds; the posts stay as they are."""
        for f in _fields(self):
            if f.name != "posts":
                setattr(self, f.name, getattr(kept, f.name))


def _blank_rng() -> random.Random:
    """A generator whose state is set next: seeded with a constant, since ``Random()``
    reads the system's entropy (a system call) for a state thrown away at once."""
    return random.Random(0)


def _fields(table: object) -> tuple[dataclasses.Field[Any], ...]:
    return dataclasses.fields(cast(Any, table))


def _as_text(line: str) -> Text:
    return line if isinstance(line, Text) else Text.from_data(line)
