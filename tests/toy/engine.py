"""High card, the toy: each seat plays one card a trick; the highest rank takes it.

Twelve cards (2, 3 and 4 of each suit), three to each of up to four seats; the
seat after the dealer leads, the taker of a trick leads the next; each trick is
a point; ``deals`` deals, the most points win.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Self

from engine import cards
from engine.core import Deal, Game, Options, RulesError, option
from engine.events import Event, TrickTaken

DECK = [c for c in range(52) if cards.RANK_NAMES[cards.RANK[c]] in ("2", "3", "4")]
HAND = 3


@dataclass(frozen=True)
class ToyOptions(Options):
    deals: int = option(2, "How many deals are played", minimum=1, maximum=5)


class Toy(Game):
    GAME_ID = "toy"
    TITLE = "High Card"
    MIN_PLAYERS = 2
    MAX_PLAYERS = 4
    OPTIONS = ToyOptions

    def __init__(self, players: int, options: Options | None = None, first_dealer: int = 0):
        super().__init__(players, options, first_dealer)
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.trick: list[tuple[int, int]] = []
        self.turn: int | None = None
        self.points: list[list[int]] = []

    @property
    def _deals(self) -> int:
        assert isinstance(self.options, ToyOptions)
        return self.options.deals

    @property
    def needs_deal(self) -> bool:
        return not self.is_over and self.turn is None

    def random_deal(self, rng: random.Random) -> Deal:
        deck = list(DECK)
        rng.shuffle(deck)
        return Deal([sorted(deck[i * HAND:(i + 1) * HAND]) for i in range(self.players)])

    def _start_deal(self, deal: Deal) -> None:
        dealt = [c for hand in deal.hands for c in hand]
        if any(len(h) != HAND for h in deal.hands) or len(set(dealt)) != len(dealt) \
                or not set(dealt) <= set(DECK):
            raise RulesError("Each seat gets three different cards of 2, 3 and 4.")
        self.hands = [list(h) for h in deal.hands]
        self.points.append([0] * self.players)
        dealer = (self.first_dealer + len(self.points) - 1) % self.players
        self.turn = (dealer + 1) % self.players

    @property
    def to_act(self) -> int | None:
        return self.turn

    def legal_actions(self) -> list[int]:
        return list(self.hands[self.turn]) if self.turn is not None else []

    def why_illegal(self, action: int) -> str | None:
        if self.turn is None:
            return "Nobody is to act now."
        if action not in self.hands[self.turn]:
            return f"{cards.label(action) if 0 <= action < 52 else action} is not in your hand."
        return None

    def _apply(self, action: int, events: list[Event] | None) -> None:
        seat = self.turn
        assert seat is not None
        self.hands[seat].remove(action)
        self.trick.append((seat, action))
        if len(self.trick) < self.players:
            self.turn = (seat + 1) % self.players
            return
        winner = max(self.trick, key=lambda sc: (cards.RANK[sc[1]], -sc[0]))[0]
        if events is not None:
            events.append(TrickTaken(winner, tuple(c for _, c in self.trick), self.trick[0][0]))
        self.points[-1][winner] += 1
        self.trick = []
        self.turn = winner if self.hands[winner] else None
        if self.turn is None and events is not None:
            self._deal_over(events, len(self.points) - 1)

    @property
    def is_over(self) -> bool:
        return len(self.points) == self._deals and self.turn is None

    @property
    def deal_points(self) -> list[list[int]]:
        return self.points

    def winners(self) -> list[int]:
        if not self.is_over:
            return []
        best = max(self.totals)
        return [s for s, t in enumerate(self.totals) if t == best]

    def public_view(self) -> dict[str, Any]:
        return {"deal": max(0, len(self.points) - 1), "to_act": self.turn,
                "trick": [{"seat": s, "card": cards.CODE[c]} for s, c in self.trick],
                "hand_sizes": [len(h) for h in self.hands], "totals": self.totals,
                "over": self.is_over, "winners": self.winners(),
                "all_deal_points": [list(p) for p in self.points]}

    def seat_view(self, seat: int) -> dict[str, Any]:
        legal = self.legal_actions() if self.turn == seat else []
        return {**self.public_view(), "seat": seat, "hand": cards.codes(self.hands[seat]),
                "legal": cards.codes(legal)}

    def copy(self) -> Self:
        other = type(self)(self.players, self.options, self.first_dealer)
        other.hands = [list(h) for h in self.hands]
        other.trick = list(self.trick)
        other.turn = self.turn
        other.points = [list(p) for p in self.points]
        other.history = None
        return other
