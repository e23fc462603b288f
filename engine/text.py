"""Sentences for people that a front end can say in its reader's language.

The engine speaks English, but each sentence it makes for people (a refusal,
an option's description) is a ``Text``: a ``str`` holding the English, which
also carries its catalogue id and its parameters. A front end that speaks other
languages looks the id up in its catalogue (``locales``) and fills in the
parameters there; one that does not simply prints the string. Nothing here
reads a catalogue: the engine does no I/O.

``T`` marks a sentence, ``TN`` a sentence with plural forms, ``TC`` one whose
id needs a context (a rank letter, a suit name): the catalogue tools extract
all three. Placeholders are ``str.format`` names, ``{card}``; a parameter may
itself be a ``Text`` (a card's name inside a refusal) and is translated too.
"""

from __future__ import annotations

from typing import Any


class Text(str):
    """English text with what a translator needs to say it again in another language."""

    msgid: str
    plural: str | None
    n: int | None
    context: str | None
    params: dict[str, Any]

    def __new__(cls, msgid: str, /, *, plural: str | None = None, n: int | None = None,
                context: str | None = None, **params: Any) -> Text:
        english = msgid if plural is None or n == 1 else plural
        obj = super().__new__(cls, english.format(n=n, **params) if (params or n is not None)
                              else english)
        obj.msgid, obj.plural, obj.n, obj.context = msgid, plural, n, context
        obj.params = params
        return obj

    def filled(self, **params: Any) -> Text:
        """The same sentence with these parameters (a table of sentences written once
        with ``T``, filled in where used)."""
        return Text(self.msgid, plural=self.plural, n=self.n, context=self.context,
                    **{**self.params, **params})

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.to_data(),))

    def to_data(self) -> dict[str, Any]:
        """Plain JSON data (kept in a table's snapshot) that ``from_data`` reads back."""
        data: dict[str, Any] = {"id": self.msgid,
                                "params": {k: _param_data(v) for k, v in self.params.items()}}
        if self.plural is not None:
            data["plural"], data["n"] = self.plural, self.n
        if self.context is not None:
            data["context"] = self.context
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any] | str) -> Text:
        """A ``Text`` from ``to_data``'s output; a plain string (an old snapshot) is kept
        as it is, untranslated."""
        if isinstance(data, str):
            return cls("{line}", line=data)  # "{line}" has no translation: said as it is
        params = {k: _param_value(v) for k, v in data.get("params", {}).items()}
        return cls(data["id"], plural=data.get("plural"), n=data.get("n"),
                   context=data.get("context"), **params)


def _param_data(value: Any) -> Any:
    return {"text": value.to_data()} if isinstance(value, Text) else value


def _param_value(value: Any) -> Any:
    if isinstance(value, dict) and "text" in value:
        return Text.from_data(value["text"])
    return value


def _rebuild(data: dict[str, Any]) -> Text:
    return Text.from_data(data)


def T(msgid: str, /, **params: Any) -> Text:
    """A sentence for people, with ``{name}`` placeholders filled from ``params``."""
    return Text(msgid, **params)


def TN(singular: str, plural: str, n: int, /, **params: Any) -> Text:
    """A sentence whose form depends on the number ``n`` (``{n}`` in the text)."""
    return Text(singular, plural=plural, n=n, **params)


def TC(context: str, msgid: str, /, **params: Any) -> Text:
    """A word whose translation depends on what it is (``TC("rank", "J")``)."""
    return Text(msgid, context=context, **params)
