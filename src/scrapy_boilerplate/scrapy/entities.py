"""Entity lists in a crawl: :class:`EntityPipeline` adds ``entities`` (the best list),
``entity_candidates`` (the top k lists with their scores and XPaths) and, when there is
none, ``entities_reason`` to items.

The add-on adds both components when entity lists are on (``BOILERPLATE_ENTITIES_ENABLED
= True``, or a ``BOILERPLATE_ENTITY_QUERY``): :class:`EntitySpiderMiddleware` (40)
remembers the response each item came from, and :class:`EntityPipeline` (250, after the
main-content pipeline) reads that page. Their settings are read and checked with the
others (:class:`~scrapy_boilerplate.scrapy.config.EntityConfig`, ``Config.entities``).

The query, first found wins: the item's ``BOILERPLATE_ENTITY_QUERY_FIELD`` field (default
``query``), the request's ``meta["boilerplate_entity_query"]``, the spider's
``entity_query`` attribute, the ``BOILERPLATE_ENTITY_QUERY`` setting. An item with no query
from any of them keeps going with ``entities_reason = "no-query"`` (counted and logged).
The page is the item's ``BOILERPLATE_HTML_FIELD`` if set, else the response it came from.

The work runs on the crawl's extraction runner (the same workers and queue as the
main-content extraction, ``BOILERPLATE_EXECUTION``), never on the event loop, and is
stopped at ``BOILERPLATE_TIMEOUT`` (``entities_reason = "timeout"``). Stats under
``boilerplate/entities/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter, is_item
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.http import TextResponse

from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.scrapy.config import BOILERPLATE_MAX_NODES, BoilerplateSettingsError
from scrapy_boilerplate.scrapy.middlewares import checked_tree
from scrapy_boilerplate.scrapy.runner import ExtractionTimeout
from scrapy_boilerplate.scrapy.state import CheckedMarkup, Component

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterable, Iterator

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response


logger = logging.getLogger(__name__)

#: ``Request.meta`` key: the query for the items of this request's response.
QUERY_META = "boilerplate_entity_query"


class _EntityComponent(Component):
    """Base of the entity components: the crawler's shared state, entity lists on."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.config = self.state.config.entities
        if not self.config.enabled:
            raise NotConfigured(
                "entity lists are off: set BOILERPLATE_ENTITIES_ENABLED = True or "
                "BOILERPLATE_ENTITY_QUERY"
            )
        self.pages = self.state.entity_pages


class EntitySpiderMiddleware(_EntityComponent):
    """Remembers the response of every item a callback yields (for :class:`EntityPipeline`).

    At 40, below the usual spider middlewares, it sees the item objects that go on to
    the pipelines, after any middleware that replaces them.
    """

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        async for obj in result:
            if is_item(obj):
                self.pages.put(obj, response)
            yield obj

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Spider | None = None
    ) -> Iterator[Any]:
        for obj in result:
            if is_item(obj):
                self.pages.put(obj, response)
            yield obj


#: What :func:`_get_ready` reads: a small page with one list.
WARM_PAGE = (
    "<html><body><h2>Trails</h2><ul><li>Avalon Loop</li><li>Hilton Area</li>"
    "<li>Orange Grove</li></ul></body></html>"
)


def _get_ready(path: str | None, keep: bool) -> None:
    """Load the entity model (raises when it cannot be read); with ``keep``, keep it in
    this process's cache, fold its weights for each query style (what the first query of
    each style would do) and read :data:`WARM_PAGE`, which loads what a first page would
    (the part-of-speech tagger's lexicon: about as long as the model)."""
    from scrapy_boilerplate.entities.extract import DEFAULT_MODEL, extract_entities, load_model
    from scrapy_boilerplate.entities.features import QUERY_STYLES
    from scrapy_boilerplate.entities.model import Model

    if not keep:  # process mode: a check only, each worker process loads its own
        Model.load(path or DEFAULT_MODEL)
        return
    model = load_model(path)
    for style in QUERY_STYLES:
        model.for_style(style)
    with contextlib.suppress(Exception):  # a first page meets the same problem and reports it
        extract_entities(WARM_PAGE, "trails", 1, path)


def _entity_lists(
    page: Any,
    query: str,
    top_k: int,
    model: str | None,
    max_nodes: int,
    max_predicates: int,
    page_max_nodes: int = BOILERPLATE_MAX_NODES,
    checked: CheckedMarkup | None = None,
) -> Any:
    """Runs where the runner runs pages: ``page`` is HTML, or a response whose tree (the
    one its callback used, or built here, off the event loop) is read. The response's bytes
    are checked first, as ``parse`` checks HTML and the middleware a response, so that
    Scrapy's parser never reads what ``parse`` refuses (a tag of too many attributes holds
    it in one uninterruptible call): the result is empty, with the reason. The page is held
    to the crawl's ``page_max_nodes`` (``BOILERPLATE_MAX_NODES``), as for the main content;
    a response the downloader middleware already checked (``checked``) is not scanned again.
    """
    from scrapy_boilerplate.entities.extract import EntityResult, extract_entities

    try:
        if isinstance(page, TextResponse):
            page = checked_tree(page, page_max_nodes, checked)
        page = parse(page, max_nodes=page_max_nodes)
    except UnsupportedInput as exc:
        refused = EntityResult(query)
        refused.reason = exc.reason
        return refused
    return extract_entities(page, query, top_k, model, 8, max_nodes, max_predicates)


def _asyncio_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class EntityPipeline(_EntityComponent):
    """Adds the entity lists that answer the item's query to every item (priority 250)."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        # Items dropped ahead of it (BOILERPLATE_ON_ERROR = "drop" at 200) never come here.
        crawler.signals.connect(self.pages.forget, signal=signals.item_dropped)
        crawler.signals.connect(self.pages.forget, signal=signals.item_error)
        if self.state.runner.mode == "process":  # each worker process loads its own
            self.state.runner.also_warm(_get_ready, self.config.model, True)

    async def open_spider(self, spider: Spider | None = None) -> None:
        """Load the model before the first page, off the event loop: a file that cannot
        be read stops the crawl here, and the first pages neither wait for it nor count
        its time against their limit (in ``process`` mode, this checks the file; each
        worker process loads it as the runner warms it up, before its first page)."""
        model = self.config.model
        keep = self.state.runner.mode != "process"
        try:
            if self.state.runner.mode == "inline" or _asyncio_running():
                await self.state.runner.offload(_get_ready, model, keep)
            else:  # not the asyncio reactor: the crawler's state falls back to inline
                _get_ready(model, keep)
        except Exception as exc:
            where = model or "the shipped entity model"
            raise BoilerplateSettingsError(
                "BOILERPLATE_ENTITY_MODEL", f"cannot load {where}: {type(exc).__name__}: {exc}"
            ) from exc

    def _query(self, adapter: ItemAdapter, response: Any, spider: Any) -> str | None:
        field = self.config.query_field
        if field in adapter and adapter.get(field):
            return str(adapter.get(field))
        meta = getattr(response, "meta", None) if response is not None else None
        if meta and meta.get(QUERY_META):
            return str(meta[QUERY_META])
        attr = getattr(spider, "entity_query", None) if spider is not None else None
        if attr:
            return str(attr)
        return self.config.query

    def _page(self, adapter: ItemAdapter, response: Any) -> Any:
        """The item's own HTML, or its response (its text in ``process`` mode: a tree
        cannot cross processes); None when there is no page to read."""
        html_field = self.state.config.html_field
        if html_field and html_field in adapter and adapter.get(html_field):
            return adapter.get(html_field)
        if not isinstance(response, TextResponse):
            return None
        return response.text if self.state.runner.mode == "process" else response

    async def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        response = self.pages.take(item)
        adapter = ItemAdapter(item)
        spider = spider or getattr(self.crawler, "spider", None)
        query = self._query(adapter, response, spider)
        if not query or not query.strip():
            return self._fail(
                adapter,
                Reason.NO_QUERY,
                "skipped/no-query",
                "An item (%s) had no entity query",
                type(item).__name__,
            )
        page = self._page(adapter, response)
        if page is None:
            return self._fail(
                adapter,
                Reason.NO_PAGE,
                "skipped/no-page",
                "An item (%s) came with no page to read",
                type(item).__name__,
            )
        config = self.config
        where = getattr(response, "url", None) or "an item's page"
        reporter = self.state.reporter
        try:
            # (a response checked by the downloader middleware is not scanned again; in
            # process mode the page is its text, checked where it is parsed)
            checked = None if self.state.runner.mode == "process" else self.state.checked_markup
            result, seconds = await self.state.runner.run(
                _entity_lists, page, query, config.top_k, config.model,
                config.max_nodes, config.max_predicates, self.state.config.max_nodes, checked,
            )  # fmt: skip
        except ExtractionTimeout as exc:
            return self._fail(
                adapter,
                Reason.TIMEOUT,
                "errors/timeout",
                "Entity lists of %s timed out: %s",
                where,
                exc,
            )
        except Exception as exc:  # a bug must not lose the item
            name = type(exc).__name__
            return self._fail(
                adapter,
                Reason.ERROR,
                f"errors/{name}",
                "Entity lists of %s failed: %r",
                where,
                exc,
                case=repr(exc),
            )
        reporter.inc("entities/pages")
        reporter.inc("entities/seconds", round(seconds, 6))
        reporter.max("entities/max_seconds", round(seconds, 6))
        if result.info.get("truncated"):
            reporter.inc("entities/capped")
        self._set(adapter, "entities", result.entities)
        self._set(adapter, "entity_candidates", result.lists)
        if result.reason:
            reporter.inc(f"entities/empty/{result.reason}")
            self._set(adapter, "entities_reason", result.reason)
        return item

    def _fail(
        self,
        adapter: ItemAdapter,
        reason: Reason,
        key: str,
        message: str,
        *args: Any,
        case: str | None = None,
    ) -> Any:
        """Keep the item with empty lists and ``reason``; count ``entities/<key>`` and log
        each distinct ``case`` of it once."""
        self.state.reporter.problem(f"entities/{key}", logging.WARNING, message, *args, case=case)
        self._set(adapter, "entities", [])
        self._set(adapter, "entity_candidates", [])
        self._set(adapter, "entities_reason", reason.value)
        return adapter.item

    def _set(self, adapter: ItemAdapter, field: str, value: Any) -> None:
        try:
            adapter[field] = value
        except KeyError:  # a scrapy.Item without the field: say so once, keep the item
            cls = type(adapter.item)
            self.state.reporter.problem(
                "entities/errors/undeclared_field",
                logging.ERROR,
                "Item class %s lacks the field %r: declare entities, entity_candidates and "
                "entities_reason",
                cls.__name__,
                field,
                case=f"{cls.__module__}.{cls.__qualname__}",
            )
