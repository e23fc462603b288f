"""AttackJack (BrawlJack, BattleJack): ``docs/rules/attackjack.md``.

One game is one deal. Every seat gets two cards; the rest is the deck, whose top
card lies face up beside it (the *open card*). From the seat that won the lot
(``Deal.first``) each seat, going left once around the table, has one turn:
over 21 it is out, on 21 or with a joker (a *bomb*) it keeps its two cards,
under 21 it takes the open card (the deck's next card is turned up in its
place) and is out if now over 21. Then the showdown among the seats still in:
bombs, then 21, then the highest total, ties broken by the counted ranks.

Turns are forced and are not actions: ``has_auto_step`` is True while one is
pending and ``auto_step()`` plays exactly one seat's turn. With the ``choice``
option a seat under 21 is ``to_act`` instead, with ``take`` / ``stand`` legal.

Decisions where the rules leave a choice (each pinned by a test):

* ``blind``: the face-down card is the **second** card of each dealt hand, as
  listed in ``Deal.hands`` (``random_deal`` deals one card to each seat, then a
  second round, so the second round is the face-down one). A record of a blind
  game therefore keeps the order of each hand.
* An out seat's cards stay listed in the public view: everyone saw them face up
  before they were turned down (a blind card stays hidden until the showdown).
* ``deal_points`` is all zeros until the showdown (records.md: AttackJack scores
  nothing until its deal ends); with a stake, the stakes are not counted as lost
  before then.
* ``ranking()``: a seat's place is the number of seats with a strictly better
  showdown hand; a bomb beats any other hand, a hand still in beats any out hand,
  and all out seats share the last place. Winners share place 0; when everyone
  is out nobody wins and everyone shares place 0 (the stakes come back: a draw).

``public_view()`` keys (all JSON-safe, cards as codes):

* ``game``, ``title``, ``players``, ``options`` (the option values), ``deal`` (0),
* ``first``: the seat that acts first (None before the deal), ``order``: the
  seats in turn order, ``turn``: the seat whose turn comes next, forced or not
  (None before the deal and after the showdown), ``to_act``: the seat that must
  choose ``take`` / ``stand`` (``choice`` only) or None,
* ``open_card``: the face-up card beside the deck (None before the deal),
  ``deck``: the number of face-down cards left in the deck,
* ``stake`` and ``bank``: the chips each seat put in and the bank they make,
* ``seats``: one dict per seat: ``cards`` (the cards everybody has seen, in
  the order they came: its face-up card(s), then the card it took), ``hidden``
  (how many of its cards nobody but the owner has seen: the blind card before
  the showdown), ``status`` (``waiting``, ``kept``, ``took``, ``stood``, ``out``),
  ``value`` (its hand's value when all its cards are public, else None) and
  ``bomb`` (a joker among its public cards),
* ``payout``: the chips each seat receives from the bank at the showdown
  (None before), ``scores`` (this deal's points) and ``totals``,
* ``over``, ``winners``, ``last_action``: ``{"seat", "action", "forced"}`` for
  the last turn played (``action`` is ``take``, ``stand``, ``keep`` or ``out``;
  ``forced`` is False only for a ``choice`` the player made) or None.

``seat_view(seat)`` adds ``seat``, ``hand`` (its cards, sorted), ``face_down``
(its own blind card while hidden from the others, else None), ``hand_value``
and ``legal`` (its legal action codes when it is to act, else []).

Events (``engine.events``): a forced turn is one ``ForcedStep`` (outcome ``kept``,
``took`` or ``out``, with the card taken); a ``choice`` is ``Played`` (take or
stand), after a take ``OpenCardTaken``; the last turn's step ends with the
showdown: ``DealEnded`` and ``GameEnded``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Self

from engine import cards
from engine.attackjack_hands import counted_ranks as counted_ranks  # re-exported
from engine.attackjack_hands import hand_value, showdown_key
from engine.attackjack_hands import is_bomb as is_bomb  # re-exported
from engine.cards import CODE, JOKER
from engine.core import (
    PASS,
    STAND,
    STOP,
    TAKE,
    Deal,
    Game,
    Options,
    RulesError,
    action_code,
    option,
)
from engine.events import Event, ForcedStep, OpenCardTaken
from engine.text import TN, T

HAND_SIZE = 2
FULL_DECK: tuple[int, ...] = (*cards.DECK, JOKER, JOKER)  # 52 cards plus two jokers
_SORTED_DECK = sorted(FULL_DECK)
BLIND_INDEX = 1  # with ``blind``, the second card of each dealt hand is face down

# Seat statuses.
WAITING, KEPT, TOOK, STOOD, OUT = 0, 1, 2, 3, 4
STATUS_NAMES = ("waiting", "kept", "took", "stood", "out")
# Turn results for ``last_action`` (``take`` / ``stand`` are also the action codes).
_KEEP, _OUT_AT_START = "keep", "out"


def _is_full_deck(dealt: list[int]) -> bool:
    try:
        return len(dealt) == len(FULL_DECK) and sorted(dealt) == _SORTED_DECK
    except TypeError:  # something that is not a card: let the slow check name it
        return False


@dataclass(frozen=True)
class AttackJackOptions(Options):
    blind: bool = option(False, T("Deal one card of each hand face down, seen only by its "
                                  "owner until the showdown."),
                         # Translators: an option's short name (AttackJack): a card dealt face down
                         label=T("Blind card"))
    # Bounds: ten times the 1000 chips a player starts with on a server (balances grow).
    stake: int = option(0, T("Chips each player puts in the bank; the winner takes the bank."),
                        # Translators: an option's short name (AttackJack): chips a seat
                        label=T("Stake"), minimum=0, maximum=10000,
                        suggested=(0, 1, 2, 5, 10, 20, 50, 100))
    choice: bool = option(False, T("House rule: a player under 21 may stand instead of taking "
                                   "the open card."),
                          # Translators: an option's short name (AttackJack): a player under
                          # 21 may stand
                          label=T("Standing allowed"))


class AttackJack(Game):
    GAME_ID = "attackjack"
    TITLE = "AttackJack"
    MIN_PLAYERS = 2
    MAX_PLAYERS = 17  # 2 cards each, one card taken each, and an open card: 3n + 1 <= 54
    OPTIONS = AttackJackOptions

    options: AttackJackOptions

    def __init__(self, players: int, options: AttackJackOptions | None = None,
                 first_dealer: int = 0):
        super().__init__(players, options, first_dealer)
        self._dealt = False
        self._hands: list[list[int]] = [[] for _ in range(players)]
        self._stock: list[int] = []  # open card first; never mutated once dealt (copies share it)
        self._pos = 0  # index in ``_stock`` of the open card
        self._first: int | None = None
        self._order: list[int] = []  # seats in turn order; never mutated once dealt
        self._turn = 0  # index in ``_order`` of the seat whose turn is next
        self._status = [WAITING] * players
        self._chooser: int | None = None  # the seat to act under ``choice``
        self._last: tuple[int, str, bool] | None = None  # seat, turn result, forced
        self._winners: list[int] = []
        self._payout: list[int] | None = None  # chips from the bank, set at the showdown

    # -- dealing -----------------------------------------------------------

    @property
    def needs_deal(self) -> bool:
        return not self._dealt

    def random_deal(self, rng: random.Random) -> Deal:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        n = self.players
        # One card to each seat, then a second round (the face-down one with ``blind``).
        hands = [[deck[seat], deck[n + seat]] for seat in range(n)]
        return Deal(hands=hands, stock=deck[2 * n:], first=rng.randrange(n))

    def _start_deal(self, deal: Deal) -> None:
        self._check_deal(deal)
        n = self.players
        self._hands = [list(hand) for hand in deal.hands]
        self._stock = list(deal.stock)
        self._pos = 0
        first = deal.first
        assert first is not None  # _check_deal refuses a deal without it
        self._first = first
        self._order = [(first + i) % n for i in range(n)]
        self._turn = 0
        self._dealt = True
        self._prepare_turn()

    def _check_deal(self, deal: Deal) -> None:
        n = self.players
        if deal.first is None:
            raise RulesError(T("The deal must say which seat won the lot to act first."))
        if not 0 <= deal.first < n:
            raise RulesError(T("The first seat to act must be a seat from 0 to {last}.",
                               last=n - 1))
        if len(deal.hands) != n:
            raise RulesError(TN("The deal must have one hand for each of the {n} seat.",
                                "The deal must have one hand for each of the {n} seats.", n))
        for seat, hand in enumerate(deal.hands):
            if len(hand) != HAND_SIZE:
                raise RulesError(TN("Each player must be dealt exactly {n} card, but seat "
                                    "{seat} has {dealt}.",
                                    "Each player must be dealt exactly {n} cards, but seat "
                                    "{seat} has {dealt}.", HAND_SIZE, seat=seat,
                                    dealt=len(hand)))
        dealt = [c for hand in deal.hands for c in hand] + list(deal.stock)
        if _is_full_deck(dealt):
            return  # the usual case, checked at C speed; the loops below only explain errors
        counts = [0] * (JOKER + 1)
        for c in dealt:
            if not (isinstance(c, int) and 0 <= c <= JOKER):
                raise RulesError(T("{card} is not a card.", card=repr(c)))
            counts[c] += 1
        for c, count in enumerate(counts):
            allowed = 2 if c == JOKER else 1
            if count > allowed and c == JOKER:
                raise RulesError(TN("The card {card} is dealt {n} time: the deck has two "
                                    "jokers.",
                                    "The card {card} is dealt {n} times: the deck has two "
                                    "jokers.", count, card=CODE[c]))
            if count > allowed:
                # Translators: {card} is a card's code (TH for the ten of hearts).
                raise RulesError(TN("The card {card} is dealt {n} time: the deck has only one.",
                                    "The card {card} is dealt {n} times: the deck has only "
                                    "one.", count, card=CODE[c]))
        for c, count in enumerate(counts):
            if count < (2 if c == JOKER else 1):
                raise RulesError(T("The card {card} is missing: the deal must use all 52 cards "
                                   "and two jokers, the rest of them in the stock.",
                                   card=CODE[c]))

    # -- turns --------------------------------------------------------------

    def _prepare_turn(self) -> None:
        """Set who (if anyone) chooses the pending turn; hold the showdown after the last."""
        if self._turn == self.players:
            self._chooser = None
            self._showdown()
            return
        seat = self._order[self._turn]
        # Only a seat under 21 has a step under ``choice`` (a bomb counts 21).
        if self.options.choice and hand_value(self._hands[seat]) < 21:
            self._chooser = seat
        else:
            self._chooser = None

    @property
    def to_act(self) -> int | None:
        return self._chooser

    @property
    def has_auto_step(self) -> bool:
        return self._dealt and self._turn < self.players and self._chooser is None

    def _auto_step(self, events: list[Event] | None) -> None:
        """Play one seat's forced turn."""
        seat = self._order[self._turn]
        hand = self._hands[seat]
        value = hand_value(hand)
        if value == 21:  # 21 or a bomb: keep the two cards
            self._status[seat] = KEPT
            self._last = (seat, _KEEP, True)
            if events is not None:
                events.append(ForcedStep(seat, "kept"))
        elif value > 21:  # cannot happen with two cards of distinct value, but the rules say so
            self._status[seat] = OUT
            self._last = (seat, _OUT_AT_START, True)
            if events is not None:
                events.append(ForcedStep(seat, "out"))
        else:
            card = self._take(seat, forced=True)
            if events is not None:
                events.append(ForcedStep(seat, STATUS_NAMES[self._status[seat]], card))
        self._next_turn(events)

    def _next_turn(self, events: list[Event] | None) -> None:
        self._turn += 1
        self._prepare_turn()
        if events is not None and self.is_over:
            self._deal_over(events, 0)

    def legal_actions(self) -> list[int]:
        return [TAKE, STAND] if self._chooser is not None else []

    def _apply(self, action: int, events: list[Event] | None) -> None:
        seat = self._order[self._turn]
        if action == TAKE:
            card = self._take(seat, forced=False)
            if events is not None:
                events.append(OpenCardTaken(seat, card, self._status[seat] == OUT))
        else:
            self._status[seat] = STOOD
            self._last = (seat, "stand", False)
        self._next_turn(events)

    def _take(self, seat: int, forced: bool) -> int:
        """``seat`` takes the open card (returned); the deck's next card is turned up."""
        hand = self._hands[seat]
        card = self._stock[self._pos]
        hand.append(card)
        self._pos += 1
        self._status[seat] = OUT if hand_value(hand) > 21 else TOOK
        self._last = (seat, "take", forced)
        return card

    def why_illegal(self, action: int) -> str | None:
        # The rules of legal_actions(), said as reasons (a property test keeps them equal).
        if self.is_over:
            return T("The game is over.")
        if self._chooser is None:
            return T("Nobody is to act now: the turns are played for you.")
        if action in (TAKE, STAND):
            return None
        if action == PASS:
            return T("There is no pass in {game}: choose take or stand.", game=self.TITLE)
        if action == STOP:
            return T("There is no stop in {game}: choose take or stand.", game=self.TITLE)
        return T("You do not play cards in {game}: choose take or stand.", game=self.TITLE)

    # -- showdown and results -------------------------------------------------

    def _showdown(self) -> None:
        n = self.players
        keys = [showdown_key(self._hands[s], self._status[s] == OUT) for s in range(n)]
        best = max(keys)
        self._winners = [] if best == (0,) else [s for s in range(n) if keys[s] == best]
        stake = self.options.stake
        if not self._winners:  # everyone out: every stake is returned
            self._payout = [stake] * n
            return
        bank = stake * n
        share, rest = divmod(bank, len(self._winners))
        payout = [0] * n
        for s in self._winners:
            payout[s] = share
        # The whole remainder goes to the sharer who acted first (turn order from ``first``).
        first_sharer = next(s for s in self._order if s in self._winners)
        payout[first_sharer] += rest
        self._payout = payout

    @property
    def is_over(self) -> bool:
        return self._payout is not None

    @property
    def deal_points(self) -> list[list[int]]:
        if not self._dealt:
            return []
        if self._payout is None:
            return [[0] * self.players]
        stake = self.options.stake
        if stake:
            return [[paid - stake for paid in self._payout]]
        winners = self._winners
        return [[1 if s in winners else 0 for s in range(self.players)]]

    def winners(self) -> list[int]:
        return list(self._winners)

    def ranking(self) -> list[int]:
        """Places by showdown hand (see the module docstring); by totals before the end."""
        if not self.is_over:
            return super().ranking()
        keys = [showdown_key(self._hands[s], self._status[s] == OUT)
                for s in range(self.players)]
        return [sum(1 for other in keys if other > mine) for mine in keys]

    # -- read-only access (tests, AI) -----------------------------------------

    def hand(self, seat: int) -> list[int]:
        """A copy of ``seat``'s cards in the order it got them."""
        return list(self._hands[seat])

    def stock_left(self) -> list[int]:
        """The open card and the deck below it, top first (hidden: not for players)."""
        return self._stock[self._pos:]

    @property
    def first(self) -> int | None:
        return self._first

    def status(self, seat: int) -> str:
        return STATUS_NAMES[self._status[seat]]

    # -- views ----------------------------------------------------------------

    def _hidden_index(self) -> int | None:
        """Index of the card each hand keeps face down from the others, if any now."""
        return BLIND_INDEX if self.options.blind and not self.is_over else None

    def _seat_public(self, seat: int, hidden: int | None) -> dict[str, Any]:
        hand = self._hands[seat]
        shown = [c for i, c in enumerate(hand) if i != hidden]
        all_public = len(shown) == len(hand)
        return {
            "cards": [CODE[c] for c in shown],
            "hidden": len(hand) - len(shown),
            "status": STATUS_NAMES[self._status[seat]],
            "value": hand_value(hand) if all_public and hand else None,
            "bomb": JOKER in shown,
        }

    def public_view(self) -> dict[str, Any]:
        hidden = self._hidden_index()
        n = self.players
        stake = self.options.stake
        running = self._dealt and self._turn < n
        open_card = self._stock[self._pos] if self._pos < len(self._stock) else None
        last = None
        if self._last is not None:
            seat, result, forced = self._last
            last = {"seat": seat, "action": result, "forced": forced}
        points = self.deal_points
        return {
            "game": self.GAME_ID,
            "title": self.TITLE,
            "players": n,
            "options": self.options.to_dict(),
            "deal": 0,
            "first": self._first,
            "order": list(self._order),
            "turn": self._order[self._turn] if running else None,
            "to_act": self._chooser,
            "open_card": CODE[open_card] if open_card is not None else None,
            "deck": max(len(self._stock) - self._pos - 1, 0),
            "stake": stake,
            "bank": stake * n,
            "seats": [self._seat_public(s, hidden) for s in range(n)],
            "payout": list(self._payout) if self._payout is not None else None,
            "scores": list(points[-1]) if points else [0] * n,
            "totals": self.totals,
            "over": self.is_over,
            "winners": self.winners(),
            "last_action": last,
        }

    def seat_view(self, seat: int) -> dict[str, Any]:
        self.check_seat(seat)
        view = self.public_view()
        hand = self._hands[seat]
        hidden = self._hidden_index()
        view["seat"] = seat
        view["hand"] = cards.codes(cards.sorted_hand(hand))
        view["face_down"] = CODE[hand[hidden]] if hidden is not None and hand else None
        view["hand_value"] = hand_value(hand) if hand else None
        view["legal"] = (
            [action_code(a) for a in self.legal_actions()] if seat == self._chooser else []
        )
        return view

    # -- copies ---------------------------------------------------------------

    def copy(self) -> Self:
        other = object.__new__(type(self))
        other.players = self.players
        other.options = self.options
        other.first_dealer = self.first_dealer
        other.history = None
        other._dealt = self._dealt
        other._hands = [list(h) for h in self._hands]
        other._stock = self._stock  # shared: never mutated after the deal
        other._pos = self._pos
        other._first = self._first
        other._order = self._order  # shared: never mutated after the deal
        other._turn = self._turn
        other._status = list(self._status)
        other._chooser = self._chooser
        other._last = self._last
        other._winners = list(self._winners)
        other._payout = list(self._payout) if self._payout is not None else None
        return other
