"""Jazz: every worked example of docs/rules/jazz.md, and the Decisions it names."""

from __future__ import annotations

import functools
import random

import pytest

from engine import cards
from engine.core import PASS, Deal, OptionError, RulesError
from engine.jazz import SEVENS_DEAL, Jazz, JazzOptions, sevens_hand_sizes, trick_deck
from tests.engine.jazz_helpers import (
    c,
    fill_hands,
    find_line,
    give,
    play,
    play_random_deals,
    random_trick_deal,
    sevens_game,
)


def labels(game: Jazz) -> list[str]:
    return sorted(cards.CODE[a] if a < 53 else "pass" for a in game.legal_actions())


# ---------------------------------------------------------------- example 1


@pytest.mark.parametrize(("players", "removed", "each"), [
    (3, {"2D"}, 17), (4, set(), 13), (5, {"2D", "2H"}, 10),
    (6, {"2D", "2H", "2C", "2S"}, 8), (7, {"2D", "2H", "2S"}, 7),
])
def test_example_1_twos_removed_per_player_count(players, removed, each):
    deck = trick_deck(players)
    assert {cards.CODE[x] for x in set(cards.DECK) - set(deck)} == removed
    game = Jazz(players)
    deal = game.random_deal(random.Random(players))
    assert [len(hand) for hand in deal.hands] == [each] * players
    game.start_deal(deal)
    assert sorted(x for hand in deal.hands for x in hand) == deck


def test_a_trick_deal_with_a_removed_two_is_refused():
    game = Jazz(5)
    deck = list(cards.DECK)  # 2♦ and 2♥ still in: 52 cards
    with pytest.raises(RulesError, match="without"):
        game.start_deal(fill_hands(deck, [11, 11, 10, 10, 10], {}))
    assert game.needs_deal and game.history == []


# ---------------------------------------------------------------- example 2


def test_example_2_deal_one_minus_one_a_trick():
    game = Jazz(4, first_dealer=3)
    game.start_deal(random_trick_deal(game, seed=2))
    line = find_line(game, lambda g: g.public_view()["tricks_taken"] == [3, 4, 2, 4], seed=2)
    for seat, action in line:
        game.apply(seat, action)
    assert game.deal_points == [[-3, -4, -2, -4]]


# ---------------------------------------------------------------- examples 3 and 4


def penalty_cards_taken(game: Jazz, line, is_penalty) -> list[int]:
    """Play ``line``, counting penalty cards per seat from each completed public trick,
    independently of the engine's scoring."""
    taken = [0] * game.players
    for seat, action in line:
        game.apply(seat, action)
        view = game.public_view()
        if not view["trick"]:  # this card completed a trick
            last = view["last_trick"]
            taken[last["winner"]] += sum(1 for x in last["cards"] if is_penalty(x["card"]))
    return taken


def test_example_3_two_queens_cost_ten():
    game = Jazz(4, first_dealer=3)
    play_random_deals(game, random.Random(3), until_deal=2)
    game.start_deal(random_trick_deal(game, seed=3))
    line = find_line(game, lambda g: g.deal_points[2][1] == -10, seed=3)
    taken = penalty_cards_taken(game, line, lambda code: code[0] == "Q")
    assert taken[1] == 2
    assert game.deal_points[2] == [-5 * q for q in taken]
    assert sum(game.deal_points[2]) == -20


def test_example_4_king_of_clubs_and_last_trick_in_their_own_deals():
    game = Jazz(4, first_dealer=3)
    play_random_deals(game, random.Random(4), until_deal=3)
    game.start_deal(random_trick_deal(game, seed=4))
    line = find_line(game, lambda g: g.deal_points[3][2] == -15, seed=4)
    assert penalty_cards_taken(game, line, lambda code: code == "KC") == [0, 0, 1, 0]
    assert "KC" in [x["card"] for x in game.public_view()["last_trick"]["cards"]]
    assert game.deal_points[3] == [0, 0, -15, 0]
    game.start_deal(random_trick_deal(game, seed=5))
    line = find_line(game, lambda g: g.deal_points[4][2] == -20, seed=5)
    for seat, action in line:
        game.apply(seat, action)
    assert game.public_view()["last_trick"]["winner"] == 2
    assert game.deal_points[4] == [0, 0, -20, 0]
    assert game.totals[2] <= -35


# ---------------------------------------------------------------- example 5


def test_example_5_a_discard_never_wins():
    game = Jazz(3, first_dealer=2)  # forehand: seat 0
    no_hearts = {1: lambda card: cards.SUIT[card] == cards.HEARTS}
    game.start_deal(fill_hands(trick_deck(3), [17, 17, 17],
                               {0: ["5H"], 1: ["AS"], 2: ["9H"]}, no_hearts))
    play(game, (0, "5H"))
    assert "AS" in labels(game)  # no heart: any card may be discarded
    play(game, (1, "AS"), (2, "9H"))
    assert game.public_view()["last_trick"]["winner"] == 2
    assert game.to_act == 2  # the winner leads
    assert game.deal_points == [[0, 0, -1]]


def test_following_suit_is_forced():
    game = Jazz(3, first_dealer=2)
    game.start_deal(fill_hands(trick_deck(3), [17, 17, 17],
                               {0: ["5H"], 1: ["3H", "AS"]}))
    play(game, (0, "5H"))
    hearts = [x for x in labels(game) if x.endswith("H")]
    assert labels(game) == hearts and "3H" in hearts
    with pytest.raises(RulesError, match="follow suit: play a heart"):
        game.apply(1, c("AS"))
    assert game.to_act == 1 and c("AS") in game._hands[1]


# ---------------------------------------------------------------- example 6


def test_example_6_sevens_three_players_hands_and_forced_choice():
    assert sevens_hand_sizes(3, forehand=0) == [18, 17, 17]
    assert sevens_hand_sizes(5, forehand=0) == [11, 11, 10, 10, 10]
    assert sevens_hand_sizes(6, forehand=0) == [9, 9, 9, 9, 8, 8]
    assert sevens_hand_sizes(7, forehand=0) == [8, 8, 8, 7, 7, 7, 7]
    assert sevens_hand_sizes(3, forehand=2) == [17, 17, 18]

    sevens = {cards.card(7, s) for s in cards.SUITS}

    def seat1(card: int) -> bool:  # seat 1: 7♦ and 8♥ its only playable cards later on
        return card in sevens or card == c("6H")

    def seat2(card: int) -> bool:  # seat 2: nothing playable once the hearts row exists
        return card in sevens or card in (c("6H"), c("8H"), c("9H"))

    game = sevens_game(3, {0: ["7H", "7S", "7C"], 1: ["7D", "8H"]},
                       {1: seat1, 2: seat2})
    assert [len(game._hands[s]) for s in range(3)] == [18, 17, 17]
    play(game, (0, "7H"))
    assert labels(game) == ["7D", "8H"]
    with pytest.raises(RulesError, match="only pass"):
        game.apply(1, PASS)
    play(game, (1, "8H"))
    assert labels(game) == ["pass"]
    play(game, (2, "pass"))
    assert game.deal_points[SEVENS_DEAL] == [0, 0, -1]
    assert game.public_view()["passes"] == [0, 0, 1]


def test_first_sevens_turn_only_sevens_and_forehand_without_one_passes():
    game = sevens_game(4, {}, {0: lambda card: cards.RANK[card] == 7})
    assert game.to_act == 0 and labels(game) == ["pass"]
    play(game, (0, "pass"))
    assert all(x[0] == "7" for x in labels(game))


# ---------------------------------------------------------------- example 7


def test_example_7_rows_grow_one_card_at_either_end():
    game = sevens_game(3, {0: ["7S", "9S", "7D"], 1: ["8S", "5S"],
                           2: ["6S", "4S", "TS", "3S", "JS", "8D"]})
    play(game, (0, "7S"), (1, "8S"), (2, "6S"), (0, "9S"), (1, "5S"))
    assert game.public_view()["rows"]["S"] == ["5S", "9S"]
    legal = labels(game)
    assert [x for x in legal if x.endswith("S")] == ["4S", "TS"]
    assert "8D" not in legal
    with pytest.raises(RulesError, match="diamonds row has not been started"):
        game.apply(2, c("8D"))
    play(game, (2, "4S"), (0, "7D"))
    game.apply(1, game.legal_actions()[0])
    assert "8D" in labels(game)


def clubs_only_game(norwegian: bool) -> Jazz:
    """Seat 0 holds every club and the other sevens, so seats 1 and 2 always pass."""
    sevens = ["7S", "7H", "7D"]
    clubs = [cards.CODE[x] for x in cards.DECK if cards.SUIT[x] == cards.CLUBS]
    refuse = {s: (lambda card: cards.SUIT[card] == cards.CLUBS or cards.RANK[card] == 7)
              for s in (1, 2)}
    return sevens_game(3, {0: clubs + sevens}, refuse, JazzOptions(norwegian=norwegian))


def play_clubs(game: Jazz, ranks: str) -> None:
    for rank in ranks:
        play(game, (0, rank + "C"), (1, "pass"), (2, "pass"))


def test_example_7_norwegian_king_tops_the_row_and_ace_goes_below_the_two():
    game = clubs_only_game(norwegian=True)
    play_clubs(game, "789TJQK")
    assert game.public_view()["rows"]["C"] == ["7C", "KC"]
    assert [x for x in labels(game) if x.endswith("C")] == ["6C"]  # nothing above the king
    play_clubs(game, "65432")
    assert [x for x in labels(game) if x.endswith("C")] == ["AC"]
    play_clubs(game, "A")
    assert game.public_view()["rows"]["C"] == ["AC", "KC"]


def test_example_7_standard_ace_tops_the_row():
    game = clubs_only_game(norwegian=False)
    play_clubs(game, "789TJQK")
    assert [x for x in labels(game) if x.endswith("C")] == ["6C", "AC"]


def test_norwegian_is_refused_with_six_or_seven_players():
    for players in (6, 7):
        with pytest.raises(OptionError):
            Jazz(players, JazzOptions(norwegian=True))
        with pytest.raises(OptionError):
            JazzOptions.from_dict({"norwegian": True}, players)
    Jazz(5, JazzOptions(norwegian=True))


# ---------------------------------------------------------------- example 8


EXAMPLE_8_DEALS = [
    [-5, -3, -4, -1],
    [-6, 0, -4, -3],
    [-10, -5, 0, -5],
    [0, 0, -15, 0],
    [-20, 0, 0, 0],
]


EXAMPLE_8_PASSES = [2, 0, 5, 3]


@functools.cache
def example_8_lines() -> list[tuple[Deal, list[tuple[int, int]]]]:
    """Deals and play lines that give example 8's results (searched once, then shared)."""
    game = Jazz(4, first_dealer=3)
    found = []
    for deal, target in enumerate(EXAMPLE_8_DEALS):
        cards_dealt = random_trick_deal(game, seed=80 + deal)
        game.start_deal(cards_dealt)
        line = find_line(game, lambda g, d=deal, t=target: g.deal_points[d] == t, seed=deal)
        for seat, action in line:
            game.apply(seat, action)
        found.append((cards_dealt, line))
    # The Sevens deal: forehand is seat 1, who never passes and goes out first.
    assert game.needs_deal and game.public_view()["forehand"] == 1

    def prune(g: Jazz) -> bool:
        return any(p > t for p, t in zip(g._passes, EXAMPLE_8_PASSES, strict=True)) or any(
            not g._hands[s] for s in (0, 2, 3))

    sevens = [cards.card(7, suit) for suit in cards.SUITS]
    for seed in range(1000):
        trial = game.copy()
        # Forehand never passes more easily with every seven in hand.
        cards_dealt = give(game.random_deal(random.Random(seed)), 1, sevens)
        trial.start_deal(cards_dealt)
        try:
            line = find_line(trial, lambda g: g._passes == EXAMPLE_8_PASSES, seed=seed,
                             tries=200, prune=prune)
        except AssertionError:
            continue
        return [*found, (cards_dealt, line)]
    raise AssertionError("no Sevens deal found for example 8")


def play_example_8(sevens_bonus: int) -> Jazz:
    game = Jazz(4, JazzOptions(sevens_bonus=sevens_bonus), first_dealer=3)
    for cards_dealt, line in example_8_lines():
        game.start_deal(cards_dealt)
        for seat, action in line:
            game.apply(seat, action)
    return game


@pytest.mark.slow
def test_example_8_a_whole_match():
    game = play_example_8(sevens_bonus=10)
    assert game.deal_points[:5] == EXAMPLE_8_DEALS
    assert game.deal_points[5] == [-2, 10, -5, -3]
    assert game.is_over
    assert game.totals == [-43, 2, -28, -12]
    assert game.winners() == [1]


def test_example_8_with_the_swedish_sevens_bonus():
    game = play_example_8(sevens_bonus=80)
    assert game.totals == [-43, 72, -28, -12]
    assert game.winners() == [1]


# ---------------------------------------------------------------- example 9


@pytest.mark.parametrize("play_out", [False, True])
def test_example_9_six_players_clubs_deal_totals_minus_12(play_out):
    for seed in range(20):
        game = Jazz(6, JazzOptions(play_out=play_out))
        play_random_deals(game, random.Random(seed), until_deal=1)
        game.start_deal(game.random_deal(random.Random(seed)))
        while game.to_act is not None:
            game.apply(game.to_act, random.Random(seed).choice(game.legal_actions()))
        assert sum(game.deal_points[1]) == -12


# ---------------------------------------------------------------- Decisions


def test_deals_2_to_4_end_when_the_last_penalty_card_is_taken():
    ended_early = {1: 0, 2: 0, 3: 0}
    for seed in range(30):
        game = Jazz(4)
        rng = random.Random(seed)
        for deal in range(5):
            game.start_deal(game.random_deal(rng))
            tricks = 0
            while game.to_act is not None:
                game.apply(game.to_act, rng.choice(game.legal_actions()))
                tricks = sum(game.public_view()["tricks_taken"])
            remaining = game.public_view()["hand_sizes"]
            if deal in (0, 4):
                assert tricks == 13 and remaining == [0, 0, 0, 0]
            else:
                assert sum(game.deal_points[deal]) == (-13, -20, -15)[deal - 1]
                if tricks < 13:
                    ended_early[deal] += 1
                    assert remaining == [13 - tricks] * 4
    assert all(count > 0 for count in ended_early.values())


def test_play_out_plays_every_trick():
    for seed in range(10):
        game = Jazz(4, JazzOptions(play_out=True))
        rng = random.Random(seed)
        for _ in range(5):
            game.start_deal(game.random_deal(rng))
            while game.to_act is not None:
                game.apply(game.to_act, rng.choice(game.legal_actions()))
            assert game.public_view()["hand_sizes"] == [0, 0, 0, 0]
            assert sum(game.public_view()["tricks_taken"]) == 13


def test_the_king_of_clubs_deal_ends_on_the_trick_that_takes_it():
    game = Jazz(3, first_dealer=2)
    play_random_deals(game, random.Random(1), until_deal=3)
    # deal 4's dealer is seat (2 + 3) % 3 = 2: forehand seat 0 leads the king at once.
    game.start_deal(fill_hands(trick_deck(3), [17, 17, 17], {0: ["KC"]}))
    play(game, (0, "KC"))
    game.apply(1, game.legal_actions()[0])
    game.apply(2, game.legal_actions()[0])
    assert game.needs_deal
    assert sum(game.public_view()["tricks_taken"]) == 1


def test_dealer_moves_left_each_deal_and_forehand_leads():
    game = Jazz(5, first_dealer=3)
    rng = random.Random(9)
    for deal in range(6):
        assert game.public_view()["dealer"] == (3 + deal) % 5
        game.start_deal(game.random_deal(rng))
        assert game.to_act == (3 + deal + 1) % 5
        while game.to_act is not None:
            game.apply(game.to_act, rng.choice(game.legal_actions()))
    assert game.is_over


def test_sevens_deal_ends_when_the_first_hand_is_empty():
    for seed in range(20):
        game = Jazz(3)
        rng = random.Random(seed)
        play_random_deals(game, rng, SEVENS_DEAL)
        game.start_deal(game.random_deal(rng))
        while game.to_act is not None:
            game.apply(game.to_act, rng.choice(game.legal_actions()))
        sizes = game.public_view()["hand_sizes"]
        assert game.is_over and sizes.count(0) == 1
        out = sizes.index(0)
        passes = game.public_view()["passes"]
        assert game.deal_points[SEVENS_DEAL] == [
            -passes[s] + (10 if s == out else 0) for s in range(3)]


def test_equal_totals_share_the_win():
    for seed in range(400):
        game = Jazz(3)
        rng = random.Random(seed)
        while not game.is_over:
            if game.needs_deal:
                game.start_deal(game.random_deal(rng))
            else:
                game.apply(game.to_act, rng.choice(game.legal_actions()))
        best = max(game.totals)
        assert game.winners() == [s for s in range(3) if game.totals[s] == best]
        if len(game.winners()) > 1:
            return
    raise AssertionError("no tie found in 400 games")


def test_out_of_turn_and_unknown_cards_change_nothing():
    game = Jazz(4, first_dealer=0)
    game.start_deal(game.random_deal(random.Random(1)))
    record = game.to_record()
    with pytest.raises(RulesError, match="not your turn"):
        game.apply(0, game._hands[0][0])
    not_mine = game._hands[2][0]
    with pytest.raises(RulesError, match="not in your hand"):
        game.apply(1, not_mine)
    with pytest.raises(RulesError, match="only pass"):
        game.apply(1, PASS)
    assert game.to_record() == record and game.to_act == 1


def test_views_hide_other_hands():
    game = Jazz(4)
    game.start_deal(game.random_deal(random.Random(2)))
    public = repr(game.public_view())
    for seat in range(4):
        view = game.seat_view(seat)
        assert len(view["hand"]) == 13
        assert (view["legal"] != []) == (seat == game.to_act)
        for other in range(4):
            if other != seat:
                assert not set(view["hand"]) & set(game.seat_view(other)["hand"])
    assert not any(f"'{code}'" in public for code in game.seat_view(0)["hand"])
