"""AI players for every game: one interface, four levels, deterministic for a seed.

    from engine.ai import AIPlayer, choose
    action = choose(game, seat, "normal", random.Random(7))
    bot = AIPlayer("hard", seed=7); action = bot.choose(game, seat)

Levels:

* ``random``: a uniformly random legal action (the yardstick of the benchmarks);
* ``easy``: a rule of thumb per game, instant;
* ``normal`` / ``hard``: information-set Monte Carlo tree search over sampled
  deals (``engine.ai.search``), by iterations with a time cap; ``hard`` searches
  four times as long, and where a game has them, with guided rollouts (the
  players in its look-ahead play sensibly instead of at random), trusting
  their averages sooner where that was measured to help (``GUIDED_EXPLORATION``).

The AI sees only what its seat may know: ``game.seat_view(seat)`` and the
public actions of the current deal (see each game's module in this package).
It needs the game itself (``game.history`` holds those actions), not a copy.
Given the same seat view, public actions, level and rng state, it returns the
same action. The time cap can cut a search short on a slow machine, which is
the only way two runs may differ: pass ``time_limit=None`` for exact replays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine import registry
from engine.ai.base import GameAI, Observation
from engine.ai.search import SearchResult, search
from engine.core import Game, RulesError
from engine.records import restore
from engine.text import T


@dataclass(frozen=True)
class Level:
    name: str
    iterations: int  # 0: no search
    time_limit: float | None  # seconds; a safety cap, sized far above the usual time
    guided: bool = False  # rollouts played sensibly (GameAI.guided_rollout), not at random


LEVELS: dict[str, Level] = {
    "random": Level("random", 0, None),
    "easy": Level("easy", 0, None),
    "normal": Level("normal", 1000, 0.35),
    "hard": Level("hard", 4000, 1.6, guided=True),
}
DEFAULT_LEVEL = "normal"

_CACHE: dict[str, GameAI] = {}


def game_ai(game_id: str) -> GameAI:
    """The AI knowledge of a game, from the registry (KeyError for an unknown game or
    one without an AI)."""
    ai = _CACHE.get(game_id)
    if ai is None:
        ai = _CACHE[game_id] = registry.spec(game_id).ai_class()
    return ai


def choose(game: Game, seat: int, level: str = DEFAULT_LEVEL,
           rng: random.Random | None = None, *, iterations: int | None = None,
           time_limit: float | str | None = "level") -> int:
    """A legal action for ``seat``, which must be the seat to act.

    ``iterations`` and ``time_limit`` override the level's search budget (tests
    use small ones; ``time_limit=None`` removes the cap).
    """
    return decide(game, seat, level, rng, iterations=iterations, time_limit=time_limit).action


def decide(game: Game, seat: int, level: str = DEFAULT_LEVEL,
           rng: random.Random | None = None, *, iterations: int | None = None,
           time_limit: float | str | None = "level") -> SearchResult:
    """Like ``choose``, with what the search did (iterations, seconds, root visits)."""
    if level not in LEVELS:
        raise ValueError(f"Unknown AI level {level!r}: choose one of {', '.join(LEVELS)}.")
    if game.to_act != seat:
        raise RulesError(T("Seat {seat} is not the seat to act.", seat=seat))
    rng = rng if rng is not None else random.Random()
    legal = sorted(game.legal_actions())  # sorted: the hand's order is not information
    if level == "random":
        return SearchResult(legal[rng.randrange(len(legal))], 0, 0.0, {})
    if len(legal) == 1:
        return SearchResult(legal[0], 0, 0.0, {})
    ai = game_ai(game.GAME_ID)
    obs = ai.observe(game, seat)
    if level == "easy":
        return SearchResult(ai.easy(obs, legal, rng), 0, 0.0, {})
    spec = LEVELS[level]
    budget = iterations if iterations is not None else spec.iterations
    cap = spec.time_limit if time_limit == "level" else time_limit
    assert cap is None or isinstance(cap, float | int)
    return search(ai, obs, rng, max(1, budget), cap, ai.exploration(spec.guided), spec.guided)


class AIPlayer:
    """An AI seat: a level and a seed. Each decision draws from an rng seeded by the
    seed and the number of actions taken so far in the game, so a restored table
    gets the same decisions as the one that was saved."""

    def __init__(self, level: str = DEFAULT_LEVEL, seed: int = 0, *,
                 iterations: int | None = None, time_limit: float | str | None = "level",
                 ) -> None:
        if level not in LEVELS:
            raise ValueError(f"Unknown AI level {level!r}: choose one of {', '.join(LEVELS)}.")
        self.level = level
        self.seed = seed
        self.iterations = iterations  # None: the level's own budget
        self.time_limit = time_limit

    def choose(self, game: Game, seat: int) -> int:
        return choose(game, seat, self.level, self.rng_for(game, seat),
                      iterations=self.iterations, time_limit=self.time_limit)

    def rng_for(self, game: Game, seat: int) -> random.Random:
        steps = sum(len(h.actions) for h in game.history) if game.history else 0
        deals = len(game.history) if game.history else 0
        return random.Random(f"{self.seed}/{seat}/{deals}/{steps}")

    def __repr__(self) -> str:
        return f"AIPlayer({self.level!r}, seed={self.seed})"


def choose_from_data(data: dict[str, Any], seat: int, level: str = DEFAULT_LEVEL,
                     seed: int = 0, *,
                     iterations: int | None = None,
                     time_limit: float | str | None = "level") -> int:
    """What ``AIPlayer(level, seed).choose`` picks for the game saved as ``data``
    (``Game.to_data()``): plain data crosses into a worker process, so a search can
    run there while the caller's event loop stays free."""
    game = restore(data)
    # The restored game stops where the saved one was, with its forced steps still due.
    while game.has_auto_step:
        game.auto_step_quietly()
    player = AIPlayer(level, seed, iterations=iterations, time_limit=time_limit)
    return player.choose(game, seat)


__all__ = ["LEVELS", "AIPlayer", "GameAI", "Level", "Observation", "SearchResult", "choose",
           "choose_from_data", "decide", "game_ai"]
