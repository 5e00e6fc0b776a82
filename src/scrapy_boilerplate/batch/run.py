"""Running a batch: records in, extraction in worker processes, records out, a summary.

The reading and the writing happen in the calling process; the extraction (and the
encoding of each output record) in ``workers`` processes, with at most ``in_flight``
records on their way at once, so memory stays bounded however large the input. Records go
to the workers in chunks of ``chunk`` records (or fewer past :data:`CHUNK_BYTES` of
bodies; four by default): one task, one message each way and one write per chunk rather
than per record, which is most of what the calling process spends per record. A worker
process that dies (killed for memory, a crash in a C library) costs the page that killed
it (written with reason ``error``), not the batch: a new pool takes over, and the other
records the dead pool held are extracted again one at a time, so the page that kills a
worker again is the one lost.

The pipes between this process and the workers are widened to :data:`PIPE_BYTES` where the
system allows (Linux): a page's task (its body: a quarter of a megabyte for a typical page)
then goes down the pipe in one write. Through the default 64 KiB pipe it goes in pieces, the
worker waiting on each for the pool's feeding thread, which waits for this process's other
threads to hand it the interpreter.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from scrapy_boilerplate.batch import output, sources
from scrapy_boilerplate.core import registry
from scrapy_boilerplate.core.document import MAX_NODES_DEFAULT
from scrapy_boilerplate.core.extract import extract
from scrapy_boilerplate.core.metadata import empty_metadata
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.result import Extraction, to_jsonable

#: Bytes of a body at most (the crawl's ``BOILERPLATE_MAX_BODY_SIZE`` default).
MAX_BODY_SIZE = 32 * 1024 * 1024
#: Seconds one page may take (the crawl's ``BOILERPLATE_TIMEOUT`` default).
TIMEOUT = 30.0
#: What the ``blocks`` field holds (the crawl's ``BOILERPLATE_BLOCKS``).
BLOCKS_MODES = ("content", "all", "none")
#: Records a task holds at most (``chunk``): the calling process's cost per task (a
#: future, a message each way, a write, the wake-ups of the pool's threads) is shared by
#: that many records, which leaves more of the machine to the workers.
CHUNK = 4
#: Tasks on their way to or from the workers at once, per worker, at least: one being
#: extracted and one waiting, so a worker never waits for the calling process.
TASKS_PER_WORKER = 2
#: Records on their way to or from the workers at once, per worker, at least (``in_flight``
#: = 0: this, or two chunks per worker where that is more).
IN_FLIGHT_PER_WORKER = 4
#: Bytes a pipe to or from a worker holds, where the system lets us widen it (Linux's
#: ``F_SETPIPE_SZ``, at most ``/proc/sys/fs/pipe-max-size``: one MiB by default).
PIPE_BYTES = 1 << 20
#: Bytes of bodies a task holds at most (a chunk closes at ``chunk`` records or past this):
#: a pipe's worth, so a chunk of typical pages goes to its worker in about one write.
CHUNK_BYTES = PIPE_BYTES
#: Fields a record may get from its extraction only where the method sets them.
WHEN_SET = ("page_type", "page_type_probability", "quality")


@dataclass
class BatchOptions:
    """What to extract and how, for every record of a batch (plain values: it is sent to
    the worker processes).

    ``extractor``/``params``: the method and its parameters, as for ``extract()``;
    ``metadata``: ``extract(..., metadata=True)`` and a ``metadata`` field; ``markdown``: a
    ``markdown`` field (``Extraction.to_markdown()``); ``main_html``:
    ``extract(..., main_html=True)`` and a ``main_html`` field (the main content as clean
    HTML); ``blocks``: one of
    :data:`BLOCKS_MODES`; ``timeout``, ``max_size``, ``max_nodes``: the per-page limits.
    """

    extractor: str = registry.DEFAULT_EXTRACTOR
    params: dict[str, Any] = field(default_factory=dict)
    metadata: bool = False
    markdown: bool = False
    main_html: bool = False
    blocks: str = "content"
    timeout: float = TIMEOUT
    max_size: int = MAX_BODY_SIZE
    max_nodes: int = MAX_NODES_DEFAULT
    #: Output format (:data:`~scrapy_boilerplate.batch.output.OUTPUT_FORMATS`).
    format: str = "jsonl"
    #: Input kind (:data:`~scrapy_boilerplate.batch.sources.INPUT_FORMATS`).
    input_format: str = "auto"
    url_field: str = "url"
    html_field: str = "html"
    #: Write a record for every skipped input record too (``skipped: true``).
    write_skipped: bool = False
    #: The method's class as ``"module:Class"`` (set by :func:`run_batch`): worker
    #: processes register it where ``extractor`` is a name registered at run time only.
    extractor_class: str | None = None


@dataclass
class Summary:
    """What a batch did: records read, extracted (main text found), empty by reason,
    skipped by reason (not extracted: ``http-status``, ``not-html``...), already in the
    output (``--resume``), errors (``error`` and ``timeout`` results, ``truncated`` and
    ``unreadable`` records), and the seconds it took."""

    records: int = 0
    extracted: int = 0
    empty: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    already_done: int = 0
    errors: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values, with pages per second."""
        out = asdict(self)
        out["seconds"] = round(self.seconds, 3)
        done = self.records
        out["pages_per_second"] = round(done / self.seconds, 2) if self.seconds > 0 else None
        return out

    def merge(self, other: Summary | dict[str, Any]) -> Summary:
        """This summary plus ``other`` (another input's: a cluster's files), in place."""
        data = other.to_dict() if isinstance(other, Summary) else other
        self.records += data["records"]
        self.extracted += data["extracted"]
        self.already_done += data["already_done"]
        self.errors += data["errors"]
        self.seconds = max(self.seconds, data["seconds"])
        for mine, theirs in ((self.empty, data["empty"]), (self.skipped, data["skipped"])):
            for key, count in theirs.items():
                mine[key] = mine.get(key, 0) + count
        return self

    def lines(self) -> list[str]:
        """The summary as a few lines of text (the command line prints them on stderr)."""
        d = self.to_dict()
        rate = f", {d['pages_per_second']} pages/s" if d["pages_per_second"] else ""
        out = [f"{self.records} records in {d['seconds']} s{rate}: {self.extracted} extracted"]
        if self.empty:
            out.append("empty: " + ", ".join(f"{k} {v}" for k, v in sorted(self.empty.items())))
        if self.skipped:
            out.append("skipped: " + ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items())))
        if self.already_done:
            out.append(f"already in the output (--resume): {self.already_done}")
        out.append(f"errors: {self.errors}")
        return out


_ERROR_REASONS = frozenset({Reason.ERROR.value, Reason.TIMEOUT.value})
_ERROR_SKIPS = frozenset({sources.TRUNCATED, sources.UNREADABLE})


def page_record(
    result: Extraction, record_id: str, source: str, url: str | None, options: BatchOptions
) -> dict[str, Any]:
    """The output record of one page's extraction: ``id``, ``source``, ``url``, then the
    fields a crawl's item gets (``main_text``, ``extractor``, ``reason``, ``language``,
    ``blocks`` unless ``blocks="none"``, ``page_type``/``page_type_probability``/
    ``quality`` where the method sets them, ``metadata``, ``markdown`` and ``main_html``
    when asked)."""
    out: dict[str, Any] = {
        "id": record_id,
        "source": source,
        "url": url,
        "main_text": result.main_text,
        "extractor": result.extractor,
        "reason": result.reason,
        "language": result.language,
    }
    if options.blocks != "none":
        out["blocks"] = result.block_dicts(options.blocks)
    for name in WHEN_SET:
        value = getattr(result, name)
        if value is not None:
            out[name] = to_jsonable(value)
    if options.metadata:
        out["metadata"] = to_jsonable(
            result.metadata if result.metadata is not None else empty_metadata()
        )
    if options.markdown:
        out["markdown"] = result.to_markdown()
    if options.main_html:
        out["main_html"] = result.main_html or ""
    return out


def skipped_record(record: sources.Record, options: BatchOptions) -> dict[str, Any]:
    """The output record of an input record that was not extracted (``--write-skipped``):
    the shape of :func:`page_record` with empty values, its reason, and ``skipped: true``."""
    result = Extraction.failed(record.skip or Reason.NOT_EXTRACTED, options.extractor)
    out = page_record(result, record.id, record.source, record.url, options)
    out["skipped"] = True
    if record.detail:
        out["detail"] = record.detail
    return out


def extract_record(
    record_id: str, source: str, url: str | None, body: bytes, encoding: str | None,
    options: BatchOptions,
) -> tuple[str | None, Any]:  # fmt: skip
    """Extract one page and encode its output record: (its reason, the encoded record).
    A method that raises gives a record with reason ``error``, not an exception."""
    try:
        result = extract(
            body,
            options.extractor,
            url=url,
            encoding=encoding,
            timeout=options.timeout or None,
            max_size=options.max_size,
            max_nodes=options.max_nodes,
            metadata=options.metadata,
            main_html=options.main_html,
            **options.params,
        )
    except Exception as exc:  # a method's bug must not end the batch
        result = Extraction.failed(
            Reason.ERROR,
            options.extractor,
            options.params,
            url=url,
            extra={"error": f"{type(exc).__name__}: {exc}"},
        )
    record = page_record(result, record_id, source, url, options)
    return result.reason, output.encode(record, options.format)


_WORKER_OPTIONS: BatchOptions | None = None


def _init_worker(options: BatchOptions) -> None:
    global _WORKER_OPTIONS
    _WORKER_OPTIONS = options
    if options.extractor not in registry.available() and options.extractor_class:
        registry.register(options.extractor, options.extractor_class)
    registry.get(options.extractor)  # load the method (its model) once, before the pages


_Task = tuple[str, str, str | None, bytes, str | None]


def _work(tasks: list[_Task]) -> list[tuple[str | None, Any]]:
    """A chunk of pages, extracted one after the other (each within its own deadline)."""
    assert _WORKER_OPTIONS is not None
    return [extract_record(*task, _WORKER_OPTIONS) for task in tasks]


def _pool(workers: int, options: BatchOptions) -> ProcessPoolExecutor:
    # forkserver: workers do not inherit the parent's threads (a progress bar's) or locks
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_init_worker, initargs=(options,)
    )
    _widen_pipes(pool)
    return pool


def _widen_pipes(pool: ProcessPoolExecutor, size: int = PIPE_BYTES) -> int:
    """Widen the pipes of ``pool``'s task and result queues to ``size`` bytes where the
    system allows it; how many were widened. Speed only: where the queues' pipes are not
    there to widen (another platform, another Python's internals) or the system refuses
    (a user's pipe quota), the pool works as it is."""
    try:
        import fcntl

        setsize = fcntl.F_SETPIPE_SZ
    except (ImportError, AttributeError):  # not Linux, or a Python without it
        return 0
    widened = 0
    for name in ("_call_queue", "_result_queue"):
        writer = getattr(getattr(pool, name, None), "_writer", None)
        try:
            fcntl.fcntl(writer.fileno(), setsize, size)  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):
            continue
        widened += 1
    return widened


def default_workers() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class _Progress:
    """tqdm's bar on stderr (pages/s, errors), or nothing."""

    def __init__(self, show: bool) -> None:
        self.bar: Any = None
        if show:
            try:
                from tqdm import tqdm
            except ImportError:  # pragma: no cover - tqdm comes with the batch extra
                return
            self.bar = tqdm(unit="page", file=sys.stderr, dynamic_ncols=True)

    def update(self, summary: Summary) -> None:
        if self.bar is not None:
            self.bar.update(1)
            skipped = sum(summary.skipped.values())
            self.bar.set_postfix(errors=summary.errors, skipped=skipped, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_batch(
    inputs: Iterable[str | Path],
    out: str | Path,
    options: BatchOptions | None = None,
    *,
    workers: int | None = None,
    in_flight: int = 0,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool = False,
    part_rows: int = 1000,
    on_record: Callable[[Summary], None] | None = None,
    chunk: int = CHUNK,
) -> Summary:
    """Extract every record of ``inputs`` (WARC files, Scrapy HTTPCACHE_DIRs, JSON lines
    files, folders of HTML files) into ``out`` and return the :class:`Summary`.

    ``workers`` processes extract (None: one per CPU; 0: in this process, one page at a
    time), with at most ``in_flight`` records read and not yet written (0: four per worker,
    or two chunks where that is more), sent in tasks of ``chunk`` records at most (fewer
    past :data:`CHUNK_BYTES` of bodies, or where ``in_flight`` is small). ``resume`` skips the
    records ``out`` already holds; without it, an ``out`` that holds records is refused
    (:class:`FileExistsError`) unless ``overwrite``. An input that cannot be opened raises
    :class:`~scrapy_boilerplate.batch.sources.InputProblem` before anything is written; bad
    records only count in the summary. ``on_record`` is called with the summary after
    each record is counted (its line written).
    """
    options = options or BatchOptions()
    # an unknown method or a bad parameter fails here, not in the workers
    method = registry.get(options.extractor)
    cls = type(method)
    options = replace(
        options,
        params=method.validate(options.params),
        extractor_class=options.extractor_class or f"{cls.__module__}:{cls.__qualname__}",
    )
    if options.blocks not in BLOCKS_MODES:
        raise ValueError(f"blocks: expected one of {', '.join(BLOCKS_MODES)}")
    if options.format not in output.OUTPUT_FORMATS:
        raise ValueError(f"format: expected one of {', '.join(output.OUTPUT_FORMATS)}")
    paths = [Path(p) for p in inputs]
    readers = [
        sources.read(p, options.input_format, options.max_size, options.url_field,
                     options.html_field)
        for p in paths
    ]  # fmt: skip
    target = Path(out)
    done: set[tuple[str, str]] = set()
    if resume:
        done = output.done_keys(target, options.format)
    elif output.has_output(target, options.format):
        if not overwrite:
            raise FileExistsError(f"{target} already holds records (resume or overwrite it)")
        output.clear(target, options.format)
    workers = default_workers() if workers is None else max(0, workers)
    summary = Summary()
    started = time.monotonic()
    writer = output.open_writer(target, options.format, part_rows)
    bar = _Progress(progress)
    try:
        records = _pending(readers, done, summary)
        for outcomes in _results(records, options, workers, in_flight, max(1, chunk)):
            writer.write_many([encoded for _, encoded, _ in outcomes if encoded is not None])
            for reason, _, skipped in outcomes:
                if skipped:
                    _count_skip(summary, reason)
                else:
                    _count(summary, reason)
                summary.seconds = time.monotonic() - started
                bar.update(summary)
                if on_record is not None:
                    on_record(summary)
    finally:
        writer.close()
        bar.close()
        summary.seconds = time.monotonic() - started
    return summary


def process_file(
    path: str | Path, out: str | Path, options: BatchOptions | None = None, resume: bool = True
) -> dict[str, Any]:
    """One input into one output, in this process (no pool): the task of a cluster
    (``examples/batch_dask.py``), where the cluster's workers are the parallelism. Resumes
    by default, so a task run again after a lost worker does not write twice. Returns the
    summary as a dict (:meth:`Summary.to_dict`)."""
    return run_batch([path], out, options, workers=0, resume=resume, overwrite=True).to_dict()


def _pending(
    readers: list[Iterator[sources.Record]], done: set[tuple[str, str]], summary: Summary
) -> Iterator[sources.Record]:
    for reader in readers:
        for record in reader:
            if done and (record.source, record.id) in done:
                summary.already_done += 1
                continue
            yield record


def _count(summary: Summary, reason: str | None) -> None:
    summary.records += 1
    if reason is None:
        summary.extracted += 1
        return
    summary.empty[reason] = summary.empty.get(reason, 0) + 1
    if reason in _ERROR_REASONS:
        summary.errors += 1


def _count_skip(summary: Summary, reason: str | None) -> None:
    reason = reason or Reason.NOT_EXTRACTED.value
    summary.records += 1
    summary.skipped[reason] = summary.skipped.get(reason, 0) + 1
    if reason in _ERROR_SKIPS:
        summary.errors += 1


#: What becomes of one record: (its reason, its encoded output record or None, skipped).
_Outcome = tuple[str | None, Any, bool]


def _skip(record: sources.Record, options: BatchOptions) -> _Outcome:
    reason = record.skip or Reason.NOT_EXTRACTED.value
    encoded = None
    if options.write_skipped:
        encoded = output.encode(skipped_record(record, options), options.format)
    return reason, encoded, True


def _task(record: sources.Record) -> _Task:
    assert record.body is not None
    return record.id, record.source, record.url, record.body, record.encoding


def _results(
    records: Iterator[sources.Record],
    options: BatchOptions,
    workers: int,
    in_flight: int,
    chunk: int,
) -> Iterator[list[_Outcome]]:
    """The outcome of every record, a list at a time (a chunk's, or skipped records'), in
    the order they finish."""
    if workers == 0:
        for record in records:
            if record.skip is not None or record.body is None:
                yield [_skip(record, options)]
                continue
            reason, encoded = extract_record(*_task(record), options)
            yield [(reason, encoded, False)]
        return
    limit = in_flight or workers * max(IN_FLIGHT_PER_WORKER, TASKS_PER_WORKER * chunk)
    # a chunk small enough that every worker can hold one and have the next waiting
    size = max(1, min(chunk, limit // (TASKS_PER_WORKER * workers)))
    pool = _pool(workers, options)
    pending: dict[Future[list[tuple[str | None, Any]]], list[sources.Record]] = {}
    sent = 0  # records in pending's chunks
    buffer: list[sources.Record] = []
    buffered = 0  # bytes of bodies in buffer
    suspects: deque[sources.Record] = deque()  # held by a pool that died: one at a time
    exhausted = False
    try:
        while True:
            skipped: list[_Outcome] = []
            if suspects:
                if not pending:
                    suspect = suspects.popleft()
                    pool = _submit(pool, pending, [suspect], workers, options)
                    sent += 1
            else:
                while not exhausted and sent + len(buffer) < limit:
                    following = next(records, None)
                    if following is None:
                        exhausted = True
                    elif following.skip is not None or following.body is None:
                        skipped.append(_skip(following, options))
                    else:
                        buffer.append(following)
                        buffered += len(following.body)
                        if len(buffer) >= size or buffered >= CHUNK_BYTES:
                            pool = _submit(pool, pending, buffer, workers, options)
                            sent += len(buffer)
                            buffer, buffered = [], 0
                if buffer and (exhausted or not pending):
                    pool = _submit(pool, pending, buffer, workers, options)
                    sent += len(buffer)
                    buffer, buffered = [], 0
            if skipped:
                yield skipped
            if not pending:
                if exhausted and not suspects:
                    return
                continue
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            if any(_broken(future) for future in finished):
                wait(pending)  # a broken pool fails every task it held at once
                finished = set(pending)
            outcomes: list[_Outcome] = []
            lost: list[list[sources.Record]] = []
            for future in finished:
                held = pending.pop(future)
                sent -= len(held)
                if _broken(future):
                    lost.append(held)
                    continue
                outcomes += [(reason, encoded, False) for reason, encoded in future.result()]
            if lost:
                if len(lost) == 1 and len(lost[0]) == 1:  # alone in the pool: it killed it
                    outcomes.append(_lost(lost[0][0], options))
                else:  # the killer is one of them: each again, alone
                    suspects.extend(record for held in lost for record in held)
                pool = _replace(pool, workers, options)
            if outcomes:
                yield outcomes
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _broken(future: Future[Any]) -> bool:
    return isinstance(future.exception(), BrokenProcessPool)


def _submit(
    pool: ProcessPoolExecutor,
    pending: dict[Future[list[tuple[str | None, Any]]], list[sources.Record]],
    held: list[sources.Record],
    workers: int,
    options: BatchOptions,
) -> ProcessPoolExecutor:
    """Send ``held`` as one task (to a new pool if this one died meanwhile); the pool."""
    tasks = [_task(record) for record in held]
    try:
        pending[pool.submit(_work, tasks)] = held
    except BrokenProcessPool:
        pool = _replace(pool, workers, options)
        pending[pool.submit(_work, tasks)] = held
    return pool


def _replace(pool: ProcessPoolExecutor, workers: int, options: BatchOptions) -> ProcessPoolExecutor:
    pool.shutdown(wait=False, cancel_futures=True)
    return _pool(workers, options)


def _lost(record: sources.Record, options: BatchOptions) -> _Outcome:
    """The record of a page whose worker process died while it was there (reason ``error``)."""
    result = Extraction.failed(Reason.ERROR, options.extractor, options.params, url=record.url)
    out = page_record(result, record.id, record.source, record.url, options)
    out["detail"] = "the worker process extracting it died"
    return Reason.ERROR.value, output.encode(out, options.format), False
