"""Inside the bot process of the load benchmark: ``python -m bot`` as in production, and
what the benchmark asks of it through the environment.

* ``CARDTABLE_LOAD_RATE``: the bot's request budget (``Timing.request_rate``); the rest
  of the product's timing is kept.
* ``CARDTABLE_LOAD_PROFILE`` (a file): the measured window profiled, with cProfile (its
  stats) or, with ``CARDTABLE_LOAD_PROFILER=sample``, by sampling the event loop
  thread's stack at every 5 ms of the process's CPU time (SIGPROF, handled in that
  thread; each sample weighed by that thread's CPU time since the one before, so a long
  C call, a picture's quantize, is one sample that weighs what it took). One line
  "seconds<TAB>file:function;file:function..." (outermost first) per stack. With
  ``memory``, what the bot holds when the window closes: its Python objects by type and
  its pictures' caches (``memory``).
* ``CARDTABLE_LOAD_TIMED`` ("module:Class.method,..."): the wall time of each call of
  those coroutine methods (or, for a method returning an async context manager such as
  a lock's ``hold``, of entering it), written as JSON to ``CARDTABLE_LOAD_TIMED_OUT``:
  where a click waits, which a CPU profile cannot show.

The window is opened by a first SIGUSR1 and closed (the results written) by a second.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import gc
import importlib
import inspect
import json
import os
import runpy
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from testkit.figures import quantiles

RATE = "CARDTABLE_LOAD_RATE"
PROFILE = "CARDTABLE_LOAD_PROFILE"
PROFILER = "CARDTABLE_LOAD_PROFILER"
TIMED = "CARDTABLE_LOAD_TIMED"
TIMED_OUT = "CARDTABLE_LOAD_TIMED_OUT"
SAMPLE_EVERY = 0.005  # seconds of CPU time between two samples

Hook = tuple[Callable[[], None], Callable[[], None]]  # (window opens, window closes)


def with_rate(rate: float) -> None:
    """The product's settings, with this request budget."""
    import bot.config.settings as settings_module

    load = settings_module.load_settings

    def load_settings(*args: Any, **kwargs: Any) -> Any:
        settings = load(*args, **kwargs)
        return dataclasses.replace(
            settings, timing=dataclasses.replace(settings.timing, request_rate=rate))

    settings_module.load_settings = load_settings


def cprofile(path: str) -> Hook:
    import cProfile

    profiler = cProfile.Profile()

    def stop() -> None:
        profiler.disable()
        profiler.dump_stats(path)

    return profiler.enable, stop


def basename(code: CodeType) -> str:
    """"view.py:function": a frame as the load benchmark's profile names it."""
    return os.path.basename(code.co_filename) + ":" + code.co_name


def sampler(path: str, where: Callable[[CodeType], str] = basename,
            collections_too: bool = True) -> Hook:
    """The loop thread's stacks, sampled (see the module's doc), each frame named by
    ``where``; with ``collections_too`` the garbage collections' time as "gc:" lines."""
    stacks: dict[str, float] = collections.defaultdict(float)
    last = [0.0]

    def sample(signum: int, frame: FrameType | None) -> None:
        now, stack = time.thread_time(), []
        while frame is not None:
            stack.append(where(frame.f_code))
            frame = frame.f_back
        stacks[";".join(reversed(stack))] += now - last[0]
        last[0] = now

    began = [0.0]

    def collected(phase: str, info: dict[str, int]) -> None:
        # A collection's time, also inside the samples of whatever frame allocated: told
        # apart here, as one more "stack".
        if phase == "start":
            began[0] = time.thread_time()
        elif threading.current_thread() is threading.main_thread():
            stacks[f"gc:generation {info['generation']}"] += time.thread_time() - began[0]

    def start() -> None:
        last[0] = time.thread_time()
        if collections_too:
            gc.callbacks.append(collected)
        signal.signal(signal.SIGPROF, sample)
        signal.setitimer(signal.ITIMER_PROF, SAMPLE_EVERY, SAMPLE_EVERY)

    def stop() -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)
        if collections_too:
            gc.callbacks.remove(collected)
        written = Path(path + ".part")
        written.write_text("".join(f"{seconds:.6f}\t{stack}\n"
                                   for stack, seconds in stacks.items()))
        written.rename(path)  # whole, when the harness sees it

    return start, stop


def memory(path: str) -> Hook:
    """What the bot holds when the window closes: Python's objects counted by type (their
    own sizes, ``sys.getsizeof``), and the pictures' bounded caches. Cheap, so the run's
    other figures stay the bot's."""
    import gc
    import sys

    def stop() -> None:
        counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        tracked = gc.get_objects()
        untracked = {id(inner): inner for thing in tracked for inner in gc.get_referents(thing)
                     if not gc.is_tracked(inner)}  # strings, bytes, numbers: held by those
        for thing in [*tracked, *untracked.values()]:
            kind = type(thing)
            entry = counts[f"{kind.__module__}.{kind.__qualname__}"]
            entry[0] += 1
            entry[1] += sys.getsizeof(thing)
        caches = []
        if "bot.images.lru" in sys.modules:
            lru = sys.modules["bot.images.lru"]
            caches = [(len(cache), cache.bytes) for cache in list(lru._ALL)]
        rss_before = _rss()
        gc.collect()
        trimmed = _malloc_trim()
        with open(path, "w") as out:
            out.write(f"rss\t{rss_before}\t{_rss()}\t{int(trimmed)}\n")
            for name, size in _mappings()[:8]:
                out.write(f"map\t{size}\t{name}\n")
            out.write(f"objects\t{sum(c for c, _ in counts.values())}\t"
                      f"{sum(b for _, b in counts.values())}\n")
            for entries, size in caches:
                out.write(f"cache\t{entries}\t{size}\n")
            for name, (count, size) in sorted(counts.items(), key=lambda i: -i[1][1])[:40]:
                out.write(f"type\t{count}\t{size}\t{name}\n")

    return (lambda: None), stop


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _mappings() -> list[tuple[str, int]]:
    """The process's resident bytes by mapping (a file's name, [heap], or anonymous)."""
    resident: dict[str, int] = collections.defaultdict(int)
    name = ""
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            fields = line.split()
            if fields[0] == "Rss:":
                resident[name] += int(fields[1]) * 1024
            elif not fields[0].endswith(":"):  # a mapping's first line: range perms ... path
                name = os.path.basename(fields[5]) if len(fields) > 5 else "anonymous"
    return sorted(resident.items(), key=lambda item: -item[1])


def _malloc_trim() -> bool:
    """glibc's free memory handed back to the system (True if it could be asked)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        return bool(libc.malloc_trim(0) >= 0)
    except (OSError, AttributeError):
        return False


class _TimedEntry:
    """An async context manager whose entry is timed (a lock waited for)."""

    def __init__(self, inner: Any, note: Callable[[float], None]):
        self.inner, self.note = inner, note

    async def __aenter__(self) -> Any:
        began = time.monotonic()
        try:
            return await self.inner.__aenter__()
        finally:
            self.note(time.monotonic() - began)

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.inner.__aexit__(*exc)


def timings(targets: list[str], path: str) -> Hook:
    durations: dict[str, list[float]] = {t: [] for t in targets}
    recording = [False]

    def wrap(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def note(seconds: float) -> None:
            if recording[0]:
                durations[name].append(seconds)

        if inspect.iscoroutinefunction(original):
            async def timed(*args: Any, **kwargs: Any) -> Any:
                began = time.monotonic()
                try:
                    return await original(*args, **kwargs)
                finally:
                    note(time.monotonic() - began)

            return functools.wraps(original)(timed)

        def entered(*args: Any, **kwargs: Any) -> _TimedEntry:
            return _TimedEntry(original(*args, **kwargs), note)

        return functools.wraps(original)(entered)

    for target in targets:
        module_name, _, path_in = target.partition(":")
        owner: Any = importlib.import_module(module_name)
        *parents, attribute = path_in.split(".")
        for parent in parents:
            owner = getattr(owner, parent)
        setattr(owner, attribute, wrap(target, getattr(owner, attribute)))

    def start() -> None:
        recording[0] = True

    def stop() -> None:
        recording[0] = False
        summary = {}
        for name, values in durations.items():
            summary[name] = {"calls": len(values), **quantiles(values),
                             "total_s": round(sum(values), 2)}
        with open(path, "w") as out:
            json.dump(summary, out)

    return start, stop


def main() -> None:
    with_rate(float(os.environ[RATE]))
    hooks: list[Hook] = []
    if os.environ.get(TIMED):
        hooks.append(timings(os.environ[TIMED].split(","), os.environ[TIMED_OUT]))
    if os.environ.get(PROFILE):
        make = {"sample": sampler, "memory": memory}.get(os.environ.get(PROFILER, ""),
                                                          cprofile)
        hooks.append(make(os.environ[PROFILE]))
    opened = [False]

    def toggle(signum: int, frame: FrameType | None) -> None:
        for start, stop in hooks:
            (stop if opened[0] else start)()
        opened[0] = not opened[0]

    if hooks:
        signal.signal(signal.SIGUSR1, toggle)
    runpy.run_module("bot", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
