"""web-poet page objects, for scrapy-poet users: the response's extraction as a page input,
and an article page whose item is zyte-common-items' ``Article``.

A callback declares the page (or, with a rule, the item itself) in its signature::

    SCRAPY_POET_PROVIDERS = {"scrapy_boilerplate.scrapy.pages.PageExtractionProvider": 500}
    BOILERPLATE_ITEM_SCHEMA = "zyte-article"  # pages are read for metadata

    async def parse(self, response, page: BoilerplateArticlePage):
        yield await page.to_item()

The page reads the extraction the downloader middleware made (priority 545, before
scrapy-poet's injection at 543): nothing is extracted twice, and the crawl's execution mode,
timeout and settings apply. This module needs scrapy-poet, web-poet and zyte-common-items
(``scrapy-boilerplate[zyte]`` and scrapy-poet); the rest of the plugin never imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
from scrapy.http import Response
from scrapy_poet import PageObjectInputProvider
from web_poet import ItemPage
from zyte_common_items import Article

from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.result import Extraction
from scrapy_boilerplate.scrapy.items import article_values, as_article_components
from scrapy_boilerplate.scrapy.middlewares import SKIPPED_KEY, get_extraction
from scrapy_boilerplate.scrapy.state import state_for

__all__ = ["BoilerplateArticlePage", "PageExtraction", "PageExtractionProvider"]


@attrs.define
class PageExtraction:
    """A page input: the response's :class:`~scrapy_boilerplate.Extraction` (an empty one,
    with the reason, for a response that was not extracted)."""

    result: Extraction


class PageExtractionProvider(PageObjectInputProvider):
    """Provides :class:`PageExtraction` to page objects and callbacks (register it in
    ``SCRAPY_POET_PROVIDERS``)."""

    provided_classes = {PageExtraction}  # noqa: RUF012 (scrapy-poet reads it as a set)

    def __call__(self, to_provide: set[Callable[..., Any]], response: Response) -> Sequence[Any]:
        result = get_extraction(response)
        if result is None:
            request = response.request
            reason = (request.meta.get(SKIPPED_KEY) if request is not None else None) or (
                Reason.NOT_EXTRACTED
            )
            extractor = state_for(self.injector.crawler).config.extractor
            result = Extraction.failed(reason, extractor, url=response.url)
        return [PageExtraction(result)]


@attrs.define
class BoilerplateArticlePage(ItemPage[Article]):
    """The page as zyte-common-items' ``Article``: the fields of
    ``BOILERPLATE_ITEM_SCHEMA = "zyte-article"`` (docs/items.md), from the extraction.

    The metadata fields (headline, authors, dates...) are there when the crawl reads pages
    for metadata: set ``BOILERPLATE_ITEM_SCHEMA = "zyte-article"`` (or a metadata output).
    """

    extraction: PageExtraction

    async def to_item(self) -> Article:
        """The ``Article`` of this page."""
        return Article(**as_article_components(article_values(self.extraction.result)))
