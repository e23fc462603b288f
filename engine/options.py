"""A game's options: a frozen dataclass of typed fields with the rules file's defaults.

``option(...)`` declares a field with its help, its label for people, its
choices and bounds; ``Options.from_dict`` reads options from plain data, strictly
typed as ``records.md`` requires, refusing (``OptionError``) what does not fit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self

from engine.errors import OptionError
from engine.text import T


def option(default: Any, help: str, *, label: str | None = None,
           choices: tuple[str, ...] | Mapping[str, str] = (), minimum: int | None = None,
           maximum: int | None = None, suggested: tuple[int, ...] = ()) -> Any:
    """A field of a game's options dataclass, with what a table needs to offer it.

    ``help`` is the option's description and ``label`` its short name ("Sevens bonus"),
    both for people: ``Text``s (``T("...")``), kept as they are in the field's
    ``metadata``. ``choices`` are codes, as typed and recorded; given as a mapping, each
    code has its words for people (``{"simple": T("most tricks")}``, in
    ``metadata["choice_labels"]``). A number's ``minimum``/``maximum`` bound it; its
    ``suggested`` values are the ones a menu offers."""
    labels = dict(choices) if isinstance(choices, Mapping) else {}
    meta = {"help": help, "label": label, "choices": tuple(choices), "choice_labels": labels,
            "minimum": minimum, "maximum": maximum, "suggested": suggested}
    return field(default=default, metadata=meta)


def option_label(f: dataclasses.Field) -> str:
    """An option's short name for people (a ``Text``), its code when it has none."""
    label = f.metadata.get("label")
    return label if label else f.name


def choice_label(f: dataclasses.Field, value: str) -> str:
    """A choice's words for people (a ``Text``), the code itself when it has none."""
    return (f.metadata.get("choice_labels") or {}).get(value, value)


@dataclass(frozen=True)
class Options:
    """Base of every game's options: a frozen dataclass with the rules file's defaults.

    Subclasses declare their fields with ``option(...)`` and may override
    ``check_players`` for options that depend on the number of players.
    """

    @classmethod
    def from_dict(cls, raw: dict[str, Any] | None, players: int | None = None, *,
                  bounded: bool = True) -> Self:
        """Options from plain data, strictly typed as ``records.md`` requires. ``bounded``
        False skips the numbers' minimum and maximum: options saved before the bounds
        were declared (a table's snapshot) still load."""
        raw = dict(raw or {})
        known = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for name, value in raw.items():
            f = known.get(name)
            if f is None:
                raise OptionError(T("There is no option called {name}.", name=repr(name)))
            values[name] = _checked_value(f, value, bounded)
        made = cls(**values)
        if players is not None:
            made.check_players(players)
        return made

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def check_players(self, players: int) -> None:
        """Refuse options that do not fit this many players (none by default)."""


def _checked_value(f: dataclasses.Field, value: Any, bounded: bool = True) -> Any:
    meta = f.metadata if bounded else {**f.metadata, "minimum": None, "maximum": None}
    kind = type(f.default)
    name = repr(f.name)  # an option's name is a code: 'target'
    if kind is bool:
        if not isinstance(value, bool):
            raise OptionError(T("The option {name} must be true or false.", name=name))
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionError(T("The option {name} must be a whole number.", name=name))
        if meta.get("minimum") is not None and value < meta["minimum"]:
            raise OptionError(T("The option {name} must be at least {minimum}.", name=name,
                                minimum=meta["minimum"]))
        if meta.get("maximum") is not None and value > meta["maximum"]:
            raise OptionError(T("The option {name} must be at most {maximum}.", name=name,
                                maximum=meta["maximum"]))
        return value
    if kind is str:
        if not isinstance(value, str) or (meta.get("choices") and value not in meta["choices"]):
            names = ", ".join(meta.get("choices") or ())
            # Translators: {choices} are the option's values as typed (codes, not translated).
            raise OptionError(T("The option {name} must be one of: {choices}.", name=name,
                                choices=names))
        return value
    raise OptionError(T("The option {name} cannot be set.", name=name))
