"""VIPS on a real headless Chromium (Debian's chromium, driven by Playwright).

Skipped where Chromium or Playwright is missing, unless BOILERPLATE_REQUIRE_CHROMIUM=1
(CI sets it after installing both, so there these tests fail rather than skip)."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path
from typing import ClassVar

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

import scrapy_boilerplate as sb
from scrapy_boilerplate.extractors.vips import RenderError, from_snapshot, render_snapshot
from scrapy_boilerplate.extractors.vips.render import CHROMIUM

PAGES = Path(__file__).parent / "pages" / "vips"
HAVE = Path(CHROMIUM).exists() and importlib.util.find_spec("playwright") is not None
if not HAVE and os.environ.get("BOILERPLATE_REQUIRE_CHROMIUM") != "1":
    pytestmark = pytest.mark.skip(reason=f"no Chromium at {CHROMIUM} or no Playwright")


def test_rendered_layout_of_a_file_page():
    snapshot = render_snapshot(url=(PAGES / "article.html").resolve().as_uri())
    layout = from_snapshot(snapshot)
    nodes = {n.xpath: n for n in layout.nodes()}
    side = nodes["/html[1]/body[1]/div[2]"]
    main = nodes["/html[1]/body[1]/div[3]"]
    assert side.w == 220 and main.x >= side.right  # the float: a column, side by side
    assert set(snapshot["timings"]) == {"launch_s", "load_s", "snapshot_s"}


def test_vips_with_rendered_layout_extracts_the_article():
    html = (PAGES / "article.html").read_text()
    result = sb.extract(html, extractor="vips", layout="rendered")
    assert result.extra["layout"] == "rendered"
    assert "Baltimore sits within an hour" in result.main_text
    assert "load_s" in result.extra["timings"]


def test_a_page_that_never_finishes_loading_times_out():
    start = time.monotonic()
    with pytest.raises(RenderError) as info:
        render_snapshot("<script>while (true) {}</script><p>never</p>", timeout=5)
    assert info.value.reason == "timeout"
    assert time.monotonic() - start < 30


def test_network_requests_are_aborted_offline():
    html = '<img src="http://192.0.2.1/x.png"><p>offline page</p>'
    start = time.monotonic()
    layout = from_snapshot(render_snapshot(html, timeout=20))
    assert any(n.text == "offline page" for n in layout.nodes())
    assert time.monotonic() - start < 20


def test_cli_png_outlines_the_visual_blocks(tmp_path):
    from scrapy_boilerplate.cli import main

    out = tmp_path / "blocks.png"
    code = main(["extract", "--extractor", "vips", "--format", "png", "-o", str(out),
                 str(PAGES / "article.html")])  # fmt: skip
    assert code == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(data[16:20], "big")
    assert width == 1366


def test_a_browser_that_crashes_gives_a_result_that_says_why(monkeypatch):
    from scrapy_boilerplate.extractors.vips import render

    monkeypatch.setattr(render, "CHROMIUM", "/bin/false")  # exists, exits at once
    result = sb.extract("<p>text</p>", extractor="vips", layout="rendered", render_timeout=20)
    assert result.reason == "render-crash" and result.main_text == ""
    assert result.extra["detail"]


def test_a_render_timeout_is_a_result_not_an_exception():
    html = "<script>while (true) {}</script><p>never</p>"
    result = sb.extract(html, extractor="vips", layout="rendered", render_timeout=3)
    assert result.reason == "render-timeout"


def test_zero_size_body():
    html = "<html><body style='display:none'><p>hidden text</p></body></html>"
    result = sb.extract(html, extractor="vips", layout="rendered")
    assert result.main_text == "" and result.reason == "no-text"


def test_display_contents_keeps_its_children():
    html = (
        "<body><div style='display:contents'>loose text <p>kept paragraph of text</p></div></body>"
    )
    layout = from_snapshot(render_snapshot(html))
    div = next(n for n in layout.nodes() if n.tag == "div")
    assert div.visible and div.display == "contents" and div.w > 0
    assert "kept paragraph" in div.text_content() and "loose text" in div.text_content()


@deferred_f_from_coro_f
async def test_crawl_through_scrapy_playwright_carries_the_snapshot():
    """The real thing: scrapy-playwright renders the page in the system Chromium, our
    PageMethod takes the snapshot, and VIPS segments that rendered layout."""
    pytest.importorskip("scrapy_playwright")
    from scrapy_playwright.page import PageMethod

    from scrapy_boilerplate.extractors.vips import capture_snapshot
    from scrapy_boilerplate.extractors.vips.render import LAUNCH_ARGS
    from scrapy_helpers import LocalServer, PagesSpider, crawl

    handler = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"

    class PlaywrightSpider(PagesSpider):
        name = "vips-playwright"
        custom_settings: ClassVar[dict] = {
            "BOILERPLATE_EXTRACTOR": "vips",
            "DOWNLOAD_HANDLERS": {"http": handler, "https": handler},
            "PLAYWRIGHT_LAUNCH_OPTIONS": {"executable_path": CHROMIUM, "args": LAUNCH_ARGS},
        }

    with LocalServer() as base:
        url = base + "/article.html"
        meta = {"playwright": True, "playwright_page_methods": [PageMethod(capture_snapshot)]}
        items, _, seen = await crawl(spider=PlaywrightSpider, urls=[url], metas={url: meta})
    (view,) = seen
    result = view["boilerplate"]
    assert result.extra["layout"] == "rendered"
    assert result.main_text and items[0]["extractor"] == "vips"


def test_a_page_that_grows_forever_is_taken_at_its_load_event():
    html = (
        "<p>start</p><script>setInterval(() => { const p = document.createElement('p');"
        " p.textContent = 'more'; document.body.appendChild(p); }, 5);</script>"
    )
    start = time.monotonic()
    layout = from_snapshot(render_snapshot(html, timeout=20))
    assert any(n.text == "start" for n in layout.nodes())
    assert time.monotonic() - start < 20
