"""The ``easy`` level's rules of thumb, each pinned on a hand-made position, and a
small deterministic sanity check that the levels beat random play."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.ai import choose
from engine.attackjack import FULL_DECK, AttackJack, AttackJackOptions
from engine.california_jack import CaliforniaJack
from engine.cards import DECK, HEARTS, RANK, SUIT, parse_card
from engine.core import STAND, TAKE, Deal, Game
from engine.jacko import Jacko
from engine.jazz import SEVENS_DEAL, Jazz, trick_deck
from tests.engine.jazz_helpers import fill_hands, play_random_deals, sevens_game


def c(code: str) -> int:
    return parse_card(code)


def easy(game: Game, seat: int) -> int:
    return choose(game, seat, "easy", random.Random(0))


# ---------------------------------------------------------------- Jazz


def of_suit(suit: int) -> Callable[[int], bool]:
    return lambda x: SUIT[x] == suit


def jazz_deal(deal_index: int, fixed: dict[int, list[str]], no_suit: dict[int, str]) -> Jazz:
    """A 4-player game at trick deal ``deal_index`` with seat 0 as forehand; seats in
    ``no_suit`` get no more cards of that suit than their fixed ones."""
    game = Jazz(4, first_dealer=(3 - deal_index) % 4)
    play_random_deals(game, random.Random(deal_index), deal_index)
    refuse = {seat: of_suit("SHCD".index(suit)) for seat, suit in no_suit.items()}
    game.start_deal(fill_hands(trick_deck(4), [13] * 4, fixed, refuse))
    assert game.to_act == 0
    return game


def test_jazz_easy_ducks_under_the_card_winning_the_trick():
    game = jazz_deal(0, {0: ["KH"], 1: ["AH", "QH", "3H"]}, {1: "H"})
    game.apply(0, c("KH"))
    assert easy(game, 1) == c("QH")  # the highest heart that still loses to the king


def test_jazz_easy_that_must_win_takes_it_with_its_highest_when_last_else_low():
    game = jazz_deal(0, {0: ["2H"], 1: ["3H"], 2: ["4H"], 3: ["9H", "KH"]},
                     {1: "H", 2: "H", 3: "H"})
    game.apply(0, c("2H"))
    assert easy(game, 1) == c("3H")  # only one heart
    game.apply(1, c("3H"))
    game.apply(2, c("4H"))
    assert easy(game, 3) == c("KH")  # last to play and winning anyway: shed the king


@pytest.mark.parametrize(("deal_index", "hand", "dumped"), [
    (1, ["3C", "9C", "AS"], "9C"),  # clubs: the highest club
    (2, ["QD", "AS", "KD"], "QD"),  # queens: the queen before the ace that would catch one
    (3, ["KC", "AS", "AD"], "KC"),  # king of clubs: the king itself
])
def test_jazz_easy_void_in_the_suit_led_dumps_the_penalty_card(deal_index, hand, dumped):
    game = jazz_deal(deal_index, {0: ["2H"], 1: hand}, {1: "H"})
    game.apply(0, c("2H"))
    assert easy(game, 1) == c(dumped)


def test_jazz_easy_in_the_last_trick_deal_sheds_high_cards_while_it_is_early():
    game = jazz_deal(4, {0: ["5H"], 1: ["AH", "4H"]}, {1: "H"})
    game.apply(0, c("5H"))
    assert easy(game, 1) == c("AH")  # early: winning a trick costs nothing yet


def test_jazz_easy_opens_the_row_that_frees_its_own_cards_in_sevens():
    game = sevens_game(4, {0: ["7H", "8H", "9H", "TH", "7S"]},
                       refuse={0: lambda x: SUIT[x] in (0, HEARTS) or RANK[x] == 7})
    assert game.deal_number == SEVENS_DEAL and game.to_act == 0
    assert sorted(game.legal_actions()) == sorted([c("7S"), c("7H")])
    assert easy(game, 0) == c("7H")  # 7♠ would only free the others' spades


# ---------------------------------------------------------------- California Jack


def cj_game(hands: list[list[str]], stock: list[str]) -> CaliforniaJack:
    """Seat 0 leads (seat 1 deals); the stock starts with ``stock`` (its top names trumps),
    the other cards follow in deck order; hands are filled up to six the same way."""
    used = [c(x) for hand in hands for x in hand] + [c(x) for x in stock]
    rest = [x for x in DECK if x not in used]
    full = [[c(x) for x in hand] for hand in hands]
    for hand in full:
        while len(hand) < 6:
            hand.append(rest.pop())
    game = CaliforniaJack(2, first_dealer=1)
    game.start_deal(Deal(full, [c(x) for x in stock] + rest))
    return game


def test_california_jack_easy_wins_a_point_card_with_its_cheapest_trump():
    # Trumps clubs (stock top 5♣). 0 leads T♦; 1 has no diamond: J♣ would cost the Jack.
    game = cj_game([["TD", "2H", "3H", "4H", "5H", "6H"],
                    ["3C", "JC", "4S", "5S", "6S", "7S"]], ["5C"])
    game.apply(0, c("TD"))
    assert easy(game, 1) == c("3C")


def after_first_trick() -> CaliforniaJack:
    """Trumps hearts. 0 wins the first trick (8♣ over 2♣) and draws 9♥, 1 draws 4♣;
    the stock then shows 3♠, worth nothing, and 0 leads again."""
    game = cj_game([["8C", "2D", "3D", "4D", "5D", "6D"],
                    ["2C", "5H", "4S", "6S", "7S", "9S"]], ["9H", "4C", "3S"])
    game.apply(0, c("8C"))
    game.apply(1, c("2C"))
    assert game.seat_view(0)["stock_top"] == "3S" and game.to_act == 0
    return game


def test_california_jack_easy_loses_a_worthless_trick_and_keeps_its_trumps():
    game = after_first_trick()
    game.apply(0, c("2D"))
    assert c("5H") in game.legal_actions()  # the trump would win it, for nothing
    assert easy(game, 1) == c("4S")


def test_california_jack_easy_leads_low_for_nothing_and_strong_for_a_valuable_stock_card():
    assert easy(after_first_trick(), 0) == c("2D")  # nothing to win: a worthless low card
    strong = cj_game([["KS", "3D", "4D", "5D", "6D", "2S"], []], ["AH"])
    assert easy(strong, 0) == c("KS")  # the A♥ on the stock is worth a winning lead


# ---------------------------------------------------------------- Jacko


def jacko_positions(seed: int, count: int) -> list[Jacko]:
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        game = Jacko(2)
        game.start_deal(game.random_deal(rng))
        for _ in range(rng.randrange(60)):
            if game.to_act is None:
                break
            game.apply(game.to_act, rng.choice(game.legal_actions()))
        if game.to_act is not None and len(game.legal_actions()) > 1:
            found.append(game)
    return found


def test_jacko_easy_makes_eleven_whenever_it_can():
    checked = 0
    for game in jacko_positions(1, 150):
        seat, before = game.to_act, game.totals[game.to_act]
        makers = []
        for action in game.legal_actions():
            trial = game.copy()
            trial.apply(seat, action)
            if trial.public_view()["sum"] == 11 and game.public_view()["sum"] != 11:
                makers.append(action)
        if makers:
            checked += 1
            action = easy(game, seat)
            trial = game.copy()
            trial.apply(seat, action)
            assert trial.totals[seat] - before >= 3
    assert checked >= 5


def test_jacko_easy_alone_above_fifteen_takes_the_best_ending():
    # Alone above 15 the round ends after one more card or a stop: take the most points.
    checked = 0
    for game in jacko_positions(2, 400):
        view = game.public_view()
        if view["passed"] is None or view["sum"] <= 15:
            continue
        seat = game.to_act
        gains = {}
        for action in game.legal_actions():
            trial = game.copy()
            trial.apply(seat, action)
            gains[action] = trial.totals[seat] - game.totals[seat]
        checked += 1
        assert gains[easy(game, seat)] == max(gains.values())
    assert checked >= 3


# ---------------------------------------------------------------- AttackJack


def attackjack_game(hand: list[str], open_card: str) -> AttackJack:
    mine = [c(x) if x != "JK" else 52 for x in hand]
    top = c(open_card) if open_card != "JK" else 52
    rest = list(FULL_DECK)
    for x in [*mine, top]:
        rest.remove(x)
    other = [rest.pop(), rest.pop()]
    game = AttackJack(2, AttackJackOptions(choice=True))
    game.start_deal(Deal([mine, other], [top, *rest], first=0))
    game.run_auto_steps()
    return game


@pytest.mark.parametrize(("hand", "open_card", "expected"), [
    (["TS", "6H"], "4D", TAKE),  # 16 → 20
    (["TS", "6H"], "9D", STAND),  # 16 → 25: out
    (["TS", "6H"], "JK", TAKE),  # a bomb
    (["KS", "QH"], "AD", TAKE),  # 20 → 21: the ace counts 1
    (["9C", "5D"], "9H", STAND),  # the same rank counts once: 14 stays 14
    (["AC", "5D"], "7H", STAND),  # 16 → 13: the ace drops to 1
])
def test_attackjack_easy_takes_the_open_card_only_when_it_raises_the_hand(
        hand, open_card, expected):
    game = attackjack_game(hand, open_card)
    assert game.to_act == 0
    assert easy(game, 0) == expected


# ---------------------------------------------------------------- a sanity check


def match_points(game_id: str, levels: list[str], seed: int, iterations: int) -> list[int]:
    from benchmarks.ai import make_game

    game = make_game(game_id, len(levels), None, seed % len(levels))
    deal_rng, ai_rng = random.Random(seed), random.Random(-seed)
    while not game.is_over:
        if game.needs_deal:
            game.start_deal(game.random_deal(deal_rng))
        elif game.has_auto_step:
            game.auto_step()
        else:
            seat = game.to_act
            game.apply(seat, choose(game, seat, levels[seat], ai_rng, iterations=iterations,
                                    time_limit=None))
    return game.totals


def test_easy_and_a_small_search_beat_random_players_by_a_clear_margin():
    # Fixed seeds: no flakes. The margins measured by the benchmarks are far larger.
    easy_wins = 0
    for seed in range(10):
        levels = ["easy", "random"] if seed % 2 == 0 else ["random", "easy"]
        totals = match_points("california_jack", levels, seed, 0)
        easy_wins += totals[levels.index("easy")] > totals[1 - levels.index("easy")]
    assert easy_wins >= 7
    margins = []
    for seed in range(2):
        levels = ["random"] * 4
        levels[seed] = "normal"
        totals = match_points("jazz", levels, seed, 60)
        margins.append(totals[seed] - (sum(totals) - totals[seed]) / 3)
    assert min(margins) > 0
