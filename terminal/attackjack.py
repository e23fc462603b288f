"""AttackJack at the terminal table: every seat's public cards, each turn as it is
played, and the showdown."""

from __future__ import annotations

from typing import Any

from engine.events import DealEnded, Event, ForcedStep, Played
from terminal.render import Renderer, hand_line, label


class AttackJackRenderer(Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        first = view["first"]
        return f"=== {view['title']}: {self.name(first)} {self.verb(first, 'act')} first ==="

    def _seat(self, view: dict[str, Any], s: int) -> str:
        info = view["seats"][s]
        shown = " ".join(label(c) for c in info["cards"]) + " ?" * info["hidden"]
        value = f" = {info['value']}" if info["value"] is not None else ""
        return f"{self.name(s)}: {shown}{value} ({info['status']})"

    def table(self, view: dict[str, Any]) -> list[str]:
        lines = [f"Open card {label(view['open_card'])} · deck {view['deck']}"]
        lines += ["  " + self._seat(view, s) for s in range(len(view["seats"]))]
        lines.append(f"Your hand: {hand_line(view['hand'])} = {view['hand_value']}")
        return lines

    def event(self, event: Event, view: dict[str, Any]) -> list[str]:
        match event:
            case Played(seat, action):  # the card taken shows on the seat's line
                return [self.action_line(seat, action), f"  {self._seat(view, seat)}"]
            case ForcedStep(seat):
                return [f"  {self._seat(view, seat)}"]
            case DealEnded():
                return ["Showdown: " + " · ".join(self._seat(view, s)
                                                  for s in range(len(view["seats"])))]
        return super().event(event, view)


RENDERER = AttackJackRenderer
