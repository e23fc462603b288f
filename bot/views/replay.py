"""A finished game's record played again step by step, for any front end: its frames.

The record (``docs/records.md``) is checked by the engine's own replay first, so a
damaged one raises ``engine.records.ReplayError`` at its deal and step, exactly as
``python -m engine replay`` refuses it. Then it is played again, and each state becomes
a frame: what a front end keeps of the game at that step (``keep``), a line saying what
happened, the deal it belongs to and, where a deal ended, its result.

A frame is one step: each deal's start, each action of the record, and each forced step
the engine plays itself (AttackJack's turns, which a record does not write down).

Two front ends step through these frames: the web table (``web/replays.py``: every
frame's scenes as JSON, at once, with ``hand_scenes``) and Discord
(``bot/features/replays.py``: one frame per click, its table picture and each hand as
text). What they share is here, without Discord: ``replay_steps`` walks the record;
``Frame`` and ``frame_of`` keep what Discord's frame needs, small enough to keep a long
game's frames: the public view and each seat's cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Protocol, TypeVar

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

MAX_STEPS = 5_000
"""The most actions a record may hold to be replayed (a whole Jazz game of seven is
about 400): a bigger one is refused before any work."""

DEALT = T("Deal {number} is dealt.")
# Forced steps' outcomes (engine.events.ForcedStep), in the words AttackJack's seats use.
OUTCOMES = {"kept": TC("attackjack seat", "keeps"), "out": TC("attackjack seat", "out")}

F = TypeVar("F")


class SceneViews(Protocol):
    """What a replay needs of a game's view (``bot.views.GameView``, or a ``GameUI``)."""

    @property
    def title(self) -> str: ...

    def table_scene(self, view: dict[str, Any], names: Sequence[str]) -> pictures.Scene: ...

    def hand_scene(self, seat_view: dict[str, Any], names: Sequence[str],
                   seat: int) -> pictures.Scene: ...


class TooLong(ValueError):
    """A record with more actions than a replay shows (``MAX_STEPS``)."""


@dataclass(frozen=True)
class Moment:
    """What a frame says, whatever a front end keeps of its state: its deal (from 0),
    the line of what happened, and the result of a deal (and the game) that ended here."""

    deal: int
    line: str
    result: str | None


@dataclass(frozen=True)
class Replayed(Generic[F]):
    """A record played again: its game id, the seats' names, the language every word is
    in, the frames, and each deal's first frame."""

    game: str
    players: list[str]
    language: str
    frames: list[F]
    deals: list[int]


Keep = Callable[[Game, Sequence[str], Moment], F]


def replay_steps(record: dict[str, Any], names: Sequence[str] | None, language: str,
                 keep: Keep[F], escape: Callable[[str], str] = str) -> Replayed[F]:
    """``record`` played again, ``keep(game, seats, moment)`` called at each frame (inside
    ``language``): the frames are what it returns.

    Names are the record's ``names`` when it holds one per seat, else ``names``; a seat
    without one is "Player N". ``escape`` is applied to a name where a line or a result
    says it (the scenes get them as typed). Raises ``TooLong`` (a ``ValueError``) for a
    record of more than ``MAX_STEPS`` actions and ``ReplayError`` for a damaged record,
    before any frame."""
    steps = action_count(record)
    if steps > MAX_STEPS:
        # not for players: each front end answers a TooLong with its own sentence
        raise TooLong(f"The record holds {steps} actions; a replay shows at most {MAX_STEPS}.")
    replay(record, summary=True)  # refuses a damaged record (ReplayError) before any frame
    with locales.speaking(language):
        seats = _seat_names(record, names)
        said = [escape(name) for name in seats]
        game = _new_game(record)
        frames: list[F] = []
        deals: list[int] = []

        def add(deal: int, line: str, events: list[Event]) -> None:
            frames.append(keep(game, seats, Moment(deal, line, _result(events, said))))

        def settle(deal: int) -> None:
            """The forced steps due now (records leave them out), a frame each."""
            while game.has_auto_step:
                events = game.auto_step()
                add(deal, _forced_line(events, said), events)

        for d, raw in enumerate(record["deals"]):
            deals.append(len(frames))
            add(d, say(DEALT.filled(number=d + 1)), game.start_deal(_deal(raw)))
            for seat, code in raw["actions"]:
                settle(d)
                action = parse_action(code)
                add(d, say(move_line("player", said[seat], action)), game.apply(seat, action))
            settle(d)
        return Replayed(game.GAME_ID, seats, locales.current(), frames, deals)


def action_count(record: Any) -> int:
    """How many actions a record holds (0 for a shape the replay will refuse anyway)."""
    if not isinstance(record, dict) or not isinstance(record.get("deals"), list):
        return 0
    return sum(len(deal["actions"]) for deal in record["deals"]
               if isinstance(deal, dict) and isinstance(deal.get("actions"), list))


# -- what a frame keeps ---------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """What one step's picture needs: the public view, each seat's cards (face up), and
    what the step says. Small, so a long game's frames are cheap to keep."""

    public: dict[str, Any]
    hands: tuple[tuple[str, ...], ...]
    moment: Moment


def frame_of(game: Game, seats: Sequence[str], moment: Moment) -> Frame:
    """A ``keep`` for ``replay_steps``: the frame's public view and every hand."""
    return Frame(game.public_view(),
                 tuple(tuple(game.seat_view(seat).get("hand") or ())
                       for seat in range(game.players)), moment)


def hand_scenes(view: SceneViews, game: Game, seats: Sequence[str]) -> list[pictures.Scene]:
    """Every seat's hand picture at this step, face up (from that seat's view with no legal
    moves: nothing is playable), each titled with its player's name (a hand picture's own
    title is its reader's: "Your hand · Ann")."""
    return [replace(view.hand_scene({**game.seat_view(seat), "legal": []}, seats, seat),
                    title=seats[seat]) for seat in range(game.players)]


# -- the words ----------------------------------------------------------------------------


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
