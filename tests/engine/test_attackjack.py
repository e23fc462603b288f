"""AttackJack: the rules file's worked examples, decisions and options, on the real engine."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import pytest

from engine import cards
from engine.attackjack import (
    FULL_DECK,
    AttackJack,
    AttackJackOptions,
    counted_ranks,
    hand_value,
    is_bomb,
)
from engine.core import PASS, STAND, STOP, TAKE, Deal, OptionError, RulesError, parse_action

# ---------------------------------------------------------------- helpers (also used by the
# other test_attackjack* files)


def parse(text: str) -> list[int]:
    """Cards from space-separated codes: ``"AS 7D"``."""
    return cards.parse_cards(text.split())


def make_deal(hands: list[str], top: str = "", first: int | None = 0) -> Deal:
    """A deal with these hands and these stock cards on top (open card first).

    The rest of the 54 cards go below in a fixed order, so that every hand-made deal
    is a whole deck.
    """
    dealt = [parse(h) for h in hands]
    on_top = parse(top)
    rest = Counter(FULL_DECK)
    rest.subtract(c for hand in dealt for c in hand)
    rest.subtract(on_top)
    assert all(v >= 0 for v in rest.values()), "a test deal uses a card twice"
    return Deal(hands=dealt, stock=on_top + sorted(rest.elements()), first=first)


def new_game(hands: list[str], top: str = "", first: int = 0, **options: object) -> AttackJack:
    game = AttackJack(len(hands), AttackJackOptions(**options))
    game.start_deal(make_deal(hands, top, first))
    return game


def play(hands: list[str], top: str = "", first: int = 0, **options: object) -> AttackJack:
    """A standard (forced) game with these cards, played to the showdown."""
    game = new_game(hands, top, first, **options)
    game.run_auto_steps()
    assert game.is_over
    return game


def seat_info(game: AttackJack, seat: int) -> dict:
    return game.public_view()["seats"][seat]


def value_of(text: str) -> int:
    return hand_value(parse(text))


# ---------------------------------------------------------------- worked examples


@pytest.mark.parametrize(("hand", "value"), [("AS 7D", 18), ("AS 7D 4C", 12), ("AS 7D 3C", 21)])
def test_example_1_hand_values(hand: str, value: int) -> None:
    assert value_of(hand) == value


def test_example_1_on_the_table() -> None:
    # A 7 (18) must take: the open 4 makes 12; the next A 7 takes the 3 turned up: 21.
    game = play(["AS 7D", "AH 7C"], top="4C 3C")
    assert seat_info(game, 0)["cards"] == ["AS", "7D", "4C"]
    assert seat_info(game, 0)["value"] == 12
    assert seat_info(game, 1)["value"] == 21
    assert game.winners() == [1]


@pytest.mark.parametrize(("hand", "value"),
                         [("5S 8H 8D", 13), ("KS KH TD", 20), ("QS QH AD", 21), ("AS 5H 5D", 16)])
def test_example_2_hand_values(hand: str, value: int) -> None:
    assert value_of(hand) == value


def test_example_2_on_the_table() -> None:
    # 5 8 takes an 8 (13, still in); K K (10) takes a 10 (20); Q Q takes an A (21); A 5 takes a 5.
    game = play(["5S 8H", "KS KH", "QS QH", "AS 5H"], top="8D TD AD 5D")
    assert [seat_info(game, s)["status"] for s in range(4)] == ["took"] * 4
    assert [seat_info(game, s)["value"] for s in range(4)] == [13, 20, 21, 16]
    assert game.winners() == [2]


def test_example_3_joker_is_a_bomb() -> None:
    assert is_bomb(parse("JK 5S"))
    assert value_of("JK 5S") == 21
    # Joker, 5 keeps its two cards; 10 9 takes the open joker: a bomb, not out.
    game = play(["JK 5S", "TS 9S"], top="JK")
    assert seat_info(game, 0)["status"] == "kept"
    assert game.hand(0) == parse("JK 5S")
    assert seat_info(game, 1)["status"] == "took"
    assert seat_info(game, 1)["bomb"] is True
    assert game.winners() == [0, 1]  # several bombs share


def test_example_4_over_21_is_out() -> None:
    game = play(["TS 6S", "2H 3H"], top="9C")
    assert seat_info(game, 0)["status"] == "out"
    assert seat_info(game, 0)["value"] == 25
    assert game.winners() == [1]


def test_example_5_two_card_21_beats_other_21s() -> None:
    # A K keeps and beats A Q (also kept) and K 10 A (21 in three cards).
    game = play(["AS KS", "AH QH", "KD TD"], top="AD")
    assert [seat_info(game, s)["status"] for s in range(3)] == ["kept", "kept", "took"]
    assert [seat_info(game, s)["value"] for s in range(3)] == [21, 21, 21]
    assert game.winners() == [0]
    # A K > K 10 A (shorter list wins the common prefix A K) and K 10 A > A Q (K > Q).
    assert game.ranking() == [0, 2, 1]


def test_example_5_shorter_list_wins_common_prefix() -> None:
    game = play(["KD TD", "AS KS"], top="AD")  # K 10 A acts first, A K second
    assert game.winners() == [1]


def test_example_6_equal_21s_by_counted_cards() -> None:
    game = play(["KS 6S", "QH 9H"], top="5S 2H")
    assert [seat_info(game, s)["value"] for s in range(2)] == [21, 21]
    assert game.winners() == [0]


def test_example_6_identical_lists_share() -> None:
    game = play(["TS 6S", "TH 6H"], top="5S 5H")
    assert game.winners() == [0, 1]
    assert game.ranking() == [0, 0]


def test_example_7_no_21_highest_total_then_ranks() -> None:
    game = play(["KS 7S", "KH 6H"], top="2S 4H")  # 19 against 20
    assert game.winners() == [1]
    game = play(["KS 7S", "TH 5H"], top="2S 4H")  # 19 against 19: K beats 10
    assert [seat_info(game, s)["value"] for s in range(2)] == [19, 19]
    assert game.winners() == [0]


def test_example_8_three_players() -> None:
    game = new_game(["AS 7D", "KC 5H", "9C 9D"], top="4C 9H 3S")
    assert game.public_view()["open_card"] == "4C"
    game.auto_step()
    assert game.hand(0) == parse("AS 7D 4C")
    assert game.public_view()["open_card"] == "9H"  # the deck's next card turned up
    game.auto_step()
    assert seat_info(game, 1) == {
        "cards": ["KC", "5H", "9H"], "hidden": 0, "status": "out", "value": 24, "bomb": False}
    assert not game.is_over
    game.auto_step()
    assert seat_info(game, 2)["value"] == 12
    assert game.is_over
    assert game.winners() == [0]  # A 7 4 beats 9 3: the ace is highest even counting 1
    assert game.deal_points == [[1, 0, 0]]


@pytest.mark.parametrize(("stake", "first", "net"), [
    (10, 0, [5, 5, -10]),
    (5, 0, [3, 2, -5]),   # 8 to the sharer who acted first, 7 to the other
    (5, 1, [2, 3, -5]),   # seat 1 acted first: it gets the remainder
    (5, 2, [3, 2, -5]),   # seat 2 (the loser) first, then seat 0 before seat 1
])
def test_example_9_shared_bank(stake: int, first: int, net: list[int]) -> None:
    game = play(["AS KS", "AH KH", "2C 3C"], top="4C", first=first, stake=stake)
    assert game.winners() == [0, 1]
    assert game.deal_points == [net]
    view = game.public_view()
    assert view["bank"] == 3 * stake
    assert sum(view["payout"]) == view["bank"]


def test_example_10_everyone_out() -> None:
    game = play(["TS 6S", "KH 5H"], top="9C 8D", stake=10)
    assert [seat_info(game, s)["status"] for s in range(2)] == ["out", "out"]
    assert game.winners() == []
    assert game.deal_points == [[0, 0]]
    assert game.public_view()["payout"] == [10, 10]  # every stake returned
    assert game.ranking() == [0, 0]


# ---------------------------------------------------------------- hand values, decisions


def test_decision_same_rank_not_same_points() -> None:
    assert value_of("KS QS") == 20
    # K Q counts 20 (not 10), so taking a 2 puts it out.
    game = play(["KS QS", "2H 3H"], top="2S")
    assert seat_info(game, 0)["status"] == "out"
    assert seat_info(game, 0)["value"] == 22


@pytest.mark.parametrize(("hand", "value"), [
    ("AS AH", 11), ("7S 7H 7D", 7), ("AS AH KD", 21),  # the rules' own list
    ("AS AH 9D", 20),  # duplicates first, then the ace: 11 + 9
    ("AS 5H 6D", 12),  # 11 would make 22: the ace counts 1
    ("JS QH KD", 30), ("2S 3H", 5),
])
def test_duplicates_removed_before_the_ace(hand: str, value: int) -> None:
    assert value_of(hand) == value


def test_two_cards_never_over_21() -> None:
    # Why the "over 21 at the start of a turn" branch never fires: every two cards count <= 21.
    assert max(hand_value([a, b]) for a in FULL_DECK for b in FULL_DECK) == 21


def test_ace_is_highest_rank_even_counting_one() -> None:
    assert counted_ranks(parse("AS 5H 6D")) == (14, 6, 5)
    assert counted_ranks(parse("5S 8H 8D")) == (8, 5)  # duplicates removed


def test_equal_totals_ace_counting_one_beats_king() -> None:
    # A 5 6 (12, the ace counting 1) against K 2 (12): the ace is the higher rank.
    game = AttackJack(2, AttackJackOptions(choice=True))
    game.start_deal(make_deal(["AS 5H", "KD 2D"], top="6D"))
    game.apply(0, TAKE)
    game.apply(1, STAND)
    assert [seat_info(game, s)["value"] for s in range(2)] == [12, 12]
    assert game.winners() == [0]


def test_bomb_beats_21_and_other_cards_do_not_matter() -> None:
    game = play(["AS KS", "2C JK"], top="3C")
    assert game.winners() == [1]
    game = play(["QH JK", "2C JK"], top="3C")
    assert game.winners() == [0, 1]


def test_bomb_does_not_stop_the_round() -> None:
    # The showdown waits for every turn even when a bomb appears at once.
    game = new_game(["JK 2S", "TS 5S", "9H 8H"], top="3C 2H")
    game.auto_step()
    assert not game.is_over and game.has_auto_step
    game.run_auto_steps()
    assert game.hand(1) == parse("TS 5S 3C")
    assert game.hand(2) == parse("9H 8H 2H")
    assert game.winners() == [0]


def test_turns_go_left_from_the_first_once_around() -> None:
    game = new_game(["2S 3S", "2H 3H", "2C 3C", "2D 3D"], top="4S 4H 4C 4D 5S", first=2)
    seats = []
    while game.has_auto_step:
        assert game.public_view()["turn"] == game.public_view()["order"][len(seats)]
        game.auto_step()
        seats.append(game.public_view()["last_action"]["seat"])
    assert seats == [2, 3, 0, 1]
    assert game.public_view()["order"] == [2, 3, 0, 1]
    assert [game.hand(s)[2] for s in (2, 3, 0, 1)] == parse("4S 4H 4C 4D")
    assert game.public_view()["open_card"] == "5S"
    assert game.public_view()["turn"] is None


def test_three_way_share_remainder_to_first_sharer() -> None:
    # Stake 7, four players: a bank of 28 shared by three: 9 each and 1 to the first sharer.
    game = play(["AS KS", "2C 3C", "AH KH", "AD KD"], top="4C", first=3, stake=7)
    assert game.winners() == [0, 2, 3]
    assert game.public_view()["payout"] == [9, 0, 9, 10]
    assert game.deal_points == [[2, -7, 2, 3]]


def test_no_stake_points_one_per_winner() -> None:
    game = play(["AS KS", "2C 3C", "AH KH"], top="4C")
    assert game.deal_points == [[1, 0, 1]]
    assert game.totals == [1, 0, 1]


def test_deal_points_nothing_until_the_showdown() -> None:
    game = AttackJack(3, AttackJackOptions(stake=4))
    assert game.deal_points == []
    game.start_deal(make_deal(["AS KS", "2C 3C", "AH QH"], top="4C"))
    game.auto_step()
    assert game.deal_points == [[0, 0, 0]]
    assert game.winners() == []
    game.run_auto_steps()
    assert game.deal_points == [[8, -4, -4]]


def test_ranking_out_seats_share_last_place() -> None:
    game = play(["TS 6S", "KH 5H", "2C 3C", "AS KS"], top="9C 8D 4D")
    assert [seat_info(game, s)["status"] for s in range(4)] == ["out", "out", "took", "kept"]
    assert game.ranking() == [2, 2, 1, 0]


# ---------------------------------------------------------------- choice


def test_choice_player_under_21_chooses() -> None:
    game = new_game(["TS 6S", "AH KH", "2C 3C"], top="9C 4D", choice=True)
    assert game.to_act == 0 and not game.has_auto_step
    assert game.legal_actions() == [TAKE, STAND]
    assert game.seat_view(0)["legal"] == ["take", "stand"]
    assert game.seat_view(1)["legal"] == []
    game.apply(0, STAND)  # 16 stands: the open 9 stays for the next one
    assert game.hand(0) == parse("TS 6S")
    assert game.public_view()["open_card"] == "9C"
    # A K (21) has no step: the engine keeps it.
    assert game.to_act is None and game.has_auto_step
    game.auto_step()
    assert seat_info(game, 1)["status"] == "kept"
    assert game.to_act == 2
    game.apply(2, TAKE)
    assert game.hand(2) == parse("2C 3C 9C")
    assert game.is_over
    assert game.winners() == [1]
    assert game.to_record()["deals"][0]["actions"] == [[0, "stand"], [2, "take"]]


def test_choice_take_can_go_out() -> None:
    game = new_game(["TS 6S", "2C 3C"], top="9C", choice=True)
    game.apply(0, TAKE)
    assert seat_info(game, 0)["status"] == "out"
    assert game.public_view()["last_action"] == {"seat": 0, "action": "take", "forced": False}


def test_choice_bomb_has_no_step() -> None:
    game = new_game(["JK 2S", "2C 3C"], top="9C", choice=True)
    assert game.to_act is None and game.has_auto_step
    assert game.legal_actions() == []


def test_without_choice_nobody_acts() -> None:
    game = new_game(["TS 6S", "2C 3C"], top="9C")
    assert game.to_act is None and game.legal_actions() == []
    with pytest.raises(RulesError, match="Nobody is to act"):
        game.apply(0, TAKE)
    assert game.why_illegal(TAKE) == "Nobody is to act now: the turns are played for you."


@pytest.mark.parametrize(("action", "reason"), [
    (PASS, "There is no pass in AttackJack: choose take or stand."),
    (STOP, "There is no stop in AttackJack: choose take or stand."),
    (parse_action("AS"), "You do not play cards in AttackJack: choose take or stand."),
])
def test_choice_illegal_actions_explained_and_change_nothing(action: int, reason: str) -> None:
    game = new_game(["TS 6S", "2C 3C"], top="9C", choice=True)
    before = game.public_view()
    with pytest.raises(RulesError) as refused:
        game.apply(0, action)
    assert str(refused.value) == reason
    with pytest.raises(RulesError, match="not your turn"):
        game.apply(1, TAKE)
    assert game.public_view() == before
    assert game.to_record()["deals"][0]["actions"] == []


def test_auto_step_refused_when_a_player_must_choose() -> None:
    game = new_game(["TS 6S", "2C 3C"], top="9C", choice=True)
    with pytest.raises(RulesError, match="no forced step"):
        game.auto_step()


# ---------------------------------------------------------------- blind


def test_blind_second_dealt_card_is_face_down() -> None:
    game = new_game(["TS 6S", "AH JK"], top="9C", blind=True)
    view = game.public_view()
    assert view["seats"][0] == {"cards": ["TS"], "hidden": 1, "status": "waiting",
                                "value": None, "bomb": False}
    assert view["seats"][1]["cards"] == ["AH"]
    assert view["seats"][1]["bomb"] is False  # the joker is face down
    mine = game.seat_view(1)
    assert mine["hand"] == ["AH", "JK"]
    assert mine["face_down"] == "JK" and mine["hand_value"] == 21
    theirs = game.seat_view(0)
    assert theirs["face_down"] == "6S"
    assert "JK" not in json.dumps(theirs)
    assert "6S" not in json.dumps(mine)


def test_blind_card_stays_hidden_when_out_then_shows_at_showdown() -> None:
    game = new_game(["TS 6S", "AH 2H"], top="9C 3D", blind=True)
    game.auto_step()
    view = game.public_view()
    assert view["seats"][0]["status"] == "out"
    assert view["seats"][0]["cards"] == ["TS", "9C"]  # the taken card was face up
    assert "6S" not in json.dumps(view)
    game.run_auto_steps()
    view = game.public_view()
    assert view["seats"][0] == {"cards": ["TS", "6S", "9C"], "hidden": 0, "status": "out",
                                "value": 25, "bomb": False}
    assert view["seats"][1]["cards"] == ["AH", "2H", "3D"]
    assert game.seat_view(1)["face_down"] is None


def test_random_deal_blind_card_is_second_round() -> None:
    # The dealer deals one round, then the second (face-down) round: seat s gets deck[s], deck[n+s].
    game = AttackJack(3, AttackJackOptions(blind=True))
    deal = game.random_deal(random.Random(5))
    deck = list(FULL_DECK)
    rng = random.Random(5)
    rng.shuffle(deck)
    assert deal.hands == [[deck[0], deck[3]], [deck[1], deck[4]], [deck[2], deck[5]]]
    assert deal.stock == deck[6:]
    assert deal.first == rng.randrange(3)


# ---------------------------------------------------------------- the deal


@pytest.mark.parametrize(("change", "reason"), [
    (lambda d: setattr(d, "first", None), "which seat won the lot"),
    (lambda d: setattr(d, "first", 3), "first seat to act must be a seat from 0 to 2"),
    (lambda d: d.hands.pop(), "one hand for each of the 3 seats"),
    (lambda d: d.hands[1].append(d.stock.pop()), "seat 1 has 3"),
    (lambda d: d.hands[2].pop(), "seat 2 has 1"),
    (lambda d: d.stock.__setitem__(5, d.hands[0][0]), "AS is dealt 2 times"),
    (lambda d: d.stock.append(cards.JOKER), "JK is dealt 3 times"),
    (lambda d: d.stock.remove(cards.JOKER), "JK is missing"),
    (lambda d: d.stock.pop(), "is missing"),
    (lambda d: d.stock.__setitem__(0, 60), "60 is not a card"),
])
def test_deal_refused(change, reason: str) -> None:
    game = AttackJack(3)
    deal = make_deal(["AS KS", "2C 3C", "AH QH"], top="4C")
    change(deal)
    with pytest.raises(RulesError, match=reason):
        game.start_deal(deal)
    assert game.needs_deal and game.public_view()["first"] is None


def test_random_deal_uses_the_rng_only() -> None:
    game = AttackJack(5)
    before = game.public_view()
    deals = [game.random_deal(random.Random(seed)) for seed in range(40)]
    assert game.public_view() == before and game.needs_deal
    again = game.random_deal(random.Random(7))
    assert again == deals[7]
    assert {d.first for d in deals} == set(range(5))  # the lot is drawn, not fixed
    for deal in deals:
        assert Counter(c for h in deal.hands for c in h) + Counter(deal.stock) == Counter(FULL_DECK)
    game.start_deal(deals[0])
    assert not game.needs_deal
    with pytest.raises(RulesError, match="not finished"):
        game.start_deal(deals[1])


def test_no_second_deal() -> None:
    game = play(["AS KS", "2C 3C"], top="4C")
    assert not game.needs_deal
    with pytest.raises(RulesError, match="game is over"):
        game.start_deal(make_deal(["AS KS", "2C 3C"]))


# ---------------------------------------------------------------- options and players


def test_options_declared_as_the_rules_file_says() -> None:
    fields = {f.name: f for f in dataclasses.fields(AttackJackOptions)}
    assert {name: f.default for name, f in fields.items()} == {
        "blind": False, "stake": 0, "choice": False}
    assert fields["stake"].metadata["minimum"] == 0
    for f in fields.values():
        assert 0 < len(f.metadata["help"]) <= 100


@pytest.mark.parametrize(("raw", "reason"), [
    ({"stake": -1}, "at least 0"), ({"stake": "5"}, "whole number"),
    ({"blind": 1}, "true or false"), ({"bank": 3}, "no option called"),
])
def test_options_strictly_typed(raw: dict, reason: str) -> None:
    with pytest.raises(OptionError, match=reason):
        AttackJackOptions.from_dict(raw, 4)


@pytest.mark.parametrize("players", [1, 18])
def test_player_count_refused(players: int) -> None:
    with pytest.raises(OptionError, match="2 to 17 players"):
        AttackJack(players)


def test_seventeen_players_never_run_out_of_cards() -> None:
    hands = [f"{r}S {r}H" for r in "23456789TJQKA"] + ["2C 3C", "4C 5C", "6C 7C", "8C 9C"]
    game = play(hands)
    assert all(seat_info(game, s)["status"] != "waiting" for s in range(17))
    assert game.public_view()["open_card"] is not None


# ---------------------------------------------------------------- views and copies


def test_views_json_safe_with_the_documented_keys() -> None:
    game = new_game(["TS 6S", "AH KH"], top="9C", stake=3, choice=True, first=1)
    view = game.public_view()
    assert json.loads(json.dumps(view)) == view
    assert view | {"seats": None} == {
        "game": "attackjack", "title": "AttackJack", "players": 2,
        "options": {"blind": False, "stake": 3, "choice": True}, "deal": 0,
        "first": 1, "order": [1, 0], "turn": 1, "to_act": None, "open_card": "9C",
        "deck": 54 - 4 - 1, "stake": 3, "bank": 6, "seats": None, "payout": None,
        "scores": [0, 0], "totals": [0, 0], "over": False, "winners": [], "last_action": None,
    }
    game.auto_step()
    view = game.seat_view(0)
    assert view["to_act"] == 0 and view["legal"] == ["take", "stand"]
    assert view["last_action"] == {"seat": 1, "action": "keep", "forced": True}
    assert view["hand"] == ["6S", "TS"]  # sorted_hand order
    game.apply(0, TAKE)
    view = game.public_view()
    assert view["over"] and view["winners"] == [1] and view["turn"] is None
    assert view["deck"] == 54 - 4 - 2 and view["open_card"] == cards.code(
        make_deal(["TS 6S", "AH KH"], top="9C").stock[1])
    assert view["scores"] == [-3, 3] and view["payout"] == [0, 6]


def test_seat_view_refuses_unknown_seat() -> None:
    with pytest.raises(RulesError):
        AttackJack(2).seat_view(2)


def test_copy_is_independent_and_keeps_no_history() -> None:
    game = new_game(["TS 6S", "AH KH", "2C 3C"], top="9C 4D", choice=True)
    twin = game.copy()
    before = game.public_view()
    assert twin.history is None
    assert twin.public_view() == before
    twin.apply(0, TAKE)
    twin.run_auto_steps()
    twin.apply(2, STAND)
    assert twin.is_over
    assert game.public_view() == before  # hands, statuses, the open card: all untouched
    assert game.hand(0) == parse("TS 6S") and game.to_act == 0 and not game.is_over
    game.apply(0, TAKE)
    game.run_auto_steps()
    game.apply(2, STAND)
    assert twin.public_view() == game.public_view()
    with pytest.raises(RulesError, match="no history"):
        twin.to_record()
