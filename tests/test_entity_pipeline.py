"""Entity lists in real crawls through the add-on: turning them on, the query's precedence,
the page an item came from, the settings (checked at start), the shared extraction pool,
bad configuration and items without a query."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from typing import Any, ClassVar
from weakref import WeakKeyDictionary

import pytest
import scrapy
from scrapy.settings import Settings
from scrapy.utils.defer import deferred_f_from_coro_f, maybe_deferred_to_future
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import Addon
from scrapy_boilerplate.scrapy import config
from scrapy_boilerplate.scrapy.addon import (
    ENTITY_PIPELINE_PRIORITY,
    ENTITY_SPIDER_MIDDLEWARE_PRIORITY,
)
from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError, Config
from scrapy_boilerplate.scrapy.entities import (
    QUERY_META,
    WARM_PAGE,
    EntityPipeline,
    EntitySpiderMiddleware,
)
from scrapy_boilerplate.scrapy.state import state_for
from scrapy_helpers import PAGES, CheckClock, Collect, PagesSpider, boilerplate_stats, crawl

TRAILS_URL = (PAGES / "trails.html").as_uri()
#: Entity lists on, through the add-on (scrapy_helpers.crawl enables it).
SETTINGS = {"BOILERPLATE_ENTITIES_ENABLED": True}


class TrailsSpider(PagesSpider):
    name = "trails"
    entity_query = "hiking trails near baltimore"


# ---------------------------------------------------------------------------------------------
# Turning them on: the add-on


def _entity_entries(settings: dict[str, Any]) -> tuple[Any, Any]:
    crawler = get_crawler(PagesSpider, {"ADDONS": {Addon: 0}, **settings})
    middlewares = crawler.settings.getdict("SPIDER_MIDDLEWARES")
    pipelines = crawler.settings.getdict("ITEM_PIPELINES")
    return middlewares.get(EntitySpiderMiddleware), pipelines.get(EntityPipeline)


@pytest.mark.parametrize(
    "settings",
    [
        {"BOILERPLATE_ENTITIES_ENABLED": True},
        {"BOILERPLATE_ENTITIES_ENABLED": "1"},
        {"BOILERPLATE_ENTITY_QUERY": "hiking trails near baltimore"},
    ],
)
def test_the_addon_adds_the_entity_components_when_they_are_on(settings):
    priorities = (ENTITY_SPIDER_MIDDLEWARE_PRIORITY, ENTITY_PIPELINE_PRIORITY)
    assert _entity_entries(settings) == priorities
    # After the main-content pipeline (its "drop" comes first), before storage (300).
    assert priorities == (40, 250)


def test_the_addon_leaves_the_entity_components_out_when_they_are_off():
    assert _entity_entries({}) == (None, None)
    assert _entity_entries({"BOILERPLATE_ENTITIES_ENABLED": False}) == (None, None)


def test_the_addon_keeps_the_users_own_entity_entries():
    path = "scrapy_boilerplate.scrapy.entities.EntityPipeline"
    crawler = get_crawler(
        PagesSpider,
        {
            "ADDONS": {Addon: 0},
            "BOILERPLATE_ENTITIES_ENABLED": True,
            "ITEM_PIPELINES": {path: 280},
            "SPIDER_MIDDLEWARES": {EntitySpiderMiddleware: None},
        },
    )
    pipelines = crawler.settings.getdict("ITEM_PIPELINES")
    assert pipelines[path] == 280 and EntityPipeline not in pipelines  # not added twice
    assert crawler.settings.getdict("SPIDER_MIDDLEWARES")[EntitySpiderMiddleware] is None


def test_entity_components_listed_by_hand_are_not_configured_while_entities_are_off():
    from scrapy.exceptions import NotConfigured

    crawler = get_crawler(PagesSpider, {"ADDONS": {Addon: 0}})
    for component in (EntitySpiderMiddleware, EntityPipeline):
        with pytest.raises(NotConfigured, match="BOILERPLATE_ENTITIES_ENABLED"):
            component.from_crawler(crawler)


OFF_CRAWL = f"""
import sys
from scrapy.crawler import CrawlerProcess
from scrapy_helpers import SETTINGS, Collect, PagesSpider

process = CrawlerProcess({{**SETTINGS, "ITEM_PIPELINES": {{Collect: 900}}}})
process.crawl(PagesSpider, urls=[{TRAILS_URL!r}])
process.start()
assert Collect.items and "main_text" in Collect.items[0], Collect.items
assert "entities" not in Collect.items[0], Collect.items
print("LOADED", sorted(m for m in sys.modules if m.startswith("scrapy_boilerplate.entit")
                       or m == "scrapy_boilerplate.scrapy.entities"))
"""


def _run(script: str) -> str:
    """``script``'s output, run in a fresh interpreter (its own reactor and imports)."""
    path = os.pathsep.join([str(PAGES.parent), *sys.path])  # this process's imports
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        timeout=120,
    )
    return out.stdout + out.stderr


def test_with_entities_off_nothing_entity_related_is_loaded():
    """A crawl through the add-on with entities off imports neither the entity components
    nor the entity package (nor, so, its model)."""
    output = _run(OFF_CRAWL)
    assert "LOADED []" in output, output


OTHER_REACTOR_CRAWL = f"""
from scrapy.crawler import CrawlerProcess
from scrapy_helpers import SETTINGS, Collect, PagesSpider

process = CrawlerProcess({{
    **SETTINGS, "ITEM_PIPELINES": {{Collect: 900}}, "LOG_LEVEL": "CRITICAL",
    "BOILERPLATE_ENTITY_QUERY": "hiking trails near baltimore",
    "TWISTED_REACTOR": "twisted.internet.selectreactor.SelectReactor",
}})
process.crawl(PagesSpider, urls=[{TRAILS_URL!r}])
process.start()
print("ENTITIES", Collect.items[0]["entities"][:1])
"""


def test_entity_lists_work_without_the_asyncio_reactor():
    """The state then extracts inline; the model is made ready inline too."""
    output = _run(OTHER_REACTOR_CRAWL)
    assert "ENTITIES ['Avalon Super Loop']" in output, output


# ---------------------------------------------------------------------------------------------
# The settings, checked at start


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"BOILERPLATE_ENTITY_TOP_K": "abc"}, ["BOILERPLATE_ENTITY_TOP_K", "integer >= 1", "abc"]),
        ({"BOILERPLATE_ENTITY_TOP_K": 0}, ["BOILERPLATE_ENTITY_TOP_K", "integer >= 1"]),
        ({"BOILERPLATE_ENTITY_MAX_NODES": -5}, ["BOILERPLATE_ENTITY_MAX_NODES", ">= 1"]),
        ({"BOILERPLATE_ENTITY_MAX_PREDICATES": "x"}, ["BOILERPLATE_ENTITY_MAX_PREDICATES"]),
        ({"BOILERPLATE_ENTITIES_ENABLED": "maybe"}, ["BOILERPLATE_ENTITIES_ENABLED"]),
        ({"BOILERPLATE_ENTITY_QUERY": "  "}, ["BOILERPLATE_ENTITY_QUERY", "non-empty"]),
        ({"BOILERPLATE_ENTITY_QUERY": ["a", "b"]}, ["BOILERPLATE_ENTITY_QUERY", "list"]),
        ({"BOILERPLATE_ENTITY_QUERY_FIELD": ""}, ["BOILERPLATE_ENTITY_QUERY_FIELD", "field name"]),
        (
            {"BOILERPLATE_ENTITY_CONCURRENCY": -2},
            ["BOILERPLATE_ENTITY_CONCURRENCY", "BOILERPLATE_WORKERS", "BOILERPLATE_QUEUE_SIZE"],
        ),
    ],
)
def test_a_wrong_entity_setting_fails_with_the_setting_and_allowed_values(settings, words):
    with pytest.raises(BoilerplateSettingsError) as info:
        Config.from_settings(Settings(settings))
    for word in words:
        assert word in str(info.value)


def test_a_missing_model_file_stops_the_crawl_at_start_naming_the_path(tmp_path):
    missing = tmp_path / "no-such-model.json"
    settings = {**SETTINGS, "BOILERPLATE_ENTITY_MODEL": str(missing)}
    with pytest.raises(BoilerplateSettingsError) as info:
        Config.from_settings(Settings(settings))
    assert "BOILERPLATE_ENTITY_MODEL" in str(info.value) and str(missing) in str(info.value)


@deferred_f_from_coro_f
async def test_a_model_file_that_cannot_be_read_stops_the_crawl_naming_the_path(tmp_path):
    bad = tmp_path / "bad-model.json"
    bad.write_text("{not json")
    crawler = get_crawler(
        TrailsSpider, {"ADDONS": {Addon: 0}, **SETTINGS, "BOILERPLATE_ENTITY_MODEL": str(bad)}
    )
    with pytest.raises(BoilerplateSettingsError) as info:
        await maybe_deferred_to_future(crawler.crawl(urls=[TRAILS_URL]))
    assert str(bad) in str(info.value)


def _item_class(name: str, fields: Iterable[str]) -> type:
    return type(name, (scrapy.Item,), {field: scrapy.Field() for field in fields})


#: The main-content fields only (BOILERPLATE_FIELDS' defaults); and with the entity ones.
PageItem = _item_class("PageItem", config.BOILERPLATE_FIELDS.values())
EntityPageItem = _item_class("EntityPageItem", [*PageItem.fields, *config.ENTITY_FIELDS])


def test_an_item_class_without_the_entity_fields_fails_at_start_saying_what_to_declare():
    """BOILERPLATE_ITEM_CLASSES is checked for the fields the entity lists write when they
    are on, as for the main-content fields."""
    classes = {"BOILERPLATE_ITEM_CLASSES": [f"{__name__}.PageItem"]}
    crawler = get_crawler(TrailsSpider, {"ADDONS": {Addon: 0}, **SETTINGS, **classes})
    with pytest.raises(BoilerplateSettingsError) as info:
        EntityPipeline.from_crawler(crawler)
    message = str(info.value)
    assert message.startswith("BOILERPLATE_ITEM_CLASSES") and "PageItem" in message
    for name in ("entities", "entity_candidates", "entities_reason"):
        assert f"{name} = scrapy.Field()" in message
    # Entity lists off: the class has what is written; with the fields, it is accepted.
    state_for(get_crawler(PagesSpider, {"ADDONS": {Addon: 0}, **classes}))
    classes = {"BOILERPLATE_ITEM_CLASSES": [EntityPageItem]}
    EntityPipeline.from_crawler(get_crawler(TrailsSpider, {**SETTINGS, **classes}))


def test_entity_defaults_are_defined_once_in_the_config_module():
    defaults = Config().entities
    assert not defaults.enabled and defaults.query is None and defaults.model is None
    assert defaults.top_k == config.BOILERPLATE_ENTITY_TOP_K == 5
    assert defaults.query_field == config.BOILERPLATE_ENTITY_QUERY_FIELD == "query"
    assert defaults.max_nodes == config.BOILERPLATE_ENTITY_MAX_NODES
    assert defaults.max_predicates == config.BOILERPLATE_ENTITY_MAX_PREDICATES
    for name in ("BOILERPLATE_ENTITIES_ENABLED", "BOILERPLATE_ENTITY_QUERY"):
        assert name in config.DEFAULTS
    parsed = Config.from_settings(Settings({"BOILERPLATE_ENTITY_TOP_K": "3"})).entities
    assert parsed.top_k == 3 and not parsed.enabled
    assert Config.from_settings(Settings({"BOILERPLATE_ENTITY_QUERY": " q "})).entities.enabled


# ---------------------------------------------------------------------------------------------
# A crawl


@deferred_f_from_coro_f
async def test_items_get_the_entity_lists_of_their_page():
    items, stats, _ = await crawl(SETTINGS, spider=TrailsSpider, urls=[TRAILS_URL])
    (item,) = items
    assert 1 <= len(item["entity_candidates"]) <= 5
    best = item["entity_candidates"][0]
    assert item["entities"] == best["entities"] and best["xpath"].startswith("/html")
    assert 0 < best["score"] <= 1
    assert item["main_text"]  # the main-content extraction ran as well
    got = boilerplate_stats(stats)
    assert got["entities/pages"] == 1 and got["entities/seconds"] > 0
    assert got["entities/max_seconds"] == got["entities/seconds"]


@deferred_f_from_coro_f
async def test_entity_work_runs_on_the_crawls_extraction_pool(monkeypatch):
    """One pool for extraction and entity lists: BOILERPLATE_WORKERS threads, named
    ``boilerplate``, not a pool of its own (nor asyncio's default one)."""
    import scrapy_boilerplate.entities.extract as ex

    threads: list[str] = []
    real = ex.extract_entities

    def spy(html: Any, query: str, *args: Any) -> Any:
        if html is not WARM_PAGE:  # the one read when the spider opens
            threads.append(threading.current_thread().name)
        return real(html, query, *args)

    monkeypatch.setattr(ex, "extract_entities", spy)
    await crawl(SETTINGS, spider=TrailsSpider, urls=[TRAILS_URL])
    assert len(threads) == 1 and threads[0].startswith("boilerplate_")
    threads.clear()
    await crawl(
        {**SETTINGS, "BOILERPLATE_EXECUTION": "inline"}, spider=TrailsSpider, urls=[TRAILS_URL]
    )
    assert threads == [threading.main_thread().name]


@deferred_f_from_coro_f
async def test_an_item_dropped_ahead_of_the_entity_pipeline_lets_its_response_go():
    settings = {
        "ADDONS": {Addon: 0},
        "ITEM_PIPELINES": {Collect: 900},
        "LOG_LEVEL": "ERROR",
        **SETTINGS,
        "BOILERPLATE_EXTRACTOR": "scrapy_helpers:BrokenExtractor",
        "BOILERPLATE_ON_ERROR": "drop",
    }
    crawler = get_crawler(TrailsSpider, settings)
    await maybe_deferred_to_future(crawler.crawl(urls=[TRAILS_URL]))
    assert crawler.stats.get_value("boilerplate/items_dropped/error") == 1
    assert not state_for(crawler).entity_pages.items


def test_each_crawler_keeps_its_own_item_pages_in_its_state():
    """Which response each item came from is the crawler's (its CrawlerState), never a
    registry of the module that two crawlers of one process would share."""
    from scrapy_boilerplate.scrapy import entities

    first, second = (
        get_crawler(TrailsSpider, {"ADDONS": {Addon: 0}, **SETTINGS}) for _ in range(2)
    )
    middleware = EntitySpiderMiddleware.from_crawler(first)
    pipeline = EntityPipeline.from_crawler(first)
    other = EntitySpiderMiddleware.from_crawler(second)
    assert middleware.pages is pipeline.pages is state_for(first).entity_pages
    assert other.pages is state_for(second).entity_pages is not middleware.pages
    item: dict[str, Any] = {}
    middleware.pages.put(item, "a response")
    assert other.pages.take(item) is None and pipeline.pages.take(item) == "a response"
    assert not any(isinstance(v, WeakKeyDictionary) for v in vars(entities).values())


@deferred_f_from_coro_f
async def test_the_model_and_tagger_are_made_ready_when_the_spider_opens(monkeypatch):
    """Before any page, off the event loop: a first page does not count them in its time."""
    import scrapy_boilerplate.entities.extract as ex

    calls: list[str] = []
    real = ex.extract_entities

    def spy(html: Any, query: str, *args: Any) -> Any:
        calls.append(threading.current_thread().name)
        return real(html, query, *args)

    monkeypatch.setattr(ex, "extract_entities", spy)
    await crawl(SETTINGS, spider=TrailsSpider, urls=[])
    assert len(calls) == 1 and calls[0].startswith("boilerplate-helper")


def _entity_model_loaded() -> int:
    """In a worker process: the entity models its cache holds."""
    from scrapy_boilerplate.entities.extract import load_model

    return load_model.cache_info().currsize


@deferred_f_from_coro_f
async def test_process_workers_load_the_entity_model_before_their_first_page():
    """In process mode each worker process has its own model: the runner's warm-up loads
    it there, with the extractor's, so no worker's first page pays for it."""
    settings = {**SETTINGS, "BOILERPLATE_EXECUTION": "process", "BOILERPLATE_WORKERS": 1}
    crawler = get_crawler(TrailsSpider, {"ADDONS": {Addon: 0}, **settings})
    EntityPipeline.from_crawler(crawler)
    state = state_for(crawler)
    try:
        await state.runner.warm_up(state.config.extractor, state.config.params)
        loaded, _ = await state.runner.run(_entity_model_loaded)
    finally:
        state.runner.close()
    assert loaded == 1


@deferred_f_from_coro_f
async def test_a_crawl_wide_query_setting_turns_entities_on():
    items, _, _ = await crawl(
        {"BOILERPLATE_ENTITY_QUERY": "hiking trails near baltimore"}, urls=[TRAILS_URL]
    )
    (item,) = items
    assert item["entities"]


@deferred_f_from_coro_f
async def test_query_precedence_item_then_meta_then_spider_then_setting(monkeypatch):
    import scrapy_boilerplate.entities.extract as ex

    seen_queries: list[str] = []
    real = ex.extract_entities

    def spy(html: Any, query: str, *args: Any) -> Any:
        if html is not WARM_PAGE:  # the one read when the spider opens
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
    crawler = get_crawler(PagesSpider, {"ADDONS": {Addon: 0}, "BOILERPLATE_ENTITY_QUERY": "  "})
    with pytest.raises(BoilerplateSettingsError, match="BOILERPLATE_ENTITY_QUERY"):
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
async def test_a_page_parse_refuses_is_refused_before_scrapys_parser_reads_it(tmp_path):
    """A tag of too many attributes holds libxml2 in one uninterruptible call: the entity
    path checks the response's bytes as ``parse`` and the middleware do, before
    ``response.selector`` parses them, and the item keeps the reason."""
    from scrapy.http import HtmlResponse

    from scrapy_boilerplate.core.document import MAX_ATTRIBUTES
    from scrapy_boilerplate.scrapy.entities import _entity_lists

    attributes = " ".join(f"a{i}" for i in range(MAX_ATTRIBUTES + 1))
    html = f"<html><body><ul {attributes}><li>a trail</li><li>another</li></ul></body></html>"
    response = HtmlResponse("https://example.com/", body=html.encode(), encoding="utf-8")
    result = _entity_lists(response, "trails", 5, None, 20_000, 500_000)
    assert result.reason == "too-many-attributes" and result.lists == []
    assert getattr(response, "_cached_selector", None) is None  # Scrapy's parser never ran
    binary = HtmlResponse("https://example.com/", body=b"\x89PNG\r\n\x1a\n" + bytes(2000))
    assert _entity_lists(binary, "trails", 5, None, 20_000, 500_000).reason == "binary"

    page = tmp_path / "many_attributes.html"
    page.write_text(html)
    items, stats, _ = await crawl(SETTINGS, spider=TrailsSpider, urls=[page.as_uri()])
    (item,) = items
    assert item["entities"] == [] and item["entities_reason"] == "too-many-attributes"
    assert boilerplate_stats(stats)["entities/empty/too-many-attributes"] == 1


@deferred_f_from_coro_f
async def test_the_entity_path_holds_a_page_to_the_crawls_max_nodes():
    """``BOILERPLATE_MAX_NODES`` bounds the entity path as it bounds the main content
    (a response, or an item's own HTML), not the library's default."""
    from scrapy_boilerplate.scrapy.entities import _entity_lists

    settings = {**SETTINGS, "BOILERPLATE_MAX_NODES": 5}
    items, stats, _ = await crawl(settings, spider=TrailsSpider, urls=[TRAILS_URL])
    (item,) = items
    assert item["entities"] == [] and item["entities_reason"] == "too-many-nodes"
    assert boilerplate_stats(stats)["entities/empty/too-many-nodes"] == 1
    html = "<html><body><ul>" + "<li>a trail</li>" * 40 + "</ul></body></html>"
    assert _entity_lists(html, "trails", 5, None, 20_000, 500_000, 5).reason == "too-many-nodes"
    assert _entity_lists(html, "trails", 5, None, 20_000, 500_000, 0).lists


@deferred_f_from_coro_f
async def test_a_response_the_middleware_checked_is_not_scanned_again(tmp_path, monkeypatch):
    """The downloader middleware's check of a response's bytes (passed, or a refusal) is
    the entity pipeline's too: its bytes are scanned once."""
    from scrapy_boilerplate.core.document import MAX_ATTRIBUTES
    from scrapy_boilerplate.scrapy import middlewares

    scanned: list[int] = []
    real = middlewares.check_markup

    def spy(data: bytes, max_nodes: int) -> int:
        scanned.append(max_nodes)
        return real(data, max_nodes)

    monkeypatch.setattr(middlewares, "check_markup", spy)
    settings = {**SETTINGS, "BOILERPLATE_MAX_NODES": 50_000}
    items, _, _ = await crawl(settings, spider=TrailsSpider, urls=[TRAILS_URL])
    assert items[0]["entities"] and scanned == [50_000]
    attributes = " ".join(f"a{i}" for i in range(MAX_ATTRIBUTES + 1))
    page = tmp_path / "many_attributes.html"
    page.write_text(f"<html><body><ul {attributes}><li>a</li><li>b</li></ul></body></html>")
    scanned.clear()
    items, _, _ = await crawl(settings, spider=TrailsSpider, urls=[page.as_uri()])
    assert items[0]["entities_reason"] == "too-many-attributes" and len(scanned) == 1


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


def test_the_docs_list_every_entity_setting():
    docs = PAGES.parent.parent / "docs"
    settings_md = (docs / "settings.md").read_text("utf-8")
    entities_md = (docs / "entities.md").read_text("utf-8")
    names = [name for name in config.DEFAULTS if name.startswith("BOILERPLATE_ENTIT")]
    assert len(names) == 7
    for name in names:
        assert f"`{name}`" in settings_md and f"`{name}`" in entities_md, name
    for machine_path in ("/work/", "../shared"):
        assert machine_path not in entities_md


def test_getting_ready_folds_the_weights_of_every_query_style():
    """The first query of each style finds its weights folded (the fold reads every weight
    of the model): the spider's opening does it, not a first page."""
    from scrapy_boilerplate.entities.extract import load_model
    from scrapy_boilerplate.entities.features import QUERY_STYLES, query_style
    from scrapy_boilerplate.scrapy.entities import _get_ready

    assert {query_style("Who are the chairs?"), query_style("trails in ohio")} == set(QUERY_STYLES)
    load_model.cache_clear()
    try:
        _get_ready(None, True)
        model = load_model(None)
        assert set(model._styles) == set(QUERY_STYLES)
        assert model.for_query("Who are the chairs?") is model._styles["question"]
    finally:
        load_model.cache_clear()
