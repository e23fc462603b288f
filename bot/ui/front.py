"""The Discord front end of the bot's own play (``bot.play.front.Front``).

What the bot did by itself — its moves, a timed-out turn, a reminder, an ending —
drawn as Discord messages: deal results and the final result in the channel, the
table message, each player's hand and turn by DM (or a mention in the channel).
"""

from __future__ import annotations

import contextlib
from typing import Protocol

import discord

from bot.table.durations import describe_duration
from bot.table.manager import TableManager
from bot.table.state import Table
from bot.table.step import Outcome
from bot.ui import markup, takeover_buttons, turn_notices
from bot.ui.board import Board, save_posts
from bot.ui.game_ui import GameUI
from bot.ui.hands import Hands
from bot.ui.hint_text import note_on_result
from bot.ui.poster import DMClosed, Poster, once
from bot.ui.presenter import Presenter
from bot.ui.replay_buttons import with_replay
from bot.ui.replies import PINGS
from engine.core import action_code
from locales import _, speaking


class ResultButtons(Protocol):
    """What follows a finished game under its result (``bot.features.series``): the
    buttons (Rematch, End series) and, in a series, the next deal."""

    async def follow(self, table: Table, embed: discord.Embed) -> discord.ui.View | None: ...


class DiscordFront:
    def __init__(self, presenter: Presenter, manager: TableManager, uis: dict[str, GameUI]):
        self.presenter = presenter
        self.board: Board = presenter.board
        self.hands: Hands = presenter.hands
        self.poster: Poster = presenter.poster
        self.manager = manager
        self.uis = uis
        self.follow: ResultButtons | None = None  # set by the croupier (bot.features.series)

    async def stepped(self, outcome: Outcome) -> None:
        await self.presenter.deal_reports(outcome)
        await self.presenter.after_step(outcome.table)

    async def timed_out(self, outcome: Outcome, seat: int, action: int) -> None:
        table = outcome.table
        await self.presenter.deal_reports(outcome)
        with speaking(self.hands.language_of(table.seats[seat].user_id)):  # their DM
            note = _("⏰ Time ran out: I played {card} for you.",
                     card=markup.label(action_code(action)))
        await self.hands.retire_menu(table, seat, note=note)
        await self.presenter.after_step(table)

    async def remind(self, table: Table) -> None:
        seat = table.to_act
        if seat is None or table.turn_deadline is None:
            return
        player = table.seats[seat]
        posts = table.posts
        when = markup.relative_time(table.turn_deadline)
        link = markup.jump_url(table.guild_id, table.channel_id, posts.message_id)
        if table.hands_mode == "dm" and player.user_id not in posts.dm_closed:
            with speaking(self.hands.language_of(player.user_id)):  # a DM: theirs
                reminder = _("⏳ It is still your turn at {game} ({link}); time runs out "
                             "{when}.", game=table.title, link=link, when=when)
            with contextlib.suppress(DMClosed):
                await self.poster.dm(player.user_id, posts.dm_channels.get(player.user_id),
                                     content=reminder)
                return
        mention = f"<@{player.user_id}>"
        with speaking(table.language):  # the channel reads the table's language
            text = _("⏳ {player}, it is your turn; time runs out {when}. Your cards are "
                     "under **My hand**.", player=mention, when=when)
        # It replaces their turn notice (a fresh ping), and goes like it when the turn ends.
        await turn_notices.tell(self.poster, table, seat, text)
        await save_posts(self.manager, table)

    async def lobby_closed(self, table: Table) -> None:
        await self.board.edit(table)

    async def finished(self, table: Table) -> None:
        game = table.game
        assert game is not None
        mentions = " ".join(f"<@{s.user_id}>" for s in table.humans)
        with speaking(table.language):  # the channel reads the table's language
            embed = self.uis[table.game_id].final_embed(table, game)
            if table.hinted:
                note_on_result(embed)
            if table.seat_changes:  # who the game counted for none of
                takeover_buttons.note_on_result(embed, table)
        view = await self.follow.follow(table, embed) if self.follow is not None else None
        with speaking(table.language):  # Replay beside Rematch or End series
            view = with_replay(view, table.table_id)
        await self.poster.send(table.channel_id, table.guild_id, allowed_mentions=PINGS,
                               content=markup.content(f"🏁 {mentions}"), embed=embed,
                               nonce=once("end", table.table_id), view=view)

    async def closed(self, table: Table) -> None:
        await self.board.edit(table)

    async def stopped(self, table: Table) -> None:
        await turn_notices.withdraw(self.poster, table)  # nobody's turn any more
        await self.board.edit(table)

    async def idle_stopped(self, table: Table) -> None:
        mentions = " ".join(markup.mention(s.user_id) for s in table.humans)
        start = f"`/{self.uis[table.game_id].COMMAND} start`"
        with speaking(table.language):  # the channel reads the table's language
            text = _("⏹️ {players} Nobody moved at the {game} table for {time}, so I stopped "
                     "it. Start a new one whenever you like with {command}.",
                     players=mentions, game=table.title,
                     time=describe_duration(table.idle_limit), command=start)
        await self.poster.send(table.channel_id, table.guild_id, allowed_mentions=PINGS,
                               content=markup.content(text), nonce=once("idle", table.table_id))

    def closing(self, table_id: str) -> None:
        self.board.edits.cancel(table_id)

    async def lost(self, channel_id: int, guild_id: int | None, language: str | None) -> None:
        with speaking(language):
            text = _("⚠️ The game at this table could not be brought back after a "
                     "restart, so it was stopped. Sorry! Start a new one whenever you like.")
        await self.poster.send(channel_id, guild_id, content=markup.content(text))
