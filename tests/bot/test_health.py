"""The health and metrics endpoint, served for real on 127.0.0.1 (an ephemeral port)."""

from __future__ import annotations

import asyncio
import math
import re
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import aiohttp
import pytest

from bot.app import health
from bot.app.health import CONTENT_TYPE, HEALTH_PATH, METRICS_PATH, HealthServer, Metrics

# -- a strict reader of the Prometheus text exposition format (version 0.0.4) ------------

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"'
_SAMPLE = re.compile(rf"({_NAME})(?:\{{((?:{_LABEL})(?:,{_LABEL})*)?\}})? (\S+)")
_COMMENT = re.compile(rf"# (HELP|TYPE) ({_NAME})(?: (.*))?")
_TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


@dataclass
class Family:
    name: str
    kind: str
    help: str = ""
    samples: list[tuple[str, dict[str, str], float]] = field(default_factory=list)


def _value(text: str) -> float:
    if text in ("NaN", "+Inf", "-Inf"):
        return float(text.replace("Inf", "inf").replace("NaN", "nan"))
    assert re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text), text
    return float(text)


def _family_of(sample: str, kind: str) -> str:
    if kind == "histogram":
        for suffix in ("_bucket", "_sum", "_count"):
            if sample.endswith(suffix):
                return sample.removesuffix(suffix)
    return sample


def parse_exposition(text: str) -> dict[str, Family]:
    """Every family by name; fails on anything the format does not allow."""
    assert text.endswith("\n"), "the exposition ends with a line feed"
    families: dict[str, Family] = {}
    helps: dict[str, str] = {}
    current: Family | None = None
    for line in text.splitlines():
        assert line == line.strip() and line, f"stray blank or spaces: {line!r}"
        if line.startswith("#"):
            match = _COMMENT.fullmatch(line)
            assert match, f"bad comment line {line!r}"
            what, name, rest = match.groups()
            if what == "HELP":
                assert name not in helps, f"two HELP lines for {name}"
                helps[name] = rest or ""
            else:
                assert rest in _TYPES, f"bad TYPE {rest!r}"
                assert name not in families, f"{name} declared twice (families are contiguous)"
                current = families[name] = Family(name, rest, helps.get(name, ""))
            continue
        match = _SAMPLE.fullmatch(line)
        assert match, f"bad sample line {line!r}"
        sample, labels_text, value = match.groups()
        assert current is not None and _family_of(sample, current.kind) == current.name, \
            f"{sample} is not under its own TYPE line"
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"',
                                 labels_text or ""))
        current.samples.append((sample, labels, _value(value)))
    for name in helps:
        assert name in families, f"HELP for {name} without a TYPE"
    return families


def check_histogram(family: Family) -> tuple[list[tuple[float, float]], float, float]:
    """The histogram's rules: buckets ascending and cumulative, +Inf last and = count."""
    buckets = [(_value(labels["le"]), v) for sample, labels, v in family.samples
               if sample == family.name + "_bucket"]
    sums = [v for sample, _, v in family.samples if sample == family.name + "_sum"]
    counts = [v for sample, _, v in family.samples if sample == family.name + "_count"]
    assert len(sums) == 1 and len(counts) == 1, "one _sum and one _count"
    bounds = [b for b, _ in buckets]
    assert bounds == sorted(bounds) and len(set(bounds)) == len(bounds), "le ascending"
    assert bounds and bounds[-1] == math.inf, "the last bucket is +Inf"
    values = [v for _, v in buckets]
    assert values == sorted(values), "buckets are cumulative"
    assert values[-1] == counts[0], "the +Inf bucket is the count"
    return buckets, sums[0], counts[0]


# -- the server on an ephemeral port --------------------------------------------------


@dataclass
class Served:
    server: HealthServer
    session: aiohttp.ClientSession

    async def get(self, path: str) -> tuple[int, str, str]:
        async with self.session.get(self.server.url + path) as response:
            return response.status, response.headers.get("Content-Type", ""), \
                await response.text()


@dataclass
class State:
    """What the bot would report: whether it is ready, its tables, its latency."""

    ready: bool = False
    tables: dict[str, int] = field(default_factory=lambda: {"playing": 2, "lobby": 1})
    latency: float = 0.042


@pytest.fixture
def state() -> State:
    return State()


@pytest.fixture
async def served(state: State) -> AsyncIterator[Served]:
    metrics = Metrics(live_tables=lambda: state.tables, gateway_latency=lambda: state.latency)
    server = HealthServer(metrics, lambda: state.ready, host="127.0.0.1", port=0)
    await server.start()
    try:
        async with aiohttp.ClientSession() as session:
            yield Served(server, session)
    finally:
        await server.close()


async def test_the_bound_port_is_read_back(served: Served):
    assert served.server.port > 0
    assert served.server.url == f"http://127.0.0.1:{served.server.port}"


async def test_healthz_is_503_until_the_bot_is_ready_then_200_ok(served, state):
    status, _, body = await served.get(HEALTH_PATH)
    assert status == 503 and body == "not ready\n"
    state.ready = True
    status, _, body = await served.get(HEALTH_PATH)
    assert (status, body) == (200, "ok\n")
    state.ready = False
    assert (await served.get(HEALTH_PATH))[0] == 503


async def test_a_readiness_check_that_raises_means_not_ready():
    def broken() -> bool:
        raise RuntimeError("no croupier yet")

    async with HealthServer(Metrics(), broken, "127.0.0.1", 0) as server, \
            aiohttp.ClientSession() as session, \
            session.get(server.url + HEALTH_PATH) as response:
        assert response.status == 503


async def test_other_paths_are_404(served):
    assert (await served.get("/"))[0] == 404
    assert (await served.get("/admin"))[0] == 404


async def test_metrics_is_prometheus_text_with_every_metric(served: Served):
    metrics = served.server.metrics
    for _ in range(3):
        metrics.count_interaction()
    metrics.count_error()
    metrics.count_move()
    metrics.count_move(2)
    for seconds in (0.01, 0.2, 0.2, 2.9, 3.5, 42.0):
        metrics.observe_answer(seconds)
    status, content_type, text = await served.get(METRICS_PATH)
    assert status == 200 and content_type == CONTENT_TYPE
    families = parse_exposition(text)
    assert {name: f.kind for name, f in families.items()} == {
        "cardtable_live_tables": "gauge",
        "cardtable_moves_total": "counter",
        "cardtable_interactions_total": "counter",
        "cardtable_interaction_errors_total": "counter",
        "cardtable_interaction_answer_seconds": "histogram",
        "cardtable_loop_lag_seconds": "histogram",
        "cardtable_gateway_latency_seconds": "gauge",
    }
    assert all(f.help for f in families.values())

    def single(name: str) -> float:
        (sample,) = families[name].samples
        return sample[2]

    assert single("cardtable_moves_total") == 3
    assert single("cardtable_interactions_total") == 3
    assert single("cardtable_interaction_errors_total") == 1
    assert single("cardtable_gateway_latency_seconds") == pytest.approx(0.042)
    tables = {labels["status"]: v for _, labels, v in families["cardtable_live_tables"].samples}
    assert tables == {"lobby": 1, "playing": 2}
    buckets, total, count = check_histogram(families["cardtable_interaction_answer_seconds"])
    assert count == 6 and total == pytest.approx(48.81)
    by_bound = dict(buckets)
    assert 3.0 in by_bound, "a bucket at Discord's 3 s"
    assert by_bound[3.0] == 4 and by_bound[0.25] == 3 and by_bound[0.05] == 1
    assert len([b for b in by_bound if b <= 3.0]) >= 6, "dense below 3 s"


async def test_counters_only_grow_between_scrapes(served: Served):
    before = parse_exposition((await served.get(METRICS_PATH))[2])
    served.server.metrics.count_interaction()
    served.server.metrics.observe_answer(0.3)
    after = parse_exposition((await served.get(METRICS_PATH))[2])
    assert after["cardtable_interactions_total"].samples[0][2] == \
        before["cardtable_interactions_total"].samples[0][2] + 1
    assert check_histogram(after["cardtable_interaction_answer_seconds"])[2] == \
        check_histogram(before["cardtable_interaction_answer_seconds"])[2] + 1


async def test_the_usual_statuses_are_there_at_zero_and_others_are_added(served, state):
    state.tables = {"finished": 1}
    families = parse_exposition((await served.get(METRICS_PATH))[2])
    tables = {labels["status"]: v for _, labels, v in families["cardtable_live_tables"].samples}
    assert tables == {"lobby": 0, "playing": 0, "finished": 1}


async def test_a_latency_before_the_first_heartbeat_is_nan_and_still_parses(served, state):
    state.latency = math.nan
    families = parse_exposition((await served.get(METRICS_PATH))[2])
    assert math.isnan(families["cardtable_gateway_latency_seconds"].samples[0][2])
    state.latency = math.inf
    families = parse_exposition((await served.get(METRICS_PATH))[2])
    assert families["cardtable_gateway_latency_seconds"].samples[0][2] == math.inf


async def test_a_gauge_whose_source_fails_is_left_out_and_the_scrape_still_answers(
        served, state, caplog):
    def broken() -> float:
        raise RuntimeError("not connected")

    served.server.metrics.watch(gateway_latency=broken)
    for _ in range(2):
        status, _, text = await served.get(METRICS_PATH)
        assert status == 200
        families = parse_exposition(text)
        assert "cardtable_gateway_latency_seconds" not in families
        assert "cardtable_moves_total" in families
    failures = [r for r in caplog.records if "cardtable_gateway_latency_seconds" in r.message]
    assert len(failures) == 1, "logged once, not at every scrape"


def test_metrics_without_sources_has_the_counters_only():
    families = parse_exposition(Metrics().render())
    assert "cardtable_live_tables" not in families
    assert "cardtable_gateway_latency_seconds" not in families
    buckets, total, count = check_histogram(families["cardtable_interaction_answer_seconds"])
    assert count == 0 and total == 0 and all(v == 0 for _, v in buckets)


def test_label_values_are_escaped():
    metrics = Metrics(live_tables=lambda: {'odd "status"\\\n': 1})
    families = parse_exposition(metrics.render())
    statuses = [labels["status"] for _, labels, _ in families["cardtable_live_tables"].samples]
    assert r'odd \"status\"\\\n' in statuses


def test_answer_times_clamp_clock_skew_and_ignore_nan():
    metrics = Metrics(answer_buckets=(1.0, 3.0))
    metrics.observe_answer(-0.5)
    metrics.observe_answer(math.nan)
    metrics.observe_answer(3.0)
    assert metrics.answers.cumulative() == [(1.0, 1), (3.0, 2), (math.inf, 2)]
    assert metrics.answers.count == 2 and metrics.answers.sum == 3.0


@pytest.mark.parametrize("buckets", [(), (1.0, 1.0), (math.nan,)])
def test_bad_buckets_are_refused(buckets):
    with pytest.raises(ValueError, match="buckets"):
        Metrics(answer_buckets=buckets)


# -- the event loop's lag ------------------------------------------------------------


async def test_a_blocked_loop_shows_in_the_lag_histogram(served: Served):
    """The endpoint's lag monitor: a loop held for 0.3 s wakes it at least 0.25 s late
    (it asked for 0.05 s), and the scrape says so."""
    lag = served.server.metrics.loop_lag
    await asyncio.sleep(0.12)  # a few wake-ups of an idle loop
    before = lag.count
    assert before >= 1
    time.sleep(0.3)  # the whole loop is stuck, as behind a long synchronous step
    await asyncio.sleep(0.12)
    families = parse_exposition((await served.get(METRICS_PATH))[2])
    buckets, total, count = check_histogram(families["cardtable_loop_lag_seconds"])
    by_bound = dict(buckets)
    assert count > before
    assert by_bound[0.2] < count, "the late wake-up is above 0.2 s"
    assert total >= 0.25


async def test_the_lag_monitor_runs_while_the_endpoint_serves_only():
    metrics = Metrics()
    server = HealthServer(metrics, lambda: True, "127.0.0.1", 0)
    await asyncio.sleep(0.12)
    assert metrics.loop_lag.count == 0, "not before start"
    await server.start()
    await asyncio.sleep(0.12)
    assert metrics.loop_lag.count >= 1
    await server.close()
    stopped = metrics.loop_lag.count
    await asyncio.sleep(0.12)
    assert metrics.loop_lag.count == stopped, "not after close"


async def test_loop_lag_hands_each_measurement_to_its_observer():
    seen: list[float] = []
    monitor = health.LoopLag(seen.append, interval=0.01)
    monitor.start()
    monitor.start()  # once
    await asyncio.sleep(0.05)
    time.sleep(0.1)
    await asyncio.sleep(0.03)
    await monitor.stop()
    await monitor.stop()
    assert seen and min(seen) >= 0
    assert max(seen) >= 0.09, "the blocked wake-up is reported whole"


# -- lifecycle ------------------------------------------------------------------------


async def test_close_frees_the_port_and_start_and_close_are_idempotent():
    server = HealthServer(Metrics(), lambda: True, "127.0.0.1", 0)
    await server.start()
    await server.start()
    port = server.port
    await server.close()
    await server.close()
    with socket.create_server(("127.0.0.1", port)):
        pass  # the port is free again
    again = HealthServer(Metrics(), lambda: True, "127.0.0.1", port)
    async with again, aiohttp.ClientSession() as session, \
            session.get(again.url + HEALTH_PATH) as response:
        assert response.status == 200


async def test_a_port_in_use_is_a_clear_error():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        server = HealthServer(Metrics(), lambda: True, "127.0.0.1", port)
        with pytest.raises(OSError, match="HEALTH_PORT"):
            await server.start()
        await server.close()


@pytest.mark.parametrize(("host", "url"), [
    ("127.0.0.1", "http://127.0.0.1:80"), ("0.0.0.0", "http://127.0.0.1:80"),
    ("::", "http://[::1]:80"), ("::1", "http://[::1]:80"), ("localhost", "http://localhost:80"),
])
def test_local_url(host, url):
    assert health.local_url(host, 80) == url


# -- python -m bot.app.health: the container's HEALTHCHECK ----------------------------------


async def _probe(*args: object) -> int:
    call: Callable[..., int] = health.probe
    return await asyncio.to_thread(call, *args)


async def test_the_probe_exits_0_when_ready_and_1_when_not(served, state, capsys):
    env = {"HEALTH_PORT": str(served.server.port), "HEALTH_HOST": "0.0.0.0"}
    assert await _probe(HEALTH_PATH, env) == 1
    state.ready = True
    assert await _probe(HEALTH_PATH, env) == 0
    assert await _probe("metrics", env) == 0  # the leading / is added
    assert f":{served.server.port}/healthz: 200" in capsys.readouterr().out


async def test_the_probe_fails_when_nothing_listens():
    with socket.create_server(("127.0.0.1", 0)) as probe_socket:
        port = probe_socket.getsockname()[1]
    assert await _probe(HEALTH_PATH, {"HEALTH_PORT": str(port)}, 2.0) == 1


@pytest.mark.parametrize(("env", "text"), [
    ({}, "HEALTH_PORT is not set"),
    ({"HEALTH_PORT": "http"}, "HEALTH_PORT must be"),
])
def test_the_probe_says_when_the_endpoint_is_off_or_misconfigured(env, text, capsys):
    assert health.probe(HEALTH_PATH, env) == 2
    assert text in capsys.readouterr().err


def test_the_probe_usage(capsys):
    assert health.main(["/healthz", "/metrics"]) == 2
    assert "usage" in capsys.readouterr().err


def test_a_gauge_source_returning_nonsense_is_left_out_too():
    metrics = Metrics(live_tables=lambda: {"playing": "many"},  # type: ignore[dict-item]
                      gateway_latency=lambda: "fast")  # type: ignore[arg-type,return-value]
    families = parse_exposition(metrics.render())
    assert "cardtable_live_tables" not in families
    assert "cardtable_gateway_latency_seconds" not in families
