"""``python -m benchmarks images [--states N] [--format png|webp] [--encoders]``: the
pictures' cost.

Plays seeded random games of every registered game (until at least ``--states``
states each) and draws every state: the public table image and the hand image of
the seat to act (seat 0 when nobody is), with the scene cache off so each figure is
a real drawing. The card sprites are prepared first, as a running bot has them.
Per game it prints the p50 / p95 render time in ms and the bytes per image (mean,
max) of each kind, twice: ``table`` / ``hand`` as a running bot draws them (the
game's usual words said before, at another table; the table's names new; the bands of
the state before still kept, so only what changed is drawn), and ``*_cold`` with no
band kept (every band drawn and compressed: a table's first picture, a new deal).
``*_cpu`` are the same pictures in this thread's CPU time, which leaves out the time
other processes had the core.
Then the largest scenes (17-player AttackJack, 7-player Jazz) and their bytes, what
rendering leaves behind per table outside its bounded caches (it should be about
nothing), the caches' fill, and the load average before and after (the machine's
other work shows in every figure). One JSON line last.

``--encoders`` instead compares zlib settings for the PNG (level, strategy) on every
game's pictures: time to compress a picture's bands against its bytes.
"""

from __future__ import annotations

import gc
import importlib
import math
import os
import random
import statistics
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.hooks import hook
from bot.images import cards, draw, png, sprites, text
from bot.images.cards import SIZES
from bot.images.palette import CARD_GROUNDS, FELT
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
    """Every card sprite prepared once, in every mark on every ground it lies on (what a
    running bot has after a few games); seconds taken."""
    began = time.perf_counter()
    for size in SIZES:
        grounds = CARD_GROUNDS[1:] if size == "tiny" else (FELT,)  # seats: tiny cards
        for ground in grounds:
            for mark in ("", "legal", "dim", "win"):
                for code in (*CODE, None):
                    sprites.card(code, size, mark, "en", ground)
    return time.perf_counter() - began


def _clocked(render: Callable[..., bytes], *args: Any) -> tuple[float, float, int]:
    """Wall ms, this thread's CPU ms, and the bytes of one picture. The CPU time leaves
    out the time other processes had the core: on a busy machine it is the cost."""
    began, cpu = time.perf_counter(), time.thread_time()
    data = render(*args)
    return ((time.perf_counter() - began) * 1000, (time.thread_time() - cpu) * 1000,
            len(data))


def table_image(ui: GameUI, game: Game, names: tuple[str, ...], fmt: draw.Format) -> bytes:
    """The public picture, scene built and drawn, cache off."""
    return draw.render(ui.table_scene(game.public_view(), names), fmt, cache=False)


def hand_image(ui: GameUI, game: Game, seat: int, names: tuple[str, ...],
               fmt: draw.Format) -> bytes:
    return draw.render(ui.hand_scene(game.seat_view(seat), names, seat), fmt, cache=False)


def _figures(times: list[float], sizes: list[int]) -> dict[str, float]:
    return {**_quantiles(times), "bytes_mean": round(statistics.fmean(sizes)),
            "bytes_max": max(sizes)}


def _quantiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"p50_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2)}


def cold(render: Callable[..., bytes], *args: Any) -> bytes:
    """A picture drawn with no band kept from before (the sprites stay ready)."""
    draw.clear_bands()
    return render(*args)


def measure(game_id: str, min_states: int, fmt: draw.Format = "png") -> dict[str, Any]:
    ui = ui_for(game_id)
    kinds = ("table", "hand", "table_cold", "hand_cold")
    figures: dict[str, tuple[list[float], list[int]]] = {k: ([], []) for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}

    def note(kind: str, clocked: tuple[float, float, int]) -> None:
        figures[kind][0].append(clocked[0])
        cpu[kind].append(clocked[1])
        figures[kind][1].append(clocked[2])

    said_before(game_id, ui)
    seed = 0
    while len(figures["table"][0]) < min_states:
        seed += 1
        draw.clear_bands()  # a new table: nothing of it drawn yet
        for game in states(game_id, seed):
            names = NAMES[:game.players]
            seat = game.to_act if game.to_act is not None else 0
            note("table", _clocked(table_image, ui, game, names, fmt))
            note("hand", _clocked(hand_image, ui, game, seat, names, fmt))
        for game in states(game_id, seed):
            names = NAMES[:game.players]
            seat = game.to_act if game.to_act is not None else 0
            note("table_cold", _clocked(cold, table_image, ui, game, names, fmt))
            note("hand_cold", _clocked(cold, hand_image, ui, game, seat, names, fmt))
    return {"game": game_id, "games": seed, "states": len(figures["table"][0]),
            **{kind: _figures(*figures[kind]) for kind in kinds},
            **{f"{kind}_cpu": _quantiles(cpu[kind]) for kind in kinds},
            "retained_bytes_per_table": retained(game_id, ui)}


# Another table's players: their game teaches the caches the game's usual words, not
# the measured table's names (nor the sentences holding them).
OTHERS = tuple(f"Someone {chr(0x41 + i)}" for i in range(17))


def said_before(game_id: str, ui: GameUI) -> None:
    """Every state of another table's game drawn (other names): a running bot has said
    the game's usual words (labels, counts, scores) before."""
    for game in states(game_id, 10_000):
        names = OTHERS[:game.players]
        seat = game.to_act if game.to_act is not None else 0
        table_image(ui, game, names, "png")
        hand_image(ui, game, seat, names, "png")


def largest_scenes() -> list[tuple[str, int, dict[str, Any] | None]]:
    """The largest pictures people see: every seat of each game whose tables grow past
    their usual size (AttackJack's 17, Jazz's 7), largest first, with the game's options
    for them (``LARGEST_OPTIONS`` in its ``benchmarks/<game id>.py``)."""
    grown = [s for s in registry.specs() if s.is_available() and s.max_players > s.default_players]
    return [(s.id, s.max_players, hook(s.id, "LARGEST_OPTIONS"))
            for s in sorted(grown, key=lambda s: -s.max_players)]


LARGEST = largest_scenes()


def largest() -> dict[str, Any]:
    """The bytes of the largest scenes' pictures over whole games (each must stay
    under 150 KB), and their render time as a running bot draws them."""
    out: dict[str, Any] = {}
    for game_id, players, options in LARGEST:
        ui = ui_for(game_id)
        times: list[float] = []
        cpu: list[float] = []
        sizes: list[int] = []
        for seed in (1, 2):
            draw.clear_bands()  # a new table
            for game in states(game_id, seed, players, options):
                ms, cpu_ms, size = _clocked(table_image, ui, game, NAMES[:players], "png")
                times.append(ms)
                cpu.append(cpu_ms)
                sizes.append(size)
        out[f"{game_id}_{players}"] = {**_figures(times, sizes), "cpu": _quantiles(cpu)}
    return out


def retained(game_id: str, ui: GameUI, games: int = 2) -> int:
    """Bytes still allocated per game after drawing every state of ``games`` more games,
    the bounded caches emptied before and after (one game first, so everything Pillow
    and the fonts load once is loaded): what a table's pictures leave behind outside
    the caches, whose bounds the tests hold. The target: under 50 KB; the bot keeps no
    picture on a table."""
    for game in states(game_id, 999):
        table_image(ui, game, NAMES[:game.players], "png")
    _empty_caches()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for seed in range(1000, 1000 + games):
        for game in states(game_id, seed):
            table_image(ui, game, NAMES[:game.players], "png")
    del game
    _empty_caches()
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    warm_sprites()  # as the next measurement expects them
    return max(0, after - before) // games


def _empty_caches() -> None:
    draw.clear_bands()
    draw._cached.cache_clear()
    sprites.clear()
    cards._drawn.cache_clear()
    text.fit.cache_clear()
    text.length.cache_clear()


def encoders(min_states: int = 60) -> dict[str, Any]:
    """zlib settings compared on every game's pictures (tables and hands, the largest
    scenes too): per setting, the p50 / p95 ms to compress a picture's bands and its
    bytes (mean, max)."""
    pictures: list[list[bytes]] = []  # each picture as its bands' scanlines
    cases = [(g, None, None) for g in registry.available_games()]
    for game_id, players, options in [*cases, *LARGEST]:
        ui = ui_for(game_id)
        for step, game in enumerate(states(game_id, 1, players, options)):
            if step >= min_states:
                break
            names = NAMES[:game.players]
            seat = game.to_act if game.to_act is not None else 0
            for scene in (ui.table_scene(game.public_view(), names),
                          ui.hand_scene(game.seat_view(seat), names, seat)):
                pictures.append(draw.band_rows(scene))
    strategies = {"default": zlib.Z_DEFAULT_STRATEGY, "filtered": zlib.Z_FILTERED,
                  "rle": zlib.Z_RLE, "fixed": zlib.Z_FIXED}
    settings = [(f"level{level}_{name}", level, strategy) for level in (1, 2, 3, 6, 9)
                for name, strategy in strategies.items()]
    times: dict[str, list[float]] = {name: [] for name, _, _ in settings}
    sizes: dict[str, list[int]] = {name: [] for name, _, _ in settings}
    # Interleaved, each the best of three: the machine's other work then weighs on every
    # setting alike instead of on whichever ran while it was busy.
    for bands in pictures:
        for name, level, strategy in settings:
            best = math.inf
            for _ in range(3):
                began = time.perf_counter()
                pieces = [png.piece(rows, level, strategy) for rows in bands]
                best = min(best, (time.perf_counter() - began) * 1000)
            times[name].append(best)
            sizes[name].append(sum(len(p.data) for p in pieces) + 900)  # chunks, palette
    return {"pictures": len(pictures), "chosen": f"level {png.LEVEL}, strategy {png.STRATEGY}",
            **{name: _figures(times[name], sizes[name]) for name, _, _ in settings}}


def run(min_states: int = 200, fmt: draw.Format = "png") -> dict[str, Any]:
    load_before = os.getloadavg()
    result: dict[str, Any] = {"benchmark": "images", "format": fmt, "width": draw.WIDTH,
                              "sprites_warm_s": round(warm_sprites(), 2),
                              "render_cache_images": draw.CACHE_SIZE}
    for game_id in registry.available_games():
        figures = measure(game_id, min_states, fmt)
        result[game_id] = {k: v for k, v in figures.items() if k != "game"}
    result["largest"] = largest()
    result["caches"] = {**sprites.stats(), **draw.band_stats()}
    result["load_before"] = [round(x, 2) for x in load_before]
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return result
