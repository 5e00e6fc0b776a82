"""Shared pieces of the Scrapy tests: real crawls through ``get_crawler``, a loopback HTTP
server with good and bad responses, and extractors that misbehave on purpose."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import scrapy
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import Extraction, Extractor
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.result import Block

PAGES = Path(__file__).parent / "pages"
ARTICLE = (PAGES / "news_article.html").read_bytes()

#: Settings every crawl here starts from: the add-on and quiet, local-only crawling.
SETTINGS: dict[str, Any] = {
    "ADDONS": {"scrapy_boilerplate.Addon": 0},
    "ROBOTSTXT_OBEY": False,
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
}


class Collect:
    """Last pipeline: keeps what reached it, in order."""

    items: list[Any]

    def open_spider(self, spider: Any = None) -> None:
        Collect.items = []

    def process_item(self, item: Any, spider: Any = None) -> Any:
        Collect.items.append(item)
        return item


class PagesSpider(scrapy.Spider):
    """Fetches ``urls`` and yields one item per response (``make_item`` decides its kind)."""

    name = "pages"
    custom_settings: ClassVar[dict[str, Any]] = {"HTTPERROR_ALLOW_ALL": True}

    def __init__(
        self,
        urls: list[str] = (),
        metas: dict[str, dict] | None = None,
        make_item: Any = None,
        seen: list | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.urls = list(urls)
        self.metas = metas or {}
        self.make_item = make_item or (lambda response: {"url": response.url})
        self.seen = seen if seen is not None else []

    async def start(self):
        for url in self.urls:
            yield scrapy.Request(url, meta=dict(self.metas.get(url, {})), dont_filter=True)

    def parse(self, response: Any) -> Any:
        # What the callback sees: the extraction, and whether the tree is already built.
        self.seen.append(
            {
                "url": response.url,
                "type": type(response).__name__,
                "boilerplate": getattr(response, "boilerplate", None),
                "tree_ready": getattr(response, "_cached_selector", None) is not None,
            }
        )
        yield self.make_item(response)


async def crawl(
    settings: dict[str, Any] | None = None, spider: type = PagesSpider, **spider_kwargs: Any
) -> tuple[list[Any], dict[str, Any], list[dict]]:
    """Run one real crawl; returns (items reaching the last pipeline, stats, callback views)."""
    merged = {**SETTINGS, "ITEM_PIPELINES": {Collect: 900}, **(settings or {})}
    crawler = get_crawler(spider, merged)
    seen: list[dict] = []
    await maybe_deferred_to_future(crawler.crawl(seen=seen, **spider_kwargs))
    return list(Collect.items), crawler.stats.get_stats(), seen


def boilerplate_stats(stats: dict[str, Any]) -> dict[str, Any]:
    return {k[len("boilerplate/") :]: v for k, v in stats.items() if k.startswith("boilerplate/")}


# ---------------------------------------------------------------------------------------------
# A loopback HTTP server


ROUTES: dict[str, tuple[int, dict[str, str], bytes]] = {
    "/article.html": (200, {"Content-Type": "text/html; charset=utf-8"}, ARTICLE),
    "/missing": (404, {"Content-Type": "text/html"}, b"<html><body><p>Not found</p></body></html>"),
    "/error": (500, {"Content-Type": "text/html"}, b"<html><body><p>Oops</p></body></html>"),
    "/image.png": (
        200,
        {"Content-Type": "image/png"},
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8,
    ),
    "/data.json": (200, {"Content-Type": "application/json"}, b'{"a": [1, 2, 3]}'),
    "/document.pdf": (200, {"Content-Type": "application/pdf"}, b"%PDF-1.4\n%\xe2\xe3\n1 0 obj\n"),
    "/empty": (200, {"Content-Type": "text/html"}, b""),
    # Nothing but a short link menu: read whole, every block boilerplate (no-content).
    "/menu.html": (
        200,
        {"Content-Type": "text/html; charset=utf-8"},
        b'<html><body><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
        b'<li><a href="/contact">Contact</a></li></ul></body></html>',
    ),
    "/untyped": (200, {"Content-Type": "application/octet-stream"}, ARTICLE),
    "/plain-html": (200, {"Content-Type": "text/plain"}, ARTICLE),
    # Declares UTF-8 in the header, but the bytes are Windows-1252.
    "/wrong-charset": (
        200,
        {"Content-Type": "text/html; charset=utf-8"},
        ARTICLE.replace(b"Saltmere", "Saltmère".encode("cp1252")),
    ),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, headers, body = ROUTES.get(self.path, (404, {}, b""))
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class LocalServer:
    """``with LocalServer() as url:`` a threaded HTTP server on 127.0.0.1 (free port)."""

    def __enter__(self) -> str:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------------------------------------
# Extractors that misbehave on purpose (importable by path in worker processes)


class SlowExtractor(Extractor):
    """Sleeps ``seconds`` before answering: for timeouts."""

    name = "slow"
    params = (Param("seconds", float, 5.0, "how long to sleep", 0.0),)

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        time.sleep(params["seconds"])
        block = Block("slow text", "/html[1]", "html", "content")
        return Extraction.from_blocks([block], self.name, dict(params))


class BrokenExtractor(Extractor):
    """Raises on every page: an extractor's bug must not break the crawl."""

    name = "broken"

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        raise ValueError("this extractor is broken on purpose")


class LoopingExtractor(Extractor):
    """Works until the page's deadline stops it (at most ``seconds``): for the deadline.

    Each call records in :data:`LOOPS` whether the deadline stopped it (``"stopped"``) or
    it ran out of work (``"finished"``), so a test sees that an abandoned thread ended.
    """

    name = "looping"
    params = (Param("seconds", float, 60.0, "the most it works", 0.0),)

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        from scrapy_boilerplate.core.deadline import ExtractionTimeout, check

        end = time.monotonic() + params["seconds"]
        try:
            while time.monotonic() < end:
                sum(range(1000))  # some pure-Python work between checks
                check()
        except ExtractionTimeout:
            LOOPS.append("stopped")
            raise
        LOOPS.append("finished")
        block = Block("looped text", "/html[1]", "html", "content")
        return Extraction.from_blocks([block], self.name, dict(params))


#: What :class:`LoopingExtractor` calls did (in this process).
LOOPS: list[str] = []


def die_abruptly(*args: Any) -> None:
    """A page whose worker process dies under it (a crash, the kernel's OOM killer)."""
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


class CheckClock:
    """``time.monotonic()`` as the page deadline (core/deadline.py) reads it, moved on by
    one second at every reading, in each thread on its own (deadlines are per thread):
    the deadline passes after a known number of checks, whatever the machine's speed.

    :func:`~scrapy_boilerplate.core.deadline.within` reads it once to set the deadline,
    then every :func:`~scrapy_boilerplate.core.deadline.check` reads it once: with
    ``within(n)``, the check that raises is the ``n + 1``-th.
    """

    def __init__(self, monkeypatch: Any) -> None:
        from types import SimpleNamespace

        from scrapy_boilerplate.core import deadline

        self.local = threading.local()
        monkeypatch.setattr(deadline, "time", SimpleNamespace(monotonic=self.monotonic))

    def monotonic(self) -> float:
        self.local.readings = getattr(self.local, "readings", 0) + 1
        return float(self.local.readings)

    def checks(self) -> int:
        """This thread's checks since the last :meth:`reset` (the first reading set the
        deadline)."""
        return getattr(self.local, "readings", 0) - 1

    def reset(self) -> None:
        self.local.readings = 0
