"""Jacko at the terminal table: the running sum, the round, the points as they come."""

from __future__ import annotations

from typing import Any

from engine import cards
from engine.core import PASS, STOP
from engine.events import Event, Played, PointsScored, RoundWon
from locales import _, say
from terminal.render import HUMAN, Renderer, hand_line, label, sign


class JackoRenderer(Renderer):
    def table(self, view: dict[str, Any]) -> list[str]:
        rnd = ", ".join(f"{self.name(c['seat'])} {label(c['card'])}" for c in view["round"])
        parts = [
            (_("Sum {sum} (king led: doubling)", sum=view["sum"]) if view["doubling"]
             else _("Sum {sum}", sum=view["sum"])),
            _("round: {cards}", cards=rnd) if rnd else _("round: you lead"),
            _("scores {scores} (to {target})", scores=self.scores(view["totals"]),
              target=view["target"]),
        ]
        lines = [" · ".join(parts)]
        if view["passed"] is not None:
            lines.append(_("{name} passed: you continue alone.", name=self.name(view["passed"])))
        if view.get("opponent_hand") is not None:
            lines.append(_("{name} holds: {hand}", name=self.name(1),
                           hand=hand_line(view["opponent_hand"])))
        suit = view["current_suit"]
        if suit in cards.SUIT_NAMES:
            suit = say(cards.SUIT_TEXTS[cards.SUIT_NAMES.index(suit)])
        # Translators: {suit} is a suit's name (spades...): the suit you must play now.
        lines.append(_("Your hand (play {suit}): {hand}", suit=suit,
                       hand=hand_line(view["hand"])))
        return lines

    def step(self, events: list[Event], view: dict[str, Any]) -> list[str]:
        # One line for the move (with the sum, unless the round ended: that line says
        # it), one per seat that scored in the step, then the round's end.
        won = next((e for e in events if isinstance(e, RoundWon)), None)
        gained = [0] * self.players
        lines: list[str] = []
        for event in events:
            if isinstance(event, Played):
                lines.append(self.action_line(event.seat, event.action) if won
                             else self._with_sum(event.seat, event.action, view["sum"]))
            elif isinstance(event, PointsScored):
                gained[event.seat] += event.points
        for seat, points in enumerate(gained):
            if points:
                totals = self.scores(view["totals"])
                lines.append("  " + (
                    _("You score {points}: {totals}", points=sign(points), totals=totals)
                    if seat == HUMAN else
                    _("{name} scores {points}: {totals}", name=self.name(seat),
                      points=sign(points), totals=totals)))
        if won is not None:
            lines.append("  " + (
                _("Round over at {sum}: You win it.", sum=won.total) if won.seat == HUMAN
                else _("Round over at {sum}: {name} wins it.", sum=won.total,
                       name=self.name(won.seat))))
        for event in events:
            if not isinstance(event, Played | PointsScored | RoundWon):
                lines.extend(self.event(event, view))
        return lines

    def _with_sum(self, seat: int, action: int, total: int) -> str:
        """The move's line with the sum after it: "You play 10♠ (sum 10)."."""
        if seat == HUMAN:
            if action == PASS:
                return _("You pass (sum {sum}).", sum=total)
            if action == STOP:
                return _("You stop (sum {sum}).", sum=total)
            return _("You play {card} (sum {sum}).", card=cards.label(action), sum=total)
        name = self.name(seat)
        if action == PASS:
            return _("{name} passes (sum {sum}).", name=name, sum=total)
        if action == STOP:
            return _("{name} stops (sum {sum}).", name=name, sum=total)
        return _("{name} plays {card} (sum {sum}).", name=name, card=cards.label(action),
                 sum=total)


RENDERER = JackoRenderer
