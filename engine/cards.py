"""Cards as small ints, shared by every game.

A card is an ``int``: ``suit * 13 + (rank - 2)`` for the 52 standard cards
(ranks 2..14, ace high; suits in the order spades, hearts, clubs, diamonds),
and ``JOKER`` (52) for a joker. Ints keep hands, copies and legal-move
generation cheap, which matters for random playouts and AI search. The lookup
tables below turn a card into its rank, suit or two-character code without
any arithmetic in hot loops.
"""

from __future__ import annotations

from collections.abc import Iterable

SPADES, HEARTS, CLUBS, DIAMONDS = 0, 1, 2, 3
SUITS = (SPADES, HEARTS, CLUBS, DIAMONDS)
SUIT_LETTERS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
SUIT_NAMES = ("spades", "hearts", "clubs", "diamonds")

RANK_LETTERS = "23456789TJQKA"  # index = rank - 2
JACK, QUEEN, KING, ACE = 11, 12, 13, 14
RANK_NAMES = {
    2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
    JACK: "J", QUEEN: "Q", KING: "K", ACE: "A",
}

JOKER = 52
DECK = tuple(range(52))
"""The 52 standard cards, spades 2..A, hearts 2..A, clubs, diamonds."""

RANK: tuple[int, ...] = tuple([c % 13 + 2 for c in range(52)] + [0])
SUIT: tuple[int, ...] = tuple([c // 13 for c in range(52)] + [-1])
CODE: tuple[str, ...] = tuple(
    [RANK_LETTERS[c % 13] + SUIT_LETTERS[c // 13] for c in range(52)] + ["JK"]
)
_BY_CODE = {code: card for card, code in enumerate(CODE)}


class CardError(ValueError):
    """A card code that names no card."""


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` (2..14) and ``suit`` (0..3)."""
    return suit * 13 + rank - 2


def code(c: int) -> str:
    """The canonical two-character code of a card: ``TH``, ``AS``, ``JK``."""
    return CODE[c]


def parse_card(text: str) -> int:
    """A card from its code; accepts ``10`` for ``T`` and any letter case."""
    key = text.strip().upper()
    if key.startswith("10"):
        key = "T" + key[2:]
    try:
        return _BY_CODE[key]
    except KeyError:
        raise CardError(f"{text!r} is not a card code.") from None


def codes(cards: Iterable[int]) -> list[str]:
    return [CODE[c] for c in cards]


def parse_cards(texts: Iterable[str]) -> list[int]:
    return [parse_card(t) for t in texts]


def label(c: int) -> str:
    """A card for people: ``10♥``, ``A♠``, ``Joker``."""
    if c == JOKER:
        return "Joker"
    return RANK_NAMES[RANK[c]] + SUIT_SYMBOLS[SUIT[c]]


def sort_key(c: int) -> tuple[int, int]:
    """Suit in the order ♠ ♥ ♣ ♦, then rank: how hands are shown."""
    return (SUIT[c] if c != JOKER else 4, RANK[c])


def sorted_hand(cards: Iterable[int]) -> list[int]:
    return sorted(cards, key=sort_key)
