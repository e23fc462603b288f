"""Jacko for the AI: perfect information once dealt.

The two hands are complementary, so the opponent's cards are all 52 minus the
seat's own and every card played in the deal (the ``open_hands`` view shows
them too). Every determinization is therefore the same state, and the search
is plain Monte Carlo tree search.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import cards
from engine.ai.base import GameAI, Observation, clamp01, deal_actions, engine_rollout
from engine.core import KEYWORDS, Game
from engine.jacko import BASE, ELEVEN, Jacko
from engine.text import T, Text

_SCALE = 40.0  # a lead of this many points maps to reward 1 (a few rounds move far less)


@dataclass
class JackoObservation(Observation[Jacko]):
    totals: list[int]
    rounds: int  # rounds finished in this deal


class JackoAI(GameAI):
    GAME_ID = "jacko"
    # Rounds a rollout looks ahead (None: to the end of the deal). Three rounds played
    # even with whole-deal rollouts in self-play (10-10 over 20 games) at a third of the
    # time: points come round by round, and far rollouts are mostly noise.
    horizon: int | None = 3

    def observe(self, game: Game, seat: int) -> JackoObservation:
        assert isinstance(game, Jacko)
        view = game.seat_view(seat)
        hand = sorted(cards.parse_cards(view["hand"]))
        if view["opponent_hand"] is not None:
            other = sorted(cards.parse_cards(view["opponent_hand"]))
        else:  # worked out, as a player would: the deck less my cards and the cards played
            played = {a for _, a in deal_actions(game) if a not in KEYWORDS}
            mine = set(hand)
            other = [c for c in cards.DECK if c not in mine and c not in played]
        base = game.copy()
        base._hands = [[], []]
        base._hands[seat] = hand
        base._hands[1 - seat] = other
        base._legal = None
        return JackoObservation(seat=seat, base=base, view=view, totals=list(view["totals"]),
                                rounds=view["rounds_played"])

    def determinize(self, obs: Observation, rng: random.Random) -> Game:
        return obs.base.copy()

    def rollout(self, state: Game, obs: Observation, rng: random.Random) -> list[float]:
        assert isinstance(state, Jacko) and isinstance(obs, JackoObservation)
        if self.horizon is None:
            engine_rollout(state, rng)
        else:
            stop = obs.rounds + self.horizon
            while state.to_act is not None and state._rounds_played < stop:
                legal = state.legal_actions()
                state._apply(legal[rng.randrange(len(legal))], None)
        if state._over:
            return [1.0 if state._winner == s else 0.0 for s in (0, 1)]
        (a0, b0), (a, b) = obs.totals, state._totals
        lead = (a - a0) - (b - b0)
        return [clamp01(0.5 + lead / (2 * _SCALE)), clamp01(0.5 - lead / (2 * _SCALE))]

    def explain_easy(self, obs: Observation, legal: list[int], action: int) -> Text | None:
        return explain_easy(obs, legal, action)

    def easy(self, obs: Observation, legal: list[int], rng: random.Random) -> int:
        assert isinstance(obs, JackoObservation)
        seat = obs.seat
        base = obs.base
        assert isinstance(base, Jacko)

        def worth(action: int) -> tuple[float, int]:
            after = base.copy()
            after.apply_quietly(seat, action)
            mine = after._totals[seat] - obs.totals[seat]
            if after._over:
                return (1000.0, -action)
            # One ply further: the best the opponent can score right away in reply.
            reply = 0
            if after.to_act == 1 - seat:
                for answer in after.legal_actions():
                    again = after.copy()
                    again.apply_quietly(1 - seat, answer)
                    reply = max(reply, again._totals[1 - seat] - after._totals[1 - seat])
            # Keep zero cards (jacks) for holding eleven: spending one elsewhere wastes it.
            wasted = 0.5 if action < 52 and BASE[action] == 0 and base._sum != ELEVEN else 0.0
            return (mine - reply - wasted, -action)

        return max(legal, key=worth)


# ---------------------------------------------------------------- hints
# Why ``easy`` plays a move, in words (``engine.ai.reasons``); each sentence follows a
# branch of ``easy`` in the same order.

# Jacko
# Translators: a hint's reason (Jacko)
WINS_NOW = T("It wins the game right away.")
# Translators: a hint's reason (Jacko): the move's points less the opponent's best answer
BEST_TRADE = T("It gains the most points once the opponent's best answer is counted.")


def explain_easy(obs: Observation, legal: list[int], action: int) -> Text | None:
    """``JackoAI.easy``: the best of (points now − the best reply), a win first."""
    assert isinstance(obs, JackoObservation)
    after = obs.base.copy()
    assert isinstance(after, Jacko)
    after.apply_quietly(obs.seat, action)
    return WINS_NOW if after._over else BEST_TRADE
