"""Page metadata in items, zyte-common-items' ``Article`` items, and the pipeline's drop
rules by page type: ``BOILERPLATE_FIELDS``'s metadata outputs (asked of ``extract()`` only
when one is written, in every execution mode), ``BOILERPLATE_ITEM_SCHEMA = "zyte-article"``
with and without zyte-common-items, ``BOILERPLATE_MIN_QUALITY`` by page type and
``BOILERPLATE_PAGE_TYPES``."""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
from typing import Any

import pytest
import scrapy
from itemadapter import ItemAdapter
from scrapy.settings import Settings
from scrapy.utils.defer import deferred_f_from_coro_f

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.metadata import FIELDS as METADATA_FIELDS
from scrapy_boilerplate.scrapy.config import (
    METADATA_OUTPUTS,
    OUTPUTS,
    BoilerplateSettingsError,
    Config,
)
from scrapy_boilerplate.scrapy.items import ARTICLE_FIELDS, ItemWriter, article_values, zyte_date
from scrapy_helpers import PAGES, ROUTES, LocalServer, boilerplate_stats, crawl

PAGE = (PAGES / "metadata_article.html").read_bytes()
EVERY_METADATA_OUTPUT = {out: out for out in METADATA_OUTPUTS}
ARTICLE = "/metadata.html"


@pytest.fixture(autouse=True)
def _metadata_page(monkeypatch):
    """The page with structured data, served at :data:`ARTICLE` by the local server."""
    monkeypatch.setitem(ROUTES, ARTICLE, (200, {"Content-Type": "text/html; charset=utf-8"}, PAGE))


def _name(item: Any) -> str:
    return ItemAdapter(item)["url"].rsplit("/", 1)[-1]


def _writer(settings: dict[str, Any]) -> ItemWriter:
    return ItemWriter(Config.from_settings(Settings(settings)))


# -- the outputs ----------------------------------------------------------------------------


def test_every_metadata_key_has_an_output_and_language_keeps_its_meaning():
    assert set(METADATA_OUTPUTS) <= set(OUTPUTS)
    assert {v for v in METADATA_OUTPUTS.values() if v} == set(METADATA_FIELDS)
    # "language" stays the method's language; the metadata's is metadata_language
    assert METADATA_OUTPUTS["metadata_language"] == "language"
    assert "language" not in METADATA_OUTPUTS


class PageItem(scrapy.Item):
    url = scrapy.Field()
    metadata = scrapy.Field()
    title = scrapy.Field()
    authors = scrapy.Field()
    date_published = scrapy.Field()
    date_modified = scrapy.Field()
    metadata_language = scrapy.Field()
    declared_language = scrapy.Field()
    description = scrapy.Field()
    canonical_url = scrapy.Field()
    site_name = scrapy.Field()
    main_image = scrapy.Field()
    images = scrapy.Field()
    breadcrumbs = scrapy.Field()


@dataclasses.dataclass
class PageData:
    url: str | None = None
    metadata: Any = None
    title: Any = None
    authors: Any = None
    date_published: Any = None
    date_modified: Any = None
    metadata_language: Any = None
    declared_language: Any = None
    description: Any = None
    canonical_url: Any = None
    site_name: Any = None
    main_image: Any = None
    images: Any = None
    breadcrumbs: Any = None


@pytest.mark.parametrize("make", [dict, PageItem, PageData], ids=["dict", "Item", "dataclass"])
def test_each_metadata_output_in_every_kind_of_item(make):
    result = extract(PAGE, url="https://example.com/m.html", metadata=True)
    meta = result.metadata
    item = make()
    _writer({"BOILERPLATE_FIELDS": EVERY_METADATA_OUTPUT}).write(item, result)
    got = ItemAdapter(item)
    assert got["metadata"] == meta and got["metadata"] is not meta  # a copy per item
    assert got["title"] == "Lighthouse keepers return to Saltmere"
    assert got["authors"] == ["Martha Quill", "Tom Reed"]
    assert got["date_published"] == "2024-03-12T09:30:00+00:00"
    assert got["date_modified"] == "2024-03-13T10:00:00+01:00"
    assert got["metadata_language"] == meta["language"] == "en"
    assert got["declared_language"] == "en"
    assert got["description"] == "After forty years, the north pier light has keepers again."
    assert got["canonical_url"] == "https://example.com/news/lighthouse-keepers"
    assert got["site_name"] == "The Coastal Courier"
    assert got["main_image"] == "https://example.com/img/lighthouse.jpg"
    assert got["images"] == meta["images"]
    assert got["breadcrumbs"] == [
        {"name": "Home", "url": "https://example.com/"},
        {"name": "News", "url": "https://example.com/news"},
    ]
    json.dumps(got.asdict())  # plain JSON


def test_a_page_without_metadata_gives_empty_values_of_the_same_shape():
    from scrapy_boilerplate.core.result import Extraction

    item: dict[str, Any] = {}
    writer = _writer({"BOILERPLATE_FIELDS": EVERY_METADATA_OUTPUT})
    writer.write(item, Extraction.failed("not-html", "auto", url="https://example.com/x"))
    assert item["title"] is None and item["authors"] == [] and item["breadcrumbs"] == []
    assert set(item["metadata"]) >= set(METADATA_FIELDS)


def test_metadata_is_asked_for_only_when_an_output_needs_it():
    def options(settings):
        return Config.from_settings(Settings(settings)).extract_options

    assert options({}) == {}
    assert options({"BOILERPLATE_FIELDS": {"main_text": "text", "quality": "q"}}) == {}
    assert options({"BOILERPLATE_FIELDS": "boilerplate"}) == {}  # the container holds none
    with_title = {"BOILERPLATE_FIELDS": {"main_text": "text", "title": "title"}}
    assert options(with_title) == {"metadata": True}
    zyte = {"metadata": True, "main_html": True}
    assert options({"BOILERPLATE_ITEM_SCHEMA": "zyte-article"}) == zyte
    with_html = {"BOILERPLATE_FIELDS": {"main_text": "text", "main_html": "html"}}
    assert options(with_html) == {"main_html": True}


@pytest.mark.parametrize("mode", ["inline", "thread", "process"])
@deferred_f_from_coro_f
async def test_every_execution_mode_extracts_metadata_only_when_written(mode):
    with LocalServer() as base:
        settings: dict[str, Any] = {
            "BOILERPLATE_EXECUTION": mode,
            "BOILERPLATE_WORKERS": 1,
            "BOILERPLATE_FIELDS": {"main_text": "main_text", "title": "title"},
        }
        items, _, seen = await crawl(settings, urls=[base + ARTICLE])
        assert items[0]["title"] == "Lighthouse keepers return to Saltmere"
        assert seen[0]["boilerplate"].metadata["sources"]["authors"] == "json-ld"

        settings["BOILERPLATE_FIELDS"] = {"main_text": "main_text", "main_html": "html"}
        items, _, seen = await crawl(settings, urls=[base + ARTICLE])
        assert items[0]["html"].startswith("<") and "Saltmere" in items[0]["html"]
        assert seen[0]["boilerplate"].metadata is None

        settings["BOILERPLATE_FIELDS"] = {"main_text": "main_text"}
        items, _, seen = await crawl(settings, urls=[base + ARTICLE])
    assert items[0]["main_text"] and "title" not in items[0]
    assert seen[0]["boilerplate"].metadata is None  # extract() was not asked for it
    assert seen[0]["boilerplate"].main_html is None


@deferred_f_from_coro_f
async def test_a_requests_meta_cannot_switch_metadata_on():
    with LocalServer() as base:
        url = base + ARTICLE
        metas = {url: {"boilerplate": {"params": {"metadata": True}}}}
        settings = {"BOILERPLATE_FIELDS": {"main_text": "main_text", "reason": "reason"}}
        items, _, seen = await crawl(settings, urls=[url], metas=metas)
    assert items[0]["reason"] == "invalid-meta"
    assert seen[0]["boilerplate"].metadata is None


@deferred_f_from_coro_f
async def test_items_carrying_their_html_get_metadata_from_the_pipeline():
    def make_item(response):
        return {"url": response.url, "html": response.body}

    with LocalServer() as base:
        settings = {
            "BOILERPLATE_HTML_FIELD": "html",
            "BOILERPLATE_FIELDS": {"title": "title", "authors": "authors"},
        }
        items, _, _ = await crawl(settings, urls=[base + ARTICLE], make_item=make_item)
    assert items[0]["title"] == "Lighthouse keepers return to Saltmere"
    assert items[0]["authors"] == ["Martha Quill", "Tom Reed"]


@deferred_f_from_coro_f
async def test_the_warm_up_extracts_with_the_crawls_options(monkeypatch):
    from scrapy_boilerplate import extract as real_extract
    from scrapy_boilerplate.scrapy.runner import WARM_PAGE, Runner

    calls = []

    def spy(html, extractor, **kwargs):
        calls.append((html, extractor, kwargs))
        return real_extract(html, extractor, **kwargs)

    monkeypatch.setattr("scrapy_boilerplate.core.extract.extract", spy)
    runner = Runner("thread", workers=1, timeout=5.0)
    try:
        await runner.warm_up("justext", {"length_low": 50}, {"metadata": True})
    finally:
        runner.close()
    assert calls == [(WARM_PAGE, "justext", {"timeout": 5.0, "metadata": True, "length_low": 50})]


# -- zyte-article ---------------------------------------------------------------------------

ZYTE = {"BOILERPLATE_ITEM_SCHEMA": "zyte-article"}


def test_article_fields_are_zyte_common_items_fields():
    import attrs
    from zyte_common_items import Article

    assert set(ARTICLE_FIELDS) <= {f.name for f in attrs.fields(Article)}


def test_article_values_map_the_metadata():
    result = extract(PAGE, url="https://example.com/m.html", metadata=True, main_html=True)
    values = article_values(result, downloaded="2024-05-01T00:00:00Z")
    assert values["url"] == "https://example.com/m.html"
    assert values["canonicalUrl"] == "https://example.com/news/lighthouse-keepers"
    assert values["headline"] == "Lighthouse keepers return to Saltmere"
    assert values["datePublished"] == "2024-03-12T09:30:00Z"
    assert values["datePublishedRaw"] == "2024-03-12T09:30:00+00:00"
    assert values["dateModified"] == "2024-03-13T10:00:00+01:00"
    assert values["authors"] == [
        {"name": "Martha Quill", "nameRaw": "Martha Quill"},
        {"name": "Tom Reed", "nameRaw": "Tom Reed"},
    ]
    assert values["inLanguage"] == "en"
    assert values["mainImage"] == {"url": "https://example.com/img/lighthouse.jpg"}
    assert values["description"].startswith("After forty years")
    assert values["articleBody"] == result.main_text.strip()
    assert values["articleBodyHtml"] == result.main_html
    assert values["articleBodyHtml"].startswith("<")
    assert values["breadcrumbs"][0] == {"name": "Home", "url": "https://example.com/"}
    assert values["metadata"] == {
        "probability": result.quality,
        "dateDownloaded": "2024-05-01T00:00:00Z",
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-03-12", "2024-03-12T00:00:00"),
        ("2024-03-12T09:30:00.250+00:00", "2024-03-12T09:30:00Z"),
        ("2024-03-12T09:30:00-05:00", "2024-03-12T09:30:00-05:00"),
        ("2024-03-12T09:30:00", "2024-03-12T09:30:00"),
        ("12 March", None),
        (None, None),
    ],
)
def test_dates_in_articles_format(value, expected):
    assert zyte_date(value) == expected


class Page(scrapy.Item):
    url = scrapy.Field()


@deferred_f_from_coro_f
async def test_zyte_article_items_are_articles_and_export_as_json_lines(tmp_path):
    from zyte_common_items import Article, Author

    feed = tmp_path / "items.jl"

    def make_item(response):
        name = response.url.rsplit("/", 1)[-1]
        if name == "metadata.html":
            return {"url": response.url}  # only Article's keys: becomes an Article
        if name == "article.html":
            return Article(url=response.url, headline="The spider's own headline")
        return {"url": response.url, "section": "news"}  # other keys: stays a dict

    with LocalServer() as base:
        settings = {**ZYTE, "FEEDS": {str(feed): {"format": "jsonlines"}}}
        urls = [base + p for p in (ARTICLE, "/article.html", "/menu.html")]
        items, stats, _ = await crawl(settings, urls=urls, make_item=make_item)
    by_name = {_name(it): it for it in items}
    article = by_name["metadata.html"]
    assert type(article) is Article
    assert article.headline == "Lighthouse keepers return to Saltmere"
    assert article.authors == [
        Author(name="Martha Quill", nameRaw="Martha Quill"),
        Author(name="Tom Reed", nameRaw="Tom Reed"),
    ]
    assert article.mainImage.url == "https://example.com/img/lighthouse.jpg"
    assert article.breadcrumbs[1].name == "News"
    assert article.articleBody.startswith("Lighthouse keepers return")
    assert 0.5 < article.metadata.probability <= 1
    assert article.metadata.dateDownloaded.endswith("Z")
    assert article.get_probability() == article.metadata.probability
    assert by_name["article.html"].headline == "The spider's own headline"  # kept
    assert by_name["article.html"].articleBody
    menu = by_name["menu.html"]
    assert type(menu) is dict and menu["section"] == "news" and "metadata" in menu
    assert boilerplate_stats(stats)["items"] == 3

    lines = [json.loads(line) for line in feed.read_text().splitlines()]
    exported = {row["url"].rsplit("/", 1)[-1]: row for row in lines}
    assert exported["metadata.html"]["authors"][0] == {
        "name": "Martha Quill",
        "nameRaw": "Martha Quill",
        "email": None,
        "url": None,
    }
    assert exported["metadata.html"]["metadata"]["probability"] == article.metadata.probability
    assert exported["menu.html"]["section"] == "news"


@deferred_f_from_coro_f
async def test_zyte_article_without_zyte_common_items_writes_dicts(monkeypatch):
    monkeypatch.setitem(sys.modules, "zyte_common_items", None)  # its import fails
    with LocalServer() as base:
        items, _, _ = await crawl(ZYTE, urls=[base + ARTICLE])
    item = items[0]
    assert type(item) is dict
    assert set(item) <= set(ARTICLE_FIELDS)
    assert {"url", "headline", "authors", "datePublished", "articleBody", "metadata"} <= set(item)
    assert item["authors"][0] == {"name": "Martha Quill", "nameRaw": "Martha Quill"}
    assert item["mainImage"] == {"url": "https://example.com/img/lighthouse.jpg"}


@deferred_f_from_coro_f
async def test_zyte_article_into_an_item_class_without_the_fields_is_reported(caplog):
    with LocalServer() as base, caplog.at_level(logging.ERROR):
        items, stats, _ = await crawl(
            ZYTE, urls=[base + ARTICLE], make_item=lambda r: Page(url=r.url)
        )
    assert len(items) == 1 and "headline" not in items[0]
    assert boilerplate_stats(stats)["errors/missing_fields"] == 1
    assert "does not declare the field(s)" in caplog.text


def test_a_dict_article_refuses_stays_a_dict():
    result = extract(PAGE, url="https://example.com/m.html", metadata=True)
    item = {"url": b"https://example.com/m.html"}  # bytes: Article's url converter refuses
    written = _writer(ZYTE).write(item, result)
    assert written is item and item["url"] == b"https://example.com/m.html"
    assert item["headline"] == "Lighthouse keepers return to Saltmere"


def test_zyte_article_writes_no_blocks_and_records_only_for_drop_rules():
    result = extract(PAGE, url="https://example.com/m.html", metadata=True)
    writer = _writer(ZYTE)
    assert not writer.writes_blocks
    item = writer.write({}, result)
    assert writer.facts(item) == (None, None, None)  # no rule reads them: none kept
    writer = _writer({**ZYTE, "BOILERPLATE_PAGE_TYPES": ["article"]})
    item = writer.write({}, result)
    assert writer.facts(item) == (None, result.quality, "article")
    assert writer.facts(item) == (None, None, None)  # let go once read


def test_zyte_article_checks_item_classes_at_start():
    writer = _writer(ZYTE)
    assert "headline" in writer.missing_fields(Page)
    from zyte_common_items import Article

    assert writer.missing_fields(Article) == []


# -- drop rules -----------------------------------------------------------------------------

TYPED = {"main_text": "main_text", "page_type": "page_type", "quality": "quality"}
PAGES_AND_MENU = ["/article.html", "/article.html", "/menu.html"]


@deferred_f_from_coro_f
async def test_page_types_keep_only_the_types_named_and_log_each_case_once(caplog):
    with LocalServer() as base, caplog.at_level(logging.INFO, "scrapy_boilerplate"):
        # keep the menu's type, whichever the model tells (a three-link page is no type)
        menu_type = extract(ROUTES["/menu.html"][2], url=base + "/menu.html").page_type
        assert menu_type != "article"
        settings = {"BOILERPLATE_FIELDS": TYPED, "BOILERPLATE_PAGE_TYPES": [menu_type]}
        items, stats, _ = await crawl(settings, urls=[base + p for p in PAGES_AND_MENU])
    assert [_name(it) for it in items] == ["menu.html"]
    assert boilerplate_stats(stats)["items_dropped/page-type"] == 2
    ours = [r.getMessage() for r in caplog.records if r.name == "scrapy_boilerplate"]
    assert sum("'article' not in BOILERPLATE_PAGE_TYPES" in m for m in ours) == 1


@deferred_f_from_coro_f
async def test_min_quality_by_page_type():
    with LocalServer() as base:
        # the articles (quality about 0.9) need more than they have; the rest need nothing
        settings = {"BOILERPLATE_FIELDS": TYPED, "BOILERPLATE_MIN_QUALITY": {"article": 0.99}}
        items, stats, _ = await crawl(settings, urls=[base + p for p in PAGES_AND_MENU])
        assert [_name(it) for it in items] == ["menu.html"]
        assert boilerplate_stats(stats)["items_dropped/low-quality"] == 2

        # the default bound drops the menu (quality 0); articles get their own, lower one
        settings["BOILERPLATE_MIN_QUALITY"] = {"article": 0.1, "default": 0.5}
        items, stats, _ = await crawl(settings, urls=[base + p for p in PAGES_AND_MENU])
    assert sorted(_name(it) for it in items) == ["article.html", "article.html"]
    assert boilerplate_stats(stats)["items_dropped/low-quality"] == 1


@deferred_f_from_coro_f
async def test_drop_rules_apply_to_zyte_articles():
    with LocalServer() as base:
        settings = {**ZYTE, "BOILERPLATE_PAGE_TYPES": "article", "BOILERPLATE_MIN_QUALITY": 0.5}
        urls = [base + p for p in (ARTICLE, "/menu.html", "/article.html")]
        items, stats, _ = await crawl(settings, urls=urls)
    assert sorted(_name(it) for it in items) == ["article.html", "metadata.html"]
    assert boilerplate_stats(stats)["items_dropped/page-type"] == 1


@deferred_f_from_coro_f
async def test_methods_without_a_page_type_are_kept():
    with LocalServer() as base:
        settings = {
            "BOILERPLATE_EXTRACTOR": "cnr",
            "BOILERPLATE_FIELDS": TYPED,
            "BOILERPLATE_PAGE_TYPES": ["product"],
        }
        items, _, _ = await crawl(settings, urls=[base + "/article.html"])
    assert len(items) == 1 and items[0]["page_type"] is None


def test_settings_from_the_command_line_are_parsed():
    config = Config.from_settings(
        Settings(
            {
                "BOILERPLATE_FIELDS": "boilerplate",
                "BOILERPLATE_MIN_QUALITY": '{"article": 0.5, "default": 0.2}',
                "BOILERPLATE_PAGE_TYPES": "article,forum",
            }
        )
    )
    assert config.min_quality == 0.2 and config.min_quality_by_type == {"article": 0.5}
    assert config.page_types == {"article", "forum"}


@pytest.mark.parametrize(
    ("settings", "setting", "message"),
    [
        ({"BOILERPLATE_ITEM_SCHEMA": "zyte"}, "BOILERPLATE_ITEM_SCHEMA", "plain, zyte-article"),
        ({"BOILERPLATE_PAGE_TYPES": ["articles"]}, "BOILERPLATE_PAGE_TYPES", "article, "),
        ({"BOILERPLATE_PAGE_TYPES": 3}, "BOILERPLATE_PAGE_TYPES", "list of page types"),
        (
            {"BOILERPLATE_MIN_QUALITY": {"blog": 0.5}, "BOILERPLATE_FIELDS": "b"},
            "BOILERPLATE_MIN_QUALITY",
            "unknown page type 'blog'",
        ),
        (
            {"BOILERPLATE_MIN_QUALITY": {"default": 2}, "BOILERPLATE_FIELDS": "b"},
            "BOILERPLATE_MIN_QUALITY",
            "from 0 to 1",
        ),
        ({"BOILERPLATE_MIN_QUALITY": "{bad"}, "BOILERPLATE_MIN_QUALITY", "from 0 to 1"),
        # the default outputs hold no page type: the rule could never see one
        ({"BOILERPLATE_PAGE_TYPES": ["article"]}, "BOILERPLATE_PAGE_TYPES", "page_type output"),
        (
            {"BOILERPLATE_MIN_QUALITY": {"article": 0.5}, "BOILERPLATE_FIELDS": {"quality": "q"}},
            "BOILERPLATE_MIN_QUALITY",
            "page_type output",
        ),
        (
            {**ZYTE, "BOILERPLATE_FIELDS": {"main_text": "text"}},
            "BOILERPLATE_FIELDS",
            "leave BOILERPLATE_FIELDS unset",
        ),
    ],
)
def test_bad_settings_are_refused_at_start(settings, setting, message):
    with pytest.raises(BoilerplateSettingsError, match=message) as info:
        Config.from_settings(Settings(settings))
    assert info.value.setting == setting
