"""Cheap pictures (issue #27): drawn in one palette from ready sprites, in bands kept
deflated, and still the same picture: the same bytes for the same scene in any process,
cache or no cache, from any thread; every cache bounded; a valid PNG under 150 KB."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import struct
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from PIL import Image

import locales
from benchmarks.images import states, ui_for
from bot import images
from bot.images import draw, lru, palette, png, sprites, text
from bot.images.scene import Scene

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("Ann", "Bo", "Çağla", "Дима", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu",
         "Mo", "Ned", "Oz", "Pip", "Quinn")


def some_scenes() -> list[Scene]:
    """A table and a hand of each game at a few points of a game, in every language."""
    out = []
    for game_id, players, options in (("jazz", 4, None), ("jacko", 2, None),
                                      ("california_jack", 2, None),
                                      ("attackjack", 5, {"choice": True, "blind": True})):
        ui = ui_for(game_id)
        for step, game in enumerate(states(game_id, 2, players, options)):
            if step % 9 or step > 40:
                continue
            seat = game.to_act if game.to_act is not None else 0
            for language in locales.LANGUAGES:
                with locales.speaking(language):
                    out.append(ui.table_scene(game.public_view(), NAMES[:players]))
                    out.append(ui.hand_scene(game.seat_view(seat), NAMES[:players], seat))
    return out


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


DRAW_IN_A_NEW_PROCESS = """
import hashlib, pickle, sys
from bot.images import draw
scenes = pickle.load(sys.stdin.buffer)
for scene in scenes:
    print(hashlib.sha256(draw.render(scene, cache=False)).hexdigest())
"""


def test_the_same_scene_gives_the_same_bytes_in_another_process_cached_or_not():
    scenes = some_scenes()
    assert {s.language for s in scenes} == set(locales.LANGUAGES)
    here = [digest(draw.render(s)) for s in scenes]  # this process: caches warm, or not
    draw.clear_bands()
    assert [digest(draw.render(s, cache=False)) for s in scenes] == here
    assert [digest(draw.render(s, cache=False)) for s in scenes] == here  # bands kept
    done = subprocess.run([sys.executable, "-c", DRAW_IN_A_NEW_PROCESS],
                          input=pickle.dumps(scenes), capture_output=True, cwd=ROOT,
                          timeout=300, check=True)
    assert done.stdout.decode().split() == here
    assert len(set(here)) > len(scenes) // 2  # the scenes differ, and so do their pictures


def test_two_readers_of_one_state_share_one_picture():
    ui = ui_for("jazz")
    game = next(g for i, g in enumerate(states("jazz", 4, 4)) if i == 12)
    readers = [ui.table_scene(game.seat_view(seat), NAMES[:4]) for seat in range(4)]
    first = images.render(readers[0])
    assert all(images.render(scene) is first for scene in readers)


def test_pictures_drawn_from_several_threads_are_the_ones_drawn_alone():
    scenes = some_scenes()[::3]
    alone = [draw.render(s, cache=False) for s in scenes]
    draw.clear_bands()
    sprites.clear()
    results: dict[int, list[bytes]] = {}

    def worker(n: int) -> None:
        results[n] = [draw.render(s, cache=False) for s in scenes[n:] + scenes[:n]]

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n, got in results.items():
        assert got == alone[n:] + alone[:n]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_draws_though_a_thread_held_the_caches_locks_at_the_fork():
    scene = some_scenes()[0]
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with sprites._cards._lock, text.FONT_LOCK:
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    try:
        pid = os.fork()
        if pid == 0:  # the child: the holder thread is not here, its locks must not be
            code = 1
            try:
                sprites.clear()
                code = 0 if draw.render(scene, cache=False) else 1
            finally:
                os._exit(code)
    finally:
        release.set()
        holder.join()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


# -- no quantizing, one palette, a valid PNG ------------------------------------------------


def chunks(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    assert data[:8] == png.SIGNATURE
    at = 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        yield kind, body
        at += 12 + length


@pytest.mark.parametrize("index", range(0, 40, 7))
def test_each_picture_is_a_valid_png_of_the_painted_pixels_in_the_one_palette(index):
    scene = some_scenes()[index]
    data = draw.render(scene, cache=False)
    found = dict(chunks(data))
    assert list(found) == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    width, height = draw.size_of(scene)
    assert found[b"IHDR"] == struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    assert found[b"PLTE"] == palette.PLTE
    rows = zlib.decompress(found[b"IDAT"])  # checks the Adler-32 of the joined bands too
    assert len(rows) == height * (width + 1)
    assert all(rows[i] == 0 for i in range(0, len(rows), width + 1))  # filter "none"
    pixels = b"".join(rows[i + 1:i + 1 + width] for i in range(0, len(rows), width + 1))
    assert pixels == draw.paint(scene).image.tobytes()
    assert max(pixels) < len(palette.COLOURS)
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        assert image.mode == "P" and image.size == (width, height)


def test_a_picture_once_its_sprites_are_ready_is_never_quantized(monkeypatch):
    ui = ui_for("california_jack")
    games = [g.copy() for g in states("california_jack", 6)][:30]
    for game in games:  # the sprites and words of these states, ready
        draw.render(ui.table_scene(game.public_view(), NAMES[:2]), cache=False)
    draw.clear_bands()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a picture was quantized")

    monkeypatch.setattr(Image.Image, "quantize", refuse)
    for game in games:
        draw.render(ui.table_scene(game.public_view(), NAMES[:2]), cache=False)


def test_adler32_of_joined_bands_is_combined_right():
    parts = [os.urandom(n) for n in (0, 1, 801, 5000, 65521, 70000)]
    adler = 1
    for part in parts:
        adler = png.adler_combine(adler, zlib.adler32(part), len(part))
    assert adler == zlib.adler32(b"".join(parts))


def test_the_palette_holds_every_named_colour_and_a_ramp_for_text_on_each_ground():
    assert len(palette.COLOURS) <= 256 and palette.index(palette.FELT) == 0
    for ink, ground in palette.TEXT_PAIRS:
        shades = palette.shades(ink, ground)
        assert shades[0] == palette.index(ground) and shades[255] == palette.index(ink)
        assert len(set(shades)) == palette.TEXT_SHADES + 2


# -- the largest pictures ---------------------------------------------------------------------


@pytest.mark.parametrize(("game_id", "players", "options"),
                         [("attackjack", 17, {"choice": True, "blind": True}),
                          ("jazz", 7, None)])
def test_the_largest_scenes_stay_under_150_kb(game_id, players, options):
    ui = ui_for(game_id)
    names = tuple(f"{n} Konstantinopoulou-Vasquez" for n in NAMES)[:players]
    biggest = 0
    with locales.speaking("ru"):  # the longest words
        for step, game in enumerate(states(game_id, 1, players, options)):
            seat = game.to_act if game.to_act is not None else 0
            scenes = [ui.table_scene(game.public_view(), names)]
            if step % 10 == 0:
                scenes.append(ui.hand_scene(game.seat_view(seat), names, seat))
            for scene in scenes:
                biggest = max(biggest, len(draw.render(scene, cache=False)))
    assert 10 * 1024 < biggest <= 150 * 1024


# -- every cache bounded -----------------------------------------------------------------------


def test_an_lru_keeps_at_most_its_entries_and_bytes_the_least_recently_used_out_first():
    cache: lru.LRU[int, bytes] = lru.LRU(4, 100, len)
    for key in range(4):
        cache.get(key, partial(bytes, 10 + key))
    assert cache.get(0, lambda: b"new") == bytes(10)  # kept, and now the most recent
    cache.get(4, lambda: bytes(10))
    assert len(cache) == 4
    assert cache.get(1, lambda: b"made again") == b"made again"  # 1 was dropped, not 0
    cache.get(5, lambda: bytes(90))  # too heavy beside the rest: the oldest ones go
    assert cache.bytes == 100 and len(cache) == 2
    assert cache.get(1, lambda: b"gone") == b"made again"
    cache.get(6, lambda: bytes(500))  # heavier than the bound alone: kept alone
    assert len(cache) == 1 and cache.bytes == 500
    cache.clear()
    assert len(cache) == 0 and cache.bytes == 0


def test_the_card_sprites_are_kept_in_a_bounded_cache(monkeypatch):
    assert sprites._cards.entries == sprites.CARD_ENTRIES < 10_000
    assert sprites._cards.max_bytes == sprites.CARD_BYTES <= 32 * 1024 * 1024
    small: lru.LRU = lru.LRU(5, 10**9, sprites._weigh)
    monkeypatch.setattr(sprites, "_cards", small)
    codes = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS"]
    for code in codes:
        sprites.card(code, "small", "", "en", palette.FELT)
    assert len(small) == 5 and small.bytes == 5 * sprites.card("JS", "small", "", "en",
                                                                palette.FELT).bytes
    again = sprites.card("9S", "small", "", "en", palette.FELT)
    assert sprites.card("9S", "small", "", "en", palette.FELT) is again  # kept
    # Numbers say nothing in a language: one sprite serves all four.
    assert sprites.card("9S", "small", "", "ru", palette.FELT) is again
    assert len(small) == 5


def test_the_words_are_kept_in_a_bounded_cache(monkeypatch):
    assert sprites._texts.entries == sprites.TEXT_ENTRIES < 100_000
    assert sprites._texts.max_bytes == sprites.TEXT_BYTES <= 32 * 1024 * 1024
    small: lru.LRU = lru.LRU(50, 30_000, sprites._weigh)
    monkeypatch.setattr(sprites, "_texts", small)
    for n in range(300):
        sprites.words(f"Player {n} to play.", 15, False, palette.SOFT, palette.FELT, "la")
        assert len(small) <= 50 and small.bytes <= 30_000
    assert len(small) > 5
    first = sprites.words("Player 299 to play.", 15, False, palette.SOFT, palette.FELT, "la")
    assert sprites.words("Player 299 to play.", 15, False, palette.SOFT, palette.FELT,
                         "la") is first
    # Measuring and cutting are cached too, with a bound.
    for cached in (text.fit, text.length):
        assert cached.cache_info().maxsize == text.FIT_CACHE


def test_the_kept_bands_are_bounded(monkeypatch):
    assert draw._pieces.entries == draw.BAND_ENTRIES and draw._pieces.max_bytes == \
        draw.BAND_BYTES <= 64 * 1024 * 1024
    small: lru.LRU = lru.LRU(10**6, 60_000, lambda p: p.bytes)
    monkeypatch.setattr(draw, "_pieces", small)
    ui = ui_for("jazz")
    for game in states("jazz", 3, 4):
        draw.render(ui.table_scene(game.public_view(), NAMES[:4]), cache=False)
        assert small.bytes <= 60_000
    assert len(small) > 3
