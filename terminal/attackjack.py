"""AttackJack at the terminal table: every seat's public cards, each turn as it is
played, and the showdown."""

from __future__ import annotations

from typing import Any

from engine.events import DealEnded, Event, ForcedStep, Played
from locales import _
from terminal.render import HUMAN, Renderer, hand_line, label, status_word


class AttackJackRenderer(Renderer):
    def deal_header(self, view: dict[str, Any]) -> str:
        first = view["first"]
        header = (_("{game}: You act first", game=view["title"]) if first == HUMAN
                  else _("{game}: {name} acts first", game=view["title"],
                         name=self.name(first)))
        return f"=== {header} ==="

    def _seat(self, view: dict[str, Any], s: int) -> str:
        info = view["seats"][s]
        shown = " ".join(label(c) for c in info["cards"]) + " ?" * info["hidden"]
        value = f" = {info['value']}" if info["value"] is not None else ""
        return f"{self.name(s)}: {shown}{value} ({status_word(info['status'])})"

    def table(self, view: dict[str, Any]) -> list[str]:
        lines = [_("Open card {card} · deck {size}", card=label(view["open_card"]),
                   size=view["deck"])]
        lines += ["  " + self._seat(view, s) for s in range(len(view["seats"]))]
        lines.append(_("Your hand: {hand} = {value}", hand=hand_line(view["hand"]),
                       value=view["hand_value"]))
        return lines

    def event(self, event: Event, view: dict[str, Any]) -> list[str]:
        match event:
            case Played(seat, action):  # the card taken shows on the seat's line
                return [self.action_line(seat, action), f"  {self._seat(view, seat)}"]
            case ForcedStep(seat):
                return [f"  {self._seat(view, seat)}"]
            case DealEnded():
                seats = " · ".join(self._seat(view, s) for s in range(len(view["seats"])))
                return [_("Showdown: {seats}", seats=seats)]
        return super().event(event, view)


RENDERER = AttackJackRenderer
