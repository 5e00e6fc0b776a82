"""VIPS on a real headless Chromium (Debian's chromium, driven by Playwright).

Skipped where Chromium or Playwright is missing, unless BOILERPLATE_REQUIRE_CHROMIUM=1
(CI sets it after installing both, so there these tests fail rather than skip)."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest

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
