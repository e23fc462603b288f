"""The refusals of the rules: a move, deal or option that the rules do not allow."""

from __future__ import annotations


class RulesError(ValueError):
    """A move, deal or option the rules refuse. The text is fit to show a player: it is
    raised with a ``Text`` (``RulesError(T("..."))``), so ``str(error)`` is the English
    and a front end can say it in another language."""


class OptionError(RulesError):
    """An option that does not exist, has the wrong type, or does not fit the table."""
