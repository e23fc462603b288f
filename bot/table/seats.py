"""A seat at a table: a person or an AI, with the name people read in their language."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.table.ai_runner import seat_text_of
from locales import say


@dataclass
class Seat:
    user_id: int
    name: str
    away: bool = False
    left: bool = False
    expiries: int = 0
    ai: str | None = None  # an AI seat's level; its user_id is negative (never a person's)

    @property
    def is_ai(self) -> bool:
        return self.ai is not None

    @property
    def name_text(self) -> str:
        """The seat's name for a sentence kept to be said later (a table event): a ``Text``
        for an AI seat, whose level word is translated; a person's name as it is.

        Names are kept and saved as people typed them: the front end escapes a person's
        name where it draws it (Discord: ``bot.ui.markup.safe_name``, and ``say_safe`` for
        a kept sentence), so a table saved by any version draws safely."""
        return seat_text_of(self.ai, self.name) if self.ai is not None else self.name

    @property
    def shown(self) -> str:
        """The seat's name as people read it now, in the current language (``name`` is
        the one saved, in English for an AI seat)."""
        return say(self.name_text)


def fresh_seats(seats: Sequence[Seat]) -> list[Seat]:
    """The same people and AI players in the same order, with nothing of the last game
    (away, left, expired timers)."""
    return [Seat(s.user_id, s.name, ai=s.ai) for s in seats]
