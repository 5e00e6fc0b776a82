"""The item pipeline (priority 200, before storage and export).

It extracts items that carry their own raw HTML (``BOILERPLATE_HTML_FIELD``), off the
event loop like the downloader middleware, and applies ``BOILERPLATE_ON_ERROR``: with
``"drop"``, an item with no main text (a recorded reason: error, timeout, a response
that was not HTML, a page whose every block is boilerplate...) is dropped and counted
under ``boilerplate/items_dropped/<reason>``; with ``"keep"`` it goes on with the reason
in its fields. With ``BOILERPLATE_MIN_QUALITY``, an item whose method estimated a lower
``quality`` (``auto``) is dropped too, counted under ``boilerplate/items_dropped/low-quality``
(the bound may depend on the page type); with ``BOILERPLATE_PAGE_TYPES``, an item of
another page type, counted under ``boilerplate/items_dropped/page-type``. Each distinct
case is logged once. Items whose method tells no quality or page type are kept.
Items scraped from a response got their fields from the spider middleware already.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from scrapy_boilerplate.core.reasons import Reason, gloss
from scrapy_boilerplate.core.result import Extraction
from scrapy_boilerplate.scrapy.config import BOILERPLATE_MAX_NODES
from scrapy_boilerplate.scrapy.middlewares import write_item
from scrapy_boilerplate.scrapy.state import Component

if TYPE_CHECKING:
    from scrapy import Spider

logger = logging.getLogger(__name__)


def _extract_html(
    html: str | bytes,
    url: str | None,
    extractor: str,
    params: dict[str, Any],
    max_nodes: int = BOILERPLATE_MAX_NODES,
    options: dict[str, Any] | None = None,
) -> Extraction:
    from scrapy_boilerplate.core.extract import extract

    return extract(html, extractor, url=url, max_nodes=max_nodes, **(options or {}), **params)


class BoilerplatePipeline(Component):
    """Extract items' own HTML; keep or drop items whose extraction failed."""

    async def process_item(self, item: Any, spider: Spider | None = None) -> Any:
        state = self.state
        config = state.config
        if config.html_field is not None:
            adapter = ItemAdapter(item)
            html = adapter.get(config.html_field) if config.html_field in adapter else None
            if html:
                result = await self._extract(html, adapter)
                item = write_item(state, item, result)
        reason, quality, page_type = state.writer.facts(item)
        if config.on_error == "drop" and reason is not None:
            state.reporter.inc(f"items_dropped/{reason}")
            raise DropItem(f"scrapy-boilerplate: no main text ({reason}: {gloss(reason)})")
        if config.page_types and page_type is not None and page_type not in config.page_types:
            message = (
                f"scrapy-boilerplate: page type {page_type!r} not in BOILERPLATE_PAGE_TYPES "
                f"({', '.join(sorted(config.page_types))})"
            )
            state.reporter.problem(
                "items_dropped/page-type", logging.INFO, "%s", message, case=page_type
            )
            raise DropItem(message)
        bound = config.min_quality
        if page_type is not None:
            bound = config.min_quality_by_type.get(page_type, bound)
        if bound and quality is not None and quality < bound:
            which = f"[{page_type!r}]" if page_type in config.min_quality_by_type else ""
            state.reporter.problem(
                "items_dropped/low-quality",
                logging.INFO,
                "Dropping items below BOILERPLATE_MIN_QUALITY%s (%g), e.g. quality %.3f",
                which,
                bound,
                quality,
                case=which or "default",
            )
            raise DropItem(
                f"scrapy-boilerplate: quality {quality:.3f} below BOILERPLATE_MIN_QUALITY{which} "
                f"({bound:g})"
            )
        return item

    async def _extract(self, html: Any, adapter: ItemAdapter) -> Extraction:
        state = self.state
        reporter = state.reporter
        extractor, params = state.config.extractor, state.config.params
        url = adapter.get("url") if "url" in adapter else None
        if not isinstance(html, (str, bytes)):
            reporter.problem(
                "errors/TypeError",
                logging.ERROR,
                "Field %s holds %s, not str or bytes",
                state.config.html_field,
                type(html).__name__,
                case=f"{state.config.html_field}: {type(html).__name__}",
            )
            return Extraction.failed(
                Reason.ERROR,
                extractor,
                params,
                url=url,
                extra={"error": f"TypeError: {type(html).__name__}"},
            )
        if state.config.max_body_size < len(html):
            reporter.inc(f"skipped/{Reason.TOO_LARGE.value}")
            return Extraction.failed(Reason.TOO_LARGE, extractor, params, url=url)
        config = state.config
        call = (
            _extract_html,
            html,
            url,
            extractor,
            params,
            config.max_nodes,
            config.extract_options,
        )
        return await state.extract(call, extractor, params, url, "an item's HTML")
