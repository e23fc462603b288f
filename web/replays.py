"""A finished game's record as the web table's replay (``docs/web-protocol.md``, "Replays").

The record (``docs/records.md``) is checked by the engine's own replay first, so a
damaged one raises ``engine.records.ReplayError`` at its deal and step, exactly as
``python -m engine replay`` refuses it. Then it is played again step by step, and each
state becomes a frame: the public table's scene, every seat's hand scene face up (built
from that seat's view with no legal moves: hands are shown, nothing is playable), a line
saying what happened, the deal it belongs to and, where a deal ended, its result.

A frame is one step: each deal's start, each action of the record, and each forced step
the engine plays itself (AttackJack's turns, which a record does not write down).

The scenes come from each game's views (``SceneViews``: the cogs' UIs now, discord-free
views later), passed in by the caller: this module imports no Discord.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

import locales
from bot.images import scene as pictures
from bot.table.lines import move_line
from engine import cards
from engine.core import TAKE, Deal, Game, parse_action
from engine.events import DealEnded, Event, ForcedStep, GameEnded
from engine.records import replay
from engine.registry import game_class
from engine.text import TC, T
from locales import _, say
from web.scenes import scene_json

MAX_STEPS = 5_000
"""The most actions a record may hold to be replayed here (a whole Jazz game of seven
is about 400): a bigger one is refused before any work."""

DEALT = T("Deal {number} is dealt.")
# Forced steps' outcomes (engine.events.ForcedStep), in the words AttackJack's seats use.
OUTCOMES = {"kept": TC("attackjack seat", "keeps"), "out": TC("attackjack seat", "out")}


class SceneViews(Protocol):
    """What a replay needs of a game's view (a ``GameUI`` now, a ``GameView`` later)."""

    @property
    def title(self) -> str: ...

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene: ...

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene: ...


class TooLong(ValueError):
    """A record with more actions than a replay shows (``MAX_STEPS``)."""


def replay_frames(record: dict[str, Any], views: Mapping[str, SceneViews],
                  names: list[str] | None, language: str,
                  strings: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The replay JSON of ``record``: ``game``, ``title``, ``players`` (names), ``language``,
    ``frames``, ``deals`` (each deal's first frame) and ``strings`` (the page's own words,
    given by the caller).

    Names are the record's ``names`` when it holds one per seat, else ``names``; a seat
    without one is "Player N". Every word is in ``language``. Raises ``TooLong`` (a
    ``ValueError``) for a record of more than ``MAX_STEPS`` actions, ``ReplayError`` for
    a damaged record and ``KeyError`` for a game that has no view in ``views``."""
    steps = action_count(record)
    if steps > MAX_STEPS:
        raise TooLong(f"The record holds {steps} actions; a replay shows at most {MAX_STEPS}.")
    replay(record, summary=True)  # refuses a damaged record (ReplayError) before any frame
    view = views[record["game"]]
    with locales.speaking(language):
        seats = _seat_names(record, names)
        game = _new_game(record)
        frames: list[dict[str, Any]] = []
        deals: list[int] = []

        def add(deal: int, line: str, events: list[Event]) -> None:
            frames.append(_frame(game, view, seats, deal, line, events))

        def settle(deal: int) -> None:
            """The forced steps due now (records leave them out), a frame each."""
            while game.has_auto_step:
                events = game.auto_step()
                add(deal, _forced_line(events, seats), events)

        for d, raw in enumerate(record["deals"]):
            deals.append(len(frames))
            add(d, say(DEALT.filled(number=d + 1)), game.start_deal(_deal(raw)))
            for seat, code in raw["actions"]:
                settle(d)
                action = parse_action(code)
                add(d, say(move_line("player", seats[seat], action)), game.apply(seat, action))
            settle(d)
        return {
            "game": game.GAME_ID,
            "title": view.title,
            "players": seats,
            "language": locales.current(),
            "frames": frames,
            "deals": deals,
            "strings": dict(strings or {}),
        }


def action_count(record: Any) -> int:
    """How many actions a record holds (0 for a shape the replay will refuse anyway)."""
    if not isinstance(record, dict) or not isinstance(record.get("deals"), list):
        return 0
    return sum(len(deal["actions"]) for deal in record["deals"]
               if isinstance(deal, dict) and isinstance(deal.get("actions"), list))


def _seat_names(record: dict[str, Any], names: Sequence[str] | None) -> list[str]:
    players: int = record["players"]
    given = record.get("names")
    if not (isinstance(given, list) and len(given) == players
            and all(isinstance(name, str) for name in given)):
        given = list(names or [])
    return [given[seat] if seat < len(given) and given[seat].strip()
            else pictures.name_of([], seat) for seat in range(players)]


def _new_game(record: dict[str, Any]) -> Game:
    cls = game_class(record["game"])
    players = record["players"]
    return cls(players, cls.OPTIONS.from_dict(record["options"], players),
               record["first_dealer"])


def _deal(raw: dict[str, Any]) -> Deal:
    return Deal(hands=[[cards.parse_card(c) for c in hand] for hand in raw["hands"]],
                stock=[cards.parse_card(c) for c in raw.get("stock") or []],
                first=raw.get("first"))


def _forced_line(events: list[Event], seats: Sequence[str]) -> str:
    step = next((e for e in events if isinstance(e, ForcedStep)), None)
    if step is None:
        return ""
    name = seats[step.seat]
    parts = []
    if step.outcome == "took" or (step.outcome == "out" and step.card is not None):
        parts.append(say(move_line("player", name, TAKE)))
    if step.outcome in OUTCOMES:
        parts.append(f"{name}: {say(OUTCOMES[step.outcome])}")
    return " ".join(parts)


def _frame(game: Game, view: SceneViews, seats: Sequence[str], deal: int, line: str,
           events: list[Event]) -> dict[str, Any]:
    # Every hand face up, each titled with its player's name (a hand picture's own title
    # is its reader's: "Your hand · Ann").
    hands = [scene_json(replace(view.hand_scene({**game.seat_view(seat), "legal": []}, seats,
                                                seat), title=seats[seat]))
             for seat in range(game.players)]
    return {
        "scene": scene_json(view.table_scene(game.public_view(), seats)),
        "hands": hands,
        "line": line,
        "deal": deal,
        "result": _result(events, seats),
    }


def _result(events: list[Event], seats: Sequence[str]) -> str | None:
    """What a step's end of a deal (and of the game) says, or None."""
    lines = []
    for event in events:
        if isinstance(event, DealEnded):
            head = pictures.upper_first(_("deal {deal} is over", deal=event.deal + 1))
            lines.append(f"{head}: {_scores(seats, event.points)}")
        elif isinstance(event, GameEnded):
            winners = _and_list([seats[w] for w in event.winners])
            lines.append(_("The game is over: {winners} won.", winners=winners) if winners
                         else _("The game is over."))
            lines.append(f"{_('Standings')}: {_scores(seats, event.totals)}")
    return "\n".join(lines) or None


def _scores(seats: Sequence[str], points: Sequence[int]) -> str:
    return ", ".join(f"{name} {pictures.score_text(p)}"
                     for name, p in zip(seats, points, strict=True))


def _and_list(names: Sequence[str]) -> str:
    """Names joined with the language's "and", as the bot's result messages join them."""
    joined = names[0] if names else ""
    for name in names[1:]:
        joined = _("{first} and {second}", first=joined, second=name)
    return joined
