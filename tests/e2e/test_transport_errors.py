"""A request to Discord that never gets an answer (a dropped connection, a timeout)
after a move was saved: the player is not told "nothing was changed", the game goes on."""

from __future__ import annotations

import random

import aiohttp

from testkit.harness import choose, idle, table_message
from testkit.tables import dm_menu, player_to_act


def drop_dms_to(bot, user_ids: set[int], dropped: list[str]) -> None:
    """The bot's next DM to one of ``user_ids`` gets no answer: the connection drops."""
    http = bot.http
    real = http.request
    dm_channels: set[int] = set()

    async def request(route, **kwargs):
        if route.method == "POST" and route.path == "/users/@me/channels":
            payload = kwargs.get("json") or {}
            if int(payload.get("recipient_id", 0)) in user_ids:
                data = await real(route, **kwargs)
                dm_channels.add(int(data["id"]))
                return data
        if (route.method == "POST" and route.path == "/channels/{channel_id}/messages"
                and int(route.channel_id or 0) in dm_channels and not dropped):
            dropped.append(route.path)
            raise aiohttp.ServerDisconnectedError()
        return await real(route, **kwargs)

    http.request = request  # the client's own HTTP layer: everything above it is real


async def test_a_dropped_connection_after_a_saved_move_neither_unsays_it_nor_stops_the_game(
        fake, users, general, jazz_game):
    bot = jazz_game
    await idle(bot)
    mover = player_to_act(fake, bot, general, users)
    table = bot.croupier.manager.in_channel(general.id)
    assert table is not None
    step = table.step
    following = [u for u in users if u is not mover]
    # The hands of the others are known already; a fresh DM channel is opened to nobody,
    # so drop the next DM the bot sends to anyone but the mover.
    for user in following:
        bot.croupier.poster.client._connection._private_channels_by_user.pop(user.id, None)
        table.posts.dm_channels.pop(user.id, None)
    dropped: list[str] = []
    drop_dms_to(bot, {u.id for u in following}, dropped)
    message, _ = dm_menu(fake, mover)
    ix = await choose(fake, mover, message, random.Random(1))
    await ix.wait_answered()
    await idle(bot)
    assert dropped, "the next player's DM was sent and its connection dropped"
    assert ix.response.type == 7  # the move's own answer: the clicked hand updated
    said = " ".join(m.text() for m in [*fake.messages(mover), *ix.followups])
    assert "nothing was changed" not in said.lower()
    assert table.step > step  # saved: the table moved on
    # The next player is told where their hand is (a mention: their DM did not arrive),
    # and the table names them; the game goes on from there.
    nxt = player_to_act(fake, bot, general, users)
    shown = table_message(fake, general)
    assert shown is not None and f"<@{nxt.id}>" in shown.content
    mentions = [m for m in fake.messages(general) if f"<@{nxt.id}>" in m.content
                and m is not shown]
    assert mentions, "the next player was told in the channel"


async def test_a_failure_after_a_saved_move_is_logged_and_never_answered_as_nothing_changed(
        fake, users, general, jazz_game, monkeypatch):
    bot = jazz_game
    await idle(bot)
    mover = player_to_act(fake, bot, general, users)
    table = bot.croupier.manager.in_channel(general.id)
    assert table is not None
    step = table.step
    presenter = bot.croupier.presenter

    async def broken(*args, **kwargs):
        raise RuntimeError("a bug after the save")

    monkeypatch.setattr(presenter, "after_step", broken)
    message, _ = dm_menu(fake, mover)
    ix = await choose(fake, mover, message, random.Random(2))
    await ix.wait_answered()
    await idle(bot)
    assert table.step > step  # the move is saved
    assert ix.response.type == 7  # and was answered as a move
    said = " ".join(m.text() for m in [*fake.messages(mover), *ix.followups])
    assert "nothing was changed" not in said.lower()
    assert bot.metrics.errors == 1  # logged once, as a failure
