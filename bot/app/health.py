"""The health and metrics endpoint: a tiny HTTP server inside the bot's event loop.

Off by default; on when the setting ``HEALTH_PORT`` is set (``HEALTH_HOST``, default
127.0.0.1, is the address it listens on; 0.0.0.0 in a container). Two paths:

* ``GET /healthz``: ``200 ok`` while the bot is ready (connected to Discord and set
  up: a callable the bot hands in says so), ``503 not ready`` otherwise;
* ``GET /metrics``: the Prometheus text exposition format (version 0.0.4).

``Metrics`` keeps the counters and the histograms; the bot counts into it
(``count_move``, ``count_interaction``, ``count_error``, ``observe_answer``) and
hands it callables for the gauges (``watch``), read at every scrape.
``HealthServer(metrics, ready, host, port)`` serves both paths with aiohttp (which
discord.py already depends on): ``await start()``, ``await close()``. While it
serves, a ``LoopLag`` task measures how late the event loop wakes it (every click,
edit and save waits that long too): ``cardtable_loop_lag_seconds``.

``python -m bot.app.health [PATH]`` asks the running bot's endpoint for PATH (default
``/healthz``) and exits 0 on ``200``, 1 otherwise: the container's HEALTHCHECK.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import math
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import TypeVar

from aiohttp import web

log = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# Seconds to answer an interaction. Discord wants an answer (or a defer) within 3 s,
# so the buckets are dense below it; the ones above show how late the late ones were.
ANSWER_BUCKETS: tuple[float, ...] = (0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0,
                                     5.0, 10.0)
# How late the event loop wakes a task that slept: dense where a click's answer starts
# to suffer (tens of ms), up to the seconds of a loop that is stuck.
LAG_BUCKETS: tuple[float, ...] = (0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03,
                                  0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0)
LAG_INTERVAL = 0.05  # seconds the lag monitor sleeps between two measurements
# Statuses always reported by cardtable_live_tables (0 when there is none), so the
# series never vanish; any other status the callable returns is reported too.
TABLE_STATUSES: tuple[str, ...] = ("lobby", "playing")

S = TypeVar("S")
T = TypeVar("T")
LiveTables = Callable[[], Mapping[str, int]]
Latency = Callable[[], float]


class Histogram:
    """A Prometheus histogram: counts per bucket (upper bounds), the sum and the count."""

    def __init__(self, buckets: Sequence[float]):
        bounds = sorted(float(b) for b in buckets)
        if not bounds or len(set(bounds)) != len(bounds) or any(math.isnan(b) for b in bounds):
            raise ValueError(f"histogram buckets must be distinct numbers, not {buckets!r}")
        if bounds[-1] != math.inf:
            bounds.append(math.inf)
        self.bounds = tuple(bounds)
        self._counts = [0] * len(bounds)
        self.sum = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        if math.isnan(value):
            return
        value = max(0.0, value)
        for i, bound in enumerate(self.bounds):
            if value <= bound:
                self._counts[i] += 1
                break
        self.sum += value
        self.count += 1

    def cumulative(self) -> list[tuple[float, int]]:
        """(upper bound, observations ≤ it) for every bucket; the last bound is +Inf."""
        total, out = 0, []
        for bound, n in zip(self.bounds, self._counts, strict=True):
            total += n
            out.append((bound, total))
        return out


class Metrics:
    """What ``/metrics`` shows. Counting is plain attribute arithmetic: call it from the
    event loop. The gauges are read from callables at every scrape; one that raises is
    left out of that scrape (and logged once) rather than failing the scrape."""

    def __init__(self, *, live_tables: LiveTables | None = None,
                 gateway_latency: Latency | None = None, busy: Callable[[], bool] | None = None,
                 answer_buckets: Sequence[float] = ANSWER_BUCKETS,
                 table_statuses: Iterable[str] = TABLE_STATUSES):
        self.moves = 0
        self.interactions = 0
        self.errors = 0
        self.answers = Histogram(answer_buckets)
        self.loop_lag = Histogram(LAG_BUCKETS)
        self.table_statuses = tuple(table_statuses)
        self._live_tables: LiveTables | None = None
        self._gateway_latency: Latency | None = None
        self._busy: Callable[[], bool] | None = None
        self._failing: set[str] = set()
        self.watch(live_tables=live_tables, gateway_latency=gateway_latency, busy=busy)

    def watch(self, *, live_tables: LiveTables | None = None,
              gateway_latency: Latency | None = None,
              busy: Callable[[], bool] | None = None) -> None:
        """Give the gauges their sources (at start, once the bot has them): ``live_tables``
        returns the number of live tables by status, ``gateway_latency`` the gateway's
        heartbeat latency in seconds (discord.py's ``Client.latency``)."""
        if live_tables is not None:
            self._live_tables = live_tables
        if gateway_latency is not None:
            self._gateway_latency = gateway_latency
        if busy is not None:
            self._busy = busy

    def count_move(self, n: int = 1) -> None:
        self.moves += n

    def count_interaction(self) -> None:
        self.interactions += 1

    def count_error(self) -> None:
        self.errors += 1

    def observe_answer(self, seconds: float) -> None:
        """How long the bot took to answer one interaction (negative: clock skew, taken as 0)."""
        self.answers.observe(seconds)

    def observe_loop_lag(self, seconds: float) -> None:
        """How late the event loop woke the lag monitor once (``LoopLag``)."""
        self.loop_lag.observe(seconds)

    # -- the exposition ----------------------------------------------------------------

    def render(self) -> str:
        """The Prometheus text exposition of every metric."""
        out: list[str] = []
        tables = self._read("cardtable_live_tables", self._live_tables,
                            lambda raw: {str(k): int(v) for k, v in raw.items()})
        if tables is not None:
            by_status = {status: 0 for status in self.table_statuses}
            by_status.update(tables)
            _family(out, "cardtable_live_tables", "gauge",
                    "Tables open now (in memory), by status.")
            for status, n in sorted(by_status.items()):
                out.append(f'cardtable_live_tables{{status="{_label(status)}"}} {n}')
        _family(out, "cardtable_moves_total", "counter",
                "Moves played since the bot started.")
        out.append(f"cardtable_moves_total {self.moves}")
        _family(out, "cardtable_interactions_total", "counter",
                "Interactions (slash commands, button presses, menu choices) received.")
        out.append(f"cardtable_interactions_total {self.interactions}")
        _family(out, "cardtable_interaction_errors_total", "counter",
                "Interactions that ended in an error.")
        out.append(f"cardtable_interaction_errors_total {self.errors}")
        _histogram(out, "cardtable_interaction_answer_seconds", self.answers,
                   "Seconds the bot took to answer an interaction (Discord allows 3).")
        _histogram(out, "cardtable_loop_lag_seconds", self.loop_lag,
                   f"Seconds the event loop woke a task sleeping {LAG_INTERVAL:g} s late "
                   "(every click waits as long), sampled while the endpoint serves.")
        latency = self._read("cardtable_gateway_latency_seconds", self._gateway_latency, float)
        if latency is not None:
            _family(out, "cardtable_gateway_latency_seconds", "gauge",
                    "Latency of the Discord gateway's heartbeat, in seconds.")
            out.append(f"cardtable_gateway_latency_seconds {_number(latency)}")
        busy = self._read("cardtable_busy", self._busy, bool)
        if busy is not None:
            _family(out, "cardtable_busy", "gauge",
                    "1 while the bot is starting or a step, a bot move, a table edit or a "
                    "save is under way; 0 when it has nothing left to do.")
            out.append(f"cardtable_busy {int(busy)}")
        return "\n".join(out) + "\n"

    def _read(self, name: str, source: Callable[[], S] | None,
              convert: Callable[[S], T]) -> T | None:
        if source is None:
            return None
        try:
            value = convert(source())
        except Exception:
            if name not in self._failing:
                self._failing.add(name)
                log.warning("metric %s left out: its source failed", name, exc_info=True)
            return None
        self._failing.discard(name)
        return value


def _histogram(out: list[str], name: str, histogram: Histogram, help_text: str) -> None:
    _family(out, name, "histogram", help_text)
    for bound, n in histogram.cumulative():
        out.append(f'{name}_bucket{{le="{_number(bound)}"}} {n}')
    out.append(f"{name}_sum {_number(histogram.sum)}")
    out.append(f"{name}_count {histogram.count}")


def _family(out: list[str], name: str, kind: str, help_text: str) -> None:
    out.append(f"# HELP {name} {help_text.replace(chr(92), chr(92) * 2)}")
    out.append(f"# TYPE {name} {kind}")


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))


def local_url(host: str, port: int) -> str:
    """``http://host:port`` as seen from this machine: a wildcard host is the loopback."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


# -- the event loop's lag ------------------------------------------------------------------


class LoopLag:
    """A task that sleeps ``interval`` seconds again and again and hands ``observe`` how
    much later than asked the loop woke it: the time any ready callback (a click, a
    save's result) waits behind the loop's other work. ``start`` in a running loop,
    ``await stop()``."""

    def __init__(self, observe: Callable[[float], None], interval: float = LAG_INTERVAL):
        self.observe = observe
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="loop lag")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.interval
            await asyncio.sleep(self.interval)
            self.observe(max(0.0, loop.time() - due))


# -- the server --------------------------------------------------------------------------


class HealthServer:
    """``/healthz`` and ``/metrics`` on ``host:port`` (port 0: any free port; read
    ``port`` after ``start``). Runs in the current event loop; no access log."""

    def __init__(self, metrics: Metrics, ready: Callable[[], bool | Awaitable[bool]],
                 host: str = "127.0.0.1", port: int = 0):
        self.metrics = metrics
        self.ready = ready
        self.host = host
        self._port = port
        self._runner: web.AppRunner | None = None
        self._lag = LoopLag(metrics.observe_loop_lag)

    @property
    def port(self) -> int:
        """The bound port (the one asked for, or the one the system chose for 0)."""
        if self._runner is None:
            return self._port
        addresses = self._runner.addresses
        return int(addresses[0][1]) if addresses else self._port

    @property
    def url(self) -> str:
        """Where this machine reaches the endpoint (the loopback for a wildcard host)."""
        return local_url(self.host, self.port)

    async def start(self) -> None:
        if self._runner is not None:
            return
        app = web.Application()
        app.router.add_get(HEALTH_PATH, self._healthz)
        app.router.add_get(METRICS_PATH, self._metrics)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self._port).start()
        except OSError as error:
            await runner.cleanup()
            raise OSError(error.errno, f"the health endpoint cannot listen on "
                          f"{self.host}:{self._port} (HEALTH_HOST, HEALTH_PORT): "
                          f"{error.strerror or error}") from error
        self._runner = runner
        self._lag.start()
        log.info("health endpoint on %s (%s, %s)", self.url, HEALTH_PATH, METRICS_PATH)

    async def close(self) -> None:
        runner, self._runner = self._runner, None
        await self._lag.stop()
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> HealthServer:
        await self.start()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    async def _is_ready(self) -> bool:
        try:
            ready = self.ready()
            return bool(await ready if inspect.isawaitable(ready) else ready)
        except Exception:
            log.warning("the readiness check failed", exc_info=True)
            return False

    async def _healthz(self, request: web.Request) -> web.Response:
        ready = await self._is_ready()
        return web.Response(status=200 if ready else 503, text="ok\n" if ready else
                            "not ready\n", headers={"Cache-Control": "no-store"})

    async def _metrics(self, request: web.Request) -> web.Response:
        return web.Response(body=self.metrics.render().encode("utf-8"),
                            headers={"Content-Type": CONTENT_TYPE, "Cache-Control": "no-store"})


# -- python -m bot.app.health: the probe -------------------------------------------------------


def probe(path: str = HEALTH_PATH, env: Mapping[str, str] | None = None,
          timeout: float = 5.0) -> int:
    """Ask the running bot's endpoint for ``path``: 0 if it answers 200, 1 if not, 2 if
    the endpoint is switched off. Reads HEALTH_PORT and HEALTH_HOST like the bot
    (the environment, then ``.env``); a wildcard host is asked on the loopback."""
    from bot.config.settings import SettingsError, health_host, health_port

    if env is None:
        from dotenv import dotenv_values, find_dotenv

        file_values = dotenv_values(find_dotenv(usecwd=True))
        env = {**{k: v for k, v in file_values.items() if v is not None}, **os.environ}
    try:
        port = health_port(env.get("HEALTH_PORT", ""))
        host = health_host(env.get("HEALTH_HOST", ""))
    except SettingsError as error:
        print(error.code, file=sys.stderr)
        return 2
    if port is None:
        print("HEALTH_PORT is not set: the health endpoint is off.", file=sys.stderr)
        return 2
    if not path.startswith("/"):
        path = "/" + path
    url = local_url(host, port) + path
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
    try:
        with opener.open(url, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    except (OSError, ValueError) as error:
        print(f"{url}: {error}", file=sys.stderr)
        return 1
    print(f"{url}: {status}")
    return 0 if status == 200 else 1


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or (args and args[0] in ("-h", "--help")):
        print("usage: python -m bot.app.health [PATH]   (PATH: /healthz, the default, or /metrics)",
              file=sys.stderr)
        return 2
    return probe(args[0] if args else HEALTH_PATH)


if __name__ == "__main__":
    sys.exit(main())
