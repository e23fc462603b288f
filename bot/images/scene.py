"""What a picture shows, as plain frozen data: no Pillow here.

A game's UI builds a ``Scene`` from a view (the public view for the table, one
seat's view for a hand); ``bot.images.render`` turns it into PNG bytes. Scenes
are frozen and hashable, so "one image per state" is a cache lookup on the scene.

The picture is a column: a header (title, heading), then ``zones`` (a row of cards
each: a trick, a Sevens row, a stock), then a grid of ``seats`` (name, score,
note, their face-down count and open cards), then ``captions`` (a line each).
The renderer gives every zone and seat box a fixed height, so a game whose
builder always emits the same structure draws images of one size.

Every word in a scene is already in its reader's language: the builders translate
(``locales._``) while they build, inside the ``speaking`` block of the message the
picture goes with, and the scene keeps that ``language`` (the card faces' letters
are drawn in it). Two languages thus make two different scenes: two cache entries,
two images.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import locales
from engine import cards
from engine.core import KEYWORDS, action_label, parse_action
from locales import _, say

# How a card is marked: a legal play, a card that may not be played now (dimmed),
# the card that won a trick, or nothing.
Mark = Literal["", "legal", "dim", "win"]
Size = Literal["large", "small"]


@dataclass(frozen=True)
class Card:
    """One card: ``code`` is a view code (``"TH"``, ``"JK"``); None draws its back."""

    code: str | None = None
    mark: Mark = ""
    caption: str = ""  # a few words under the card: who played it, what it counts


@dataclass(frozen=True)
class Zone:
    """A labelled row of cards.

    ``backs`` draws a face-down pile with its count before the cards (a stock, a
    deck); ``badge`` a tile of big text before them (the running sum, trumps).
    ``slots`` places card i at column ``slots[i]`` of ``span`` columns (Jacko's two
    piles share the round's order); by default cards sit side by side. A ``compact``
    zone (a hand's suit row) has its short label at its left and no caption line.
    """

    label: str
    cards: tuple[Card, ...] = ()
    note: str = ""
    size: Size = "large"
    backs: int = 0
    badge: str = ""
    slots: tuple[int, ...] = ()
    span: int = 0
    compact: bool = False


@dataclass(frozen=True)
class Seat:
    """A player's box: name, score, a note; a fan of ``backs`` and their open ``cards``."""

    name: str
    score: str = ""
    note: str = ""
    cards: tuple[Card, ...] = ()
    backs: int = 0
    active: bool = False  # to act (or to take the next forced turn)
    out: bool = False  # drawn dimmed
    winner: bool = False


@dataclass(frozen=True)
class Scene:
    title: str
    heading: str = ""
    zones: tuple[Zone, ...] = ()
    seats: tuple[Seat, ...] = ()
    captions: tuple[str, ...] = ()
    seat_columns: int = 2
    # Seat boxes keep room for a row of small cards even when none are shown now,
    # so the image keeps its height from one state to the next.
    seat_cards: bool = True
    # The language the scene's words were said in (the one spoken when it was built);
    # the card faces' rank letters and "JOKER" are drawn in it too.
    language: str = field(default_factory=locales.current)


# -- helpers the game UIs share ----------------------------------------------------------


def score_text(value: int) -> str:
    return f"{value:+d}"


def columns_for(players: int) -> int:
    """Seat boxes per row: two up to four players, then three, then four."""
    return 2 if players <= 4 else 3 if players <= 9 else 4


def hand_order(codes: Iterable[str]) -> list[str]:
    """A hand as ``bot.ui.markup.hand_lines`` shows it: suits ♠ ♥ ♣ ♦, high cards first, jokers
    last."""
    parsed = [cards.parse_card(c) for c in codes]

    def key(c: int) -> tuple[int, int]:
        return (4, 0) if c == cards.JOKER else (cards.SUIT[c], -cards.RANK[c])

    return [cards.CODE[c] for c in sorted(parsed, key=key)]


def marked(code: str, legal: set[str], caption: str = "") -> Card:
    """A hand card: legal when it is a legal play, dimmed when others are and it is not."""
    if not legal:
        return Card(code, caption=caption)
    return Card(code, "legal" if code in legal else "dim", caption)


def suit_rows(hand: Sequence[str], legal: Iterable[str] = (), jokers: bool = False,
              current: str | None = None) -> tuple[Zone, ...]:
    """One compact zone per suit (and one for jokers when the game has them), like the
    text's lines; ``current`` (a suit letter) notes the suit a player must play from."""
    legal_set = set(legal)
    ordered = hand_order(hand)
    zones = []
    for letter, symbol in zip(cards.SUIT_LETTERS, cards.SUIT_SYMBOLS, strict=True):
        row = tuple(marked(c, legal_set) for c in ordered if c[-1] == letter and c != "JK")
        note = _("you play from here now") if letter == current else "" if row else "—"
        zones.append(Zone(symbol, row, note=note, size="small", compact=True))
    if jokers or "JK" in ordered:  # a game with jokers keeps the row: one image height
        row = tuple(marked(c, legal_set) for c in ordered if c == "JK")
        zones.append(Zone("★", row, note="" if row else "—", size="small", compact=True))
    return tuple(zones)


def hand_row(label: str, hand: Sequence[str], legal: Iterable[str] = (),
             size: Size = "large", captions: Sequence[str] = ()) -> Zone:
    """A short hand in one row, in the text's order (by suit, high cards first)."""
    legal_set = set(legal)
    ordered = hand_order(hand)
    shown = tuple(marked(c, legal_set, captions[i] if i < len(captions) else "")
                  for i, c in enumerate(ordered))
    return Zone(label, shown, note="" if shown else "—", size=size)


def keyword_caption(legal: Iterable[str]) -> str:
    """The legal moves that are not cards (Pass, Stop, Take...), as a line."""
    words = [say(action_label(parse_action(code))) for code in legal
             if code.lower() in _KEYWORD_CODES]
    # Translators: under a hand's picture: the moves that are not cards (Pass, Stop...).
    return _("You may also: {moves}", moves=", ".join(words)) if words else ""


_KEYWORD_CODES = frozenset(KEYWORDS.values())


def trick_cards(trick: Sequence[Mapping[str, Any]], names: Sequence[str],
                winner: int | None = None) -> tuple[Card, ...]:
    """A trick's cards from a view's ``[{"seat", "card"}]``, captioned with who played them;
    the winner's card marked."""
    return tuple(Card(play["card"], "win" if play["seat"] == winner else "",
                      name_of(names, play["seat"])) for play in trick)


def upper_first(text: str) -> str:
    """A heading as a picture's first line: its first letter a capital."""
    return text[:1].upper() + text[1:]


def display_names(names: Sequence[str]) -> tuple[str, ...]:
    """Seat names fit for a picture: emoji (which the shipped font cannot draw) and the
    joiners and selectors around them removed; a name left empty becomes "Player N"."""
    out = []
    for seat, name in enumerate(names):
        kept = "".join(ch for ch in name if not _emoji_part(ch))
        out.append(" ".join(kept.split()) or _player(seat))
    return tuple(out)


def _player(seat: int) -> str:
    # Translators: a seat whose player's name cannot be shown: Player 1, Player 2...
    return _("Player {number}", number=seat + 1)


def _emoji_part(char: str) -> bool:
    point = ord(char)
    return (point >= 0x1F000 and unicodedata.category(char) in ("So", "Sk", "Cn")) \
        or point in (0x200D, 0x20E3) or 0xFE00 <= point <= 0xFE0F \
        or 0xE0000 <= point <= 0xE007F


def name_of(names: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return ""
    return names[seat] if 0 <= seat < len(names) else _player(seat)


def your_hand() -> str:
    # Translators: the title of a player's private hand (its picture, its message).
    return _("Your hand")


def hand_title(names: Sequence[str], seat: int) -> str:
    """A hand picture's title: "Your hand · Ann"."""
    return f"{your_hand()} · {name_of(names, seat)}"
