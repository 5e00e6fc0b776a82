"""VIPS on a real headless Chromium (Debian's chromium, driven by Playwright).

Skipped where Chromium or Playwright is missing, unless BOILERPLATE_REQUIRE_CHROMIUM=1
(CI sets it after installing both, so there these tests fail rather than skip).

CI and development machines run these as root, where Chromium cannot start with its
sandbox: every test opts in to running it without (the ``unsandboxed`` fixture), as a
container must (docs/security/browser.md); the sandbox tests say what happens otherwise."""

from __future__ import annotations

import importlib.util
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

import scrapy_boilerplate as sb
from scrapy_boilerplate.extractors.vips import RenderError, from_snapshot, render, render_snapshot
from scrapy_boilerplate.extractors.vips.render import CHROMIUM, SANDBOX_ENV

PAGES = Path(__file__).parent / "pages" / "vips"
HAVE = Path(CHROMIUM).exists() and importlib.util.find_spec("playwright") is not None
if not HAVE and os.environ.get("BOILERPLATE_REQUIRE_CHROMIUM") != "1":
    pytestmark = pytest.mark.skip(reason=f"no Chromium at {CHROMIUM} or no Playwright")


@pytest.fixture(autouse=True)
def unsandboxed(monkeypatch):
    """The explicit opt-in to a browser without its sandbox where it cannot have one."""
    monkeypatch.setenv(SANDBOX_ENV, "allow-unsandboxed")


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
        render_snapshot("<script>while (true) {}</script><p>never</p>", timeout=5, javascript=True)
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
    result = sb.extract(
        html, extractor="vips", layout="rendered", render_timeout=3, javascript=True
    )
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
            # (as root, no sandbox: Playwright's chromium_sandbox, False unless asked)
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
    layout = from_snapshot(render_snapshot(html, timeout=20, javascript=True))
    assert any(n.text == "start" for n in layout.nodes())
    assert time.monotonic() - start < 20


# -- the browser is a sandbox (docs/security/browser.md) ---------------------------------------


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="as root Chromium cannot start with its sandbox; elsewhere it may",
)
def test_without_its_sandbox_the_browser_renders_nothing_unless_allowed(monkeypatch, caplog):
    monkeypatch.setenv(SANDBOX_ENV, "require")
    monkeypatch.setattr(render, "_sandbox_fails", False)
    result = sb.extract("<p>some text</p>", extractor="vips", layout="rendered")
    assert result.reason == "render-no-sandbox"
    assert SANDBOX_ENV in result.extra["detail"]
    # allowed: rendered without it, and the log says so once per process
    monkeypatch.setenv(SANDBOX_ENV, "allow-unsandboxed")
    with caplog.at_level(logging.WARNING, logger=render.__name__):
        for _ in range(2):
            result = sb.extract("<p>some text</p>", extractor="vips", layout="rendered")
            assert result.reason is None and "some text" in result.main_text
    said = [r for r in caplog.records if "sandbox" in r.getMessage()]
    assert len(said) == 1


SCRIPTED = (
    "<p id='x'>as served</p><script>document.getElementById('x').textContent = 'scripted'</script>"
)


def test_javascript_is_off_unless_asked_for():
    texts = {n.text for n in from_snapshot(render_snapshot(SCRIPTED)).nodes()}
    assert "as served" in texts and "scripted" not in texts
    result = sb.extract(SCRIPTED, extractor="vips", layout="rendered")
    assert "as served" in result.main_text
    result = sb.extract(SCRIPTED, extractor="vips", layout="rendered", javascript=True)
    assert "scripted" in result.main_text


class Listener:
    """A TCP listener on loopback that records what connects to it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.got: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    self.got.append(conn.recv(4096))
                except OSError:
                    self.got.append(b"")

    def close(self) -> None:
        self.sock.close()


def test_no_request_leaves_the_browser_websockets_included():
    """The page (scripts on) opens a WebSocket, fetches and beacons to a listener on
    loopback, and the render waits until the WebSocket has settled (its title says so):
    whatever reached the listener did so by then, and nothing did."""
    listener = Listener()
    base = f"127.0.0.1:{listener.port}"
    html = (
        "<p>page</p><script>"
        f"const ws = new WebSocket('ws://{base}/ws');"
        "ws.onopen = () => { document.title = 'ws:open'; };"
        "ws.onclose = () => { document.title = 'ws:closed'; };"
        f"fetch('http://{base}/fetch').catch(() => {{}});"
        f"navigator.sendBeacon('http://{base}/beacon', 'x');"
        "</script>"
    )

    def settled(page, snapshot):
        page.wait_for_function("document.title.startsWith('ws:')", timeout=20_000)
        snapshot["title"] = page.title()

    try:
        snapshot = run_bounded(
            lambda: render._render(html, None, 1366, 768, 30.0, True, True, False, then=settled),
            120,
        )
    finally:
        listener.close()
    assert snapshot["title"] == "ws:closed"
    assert listener.got == []


def test_no_frame_shows_a_local_file_and_a_file_page_reads_its_own_folder_only(tmp_path):
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("SECRET-ELSEWHERE")
    (secret.parent / "foreign.css").write_text("#b { width: 77px }")
    site = tmp_path / "site"
    site.mkdir()
    (site / "neighbour.txt").write_text("SECRET-NEIGHBOUR")
    (site / "own.css").write_text("#a { width: 123px }")
    page = site / "page.html"
    page.write_text(
        '<link rel="stylesheet" href="own.css">'
        f'<link rel="stylesheet" href="{(secret.parent / "foreign.css").as_uri()}">'
        '<div id="a">own style</div><div id="b">foreign style</div>'
        f'<iframe src="{secret.as_uri()}"></iframe><iframe src="neighbour.txt"></iframe>'
        '<object data="neighbour.txt"></object><iframe src="file:///etc/passwd"></iframe>'
    )
    snapshot = render_snapshot(url=page.as_uri())
    shown = "\n".join(snapshot["strings"])
    assert "SECRET" not in shown and "root:" not in shown
    nodes = {n.text_content(): n for n in from_snapshot(snapshot).nodes() if n.tag == "div"}
    assert nodes["own style"].w == 123  # the page's own style sheet still applies
    assert nodes["foreign style"].w != 77


def test_the_png_view_runs_no_script_and_shows_no_file_frame(tmp_path):
    from scrapy_boilerplate.cli import main

    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    page = tmp_path / "page.html"
    page.write_text(SCRIPTED + f'<iframe src="{secret.as_uri()}"></iframe>')
    seen = []
    real = render._render

    def spy(*args, then=None, **kw):
        if then is None:
            *args, then = args

        def look(pg, snapshot):
            seen.append((from_snapshot(snapshot).root.text_content(), snapshot["strings"]))
            then(pg, snapshot)

        return real(*args, then=look, **kw)

    out = tmp_path / "view.png"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(render, "_render", spy)
        code = main(["extract", "--extractor", "vips", "--format", "png", "-o", str(out),
                     str(page)])  # fmt: skip
    assert code == 0 and out.read_bytes()[:4] == b"\x89PNG"
    ((shown, strings),) = seen
    assert "as served" in shown and "scripted" not in shown
    assert not any("TOP-SECRET" in s for s in strings)


def run_bounded(func, limit):
    """``func()`` in a thread; its result, or None if it has not returned in ``limit``
    seconds (a bound far above the expected time, not a measure of speed)."""
    out = []
    thread = threading.Thread(target=lambda: out.append(func()), daemon=True)
    thread.start()
    thread.join(limit)
    return out[0] if out else None


@pytest.mark.parametrize(
    "script",
    ["while (true) {}", "addEventListener('load', () => setTimeout(() => { while (true) {} }))"],
    ids=["before-load", "after-load"],
)
def test_a_render_never_outlives_the_pages_deadline(script):
    """``render_timeout=600`` but the page has 3 s: a script that loops (before its load
    event, or after it, holding the snapshot) gives reason timeout well within a bound of
    120 s (before, 600 s per page held the worker)."""
    html = f"<p>text of the page</p><script>{script}</script>"
    result = run_bounded(
        lambda: sb.extract(html, extractor="vips", layout="rendered", javascript=True,
                           render_timeout=600, timeout=3),
        120,
    )  # fmt: skip
    assert result is not None, "the render outlived the page's deadline"
    assert result.reason in ("timeout", "render-timeout")


def test_a_page_that_grows_past_max_nodes_in_the_browser_is_refused():
    html = (
        "<p>start</p><script>for (let i = 0; i < 3000; i++)"
        " document.body.appendChild(document.createElement('p')).textContent = 'p' + i;</script>"
    )
    result = sb.extract(html, extractor="vips", layout="rendered", javascript=True, max_nodes=1000)
    assert result.reason == "too-many-nodes"
    assert "1000" in result.extra["detail"]
