"""The page's own words, in the viewer's language (a snapshot's ``strings``).

Filled from ``web/frontend/STRINGS.md``; each is a ``_()`` here so that
``python -m bot.catalogues`` extracts it with the rest of the bot's words.
"""

from __future__ import annotations


def page_strings() -> dict[str, str]:
    """The page's words in the current language (``locales.speaking``)."""
    return {}
