"""California Jack: the worked examples of the rules file and the rules one by one.

Whole deals are written as *scripts*: 26 tricks, each ``"W XX YY"`` = seat W wins
the trick playing XX, the other seat plays YY. ``scripted`` turns a script into
the hands, the stock and the actions that make it happen (each seat's cards are
dealt or drawn in the order it plays them), and ``play`` drives the real engine
through it, checking that the engine gives every trick to the scripted winner.
If the engine drew the wrong card, resolved a trick wrongly or refused a legal
card, the script would break.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.california_jack import CaliforniaJack, CaliforniaJackOptions
from engine.cards import DECK, JOKER, parse_card, parse_cards
from engine.core import Deal, OptionError, RulesError

Action = tuple[int, int]
Script = tuple[Deal, list[Action], list[int]]


# ---------------------------------------------------------------- script helpers


def scripted(leader: int, tricks: list[str]) -> Script:
    """The deal and actions of a 26-trick script led first by ``leader``."""
    assert len(tricks) == 26
    plays: list[list[int]] = [[], []]
    actions: list[Action] = []
    winners: list[int] = []
    for trick in tricks:
        seat, win_code, lose_code = trick.split()
        winner = int(seat)
        own = {winner: parse_card(win_code), 1 - winner: parse_card(lose_code)}
        actions += [(leader, own[leader]), (1 - leader, own[1 - leader])]
        plays[0].append(own[0])
        plays[1].append(own[1])
        winners.append(winner)
        leader = winner
    # A seat's k-th card (k >= 6) is its draw after trick k - 6: winner first, loser next.
    stock = []
    for j in range(20):
        w = winners[j]
        stock += [plays[w][6 + j], plays[1 - w][6 + j]]
    return Deal([plays[0][:6], plays[1][:6]], stock), actions, winners


PAIRS = ("AK", "QJ", "T9", "87", "65", "43")  # trick points per suit: 7, 3, 10, 0, 0, 0


def pair_script(trump: str, winners: dict[str, str], low: int) -> list[str]:
    """24 same-suit tricks (the higher card wins), then the four 2s.

    ``winners[suit]`` names the winner of each pair of ``PAIRS`` in that suit.
    Trick 6 is a trump pair, so the stock's top card (the 7th card of trick 0's
    winner) is a trump. ``low`` wins trick 23, then leads the 2 of trumps and
    another 2 and wins both: the other seat holds two non-trump 2s.
    """
    tricks = {s: [f"{w} {hi}{s} {lo}{s}" for w, (hi, lo) in zip(winners[s], PAIRS, strict=True)]
              for s in "SHCD"}
    others = [t for s in "SHCD" if s != trump for t in tricks[s]]
    order = others[:6] + tricks[trump][:1] + others[6:] + tricks[trump][1:]
    last = max(k for k, t in enumerate(order) if k != 6 and t.startswith(str(low)))
    order.append(order.pop(last))
    x, y, z = (s for s in "SHCD" if s != trump)
    return [*order, f"{low} 2{trump} 2{x}", f"{low} 2{y} 2{z}"]


def sweep(seat: int) -> list[str]:
    """``seat`` wins all 26 tricks (spades trump): 4 game points to it."""
    return pair_script("S", dict.fromkeys("SHCD", str(seat) * 6), seat)


def play(game: CaliforniaJack, script: Script) -> None:
    """Start the script's deal and play it, checking every trick's winner."""
    deal, actions, winners = script
    game.start_deal(deal)
    for index, (seat, action) in enumerate(actions):
        game.apply(seat, action)
        if index % 2:
            assert game.public_view()["last_trick"]["winner"] == winners[index // 2], index


def deal_from(hand0: str, hand1: str, stock_top: str) -> Deal:
    """Two hands and the stock's top cards as written; the rest of the deck below them."""
    hands = [parse_cards(hand0.split()), parse_cards(hand1.split())]
    top = parse_cards(stock_top.split())
    rest = [c for c in DECK if c not in set(hands[0] + hands[1] + top)]
    return Deal(hands, top + rest)


def new_game(first_dealer: int = 1, **options: object) -> CaliforniaJack:
    """Seat 0 (the non-dealer with the default first_dealer=1) leads the first trick."""
    return CaliforniaJack(2, CaliforniaJackOptions(**options), first_dealer=first_dealer)


def hand(game: CaliforniaJack, seat: int) -> set[str]:
    return set(game.seat_view(seat)["hand"])


# ---------------------------------------------------------------- worked examples


def test_example_1_stock_top_names_trumps_and_goes_to_the_first_winner() -> None:
    game = new_game()
    game.start_deal(deal_from("AH KH QH JH TH 9H", "2C 3S 4S 5S 6S 7S", "5C 8S"))
    view = game.public_view()
    assert (view["trump"], view["stock_top"], view["stock_size"]) == ("C", "5C", 40)
    game.apply(0, parse_card("AH"))
    game.apply(1, parse_card("2C"))  # no heart: the two of trumps beats the ace of hearts
    view = game.public_view()
    assert view["last_trick"] == {"cards": [{"seat": 0, "card": "AH"}, {"seat": 1, "card": "2C"}],
                                  "winner": 1}
    assert view["draws"] == [{"seat": 1, "card": "5C"}, {"seat": 0, "card": "8S"}]
    assert "5C" in hand(game, 1) and "8S" in hand(game, 0)
    # Trumps stay clubs for the whole deal although the stock's top is no longer a club.
    assert view["trump"] == "C" and view["stock_top"] != "5C" and view["stock_size"] == 38
    assert view["to_act"] == 1 and view["leader"] == 1


def test_example_2_strict_follow_suit() -> None:
    game = new_game()
    game.start_deal(deal_from("KD AH KH QH JH TH", "3D 2C 3S 4S 3H 4H", "5C"))
    game.apply(0, parse_card("KD"))
    assert game.seat_view(1)["legal"] == ["3D"]
    assert game.why_illegal(parse_card("2C")) == "You must follow suit: play a diamond."
    with pytest.raises(RulesError, match=r"You must follow suit: play a diamond\."):
        game.apply(1, parse_card("2C"))


def test_example_2_follow_or_trump_allows_the_trump_too() -> None:
    game = new_game(follow_or_trump=True)
    game.start_deal(deal_from("KD AH KH QH JH TH", "3D 2C 3S 4S 3H 4H", "5C"))
    game.apply(0, parse_card("KD"))
    assert game.seat_view(1)["legal"] == ["2C", "3D"]
    assert game.why_illegal(parse_card("3S")) == (
        "You must follow suit or trump: play a diamond or a club.")
    game.apply(1, parse_card("2C"))
    assert game.public_view()["last_trick"]["winner"] == 1


def test_example_3_void_in_the_suit_led_plays_anything() -> None:
    game = new_game()
    game.start_deal(deal_from("9S AH KH QH JH TH", "2C AD 3H 4H 5H 6H", "5C"))
    game.apply(0, parse_card("9S"))
    assert sorted(game.legal_actions()) == sorted(parse_cards(["2C", "AD", "3H", "4H", "5H", "6H"]))
    trumped, discarded = game.copy(), game.copy()
    trumped.apply(1, parse_card("2C"))
    discarded.apply(1, parse_card("AD"))
    assert trumped.public_view()["last_trick"]["winner"] == 1
    assert discarded.public_view()["last_trick"]["winner"] == 0


EXAMPLE_4 = [
    # A (seat 0) captures 10♠ A♠ Q♠ A♥ K♣ 10♣ J♣ K♦ 10♦ J♦ (48); B the rest (32) with 2♥ J♥.
    "0 AS TS", "0 QS 2S", "1 KS 3S", "1 JS 4S", "0 9S 8S", "1 7S 6S",
    "0 AH 3H", "1 KH QH", "1 TH 2H", "1 JH 4H", "0 9H 8H", "1 7H 6H",
    "1 AC QC", "0 KC TC", "0 JC 2C", "0 9C 8C", "1 7C 6C", "0 5C 4C",
    "1 AD QD", "0 KD TD", "0 JD 2D", "0 9D 8D", "1 7D 6D", "0 5D 4D",
    # A leads the last trump; B has two non-hearts left, so any card goes.
    "0 5H 5S", "0 3C 3D",
]


def test_example_4_high_and_game_to_a_low_and_jack_to_b() -> None:
    game = new_game()
    play(game, scripted(0, EXAMPLE_4))
    assert game.public_view()["trump"] == "H"
    result = game.public_view()["last_result"]
    assert result["trick_points"] == [48, 32]
    assert (result["high"], result["game"], result["low"], result["jack"]) == (0, 0, 1, 1)
    assert game.deal_points == [[2, 2]]


def test_example_5_equal_trick_points_score_no_game() -> None:
    # Hearts trump; A wins the A-K, Q-J and 10-9 of hearts and all spades (40), B the rest.
    script = pair_script("H", {"S": "000000", "H": "000111", "C": "111111", "D": "111111"}, 1)
    game = new_game()
    play(game, scripted(0, script))
    result = game.public_view()["last_result"]
    assert result["trick_points"] == [40, 40]
    assert result["game"] is None
    assert (result["high"], result["jack"], result["low"]) == (0, 0, 1)
    assert game.deal_points == [[2, 1]]


# Seat 1 wins every trick with points (80 trick points) but seat 0 wins 14 tricks.
SIMPLE_14_12 = pair_script("S", {s: "111000" for s in "SHCD"}, 0)
# Seat 1 also wins the 8-7 of spades: 13-13.
SIMPLE_13_13 = pair_script("S", {"S": "111100", "H": "111000", "C": "111000", "D": "111000"}, 0)


def test_example_6_simple_more_tricks_wins_game() -> None:
    game = new_game(scoring="simple")
    play(game, scripted(0, SIMPLE_14_12))
    result = game.public_view()["last_result"]
    assert result["tricks"] == [14, 12] and result["trick_points"] == [0, 80]
    assert result["game"] == 0
    assert game.deal_points == [[2, 2]]  # Low and Game / High and Jack


def test_example_6_standard_counts_trick_points_on_the_same_deal() -> None:
    game = new_game()
    play(game, scripted(0, SIMPLE_14_12))
    assert game.public_view()["last_result"]["game"] == 1
    assert game.deal_points == [[1, 3]]


def test_example_6_simple_equal_tricks_score_no_game() -> None:
    game = new_game(scoring="simple")
    play(game, scripted(0, SIMPLE_13_13))
    result = game.public_view()["last_result"]
    assert result["tricks"] == [13, 13] and result["game"] is None
    assert game.deal_points == [[1, 2]]


# Deals with known game points (spades trump, pair scripts).
FOUR_ZERO = sweep(0)
ZERO_FOUR = sweep(1)
ZERO_THREE = pair_script("S", {"S": "111111", "H": "111111", "C": "000000", "D": "000000"}, 1)
THREE_ONE = pair_script("S", {"S": "000000", "H": "000000", "C": "000000", "D": "111111"}, 1)
TWO_ONE = pair_script("S", {"S": "000000", "H": "000000", "C": "111111", "D": "111111"}, 1)


def play_deals(game: CaliforniaJack, scripts: list[list[str]]) -> None:
    """Play whole deals; the leader of each is the non-dealer, as the rules say."""
    for script in scripts:
        dealer = (game.first_dealer + len(game.deal_points)) % 2
        play(game, scripted(1 - dealer, script))


def eight_nine() -> CaliforniaJack:
    """A game at 8–9 after five deals (target 10)."""
    game = new_game(first_dealer=0)
    play_deals(game, [FOUR_ZERO, FOUR_ZERO, ZERO_THREE, ZERO_THREE, ZERO_THREE])
    assert game.deal_points == [[4, 0], [4, 0], [0, 3], [0, 3], [0, 3]]
    assert game.totals == [8, 9] and game.needs_deal and not game.is_over
    return game


def test_example_7_both_past_target_the_higher_wins() -> None:
    game = eight_nine()
    play_deals(game, [THREE_ONE])
    assert game.totals == [11, 10]
    assert game.is_over and game.winners() == [0] and not game.needs_deal
    assert game.ranking() == [0, 1]
    with pytest.raises(RulesError, match="over"):
        game.start_deal(game.random_deal(random.Random(1)))


def test_example_7_equal_past_target_another_deal() -> None:
    game = eight_nine()
    play_deals(game, [TWO_ONE])
    assert game.totals == [10, 10]
    assert not game.is_over and game.needs_deal and game.winners() == []
    play_deals(game, [ZERO_FOUR])
    assert game.totals == [10, 14] and game.is_over and game.winners() == [1]


def test_example_8_every_scripted_deal_adds_up() -> None:
    # Random deals are checked in test_california_jack_props.py; here the hand-made ones.
    for script, points in ((EXAMPLE_4, 4), (FOUR_ZERO, 4), (ZERO_THREE, 3), (TWO_ONE, 3)):
        game = new_game()
        play(game, scripted(0, script))
        result = game.public_view()["last_result"]
        assert sum(result["tricks"]) == 26 and sum(result["trick_points"]) == 80
        assert sum(game.deal_points[0]) == points


# ---------------------------------------------------------------- dealing and turn order


def test_dealer_alternates_from_the_first_dealer_and_the_non_dealer_leads() -> None:
    for first_dealer in (0, 1):
        game = new_game(first_dealer=first_dealer)
        dealers, leaders = [], []
        rng = random.Random(first_dealer)
        for _ in range(3):
            game.start_deal(game.random_deal(rng))
            view = game.public_view()
            dealers.append(view["dealer"])
            leaders.append(view["to_act"])
            while game.to_act is not None:
                game.apply(game.to_act, rng.choice(game.legal_actions()))
        assert dealers == [first_dealer, 1 - first_dealer, first_dealer]
        assert leaders == [1 - d for d in dealers]


def test_winner_draws_the_visible_top_then_the_loser_the_next() -> None:
    game = new_game()
    deal = deal_from("AH KH QH JH TH 9H", "2H 3S 4S 5S 6S 7S", "5C 8S 9S")
    game.start_deal(deal)
    game.apply(0, parse_card("AH"))
    game.apply(1, parse_card("2H"))  # must follow hearts, loses
    assert game.public_view()["draws"] == [{"seat": 0, "card": "5C"}, {"seat": 1, "card": "8S"}]
    assert "5C" in hand(game, 0) and "8S" in hand(game, 1)
    assert game.public_view()["stock_top"] == "9S"
    assert game.public_view()["known"] == [["5C"], ["8S"]]


def test_last_six_tricks_are_played_without_drawing() -> None:
    game = new_game()
    deal, actions, _ = scripted(0, sweep(0))
    game.start_deal(deal)
    sizes = []
    for index, (seat, action) in enumerate(actions):
        game.apply(seat, action)
        if index % 2:
            view = game.public_view()
            sizes.append((view["stock_size"], view["hand_sizes"], len(view["draws"])))
    assert sizes[19] == (0, [6, 6], 2)  # the 20th trick takes the last two cards
    assert sizes[20:] == [(0, [n, n], 0) for n in (5, 4, 3, 2, 1, 0)]
    assert game.public_view()["stock_top"] is None


def test_a_deal_cut_short_scores_nothing() -> None:
    game = new_game()
    deal, actions, _ = scripted(0, sweep(0))
    game.start_deal(deal)
    for seat, action in actions[:51]:
        game.apply(seat, action)
    assert game.deal_points == [[0, 0]] and game.totals == [0, 0]
    assert game.public_view()["last_result"] is None
    game.apply(*actions[51])
    assert game.deal_points == [[4, 0]]


def test_cannot_deal_while_a_deal_runs() -> None:
    game = new_game()
    game.start_deal(game.random_deal(random.Random(5)))
    assert not game.needs_deal
    with pytest.raises(RulesError, match="not finished"):
        game.start_deal(game.random_deal(random.Random(6)))


def test_random_deal_uses_only_the_given_rng() -> None:
    game = new_game()
    a = game.random_deal(random.Random(42))
    b = game.random_deal(random.Random(42))
    assert a == b
    assert sorted(a.hands[0] + a.hands[1] + a.stock) == list(DECK)
    assert [len(h) for h in a.hands] == [6, 6] and len(a.stock) == 40


GOOD = deal_from("AH KH QH JH TH 9H", "2H 2C 3S 4S 5S 6S", "5C")


@pytest.mark.parametrize(("deal", "reason"), [
    (Deal([GOOD.hands[0]], GOOD.stock + GOOD.hands[1]), "exactly 2 hands"),
    (Deal([GOOD.hands[0] + GOOD.stock[:1], GOOD.hands[1]], GOOD.stock[1:]), "exactly 6 cards"),
    (Deal([GOOD.hands[0][:5], GOOD.hands[1]], GOOD.stock + GOOD.hands[0][5:]), "exactly 6 cards"),
    (Deal(GOOD.hands, GOOD.stock[:39]), "other 40 cards"),
    (Deal(GOOD.hands, [*GOOD.stock[:39], GOOD.stock[0]]), "The 5♣ is dealt twice"),
    (Deal(GOOD.hands, [*GOOD.stock[:39], JOKER]), "no jokers"),
    (Deal(GOOD.hands, GOOD.stock, first=0), "non-dealer leads"),
])
def test_a_deal_that_is_not_one_deck_is_refused_and_changes_nothing(deal: Deal,
                                                                    reason: str) -> None:
    game = new_game()
    before = game.public_view()
    with pytest.raises(RulesError, match=reason):
        game.start_deal(deal)
    assert game.public_view() == before and game.needs_deal and game.to_record()["deals"] == []
    game.start_deal(GOOD)  # the refused deal left the game ready for a good one
    assert game.to_act == 0


# ---------------------------------------------------------------- moves refused


def test_refused_moves_explain_and_change_nothing() -> None:
    game = new_game()
    game.start_deal(GOOD)
    before = game.to_record(), game.public_view()
    with pytest.raises(RulesError, match="not your turn"):
        game.apply(1, parse_card("2H"))
    with pytest.raises(RulesError, match="You do not hold the 2♥"):
        game.apply(0, parse_card("2H"))
    with pytest.raises(RulesError, match="only play a card"):
        game.apply(0, 100)  # PASS
    with pytest.raises(RulesError, match="no joker"):
        game.apply(0, JOKER)
    assert (game.to_record(), game.public_view()) == before


def test_follow_or_trump_when_trumps_are_led_is_plain_follow_suit() -> None:
    game = new_game(follow_or_trump=True)
    game.start_deal(deal_from("5C AH KH QH JH TH", "2C 3D 3S 4S 3H 4H", "6C"))
    game.apply(0, parse_card("5C"))
    assert game.seat_view(1)["legal"] == ["2C"]


def test_follow_or_trump_still_lets_a_void_player_play_anything() -> None:
    game = new_game(follow_or_trump=True)
    game.start_deal(deal_from("9S AH KH QH JH TH", "2C AD 3H 4H 5H 6H", "5C"))
    game.apply(0, parse_card("9S"))
    assert len(game.legal_actions()) == 6


def test_a_higher_card_of_the_suit_led_wins_and_a_lower_trump_beats_it() -> None:
    game = new_game()
    game.start_deal(deal_from("8D 3C KH QH JH TH", "9D 2C 4S 5S 3D 4D", "5C 7H"))
    game.apply(0, parse_card("8D"))
    game.apply(1, parse_card("9D"))
    assert game.public_view()["last_trick"]["winner"] == 1
    # Seat 1 (the winner) leads 4♠; seat 0 has no spade and trumps with the 3♣.
    game.apply(1, parse_card("4S"))
    game.apply(0, parse_card("3C"))
    assert game.public_view()["last_trick"]["winner"] == 0


# ---------------------------------------------------------------- views


def test_views_show_the_table_and_only_the_seats_own_hand() -> None:
    game = new_game()
    game.start_deal(GOOD)
    public = game.public_view()
    assert public["to_act"] == 0 and public["dealer"] == 1 and public["deal"] == 0
    assert public["hand_sizes"] == [6, 6] and public["known"] == [[], []]
    assert public["trick"] == [] and public["last_trick"] is None and public["draws"] == []
    assert public["last_action"] is None and public["winners"] == [] and not public["over"]
    mine, theirs = game.seat_view(0), game.seat_view(1)
    assert mine["hand"] == ["9H", "TH", "JH", "QH", "KH", "AH"]  # sorted by suit, then rank
    assert mine["legal"] == mine["hand"] and theirs["legal"] == []
    assert theirs["hand"] == ["3S", "4S", "5S", "6S", "2H", "2C"]
    game.apply(0, parse_card("QH"))
    view = game.seat_view(1)
    assert view["trick"] == [{"seat": 0, "card": "QH"}] and view["legal"] == ["2H"]
    assert view["last_action"] == {"seat": 0, "action": "QH"}


def test_decision_trick_points_are_not_shown_during_a_deal() -> None:
    game = new_game()
    deal, actions, _ = scripted(0, EXAMPLE_4)
    game.start_deal(deal)
    for seat, action in actions[:20]:
        game.apply(seat, action)
    view = game.public_view()
    assert view["tricks_won"] == [4, 6] and view["tricks_played"] == 10
    assert "trick_points" not in view and view["last_result"] is None
    assert "trick_points" not in game.seat_view(0)


def test_the_last_result_stays_until_the_next_deal_ends() -> None:
    game = new_game()
    play(game, scripted(0, EXAMPLE_4))
    first = game.public_view()["last_result"]
    assert first == {"deal": 0, "trick_points": [48, 32], "tricks": first["tricks"],
                     "high": 0, "jack": 1, "low": 1, "game": 0, "points": [2, 2]}
    play(game, scripted(1, ZERO_FOUR))
    assert game.public_view()["last_result"]["deal"] == 1
    assert game.public_view()["deal"] == 1


def test_seat_view_refuses_a_seat_that_does_not_exist() -> None:
    with pytest.raises(ValueError):
        new_game().seat_view(2)


# ---------------------------------------------------------------- copies and options


def test_copy_is_independent_and_keeps_no_history() -> None:
    game = new_game()
    game.start_deal(GOOD)
    game.apply(0, parse_card("AH"))
    clone = game.copy()
    assert clone.history is None and clone.public_view() == game.public_view()
    assert clone.seat_view(1) == game.seat_view(1)
    clone.apply(1, parse_card("2H"))
    assert game.to_act == 1 and "2H" in hand(game, 1)
    assert clone.to_act == 0 and "2H" not in hand(clone, 1)
    with pytest.raises(RulesError):
        clone.to_record()


def test_options_have_the_rules_names_defaults_and_short_help() -> None:
    fields = {f.name: f for f in dataclasses.fields(CaliforniaJackOptions)}
    assert {name: f.default for name, f in fields.items()} == {
        "target": 10, "scoring": "standard", "follow_or_trump": False}
    assert fields["scoring"].metadata["choices"] == ("standard", "simple")
    assert all(0 < len(f.metadata["help"]) <= 100 for f in fields.values())


@pytest.mark.parametrize("raw", [{"target": 0}, {"target": "10"}, {"scoring": "fancy"},
                                 {"follow_or_trump": 1}, {"trumps": "S"}])
def test_bad_options_are_refused(raw: dict[str, object]) -> None:
    with pytest.raises(OptionError):
        CaliforniaJackOptions.from_dict(raw, 2)


@pytest.mark.parametrize("players", [1, 3])
def test_california_jack_is_for_two(players: int) -> None:
    with pytest.raises(OptionError, match="exactly 2 players"):
        CaliforniaJack(players)


def test_target_option_ends_the_game_sooner() -> None:
    game = new_game(target=4)
    play(game, scripted(0, FOUR_ZERO))
    assert game.is_over and game.winners() == [0] and game.totals == [4, 0]
