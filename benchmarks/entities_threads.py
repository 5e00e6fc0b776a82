#!/usr/bin/env python
"""How long the entity extractor keeps another thread waiting for the GIL.

    python benchmarks/entities_threads.py [--data datasets] [--pages 20] [--out DIR]

In a crawl's ``thread`` mode (``BOILERPLATE_EXECUTION``, the default) the extraction runs
in a worker thread and the reactor waits for the GIL while it runs Python code. The
interpreter hands the GIL over every 5 ms (``sys.getswitchinterval()``), but only between
two steps of Python code: a stretch of compiled code (a C call, a module compiled by
Cython, a full garbage collection) keeps the other threads waiting until it ends. This
extracts the ``--pages`` largest distinct test pages of the entity sets (each with its
first question, one after the other) in a worker thread, while the main thread sleeps 1 ms
at a time and records how long each sleep took: a sleep that took much longer is a wait
for the GIL. Reported: the median, 99th percentile and longest sleep, and how many took
over 20, 50 and 100 ms.

Run it once as it is and once through ``benchmarks/python_sources.py`` to compare the
compiled modules with their Python sources on the same machine. Exit 1 when the data is
missing (the message says how to unpack it).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

from entities_eval import load
from entities_stages import distinct_pages, entity_modules
from harness.entities_data import missing_message
from harness.output import add_out, write_reports
from scrapy_boilerplate.entities.extract import extract_entities

#: The main thread's sleep (s) between two looks at the clock.
TICK = 0.001
#: Waits over these (ms) are counted.
OVER_MS = (20, 50, 100)


def waits(pages: list[tuple[str, str]]) -> list[float]:
    """The main thread's sleeps (s) while a worker thread extracts ``pages`` (html,
    query), in the order they came."""
    done = threading.Event()

    def work() -> None:
        try:
            for html, query in pages:
                extract_entities(html, query)
        finally:
            done.set()

    worker = threading.Thread(target=work, name="entities")
    out: list[float] = []
    worker.start()
    while not done.is_set():
        t0 = time.perf_counter()
        time.sleep(TICK)
        out.append(time.perf_counter() - t0)
    worker.join()
    return out


def report(sleeps: list[float], n_pages: int, seconds: float) -> str:
    ms = sorted(s * 1000 for s in sleeps)
    p99 = ms[int(0.99 * (len(ms) - 1))] if ms else 0.0
    lines = [
        "# How long the entity extractor keeps another thread waiting",
        "",
        f"`python benchmarks/entities_threads.py` on {platform.platform()}, Python "
        f"{platform.python_version()}; {entity_modules()}; switch interval "
        f"{sys.getswitchinterval() * 1000:g} ms. A worker thread extracted the {n_pages} "
        f"largest distinct test pages of the entity sets, each with its first question "
        f"({seconds:.1f} s), while the main thread slept {TICK * 1000:g} ms at a time.",
        "",
        "| sleeps | median ms | p99 ms | longest ms | "
        + " | ".join(f"over {m} ms" for m in OVER_MS)
        + " |",
        "| ---: | ---: | ---: | ---: | " + " | ".join("---:" for _ in OVER_MS) + " |",
        f"| {len(ms)} | {statistics.median(ms) if ms else 0.0:.2f} | {p99:.1f} | "
        f"{ms[-1] if ms else 0.0:.1f} | "
        + " | ".join(str(sum(v > m for v in ms)) for m in OVER_MS)
        + " |",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--pages", type=int, default=20, help="the largest test pages")
    add_out(parser, "entities_threads.md")
    args = parser.parse_args(argv)
    sets, _ = load(args.data)
    if not sets:
        print(missing_message(args.data), file=sys.stderr)
        return 1
    examples = [ex for parts in sets.values() for ex in parts["test"] + parts["test@template"]]
    pages = sorted(
        ((ex.html(), ex.query) for ex in distinct_pages(examples)), key=lambda p: -len(p[0])
    )[: args.pages]
    for html, query in pages[:3]:  # the model loaded and the caches warm
        extract_entities(html, query)
    t0 = time.perf_counter()
    sleeps = waits(pages)
    text = report(sleeps, len(pages), time.perf_counter() - t0)
    print(text)
    write_reports(args.out, {"entities_threads.md": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
