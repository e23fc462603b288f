"""Interaction callbacks and the interaction webhook (follow-ups, @original).

Discord's rules: one initial response per interaction, within 3 s of the interaction
(else 10062 Unknown interaction); follow-ups and edits with the token for 15 minutes;
after a "thinking" defer (type 5) the first follow-up replaces the loading message.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .interactions import (
    APPLICATION_COMMAND,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    Interaction,
    Response,
)
from .rest import ApiError, Call, Router, unknown
from .routes import Messages, _int, invalid_form
from .validate import MAX_CUSTOM_ID, MAX_ROWS, Problem
from .world import EPHEMERAL_FLAG, LOADING_FLAG, FakeMessage

if TYPE_CHECKING:
    from .state import FakeState

PONG, MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 1, 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9
LAUNCH_ACTIVITY = 12  # launch (or join) the app's Activity in the interaction's channel
CHAT_INPUT_MESSAGE = 20  # message type of a slash-command response


class Webhooks:
    def __init__(self, fake: FakeState, messages: Messages) -> None:
        self.fake = fake
        self.msgs = messages

    def register(self, router: Router) -> None:
        add = router.add
        add("POST", "/interactions/{interaction_id}/{token}/callback", self.callback, auth=False)
        base = "/webhooks/{application_id}/{token}"
        add("POST", base, self.followup, auth=False)
        for method, handler in (("GET", self.get), ("PATCH", self.edit), ("DELETE", self.delete)):
            add(method, f"{base}/messages/{{message_id}}", handler, auth=False)

    # ----- the initial response -------------------------------------------------------
    async def callback(self, call: Call) -> dict[str, Any]:
        ix = self.fake.interactions.get(_int(call.params["interaction_id"]))
        if ix is None or ix.token != call.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction", violation=True)
        if ix.response is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.", violation=True)
        late = time.monotonic() - ix.dispatched_at
        if late > self.fake.response_deadline:
            ix.late = True
            self.fake.violation("late", f"{ix!r}: first response {late:.2f}s after dispatch")
            raise ApiError(404, 10062, "Unknown interaction")
        body = call.body if isinstance(call.body, dict) else {}
        rtype, data = body.get("type"), body.get("data") or {}
        message = await self._respond(ix, rtype, data, call)
        ix.response = Response(int(rtype or 0), data)
        ix.responded_at = time.monotonic()
        ix.notify()
        return self._callback_payload(ix, message)

    async def _respond(
        self, ix: Interaction, rtype: Any, data: dict[str, Any], call: Call
    ) -> FakeMessage | None:
        component = ix.type == MESSAGE_COMPONENT or (ix.type == MODAL_SUBMIT and ix.source)
        if rtype == MESSAGE:
            version = self.msgs.build_version(data, call.files)
            return await self._create(ix, version)
        if rtype == DEFERRED_MESSAGE:
            flags = LOADING_FLAG | (int(data.get("flags") or 0) & EPHEMERAL_FLAG)
            return await self._create(
                ix, {"content": "", "embeds": [], "components": [], "flags": flags}
            )
        if rtype in (DEFERRED_UPDATE, UPDATE_MESSAGE) and component and ix.source is not None:
            ix.original = ix.source
            if rtype == UPDATE_MESSAGE:
                await self._edit(ix, ix.source, data, call)
            return ix.source if rtype == UPDATE_MESSAGE else None
        if rtype == LAUNCH_ACTIVITY:
            activities = self.fake.activities
            if not activities.enabled:
                raise invalid_form([("type", "Interaction response type 12 needs an "
                                             "application with an Activity (EMBEDDED)")])
            ix.activity_instance = activities.start(ix.channel, [ix.user]).id
            return None
        if rtype == MODAL and ix.type != MODAL_SUBMIT:
            problems = _check_modal(data)
            if problems:
                raise invalid_form(problems)
            ix.modal = data
            return None
        raise invalid_form([("type", f"Interaction response type {rtype} is not valid here")])

    async def _create(self, ix: Interaction, version: dict[str, Any]) -> FakeMessage:
        ephemeral = bool(version.get("flags", 0) & EPHEMERAL_FLAG)
        msg = self.msgs.create(
            ix.channel,
            version,
            ephemeral_for=ix.user if ephemeral else None,
            interaction=ix,
            msg_type=CHAT_INPUT_MESSAGE if ix.type == APPLICATION_COMMAND else 0,
        )
        if ix.original is None:
            ix.original = msg
        await self.msgs.announce("MESSAGE_CREATE", msg)
        return msg

    def _callback_payload(self, ix: Interaction, message: FakeMessage | None) -> dict[str, Any]:
        assert ix.response is not None
        info: dict[str, Any] = {"id": str(ix.id), "type": ix.type}
        if ix.activity_instance is not None:
            info["activity_instance_id"] = ix.activity_instance
        if message is not None:
            info |= {
                "response_message_id": str(message.id),
                "response_message_loading": message.loading,
                "response_message_ephemeral": message.ephemeral,
            }
        payload: dict[str, Any] = {"interaction": info}
        if message is not None:
            payload["resource"] = {
                "type": ix.response.type,
                "message": message.payload(self.fake.world),
            }
        elif ix.activity_instance is not None:
            payload["resource"] = {"type": LAUNCH_ACTIVITY,
                                   "activity_instance": {"id": ix.activity_instance}}
        return payload

    # ----- the webhook ----------------------------------------------------------------
    def _interaction(self, call: Call) -> Interaction:
        ix = self.fake.by_token.get(call.params["token"])
        if ix is None or _int(call.params["application_id"]) != self.fake.world.application_id:
            raise ApiError(404, 10015, "Unknown Webhook", violation=True)
        if time.monotonic() - ix.dispatched_at > self.fake.token_lifetime:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if ix.response is None:
            raise ApiError(404, 10015, "Unknown Webhook", violation=True)
        return ix

    def _target(self, ix: Interaction, raw_id: str) -> FakeMessage:
        if raw_id == "@original":
            msg = ix.original
        else:
            wanted = _int(raw_id)
            msg = next((m for m in [ix.original, *ix.followups] if m and m.id == wanted), None)
        if msg is None or msg.deleted:
            raise unknown("Message", 10008)
        return msg

    async def followup(self, call: Call) -> dict[str, Any] | None:
        ix = self._interaction(call)
        body = call.body if isinstance(call.body, dict) else {}
        original = ix.original
        if (
            ix.response is not None
            and ix.response.type == DEFERRED_MESSAGE
            and original is not None
            and original.loading
            and not ix.followups
        ):
            msg = await self._edit(ix, original, body, call)  # replaces the "thinking" message
        else:
            version = self.msgs.build_version(body, call.files)
            msg = self.msgs.create(
                ix.channel,
                version,
                ephemeral_for=ix.user if version["flags"] & EPHEMERAL_FLAG else None,
                interaction=ix,
                msg_type=CHAT_INPUT_MESSAGE if ix.type == APPLICATION_COMMAND else 0,
            )
            ix.followups.append(msg)
            await self.msgs.announce("MESSAGE_CREATE", msg)
        ix.notify()
        if call.query.get("wait") in ("1", "true", "True"):
            return msg.payload(self.fake.world)
        return None

    async def _edit(
        self, ix: Interaction, msg: FakeMessage, body: dict[str, Any], call: Call
    ) -> FakeMessage:
        version = self.msgs.build_version(body, call.files, base=msg.latest)
        msg.versions.append(version)
        ix.edits.append({"message_id": msg.id, "data": body})
        await self.msgs.announce("MESSAGE_UPDATE", msg)
        ix.notify()
        return msg

    async def get(self, call: Call) -> dict[str, Any]:
        ix = self._interaction(call)
        return self._target(ix, call.params["message_id"]).payload(self.fake.world)

    async def edit(self, call: Call) -> dict[str, Any]:
        ix = self._interaction(call)
        msg = self._target(ix, call.params["message_id"])
        body = call.body if isinstance(call.body, dict) else {}
        await self._edit(ix, msg, body, call)
        return msg.payload(self.fake.world)

    async def delete(self, call: Call) -> None:
        ix = self._interaction(call)
        msg = self._target(ix, call.params["message_id"])
        msg.deleted = True
        await self.msgs.announce("MESSAGE_DELETE", msg)
        ix.notify()


def _check_modal(data: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    title, cid = data.get("title") or "", data.get("custom_id") or ""
    if not 1 <= len(title) <= 45:
        problems.append(("data.title", "Must be between 1 and 45 in length."))
    if not 1 <= len(cid) <= MAX_CUSTOM_ID:
        problems.append(("data.custom_id", "Must be between 1 and 100 in length."))
    rows = data.get("components") or []
    if not 1 <= len(rows) <= MAX_ROWS:
        problems.append(("data.components", "Must be between 1 and 5 in length."))
    return problems
