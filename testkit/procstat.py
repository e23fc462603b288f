"""What a process costs, read from Linux's /proc: CPU seconds and resident memory.

A process's CPU is counted with its descendants (the bot's AI workers, or a picture
pool if it draws in processes; PostgreSQL's backends under the postmaster): the live
ones' own time, and the children that already ended and were waited for, which the
kernel adds to their parent's ``cutime``/``cstime``. Beside it, the time the process's
threads were ready to run but waited for a core (``schedstat``'s run delay): on a
machine other work keeps busy, that is how long the bot was held back by it. Benchmarks
read these before and after a measured window; nothing here is a timed test.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Usage:
    """A process tree's CPU seconds (user + system) and resident bytes, at one moment."""

    cpu: float
    waited: float  # seconds its threads waited for a core, summed (not its children's)
    rss: int  # the process itself
    tree_rss: int  # with its live descendants
    processes: int


def _stat(pid: int) -> list[str] | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:  # gone meanwhile
        return None
    # The command name is in parentheses and may hold spaces: split after its last ")".
    return text[text.rindex(")") + 2:].split()


def _parents() -> dict[int, int]:
    """Every live process's parent."""
    parents = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                parents[int(entry.name)] = int(fields[1])
    return parents


def parent(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[1]) if fields is not None else None


def descendants(pid: int) -> list[int]:
    parents = _parents()
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, of in parents.items() if of == parent]
        found += children
        frontier += children
    return found


def cpu_seconds(pid: int, waited_children: bool = True) -> float:
    """User + system seconds of one process (and of its children it waited for)."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    # Fields 14-17 of stat(5), counted from 1 with the pid and the name before.
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
    return (utime + stime + ((cutime + cstime) if waited_children else 0)) / TICKS


def rss_bytes(pid: int) -> int:
    """VmRSS: the process's resident memory now (0 once it is gone)."""
    fields = _stat(pid)
    return int(fields[21]) * PAGE if fields is not None else 0


def run_delay(pid: int) -> float:
    """Seconds the process's threads spent ready to run, waiting for a core."""
    waited = 0
    with contextlib.suppress(OSError):
        for task in (PROC / str(pid) / "task").iterdir():
            with contextlib.suppress(OSError, ValueError, IndexError):
                waited += int((task / "schedstat").read_text().split()[1])
    return waited / 1e9


def usage(pid: int) -> Usage:
    """The CPU and memory of ``pid`` and everything it started that still runs."""
    tree = descendants(pid)
    cpu = cpu_seconds(pid) + sum(cpu_seconds(child) for child in tree)
    rss = rss_bytes(pid)
    return Usage(cpu, run_delay(pid), rss, rss + sum(rss_bytes(child) for child in tree),
                 1 + len(tree))
