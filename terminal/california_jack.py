"""California Jack at the terminal table: trumps, the face-up stock, the draws, and
how each deal scored."""

from __future__ import annotations

from typing import Any

from engine import cards
from engine.events import CardsDrawn, DealEnded, DealScored, Event, TrickTaken
from terminal.render import Renderer, hand_line, label


class CaliforniaJackRenderer(Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        trump = cards.SUIT_NAMES[cards.SUIT_LETTERS.index(view["trump"])]
        return (f"=== Deal {view['deal'] + 1}: trumps are {trump} "
                f"(stock top {label(view['stock_top'])}), {self.name(view['leader'])} "
                f"{self.verb(view['leader'], 'lead')} ===")

    def table(self, view: dict[str, Any]) -> list[str]:
        trump = cards.SUIT_SYMBOLS[cards.SUIT_LETTERS.index(view["trump"])]
        top = label(view["stock_top"]) if view["stock_top"] else "empty"
        lines = [f"Trumps {trump} · stock top {top} ({view['stock_size']} left) · tricks "
                 + " · ".join(f"{self.name(s)} {n}" for s, n in enumerate(view["tricks_won"]))
                 + f" · game points {self.scores(view['totals'])} (to {view['target']})"]
        known = view["known"][1]
        if known:
            lines.append(f"{self.name(1)} drew and holds: {hand_line(known)}")
        if view["trick"]:
            lines.append(f"{self.name(view['trick'][0]['seat'])} led "
                         f"{label(view['trick'][0]['card'])}.")
        lines.append(f"Your hand: {hand_line(view['hand'])}")
        return lines

    def step(self, events: list[Event], view: dict[str, Any]) -> list[str]:
        # The draws after a trick are told on the trick's line.
        drawn = next((e for e in events if isinstance(e, CardsDrawn)), None)
        lines: list[str] = []
        for event in events:
            if isinstance(event, TrickTaken):
                lines.append(f"  {self.name(event.seat)} {self.verb(event.seat, 'win')} the "
                             f"trick." + (f" Drawn: {self._draws(drawn)}." if drawn else ""))
            elif isinstance(event, DealScored):
                lines.append(self._scored(event, view))
            elif not isinstance(event, DealEnded | CardsDrawn):  # the scoring says it all
                lines.extend(self.event(event, view))
        return lines

    def _draws(self, drawn: CardsDrawn) -> str:
        other = 1 - drawn.seat
        return (f"{self.name(drawn.seat)} {cards.label(drawn.card)}, "
                f"{self.name(other)} {cards.label(drawn.other_card)}")

    def _scored(self, result: DealScored, view: dict[str, Any]) -> str:
        parts = [f"high {self.name(result.high)}", f"jack {self.name(result.jack)}",
                 f"low {self.name(result.low)}"]
        game = "nobody" if result.game is None else self.name(result.game)
        return (f"Deal {result.deal + 1} scored: " + ", ".join(parts)
                + f", game {game} (trick points {result.trick_points[0]}–"
                f"{result.trick_points[1]}). Totals: {self.scores(view['totals'])}")


RENDERER = CaliforniaJackRenderer
