"""Hostile pages (tests/adversarial.py, generated here, never stored): every extractor ends
each with a recorded outcome, the per-page deadline holds in every execution mode, and a
crawl of them loses no item.

Time and memory figures are not asserted here (benchmarks/adversarial.py measures them);
what is asserted is the outcome: extracted with the page's text, or a stated reason,
``timeout`` included where the page is meant to be too slow.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
import scrapy
from scrapy.utils.defer import deferred_f_from_coro_f

from adversarial import ARTICLE, PAGES, gzip_bomb
from scrapy_boilerplate import extract
from scrapy_boilerplate.core.deadline import ExtractionTimeout, within
from scrapy_boilerplate.entities.extract import extract_entities
from scrapy_helpers import LOOPS, CheckClock, boilerplate_stats, crawl

METHODS = ["justext", "cnr", "web2text", "vips", "auto", "entities", "auto+metadata"]
#: The slow pages get this long (their outcome may be ``timeout``; the 50 MB page's parse
#: alone, one call into lxml, takes a second or two); the others get ``LONG``, so their
#: outcome does not depend on the machine's speed.
LIMIT = 2.0
LONG = 120.0


@pytest.fixture(scope="module")
def pages() -> dict[str, bytes | str]:
    return {name: page.make() for name, page in PAGES.items()}


def run(method: str, html: Any, limit: float) -> tuple[str | None, str]:
    """(reason, all the text read) of one method on one page, within ``limit`` seconds."""
    if method == "entities":
        try:
            with within(limit):
                result = extract_entities(html, "names")
        except ExtractionTimeout:
            return "timeout", ""
        json.dumps(result.lists)
        text = " ".join(e for lst in result.lists for e in lst["entities"])
        return (None if result.reason == "no-list" else result.reason), text
    params: dict[str, Any] = {"layout": "static"} if method == "vips" else {}
    if method == "auto+metadata":
        method, params = "auto", {"metadata": True}
    result = extract(html, method, timeout=limit, **params)
    json.loads(json.dumps(result.to_dict(), allow_nan=False))
    if params.get("metadata") and result.reason != "timeout":
        check_metadata(result.metadata)
    result.to_markdown()
    if result.reason is not None:
        assert result.main_text == ""
        assert result.reason == "no-content" or result.blocks == []
    return read_as_none(result.reason), " ".join(b.text for b in result.blocks)


def check_metadata(metadata: Any) -> None:
    """A hostile page's metadata: the full shape, bounded values, only http(s) URLs, dates
    in range."""
    assert isinstance(metadata, dict)
    assert {"title", "authors", "date_published", "sources", "notes"} <= set(metadata)
    for key in ("title", "description", "site_name"):
        assert metadata[key] is None or len(metadata[key]) <= 1000
    for key in ("main_image", "canonical_url"):
        value = metadata[key]
        assert value is None or (value.startswith(("http://", "https://")) and len(value) < 3000)
    assert all(u.startswith(("http://", "https://")) for u in metadata["images"])
    for key in ("date_published", "date_modified"):
        assert metadata[key] is None or "1990" <= metadata[key][:4] <= "2100"
    assert len(json.dumps(metadata)) < 200_000


def read_as_none(reason: str | None) -> str | None:
    """A page read whole whose blocks are all boilerplate (``no-content``) was read: the
    outcome ``None`` of :data:`PAGES` (its text is checked all the same)."""
    return None if reason == "no-content" else reason


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(PAGES))
def test_every_hostile_page_ends_with_a_recorded_outcome(pages, name, method):
    page = PAGES[name]
    reason, text = run(method, pages[name], LIMIT if page.slow else LONG)
    assert reason in page.outcomes
    if reason is None and page.keeps and method != "entities":
        assert page.keeps in text  # decoded and read, whatever the labels


def _long_page() -> str:
    """An article many times over, a long list and many short lists (for entities)."""
    items = "".join(f"<li>item {i} of a long list</li>" for i in range(8000))
    lists = "".join(
        "<ul>" + "".join(f"<li>name {j} of list {i}</li>" for j in range(5)) + "</ul>"
        for i in range(300)
    )
    return f"<html><body>{lists}{ARTICLE * 600}<ul>{items}</ul></body></html>"


@pytest.mark.parametrize("method", METHODS)
def test_the_deadline_stops_every_method_inside_its_loops_on_a_long_page(method, monkeypatch):
    # The deadline's clock is the test's: it moves on one "second" per check, so the
    # outcome does not depend on the machine's speed.
    clock = CheckClock(monkeypatch)
    assert run(method, ARTICLE, 1e9)[0] is None
    short = clock.checks()
    clock.reset()
    html = _long_page()
    assert run(method, html, 1e9)[0] != "timeout"
    checks = clock.checks()
    # Checked as it goes through the page, so the checks grow with it (checks between
    # the steps only would be as few on the long page as on the short one).
    assert checks >= 40 and checks > 5 * short
    limit = checks // 2
    clock.reset()
    assert run(method, html, limit)[0] == "timeout"
    # Stopped halfway, at the first check past the deadline: nothing ran on to the end.
    assert clock.checks() == limit + 1


# ---------------------------------------------------------------------------------------------
# The deadline in each execution mode (an extractor that works until it is stopped)


def _looping(mode: str, timeout: float = 0.5) -> dict[str, Any]:
    return {
        "BOILERPLATE_EXTRACTOR": "scrapy_helpers:LoopingExtractor",
        "BOILERPLATE_TIMEOUT": timeout,
        "BOILERPLATE_EXECUTION": mode,
        "BOILERPLATE_WORKERS": 1,
    }


class _Server:
    """A loopback server of the hostile pages, a gzip bomb and a truncated body."""

    def __init__(self, routes: dict[str, tuple[dict[str, str], bytes]]) -> None:
        self.routes = routes

    def __enter__(self) -> str:
        routes = self.routes

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                headers, body = routes.get(self.path.split("?")[0], ({}, b""))
                self.send_response(200)
                for key, value in headers.items():
                    self.send_header(key, value)
                if "Content-Length" not in headers:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                # The client may give up on a body over its size limit.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("mode", ["inline", "thread", "process"])
@deferred_f_from_coro_f
async def test_the_deadline_stops_a_page_in_every_execution_mode(mode):
    LOOPS.clear()
    with _Server({"/p": ({"Content-Type": "text/html"}, ARTICLE.encode())}) as url:
        items, stats, _ = await crawl(_looping(mode), urls=[url + "/p"])
    assert [it["boilerplate_reason"] for it in items] == ["timeout"]
    assert boilerplate_stats(stats)["errors/timeout"] == 1
    # The page was stopped by its deadline, not killed: no worker process replaced.
    assert "workers_replaced" not in boilerplate_stats(stats)
    if mode != "process":  # this process's own record (a worker process keeps its own)
        # thread mode: the warm-up's small page, extracted before the crawl, loops too and
        # is stopped by the same deadline
        expected = ["stopped"] * (2 if mode == "thread" else 1)
        for _ in range(100):  # the abandoned thread reaches its next check and ends
            if len(LOOPS) == len(expected):
                break
            time.sleep(0.05)
        stops = list(LOOPS)
        assert stops == expected


# ---------------------------------------------------------------------------------------------
# A crawl of every hostile page: nothing lost, every outcome recorded


class HostileSpider(scrapy.Spider):
    """One item per URL, from the callback or, when the download failed, the errback."""

    name = "hostile"
    custom_settings: ClassVar[dict[str, Any]] = {
        "HTTPERROR_ALLOW_ALL": True,
        "RETRY_ENABLED": False,
    }

    def __init__(self, urls: list[str] = (), seen: list | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = list(urls)
        self.yielded = 0

    async def start(self):
        for url in self.urls:
            yield scrapy.Request(url, errback=self.failed, dont_filter=True)

    def parse(self, response: Any) -> Any:
        self.yielded += 1
        yield {"url": response.url}

    def failed(self, failure: Any) -> Any:
        self.yielded += 1
        yield {"url": failure.request.url, "failure": failure.type.__name__}


#: What a crawl records for each page, by page: the item's ``boilerplate_reason``.
CRAWL_EXPECTED: dict[str, tuple[str | None, ...]] = {
    "size-50mb": ("too-large",),  # over BOILERPLATE_MAX_BODY_SIZE: skipped, not parsed
    "jsonld-50mb": ("too-large",),
    "siblings-240k": (None, "timeout"),
    "text-node-10mb": (None, "timeout"),
    "rss": ("not-html",),
    "svg-only": ("not-html",),
}


@pytest.mark.parametrize("mode", ["inline", "thread", "process"])
@deferred_f_from_coro_f
async def test_a_crawl_of_hostile_pages_loses_no_item(pages, mode):
    routes: dict[str, tuple[dict[str, str], bytes]] = {}
    for name, page in PAGES.items():
        body = pages[name]
        if isinstance(body, str):  # lone surrogates cannot be sent: their UTF-8 escapes are
            body = body.encode("utf-8", "surrogatepass")
        routes[f"/{name}"] = ({"Content-Type": page.content_type}, body)
    routes["/gzip-bomb"] = (
        {"Content-Type": "text/html", "Content-Encoding": "gzip"},
        gzip_bomb(200 * 1024 * 1024),
    )
    routes["/truncated"] = (  # promises more than it sends, then closes
        {"Content-Type": "text/html", "Content-Length": "100000", "Connection": "close"},
        ARTICLE.encode(),
    )
    settings = {
        "BOILERPLATE_EXECUTION": mode,
        "BOILERPLATE_TIMEOUT": 3.0,
        "BOILERPLATE_WORKERS": 1,
        "BOILERPLATE_BLOCKS": "all",  # every block: the text is read whatever its label
        "DOWNLOAD_MAXSIZE": 64 * 1024 * 1024,  # the bomb inflates to 200 MB: cut off
        "DOWNLOAD_WARNSIZE": 0,
        "CONCURRENT_REQUESTS": 4,
        "LOG_LEVEL": "ERROR",
    }
    with _Server(routes) as url:
        urls = [url + path for path in routes]
        items, stats, _ = await crawl(settings, spider=HostileSpider, urls=urls)
    by_path = {it["url"][len(url) :]: it for it in items}
    assert len(items) == len(urls) == len(by_path)  # items in == items out, one per page
    assert stats.get("item_scraped_count") == len(urls)
    assert not stats.get("item_dropped_count")
    # Scrapy's own limits stop the bomb and the truncated body; the errback records them.
    assert by_path["/gzip-bomb"]["failure"] == "IgnoreRequest"
    assert by_path["/truncated"]["failure"] in ("ResponseFailed", "ResponseDataLossError")
    for name, page in PAGES.items():
        item = by_path[f"/{name}"]
        expected = CRAWL_EXPECTED.get(name, page.outcomes)
        reason = read_as_none(item["boilerplate_reason"])
        assert reason in expected, name
        if reason is None and page.keeps:
            assert page.keeps in " ".join(b["text"] for b in item["blocks"]), name


def test_memory_trim_runs_at_most_once_per_interval():
    from scrapy_boilerplate.scrapy import memory as _memory

    # never trimmed yet ("-inf": time.monotonic() counts from boot, and a machine up for
    # less than the interval would otherwise look as if it had trimmed at boot)
    _memory._LAST[0] = float("-inf")
    assert not _memory.maybe_trim(0)  # 0: never
    first = _memory.maybe_trim(3600)
    assert first == (_memory._malloc_trim() is not None)  # glibc: it ran
    assert not _memory.maybe_trim(3600)  # not again within the hour


@deferred_f_from_coro_f
async def test_calls_a_replaced_pool_never_reports_are_failed_and_their_slots_freed():
    # A killed worker can leave its pool's manager thread stuck reading half a result:
    # the call it held would never end, and would hold a worker slot for ever.
    import asyncio
    import os
    import struct
    from concurrent.futures.process import BrokenProcessPool

    from scrapy_boilerplate.scrapy import runner as _execution

    runner = _execution.Runner("process", workers=1)
    try:
        await runner.warm_up("justext")
        job = await runner._submit(time.sleep, (60,))  # holds the only worker slot
        await asyncio.sleep(0.5)
        pool = runner._executor
        os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 1000) + b"half")
        await asyncio.sleep(0.2)  # the manager thread reads the header, waits for the rest
        runner._restart(runner._generation)
        await asyncio.wait_for(runner._worker(), 30)  # the slot comes back
        assert isinstance(job.exception(), BrokenProcessPool)
    finally:
        runner.close()


def test_a_killed_pool_leaves_no_thread_the_interpreter_would_wait_for_at_exit():
    # A worker killed while writing its result leaves half a message in the result pipe:
    # the pool's manager thread then waits for the rest for ever, and the interpreter
    # joins that thread at exit (a crawl that never ends). Half a message, by hand:
    import multiprocessing
    import os
    import struct
    from concurrent.futures import ProcessPoolExecutor

    from scrapy_boilerplate.scrapy import runner as _execution

    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    assert pool.submit(len, "abc").result(timeout=60) == 3
    manager = pool._executor_manager_thread
    os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 1000) + b"half")
    time.sleep(0.2)  # the manager thread reads the header, then waits for 996 more bytes
    assert manager.is_alive()
    _execution._kill(pool)
    manager.join(30)
    assert not manager.is_alive()
