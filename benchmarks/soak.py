"""The kill soak: ``python -m benchmarks soak [--tables 20] [--kills 100] [--pg-restarts 5]
[--backend sqlite|postgres|both] [--seed N] [--sabotage lose|twice|record|stop]``.

Tables of all four games played by simulated people on the fake Discord while the bot
process is SIGKILLed at random moments and PostgreSQL is stopped and started under it
(``testkit.soak``). Prints, per backend, the moves lost, the moves applied twice, the
games recorded twice, the tables that stopped (and the other findings: moves applied
though refused, games missing, chips that do not add up, results posted twice or never),
with the wall time, then why each count is what it is. A long run, not a test (the
short one is ``tests/e2e/test_soak.py``); any count above 0 makes the exit status 1, and
the run's folder (the database, the bot's log) is kept and named.

``--sabotage`` runs a bot broken on purpose (``testkit.soak_sabotage``): its count must
come out above 0, which shows that the soak counts it.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

from testkit.pgcluster import PostgresCluster
from testkit.soak import FULL, Plan, Report, soak
from testkit.soak_judge import Counts

SHOWN_REASONS = 40  # the reasons printed; every one is in the run folder's why.txt


def table(reports: list[Report]) -> str:
    """The counts of each backend, one row each."""
    names = ["backend", *Counts.HEADLINE, "other", "games", "moves", "kills", "pg", "wall s"]
    rows = [names]
    for r in reports:
        counts = r.counts.as_dict()
        rows.append([r.backend, *(str(counts[n]) for n in Counts.HEADLINE),
                     str(sum(counts[n] for n in Counts.OTHER)), str(r.games), str(r.moves),
                     str(sum(r.kills.values())), str(r.database_restarts),
                     f"{r.seconds:.0f}"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(names))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True))
                     for row in rows)


async def _run(plan: Plan, backends: list[str]) -> tuple[list[Report], Path]:
    folder = Path(tempfile.mkdtemp(prefix="cardtable-soak-"))
    reports = []
    for backend in backends:
        if backend == "postgres":
            with PostgresCluster(crash_safe=True) as cluster:
                reports.append(await soak(plan, backend, folder / backend, cluster))
        else:
            reports.append(await soak(plan, backend, folder / backend))
    return reports, folder


def run(tables: int, kills: int, pg_restarts: int, backend: str, seed: int,
        sabotage: str | None = None) -> dict[str, Any]:
    plan = Plan(tables=tables, kills=kills, database_restarts=pg_restarts, seed=seed,
                options=FULL, sabotage=sabotage)
    backends = ["sqlite", "postgres"] if backend == "both" else [backend]
    reports, folder = asyncio.run(_run(plan, backends))
    print(table(reports))
    failed = any(r.counts.failed for r in reports)
    for r in reports:
        if r.counts.why:
            (folder / r.backend / "why.txt").write_text("\n".join(r.counts.why) + "\n")
            print(f"\n{r.backend}: {len(r.counts.why)} finding(s)")
            for why in r.counts.why[:SHOWN_REASONS]:
                print(f"  {why}")
    if failed:
        print(f"\nkept for a look: {folder} (each backend: its database, bot.log, why.txt)")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return {"benchmark": "soak", "failed": failed,
            **{r.backend: r.summary() for r in reports}}
