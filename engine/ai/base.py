"""What the search needs from each game, and helpers the games share.

A game's AI (a ``GameAI``) turns the real game and a seat into an
``Observation``: the seat's view, the public actions of the current deal, and a
*base* state: a cheap copy of the game whose hidden cards have been wiped out.
Every determinization starts from that base and fills the hidden places from
a sample that depends only on the observation and an rng, so the search cannot
read what the seat may not know, even by accident.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from engine.core import Game
from engine.text import Text

G = TypeVar("G", bound=Game)


@dataclass
class Observation(Generic[G]):
    """What one seat knows. Subclasses add the game's own facts (and name the game's
    class, ``Observation[Jazz]``, so that ``base`` is typed as that game)."""

    seat: int
    base: G  # a copy with no hidden card of another seat left in it
    view: dict[str, Any]


class GameAI(ABC):
    """Per-game knowledge for the levels: observe, sample, roll out, score, and a heuristic."""

    GAME_ID: ClassVar[str]
    AUTO_STEPS: ClassVar[bool] = False  # whether forced steps happen between decisions
    EXPLORATION: ClassVar[float] = 0.7  # UCB's constant, for this game's reward scale
    # UCB's constant when the rollouts are guided (None: EXPLORATION). A guided rollout
    # scores a deal with less noise, so the search may trust its averages sooner.
    GUIDED_EXPLORATION: ClassVar[float | None] = None

    @abstractmethod
    def observe(self, game: Game, seat: int) -> Observation:
        """The seat's view and public history, and a base state with hidden cards removed."""

    @abstractmethod
    def determinize(self, obs: Observation, rng: random.Random) -> Game:
        """A fresh state consistent with ``obs``, hidden cards sampled with ``rng``."""

    @abstractmethod
    def rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        """Play ``state`` on at random to the end of the horizon (the deal); reward per seat.

        Rewards are comparable between seats and lie roughly in [0, 1]: each seat
        maximises its own (max^n), which for two players is the zero-sum game.
        """

    def guided_rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        """A rollout whose players play sensibly rather than at random (``hard``): slower
        per iteration, but the deal's value comes out as it would really go. Games
        without one use the random rollout."""
        return self.rollout(state, obs, rng)

    def exploration(self, guided: bool) -> float:
        """UCB's constant for a search with guided or random rollouts."""
        if guided and self.GUIDED_EXPLORATION is not None:
            return self.GUIDED_EXPLORATION
        return self.EXPLORATION

    def explain_easy(self, obs: Observation, legal: list[int], action: int) -> Text | None:
        """Which of ``easy``'s rules plays ``action``, in words (None: no reason to give).
        Called only when ``easy`` does play ``action``."""
        return None

    @abstractmethod
    def easy(self, obs: Observation, legal: list[int], rng: random.Random) -> int:
        """The ``easy`` level: a quick rule of thumb for the game."""


def deal_actions(game: Game) -> list[tuple[int, int]]:
    """The public actions of the deal in play, in order: every seat saw them taken."""
    if game.history is None:
        raise ValueError("The AI needs the game itself, not a copy: a copy keeps no history "
                         "of the actions everybody saw.")
    return list(game.history[-1].actions) if game.history else []


def engine_rollout(state: Game, rng: random.Random, auto_steps: bool = False) -> None:
    """Random legal actions through the engine's own fast path until nobody is to act."""
    while True:
        if auto_steps:
            while state.has_auto_step:
                state.auto_step_quietly()
        if state.to_act is None:
            return
        legal = state.legal_actions()
        # ``_apply`` skips the legality re-check of ``apply``: the action comes from
        # ``legal_actions()`` of this very state, and search copies keep no history;
        # None: no events either.
        state._apply(legal[rng.randrange(len(legal))], None)


def clamp01(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x
