"""``/history [user] [game]``: recent games of this channel (default) or of a player here.

The answer is ephemeral (a lookup, not news for the channel): up to ten games,
newest first, with their results, a button to page back to older ones, and a
select that answers with a game's record as a JSON file (``records.md``), byte
for byte as storage keeps it, so ``python -m engine replay`` can check the
score, and with **Replay**, which steps through the game in a private message
(``bot.features.replays``). Only games of channels the asking member can view are
listed or handed out (``bot.ui.visibility.may_see``). Components carry everything a
click needs in their custom_id, so they keep working after a restart:

* ``ct:hist:<c|u>:<channel or user id>:<game or ->:<before game id, 0 = newest>``
* ``ct:rec`` — the download select; its values are game ids
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.client import CardTableBot
from bot.storage import GameSummary, SeatResult, Store
from bot.table.tournament_secrecy import SECRET_DEALS, deals_secret
from bot.ui import answer_guard, markup, replies
from bot.ui.replay_buttons import ReplayButton
from bot.ui.visibility import may_see
from bot.ui.web_buttons import link_view
from cogs.board_texts import game_choices, game_title, where_text
from locales import _, say

log = logging.getLogger(__name__)

COG_NAME = "History"  # not for players: the cog's name, for get_cog
PAGE = 10  # games per page (a select holds at most 25 options)
SCAN_GAMES = 250  # at most this many games are read to fill one page of visible games
SCAN_BATCH = 50  # games read at a time once the first page held some the member cannot see
NAME_WIDTH = 20
LINE_LIMIT = 350  # one game's line; ten of them stay far below an embed's 4096
HISTORY_TEMPLATE = (r"ct:hist:(?P<kind>[cu]):(?P<target>\d{1,20}):(?P<game>[a-z_]{1,24}|-):"
                    r"(?P<before>\d{1,20})")
RECORD_ID = "ct:rec"


@dataclass(frozen=True)
class Query:
    """Which games a history page lists: a channel's or a user's, maybe of one game."""

    kind: str  # "c": a channel's games, "u": a player's games on this server
    target: int
    game: str | None = None

    def custom_id(self, before: int) -> str:
        custom_id = f"ct:hist:{self.kind}:{self.target}:{self.game or '-'}:{before}"
        if len(custom_id) > 100 or re.fullmatch(HISTORY_TEMPLATE, custom_id) is None:
            raise ValueError(f"bad custom_id {custom_id!r}")
        return custom_id

    async def games(self, store: Store, guild_id: int | None, before: int,
                    limit: int) -> list[GameSummary]:
        """Up to ``limit`` games older than ``before`` (0: the newest), newest first."""
        channel, user = (self.target, None) if self.kind == "c" else (None, self.target)
        return await store.history(guild_id, channel_id=channel, user_id=user, game=self.game,
                                   limit=limit, before=before or None)


def seat_text(seat: SeatResult) -> str:
    name = markup.safe_name(markup.clip(seat.name or "?", NAME_WIDTH))
    return (f"👑 **{name}** " if seat.won else f"{name} ") + f"{seat.points:+d}"


def stopped_text() -> str:
    # Translators: a game that was stopped before its end (and counts for nothing)
    return _("stopped early")


def older_label() -> str:
    # Translators: a button that shows older games of a history
    return _("Older") + " ▶"


def newest_label() -> str:
    # Translators: a button that goes back to the newest games of a history
    return "⏮ " + _("Newest")


def game_line(game: GameSummary) -> str:
    when = discord.utils.format_dt(game.ended_at, "R")  # each reader's client says it
    head = f"`#{game.game_id}` **{game_title(game.game)}** · {when} · "
    seats = " · ".join(seat_text(s) for s in game.players)
    tail = "" if game.completed else f" · *{stopped_text()}*"
    return head + markup.clip(seats, LINE_LIMIT - len(head) - len(tail)) + tail


def option_for(game: GameSummary) -> discord.SelectOption:
    # A select option's label and description are plain text (no markdown, no mention, no
    # link renders there, and an escape would show): the names go in as people typed them.
    names = ", ".join(s.name for s in game.players)
    winners = ", ".join(s.name for s in game.winners)
    # A select option shows no Discord timestamp, so the time is written out, in digits.
    ended = game.ended_at.strftime("%Y-%m-%d %H:%M UTC")
    if not game.completed:
        result = stopped_text()
    elif winners:
        # Translators: {players} are the winners' names, separated by commas
        result = _("won by {players}", players=winners)
    else:
        # Translators: a finished game that nobody won
        result = _("won by nobody")
    return discord.SelectOption(label=markup.clip(f"#{game.game_id} {game_title(game.game)} · "
                                                  f"{names}", 100),
                                description=markup.clip(f"{ended} · {result}", 100),
                                value=str(game.game_id))


def history_embed(title: str, games: list[GameSummary], before: int, older: int | None
                  ) -> discord.Embed:
    embed = discord.Embed(title=markup.clip(title, 256), colour=markup.COLOUR)
    if games:
        embed.description = "\n".join(game_line(g) for g in games)
        # Translators: `python -m engine replay FILE` is a command: keep it as it is
        embed.set_footer(text=_("Pick a game below to download its record (JSON); "
                                "python -m engine replay FILE checks every score."))
    elif older is not None:  # the scan bound was reached before a visible game
        # Translators: {button} is the label of the button that shows older games
        embed.description = _("Nothing to show in this stretch; {button} looks further back.",
                              button=older_label())
    else:
        embed.description = (_("No older games.") if before else
                             _("No games have been finished here yet."))
    return markup.fit_embed(embed)


def history_view(query: Query, games: list[GameSummary], before: int, older: int | None
                 ) -> discord.ui.View | None:
    """The download select, and buttons to the newest page and to ``older`` games."""
    view = discord.ui.View(timeout=None)
    if games:
        view.add_item(RecordSelect([option_for(g) for g in games]))
    if before:
        view.add_item(PageButton(query, 0, newest_label()))
    if older is not None:
        view.add_item(PageButton(query, older, older_label()))
    return view if view.children else None


class PageButton(discord.ui.DynamicItem[discord.ui.Button], template=HISTORY_TEMPLATE):
    def __init__(self, query: Query, before: int, label: str | None = None):
        super().__init__(discord.ui.Button(style=discord.ButtonStyle.secondary,
                                           label=label or older_label(),
                                           custom_id=query.custom_id(before)))
        self.query, self.before = query, before

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> PageButton:
        game = None if match["game"] == "-" else match["game"]
        return cls(Query(match["kind"], int(match["target"]), game), int(match["before"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = cast(CardTableBot, interaction.client).get_cog(COG_NAME)
        if isinstance(cog, History):
            await answer_guard.run_click(
                interaction, lambda: cog.page_click(interaction, self.query, self.before))


class RecordSelect(discord.ui.DynamicItem[discord.ui.Select], template=RECORD_ID):
    def __init__(self, options: list[discord.SelectOption] | None = None):
        super().__init__(discord.ui.Select(
            custom_id=RECORD_ID, placeholder=_("Download a game's record…"),
            options=options or [discord.SelectOption(label="—", value="0")]))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> RecordSelect:
        return cls(item.options if isinstance(item, discord.ui.Select) else None)

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = cast(CardTableBot, interaction.client).get_cog(COG_NAME)
        values = self.item.values
        if isinstance(cog, History):
            await answer_guard.run_click(interaction, lambda: cog.download(interaction, values))


def record_filename(game: str, game_id: int) -> str:
    return f"cardtable-{game}-{game_id}.json"


class History(commands.Cog):
    def __init__(self, bot: CardTableBot):
        self.bot = bot

    @property
    def store(self) -> Store:
        return self.bot.store

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(PageButton, RecordSelect)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(PageButton, RecordSelect)

    def records_view(self, games: list[GameSummary]) -> discord.ui.View | None:
        """The download select of ``games``, for another command's answer (``/stats
        opponent:``). Built here, by the loaded cog: ``load_extension`` runs this module
        afresh, so a ``RecordSelect`` imported elsewhere would be another class than the
        one registered, and sending it would register that one in its place."""
        if not games:
            return None
        view = discord.ui.View(timeout=None)
        view.add_item(RecordSelect([option_for(g) for g in games]))
        return view

    @app_commands.command(name="history",
                          description="Recent games here, or a player's, with their records")
    @app_commands.guild_only()
    @app_commands.describe(user="A player's games on this server (default: this channel's)",
                           game="Only this game")
    @app_commands.choices(game=game_choices())
    async def history(self, interaction: discord.Interaction, user: discord.User | None = None,
                      game: str | None = None) -> None:
        if user is not None:
            query = Query("u", user.id, game)
        else:
            query = Query("c", interaction.channel_id or 0, game)
        await self._show(interaction, query, 0, new=True)

    async def page_click(self, interaction: discord.Interaction, query: Query,
                         before: int) -> None:
        await self._show(interaction, query, before, new=False)

    async def _show(self, interaction: discord.Interaction, query: Query, before: int,
                    new: bool) -> None:
        try:
            games, older = await self.visible_page(interaction, query, before)
            title = await self._title(interaction, query)
        except Exception:
            log.exception("cannot read the history")
            await replies.reply(interaction, _("I could not read the game history just now. "
                                               "Please try again in a moment."))
            return
        embed = history_embed(title, games, before, older)
        view = history_view(query, games, before, older)
        if new:
            await replies.reply(interaction, embed=embed, view=view)
        else:
            await replies.update(interaction, embed=embed, view=view)

    async def visible_page(self, interaction: discord.Interaction, query: Query,
                           before: int) -> tuple[list[GameSummary], int | None]:
        """A page of the games the asking member may see, and where the next older page
        starts (None: no older game they may see).

        Games of channels they cannot view are left out before paging, so a page is
        still full when such games lie in between. At most SCAN_GAMES are read: past
        that the page is cut short and Older goes on from the last game read."""
        shown: list[GameSummary] = []
        cursor, read, limit = before, 0, PAGE + 1  # one more: whether older games exist
        while read < SCAN_GAMES:
            batch = await query.games(self.store, interaction.guild_id, cursor, limit)
            shown += [g for g in batch if may_see(interaction, g)]
            if len(shown) > PAGE:
                return shown[:PAGE], shown[PAGE - 1].game_id
            if len(batch) < limit:
                return shown, None
            read, cursor, limit = read + len(batch), batch[-1].game_id, SCAN_BATCH
        return shown, cursor

    async def _title(self, interaction: discord.Interaction, query: Query) -> str:
        game = game_title(query.game) if query.game else None
        if query.kind == "c":
            channel = interaction.channel
            name = getattr(channel, "name", None) if channel is not None else None
            name = markup.safe_name(name) if name else None  # a title renders markdown
            if name and game:
                return _("Recent games of {game} in #{channel}", game=game, channel=name)
            if name:
                return _("Recent games in #{channel}", channel=name)
            if game:
                return _("Recent games of {game} in this channel", game=game)
            return _("Recent games in this channel")
        user = interaction.client.get_user(query.target)
        if user is None:
            user = await interaction.client.fetch_user(query.target)
        where = where_text("server", interaction.guild)
        if game:
            # Translators: a history's title: games of {game} that {player} played
            title = _("Recent games of {game} of {player}", game=game,
                      player=markup.safe_name(user.display_name))
        else:
            title = _("Recent games of {player}", player=markup.safe_name(user.display_name))
        return title + " · " + where

    async def download(self, interaction: discord.Interaction, values: list[str]) -> None:
        """Answer with the record file, if the game was played on this server in a
        channel the member can see (a modified client may send any value)."""
        game_id = int(values[0]) if len(values) == 1 and values[0].isdigit() else 0
        try:
            summary = await self.game_here(interaction.guild_id, game_id)
            allowed = summary is not None and may_see(interaction, summary)
            secret = allowed and await deals_secret(self.store, game_id, interaction.guild_id)
            text = await self.store.game_record_json(game_id) if allowed and not secret \
                else None
        except Exception:
            log.exception("cannot read the record of game %s", game_id)
            summary, allowed, secret, text = None, False, False, None
        if secret:  # a duplicate tournament's round still deals these cards elsewhere
            await replies.reply(interaction, say(SECRET_DEALS))
            return
        if summary is not None and not allowed:
            await replies.reply(interaction, _("That game was played in a channel you cannot "
                                               "see, so I cannot give you its record."))
            return
        if summary is None or text is None:
            await replies.reply(interaction,
                                _("I cannot find that game's record on this server."))
            return
        name = record_filename(summary.game, game_id)
        # Replay steps through the game here, privately; where the web table is served,
        # a replay in the browser too, for this member alone (a single-use link).
        web = self.bot.croupier.web_links
        view = link_view(web.replay_url(interaction.user.id, game_id),
                         # Translators: a link button: step through a finished game
                         _("Replay")) if web is not None else discord.ui.View(timeout=None)
        view.add_item(ReplayButton(game_id=game_id))
        await replies.reply(
            # Translators: `python -m engine replay {file}` is a command: keep it as it is
            interaction, _("The record of game #{id} ({game}). Check every score with "
                           "`python -m engine replay {file}`.",
                           id=game_id, game=game_title(summary.game), file=name),
            file=discord.File(io.BytesIO(text.encode("utf-8")), filename=name), view=view)

    async def game_here(self, guild_id: int | None, game_id: int) -> GameSummary | None:
        """The game if it was played on this server (the newest game up to its id)."""
        found = await self.store.history(guild_id, before=game_id + 1, limit=1)
        return found[0] if found and found[0].game_id == game_id else None


async def setup(bot: CardTableBot) -> None:
    await bot.add_cog(History(bot))
