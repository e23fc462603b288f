"""Drawing the terminal table for any game: names, scores, hands, and what happened.

A ``Renderer`` draws what a seat may see from that seat's view only, and says what
happened in a step from the step's events (``engine.events``): the view after the
step only fills in the picture (the totals now, the seat's cards now). A game that
wants more has ``terminal/<game id>.py`` with a ``Renderer`` subclass named
``RENDERER``; ``renderer_for`` finds it by the game id and falls back to this one.

Every line is said in the current language (``locales``): a whole line is one
catalogue id, with the engine's ``Text``s (cards, the rules' reasons) as parameters.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine import cards
from engine.core import PASS, STAND, STOP, TAKE, action_label
from engine.events import (
    DealEnded,
    DealStarted,
    Event,
    ForcedStep,
    Played,
    PointsScored,
    TrickTaken,
)
from locales import _, _c, say

HUMAN = 0  # the seat of the person at the terminal


def hand_line(codes: list[str]) -> str:
    """A hand grouped by suit: ``♠ 2 9 K   ♥ 10 A``."""
    groups: dict[str | None, list[str]] = {}  # None: the jokers
    for code in codes:
        c = cards.parse_card(code)
        if c == cards.JOKER:
            groups.setdefault(None, []).append(say(cards.label(c)))
        else:
            groups.setdefault(cards.SUIT_SYMBOLS[cards.SUIT[c]], []).append(
                say(cards.RANK_TEXTS[cards.RANK[c]]))
    return "   ".join(suit + " " + " ".join(ranks) if suit is not None else " ".join(ranks)
                       for suit, ranks in groups.items()) or _("(empty)")


def label(code: str) -> str:
    """A card code for people: ``TH`` → ``10♥``."""
    return say(cards.label(cards.parse_card(code)))


def sign(x: int) -> str:
    return f"+{x}" if x > 0 else str(x).replace("-", "−")


def status_word(status: str) -> str:
    """An AttackJack seat's status or forced turn's outcome (a code) in words."""
    words = {
        # Translators: an AttackJack seat whose turn has not come yet.
        "waiting": _c("AttackJack seat", "waiting"),
        # Translators: an AttackJack seat that kept its two cards (21 or a joker).
        "kept": _c("AttackJack seat", "kept"),
        # Translators: an AttackJack seat that took the open card and is still in.
        "took": _c("AttackJack seat", "took"),
        # Translators: an AttackJack seat that chose to take no card.
        "stood": _c("AttackJack seat", "stood"),
        # Translators: an AttackJack seat that went over 21.
        "out": _c("AttackJack seat", "out"),
    }
    return words.get(status, status)


class Renderer:
    """What every game's table shows. Games override what their table shows."""

    def __init__(self, players: int) -> None:
        self.players = players

    # -- words ------------------------------------------------------------------

    # A sentence whose subject is a seat has two ids, one for you and one for an AI
    # seat ("You take the trick." / "AI 2 takes the trick."): the verb agrees with it.

    def name(self, seat: int) -> str:
        if seat == HUMAN:
            # Translators: you, the person at the terminal, in a list of players or scores.
            return _("You")
        # Translators: an AI player, by its seat: "AI 2".
        return _("AI {seat}", seat=seat)

    def scores(self, points: list[int] | tuple[int, ...]) -> str:
        return " · ".join(f"{self.name(s)} {sign(t)}" for s, t in enumerate(points))

    # -- the table --------------------------------------------------------------

    def deal_header(self, view: dict[str, Any]) -> str:
        deal = _("Deal {deal}", deal=view["deal"] + 1)
        return f"=== {deal} ==="

    def table(self, view: dict[str, Any]) -> list[str]:
        """What is shown before the person's move."""
        return [_("Scores: {scores}", scores=self.scores(view["totals"])),
                _("Your hand: {hand}", hand=hand_line(view["hand"]))]

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
                return ["  " + (_("You take the trick.") if seat == HUMAN
                                else _("{name} takes the trick.", name=self.name(seat)))]
            case ForcedStep(seat, outcome):
                # Translators: a turn AttackJack played for a seat: "AI 2: kept."
                return ["  " + _("{name}: {outcome}.", name=self.name(seat),
                                 outcome=status_word(outcome))]
            case PointsScored(seat, points):
                return ["  " + (_("You score {points}.", points=sign(points)) if seat == HUMAN
                                else _("{name} scores {points}.", name=self.name(seat),
                                       points=sign(points)))]
            case DealEnded(deal, points):
                return [_("Deal {deal} over: {points}. Totals: {totals}", deal=deal + 1,
                          points=self.scores(points), totals=self.scores(view["totals"]))]
        return []

    def action_line(self, seat: int, action: int) -> str:
        """What ``seat`` did: "You pass.", "AI 2 plays 10♥."."""
        if seat == HUMAN:
            if action == PASS:
                return _("You pass.")
            if action == STOP:
                return _("You stop.")
            if action == TAKE:
                return _("You take the open card.")
            if action == STAND:
                return _("You stand.")
            return _("You play {card}.", card=action_label(action))
        name = self.name(seat)
        if action == PASS:
            return _("{name} passes.", name=name)
        if action == STOP:
            return _("{name} stops.", name=name)
        if action == TAKE:
            return _("{name} takes the open card.", name=name)
        if action == STAND:
            return _("{name} stands.", name=name)
        return _("{name} plays {card}.", name=name, card=action_label(action))


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
