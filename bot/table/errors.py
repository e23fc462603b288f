"""What a table refuses: one sentence for the user, and nothing changed."""

from __future__ import annotations

from engine.text import Text


class TableError(Exception):
    """A request the table refuses; the text is one sentence for the user. Nothing changed.

    Raised with a ``Text`` (``TableError(T("..."))``): ``locales.say(error)`` says it in
    the reader's language, ``str(error)`` is the English."""


def refusal_text(error: Exception) -> str:
    """What an engine refusal (``RulesError``, ``OptionError``) says: its ``Text`` when it
    was raised with one, else its English."""
    return error.args[0] if error.args and isinstance(error.args[0], Text) else str(error)


class StaleClick(TableError):
    """A component drawn for an older state of the table."""
