"""California Jack (``docs/rules/california_jack.md``): two players, a face-up stock.

Each deal: 6 cards to each player, the other 40 form the face-up stock whose top
card at the start of the deal names trumps (that card stays on the stock and goes
to the winner of the first trick). The non-dealer leads the first trick; the
dealer alternates between deals, starting with ``first_dealer`` (the rules draw
the first dealer by lot: the table does that and passes the result in). After
each trick the winner draws the visible top card of the stock, then the loser
the next; once the stock is empty the last six cards of each hand are played
out. A deal is 26 tricks and scores up to four game points: High, Jack and Low
(the ace, jack and two of trumps, to whoever captures them) and Game (most
trick points; with the ``simple`` option, most tricks; nobody on a tie).

Game points are scored only when a deal ends, so a deal cut short scores 0. The
game ends after a deal that leaves someone at ``target`` or more: the higher
score wins, and equal scores (both at or above the target) call for another deal.

Views (JSON-safe, cards as codes). ``public_view()`` keys:

* ``game``, ``title``, ``players`` (2), ``options`` (the option values), ``target``;
* ``deal``: the 0-based number of the deal running, or of the last one finished
  (0 before the first deal); ``in_deal``: whether a deal is being played;
* ``dealer``, ``leader`` (who leads the current trick), ``to_act`` (seats or null);
* ``trump``: the trump suit letter (``"S" "H" "C" "D"``) of the current or last
  deal, or null before the first deal;
* ``stock_top`` (code or null when empty) and ``stock_size``: the stock is face up
  but squared, so only its top card is visible, never the order below it;
* ``trick``: the cards of the trick in progress, ``[{"seat", "card"}]`` in play order;
* ``last_trick``: ``{"cards": [{"seat", "card"}, ...], "winner": seat}`` or null;
* ``draws``: the cards drawn from the stock after the last trick,
  ``[{"seat", "card"}]`` (winner first; empty once the stock has run out);
* ``known``: per seat, the cards it drew from the face-up stock and still holds:
  both players watched them being drawn, so they are public (sorted);
* ``hand_sizes``, ``tricks_won`` (per seat) and ``tricks_played`` (this deal).
  **Decision:** captured cards lie face down, so trick points are not shown
  while a deal is played: only the count of tricks each player has won;
* ``last_result``: the scoring of the last finished deal, which is done openly at
  the end of it: ``{"deal", "trick_points", "tricks", "high", "jack", "low",
  "game", "points"}`` (``game`` null on a tie), or null before any deal ended;
* ``deal_points`` (per deal started) and ``totals``: game points;
* ``over``, ``winners``, ``last_action`` (``{"seat", "action"}`` or null).

``seat_view(seat)`` adds ``seat``, ``hand`` (sorted) and ``legal`` (the legal
card codes when that seat is to act, else ``[]``).

Events (``engine.events``): ``Played`` for every card; after each trick
``TrickTaken``, then ``CardsDrawn`` while the stock lasts (what the winner and
then the other drew); when a deal ends ``DealScored``, ``DealEnded`` and, if the game
is over, ``GameEnded``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Self

from engine.cards import (
    A_SUIT_TEXTS,
    ACE,
    CODE,
    DECK,
    JACK,
    JOKER,
    RANK,
    SUIT,
    SUIT_LETTERS,
    card,
    label,
    sorted_hand,
)
from engine.core import (
    KEYWORDS,
    Deal,
    Game,
    Options,
    RulesError,
    check_one_deck,
    is_action,
    option,
)
from engine.events import CardsDrawn, DealScored, Event, TrickTaken
from engine.text import TN, T

HAND_SIZE = 6
STOCK_SIZE = 40
TRICKS_PER_DEAL = 26
NOBODY = -1

# Trick points of every card, indexed by card: 10 = 10, A = 4, K = 3, Q = 2, J = 1.
_POINTS_BY_RANK = {10: 10, ACE: 4, 13: 3, 12: 2, JACK: 1}
TRICK_POINTS: tuple[int, ...] = tuple(_POINTS_BY_RANK.get(RANK[c], 0) for c in DECK)

_DECK_SET = frozenset(DECK)


@dataclass(frozen=True)
class CaliforniaJackOptions(Options):
    # Bounds: at most 4 game points a deal; 50 is a dozen deals or more.
    target: int = option(10, T("Game points that win: the first to reach them at the end of "
                               "a deal."),
                         label=T("Target"), minimum=1, maximum=50,
                         suggested=(4, 5, 7, 10, 11, 15, 21))
    # Translators: "standard" and "simple" are the option's values as typed: keep them.
    scoring: str = option("standard", T("standard: Game point for most trick points; simple: "
                                        "for most tricks."),
                          # Translators: an option's short name (California Jack): how the
                          # Game point is won
                          label=T("Scoring"),
                          # Translators: the values of California Jack's Scoring option: the
                          # Game point goes to the most trick points, or to the most tricks
                          choices={"standard": T("most trick points"),
                                   "simple": T("most tricks")})
    follow_or_trump: bool = option(False, T("Allow a player who holds the suit led to trump "
                                            "instead."),
                                   # Translators: an option's short name (California Jack): a
                                   # player holding the suit led may trump instead
                                   label=T("Trump instead of following"))


class CaliforniaJack(Game):
    GAME_ID = "california_jack"
    TITLE = "California Jack"
    MIN_PLAYERS = 2
    MAX_PLAYERS = 2
    OPTIONS = CaliforniaJackOptions

    options: CaliforniaJackOptions

    def __init__(self, players: int, options: CaliforniaJackOptions | None = None,
                 first_dealer: int = 0):
        super().__init__(players, options, first_dealer)
        # Options read on every action, cached as plain attributes.
        self._target = self.options.target
        self._simple = self.options.scoring == "simple"
        self._follow_or_trump = self.options.follow_or_trump
        self._over = False
        self._winners: list[int] = []
        self._deal_points: list[list[int]] = []
        self._totals = [0, 0]
        self._result: dict[str, Any] | None = None  # never mutated once made: copies share it
        self._in_deal = False
        self._dealer: int | None = None
        self._trump = NOBODY
        self._honours: tuple[int, int, int] = (NOBODY, NOBODY, NOBODY)  # A, J, 2 of trumps
        self._hands: list[list[int]] = [[], []]
        self._stock: tuple[int, ...] = ()  # top first; never mutated, so copies share it
        self._pos = 0  # index of the stock's top card
        self._to_act: int | None = None
        self._leader = NOBODY
        self._lead = NOBODY  # the card led to the trick in progress
        self._trick_no = 0
        self._trick_points = [0, 0]
        self._tricks_won = [0, 0]
        self._honour_owner = [NOBODY, NOBODY, NOBODY]  # who captured High, Jack, Low
        self._last_trick: tuple[int, int, int, int] | None = None  # leader, lead, follow, winner
        self._last_draw = NOBODY  # stock index of the winner's draw after the last trick
        self._last_action: tuple[int, int] | None = None

    # -- dealing -----------------------------------------------------------

    @property
    def needs_deal(self) -> bool:
        return not self._in_deal and not self._over

    def random_deal(self, rng: random.Random) -> Deal:
        deck = list(DECK)
        rng.shuffle(deck)
        return Deal(hands=[deck[:HAND_SIZE], deck[HAND_SIZE:2 * HAND_SIZE]],
                    stock=deck[2 * HAND_SIZE:])

    def _start_deal(self, deal: Deal) -> None:
        _check_deal(deal)
        self._dealer = (self.first_dealer + len(self._deal_points)) % 2
        self._deal_points.append([0, 0])
        self._in_deal = True
        self._hands = [list(deal.hands[0]), list(deal.hands[1])]
        self._stock = tuple(deal.stock)
        self._pos = 0
        trump = SUIT[self._stock[0]]
        self._trump = trump
        self._honours = (card(ACE, trump), card(JACK, trump), card(2, trump))
        self._leader = self._to_act = 1 - self._dealer
        self._lead = NOBODY
        self._trick_no = 0
        self._trick_points = [0, 0]
        self._tricks_won = [0, 0]
        self._honour_owner = [NOBODY, NOBODY, NOBODY]
        self._last_trick = None
        self._last_draw = NOBODY
        self._last_action = None

    # -- play ---------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        return self._to_act

    def legal_actions(self) -> list[int]:
        seat = self._to_act
        if seat is None:
            return []
        hand = self._hands[seat]
        lead = self._lead
        if lead < 0:
            return hand[:]
        led = SUIT[lead]
        follow = [c for c in hand if SUIT[c] == led]
        if not follow:
            return hand[:]
        if self._follow_or_trump and led != self._trump:  # trumps led: just follow suit
            trump = self._trump
            return [c for c in hand if SUIT[c] == led or SUIT[c] == trump]
        return follow

    def _apply(self, action: int, events: list[Event] | None) -> None:
        seat = self._to_act
        assert seat is not None  # apply() checked that someone is to act
        self._hands[seat].remove(action)
        self._last_action = (seat, action)
        if self._lead < 0:
            self._lead = action
            self._to_act = 1 - seat
        else:
            self._finish_trick(1 - seat, self._lead, action, events)

    def _finish_trick(self, leader: int, lead: int, follow: int,
                      events: list[Event] | None) -> None:
        winner = _trick_winner(leader, lead, follow, self._trump)
        self._trick_points[winner] += TRICK_POINTS[lead] + TRICK_POINTS[follow]
        self._tricks_won[winner] += 1
        honours = self._honours
        if lead in honours or follow in honours:
            for index, honour in enumerate(honours):
                if honour in (lead, follow):
                    self._honour_owner[index] = winner
        self._last_trick = (leader, lead, follow, winner)
        self._lead = NOBODY
        self._draw(winner)
        if events is not None:
            events.append(TrickTaken(winner, (lead, follow), leader))
            pos = self._last_draw
            if pos >= 0:
                events.append(CardsDrawn(winner, self._stock[pos], self._stock[pos + 1]))
        self._trick_no += 1
        if self._trick_no == TRICKS_PER_DEAL:
            self._end_deal(events)
        else:
            self._leader = self._to_act = winner

    def _draw(self, winner: int) -> None:
        """The winner takes the visible top card, then the loser the next one."""
        pos = self._pos
        if pos >= len(self._stock):
            self._last_draw = NOBODY
            return
        self._hands[winner].append(self._stock[pos])
        self._hands[1 - winner].append(self._stock[pos + 1])
        self._pos = pos + 2
        self._last_draw = pos

    def _end_deal(self, events: list[Event] | None) -> None:
        points = [0, 0]
        for owner in self._honour_owner:
            points[owner] += 1  # all 52 cards are played, so every honour has an owner
        counts = self._tricks_won if self._simple else self._trick_points
        game_seat = _more(counts)
        if game_seat != NOBODY:
            points[game_seat] += 1
        self._deal_points[-1] = points
        self._totals = [self._totals[0] + points[0], self._totals[1] + points[1]]
        high, jack, low = self._honour_owner
        self._result = {
            "deal": len(self._deal_points) - 1,
            "trick_points": list(self._trick_points),
            "tricks": list(self._tricks_won),
            "high": high, "jack": jack, "low": low,
            "game": None if game_seat == NOBODY else game_seat,
            "points": list(points),
        }
        self._in_deal = False
        self._to_act = None
        self._leader = NOBODY
        self._check_end()
        if events is not None:
            deal = len(self._deal_points) - 1
            events.append(DealScored(deal, high, jack, low,
                                     None if game_seat == NOBODY else game_seat,
                                     tuple(self._trick_points), tuple(self._tricks_won),
                                     tuple(points)))
            self._deal_over(events, deal)

    def _check_end(self) -> None:
        """Over once someone reaches the target, unless both did with equal scores."""
        a, b = self._totals
        if max(a, b) >= self._target and a != b:
            self._over = True
            self._winners = [0 if a > b else 1]

    def why_illegal(self, action: int) -> str | None:
        # The rules of legal_actions(), said as reasons (a property test keeps them equal).
        seat = self._to_act
        if self._over:
            return T("The game is over.")
        if seat is None:
            return T("No deal is being played now.")
        if action == JOKER:
            return T("There is no joker in {game}.", game=self.TITLE)
        if action in KEYWORDS or not is_action(action):
            return T("In {game} you can only play a card.", game=self.TITLE)
        hand = self._hands[seat]
        if action not in hand:
            return T("You do not hold the {card}.", card=label(action))
        if self._lead < 0:
            return None
        led, trump, suit = SUIT[self._lead], self._trump, SUIT[action]
        if suit == led or not any(SUIT[c] == led for c in hand):
            return None
        if self._follow_or_trump and led != trump:  # trumps led: just follow suit
            if suit == trump:
                return None
            # Translators: {led} and {trump} are one card of a suit each (a spade...).
            return T("You must follow suit or trump: play {led} or {trump}.",
                     led=A_SUIT_TEXTS[led], trump=A_SUIT_TEXTS[trump])
        return T("You must follow suit: play {a_suit}.", a_suit=A_SUIT_TEXTS[led])

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
        return list(self._winners)

    # -- views --------------------------------------------------------------

    def public_view(self) -> dict[str, Any]:
        last_trick = None
        if self._last_trick is not None:
            leader, lead, follow, winner = self._last_trick
            last_trick = {"cards": [{"seat": leader, "card": CODE[lead]},
                                    {"seat": 1 - leader, "card": CODE[follow]}],
                          "winner": winner}
        draws = []
        if self._last_draw >= 0 and self._last_trick is not None:
            winner, pos = self._last_trick[3], self._last_draw
            draws = [{"seat": winner, "card": CODE[self._stock[pos]]},
                     {"seat": 1 - winner, "card": CODE[self._stock[pos + 1]]}]
        drawn = set(self._stock[:self._pos])
        in_deal = self._in_deal
        return {
            "game": self.GAME_ID,
            "title": self.TITLE,
            "players": self.players,
            "options": self.options.to_dict(),
            "target": self._target,
            "deal": max(len(self._deal_points) - 1, 0),
            "in_deal": in_deal,
            "dealer": self._dealer,
            "leader": self._leader if in_deal else None,
            "to_act": self._to_act,
            "trump": SUIT_LETTERS[self._trump] if self._trump >= 0 else None,
            "stock_top": CODE[self._stock[self._pos]] if self._pos < len(self._stock) else None,
            "stock_size": len(self._stock) - self._pos,
            "trick": [{"seat": self._leader, "card": CODE[self._lead]}] if self._lead >= 0 else [],
            "last_trick": last_trick,
            "draws": draws,
            "known": [[CODE[c] for c in sorted_hand(c for c in hand if c in drawn)]
                      for hand in self._hands],
            "hand_sizes": [len(hand) for hand in self._hands],
            "tricks_won": list(self._tricks_won),
            "tricks_played": self._trick_no,
            "last_result": _copy_result(self._result),
            "deal_points": self.deal_points,
            "totals": self.totals,
            "over": self._over,
            "winners": self.winners(),
            "last_action": None if self._last_action is None else {
                "seat": self._last_action[0], "action": CODE[self._last_action[1]]},
        }

    def seat_view(self, seat: int) -> dict[str, Any]:
        self.check_seat(seat)
        view = self.public_view()
        view["seat"] = seat
        view["hand"] = [CODE[c] for c in sorted_hand(self._hands[seat])]
        view["legal"] = ([CODE[c] for c in sorted_hand(self.legal_actions())]
                         if self._to_act == seat else [])
        return view

    # -- copies ---------------------------------------------------------------

    def copy(self) -> Self:
        clone = self._shallow_copy()
        # Only the mutable containers need fresh copies; the stock tuple and result are shared.
        clone.history = None
        clone._winners = self._winners[:]
        clone._deal_points = [points[:] for points in self._deal_points]
        clone._totals = self._totals[:]
        clone._hands = [self._hands[0][:], self._hands[1][:]]
        clone._trick_points = self._trick_points[:]
        clone._tricks_won = self._tricks_won[:]
        clone._honour_owner = self._honour_owner[:]
        return clone


# ---------------------------------------------------------------- helpers


def _trick_winner(leader: int, lead: int, follow: int, trump: int) -> int:
    """Same suit: the higher card; else a trump by the follower wins; else the lead."""
    if SUIT[follow] == SUIT[lead]:
        return 1 - leader if follow > lead else leader  # same suit: card order is rank order
    if SUIT[follow] == trump:
        return 1 - leader
    return leader


def _more(counts: list[int]) -> int:
    """The seat with the larger count, or NOBODY on a tie."""
    if counts[0] == counts[1]:
        return NOBODY
    return 0 if counts[0] > counts[1] else 1


def _check_deal(deal: Deal) -> None:
    """Refuse anything but 6 + 6 cards and a 40-card stock making exactly one 52-card deck."""
    if len(deal.hands) != 2:
        raise RulesError(T("California Jack is dealt to exactly 2 hands."))
    if any(len(hand) != HAND_SIZE for hand in deal.hands):
        raise RulesError(TN("Each player must be dealt exactly {n} card.",
                            "Each player must be dealt exactly {n} cards.", HAND_SIZE))
    if len(deal.stock) != STOCK_SIZE:
        raise RulesError(TN("The stock must hold the other {n} card.",
                            "The stock must hold the other {n} cards.", STOCK_SIZE))
    if deal.first is not None:
        raise RulesError(T("California Jack has no first seat to choose: the non-dealer "
                           "leads."))
    dealt = (*deal.hands[0], *deal.hands[1], *deal.stock)
    if set(dealt) == _DECK_SET:  # 52 cards, all different: exactly one deck
        return
    check_one_deck(dealt, CaliforniaJack.TITLE)


def _copy_result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {key: list(value) if isinstance(value, list) else value
            for key, value in result.items()}
