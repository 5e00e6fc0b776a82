"""The web-poet page object (scrapy_boilerplate.scrapy.pages): a scrapy-poet callback
declares the article page, or the ``Article`` itself, and gets the crawl's extraction."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
import scrapy
from scrapy.utils.defer import deferred_f_from_coro_f

pytest.importorskip("scrapy_poet")
pytest.importorskip("zyte_common_items")

from web_poet import ApplyRule
from zyte_common_items import Article

from scrapy_boilerplate.scrapy.pages import (
    BoilerplateArticlePage,
    PageExtractionProvider,
)
from scrapy_helpers import PAGES, ROUTES, LocalServer, boilerplate_stats, crawl

ARTICLE = "/metadata.html"
ITEM = "/article-item.html"


class ArticleSpider(scrapy.Spider):
    """Declares the article page, or the Article itself, in its callbacks' signatures."""

    name = "articles"
    custom_settings: ClassVar[dict[str, Any]] = {"HTTPERROR_ALLOW_ALL": True}

    def __init__(self, urls: list[str] = (), seen: list | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.urls = list(urls)

    async def start(self):
        for url in self.urls:
            callback = self.parse_item if url.endswith(ITEM) else self.parse
            yield scrapy.Request(url, callback=callback, dont_filter=True)

    async def parse(self, response, page: BoilerplateArticlePage):
        yield await page.to_item()

    def parse_item(self, response, article: Article):
        yield article


@deferred_f_from_coro_f
async def test_a_callback_declares_the_article_page_or_the_article(monkeypatch):
    page = (PAGES / "metadata_article.html").read_bytes()
    monkeypatch.setitem(ROUTES, ARTICLE, (200, {"Content-Type": "text/html"}, page))
    monkeypatch.setitem(ROUTES, ITEM, (200, {"Content-Type": "text/html"}, page))
    settings = {
        "BOILERPLATE_ITEM_SCHEMA": "zyte-article",
        "ADDONS": {"scrapy_boilerplate.Addon": 0, "scrapy_poet.Addon": 300},
        "SCRAPY_POET_PROVIDERS": {PageExtractionProvider: 500},
        "SCRAPY_POET_RULES": [ApplyRule("", use=BoilerplateArticlePage, to_return=Article)],
    }
    with LocalServer() as base:
        urls = [base + ARTICLE, base + ITEM, base + "/missing"]
        items, stats, _ = await crawl(settings, spider=ArticleSpider, urls=urls)
    assert len(items) == 3 and all(type(it) is Article for it in items)
    by_url = {it.url.replace(base, ""): it for it in items}
    for url in (ARTICLE, ITEM):
        article = by_url[url]
        assert article.headline == "Lighthouse keepers return to Saltmere"
        assert article.authors[0].name == "Martha Quill"
        assert article.articleBody.startswith("Lighthouse keepers return")
    # a response not extracted: an empty Article with its URL, as Zyte API gives one
    assert by_url["/missing"].articleBody is None
    assert boilerplate_stats(stats)["pages"] == 2  # each page extracted once
