"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS).

One tree for the searching seat's information set. Every iteration samples a
world consistent with what the seat knows (a determinization), walks the tree
with UCB among the actions legal *in that world* (each child counts how often
it was available, so rarely possible opponent moves are not over-explored),
adds one node, plays the rest of the deal at random, and credits each node
with the reward of the seat that chose its action (Cowling, Powley and
Whitehouse 2012). The most visited action at the root is played.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from engine.ai.base import GameAI, Observation


class _Node:
    __slots__ = ("avail", "children", "player", "total", "visits")

    def __init__(self, player: int) -> None:
        self.player = player  # the seat whose action led here: it owns the rewards
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0


@dataclass
class SearchResult:
    action: int
    iterations: int
    seconds: float
    visits: dict[int, int]  # root action -> visits


def search(ai: GameAI, obs: Observation, rng: random.Random, iterations: int,
           time_limit: float | None = None, exploration: float = 0.7,
           guided: bool = False) -> SearchResult:
    """Run up to ``iterations`` iterations (fewer if ``time_limit`` seconds run out);
    ``guided`` plays the rollouts with the game's ``guided_rollout``."""
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    root = _Node(obs.seat)
    auto = ai.AUTO_STEPS
    determinize = ai.determinize
    rollout = ai.guided_rollout if guided else ai.rollout
    log, sqrt = math.log, math.sqrt
    done = 0
    while done < iterations:
        # Reading the clock costs about as much as a node step: look every 8 iterations.
        if deadline is not None and done & 7 == 0 and done and time.perf_counter() > deadline:
            break
        done += 1
        state = determinize(obs, rng)
        node = root
        path: list[_Node] = []
        while True:
            if auto:
                while state.has_auto_step:
                    state.auto_step_quietly()
            player = state.to_act
            if player is None:
                break
            legal = state.legal_actions()
            children = node.children
            untried = [a for a in legal if a not in children]
            if untried:
                for a in legal:
                    child = children.get(a)
                    if child is not None:
                        child.avail += 1
                action = untried[rng.randrange(len(untried))]
                node = children[action] = _Node(player)
                path.append(node)
                state.apply_quietly(player, action)
                break
            best_score = -1e300
            best_action = legal[0]
            for a in legal:
                child = children[a]
                child.avail += 1
                visits = child.visits
                score = child.total / visits + exploration * sqrt(log(child.avail) / visits)
                if score > best_score:
                    best_score, best_action = score, a
            node = children[best_action]
            path.append(node)
            state.apply_quietly(player, best_action)
        rewards = rollout(state, obs, rng)
        for n in path:
            n.visits += 1
            n.total += rewards[n.player]
    root_visits = {a: child.visits for a, child in root.children.items()}
    # Most visits wins; ties go to the smallest action so the choice is deterministic.
    action = min(root_visits, key=lambda a: (-root_visits[a], a))
    return SearchResult(action, done, time.perf_counter() - start, root_visits)
