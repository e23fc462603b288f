"""Drawing the terminal table for any game: names, scores, hands, and what happened.

A ``Renderer`` draws what a seat may see from that seat's view only, and says what
happened in a step from the step's events (``engine.events``): the view after the
step only fills in the picture (the totals now, the seat's cards now). A game that
wants more has ``terminal/<game id>.py`` with a ``Renderer`` subclass named
``RENDERER``; ``renderer_for`` finds it by the game id and falls back to this one.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine import cards
from engine.core import action_code, action_label
from engine.events import (
    DealEnded,
    DealStarted,
    Event,
    ForcedStep,
    Played,
    PointsScored,
    TrickTaken,
)

HUMAN = 0  # the seat of the person at the terminal


def hand_line(codes: list[str]) -> str:
    """A hand grouped by suit: ``♠ 2 9 K   ♥ 10 A``."""
    groups: dict[str, list[str]] = {}
    for code in codes:
        c = cards.parse_card(code)
        if c == cards.JOKER:
            groups.setdefault("Joker", []).append("Joker")
        else:
            groups.setdefault(cards.SUIT_SYMBOLS[cards.SUIT[c]], []).append(
                cards.RANK_NAMES[cards.RANK[c]])
    return "   ".join(suit + " " + " ".join(ranks) if suit != "Joker" else " ".join(ranks)
                       for suit, ranks in groups.items()) or "(empty)"


def label(code: str) -> str:
    """A card code for people: ``TH`` → ``10♥``."""
    return cards.label(cards.parse_card(code))


def sign(x: int) -> str:
    return f"+{x}" if x > 0 else str(x).replace("-", "−")


_VERBS = {"pass": ("pass", "passes"), "stop": ("stop", "stops"),
          "take": ("take the open card", "takes the open card"), "stand": ("stand", "stands")}


class Renderer:
    """What every game's table shows. Games override what their table shows."""

    def __init__(self, players: int) -> None:
        self.players = players

    # -- words ------------------------------------------------------------------

    def name(self, seat: int) -> str:
        return "You" if seat == HUMAN else f"AI {seat}"

    def verb(self, seat: int, verb: str) -> str:
        """``verb`` as said of ``seat``: "You take", "AI 2 takes"."""
        return verb if seat == HUMAN else verb + "s"

    def scores(self, points: list[int] | tuple[int, ...]) -> str:
        return " · ".join(f"{self.name(s)} {sign(t)}" for s, t in enumerate(points))

    # -- the table --------------------------------------------------------------

    def deal_header(self, view: dict[str, Any]) -> str:
        return f"=== Deal {view['deal'] + 1} ==="

    def table(self, view: dict[str, Any]) -> list[str]:
        """What is shown before the person's move."""
        return [f"Scores: {self.scores(view['totals'])}", f"Your hand: {hand_line(view['hand'])}"]

    # -- what happened ----------------------------------------------------------

    def step(self, events: list[Event], view: dict[str, Any]) -> list[str]:
        """The lines saying what happened in one step: its events in order, drawn with
        the human seat's view after the step."""
        lines: list[str] = []
        for event in events:
            lines.extend(self.event(event, view))
        return lines

    def event(self, event: Event, view: dict[str, Any]) -> list[str]:
        """The lines of one event (none for the events this table does not tell)."""
        match event:
            case DealStarted():
                return ["", self.deal_header(view)]
            case Played(seat, action):
                return [self.action_line(seat, action)]
            case TrickTaken(seat):
                return [f"  {self.name(seat)} {self.verb(seat, 'take')} the trick."]
            case ForcedStep(seat, outcome):
                return [f"  {self.name(seat)}: {outcome}."]
            case PointsScored(seat, points):
                return [f"  {self.name(seat)} {self.verb(seat, 'score')} {sign(points)}."]
            case DealEnded(deal, points):
                return [f"Deal {deal + 1} over: {self.scores(points)}. "
                        f"Totals: {self.scores(view['totals'])}"]
        return []

    def action_line(self, seat: int, action: int) -> str:
        code = action_code(action)
        you = seat == HUMAN
        if code in _VERBS:
            verb = _VERBS[code][0 if you else 1]
        else:
            verb = f"{'play' if you else 'plays'} {action_label(action)}"
        return f"{self.name(seat)} {verb}."


def renderer_for(game_id: str) -> type[Renderer]:
    """The renderer of a game: ``terminal.<game_id>.RENDERER``, else the generic one."""
    name = f"{__package__}.{game_id}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise  # the module is there but something it imports is not: say so
        return Renderer
    found = getattr(module, "RENDERER", Renderer)
    assert isinstance(found, type) and issubclass(found, Renderer)
    return found
