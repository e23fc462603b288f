"""The painter: pictures drawn in workers, the same bytes as drawn in place, one drawing
per scene however many ask, a failure that costs the picture and nothing else."""

from __future__ import annotations

import asyncio
import logging
import os
import threading

import pytest

from benchmarks.images import states, ui_for
from bot import images
from bot.config.settings import SettingsError, load_settings
from bot.images.painter import Painter, draw
from bot.images.scene import Card, Scene, Zone

NAMES = ("Ann", "Bo", "Cy", "Dee")


def scene(n: int) -> Scene:
    return Scene(f"Table {n}", "deal 1", zones=(Zone("Trick", (Card("TH"), Card(None))),))


def die(_scene: Scene, _fmt: str) -> bytes:
    """A worker killed while drawing (out of memory, a signal)."""
    os._exit(3)


class Counting:
    """A job that counts its calls and, while ``gate`` is closed, waits for it."""

    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail
        self.gate = threading.Event()
        self.gate.set()

    def __call__(self, drawn: Scene, fmt: str) -> bytes:
        self.calls += 1
        assert self.gate.wait(10)
        if self.fail:
            raise OSError("the disk is full")
        return f"{drawn.title}.{fmt}".encode()


@pytest.mark.parametrize("kind", ["thread", "process"])
async def test_a_picture_drawn_in_a_worker_is_the_same_bytes_as_drawn_in_place(kind):
    ui = ui_for("jazz")
    scenes = []
    for number, game in enumerate(states("jazz", 3)):
        if number % 9 == 0:
            scenes.append(ui.table_scene(game.public_view(), NAMES))
            seat = game.to_act if game.to_act is not None else 0
            scenes.append(ui.hand_scene(game.seat_view(seat), NAMES, seat))
    painter = Painter(2, kind=kind)
    try:
        drawn = await asyncio.gather(*(painter.render(s) for s in scenes[:12]))
    finally:
        painter.close()
    assert drawn == [images.render(s, cache=False) for s in scenes[:12]]
    assert painter.drawn == len(set(scenes[:12]))


async def test_a_scene_drawn_lately_comes_from_the_cache_without_a_worker():
    job = Counting()
    painter = Painter(1, job=job, cache_size=2)
    assert await painter.render(scene(1)) == b"Table 1.png"
    assert await painter.render(scene(1)) == b"Table 1.png" and job.calls == 1
    await painter.render(scene(2))
    await painter.render(scene(3))  # the cache holds two: scene 1 goes
    await painter.render(scene(1))
    assert job.calls == 4
    painter.close()


async def test_two_requests_for_one_scene_at_once_draw_it_once_and_the_painter_is_busy():
    job = Counting()
    job.gate.clear()
    painter = Painter(2, job=job)
    first = asyncio.create_task(painter.render(scene(1)))
    second = asyncio.create_task(painter.render(scene(1)))
    await asyncio.sleep(0.05)
    assert painter.busy() and not first.done()
    job.gate.set()
    assert await first == await second == b"Table 1.png"
    assert job.calls == 1 and not painter.busy()
    painter.close()


async def test_one_asker_giving_up_does_not_stop_the_others_picture():
    job = Counting()
    job.gate.clear()
    painter = Painter(1, job=job)
    leaving = asyncio.create_task(painter.render(scene(1)))
    staying = asyncio.create_task(painter.render(scene(1)))
    await asyncio.sleep(0.02)
    leaving.cancel()
    job.gate.set()
    assert await staying == b"Table 1.png"
    assert leaving.cancelled()
    painter.close()


async def test_a_failed_drawing_fails_its_askers_is_logged_and_is_not_kept(caplog):
    job = Counting(fail=True)
    painter = Painter(1, job=job)
    with pytest.raises(OSError):
        await painter.render(scene(1))
    with caplog.at_level(logging.ERROR, "bot.images.painter"):
        assert await painter.render_or_none(scene(1), "hand") is None
    assert job.calls == 2, "a failure is not cached: the next request draws again"
    assert "cannot draw the hand picture" in caplog.text and "the disk is full" in caplog.text
    job.fail = False
    assert await painter.render(scene(1)) == b"Table 1.png" and not painter.busy()
    painter.close()


async def test_a_worker_that_died_is_replaced_for_the_next_picture():
    painter = Painter(1, kind="process", job=die)
    assert await painter.render_or_none(scene(1), "table") is None
    assert not painter.busy()
    painter._job = draw  # the next drawings work again
    assert await painter.render(scene(2)) == images.render(scene(2), cache=False)
    painter.close()


async def test_a_closed_painter_draws_nothing_more():
    job = Counting()
    painter = Painter(1, job=job)
    painter.close()
    assert await painter.render_or_none(scene(1), "table") is None and job.calls == 0


def test_picture_workers_are_read_from_the_settings():
    assert load_settings({"DISCORD_TOKEN": "t"}).picture_workers is None
    assert load_settings({"DISCORD_TOKEN": "t", "PICTURE_WORKERS": " 3 "}).picture_workers == 3
    for bad in ("0", "-1", "two", "65"):
        with pytest.raises(SettingsError, match="PICTURE_WORKERS must be"):
            load_settings({"DISCORD_TOKEN": "t", "PICTURE_WORKERS": bad})
