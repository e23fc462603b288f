"""A bot process's /metrics, read as a benchmark needs them: counters and histograms at
one moment, and what happened between two moments (a histogram's quantiles as the
bucket they fall in, since a histogram keeps no more than that)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import aiohttp

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{le="([^"]+)"\})? (\S+)$')


@dataclass
class Scrape:
    """Plain samples by name, and each histogram's cumulative buckets (bound → count)."""

    values: dict[str, float] = field(default_factory=dict)
    buckets: dict[str, dict[float, float]] = field(default_factory=dict)

    def value(self, name: str) -> float:
        return self.values.get(name, 0.0)

    def histogram(self, name: str) -> dict[float, float]:
        return self.buckets.get(name, {})


def parse(text: str) -> Scrape:
    scrape = Scrape()
    for line in text.splitlines():
        found = SAMPLE.match(line)
        if found is None:
            continue  # comments, and samples with other labels
        name, le, value = found.groups()
        if le is not None and name.endswith("_bucket"):
            bound = math.inf if le == "+Inf" else float(le)
            scrape.buckets.setdefault(name.removesuffix("_bucket"), {})[bound] = float(value)
        elif le is None:
            scrape.values[name] = float(value)
    return scrape


async def scrape(port: int) -> Scrape:
    async with aiohttp.ClientSession() as http, \
            http.get(f"http://127.0.0.1:{port}/metrics") as response:
        return parse(await response.text())


def between(before: dict[float, float], after: dict[float, float]) -> dict[float, float]:
    """The cumulative buckets of what was observed between two scrapes."""
    return {bound: after[bound] - before.get(bound, 0.0) for bound in sorted(after)}


def quantile_bound(buckets: dict[float, float], q: float) -> float | None:
    """The upper bound of the bucket holding the ``q`` quantile (None: nothing observed)."""
    total = buckets.get(math.inf, 0.0)
    if total <= 0:
        return None
    for bound in sorted(buckets):
        if buckets[bound] >= q * total:
            return bound
    return math.inf


def share_above(buckets: dict[float, float], bound: float) -> float | None:
    """The share of observations above ``bound`` (one of the buckets' bounds)."""
    total = buckets.get(math.inf, 0.0)
    if total <= 0 or bound not in buckets:
        return None
    return (total - buckets[bound]) / total
