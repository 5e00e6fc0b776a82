#!/usr/bin/env python
"""Soak crawl: thousands of pages, a share of them failing; no item lost, memory flat.

    python benchmarks/soak.py [--data datasets] [--pages 5000] [--fail-rate 0.05]
                              [--extractors justext cnr web2text vips entity]
                              [--modes inline thread process] [--out benchmarks/results]
                              [--diagnose] [--append]

A local HTTP server (``http.server.ThreadingHTTPServer``, HTTP/1.0, in a process of its own
on 127.0.0.1: nothing leaves the machine) serves page ``i`` at ``/p/<i>`` for ``i`` in
``0 .. --pages - 1``. Its body is real page ``i mod M``: the first 300 pages of wcxb-dev
(``dev`` split) and the first 200 of cleaneval (every split), M = 500, the HTML files of
``../shared/data``. A deterministic ``--fail-rate`` of the indices (``random.Random(--seed)``
picks them) fail instead, dealt in turn over these kinds (``plan()``):

=================  ==========================================================================
kind               what the server does (or, for ``slow-extraction``, the request)
=================  ==========================================================================
http-500           status 500 (Scrapy retries it twice, then the errback gets ``HttpError``)
http-404           status 404 (errback, ``HttpError``)
truncated          ``Content-Length`` of the whole page, half the body sent, then the
                   connection is closed (``ResponseFailed``, data loss; retried twice)
no-response        the connection is closed before any byte of a response (retried twice)
slow-response      the response starts ``--download-timeout`` + 2 s late (``DOWNLOAD_TIMEOUT``
                   is ``--download-timeout``, 3 s; retried twice, then ``TimeoutError``)
empty              status 200, empty body (reason ``empty``)
binary             24 KiB of PNG bytes served as ``text/html`` (reason ``binary``)
charset-cp1252     a real page with accented words, encoded cp1252, declared UTF-8 in the header
charset-sjis       a real page with Japanese paragraphs, encoded Shift_JIS, declared UTF-8
deep-nesting       20,000 nested ``<div>`` around a paragraph, after a real page's text (libxml2
                   keeps 256 levels and drops the rest: the page may end with no main text)
gzip-bomb          ``Content-Encoding: gzip`` that inflates to 64 MiB, over ``DOWNLOAD_MAXSIZE``
                   (16 MiB: Scrapy drops it, errback ``IgnoreRequest``)
too-large          a 3 MiB page of real markup, over ``BOILERPLATE_MAX_BODY_SIZE`` (2 MiB;
                   reason ``too-large``)
slow-extraction    a real page whose request picks, through ``meta["boilerplate"]``, an
                   extractor that sleeps ``--extraction-timeout`` + 1 s (``SleepyExtractor``
                   below): over ``BOILERPLATE_TIMEOUT`` (``--extraction-timeout``, 2 s), reason
                   ``timeout`` (the plugin has no per-request timeout, so the page is made slow
                   instead; in ``inline`` mode the sleep stalls the reactor, as any slow page
                   would, and in ``process`` mode the worker pool is torn down and replaced)
=================  ==========================================================================

The spider requests every URL once (``dont_filter``) with an errback. The callback yields one
dict item per response, which the plugin fills (``main_text``, ``blocks``,
``boilerplate_reason``); the errback yields one item recording the failure, so a page that
never got a response still yields its item. **Items in** are the items the spider yields,
counted in the spider; **items out** are the items that reach the last pipeline (priority
1000, after the plugin's pipeline at 200 and the entity pipeline at 300), counted there, next
to Scrapy's ``item_scraped_count`` / ``item_dropped_count`` and the ``item_error`` signal.
Target: items in = items out = pages, nothing dropped, no item error. Each item's outcome is
``ok`` (no boilerplate reason, some main text), ``empty-text`` (no reason, yet no main
text: never expected), the boilerplate reason, or ``errback:<exception>``
(``errback:HttpError-<status>``); the report counts them per kind and flags outcomes a kind
should not have (``EXPECTED``).

Extractors: ``justext``, ``cnr``, ``web2text``, ``vips`` (its static layout, approximated from
the HTML; the rendered layout needs a browser per page and is left out) and ``entity``: jusText
plus :class:`~scrapy_boilerplate.scrapy.entities.EntityPipeline` (and its spider middleware)
with ``BOILERPLATE_ENTITY_QUERY = "names"``. Modes: ``BOILERPLATE_EXECUTION`` ``inline``,
``thread``, ``process`` (workers: the plugin's default, the number of CPUs up to 4). Each
(extractor, mode) runs in a fresh Python process, one after the other.

Memory: a thread in the crawler process reads, every second, the resident set (``VmRSS`` of
``/proc/<pid>/status``) of the crawler process and of every process descending from it (the
worker processes in ``process`` mode, and multiprocessing's resource tracker), and sums them.
Warm-up is the first ``--warmup`` (20 %) of the items in. Reported: the highest sum sampled
during warm-up, the highest after it, the last one before the spider closed, and the growth:
highest after warm-up / highest during warm-up - 1, and the level: the median of the samples
taken over the last fifth of the pages / the median over the first fifth after warm-up - 1.
Target: level at most +10 % (flat). The peak growth is reported beside it: a peak is the pages
in flight at one moment (a 3 MB body and a 16 MB decompression at once, in process mode the
new workers of a replaced pool starting while the old ones die), not memory that stays. Also
the run
time (engine start to spider close) and pages/s (pages / that time). Each sample also records
``sys.getallocatedblocks()`` (the memory blocks Python's allocator holds for live objects);
``--diagnose`` calls glibc's ``malloc_trim(0)`` after each sample and reads RSS again, which
tells memory in use from freed memory that the C allocator keeps.

Output: a Markdown table printed; with ``--out DIR``, written to ``DIR/soak.md``, and
every figure (per-kind outcome counts, RSS samples, Scrapy stats) to ``DIR/soak.json``
(``--append``, which needs ``--out``, adds the runs to those already there, made with the
same options). Exit 1 when a run loses an item (items in, items out and pages not all
equal, an item dropped or an item error) or its memory grows more than 10 %; exit 2 when
the data is missing (the message says how to unpack it).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import platform
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from harness.output import add_out, write_reports
from scrapy_boilerplate import Extraction, Extractor
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.result import Block

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOURCES = (("wcxb-dev", "dev", 300), ("cleaneval", "all", 200))
EXTRACTORS = ("justext", "cnr", "web2text", "vips", "entity")
MODES = ("inline", "thread", "process")
KINDS = (
    "http-500",
    "http-404",
    "truncated",
    "no-response",
    "slow-response",
    "empty",
    "binary",
    "charset-cp1252",
    "charset-sjis",
    "deep-nesting",
    "gzip-bomb",
    "too-large",
    "slow-extraction",
)
#: The outcomes each kind may have. A real page may have no main text: no block at all
#: (reason ``no-text``) or none labelled content (reason ``no-content``). An empty main
#: text without a reason (``empty-text``) is never expected: every empty main text carries
#: one.
_REAL = frozenset({"ok", "no-text", "no-content"})
EXPECTED: dict[str, frozenset[str]] = {
    "ok": _REAL,
    "http-500": frozenset({"errback:HttpError-500"}),
    "http-404": frozenset({"errback:HttpError-404"}),
    # Scrapy 2.13 to 2.18 pass Twisted's exceptions; 2.19 its own (the second names).
    "truncated": frozenset({"errback:ResponseFailed", "errback:ResponseDataLossError"}),
    "no-response": frozenset({"errback:ResponseNeverReceived", "errback:DownloadFailedError"}),
    "slow-response": frozenset({"errback:TimeoutError", "errback:DownloadTimeoutError"}),
    "empty": frozenset({"empty"}),
    "binary": frozenset({"binary"}),
    "charset-cp1252": _REAL,
    "charset-sjis": _REAL,
    "deep-nesting": _REAL,  # libxml2 drops what lies past 256 levels
    "gzip-bomb": frozenset({"errback:IgnoreRequest"}),
    "too-large": frozenset({"too-large"}),
    "slow-extraction": frozenset({"timeout"}),
}
#: Sizes and delays of a full soak (the test passes smaller ones).
DEFAULTS: dict[str, Any] = {
    "download_timeout": 3.0,
    "extraction_timeout": 2.0,
    "download_maxsize": 16 * 1024 * 1024,
    "max_body_size": 2 * 1024 * 1024,
    "too_large_bytes": 3 * 1024 * 1024,
    "bomb_bytes": 64 * 1024 * 1024,
    "deep_depth": 20000,
    "warmup": 0.2,
}
SLEEPY = "soak:SleepyExtractor"
#: Seconds a crawl process may take to exit once it has written its figures.
EXIT_WAIT = 60


class SleepyExtractor(Extractor):
    """Sleeps ``seconds``, then labels the whole page one content block: a slow extraction.

    Chosen per request (``meta["boilerplate"]``) for the ``slow-extraction`` kind; imported
    by path, so ``benchmarks/`` must be on the path (the crawl process's ``PYTHONPATH``).
    """

    name = "sleepy"
    params = (Param("seconds", float, 3.0, "how long to sleep", 0.0),)

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        time.sleep(params["seconds"])
        return Extraction.from_blocks(
            [Block("slept", "/html[1]", "html", "content")], "sleepy", dict(params)
        )


# --------------------------------------------------------------------------- plan


def plan(pages: int, fail_rate: float, seed: int = 0) -> dict[int, str]:
    """``{index: kind}`` for the failing indices: ``round(pages * fail_rate)`` of them,
    drawn with ``random.Random(seed)``, dealt over :data:`KINDS` in turn (in index order,
    so every kind is spread over the whole crawl)."""
    count = min(pages, round(pages * fail_rate))
    chosen = sorted(random.Random(seed).sample(range(pages), count))
    return {i: KINDS[n % len(KINDS)] for n, i in enumerate(chosen)}


# --------------------------------------------------------------------------- pages

_BODY = re.compile(rb"<body[^>]*>(.*?)(?:</body>|$)", re.S | re.I)
_CP1252_WORDS = (
    "<p>Le café à la crème coûte « trois euros » – déjà l’été à Zürich, façade rénovée, "
    "naïve élève sœur.</p>"
)
_SJIS_WORDS = (
    "<p>東京都の天気は晴れです。今日の会議は午後三時から始まります。"
    "新しい図書館が駅の近くに開館しました。</p>"
)


def load_pages(data: Path) -> list[bytes]:
    """The M real pages (UTF-8 bytes) of :data:`SOURCES`."""
    sys.path.insert(0, str(ROOT / "src"))
    from harness.datasets import load

    pages = []
    for name, split, limit in SOURCES:
        for page in load(name, data, split=split, limit=limit, with_blocks=False):
            pages.append(page.html.encode("utf-8"))
    return pages


def write_site(pages: list[bytes], kinds: dict[int, str], spec: dict[str, Any], folder: Path):
    """Write the pages and the plan the server process reads."""
    folder.mkdir(parents=True, exist_ok=True)
    for n, body in enumerate(pages):
        (folder / f"{n:05d}.html").write_bytes(body)
    config = {
        "count": len(pages),
        "kinds": {str(i): k for i, k in kinds.items()},
        **{k: spec[k] for k in DEFAULTS},
    }
    (folder / "plan.json").write_text(json.dumps(config))


class Site:
    """What the server answers for ``/p/<i>`` (built once in the server process)."""

    def __init__(self, folder: Path) -> None:
        config = json.loads((folder / "plan.json").read_text())
        self.config = config
        self.pages = [(folder / f"{n:05d}.html").read_bytes() for n in range(config["count"])]
        self.kinds = {int(i): k for i, k in config["kinds"].items()}
        self.bomb = gzip.compress(
            b"<html><body><p>" + b"A" * config["bomb_bytes"] + b"</p></body></html>", 9
        )
        bodies = [m.group(1) for p in self.pages if (m := _BODY.search(p))] or self.pages
        parts = [b'<!DOCTYPE html><html><head><meta charset="utf-8"><title>big</title>']
        parts.append(b"</head><body>\n")
        size, n = sum(map(len, parts)), 0
        while size < config["too_large_bytes"]:
            part = b'<div class="part">' + bodies[n % len(bodies)] + b"</div>\n"
            parts.append(part)
            size += len(part)
            n += 1
        parts.append(b"</body></html>\n")
        self.too_large = b"".join(parts)

    def page(self, i: int) -> bytes:
        return self.pages[i % len(self.pages)]

    def text(self, i: int) -> str:
        return self.page(i).decode("utf-8", "replace")

    def reencoded(self, i: int, extra: str, encoding: str) -> bytes:
        html = self.text(i)
        html = re.sub(r"(?i)<meta[^>]+charset[^>]*>", "", html)
        html = re.sub(r"(?i)(<body[^>]*>)", lambda m: m.group(1) + extra * 5, html, count=1)
        if extra not in html:
            html = extra * 5 + html
        return html.encode(encoding, "replace")

    def deep(self, i: int) -> bytes:
        depth = self.config["deep_depth"]
        head = self.text(i)[:4000]
        return (
            "<!DOCTYPE html><html><body>"
            + re.sub(r"<[^>]*>?", " ", head)
            + "<div>" * depth
            + "<p>The innermost paragraph of a page nested very deeply, with enough words in "
            "it to be read as the text of the page by any of the methods.</p>"
            + "</div>" * depth
            + "</body></html>"
        ).encode()


def serve(folder: Path, port_file: Path) -> None:
    """The server process: answer ``/p/<i>`` per the plan until killed."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    site = Site(folder)
    delay = site.config["download_timeout"] + 2.0
    html = "text/html; charset=utf-8"

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            # The crawler may have given up on this one (download timeout).
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._answer()

        def _answer(self) -> None:
            match = re.fullmatch(r"/p/(\d+)", self.path)
            if not match:
                return self._send(404, html, b"<html><body><p>no such page</p></body></html>")
            i = int(match.group(1))
            kind = site.kinds.get(i, "ok")
            if kind == "http-500":
                self._send(500, html, b"<html><body><p>Internal error</p></body></html>")
            elif kind == "http-404":
                self._send(404, html, b"<html><body><p>Not found</p></body></html>")
            elif kind == "truncated":
                body = site.page(i)
                self._send(200, html, body[: len(body) // 2], length=len(body))
                self.close_connection = True
            elif kind == "no-response":
                self.close_connection = True  # closed without a byte written
            elif kind == "slow-response":
                time.sleep(delay)
                self._send(200, html, site.page(i))
            elif kind == "empty":
                self._send(200, html, b"")
            elif kind == "binary":
                noise = random.Random(i).randbytes(24 * 1024)
                self._send(200, html, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + noise)
            elif kind == "charset-cp1252":
                self._send(200, html, site.reencoded(i, _CP1252_WORDS, "cp1252"))
            elif kind == "charset-sjis":
                self._send(200, html, site.reencoded(i, _SJIS_WORDS, "shift_jis"))
            elif kind == "deep-nesting":
                self._send(200, html, site.deep(i))
            elif kind == "gzip-bomb":
                self._send(200, html, site.bomb, headers={"Content-Encoding": "gzip"})
            elif kind == "too-large":
                self._send(200, html, site.too_large)
            else:  # ok, slow-extraction (the request makes that one slow)
                self._send(200, html, site.page(i))

        def _send(
            self,
            status: int,
            content_type: str,
            body: bytes,
            length: int | None = None,
            headers: dict[str, str] | None = None,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 256

    server = Server(("127.0.0.1", 0), Handler)
    tmp = port_file.with_suffix(".tmp")
    tmp.write_text(str(server.server_address[1]))
    tmp.rename(port_file)
    server.serve_forever()


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """:func:`serve` in its own process; waits until it answers."""
    port_file = folder / "port"
    port_file.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(folder), str(port_file)],
        env=_env(),
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if port_file.exists():
            port = int(port_file.read_text())
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return proc, f"http://127.0.0.1:{port}"
            except OSError:
                pass
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the local HTTP server did not start")


# --------------------------------------------------------------------------- memory


def _status_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def descendants(root: int) -> list[int]:
    """The pids of every process descending from ``root`` (from ``/proc/*/stat``)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            found.append(child)
            stack.append(child)
    return found


def rss_kb(pid: int) -> tuple[int, int, int]:
    """(RSS of ``pid``, RSS of its descendants, how many descendants), in KiB."""
    kids = descendants(pid)
    return _status_kb(pid), sum(_status_kb(k) for k in kids), len(kids)


def _malloc_trim() -> Any:
    """glibc's ``malloc_trim`` (``--diagnose``), or None where there is none."""
    import ctypes

    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


# --------------------------------------------------------------------------- one crawl


def _outcome(item: dict[str, Any]) -> str:
    if item.get("_failure"):
        return f"errback:{item['_failure']}"
    reason = item.get("boilerplate_reason")
    if reason is not None:
        return str(reason)
    return "ok" if item.get("main_text") else "empty-text"


def crawl_worker(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one crawl in this process (``--worker``) and return its figures."""
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.spidermiddlewares.httperror import HttpError

    pages: int = spec["pages"]
    kinds = {int(i): k for i, k in spec["kinds"].items()}
    base: str = spec["base"]
    extractor: str = spec["extractor"]
    mode: str = spec["mode"]
    items_in: Counter[str] = Counter()
    items_out: Counter[str] = Counter()
    outcomes: dict[str, Counter[str]] = {}
    signalled: Counter[str] = Counter()
    marks: dict[str, float] = {}
    samples: list[dict[str, Any]] = []
    sleepy = {"extractor": SLEEPY, "params": {"seconds": spec["extraction_timeout"] + 1.0}}

    class SoakSpider(scrapy.Spider):
        name = "soak"

        async def start(self):  # type: ignore[override]
            for i in range(pages):
                kind = kinds.get(i, "ok")
                meta: dict[str, Any] = {"kind": kind}
                if kind == "slow-extraction":
                    meta["boilerplate"] = sleepy
                yield scrapy.Request(
                    f"{base}/p/{i}", meta=meta, errback=self.failed, dont_filter=True
                )

        def parse(self, response):  # type: ignore[override]
            kind = response.meta["kind"]
            items_in[kind] += 1
            yield {"url": response.url, "kind": kind, "status": response.status}

        def failed(self, failure):
            request = failure.request
            kind = request.meta["kind"]
            items_in[kind] += 1
            error = failure.value
            name = type(error).__name__
            status = None
            if isinstance(error, HttpError):
                status = error.response.status
                name = f"{name}-{status}"
            yield {"url": request.url, "kind": kind, "status": status, "_failure": name}

    class CountPipeline:
        """The last pipeline: counts what arrives, by kind and outcome; keeps nothing."""

        def process_item(self, item: Any, spider: Any = None) -> Any:
            kind = item["kind"]
            items_out[kind] += 1
            outcomes.setdefault(kind, Counter())[_outcome(item)] += 1
            return item

    settings: dict[str, Any] = {
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "COOKIES_ENABLED": False,
        "HTTPCACHE_ENABLED": False,
        "DOWNLOAD_TIMEOUT": spec["download_timeout"],
        "DOWNLOAD_MAXSIZE": spec["download_maxsize"],
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "ADDONS": {"scrapy_boilerplate.Addon": 0},
        "ITEM_PIPELINES": {CountPipeline: 1000},
        "BOILERPLATE_EXTRACTOR": "justext" if extractor == "entity" else extractor,
        # Request meta may name only methods the settings declare (docs/security.md).
        "BOILERPLATE_META_EXTRACTORS": [SLEEPY],
        "BOILERPLATE_EXECUTION": mode,
        "BOILERPLATE_MAX_BODY_SIZE": spec["max_body_size"],
        "BOILERPLATE_TIMEOUT": spec["extraction_timeout"],
    }
    if spec.get("workers"):
        settings["BOILERPLATE_WORKERS"] = spec["workers"]
    if extractor == "entity":
        settings["SPIDER_MIDDLEWARES"] = {
            "scrapy_boilerplate.scrapy.entities.EntitySpiderMiddleware": 610
        }
        settings["ITEM_PIPELINES"]["scrapy_boilerplate.scrapy.entities.EntityPipeline"] = 300
        settings["BOILERPLATE_ENTITY_QUERY"] = "names"

    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SoakSpider)
    stop = threading.Event()
    pid = os.getpid()

    trim = _malloc_trim() if spec.get("diagnose") else None

    def sample() -> None:
        while True:
            main, children, count = rss_kb(pid)
            row = {
                "t": round(time.perf_counter() - marks["start"], 2),
                "items": sum(items_in.values()),
                "rss_kb": main,
                "children_kb": children,
                "children": count,
                # Memory blocks Python's allocator holds now (live objects' memory).
                "py_blocks": sys.getallocatedblocks(),
            }
            if trim is not None:
                trim(0)  # --diagnose: give freed heap pages back, then read RSS again
                row["rss_trimmed_kb"] = _status_kb(pid)
            samples.append(row)
            if stop.wait(1.0):
                return

    def engine_started() -> None:
        marks["start"] = time.perf_counter()
        threading.Thread(target=sample, daemon=True).start()

    def spider_closed() -> None:
        marks["end"] = time.perf_counter()
        stop.set()

    def counter(name: str):
        def count(*args: Any, **kwargs: Any) -> None:
            signalled[name] += 1

        return count

    handlers = {name: counter(name) for name in ("item_scraped", "item_dropped", "item_error")}
    crawler.signals.connect(engine_started, signals.engine_started)
    crawler.signals.connect(spider_closed, signals.spider_closed)
    for name, handler in handlers.items():
        crawler.signals.connect(handler, getattr(signals, name))
    process.crawl(crawler)
    process.start()

    stats = crawler.stats.get_stats() if crawler.stats else {}
    seconds = marks["end"] - marks["start"]
    memory = summarize_memory(samples, pages, spec["warmup"])
    unexpected = {
        kind: {o: n for o, n in counter.items() if o not in EXPECTED[kind]}
        for kind, counter in outcomes.items()
    }
    return {
        "extractor": extractor,
        "mode": mode,
        "pages": pages,
        "items_in": sum(items_in.values()),
        "items_out": sum(items_out.values()),
        "item_scraped_count": int(stats.get("item_scraped_count", 0)),
        "item_dropped_count": int(stats.get("item_dropped_count", 0)),
        "signals": dict(signalled),
        "kind_counts": dict(Counter(kinds.values()), ok=pages - len(kinds)),
        "items_in_by_kind": dict(items_in),
        "outcomes_by_kind": {k: dict(v) for k, v in sorted(outcomes.items())},
        "outcomes": dict(sum(outcomes.values(), Counter())),
        "unexpected": {k: v for k, v in unexpected.items() if v},
        "seconds": seconds,
        "pages_per_s": pages / seconds if seconds else 0.0,
        "memory": memory,
        "samples": samples,
        "stats": {
            str(k): (v if isinstance(v, (int, float, str)) else str(v))
            for k, v in stats.items()
            if str(k).startswith(("boilerplate/", "retry/", "downloader/exception", "log_count"))
            or str(k) in ("response_received_count", "memusage/max")
        },
    }


def _grew(run: dict[str, Any]) -> bool:
    """Memory not flat: its level after warm-up rose over 10 % (see the module docstring)."""
    memory = run["memory"]
    if "level_growth" not in memory:  # a run recorded before the level was: recompute
        memory.update(summarize_memory(run["samples"], run["pages"], DEFAULTS["warmup"]))
    return memory["level_growth"] > 0.10


def summarize_memory(samples: list[dict[str, Any]], pages: int, warmup: float) -> dict[str, Any]:
    """Warm-up = the samples taken before ``warmup`` of the pages' items came in."""
    limit = warmup * pages
    total = [(s["items"], s["rss_kb"] + s["children_kb"], s["rss_kb"]) for s in samples]
    during = [t for n, t, _ in total if n < limit]
    after = [t for n, t, _ in total if n >= limit]
    main_during = [m for n, _, m in total if n < limit]
    main_after = [m for n, _, m in total if n >= limit]
    warm = max(during, default=0)
    high = max(after, default=0)
    # The level, not the peaks: the median of the samples of the first fifth of the pages
    # after warm-up against that of the last fifth (a peak is a few pages in flight).
    first = [t for n, t, _ in total if limit <= n < limit + 0.2 * pages]
    last = [t for n, t, _ in total if n >= 0.8 * pages]
    first_mb = statistics.median(first) / 1024 if first else 0.0
    last_mb = statistics.median(last) / 1024 if last else 0.0
    return {
        "level_first_mb": first_mb,
        "level_last_mb": last_mb,
        "level_growth": (last_mb / first_mb - 1.0) if first_mb and last_mb else 0.0,
        "warmup_items": int(limit),
        "samples": len(samples),
        "warmup_mb": warm / 1024,
        "max_after_mb": high / 1024,
        "end_mb": (total[-1][1] / 1024) if total else 0.0,
        "growth": (high / warm - 1.0) if warm and after else 0.0,
        "main_warmup_mb": max(main_during, default=0) / 1024,
        "main_max_after_mb": max(main_after, default=0) / 1024,
        "main_end_mb": (total[-1][2] / 1024) if total else 0.0,
    }


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), str(HERE), env.get("PYTHONPATH", "")) if p
    )
    return env


def run_isolated(spec: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """Run :func:`crawl_worker` in a fresh interpreter and read back its figures."""
    stem = f"spec-{spec['extractor']}-{spec['mode']}"
    spec_path = workdir / f"{stem}.json"
    out_path = workdir / f"{stem}.out.json"
    out_path.unlink(missing_ok=True)
    spec_path.write_text(json.dumps(spec))
    log_path = workdir / f"{stem}.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(spec_path), str(out_path)],
            env=_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        # A crawl that has written its figures but does not exit within EXIT_WAIT seconds
        # hangs at interpreter exit: recorded (``hung_at_exit``), then killed.
        hung = False
        while proc.poll() is None:
            if out_path.exists():
                try:
                    proc.wait(EXIT_WAIT)
                except subprocess.TimeoutExpired:
                    hung = True
                    proc.kill()
                    proc.wait()
                break
            time.sleep(0.5)
    output = log_path.read_text(errors="replace")
    if not out_path.exists() or (proc.returncode != 0 and not hung):
        sys.stderr.write(output[-20000:])
        raise RuntimeError(f"soak {spec['extractor']}/{spec['mode']} failed ({proc.returncode})")
    result = json.loads(out_path.read_text())
    result["hung_at_exit"] = hung
    result["log_tail"] = output.splitlines()[-20:]
    return result


def soak(
    pages: list[bytes],
    kinds: dict[int, str],
    count: int,
    extractors: list[str],
    modes: list[str],
    workdir: Path,
    options: dict[str, Any] | None = None,
    progress: Any = None,
) -> list[dict[str, Any]]:
    """Serve ``pages`` per ``kinds`` and crawl ``count`` URLs once per (extractor, mode)."""
    spec = {**DEFAULTS, **(options or {})}
    site = workdir / "site"
    write_site(pages, kinds, spec, site)
    server, base = start_server(site)
    results = []
    try:
        for extractor in extractors:
            for mode in modes:
                run = {
                    **spec,
                    "pages": count,
                    "kinds": {str(i): k for i, k in kinds.items()},
                    "base": base,
                    "extractor": extractor,
                    "mode": mode,
                }
                result = run_isolated(run, workdir)
                results.append(result)
                if progress is not None:
                    progress(result)
    finally:
        server.terminate()
        server.wait(10)
    return results


def lost(result: dict[str, Any]) -> bool:
    """Whether a run lost an item (or dropped one, or had an item error)."""
    pages = result["pages"]
    return not (
        result["items_in"] == result["items_out"] == result["item_scraped_count"] == pages
        and result["item_dropped_count"] == 0
        and not result["signals"].get("item_dropped")
        and not result["signals"].get("item_error")
    )


# --------------------------------------------------------------------------- report


def _line(result: dict[str, Any]) -> str:
    m = result["memory"]
    return (
        f"{result['extractor']:8} {result['mode']:8} items {result['items_in']}/"
        f"{result['items_out']}/{result['pages']}  RSS {m['warmup_mb']:.0f} -> "
        f"{m['max_after_mb']:.0f} MB ({100 * m['growth']:+.1f} %)  "
        f"{result['pages_per_s']:.1f} pages/s  {result['seconds']:.0f} s"
    )


def render(results: dict[str, Any]) -> str:
    env = results["environment"]
    runs = results["runs"]
    opts = results["options"]
    lines = [
        "# Soak crawl",
        "",
        "`"
        + "`, then `".join(f"python benchmarks/soak.py {a}".strip() for a in results["args"])
        + f"` on {env['cpus']} CPUs "
        f"({env['machine']}, Python {env['python']}, Scrapy {env['scrapy']}): "
        f"up to {results['pages']} pages from a local server (the `pages` column), bodies from "
        f"{results['distinct']} real pages (wcxb-dev, cleaneval) repeated, "
        f"{100 * results['fail_rate']:.1f} % of them failing in {len(KINDS)} ways "
        f"(seed {results['seed']}). DOWNLOAD_TIMEOUT {opts['download_timeout']:g} s, "
        f"DOWNLOAD_MAXSIZE {opts['download_maxsize'] // 2**20} MiB, BOILERPLATE_TIMEOUT "
        f"{opts['extraction_timeout']:g} s, BOILERPLATE_MAX_BODY_SIZE "
        f"{opts['max_body_size'] // 2**20} MiB, retries: Scrapy's default (2). Each run a "
        "fresh process; the server, the crawler and the worker processes share these CPUs.",
        "",
        "Items in: yielded by the spider (callback or errback); out: reaching the last "
        "pipeline; scraped / dropped: Scrapy's stats. Outcomes: ok (main text), empty text "
        "(no reason, yet no main text: never expected), a boilerplate reason, or the errback's "
        "exception; unexpected: outcomes the page's kind should not have (per kind below). "
        "RSS: crawler process plus its "
        f"descendants, sampled every second; warm-up: the first {100 * opts['warmup']:.0f} % "
        "of the items; growth: highest after warm-up / highest during warm-up - 1; level: "
        "median of the samples of the last fifth of the pages / median of those of the first "
        "fifth after warm-up - 1 (peaks are the pages in flight; the level is what stays).",
        "",
        "| extractor | mode | pages | items in | items out | scraped | dropped | ok "
        "| empty text | reasons | errback | unexpected | RSS warm-up MB | RSS max after MB "
        "| RSS end MB | growth % | level % | pages/s | seconds |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        out = r["outcomes"]
        reasons = {k: v for k, v in out.items() if k not in ("ok", "empty-text") and ":" not in k}
        errbacks = {k.split(":", 1)[1]: v for k, v in out.items() if k.startswith("errback:")}
        m = r["memory"]
        unexpected = sum(sum(v.values()) for v in r["unexpected"].values())
        lines.append(
            f"| {r['extractor']} | {r['mode']} | {r['pages']} | {r['items_in']} | "
            f"{r['items_out']} | {r['item_scraped_count']} | {r['item_dropped_count']} | "
            f"{out.get('ok', 0)} | {out.get('empty-text', 0)} | {_counts(reasons)} | "
            f"{_counts(errbacks)} | {unexpected} | {m['warmup_mb']:.0f} | "
            f"{m['max_after_mb']:.0f} | {m['end_mb']:.0f} | {100 * m['growth']:+.1f} | "
            f"{100 * m.get('level_growth', 0.0):+.1f} | "
            f"{r['pages_per_s']:.1f} | {r['seconds']:.0f} |"
        )
    lines += ["", "## Outcomes per failure kind", ""]
    lines.append(
        "Per kind: its pages, and each outcome with the number of runs where it happened "
        "(of "
        + str(len(runs))
        + "). Expected: "
        + "; ".join(f"{k}: {' or '.join(sorted(v))}" for k, v in EXPECTED.items())
        + "."
    )
    lines += ["", "| kind | pages per run | outcomes (count: runs) |", "|---|---:|---|"]
    for kind in ("ok", *KINDS):
        seen: dict[str, Counter[int]] = {}
        pages = "/".join(sorted({str(r["kind_counts"].get(kind, 0)) for r in runs}, key=int))
        for r in runs:
            for outcome, n in r["outcomes_by_kind"].get(kind, {}).items():
                seen.setdefault(outcome, Counter())[n] += 1
        cells = []
        for outcome, by_count in sorted(seen.items()):
            flag = "" if outcome in EXPECTED[kind] else " **unexpected**"
            cells.append(
                outcome
                + flag
                + " "
                + ", ".join(f"{n}: {c}" for n, c in sorted(by_count.items(), reverse=True))
            )
        lines.append(f"| {kind} | {pages} | {'; '.join(cells)} |")
    bad = [r for r in runs if lost(r) or _grew(r)]
    lines += [
        "",
        "Targets (items in = items out = pages, nothing dropped; memory level at most +10 %): "
        + (
            "**met** in every run."
            if not bad
            else "**NOT met** in " + ", ".join(f"{r['extractor']}/{r['mode']}" for r in bad) + "."
        ),
    ]
    hung = [f"{r['extractor']}/{r['mode']}" for r in runs if r.get("hung_at_exit")]
    if hung:
        lines.append(
            f"The crawl process of {', '.join(hung)} wrote its figures, then did not exit "
            f"within {EXIT_WAIT} s (hung at interpreter exit) and was killed."
        )
    return "\n".join(lines)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "–"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        spec = json.loads(Path(argv[1]).read_text())
        Path(argv[2]).write_text(json.dumps(crawl_worker(spec)))
        return 0
    if argv and argv[0] == "--serve":
        serve(Path(argv[1]), Path(argv[2]))
        return 0

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "datasets")
    parser.add_argument("--pages", type=int, default=5000, help="URLs to crawl per run")
    parser.add_argument("--fail-rate", type=float, default=0.05, help="share of failing pages")
    parser.add_argument("--seed", type=int, default=0, help="which indices fail")
    parser.add_argument("--extractors", nargs="+", choices=EXTRACTORS, default=list(EXTRACTORS))
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument(
        "--workers", type=int, default=0, help="BOILERPLATE_WORKERS (0: the plugin's default)"
    )
    parser.add_argument("--download-timeout", type=float, default=DEFAULTS["download_timeout"])
    parser.add_argument(
        "--extraction-timeout",
        type=float,
        default=DEFAULTS["extraction_timeout"],
        help="BOILERPLATE_TIMEOUT",
    )
    parser.add_argument(
        "--warmup", type=float, default=DEFAULTS["warmup"], help="share of items in warm-up"
    )
    add_out(parser, "soak.md, soak.json (after every run, so a long soak leaves its figures)")
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="call glibc's malloc_trim(0) after each RSS sample and record RSS again "
        "(rss_trimmed_kb in soak.json): memory the allocator keeps vs memory in use",
    )
    parser.add_argument(
        "--append",
        action="store_true",
        help="add these runs to the soak.json already in --out (same options) and rewrite "
        "soak.md with all of them",
    )
    args = parser.parse_args(argv)
    if args.append and args.out is None:
        parser.error("--append adds to the soak.json in --out: give --out")

    missing = [name for name, _, _ in SOURCES if not (args.data / name).is_dir()]
    if missing:
        print(
            f"dataset(s) {', '.join(missing)} not found in {args.data}: unpack them from the "
            f"project root with `../shared/data/unpack datasets {' '.join(missing)}` "
            "(or pass --data DIR)",
            file=sys.stderr,
        )
        return 2

    import scrapy

    pages = load_pages(args.data)
    kinds = plan(args.pages, args.fail_rate, args.seed)
    options = {
        "download_timeout": args.download_timeout,
        "extraction_timeout": args.extraction_timeout,
        "warmup": args.warmup,
        "workers": args.workers,
        "diagnose": args.diagnose,
    }
    results: dict[str, Any] = {
        "args": [" ".join(argv)],
        "pages": args.pages,
        "distinct": len(pages),
        "fail_rate": args.fail_rate,
        "seed": args.seed,
        "failing": len(kinds),
        "kind_counts": dict(Counter(kinds.values()), ok=args.pages - len(kinds)),
        "options": {**DEFAULTS, **options},
        "environment": {
            "cpus": os.cpu_count(),
            "machine": platform.machine(),
            "python": platform.python_version(),
            "scrapy": scrapy.__version__,
        },
        "runs": [],
    }
    previous = args.out / "soak.json" if args.out is not None else None
    if args.append and previous is not None and previous.exists():
        before = json.loads(previous.read_text())
        keep = ("fail_rate", "seed", "options", "distinct")
        if any(before.get(k) != results.get(k) for k in keep):
            print("--append: soak.json was made with other options; not appending", file=sys.stderr)
            return 2
        results["args"] = [*before["args"], *results["args"]]
        results["runs"] = before["runs"]
        results["pages"] = max(before["pages"], results["pages"])
        results["kind_counts"] = before["kind_counts"]

    def progress(result: dict[str, Any]) -> None:
        print(_line(result), flush=True)
        results["runs"].append(result)
        # Written after every run, so a long soak leaves its figures so far.
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "soak.json").write_text(json.dumps(results, indent=1))

    with tempfile.TemporaryDirectory(prefix="bp-soak-") as tmp:
        soak(
            pages,
            kinds,
            args.pages,
            args.extractors,
            args.modes,
            Path(tmp),
            options,
            progress,
        )

    report = render(results)
    print()
    print(report)
    write_reports(args.out, {"soak.md": report + "\n", "soak.json": json.dumps(results, indent=1)})
    failed = [r for r in results["runs"] if lost(r) or _grew(r)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
