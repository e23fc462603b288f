"""One viewer's snapshot of a table: everything the page shows, as JSON.

Built from the table as it is at one version, in the viewer's language, from what
that viewer may see only: the public view for everybody, and for a seated player
their own seat's view (``Game.seat_view``). A spectator's snapshot is built from
the public view alone, so it cannot hold a card the channel does not show.
The scenes are the ones each game builds for its pictures (``scene_json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import locales
from bot.images import scene as pictures
from bot.table.state import Table
from engine import cards
from engine.core import action_code, action_label, parse_action
from locales import _, say
from web.scenes import scene_json
from web.strings import page_strings


class TableViews(Protocol):
    """What a snapshot needs of each game's presentation (``bot.views.GameView``)."""

    @property
    def title(self) -> str: ...

    def heading(self, view: dict[str, Any]) -> str: ...

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene: ...

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene: ...


Views = Mapping[str, TableViews]


def public_part(table: Table, views: Views, language: str,
                now: float | None = None) -> dict[str, Any]:
    """Everything of a snapshot that every viewer of ``table`` in ``language`` gets: built
    from the public view alone. ``now``: the bot's time, on the clock of ``deadline`` (the
    page counts the turn timer down from it, whatever its own clock says)."""
    with locales.speaking(language):
        view = views[table.game_id]
        names = table.names
        game = table.game
        if game is None:  # a lobby: who sits, nothing dealt
            scene = pictures.Scene(table.title, _("Waiting for players"),
                                   seats=tuple(pictures.Seat(n) for n in names),
                                   seat_columns=pictures.columns_for(max(1, len(names))))
        else:
            scene = view.table_scene(game.public_view(), names)
        to_act = table.to_act if game is not None else None
        return {
            "type": "snapshot", "table": table.table_id, "game": table.game_id,
            "title": table.title, "version": table.version, "step": table.step,
            # lobby, playing, or closed (finished or stopped: "ended" says which)
            "status": table.status if table.status in ("lobby", "playing") else "closed",
            "ended": None if table.status in ("lobby", "playing") else table.status,
            "language": language, "players": list(names),
            "scene": scene_json(scene),
            "lines": [say(line) for line in table.lines],
            "to_act": to_act,
            "deadline": table.turn_deadline if to_act is not None else None,
            "now": now,
            "result": _result(table, names),
            "strings": page_strings(),
        }


def hand_part(table: Table, views: Views, seat: int | None,
              language: str) -> dict[str, Any] | None:
    """The viewer's own hand (None: a spectator, or nothing dealt)."""
    game = table.game
    if seat is None or game is None or not 0 <= seat < game.players:
        return None
    with locales.speaking(language):
        return _hand(table, views[table.game_id], seat, table.names)


def _hand(table: Table, view: TableViews, seat: int, names: Sequence[str]) -> dict[str, Any]:
    game = table.game
    assert game is not None
    seat_view = game.seat_view(seat)
    if table.automation() is not None or table.status != "playing":
        seat_view = {**seat_view, "legal": []}  # the bot is about to move: nothing playable
    legal = [str(code) for code in seat_view.get("legal") or ()]  # action codes
    your_turn = table.to_act == seat and bool(legal)
    actions = []
    # In the hand picture's order (suits ♠ ♥ ♣ ♦, high cards first, jokers last).
    for code in pictures.hand_order(seat_view.get("hand") or ()):
        card = cards.parse_card(code)
        playable = code in legal
        why = "" if playable or not your_turn else _why(game, card)
        actions.append({"code": code, "label": say(action_label(card)), "legal": playable,
                        "card": code, "why": why})
    in_hand = {a["code"] for a in actions}
    for code in legal:
        if code not in in_hand:  # a keyword: pass, stop, take, stand
            action = parse_action(code)
            actions.append({"code": action_code(action), "label": say(action_label(action)),
                            "legal": True, "card": None, "why": ""})
    return {"scene": scene_json(view.hand_scene(seat_view, names, seat)),
            "step": table.step, "your_turn": your_turn, "actions": actions,
            "note": _note(actions) if your_turn else ""}


def _why(game: Any, card: int) -> str:
    problem = game.why_illegal(card)
    return say(problem) if problem is not None else ""


def _note(actions: list[dict[str, Any]]) -> str:
    """Why some cards are dimmed: the first reason given (they share it: follow suit)."""
    return next((a["why"] for a in actions if a["why"]), "")


def _result(table: Table, names: Sequence[str]) -> dict[str, Any] | None:
    """The game's result once it is over: the winners and everyone's total."""
    game = table.game
    if game is None or not game.is_over:
        return None
    totals = game.totals
    winners = [names[s] for s in game.winners()]
    scores = ", ".join(f"{name} {points:+d}" for name, points in zip(names, totals, strict=True))
    return {"final": True, "winners": winners, "totals": list(totals),
            "text": _("Game over. {winners} won. {scores}", winners=", ".join(winners),
                      scores=scores)}
