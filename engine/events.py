"""What happened: the events a step of a game returns.

``Game.apply(seat, action)``, ``Game.auto_step()`` and ``Game.start_deal(deal)``
return the events of that step as a list, in the order they happened: first
what the seat did (``Played``) or what the engine played for it
(``ForcedStep``), then what followed from it (a trick taken, cards drawn,
points scored), and last the end of the deal (``DealEnded``) and of the game
(``GameEnded``) when the step caused them. Front ends (the bot, the terminal
table) say what happened from these, never by comparing views before and after.

Events are frozen value objects: equal fields, equal events. Seats and cards are
the engine's ints (``engine.cards``), actions as in ``engine.core``; sequences are
tuples. The base events serve every game; a game adds its own below for news the
base ones do not carry.

AI search applies moves without building events (``Game.apply_quietly``), so the
events cost nothing where speed matters most.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event."""


# ---------------------------------------------------------------- every game


@dataclass(frozen=True, slots=True)
class Played(Event):
    """``seat`` took ``action``: a card, or a keyword (pass, stop, take, stand)."""

    seat: int
    action: int


@dataclass(frozen=True, slots=True)
class TrickTaken(Event):
    """``seat`` took the trick: ``cards`` in play order, the first led by ``leader``."""

    seat: int
    cards: tuple[int, ...]
    leader: int


@dataclass(frozen=True, slots=True)
class DealStarted(Event):
    """Deal ``deal`` (0-based) was dealt and begins."""

    deal: int


@dataclass(frozen=True, slots=True)
class DealEnded(Event):
    """Deal ``deal`` is over (played out, or cut short by the end of the game);
    ``points`` per seat, as ``Game.deal_points[deal]``."""

    deal: int
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The game is over: ``winners`` in seat order (may be empty), final ``totals``."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ForcedStep(Event):
    """A step the engine played itself for ``seat`` (AttackJack's turns); ``outcome``
    is what became of the seat: ``kept`` (its cards), ``took`` (``card``, and is still
    in) or ``out`` (over 21, after taking ``card``, or already with its two cards)."""

    seat: int
    outcome: str
    card: int | None = None


@dataclass(frozen=True, slots=True)
class PointsScored(Event):
    """``seat`` scored ``points`` during the deal, for ``reason`` (a game's word for it)."""

    seat: int
    points: int
    reason: str


# ---------------------------------------------------------------- Jacko


@dataclass(frozen=True, slots=True)
class RoundWon(Event):
    """Jacko: ``seat`` laid the last card of a round that ended at sum ``total``; it
    scores ``points`` for it (``zeros_at_21``: the zero cards that cost a 21 points).
    A ``PointsScored`` follows when ``points`` is not 0."""

    seat: int
    total: int
    points: int
    zeros_at_21: int


# ---------------------------------------------------------------- California Jack


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """California Jack: after a trick, its winner ``seat`` drew ``card`` from the face-up
    stock, then the other seat drew ``other_card``."""

    seat: int
    card: int
    other_card: int


@dataclass(frozen=True, slots=True)
class DealScored(Event):
    """California Jack: how deal ``deal`` scored. ``high``, ``jack``, ``low``: the seat
    that captured each honour; ``game``: the seat with more trick points (or tricks,
    with ``simple``), None on a tie; ``points``: the game points per seat."""

    deal: int
    high: int
    jack: int
    low: int
    game: int | None
    trick_points: tuple[int, ...]
    tricks: tuple[int, ...]
    points: tuple[int, ...]


# ---------------------------------------------------------------- Jazz


@dataclass(frozen=True, slots=True)
class RowChanged(Event):
    """Jazz's Sevens: the row of ``suit`` now runs from card ``low`` to card ``high``."""

    suit: int
    low: int
    high: int


# ---------------------------------------------------------------- AttackJack


@dataclass(frozen=True, slots=True)
class OpenCardTaken(Event):
    """AttackJack with ``choice``: after ``Played(seat, take)``, the card it took and
    whether that put it out (over 21)."""

    seat: int
    card: int
    out: bool


# ---------------------------------------------------------------- fast construction


def _fast_init(cls: type[Event]) -> None:
    """Give a frozen slots dataclass an ``__init__`` that sets its slots directly.

    The generated one of ``frozen=True`` calls ``object.__setattr__`` per field, which
    makes an event cost about twice as much to build; events are built on the engine's
    hot path (a trick taken), so this one sets each slot through its descriptor. The
    class stays frozen: assigning a field afterwards still raises."""
    params, body = [], []
    namespace: dict[str, Any] = {}
    for f in fields(cls):
        namespace[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        body.append(f"    _set_{f.name}(self, {f.name})\n")
    if not params:
        return
    exec(f"def __init__(self, {', '.join(params)}):\n{''.join(body)}", namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    type.__setattr__(cls, "__init__", init)  # in place of the generated one


for _cls in [v for v in dict(globals()).values()
             if isinstance(v, type) and issubclass(v, Event) and v is not Event]:
    _fast_init(_cls)


# ---------------------------------------------------------------- shared instances

# A ``Played`` per seat and action, made once: ``apply`` hands these out instead of
# building one per move (events are immutable, so sharing them is safe).
_PLAYED_SEATS = 18
_PLAYED_ACTIONS = 104  # cards 0..52, keywords 100..103
PLAYED: tuple[tuple[Played, ...], ...] = tuple(
    tuple(Played(seat, action) for action in range(_PLAYED_ACTIONS))
    for seat in range(_PLAYED_SEATS)
)


def played(seat: int, action: int) -> Played:
    """The ``Played`` event of ``seat`` taking ``action`` (a shared instance if it can)."""
    if 0 <= seat < _PLAYED_SEATS and 0 <= action < _PLAYED_ACTIONS:
        return PLAYED[seat][action]
    return Played(seat, action)
