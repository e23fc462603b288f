"""Pictures drawn off the event loop: ``await painter.render(scene) -> bytes``.

A move draws up to three pictures (the table, the next player's hand, the answer's
hand), each a few ms of Pillow (20–24 ms before the drawing kept its parts): on the
event loop that is time no click is answered, and at a few hundred busy tables clicks
went unanswered for 3 s. ``Painter`` hands the scene (plain frozen data) to worker
threads and awaits the bytes, so the loop keeps serving meanwhile.

* The "one picture per scene" cache stays here, in the bot's process: a scene drawn
  lately is answered at once, with no worker round-trip, and two requests for the same
  scene at once share one drawing.
* A drawing that fails (a worker died, Pillow raised) fails its requests only; it is
  not cached, and a pool that broke is replaced for the next picture. Callers use
  ``render_or_none``: the message goes out without its picture, the error is logged.
* ``busy()``: pictures are being drawn (the bot's ``busy`` counts them: shutdown and
  the tests wait for them).

Why threads (``PICTURE_WORKERS`` of them, 2 by default), not processes: measured with
``python -m benchmarks load`` (the bot as its own process, 2 cores shared with other
work) at 100 tables (25 moves/s), three runs each; the loop lag is the bot's own
``cardtable_loop_lag_seconds``:

============  ===============  =============  ====================  ==========  ======
pictures      loop lag p99     lag > 25 ms    move answers p50/p99  CPU / move  RSS
============  ===============  =============  ====================  ==========  ======
on the loop   ≤ 25–100 ms      1.0–5.1 %      10–41 / 215–1,080 ms  13.7–14 ms  147 MB
1 thread      ≤ 10–15 ms       0.26–0.70 %    8–13 / 133–281 ms     13–15 ms    148 MB
2 threads     ≤ 15 ms          0.35 %         9 / 200 ms            14 ms       149 MB
1 process     ≤ 5–25 ms        0.17–0.87 %    7–9 / 51–356 ms       15–16.5 ms  190 MB
============  ===============  =============  ====================  ==========  ======

At 200 tables (50 moves/s, the machine saturated) threads answered p50 59 ms, p99
624 ms (loop lag p99 ≤ 30 ms), a process 200 / 1,010 ms (≤ 75 ms): the process costs
pickling, its own caches of the drawing and a core that the AI workers want too, and
buys nothing a thread does not, since a picture now takes 1–2 ms (p95 ~6) and parts of
it (zlib) release the GIL. More threads only contend for the GIL with the loop; two let
one picture's compression overlap another's drawing. Fonts are safe to share between
threads under the GIL (FreeType's faces are used with the GIL held).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
from collections import OrderedDict
from collections.abc import Callable
from typing import Literal

from bot.images.chart import Chart
from bot.images.scene import Scene

log = logging.getLogger(__name__)

Kind = Literal["thread", "process"]
Format = Literal["png", "webp"]
Picture = Scene | Chart  # a table or a hand; a rating's line (/stats)
DEFAULT_KIND: Kind = "thread"  # see "Why" above
DEFAULT_WORKERS = 2  # PICTURE_WORKERS when not set
CACHE_SIZE = 128  # pictures kept (a few tens of kB each): the tables' latest states


def draw(scene: Picture, fmt: Format = "png") -> bytes:
    """Runs in a worker: the scene (or chart) as image bytes (the drawing's own cache is
    off: the painter keeps one, in the bot's process)."""
    if isinstance(scene, Chart):
        import bot.images.chart_draw as charts

        return charts.render(scene, fmt)
    import bot.images.draw as drawing  # Pillow loads in the worker, when first used

    return drawing.render(scene, fmt, cache=False)


class Painter:
    """Draws scenes in ``workers`` worker threads or processes (``kind``), lazily started."""

    def __init__(self, workers: int | None = None, *, kind: Kind | None = None,
                 cache_size: int = CACHE_SIZE,
                 job: Callable[[Picture, Format], bytes] = draw) -> None:
        self.workers = DEFAULT_WORKERS if workers is None else workers
        if self.workers < 1:
            raise ValueError("a painter needs at least one worker")
        self.kind: Kind = DEFAULT_KIND if kind is None else kind
        self.cache_size = cache_size
        self._job = job
        self._executor: concurrent.futures.Executor | None = None
        self._cache: OrderedDict[tuple[Picture, Format], bytes] = OrderedDict()
        self._drawing: dict[tuple[Picture, Format], asyncio.Future[bytes]] = {}
        self._closed = False
        self.drawn = 0  # pictures drawn by the workers (tests, benchmarks)

    @property
    def executor(self) -> concurrent.futures.Executor:
        if self._executor is None:  # lazily: a bot without pictures starts no worker
            if self.kind == "process":
                # "spawn", not fork: the bot has threads (aiosqlite) a fork would copy.
                self._executor = concurrent.futures.ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
            else:
                self._executor = concurrent.futures.ThreadPoolExecutor(
                    max_workers=self.workers, thread_name_prefix="picture")
        return self._executor

    def busy(self) -> bool:
        """Whether a picture is being drawn."""
        return bool(self._drawing)

    async def render(self, scene: Picture, fmt: Format = "png") -> bytes:
        """The scene as image bytes, drawn by a worker unless drawn lately."""
        key = (scene, fmt)
        data = self._cache.get(key)
        if data is not None:
            self._cache.move_to_end(key)
            return data
        drawing = self._drawing.get(key)
        if drawing is None:
            drawing = self._start(key)
        # Shielded: one asker giving up (its task cancelled) stops nobody else's picture.
        return await asyncio.shield(drawing)

    async def render_or_none(self, scene: Picture, what: str, fmt: Format = "png"
                             ) -> bytes | None:
        """``render``, or None (logged) if the drawing failed: a message goes out
        without its picture rather than not at all."""
        try:
            return await self.render(scene, fmt)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("cannot draw the %s picture; it is sent without", what)
            return None

    def _start(self, key: tuple[Picture, Format]) -> asyncio.Future[bytes]:
        if self._closed:
            raise RuntimeError("the painter is closed")
        loop = asyncio.get_running_loop()
        executor = self.executor
        try:
            job = loop.run_in_executor(executor, self._job, *key)
        except Exception as error:  # a broken or shut executor refuses at once
            self._failed(executor, error)
            raise
        # The askers await this future, which only the job's end settles: a job the
        # executor cancels (closed meanwhile) fails it rather than cancel its askers.
        picture: asyncio.Future[bytes] = loop.create_future()
        self._drawing[key] = picture
        job.add_done_callback(lambda done: self._done(key, executor, done, picture))
        return picture

    def _done(self, key: tuple[Picture, Format], executor: concurrent.futures.Executor,
              job: asyncio.Future[bytes], picture: asyncio.Future[bytes]) -> None:
        del self._drawing[key]
        if job.cancelled():
            picture.set_exception(RuntimeError("the painter closed before drawing it"))
        elif (error := job.exception()) is not None:
            self._failed(executor, error)
            picture.set_exception(error)
        else:
            self.drawn += 1
            self._cache[key] = job.result()
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            picture.set_result(job.result())
            return
        picture.exception()  # read: no "never retrieved" warning if every asker left

    def _failed(self, executor: concurrent.futures.Executor, error: BaseException) -> None:
        # A worker died (killed, out of memory): the next picture gets a fresh pool. Only
        # the pool that broke: a later one may already be drawing.
        if isinstance(error, concurrent.futures.BrokenExecutor) and executor is self._executor:
            log.warning("a picture worker died; starting a new pool for the next pictures")
            executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def close(self) -> None:
        """Stop the workers (a picture being drawn finishes; none starts after this)."""
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
