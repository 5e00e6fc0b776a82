#!/usr/bin/env python
"""Does extraction stall the reactor? Crawl speed and the longest reactor stall, per mode.

    python benchmarks/crawl.py [--data datasets] [--pages 400] [--big-mb 20]
                               [--modes off inline thread process] [--repeat 1]

Two scenarios, each mode in a fresh Python process (so no pool, import or cache carries
over), crawling a local HTTP server that runs in a process of its own on 127.0.0.1 (nothing
leaves the machine):

* **pages/s**: ``--pages`` pages of wcxb-dev (its ``dev`` split, every page type; the HTML
  files of ``../shared/data``) fetched once each with Scrapy's default concurrency (16).
* **20 MB page**: one page of ``--big-mb`` MB made of the bodies of those pages stitched
  one after the other (real markup, about 25,000 blocks), crawled with 20 ordinary pages,
  ``BOILERPLATE_MAX_BODY_SIZE`` and ``DOWNLOAD_WARNSIZE`` raised so it is extracted.

Modes: ``off`` (the plugin is not enabled: Scrapy alone), ``inline`` (extraction on the
reactor thread), ``thread`` and ``process`` (``BOILERPLATE_EXECUTION``; workers: the
plugin's default, the number of CPUs up to 4). The extractor is jusText (the default);
``--extractor`` picks another. The spider callback touches only ``response.url`` and
``response.boilerplate``, and yields one dict item per page, which the plugin fills (main
text, blocks, extractor); no feed export, so what is timed is download plus extraction plus
filling the item.

The stall monitor is a ``twisted.internet.task.LoopingCall`` ticking every 10 ms from
``engine_started`` to ``spider_closed``; a stall is the gap between two ticks minus those
10 ms. Reported per mode: pages/s (pages / seconds from engine start to spider close), the
longest stall, its 99th percentile and the number of stalls over 50 and 100 ms.

Target (issue 3): in ``process`` mode no stall over 100 ms while the 20 MB page is
extracted. The server, the crawler and the worker processes share this machine's CPUs:
pages/s depends on how many there are (printed with the results).

Output: a Markdown table printed and, with ``--out DIR``, written to ``DIR/crawl.md``,
and every figure to ``crawl.json`` there. Exit 2 when the data is missing (the message says
how to unpack it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.output import add_out, write_reports

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATASET = "wcxb-dev"
MODES = ("off", "inline", "thread", "process")
TICK = 0.010
BIG_EXTRA_PAGES = 20


# --------------------------------------------------------------------------- server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(directory: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``python -m http.server`` on 127.0.0.1 in its own process; waits until it answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=directory,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}/"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the local HTTP server did not start")


# --------------------------------------------------------------------------- pages

_BODY = re.compile(rb"<body[^>]*>(.*?)(?:</body>|$)", re.S | re.I)


def write_pages(data: Path, count: int, big_mb: float, folder: Path) -> dict[str, Any]:
    """Write the dataset pages and the big page into ``folder``; return their names."""
    sys.path.insert(0, str(ROOT / "src"))
    from harness.datasets import load

    names = []
    bodies = []
    for n, page in enumerate(load(DATASET, data, split="dev", limit=count, with_blocks=False)):
        raw = page.html.encode("utf-8")
        name = f"p{n:05d}.html"
        (folder / name).write_bytes(raw)
        names.append(name)
        match = _BODY.search(raw)
        if match:
            bodies.append(match.group(1))
    target = int(big_mb * 1024 * 1024)
    parts = [b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">']
    parts.append(b"<title>Stitched page</title></head><body>\n")
    size = sum(map(len, parts))
    i = 0
    while size < target and bodies:
        part = b'<div class="part">' + bodies[i % len(bodies)] + b"</div>\n"
        parts.append(part)
        size += len(part)
        i += 1
    parts.append(b"</body></html>\n")
    big = b"".join(parts)
    (folder / "big.html").write_bytes(big)
    return {"pages": names, "big": "big.html", "big_bytes": len(big)}


# --------------------------------------------------------------------------- one crawl


def crawl_worker(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one crawl in this process (``--worker``) and return its figures."""
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    urls: list[str] = spec["urls"]
    mode: str = spec["mode"]
    ticks: list[float] = []
    marks: dict[str, float] = {}
    items: list[int] = []

    class BenchSpider(scrapy.Spider):
        name = "bench"

        async def start(self):  # type: ignore[override]
            for url in urls:
                yield scrapy.Request(url, dont_filter=True)

        def parse(self, response):  # type: ignore[override]
            result = getattr(response, "boilerplate", None)
            yield {"url": response.url, "had_result": result is not None}

    settings: dict[str, Any] = {
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "COOKIES_ENABLED": False,
        "HTTPCACHE_ENABLED": False,
        "RETRY_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 300,
        "DOWNLOAD_WARNSIZE": 0,
        "DOWNLOAD_MAXSIZE": 0,
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "BOILERPLATE_EXTRACTOR": spec["extractor"],
        "BOILERPLATE_MAX_BODY_SIZE": 256 * 1024 * 1024,
        "BOILERPLATE_TIMEOUT": 0,
    }
    if mode != "off":
        settings["ADDONS"] = {"scrapy_boilerplate.Addon": 0}
        settings["BOILERPLATE_EXECUTION"] = mode
        if spec.get("workers"):
            settings["BOILERPLATE_WORKERS"] = spec["workers"]

    process = CrawlerProcess(settings)
    crawler = process.create_crawler(BenchSpider)

    def tick() -> None:
        ticks.append(time.perf_counter())

    stacks: list[dict[str, Any]] = []
    collections: list[dict[str, Any]] = []
    if spec.get("diagnose"):
        _start_watchdog(ticks, stacks)
        _watch_gc(collections, marks)

    loops: list[Any] = []

    def engine_started() -> None:
        # Imported here: importing it before CrawlerProcess installs the default reactor.
        from twisted.internet import task

        if spec.get("gc_freeze"):
            import gc

            gc.freeze()
        marks["start"] = time.perf_counter()
        loops.append(task.LoopingCall(tick))
        loops[0].start(TICK, now=True)

    def spider_closed() -> None:
        marks["end"] = time.perf_counter()
        if loops and loops[0].running:
            loops[0].stop()

    def item_scraped(item: Any) -> None:
        items.append(1 if item.get("main_text") else 0)

    crawler.signals.connect(engine_started, signals.engine_started)
    crawler.signals.connect(spider_closed, signals.spider_closed)
    crawler.signals.connect(item_scraped, signals.item_scraped)
    process.crawl(crawler)
    process.start()

    stats = crawler.stats.get_stats() if crawler.stats else {}
    gaps = [(b - a) - TICK for a, b in itertools.pairwise(ticks)]
    gaps_ms = sorted(max(0.0, g) * 1000 for g in gaps)
    seconds = marks["end"] - marks["start"]
    responses = int(stats.get("response_received_count", 0))
    return {
        "mode": mode,
        "pages": len(urls),
        "responses": responses,
        "items": len(items),
        "items_with_text": sum(items),
        "seconds": seconds,
        "pages_per_s": responses / seconds if seconds else 0.0,
        "max_stall_ms": gaps_ms[-1] if gaps_ms else 0.0,
        "p99_stall_ms": gaps_ms[int(0.99 * (len(gaps_ms) - 1))] if gaps_ms else 0.0,
        "stalls_over_50ms": sum(g > 50 for g in gaps_ms),
        "stalls_over_100ms": sum(g > 100 for g in gaps_ms),
        "ticks": len(ticks),
        "longest_stalls": _longest(ticks, marks["start"]),
        "stall_stacks": stacks,
        "slow_gc": collections,
        "boilerplate_stats": {
            k: (v if isinstance(v, (int, float, str)) else str(v))
            for k, v in stats.items()
            if str(k).startswith("boilerplate/")
        },
    }


def _longest(ticks: list[float], start: float, n: int = 5) -> list[dict[str, float]]:
    """The ``n`` longest stalls: when they began (s after engine start) and how long."""
    gaps = [(b - a - TICK, a) for a, b in itertools.pairwise(ticks)]
    gaps.sort(reverse=True)
    return [{"at_s": round(a - start, 3), "ms": round(g * 1000, 1)} for g, a in gaps[:n]]


def _watch_gc(collections: list[dict[str, Any]], marks: dict[str, float]) -> None:
    """``--diagnose``: record garbage collections over 10 ms (they hold the GIL)."""
    import gc
    import threading

    began: dict[str, float] = {}

    def callback(phase: str, info: dict[str, Any]) -> None:
        now = time.perf_counter()
        if phase == "start":
            began["t"] = now
        elif "t" in began and now - began["t"] > 0.010:
            collections.append(
                {
                    "at_s": round(began["t"] - marks.get("start", began["t"]), 3),
                    "ms": round((now - began["t"]) * 1000, 1),
                    "generation": info.get("generation"),
                    "thread": threading.current_thread().name,
                }
            )

    gc.callbacks.append(callback)


def _start_watchdog(ticks: list[float], stacks: list[dict[str, Any]]) -> None:
    """``--diagnose``: a thread that records the reactor thread's stack during a stall.

    It needs the GIL to look, so a stall inside one C call (a parse, a pickle) is seen
    from the Python line that made the call, when the call returns or lets go of the GIL.
    """
    import threading
    import traceback

    main_id = threading.get_ident()

    def watch() -> None:
        seen = None
        while True:
            time.sleep(0.005)
            if not ticks:
                continue
            last = ticks[-1]
            if time.perf_counter() - last > 0.06 and seen != last:
                seen = last
                frames = sys._current_frames()
                frame = frames.get(main_id)
                if frame is not None:
                    stack = traceback.format_stack(frame)[-6:]
                    names = {t.ident: t.name for t in threading.enumerate()}
                    others = {
                        names.get(ident, str(ident)): traceback.format_stack(f)[-2:]
                        for ident, f in frames.items()
                        if ident not in (main_id, threading.get_ident())
                    }
                    stacks.append(
                        {
                            "since_tick_s": time.perf_counter() - last,
                            "stack": stack,
                            "other_threads": others,
                        }
                    )

    threading.Thread(target=watch, daemon=True).start()


def run_isolated(spec: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """Run :func:`crawl_worker` in a fresh interpreter and read back its figures."""
    spec_path = workdir / f"spec-{spec['scenario']}-{spec['mode']}.json"
    out_path = spec_path.with_suffix(".out.json")
    spec_path.write_text(json.dumps(spec))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", str(spec_path), str(out_path)],
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0 or not out_path.exists():
        sys.stderr.write(proc.stdout + proc.stderr)
        raise RuntimeError(f"crawl {spec['scenario']}/{spec['mode']} failed ({proc.returncode})")
    return json.loads(out_path.read_text())


# --------------------------------------------------------------------------- report


def render(results: dict[str, Any]) -> str:
    env = results["environment"]
    lines = [
        "# Crawl speed and reactor stalls",
        "",
        f"`python benchmarks/crawl.py {results['args']}` on {env['cpus']} CPUs "
        f"({env['machine']}, Python {env['python']}, Scrapy {env['scrapy']}); extractor "
        f"`{results['extractor']}`; the HTTP server, the crawler and the worker processes share "
        "these CPUs. Median of "
        f"{results['repeat']} run(s) per figure (each run a fresh process).",
        "",
    ]
    for scenario, title in (
        ("pages", f"{results['page_count']} wcxb-dev pages"),
        (
            "big",
            f"one {results['big_bytes'] / 1024 / 1024:.1f} MB page "
            f"+ {BIG_EXTRA_PAGES} wcxb-dev pages",
        ),
    ):
        if scenario not in results:
            continue
        lines += [
            f"## {title}",
            "",
            "| mode | pages/s | seconds | items with main text | longest stall ms "
            "| worst run's longest stall ms | p99 stall ms | stalls > 50 ms | stalls > 100 ms |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for mode, row in results[scenario].items():
            lines.append(
                f"| {mode} | {row['pages_per_s']:.1f} | {row['seconds']:.2f} | "
                f"{row['items_with_text']}/{row['items']} | {row['max_stall_ms']:.0f} | "
                f"{_worst(row):.0f} | {row['p99_stall_ms']:.0f} | {row['stalls_over_50ms']} | "
                f"{row['stalls_over_100ms']} |"
            )
        lines.append("")
    big = results.get("big", {}).get("process")
    if big is not None:
        median, worst = big["max_stall_ms"], _worst(big)
        verdict = (
            "met"
            if worst <= 100
            else ("met in the median run only" if median <= 100 else "NOT met")
        )
        lines += [
            f"Target, process mode: no stall over 100 ms with the 20 MB page: **{verdict}** "
            f"(longest stall: {median:.0f} ms in the median run, {worst:.0f} ms in the worst "
            f"of {results['repeat']}; Scrapy alone, mode `off`: "
            f"{results['big'].get('off', {}).get('max_stall_ms', float('nan')):.0f} ms).",
            "",
        ]
    return "\n".join(lines)


def _worst(row: dict[str, Any]) -> float:
    """The longest stall of the worst of the repeated runs."""
    return max((r["max_stall_ms"] for r in row.get("runs", [row])), default=0.0)


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    if len(runs) == 1:
        return runs[0]
    merged = dict(runs[0])
    for key in ("seconds", "pages_per_s", "max_stall_ms", "p99_stall_ms"):
        merged[key] = statistics.median(r[key] for r in runs)
    merged["runs"] = runs
    return merged


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        spec = json.loads(Path(argv[1]).read_text())
        Path(argv[2]).write_text(json.dumps(crawl_worker(spec)))
        return 0

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "datasets")
    parser.add_argument("--pages", type=int, default=400, help="wcxb-dev pages to crawl")
    parser.add_argument("--big-mb", type=float, default=20.0, help="size of the big page")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--extractor", default="justext")
    parser.add_argument(
        "--workers", type=int, default=0, help="BOILERPLATE_WORKERS (0: the plugin's default)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per mode (median kept)")
    add_out(parser, "crawl.md, crawl.json")
    parser.add_argument(
        "--scenarios", nargs="+", choices=("pages", "big"), default=["pages", "big"]
    )
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="call gc.freeze() when the engine starts, in every mode (the plugin does it at "
        "spider open in thread and process modes: BOILERPLATE_GC_FREEZE)",
    )
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="record the reactor thread's stack during stalls over 60 ms (in crawl.json)",
    )
    args = parser.parse_args(argv)

    if not (args.data / DATASET).is_dir():
        print(
            f"dataset {DATASET!r} not found in {args.data}: unpack it from the project root "
            f"with `../shared/data/unpack datasets {DATASET}` (or pass --data DIR)",
            file=sys.stderr,
        )
        return 2

    import scrapy

    with tempfile.TemporaryDirectory(prefix="bp-crawl-") as tmp:
        workdir = Path(tmp)
        site = workdir / "site"
        site.mkdir()
        written = write_pages(args.data, args.pages, args.big_mb, site)
        server, base = start_server(site)
        try:
            urls = [base + name for name in written["pages"]]
            scenarios = {
                "pages": urls,
                # The big page first, so the ordinary pages download while it is extracted.
                "big": [base + written["big"], *urls[:BIG_EXTRA_PAGES]],
            }
            results: dict[str, Any] = {
                "args": " ".join(argv),
                "extractor": args.extractor,
                "repeat": args.repeat,
                "page_count": len(urls),
                "big_bytes": written["big_bytes"],
                "environment": {
                    "cpus": os.cpu_count(),
                    "machine": platform.machine(),
                    "python": platform.python_version(),
                    "scrapy": scrapy.__version__,
                },
            }
            for scenario in args.scenarios:
                scenario_urls = scenarios[scenario]
                results[scenario] = {}
                for mode in args.modes:
                    runs = []
                    for _ in range(args.repeat):
                        spec = {
                            "scenario": scenario,
                            "mode": mode,
                            "urls": scenario_urls,
                            "extractor": args.extractor,
                            "diagnose": args.diagnose,
                            "workers": args.workers,
                            "gc_freeze": args.gc_freeze,
                        }
                        runs.append(run_isolated(spec, workdir))
                    row = _median_run(runs)
                    results[scenario][mode] = row
                    print(
                        f"{scenario:5} {mode:8} {row['pages_per_s']:7.1f} pages/s  "
                        f"longest stall {row['max_stall_ms']:6.0f} ms  "
                        f"items with text {row['items_with_text']}/{row['items']}",
                        flush=True,
                    )
        finally:
            server.terminate()
            server.wait(10)

    report = render(results)
    print()
    print(report)
    write_reports(
        args.out, {"crawl.md": report + "\n", "crawl.json": json.dumps(results, indent=1)}
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
