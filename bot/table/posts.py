"""Where a table's messages are on Discord: bookkeeping, kept apart from the game.

The table message's id, each player's DM channel, the DM that holds their live
menu, whose DMs are closed, and the "it is your turn" mentions still to delete
(``bot.ui.turn_notices``) are facts about Discord, not about the game: a
move never needs them to be right, and a lost one only costs a re-post. So they
are not part of the versioned snapshot (a move is one versioned save) and are
written on their own, unversioned, when they change (``Store.save_posts``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Posts:
    message_id: int | None = None  # the public table message
    message_posted_at: float = 0.0
    dm_channels: dict[int, int] = field(default_factory=dict)  # user id → DM channel id
    hand_messages: dict[int, int] = field(default_factory=dict)  # user id → DM with the menu
    dm_closed: set[int] = field(default_factory=set)  # users who do not accept our DMs
    # user id → their "it is your turn" mention in the channel (bot.ui.turn_notices), deleted
    # once their turn ends
    turn_notices: dict[int, int] = field(default_factory=dict)
    # A scheduled table's Discord Scheduled Event, and the message that called the server's
    # role to the lobby (edited as seats fill: "need N more").
    event_id: int | None = None
    call_message_id: int | None = None

    def to_data(self) -> dict[str, Any]:
        return {"message_id": self.message_id, "message_posted_at": self.message_posted_at,
                "dm_channels": {str(u): c for u, c in self.dm_channels.items()},
                "hand_messages": {str(u): m for u, m in self.hand_messages.items()},
                "dm_closed": sorted(self.dm_closed),
                "turn_notices": {str(u): m for u, m in self.turn_notices.items()},
                "event_id": self.event_id, "call_message_id": self.call_message_id}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Posts:
        return cls(message_id=data.get("message_id"),
                   message_posted_at=float(data.get("message_posted_at") or 0.0),
                   dm_channels={int(u): int(c) for u, c in (data.get("dm_channels") or {}).items()},
                   hand_messages={int(u): int(m)
                                  for u, m in (data.get("hand_messages") or {}).items()},
                   dm_closed={int(u) for u in data.get("dm_closed") or ()},
                   turn_notices={int(u): int(m)
                                 for u, m in (data.get("turn_notices") or {}).items()},
                   event_id=_id_or_none(data.get("event_id")),
                   call_message_id=_id_or_none(data.get("call_message_id")))

    @classmethod
    def from_legacy_snapshot(cls, data: dict[str, Any]) -> Posts:
        """The posts a snapshot saved before they had their own column (schema 3) held."""
        posts = cls(message_id=data.get("message_id"),
                    message_posted_at=float(data.get("message_posted_at") or 0.0))
        for seat in data.get("seats") or ():
            user = seat["user_id"]
            if seat.get("dm_channel_id") is not None:
                posts.dm_channels[user] = seat["dm_channel_id"]
            if seat.get("hand_message_id") is not None:
                posts.hand_messages[user] = seat["hand_message_id"]
            if seat.get("dm_closed"):
                posts.dm_closed.add(user)
        return posts


def _id_or_none(value: Any) -> int | None:
    return int(value) if value is not None else None
