"""The move the bot plays for a player who timed out or is away."""

from __future__ import annotations

import random

from bot.table.autoplay import simple_action
from engine import cards
from engine.core import PASS, STOP
from engine.registry import available_games, game_class


class Stub:
    def __init__(self, legal: list[int]):
        self._legal = legal

    def legal_actions(self) -> list[int]:
        return self._legal


def test_stop_is_taken_when_offered():
    assert simple_action(Stub([cards.parse_card("AS"), STOP])) == STOP


def test_otherwise_the_lowest_card_goes():
    legal = [cards.parse_card(c) for c in ("KH", "3D", "3C", "AS")]
    assert cards.CODE[simple_action(Stub(legal))] == "3C"


def test_a_pass_when_nothing_else_is_legal():
    assert simple_action(Stub([PASS])) == PASS


def test_the_simple_move_is_always_legal_in_every_engine():
    for game_id in available_games():
        cls = game_class(game_id)
        rng = random.Random(1)
        game = cls(cls.MIN_PLAYERS, None, 0)
        for _ in range(300):
            if game.is_over:
                break
            if game.needs_deal:
                game.start_deal(game.random_deal(rng))
            elif game.has_auto_step:
                game.auto_step()
            else:
                action = simple_action(game)
                assert action in game.legal_actions()
                game.apply(game.to_act, action)
