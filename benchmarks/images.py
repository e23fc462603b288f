"""``python -m benchmarks images [--states N] [--format png|webp]``: the pictures' cost.

Plays seeded random games of every registered game (until at least ``--states``
states each) and draws every state: the public table image and the hand image of
the seat to act (seat 0 when nobody is), with the render cache off so each
figure is a real drawing. Card sprites are drawn once first, as a running bot
keeps them. Prints per game the p50 / p95 render time in ms and the bytes per
image (mean, max), and what rendering leaves behind per table (it should be
nothing: the caches are global and bounded), as one JSON line last.
"""

from __future__ import annotations

import gc
import importlib
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

from bot.images import draw
from bot.images.cards import SIZES, sprite
from bot.ui.game_ui import GameUI
from engine import registry
from engine.cards import CODE
from engine.core import Game

NAMES = ("Alexandrina the Magnificent", "Bo", "Çağla", "Dee-Dee 🎲", "Eve", "Fay", "Gus",
         "Hal", "Ivy", "Jo", "Kim", "Lu", "Mo", "Ned", "Oz", "Pip", "Quinn")


def ui_for(game_id: str) -> GameUI:
    """The game's UI, found in the cog module its registry entry names."""
    cog = registry.spec(game_id).cog
    assert cog is not None, f"{game_id} has no cog"
    module = importlib.import_module(cog)
    for value in vars(module).values():
        if (isinstance(value, type) and issubclass(value, GameUI) and value is not GameUI
                and getattr(value, "GAME_ID", None) == game_id):
            return value()
    raise LookupError(f"{cog} defines no GameUI for {game_id}")


def new_game(game_id: str, seed: int, players: int | None = None,
             options: dict[str, Any] | None = None) -> tuple[Game, random.Random]:
    spec = registry.spec(game_id)
    raw = dict(spec.benchmark_options) if options is None else options
    n = players or spec.default_players
    rng = random.Random(seed)
    return spec.engine_class(n, spec.options.from_dict(raw, n),
                             first_dealer=rng.randrange(n)), rng


def states(game_id: str, seed: int, players: int | None = None,
           options: dict[str, Any] | None = None) -> Iterator[Game]:
    """The game after every deal start, action and forced step of a seeded random game
    (the same game object, changed in place)."""
    game, rng = new_game(game_id, seed, players, options)
    while not game.is_over:
        game.advance(rng)
        yield game


def warm_sprites() -> float:
    """Every sprite drawn once (what a running bot has after a few games); seconds taken."""
    began = time.perf_counter()
    for size in SIZES:
        for mark in ("", "legal", "dim", "win"):
            for code in (*CODE, None):
                sprite(code, size, mark)
    return time.perf_counter() - began


def _timed(render: Callable[..., bytes], *args: Any) -> tuple[float, int]:
    began = time.perf_counter()
    data = render(*args)
    return (time.perf_counter() - began) * 1000, len(data)


def table_image(ui: GameUI, game: Game, names: tuple[str, ...], fmt: draw.Format) -> bytes:
    """The public picture, scene built and drawn, cache off."""
    return draw.render(ui.table_scene(game.public_view(), names), fmt, cache=False)


def hand_image(ui: GameUI, game: Game, seat: int, names: tuple[str, ...],
               fmt: draw.Format) -> bytes:
    return draw.render(ui.hand_scene(game.seat_view(seat), names, seat), fmt, cache=False)


def _figures(times: list[float], sizes: list[int]) -> dict[str, float]:
    ordered = sorted(times)
    return {"p50_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
            "bytes_mean": round(statistics.fmean(sizes)), "bytes_max": max(sizes)}


def measure(game_id: str, min_states: int, fmt: draw.Format = "png") -> dict[str, Any]:
    ui = ui_for(game_id)
    table: tuple[list[float], list[int]] = ([], [])
    hand: tuple[list[float], list[int]] = ([], [])
    seed = 0
    while len(table[0]) < min_states:
        seed += 1
        for game in states(game_id, seed):
            names = NAMES[:game.players]
            ms, size = _timed(table_image, ui, game, names, fmt)
            table[0].append(ms)
            table[1].append(size)
            seat = game.to_act if game.to_act is not None else 0
            ms, size = _timed(hand_image, ui, game, seat, names, fmt)
            hand[0].append(ms)
            hand[1].append(size)
    return {"game": game_id, "games": seed, "states": len(table[0]),
            "table": _figures(*table), "hand": _figures(*hand),
            "retained_bytes_per_table": retained(game_id, ui)}


def retained(game_id: str, ui: GameUI, games: int = 2) -> int:
    """Bytes still allocated per game after drawing every state of ``games`` more games
    (one game first, so the global caches are warm): what a table's pictures add to
    its memory. The target: under 50 KB; the bot keeps no picture on a table."""
    for game in states(game_id, 999):
        table_image(ui, game, NAMES[:game.players], "png")
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for seed in range(1000, 1000 + games):
        for game in states(game_id, seed):
            table_image(ui, game, NAMES[:game.players], "png")
    del game
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return max(0, after - before) // games


def run(min_states: int = 200, fmt: draw.Format = "png") -> dict[str, Any]:
    result: dict[str, Any] = {"benchmark": "images", "format": fmt, "width": draw.WIDTH,
                              "sprites_warm_s": round(warm_sprites(), 2),
                              "render_cache_images": draw.CACHE_SIZE}
    for game_id in registry.available_games():
        figures = measure(game_id, min_states, fmt)
        result[game_id] = {k: v for k, v in figures.items() if k != "game"}
    return result
