"""Game records (``records.md``): replay them, and restore a game from one.

One loop serves both: ``replay`` reports every step and refuses a broken record
at the first problem with its deal and step; ``restore`` rebuilds the game a
table saved (its plain-data form is its record).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar, overload

from engine import cards
from engine.core import RECORD_FORMAT, Deal, Game, RulesError, action_code, parse_action
from engine.registry import game_class
from engine.text import TN, T, Text


class ReplayError(Exception):
    """A record refused at ``deal`` / ``step`` (None where the problem is not inside one).
    ``reason`` is a ``Text``: English as it is (``to_dict``), or said in another
    language by a front end (``python -m engine replay --lang``)."""

    def __init__(self, deal: int | None, step: int | None, reason: str):
        super().__init__(reason)
        self.deal = deal
        self.step = step
        self.reason = reason

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "step": self.step, "reason": self.reason}


StepHook = Callable[[int, int, list[int], int], None]  # deal, seat, legal, action
G = TypeVar("G", bound=Game)


def replay(source: str | dict[str, Any], summary: bool = False) -> dict[str, Any]:
    """Replay a record (JSON text or parsed) and return the ``records.md`` output object."""
    if isinstance(source, str):
        try:
            source = json.loads(source)
        except (ValueError, RecursionError) as error:
            # Refused like any broken record, never a traceback: besides a syntax error
            # (JSONDecodeError, a ValueError), the parser gives up on arrays or objects
            # nested deeper than the interpreter's recursion limit (RecursionError) and on
            # an integer longer than its int-string conversion limit (ValueError).
            # Translators: {problem} is the JSON parser's own English words.
            raise ReplayError(None, None, T("The file is not valid JSON: {problem}.",
                                            problem=_parser_words(error))) from None
    deals_out: list[dict[str, Any]] = []

    def on_step(deal: int, seat: int, legal: list[int], action: int) -> None:
        while len(deals_out) <= deal:
            deals_out.append({"steps": []})
        deals_out[deal]["steps"].append({
            "seat": seat,
            "legal": sorted(action_code(a) for a in legal),
            "action": action_code(action),
        })

    game = _run(source, None if summary else on_step)
    _check_seat_changes(source)
    points = game.deal_points
    result_deals = []
    for index, deal_points in enumerate(points):
        entry: dict[str, Any] = {}
        if not summary:
            entry["steps"] = deals_out[index]["steps"] if index < len(deals_out) else []
        entry["points"] = list(deal_points)
        result_deals.append(entry)
    return {
        "game": game.GAME_ID,
        "deals": result_deals,
        "totals": game.totals,
        "winners": game.winners(),
        "complete": game.is_over,
    }


@overload
def restore(data: dict[str, Any]) -> Game: ...
@overload
def restore(data: dict[str, Any], expected: type[G]) -> G: ...
def restore(data: dict[str, Any], expected: type[Game] | None = None) -> Game:
    """The game saved as ``data`` (``Game.to_data()``, a record), replayed to its last
    action; forced steps due after it stay pending. With ``expected``, a game of
    another class is refused. A broken save raises ``RulesError`` (a ``ValueError``)."""
    try:
        game = _run(data, None, settle=False)
    except ReplayError as error:
        if error.deal is None:
            raise RulesError(T("The saved game cannot be restored: {reason}",
                               reason=error.reason)) from None
        raise RulesError(T("The saved game cannot be restored (deal {deal}, step {step}): "
                           "{reason}", deal=error.deal, step=error.step,
                           reason=error.reason)) from None
    if expected is not None and not isinstance(game, expected):
        raise RulesError(T("That data holds a game of {game}, not {expected}.",
                           game=game.TITLE, expected=expected.TITLE))
    return game


def _run(record: Any, on_step: StepHook | None, settle: bool = True) -> Game:
    """Replay ``record``. With ``settle`` false, forced steps after the last action stay
    pending, so a restored table can still show them one at a time."""
    game = _new_game(record)
    for d, raw_deal in enumerate(record["deals"]):
        _settle(game)
        if game.is_over:
            raise ReplayError(d, None, T("The game was already over before this deal."))
        if not game.needs_deal:
            raise ReplayError(d, None, T("The previous deal is not finished."))
        deal, actions = _parse_deal(d, raw_deal, game.players)
        try:
            game.start_deal(deal)
        except RulesError as error:
            raise ReplayError(d, None, _reason(error)) from None
        for s, raw_action in enumerate(actions):
            seat, action = _parse_action(d, s, raw_action, game.players)
            _settle(game)
            if game.is_over:
                raise ReplayError(d, s, T("The game is already over."))
            to_act = game.to_act
            if to_act is None:
                raise ReplayError(d, s, T("The deal is already over."))
            if seat != to_act:
                raise ReplayError(d, s, T("Seat {seat} acted, but it is seat {to_act}'s turn.",
                                          seat=seat, to_act=to_act))
            legal = game.legal_actions()
            if action not in legal:
                # Translators: {action} is an action's code in a record (TH, pass); {reason}
                # the rules' reason, a whole sentence.
                raise ReplayError(d, s, T("{action} is not legal here: {reason}",
                                          action=action_code(action),
                                          reason=game.why_illegal(action)))
            game.apply_quietly(seat, action)
            if on_step is not None:
                on_step(d, seat, legal, action)
        if settle or d + 1 < len(record["deals"]):
            _settle(game)
    return game


def _settle(game: Game) -> None:
    """Play the pending forced steps (without events: nobody reads them here)."""
    while game.has_auto_step:
        game.auto_step_quietly()


def _new_game(record: Any) -> Game:
    # The record's keys ('players', 'deals'...) are words of the file format: translators
    # keep them as they are.
    if not isinstance(record, dict):
        raise ReplayError(None, None, T("A record must be a JSON object."))
    if record.get("format") != RECORD_FORMAT:
        raise ReplayError(None, None, T("The format must be {format}.",
                                        format=repr(RECORD_FORMAT)))
    for key in ("game", "players", "options", "first_dealer", "deals"):
        if key not in record:
            raise ReplayError(None, None, T("The record has no {key}.", key=repr(key)))
    try:
        cls = game_class(record["game"])
    except (KeyError, TypeError, ImportError, AttributeError):
        raise ReplayError(None, None, T("Unknown game {game}.",
                                        game=repr(record["game"]))) from None
    players, first_dealer = record["players"], record["first_dealer"]
    if not _is_int(players) or not _is_int(first_dealer):
        raise ReplayError(None, None,
                          T("'players' and 'first_dealer' must be whole numbers."))
    if not isinstance(record["options"], dict):
        raise ReplayError(None, None, T("'options' must be an object."))
    if not isinstance(record["deals"], list):
        raise ReplayError(None, None, T("'deals' must be a list."))
    try:
        options = cls.OPTIONS.from_dict(record["options"], players)
        return cls(players, options, first_dealer)
    except RulesError as error:
        raise ReplayError(None, None, _reason(error)) from None


def _check_seat_changes(record: Any) -> None:
    """A record's ``seat_changes`` (optional: a seat that changed hands mid-game), checked
    once its deals replayed: each names a deal of the record, a step from 0 to that
    deal's number of actions, and a seat. Nothing else of the replay depends on them."""
    changes = record.get("seat_changes")
    if changes is None:
        return
    if not isinstance(changes, list):
        raise ReplayError(None, None, T("'seat_changes' must be a list."))
    deals, players = record["deals"], record["players"]
    for change in changes:
        if not isinstance(change, dict) or not all(_is_int(change.get(key))
                                                   for key in ("deal", "step", "seat")):
            raise ReplayError(None, None, T("A seat change needs whole numbers 'deal', "
                                            "'step' and 'seat'."))
        d, s, seat = change["deal"], change["step"], change["seat"]
        if not 0 <= d < len(deals):
            raise ReplayError(None, None, T("A seat change names deal {deal}, which the "
                                            "record does not hold.", deal=d))
        if not 0 <= s <= len(deals[d]["actions"]):
            raise ReplayError(d, None, TN("A seat change names step {step}, but the deal "
                                          "holds {n} action.",
                                          "A seat change names step {step}, but the deal "
                                          "holds {n} actions.", len(deals[d]["actions"]),
                                          step=s))
        if not 0 <= seat < players:
            raise ReplayError(d, s, T("There is no seat {seat}.", seat=seat))


def _parse_deal(d: int, raw: Any, players: int) -> tuple[Deal, list[Any]]:
    if not isinstance(raw, dict) or "hands" not in raw or "actions" not in raw:
        raise ReplayError(d, None, T("A deal needs 'hands' and 'actions'."))
    hands, stock, first = raw["hands"], raw.get("stock") or [], raw.get("first")
    if not isinstance(hands, list) or len(hands) != players or not all(
        isinstance(hand, list) for hand in hands
    ):
        raise ReplayError(d, None, TN("'hands' must hold one list of cards for each of the "
                                      "{n} seat.",
                                      "'hands' must hold one list of cards for each of the "
                                      "{n} seats.", players))
    if not isinstance(stock, list):
        raise ReplayError(d, None, T("'stock' must be a list of cards."))
    if first is not None and not (_is_int(first) and 0 <= first < players):
        raise ReplayError(d, None, T("'first' must be a seat from 0 to {last}.",
                                     last=players - 1))
    if not isinstance(raw["actions"], list):
        raise ReplayError(d, None, T("'actions' must be a list."))
    try:
        deal = Deal(
            hands=[[cards.parse_card(_text(c)) for c in hand] for hand in hands],
            stock=[cards.parse_card(_text(c)) for c in stock],
            first=first,
        )
    except cards.CardError as error:
        raise ReplayError(d, None, _reason(error)) from None
    return deal, raw["actions"]


def _parse_action(d: int, s: int, raw: Any, players: int) -> tuple[int, int]:
    if not (isinstance(raw, list) and len(raw) == 2 and _is_int(raw[0])
            and isinstance(raw[1], str)):
        raise ReplayError(d, s, T("An action must be [seat, action code]."))
    seat = raw[0]
    if not 0 <= seat < players:
        raise ReplayError(d, s, T("There is no seat {seat}.", seat=seat))
    try:
        return seat, parse_action(raw[1])
    except RulesError as error:
        raise ReplayError(d, s, _reason(error)) from None


def _parser_words(error: ValueError | RecursionError) -> str:
    """What the JSON parser said, without Python's advice to change its limits."""
    if isinstance(error, json.JSONDecodeError):
        return error.msg
    return str(error).split(";")[0]


def _reason(error: Exception) -> str:
    """The reason an engine error was raised with: its ``Text`` (still translatable),
    else its English."""
    if error.args and isinstance(error.args[0], Text):
        return error.args[0]
    return str(error)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise cards.CardError(T("{code} is not a card code.", code=repr(value)))
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
