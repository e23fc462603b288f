"""Seeded random playouts shared by the engines' property tests."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.core import Game, Options
from engine.records import restore

Check = Callable[[Game], None]


def random_game(cls: type[Game], players: int, options: Options | None, seed: int,
                check: Check | None = None, max_steps: int = 100_000) -> Game:
    """Play a whole game with uniformly random legal actions, asserting as it goes.

    ``check`` runs after every deal start, action and forced step. Every applied
    action is asserted to have been in ``legal_actions()`` for the seat to act, and the
    game must end within ``max_steps`` deals, actions and forced steps.
    """
    rng = random.Random(seed)
    game = cls(players, options, first_dealer=rng.randrange(players))
    steps = 0
    while not game.is_over:
        steps += 1
        assert steps < max_steps, "the game does not end"
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        elif game.has_auto_step:
            game.auto_step()
        else:
            seat = game.to_act
            assert seat is not None, "nobody to act in a running deal"
            legal = game.legal_actions()
            assert legal, "the seat to act has no legal action"
            action = rng.choice(legal)
            game.apply(seat, action)
        if check is not None:
            check(game)
    return game


def assert_restores_exactly(game: Game, seed: int) -> None:
    """Save mid-game, restore, and check both continue identically to the end."""
    restored = restore(game.to_data(), type(game))
    assert restored.to_record() == game.to_record()
    rng_a, rng_b = random.Random(seed), random.Random(seed)
    for original, rng in ((game, rng_a), (restored, rng_b)):
        while not original.is_over:
            original.advance(rng)
    assert restored.to_record() == game.to_record()
    assert restored.totals == game.totals
    assert restored.winners() == game.winners()
    assert restored.public_view() == game.public_view()
