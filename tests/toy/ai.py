"""The toy's AI: the unseen cards are shuffled among the other hands; easy plays high."""

from __future__ import annotations

import random

from engine import cards
from engine.ai.base import GameAI, Observation, engine_rollout
from engine.core import Game
from tests.toy.engine import DECK, Toy


class ToyAI(GameAI):
    GAME_ID = "toy"

    def observe(self, game: Game, seat: int) -> Observation:
        assert isinstance(game, Toy)
        base = game.copy()
        for other in range(game.players):
            if other != seat:
                base.hands[other] = []
        return Observation(seat, base, game.seat_view(seat))

    def determinize(self, obs: Observation, rng: random.Random) -> Game:
        game = obs.base.copy()
        assert isinstance(game, Toy)
        seen = set(game.hands[obs.seat]) | {c for _, c in game.trick}
        view = obs.view
        unseen = [c for c in DECK if c not in seen]
        rng.shuffle(unseen)
        for other, size in enumerate(view["hand_sizes"]):
            if other != obs.seat:
                game.hands[other], unseen = unseen[:size], unseen[size:]
        return game

    def rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        before = list(state.deal_points[-1]) if state.deal_points else [0] * state.players
        engine_rollout(state, rng)
        after = state.deal_points[-1]
        return [(a - b) / 3 for a, b in zip(after, before, strict=True)]

    def easy(self, obs: Observation, legal: list[int], rng: random.Random) -> int:
        return max(legal, key=lambda c: cards.RANK[c])
