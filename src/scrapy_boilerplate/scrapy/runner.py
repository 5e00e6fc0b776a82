"""Where extraction runs: inline, in a bounded thread pool, or in a bounded process pool.

Extraction is CPU work; run on the reactor thread it stalls every download. ``thread``
moves it off the event loop (lxml parsing releases the GIL, the Python parts do not:
threads give responsiveness, not throughput); ``process`` also gives throughput on
spare cores, at the price of sending the body to a worker that parses it there (a
tree cannot cross processes). At most ``queue_size`` pages wait or run at once; more
callers wait their turn, so memory stays bounded whatever the download rate.

A page's ``timeout`` counts from when a worker is free for it, not from when it joined
the queue: at most ``workers`` pages are handed to the pool at once (a worker's slot is
freed when its call really ends, not when the runner stops waiting for it), so a page
waiting behind a slow one never spends its time waiting.

A page over ``timeout`` raises :class:`ExtractionTimeout`, in every mode: the page's
deadline is set where it runs (:mod:`._deadline`), and the extraction code checks it as
it goes, so a thread or an inline call stops at the limit instead of finishing a hostile
page in the background. A thread stuck in one long call into C cannot be stopped: its
result is dropped when it comes. A process can: a worker still busy
``PROCESS_GRACE`` seconds after its page's deadline is killed, the pool torn down and
replaced, and the other pages it held are submitted again once (a page that was waiting
for a worker of a pool that broke has run nowhere: it goes to the new pool, its one
retry kept). Every new pool is warmed up (its workers started and the extractor
imported) before pages are sent to it, so a worker's start-up, long on a loaded
machine, never counts against a page's timeout: without that, one timeout could make
the next pages time out in turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from scrapy_boilerplate.core.deadline import ExtractionTimeout, deadline, now
from scrapy_boilerplate.core.options import run_options
from scrapy_boilerplate.scrapy.memory import maybe_trim

__all__ = ["ExtractionTimeout", "Runner"]

#: Seconds a worker process gets past its page's deadline to stop by itself (it checks
#: the deadline as it goes) before it is killed and the pool replaced.
PROCESS_GRACE = 1.0


class Runner:
    """Runs extraction calls in one of the three modes, with a bound on pages in flight."""

    def __init__(
        self,
        mode: str = "thread",
        workers: int = 1,
        queue_size: int = 4,
        timeout: float = 0.0,
        trim: float = 0.0,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if mode not in ("inline", "thread", "process"):
            raise ValueError(f"unknown execution mode {mode!r}")
        self.mode = mode
        self.workers = max(1, workers)
        self.queue_size = max(1, queue_size)
        self.timeout = timeout or None
        self.trim = trim  # seconds between malloc_trim calls where pages run (0: never)
        #: Run options (core.options) set where each call runs, e.g. the browser sandbox.
        self.options = dict(options or {})
        self._executor: Executor | None = None
        self._helper: ThreadPoolExecutor | None = None
        self._generation = 0
        self._slots: asyncio.Semaphore | None = None
        self._free: asyncio.Semaphore | None = None  # workers without a call
        self.restarts = 0
        self._warmed = -1  # the pool generation whose workers are started
        self._warm_lock: asyncio.Lock | None = None
        self._warm_params: dict[str, Any] | None = None
        self._warm_extractor: str | None = None
        self._warm_options: dict[str, Any] | None = None
        self._warm_calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []

    # The semaphores must be made on the running loop (the reactor's), not at import time.
    def _semaphore(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.queue_size)
        return self._slots

    async def _worker(self) -> Callable[..., None]:
        """Wait for a free worker; returns the callback that frees it when a call ends."""
        if self._free is None:
            self._free = asyncio.Semaphore(self.workers)
        free = self._free
        await free.acquire()
        loop = asyncio.get_running_loop()

        def release(_: Any = None) -> None:
            # A concurrent future's callback runs in the pool's thread: hand it to the loop
            # (which is gone when a thread ends after the crawl: nothing left to free).
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(free.release)

        return release

    async def _submit(
        self, func: Callable[..., Any], args: tuple[Any, ...], warmed: bool = False
    ) -> Future[Any] | None:
        """Submit ``func(*args)`` once a worker is free: the page's deadline starts then.
        The worker's slot is freed when the call really ends (done, failed, or its pool
        torn down), not when the runner stops waiting for it.

        With ``warmed`` (process mode), the call goes only to a warmed pool that is not
        broken: when the pool was replaced while the page waited for its worker (another
        page's timeout), or its worker died (another page's crash, the page holding it
        not told yet), the slot is freed again and None returned, the page having run
        nowhere: the caller warms the new pool and submits it there."""
        release = await self._worker()
        generation = self._generation
        if warmed and (self._warmed != generation or self._executor is None):
            release()
            return None
        # monotonic() is the machine's clock (CLOCK_MONOTONIC): the same in a worker process.
        call = (_timed, self._deadline(), self.timeout, self.trim, self.options, func, *args)
        try:
            job = self._pool().submit(*call)
        except BrokenProcessPool:
            release()
            if not warmed:
                raise
            self._restart(generation)
            return None
        except BaseException:
            release()
            raise
        job.add_done_callback(release)
        return job

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.mode == "thread":
                self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="boilerplate")
            else:
                # spawn: forking a process that runs a reactor and threads is unsafe.
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn")
                )
        return self._executor

    async def run(self, func: Callable[..., Any], *args: Any) -> tuple[Any, float]:
        """``(func(*args), seconds)``; ``func`` must be picklable in ``process`` mode."""
        if self.mode == "inline":
            result, elapsed = _timed(
                self._deadline(), self.timeout, self.trim, self.options, func, *args
            )
            if self.timeout is not None and elapsed > self.timeout:
                # Inline work cannot be interrupted; the result is dropped all the same so
                # every mode reports a page over the limit in the same way.
                raise ExtractionTimeout(f"took {elapsed:.1f} s > {self.timeout:g} s (inline)")
            return result, elapsed
        async with self._semaphore():
            if self.mode == "thread":
                return await self._run_thread(func, args)
            return await self._run_process(func, args)

    def _deadline(self) -> float | None:
        return None if self.timeout is None else now() + self.timeout

    def also_warm(self, func: Callable[..., Any], *args: Any) -> None:
        """Have :meth:`warm_up` run ``func(*args)`` too, in every worker process (in
        ``process`` mode; picklable then) or once in the thread pool, its failure left to
        the first page: another component's model (the entity lists'), loaded before any
        page rather than in the time of each worker's first one."""
        self._warm_calls.append((func, args))

    async def warm_up(
        self,
        extractor: str,
        params: dict[str, Any] | None = None,
        extract_options: dict[str, Any] | None = None,
    ) -> None:
        """Get the extractor ready before the first page: start the worker processes (in
        ``process`` mode) and extract a small page with ``extractor``, ``params`` and the
        crawl's ``extract()`` options (``metadata``: its readers are imported then too) in
        each worker (in ``thread`` mode, once: the threads share what it builds).

        A spawned worker imports the package on its first task, and a method builds some
        things on its first page (jusText its index of 101 stoplists for guessing the
        language; Web2Text its onnxruntime session). Done during the crawl, that is CPU
        competing with the reactor and the other pages, and it lands in the first page's
        time (and in ``boilerplate/max_seconds``).
        """
        if self.mode == "inline":
            return
        self._warm_extractor = extractor
        self._warm_params = params
        self._warm_options = extract_options
        if self.mode == "thread":
            calls = tuple(self._warm_calls)
            job = self._pool().submit(
                _warm, extractor, params, self.timeout, False, calls, self.options, extract_options
            )
            await asyncio.wrap_future(job)
            return
        await self._ensure_warm()

    async def _ensure_warm(self) -> None:
        """Start the current pool's workers (once per pool), outside any page's timeout."""
        if self._warmed == self._generation and self._executor is not None:
            return
        if self._warm_lock is None:
            self._warm_lock = asyncio.Lock()
        async with self._warm_lock:
            if self._warmed == self._generation and self._executor is not None:
                return
            generation = self._generation
            pool = self._pool()
            extractor = self._warm_extractor
            params = self._warm_params
            calls = tuple(self._warm_calls)
            extract_options = self._warm_options
            futures = [
                pool.submit(
                    _warm,
                    extractor,
                    params,
                    self.timeout,
                    True,
                    calls,
                    self.options,
                    extract_options,
                )
                for _ in range(self.workers)
            ]
            try:
                await asyncio.gather(*(asyncio.wrap_future(f) for f in futures))
            except BrokenProcessPool:
                self._restart(generation)
                raise
            self._warmed = generation

    async def offload(self, func: Callable[..., Any], *args: Any) -> Any:
        """``func(*args)`` in a helper thread (inline mode: right here).

        For the small Python chores around an extraction that would stall the reactor
        on a huge page (decoding the body, turning 25,000 blocks into dicts): Python
        code in another thread lets the reactor thread run at each switch interval
        (``sys.getswitchinterval()``).
        """
        if self.mode == "inline":
            return func(*args)
        if self._helper is None:
            self._helper = ThreadPoolExecutor(1, thread_name_prefix="boilerplate-helper")
        return await asyncio.get_running_loop().run_in_executor(self._helper, func, *args)

    async def _run_thread(
        self, func: Callable[..., Any], args: tuple[Any, ...]
    ) -> tuple[Any, float]:
        job = await self._submit(func, args)
        assert job is not None  # (only a process-mode submission may give none)
        try:
            # shield: on timeout, stop waiting without cancelling (the thread goes on to
            # its next deadline check, then frees its slot).
            waited = asyncio.wrap_future(job)
            # Once abandoned, its outcome is nobody's: retrieve it, or asyncio logs
            # "Future exception was never retrieved" for each page over the limit.
            waited.add_done_callback(_retrieve)
            return await asyncio.wait_for(asyncio.shield(waited), self.timeout)
        except ExtractionTimeout:
            raise  # the thread stopped at its deadline by itself (a TimeoutError too)
        except asyncio.TimeoutError:
            raise ExtractionTimeout(
                f"took over {self.timeout:g} s (its thread stops at its next deadline check)"
            ) from None

    async def _run_process(
        self, func: Callable[..., Any], args: tuple[Any, ...]
    ) -> tuple[Any, float]:
        retried = False  # a pool broke under this page once (it is then submitted again)
        while True:
            try:
                await self._ensure_warm()
            except BrokenProcessPool:
                if retried:
                    raise
                retried = True
                continue
            job = await self._submit(func, args, warmed=True)
            if job is None:
                continue  # the pool was replaced while the page waited: warm the new one
            generation = self._generation  # the pool it went to: no await since
            try:
                grace = None if self.timeout is None else self.timeout + PROCESS_GRACE
                return await asyncio.wait_for(asyncio.wrap_future(job), grace)
            except ExtractionTimeout:
                raise  # the worker stopped at its deadline by itself (a TimeoutError too)
            except asyncio.TimeoutError:
                self._restart(generation)
                raise ExtractionTimeout(
                    f"took over {self.timeout:g} s and did not stop; its worker process was "
                    "killed and replaced"
                ) from None
            except BrokenProcessPool:
                # Another page's timeout (or a crash) tore the pool down under this one.
                self._restart(generation)
                if retried:
                    raise
                retried = True
            except asyncio.CancelledError:
                # A call still queued when another page's timeout tore its pool down is
                # cancelled with it: submit it again (a CancelledError would escape every
                # ``except Exception`` and fail the request). Our own cancellation (the
                # crawl stopping) leaves the pool as it was.
                if not (job.cancelled() and generation != self._generation):
                    raise
                if retried:
                    raise BrokenProcessPool("the pool was replaced twice under this page") from None
                retried = True

    def _restart(self, generation: int) -> None:
        """Kill the workers of pool ``generation`` and start afresh (once per generation)."""
        if generation != self._generation or self._executor is None:
            return
        pool, self._executor = self._executor, None
        self._generation += 1
        self.restarts += 1
        _kill(pool)  # its manager thread then fails the calls it held: BrokenProcessPool

    def close(self) -> None:
        """Stop the pool; running threads finish, worker processes are stopped."""
        helper, self._helper = self._helper, None
        if helper is not None:
            helper.shutdown(wait=False, cancel_futures=True)
        pool, self._executor = self._executor, None
        if pool is None:
            return
        if isinstance(pool, ProcessPoolExecutor):
            _kill(pool)
        else:
            pool.shutdown(wait=False, cancel_futures=True)


def _retrieve(future: Any) -> None:
    if not future.cancelled():
        future.exception()


def _kill(pool: Executor) -> None:
    """Stop a process pool now: its workers terminated, its queued calls cancelled.

    Two threads of the pool could otherwise block for ever, and the interpreter joins
    both at exit (a crawl that never ends): the call queue's feeder, writing a page body
    into a pipe nobody reads any more (the queue is told not to be joined), and the
    manager thread, reading half a result (below).
    """
    # shutdown() forgets the processes and queues: take them first.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    queue = getattr(pool, "_call_queue", None)  # CPython's ProcessPoolExecutor internals
    results = getattr(pool, "_result_queue", None)
    for process in processes:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:  # reaped here: the pool's manager thread may never do it
        with contextlib.suppress(Exception):
            process.join(0.5)
            if process.is_alive():
                process.kill()
                process.join(0.5)
    if queue is not None:
        with contextlib.suppress(Exception):
            queue.cancel_join_thread()
    # The pool's manager thread reads results from a pipe. A worker killed while writing
    # one leaves half a message there, and the thread waits for the rest for ever: the
    # calls it holds never fail (their pages never resubmitted, their worker slots never
    # freed) and the interpreter joins it at exit. This process holds the pipe's other
    # writing end (only workers write): closing it, now the workers are dead, gives that
    # read an end of file, and the thread fails its calls and ends as for any broken pool.
    writer = getattr(results, "_writer", None)
    if writer is not None:
        with contextlib.suppress(Exception):
            writer.close()


#: What :func:`_warm` extracts: a short English page every method reads.
WARM_PAGE = (
    "<html><head><title>Warm-up</title></head><body><h1>Warm-up</h1><p>"
    + "This sentence is here so that the method has some words of a page to read. " * 8
    + "</p></body></html>"
)


def _warm(
    extractor: str | None,
    params: dict[str, Any] | None = None,
    timeout: float | None = None,
    hold: bool = True,
    calls: tuple[tuple[Callable[..., Any], tuple[Any, ...]], ...] = (),
    options: Mapping[str, Any] | None = None,
    extract_options: Mapping[str, Any] | None = None,
) -> None:
    """Import ``extractor`` and extract :data:`WARM_PAGE` with it (and the crawl's
    ``extract_options``), then run the ``calls``
    of :meth:`Runner.also_warm` (a failure is left to the first page, which meets it
    again and reports it); with ``hold``, keep this worker a moment so that every worker
    of a pool gets one call."""
    from scrapy_boilerplate.core.extract import extract
    from scrapy_boilerplate.scrapy.config import resolve_extractor

    with run_options(options):  # (the warm-up page runs as the pages will)
        if extractor is not None:
            name = resolve_extractor(extractor, "BOILERPLATE_EXTRACTOR")
            with contextlib.suppress(Exception):  # the first page meets it too, reports it
                extract(
                    WARM_PAGE, name, timeout=timeout, **(extract_options or {}), **(params or {})
                )
        for func, args in calls:
            with contextlib.suppress(Exception):
                func(*args)
    if hold:
        time.sleep(0.05)


def _timed(
    at: float | None,
    limit: float | None,
    trim: float,
    options: Mapping[str, Any],
    func: Callable[..., Any],
    *args: Any,
) -> tuple[Any, float]:
    start = time.perf_counter()
    try:
        with deadline(at, limit), run_options(options):
            result = func(*args)
        return result, time.perf_counter() - start
    finally:
        maybe_trim(trim)  # in the thread or process that ran the page, after it
