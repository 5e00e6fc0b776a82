"""The Scrapy integration, checked with real crawls (``get_crawler``, ``file://`` pages and a
loopback HTTP server): no mocks of Scrapy's own objects."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, ClassVar

import attrs
import pytest
import scrapy
from scrapy.http import HtmlResponse
from scrapy.utils.defer import deferred_f_from_coro_f, maybe_deferred_to_future
from scrapy.utils.serialize import ScrapyJSONEncoder
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import Addon, extract
from scrapy_boilerplate.scrapy.addon import (
    DECODE_MIDDLEWARE_PRIORITY,
    DOWNLOADER_MIDDLEWARE_PRIORITY,
    PIPELINE_PRIORITY,
    SPIDER_MIDDLEWARE_PRIORITY,
)
from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError
from scrapy_boilerplate.scrapy.middlewares import (
    BoilerplateDecodeMiddleware,
    BoilerplateDownloaderMiddleware,
    BoilerplateSpiderMiddleware,
    decode_in_pieces,
    looks_like_html,
)
from scrapy_boilerplate.scrapy.pipelines import BoilerplatePipeline
from scrapy_boilerplate.scrapy.runner import Runner
from scrapy_helpers import (
    ARTICLE,
    PAGES,
    LocalServer,
    PagesSpider,
    boilerplate_stats,
    crawl,
)

FILES = sorted(PAGES.glob("*.html"))
URLS = [p.as_uri() for p in FILES]
ARTICLE_URL = (PAGES / "news_article.html").as_uri()


# ---------------------------------------------------------------------------------------------
# The add-on


def test_addon_enables_every_component_with_its_documented_priority():
    crawler = get_crawler(PagesSpider, {"ADDONS": {Addon: 0}})
    settings = crawler.settings
    assert settings.getdict("DOWNLOADER_MIDDLEWARES")[BoilerplateDownloaderMiddleware] == 545
    assert settings.getdict("DOWNLOADER_MIDDLEWARES")[BoilerplateDecodeMiddleware] == 585
    assert DECODE_MIDDLEWARE_PRIORITY == 585
    assert settings.getdict("SPIDER_MIDDLEWARES")[BoilerplateSpiderMiddleware] == 600
    assert settings.getdict("ITEM_PIPELINES")[BoilerplatePipeline] == 200
    assert (DOWNLOADER_MIDDLEWARE_PRIORITY, SPIDER_MIDDLEWARE_PRIORITY, PIPELINE_PRIORITY) == (
        545,
        600,
        200,
    )


def test_addon_by_import_path_keeps_the_users_own_entries():
    path = "scrapy_boilerplate.scrapy.pipelines.BoilerplatePipeline"
    crawler = get_crawler(
        PagesSpider,
        {
            "ADDONS": {"scrapy_boilerplate.Addon": 0},
            "ITEM_PIPELINES": {path: 250},
            "DOWNLOADER_MIDDLEWARES": {BoilerplateDownloaderMiddleware: None},
        },
    )
    pipelines = crawler.settings.getdict("ITEM_PIPELINES")
    assert pipelines == {path: 250}  # not added a second time under the class object
    assert (
        crawler.settings.getdict("DOWNLOADER_MIDDLEWARES")[BoilerplateDownloaderMiddleware] is None
    )


@deferred_f_from_coro_f
async def test_downloader_middleware_is_placed_after_decompression_redirects_and_retries():
    crawler = get_crawler(PagesSpider, {**{"ADDONS": {Addon: 0}}, "LOG_LEVEL": "WARNING"})
    await maybe_deferred_to_future(crawler.crawl(urls=[]))
    names = [type(m).__name__ for m in crawler.engine.downloader.middleware.middlewares]
    ours = names.index("BoilerplateDownloaderMiddleware")
    # process_response runs in decreasing order: every one of these has run before ours.
    for before in ("RetryMiddleware", "HttpCompressionMiddleware", "RedirectMiddleware"):
        assert names.index(before) > ours
    # The decoding one runs after decompression and before the first reader of the text.
    decode = names.index("BoilerplateDecodeMiddleware")
    assert names.index("HttpCompressionMiddleware") > decode > names.index("MetaRefreshMiddleware")


# ---------------------------------------------------------------------------------------------
# A crawl, end to end


@deferred_f_from_coro_f
async def test_every_item_arrives_with_main_text_blocks_and_extractor():
    items, stats, _seen = await crawl(urls=URLS)
    assert len(items) == len(URLS)
    for item in items:
        page = (PAGES / item["url"].rsplit("/", 1)[-1]).read_bytes()
        expected = extract(page, url=item["url"])  # the default, auto, reads the URL
        assert item["main_text"] == expected.main_text
        assert item["main_text"]
        assert item["extractor"] == "auto"
        assert item["boilerplate_reason"] is None
        # BOILERPLATE_BLOCKS = "content" (the default): the content blocks, compact
        assert item["blocks"] == [b.compact_dict() for b in expected.content_blocks]
        json.loads(json.dumps(item))  # plain JSON only
        ScrapyJSONEncoder().encode(item)
    counts = boilerplate_stats(stats)
    assert counts["pages"] == counts["items"] == counts["extractor/auto"] == len(URLS)
    assert counts["seconds"] > 0


@deferred_f_from_coro_f
async def test_callback_reads_the_extraction_and_the_tree_is_not_parsed_again():
    _, _, seen = await crawl(urls=[ARTICLE_URL])
    (view,) = seen
    assert view["type"] == "BoilerplateHtmlResponse"
    assert view["boilerplate"].main_text.startswith("Harbour town votes")
    assert view["tree_ready"]  # the selector the extraction used is already on the response


@pytest.mark.parametrize("mode", ["inline", "thread", "process"])
@deferred_f_from_coro_f
async def test_every_execution_mode_gives_the_same_items(mode):
    stats = await crawl_gives_reference_items(
        {"BOILERPLATE_EXECUTION": mode, "BOILERPLATE_WORKERS": 2}
    )
    assert stats["pages"] == len(URLS)


async def crawl_gives_reference_items(settings: dict) -> dict:
    """Crawl every test page with ``settings``; items must equal ``extract()`` of the file."""
    items, stats, _ = await crawl(settings, urls=URLS)
    reference = {p.as_uri(): extract(p.read_bytes(), url=p.as_uri()).main_text for p in FILES}
    assert {it["url"]: it["main_text"] for it in items} == reference
    return boilerplate_stats(stats)


@deferred_f_from_coro_f
async def test_spider_custom_settings_choose_the_method_and_its_thresholds():
    class CnrSpider(PagesSpider):
        name = "cnr-pages"
        custom_settings: ClassVar[dict] = {
            "BOILERPLATE_EXTRACTOR": "cnr",
            "BOILERPLATE_PARAMS": {"granularity": 1},
        }

    items, stats, _ = await crawl(spider=CnrSpider, urls=[ARTICLE_URL])
    (item,) = items
    assert item["extractor"] == "cnr"
    assert item["main_text"] == extract(ARTICLE, "cnr", granularity=1).main_text
    assert boilerplate_stats(stats)["extractor/cnr"] == 1


@deferred_f_from_coro_f
async def test_request_meta_overrides_method_and_thresholds_for_one_request():
    other = (PAGES / "recipe.html").as_uri()
    metas = {
        ARTICLE_URL: {"boilerplate": {"extractor": "cnr", "params": {"granularity": 1}}},
        other: {"boilerplate": {"params": {"threshold": 0.95}}},  # the crawl's method: auto
    }
    items, _, seen = await crawl(urls=[ARTICLE_URL, other], metas=metas)
    by_url = {it["url"]: it for it in items}
    assert by_url[ARTICLE_URL]["extractor"] == "cnr"
    assert by_url[ARTICLE_URL]["main_text"] == extract(ARTICLE, "cnr", granularity=1).main_text
    recipe_html = (PAGES / "recipe.html").read_bytes()
    recipe = extract(recipe_html, url=other, threshold=0.95)
    assert recipe.main_text != extract(recipe_html, url=other).main_text  # the override shows
    assert by_url[other]["extractor"] == "auto"
    assert by_url[other]["main_text"] == recipe.main_text
    params = {v["url"]: v["boilerplate"].params for v in seen}
    assert params[other]["threshold"] == 0.95


@deferred_f_from_coro_f
async def test_dont_extract_boilerplate_passes_response_and_item_through_untouched():
    items, stats, seen = await crawl(
        urls=[ARTICLE_URL], metas={ARTICLE_URL: {"dont_extract_boilerplate": True}}
    )
    assert items == [{"url": ARTICLE_URL}]
    assert seen[0]["boilerplate"] is None and seen[0]["type"] == "HtmlResponse"
    assert "boilerplate/pages" not in stats


@deferred_f_from_coro_f
async def test_a_bad_meta_override_is_recorded_on_the_item_and_the_crawl_goes_on():
    metas = {ARTICLE_URL: {"boilerplate": {"params": {"length_low": -5}}}}
    items, stats, _ = await crawl(urls=[ARTICLE_URL], metas=metas)
    (item,) = items
    assert item["main_text"] == "" and item["boilerplate_reason"] == "invalid-meta"
    assert boilerplate_stats(stats)["errors/InvalidParameter"] == 1


# ---------------------------------------------------------------------------------------------
# Items of every kind


class ArticleItem(scrapy.Item):
    url = scrapy.Field()
    main_text = scrapy.Field()
    blocks = scrapy.Field()
    extractor = scrapy.Field()
    boilerplate_reason = scrapy.Field()


class BareItem(scrapy.Item):
    url = scrapy.Field()


@dataclasses.dataclass
class DataclassItem:
    url: str
    main_text: str = ""
    blocks: list = dataclasses.field(default_factory=list)
    extractor: str = ""
    boilerplate_reason: str | None = None


@attrs.define
class AttrsItem:
    url: str
    main_text: str = ""
    blocks: list = attrs.field(factory=list)
    extractor: str = ""
    boilerplate_reason: str | None = None


@pytest.mark.parametrize("item_class", [ArticleItem, DataclassItem, AttrsItem])
@deferred_f_from_coro_f
async def test_items_of_every_kind_get_the_fields(item_class):
    items, _, _ = await crawl(
        urls=[ARTICLE_URL], make_item=lambda response: item_class(url=response.url)
    )
    (item,) = items
    assert type(item) is item_class
    from itemadapter import ItemAdapter

    adapter = ItemAdapter(item)
    expected = extract(ARTICLE, url=ARTICLE_URL)
    assert adapter["main_text"] == expected.main_text
    assert adapter["extractor"] == "auto"
    assert adapter["blocks"] == [b.compact_dict() for b in expected.content_blocks]


@deferred_f_from_coro_f
async def test_custom_field_names_and_extra_outputs():
    fields = {"main_text": "text", "markdown": "text_md", "language": "lang", "blocks": None}
    items, _, _ = await crawl({"BOILERPLATE_FIELDS": fields}, urls=[ARTICLE_URL])
    (item,) = items
    assert set(item) == {"url", "text", "text_md", "lang"}
    assert item["text_md"].startswith("# Harbour town votes")
    assert item["lang"] == "en"


@deferred_f_from_coro_f
async def test_one_container_field():
    items, _, _ = await crawl({"BOILERPLATE_FIELDS": "boilerplate"}, urls=[ARTICLE_URL])
    (item,) = items
    assert set(item) == {"url", "boilerplate"}
    assert item["boilerplate"]["main_text"] == extract(ARTICLE, url=ARTICLE_URL).main_text
    five = {"main_text", "blocks", "extractor", "language", "reason"}
    auto = {"page_type", "page_type_probability", "quality"}  # the default's own outputs
    assert set(item["boilerplate"]) == five | auto
    assert item["boilerplate"]["quality"] == extract(ARTICLE, url=ARTICLE_URL).quality


def test_an_item_class_without_the_fields_fails_at_start_saying_what_to_declare():
    with pytest.raises(BoilerplateSettingsError) as info:
        crawler = get_crawler(
            PagesSpider,
            {"ADDONS": {Addon: 0}, "BOILERPLATE_ITEM_CLASSES": [f"{__name__}.BareItem"]},
        )
        BoilerplateDownloaderMiddleware.from_crawler(crawler)
    message = str(info.value)
    assert "BareItem" in message and "main_text = scrapy.Field()" in message
    assert "boilerplate_reason" in message


@deferred_f_from_coro_f
async def test_an_undeclared_item_class_is_reported_and_the_item_kept():
    items, stats, _ = await crawl(
        urls=[ARTICLE_URL], make_item=lambda response: BareItem(url=response.url)
    )
    assert len(items) == 1 and dict(items[0]) == {"url": ARTICLE_URL}
    assert boilerplate_stats(stats)["errors/missing_fields"] == 1


@deferred_f_from_coro_f
async def test_items_carrying_their_own_html_are_extracted_by_the_pipeline():
    def make_item(response):
        return {"url": "https://example.com/a", "html": ARTICLE.decode("utf-8")}

    items, stats, _ = await crawl(
        {"BOILERPLATE_HTML_FIELD": "html"}, urls=[ARTICLE_URL], make_item=make_item
    )
    (item,) = items
    assert item["main_text"] == extract(ARTICLE, url="https://example.com/a").main_text
    assert item["html"]  # left in place
    # The page itself was extracted too (downloader middleware), the item from its field.
    assert boilerplate_stats(stats)["pages"] == 2


# ---------------------------------------------------------------------------------------------
# Bad responses and failing extractors: the crawl goes on, the item is kept or dropped


@deferred_f_from_coro_f
async def test_bad_responses_keep_their_items_with_the_reason_recorded():
    with LocalServer() as base:
        paths = [
            "/article.html",
            "/missing",
            "/error",
            "/image.png",
            "/data.json",
            "/document.pdf",
            "/empty",
            "/untyped",
            "/plain-html",
            "/wrong-charset",
        ]
        items, stats, _ = await crawl(urls=[base + p for p in paths])
    reasons = {it["url"].rsplit("/", 1)[-1]: it["boilerplate_reason"] for it in items}
    assert reasons == {
        "article.html": None,
        "missing": "http-status",
        "error": "http-status",
        "image.png": "not-html",
        "data.json": "not-html",
        "document.pdf": "not-html",
        "empty": "empty",
        "untyped": None,
        "plain-html": None,
        "wrong-charset": None,
    }
    texts = {it["url"].rsplit("/", 1)[-1]: it["main_text"] for it in items}
    assert texts["untyped"] == texts["plain-html"] == texts["article.html"]
    # The header wins, as in browsers and in Scrapy's own decoding (the tree is Scrapy's):
    # the one byte that is not UTF-8 becomes U+FFFD, the rest of the page is intact.
    assert "Saltm\ufffdre voted" in texts["wrong-charset"]
    counts = boilerplate_stats(stats)
    assert counts["skipped/http-status"] == 2
    assert counts["skipped/not-html"] == 3
    assert counts["skipped/empty"] == 1
    assert counts["items"] == len(paths)


@deferred_f_from_coro_f
async def test_bodies_over_the_limit_are_skipped():
    items, stats, _ = await crawl({"BOILERPLATE_MAX_BODY_SIZE": 1000}, urls=[ARTICLE_URL])
    assert items[0]["boilerplate_reason"] == "too-large"
    assert boilerplate_stats(stats)["skipped/too-large"] == 1


@deferred_f_from_coro_f
async def test_on_error_drop_drops_failed_items_and_counts_them():
    with LocalServer() as base:
        items, stats, _ = await crawl(
            {"BOILERPLATE_ON_ERROR": "drop"}, urls=[base + "/article.html", base + "/image.png"]
        )
    assert [it["url"].rsplit("/", 1)[-1] for it in items] == ["article.html"]
    counts = boilerplate_stats(stats)
    assert counts["items_dropped/not-html"] == 1
    assert stats["item_dropped_count"] == 1


@pytest.mark.parametrize("mode", ["inline", "process"])
@deferred_f_from_coro_f
async def test_a_page_of_only_boilerplate_is_no_content_counted_and_dropped(mode):
    urls = ["/article.html", "/menu.html"]
    with LocalServer() as base:
        # Every block in the items, so that the menu's boilerplate blocks show it was read.
        # jusText: auto keeps its best blocks on any page with text (docs/auto.md).
        settings = {
            "BOILERPLATE_EXTRACTOR": "justext",
            "BOILERPLATE_EXECUTION": mode,
            "BOILERPLATE_BLOCKS": "all",
        }
        items, stats, _ = await crawl(settings, urls=[base + p for p in urls])
        by_page = {it["url"].rsplit("/", 1)[-1]: it for it in items}
        assert by_page["menu.html"]["boilerplate_reason"] == "no-content"
        assert by_page["menu.html"]["main_text"] == "" and by_page["menu.html"]["blocks"]
        assert by_page["article.html"]["boilerplate_reason"] is None
        counts = boilerplate_stats(stats)
        assert counts["empty/no-content"] == 1 and counts["pages"] == 2

        settings["BOILERPLATE_ON_ERROR"] = "drop"
        items, stats, _ = await crawl(settings, urls=[base + p for p in urls])
    assert [it["url"].rsplit("/", 1)[-1] for it in items] == ["article.html"]
    assert boilerplate_stats(stats)["items_dropped/no-content"] == 1
    assert stats["item_dropped_count"] == 1


@deferred_f_from_coro_f
async def test_an_extractor_that_raises_does_not_break_the_crawl():
    items, stats, _ = await crawl(
        {"BOILERPLATE_EXTRACTOR": "scrapy_helpers:BrokenExtractor"}, urls=URLS
    )
    assert len(items) == len(URLS)
    assert {it["boilerplate_reason"] for it in items} == {"error"}
    assert boilerplate_stats(stats)["errors/ValueError"] == len(URLS)


@pytest.mark.parametrize("mode", ["thread", "process"])
@deferred_f_from_coro_f
async def test_an_extraction_over_the_timeout_is_abandoned_and_the_item_kept(mode):
    settings = {
        "BOILERPLATE_EXTRACTOR": "scrapy_helpers:SlowExtractor",
        "BOILERPLATE_PARAMS": {"seconds": 3.0},
        "BOILERPLATE_TIMEOUT": 0.3,
        "BOILERPLATE_EXECUTION": mode,
        "BOILERPLATE_WORKERS": 1,
    }
    items, stats, _ = await crawl(settings, urls=[ARTICLE_URL])
    assert items[0]["boilerplate_reason"] == "timeout"
    assert items[0]["main_text"] == ""
    assert boilerplate_stats(stats)["errors/timeout"] == 1


@deferred_f_from_coro_f
async def test_process_mode_recovers_after_a_timeout():
    settings = {
        "BOILERPLATE_EXTRACTOR": "scrapy_helpers:SlowExtractor",
        "BOILERPLATE_PARAMS": {"seconds": 0.0},
        "BOILERPLATE_TIMEOUT": 2.0,
        "BOILERPLATE_EXECUTION": "process",
        "BOILERPLATE_WORKERS": 1,
        "CONCURRENT_REQUESTS": 1,
    }
    slow = {"boilerplate": {"params": {"seconds": 10.0}}}  # sleeps: never checks its deadline
    urls = [ARTICLE_URL + "#slow", *URLS]
    items, stats, _ = await crawl(settings, urls=urls, metas={urls[0]: slow})
    reasons = sorted(str(it["boilerplate_reason"]) for it in items)
    assert reasons == ["None"] * len(URLS) + ["timeout"]
    assert boilerplate_stats(stats)["workers_replaced"] == 1  # killed and replaced


# ---------------------------------------------------------------------------------------------
# Wrong settings fail at start, naming the setting and the allowed values


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"BOILERPLATE_EXECUTION": "gpu"}, ["BOILERPLATE_EXECUTION", "inline, thread, process"]),
        ({"BOILERPLATE_EXTRACTOR": "nope"}, ["BOILERPLATE_EXTRACTOR", "justext", "cnr"]),
        ({"BOILERPLATE_PARAMS": {"length_low": -1}}, ["BOILERPLATE_PARAMS", "length_low"]),
        ({"BOILERPLATE_PARAMS": {"nonsense": 1}}, ["BOILERPLATE_PARAMS", "nonsense"]),
        ({"BOILERPLATE_ON_ERROR": "explode"}, ["BOILERPLATE_ON_ERROR", "keep, drop"]),
        ({"BOILERPLATE_FIELDS": {"text": "x"}}, ["BOILERPLATE_FIELDS", "main_text"]),
        ({"BOILERPLATE_TIMEOUT": -1}, ["BOILERPLATE_TIMEOUT", ">= 0"]),
        ({"BOILERPLATE_MAX_BODY_SIZE": 0}, ["BOILERPLATE_MAX_BODY_SIZE", "positive"]),
        ({"BOILERPLATE_WORKERS": "many"}, ["BOILERPLATE_WORKERS"]),
    ],
)
def test_a_wrong_setting_fails_at_start_with_the_setting_and_allowed_values(settings, words):
    crawler = get_crawler(PagesSpider, {"ADDONS": {Addon: 0}, **settings})
    with pytest.raises(BoilerplateSettingsError) as info:
        BoilerplateDownloaderMiddleware.from_crawler(crawler)
    for word in words:
        assert word in str(info.value)


@deferred_f_from_coro_f
async def test_a_wrong_setting_stops_the_crawl_before_any_request():
    crawler = get_crawler(PagesSpider, {**{"ADDONS": {Addon: 0}}, "BOILERPLATE_EXECUTION": "gpu"})
    with pytest.raises(BoilerplateSettingsError):
        await maybe_deferred_to_future(crawler.crawl(urls=[ARTICLE_URL]))


def test_settings_given_as_strings_on_the_command_line_are_parsed():
    crawler = get_crawler(
        PagesSpider,
        {
            "ADDONS": {Addon: 0},
            "BOILERPLATE_PARAMS": '{"threshold": "0.4"}',
            "BOILERPLATE_TIMEOUT": "2.5",
            "BOILERPLATE_ENABLED": "1",
            "BOILERPLATE_FIELDS": '{"main_text": "text"}',
        },
    )
    state = BoilerplateDownloaderMiddleware.from_crawler(crawler).state
    assert state.config.params["threshold"] == 0.4
    assert state.config.timeout == 2.5
    assert state.config.fields == {"main_text": "text"}


def test_disabled_raises_not_configured_with_a_reason():
    from scrapy.exceptions import NotConfigured

    crawler = get_crawler(PagesSpider, {"ADDONS": {Addon: 0}, "BOILERPLATE_ENABLED": False})
    for component in (
        BoilerplateDownloaderMiddleware,
        BoilerplateSpiderMiddleware,
        BoilerplatePipeline,
    ):
        with pytest.raises(NotConfigured, match="BOILERPLATE_ENABLED"):
            component.from_crawler(crawler)


def test_html_sniffing():
    assert looks_like_html(ARTICLE)
    assert looks_like_html(b"\xef\xbb\xbf  <!DOCTYPE html><p>x")
    assert not looks_like_html(b'{"a": 1}')
    assert not looks_like_html(b"\x89PNG\r\n")
    assert not looks_like_html(b"<?xml version='1.0'?><rss><channel/></rss>")


# ---------------------------------------------------------------------------------------------
# Keeping big pages off the reactor thread


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        (
            {"Content-Type": "text/html; charset=utf-8"},
            "héllo ✓ 日本語 ".encode() * 50 + b"\xff\xc3",
        ),
        ({"Content-Type": "text/html; charset=latin-1"}, "wörld € ".encode("cp1252") * 50),
        ({}, b'<meta charset="shift_jis">' + "日本語テキスト".encode("shift_jis") * 40),
        ({}, b"\xef\xbb\xbf" + "bom ✓ ".encode() * 60),
        ({"Content-Type": "text/html; charset=utf-16"}, "utf16 ✓ ".encode("utf-16-be") * 40),
        ({}, b"\xff\xfe" + "le bom ✓".encode("utf-16-le") * 40),
        ({"Content-Type": "text/html; charset=gb2312"}, "中文文本".encode("gb18030") * 40),
    ],
)
def test_decoding_in_pieces_gives_exactly_scrapys_text(monkeypatch, headers, body):
    import scrapy_boilerplate.scrapy.middlewares as middleware

    monkeypatch.setattr(middleware, "_DECODE_CHUNK", 7)  # pieces cut through characters
    ours = decode_in_pieces(HtmlResponse("http://example.com/", headers=headers, body=body))
    assert ours == HtmlResponse("http://example.com/", headers=headers, body=body).text


def test_an_undeclared_encoding_is_left_to_scrapys_detection():
    response = HtmlResponse("http://example.com/", body="no charset ✓".encode())
    assert decode_in_pieces(response) is None


@pytest.mark.parametrize("mode", ["inline", "thread", "process"])
@deferred_f_from_coro_f
async def test_big_bodies_are_decoded_off_the_reactor_and_give_the_same_items(mode):
    stats = await crawl_gives_reference_items(
        {"BOILERPLATE_EXECUTION": mode, "BOILERPLATE_DECODE_SIZE": 100}
    )
    # Inline mode runs on the reactor thread anyway: nothing to gain by a helper thread.
    assert stats.get("decoded", 0) == (0 if mode == "inline" else len(URLS))


@pytest.mark.parametrize("mode", ["thread", "process"])
@pytest.mark.parametrize("blocks", ["content", "all"])
@deferred_f_from_coro_f
async def test_items_of_pages_with_many_blocks_get_blocks_prepared_off_the_reactor(
    monkeypatch, mode, blocks
):
    import scrapy_boilerplate.core.result as result
    import scrapy_boilerplate.scrapy.state as state

    made = []
    real = result.Extraction._make_block_dicts

    def spy(self, kind):
        made.append(kind)
        return real(self, kind)

    monkeypatch.setattr(state, "PREPARE_MIN_BLOCKS", 1)
    monkeypatch.setattr(result.Extraction, "_make_block_dicts", spy)
    settings = {"BOILERPLATE_EXECUTION": mode, "BOILERPLATE_BLOCKS": blocks}
    items, _, _ = await crawl(settings, urls=[ARTICLE_URL])
    (item,) = items
    expected = extract(ARTICLE, url=ARTICLE_URL)
    if blocks == "all":
        assert item["blocks"] == [b.to_dict() for b in expected.blocks]
    else:
        assert item["blocks"] == [b.compact_dict() for b in expected.content_blocks]
    # Made once, of the kind the items get: no full dicts built and then thrown away.
    assert made == [blocks]


@deferred_f_from_coro_f
async def test_process_pool_warm_up_starts_every_worker():
    runner = Runner("process", workers=2)
    try:
        await runner.warm_up("justext")
        processes = runner._executor._processes  # type: ignore[union-attr]
        assert len(processes) == 2
        assert all(p.is_alive() for p in processes.values())
    finally:
        runner.close()


@deferred_f_from_coro_f
async def test_thread_warm_up_extracts_a_page_with_the_spiders_method(monkeypatch):
    """Thread mode: a small page is extracted in a worker with the configured method and
    parameters before the crawl, so what the method builds on first use is ready."""
    from scrapy_boilerplate import extract as real_extract
    from scrapy_boilerplate.scrapy import runner as _execution

    calls = []

    def spy(html, extractor, **kwargs):
        calls.append((html, extractor, kwargs))
        return real_extract(html, extractor, **kwargs)

    monkeypatch.setattr("scrapy_boilerplate.core.extract.extract", spy)
    runner = Runner("thread", workers=2, timeout=5.0)
    try:
        await runner.warm_up("justext", {"length_low": 50})
    finally:
        runner.close()
    assert calls == [(_execution.WARM_PAGE, "justext", {"timeout": 5.0, "length_low": 50})]
    assert real_extract(_execution.WARM_PAGE, "justext").main_text  # a page it reads


@deferred_f_from_coro_f
async def test_warm_up_failure_is_left_to_the_first_page(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("model file is corrupt")

    monkeypatch.setattr("scrapy_boilerplate.core.extract.extract", broken)
    runner = Runner("thread", workers=1)
    try:
        await runner.warm_up("cnr")  # no exception: the first page reports the problem
        assert (await runner.run(len, "abc"))[0] == 3
    finally:
        runner.close()
    inline = Runner("inline")
    await inline.warm_up("cnr")  # inline: nothing runs ahead of the pages


@deferred_f_from_coro_f
async def test_a_pool_replaced_after_a_timeout_is_warmed_before_pages_reach_it():
    import time as _time

    from scrapy_boilerplate.scrapy.runner import ExtractionTimeout

    runner = Runner("process", workers=1, timeout=1.0)
    try:
        await runner.warm_up("justext")
        with pytest.raises(ExtractionTimeout):
            await runner.run(_time.sleep, 5.0)
        assert runner.restarts == 1 and runner._executor is None
        # The next page starts a new pool; its worker is started and warmed outside the
        # page's timeout, so the page's own time is all that counts.
        result, _ = await runner.run(len, "abc")  # no ExtractionTimeout
        assert result == 3
        assert runner._warmed == runner._generation == 1
        processes = runner._executor._processes  # type: ignore[union-attr]
        assert len(processes) == 1
    finally:
        runner.close()


async def _queued_behind(runner: Runner, first: Any, *args: Any) -> tuple[Any, Any]:
    """(outcome of ``first(*args)``, outcome of ``len("abc")`` queued behind it) on
    ``runner`` (an exception for an outcome that raised)."""
    import asyncio

    async def page(func: Any, *a: Any, wait: float = 0.0) -> Any:
        await asyncio.sleep(wait)
        try:
            return (await runner.run(func, *a))[0]
        except Exception as exc:
            return exc

    # The second page waits for the only worker, held by the first.
    return tuple(await asyncio.gather(page(first, *args), page(len, "abc", wait=0.2)))


@deferred_f_from_coro_f
async def test_a_page_queued_behind_one_past_its_deadline_runs_on_the_new_warmed_pool():
    import time as _time

    from scrapy_boilerplate.scrapy.runner import ExtractionTimeout

    runner = Runner("process", workers=1, timeout=1.0)
    try:
        await runner.warm_up("justext")
        # sleeps without checking its deadline: its worker is killed, the pool replaced
        hung, queued = await _queued_behind(runner, _time.sleep, 30.0)
        assert isinstance(hung, ExtractionTimeout)
        assert queued == 3
        assert runner.restarts == 1
        # The queued page went to the new pool once it was warmed, not to a bare one
        # whose start-up would have counted against its timeout.
        assert runner._warmed == runner._generation == 1
    finally:
        runner.close()


@deferred_f_from_coro_f
async def test_a_page_queued_behind_a_dead_worker_is_not_failed_for_its_death():
    from concurrent.futures.process import BrokenProcessPool

    from scrapy_helpers import die_abruptly

    runner = Runner("process", workers=1, timeout=30.0)
    try:
        await runner.warm_up("justext")
        dead, queued = await _queued_behind(runner, die_abruptly)
        # The page that kills its worker was tried twice, then failed; the page behind
        # it (sent its worker's slot before the pool was replaced) runs on a new pool.
        assert isinstance(dead, BrokenProcessPool)
        assert queued == 3
    finally:
        runner.close()


@deferred_f_from_coro_f
async def test_gc_freeze_at_spider_open_unless_turned_off():
    import gc

    gc.unfreeze()
    try:
        await crawl({"BOILERPLATE_GC_FREEZE": False}, urls=[ARTICLE_URL])
        assert gc.get_freeze_count() == 0
        await crawl({}, urls=[ARTICLE_URL])
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
