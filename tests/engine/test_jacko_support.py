"""Helpers shared by the Jacko tests (this module holds no tests of its own).

Hands are written compactly: ``"S:A23456Q C:* D:234567"`` is the ace to 6 and
the queen of spades, every club, and the 2 to 7 of diamonds; the other seat
gets the rest of the deck.
"""

from __future__ import annotations

from typing import Any

from engine.cards import RANK_LETTERS, parse_card, parse_cards
from engine.core import Deal, parse_action
from engine.jacko import Jacko, JackoOptions


def cards_of(spec: str) -> list[int]:
    """Cards from ``"S:A23 H:*"`` (suit letter, colon, rank letters; ``*`` for all 13)."""
    found = []
    for token in spec.split():
        suit, ranks = token.split(":")
        for rank in RANK_LETTERS if ranks == "*" else ranks:
            found.append(parse_card(rank + suit))
    return found


def deal_for(a_spec: str) -> Deal:
    """Seat 0 holds ``a_spec`` (26 cards), seat 1 the rest of the deck."""
    a = cards_of(a_spec)
    return Deal([a, [c for c in range(52) if c not in a]])


def deal_of(a_codes: str, b_codes: str) -> Deal:
    """A deal from two hands written as card codes."""
    return Deal([parse_cards(a_codes.split()), parse_cards(b_codes.split())])


def new_game(deal: Deal, **options: Any) -> Jacko:
    game = Jacko(2, JackoOptions(**options))
    game.start_deal(deal)
    return game


def play(game: Jacko, moves: str, a: int = 0) -> None:
    """Apply ``"A:QS B:7S 0:pass 1:stop"``: ``A`` is seat ``a``, ``B`` the other seat."""
    for move in moves.split():
        who, action = move.split(":")
        seat = {"A": a, "B": 1 - a}.get(who)
        game.apply(int(who) if seat is None else seat, parse_action(action))


def legal(game: Jacko) -> list[str]:
    """The legal action codes of the seat to act, in the engine's order."""
    return game.seat_view(game.to_act)["legal"] if game.to_act is not None else []


def values(game: Jacko) -> list[int | None]:
    """The value of each card of the current round, as the table shows it."""
    return [entry["value"] for entry in game.public_view()["round"]]


def hand(game: Jacko, seat: int) -> list[str]:
    return game.seat_view(seat)["hand"]


def current_suit_cards(game: Jacko, seat: int) -> list[str]:
    """The seat's cards of its current suit (the first suit ♠ ♥ ♣ ♦ it still holds)."""
    cards = hand(game, seat)
    return [c for c in cards if c[1] == cards[0][1]] if cards else []
