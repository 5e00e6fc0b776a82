#!/usr/bin/env python
"""Batch extraction throughput and memory (``scrapy-boilerplate batch``; docs/batch.md).

    python benchmarks/batch.py [--data datasets] [--records 50000] [--pages 300]
                               [--extractor auto] [--runs loop,1,2] [--repeat 1]
                               [--out benchmarks/results] [--append]

Builds a WARC.gz (one gzip member per record, as crawlers write them) of ``--records``
response records, record ``i`` holding real page ``i mod --pages`` (the first ``--pages``
HTML files of wcxb-dev, under ``--data``), then measures on the same WARC:

- the WARC readers alone: FastWARC (what the batch uses) and warcio, records per second;
- ``loop``: a plain Python loop, the batch's reader then ``extract()`` on each body, in
  this process, nothing written (what users wrote before the batch);
- ``1``, ``2``...: ``run_batch`` with that many worker processes, writing JSON lines;
  ``2:16``: 2 workers, 16 records a task (``chunk=16``; the default is one).

The batch's own process reads, sends and writes: its CPU seconds (``getrusage``) say how
much of a core that takes from the workers. Resident memory (RSS, from ``/proc``) of the
batch's process and of its workers (summed) is sampled every half second; the report gives
it after 10 %, 50 % and 100 % of the records, and its peak: flat means the later samples
are no higher than the early ones.

``--repeat N`` runs the list N times, every other round in reverse order, and reports each
run, then the best and the median pages/s of each label and the targets' ratios from both,
and the targets' ratios round by round with their median: on a machine shared with other
users, whose load moves within minutes, one run of each is not enough to compare, and a
round's runs, a minute apart, share more of the machine's state than runs far apart.

Targets: 2 workers >= 1.8x one worker; one worker >= 0.9x the loop; memory flat.
The machine's core count is printed with the figures (other users' work shares it).
Writes ``--out``/batch.md only with ``--out``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from scrapy_boilerplate import extract  # noqa: E402
from scrapy_boilerplate.batch import BatchOptions, read, run_batch  # noqa: E402
from scrapy_boilerplate.batch.run import CHUNK  # noqa: E402


def load_pages(data: Path, count: int) -> list[bytes]:
    folder = data / "wcxb-dev"
    files = sorted(folder.glob("*.html"))[:count] if folder.is_dir() else []
    if not files:
        sys.exit(
            f"benchmarks/batch.py: no pages: {folder} is missing or empty (unpack the wcxb-dev "
            "dataset under --data); nothing measured"
        )
    return [f.read_bytes() for f in files]


def build_warc(path: Path, pages: list[bytes], records: int) -> int:
    """Write the WARC; its size in bytes."""
    with path.open("wb") as f:
        for i in range(records):
            body = pages[i % len(pages)]
            http = (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            rid = hashlib.md5(str(i).encode()).hexdigest()
            head = (
                "WARC/1.0\r\nWARC-Type: response\r\n"
                f"WARC-Record-ID: <urn:uuid:{rid}>\r\n"
                f"WARC-Target-URI: http://bench.example/{i}\r\n"
                "WARC-Date: 2024-01-01T00:00:00Z\r\n"
                "Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(http)}\r\n\r\n"
            ).encode()
            f.write(gzip.compress(head + http + b"\r\n\r\n", compresslevel=6))
    return path.stat().st_size


def read_fastwarc(path: Path) -> int:
    return sum(1 for r in read(path) if r.body is not None)


def read_warcio(path: Path) -> int:
    from warcio.archiveiterator import ArchiveIterator

    n = 0
    with path.open("rb") as f:
        for rec in ArchiveIterator(f):
            if rec.rec_type == "response":
                rec.content_stream().read()
                n += 1
    return n


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


class Sampler:
    """RSS of this process and of its descendants, every ``every`` seconds."""

    def __init__(self, every: float = 0.5) -> None:
        self.every = every
        self.samples: list[tuple[float, int, int]] = []  # (time, main, workers)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            pending, workers = _children(me), 0
            seen: set[int] = set()
            while pending:
                pid = pending.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                workers += _rss(pid)
                pending += _children(pid)
            self.samples.append((time.monotonic(), _rss(me), workers))
            self._stop.wait(self.every)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


#: The targets: (label over, label under, what the ratio is, its least value).
TARGETS = (("2", "1", "2 workers / 1 worker", 1.8), ("1", "loop", "1 worker / loop", 0.9))


def targets(rates: dict[str, float]) -> str:
    """The targets' ratios from pages/s by label (``"1"`` and ``"2"`` present)."""
    parts = [
        f"{name} {rates[top] / rates[bottom]:.2f}x (target >= {aim}x)"
        for top, bottom, name, aim in TARGETS
        if top in rates and bottom in rates
    ]
    return "; ".join(parts) + "."


def mib(n: float) -> str:
    return f"{n / 2**20:.0f}"


def run(args: argparse.Namespace) -> str:
    pages = load_pages(args.data, args.pages)
    cpus = len(os.sched_getaffinity(0))
    lines = [
        "# Batch extraction: throughput and memory",
        "",
        f"`python benchmarks/batch.py --records {args.records} --pages {len(pages)} "
        f"--extractor {args.extractor} --runs {args.runs}"
        f"{f' --repeat {args.repeat}' if args.repeat > 1 else ''}`: a WARC.gz of {args.records} "
        f"response records cycling over the first {len(pages)} pages of wcxb-dev; "
        f"{cpus} CPU cores{' (shared with other users)' if cpus <= 2 else ''}.",
        "",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        warc = Path(tmp) / "bench.warc.gz"
        started = time.monotonic()
        size = build_warc(warc, pages, args.records)
        print(f"WARC: {size / 2**20:.1f} MiB in {time.monotonic() - started:.1f} s", flush=True)
        lines += ["## WARC readers (bodies read, nothing extracted)", ""]
        lines += ["| reader | records/s |", "| --- | ---: |"]
        for name, fn in (("FastWARC", read_fastwarc), ("warcio", read_warcio)):
            t0 = time.monotonic()
            n = fn(warc)
            rate = n / (time.monotonic() - t0)
            print(f"{name}: {rate:.0f} records/s", flush=True)
            lines.append(f"| {name} | {rate:,.0f} |")
        lines += ["", "## Extraction", ""]
        lines += [
            "| run | seconds | pages/s | vs loop | main process CPU s | RSS main MiB "
            "(10% / 50% / 100% / peak) | RSS workers MiB (10% / 50% / 100% / peak) |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        rates: dict[str, float] = {}
        every: dict[str, list[float]] = {}  # pages/s of each run of a label, in order
        labels = args.runs.split(",")
        # rounds: each label once a round, the order reversed every other round, so that a
        # change of the shared machine's load falls on every label alike
        schedule = [(r, label) for r in range(args.repeat)
                    for label in (labels if r % 2 == 0 else labels[::-1])]  # fmt: skip
        if args.repeat > 1:
            lines[-2] = lines[-2].replace("| run |", "| run (round) |")
        for round_number, label in schedule:
            marks: dict[int, int] = {}
            with Sampler() as sampler:
                usage = resource.getrusage(resource.RUSAGE_SELF)
                t0 = time.monotonic()
                if label == "loop":
                    for done, rec in enumerate(read(warc), 1):
                        if rec.body is not None:
                            extract(rec.body, args.extractor, url=rec.url,
                                    encoding=rec.encoding, timeout=30.0)  # fmt: skip
                        for pct in (10, 50, 100):
                            if done == args.records * pct // 100:
                                marks[pct] = len(sampler.samples)
                else:
                    out = Path(tmp) / f"out-{label}.jsonl"

                    def note(summary: object, marks: dict[int, int] = marks) -> None:
                        done = summary.records  # type: ignore[attr-defined]
                        for pct in (10, 50, 100):
                            if done == args.records * pct // 100:
                                marks[pct] = len(sampler.samples)

                    workers, _, chunk = label.partition(":")
                    summary = run_batch([warc], out, BatchOptions(extractor=args.extractor),
                                        workers=int(workers), on_record=note,
                                        chunk=int(chunk or CHUNK))  # fmt: skip
                    assert summary.records == args.records, summary
                    out.unlink()
                seconds = time.monotonic() - t0
                after = resource.getrusage(resource.RUSAGE_SELF)
                cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
            rate = args.records / seconds
            every.setdefault(label, []).append(rate)
            rates[label] = rate
            samples = sampler.samples or [(0.0, 0, 0)]

            def at(pct: int, col: int, samples: list = samples, marks: dict = marks) -> str:
                i = max(0, min(marks.get(pct, len(samples)), len(samples)) - 1)
                return mib(samples[i][col])

            main = " / ".join([*(at(p, 1) for p in (10, 50, 100)),
                               mib(max(s[1] for s in samples))])  # fmt: skip
            workers = " / ".join([*(at(p, 2) for p in (10, 50, 100)),
                                  mib(max(s[2] for s in samples))])  # fmt: skip
            ratio = f"{rate / rates['loop']:.2f}x" if "loop" in rates else "-"
            if label == "loop":
                name = "plain loop over extract()"
            else:
                count, _, chunk = label.partition(":")
                name = f"batch, {count} worker(s), chunk {chunk or CHUNK}"
            if args.repeat > 1:
                name += f" ({round_number + 1})"
            row = (
                f"| {name} | {seconds:.1f} | {rate:.1f} | {ratio} | {cpu:.1f} | {main} "
                f"| {workers} |"
            )
            print(row, flush=True)
            lines.append(row)
        lines.append("")
        if args.repeat > 1:
            # the best run of each label (the one the other users' work disturbed least) and
            # the median run; the ratios of the targets from either
            best = {label: max(r) for label, r in every.items()}
            median = {label: statistics.median(r) for label, r in every.items()}
            lines += [f"Over {args.repeat} rounds, pages/s:", "",
                      "| run | best | median | all |", "| --- | ---: | ---: | --- |"]  # fmt: skip
            for label, runs in every.items():
                all_runs = ", ".join(f"{r:.1f}" for r in runs)
                lines.append(f"| {label} | {best[label]:.1f} | {median[label]:.1f} | {all_runs} |")
            lines.append("")
            for name, table in (("best", best), ("median", median)):
                if "1" in table and "2" in table:
                    lines.append(f"{name}: {targets(table)}")
            # each round's own ratios (its runs minutes apart, not the whole run's drift)
            for top, bottom, name, aim in TARGETS:
                if top in every and bottom in every:
                    ratios = [a / b for a, b in zip(every[top], every[bottom], strict=True)]
                    lines.append(
                        f"round by round: {name} {', '.join(f'{r:.2f}' for r in ratios)}; "
                        f"median {statistics.median(ratios):.2f}x (target >= {aim}x)."
                    )
            lines.append("")
        elif "1" in rates and "2" in rates:
            lines += [targets(rates), ""]
        if "1:16" in rates and "2:16" in rates:
            versus = (
                f", 1 worker / loop {rates['1:16'] / rates['loop']:.2f}x" if "loop" in rates else ""
            )
            lines.append(
                f"16 records a task (chunk 16): 2 workers / 1 worker "
                f"{rates['2:16'] / rates['1:16']:.2f}x{versus}."
            )
            lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "datasets")
    parser.add_argument("--records", type=int, default=50_000)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--extractor", default="auto")
    parser.add_argument("--runs", default="loop,1,2")
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="rounds of --runs (every other one in reverse order); best and median reported",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--append", action="store_true", help="add to --out's batch.md")
    args = parser.parse_args()
    report = run(args)
    print(report)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        target = args.out / "batch.md"
        if args.append and target.exists():
            body = target.read_text("utf-8").rstrip("\n") + "\n\n" + report.split("\n", 2)[2]
            target.write_text(body, "utf-8")
        else:
            target.write_text(report, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
