"""A line chart as plain frozen data (no Pillow here): a player's rating after each of
their rated games, which ``/stats`` shows under its numbers.

Like a ``Scene``, a ``Chart`` holds every word already in its reader's language (the
cog translates while it builds it), and it is frozen and hashable: the ``Painter``
draws it off the event loop and keeps the bytes of a chart drawn lately.
``bot.images.chart_draw`` lays it out.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chart:
    """``values`` drawn left to right as a line, one point each, over a header (``title``,
    ``heading``); ``start`` and ``end`` are written under the first and the last point,
    ``caption`` between them."""

    title: str
    heading: str
    values: tuple[float, ...]
    start: str = ""
    end: str = ""
    caption: str = ""

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError("a chart needs at least one value")
