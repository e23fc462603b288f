"""Plain second implementations of California Jack and AttackJack, from the rules files
alone (cards as code strings), to replay records side by side with the engines."""

from __future__ import annotations

RANKS = "23456789TJQKA"
ALL_CARDS = sorted(r + s for s in "SHCD" for r in RANKS)


def canon(code: str) -> str:
    return code.upper().replace("10", "T")


def rank(code: str) -> int:
    return RANKS.index(code[0]) + 2


# ---------------------------------------------------------------- California Jack

TRICK_POINTS = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1}


def replay_california_jack(record: dict) -> dict:
    opts = {"target": 10, "scoring": "standard", "follow_or_trump": False, **record["options"]}
    totals = [0, 0]
    deals_out = []
    over = False
    for d, deal in enumerate(record["deals"]):
        if over:
            return {"error": (d, None)}
        hands = [[canon(c) for c in h] for h in deal["hands"]]
        stock = [canon(c) for c in deal.get("stock") or []]
        if (sorted(hands[0] + hands[1] + stock) != ALL_CARDS or len(hands[0]) != 6
                or len(hands[1]) != 6 or deal.get("first") is not None):
            return {"error": (d, None)}
        dealer = (record["first_dealer"] + d) % 2
        trump = stock[0][1]
        leader = 1 - dealer
        trick: list[tuple[int, str]] = []
        won: list[list[str]] = [[], []]
        tricks = [0, 0]
        steps = []
        for s, (seat, raw) in enumerate(deal["actions"]):
            card = canon(raw)
            turn = leader if not trick else 1 - leader
            if sum(tricks) == 26 or seat != turn:
                return {"error": (d, s)}
            hand = hands[seat]
            if trick:
                led = trick[0][1][1]
                follow = [c for c in hand if c[1] == led]
                if follow and opts["follow_or_trump"]:
                    follow += [c for c in hand if c[1] == trump and c not in follow]
                legal = follow or list(hand)
            else:
                legal = list(hand)
            if card not in legal:
                return {"error": (d, s)}
            steps.append({"seat": seat, "legal": sorted(legal), "action": card})
            hand.remove(card)
            trick.append((seat, card))
            if len(trick) == 2:
                trumps = [t for t in trick if t[1][1] == trump]
                pool = trumps or [t for t in trick if t[1][1] == trick[0][1][1]]
                winner = max(pool, key=lambda t: rank(t[1]))[0]
                won[winner] += [c for _, c in trick]
                tricks[winner] += 1
                if stock:
                    hands[winner].append(stock.pop(0))
                    hands[1 - winner].append(stock.pop(0))
                trick = []
                leader = winner
        points = [0, 0]
        if sum(tricks) == 26:
            for special in ("A", "J", "2"):
                for p in (0, 1):
                    if special + trump in won[p]:
                        points[p] += 1
            if opts["scoring"] == "simple":
                measure = tricks
            else:
                measure = [sum(TRICK_POINTS.get(c[0], 0) for c in won[p]) for p in (0, 1)]
            if measure[0] != measure[1]:
                points[measure.index(max(measure))] += 1
            totals = [totals[p] + points[p] for p in (0, 1)]
            if max(totals) >= opts["target"] and totals[0] != totals[1]:
                over = True
        deals_out.append({"steps": steps, "points": points})
        if sum(tricks) < 26:
            if d + 1 < len(record["deals"]):
                return {"error": (d + 1, None)}
            break
    winners = [totals.index(max(totals))] if over else []
    return {"game": "california_jack", "deals": deals_out, "totals": totals,
            "winners": winners, "complete": over}


# ---------------------------------------------------------------- AttackJack


def hand_value(hand: list[str]) -> int:
    """21 for a bomb (any joker); otherwise distinct ranks counted, the ace as 11 or 1."""
    if "JK" in hand:
        return 21
    ranks = set(c[0] for c in hand)
    total = sum(10 if r in "TJQK" else (0 if r == "A" else int(r)) for r in ranks)
    if "A" in ranks:
        total += 11 if total + 11 <= 21 else 1
    return total


def tie_key(hand: list[str]) -> list[int]:
    return sorted({rank(c) for c in hand}, reverse=True)


def beats(a: list[str], b: list[str]) -> int:
    """1 if hand a beats hand b at the showdown, -1 if it loses, 0 if they share."""
    bomb_a, bomb_b = "JK" in a, "JK" in b
    if bomb_a or bomb_b:
        return (bomb_a > bomb_b) - (bomb_a < bomb_b)
    va, vb = hand_value(a), hand_value(b)
    if va != vb:
        return 1 if va > vb else -1
    ka, kb = tie_key(a), tie_key(b)
    for x, y in zip(ka, kb, strict=False):
        if x != y:
            return 1 if x > y else -1
    return (len(ka) < len(kb)) - (len(ka) > len(kb))


def replay_attackjack(record: dict) -> dict:
    opts = {"blind": False, "stake": 0, "choice": False, **record["options"]}
    n = record["players"]
    deals = record["deals"]
    if not deals:
        return {"game": "attackjack", "deals": [], "totals": [0] * n, "winners": [],
                "complete": False}
    deal = deals[0]
    hands = [[canon(c) for c in h] for h in deal["hands"]]
    stock = [canon(c) for c in deal.get("stock") or []]
    if (sorted([c for h in hands for c in h] + stock) != sorted([*ALL_CARDS, "JK", "JK"])
            or any(len(h) != 2 for h in hands) or deal.get("first") is None):
        return {"error": (0, None)}
    order = [(deal["first"] + i) % n for i in range(n)]
    out = [False] * n
    steps = []
    actions = list(deal["actions"])
    a = 0
    for seat in order:
        value = hand_value(hands[seat])
        if value >= 21:
            continue  # 21 or a bomb keeps; over 21 cannot happen with two cards
        take = True
        if opts["choice"]:
            if a >= len(actions):
                return {"game": "attackjack", "deals": [{"steps": steps, "points": [0] * n}],
                        "totals": [0] * n, "winners": [], "complete": False}
            who, raw = actions[a]
            if who != seat or raw.lower() not in ("take", "stand"):
                return {"error": (0, a)}
            steps.append({"seat": seat, "legal": ["stand", "take"], "action": raw.lower()})
            take = raw.lower() == "take"
            a += 1
        if take and stock:
            hands[seat].append(stock.pop(0))
            if hand_value(hands[seat]) > 21:
                out[seat] = True
    if a < len(actions):
        return {"error": (0, a)}
    if len(deals) > 1:
        return {"error": (1, None)}
    alive = [s for s in range(n) if not out[s]]
    winners = []
    for s in alive:
        if all(beats(hands[s], hands[o]) >= 0 for o in alive):
            winners.append(s)
    stake = opts["stake"]
    if stake:
        points = [-stake] * n
        if winners:
            bank = stake * n
            for s in winners:
                points[s] += bank // len(winners)
            first_sharer = next(s for s in order if s in winners)
            points[first_sharer] += bank % len(winners)
        else:
            points = [0] * n
    else:
        points = [1 if s in winners else 0 for s in range(n)]
    return {"game": "attackjack", "deals": [{"steps": steps, "points": points}],
            "totals": points, "winners": sorted(winners), "complete": True}
