"""The gateway websocket: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats, RESUME.

Sessions outlive their socket (as on Discord) so a client that lost its connection can
RESUME and get the events it missed; a brand-new client IDENTIFYs and gets a new one.

Sharding as Discord does it: a session IDENTIFYs with ``shard: [id, count]`` and gets
READY/GUILD_CREATE and every event only for the guilds with ``(guild_id >> 22) % count
== id``; DM events (INTERACTION_CREATE from a DM included) go to shard 0 only. Several
clients (processes) may hold different shards of one fake at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from .state import FakeState

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE = 0, 1, 2, 3, 4
RESUME, RECONNECT, REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 6, 7, 8, 9, 10, 11
PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15)  # members, presences, message content
GUILD_MESSAGES, DIRECT_MESSAGES = 1 << 9, 1 << 12
HEARTBEAT_INTERVAL_MS = 41250
BUFFER = 1000  # events kept per session for RESUME


@dataclass(eq=False)
class Session:
    id: str
    shard: tuple[int, int]
    intents: int
    seq: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)
    conn: Connection | None = None

    def handles(self, guild_id: int | None) -> bool:
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0  # DMs go to shard 0
        return (guild_id >> 22) % count == shard_id


@dataclass(eq=False)
class Connection:
    ws: web.WebSocketResponse
    session: Session | None = None
    server_closed: bool = False  # closed by the fake (drop/resume elsewhere), not the client
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, payload: dict[str, Any]) -> None:
        if self.ws.closed:
            return
        async with self.lock:
            try:
                await self.ws.send_str(json.dumps(payload))
            except (ConnectionError, RuntimeError):
                log.debug("send on a closing gateway socket dropped")


class Gateway:
    """All gateway sessions of the fake; `dispatch` sends an event to the live ones."""

    def __init__(self, fake: FakeState) -> None:
        self.fake = fake
        self.sessions: dict[str, Session] = {}
        self.connections: set[Connection] = set()
        self.identified = asyncio.Event()  # set at each READY (tests wait on it)
        self._closing = False

    @property
    def live_sessions(self) -> list[Session]:
        return [s for s in self.sessions.values() if s.conn is not None and not s.conn.ws.closed]

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        conn = Connection(ws)
        self.connections.add(conn)
        await conn.send({"op": HELLO, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}})
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                await self._on_message(conn, json.loads(msg.data))
        finally:
            self.connections.discard(conn)
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                if ws.close_code in (1000, 1001) and not (conn.server_closed or self._closing):
                    # a client closing normally ends its session, as on Discord
                    self.sessions.pop(session.id, None)
        return ws

    async def _on_message(self, conn: Connection, msg: dict[str, Any]) -> None:
        op, data = msg.get("op"), msg.get("d")
        if op == HEARTBEAT:
            await conn.send({"op": HEARTBEAT_ACK})
        elif op == IDENTIFY:
            await self._identify(conn, data or {})
        elif op == RESUME:
            await self._resume(conn, data or {})
        elif op == REQUEST_MEMBERS:
            await self._members_chunk(conn, data or {})
        elif op in (PRESENCE, VOICE):
            pass  # accepted and ignored, as a text-only bot's presence changes are
        else:
            self.fake.violation("gateway", f"unknown gateway opcode {op}")

    async def _identify(self, conn: Connection, data: dict[str, Any]) -> None:
        if data.get("token") != self.fake.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = int(data.get("intents", 0))
        if intents & PRIVILEGED_INTENTS & ~self.fake.privileged_intents:
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        raw = data.get("shard") or (0, 1)
        shard_id, count = int(raw[0]), int(raw[1])
        refused = self._refuse_shard(shard_id, count)
        if refused is not None:
            await conn.ws.close(code=refused[0], message=refused[1])
            return
        session = Session(secrets.token_hex(16), (shard_id, count), intents)
        self.sessions[session.id] = session
        session.conn = conn
        conn.session = session
        world = self.fake.world
        guilds = [g for g in world.guilds.values()  # (not one the bot was removed from)
                  if session.handles(g.id) and world.bot.id in g.member_roles]
        guild_ids = [g.id for g in guilds]
        await self._send_event(session, "READY", self._ready_payload(session, guild_ids))
        for guild in guilds:
            await self._send_event(session, "GUILD_CREATE", world.guild_payload(guild))
        self.identified.set()

    def _refuse_shard(self, shard_id: int, count: int) -> tuple[int, bytes] | None:
        """Discord's close for a bad ``shard``: 4011 when the bot needs more shards than
        it asked for (the fake's count is the required one), 4010 for an id outside the
        count; the fake also refuses a larger count than its own (4010)."""
        if not 0 <= shard_id < count:
            return 4010, b"Invalid shard."
        if count < self.fake.shard_count:
            return 4011, b"Sharding required."
        if count != self.fake.shard_count:
            return 4010, b"Invalid shard."
        return None

    def _ready_payload(self, session: Session, guild_ids: list[int]) -> dict[str, Any]:
        world = self.fake.world
        user = world.bot.payload() | {"verified": True, "mfa_enabled": False, "flags": 0}
        return {
            "v": 10,
            "user": user,
            "guilds": [{"id": str(g), "unavailable": True} for g in guild_ids],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.fake.gateway_url,
            "shard": list(session.shard),
            "application": {"id": str(world.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
        }

    async def _resume(self, conn: Connection, data: dict[str, Any]) -> None:
        session = self.sessions.get(data.get("session_id", ""))
        if session is None or data.get("token") != self.fake.token:
            await conn.send({"op": INVALID_SESSION, "d": False})
            return
        if session.conn is not None and session.conn is not conn:
            session.conn.server_closed = True
            await session.conn.ws.close(code=4000)
        session.conn = conn
        conn.session = session
        last = int(data.get("seq") or 0)
        for event in [e for e in session.sent if e["s"] > last]:
            await conn.send(event)
        session.seq += 1
        await conn.send({"op": DISPATCH, "t": "RESUMED", "s": session.seq, "d": {}})
        self.fake.resumes += 1

    async def _members_chunk(self, conn: Connection, data: dict[str, Any]) -> None:
        if conn.session is None:
            return
        world = self.fake.world
        raw = data.get("guild_id", world.guild.id)
        for guild_id in raw if isinstance(raw, list) else [raw]:
            guild = world.guilds.get(int(guild_id))
            if guild is None or not conn.session.handles(guild.id):
                continue
            payload = {
                "guild_id": str(guild.id),
                "members": [world.member_payload(u, guild=guild) for u in world.members_of(guild)],
                "chunk_index": 0,
                "chunk_count": 1,
                "nonce": data.get("nonce"),
            }
            await self._send_event(conn.session, "GUILD_MEMBERS_CHUNK", payload)

    async def _send_event(self, session: Session, name: str, data: dict[str, Any]) -> None:
        session.seq += 1
        event = {"op": DISPATCH, "t": name, "s": session.seq, "d": data}
        session.sent.append(event)
        del session.sent[:-BUFFER]
        if session.conn is not None:
            await session.conn.send(event)

    def live_for(self, guild_id: int | None) -> list[Session]:
        """Live sessions that get this guild's events (None: DMs, shard 0)."""
        return [s for s in self.live_sessions if s.handles(guild_id)]

    @property
    def live_shards(self) -> set[int]:
        """Shard ids with a live session."""
        return {s.shard[0] for s in self.live_sessions}

    async def dispatch(
        self, name: str, data: dict[str, Any], guild_id: int | None, intent: int = 0
    ) -> int:
        """Send an event to every session that handles the guild: live ones get it now,
        disconnected (resumable) ones keep it for their RESUME. Returns the live count."""
        live = 0
        for session in list(self.sessions.values()):
            if not session.handles(guild_id) or (intent and not session.intents & intent):
                continue
            live += session.conn is not None and not session.conn.ws.closed
            await self._send_event(session, name, data)
        return live

    async def drop(self, code: int = 4000) -> None:
        """Close every socket server-side (the clients will RESUME or re-IDENTIFY)."""
        conns = list(self.connections)
        for conn in conns:  # detach first: events from now on wait for the RESUME
            conn.server_closed = True
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
        for conn in conns:
            await conn.ws.close(code=code)

    async def send_reconnect(self) -> None:
        """Op 7: ask every client to reconnect and resume."""
        for conn in list(self.connections):
            await conn.send({"op": RECONNECT, "d": None})

    def invalidate(self) -> None:
        """Forget every session: the next RESUME gets INVALID_SESSION -> a new IDENTIFY."""
        self.sessions.clear()

    async def close(self) -> None:
        self._closing = True
        for conn in list(self.connections):
            await conn.ws.close(code=1001)
