"""The web table's page in a real browser: Debian's Chromium, headless, driven by
Playwright (its own browser download cannot work here).

``chromium(shots)`` opens the browser; ``Browser.open(url)`` a page in a fresh context (a
profile of its own: no storage, its own viewport), as a person opening their link. A
``TablePage`` keeps every JSON frame its WebSockets received and sent, the page's errors,
and knows which snapshot the page has rendered (an init script notes each snapshot once
the page's own handler has run: the page renders synchronously in it). Helpers read what
the page shows (the hand's cards, which are lit, the result), run axe-core, take
screenshots (under the test's directory and copied to ``/tmp/webshots``).

Nothing here is optional: a missing Chromium or axe-core fails the test that asks for it
(``BrowserMissing``), with the words to fix it; ``.ci/run`` installs both.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.async_api import Browser as PwBrowser
    from playwright.async_api import Page, WebSocket

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = ROOT / "web" / "frontend"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
AXE = FRONTEND / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = Path("/tmp/webshots")  # a copy of every screenshot, for people to look at
TIMEOUT_MS = 15_000
PHONE = (360, 740)
DESKTOP = (1280, 800)
BAD_IMPACTS = ("serious", "critical")

# Notes, in the page, the last snapshot its socket handler has finished with (the page
# renders a snapshot synchronously in that handler). It observes only: it wraps the
# "message" listeners the page adds, calls them unchanged, then reads the frame.
SEEN_SCRIPT = """
(() => {
  const seen = { rendered: null, snapshots: 0, waiting: [] };
  seen.until = (version, ms) => new Promise((resolve, reject) => {
    if ((seen.rendered?.version ?? -1) >= version) return resolve(seen.rendered);
    const timer = setTimeout(() => reject(new Error(
      `no snapshot at version ${version} within ${ms} ms: ${JSON.stringify(seen.rendered)}`)), ms);
    seen.waiting.push({ version, resolve, timer });
  });
  Object.defineProperty(window, "__cardtableSeen", { value: seen });
  const add = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, listener, options) {
    if (type !== "message" || typeof listener !== "function") {
      return add.call(this, type, listener, options);
    }
    const wrapped = function (event) {
      const result = listener.call(this, event);
      let frame = null;
      try { frame = JSON.parse(String(event.data)); } catch (e) { /* not JSON */ }
      if (frame && frame.type === "snapshot") {
        seen.rendered = { table: frame.table, version: frame.version, status: frame.status };
        seen.snapshots += 1;
        seen.waiting = seen.waiting.filter((w) => {
          if (w.version > frame.version) return true;
          clearTimeout(w.timer);
          w.resolve(seen.rendered);
          return false;
        });
      }
      return result;
    };
    return add.call(this, type, wrapped, options);
  };
})();
"""

# Every animation of the page finished (FLIP moves, pulses): a steady picture.
# (Endless ones, the turn's glow, are left running; two seconds at most.)
SETTLE_SCRIPT = """async () => {
  const ending = document.getAnimations().filter(a => {
    const end = a.effect && a.effect.getComputedTiming().endTime;
    return typeof end === "number" && Number.isFinite(end);
  });
  const done = Promise.all(ending.map(a => a.finished.catch(() => null)));
  await Promise.race([done, new Promise(r => setTimeout(r, 2000))]);
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""

# What the hand shows: every card's code, the buttons' codes, which are lit (playable),
# the word actions (Pass) and which of those are playable.
HAND_SCRIPT = """() => {
  const hand = document.getElementById("hand");
  if (!hand || hand.hidden) return null;
  const navs = Array.from(hand.querySelectorAll("[data-nav]"));
  const playable = (el) => el.getAttribute("aria-disabled") !== "true"
    && (el.classList.contains("m-legal") || el.classList.contains("legal"));
  return {
    cards: Array.from(hand.querySelectorAll("[data-code]")).map(e => e.dataset.code),
    buttons: navs.filter(e => e.dataset.code).map(e => e.dataset.code),
    lit: navs.filter(e => e.dataset.code && e.classList.contains("m-legal"))
      .map(e => e.dataset.code),
    playable: navs.filter(playable).map(e => e.dataset.nav),
    words: navs.filter(e => !e.dataset.code).map(e => e.dataset.nav),
    note: (document.getElementById("hand-note") || {}).textContent || "",
    // Where a mouse would click each playable one (its middle, when in view and not
    // covered there by something else).
    spots: Object.fromEntries(navs.filter(playable).map((e) => {
      const r = e.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      const inView = x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
      const top = inView ? document.elementFromPoint(x, y) : null;
      return [e.dataset.nav, inView && top && e.contains(top) ? [x, y] : null];
    })),
  };
}"""

# Everything of the page a person or a screen reader could learn a card from: every
# data-* attribute of every element, every aria-label/title/alt/value, the text (hidden
# too). The motion layer's ghosts (aria-hidden copies of cards that just left the table,
# fading out) apart: ``ghosts``, their codes.
DOM_SCRIPT = """() => {
  const ghost = (el) => !!el.closest(".layer");
  const attrs = [];
  const codes = [];
  const ghosts = [];
  for (const el of document.querySelectorAll("*")) {
    if (el.dataset && el.dataset.code !== undefined) {
      (ghost(el) ? ghosts : codes).push(el.dataset.code);
    }
    if (ghost(el)) continue;
    for (const a of el.attributes) {
      if (a.name.startsWith("data-") || ["aria-label", "title", "alt", "value"].includes(a.name)) {
        attrs.push(a.name + "=" + a.value);
      }
    }
  }
  const texts = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (!ghost(n.parentElement)) texts.push(n.nodeValue);
  }
  return { codes, ghosts, attrs, text: texts.join("\\n"), title: document.title };
}"""

# The cards whose corner (rank and suit) another card covers: each face-up card in view,
# probed near its top-left corner.
COVERED_SCRIPT = """() => {
  const out = [];
  for (const el of document.querySelectorAll("#main .card[data-code]")) {
    const r = el.getBoundingClientRect();
    const x = r.left + 6, y = r.top + 12;
    if (r.width === 0 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    const top = document.elementFromPoint(x, y);
    const over = top && top.closest(".card");
    if (over && over !== el && !el.contains(top)) out.push([el.dataset.code, over.dataset.code]);
  }
  return out;
}"""

AXE_RUN = """async (impacts) => {
  const found = await axe.run(document, { resultTypes: ["violations"] });
  return found.violations.filter(v => impacts.includes(v.impact)).map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 6).map(n => ({ target: n.target.join(" "), html: n.html.slice(0, 160),
                                           summary: n.failureSummary })),
  }));
}"""


class BrowserMissing(RuntimeError):
    """Chromium, Playwright or axe-core is not installed: the browser tests cannot run."""


def missing() -> str | None:
    """What is missing for the browser tests, in words that say how to get it; or None."""
    lacks = []
    if not Path(CHROMIUM).is_file():
        lacks.append(f"Chromium at {CHROMIUM} (apt-get install chromium)")
    if not AXE.is_file():
        lacks.append(f"axe-core at {AXE.relative_to(ROOT)} (npm ci in web/frontend)")
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        lacks.append("Playwright for Python (pip install -e '.[test]')")
    if not lacks:
        return None
    return ("The web table's browser tests need " + "; ".join(lacks)
            + ". .ci/run installs it all: run it, or install what is named.")


def require() -> None:
    why = missing()
    if why is not None:
        raise BrowserMissing(why)


def json_frame(payload: str | bytes) -> dict[str, Any] | None:
    """A WebSocket frame as the page's protocol has it (a JSON object), or None."""
    try:
        frame = json.loads(payload)
    except ValueError:
        return None
    return frame if isinstance(frame, dict) else None


@dataclass
class TablePage:
    """One tab of the page, in a browser context of its own: the WebSocket frames it
    received and sent (every socket it opened, in order), its console errors."""

    page: Page
    name: str
    shots: Path
    received: list[dict[str, Any]] = field(default_factory=list)  # every frame, in order
    sent: list[dict[str, Any]] = field(default_factory=list)  # what the page sent
    errors: list[str] = field(default_factory=list)  # console errors, uncaught exceptions

    def watch(self) -> None:
        def on_socket(ws: WebSocket) -> None:
            def got(payload: str | bytes) -> None:
                frame = json_frame(payload)
                if frame is not None:
                    self.received.append(frame)

            def sent(payload: str | bytes) -> None:
                frame = json_frame(payload)
                if frame is not None:
                    self.sent.append(frame)

            ws.on("framereceived", got)
            ws.on("framesent", sent)

        def on_console(message: Any) -> None:
            if message.type == "error":
                self.errors.append(f"console: {message.text}")

        self.page.on("websocket", on_socket)
        self.page.on("console", on_console)
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))

    @property
    def moves(self) -> list[dict[str, Any]]:
        """The move frames the page sent."""
        return [f for f in self.sent if f.get("type") == "move"]

    async def sent_moves(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """The move frames the page sent, once there are ``count`` (the driver may tell
        of a frame after the server has answered it)."""
        async with asyncio.timeout(timeout):
            while len(self.moves) < count:
                await asyncio.sleep(0.002)
        return self.moves

    @property
    def snapshots(self) -> list[dict[str, Any]]:
        return [f for f in self.received if f.get("type") == "snapshot"]

    async def rendered(self) -> dict[str, Any] | None:
        """The last snapshot the page has rendered: its table, version and status."""
        seen = await self.page.evaluate("() => window.__cardtableSeen.rendered")
        return dict(seen) if seen else None

    async def wait_rendered(self, version: int, timeout_ms: int = TIMEOUT_MS) -> None:
        """Until the page has rendered a snapshot at ``version`` or newer."""
        await self.page.evaluate("([v, ms]) => window.__cardtableSeen.until(v, ms)",
                                 [version, timeout_ms])

    async def state(self, version: int, dom: bool = False,
                    timeout_ms: int = TIMEOUT_MS) -> dict[str, Any]:
        """Once the page has rendered ``version`` (or newer), in one round trip: the
        snapshot it shows (``rendered``), its ``hand`` and, with ``dom``, its ``dom``."""
        got = await self.page.evaluate(
            f"""async ([v, ms, withDom]) => {{
              const rendered = await window.__cardtableSeen.until(v, ms);
              return {{ rendered, hand: ({HAND_SCRIPT})(),
                        dom: withDom ? ({DOM_SCRIPT})() : null }};
            }}""", [version, timeout_ms, dom])
        return dict(got)

    async def hand(self) -> dict[str, Any] | None:
        """What the hand shows (None: no hand, as a spectator's page)."""
        shown = await self.page.evaluate(HAND_SCRIPT)
        return dict(shown) if shown else None

    async def click_move(self, nav: str, hand: dict[str, Any] | None = None) -> None:
        """Click the hand's control ``nav`` ("c:TH", "a:pass") with the mouse: where
        ``hand`` (from ``state``) saw it in view and uncovered, at once (a page without
        motion: nothing moved since); else once Playwright has scrolled to it and seen
        it visible, steady and not covered."""
        spot = (hand or {}).get("spots", {}).get(nav)
        if spot:
            await self.page.mouse.click(spot[0], spot[1])
        else:
            await self.page.locator(f'#hand [data-nav="{nav}"]').click()

    async def focused(self) -> dict[str, Any]:
        """The focused element: its tag, text, data-nav, class, whether it is in the hand."""
        got = await self.page.evaluate("""() => {
          const e = document.activeElement;
          const hand = document.getElementById("hand");
          return { tag: e ? e.tagName : null, text: e ? (e.textContent || "").trim() : "",
                   nav: e && e.dataset ? (e.dataset.nav ?? null) : null,
                   cls: e ? String(e.className) : "",
                   label: e ? e.getAttribute("aria-label") : null,
                   inHand: !!(e && hand && hand.contains(e)) };
        }""")
        return dict(got)

    async def navs(self) -> list[dict[str, Any]]:
        """The hand's controls in order: data-nav, playable, tabIndex."""
        got = await self.page.evaluate("""() => Array.from(
          document.querySelectorAll("#hand [data-nav]")).map(e => ({
            nav: e.dataset.nav, tabIndex: e.tabIndex,
            playable: e.getAttribute("aria-disabled") !== "true"
              && (e.classList.contains("m-legal") || e.classList.contains("legal")) }))""")
        return [dict(n) for n in got]

    async def dom(self) -> dict[str, Any]:
        """The page's card codes, attributes and text, for a privacy scan."""
        return dict(await self.page.evaluate(DOM_SCRIPT))

    async def alert(self) -> str:
        """The error page's sentence, once it shows."""
        box = self.page.locator("main.page-error p[role=alert]")
        await box.wait_for(timeout=TIMEOUT_MS)
        return str(await box.inner_text()).strip()

    async def result(self) -> tuple[str, str] | None:
        """The result box's heading and text (as written, not as styled), when it shows."""
        box = self.page.locator("#result:not([hidden]) .result-card")
        if not await box.count():
            return None
        return (str(await box.locator("h3").text_content()).strip(),
                str(await box.locator(".result-text").text_content()).strip())

    async def covered_corners(self) -> list[tuple[str, str]]:
        """(card, the card over its corner) for each face-up card whose rank another hides."""
        return [(str(a), str(b)) for a, b in await self.page.evaluate(COVERED_SCRIPT)]

    async def settle(self) -> None:
        await self.page.evaluate(SETTLE_SCRIPT)

    async def axe(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations on the page as it is now."""
        require()
        await self.settle()
        if not await self.page.evaluate("() => typeof window.axe === 'object'"):
            # Evaluated by the driver, not a <script>: the page's CSP stays as served.
            await self.page.evaluate(AXE.read_text(encoding="utf-8"))
        found = await self.page.evaluate(AXE_RUN, list(BAD_IMPACTS))
        return [dict(v) for v in found]

    async def screenshot(self, label: str, size: tuple[int, int] | None = None) -> Path:
        """A screenshot of what the viewport shows at ``size`` (the page's own size
        when None), saved in the test's directory and copied to /tmp/webshots; the
        viewport is put back."""
        before = self.page.viewport_size
        if size is not None:
            await self.page.set_viewport_size({"width": size[0], "height": size[1]})
        await self.page.mouse.move(0, 0)  # no card lifted by the pointer left over it
        await self.settle()
        shown = self.page.viewport_size or {"width": 0, "height": 0}
        name = f"{label}-{shown['width']}x{shown['height']}.png"
        path = self.shots / name
        await self.page.screenshot(path=str(path), animations="disabled")
        with contextlib.suppress(OSError):
            SHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, SHOTS / name)
        if size is not None and before is not None:
            await self.page.set_viewport_size(before)
        return path


class Browser:
    """Headless Chromium: ``open`` a URL in a fresh context (as a person's own browser)."""

    def __init__(self, browser: PwBrowser, shots: Path):
        self.browser = browser
        self.shots = shots

    async def open(self, url: str, name: str, size: tuple[int, int] = DESKTOP,
                   reduced_motion: bool = False, wait: bool = True) -> TablePage:
        context = await self.browser.new_context(
            viewport={"width": size[0], "height": size[1]},
            reduced_motion="reduce" if reduced_motion else "no-preference",
            locale="en-US")
        await context.add_init_script(SEEN_SCRIPT)
        page = await context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        tab = TablePage(page, name, self.shots)
        tab.watch()
        await page.goto(url, wait_until="load" if wait else "commit")
        return tab


@asynccontextmanager
async def chromium(shots: Path) -> AsyncIterator[Browser]:
    """Debian's Chromium, headless; screenshots go to ``shots`` (and /tmp/webshots)."""
    require()
    from playwright.async_api import async_playwright

    shots.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                   args=CHROMIUM_ARGS)
        try:
            yield Browser(browser, shots)
        finally:
            await browser.close()
