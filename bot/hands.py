"""A player's hand: drawn from that seat's view only, sent by DM or shown ephemerally.

Each player has at most one DM with a live menu per table (``Posts.hand_messages``);
when they move another way, that menu is taken off. A player whose DMs are
closed is told once, in the channel, that their hand is under **My hand**.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import locales
from bot import images, render, views
from bot.attachments import Picture, show
from bot.games import GameUI
from bot.posting import DMClosed, Gone, Poster
from bot.replies import PINGS
from bot.tables import Table
from locales import _


class Hands:
    def __init__(self, poster: Poster, uis: dict[str, GameUI],
                 language_of: Callable[[int], str] = lambda user_id: locales.ENGLISH):
        self.poster = poster
        self.uis = uis
        self.language_of = language_of  # what each user reads (bot.languages.Readers.of)

    def parts(self, table: Table, seat: int, menu: bool = True) -> dict[str, Any]:
        """The embed and menu of one player's hand: only ever sent to that player, and
        in their language."""
        with locales.speaking(self.language_of(table.seats[seat].user_id)):
            return self._parts(table, seat, menu)

    def _parts(self, table: Table, seat: int, menu: bool) -> dict[str, Any]:
        assert table.game is not None
        seat_view = table.game.seat_view(seat)
        if table.automation() is not None:
            seat_view = {**seat_view, "legal": []}  # the bot is about to move: no menu
        ui = self.uis[table.game_id]
        link = render.jump_url(table.guild_id, table.channel_id, table.posts.message_id)
        embed = ui.hand_embed(table, seat_view, seat, link)
        view = views.hand_view(table.table_id, table.step, seat_view.get("legal") or []) \
            if menu else None
        if not table.images:
            return {"embed": embed, "view": view}
        # Drawn from this seat's view only, like the text; "legal" is empty while the bot
        # is about to move, so no card is marked playable then.
        picture = Picture("hand.png", images.render(ui.hand_scene(seat_view, table.names,
                                                                  seat)))
        return {"embed": show(embed, picture), "view": view, "picture": picture}

    async def send(self, table: Table, seat: int) -> None:
        """DM a player their hand (with the menu when it is their turn)."""
        player, posts = table.seats[seat], table.posts
        user = player.user_id
        if table.hands != "dm" or user in posts.dm_closed or player.away or player.is_ai:
            return
        try:
            message = await self.poster.dm(user, posts.dm_channels.get(user),
                                           **self.parts(table, seat))
        except DMClosed:
            posts.dm_closed.add(user)
            await self._announce_closed_dms(table, seat)
            return
        if message is not None:
            posts.dm_channels[user] = message.channel.id
            posts.hand_messages[user] = message.id

    async def send_all(self, table: Table) -> None:
        for seat in range(len(table.seats)):
            await self.send(table, seat)

    async def retire_menu(self, table: Table, seat: int, note: str | None = None) -> None:
        """Take the menu off a player's last hand DM (the move was made another way)."""
        user, posts = table.seats[seat].user_id, table.posts
        message_id, channel_id = posts.hand_messages.pop(user, None), posts.dm_channels.get(user)
        if message_id is None or channel_id is None:
            return
        with contextlib.suppress(Gone):
            await self.poster.edit(channel_id, None, message_id, content=note,
                                   **self.parts(table, seat, menu=False))

    async def _announce_closed_dms(self, table: Table, seat: int) -> None:
        """Said once per player and table: where their hand is instead."""
        player = table.seats[seat]
        with locales.speaking(table.language):
            notice = _("{player}, I cannot send you DMs, so your hand is under the table's "
                       "**My hand** button (only you see it). The game goes on as usual.",
                       player=render.mention(player.user_id))
        await self.poster.send(table.channel_id, table.guild_id, allowed_mentions=PINGS,
                               content=render.content(f"📪 {notice}"))
