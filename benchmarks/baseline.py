"""A bare-int random 4-player trick deal with no engine around it: the yardstick.

The engine benchmark reports this rate beside the engine's own, measured in the
same run, so the ratio holds however busy the machine is.
"""

from __future__ import annotations

import random


def bare_trick_deal(rng: random.Random) -> int:
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [deck[i * 13:(i + 1) * 13] for i in range(4)]
    leader = 0
    for _ in range(13):
        trick: list[int] = []
        for i in range(4):
            hand = hands[(leader + i) % 4]
            if trick:
                led = trick[0] // 13
                legal = [c for c in hand if c // 13 == led] or hand
            else:
                legal = hand
            card = rng.choice(legal)
            hand.remove(card)
            trick.append(card)
        led = trick[0] // 13
        best = 0
        for i in range(1, 4):
            if trick[i] // 13 == led and trick[i] > trick[best]:
                best = i
        leader = (leader + best) % 4
    return 52
