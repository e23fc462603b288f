"""A second, deliberately plain Jazz, written from docs/rules/jazz.md alone.

It shares no code with engine/jazz.py (cards are code strings here, rows are
rank lists), so replaying the same records through both and comparing every
step catches mistakes that one implementation would repeat in its own tests.
"""

from __future__ import annotations

RANKS = "23456789TJQKA"


def rank_value(code: str, norwegian_sevens: bool = False) -> int:
    if norwegian_sevens and code[0] == "A":
        return 1
    return RANKS.index(code[0]) + 2


def removed_twos(players: int) -> set[str]:
    return {3: {"2D"}, 4: set(), 5: {"2D", "2H"}, 6: {"2D", "2H", "2C", "2S"},
            7: {"2D", "2H", "2S"}}[players]


def replay_jazz(record: dict) -> dict:
    """Steps (seat, sorted legal codes, action) and points per deal, or the first error
    as (deal, step) — without reasons."""
    n = record["players"]
    opts = {"sevens_bonus": 10, "norwegian": False, "play_out": False, **record["options"]}
    dealer = record["first_dealer"]
    out_deals = []
    over = False
    for d, deal in enumerate(record["deals"]):
        if over or d >= 6:
            return {"error": (d, None)}
        hands = [[c.upper().replace("10", "T") for c in h] for h in deal["hands"]]
        forehand = (dealer + 1) % n
        every = [r + s for s in "SHCD" for r in RANKS]
        if d < 5:
            deck = sorted(c for c in every if c not in removed_twos(n))
            sizes = [len(deck) // n] * n
        else:
            deck = sorted(every)
            sizes = [52 // n + (1 if (s - forehand) % n < 52 % n else 0) for s in range(n)]
        if sorted(c for h in hands for c in h) != deck or [len(h) for h in hands] != sizes:
            return {"error": (d, None)}
        points = [0] * n
        steps = []
        turn = forehand
        trick: list[tuple[int, str]] = []
        rows: dict[str, list[int]] = {}
        deal_over = False
        penalty_cards = {1: [c for c in deck if c[1] == "C"],
                         2: [c for c in deck if c[0] == "Q"],
                         3: ["KC"]}.get(d, [])
        taken_penalties = 0
        for s, (seat, raw) in enumerate(deal["actions"]):
            action = raw.upper().replace("10", "T") if raw.lower() != "pass" else "pass"
            if deal_over or seat != turn:
                return {"error": (d, s)}
            hand = hands[seat]
            if d < 5:
                if trick:
                    led = trick[0][1][1]
                    legal = [c for c in hand if c[1] == led] or list(hand)
                else:
                    legal = list(hand)
            else:
                legal = []
                for c in hand:
                    v = rank_value(c, opts["norwegian"])
                    row = rows.get(c[1])
                    if (row is None and v == 7) or (row and v in (max(row) + 1, min(row) - 1)):
                        legal.append(c)
                legal = legal or ["pass"]
            if action not in legal:
                return {"error": (d, s)}
            steps.append({"seat": seat, "legal": sorted(legal), "action": action})
            if d < 5:
                hand.remove(action)
                trick.append((seat, action))
                turn = (seat + 1) % n
                if len(trick) == n:
                    led = trick[0][1][1]
                    winner, _ = max((t for t in trick if t[1][1] == led),
                                    key=lambda t: rank_value(t[1]))
                    cards_won = [c for _, c in trick]
                    if d == 0:
                        points[winner] -= 1
                    elif d == 1:
                        points[winner] -= sum(1 for c in cards_won if c[1] == "C")
                    elif d == 2:
                        points[winner] -= 5 * sum(1 for c in cards_won if c[0] == "Q")
                    elif d == 3 and "KC" in cards_won:
                        points[winner] -= 15
                    if d == 4 and not hands[winner]:
                        points[winner] -= 20
                    taken_penalties += sum(1 for c in cards_won if c in penalty_cards)
                    trick = []
                    turn = winner
                    if not hands[winner] or (
                        d in (1, 2, 3) and not opts["play_out"]
                        and taken_penalties == len(penalty_cards)
                    ):
                        deal_over = True
            else:
                if action == "pass":
                    points[seat] -= 1
                else:
                    hand.remove(action)
                    rows.setdefault(action[1], []).append(rank_value(action, opts["norwegian"]))
                    if not hand:
                        points[seat] += opts["sevens_bonus"]
                        deal_over = over = True
                turn = (seat + 1) % n
        out_deals.append({"steps": steps, "points": points, "finished": deal_over})
        if not deal_over:
            if d + 1 < len(record["deals"]):
                return {"error": (d + 1, None)}
            break
        dealer = (dealer + 1) % n
    totals = [sum(deal["points"][s] for deal in out_deals) for s in range(n)]
    complete = over
    winners = [s for s in range(n) if totals[s] == max(totals)] if complete else []
    return {"deals": out_deals, "totals": totals, "winners": winners, "complete": complete}
