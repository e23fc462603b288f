"""The bot's languages: gettext catalogues (maintained with Babel) and who speaks what.

English is written in the code; Swedish, Danish and Russian live in
``locales/<lang>/LC_MESSAGES/cardtable.po``, read once per process when a
language is first spoken (``python -m bot.catalogues`` extracts the strings from the
code, updates the catalogues and checks they compile; see the README).

The language being spoken is a context variable, so each asyncio task (one
per interaction) and each ``with speaking(lang)`` block says its own: the
answer to a click in the clicker's language, the table in the table's, a DM in
its recipient's. ``_``, ``_n`` and ``_c`` translate at once in the current
language; ``say`` translates an engine ``Text`` (a refusal, a card's name)
made earlier in English.
"""

from __future__ import annotations

import contextvars
import functools
import io
from collections.abc import Iterator
from contextlib import contextmanager
from gettext import NullTranslations
from pathlib import Path
from typing import Any

from engine.text import Text

DOMAIN = "cardtable"
ROOT = Path(__file__).resolve().parent
ENGLISH = "en"
LANGUAGES = (ENGLISH, "sv", "da", "ru")
"""Every language the bot speaks; English first (the code's own)."""

NAMES = {"en": "English", "sv": "Svenska", "da": "Dansk", "ru": "Русский"}
"""Each language by its own name, for pickers."""

DISCORD_LOCALES = {"sv": ("sv-SE",), "da": ("da",), "ru": ("ru",)}
"""The Discord client locales each translated language serves."""

_current: contextvars.ContextVar[str] = contextvars.ContextVar("language", default=ENGLISH)


def language_of(locale: object) -> str:
    """The language for a Discord locale (``sv-SE``, ``da``, ``ru``...): English for any
    locale without a catalogue, and for none."""
    code = str(getattr(locale, "value", locale) or "").lower().replace("_", "-")
    base = code.split("-")[0]
    return base if base in LANGUAGES else ENGLISH


def current() -> str:
    return _current.get()


def use(language: str) -> None:
    """Speak ``language`` for the rest of this task (an interaction's own task)."""
    _current.set(language if language in LANGUAGES else ENGLISH)


@contextmanager
def speaking(language: str | None) -> Iterator[None]:
    """Speak ``language`` inside the block (None: keep the current one)."""
    if language is None:
        yield
        return
    token = _current.set(language if language in LANGUAGES else ENGLISH)
    try:
        yield
    finally:
        _current.reset(token)


def catalogue_path(language: str) -> Path:
    return ROOT / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(language: str) -> NullTranslations:
    """The catalogue of ``language`` compiled in memory (English: the code's own text)."""
    if language == ENGLISH or not catalogue_path(language).exists():
        return NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    with catalogue_path(language).open("rb") as f:
        catalog = read_po(f, locale=language, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)  # fuzzy entries are left out: they say English instead
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


def say(value: Any, language: str | None = None) -> str:
    """``value`` in ``language`` (default: the current one): an engine ``Text`` is looked
    up with its parameters; any other value is returned as its string."""
    if isinstance(value, BaseException) and value.args and isinstance(value.args[0], Text):
        value = value.args[0]  # a refusal raised with a Text: RulesError(T("..."))
    if not isinstance(value, Text):
        return "" if value is None else str(value)
    lang = language or current()
    if lang == ENGLISH:
        return str(value)
    tr = translations(lang)
    if value.context is not None and value.plural is not None:
        text = tr.npgettext(value.context, value.msgid, value.plural, value.n or 0)
    elif value.context is not None:
        text = tr.pgettext(value.context, value.msgid)
    elif value.plural is not None:
        text = tr.ngettext(value.msgid, value.plural, value.n or 0)
    else:
        text = tr.gettext(value.msgid)
    if not value.params and value.n is None:
        return text
    params = {k: say(v, lang) if isinstance(v, Text) else v for k, v in value.params.items()}
    return text.format(n=value.n, **params)


def _(msgid: str, /, **params: Any) -> str:
    """``msgid`` in the current language, with its ``{placeholders}`` filled in."""
    return say(Text(msgid, **params))


def _n(singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The form for ``n`` (``{n}`` in the text) in the current language's plural rules."""
    return say(Text(singular, plural=plural, n=n, **params))


def _c(context: str, msgid: str, /, **params: Any) -> str:
    """A word whose translation depends on what it is, in the current language."""
    return say(Text(msgid, context=context, **params))
