"""The public table message: drawn from the public view only, posted, edited in place.

One message per table lives in the channel. Edits that come faster than
``Timing.edit_interval`` are merged (``EditCoalescer``). While a game runs the
message is only watched: whoever is to act is told by DM or by a mention, and their
hand shows the table. So its edits are merged over ``edit_interval × watch_factor``
(at a brisk pace one edit shows several moves; a slow table is drawn at each move).
When the budget is short the pacer merges them further. A merged edit draws the
newest saved state (a snapshot the step handed over), so the last state is always
drawn; an edit that would change nothing is not sent. A message that was deleted,
or that is old enough to have scrolled away, is posted anew and the old one points
to it. Where the message is goes to the table's posts.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from typing import Any

import discord

import locales
from bot.config.settings import Timing
from bot.images.painter import Painter
from bot.images.scene import Scene
from bot.table.manager import TableManager
from bot.table.state import LOBBY, PLAYING, Table
from bot.table.timers import Clock
from bot.ui import (
    buttons,
    feature_buttons,
    lobby_controls,
    markup,
    pause_buttons,
    takeover_buttons,
    tournament_buttons,
    web_buttons,
)
from bot.ui.attachments import Picture, show
from bot.ui.game_ui import GameUI
from bot.ui.poster import EditCoalescer, Gone, Poster
from bot.ui.replies import NO_PINGS, PINGS
from locales import _

log = logging.getLogger(__name__)


class Board:
    def __init__(self, poster: Poster, manager: TableManager, uis: dict[str, GameUI],
                 timing: Timing, clock: Clock, painter: Painter):
        self.poster = poster
        self.manager = manager
        self.uis = uis
        self.timing = timing
        self.clock = clock
        self.painter = painter  # draws the pictures off the event loop
        self.web_table = False  # the web table is served: Open table and Watch offered
        self.activity = False  # ... as a Discord Activity too: Play in Discord offered
        # On the bot's clock, so tests can play a table's pace without waiting for it.
        self.edits = EditCoalescer(timing.edit_interval, self._edit_by_id, clock=clock,
                                   pacer=poster.pacer)
        self._drawn: dict[str, tuple[int, bytes]] = {}  # table → (message, what it shows)
        self._drawing: dict[str, asyncio.Lock] = {}  # one draw of a table at a time

    async def message(self, table: Table) -> dict[str, Any]:
        """Content, embed and components of the public table: from the public view only,
        in the table's language (whoever's click redraws it)."""
        with locales.speaking(table.language):
            # Every part from the table as it is now, before the one await: the picture.
            parts, scene = self._message(table)
        if scene is not None:
            picture = await self.picture(scene)
            parts["embed"] = show(parts["embed"], picture)
            parts["picture"] = picture
        return parts

    def _message(self, table: Table) -> tuple[dict[str, Any], Scene | None]:
        """The parts, and the scene of the table's picture to add to them (None: none)."""
        ui = self.uis[table.game_id]
        if table.status == LOBBY and table.tournament_id is not None:
            # A tournament's table: its players join; it starts by itself, nobody hosts.
            lobby = tournament_buttons.table_lobby_view(table.table_id, table.step)
            return {"content": None, "embed": ui.lobby_embed(table), "view": lobby}, None
        if table.status == LOBBY:
            full = len(table.seats) >= table.seat_range[1]  # as the options allow
            lobby = buttons.lobby_view(table.table_id, table.step, table.count_fits,
                                     can_add_ai=not full,
                                     can_remove_ai=len(table.humans) < len(table.seats),
                                     ai=table.ai_allowed)
            lobby = lobby_controls.add_to_lobby(lobby, table)
            if self.activity:  # the lobby can open the Activity too: who joins plays there
                web_buttons.add_web(lobby, table.table_id, ("play",))
            return {"content": None, "embed": ui.lobby_embed(table), "view": lobby}, None
        if table.game is None:  # a lobby that closed
            embed = discord.Embed(title=_("{game}: closed", game=ui.title), colour=ui.COLOUR,
                                  description="\n".join(markup.say_safe(e)
                                                         for e in table.lines)
                                  or _("Closed."))
            return {"content": None, "embed": embed, "view": None}, None
        view = table.game.public_view()
        embed = ui.table_embed(table, view)
        # The picture is drawn from the public view only (images off: none).
        scene = ui.table_scene(view, table.names) if table.images else None
        if table.status != PLAYING:
            return {"content": None, "embed": embed, "view": None}, scene
        seat = table.to_act
        turn = (_("{player} to play", player=markup.mention(table.seats[seat].user_id))
                if seat is not None and table.automation() is None and not table.paused else None)
        components = feature_buttons.add_nudge(buttons.table_view(table.table_id, table.step),
                                               table)
        pause_buttons.add_pause(components, table)  # (row 2: bot.features.pause)
        takeover_buttons.add_take_seat(components, table)  # (row 2: bot.features.takeover)
        if self.web_table:
            web_buttons.add_web(components, table.table_id,
                                ("open", "watch", "play") if self.activity else ("open", "watch"))
        return {"content": turn, "embed": embed, "view": components}, scene

    async def picture(self, scene: Scene) -> Picture | None:
        """The table's picture, drawn off the event loop; None if the drawing failed (the
        message goes without it: a move is never lost for a picture)."""
        data = await self.painter.render_or_none(scene, "table")
        return Picture("table.png", data) if data is not None else None

    async def post(self, table: Table, ping: bool = False) -> discord.Message | None:
        """A new table message (the start pings every player and names whose turn it is)."""
        kwargs = await self.message(table)
        if ping:
            players = " ".join(f"<@{s.user_id}>" for s in table.humans)
            turn = kwargs["content"]
            with locales.speaking(table.language):
                starts = _("{game} starts: {players}.", game=table.title, players=players)
            kwargs["content"] = markup.content(f"🎴 {starts}" + (f"\n{turn}." if turn else ""))
        message = await self.poster.send(table.channel_id, table.guild_id,
                                         allowed_mentions=PINGS if ping else NO_PINGS, **kwargs)
        if message is not None:
            table.posts.message_id, table.posts.message_posted_at = message.id, self.clock.now()
        return message

    async def request_edit(self, table: Table) -> None:
        """Redraw the table soon; call it once the step is saved (its state is drawn)."""
        await self.edits.request(table.table_id, self._interval(table), table.clone())

    async def edit_now(self, table: Table) -> None:
        await self.edits.now(table.table_id)

    def _interval(self, table: Table) -> float | None:
        """How far apart this table's edits may come: further while a game runs (whoever
        is to act is told by DM or a mention, and their hand shows the table)."""
        if table.status != PLAYING:
            return None
        return self.timing.edit_interval * self.timing.watch_factor

    async def _edit_by_id(self, table_id: str) -> None:
        async with self._lock(table_id):
            # (Taken under the lock: a direct edit meanwhile dropped it, and then the
            # table as it is now is drawn, not an older state after a newer one.)
            shown = self.edits.take_state(table_id)
            table = self.manager.get(table_id)
            if table is not None:
                await self._draw(table, shown if shown is not None else table, paid=True)

    async def edit(self, table: Table) -> None:
        """Edit the table message in place now (a waiting merged edit is dropped: this one
        is newer); re-post it when deleted or when it is old."""
        self.edits.cancel(table.table_id)
        async with self._lock(table.table_id):
            await self._draw(table, table, paid=False)
        if table.status not in (LOBBY, PLAYING):  # its last edit: nothing more to merge
            self.edits.forget(table.table_id)
            self._drawn.pop(table.table_id, None)
            self._drawing.pop(table.table_id, None)

    def _lock(self, table_id: str) -> asyncio.Lock:
        return self._drawing.setdefault(table_id, asyncio.Lock())

    async def _draw(self, table: Table, shown: Table, paid: bool) -> None:
        """Draw ``shown`` (the table or a saved snapshot of it) on the table's message;
        ``paid``: the pacer already gave this edit its turn."""
        posts = table.posts
        old = posts.message_id
        if old is not None and self.clock.now() - posts.message_posted_at < \
                self.timing.retire_after:
            parts = await self.message(shown)
            drawn = (old, _digest(parts))
            # (Only the board draws a running game's message; a lobby is also redrawn in
            # the answers to its clicks.)
            if paid and shown.status == PLAYING and self._drawn.get(table.table_id) == drawn:
                return  # it shows just that already
            try:
                if await self.poster.edit(table.channel_id, table.guild_id, old, paid=paid,
                                          allowed_mentions=NO_PINGS, **parts):
                    self._drawn[table.table_id] = drawn
                return
            except Gone:
                old = None  # deleted: post a new one
        self._drawn.pop(table.table_id, None)
        await self.post(shown)
        if old is not None and old != posts.message_id:  # retire the old message
            link = markup.jump_url(table.guild_id, table.channel_id, posts.message_id)
            with locales.speaking(table.language):
                moved = _("This table moved on: {link}", link=link)
            with contextlib.suppress(Gone):
                await self.poster.edit(table.channel_id, table.guild_id, old, embed=None,
                                       view=None, picture=None, content=moved)
        if posts.message_id != old and self.manager.is_live(table):
            await save_posts(self.manager, table)


def _digest(parts: dict[str, Any]) -> bytes:
    """What a message's parts show, in a few bytes: the same twice means no change."""
    embed, view, picture = parts.get("embed"), parts.get("view"), parts.get("picture")
    shown = repr((parts.get("content"), embed.to_dict() if embed is not None else None,
                  view.to_components() if view is not None else None))
    digest = hashlib.blake2b(shown.encode(), digest_size=16)
    if picture is not None:
        digest.update(picture.data)
    return digest.digest()


async def save_posts(manager: TableManager, table: Table) -> None:
    """Remember where the table's messages are; a failure costs a re-post, never a move."""
    try:
        await manager.save_posts(table)
    except Exception:
        log.exception("cannot save the posts of table %s", table.table_id)
