"""AttackJack for the AI: the ``choice`` option's take / stand is the only decision.

What a seat knows: every face-up card, the open card, its own face-down card
(``blind``), the statuses (which are clues: a seat that kept its two cards
holds 21 or a bomb with its face-down card; one that took or stood was under
21; one that went out passed 21 with the card it took). Unknown: the others'
face-down cards and the deck below the open card.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine import cards
from engine.ai.base import GameAI, Observation
from engine.ai.sampling import deal_unseen
from engine.attackjack import FULL_DECK, AttackJack, hand_value
from engine.core import STAND, TAKE, Game
from engine.text import T, Text


@dataclass
class AttackJackObservation(Observation[AttackJack]):
    shown: list[list[int]]  # per seat, its public cards in the order they came
    blind: list[int]  # the other seats whose face-down card is unknown
    own: list[int]  # my hand in the engine's order (face-down card second)
    open_card: int | None
    pool: list[int]  # unseen cards, sorted (jokers may repeat)
    sizes: list[int]  # one per blind seat, then the deck below the open card
    barred: list[frozenset[int]]


class AttackJackAI(GameAI):
    GAME_ID = "attackjack"
    AUTO_STEPS = True

    def observe(self, game: Game, seat: int) -> AttackJackObservation:
        assert isinstance(game, AttackJack)
        view = game.seat_view(seat)
        shown = [cards.parse_cards(s["cards"]) for s in view["seats"]]
        face_down = cards.parse_card(view["face_down"]) if view["face_down"] else None
        own = list(shown[seat])
        if face_down is not None:
            own.insert(1, face_down)
        open_card = cards.parse_card(view["open_card"]) if view["open_card"] else None
        unseen = Counter(FULL_DECK)
        unseen.subtract(own)
        for s, public in enumerate(shown):
            if s != seat:
                unseen.subtract(public)
        if open_card is not None:
            unseen[open_card] -= 1
        pool = sorted(unseen.elements())
        blind = [s for s, info in enumerate(view["seats"]) if s != seat and info["hidden"]]
        barred = [frozenset(c for c in pool if not _fits(view["seats"][s], shown[s], c))
                  for s in blind]
        base = game.copy()
        base._hands = [list(public) for public in shown]
        base._hands[seat] = own
        base._stock = []  # wiped: the deck's order is unknown
        base._pos = 0
        return AttackJackObservation(
            seat=seat, base=base, view=view, shown=shown, blind=blind, own=own,
            open_card=open_card, pool=pool, sizes=[1] * len(blind) + [view["deck"]],
            barred=[*barred, frozenset()],
        )

    def determinize(self, obs: Observation, rng: random.Random) -> Game:
        assert isinstance(obs, AttackJackObservation)
        state = obs.base.copy()
        dealt = deal_unseen(obs.pool, obs.sizes, obs.barred, rng)
        for s, (card,) in zip(obs.blind, dealt, strict=False):
            public = obs.shown[s]
            state._hands[s] = [public[0], card, *public[1:]]
        deck = dealt[-1]
        state._stock = [obs.open_card, *deck] if obs.open_card is not None else []
        return state

    def rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        assert isinstance(state, AttackJack)
        while not state.is_over:
            if state.has_auto_step:
                state._auto_step(None)
            else:  # the others choose as a sensible player does, seeing the open card
                seat = state._chooser
                assert seat is not None
                state._apply(_sensible(state._hands[seat], state._stock[state._pos]), None)
        winners = state._winners
        n = state.players
        if not winners:
            return [1.0 / n] * n  # everyone out: the stakes come back
        share = 1.0 / len(winners)
        return [share if s in winners else 0.0 for s in range(n)]

    def explain_easy(self, obs: Observation, legal: list[int], action: int) -> Text | None:
        return explain_easy(obs, legal, action)

    def easy(self, obs: Observation, legal: list[int], rng: random.Random) -> int:
        assert isinstance(obs, AttackJackObservation)
        if obs.open_card is None:
            return STAND
        return _sensible(obs.own, obs.open_card)


def _sensible(hand: list[int], open_card: int) -> int:
    """The open card is face up, so taking is no gamble for the taker: take it when it
    raises the hand's value without passing 21 (a joker makes a bomb), else stand."""
    now, then = hand_value(hand), hand_value([*hand, open_card])
    return TAKE if now < then <= 21 else STAND


def _fits(info: dict[str, Any], public: list[int], blind: int) -> bool:
    """Whether a face-down card ``blind`` agrees with what the seat's turn showed."""
    status = info["status"]
    if status == "waiting":
        return True
    two = hand_value([public[0], blind])
    if status == "kept":
        return two == 21
    if two >= 21:
        return False  # took, stood or went out: it was under 21 before its turn
    if status == "stood":
        return True
    three = hand_value([public[0], blind, *public[1:]])
    return three <= 21 if status == "took" else three > 21


# ---------------------------------------------------------------- hints
# Why ``easy`` plays a move, in words (``engine.ai.reasons``); each sentence follows a
# branch of ``easy`` in the same order.

# AttackJack
# Translators: a hint's reason (AttackJack): take the open card
TAKE_UP = T("The open card raises your hand without passing 21.")
# Translators: a hint's reason (AttackJack): stand, as taking would go over 21
STAND_BUST = T("Taking the open card would pass 21.")
# Translators: a hint's reason (AttackJack): stand, as the open card would not help
STAND_NO_GAIN = T("The open card would not raise your hand.")
# Translators: a hint's reason (AttackJack): stand when no card lies open
STAND_NOTHING = T("There is no open card to take.")


def explain_easy(obs: Observation, legal: list[int], action: int) -> Text | None:
    """``AttackJackAI.easy``: take when it raises the hand to at most 21, else stand."""
    assert isinstance(obs, AttackJackObservation)
    if obs.open_card is None:
        return STAND_NOTHING
    now, then = hand_value(obs.own), hand_value([*obs.own, obs.open_card])
    if now < then <= 21:
        return TAKE_UP
    return STAND_BUST if then > 21 else STAND_NO_GAIN
