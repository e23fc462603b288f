"""Jacko at the terminal table: the running sum, the round, the points as they come."""

from __future__ import annotations

from typing import Any

from engine.events import Event, Played, PointsScored, RoundWon
from terminal.render import HUMAN, Renderer, hand_line, label, sign


class JackoRenderer(Renderer):
    def table(self, view: dict[str, Any]) -> list[str]:
        rnd = ", ".join(f"{self.name(c['seat'])} {label(c['card'])}" for c in view["round"])
        extra = " (king led: doubling)" if view["doubling"] else ""
        lines = [f"Sum {view['sum']}{extra} · round: {rnd or 'you lead'} · scores "
                 f"{self.scores(view['totals'])} (to {view['target']})"]
        if view["passed"] is not None:
            lines.append(f"{self.name(view['passed'])} passed: you continue alone.")
        if view.get("opponent_hand") is not None:
            lines.append(f"{self.name(1)} holds: {hand_line(view['opponent_hand'])}")
        lines.append(f"Your hand (play {view['current_suit']}): {hand_line(view['hand'])}")
        return lines

    def step(self, events: list[Event], view: dict[str, Any]) -> list[str]:
        # One line for the move (with the sum, unless the round ended: that line says
        # it), one per seat that scored in the step, then the round's end.
        won = next((e for e in events if isinstance(e, RoundWon)), None)
        gained = [0] * self.players
        lines: list[str] = []
        for event in events:
            if isinstance(event, Played):
                line = self.action_line(event.seat, event.action)
                lines.append(line if won else line[:-1] + f" (sum {view['sum']}).")
            elif isinstance(event, PointsScored):
                gained[event.seat] += event.points
        for seat, points in enumerate(gained):
            if points:
                lines.append(f"  {self.name(seat)} {self.verb(seat, 'score')} {sign(points)}: "
                             f"{self.scores(view['totals'])}")
        if won is not None:
            lines.append(f"  Round over at {won.total}: {self.name(won.seat)} "
                         f"win{'' if won.seat == HUMAN else 's'} it.")
        for event in events:
            if not isinstance(event, Played | PointsScored | RoundWon):
                lines.extend(self.event(event, view))
        return lines


RENDERER = JackoRenderer
