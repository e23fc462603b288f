"""The web table in tests: a bot serving it on a free port, and a page's side of the
protocol (redeem a link, open the WebSocket, read snapshots) with aiohttp's client."""

from __future__ import annotations

import asyncio
import json
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from bot.config.web_settings import WebSettings
from testkit.fakediscord import FakeDiscord, FakeMessage, FakeUser

SECRET = b"a-test-secret-of-the-web-table-0123456789"
WEB_EXTENSION = {"cogs.web_table": None}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def web_settings(port: int | None = None, secret: bytes = SECRET) -> WebSettings:
    """The web table on loopback, reached at its own address (the page's origin)."""
    port = port or free_port()
    return WebSettings(port, f"http://127.0.0.1:{port}", "127.0.0.1", secret)


async def link_from(fake: FakeDiscord, user: FakeUser, message: FakeMessage,
                    label: str = "Open table") -> str:
    """Click ``label`` on ``message`` as ``user``: the link of the ephemeral answer."""
    ix = await fake.click(user, message, label=label)
    await ix.wait_answered()
    assert ix.response is not None and ix.response.ephemeral, ix.text()
    assert ix.message is not None
    (button,) = [c for c in ix.message.buttons() if c.get("url")]
    return str(button["url"])


def token_of(url: str) -> str:
    return urlsplit(url).fragment


@dataclass
class Page:
    """One browser page's side of the protocol."""

    base: str
    http: aiohttp.ClientSession
    session: str = ""
    ws: aiohttp.ClientWebSocketResponse | None = None
    frames: list[dict[str, Any]] = field(default_factory=list)

    async def redeem(self, token: str) -> tuple[int, dict[str, Any]]:
        async with self.http.post(f"{self.base}/api/session", json={"token": token}) as r:
            body = await r.json()
            if r.status == 200:
                self.session = body["session"]
            return r.status, body

    async def connect(self, origin: str | None = None) -> dict[str, Any]:
        self.ws = await self.http.ws_connect(f"{self.base}/ws",
                                             headers={"Origin": origin or self.base})
        await self.ws.send_str(json.dumps({"type": "hello", "session": self.session}))
        return await self.next()

    async def send(self, **frame: Any) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(frame))

    async def next(self, timeout: float = 5.0) -> dict[str, Any]:
        assert self.ws is not None
        message = await self.ws.receive(timeout=timeout)
        if message.type != aiohttp.WSMsgType.TEXT:
            raise ConnectionError(f"the socket closed: {message.type}")
        frame = json.loads(message.data)
        self.frames.append(frame)
        return dict(frame)

    async def snapshot(self, version: int | None = None, timeout: float = 5.0
                       ) -> dict[str, Any]:
        """The next snapshot (at ``version`` or newer)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            frame = await self.next(max(0.01, end - loop.time()))
            if frame["type"] == "snapshot" and (version is None or frame["version"] >= version):
                return frame

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
