"""How the benchmarks that time clicks report them: milliseconds, p50 / p99 / max."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def ms(seconds: float | None, digits: int = 1) -> float | None:
    return None if seconds is None else round(seconds * 1000, digits)


def quantiles(values: Sequence[float], digits: int = 1) -> dict[str, float | None]:
    """p50, p99 (the value below which 99 % fall) and max of ``values`` (seconds), in ms."""
    ordered = sorted(values)
    if not ordered:
        return {"p50_ms": None, "p99_ms": None, "max_ms": None}
    return {"p50_ms": ms(statistics.median(ordered), digits),
            "p99_ms": ms(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], digits),
            "max_ms": ms(ordered[-1], digits)}
