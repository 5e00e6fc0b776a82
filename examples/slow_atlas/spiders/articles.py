"""Three spiders over the Slow Atlas site; none of them calls the extractor itself.

The add-on (settings.py) extracts every HTML response and writes ``main_text``,
``blocks`` (with their labels), ``extractor``... into each item the callback yields. A
callback that wants the result itself reads ``response.boilerplate``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar
from urllib.parse import urldefrag

import scrapy

from slow_atlas.items import Article


class ArticleSpider(scrapy.Spider):
    """Follow the site's links; one item per page, with the project's settings (auto)."""

    name = "articles"

    def __init__(self, base_url: str = "http://127.0.0.1:8000/", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"

    async def start(self) -> AsyncIterator[scrapy.Request]:
        yield self.page_request(self.base_url + "index.html")

    def page_request(self, url: str) -> scrapy.Request:
        return scrapy.Request(url, callback=self.parse)

    def parse(self, response: scrapy.http.Response) -> Iterator[Any]:
        # The tree the extraction used is on the response: these selectors do not parse
        # the page a second time.
        title = " ".join(response.css("title::text").get("").split())
        yield Article(url=response.url, title=title)
        for href in response.css("a::attr(href)").getall():
            url = urldefrag(response.urljoin(href))[0]
            if url.startswith(self.base_url) and url.endswith(".html"):
                yield self.page_request(url)


class CnrSpider(ArticleSpider):
    """The same crawl with another method and its thresholds, through ``custom_settings``."""

    name = "cnr"
    custom_settings: ClassVar[dict[str, Any]] = {
        "BOILERPLATE_EXTRACTOR": "cnr",
        # Section 6 of the CNR paper: go one level up from the best-rated node, so the
        # article's title and byline join its body.
        "BOILERPLATE_PARAMS": {"granularity": 1},
    }


class PerRequestSpider(ArticleSpider):
    """The project's method (``auto``) for most pages, other choices for some requests
    through ``meta``.

    ``meta["boilerplate"] = {"extractor": ..., "params": {...}}`` overrides the settings
    for one request: the Czech article gets jusText with the Czech stoplist and a lower
    ``length_low``; the home page, a list of teasers, gets CNR.
    """

    name = "per_request"
    overrides: ClassVar[dict[str, dict[str, Any]]] = {
        "stare-kolo.html": {"extractor": "justext", "params": {"language": "cs", "length_low": 50}},
        "index.html": {"extractor": "cnr"},
    }

    def page_request(self, url: str) -> scrapy.Request:
        meta = {}
        override = self.overrides.get(url.rsplit("/", 1)[-1])
        if override is not None:
            meta["boilerplate"] = override
        return scrapy.Request(url, callback=self.parse, meta=meta)


class FocusedSpider(ArticleSpider):
    """A focused crawl: every page also gets the entity lists that answer a query
    (zero-shot entity extraction; EntityPipeline writes ``entities`` and
    ``entity_candidates``). Change the query with ``-a query="..."``."""

    name = "focused"
    custom_settings: ClassVar[dict[str, Any]] = {
        "BOILERPLATE_ENTITIES_ENABLED": True,  # the add-on adds the entity components
        "BOILERPLATE_ENTITY_TOP_K": 3,
    }

    def __init__(
        self, query: str = "What are the most read articles this week?", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.entity_query = query  # the pipeline reads the spider's attribute
