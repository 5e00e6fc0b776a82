"""The distributed example's spider: start URLs come from Redis, every worker follows links.

``AtlasSpider`` is a ``scrapy_redis.spiders.RedisSpider`` with three changes that make
scrapy-redis 0.9.1 work on Scrapy >= 2.13 and with several workers (README.md explains
each one):

- ``start()``: Scrapy 2.13+ no longer calls ``start_requests()``, where scrapy-redis
  reads its first batch of start URLs;
- ``make_request_from_data()``: a start URL goes through the shared duplicate filter
  like any other request (scrapy-redis sends it with ``dont_filter=True``, so the page is
  crawled a second time when another page links to it), and its ``meta`` is kept;
- ``spider_idle()``: ``MAX_IDLE_TIME_BEFORE_CLOSE`` counts from the last progress of the
  crawl, not from the time the spider class was imported.

The spider never calls the extractor: the add-on writes ``main_text``, ``blocks``,
``extractor`` and ``boilerplate_reason`` into each item.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urldefrag, urlsplit

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response, TextResponse
from scrapy_redis import defaults
from scrapy_redis.spiders import RedisSpider


class AtlasSpider(RedisSpider):
    """Crawl every page of the site of each start URL; one item per page."""

    name = "atlas"
    #: The Redis list the start URLs are pushed to (README.md): a URL, or JSON
    #: ``{"url": ..., "meta": {...}}`` with plain JSON values in ``meta``.
    redis_key = "atlas:start_urls"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._idle_since: float | None = None
        self._progress: tuple[int, int] | None = None
        self._dupefilter_key = ""

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> AtlasSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)  # connects spider_idle
        key = crawler.settings.get("SCHEDULER_DUPEFILTER_KEY", defaults.SCHEDULER_DUPEFILTER_KEY)
        spider._dupefilter_key = key % {"spider": spider.name}
        crawler.signals.connect(spider._active, signal=signals.response_received)
        return spider

    async def start(self) -> AsyncIterator[Any]:
        # Scrapy >= 2.13 iterates start(), whose default never calls start_requests().
        for request in self.next_requests():
            yield request

    def make_request_from_data(self, data: bytes | str) -> scrapy.Request | None:
        text = data.decode(self.redis_encoding) if isinstance(data, bytes) else data
        text = text.strip()
        try:
            message = json.loads(text) if text.startswith("{") else {"url": text}
        except ValueError:
            message = None
        if not isinstance(message, dict) or not message.get("url"):
            self.logger.warning("Ignored start message without a URL: %r", text[:200])
            return None
        meta = message.get("meta") or {}
        if not isinstance(meta, dict):
            self.logger.warning("Ignored start message whose meta is not an object: %r", text)
            return None
        return scrapy.Request(str(message["url"]), callback=self.parse, meta=meta)

    def parse(self, response: Response) -> Iterator[Any]:
        if not isinstance(response, TextResponse):
            return
        title = " ".join(response.css("title::text").get("").split())
        yield {"url": response.url, "title": title}
        site = urlsplit(response.url).netloc
        for href in response.css("a::attr(href)").getall():
            url = urldefrag(response.urljoin(href))[0]
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") and parts.netloc == site:
                yield scrapy.Request(url, callback=self.parse)

    def _active(self, **_: Any) -> None:
        self._idle_since = None

    def spider_idle(self) -> None:
        """Fetch start URLs; close after ``MAX_IDLE_TIME_BEFORE_CLOSE`` seconds without
        progress.

        Progress is what this worker can see: a response of its own, start URLs waiting,
        a new fingerprint in the shared duplicate filter (another worker found a page).
        A worker waits for the first start URL of a crawl as long as it takes (the
        duplicate filter is empty until then); 0 never closes, as in scrapy-redis.
        """
        self.schedule_next_requests()
        now = time.monotonic()
        progress = (self.count_size(self.redis_key), self.server.scard(self._dupefilter_key))
        if progress != self._progress or self._idle_since is None:
            self._progress = progress
            self._idle_since = now
        crawl_started = progress[1] > 0
        if self.max_idle_time and crawl_started and now - self._idle_since >= self.max_idle_time:
            return  # let the spider close
        raise DontCloseSpider
