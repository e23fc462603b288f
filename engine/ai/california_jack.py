"""California Jack for the AI.

What a seat knows: its hand, every card played, the stock's top card and size,
the cards each player drew (the stock is face up, so both draws after a trick
are public: the view's ``known``), and voids: a player who did not follow suit
held none of it, and since every later draw is public, the cards of its hand
nobody has seen (what is left of its first six) still hold none. Unknown: those
cards and the order of the stock below its top.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import cards
from engine.ai.base import GameAI, Observation, clamp01, deal_actions, engine_rollout
from engine.ai.sampling import deal_unseen
from engine.california_jack import NOBODY, TRICK_POINTS, CaliforniaJack, _trick_winner
from engine.cards import ACE, JACK, RANK, SUIT
from engine.core import Game
from engine.text import T, Text

_SUIT_CARDS = tuple(frozenset(range(s * 13, s * 13 + 13)) for s in cards.SUITS)


@dataclass
class CaliforniaJackObservation(Observation[CaliforniaJack]):
    trump: int
    top: int | None  # the stock's visible top card
    known: list[int]  # the opponent's cards everybody saw it draw
    pool: list[int]  # unseen cards: the rest of the opponent's first six, the stock below top
    sizes: list[int]  # [opponent's unseen cards, stock below top]
    barred: list[frozenset[int]]


class CaliforniaJackAI(GameAI):
    GAME_ID = "california_jack"
    GUIDED_NOISE = 0.2
    # Measured, hard's 4,000 guided iterations against normal in duplicate deals: at
    # 0.3, +0.6 game points a deal [0.3, 0.9] (80 deals); at 0.7, -0.1 [-0.8, 0.5] (60).
    GUIDED_EXPLORATION = 0.3

    def observe(self, game: Game, seat: int) -> CaliforniaJackObservation:
        assert isinstance(game, CaliforniaJack)
        view = game.seat_view(seat)
        opp = 1 - seat
        trump = cards.SUIT_LETTERS.index(view["trump"])
        hand = sorted(cards.parse_cards(view["hand"]))
        known = sorted(cards.parse_cards(view["known"][opp]))
        top = cards.parse_card(view["stock_top"]) if view["stock_top"] else None
        actions = deal_actions(game)
        played = {a for _, a in actions}
        seen = played | set(hand) | set(known) | ({top} if top is not None else set())
        pool = [c for c in cards.DECK if c not in seen]
        hidden = view["hand_sizes"][opp] - len(known)
        void = _voids(actions, opp, trump, game.options.follow_or_trump)
        base = game.copy()
        base._hands = [[], []]
        base._hands[seat] = list(hand)
        base._stock = ()  # wiped: the order below the top is unknown
        base._pos = 0
        base._last_draw = NOBODY
        points, honours = _captured(actions, trump)
        base._trick_points = points  # face down in the view, but every card was seen played
        base._honour_owner = honours
        return CaliforniaJackObservation(
            seat=seat, base=base, view=view, trump=trump, top=top, known=known, pool=pool,
            sizes=[hidden, len(pool) - hidden],
            barred=[frozenset(c for c in pool if c in void), frozenset()],
        )

    def determinize(self, obs: Observation, rng: random.Random) -> Game:
        assert isinstance(obs, CaliforniaJackObservation)
        state = obs.base.copy()
        hidden, below = deal_unseen(obs.pool, obs.sizes, obs.barred, rng)
        state._hands[1 - obs.seat] = obs.known + hidden
        state._stock = (obs.top, *below) if obs.top is not None else ()
        return state

    def rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        assert isinstance(state, CaliforniaJack)
        engine_rollout(state, rng)
        return self._score(state)

    @staticmethod
    def _score(state: CaliforniaJack) -> list[float]:
        if state._over:
            return [1.0 if s in state._winners else 0.0 for s in (0, 1)]
        a, b = state._deal_points[-1]
        lead = a - b
        # A deal moves at most 4 game points; winning the game outranks any deal.
        return [clamp01(0.5 + lead / 10), clamp01(0.5 - lead / 10)]

    def guided_rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        """Like ``rollout``, but both players mostly play as ``easy`` does (a random card
        one time in ``GUIDED_NOISE``): the deal is then scored as people would play it."""
        assert isinstance(state, CaliforniaJack)
        noise = self.GUIDED_NOISE
        while True:
            seat = state._to_act
            if seat is None:
                break
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            elif rng.random() < noise:
                action = legal[rng.randrange(len(legal))]
            else:
                pos = state._pos
                top = state._stock[pos] if pos < len(state._stock) else None
                lead = state._lead
                action = (_easy_follow(lead, legal, state._trump, top) if lead >= 0
                          else _easy_lead(legal, state._trump, top))
            state._apply(action, None)
        return self._score(state)

    def explain_easy(self, obs: Observation, legal: list[int], action: int) -> Text | None:
        return explain_easy(obs, legal, action)

    def easy(self, obs: Observation, legal: list[int], rng: random.Random) -> int:
        assert isinstance(obs, CaliforniaJackObservation)
        trick = obs.view["trick"]
        if trick:
            return _easy_follow(cards.parse_card(trick[0]["card"]), legal, obs.trump, obs.top)
        return _easy_lead(legal, obs.trump, obs.top)


def _voids(actions: list[tuple[int, int]], opp: int, trump: int,
           follow_or_trump: bool) -> set[int]:
    """The cards of every suit ``opp`` showed it did not hold when it followed."""
    void: set[int] = set()
    for i in range(1, len(actions), 2):
        seat, c = actions[i]
        led = SUIT[actions[i - 1][1]]
        if seat != opp or SUIT[c] == led:
            continue
        if follow_or_trump and led != trump and SUIT[c] == trump:
            continue  # trumping was allowed while holding the suit: nothing learnt
        void |= _SUIT_CARDS[led]
    return void


def _captured(actions: list[tuple[int, int]], trump: int) -> tuple[list[int], list[int]]:
    """Trick points and the owners of High, Jack and Low from the tricks played so far."""
    points = [0, 0]
    honours = (cards.card(ACE, trump), cards.card(JACK, trump), cards.card(2, trump))
    owners = [NOBODY, NOBODY, NOBODY]
    for i in range(1, len(actions), 2):
        (leader, lead), (_, follow) = actions[i - 1], actions[i]
        winner = _trick_winner(leader, lead, follow, trump)
        points[winner] += TRICK_POINTS[lead] + TRICK_POINTS[follow]
        for k, honour in enumerate(honours):
            if honour in (lead, follow):
                owners[k] = winner
    return points, owners


# ---------------------------------------------------------------- easy


def _value(c: int, trump: int) -> int:
    """What a card is worth to whoever captures it: trick points, and the trump honours."""
    worth = TRICK_POINTS[c]
    if SUIT[c] == trump and RANK[c] in (ACE, JACK, 2):
        worth += 10  # High, Jack or Low: a game point each
    return worth


def _beats(c: int, lead: int, trump: int) -> bool:
    if SUIT[c] == SUIT[lead]:
        return c > lead
    return SUIT[c] == trump


def _easy_follow(lead: int, legal: list[int], trump: int, top: int | None) -> int:
    winners = [c for c in legal if _beats(c, lead, trump)]
    losers = [c for c in legal if c not in winners]
    # What winning brings: the card led, and the stock's top card (any trump is worth it).
    prize = _value(lead, trump)
    if top is not None:
        prize += _value(top, trump) + (SUIT[top] == trump)
    if winners and (prize > 0 or not losers):
        # Win it cheaply: a plain card before a trump, the least valuable, the lowest.
        return min(winners, key=lambda c: (SUIT[c] == trump, _value(c, trump), RANK[c], c))
    # Lose it cheaply: give away no points, keep the trumps.
    return min(losers, key=lambda c: (_value(c, trump), SUIT[c] == trump, RANK[c], c))


def _easy_lead(legal: list[int], trump: int, top: int | None) -> int:
    plain = [c for c in legal if SUIT[c] != trump] or legal
    if top is not None and (SUIT[top] == trump or TRICK_POINTS[top] > 0):
        # A stock card worth having: lead the strongest plain card to win the draw.
        return max(plain, key=lambda c: (RANK[c], -_value(c, trump), c))
    # Nothing worth winning: lead a worthless low card and keep the strong ones.
    return min(plain, key=lambda c: (_value(c, trump), RANK[c], c))


# ---------------------------------------------------------------- hints
# Why ``easy`` plays a move, in words (``engine.ai.reasons``); each sentence follows a
# branch of ``easy`` in the same order.

# California Jack
# Translators: a hint's reason (California Jack): win a trick that brings points
WIN_CHEAPLY = T("This trick is worth winning: win it with your cheapest winning card.")
# Translators: a hint's reason (California Jack): every card the player may play wins
ALL_WIN = T("Every card you may play wins this trick: win it with the cheapest.")
# Translators: a hint's reason (California Jack): no card the player holds wins the trick
CANNOT_WIN = T("You cannot win this trick: lose it with your least valuable card.")
# Translators: a hint's reason (California Jack): the trick would bring no points
NOT_WORTH = T("Nothing in this trick is worth winning: lose it with your least valuable "
              "card.")
# Translators: a hint's reason (California Jack): lead to win the stock's face-up card
LEAD_FOR_TOP = T("The stock's top card is worth having: lead high to win it.")
# Translators: a hint's reason (California Jack): lead when the stock's top card is worthless
LEAD_CHEAP = T("Nothing is worth winning: lead a cheap low card and keep the strong ones.")


def explain_easy(obs: Observation, legal: list[int], action: int) -> Text | None:
    """``CaliforniaJackAI.easy``: ``_easy_follow`` or ``_easy_lead``."""
    assert isinstance(obs, CaliforniaJackObservation)
    trump, top = obs.trump, obs.top
    trick = obs.view["trick"]
    if trick:
        lead = cards.parse_card(trick[0]["card"])
        winners = [c for c in legal if _beats(c, lead, trump)]
        losers = [c for c in legal if c not in winners]
        prize = _value(lead, trump)
        if top is not None:
            prize += _value(top, trump) + (SUIT[top] == trump)
        if winners and (prize > 0 or not losers):
            return WIN_CHEAPLY if prize > 0 else ALL_WIN
        return NOT_WORTH if winners else CANNOT_WIN
    if top is not None and (SUIT[top] == trump or TRICK_POINTS[top] > 0):
        return LEAD_FOR_TOP
    return LEAD_CHEAP
