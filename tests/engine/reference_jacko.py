"""A second, deliberately plain Jacko, written from docs/rules/jacko.md alone.

Cards are code strings and the round is a list of (player, card, value); it
shares no code with engine/jacko.py, so replaying the same records through both
catches a misreading that one implementation would repeat in its own tests.
"""

from __future__ import annotations

SUIT_ORDER = "SHCD"
ROUND_SCORE = {16: 1, 17: 2, 18: 3, 19: 4, 20: 5}


def face(code: str) -> int:
    """The face value of a card that is not a queen or a king."""
    rank = code[0]
    return {"A": 1, "T": 10, "J": 0}[rank] if rank in "ATJ" else int(rank)


class Round:
    def __init__(self) -> None:
        self.total = 0
        self.laid: list[tuple[int, str, int | None]] = []  # player, card, value (None: waiting)
        self.doubling = False
        self.passed: int | None = None
        self.zeros_at_21 = 0

    def waiting(self) -> int:
        return sum(1 for _, _, v in self.laid if v is None)

    def value_of(self, code: str) -> tuple[int, int]:
        """(what the card adds itself, what it adds in all with the queens it resolves);
        -1 for a queen led that waits."""
        if code[0] == "Q":
            if not self.laid or all(v is None for _, _, v in self.laid):
                return -1, 0
            return self.laid[-1][2], self.laid[-1][2]
        if code[0] == "K":
            if not self.laid:
                return 0, 0
            if self.waiting():
                return 0, 0
            return self.total, self.total
        v = face(code) * (2 if self.doubling else 1)
        return v, v * (1 + self.waiting())


def current_suit(hand: list[str]) -> str | None:
    for suit in SUIT_ORDER:
        if any(c[1] == suit for c in hand):
            return suit
    return None


def legal_cards(hand: list[str], rnd: Round) -> list[str]:
    suit = current_suit(hand)
    out = []
    for code in hand:
        if code[1] != suit:
            continue
        if code[0] == "K" and rnd.total > 10:
            continue
        _, added = rnd.value_of(code)
        if rnd.total + added <= 21:
            out.append(code)
    return out


class Deal:
    """One deal being replayed; ``scores`` is shared across deals."""

    def __init__(self, hands: list[list[str]], scores: list[int], target: int) -> None:
        self.hands = hands
        self.scores = scores
        self.target = target
        self.points = [0, 0]
        self.over = False  # the game
        self.deal_over = False
        spades = [sum(1 for c in h if c[1] == "S") for h in hands]
        self.turn = 0 if spades[0] > spades[1] else 1
        self.rnd = Round()

    def earn(self, player: int, amount: int) -> None:
        if self.over or amount <= 0:
            return
        self.scores[player] += amount
        self.points[player] += amount
        if self.scores[player] >= self.target:
            self.over = True

    def end_round(self) -> None:
        winner = self.rnd.laid[-1][0]
        total = self.rnd.total
        self.earn(winner, max(0, 7 - self.rnd.zeros_at_21) if total == 21
                  else ROUND_SCORE.get(total, 0))
        self.rnd = Round()
        self.turn = winner
        if not self.hands[0] or not self.hands[1]:
            self.deal_over = True

    def settle(self) -> None:
        """A player continuing alone with no legal card ends the round by itself."""
        if (not self.over and not self.deal_over and self.rnd.passed is not None
                and not legal_cards(self.hands[self.turn], self.rnd)):
            self.end_round()

    def legal_now(self) -> list[str]:
        cards = legal_cards(self.hands[self.turn], self.rnd)
        if self.rnd.passed is None:
            return cards or ["pass"]
        return cards + (["stop"] if self.rnd.total > 15 else [])

    def play(self, seat: int, action: str) -> None:
        rnd = self.rnd
        if action == "pass":
            rnd.passed = seat
            self.turn = 1 - seat
            self.settle()
            return
        if action == "stop":
            self.end_round()
            return
        before = rnd.total
        own, added = rnd.value_of(action)
        if action[0] == "K" and not rnd.laid:
            rnd.doubling = True
        if own == -1:
            rnd.laid.append((seat, action, None))
        else:
            rnd.laid = [(p, c, own if v is None else v) for p, c, v in rnd.laid]
            rnd.laid.append((seat, action, own))
        self.hands[seat].remove(action)
        rnd.total += added
        if before != 11 and rnd.total == 11:
            self.earn(seat, 3)
        if own == 0 and before == 11:
            self.earn(seat, 1)
        if own == 0 and before == 21:
            rnd.zeros_at_21 += 1
        if self.over:
            return
        if rnd.passed is None:
            self.turn = 1 - seat
        elif before > 15 or rnd.total > 15:
            self.end_round()  # the one optional card above 15, or the forced ones passed 15
        else:
            self.settle()


def replay_jacko(record: dict) -> dict:
    opts = {"target": 121, "open_hands": True, **record["options"]}
    scores = [0, 0]
    deals_out = []
    over = False
    every = sorted(r + s for s in SUIT_ORDER for r in "23456789TJQKA")
    for d, raw_deal in enumerate(record["deals"]):
        if over:
            return {"error": (d, None)}
        hands = [[c.upper().replace("10", "T") for c in h] for h in raw_deal["hands"]]
        if sorted(hands[0] + hands[1]) != every or len(hands[0]) != 26 \
                or raw_deal.get("stock"):
            return {"error": (d, None)}
        deal = Deal(hands, scores, opts["target"])
        steps = []
        for s, (seat, raw) in enumerate(raw_deal["actions"]):
            action = raw.lower() if raw.lower() in ("pass", "stop") else \
                raw.upper().replace("10", "T")
            if deal.over or deal.deal_over or seat != deal.turn:
                return {"error": (d, s)}
            legal = deal.legal_now()
            if action not in legal:
                return {"error": (d, s)}
            steps.append({"seat": seat, "legal": sorted(legal), "action": action})
            deal.play(seat, action)
        over = deal.over
        deals_out.append({"steps": steps, "points": deal.points})
        if not over and not deal.deal_over:
            if d + 1 < len(record["deals"]):
                return {"error": (d + 1, None)}
            break
    winners = [p for p in (0, 1) if scores[p] >= opts["target"]] if over else []
    return {"game": "jacko", "deals": deals_out, "totals": scores, "winners": winners,
            "complete": over}
