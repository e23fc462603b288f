"""The worked examples of docs/rules/jacko.md, one test each, on the real engine.

``A`` is the player who lays the first card of the example's round. Where the
example needs a position that a first round cannot reach (a player who leads
must hold more spades, so a lead of a few cards of a suit needs earlier
rounds), the deal and the earlier actions were found by a search and are
written out here; each test first checks that they reach the example's
position, so a change of rules cannot make it pass by accident.
"""

from __future__ import annotations

import random

import pytest

from engine.core import PASS, STOP, RulesError
from engine.jacko import Jacko
from tests.engine.test_jacko_support import (
    current_suit_cards,
    deal_for,
    deal_of,
    hand,
    legal,
    new_game,
    play,
    values,
)

# Seat 0 leads the first round with 7 spades (A 2 3 4 5 6 Q); seat 1 holds 7♠ and J♠.
EX1 = "S:A23456Q C:* D:234567"
# Seat 0 holds 5♠ Q♠ (and 7 spades in all); seat 1 holds 6♠ K♠.
FIVE_QUEEN = "S:A23457Q C:* D:23456A"
# Seat 0 holds 5♠ K♠ (and 7 spades in all); seat 1 holds 6♠ Q♠.
FIVE_KING = "S:A23457K C:* D:23456A"


def test_example_1_queen_led_takes_the_next_cards_value() -> None:
    game = new_game(deal_for(EX1))
    play(game, "A:QS")
    view = game.public_view()
    assert (view["sum"], view["waiting_queens"], values(game)) == (0, 1, [None])
    play(game, "B:7S")
    assert (game.public_view()["sum"], values(game)) == (14, [7, 7])

    game = new_game(deal_for(EX1))
    play(game, "A:QS B:JS")
    assert (game.public_view()["sum"], values(game)) == (0, [0, 0])
    assert game.public_view()["waiting_queens"] == 0


def test_example_2_two_waiting_queens_triple_the_next_card() -> None:
    # Seat 1 holds no spade, so its current suit is hearts.
    game = new_game(deal_for("S:* C:*"))
    play(game, "A:QS B:QH")
    assert game.public_view()["waiting_queens"] == 2
    assert "8S" not in legal(game) and "7S" in legal(game)
    with pytest.raises(RulesError, match="24"):
        play(game, "A:8S")
    assert "8S" in hand(game, 0) and game.public_view()["sum"] == 0  # nothing changed
    play(game, "A:7S")
    assert (game.public_view()["sum"], values(game)) == (21, [7, 7, 7])


# Example 3 needs its first player to lead with only K♠ 3♠ left of spades while the
# other holds only 4♠, then J♥ 5♥ 9♥: three earlier rounds burn the other spades.
EX3_HANDS = (
    "2S 3S 5S 9S KS 2H 3H 4H 6H 7H 8H TH QH KH AH 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC",
    "4S 6S 7S 8S TS JS QS AS 5H 9H JH KC AC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
)
EX3_BEFORE = "1:7S 0:2S 1:TS 0:pass 1:JS 1:6S 0:5S 1:8S 0:pass 1:AS 1:QS 0:9S 1:pass 0:stop"


def test_example_3_king_led_doubles_every_later_card() -> None:
    game = new_game(deal_of(*EX3_HANDS))
    play(game, EX3_BEFORE)
    assert game.to_act == 0 and game.public_view()["round"] == []
    assert current_suit_cards(game, 0) == ["3S", "KS"] and current_suit_cards(game, 1) == ["4S"]
    play(game, "A:KS")
    assert game.public_view()["doubling"] is True
    sums = []
    for move in ("B:4S", "A:3S", "B:JH", "A:3H"):  # both switch to hearts mid-round
        play(game, move)
        sums.append(game.public_view()["sum"])
    assert sums == [8, 14, 14, 20]
    assert values(game) == [0, 8, 6, 0, 6]
    assert current_suit_cards(game, 1) == ["5H", "9H"]
    assert legal(game) == ["pass"]  # 5 and 9 count 10 and 18
    before = game.totals[0]
    play(game, "B:pass")
    # A holds no card that keeps 20 (a doubled ace makes 22), so the round ends by
    # itself, A scoring what a stop would have scored.
    last = game.public_view()["last_round"]
    assert (last["winner"], last["sum"], last["points"]) == (0, 20, 5)
    assert game.totals[0] - before == 5


def test_example_4_queen_copies_a_king() -> None:
    game = new_game(deal_for(FIVE_QUEEN))
    sums = []
    for move in ("A:5S", "B:KS", "A:QS", "B:6S"):
        play(game, move)
        sums.append(game.public_view()["sum"])
    assert sums == [5, 10, 15, 21]
    assert values(game) == [5, 5, 5, 6]


def test_example_5_king_on_waiting_queen_starts_no_doubling() -> None:
    game = new_game(deal_for(FIVE_QUEEN))
    play(game, "A:QS B:KS A:5S")
    assert values(game) == [0, 0, 5]
    assert game.public_view()["doubling"] is False
    play(game, "B:6S")  # not doubled: 5 + 6 = 11
    assert game.public_view()["sum"] == 11


def test_example_5_queen_after_king_led_copies_zero_then_doubling() -> None:
    game = new_game(deal_for(FIVE_KING))
    play(game, "A:KS B:QS A:5S")
    assert values(game) == [0, 0, 10]
    assert game.public_view()["doubling"] is True
    assert game.public_view()["sum"] == 10


def test_example_6_king_on_ten_makes_twenty() -> None:
    game = new_game(deal_for("S:A23467T C:* D:234567"))
    play(game, "A:TS B:KS")
    assert (values(game), game.public_view()["sum"]) == ([10, 10], 20)


def test_example_6_king_on_eleven_is_illegal() -> None:
    game = new_game(deal_for("S:A23457K C:* D:234567"))
    play(game, "A:5S B:6S")
    assert game.public_view()["sum"] == 11
    assert "KS" not in legal(game)
    with pytest.raises(RulesError, match="10 or less"):
        play(game, "A:KS")


def test_example_7_making_and_holding_eleven() -> None:
    # Seat 1's only spade is 7♠: after it, its current suit is hearts.
    game = new_game(deal_for("S:2345689TJQKA C:* D:2"))
    play(game, "A:4S B:7S A:JS B:JH A:QS")
    view = game.public_view()
    assert [e["points"] for e in view["round"]] == [0, 3, 1, 1, 1]
    assert values(game) == [4, 7, 0, 0, 0]
    assert view["sum"] == 11
    assert view["scores"] == [2, 4]  # A: J and Q; B: 7 and J


# Seat 0: 2 3 4 5 7 8 10 of spades (no zero card); seat 1: 6 9 J Q K A of spades.
EX8 = "S:234578T C:* D:234567"


def test_example_8_zero_card_forced_at_21_and_costs_a_point() -> None:
    game = new_game(deal_for(EX8))
    play(game, "A:TS B:6S A:5S")
    assert game.public_view()["sum"] == 21
    assert legal(game) == ["JS"]  # Q♠ would copy the 5; only the jack keeps 21
    play(game, "B:JS")
    assert legal(game) == ["pass"]  # A has no zero card
    play(game, "A:pass")
    assert legal(game) == ["QS", "stop"]  # B continues alone: Q♠ copies the jack
    other = game.copy()
    play(game, "B:stop")
    assert game.public_view()["last_round"]["points"] == 6
    assert game.deal_points == [[0, 6]]
    # Laying the queen instead is a second zero card at 21: 7 - 2.
    play(other, "B:QS")
    assert other.public_view()["last_round"]["points"] == 5
    assert other.totals == [0, 5]


EX9_HANDS = (
    "2S 3S 7S 9S TS JS QS KS AS 2H 6H 7H KH AH 2C 3C 4C 6C 9C JC KC AC 3D 7D QD AD",
    "4S 5S 6S 8S 3H 4H 5H 8H 9H TH JH QH 5C 7C 8C TC QC 2D 4D 5D 6D 8D 9D TD JD KD",
)
EX9_BEFORE = "0:QS 1:6S 0:AS 1:4S 0:2S 1:pass 0:JS 0:7S 1:5S 0:3S 1:pass"


def ex9_position() -> Jacko:
    game = new_game(deal_of(*EX9_HANDS))
    play(game, EX9_BEFORE)
    assert game.to_act == 0 and game.public_view()["round"] == []
    play(game, "A:9S B:8S")
    assert game.public_view()["sum"] == 17
    assert current_suit_cards(game, 0) == ["TS", "KS"]
    return game


def test_example_9_pass_above_15_then_stop_or_exactly_one_card() -> None:
    game = ex9_position()
    assert legal(game) == ["pass"]
    play(game, "A:pass")
    assert "stop" in legal(game) and "4H" in legal(game)
    stopped = game.copy()
    play(stopped, "B:stop")
    assert stopped.deal_points[-1][1] - game.deal_points[-1][1] == 2

    before = game.totals[1]
    play(game, "B:4H")
    assert game.totals[1] - before == 7
    # Not two: the round is over although J♥ would keep 21.
    assert "JH" in hand(game, 1)
    view = game.public_view()
    assert view["round"] == [] and view["leader"] == 1 and game.to_act == 1


EX10_HANDS = (
    "2S 4S 6S 7S 8S 9S TS QS KS 4H TH JH KH AH 2C 4C 5C 7C 8C QC 2D 3D 7D 9D TD JD",
    "3S 5S JS AS 2H 3H 5H 6H 7H 8H 9H QH 3C 6C 9C TC JC KC AC 4D 5D 6D 8D QD KD AD",
)
EX10_BEFORE = "0:8S 1:JS 0:4S 1:AS 0:QS 1:3S 0:2S 1:pass 0:7S 1:5S 0:9S 1:pass"


def test_example_10_after_a_pass_at_15_or_less_play_is_forced_on() -> None:
    game = new_game(deal_of(*EX10_HANDS))
    play(game, EX10_BEFORE)
    assert game.to_act == 0 and game.public_view()["round"] == []
    play(game, "A:6S B:6H")
    assert game.public_view()["sum"] == 12
    assert legal(game) == ["pass"]
    play(game, "A:pass B:2H")
    assert game.public_view()["sum"] == 14
    assert "stop" not in legal(game) and "pass" not in legal(game)
    before = game.totals[1]
    play(game, "B:3H")
    assert game.public_view()["last_round"]["sum"] == 17
    assert game.totals[1] - before == 2
    assert game.to_act == 1 and game.public_view()["round"] == []


EX10B_HANDS = (
    "2S 3S 5S 6S 9S TS KS 2H 3H 4H 5H 7H 9H QH KH AH 2C 5C 7C TC JC QC 2D 5D 9D QD",
    "4S 7S 8S JS QS AS 6H 8H TH JH 3C 4C 6C 8C 9C KC AC 3D 4D 6D 7D 8D TD JD KD AD",
)
EX10B_BEFORE = ("0:2S 1:JS 0:9S 1:AS 0:3S 1:4S 0:pass 1:7S 0:KS 1:QS 0:pass 1:8S 0:5S 1:8H "
                "0:pass 1:JH")


def test_example_10_continuing_player_without_a_card_wins_for_0() -> None:
    game = new_game(deal_of(*EX10B_HANDS))
    play(game, EX10B_BEFORE)
    a = game.to_act
    assert a == 1 and game.public_view()["round"] == []
    play(game, "A:6H B:6S", a)
    assert game.public_view()["sum"] == 12
    assert current_suit_cards(game, 1 - a) == ["TS"]
    totals = game.totals
    actions = len(game.history[-1].actions)
    play(game, "A:pass", a)
    # B cannot go on: the round ends by itself, B wins it for 0, no action written.
    last = game.public_view()["last_round"]
    assert (last["winner"], last["sum"], last["points"]) == (1 - a, 12, 0)
    assert game.totals == totals
    assert len(game.history[-1].actions) == actions + 1
    assert game.to_act == 1 - a and game.public_view()["round"] == []


EX11_HANDS = (
    "4S 6S 7S 8S 9S QS 5H 8H 9H TH KH AH 2C 3C 4C 5C 6C 7C 9C JC KC 3D 5D 6D 8D JD",
    "2S 3S 5S TS JS KS AS 2H 3H 4H 6H 7H JH QH 8C TC QC AC 2D 4D 7D 9D TD QD KD AD",
)
EX11_BEFORE = (
    "1:KS 0:7S 1:JS 0:QS 1:3S 0:pass 1:2S 0:6S 1:5S 0:4S 1:AS 0:pass 1:TS 0:8S 1:2H 0:pass "
    "1:JH 1:3H 0:9S 1:6H 0:AH 1:QH 0:pass 1:4H 0:TH 1:7H 0:pass 1:8C 0:8H 1:AC 0:pass 1:QC "
    "1:TC 0:9H 1:AD 0:pass 1:QD 1:TD 0:KH 1:pass 0:5H 1:4D 0:7C 1:2D 0:2C 1:pass 0:JC 0:3C "
    "1:7D 0:KC 1:pass 0:4C 1:KD 0:6C 1:pass 0:5C 0:9C"
)


def test_example_11_empty_hand_passes_and_the_deal_ends() -> None:
    game = new_game(deal_of(*EX11_HANDS))
    play(game, EX11_BEFORE)
    a = game.to_act
    assert a == 1 and hand(game, a) == ["9D"]
    assert game.public_view()["passed"] is None and game.public_view()["sum"] == 9
    play(game, "A:9D", a)  # A's last card
    assert game.public_view()["sum"] == 18
    play(game, "B:3D", a)
    assert game.public_view()["sum"] == 21
    assert legal(game) == ["pass"]  # A's hand is empty: the pass is an action
    play(game, "A:pass", a)
    assert legal(game) == ["JD", "stop"]
    before = game.totals[1 - a]
    play(game, "B:stop", a)
    assert game.totals[1 - a] - before == 7
    assert game.needs_deal and game.to_act is None and not game.is_over
    assert game.history[-1].actions[-2:] == [(a, PASS), (1 - a, STOP)]


EX11B_HANDS = (
    "5S 7S 9S QS KS AS 5H 6H 7H TH JH QH AH 3C 4C 6C 8C JC KC 6D 9D TD JD QD KD AD",
    "2S 3S 4S 6S 8S TS JS 2H 3H 4H 8H 9H KH 2C 5C 7C 9C TC QC AC 2D 3D 4D 5D 7D 8D",
)
EX11B_BEFORE = (
    "1:2S 0:KS 1:6S 0:5S 1:3S 0:QS 1:JS 0:pass 1:4S 0:9S 1:8S 0:pass 1:TS 0:7S 1:2H 0:AS "
    "1:pass 0:AH 0:JH 1:KH 0:7H 1:9H 0:5H 1:pass 0:QH 1:8H 0:pass 1:4H 1:3H 0:6H 1:9C 0:pass "
    "1:AC 1:7C 0:TH 1:2C 0:JC 1:QC 0:pass 1:TC 0:3C 1:5C 0:pass 1:2D 1:8D 0:4C 1:5D 0:pass "
    "1:3D 1:7D 0:KC"
)


def test_example_11_opponent_without_a_card_passes_and_last_card_wins() -> None:
    game = new_game(deal_of(*EX11B_HANDS))
    play(game, EX11B_BEFORE)
    a = game.to_act
    assert len(hand(game, a)) == 1 and game.public_view()["passed"] is None
    play(game, f"A:{hand(game, a)[0]}", a)
    assert game.public_view()["sum"] == 18
    assert legal(game) == ["pass"]
    before = game.totals[a]
    play(game, "B:pass", a)
    # A cannot lay more (empty hand): A wins the round for 3, and the deal ends.
    assert game.totals[a] - before == 3
    assert game.public_view()["last_round"]["winner"] == a
    assert game.needs_deal


EX12_HANDS = (
    "3S 4S JS QS 9H JH 2C 3C 4C 6C 7C 9C JC KC AC 2D 3D 4D 5D 7D 9D TD JD QD KD AD",
    "2S 5S 6S 7S 8S 9S TS KS AS 2H 3H 4H 5H 6H 7H 8H TH QH KH AH 5C 8C TC QC 6D 8D",
)
EX12_BEFORE = "1:7S 0:4S 1:TS 0:JS 1:pass 0:QS"


def test_example_12_suit_order_switches_mid_round() -> None:
    game = new_game(deal_of(*EX12_HANDS))
    play(game, EX12_BEFORE)
    assert game.to_act == 0 and game.public_view()["round"] == []
    assert [c for c in hand(game, 0) if c[1] in "SH"] == ["3S", "9H", "JH"]
    play(game, "A:3S B:5S")
    assert game.public_view()["sum"] == 8
    assert legal(game) == ["9H", "JH"]
    with pytest.raises(RulesError, match="heart"):
        play(game, "A:2C")
    assert game.seat_view(0)["current_suit"] == "hearts"


def test_example_13_reaching_the_target_ends_the_game_at_once() -> None:
    """A player on 119 makes eleven: 122, and the game ends mid-round."""
    for seed in range(200):
        rng = random.Random(seed)
        game = Jacko(2)
        while not game.is_over:
            if game.needs_deal:
                game.start_deal(game.random_deal(rng))
                continue
            seat = game.to_act
            for action in game.legal_actions():
                if (game.totals[seat] == 119 and action not in (PASS, STOP)
                        and game.public_view()["sum"] != 11):
                    trial = game.copy()
                    trial.apply(seat, action)
                    if trial.public_view()["sum"] == 11 and trial.public_view()["round"]:
                        return check_example_13(game, seat, action)
            game.apply(seat, rng.choice(game.legal_actions()))
    pytest.fail("no random game reached 119 with a card that makes eleven")


def check_example_13(game: Jacko, seat: int, action: int) -> None:
    cards_left = game.public_view()["cards_left"]
    game.apply(seat, action)
    assert game.totals[seat] == 122
    assert game.is_over and game.winners() == [seat]
    assert game.to_act is None and game.legal_actions() == []
    assert game.public_view()["cards_left"][1 - seat] == cards_left[1 - seat] > 0
    with pytest.raises(RulesError, match="over"):
        game.apply(1 - seat, PASS)
