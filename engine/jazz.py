"""Jazz (``docs/rules/jazz.md``): five penalty trick deals, then a Sevens deal.

State is kept in flat lists of ints so that random playouts and AI search stay
fast; legal actions are computed once per position and cached until the next
action. Each hand is kept sorted (whoever sets one sorts it), so that the cards of
a suit, consecutive ints, are one slice of it.

Public view keys (``public_view``):
  game, players, deal (0..5), deal_name (a ``Text``, ``DEAL_NAMES``), deal_kind
  ("tricks" or "sevens"),
  dealer, forehand, to_act, hand_sizes, trick ([{"seat", "card"}] in play
  order), led_suit ("S"/"H"/"C"/"D" or null), last_trick ({"cards": [{"seat",
  "card"}], "winner"} or null), tricks_taken (this deal, per seat),
  rows ({suit letter: [lowest, highest]} for started Sevens rows), passes
  (this Sevens deal, per seat), deal_points (this deal, per seat),
  all_deal_points, totals, scores (= totals), last_action ({"seat", "action"}
  or null), over, winners.
A seat's view adds ``hand`` (sorted) and ``legal`` (action codes, empty when
it is not that seat's turn).

Events (``engine.events``): ``Played`` for every card and pass; ``TrickTaken``
after each trick; in Sevens ``RowChanged`` after each card (the row's new ends);
``DealEnded`` when a deal ends (after its last trick, when no penalty is left, or
on the first empty hand in Sevens) and then ``GameEnded`` after the Sevens deal.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from itertools import chain
from typing import Any, Self

from engine import cards
from engine.cards import CLUBS, CODE, DIAMONDS, HEARTS, KING, QUEEN, RANK, SPADES, SUIT
from engine.core import (
    KEYWORDS,
    PASS,
    Deal,
    Game,
    Options,
    RulesError,
    action_code,
    action_label,
    is_action,
)
from engine.events import PLAYED, Event, Played, RowChanged, TrickTaken
from engine.jazz_options import NORWEGIAN_MAX_PLAYERS, JazzOptions
from engine.text import TN, T, Text

DEALS = 6
SEVENS_DEAL = 5  # 0-based index of the Sevens deal
DEAL_NAMES: tuple[Text, ...] = (
    # Translators: Jazz's first deal: each trick taken costs 1 point.
    T("Tricks: −1 a trick"),
    # Translators: Jazz's second deal: each club taken costs 1 point.
    T("Clubs: −1 a club"),
    # Translators: Jazz's third deal: each queen taken costs 5 points.
    T("Queens: −5 a queen"),
    # Translators: Jazz's fourth deal: taking the king of clubs costs 15 points.
    T("King of clubs: −15"),
    # Translators: Jazz's fifth deal: taking the last trick costs 20 points.
    T("Last trick: −20"),
    # Translators: Jazz's last deal, Sevens (Fan Tan): rows built out from the sevens.
    T("Sevens"),
)
"""Each deal's name for people, by deal (a seat view's ``deal_name``): ``Text``s."""

_TWO = {suit: cards.card(2, suit) for suit in cards.SUITS}
REMOVED_TWOS: dict[int, tuple[int, ...]] = {
    3: (_TWO[DIAMONDS],),
    4: (),
    5: (_TWO[DIAMONDS], _TWO[HEARTS]),
    6: (_TWO[DIAMONDS], _TWO[HEARTS], _TWO[CLUBS], _TWO[SPADES]),
    7: (_TWO[DIAMONDS], _TWO[HEARTS], _TWO[SPADES]),
}
KING_OF_CLUBS = cards.card(KING, CLUBS)
QUEENS = frozenset(cards.card(QUEEN, suit) for suit in cards.SUITS)
CLUB_CARDS = frozenset(c for c in cards.DECK if SUIT[c] == CLUBS)

# Penalty per card taken in deals 2-4 (index 1..3); deal 1 and 5 score per trick.
_CARD_PENALTY: tuple[tuple[int, ...], ...] = (
    (0,) * 52,
    tuple(-1 if c in CLUB_CARDS else 0 for c in range(52)),
    tuple(-5 if c in QUEENS else 0 for c in range(52)),
    tuple(-15 if c == KING_OF_CLUBS else 0 for c in range(52)),
    (0,) * 52,
)

# A card's place in a Sevens row: ace high normally, ace low in Norwegian Jazz.
_ROW_POS = tuple(RANK[c] for c in range(52))
_ROW_POS_NORWEGIAN = tuple(1 if RANK[c] == cards.ACE else RANK[c] for c in range(52))
# The card at a place (1 = the Norwegian low ace .. 14 = the ace) of a suit's row.
_ROW_CARD = tuple(tuple(cards.card(cards.ACE if pos == 1 else max(pos, 2), suit)
                        for pos in range(15)) for suit in cards.SUITS)


_TRICK_DECKS = {
    n: tuple(c for c in cards.DECK if c not in removed) for n, removed in REMOVED_TWOS.items()
}


def trick_deck(players: int) -> list[int]:
    """The deck of a trick deal: twos removed so that the hands are equal."""
    return list(_TRICK_DECKS[players])


def sevens_hand_sizes(players: int, forehand: int) -> list[int]:
    """Hand sizes by seat when all 52 cards are dealt one at a time from forehand."""
    sizes = [52 // players] * players
    for i in range(52 % players):
        sizes[(forehand + i) % players] += 1
    return sizes


class Jazz(Game):
    GAME_ID = "jazz"
    TITLE = "Jazz"
    MIN_PLAYERS = 3
    MAX_PLAYERS = 7
    OPTIONS = JazzOptions

    @classmethod
    def player_range(cls, options: Options | None = None) -> tuple[int, int]:
        if isinstance(options, JazzOptions) and options.norwegian:
            return cls.MIN_PLAYERS, NORWEGIAN_MAX_PLAYERS
        return cls.MIN_PLAYERS, cls.MAX_PLAYERS

    options: JazzOptions
    # The seat to act (None between deals and at the end): a plain attribute, kept equal
    # to ``_to_act if _in_deal else None``, because ``apply`` and every playout read it
    # on each action and a property call is a measurable part of a trick deal.
    to_act: int | None = None

    def __init__(self, players: int, options: JazzOptions | None = None, first_dealer: int = 0):
        super().__init__(players, options, first_dealer)
        n = players
        self._deal = -1  # index of the deal being played (or last played)
        self._in_deal = False
        self._over = False
        self._hands: list[list[int]] = [[] for _ in range(n)]
        self._to_act = 0
        self._points: list[list[int]] = []
        self._legal: list[int] | None = None
        # The last action as its shared Played event (no tuple built per card).
        self._last_action: Played | None = None
        # Trick deals.
        self._trick: list[int] = []
        self._leader = 0
        self._tricks_taken = [0] * n
        self._penalty_left = 0  # penalty cards not yet taken (deals 2-4 may end early)
        # The trick just taken: (winner, its cards in play order, its leader). Plain
        # values: a TrickTaken costs as much as the rest of a trick, so it is built
        # only for the events of ``apply``, which the search never asks for.
        self._last_trick: tuple[int, list[int], int] | None = None
        # Sevens.
        self._low = [0, 0, 0, 0]  # 0: the suit's row is not started
        self._high = [0, 0, 0, 0]
        self._passes = [0] * n
        self._row_pos = _ROW_POS_NORWEGIAN if self.options.norwegian else _ROW_POS

    # -- dealing ---------------------------------------------------------------

    @property
    def needs_deal(self) -> bool:
        return not self._in_deal and not self._over

    @property
    def deal_number(self) -> int:
        """The 0-based index of the deal being played, or of the next one to deal."""
        return self._deal if self._in_deal or self._over else self._deal + 1

    def dealer_of(self, deal: int) -> int:
        return (self.first_dealer + deal) % self.players

    def random_deal(self, rng: random.Random) -> Deal:
        deal = self.deal_number
        forehand = (self.dealer_of(deal) + 1) % self.players
        if deal == SEVENS_DEAL:
            deck = list(cards.DECK)
            rng.shuffle(deck)
            hands: list[list[int]] = [[] for _ in range(self.players)]
            for i, c in enumerate(deck):  # one at a time from forehand to the left
                hands[(forehand + i) % self.players].append(c)
            return Deal(hands)
        deck = trick_deck(self.players)
        rng.shuffle(deck)
        size = len(deck) // self.players
        return Deal([deck[i * size:(i + 1) * size] for i in range(self.players)])

    def _start_deal(self, deal: Deal) -> None:
        index = self._deal + 1
        n = self.players
        forehand = (self.dealer_of(index) + 1) % n
        if deal.stock:
            raise RulesError(T("Jazz deals every card: there is no stock."))
        if deal.first is not None:
            raise RulesError(T("Jazz has no lot for the first player: 'first' must be empty."))
        dealt = sorted(chain.from_iterable(deal.hands))
        if index == SEVENS_DEAL:
            deck, sizes = list(cards.DECK), sevens_hand_sizes(n, forehand)
        else:
            deck = trick_deck(n)
            sizes = [len(deck) // n] * n
        if dealt != deck:
            if index == SEVENS_DEAL:
                raise RulesError(TN("Deal {deal} with {n} player must use all 52 cards, once "
                                    "each.",
                                    "Deal {deal} with {n} players must use all 52 cards, once "
                                    "each.", n, deal=index + 1))
            if not REMOVED_TWOS[n]:
                raise RulesError(TN("Deal {deal} with {n} player must use the 52 cards without "
                                    "nothing, once each.",
                                    "Deal {deal} with {n} players must use the 52 cards without "
                                    "nothing, once each.", n, deal=index + 1))
            # The removed twos are a list of cards such as 2♦, 2♥ (numbers and suit symbols).
            removed = ", ".join(cards.label(c) for c in REMOVED_TWOS[n])
            # Translators: {cards} is a list of twos taken out of the deck, such as 2♦, 2♥.
            raise RulesError(TN("Deal {deal} with {n} player must use the 52 cards without "
                                "{cards}, once each.",
                                "Deal {deal} with {n} players must use the 52 cards without "
                                "{cards}, once each.", n, deal=index + 1, cards=removed))
        for seat, hand in enumerate(deal.hands):
            if len(hand) != sizes[seat]:
                raise RulesError(TN("Seat {seat} must be dealt {n} card in deal {deal}, not "
                                    "{dealt}.",
                                    "Seat {seat} must be dealt {n} cards in deal {deal}, not "
                                    "{dealt}.", sizes[seat], seat=seat, deal=index + 1,
                                    dealt=len(hand)))
        self._deal = index
        self._in_deal = True
        self._hands = [sorted(hand) for hand in deal.hands]
        self._points.append([0] * n)
        self._to_act = self.to_act = forehand
        self._legal = None
        self._last_action = None
        self._trick = []
        self._leader = forehand
        self._tricks_taken = [0] * n
        self._last_trick = None
        if index == SEVENS_DEAL:
            self._low = [0, 0, 0, 0]
            self._high = [0, 0, 0, 0]
            self._passes = [0] * n
        elif 1 <= index <= 3 and not self.options.play_out:
            penalty = _CARD_PENALTY[index]
            self._penalty_left = sum(1 for c in deck if penalty[c])
        else:
            self._penalty_left = -1  # never ends early

    # -- play ------------------------------------------------------------------

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is not None:
            return legal
        if not self._in_deal:
            legal = []
        elif self._deal == SEVENS_DEAL:
            legal = self._sevens_legal(self._hands[self._to_act]) or [PASS]
        else:
            hand = self._hands[self._to_act]
            if self._trick:
                # Follow suit if you can. A suit's cards are consecutive ints (from its 2,
                # suit * 13), so in the sorted hand they are one slice.
                two = SUIT[self._trick[0]] * 13
                legal = hand[bisect_left(hand, two):bisect_left(hand, two + 13)] or list(hand)
            else:
                legal = list(hand)
        self._legal = legal
        return legal

    def _sevens_legal(self, hand: list[int]) -> list[int]:
        low, high, pos = self._low, self._high, self._row_pos
        legal = []
        for c in hand:
            s = SUIT[c]
            p = pos[c]
            if low[s] == 0:
                if p == 7:
                    legal.append(c)
            elif p == high[s] + 1 or p == low[s] - 1:
                legal.append(c)
        return legal

    def why_illegal(self, action: int) -> str | None:
        # The rules of legal_actions(), said as reasons (a property test keeps them equal).
        if self._over:
            return T("The game is over.")
        if not self._in_deal:
            return T("No deal is being played.")
        if not is_action(action):
            return T("That is not an action.")
        hand = self._hands[self._to_act]
        sevens = self._deal == SEVENS_DEAL
        if action == PASS:
            if sevens and not self._sevens_legal(hand):
                return None
            return T("You may only pass in Sevens, when you have no card you can play.")
        if action in KEYWORDS:
            return T("{action} is not an action in {game}.", action=action_label(action),
                     game=self.TITLE)
        if action not in hand:
            return T("{card} is not in your hand.", card=action_label(action))
        if sevens:
            s, p = SUIT[action], self._row_pos[action]
            low, high = self._low[s], self._high[s]
            if low == 0:
                if p == 7:
                    return None
                # Translators: {suit} is a suit's name (spades, hearts...).
                return T("The {suit} row has not been started: it needs its seven.",
                         suit=cards.SUIT_TEXTS[s])
            if p == high + 1 or p == low - 1:
                return None
            return T("In Sevens a card must go next to the top or the bottom of its suit's row.")
        if self._trick:
            led = SUIT[self._trick[0]]
            if SUIT[action] != led and any(SUIT[c] == led for c in hand):
                # Translators: {a_suit} is one card of a suit: a spade, a heart...
                return T("You must follow suit: play {a_suit}.", a_suit=cards.A_SUIT_TEXTS[led])
        return None

    def _apply(self, action: int, events: list[Event] | None) -> None:
        seat = self._to_act
        self._legal = None
        self._last_action = PLAYED[seat][action]  # Jazz's 7 seats are all in PLAYED
        if self._deal == SEVENS_DEAL:
            self._apply_sevens(seat, action, events)
        else:
            self._hands[seat].remove(action)
            self._trick.append(action)
            if len(self._trick) == self.players:
                self._finish_trick(events)
            else:
                self._to_act = self.to_act = (seat + 1) % self.players

    def _finish_trick(self, events: list[Event] | None) -> None:
        trick, n, deal = self._trick, self.players, self._deal
        led = SUIT[trick[0]]
        best = 0
        for i in range(1, n):
            c = trick[i]
            if SUIT[c] == led and c > trick[best]:  # same suit: the int order is the rank order
                best = i
        winner = (self._leader + best) % n
        self._tricks_taken[winner] += 1
        points = self._points[deal]
        last = not self._hands[winner]
        if deal == 0:
            points[winner] -= 1
        elif deal == 4:
            if last:
                points[winner] -= 20
        else:
            penalty = _CARD_PENALTY[deal]
            for c in trick:
                if penalty[c]:
                    points[winner] += penalty[c]
                    self._penalty_left -= 1
            if self._penalty_left == 0:
                last = True  # nothing left to lose: the deal ends here (Decision)
        self._last_trick = (winner, trick, self._leader)  # the list is replaced, not reused
        if events is not None:
            events.append(TrickTaken(winner, tuple(trick), self._leader))
        self._trick = []
        self._leader = winner
        self._to_act = self.to_act = winner
        if last:
            self._in_deal = False
            self.to_act = None
            if events is not None:
                self._deal_over(events, deal, points)

    def _apply_sevens(self, seat: int, action: int, events: list[Event] | None) -> None:
        n = self.players
        if action == PASS:
            self._passes[seat] += 1
            self._points[SEVENS_DEAL][seat] -= 1
        else:
            hand = self._hands[seat]
            hand.remove(action)
            s, p = SUIT[action], self._row_pos[action]
            if self._low[s] == 0:
                self._low[s] = self._high[s] = p
            elif p > self._high[s]:
                self._high[s] = p
            else:
                self._low[s] = p
            if events is not None:
                row = _ROW_CARD[s]
                events.append(RowChanged(s, row[self._low[s]], row[self._high[s]]))
            if not hand:
                self._points[SEVENS_DEAL][seat] += self.options.sevens_bonus
                self._in_deal = False
                self.to_act = None
                self._over = True
                if events is not None:
                    self._deal_over(events, SEVENS_DEAL)
                return
        self._to_act = self.to_act = (seat + 1) % n

    # -- results ---------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def deal_points(self) -> list[list[int]]:
        return [list(p) for p in self._points]

    def winners(self) -> list[int]:
        if not self._over:
            return []
        totals = self.totals
        best = max(totals)
        return [seat for seat, total in enumerate(totals) if total == best]

    # -- views -----------------------------------------------------------------

    def public_view(self) -> dict[str, Any]:
        n, deal = self.players, self.deal_number
        dealer = self.dealer_of(min(deal, DEALS - 1))
        trick_leader = self._leader
        rows = {}
        if self._deal == SEVENS_DEAL:
            for s in cards.SUITS:
                if self._low[s]:
                    rows[cards.SUIT_LETTERS[s]] = [self._row_code(self._low[s], s),
                                                   self._row_code(self._high[s], s)]
        last_trick = None
        if self._last_trick is not None:
            winner, trick, leader = self._last_trick
            last_trick = {
                "cards": [{"seat": (leader + i) % n, "card": CODE[c]} for i, c in
                          enumerate(trick)],
                "winner": winner,
            }
        current = self._points[self._deal] if self._points and self._deal == deal else [0] * n
        return {
            "game": self.GAME_ID,
            "players": n,
            "deal": deal,
            "deal_name": DEAL_NAMES[min(deal, DEALS - 1)],
            "deal_kind": "sevens" if deal == SEVENS_DEAL else "tricks",
            "dealer": dealer,
            "forehand": (dealer + 1) % n,
            "to_act": self.to_act,
            "hand_sizes": [len(h) for h in self._hands],
            "trick": [{"seat": (trick_leader + i) % n, "card": CODE[c]}
                      for i, c in enumerate(self._trick)],
            "led_suit": cards.SUIT_LETTERS[SUIT[self._trick[0]]] if self._trick else None,
            "last_trick": last_trick,
            "tricks_taken": list(self._tricks_taken),
            "rows": rows,
            "passes": list(self._passes) if self._deal == SEVENS_DEAL else [0] * n,
            "deal_points": list(current),
            "all_deal_points": self.deal_points,
            "totals": self.totals,
            "scores": self.totals,
            "last_action": None if self._last_action is None else {
                "seat": self._last_action.seat,
                "action": action_code(self._last_action.action)},
            "over": self._over,
            "winners": self.winners(),
            "options": self.options.to_dict(),
        }

    def _row_code(self, pos: int, suit: int) -> str:
        return CODE[_ROW_CARD[suit][pos]]

    def seat_view(self, seat: int) -> dict[str, Any]:
        view = self.public_view()
        view["seat"] = seat
        view["hand"] = cards.codes(cards.sorted_hand(self._hands[seat]))
        view["legal"] = sorted(action_code(a) for a in self.legal_actions()) \
            if self.to_act == seat else []
        return view

    # -- copies ----------------------------------------------------------------

    def copy(self) -> Self:
        other = self._shallow_copy()
        other.history = None
        other._hands = [list(h) for h in self._hands]
        other._points = [list(p) for p in self._points]
        other._trick = list(self._trick)
        other._tricks_taken = list(self._tricks_taken)
        other._low = list(self._low)
        other._high = list(self._high)
        other._passes = list(self._passes)
        other._legal = None
        return other
