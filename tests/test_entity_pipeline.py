"""EntityPipeline in real crawls: the query's precedence, the page an item came from, bad
configuration and items without a query."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f
from scrapy.utils.test import get_crawler

from scrapy_boilerplate.scrapy.entities import QUERY_META, EntityPipeline
from scrapy_helpers import PAGES, CheckClock, Collect, PagesSpider, boilerplate_stats, crawl

TRAILS_URL = (PAGES / "trails.html").as_uri()
SETTINGS = {
    "SPIDER_MIDDLEWARES": {"scrapy_boilerplate.scrapy.entities.EntitySpiderMiddleware": 600},
    "ITEM_PIPELINES": {EntityPipeline: 300, Collect: 900},
}


class TrailsSpider(PagesSpider):
    name = "trails"
    entity_query = "hiking trails near baltimore"


@deferred_f_from_coro_f
async def test_items_get_the_entity_lists_of_their_page():
    items, stats, _ = await crawl(SETTINGS, spider=TrailsSpider, urls=[TRAILS_URL])
    (item,) = items
    assert 1 <= len(item["entity_candidates"]) <= 5
    best = item["entity_candidates"][0]
    assert item["entities"] == best["entities"] and best["xpath"].startswith("/html")
    assert 0 < best["score"] <= 1
    assert boilerplate_stats(stats)["entities/pages"] == 1


@deferred_f_from_coro_f
async def test_query_precedence_item_then_meta_then_spider_then_setting(monkeypatch):
    import scrapy_boilerplate.entities.extract as ex

    seen_queries: list[str] = []
    real = ex.extract_entities

    def spy(html: Any, query: str, *args: Any) -> Any:
        seen_queries.append(query)
        return real(html, query, *args)

    monkeypatch.setattr(ex, "extract_entities", spy)
    urls = [TRAILS_URL + "#item", TRAILS_URL + "#meta", TRAILS_URL + "#spider"]

    def make_item(response: Any) -> dict:
        item = {"url": response.url}
        if response.url.endswith("#item"):
            item["query"] = "from the item"
        return item

    metas = {u: {QUERY_META: "from the meta"} for u in urls[:2]}
    setting = {**SETTINGS, "BOILERPLATE_ENTITY_QUERY": "from the setting"}
    await crawl(setting, spider=TrailsSpider, urls=urls, metas=metas, make_item=make_item)
    await crawl(setting, spider=PagesSpider, urls=[TRAILS_URL])
    assert sorted(seen_queries) == sorted(
        ["from the item", "from the meta", "hiking trails near baltimore", "from the setting"]
    )


@deferred_f_from_coro_f
async def test_an_item_without_any_query_is_kept_with_the_reason():
    items, stats, _ = await crawl(SETTINGS, spider=PagesSpider, urls=[TRAILS_URL])
    (item,) = items
    assert item["entities"] == [] and item["entities_reason"] == "no-query"
    assert boilerplate_stats(stats)["entities/skipped/no-query"] == 1


def test_an_empty_query_setting_fails_at_start():
    crawler = get_crawler(PagesSpider, {"BOILERPLATE_ENTITY_QUERY": "  "})
    with pytest.raises(ValueError, match="BOILERPLATE_ENTITY_QUERY"):
        EntityPipeline.from_crawler(crawler)


@deferred_f_from_coro_f
async def test_a_page_without_lists_gives_an_empty_result_with_its_reason(tmp_path):
    class OneParagraph(TrailsSpider):
        name = "one-paragraph"
        custom_settings: ClassVar[dict] = {}

    page = tmp_path / "one_paragraph.html"
    page.write_text("<html><body><p>Just one paragraph here.</p></body></html>")
    items, stats, _ = await crawl(SETTINGS, spider=OneParagraph, urls=[page.as_uri()])
    (item,) = items
    assert item["entities"] == [] and item["entities_reason"] == "no-list"
    assert boilerplate_stats(stats)["entities/empty/no-list"] == 1


@deferred_f_from_coro_f
async def test_a_page_over_the_crawls_time_limit_is_stopped_and_its_item_kept(
    tmp_path, monkeypatch
):
    page = tmp_path / "long_list.html"
    rows = "".join(f"<li>trail number {i} near the bay</li>" for i in range(15000))
    page.write_text(f"<html><body><ul>{rows}</ul></body></html>")
    # The deadline's clock moves on one second per check: the page's first check is past
    # its half second, whatever the machine's speed.
    CheckClock(monkeypatch)
    settings = {**SETTINGS, "BOILERPLATE_TIMEOUT": 0.5}
    items, stats, _ = await crawl(settings, spider=TrailsSpider, urls=[page.as_uri()])
    (item,) = items
    assert item["entities"] == [] and item["entities_reason"] == "timeout"
    assert boilerplate_stats(stats)["entities/errors/timeout"] == 1
