"""What the terminal table says happened comes from the engine's events.

Every registered game is played through to its end at the terminal with scripted
answers, its steps' events recorded as the engine returns them: each trick taken
and each deal's end is told once, where its event came. The renderers are also
given events alone, with no view before to compare with.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from engine import cards, registry
from engine.core import PASS, Game
from engine.events import (
    CardsDrawn,
    DealEnded,
    DealScored,
    DealStarted,
    Event,
    ForcedStep,
    Played,
    PointsScored,
    RoundWon,
    TrickTaken,
)
from terminal.render import Renderer, renderer_for
from terminal.table import TerminalTable

ROOT = Path(__file__).resolve().parents[2]
SHORT = {"jacko": {"target": 25}, "california_jack": {"target": 3}, "attackjack": {"choice": True}}


class Recorder:
    """Wraps a game's steps to keep the events each returned, with the lines said after."""

    def __init__(self, game: Game, table: TerminalTable) -> None:
        self.steps: list[tuple[list[Event], list[str]]] = []
        self.lines: list[str] = []
        table.write = self.lines.append
        for name in ("apply", "auto_step", "start_deal"):
            original = getattr(game, name)

            def wrapped(*args, _original=original):
                events = _original(*args)
                self.steps.append((events, []))
                return events

            setattr(game, name, wrapped)
        tell = table.tell

        def telling(events):
            start = len(self.lines)
            tell(events)
            assert self.steps[-1][0] is events  # told right after the step that made them
            self.steps[-1][1].extend(self.lines[start:])

        table.tell = telling  # type: ignore[method-assign]


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_a_whole_game_is_told_from_its_events(game_id):
    spec = registry.spec(game_id)
    options = spec.options.from_dict(SHORT.get(game_id, {}), spec.default_players)
    game = spec.engine_class(spec.default_players, options, first_dealer=1)
    table = TerminalTable(game, 5, "easy", lambda prompt: "1", print)
    record = Recorder(game, table)
    assert table.run() == 0 and game.is_over
    assert any(line.startswith("Game over. Final scores:") for line in record.lines)
    tricks = deals = 0
    for events, said in record.steps:
        kinds = [type(e) for e in events]
        trick_lines = [line for line in said if " the trick." in line]
        assert len(trick_lines) == kinds.count(TrickTaken)
        for event in events:
            if isinstance(event, TrickTaken):
                tricks += 1
                assert any(line.startswith(f"  {table.show.name(event.seat)} ")
                           for line in trick_lines)
        if DealEnded in kinds:
            deals += 1
            ended = next(e for e in events if isinstance(e, DealEnded))
            told = [line for line in said if line.startswith((f"Deal {ended.deal + 1} ",
                                                              "Showdown:"))]
            assert len(told) == 1, said
        else:
            assert not any(line.startswith(("Showdown:", "Deal ")) for line in said)
        if DealStarted in kinds:
            assert said[:1] == [""] and said[1].startswith("===")
    assert deals == len(game.deal_points)
    if game_id in ("jazz", "california_jack"):
        assert tricks > 0


def view_for(game_id: str) -> dict:
    spec = registry.spec(game_id)
    game = spec.engine_class(spec.default_players)
    game.start_deal(game.random_deal(random.Random(1)))
    return game.seat_view(0)


def test_the_generic_renderer_tells_events_without_a_view_before():
    show = Renderer(4)
    view = {"totals": [-3, 0, -1, -9], "deal": 0}
    assert show.step([Played(2, cards.parse_card("TH")), TrickTaken(2, (1, 2, 3, 4), 3)],
                     view) == ["AI 2 plays 10♥.", "  AI 2 takes the trick."]
    assert show.step([Played(0, PASS), TrickTaken(0, (5, 6, 7, 8), 0)], view) == \
        ["You pass.", "  You take the trick."]
    assert show.step([DealEnded(2, (-1, 0, 0, -2))], view) == [
        "Deal 3 over: You −1 · AI 1 0 · AI 2 0 · AI 3 −2. "
        "Totals: You −3 · AI 1 0 · AI 2 −1 · AI 3 −9"]
    assert show.step([ForcedStep(1, "kept"), PointsScored(3, 2, "x")], view) == \
        ["  AI 1: kept.", "  AI 3 scores +2."]


def test_california_jack_tells_draws_on_the_trick_line_and_the_scoring():
    show = renderer_for("california_jack")(2)
    view = view_for("california_jack")
    lines = show.step([Played(1, 0), TrickTaken(1, (5, 0), 0), CardsDrawn(1, 13, 26)], view)
    assert lines == ["AI 1 plays 2♠.", "  AI 1 wins the trick. Drawn: AI 1 2♥, You 2♣."]
    scored = DealScored(0, 0, 1, 0, None, (40, 40), (13, 13), (2, 1))
    said = show.step([scored, DealEnded(0, (2, 1))], view)
    assert said == ["Deal 1 scored: high You, jack AI 1, low You, game nobody "
                    "(trick points 40–40). Totals: You 0 · AI 1 0"]


def test_jacko_sums_a_step_s_points_per_seat_and_ends_with_the_round():
    show = renderer_for("jacko")(2)
    view = view_for("jacko")
    said = show.step([Played(0, 8), PointsScored(0, 3, "made eleven"), RoundWon(0, 11, 0, 0)],
                     view)
    assert said == ["You play 10♠.", "  You score +3: You 0 · AI 1 0",
                    "  Round over at 11: You win it."]
    assert show.step([Played(1, 3)], view) == [f"AI 1 plays 5♠ (sum {view['sum']})."]


def test_each_game_has_its_renderer_found_by_its_id_and_others_get_the_generic_one():
    for game_id in registry.game_ids():
        found = renderer_for(game_id)
        assert issubclass(found, Renderer)
        assert (ROOT / "terminal" / f"{game_id}.py").exists() == (found is not Renderer)
    assert renderer_for("no_such_game") is Renderer


def _calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.func.id for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def test_the_engine_asks_and_prints_nothing_and_the_terminal_sits_on_the_engine_alone():
    for path in sorted((ROOT / "engine").rglob("*.py")):
        if path.name != "__main__.py":  # python -m engine replay prints its JSON
            assert not _calls(path) & {"print", "input"}, path
    for path in sorted((ROOT / "terminal").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""])
                for name in names:
                    assert name.split(".")[0] not in {"bot", "cogs", "discord", "asyncio"}, path
    assert not (ROOT / "engine" / "play.py").exists()
