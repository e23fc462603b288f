"""Creating and editing messages as Discord does: a create or edit body merged into a
new version and validated (``Messages.build_version``), attachments stored, the message
recorded and announced on the gateway. Shared by the bot-token routes (routes.py) and
the interaction webhooks (webhooks.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .rest import ApiError
from .validate import Problem, check_message, is_empty, nest_errors
from .world import (
    COMPONENTS_V2_FLAG,
    EPHEMERAL_FLAG,
    LOADING_FLAG,
    FakeChannel,
    FakeMessage,
    FakeUser,
    now_iso,
)

if TYPE_CHECKING:
    from .gateway import Gateway
    from .state import FakeState
    from .world import World

SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS = 1 << 2, 1 << 12
CREATE_FLAGS = EPHEMERAL_FLAG | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2_FLAG
GUILD_MESSAGES, DIRECT_MESSAGES = 1 << 9, 1 << 12


ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024  # bytes per file (interactions say so too)


def invalid_form(problems: list[Problem]) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", nest_errors(problems), violation=True)


class Messages:
    """Creating and editing messages with Discord's validation; shared with webhooks.py."""

    def __init__(self, fake: FakeState, gateway: Gateway) -> None:
        self.fake = fake
        self.gateway = gateway
        # Create Message's enforce_nonce: a nonce the bot used lately, and its message.
        self.by_nonce: dict[str, tuple[FakeMessage, float]] = {}

    @property
    def world(self) -> World:
        return self.fake.world

    def build_version(
        self,
        body: dict[str, Any] | None,
        files: list[dict[str, Any]],
        base: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Merge a create (base None) or edit body into a new version; validate it."""
        body = body or {}
        if not isinstance(body, dict):
            raise invalid_form([("_root", "Expected a JSON object")])
        version: dict[str, Any] = dict(base or {"content": "", "embeds": [], "components": []})
        for key in ("content", "embeds", "components"):
            if key in body:
                version[key] = (
                    body[key] if body[key] is not None else ([] if key != "content" else "")
                )
        version["attachments"] = self._attachments(body, files, base)
        flags = int(version.get("flags") or 0)
        if base is None:
            flags = int(body.get("flags") or 0) & CREATE_FLAGS
        elif "flags" in body and body["flags"] is not None:
            keep = flags & (EPHEMERAL_FLAG | LOADING_FLAG | COMPONENTS_V2_FLAG)
            flags = keep | (int(body["flags"]) & (SUPPRESS_EMBEDS | COMPONENTS_V2_FLAG))
        version["flags"] = flags & ~LOADING_FLAG if base is not None else flags
        if base is not None:
            version["edited_timestamp"] = now_iso()
        problems = check_message(version)
        if problems:
            raise invalid_form(problems)
        if is_empty(version):
            raise ApiError(400, 50006, "Cannot send an empty message", violation=True)
        return version

    def _attachments(
        self, body: dict[str, Any], files: list[dict[str, Any]], base: dict[str, Any] | None
    ) -> list[dict[str, Any]]:
        kept = (base or {}).get("attachments") or []
        if "attachments" in body and body["attachments"] is not None:
            wanted = {str(a.get("id")) for a in body["attachments"]}
            kept = [a for a in kept if a["id"] in wanted]
        new = []
        for f in files:
            if f["size"] > ATTACHMENT_SIZE_LIMIT:  # what a server without boosts takes
                raise ApiError(413, 40005, "Request entity too large", violation=True)
            att_id = str(self.world.ids.next())
            url = f"{self.fake.base_url}/attachments/{att_id}/{f['filename']}"
            self.fake.uploads[att_id] = f["data"]
            new.append(
                {
                    "id": att_id,
                    "filename": f["filename"],
                    "size": f["size"],
                    "url": url,
                    "proxy_url": url,
                }
            )
        return [*kept, *new]

    def create(
        self,
        channel: FakeChannel,
        version: dict[str, Any],
        *,
        ephemeral_for: FakeUser | None = None,
        interaction: Any = None,
        msg_type: int = 0,
    ) -> FakeMessage:
        msg = FakeMessage(
            id=self.world.ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.world.bot,
            versions=[version],
            ephemeral_for=ephemeral_for,
            interaction=interaction,
            type=msg_type,
        )
        self.world.messages[msg.id] = msg
        (channel.ephemerals if ephemeral_for else channel.messages).append(msg)
        return msg

    async def announce(self, event: str, msg: FakeMessage) -> None:
        """MESSAGE_CREATE/UPDATE/DELETE on the gateway, as Discord sends for public messages."""
        if msg.ephemeral:
            return
        intent = GUILD_MESSAGES if msg.guild_id else DIRECT_MESSAGES
        if event == "MESSAGE_DELETE":
            data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id:
                data["guild_id"] = str(msg.guild_id)
        else:
            data = msg.payload(self.world)
        await self.gateway.dispatch(event, data, msg.guild_id, intent)
