"""Every game, declared once: ``GameSpec`` (id, engine, AI, players, options, its cog).

This is the one file that names the games. Everything else — the bot's cogs,
``engine replay``, the terminal table, the benchmarks, the AI — takes the list
from here, so a fifth game is its engine module, its AI module, its cog and one
``GameSpec`` below. Modules are named as ``"module:Class"`` text and imported on
first use, so a tool only loads the game it needs and a missing module only
means that game is not available. Tests may ``register`` a game of their own.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # type names only: the registry imports no game at import time
    from engine.ai.base import GameAI
    from engine.core import Game, Options


@dataclass(frozen=True)
class GameSpec:
    """One game. ``engine`` and ``ai`` are ``"module:Class"``; ``cog`` an extension module."""

    id: str
    engine: str
    ai: str | None
    cog: str | None
    default_players: int
    # The game moves chips between players (a stake): storage keeps balances for it.
    chips: bool = False
    # Options under which the AI has decisions worth benchmarking (AttackJack: choice).
    benchmark_options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @cached_property
    def engine_class(self) -> type[Game]:
        return _load(self.engine)

    @cached_property
    def ai_class(self) -> type[GameAI]:
        if self.ai is None:
            raise KeyError(f"{self.id} has no AI")
        return _load(self.ai)

    @property
    def title(self) -> str:
        return self.engine_class.TITLE

    @property
    def min_players(self) -> int:
        return self.engine_class.MIN_PLAYERS

    @property
    def max_players(self) -> int:
        return self.engine_class.MAX_PLAYERS

    @property
    def options(self) -> type[Options]:
        return self.engine_class.OPTIONS

    def is_available(self) -> bool:
        """Whether the engine is present in this build (an optional game may be left out)."""
        try:
            self.engine_class  # noqa: B018 (imports it)
        except (ImportError, AttributeError):
            return False
        return True


def _load(target: str) -> Any:
    module_name, _, name = target.partition(":")
    return getattr(importlib.import_module(module_name), name)


_GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    """Add a game (the built-in ones below; a test's own toy game)."""
    if spec.id in _GAMES:
        raise ValueError(f"a game {spec.id!r} is already registered")
    _GAMES[spec.id] = spec
    return spec


def unregister(game_id: str) -> None:
    _GAMES.pop(game_id, None)


def spec(game_id: str) -> GameSpec:
    """The game of an id; KeyError for an unknown one."""
    return _GAMES[game_id]


def specs() -> Iterator[GameSpec]:
    """Every registered game, in the order of registration."""
    return iter(tuple(_GAMES.values()))


def game_ids() -> tuple[str, ...]:
    return tuple(_GAMES)


def game_class(game_id: str) -> type[Game]:
    """The engine class of a game id; KeyError for an unknown id."""
    return spec(game_id).engine_class


def available_games() -> list[str]:
    """The game ids whose engine is present in this build."""
    return [s.id for s in specs() if s.is_available()]


register(GameSpec("jazz", "engine.jazz:Jazz", ai="engine.ai.jazz:JazzAI",
                  cog="cogs.jazz", default_players=4))
register(GameSpec("jacko", "engine.jacko:Jacko", ai="engine.ai.jacko:JackoAI",
                  cog="cogs.jacko", default_players=2))
register(GameSpec("california_jack", "engine.california_jack:CaliforniaJack",
                  ai="engine.ai.california_jack:CaliforniaJackAI",
                  cog="cogs.california_jack", default_players=2))
register(GameSpec("attackjack", "engine.attackjack:AttackJack",
                  ai="engine.ai.attackjack:AttackJackAI", cog="cogs.attackjack",
                  default_players=4, chips=True,
                  benchmark_options=MappingProxyType({"choice": True})))
