"""The web table's HTTP side: the page, the session, the WebSocket, the replay.

Routes (``docs/web-protocol.md``):

* ``GET /table``, ``GET /replay`` — the page (``web/static/index.html``); its files
  under ``/static/`` with long cache lifetimes (their names carry their hash);
* ``POST /api/session`` — a link token (from the URL fragment) for a session;
* ``GET /ws`` — the table, live: one WebSocket per viewer;
* ``GET /api/replay`` — a finished game's frames (a ``replay`` session).

Every answer carries a strict Content Security Policy (``default-src 'self'``); the
WebSocket accepts only the ``PUBLIC_URL``'s origin; tokens are never logged (the
access log is off, and no line here names one).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

import locales
from bot.storage import Store
from bot.table.tournament_secrecy import SECRET_DEALS, deals_secret
from engine.text import T
from locales import say
from web.activity import ActivityTokens, add_activity_route
from web.answers import refused
from web.hub import Hub, Viewer
from web.limits import RateLimit
from web.play import WebPlay
from web.replays import TooLong, replay_frames
from web.snapshots import Views
from web.strings import page_strings
from web.tokens import BadToken, Grant, Signer

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
CSP = ("default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'none'; "
       "frame-ancestors")
# Inside Discord the Activity's page is framed by Discord's clients.
ACTIVITY_FRAMES = (" 'self' https://discord.com https://*.discord.com "
                   "https://*.discordsays.com")
HELLO_WITHIN = 10.0  # seconds a new socket has to say who it is
MOST_FRAME = 2048  # bytes of one frame from a page (a move is ~60)

LINK_BAD = T("This link does not work: open the table again from Discord for a new one.")
LINK_USED = T("This link was used already: open the table again from Discord for a new one.")
TOO_MANY = T("Too many tries: please wait a minute.")
SESSION_BAD = T("Your session has ended: open the table again from Discord.")
NOT_A_PLAYER = T("You are watching this table: only its players can play.")
NO_GAME = T("That game's record is not available.")
NO_REMATCH = T("A rematch is started from Discord, under the game's result.")

Clock = Callable[[], float]
Replays = Callable[[str], Awaitable[dict[str, Any] | None]]  # a game id's record


class WebTable:
    """The application and everything it serves from (one per process)."""

    def __init__(self, *, signer: Signer, store: Store, play: WebPlay, hub: Hub, views: Views,
                 origin: str, clock: Clock = time.time, activity: ActivityTokens | None = None,
                 client_id: str = ""):
        self.activity = activity  # served as a Discord Activity too (web.activity)
        self.client_id = client_id
        # The page's origins: the public address, and inside Discord the Activity's proxy.
        self.origins = {origin} | ({f"https://{client_id}.discordsays.com"}
                                   if activity is not None and client_id else set())
        self.csp = CSP + (ACTIVITY_FRAMES if activity is not None else " 'self'")
        self.signer = signer
        self.store = store
        self.play = play
        self.hub = hub
        self.views = views
        self.clock = clock
        self.minting = RateLimit(per_minute=20)  # sessions per address and per user
        self.sockets: set[web.WebSocketResponse] = set()

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._headers], client_max_size=16 * 1024)
        app.router.add_get("/table", self.page)
        app.router.add_get("/replay", self.page)
        app.router.add_post("/api/session", self.session)
        if self.activity is not None:
            # Discord opens the Activity at the URL mapping's root ("/" → PUBLIC_URL).
            app.router.add_get("/", self.page)
            app.router.add_get("/api/activity", self.activity_config)
            add_activity_route(app, self.activity)
        app.router.add_get("/api/replay", self.replay)
        app.router.add_get("/ws", self.socket)
        app.router.add_get("/static/{name}", self.static)
        app.on_shutdown.append(self._close_sockets)
        return app

    # -- the page ----------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.StreamResponse:
        index = STATIC / "index.html"
        if not index.is_file():
            raise web.HTTPServiceUnavailable(text="The web table's page is not built.")
        return web.FileResponse(index, headers={"Cache-Control": "no-cache"})

    async def activity_config(self, request: web.Request) -> web.Response:
        """What the Activity's page needs to start Discord's SDK: the application's id
        (public: it is in every invite link)."""
        return web.json_response({"client_id": self.client_id},
                                 headers={"Cache-Control": "no-cache"})

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC / name
        if "/" in name or name.startswith(".") or name == "index.html" or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={
            "Cache-Control": "public, max-age=31536000, immutable"})

    # -- link → session ----------------------------------------------------------------

    async def session(self, request: web.Request) -> web.Response:
        now = self.clock()
        language = locales.language_of(request.headers.get("Accept-Language", "en")[:2])
        if not self.minting.allow(f"address:{request.remote}", now):
            return refused(429, say(TOO_MANY, language))
        try:
            body = await request.json()
            token = body["token"] if isinstance(body, dict) else None
            grant = self.signer.read_link(token, now)  # type: ignore[arg-type]
        except (BadToken, ValueError, KeyError, TypeError):
            return refused(403, say(LINK_BAD, language))
        if not self.minting.allow(f"user:{grant.user}", now):
            return refused(429, say(TOO_MANY, grant.language))
        if not await self.store.spend_link(grant.nonce, grant.expires, now):
            return refused(403, say(LINK_USED, grant.language))
        return web.json_response({
            "session": self.signer.session(grant, now), "table": grant.table,
            "role": grant.role, "language": grant.language},
            headers={"Cache-Control": "no-store"})

    def _grant(self, session: Any) -> Grant | None:
        try:
            return self.signer.read_session(session, self.clock())
        except BadToken:
            return None

    # -- the live table ----------------------------------------------------------------

    async def socket(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Origin") not in self.origins:
            raise web.HTTPForbidden(text="This page is not the web table's.")
        ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=MOST_FRAME)
        await ws.prepare(request)
        self.sockets.add(ws)
        viewer: Viewer | None = None
        try:
            viewer = await self._hello(ws)
            if viewer is None:
                return ws
            self.hub.join(viewer)
            if not await self.hub.show(viewer):
                await _fatal(ws, say(SESSION_BAD, viewer.grant.language))
                return ws
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                await self._frame(ws, viewer, message.data)
        finally:
            self.sockets.discard(ws)
            if viewer is not None:
                self.hub.leave(viewer)
        return ws

    async def _hello(self, ws: web.WebSocketResponse) -> Viewer | None:
        try:
            message = await ws.receive(timeout=HELLO_WITHIN)
            data = json.loads(message.data) if message.type == WSMsgType.TEXT else None
        except (TimeoutError, ValueError):
            data = None
        grant = self._grant(data.get("session")) if isinstance(data, dict) \
            and data.get("type") == "hello" else None
        if grant is None or grant.role == "replay":
            await _fatal(ws, say(SESSION_BAD))
            return None
        return Viewer(grant, ws.send_str)

    async def _frame(self, ws: web.WebSocketResponse, viewer: Viewer, text: str) -> None:
        try:
            data = json.loads(text)
        except ValueError:
            return
        kind = data.get("type") if isinstance(data, dict) else None
        grant = viewer.grant
        if kind == "ping":
            await ws.send_str('{"type":"pong"}')
        elif kind == "sync":
            await self.hub.show(viewer)
        elif kind == "rematch":
            why = (NO_REMATCH if self.play.rematch is None
                   else await self.play.rematch(grant.user, grant.table))
            if why is not None:
                await ws.send_str(json.dumps({"type": "refused",
                                              "reason": say(why, grant.language)},
                                             ensure_ascii=False))
        elif kind == "move":
            step, code = data.get("step"), data.get("code")
            if grant.role != "seat":
                reason: str | None = say(NOT_A_PLAYER, grant.language)
            elif not (isinstance(step, int) and isinstance(code, str) and len(code) <= 8):
                reason = say(LINK_BAD, grant.language)
            else:
                reason = await self.play.move(grant.user, grant.table, step, code,
                                              grant.language)
            if reason is not None:
                await ws.send_str(json.dumps({"type": "refused", "reason": reason},
                                             ensure_ascii=False))
                await self.hub.show(viewer)

    @web.middleware
    async def _headers(self, request: web.Request,
                       handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                       ) -> web.StreamResponse:
        response = await handler(request)
        response.headers.setdefault("Content-Security-Policy", self.csp)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    async def _close_sockets(self, _app: web.Application) -> None:
        for ws in list(self.sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001, message=b"the server is going away")

    # -- replays -------------------------------------------------------------------------

    async def replay(self, request: web.Request) -> web.Response:
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        grant = self._grant(bearer)
        if grant is None or grant.role != "replay":
            return refused(403, say(SESSION_BAD))
        if grant.table.isdigit() and await deals_secret(self.store, int(grant.table)):
            return refused(403, say(SECRET_DEALS, grant.language))
        record = await self.store.game_record(int(grant.table)) \
            if grant.table.isdigit() else None
        if record is None:
            return refused(404, say(NO_GAME, grant.language))
        # The players' names as /history shows them (a record holds seats, not names).
        found = await self.store.history(None, before=int(grant.table) + 1, limit=1)
        names = [p.name for p in sorted(found[0].players, key=lambda p: p.seat)] \
            if found and found[0].game_id == int(grant.table) else None
        try:
            with locales.speaking(grant.language):
                strings = page_strings()
            frames = await asyncio.to_thread(replay_frames, record, self.views, names,
                                             grant.language, strings)
        except (TooLong, ValueError):
            return refused(404, say(NO_GAME, grant.language))
        return web.json_response(frames, headers={"Cache-Control": "private, max-age=3600"},
                                 dumps=lambda d: json.dumps(d, ensure_ascii=False))


async def _fatal(ws: web.WebSocketResponse, sentence: str) -> None:
    with contextlib.suppress(Exception):
        await ws.send_str(json.dumps({"type": "error", "reason": sentence, "fatal": True},
                                     ensure_ascii=False))
        await ws.close(code=4001)
