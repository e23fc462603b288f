"""Kept seats and invitation-only tables on the fake Discord: ``players:`` at the start
keeps seats (the members are told), ``invite_only:`` lets only them join, and the host
invites more with ``/jazz invite``."""

from __future__ import annotations

from bot.app.client import CardTableBot
from testkit.fakediscord import FakeChannel, FakeDiscord, FakeUser


def lobby(fake: FakeDiscord, channel: FakeChannel):
    return fake.find_message(channel, label="Join")


def seated(bot: CardTableBot, channel: FakeChannel) -> list[int]:
    table = bot.croupier.manager.in_channel(channel.id)
    assert table is not None
    return [s.user_id for s in table.seats]


async def test_an_invitation_only_table_refuses_a_stranger_and_takes_the_invited(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        cy: FakeUser, jazz_bot: CardTableBot):
    stranger = fake.add_user("stranger")
    start = await fake.slash(alice, general, "jazz start", players=f"<@{bob.id}>",
                             invite_only=True)
    await start.wait_answered()
    await fake.settle()
    told = [m for m in general.messages if "keeps you a seat" in m.content]
    assert len(told) == 1 and f"<@{bob.id}>" in told[0].content
    description = lobby(fake, general).embeds[0]["description"]
    assert f"<@{bob.id}>" in description and "By invitation only" in description

    refused = await fake.click(stranger, lobby(fake, general), label="Join")
    await refused.wait_answered()
    assert refused.ephemeral and "by invitation only" in refused.text()
    await fake.settle()
    assert seated(jazz_bot, general) == [alice.id]  # nothing changed

    joined = await fake.click(bob, lobby(fake, general), label="Join")
    await joined.wait_answered()
    await fake.settle()
    assert seated(jazz_bot, general) == [alice.id, bob.id]

    # The host invites one more, who may then join; a non-host may not invite.
    nope = await fake.slash(bob, general, "jazz invite", player=stranger)
    await nope.wait_answered()
    assert "Only the host" in nope.text()
    invite = await fake.slash(alice, general, "jazz invite", player=cy)
    await invite.wait_answered()
    await fake.settle()
    assert f"<@{cy.id}>" in invite.text()
    assert any("keeps you a seat" in m.content and f"<@{cy.id}>" in m.content
               for m in general.messages)
    again = await fake.click(cy, lobby(fake, general), label="Join")
    await again.wait_answered()
    await fake.settle()
    assert seated(jazz_bot, general) == [alice.id, bob.id, cy.id]


async def test_kept_seats_refuse_others_once_only_the_kept_ones_are_free(
        fake: FakeDiscord, general: FakeChannel, alice: FakeUser, bob: FakeUser,
        cy: FakeUser, jazz_bot: CardTableBot):
    others = [fake.add_user(f"guest{i}") for i in range(5)]
    start = await fake.slash(alice, general, "jazz start", players=f"<@{bob.id}> <@{cy.id}>")
    await start.wait_answered()
    await fake.settle()
    for guest in others[:4]:  # Jazz seats 7: 1 + 4 + the 2 kept
        ok = await fake.click(guest, lobby(fake, general), label="Join")
        await ok.wait_answered()
        await fake.settle()
    refused = await fake.click(others[4], lobby(fake, general), label="Join")
    await refused.wait_answered()
    assert "kept for invited players" in refused.text()
    kept = await fake.click(cy, lobby(fake, general), label="Join")
    await kept.wait_answered()
    await fake.settle()
    assert cy.id in seated(jazz_bot, general) and others[4].id not in seated(jazz_bot,
                                                                             general)


async def test_players_must_be_mentions(fake: FakeDiscord, general: FakeChannel,
                                        alice: FakeUser, jazz_bot: CardTableBot):
    start = await fake.slash(alice, general, "jazz start", players="bob and cy")
    await start.wait_answered()
    assert start.ephemeral and "mentions" in start.text()
    assert jazz_bot.croupier.manager.in_channel(general.id) is None
