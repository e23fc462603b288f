"""``Game.clone()``: a full independent copy, history included, made without a replay."""

from __future__ import annotations

import random

import pytest

from engine import registry
from engine.core import Game, RulesError
from engine.records import restore


def advance(game: Game, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if game.is_over:
            return
        game.advance(rng)


SPECS = [(spec.id, n) for spec in registry.specs()
         for n in sorted({spec.min_players, spec.default_players})]


@pytest.mark.parametrize(("game_id", "players"), SPECS)
@pytest.mark.parametrize("steps", [0, 1, 7, 60, 400])
def test_a_clone_is_the_same_game_and_independent_of_it(game_id, players, steps):
    rng = random.Random(steps)
    game = registry.game_class(game_id)(players, first_dealer=steps % players)
    advance(game, rng, steps)
    data = game.to_data()
    twin = game.clone()
    assert twin is not game and type(twin) is type(game)
    assert twin.to_data() == data
    assert twin.public_view() == game.public_view()
    assert [twin.seat_view(s) for s in range(players)] == \
        [game.seat_view(s) for s in range(players)]
    # Moves on the clone leave the original as it was, and the other way round.
    advance(twin, random.Random(1), 40)
    assert game.to_data() == data
    twin_data = twin.to_data()
    advance(game, random.Random(2), 40)
    assert twin.to_data() == twin_data
    # Both are still whole games: each restores from its data.
    assert restore(twin.to_data(), type(twin)).to_data() == twin.to_data()


def test_a_clone_is_made_without_replaying_the_record(monkeypatch):
    spec = registry.spec(registry.game_ids()[0])
    game = spec.engine_class(spec.default_players)
    advance(game, random.Random(3), 30)
    data = game.to_data()

    def refuse(*args, **kwargs):
        raise AssertionError("clone replayed the game")

    monkeypatch.setattr(type(game), "_apply", refuse)
    monkeypatch.setattr(type(game), "_start_deal", refuse)
    assert game.clone().to_data() == data


def test_a_clone_of_a_search_copy_keeps_no_history_either():
    spec = registry.spec(registry.game_ids()[0])
    game = spec.engine_class(spec.default_players)
    advance(game, random.Random(4), 10)
    assert game.copy().clone().history is None
    assert game.clone().history == game.history and game.clone().history is not game.history


def test_advance_deals_steps_and_plays_until_the_end_then_refuses():
    game = registry.game_class("jacko")(2, None, first_dealer=0)
    rng = random.Random(1)
    assert game.needs_deal
    game.advance(rng)
    assert not game.needs_deal and game.to_act is not None  # dealt: someone is to act
    seat = game.to_act
    before = len(game.to_record()["deals"][-1]["actions"])
    game.advance(rng, lambda g, s: g.legal_actions()[0])
    assert game.to_record()["deals"][-1]["actions"][before][0] == seat
    while not game.is_over:
        game.advance(rng)
    with pytest.raises(RulesError):
        game.advance(rng)  # nothing to play after the end
