"""Jacko rules, options, deals, refusals, views and copies on hand-made deals.

The rules are docs/rules/jacko.md; the tests named ``test_reading_*`` pin a reading
of the rules that the file leaves open (see the engine's report).
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from engine.cards import JOKER, parse_card
from engine.core import PASS, STOP, TAKE, Deal, OptionError, RulesError
from engine.jacko import Jacko, JackoOptions, round_points
from engine.records import restore
from engine.registry import game_class
from tests.engine.test_jacko_examples import (
    EX8,
    EX10_BEFORE,
    EX10_HANDS,
    EX11_BEFORE,
    EX11_HANDS,
    FIVE_QUEEN,
)
from tests.engine.test_jacko_support import (
    cards_of,
    deal_for,
    deal_of,
    hand,
    legal,
    new_game,
    play,
    values,
)

# Seat 1's only spade is 2♠, so it plays hearts right after it.
ONE_SPADE = "S:3456789TJQKA C:* D:2"


# ---------------------------------------------------------------- shape and options


def test_registry_and_class_attributes() -> None:
    assert game_class("jacko") is Jacko
    assert (Jacko.GAME_ID, Jacko.MIN_PLAYERS, Jacko.MAX_PLAYERS) == ("jacko", 2, 2)
    assert Jacko.TITLE == "Jacko"


@pytest.mark.parametrize("players", [1, 3])
def test_only_two_players(players: int) -> None:
    with pytest.raises(OptionError, match="2"):
        Jacko(players)


def test_options_defaults_and_help() -> None:
    options = JackoOptions()
    assert (options.target, options.open_hands) == (121, True)
    for f in dataclasses.fields(JackoOptions):
        assert 0 < len(f.metadata["help"]) <= 100


def test_options_are_strictly_typed() -> None:
    assert JackoOptions.from_dict({"target": 50, "open_hands": False}, 2) == JackoOptions(50, False)
    for raw in ({"target": "121"}, {"target": 0}, {"target": True}, {"open_hands": 1},
                {"colour": "red"}):
        with pytest.raises(OptionError):
            JackoOptions.from_dict(raw, 2)


def test_random_deal_uses_only_the_given_rng() -> None:
    game = Jacko(2)
    a, b = game.random_deal(random.Random(5)), game.random_deal(random.Random(5))
    assert a == b
    assert sorted(a.hands[0] + a.hands[1]) == list(range(52))
    assert [len(h) for h in a.hands] == [26, 26] and a.stock == [] and a.first is None
    assert game.needs_deal and game.to_act is None  # dealing alone changes nothing


# ---------------------------------------------------------------- deal validation


def _good() -> list[list[int]]:
    return [h[:] for h in deal_for(EX8).hands]


@pytest.mark.parametrize("make, reason", [
    (lambda h: Deal([h[0]]), "two hands"),
    (lambda h: Deal(h, stock=[h[0].pop()]), "no stock"),
    (lambda h: Deal(h, first=0), "first"),
    (lambda h: Deal([h[0] + [h[1].pop()], h[1]]), "26 cards, not 27 and 25"),
    (lambda h: Deal([h[0][:-1], h[1]]), "26 cards, not 25 and 26"),
    (lambda h: Deal([[*h[0][:-1], h[1][0]], h[1]]), "dealt twice"),
    (lambda h: Deal([[*h[0][:-1], JOKER], h[1]]), "no jokers"),
    (lambda h: Deal([[*h[0][:-1], 60], h[1]]), "not a card"),
])
def test_deals_that_are_not_the_deck_are_refused(make, reason: str) -> None:
    game = Jacko(2)
    with pytest.raises(RulesError, match=reason):
        game.start_deal(make(_good()))
    assert game.needs_deal and game.history == []


def test_the_player_with_more_spades_leads_whatever_the_dealer() -> None:
    for first_dealer in (0, 1):
        game = Jacko(2, first_dealer=first_dealer)
        game.start_deal(deal_for(ONE_SPADE))
        assert game.to_act == 0
        game = Jacko(2, first_dealer=first_dealer)
        game.start_deal(Deal(list(reversed(deal_for(ONE_SPADE).hands))))
        assert game.to_act == 1
        assert game.to_record()["first_dealer"] == first_dealer


# ---------------------------------------------------------------- values


def test_reading_king_at_sum_zero_that_is_not_led_starts_no_doubling() -> None:
    """Only the round's first card doubles the round; a king after a jack adds 0."""
    game = new_game(deal_for("S:A2345J7 C:* D:23456A"))  # seat 1 holds K♠
    play(game, "A:JS B:KS A:2S")
    assert values(game) == [0, 0, 2] and game.public_view()["doubling"] is False


def test_queen_in_a_doubled_round_copies_the_doubled_value_and_kings_just_double() -> None:
    game = new_game(deal_for(ONE_SPADE))
    play(game, "A:KS B:2S A:QS B:KH")  # B's spades are over after 2♠: K♥ is legal
    assert values(game) == [0, 4, 4, 8]
    assert game.public_view()["sum"] == 16


def test_led_queens_wait_for_a_king_which_adds_zero() -> None:
    game = new_game(deal_for("S:* C:*"))
    play(game, "A:QS B:QH A:KS")
    assert values(game) == [0, 0, 0]
    assert game.public_view()["doubling"] is False and game.public_view()["waiting_queens"] == 0
    play(game, "B:5H")
    assert game.public_view()["sum"] == 5


def test_the_suit_order_binds_from_the_first_card() -> None:
    game = new_game(deal_for(ONE_SPADE))
    play(game, "A:3S")
    assert legal(game) == ["2S"]  # seat 1's one spade, though its hearts could be laid
    with pytest.raises(RulesError, match="spades first: play a spade"):
        play(game, "B:5H")


def test_round_points_table() -> None:
    assert [round_points(total, 0) for total in range(22)] == [0] * 16 + [1, 2, 3, 4, 5, 7]
    assert [round_points(21, k) for k in range(10)] == [7, 6, 5, 4, 3, 2, 1, 0, 0, 0]
    assert round_points(20, 3) == 5  # zero cards only count after the sum reached 21


# ---------------------------------------------------------------- passes and stops


def test_pass_and_stop_are_refused_with_a_reason() -> None:
    game = new_game(deal_for(EX8))
    with pytest.raises(RulesError, match="may not pass"):
        play(game, "A:pass")
    with pytest.raises(RulesError, match="only after your opponent has passed"):
        play(game, "A:stop")
    with pytest.raises(RulesError, match="not your turn"):
        play(game, "B:6S")
    with pytest.raises(RulesError, match="do not hold"):
        play(game, "A:6S")
    with pytest.raises(RulesError, match="not an action in Jacko"):
        game.apply(0, TAKE)
    with pytest.raises(RulesError, match="jokers"):
        game.apply(0, JOKER)
    assert game.public_view()["round"] == [] and game.history[-1].actions == []


def test_continuing_alone_at_15_or_less_has_no_stop_and_no_pass() -> None:
    game = new_game(deal_of(*EX10_HANDS))
    play(game, EX10_BEFORE + " A:6S B:6H A:pass")
    assert "stop" not in legal(game) and "pass" not in legal(game)
    with pytest.raises(RulesError, match="until the sum is above 15"):
        play(game, "1:stop")
    with pytest.raises(RulesError, match="cannot pass"):
        play(game, "1:pass")


def test_a_round_won_leads_the_next_and_scores_stay_in_the_deal() -> None:
    game = new_game(deal_for(EX8))
    play(game, "A:TS B:6S A:5S B:JS A:pass B:stop")
    view = game.public_view()
    assert (view["to_act"], view["leader"], view["sum"], view["round"]) == (1, 1, 0, [])
    assert view["rounds_played"] == 1 and view["passed"] is None
    assert view["last_round"]["cards"][-1] == {"seat": 1, "card": "JS", "value": 0, "points": 0}


# ---------------------------------------------------------------- deals and the game end


def finished_first_deal() -> Jacko:
    """Example 11's deal, played to its end (seat 0 wins its last round)."""
    game = new_game(deal_of(*EX11_HANDS))
    play(game, EX11_BEFORE + " 1:9D 0:3D 1:pass 0:stop")
    assert game.needs_deal
    return game


def test_the_next_deal_is_led_by_more_spades_not_by_the_last_winner() -> None:
    game = finished_first_deal()
    assert game.public_view()["last_round"]["winner"] == 0
    points = game.deal_points[0]
    game.start_deal(Deal(list(reversed(deal_for(ONE_SPADE).hands))))
    assert game.to_act == 1
    view = game.public_view()
    assert view["deal"] == 1 and view["scores"] == [0, 0] and view["totals"] == points
    assert view["last_round"] is None and view["last_action"] is None
    assert game.deal_points == [points, [0, 0]]


def test_a_deal_cannot_start_while_one_runs() -> None:
    game = new_game(deal_for(EX8))
    with pytest.raises(RulesError, match="not finished"):
        game.start_deal(deal_for(EX8))


def test_game_ends_mid_round_on_making_eleven() -> None:
    game = new_game(deal_for(ONE_SPADE), target=3)
    play(game, "A:9S B:2S")
    assert game.is_over and game.winners() == [1] and game.totals == [0, 3]
    view = game.public_view()
    assert view["round"][-1]["points"] == 3 and view["sum"] == 11  # the round stays on show
    assert (view["to_act"], view["over"], view["winners"]) == (None, True, [1])
    assert game.ranking() == [1, 0] and not game.needs_deal
    with pytest.raises(RulesError, match="over"):
        game.start_deal(deal_for(EX8))
    with pytest.raises(RulesError, match="over"):
        play(game, "A:3H")


def test_game_ends_on_round_points_without_a_new_round() -> None:
    game = new_game(deal_for(EX8), target=6)
    play(game, "A:TS B:6S A:5S B:JS A:pass B:stop")
    assert game.is_over and game.winners() == [1] and game.totals == [0, 6]
    assert game.to_act is None and game.legal_actions() == []
    assert game.public_view()["last_round"]["points"] == 6


def test_passing_the_target_ends_the_game_too() -> None:
    game = new_game(deal_for(EX8), target=5)
    play(game, "A:TS B:6S A:5S B:JS A:pass B:stop")
    assert game.is_over and game.totals == [0, 6]


# ---------------------------------------------------------------- views


def test_public_view_shows_the_table_and_no_hand() -> None:
    game = new_game(deal_for(FIVE_QUEEN))
    play(game, "A:QS")
    view = game.public_view()
    assert view["round"] == [{"seat": 0, "card": "QS", "value": None, "points": 0}]
    assert view["cards_left"] == [25, 26] and view["to_act"] == 1
    assert view["last_action"] == {"seat": 0, "action": "QS"}
    assert view["game"] == "jacko" and view["players"] == 2 and view["deal"] == 0
    assert "hand" not in view and "opponent_hand" not in view
    assert json.loads(json.dumps(view)) == view


def test_seat_view_hand_legal_and_open_hands() -> None:
    game = new_game(deal_for(FIVE_QUEEN))
    view = game.seat_view(0)
    assert view["hand"] == ["2S", "3S", "4S", "5S", "7S", "QS", "AS"] + [
        c + "C" for c in "23456789TJQKA"] + [c + "D" for c in "23456A"]
    assert view["legal"] == view["hand"][:7] and view["current_suit"] == "spades"
    assert game.seat_view(1)["legal"] == []
    assert game.seat_view(1)["opponent_hand"] == view["hand"]
    assert json.loads(json.dumps(view)) == view

    closed = new_game(deal_for(FIVE_QUEEN), open_hands=False)
    other = set(closed.seat_view(1)["hand"])
    text = json.dumps(closed.seat_view(0))
    assert closed.seat_view(0)["opponent_hand"] is None
    assert not any(f'"{card}"' in text for card in other)
    with pytest.raises(RulesError):
        closed.seat_view(2)


def test_views_do_not_share_state_with_the_engine() -> None:
    game = new_game(deal_for(EX8))
    play(game, "A:TS B:6S A:5S B:JS A:pass B:stop")
    view = game.public_view()
    view["last_round"]["cards"][0]["card"] = "XX"
    game.legal_actions().append(STOP)
    assert game.public_view()["last_round"]["cards"][0]["card"] == "TS"
    assert STOP not in game.legal_actions()


# ---------------------------------------------------------------- copies and records


def test_copy_is_independent_and_keeps_no_history() -> None:
    game = new_game(deal_for(EX8))
    play(game, "A:TS B:6S")
    twin = game.copy()
    assert twin.history is None and twin.public_view() == game.public_view()
    play(twin, "A:5S B:JS A:pass")
    assert game.public_view()["sum"] == 16 and len(hand(game, 0)) == 25
    play(game, "A:5S B:JS A:pass")
    assert twin.public_view() == game.public_view() and twin.legal_actions() == [
        parse_card("QS"), STOP]
    with pytest.raises(RulesError):
        twin.to_record()


def test_record_holds_every_action_including_passes() -> None:
    game = new_game(deal_for(EX8))
    play(game, "A:TS B:6S A:5S B:JS A:pass B:stop")
    record = game.to_record()
    assert record["deals"][0]["actions"] == [
        [0, "TS"], [1, "6S"], [0, "5S"], [1, "JS"], [0, "pass"], [1, "stop"]]
    assert record["deals"][0]["stock"] == [] and record["deals"][0]["first"] is None
    assert sorted(map(parse_card, record["deals"][0]["hands"][0])) == sorted(cards_of(EX8))
    restored = restore(json.loads(json.dumps(game.to_data())), Jacko)
    assert restored.public_view() == game.public_view()
    assert restored.seat_view(1) == game.seat_view(1)
    assert PASS not in restored.legal_actions()
