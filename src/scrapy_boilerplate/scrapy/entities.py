"""Entity lists in a crawl: ``EntityPipeline`` adds ``entities`` (the best list) and
``entity_candidates`` (the top k lists with their scores and XPaths) to items.

Enable both components (the spider middleware remembers which response each item came
from, so the pipeline can read that page)::

    SPIDER_MIDDLEWARES = {"scrapy_boilerplate.scrapy.entities.EntitySpiderMiddleware": 600}
    ITEM_PIPELINES = {"scrapy_boilerplate.scrapy.entities.EntityPipeline": 300}

The query, first found wins: the item's ``BOILERPLATE_ENTITY_QUERY_FIELD`` field (default
``query``), the request's ``meta["boilerplate_entity_query"]``, the spider's
``entity_query`` attribute, the ``BOILERPLATE_ENTITY_QUERY`` setting. An item with no query
from any of them keeps going with ``entities_reason = "no-query"`` (counted and logged);
an empty ``BOILERPLATE_ENTITY_QUERY`` fails at crawl start. The page is the response the
item came from, or the item's ``BOILERPLATE_HTML_FIELD`` if set. Extraction runs in a thread
(``BOILERPLATE_ENTITY_CONCURRENCY`` at a time), never on the event loop; pages are capped by
``BOILERPLATE_ENTITY_MAX_NODES`` and ``BOILERPLATE_ENTITY_MAX_PREDICATES`` (a capped page
is counted under ``boilerplate/entities/capped``) and stopped at ``BOILERPLATE_TIMEOUT``
(``entities_reason = "timeout"``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any

from itemadapter import ItemAdapter, is_item

from scrapy_boilerplate.core.deadline import ExtractionTimeout, within
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.scrapy.state import Reporter

logger = logging.getLogger(__name__)

QUERY_META = "boilerplate_entity_query"
_PENDING_LIMIT = 10000


class _Pages:
    """Which response each item came from, until the pipeline takes it (bounded; the item
    itself is held, so its id cannot be reused while it waits)."""

    def __init__(self) -> None:
        self.items: OrderedDict[int, tuple[Any, Any]] = OrderedDict()

    def put(self, item: Any, response: Any) -> None:
        self.items[id(item)] = (item, response)
        while len(self.items) > _PENDING_LIMIT:
            self.items.popitem(last=False)

    def take(self, item: Any) -> Any:
        entry = self.items.pop(id(item), None)
        return entry[1] if entry is not None and entry[0] is item else None


def _pages(crawler: Any) -> _Pages:
    pages = getattr(crawler, "_boilerplate_entity_pages", None)
    if pages is None:
        pages = _Pages()
        crawler._boilerplate_entity_pages = pages
    return pages


class EntitySpiderMiddleware:
    """Remembers the response of every item a callback yields (for :class:`EntityPipeline`)."""

    def __init__(self, crawler: Any) -> None:
        self.pages = _pages(crawler)

    @classmethod
    def from_crawler(cls, crawler: Any) -> EntitySpiderMiddleware:
        return cls(crawler)

    async def process_spider_output_async(self, response: Any, result: Any, spider: Any = None):
        async for obj in result:
            if is_item(obj):
                self.pages.put(obj, response)
            yield obj

    def process_spider_output(self, response: Any, result: Any, spider: Any = None):
        for obj in result:
            if is_item(obj):
                self.pages.put(obj, response)
            yield obj


def _within(limit: float | None, func: Any, *args: Any) -> Any:
    """``func(*args)`` under a deadline of ``limit`` seconds from now (this thread)."""
    with within(limit):
        return func(*args)


class EntityPipeline:
    """Adds the entity lists that answer the crawl's query to every item."""

    def __init__(self, crawler: Any) -> None:
        settings = crawler.settings
        self.crawler = crawler
        self.query = settings.get("BOILERPLATE_ENTITY_QUERY")
        if self.query is not None and not str(self.query).strip():
            raise ValueError("BOILERPLATE_ENTITY_QUERY is empty: give the query to answer")
        self.query_field = settings.get("BOILERPLATE_ENTITY_QUERY_FIELD", "query")
        self.html_field = settings.get("BOILERPLATE_HTML_FIELD")
        self.top_k = settings.getint("BOILERPLATE_ENTITY_TOP_K", 5)
        if self.top_k < 1:
            raise ValueError(f"BOILERPLATE_ENTITY_TOP_K must be at least 1, got {self.top_k}")
        self.model = settings.get("BOILERPLATE_ENTITY_MODEL")
        self.max_nodes = settings.getint("BOILERPLATE_ENTITY_MAX_NODES", 20000)
        self.max_predicates = settings.getint("BOILERPLATE_ENTITY_MAX_PREDICATES", 500000)
        self.semaphore = asyncio.Semaphore(settings.getint("BOILERPLATE_ENTITY_CONCURRENCY", 2))
        # The crawl's per-page limit: the extraction checks it as it goes and stops there.
        self.timeout = settings.getfloat("BOILERPLATE_TIMEOUT", 30.0) or None
        self.pages = _pages(crawler)
        self.reporter = Reporter(crawler)

    @classmethod
    def from_crawler(cls, crawler: Any) -> EntityPipeline:
        return cls(crawler)

    def _query(self, adapter: ItemAdapter, response: Any, spider: Any) -> str | None:
        if self.query_field in adapter and adapter.get(self.query_field):
            return str(adapter.get(self.query_field))
        meta = getattr(response, "meta", None) if response is not None else None
        if meta and meta.get(QUERY_META):
            return str(meta[QUERY_META])
        attr = getattr(spider, "entity_query", None) if spider is not None else None
        if attr:
            return str(attr)
        return self.query

    async def process_item(self, item: Any, spider: Any = None) -> Any:
        from scrapy_boilerplate.entities.extract import extract_entities

        response = self.pages.take(item)
        adapter = ItemAdapter(item)
        spider = spider or getattr(self.crawler, "spider", None)
        query = self._query(adapter, response, spider)
        html: Any = None
        if self.html_field and self.html_field in adapter and adapter.get(self.html_field):
            html = adapter.get(self.html_field)
        elif response is not None:
            try:
                html = response.selector  # the tree Scrapy already parsed: no second parse
            except AttributeError:  # not a TextResponse
                pass
            except ValueError:  # Scrapy reads <base href> with w3lib: "https://www:x.org/"
                html = response.text
        if not query or not str(query).strip():
            return self._fail(adapter, Reason.NO_QUERY, "An item had no entity query (%s)", item)
        if html is None:
            return self._fail(
                adapter, Reason.NO_PAGE, "An item came with no page to read (%s)", item
            )
        async with self.semaphore:
            try:
                result = await asyncio.to_thread(
                    _within, self.timeout, extract_entities, html, query, self.top_k,
                    self.model, 8, self.max_nodes, self.max_predicates,
                )  # fmt: skip
            except ExtractionTimeout:
                self.reporter.inc("entities/errors/timeout")
                where = getattr(response, "url", None) or "an item's page"
                return self._fail(
                    adapter, Reason.TIMEOUT, "Entity extraction timed out on %s", where
                )
            except Exception as exc:  # a bug or a bad model must not lose the item
                self.reporter.inc(f"entities/errors/{type(exc).__name__}")
                return self._fail(adapter, Reason.ERROR, "Entity extraction failed: %r", exc)
        self.reporter.inc("entities/pages")
        if result.info.get("truncated"):
            self.reporter.inc("entities/capped")
        self._set(adapter, "entities", result.entities)
        self._set(adapter, "entity_candidates", result.lists)
        if result.reason:
            self.reporter.inc(f"entities/empty/{result.reason}")
            self._set(adapter, "entities_reason", result.reason)
        return item

    def _fail(self, adapter: ItemAdapter, reason: Reason, message: str, arg: Any) -> Any:
        self.reporter.inc(f"entities/skipped/{reason.value}")
        self.reporter.once(f"entities/skipped/{reason.value}", logging.WARNING, message, arg)
        self._set(adapter, "entities", [])
        self._set(adapter, "entity_candidates", [])
        self._set(adapter, "entities_reason", reason.value)
        return adapter.item

    def _set(self, adapter: ItemAdapter, field: str, value: Any) -> None:
        try:
            adapter[field] = value
        except KeyError:  # a scrapy.Item without the field: say so once, keep the item
            self.reporter.once(
                "entities/undeclared-field",
                logging.ERROR,
                "Item class %s lacks the field %r: declare entities, entity_candidates and "
                "entities_reason",
                type(adapter.item).__name__,
                field,
            )
