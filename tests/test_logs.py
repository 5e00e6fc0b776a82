"""Logs that tell the truth: every stats key a log line names exists, each distinct mistake
is logged once (repeats only counted), the start says in one line what runs, a disabled
plugin is quiet, and a bad setting fails the start with one line and no traceback."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import scrapy
from scrapy.utils.defer import deferred_f_from_coro_f
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import Addon
from scrapy_boilerplate.core import registry
from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError, Config
from scrapy_boilerplate.scrapy.entities import EntityPipeline
from scrapy_helpers import PAGES, SETTINGS, Collect, PagesSpider, boilerplate_stats, crawl

ROOT = Path(__file__).resolve().parents[1]
ARTICLE_URL = (PAGES / "news_article.html").as_uri()

#: Four different mistakes in ``meta["boilerplate"]``.
BAD_METAS = [
    {"params": {"length_low": -5}},
    {"params": {"nonsense": 1}},
    "cnr",
    {"extractor": "cnr", "colour": "red"},
]


class BareItem(scrapy.Item):
    """An item class without the fields the plugin writes."""

    url = scrapy.Field()


def _make_item(response: Any) -> Any:
    kind = response.meta.get("kind")
    if kind == "bare":
        return BareItem(url=response.url)
    if kind == "html":
        return {"url": response.url, "html": 123}  # not str or bytes
    return {"url": response.url}


async def _bad_crawl(caplog: Any) -> dict[str, Any]:
    """A crawl of every kind of bad input, each one twice; returns its stats."""
    metas: dict[str, dict] = {}
    for i, bad in enumerate(BAD_METAS * 2):
        metas[f"{ARTICLE_URL}#meta{i}"] = {"boilerplate": bad}
    broken = {"boilerplate": {"extractor": "broken"}}  # meta names registered methods only
    for i in range(2):
        metas[f"{ARTICLE_URL}#broken{i}"] = broken
        metas[f"{ARTICLE_URL}#bare{i}"] = {"kind": "bare"}
        metas[f"{ARTICLE_URL}#html{i}"] = {"kind": "html"}
    settings = {
        "BOILERPLATE_HTML_FIELD": "html",
        "SPIDER_MIDDLEWARES": {"scrapy_boilerplate.scrapy.entities.EntitySpiderMiddleware": 600},
        "ITEM_PIPELINES": {EntityPipeline: 300, Collect: 900},  # no entity query: skipped
    }
    caplog.set_level(logging.INFO)
    registry.register("broken", "scrapy_helpers:BrokenExtractor")
    try:
        items, stats, _ = await crawl(settings, urls=list(metas), metas=metas, make_item=_make_item)
    finally:
        registry.unregister("broken")
    assert len(items) == len(metas)
    return stats


def _mentioned_keys(records: list[logging.LogRecord]) -> set[str]:
    keys = set()
    for record in records:
        if record.name == "scrapy.statscollectors":  # the dump of every stat at the end
            continue
        # a key stands on its own: not the end of a path ("scrapy-boilerplate/tests/...",
        # the checkout's own directory in a page's file URL)
        for key in re.findall(r"(?<![\w/.-])boilerplate/\S+", record.getMessage()):
            keys.add(key.rstrip(").,;:'"))
    return keys


@deferred_f_from_coro_f
async def test_every_stats_key_a_log_line_names_exists(caplog):
    stats = await _bad_crawl(caplog)
    keys = _mentioned_keys(caplog.records)
    assert "boilerplate/errors/InvalidParameter" in keys
    assert "boilerplate/errors/missing_fields" in keys
    assert keys and keys <= set(stats), keys - set(stats)


@deferred_f_from_coro_f
async def test_each_distinct_mistake_is_logged_once_and_repeats_only_counted(caplog):
    stats = await _bad_crawl(caplog)
    bad_meta = [r for r in caplog.records if "meta['boilerplate']" in r.getMessage()]
    assert len(bad_meta) == len(BAD_METAS)  # four mistakes, each twice: four lines
    assert all(r.levelno == logging.ERROR for r in bad_meta)
    counts = boilerplate_stats(stats)
    assert counts["errors/InvalidParameter"] == 2 * len(BAD_METAS)
    assert len([r for r in caplog.records if "does not declare" in r.getMessage()]) == 1
    assert counts["errors/missing_fields"] == 2
    # The end of the crawl sums up what was logged once and happened more often.
    summary = [r.getMessage() for r in caplog.records if "in this crawl" in r.getMessage()]
    assert any(
        "boilerplate/errors/InvalidParameter" in line and " 8 " in f" {line} " for line in summary
    ), summary


@deferred_f_from_coro_f
async def test_the_start_is_one_line_saying_what_runs(caplog):
    caplog.set_level(logging.INFO, logger="scrapy_boilerplate")
    settings = {"BOILERPLATE_PARAMS": {"threshold": 0.4}, "BOILERPLATE_EXECUTION": "thread"}
    await crawl(settings, urls=[ARTICLE_URL])
    lines = [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("scrapy_boilerplate") and r.levelno == logging.INFO
        and "extractor" in r.getMessage()
    ]  # fmt: skip
    assert len(lines) == 1, lines
    (line,) = lines
    assert "\n" not in line
    config = Config.from_settings(get_crawler(PagesSpider, {**SETTINGS, **settings}).settings)
    for word in (
        "auto",  # the default
        '"threshold": 0.4',
        "thread",
        f"{config.workers} workers",
        f"queue {config.queue_size}",
        "timeout 30",
    ):
        assert word in line, (word, line)


@deferred_f_from_coro_f
async def test_disabled_is_one_info_line_and_no_warning(caplog):
    caplog.set_level(logging.INFO)
    items, stats, _ = await crawl({"BOILERPLATE_ENABLED": False}, urls=[ARTICLE_URL])
    assert items == [{"url": ARTICLE_URL}]
    assert not boilerplate_stats(stats)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    mentions = [r for r in caplog.records if "BOILERPLATE_ENABLED" in r.getMessage()]
    assert len(mentions) == 1 and mentions[0].levelno == logging.INFO


# ---------------------------------------------------------------------------------------------
# Settings: clear messages, forgiving forms


def _config(**settings: Any) -> Config:
    return Config.from_settings(
        get_crawler(PagesSpider, {"ADDONS": {Addon: 0}, **settings}).settings
    )


def test_params_that_are_not_json_say_a_json_object_is_expected_with_an_example():
    with pytest.raises(BoilerplateSettingsError) as info:
        _config(BOILERPLATE_PARAMS="length_low=50")
    message = str(info.value)
    assert "BOILERPLATE_PARAMS" in message and "JSON object" in message
    assert """-s BOILERPLATE_PARAMS='{"length_low": 50}'""" in message
    assert "Expecting value" not in message


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ('["test_scrapy.ArticleItem"]', ["ArticleItem"]),
        (
            '["test_scrapy.ArticleItem", "test_scrapy.DataclassItem"]',
            ["ArticleItem", "DataclassItem"],
        ),
        ("test_scrapy.ArticleItem", ["ArticleItem"]),
        ("test_scrapy.ArticleItem, test_scrapy.DataclassItem", ["ArticleItem", "DataclassItem"]),
        (["test_scrapy.ArticleItem"], ["ArticleItem"]),
    ],
)
def test_item_classes_as_a_json_list_or_a_comma_separated_string(value, names):
    classes = _config(BOILERPLATE_ITEM_CLASSES=value).item_classes
    assert [cls.__name__ for cls in classes] == names


# ---------------------------------------------------------------------------------------------
# A bad setting fails the start: one line, no traceback, a non-zero exit


def _project(root: Path) -> None:
    (root / "scrapy.cfg").write_text("[settings]\ndefault = logsproject.settings\n")
    package = root / "logsproject"
    (package / "spiders").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "settings.py").write_text(
        'BOT_NAME = "logsproject"\n'
        'SPIDER_MODULES = ["logsproject.spiders"]\n'
        'ADDONS = {"scrapy_boilerplate.Addon": 0}\n'
        "TELNETCONSOLE_ENABLED = False\n"
    )
    (package / "spiders" / "__init__.py").write_text(
        textwrap.dedent(
            """
            import scrapy


            class Local(scrapy.Spider):
                name = "local"

                async def start(self):
                    yield scrapy.Request("data:text/html,<p>A page that needs no network.</p>")

                def parse(self, response):
                    yield {"url": response.url}
            """
        )
    )


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("BOILERPLATE_EXECUTION=bogus", ["BOILERPLATE_EXECUTION", "inline, thread, process"]),
        ("BOILERPLATE_PARAMS=length_low=50", ["BOILERPLATE_PARAMS", "JSON object"]),
    ],
)
def test_a_bad_setting_fails_the_start_with_one_line_and_no_traceback(tmp_path, setting, words):
    _project(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "local", "-s", setting],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), *sys.path])},
    )
    assert proc.returncode != 0
    stderr = proc.stderr
    assert "Task exception was never retrieved" not in stderr
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if words[0] in line]
    assert len(lines) == 1, stderr
    (line,) = lines
    assert "ERROR" in line
    for word in words:
        assert word in line
    assert "Spider opened" not in stderr and "item_scraped_count" not in stderr
