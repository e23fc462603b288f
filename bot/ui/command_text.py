"""The slash commands in the reader's language: Discord shows each client its own.

discord.py hands every description, option description and choice name of the
command tree to the tree's ``Translator`` once per Discord locale when it syncs;
``CatalogueTranslator`` answers from the gettext catalogues (looked up by the
English text). Names stay English: players type ``/jazz start`` whatever their
language, and the help texts tell them what it does.

``tree_strings`` lists those English texts so that ``python -m locales`` puts
them in the catalogues: any text a command gains is extracted without anyone
having to mark it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

import locales
from engine.text import Text

TRANSLATED = (Where.command_description, Where.group_description,
              Where.parameter_description, Where.choice_name)
LIMIT = 100  # Discord: descriptions and choice names


class CatalogueTranslator(app_commands.Translator):
    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContext[Any, Any]) -> str | None:
        language = locales.language_of(locale)
        if language == locales.ENGLISH or context.location not in TRANSLATED:
            return None
        if locale.value not in locales.DISCORD_LOCALES.get(language, ()):
            return None  # e.g. sv-SE only: other locales of a language get English
        message = string.message
        if isinstance(message, Text):  # marked in the code, with its parameters
            text = locales.say(message, language)
        else:  # found in the tree by bot.catalogues: looked up by its English
            text = locales.translations(language).gettext(message)
        return text[:LIMIT] if text and text != message else None


def tree_strings(tree: app_commands.CommandTree[Any]) -> Iterator[tuple[str, str]]:
    """(English text, where it is) for every translated text of the tree's commands."""
    def walk(item: Any, path: str) -> Iterator[tuple[str, str]]:
        description = getattr(item, "description", None)
        if description and getattr(item, "_default_description", False) is not True:
            yield str(description), f"/{path}"
        if isinstance(item, app_commands.Group):
            for child in item.commands:
                yield from walk(child, f"{path} {child.name}")
        elif isinstance(item, app_commands.Command):
            for param in item.parameters:
                if not isinstance(param.description, Text):
                    yield str(param.description), f"/{path} {param.name}"
                for choice in param.choices:
                    if not isinstance(choice.name, Text):
                        yield str(choice.name), f"/{path} {param.name}"
    for command in tree.get_commands():
        if isinstance(command, app_commands.Command | app_commands.Group):
            yield from walk(command, command.name)
