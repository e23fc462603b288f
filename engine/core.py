"""The vocabulary every game engine shares.

* Seats are ints from 0 in playing order (seat ``i + 1`` sits to the left of
  seat ``i``).
* An action is an int: a card (see ``engine.cards``) or one of the keyword
  actions below. ``action_code`` / ``parse_action`` convert to the codes of
  ``records.md``.
* ``RulesError`` refuses a move; its text is one plain sentence that can be
  shown to the player as it is (an ``engine.text.Text``, which a front end can say
  in its reader's language), and the refused move changes nothing.
* ``Game`` is the shape of every engine: options, dealing, whose turn it is,
  legal actions and why an action is not legal, apply (which returns the events
  of the step, ``engine.events``), views, scores, a record, and a plain-data form.

The plain-data form of a game is its record (``records.md``): restoring it
(``engine.records.restore``) replays every action through the same rules, so a
restored game is exactly the game that was saved, by construction.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from engine import cards
from engine.errors import OptionError as OptionError
from engine.errors import RulesError as RulesError
from engine.events import PLAYED, DealEnded, DealStarted, Event, GameEnded, Played
from engine.options import Options as Options
from engine.options import choice_label as choice_label
from engine.options import option as option
from engine.options import option_label as option_label
from engine.text import TN, T, Text

# Keyword actions. Cards are 0..52, so these never collide with a card.
PASS = 100
STOP = 101
TAKE = 102
STAND = 103
KEYWORDS = {PASS: "pass", STOP: "stop", TAKE: "take", STAND: "stand"}
_KEYWORD_BY_NAME = {name: action for action, name in KEYWORDS.items()}
KEYWORD_TEXTS: dict[int, Text] = {
    # Translators: the action of passing (Jazz's Sevens, Jacko), as on a button.
    PASS: T("Pass"),
    # Translators: the action of ending a round you continue alone (Jacko), as on a button.
    STOP: T("Stop"),
    # Translators: the action of taking the open card (AttackJack), as on a button.
    TAKE: T("Take"),
    # Translators: the action of keeping your cards, taking no more (AttackJack), on a button.
    STAND: T("Stand"),
}
"""Each keyword action's name for people (``action_label``)."""

RECORD_FORMAT = "cardtable-record/1"


def action_code(action: int) -> str:
    """The code of an action as written in records: ``TH``, ``pass``, ``stop``."""
    keyword = KEYWORDS.get(action)
    return keyword if keyword is not None else cards.CODE[action]


def parse_action(text: str) -> int:
    """An action from its code; keywords in any case, cards as ``parse_card`` reads them."""
    keyword = _KEYWORD_BY_NAME.get(text.strip().lower())
    if keyword is not None:
        return keyword
    try:
        return cards.parse_card(text)
    except cards.CardError:
        raise RulesError(T("{code} is not an action code.", code=repr(text))) from None


def action_label(action: int) -> Text:
    """An action for people: ``10♥``, ``Pass`` (a ``Text``)."""
    keyword = KEYWORD_TEXTS.get(action)
    return keyword if keyword is not None else cards.label(action)


def is_action(action: object) -> bool:
    """Whether ``action`` is an action at all: a card (joker included) or a keyword."""
    return (isinstance(action, int) and not isinstance(action, bool)
            and (0 <= action <= cards.JOKER or action in KEYWORDS))


ACTIONS: tuple[int, ...] = (*range(cards.JOKER + 1), *KEYWORDS)
"""Every action of every game: the 52 cards, the joker and the keywords."""


def _cannot(action: int) -> Text:
    if not is_action(action):
        return T("That is not an action.")
    return T("{action} cannot be played now.", action=action_label(action))


# ---------------------------------------------------------------- deals and records


@dataclass
class Deal:
    """The cards of one deal as dealt: what a record's ``deals[i]`` holds before its actions."""

    hands: list[list[int]]
    stock: list[int] = field(default_factory=list)  # top first
    first: int | None = None  # AttackJack: the seat that won the lot

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [cards.codes(hand) for hand in self.hands],
            "stock": cards.codes(self.stock),
            "first": self.first,
        }


@dataclass
class DealHistory:
    deal: Deal
    actions: list[tuple[int, int]] = field(default_factory=list)


def same_cards(a: Iterable[int], b: Iterable[int]) -> bool:
    """Whether two collections hold the same cards (as multisets: jokers may repeat)."""
    return sorted(a) == sorted(b)


def check_one_deck(dealt: Iterable[object], game: str) -> None:
    """Refuse dealt cards that are not cards of one 52-card deck without jokers, each
    at most once (``RulesError`` naming the first wrong one)."""
    seen: set[int] = set()
    for c in dealt:
        if c == cards.JOKER:
            raise RulesError(T("{game} is played with one 52-card deck and no jokers.",
                               game=game))
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < cards.JOKER:
            raise RulesError(T("{card} is not a card.", card=repr(c)))
        if c in seen:
            raise RulesError(T("The {card} is dealt twice.", card=cards.label(c)))
        seen.add(c)


# ---------------------------------------------------------------- the game shape


class Game(ABC):
    """One game (a match of several deals where the rules say so).

    Life of a game: ``needs_deal`` → ``start_deal`` (with ``random_deal(rng)`` at a
    table, or a record's cards) → actions by ``to_act`` through ``apply`` (and,
    for games with forced turns, ``auto_step`` while ``has_auto_step``) → the deal
    ends → ``needs_deal`` again or ``is_over``. Each of those steps returns its
    events (``engine.events``); a game's ``_apply`` and ``_auto_step`` append
    theirs to the list they are given, or build none when given None
    (``apply_quietly``, ``auto_step_quietly``: AI search and replays).

    Legality has one rule per game, stated twice for speed: ``legal_actions()``
    (the hot path) and ``why_illegal(action)`` (None exactly for the legal actions,
    else the reason), which a property test holds equal at every reachable state.
    A game that caches ``legal_actions()`` keeps the list in ``_legal`` (None until
    worked out, set back to None by every change), where ``apply`` reads it without a
    call: one method call is a measurable share of a move in a search.
    """

    GAME_ID: ClassVar[str]
    TITLE: ClassVar[str]
    MIN_PLAYERS: ClassVar[int]
    MAX_PLAYERS: ClassVar[int]
    OPTIONS: ClassVar[type[Options]]

    players: int
    options: Options
    first_dealer: int
    history: list[DealHistory] | None
    _legal: list[int] | None = None  # a game's cache of legal_actions(), if it keeps one

    @classmethod
    def player_range(cls, options: Options | None = None) -> tuple[int, int]:
        """How many players a table of this game may seat with ``options`` (the defaults
        when None): (fewest, most). Games whose options narrow it override this; it
        agrees with ``Options.check_players``."""
        return cls.MIN_PLAYERS, cls.MAX_PLAYERS

    def __init__(self, players: int, options: Options | None = None, first_dealer: int = 0):
        if not self.MIN_PLAYERS <= players <= self.MAX_PLAYERS:
            if self.MIN_PLAYERS == self.MAX_PLAYERS:
                raise OptionError(TN("{game} is for exactly {n} player, not {players}.",
                                     "{game} is for exactly {n} players, not {players}.",
                                     self.MAX_PLAYERS, game=self.TITLE, players=players))
            raise OptionError(TN("{game} is for {minimum} to {n} player, not {players}.",
                                 "{game} is for {minimum} to {n} players, not {players}.",
                                 self.MAX_PLAYERS, game=self.TITLE, minimum=self.MIN_PLAYERS,
                                 players=players))
        if not 0 <= first_dealer < players:
            raise OptionError(T("The first dealer must be a seat from 0 to {last}.",
                                last=players - 1))
        self.players = players
        self.options = options if options is not None else self.OPTIONS()
        self.options.check_players(players)
        self.first_dealer = first_dealer
        self.history = []

    # -- dealing -----------------------------------------------------------

    @property
    @abstractmethod
    def needs_deal(self) -> bool:
        """Whether the next deal must be started (the game is not over)."""

    @abstractmethod
    def random_deal(self, rng: random.Random) -> Deal:
        """Shuffle and deal the next deal's cards (nothing changes until ``start_deal``)."""

    def start_deal(self, deal: Deal) -> list[Event]:
        """Start the next deal with these cards; refuse cards the rules do not prescribe.
        The events: ``DealStarted``."""
        if self.is_over:
            raise RulesError(T("The game is over: no deal follows."))
        if not self.needs_deal:
            raise RulesError(T("The current deal is not finished yet."))
        self._start_deal(deal)
        history = self.history
        if history is None:
            return [DealStarted(len(self.deal_points) - 1)]
        history.append(DealHistory(Deal([list(h) for h in deal.hands], list(deal.stock),
                                        deal.first)))
        return [DealStarted(len(history) - 1)]

    @abstractmethod
    def _start_deal(self, deal: Deal) -> None:
        """Validate the deal's cards (raise ``RulesError``) and set the deal up."""

    # -- play ---------------------------------------------------------------

    @property
    @abstractmethod
    def to_act(self) -> int | None:
        """The seat that must act now, or None (no deal running, an automatic step, over)."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Every action legal for the seat to act (empty when nobody is to act)."""

    def apply(self, seat: int, action: int) -> list[Event]:
        """Apply ``action`` for ``seat`` and return the step's events (``Played`` first);
        an illegal action raises ``RulesError``, changing nothing."""
        # One comparison covers "over", "nobody to act" and "not your turn" (to_act is None
        # or another seat); the reason is worked out only on the rare refusal.
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if seat != self.to_act or action not in legal:
            raise RulesError(self._refusal(seat, action))
        try:
            events: list[Event] = [PLAYED[seat][action]]
        except IndexError:  # more seats than the shared events cover
            events = [Played(seat, action)]
        self._apply(action, events)
        history = self.history
        if history is not None:
            history[-1].actions.append((seat, action))
        return events

    def apply_quietly(self, seat: int, action: int) -> None:
        """``apply`` without building events: for AI search and replays, which never
        read them. The same checks, the same history."""
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if seat != self.to_act or action not in legal:
            raise RulesError(self._refusal(seat, action))
        self._apply(action, None)
        history = self.history
        if history is not None:
            history[-1].actions.append((seat, action))

    def _refusal(self, seat: int, action: int) -> str:
        if self.is_over:
            return T("The game is over.")
        if self.to_act is None:
            return T("Nobody is to act now.")
        if seat != self.to_act:
            return T("It is not your turn.")
        return self.why_illegal(action) or _cannot(action)

    @abstractmethod
    def _apply(self, action: int, events: list[Event] | None) -> None:
        """Apply a legal action of the seat to act (no checks: ``apply`` did them),
        appending what followed from it to ``events`` unless that is None."""

    def why_illegal(self, action: int) -> str | None:
        """None exactly when ``action`` is legal for the seat to act (it is in
        ``legal_actions()``); otherwise one sentence on why, fit to show the player (a
        ``Text``). Games override it with the reasons of their rules; this fallback only
        knows the legal actions."""
        if self.is_over:
            return T("The game is over.")
        if self.to_act is None:
            return T("Nobody is to act now.")
        if action in self.legal_actions():
            return None
        return _cannot(action)

    @property
    def has_auto_step(self) -> bool:
        """Whether a forced step the engine plays itself is pending (AttackJack's turns)."""
        return False

    def auto_step(self) -> list[Event]:
        """Play the pending forced step; its events (``ForcedStep`` first)."""
        if not self.has_auto_step:
            raise RulesError(T("There is no forced step to play."))
        events: list[Event] = []
        self._auto_step(events)
        return events

    def auto_step_quietly(self) -> None:
        """``auto_step`` without building events (AI search)."""
        if not self.has_auto_step:
            raise RulesError(T("There is no forced step to play."))
        self._auto_step(None)

    def _auto_step(self, events: list[Event] | None) -> None:
        """Play the pending forced step (``has_auto_step`` is true), appending its events."""
        raise RulesError(T("There is no forced step to play."))

    def advance(self, rng: random.Random,
                choose: Callable[[Game, int], int] | None = None) -> list[Event]:
        """The next thing a played-out game does: a new random deal, the pending forced
        step, or the action of the seat to act (``choose(game, seat)``; by default one of
        the legal actions, uniformly at random). For playouts, tests and benchmarks."""
        if self.needs_deal:
            return self.start_deal(self.random_deal(rng))
        if self.has_auto_step:
            return self.auto_step()
        seat = self.to_act
        if seat is None:
            raise RulesError(T("The game is over: there is nothing to play."))
        return self.apply(seat, choose(self, seat) if choose is not None
                          else rng.choice(self.legal_actions()))

    def run_auto_steps(self) -> list[Event]:
        """Play every pending forced step; their events, in order."""
        events: list[Event] = []
        while self.has_auto_step:
            self._auto_step(events)
        return events

    def _deal_over(self, events: list[Event], deal: int,
                   points: list[int] | None = None) -> None:
        """Append ``DealEnded`` for ``deal`` (its ``points``, by default from
        ``deal_points``) and, if the game is now over, ``GameEnded``: for a game's code
        where a deal ends, once its points are final."""
        events.append(DealEnded(deal, tuple(self.deal_points[deal] if points is None
                                            else points)))
        if self.is_over:
            events.append(GameEnded(tuple(self.winners()), tuple(self.totals)))

    # -- results ------------------------------------------------------------

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @property
    @abstractmethod
    def deal_points(self) -> list[list[int]]:
        """Points each seat scored in each deal started so far (``records.md``'s ``points``)."""

    @property
    def totals(self) -> list[int]:
        sums = [0] * self.players
        for points in self.deal_points:
            for seat, p in enumerate(points):
                sums[seat] += p
        return sums

    @abstractmethod
    def winners(self) -> list[int]:
        """The seats that won, in seat order; empty while the game is not over."""

    def ranking(self) -> list[int]:
        """Each seat's place at the end (0 = best, equal places for ties): for ratings."""
        totals = self.totals
        return [sum(1 for other in totals if other > mine) for mine in totals]

    # -- views --------------------------------------------------------------

    @abstractmethod
    def public_view(self) -> dict[str, Any]:
        """What everybody at the table may see: JSON-safe, card codes as strings."""

    @abstractmethod
    def seat_view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: the public view plus its own hidden cards."""

    def check_seat(self, seat: int) -> None:
        """Refuse a seat the table does not have (``RulesError``)."""
        if not 0 <= seat < self.players:
            raise RulesError(T("There is no seat {seat}.", seat=seat))

    # -- copies, records, plain data ----------------------------------------

    @abstractmethod
    def copy(self) -> Self:
        """A cheap independent copy for search; it keeps no history (``history`` is None)."""

    def _shallow_copy(self) -> Self:
        """A new game of this class holding this one's attribute values (shared: ``copy``
        then replaces what the copy will change).

        Set one at a time: filling the new object's ``__dict__`` at once leaves it a plain
        dict, whose attributes Python reads and writes more slowly than the compact
        layout it keeps otherwise, and the search plays nothing but copies (a random
        deal on such a copy took 34-46% more instructions in Jazz, Jacko and California
        Jack)."""
        other = object.__new__(type(self))
        for name, value in vars(self).items():
            setattr(other, name, value)
        return other

    def clone(self) -> Self:
        """A full independent copy, history included (``to_data()`` is the same), made
        without replaying the record: to keep before a move and go back to."""
        other = self.copy()
        if self.history is not None:
            other.history = [
                DealHistory(Deal([list(hand) for hand in h.deal.hands], list(h.deal.stock),
                                 h.deal.first), list(h.actions))
                for h in self.history
            ]
        return other

    def to_record(self) -> dict[str, Any]:
        """The game so far as a ``records.md`` record."""
        if self.history is None:
            raise RulesError(T("This copy of the game keeps no history."))
        return {
            "format": RECORD_FORMAT,
            "game": self.GAME_ID,
            "players": self.players,
            "options": self.options.to_dict(),
            "first_dealer": self.first_dealer,
            "deals": [
                {**h.deal.to_dict(),
                 "actions": [[seat, action_code(a)] for seat, a in h.actions]}
                for h in self.history
            ],
        }

    def to_data(self) -> dict[str, Any]:
        """Plain JSON-safe data from which ``engine.records.restore`` restores this game
        exactly."""
        return self.to_record()
