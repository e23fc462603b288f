"""Telling a player in the channel that it is their turn, and taking it back when it is over.

A player whose hand comes by DM is told by that DM (``bot.ui.hands``). Anyone else —
hands under **My hand** (``hands_mode="channel"``), closed DMs, a DM that did not go
through — gets one short message in the table's channel that mentions them, in
the table's language. It is deleted as soon as their turn ends, however it ends
(they moved, the timer played for them, they went away, the game ended or was
stopped), so the channel never fills with stale pings. A reminder or a nudge
replaces it with a fresh message (a new ping), which is deleted the same way.

Which message is whose is kept in ``Posts.turn_notices`` (saved apart from the
snapshot, ``Store.save_posts``), so a notice still goes after a restart. Nothing
public here shows a card: the messages only name the player and the game.
"""

from __future__ import annotations

from bot.table.state import Table
from bot.ui import markup
from bot.ui.poster import Poster
from bot.ui.replies import PINGS
from locales import _, speaking


def needs_mention(table: Table, seat: int) -> bool:
    """Whether the seat's turn is told in the channel rather than by DM: a person who
    plays their own seat and gets no hand by DM (hands in the channel, closed DMs)."""
    player = table.seats[seat]
    return (not player.is_ai and not player.away
            and (table.hands_mode != "dm" or player.user_id in table.posts.dm_closed))


def your_turn_text(table: Table, seat: int) -> str:
    """The notice of a turn, in the table's language."""
    with speaking(table.language):  # the channel reads the table's language
        # Translators: a message in the channel; **My hand** is the table's button
        return _("{player}, it is your turn at {game}: press **My hand**.",
                 player=markup.mention(table.seats[seat].user_id), game=table.title)


async def tell(poster: Poster, table: Table, seat: int, text: str | None = None) -> int | None:
    """Post the seat's notice (``text``, already in the table's language; by default
    ``your_turn_text``), replacing one they still have; its message id, or None if it
    could not be posted. The caller saves the posts."""
    user = table.seats[seat].user_id
    message = await poster.send(table.channel_id, table.guild_id, allowed_mentions=PINGS,
                                content=markup.content(text or your_turn_text(table, seat)))
    old = table.posts.turn_notices.pop(user, None)
    if message is not None:
        table.posts.turn_notices[user] = message.id
    if old is not None:
        await _delete(poster, table, user, old)
    return message.id if message is not None else None


async def withdraw(poster: Poster, table: Table, keep: int | None = None) -> None:
    """Delete every notice of the table but the message ``keep`` (one just posted): the
    turns they told of are over. The caller saves the posts."""
    for user, message_id in list(table.posts.turn_notices.items()):
        if message_id != keep:
            del table.posts.turn_notices[user]
            await _delete(poster, table, user, message_id)


async def _delete(poster: Poster, table: Table, user: int, message_id: int) -> None:
    if not await poster.delete(table.channel_id, table.guild_id, message_id):
        # Not deleted (Discord refused for now): kept, so the next step tries again.
        table.posts.turn_notices.setdefault(user, message_id)
