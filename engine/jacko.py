"""Jacko: two players lay cards onto a running sum that may never pass 21.

The rules are the project's ``docs/rules/jacko.md``; the **Decisions** it takes are
followed as written, and where its English leaves a choice the most literal
reading is taken (each such reading is pinned by a test in
``tests/engine/test_jacko*.py``).

State kept for speed: each hand is a sorted list of int cards (card order is
suit ♠ ♥ ♣ ♦ then rank, so a player's current suit is the suit of ``hand[0]``);
the round is a running sum plus the few facts that fix the next card's value
(the last card's value, waiting queens, doubling).

Views (JSON-safe, cards as codes). ``public_view()`` holds:

* ``game`` ("jacko"), ``players`` (2), ``deal`` (0-based number of the deal in
  play or just finished), ``target``, ``open_hands``;
* ``to_act`` (seat or null), ``over``, ``winners`` (seats), ``scores`` (points
  of the current deal by seat), ``totals`` (points of the game by seat);
* ``last_action``: ``{"seat", "action"}`` (an action code) or null;
* ``leader``: the seat that led the current round (null between deals);
* ``sum``: the running sum; ``doubling``: whether a king led this round (every
  later card counts double); ``waiting_queens``: queens led that still wait
  for the next card's value; ``zeros_at_21``: zero cards laid since the sum
  reached 21 (what 21 loses);
* ``round``: the cards of the current round in order, each
  ``{"seat", "card", "value", "points"}`` (``value`` null while a led queen
  waits; ``points``: what laying it scored, 3 for making eleven, 1 for
  holding it);
* ``passed``: the seat that passed this round (the other continues alone), or
  null; ``cards_left``: each seat's number of cards in hand; ``rounds_played``:
  rounds finished in this deal;
* ``last_round``: the round that ended last in this deal,
  ``{"winner", "sum", "points", "zeros_at_21", "cards"}`` (``cards`` as in
  ``round``), or null.

A round that ends moves to ``last_round`` (``round`` is then empty); when the
game ends mid-round, on making or holding eleven, the round stays on show.

``seat_view(seat)`` adds ``seat``, ``hand`` (sorted codes), ``current_suit``
(``"spades"`` … or null when the hand is empty), ``legal`` (the legal action
codes when that seat is to act, else ``[]``) and ``opponent_hand`` (the
opponent's remaining cards, sorted, with the option ``open_hands``; else null).

Events (``engine.events``): ``Played`` for every card, pass and stop;
``PointsScored`` (reason ``MADE_ELEVEN``, ``HELD_ELEVEN`` or ``ROUND``) whenever
points are scored; ``RoundWon`` when a round ends (before its ``PointsScored``);
``DealEnded`` when a hand runs out or the target is reached, then ``GameEnded``.
"""

from __future__ import annotations

import random
from typing import Any, Self

from engine.cards import (
    A_SUIT_TEXTS,
    CODE,
    JOKER,
    RANK,
    SUIT,
    SUIT_NAMES,
    SUIT_TEXTS,
    codes,
    label,
    sorted_hand,
)
from engine.core import (
    KEYWORDS,
    PASS,
    STOP,
    Deal,
    Game,
    RulesError,
    action_code,
    action_label,
    check_one_deck,
    is_action,
)
from engine.events import Event, PointsScored, RoundWon
from engine.jacko_options import JackoOptions
from engine.text import T, Text

HAND_SIZE = 26
LIMIT = 21
ELEVEN = 11
FORCED_UNTIL = 15  # after a pass, a sum of 15 or less forces the other player on

MAKE_ELEVEN_POINTS = 3
HOLD_ELEVEN_POINTS = 1
TWENTY_ONE_POINTS = 7
ROUND_POINTS = (0,) * 16 + (1, 2, 3, 4, 5)  # by final sum 0..20; 21 is 7 - zeros

_QUEEN, _KING = -1, -2
# What a card adds by itself, before doubling and waiting queens: J 0, A 1, 2..10
# face value; queens and kings are marked, as their value depends on the round.
BASE: tuple[int, ...] = tuple(
    {11: 0, 12: _QUEEN, 13: _KING, 14: 1}.get(RANK[c], RANK[c]) for c in range(52)
)
# Why points were scored (``PointsScored.reason``).
MADE_ELEVEN, HELD_ELEVEN, ROUND = "made eleven", "held eleven", "round"


class Jacko(Game):
    GAME_ID = "jacko"
    TITLE = "Jacko"
    MIN_PLAYERS = 2
    MAX_PLAYERS = 2
    OPTIONS = JackoOptions

    options: JackoOptions

    def __init__(self, players: int, options: JackoOptions | None = None,
                 first_dealer: int = 0):
        super().__init__(players, options, first_dealer)
        self._target = self.options.target
        self._hands: list[list[int]] = [[], []]
        self._deal_points: list[list[int]] = []
        self._totals = [0, 0]
        self._in_deal = False
        self._over = False
        self._winner: int | None = None
        self._last_action: tuple[int, int] | None = None
        self._last_round: dict[str, Any] | None = None
        self._rounds_played = 0
        self._legal: list[int] | None = None  # cache, cleared by every change
        self._new_round(None)

    def _new_round(self, leader: int | None) -> None:
        self._turn = leader
        self._leader = leader
        self._sum = 0
        self._mult = 1  # what a number card is multiplied by: 2 doubling, n + 1 with n queens
        self._queen_adds = 0  # what a queen played now adds: the last card's value
        self._resolved = False  # a card with a fixed value was played this round
        self._waiting = 0
        self._doubling = False
        self._zeros21 = 0
        self._passed: int | None = None
        self._round: list[tuple[int, int, int | None, int]] = []  # seat, card, value, points

    # -- dealing ------------------------------------------------------------

    @property
    def needs_deal(self) -> bool:
        return not self._over and not self._in_deal

    def random_deal(self, rng: random.Random) -> Deal:
        deck = list(range(52))
        rng.shuffle(deck)
        return Deal([deck[:HAND_SIZE], deck[HAND_SIZE:]])

    def _start_deal(self, deal: Deal) -> None:
        _check_deal(deal)
        self._hands = [sorted(hand) for hand in deal.hands]
        self._deal_points.append([0, 0])
        self._in_deal = True
        self._last_action = None
        self._last_round = None
        self._rounds_played = 0
        self._legal = None
        # 13 spades split between two hands: one always holds more.
        spades = sum(1 for c in self._hands[0] if SUIT[c] == 0)
        self._new_round(0 if spades > HAND_SIZE // 4 else 1)

    # -- play ---------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        return None if self._over or not self._in_deal else self._turn

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[int]:
        seat = self._turn
        if self._over or not self._in_deal or seat is None:
            return []
        cards = self._legal_cards(seat)
        if self._passed is None:
            return cards or [PASS]
        # Continuing alone: a card exists, or the round would have ended already.
        if self._sum > FORCED_UNTIL:
            cards.append(STOP)
        return cards

    def _legal_cards(self, seat: int) -> list[int]:
        hand = self._hands[seat]
        if not hand:
            return []
        # The hand is sorted and a suit's cards are consecutive ints: stop at its end.
        end = hand[0] // 13 * 13 + 13
        total, mult, queen = self._sum, self._mult, self._queen_adds
        room = LIMIT - total
        legal = []
        for c in hand:
            if c >= end:
                break
            base = BASE[c]
            added = base * mult if base >= 0 else (queen if base == _QUEEN else total)
            if added <= room:
                legal.append(c)
        return legal

    def _has_legal(self, seat: int) -> bool:
        hand = self._hands[seat]
        if not hand:
            return False
        end = hand[0] // 13 * 13 + 13
        total, mult, queen = self._sum, self._mult, self._queen_adds
        room = LIMIT - total
        for c in hand:
            if c >= end:
                return False
            base = BASE[c]
            if (base * mult if base >= 0 else (queen if base == _QUEEN else total)) <= room:
                return True
        return False

    def _adds(self, c: int) -> int:
        """What card ``c`` would add to the sum if laid now (waiting queens included)."""
        base = BASE[c]
        if base >= 0:
            return base * self._mult
        if base == _QUEEN:
            return self._queen_adds
        return self._sum  # a king doubles; on waiting queens or as lead the sum is 0

    def _apply(self, action: int, events: list[Event] | None) -> None:
        seat = self._turn
        assert seat is not None
        self._legal = None
        self._last_action = (seat, action)
        if action == PASS:
            self._passed = seat
            self._turn = 1 - seat
            if not self._has_legal(1 - seat):
                self._end_round(events)
        elif action == STOP:
            self._end_round(events)
        else:
            self._play(seat, action, events)

    def _play(self, seat: int, c: int, events: list[Event] | None) -> None:
        before = self._sum
        self._hands[seat].remove(c)
        added = self._lay(seat, c)
        after = self._sum
        points = 0
        if added == 0 and before == ELEVEN:
            points = HOLD_ELEVEN_POINTS
        elif after == ELEVEN:  # from another sum: adding 0 at 11 is holding
            points = MAKE_ELEVEN_POINTS
        if before == LIMIT:
            self._zeros21 += 1  # at 21 only zero cards are legal
        if points:
            seat_, card, value, _ = self._round[-1]
            self._round[-1] = (seat_, card, value, points)
            reason = HELD_ELEVEN if points == HOLD_ELEVEN_POINTS else MADE_ELEVEN
            if self._score(seat, points, reason, events):
                if events is not None:
                    self._deal_over(events, len(self._deal_points) - 1)
                return
        if self._passed is None:
            self._turn = 1 - seat
        # Alone: one card above 15; below, on until the sum passes 15 or no card is left.
        # (The sum never falls, so a card laid above 15 also leaves it above 15.)
        elif after > FORCED_UNTIL or not self._has_legal(seat):
            self._end_round(events)

    def _lay(self, seat: int, c: int) -> int:
        """Put ``c`` on the round and the sum; return what it added."""
        base = BASE[c]
        if base == _QUEEN and not self._resolved:
            # A queen led (or after led queens) waits for the next card's value.
            self._waiting += 1
            self._mult = self._waiting + 1
            self._round.append((seat, c, None, 0))
            return 0
        if base == _KING and not self._round:
            # A king led adds 0 and makes every later card of the round count double.
            self._doubling = True
            self._mult = 2
            value = 0
        elif base == _KING:
            value = self._sum  # 0 on waiting queens: they take 0, and no doubling
        elif base == _QUEEN:
            value = self._queen_adds
        else:
            value = base * (2 if self._doubling else 1)
        added = value * (self._waiting + 1)
        if self._waiting:
            self._resolve_queens(value)
        self._resolved = True
        self._queen_adds = value
        self._sum += added
        self._round.append((seat, c, value, 0))
        return added

    def _resolve_queens(self, value: int) -> None:
        """The led queens take ``value`` each (the caller adds them to the sum)."""
        for i in range(self._waiting):
            seat, card, _, points = self._round[i]
            self._round[i] = (seat, card, value, points)
        self._waiting = 0
        self._mult = 1

    def _score(self, seat: int, points: int, reason: str, events: list[Event] | None) -> bool:
        """Add points now; return whether they end the game (the target is reached)."""
        self._deal_points[-1][seat] += points
        self._totals[seat] += points
        if events is not None:
            events.append(PointsScored(seat, points, reason))
        if self._totals[seat] >= self._target:
            self._over = True
            self._winner = seat
            self._turn = None
            return True
        return False

    def _end_round(self, events: list[Event] | None) -> None:
        winner = self._round[-1][0]  # who laid the last card
        points = round_points(self._sum, self._zeros21)
        if events is not None:
            events.append(RoundWon(winner, self._sum, points, self._zeros21))
        self._last_round = {
            "winner": winner, "sum": self._sum, "points": points,
            "zeros_at_21": self._zeros21, "cards": self._round_view(),
        }
        self._rounds_played += 1
        if self._hands[0] and self._hands[1]:
            self._new_round(winner)
        else:  # a hand is empty: the deal is over, the cards left do not score
            self._in_deal = False
            self._new_round(None)
        over = bool(points) and self._score(winner, points, ROUND, events)
        if events is not None and (over or not self._in_deal):
            self._deal_over(events, len(self._deal_points) - 1)

    def why_illegal(self, action: int) -> str | None:
        # The rules of legal_actions(), said as reasons (a property test keeps them equal).
        if self._over:
            return T("The game is over.")
        if not self._in_deal or self._turn is None:
            return T("No deal is being played now.")
        alone = self._passed is not None
        if action == PASS:
            if alone:
                if self._sum > FORCED_UNTIL:
                    return T("Your opponent passed: you cannot pass, lay one more card or stop.")
                return T("Your opponent passed: you cannot pass, you must lay cards until the "
                         "sum is above 15.")
            if self._has_legal(self._turn):
                return T("You may not pass while you can lay a card.")
            return None
        if action == STOP:
            if not alone:
                return T("You can stop only after your opponent has passed.")
            if self._sum > FORCED_UNTIL:
                return None
            return T("You cannot stop yet: you must lay cards until the sum is above 15.")
        if action in KEYWORDS:
            return T("{action} is not an action in {game}.", action=action_label(action),
                     game=self.TITLE)
        if not is_action(action):
            return T("That is not an action.")
        if action == JOKER:
            return T("{game} is played without jokers.", game=self.TITLE)
        return self._why_card_illegal(action)

    def _why_card_illegal(self, c: int) -> Text | None:
        assert self._turn is not None
        hand = self._hands[self._turn]
        if c not in hand:
            return T("You do not hold the {card}.", card=label(c))
        suit = SUIT[hand[0]]
        if SUIT[c] != suit:
            # Translators: {suit} is a suit's name (spades...), {a_suit} one card of it
            # (a spade...).
            return T("You must play your {suit} first: play {a_suit}.", suit=SUIT_TEXTS[suit],
                     a_suit=A_SUIT_TEXTS[suit])
        total = self._sum + self._adds(c)
        if total <= LIMIT:
            return None
        if BASE[c] == _KING:
            return T("A king doubles the sum, so it needs a sum of 10 or less, not {sum}.",
                     sum=self._sum)
        return T("The {card} would make the sum {sum}, over 21.", card=label(c), sum=total)

    # -- results ------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def deal_points(self) -> list[list[int]]:
        return [list(points) for points in self._deal_points]

    @property
    def totals(self) -> list[int]:
        return list(self._totals)

    def winners(self) -> list[int]:
        return [self._winner] if self._winner is not None else []

    # -- views --------------------------------------------------------------

    def public_view(self) -> dict[str, Any]:
        last = self._last_action
        return {
            "game": self.GAME_ID,
            "players": self.players,
            "deal": max(0, len(self._deal_points) - 1),
            "target": self._target,
            "open_hands": self.options.open_hands,
            "to_act": self.to_act,
            "over": self._over,
            "winners": self.winners(),
            "scores": list(self._deal_points[-1]) if self._deal_points else [0, 0],
            "totals": list(self._totals),
            "last_action": (None if last is None
                            else {"seat": last[0], "action": action_code(last[1])}),
            "leader": self._leader,
            "sum": self._sum,
            "doubling": self._doubling,
            "waiting_queens": self._waiting,
            "zeros_at_21": self._zeros21,
            "round": self._round_view(),
            "passed": self._passed,
            "rounds_played": self._rounds_played,
            "cards_left": [len(self._hands[0]), len(self._hands[1])],
            "last_round": (None if self._last_round is None
                           else {**self._last_round,
                                 "cards": [dict(e) for e in self._last_round["cards"]]}),
        }

    def _round_view(self) -> list[dict[str, Any]]:
        return [{"seat": seat, "card": CODE[c], "value": value, "points": points}
                for seat, c, value, points in self._round]

    def seat_view(self, seat: int) -> dict[str, Any]:
        self.check_seat(seat)
        view = self.public_view()
        hand = self._hands[seat]
        view["seat"] = seat
        view["hand"] = codes(sorted_hand(hand))
        view["current_suit"] = SUIT_NAMES[SUIT[hand[0]]] if hand else None
        view["legal"] = ([action_code(a) for a in self.legal_actions()]
                         if seat == self.to_act else [])
        view["opponent_hand"] = (codes(sorted_hand(self._hands[1 - seat]))
                                 if self.options.open_hands else None)
        return view

    # -- copies -------------------------------------------------------------

    def copy(self) -> Self:
        new = self._shallow_copy()
        new.history = None
        new._hands = [self._hands[0][:], self._hands[1][:]]
        new._deal_points = [p[:] for p in self._deal_points]
        new._totals = self._totals[:]
        new._round = self._round[:]
        return new  # the legal-action cache is shared: it is replaced, never changed


def round_points(total: int, zeros_at_21: int) -> int:
    """What the winner of a round scores for its final sum (21: 7 less one per zero card)."""
    if total == LIMIT:
        return max(0, TWENTY_ONE_POINTS - zeros_at_21)
    return ROUND_POINTS[total]


def _check_deal(deal: Deal) -> None:
    """Refuse any deal but the 52 cards split 26 and 26, with no stock."""
    if len(deal.hands) != 2:
        raise RulesError(T("A Jacko deal has two hands, not {hands}.", hands=len(deal.hands)))
    if deal.stock:
        raise RulesError(T("Jacko has no stock: all 52 cards are dealt to the two hands."))
    if deal.first is not None:
        raise RulesError(T("A Jacko deal names no first seat: the player with more spades "
                           "leads."))
    check_one_deck((c for hand in deal.hands for c in hand), Jacko.TITLE)
    sizes = [len(hand) for hand in deal.hands]
    if sizes != [HAND_SIZE, HAND_SIZE]:
        raise RulesError(T("Each hand must hold 26 cards, not {first} and {second}.",
                           first=sizes[0], second=sizes[1]))
