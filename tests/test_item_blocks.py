"""``BOILERPLATE_BLOCKS``: how much of the blocks an item carries (content blocks in a
compact form by default, every block in full, or none), in both forms of
``BOILERPLATE_FIELDS``, and a wrong value refused when the crawl starts."""

from __future__ import annotations

import json

import pytest
from scrapy.settings import Settings
from scrapy.utils.defer import deferred_f_from_coro_f
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import Addon, extract
from scrapy_boilerplate.core.result import COMPACT_KEYS, CONTENT
from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError, Config
from scrapy_boilerplate.scrapy.items import ItemWriter
from scrapy_boilerplate.scrapy.middlewares import BoilerplateDownloaderMiddleware
from scrapy_helpers import ARTICLE, PAGES, PagesSpider, crawl

ARTICLE_URL = (PAGES / "news_article.html").as_uri()


def written(settings: dict, url: str | None = None) -> dict:
    """The item ItemWriter makes of the test article with ``settings`` (fetched from ``url``:
    the default method, auto, reads the URL for the page's type)."""
    item: dict = {}
    result = extract(ARTICLE, url=url)
    ItemWriter(Config.from_settings(Settings(settings))).write(item, result)
    return item


def test_the_default_is_content():
    assert Config.from_settings(Settings()).blocks == "content"
    assert written({}) == written({"BOILERPLATE_BLOCKS": "content"})


def test_content_mode_writes_the_content_blocks_compact():
    result = extract(ARTICLE)
    assert 0 < len(result.content_blocks) < len(result.blocks)  # a page with boilerplate
    blocks = written({"BOILERPLATE_BLOCKS": "content"})["blocks"]
    assert [tuple(b) for b in blocks] == [COMPACT_KEYS] * len(result.content_blocks)
    assert blocks == [
        {"text": b.text, "tag": b.tag, "xpath": b.xpath, "index": b.index}
        for b in result.blocks
        if b.label == CONTENT
    ]


def test_all_mode_writes_every_block_in_full():
    result = extract(ARTICLE)
    blocks = written({"BOILERPLATE_BLOCKS": "all"})["blocks"]
    assert blocks == [b.to_dict() for b in result.blocks]


def test_none_mode_writes_no_blocks_and_the_other_outputs_as_before():
    item = written({"BOILERPLATE_BLOCKS": "none"})
    assert "blocks" not in item
    full = written({"BOILERPLATE_BLOCKS": "all"})
    del full["blocks"]
    assert item == full
    writer = ItemWriter(Config.from_settings(Settings({"BOILERPLATE_BLOCKS": "none"})))
    assert not writer.writes_blocks and "blocks" not in writer.field_names


@pytest.mark.parametrize("mode", ["content", "all", "none"])
def test_the_container_field_follows_the_setting(mode):
    settings = {"BOILERPLATE_FIELDS": "boilerplate", "BOILERPLATE_BLOCKS": mode}
    container = written(settings)["boilerplate"]
    flat = written({"BOILERPLATE_BLOCKS": mode})
    if mode == "none":
        auto = {"page_type", "page_type_probability", "quality"}  # the default's own
        assert set(container) == {"main_text", "extractor", "language", "reason"} | auto
    else:
        assert container["blocks"] == flat["blocks"]
    assert container["main_text"] == flat["main_text"]
    json.dumps(container)  # plain JSON


def test_smaller_items_the_less_they_carry():
    sizes = {
        mode: len(json.dumps(written({"BOILERPLATE_BLOCKS": mode})))
        for mode in ("all", "content", "none")
    }
    assert sizes["all"] > sizes["content"] > sizes["none"]


@pytest.mark.parametrize("value", ["some", "", 1, ["content"]])
def test_an_invalid_value_is_refused_at_start(value):
    crawler = get_crawler(PagesSpider, {"ADDONS": {Addon: 0}, "BOILERPLATE_BLOCKS": value})
    with pytest.raises(BoilerplateSettingsError) as info:
        BoilerplateDownloaderMiddleware.from_crawler(crawler)
    message = str(info.value)
    assert info.value.setting == "BOILERPLATE_BLOCKS"
    assert "BOILERPLATE_BLOCKS" in message and "content, all, none" in message


def test_none_with_only_the_blocks_output_is_refused():
    settings = Settings({"BOILERPLATE_FIELDS": {"blocks": "b"}, "BOILERPLATE_BLOCKS": "none"})
    with pytest.raises(BoilerplateSettingsError, match="BOILERPLATE_BLOCKS"):
        Config.from_settings(settings)


def test_a_command_line_value_is_read_case_insensitively():
    assert Config.from_settings(Settings({"BOILERPLATE_BLOCKS": " All "})).blocks == "all"


@pytest.mark.parametrize("mode", ["content", "all", "none"])
@deferred_f_from_coro_f
async def test_a_crawls_items_carry_the_blocks_of_the_mode(mode):
    items, _, _ = await crawl({"BOILERPLATE_BLOCKS": mode}, urls=[ARTICLE_URL])
    (item,) = items
    assert item == {"url": ARTICLE_URL, **written({"BOILERPLATE_BLOCKS": mode}, ARTICLE_URL)}


def test_auto_s_page_type_and_quality_reach_the_items():
    """The default method's page type and quality (docs/auto.md: drop or re-route poor
    pages) are outputs like the others, and the container field holds them where the
    method set them."""
    result = extract(ARTICLE, url=ARTICLE_URL)
    assert result.quality is not None and result.page_type is not None
    outputs = {"main_text": "text", "page_type": "kind", "quality": "q"}
    outputs["page_type_probability"] = "p_kind"
    item = written({"BOILERPLATE_FIELDS": outputs}, ARTICLE_URL)
    assert item == {
        "text": result.main_text,
        "kind": result.page_type,
        "p_kind": result.page_type_probability,
        "q": result.quality,
    }
    container = written({"BOILERPLATE_FIELDS": "boilerplate"}, ARTICLE_URL)["boilerplate"]
    assert container["quality"] == result.quality
    assert container["page_type"] == result.page_type
    assert container["page_type_probability"] == result.page_type_probability
    json.dumps(container)
    # a method without them: the container keeps its five outputs, nothing set to null
    item = {}
    config = Config.from_settings(Settings({"BOILERPLATE_FIELDS": "boilerplate"}))
    ItemWriter(config).write(item, extract(ARTICLE, "justext"))
    assert set(item["boilerplate"]) == {"main_text", "blocks", "extractor", "language", "reason"}
