"""Jazz for the AI: what a seat knows, sampled deals, fast trick rollouts, rules of thumb.

What a seat knows in a deal: its own hand, every card played (actions are
public), the hand sizes, voids shown by failing to follow suit (no drawing in
Jazz, so a void lasts the deal), and in Sevens the cards a passing seat could
have played but did not hold at that moment (a pass is only legal with nothing
playable, so those cards were elsewhere, and stay elsewhere).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import cards
from engine.ai.base import GameAI, Observation, clamp01, deal_actions, engine_rollout
from engine.ai.sampling import deal_unseen
from engine.cards import ACE, CLUBS, QUEEN, RANK, SUIT
from engine.core import PASS, Game
from engine.jazz import _CARD_PENALTY, KING_OF_CLUBS, QUEENS, SEVENS_DEAL, Jazz, trick_deck
from engine.text import T, Text

# How much one deal can swing, to bring rewards near [0, 1] for UCB (Sevens: with the
# default bonus of 10; a larger bonus widens it).
_SCALE = (13.0, 13.0, 20.0, 15.0, 20.0, 20.0)


@dataclass
class JazzObservation(Observation[Jazz]):
    deal: int
    hand: list[int]
    others: list[int]  # the other seats, in seat order
    sizes: list[int]  # their hand sizes
    barred: list[frozenset[int]]  # per other seat: cards it cannot hold
    pool: list[int]  # the cards the seat cannot see, sorted
    scale: float  # how far one seat's points in this deal can swing from the others'


class JazzAI(GameAI):
    GAME_ID = "jazz"
    GUIDED_NOISE = 0.2  # the share of random cards in a guided rollout

    def observe(self, game: Game, seat: int) -> JazzObservation:
        assert isinstance(game, Jazz)
        view = game.seat_view(seat)
        n, deal = game.players, view["deal"]
        hand = sorted(cards.parse_cards(view["hand"]))
        actions = deal_actions(game)
        played = {a for _, a in actions if a != PASS}
        deck = list(cards.DECK) if deal == SEVENS_DEAL else trick_deck(n)
        mine = set(hand)
        pool = [c for c in deck if c not in played and c not in mine]
        if deal == SEVENS_DEAL:
            barred = _sevens_barred(actions, n, game.options.norwegian)
        else:
            barred = _voids(actions, n)
        others = [s for s in range(n) if s != seat]
        base = game.copy()
        base._hands = [[] for _ in range(n)]  # wipe every hidden card
        base._hands[seat] = list(hand)
        base._legal = None
        pool_set = set(pool)
        return JazzObservation(
            seat=seat, base=base, view=view, deal=deal, hand=hand, others=others,
            sizes=[view["hand_sizes"][s] for s in others],
            barred=[frozenset(barred[s] & pool_set) for s in others], pool=pool,
            scale=_SCALE[deal] if deal != SEVENS_DEAL else max(
                10.0, _SCALE[deal] + game.options.sevens_bonus - 10),
        )

    def determinize(self, obs: Observation, rng: random.Random) -> Game:
        assert isinstance(obs, JazzObservation)
        state = obs.base.copy()
        hands = state._hands
        for s, dealt in zip(obs.others, deal_unseen(obs.pool, obs.sizes, obs.barred, rng),
                            strict=True):
            hands[s] = sorted(dealt)  # the engine keeps hands sorted
        return state

    def rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        assert isinstance(state, Jazz) and isinstance(obs, JazzObservation)
        deal = obs.deal
        if deal == SEVENS_DEAL:
            engine_rollout(state, rng)
            points = state._points[deal]
        elif state._in_deal:
            points = rollout_tricks(state, rng)
        else:
            points = state._points[deal]
        return _rewards(points, obs.scale)

    def guided_rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        assert isinstance(state, Jazz) and isinstance(obs, JazzObservation)
        if obs.deal == SEVENS_DEAL or not state._in_deal:
            return self.rollout(state, obs, rng)
        return _rewards(rollout_tricks(state, rng, self.GUIDED_NOISE), obs.scale)

    def explain_easy(self, obs: Observation, legal: list[int], action: int) -> Text | None:
        return explain_easy(obs, legal, action)

    def easy(self, obs: Observation, legal: list[int], rng: random.Random) -> int:
        assert isinstance(obs, JazzObservation)
        if len(legal) == 1:
            return legal[0]
        if obs.deal == SEVENS_DEAL:
            return _easy_sevens(obs, legal)
        return _easy_tricks(obs, legal)


def _rewards(points: list[int], scale: float) -> list[float]:
    """Each seat's points against the others' average: the match is won on totals."""
    n = len(points)
    total = sum(points)
    return [clamp01(0.5 + (p - (total - p) / (n - 1)) / (2 * scale)) for p in points]


# ---------------------------------------------------------------- what was seen


def _voids(actions: list[tuple[int, int]], n: int) -> list[set[int]]:
    """Per seat, the cards of every suit it failed to follow (trick deals: tricks of n)."""
    barred: list[set[int]] = [set() for _ in range(n)]
    for i, (seat, c) in enumerate(actions):
        led = actions[i - i % n][1]
        if SUIT[c] != SUIT[led]:
            barred[seat].update(_SUIT_CARDS[SUIT[led]])
    return barred


_SUIT_CARDS = tuple(frozenset(range(s * 13, s * 13 + 13)) for s in cards.SUITS)


def _sevens_barred(actions: list[tuple[int, int]], n: int, norwegian: bool) -> list[set[int]]:
    """Per seat, every card that was playable when it passed: it held none of them."""
    barred: list[set[int]] = [set() for _ in range(n)]
    low, high = [0] * 4, [0] * 4
    pos = _row_positions(norwegian)
    for seat, a in actions:
        if a == PASS:
            barred[seat].update(_playable(low, high, pos))
            continue
        s, p = SUIT[a], pos[a]
        if low[s] == 0:
            low[s] = high[s] = p
        elif p > high[s]:
            high[s] = p
        else:
            low[s] = p
    return barred


def _row_positions(norwegian: bool) -> tuple[int, ...]:
    if norwegian:
        return tuple(1 if RANK[c] == ACE else RANK[c] for c in range(52))
    return tuple(RANK[c] for c in range(52))


def _playable(low: list[int], high: list[int], pos: tuple[int, ...]) -> list[int]:
    return [c for c in range(52) if (low[SUIT[c]] == 0 and pos[c] == 7)
            or (low[SUIT[c]] and pos[c] in (low[SUIT[c]] - 1, high[SUIT[c]] + 1))]


# ---------------------------------------------------------------- fast rollout


def rollout_tricks(state: Jazz, rng: random.Random, noise: float | None = None) -> list[int]:
    """Play a trick deal to its end on bare lists; return the deal's points.

    At random (``noise`` None): the same random choices as the engine's own loop
    (``choice`` over the legal cards in hand order) and the same scoring, and a
    test plays both side by side. Guided (``noise`` a probability): every player
    plays ``trick_heuristic``'s card, or a random one with that probability.
    Deals 2-4 stop when no penalty card is left, as nothing can change after.
    """
    n, deal = state.players, state._deal
    hands = state._hands  # the state is the rollout's own: mutate it freely
    points = list(state._points[deal])
    penalty = _CARD_PENALTY[deal]
    left = state._penalty_left
    trick = list(state._trick)
    seat = state._to_act
    leader = state._leader
    choice = rng.choice
    while True:
        while len(trick) < n:
            hand = hands[seat]
            if trick:
                led = trick[0] // 13
                legal = [c for c in hand if c // 13 == led] or hand
            else:
                legal = hand
            if noise is None or len(legal) == 1 or rng.random() < noise:
                c = choice(legal)
            else:
                c = trick_heuristic(deal, trick, legal, n, len(hand))
            hand.remove(c)
            trick.append(c)
            seat = seat + 1 if seat + 1 < n else 0
        led = trick[0] // 13
        best = 0
        for i in range(1, n):
            if trick[i] // 13 == led and trick[i] > trick[best]:
                best = i
        winner = (leader + best) % n
        last = not hands[winner]
        if deal == 0:
            points[winner] -= 1
        elif deal == 4:
            if last:
                points[winner] -= 20
        else:
            for c in trick:
                if penalty[c]:
                    points[winner] += penalty[c]
                    left -= 1
            if left == 0:
                last = True
        if last:
            return points
        trick = []
        leader = seat = winner


# ---------------------------------------------------------------- easy


def _danger(deal: int, c: int) -> int:
    """How much holding ``c`` late in a trick deal can cost: shed the worst first."""
    rank = RANK[c]
    if deal == 1 and SUIT[c] == CLUBS:
        return 20 + rank
    if deal == 2:
        if c in QUEENS:
            return 40
        if rank > QUEEN:
            return 20 + rank  # kings and aces catch queens
    if deal == 3:
        if c == KING_OF_CLUBS:
            return 60
        if SUIT[c] == CLUBS and rank == ACE:
            return 40
    return rank


def _easy_tricks(obs: JazzObservation, legal: list[int]) -> int:
    trick = [cards.parse_card(t["card"]) for t in obs.view["trick"]]
    return trick_heuristic(obs.deal, trick, legal, len(obs.others) + 1, len(obs.hand))


def trick_heuristic(deal: int, trick: list[int], legal: list[int], n: int,
                    hand_size: int) -> int:
    """``easy``'s card in a trick deal (and the guided rollouts' players')."""
    if deal == 4 and hand_size > 3:
        # Only the last trick costs: shed high cards while it is early, keep low ones.
        return max(legal, key=lambda c: (RANK[c], c))
    if not trick:
        # Lead low: a low lead is rarely the highest of its suit, and never a dangerous one.
        return min(legal, key=lambda c: (_danger(deal, c) >= 20, RANK[c], c))
    led = SUIT[trick[0]]
    following = [c for c in legal if SUIT[c] == led]
    if not following:
        return max(legal, key=lambda c: (_danger(deal, c), c))  # void: dump the worst
    top = max(c for c in trick if SUIT[c] == led)
    under = [c for c in following if c < top]
    if under:
        return max(under)  # duck as high as possible: the high card is gone, safely
    last = len(trick) == n - 1
    # Taking it anyway: when last, take it with the most dangerous card; else go low.
    return max(following) if last else min(following)


def _easy_sevens(obs: JazzObservation, legal: list[int]) -> int:
    """Play the card that opens most of my own cards and least of the others'."""
    pos = _row_positions(obs.base.options.norwegian)
    mine, unseen = set(obs.hand), set(obs.pool)

    def worth(c: int) -> tuple[float, int]:
        s, p = SUIT[c], pos[c]
        if p == 7:
            ahead = [x for x in range(52) if SUIT[x] == s and pos[x] != 7]
        elif p > 7:
            ahead = [x for x in range(52) if SUIT[x] == s and pos[x] > p]
        else:
            ahead = [x for x in range(52) if SUIT[x] == s and pos[x] < p]
        own = sum(1 for x in ahead if x in mine)
        theirs = sum(1 for x in ahead if x in unseen)
        # Each own card opened is a future move; each other card opened helps a rival.
        return (own - 0.5 * theirs + (0.1 if p != 7 else 0.0), -c)

    return max(legal, key=worth)


# ---------------------------------------------------------------- hints
# Why ``easy`` plays a move, in words (``engine.ai.reasons``); each sentence follows a
# branch of ``easy`` in the same order.

# Jazz (trick deals, then the Sevens deal)
# Translators: a hint's reason (Jazz, the deal where only the last trick costs)
SHED_EARLY = T("Only the last trick costs in this deal: shed your high cards while it is "
               "early.")
# Translators: a hint's reason (Jazz): leading a trick
LEAD_LOW = T("Lead low and keep your dangerous cards back: a low lead rarely wins the "
             "trick.")
# Translators: a hint's reason (Jazz): the player holds no card of the suit led
DUMP_WORST = T("You cannot follow suit: get rid of your most dangerous card.")
# Translators: a hint's reason (Jazz): play under the card that is winning the trick
DUCK = T("Stay under the card that wins the trick, with your highest card that still "
         "loses it.")
# Translators: a hint's reason (Jazz): the player is the last to play to the trick
TAKE_LAST = T("You play last and every card you may play wins the trick: take it with "
              "your highest one.")
# Translators: a hint's reason (Jazz): every card the player may play beats the trick
TAKE_LOW = T("Every card you may play beats the trick so far: play your lowest.")
# Translators: a hint's reason (Jazz, Sevens): which card to add to the rows
SEVENS = T("It opens the way for the most of your own cards and the fewest of the "
           "others'.")


def explain_easy(obs: Observation, legal: list[int], action: int) -> Text | None:
    """``JazzAI.easy``: ``_easy_sevens``, else ``trick_heuristic``."""
    assert isinstance(obs, JazzObservation)
    if obs.deal == SEVENS_DEAL:
        return SEVENS
    trick = [cards.parse_card(t["card"]) for t in obs.view["trick"]]
    if obs.deal == 4 and len(obs.hand) > 3:
        return SHED_EARLY
    if not trick:
        return LEAD_LOW
    led = SUIT[trick[0]]
    following = [c for c in legal if SUIT[c] == led]
    if not following:
        return DUMP_WORST
    top = max(c for c in trick if SUIT[c] == led)
    if any(c < top for c in following):
        return DUCK
    if len(trick) == len(obs.others):  # the last of the trick to play
        return TAKE_LAST
    return TAKE_LOW
