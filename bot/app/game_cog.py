"""The slash-command group every game shares: ``/<game> start|join|leave|hand|stop|rules|status``.

``start`` is built from the engine's ``OPTIONS`` dataclass: every option
becomes a command option with its type, choices, minimum/maximum and its help
text as the description, so a new option in an engine needs no Discord code.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from typing import Any, Literal, Optional

import discord
from discord import app_commands
from discord.ext import commands

import locales
from bot.actions.commands import Commands
from bot.actions.table_setup import Invitation
from bot.app.client import CardTableBot
from bot.table.durations import DurationError, parse_duration
from bot.table.state import HANDS_MODES
from bot.ui import markup, replies
from bot.ui.game_ui import GameUI
from engine.registry import available_games
from engine.text import T

log = logging.getLogger(__name__)

DESCRIPTION_LIMIT = 100


def option_annotation(f: dataclasses.Field) -> Any:
    """The app-command type of one engine option (Optional: unset means the default)."""
    meta = f.metadata
    kind = type(f.default)
    if kind is bool:
        return Optional[bool]  # noqa: UP045 (discord.py reads typing.Optional at runtime)
    if kind is int:
        low, high = meta.get("minimum"), meta.get("maximum")
        if low is None and high is None:
            return Optional[int]  # noqa: UP045
        return Optional[app_commands.Range[int, low, high]]  # noqa: UP045
    if kind is str and meta.get("choices"):
        return Optional[Literal[tuple(meta["choices"])]]  # noqa: UP045
    if kind is str:
        return Optional[str]  # noqa: UP045
    raise TypeError(f"option {f.name} has a type a slash command cannot offer")


def option_description(f: dataclasses.Field) -> str:
    default = f.default
    shown = ("on" if default else "off") if isinstance(default, bool) else str(default)
    help_text = (f.metadata.get("help") or f.name).strip().rstrip(".")
    return markup.clip(f"{help_text} (default {shown})", DESCRIPTION_LIMIT)


TABLE_OPTIONS = {
    "hands": (Optional[Literal[HANDS_MODES]],  # noqa: UP045
              T("dm: your hand by DM (default); channel: only under the table's My hand "
                "button")),
    "images": (Optional[bool],  # noqa: UP045
               T("Pictures of the table and of your hand beside the text (default on)")),
    # Typed as words (bot.table.durations): off, 90 (minutes), 30m, 2h, 1d; 1 minute to 14 days.
    "turn_timer": (Optional[str],  # noqa: UP045
                   T("Time for a move before the bot plays: off, 90 (minutes), 30m, 2h, 1d "
                     "(default 5m, or the server's)")),
    "language": (Optional[str],  # noqa: UP045  (its choices: locales.LANGUAGES)
                 T("The language of the table and its notices (default: the server's)")),
    # Bringing people (bot.features.gathering): a scheduled start, kept seats.
    "at": (Optional[str],  # noqa: UP045
           T("Start later, as a server event: 20:30, tomorrow 20:30, fri 20:30, "
             "2026-12-05 20:30")),
    "timezone": (Optional[str],  # noqa: UP045
                 T("Your time zone for the at option, such as Europe/Stockholm (default: "
                   "the server's, else UTC)")),
    "fill": (Optional[bool],  # noqa: UP045
             T("At the start time, fill empty seats with AI players (default off)")),
    "players": (Optional[str],  # noqa: UP045
                T("Keep seats for these members: mention them (@Bob @Carol)")),
    "invite_only": (Optional[bool],  # noqa: UP045
                    T("Only the members you invite may join (default off)")),
}
INVITATION = ("at", "timezone", "fill", "players", "invite_only")
# Each language by its own name: a Swede looks for "Svenska", not for "Swedish".
LANGUAGE_CHOICES = [app_commands.Choice(name=locales.NAMES[code], value=code)
                    for code in locales.LANGUAGES]


class GameCog(commands.Cog):
    """One game's command group; the subclass (in cogs/) only supplies ``UI``."""

    UI: type[GameUI]

    def __init__(self, bot: CardTableBot):
        self.bot = bot
        self.ui = self.UI()
        self.group = app_commands.Group(name=self.ui.COMMAND, guild_only=True,
                                        description=T("Play {game}", game=self.ui.title))
        self.group.add_command(self._start_command())
        for name, description, callback in (
            ("join", T("Take a seat at the table in this channel"), self.join),
            ("leave", T("Leave the table in this channel"), self.leave),
            ("hand", T("Show your hand again (only you see it)"), self.hand),
            ("stop", T("Stop the table (the host, or anyone who may manage messages)"),
             self.stop),
            ("rules", T("A short summary of the rules of {game}", game=self.ui.title),
             self.rules),
            ("status", T("What the table in this channel is doing"), self.status),
        ):
            self.group.add_command(app_commands.Command(name=name, description=description,
                                                        callback=callback))
        invite: app_commands.Command[Any, Any, None] = app_commands.Command(
            name="invite", callback=self.invite,
            description=T("The host keeps a seat at the lobby in this channel for a member"))
        self.group.add_command(invite)

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.group)
        self.bot.game_uis[self.ui.GAME_ID] = self.ui

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.group.name)
        self.bot.game_uis.pop(self.ui.GAME_ID, None)

    @property
    def commands(self) -> Commands:
        return self.bot.croupier.commands

    def _start_command(self) -> app_commands.Command:
        ui = self.ui
        fields = dataclasses.fields(ui.ENGINE.OPTIONS)
        params = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=discord.Interaction)]
        descriptions: dict[str, str] = {}
        for f in fields:
            params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                                            default=None, annotation=option_annotation(f)))
            descriptions[f.name] = option_description(f)
        for name, (annotation, description) in TABLE_OPTIONS.items():
            params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                            annotation=annotation))
            descriptions[name] = description
        engine_options = {f.name for f in fields}

        async def start(interaction: discord.Interaction, **chosen: Any) -> None:
            options = {k: v for k, v in chosen.items() if k in engine_options and v is not None}
            typed = chosen.get("turn_timer")
            try:  # seconds, 0 = off; None: not given (the server's default applies)
                timer = parse_duration(typed) if typed is not None else None
            except DurationError as error:
                # (it quotes what they typed: escaped like a name)
                await replies.reply(interaction, markup.say_safe(error, typed=("value",)))
                return
            invitation = Invitation(**{k: v for k, v in chosen.items()
                                       if k in INVITATION and v is not None})
            await self.commands.open_table(interaction, ui, options, chosen.get("hands"),
                                           timer, chosen.get("images"),
                                           chosen.get("language"), invitation)

        start.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        # Described on the callback, before the Command exists: the Command then makes
        # every description a locale_str, which the tree's translator localizes.
        callback = app_commands.choices(language=LANGUAGE_CHOICES)(
            app_commands.describe(**descriptions)(start))
        return app_commands.Command(
            name="start", callback=callback,
            description=T("Open a {game} table in this channel", game=ui.title))

    async def join(self, interaction: discord.Interaction) -> None:
        await self.commands.lobby_command(interaction, self.ui, "join")

    async def leave(self, interaction: discord.Interaction) -> None:
        await self.commands.lobby_command(interaction, self.ui, "leave")

    @app_commands.describe(player=T("The member to keep a seat for"),
                           another=T("Another member"), third=T("A third member"))
    async def invite(self, interaction: discord.Interaction, player: discord.Member,
                     another: discord.Member | None = None,
                     third: discord.Member | None = None) -> None:
        members = [m for m in (player, another, third) if m is not None]
        await self.commands.invite_command(interaction, self.ui, members)

    async def hand(self, interaction: discord.Interaction) -> None:
        await self.commands.hand_command(interaction, self.ui)

    async def stop(self, interaction: discord.Interaction) -> None:
        await self.commands.stop_command(interaction, self.ui)

    async def rules(self, interaction: discord.Interaction) -> None:
        await self.commands.rules_command(interaction, self.ui)

    async def status(self, interaction: discord.Interaction) -> None:
        await self.commands.status_command(interaction, self.ui)


async def add_game_cog(bot: CardTableBot, cog_class: type[GameCog]) -> None:
    """An extension's ``setup``: add the cog only if its engine is present in this build."""
    game_id = cog_class.UI.GAME_ID
    if game_id not in available_games():
        log.warning("the %s engine is not available: its commands are not loaded", game_id)
        return
    await bot.add_cog(cog_class(bot))
