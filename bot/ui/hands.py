"""A player's hand: drawn from that seat's view only, sent by DM or shown ephemerally.

Each player has at most one DM with a live menu per table (``Posts.hand_messages``).
A hand DM is how a player learns it is their turn: each turn's hand comes as a
new DM (a new message notifies; an edit would not). Once they moved, that DM is
collapsed to one line ("You played 10♥. · Jazz · deal 2 of 6"), with no menu and no
picture, in the answer to their click — so their DMs hold one live hand and a
column of one-line moves. A menu left elsewhere (they moved from **My hand**, the
timer played for them) is collapsed the same way. A player whose DMs are closed
is told once, in the channel, that their hand is under **My hand**, and each of
their turns by a mention there (``bot.ui.turn_notices``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import locales
from bot.images.painter import Painter
from bot.images.scene import Scene
from bot.table.hint_rules import offered
from bot.table.state import Table
from bot.ui import buttons, custom_ids, markup, turn_notices, web_buttons
from bot.ui.attachments import Picture, show
from bot.ui.game_ui import GameUI
from bot.ui.poster import DMClosed, Gone, Poster
from bot.ui.replies import PINGS
from engine.core import action_code, action_label
from engine.text import T, Text
from locales import _, say

# What a hand DM says once its move is made (said in its reader's language).
YOUR_MOVES: dict[str | None, Text] = {
    "pass": T("You passed."),
    "stop": T("You stopped the round."),
    "take": T("You took the open card."),
    "stand": T("You stood."),
    None: T("You played {card}."),
}


class Hands:
    def __init__(self, poster: Poster, uis: dict[str, GameUI], painter: Painter,
                 language_of: Callable[[int], str] = lambda user_id: locales.ENGLISH):
        self.poster = poster
        self.uis = uis
        self.painter = painter  # draws the pictures off the event loop
        self.language_of = language_of  # what each user reads (bot.ui.languages.Readers.of)
        self.web_table = False  # the web table is served: Open table on the hand

    async def parts(self, table: Table, seat: int, menu: bool = True) -> dict[str, Any]:
        """The embed and menu of one player's hand: only ever sent to that player, and
        in their language."""
        with locales.speaking(self.language_of(table.seats[seat].user_id)):
            # Every part from the table as it is now, before the one await: the picture.
            parts, scene = self._parts(table, seat, menu)
        if scene is None:
            return parts
        data = await self.painter.render_or_none(scene, "hand")
        # A drawing that failed: the hand goes without its picture, never not at all.
        picture = Picture("hand.png", data) if data is not None else None
        return {**parts, "embed": show(parts["embed"], picture), "picture": picture}

    def _parts(self, table: Table, seat: int, menu: bool
               ) -> tuple[dict[str, Any], Scene | None]:
        """The parts, and the scene of the hand's picture to add to them (None: none)."""
        assert table.game is not None
        seat_view = table.game.seat_view(seat)
        if table.automation() is not None:
            seat_view = {**seat_view, "legal": []}  # the bot is about to move: no menu
        ui = self.uis[table.game_id]
        link = markup.jump_url(table.guild_id, table.channel_id, table.posts.message_id)
        embed = ui.hand_embed(table, seat_view, seat, link)
        view = buttons.hand_view(table.table_id, table.step, seat_view.get("legal") or [],
                               hint=offered(table, seat)) if menu else None
        if view is not None and self.web_table:
            web_buttons.add_web(view, table.table_id, ("open",))
        if not table.images:
            return {"embed": embed, "view": view}, None
        # Drawn from this seat's view only, like the text; "legal" is empty while the bot
        # is about to move, so no card is marked playable then.
        return {"embed": embed, "view": view}, ui.hand_scene(seat_view, table.names, seat)

    def move_line(self, table: Table, seat: int, action: int) -> str:
        """One line for the player's own move, in their language: what they played, the
        game and the deal ("You played 10♥. · Jazz · deal 2 of 6: Clubs")."""
        assert table.game is not None
        with locales.speaking(self.language_of(table.seats[seat].user_id)):
            code = action_code(action)
            line = YOUR_MOVES.get(code, YOUR_MOVES[None]).filled(card=action_label(action))
            heading = self.uis[table.game_id].heading(table.game.seat_view(seat))
            return f"{say(line)} · {table.title} · {heading}"

    @staticmethod
    def collapsed(line: str) -> dict[str, Any]:
        """A hand message's parts once its move was made: the one line, no embed, no menu
        and no picture (an edit's parts: they replace everything the message showed)."""
        return {"content": markup.content(line), "embed": None, "view": None,
                "attachments": []}

    async def send(self, table: Table, seat: int) -> bool:
        """DM a player their hand (with the menu when it is their turn). True if they were
        told just now: the DM went, or they heard in the channel that their DMs are closed."""
        player, posts = table.seats[seat], table.posts
        user = player.user_id
        if table.hands_mode != "dm" or user in posts.dm_closed or player.away or player.is_ai:
            return False
        try:
            message = await self.poster.dm(user, posts.dm_channels.get(user),
                                           **await self.parts(table, seat))
        except DMClosed:
            posts.dm_closed.add(user)
            await self._announce_closed_dms(table, seat)
            return True
        if message is None:
            return False
        posts.dm_channels[user] = message.channel.id
        posts.hand_messages[user] = message.id
        return True

    async def tell_turn(self, table: Table, seat: int, renew: bool = True) -> int | None:
        """It is the seat's turn: their hand by DM, or else a mention in the channel
        (``bot.ui.turn_notices``). The notice's message id if one was posted. ``renew`` False
        (a restart): a hand DM or a notice of this turn that they still have is kept, not
        sent again."""
        player = table.seats[seat]
        if not renew and await self.shows_this_turn(table, seat):
            return None  # (after a restart) the DM of this turn went out: no second one
        if await self.send(table, seat) or player.is_ai or player.away:
            return None  # told by DM (or nobody to tell): a DM that failed gets a mention
        kept = table.posts.turn_notices.get(player.user_id)
        if kept is not None and not renew:
            return kept
        return await turn_notices.tell(self.poster, table, seat)

    async def shows_this_turn(self, table: Table, seat: int) -> bool:
        """Whether the player's recorded hand DM holds the menu of the table's step now."""
        user, posts = table.seats[seat].user_id, table.posts
        message_id, channel_id = posts.hand_messages.get(user), posts.dm_channels.get(user)
        if message_id is None or channel_id is None:
            return False
        message = await self.poster.fetch(channel_id, None, message_id)
        if message is None:
            return False
        drawn = [custom_ids.parse(getattr(item, "custom_id", None) or "")
                 for row in message.components for item in getattr(row, "children", ())]
        return any(c is not None and c.kind in ("play", "act") and c.table_id == table.table_id
                   and c.version == table.step for c in drawn)

    async def send_all(self, table: Table, tell_first: bool = True) -> None:
        """Everybody's hand at the start of a game; the first to act is told it is their
        turn (``tell_first`` False: the table message that starts the game pinged them)."""
        to_act = table.to_act if table.automation() is None else None
        for seat in range(len(table.seats)):
            if seat == to_act and tell_first:
                await self.tell_turn(table, seat)
            else:
                await self.send(table, seat)

    async def retire_menu(self, table: Table, seat: int, note: str | None = None) -> None:
        """Take the menu off a player's last hand DM (the move was made another way): a
        ``note`` (one line) replaces the whole message; without one, the hand stays."""
        user, posts = table.seats[seat].user_id, table.posts
        message_id, channel_id = posts.hand_messages.pop(user, None), posts.dm_channels.get(user)
        if message_id is None or channel_id is None:
            return
        parts = (self.collapsed(note) if note is not None
                 else {"content": None, **await self.parts(table, seat, menu=False)})
        with contextlib.suppress(Gone):
            await self.poster.edit(channel_id, None, message_id, **parts)

    async def _announce_closed_dms(self, table: Table, seat: int) -> None:
        """Said once per player and table: where their hand is instead."""
        player = table.seats[seat]
        with locales.speaking(table.language):
            notice = _("{player}, I cannot send you DMs, so your hand is under the table's "
                       "**My hand** button (only you see it). The game goes on as usual.",
                       player=markup.mention(player.user_id))
        await self.poster.send(table.channel_id, table.guild_id, allowed_mentions=PINGS,
                               content=markup.content(f"📪 {notice}"))
