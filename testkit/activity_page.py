"""The web table's page as a Discord Activity, in a real browser (headless Chromium).

Discord's client is not here, so the page is the test build of ``web/frontend``
(``node build.mjs --mock DIR``): the same page with the Embedded App SDK's own
``DiscordSDKMock`` in place of ``DiscordSDK`` (``web/frontend/test/discord-sdk.ts``).
Its ``authorize()`` answers with the code the test put in the address (``mock_code``:
one ``fake.authorize(user)`` gave), and its ``instanceId`` is the address's
``instance_id``, as Discord's client would give them. Everything else is the real page
against the real server: ``GET /api/activity``, ``POST /api/token`` (which asks the fake
Discord's OAuth2 and instance endpoints over HTTP), the WebSocket.

The browser is Debian's Chromium (``/usr/bin/chromium``) driven by Playwright: its own
browser download cannot work here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

FRONTEND = Path(__file__).resolve().parent.parent / "web" / "frontend"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 15_000


class CannotBuild(Exception):
    """No Node.js, or web/frontend's packages are not installed (``npm ci``)."""


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if shutil.which("node") is None:
        return "no Node.js to build the page"
    if not (FRONTEND / "node_modules" / "esbuild").is_dir():
        return "web/frontend's packages are not installed (npm ci)"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}"
    return None


def build_mock_page(outdir: Path) -> Path:
    """The test build of the page in ``outdir`` (never web/static): index.html and the
    files under it, served in place of ``web/static`` (``web.server.STATIC``)."""
    why = missing()
    if why is not None:
        raise CannotBuild(why)
    done = subprocess.run(["node", "build.mjs", "--mock", str(outdir)], cwd=FRONTEND,
                          capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the mock build failed:\n{done.stdout}\n{done.stderr}")
    manifest = json.loads((outdir / "manifest.json").read_text())
    assert all((outdir / name).is_file() for name in manifest["files"]), manifest
    return outdir


def activity_url(public_url: str, instance_id: str, code: str | None, *,
                 channel_id: int | None = None, guild_id: int | None = None) -> str:
    """The address Discord's client frames: the URL mapping's root with Discord's query
    parameters, and (the test build only) the code its ``authorize()`` is to answer."""
    query: dict[str, str] = {"instance_id": instance_id, "frame_id": "test-frame-0001",
                             "platform": "desktop"}
    if channel_id is not None:
        query["channel_id"] = str(channel_id)
    if guild_id is not None:
        query["guild_id"] = str(guild_id)
    if code is not None:
        query["mock_code"] = code
    return f"{public_url}/?{urlencode(query)}"


@dataclass
class ActivityPage:
    """One browser tab: what it asked of the server and what went wrong in it."""

    page: Any  # playwright.async_api.Page
    token_posts: list[dict[str, Any]] = field(default_factory=list)  # POST /api/token bodies
    errors: list[str] = field(default_factory=list)  # console errors, uncaught exceptions

    async def discord_calls(self) -> list[dict[str, Any]]:
        """The SDK commands the page called (the mock keeps them)."""
        calls = await self.page.evaluate("() => window.discordMockCalls ?? []")
        return list(calls)

    async def alert(self) -> str:
        """The error page's sentence, once it shows."""
        box = self.page.locator("main.page-error p[role=alert]")
        await box.wait_for(timeout=TIMEOUT_MS)
        return str(await box.inner_text()).strip()

    async def hand_codes(self) -> list[str]:
        """The card codes on the hand's buttons."""
        codes = await self.page.locator("#hand button[data-code]").evaluate_all(
            "els => els.map(e => e.dataset.code)")
        return list(codes)


class ActivityBrowser:
    """Headless Chromium; ``open(url)`` a new tab with a fresh profile (no storage)."""

    def __init__(self, browser: Any):
        self.browser = browser

    async def open(self, url: str) -> ActivityPage:
        context = await self.browser.new_context()
        page = await context.new_page()
        tab = ActivityPage(page)

        def on_request(request: Any) -> None:
            if request.method == "POST" and request.url.endswith("/api/token"):
                tab.token_posts.append(json.loads(request.post_data or "null"))

        def on_console(message: Any) -> None:
            if message.type == "error":
                tab.errors.append(message.text)

        page.on("request", on_request)
        page.on("console", on_console)
        page.on("pageerror", lambda error: tab.errors.append(f"uncaught: {error}"))
        page.set_default_timeout(TIMEOUT_MS)
        await page.goto(url)
        return tab


@asynccontextmanager
async def activity_browser() -> AsyncIterator[ActivityBrowser]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield ActivityBrowser(browser)
        finally:
            await browser.close()
