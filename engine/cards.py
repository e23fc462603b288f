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

from engine.text import TC, T, Text

SPADES, HEARTS, CLUBS, DIAMONDS = 0, 1, 2, 3
SUITS = (SPADES, HEARTS, CLUBS, DIAMONDS)
SUIT_LETTERS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
SUIT_NAMES = ("spades", "hearts", "clubs", "diamonds")
"""The suits' names as codes (a seat view's ``current_suit``); people read ``SUIT_TEXTS``."""

SUIT_TEXTS: tuple[Text, ...] = (
    # Translators: a suit's name, plural: "play your spades first", "trumps are spades".
    TC("suit", "spades"),
    # Translators: a suit's name, plural: "play your hearts first", "trumps are hearts".
    TC("suit", "hearts"),
    # Translators: a suit's name, plural: "play your clubs first", "trumps are clubs".
    TC("suit", "clubs"),
    # Translators: a suit's name, plural: "play your diamonds first", "trumps are diamonds".
    TC("suit", "diamonds"),
)
"""Each suit's name for people, by suit: ``spades`` ... (say them in a sentence)."""

A_SUIT_TEXTS: tuple[Text, ...] = (
    # Translators: one card of a suit, what a player must play: "play a spade".
    TC("play a card of the suit", "a spade"),
    # Translators: one card of a suit, what a player must play: "play a heart".
    TC("play a card of the suit", "a heart"),
    # Translators: one card of a suit, what a player must play: "play a club".
    TC("play a card of the suit", "a club"),
    # Translators: one card of a suit, what a player must play: "play a diamond".
    TC("play a card of the suit", "a diamond"),
)
"""One card of each suit, as what must be played: ``a spade`` ... (by suit)."""

RANK_LETTERS = "23456789TJQKA"  # index = rank - 2
JACK, QUEEN, KING, ACE = 11, 12, 13, 14
RANK_NAMES = {
    2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
    JACK: "J", QUEEN: "Q", KING: "K", ACE: "A",
}
"""The ranks as printed in English (and in codes' words); people read ``RANK_TEXTS``."""

RANK_TEXTS: dict[int, str] = {
    **{rank: str(rank) for rank in range(2, 11)},  # numbers are the same in every language
    # Translators: the jack's letter on a card (Swedish Kn, Russian В).
    JACK: TC("rank", "J"),
    # Translators: the queen's letter on a card (Swedish D, Russian Д).
    QUEEN: TC("rank", "Q"),
    # Translators: the king's letter on a card (Swedish K, Russian К).
    KING: TC("rank", "K"),
    # Translators: the ace's letter on a card (Swedish E, Russian Т).
    ACE: TC("rank", "A"),
}
"""A rank as people read it: the number (a plain ``str``), or the court card's or ace's
letter (a ``Text``: ``say`` it)."""

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
        raise CardError(T("{code} is not a card code.", code=repr(text))) from None


def codes(cards: Iterable[int]) -> list[str]:
    return [CODE[c] for c in cards]


def parse_cards(texts: Iterable[str]) -> list[int]:
    return [parse_card(t) for t in texts]


def _label(c: int) -> Text:
    if c == JOKER:
        # Translators: the joker card's name.
        return T("Joker")
    # Translators: a card's name: {rank} is its rank (a number or a rank letter), {suit} the
    # suit's symbol (♠ ♥ ♣ ♦), as in 10♥ or J♠.
    return T("{rank}{suit}", rank=RANK_TEXTS[RANK[c]], suit=SUIT_SYMBOLS[SUIT[c]])


LABELS: tuple[Text, ...] = tuple(_label(c) for c in range(JOKER + 1))
"""Every card's name for people, by card (see ``label``)."""


def label(c: int) -> Text:
    """A card for people: ``10♥``, ``A♠``, ``Joker`` (a ``Text``: its rank letter is
    translated where it is said)."""
    return LABELS[c]


def sort_key(c: int) -> tuple[int, int]:
    """Suit in the order ♠ ♥ ♣ ♦, then rank: how hands are shown."""
    return (SUIT[c] if c != JOKER else 4, RANK[c])


def sorted_hand(cards: Iterable[int]) -> list[int]:
    return sorted(cards, key=sort_key)
