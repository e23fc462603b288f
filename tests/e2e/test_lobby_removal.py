"""A player the host removed from the lobby cannot press Join (or type ``/jazz join``) to
sit down again, on the fake Discord, even after a restart; everyone else still joins."""

from __future__ import annotations

import pytest

from testkit.games.jazz import JAZZ_ONLY

REMOVE = "ct:host-remove:"
REFUSAL = "The host removed you from this table, so you cannot join it again."


@pytest.fixture
def bot_extensions() -> dict[str, str | None]:
    return JAZZ_ONLY


def remove_menu(message):
    return next(c for c in message.leaf_components()
                if str(c.get("custom_id", "")).startswith(REMOVE))


async def test_a_removed_player_is_refused_politely_at_join_even_after_a_restart(
        fake, alice, bob, cy, general, bots):
    bot = await bots.new()
    await fake.start_bot(bot)
    await (await fake.slash(alice, general, "jazz start")).wait_answered()
    lobby = fake.find_message(general, label="Join")
    for user in (bob, cy):
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    removed = await fake.select(alice, lobby, remove_menu(lobby)["custom_id"], [str(bob.id)])
    await removed.wait_answered()
    assert "Alice removed Bob from the table." in lobby.text()

    again = await (await fake.click(bob, lobby, label="Join")).wait_answered()
    assert again.response.ephemeral and REFUSAL in again.text()
    typed = await (await fake.slash(bob, general, "jazz join")).wait_answered()
    assert typed.response.ephemeral and REFUSAL in typed.text()
    table = bot.croupier.manager.in_channel(general.id)
    assert [s.user_id for s in table.seats] == [alice.id, cy.id]

    bot = await bots.restart(bot)  # kept with the table: a restart lets nobody back in
    lobby = fake.find_message(general, label="Join")
    again = await (await fake.click(bob, lobby, label="Join")).wait_answered()
    assert again.response.ephemeral and REFUSAL in again.text()
    dee = fake.add_user("dee")
    joined = await (await fake.click(dee, lobby, label="Join")).wait_answered()
    assert not joined.response.ephemeral
    table = bot.croupier.manager.in_channel(general.id)
    assert [s.user_id for s in table.seats] == [alice.id, cy.id, dee.id]
    fake.assert_no_violations()


async def test_the_removal_stands_whoever_hosts_the_lobby(fake, alice, bob, cy, general,
                                                        run_bot):
    bot = await run_bot(extensions=JAZZ_ONLY)
    await (await fake.slash(alice, general, "jazz start")).wait_answered()
    lobby = fake.find_message(general, label="Join")
    for user in (bob, cy):
        await (await fake.click(user, lobby, label="Join")).wait_answered()
    await (await fake.select(alice, lobby, remove_menu(lobby)["custom_id"], [str(bob.id)])
           ).wait_answered()
    await (await fake.click(alice, lobby, label="Leave")).wait_answered()
    table = bot.croupier.manager.in_channel(general.id)
    assert table.host_id == cy.id
    again = await (await fake.click(bob, lobby, label="Join")).wait_answered()
    assert again.response.ephemeral and REFUSAL in again.text()
    fake.assert_no_violations()
