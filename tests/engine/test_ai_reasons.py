"""engine.ai.reasons: a hint's reason is given only for the ``easy`` heuristic's own choice,
and what it says is true of that choice, in every game, over random positions."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from engine import cards
from engine.ai import attackjack as attackjack_ai
from engine.ai import california_jack as cj_ai
from engine.ai import choose
from engine.ai import jacko as jacko_ai
from engine.ai import jazz as jazz_ai
from engine.ai import reasons as r
from engine.ai.california_jack import _beats
from engine.attackjack import AttackJack, AttackJackOptions, hand_value
from engine.california_jack import CaliforniaJack
from engine.cards import SUIT
from engine.core import STAND, TAKE, Game
from engine.jacko import Jacko
from engine.jazz import Jazz
from engine.text import Text

Check = Callable[[Game, int, int, Text], None]


def positions(make: Callable[[int], Game], seeds: range, every: int = 1):
    """(game, seat) at the decisions of random playouts; the game plays on afterwards."""
    for seed in seeds:
        rng = random.Random(seed)
        game = make(seed)
        count = 0
        while not game.is_over:
            if game.needs_deal or game.has_auto_step or game.to_act is None:
                game.advance(rng)
                continue
            count += 1
            if count % every == 0:
                yield game, game.to_act
            game.advance(rng)


def easy(game: Game, seat: int) -> int:
    return choose(game, seat, "easy", random.Random(0))


def run(make: Callable[[int], Game], seeds: range, check: Check, every: int = 1) -> Counter:
    seen: Counter = Counter()
    for game, seat in positions(make, seeds, every):
        legal = game.legal_actions()
        picked = easy(game, seat)
        reason = r.easy_reason(game, seat, picked)
        assert isinstance(reason, Text), "every choice of the heuristic has a reason"
        if len(legal) == 1:
            assert reason == r.ONLY_MOVE
        else:
            check(game, seat, picked, reason)
        for other in legal:
            if other != picked:  # never a reason for what the heuristic would not play
                assert r.easy_reason(game, seat, other) is None
        seen[str(reason)] += 1
    return seen


def jazz_check(game: Game, seat: int, action: int, reason: Text) -> None:
    view = game.seat_view(seat)
    trick = [cards.parse_card(t["card"]) for t in view["trick"]]
    if reason in (jazz_ai.SEVENS, jazz_ai.SHED_EARLY):
        return
    if reason == jazz_ai.LEAD_LOW:
        assert not trick
        return
    led = SUIT[trick[0]]
    top = max(c for c in trick if SUIT[c] == led)
    following = [c for c in game.legal_actions() if SUIT[c] == led]
    if reason == jazz_ai.DUMP_WORST:
        assert not following and SUIT[action] != led
    elif reason == jazz_ai.DUCK:
        assert action in following and action < top
        assert action == max(c for c in following if c < top)
    elif reason in (jazz_ai.TAKE_LAST, jazz_ai.TAKE_LOW):
        assert all(c > top for c in following) and action in following
        assert action == (max(following) if reason == jazz_ai.TAKE_LAST else min(following))
        assert (len(trick) == game.players - 1) == (reason == jazz_ai.TAKE_LAST)
    else:
        raise AssertionError(f"a reason Jazz's heuristic has no rule for: {reason}")


def test_jazz_reasons_say_what_the_rule_of_thumb_did():
    seen = run(lambda seed: Jazz(3 + seed % 3, None, seed % 3), range(4), jazz_check, every=3)
    said = {str(t) for t in (jazz_ai.SEVENS, jazz_ai.SHED_EARLY, jazz_ai.LEAD_LOW,
                             jazz_ai.DUMP_WORST, jazz_ai.DUCK, jazz_ai.TAKE_LOW)}
    assert said <= set(seen), seen  # the rules of every kind of deal came up


def test_jacko_reasons_say_what_the_rule_of_thumb_did():
    def check(game: Game, seat: int, action: int, reason: Text) -> None:
        after = game.clone()
        after.apply(seat, action)
        assert (reason == jacko_ai.WINS_NOW) == after.is_over
        assert reason in (jacko_ai.WINS_NOW, jacko_ai.BEST_TRADE)

    seen = run(lambda seed: Jacko(2, Jacko.OPTIONS(target=31), seed % 2), range(8), check)
    assert {str(jacko_ai.WINS_NOW), str(jacko_ai.BEST_TRADE)} <= set(seen)


def test_attackjack_reasons_say_what_the_rule_of_thumb_did():
    def check(game: Game, seat: int, action: int, reason: Text) -> None:
        view = game.seat_view(seat)
        own = cards.parse_cards(view["seats"][seat]["cards"])
        if view["face_down"]:
            own.insert(1, cards.parse_card(view["face_down"]))
        now = hand_value(own)
        then = hand_value([*own, cards.parse_card(view["open_card"])])
        if reason == attackjack_ai.TAKE_UP:
            assert action == TAKE and now < then <= 21
        elif reason == attackjack_ai.STAND_BUST:
            assert action == STAND and then > 21
        else:
            assert reason == attackjack_ai.STAND_NO_GAIN and action == STAND and then <= now

    options = AttackJackOptions(choice=True)
    seen = run(lambda seed: AttackJack(2 + seed % 4, options, seed % 2), range(60), check)
    assert {str(attackjack_ai.TAKE_UP), str(attackjack_ai.STAND_BUST)} <= set(seen), seen


def test_california_jack_reasons_say_what_the_rule_of_thumb_did():
    def check(game: Game, seat: int, action: int, reason: Text) -> None:
        view = game.seat_view(seat)
        trump = cards.SUIT_LETTERS.index(view["trump"])
        legal = game.legal_actions()
        if view["trick"]:
            lead = cards.parse_card(view["trick"][0]["card"])
            if reason in (cj_ai.WIN_CHEAPLY, cj_ai.ALL_WIN):
                assert _beats(action, lead, trump)
                if reason == cj_ai.ALL_WIN:
                    assert all(_beats(c, lead, trump) for c in legal)
            elif reason == cj_ai.CANNOT_WIN:
                assert not any(_beats(c, lead, trump) for c in legal)
            else:
                assert reason == cj_ai.NOT_WORTH and not _beats(action, lead, trump)
        else:
            assert reason in (cj_ai.LEAD_FOR_TOP, cj_ai.LEAD_CHEAP)

    seen = run(lambda seed: CaliforniaJack(2, CaliforniaJack.OPTIONS(target=3), seed % 2),
               range(3), check)
    assert {str(t) for t in (cj_ai.WIN_CHEAPLY, cj_ai.CANNOT_WIN, cj_ai.LEAD_FOR_TOP,
                             cj_ai.LEAD_CHEAP)} <= set(seen), seen


@pytest.mark.parametrize("wrong", ["not to act", "illegal"])
def test_no_reason_for_a_seat_not_to_act_or_an_illegal_action(wrong):
    game = Jazz(4, None, 0)
    game.advance(random.Random(1))  # the first deal
    seat = game.to_act
    assert seat is not None
    legal = set(game.legal_actions())
    if wrong == "not to act":
        assert r.easy_reason(game, (seat + 1) % 4, next(iter(legal))) is None
    else:
        assert r.easy_reason(game, seat, next(c for c in cards.DECK if c not in legal)) is None
