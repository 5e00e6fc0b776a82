"""``BOILERPLATE_MIN_QUALITY``: the pipeline drops items whose method expected a poor
result (``auto``'s ``quality``), counts them, and leaves other methods' items alone."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings
from scrapy.utils.defer import deferred_f_from_coro_f

from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError, Config
from scrapy_helpers import LocalServer, boilerplate_stats, crawl

URLS = ["/article.html", "/menu.html"]
WITH_QUALITY = {"main_text": "main_text", "reason": "boilerplate_reason", "quality": "quality"}


@deferred_f_from_coro_f
async def test_items_below_the_bound_are_dropped_and_counted():
    with LocalServer() as base:
        settings = {"BOILERPLATE_FIELDS": WITH_QUALITY}
        items, stats, _ = await crawl(settings, urls=[base + p for p in URLS])
        by_page = {it["url"].rsplit("/", 1)[-1]: it for it in items}
        # auto keeps the menu's best blocks (no reason), and says how little to trust them
        assert by_page["menu.html"]["boilerplate_reason"] is None
        assert by_page["menu.html"]["quality"] < 0.5 <= by_page["article.html"]["quality"]
        assert "items_dropped/low-quality" not in boilerplate_stats(stats)

        settings["BOILERPLATE_MIN_QUALITY"] = 0.5
        items, stats, _ = await crawl(settings, urls=[base + p for p in URLS])
    assert [it["url"].rsplit("/", 1)[-1] for it in items] == ["article.html"]
    assert boilerplate_stats(stats)["items_dropped/low-quality"] == 1
    assert stats["item_dropped_count"] == 1


@deferred_f_from_coro_f
async def test_a_container_field_carries_the_quality_the_bound_reads():
    with LocalServer() as base:
        settings = {"BOILERPLATE_FIELDS": "boilerplate", "BOILERPLATE_MIN_QUALITY": 0.5}
        items, stats, _ = await crawl(settings, urls=[base + p for p in URLS])
    assert [it["url"].rsplit("/", 1)[-1] for it in items] == ["article.html"]
    assert boilerplate_stats(stats)["items_dropped/low-quality"] == 1


@deferred_f_from_coro_f
async def test_a_method_without_a_quality_is_never_dropped_by_the_bound():
    with LocalServer() as base:
        settings = {
            "BOILERPLATE_EXTRACTOR": "cnr",
            "BOILERPLATE_FIELDS": WITH_QUALITY,
            "BOILERPLATE_MIN_QUALITY": 0.99,
        }
        items, stats, _ = await crawl(settings, urls=[base + p for p in URLS])
    assert len(items) == 2 and all(it["quality"] is None for it in items)
    assert "items_dropped/low-quality" not in boilerplate_stats(stats)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"BOILERPLATE_MIN_QUALITY": 1.5}, "from 0 to 1"),
        ({"BOILERPLATE_MIN_QUALITY": -0.1}, "from 0 to 1"),
        ({"BOILERPLATE_MIN_QUALITY": "high"}, "BOILERPLATE_MIN_QUALITY"),
        # the default outputs hold no quality: the bound could never see one
        ({"BOILERPLATE_MIN_QUALITY": 0.5}, "add the quality output"),
    ],
)
def test_bad_bounds_and_missing_outputs_are_refused_at_start(settings, message):
    with pytest.raises(BoilerplateSettingsError, match=message):
        Config.from_settings(Settings(settings))


def test_the_bound_from_the_command_line_is_parsed():
    config = Config.from_settings(
        Settings({"BOILERPLATE_MIN_QUALITY": "0.4", "BOILERPLATE_FIELDS": "boilerplate"})
    )
    assert config.min_quality == 0.4
