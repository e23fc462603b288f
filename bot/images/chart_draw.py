"""A ``Chart`` drawn as a PNG: a header as the table pictures have, then the line on the
felt, with the values' scale at the left and the first and last labels under it.

Drawn in the one palette (``bot.images.palette``): the grid in the seats' line colour,
the line and its points in gold, text through ``draw.Canvas`` (cut to its room, glyphs
the font lacks dropped). The picture's size is fixed and the layout depends only on the
chart, so the same chart gives the same bytes in every thread and process.
"""

from __future__ import annotations

import math

from PIL import ImageDraw

from bot.images.chart import Chart
from bot.images.draw import HEADER, MARGIN, WIDTH, Canvas, Format, encode
from bot.images.palette import FELT, GOLD, HEADER_BG, INK, SEAT_LINE, SOFT, index, new
from bot.images.text import length

HEIGHT = 400
LEFT = MARGIN + 56  # room for the scale's numbers
RIGHT = WIDTH - MARGIN - 64  # room for the last value, written beside its point
TOP = HEADER + 24
BOTTOM = HEIGHT - 44  # the labels go under it
TICKS = 4  # about this many steps on the scale
DOTS_UP_TO = 60  # with more points than this the line alone shows them
SCALE_SIZE = 13
LABEL_SIZE = 14
LAST_SIZE = 16

Point = tuple[float, float]


def size_of(chart: Chart) -> tuple[int, int]:
    """The picture's (width, height): the same for every chart."""
    return WIDTH, HEIGHT


def scale(values: tuple[float, ...]) -> tuple[float, float, float]:
    """(lowest, highest, step) of the scale: round steps of 1, 2 or 5 times a power of ten,
    about ``TICKS`` of them, covering every value."""
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    rough = (high - low) / TICKS
    power = 10.0 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough - 1e-12)
    return math.floor(low / step + 1e-9) * step, math.ceil(high / step - 1e-9) * step, step


def decimals(step: float) -> int:
    """How many decimals the scale's numbers need to tell its steps apart."""
    return max(0, -math.floor(math.log10(step) + 1e-9))


def plot_points(chart: Chart) -> list[Point]:
    """Where each value is drawn, left to right (a single value in the middle)."""
    low, high, _ = scale(chart.values)
    count = len(chart.values)
    spread = (RIGHT - LEFT) / (count - 1) if count > 1 else 0.0
    return [(LEFT + i * spread if count > 1 else (LEFT + RIGHT) / 2,
             BOTTOM - (value - low) / (high - low) * (BOTTOM - TOP))
            for i, value in enumerate(chart.values)]


def paint(chart: Chart) -> Canvas:
    """The chart drawn on a new image; ``texts`` holds every text's box."""
    canvas = Canvas(new(size_of(chart), FELT))
    canvas.box((0, 0, WIDTH - 1, HEADER - 1), 0, HEADER_BG)
    canvas.text((MARGIN, 10), chart.title, 22, WIDTH - 2 * MARGIN, bold=True, ground=HEADER_BG)
    canvas.text((MARGIN, 40), chart.heading, 16, WIDTH - 2 * MARGIN, fill=SOFT,
                ground=HEADER_BG)
    _scale(canvas, chart)
    # Whole pixels: each value's own pixel is on the line, whatever its width.
    points = [(round(x), round(y)) for x, y in plot_points(chart)]
    pen = ImageDraw.Draw(canvas.image)
    gold = index(GOLD)
    if len(points) > 1:
        # An odd width: an even one leaves some vertices' own pixel out.
        pen.line(points, fill=gold, width=3, joint="curve")
    for x, y in points if len(points) <= DOTS_UP_TO else points[-1:]:
        pen.ellipse((x - 4, y - 4, x + 4, y + 4), fill=gold)
    last_x, last_y = points[-1]
    # With the one decimal the leaderboard shows.
    canvas.text((last_x + 10, last_y), f"{chart.values[-1]:.1f}", LAST_SIZE,
                WIDTH - MARGIN - last_x - 10, fill=GOLD, bold=True, anchor="lm")
    _labels(canvas, chart, points)
    return canvas


def _scale(canvas: Canvas, chart: Chart) -> None:
    low, high, step = scale(chart.values)
    pen = ImageDraw.Draw(canvas.image)
    line, digits = index(SEAT_LINE), decimals(step)
    steps = round((high - low) / step)
    for n in range(steps + 1):
        value = low + n * step
        y = round(BOTTOM - n * (BOTTOM - TOP) / steps)
        pen.line((LEFT, y, RIGHT, y), fill=line, width=1)
        text = f"{value:.{digits}f}"
        if text.lstrip("-").strip("0.") == "":
            text = text.lstrip("-")  # no "-0.0"
        canvas.text((LEFT - 8, y), text, SCALE_SIZE, LEFT - MARGIN - 8, fill=SOFT,
                    anchor="rm")


def _labels(canvas: Canvas, chart: Chart, points: list[tuple[int, int]]) -> None:
    """``start`` under the first point, ``end`` under the last, ``caption`` between, each
    kept inside the picture and clear of the others."""
    y = BOTTOM + 14
    first, last = points[0][0], points[-1][0]
    start_w = min(length(chart.start, LABEL_SIZE), (WIDTH - 2 * MARGIN) / 3)
    end_w = min(length(chart.end, LABEL_SIZE), (WIDTH - 2 * MARGIN) / 3)
    start_x = max(MARGIN, first - start_w / 2)
    end_x = min(WIDTH - MARGIN - end_w, last - end_w / 2)
    if chart.start:
        canvas.text((start_x, y), chart.start, LABEL_SIZE, start_w + 1, fill=SOFT)
    if chart.end and len(points) > 1:
        canvas.text((end_x, y), chart.end, LABEL_SIZE, end_w + 1, fill=SOFT)
    if chart.caption:
        room = end_x - start_x - start_w - 24
        canvas.text(((start_x + start_w + end_x) / 2, y), chart.caption, LABEL_SIZE, room,
                    fill=INK, anchor="ma")


def render(chart: Chart, fmt: Format = "png") -> bytes:
    """The chart as image bytes (PNG by default)."""
    return encode(paint(chart).image, fmt)
