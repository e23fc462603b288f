"""Simulated users of the fake Discord: a slash command typed, a button pressed, a
select picked, a modal submitted, each sent to the bot as an INTERACTION_CREATE (the
interaction's payload built as Discord builds it), after the checks a Discord client
makes (the user sees the channel, the component is on the message)."""

from __future__ import annotations

import time
from typing import Any

from .gateway import Gateway
from .interactions import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    FakeDiscordError,
    Interaction,
    check_component_use,
    check_select_values,
    resolve_slash,
)
from .state import FakeState
from .world import VIEW_CHANNEL, FakeChannel, FakeMessage, FakeUser

SELECT_TYPES = (3, 5, 6, 7, 8)


class SimulatedUsers(FakeState):
    """The users' side of ``FakeDiscord``: what they type and click."""

    gateway: Gateway

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Interaction:
        """`user` types `/command` ("jazz start") with options in `channel`."""
        self._check_can_use(user, channel)
        data = resolve_slash(self.world, channel, command, {**(options or {}), **kwargs})
        return await self._dispatch(APPLICATION_COMMAND, user, channel, data)

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str | None = None,
        *,
        label: str | None = None,
    ) -> Interaction:
        """`user` presses a button (by custom_id, or by its label) on the message's latest
        version; the message can be a channel message, a DM or the user's ephemeral."""
        custom_id = custom_id or self._button_id(message, label)
        check_component_use(message, user, custom_id, (2,))
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._component(user, message, data)

    async def select(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str]
    ) -> Interaction:
        """`user` picks `values` in a select menu (the values must be its options)."""
        comp = check_component_use(message, user, custom_id, SELECT_TYPES)
        check_select_values(comp, values)
        data = {"custom_id": custom_id, "component_type": comp["type"], "values": list(values)}
        return await self._component(user, message, data)

    async def forge(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        *,
        component_type: int = 2,
        values: list[str] | None = None,
    ) -> Interaction:
        """A click a modified client sends: any custom_id and values on `message`, with
        no check that the message shows such a component (only that `user` sees it)."""
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = list(values)
        return await self._component(user, message, data)

    async def submit_modal(self, ix: Interaction, values: dict[str, Any]) -> Interaction:
        """The user of `ix` fills the modal the bot answered with and submits it:
        `values` maps custom_id -> text (text inputs) or list of values (selects)."""
        if ix.modal is None:
            raise FakeDiscordError(f"{ix!r} was not answered with a modal")
        components = [_submitted(c, values) for c in ix.modal.get("components") or []]
        data = {"custom_id": ix.modal["custom_id"], "components": components}
        return await self._dispatch(MODAL_SUBMIT, ix.user, ix.channel, data, ix.source)

    def _button_id(self, message: FakeMessage, label: str | None) -> str:
        if label is None:
            raise FakeDiscordError("click() needs a custom_id or a label")
        found = [b for b in message.buttons() if b.get("label") == label]
        if len(found) != 1:
            labels = [b.get("label") for b in message.buttons()]
            raise FakeDiscordError(
                f"{len(found)} buttons labelled {label!r} on {message!r}: {labels}"
            )
        return found[0]["custom_id"]

    async def _component(
        self, user: FakeUser, message: FakeMessage, data: dict[str, Any]
    ) -> Interaction:
        channel = self.world.channels[message.channel_id]
        if channel.is_dm and channel.recipient is not user:
            raise FakeDiscordError(f"{user.name} cannot see the DMs of {channel.recipient}")
        self._check_can_use(user, channel)
        return await self._dispatch(MESSAGE_COMPONENT, user, channel, data, message)

    def _check_can_use(self, user: FakeUser, channel: FakeChannel) -> None:
        if channel.is_dm:
            if channel.recipient is not user:
                raise FakeDiscordError(f"{user.name} is not the recipient of {channel!r}")
        elif not self.world.permissions(channel, user) & VIEW_CHANNEL:
            raise FakeDiscordError(f"{user.name} cannot see {channel!r}")

    async def _dispatch(
        self,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        source: FakeMessage | None = None,
    ) -> Interaction:
        ix = Interaction(
            id=self.world.ids.next(),
            token=Interaction.new_token(),
            type=kind,
            user=user,
            channel=channel,
            data=data,
            source=source,
        )
        if not self.gateway.live_for(channel.guild_id):
            shard = self.shard_of(channel)
            raise FakeDiscordError(
                f"no bot is connected to the fake gateway for shard {shard} of "
                f"{self.shard_count}, which gets the events of {channel!r}"
            )
        ix._changed = self._changed
        self.interactions[ix.id] = ix
        self.by_token[ix.token] = ix
        ix.dispatched_at = time.monotonic()  # before sending: the bot may answer at once
        payload = self._interaction_payload(ix)
        await self.gateway.dispatch("INTERACTION_CREATE", payload, channel.guild_id)
        self._changed()  # settle() then waits for the bot's reaction
        return ix

    def _interaction_payload(self, ix: Interaction) -> dict[str, Any]:
        world, chan, user = self.world, ix.channel, ix.user
        guild = world.guild_of(chan) or world.guild
        payload: dict[str, Any] = {
            "id": str(ix.id),
            "application_id": str(world.application_id),
            "type": ix.type,
            "data": ix.data,
            "token": ix.token,
            "version": 1,
            "locale": user.locale,
            "app_permissions": str(world.permissions(chan, world.bot)),
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "authorizing_integration_owners": {"0": str(guild.id)},
            "channel_id": str(chan.id),
            "channel": chan.payload(world),
        }
        if chan.is_dm:
            payload |= {"user": user.payload(), "context": 1}
        else:
            perms = str(world.permissions(chan, user))
            payload["channel"]["permissions"] = perms
            payload |= {
                "guild_id": str(guild.id),
                "guild_locale": guild.preferred_locale,
                "guild": {"id": str(guild.id), "locale": guild.preferred_locale,
                          "features": []},
                "member": world.member_payload(user, guild=guild) | {"permissions": perms},
                "context": 0,
            }
        if ix.source is not None:
            payload["message"] = ix.source.payload(world)
        return payload


def _submitted(comp: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """A modal component as the client submits it (rows and labels keep their shape)."""
    if comp.get("type") == 1:
        return {"type": 1, "components": [_submitted(c, values) for c in comp["components"]]}
    if comp.get("type") == 18:
        return {"type": 18, "component": _submitted(comp["component"], values)}
    cid: Any = comp.get("custom_id")
    if comp.get("type") == 4:
        value = values.get(cid, comp.get("value") or "")
        if comp.get("required", True) and not value:
            raise FakeDiscordError(f"modal field {cid!r} is required")
        return {"type": 4, "custom_id": cid, "value": value}
    return {"type": comp.get("type"), "custom_id": cid, "values": list(values.get(cid, []))}
