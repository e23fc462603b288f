"""Building Jazz positions for tests: hand-made deals and searched play lines."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from engine import cards
from engine.core import Deal
from engine.jazz import SEVENS_DEAL, Jazz, JazzOptions, sevens_hand_sizes, trick_deck


def c(code: str) -> int:
    return cards.parse_card(code)


def fill_hands(deck: Iterable[int], sizes: list[int], fixed: dict[int, list[str]],
               refuse: dict[int, Callable[[int], bool]] | None = None) -> Deal:
    """A deal giving each seat its ``fixed`` cards, the rest of ``deck`` spread in order
    over the seats with room, never to a seat whose ``refuse`` predicate rejects the card."""
    refuse = refuse or {}
    hands = {seat: [c(x) for x in fixed.get(seat, [])] for seat in range(len(sizes))}
    used = {card for hand in hands.values() for card in hand}
    rest = [card for card in deck if card not in used]
    # The cards fewest seats may take go first, so that a free seat is left for them.
    rest.sort(key=lambda card: sum(1 for s in range(len(sizes))
                                   if not refuse.get(s, _never)(card)))
    for card in rest:
        for seat in range(len(sizes)):
            if len(hands[seat]) < sizes[seat] and not refuse.get(seat, _never)(card):
                hands[seat].append(card)
                break
        else:
            raise AssertionError(f"no seat can take {cards.CODE[card]}")
    return Deal([hands[seat] for seat in range(len(sizes))])


def _never(card: int) -> bool:
    return False


def play(game: Jazz, *moves: tuple[int, str]) -> None:
    for seat, code in moves:
        game.apply(seat, cards.parse_card(code) if code != "pass" else _pass())


def _pass() -> int:
    from engine.core import PASS

    return PASS


def play_random_deals(game: Jazz, rng: random.Random, until_deal: int) -> None:
    """Play random deals until deal ``until_deal`` (0-based) is the next to be dealt."""
    while game.deal_number < until_deal or not game.needs_deal:
        if game.needs_deal:
            game.start_deal(game.random_deal(rng))
        else:
            game.apply(game.to_act, rng.choice(game.legal_actions()))


def sevens_game(players: int, fixed: dict[int, list[str]],
                refuse: dict[int, Callable[[int], bool]] | None = None,
                options: JazzOptions | None = None, seed: int = 0) -> Jazz:
    """A game at the start of its Sevens deal, forehand = seat 0, with a hand-made deal."""
    first_dealer = (players - 1 - SEVENS_DEAL) % players  # the Sevens dealer is the last seat
    game = Jazz(players, options, first_dealer=first_dealer)
    play_random_deals(game, random.Random(seed), SEVENS_DEAL)
    sizes = sevens_hand_sizes(players, forehand=0)
    game.start_deal(fill_hands(cards.DECK, sizes, fixed, refuse))
    return game


def find_line(game: Jazz, goal: Callable[[Jazz], bool], seed: int, tries: int = 20_000,
              prune: Callable[[Jazz], bool] | None = None) -> list[tuple[int, int]]:
    """Random play lines of the current deal until one ends with ``goal(game)`` true;
    a line is abandoned as soon as ``prune(game)`` says it cannot reach the goal.

    Returns the actions; ``game`` itself is not changed.
    """
    rng = random.Random(seed)
    for _ in range(tries):
        trial = game.copy()
        line = []
        while trial.to_act is not None:
            action = rng.choice(trial.legal_actions())
            line.append((trial.to_act, action))
            trial.apply(trial.to_act, action)
            if prune is not None and prune(trial):
                break
        else:
            if goal(trial):
                return line
    raise AssertionError("no play line found for the goal")


def random_trick_deal(game: Jazz, seed: int) -> Deal:
    deck = trick_deck(game.players)
    random.Random(seed).shuffle(deck)
    size = len(deck) // game.players
    return Deal([deck[i * size:(i + 1) * size] for i in range(game.players)])


def give(deal: Deal, seat: int, wanted: Iterable[int]) -> Deal:
    """The same deal with ``wanted`` moved into ``seat``'s hand, swapped for its other cards."""
    hands = [list(hand) for hand in deal.hands]
    wanted = list(wanted)
    mine = hands[seat]
    spare = [x for x in mine if x not in wanted]
    for card in wanted:
        if card in mine:
            continue
        owner = next(i for i, hand in enumerate(hands) if card in hand)
        swap = spare.pop()
        mine.remove(swap)
        mine.append(card)
        hands[owner].remove(card)
        hands[owner].append(swap)
    return Deal(hands)
