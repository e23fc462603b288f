"""bot.images.chart_draw: the picture of a rating's line (``/stats``)."""

from __future__ import annotations

import io
import itertools
import random

import pytest
from PIL import Image

from bot.images.chart import Chart
from bot.images.chart_draw import (
    BOTTOM,
    LEFT,
    RIGHT,
    TOP,
    decimals,
    paint,
    plot_points,
    render,
    scale,
    size_of,
)
from bot.images.painter import Painter
from bot.images.palette import COLOURS, GOLD

GOLD_ENTRY = COLOURS.index(GOLD)


def walk(count: int, seed: int = 1) -> tuple[float, ...]:
    rng = random.Random(seed)
    values = [0.0]
    while len(values) < count:
        values.append(values[-1] + rng.uniform(-1.5, 2.0))
    return tuple(values)


def chart(values: tuple[float, ...], title: str = "Rating of Alice in Jazz") -> Chart:
    return Chart(title, "Card Club · the rating after each rated game", values,
                 "2025-03-01", "2025-04-02", f"{len(values)} rated games")


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("count", [2, 3, 60, 61, 500])
def test_each_value_is_a_gold_point_left_to_right_inside_the_plot(count: int) -> None:
    shown = chart(walk(count))
    points = plot_points(shown)
    assert len(points) == count
    xs = [x for x, _ in points]
    assert xs[0] == LEFT and xs[-1] == pytest.approx(RIGHT)
    assert all(a < b for a, b in itertools.pairwise(xs))
    assert all(TOP <= y <= BOTTOM for _, y in points)
    image = decoded(render(shown))
    assert image.size == size_of(shown) == (800, 400) and image.mode == "P"
    for x, y in points:  # every point lies on the line (or its dot)
        assert image.getpixel((round(x), round(y))) == GOLD_ENTRY, (x, y)


def test_a_higher_rating_is_drawn_higher_and_the_scale_covers_every_value() -> None:
    values = (3.0, -2.5, 7.25, 7.25, 0.0)
    ys = [y for _, y in plot_points(chart(values))]
    assert ys[2] == ys[3] < ys[0] < ys[4] < ys[1]
    low, high, step = scale(values)
    assert low <= min(values) and high >= max(values) and step in (1, 2, 5)
    assert (high - low) / step <= 8
    assert scale((1.0, 1.0)) == (0.0, 2.0, 0.5)  # a flat line still has a scale
    assert decimals(0.5) == 1 and decimals(0.05) == 2 and decimals(5) == 0


def test_the_same_chart_gives_the_same_bytes_and_another_other_bytes() -> None:
    first = render(chart(walk(40)))
    assert render(chart(walk(40))) == first
    assert render(chart(walk(40, seed=2))) != first
    assert render(chart(walk(40), title="Rating of Bob in Jazz")) != first


async def test_the_painter_draws_a_chart_off_the_loop_with_the_same_bytes() -> None:
    painter = Painter(1)
    try:
        shown = chart(walk(500))
        assert await painter.render(shown) == render(shown)
        assert painter.drawn == 1
        await painter.render(chart(walk(500)))  # an equal chart: from the painter's cache
        assert painter.drawn == 1
    finally:
        painter.close()


def test_strange_and_long_words_stay_inside_the_picture() -> None:
    long = "Ｗ" * 300 + " 🎴‮evil‬ **bold** `code`"
    shown = Chart(long, long, (0.0, -999999.25, 123456.5), long, long, long)
    canvas = paint(shown)
    width, height = canvas.image.size
    assert len(canvas.texts) >= 6
    for x0, y0, x1, y1 in canvas.texts:
        assert 0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height


def test_one_value_is_a_point_and_none_is_refused() -> None:
    [(x, _)] = plot_points(chart((4.5,)))
    assert x == (LEFT + RIGHT) / 2
    decoded(render(chart((4.5,))))
    with pytest.raises(ValueError):
        Chart("t", "h", ())
