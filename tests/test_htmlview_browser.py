"""The HTML view opened in a real browser (Debian's Chromium, driven by Playwright) runs
nothing of the page and calls nowhere: a hostile page's view is opened from a file while a
local HTTP server records every request it gets.

Skipped where Chromium or Playwright is missing, unless BOILERPLATE_REQUIRE_CHROMIUM=1
(CI sets it, so there these tests fail rather than skip)."""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.cli.htmlview import render_view
from scrapy_boilerplate.extractors.vips.render import CHROMIUM, LAUNCH_ARGS

HAVE = Path(CHROMIUM).exists() and importlib.util.find_spec("playwright") is not None
if not HAVE and os.environ.get("BOILERPLATE_REQUIRE_CHROMIUM") != "1":
    pytestmark = pytest.mark.skip(reason=f"no Chromium at {CHROMIUM} or no Playwright")

TEXT = (
    "The river runs through the old town, past the market square and the bridge that "
    "the merchants built in the fourteenth century to carry their goods to the fair."
)
GIF = bytes.fromhex(
    "47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b"
)


class Recorder:
    """A local HTTP server that answers everything and records each path asked."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                recorder.paths.append(self.path)
                body = b"" if self.path.endswith(".css") else GIF
                self.send_response(200)
                self.send_header("Content-Type", "text/css" if not body else "image/gif")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server() -> Iterator[Recorder]:
    recorder = Recorder()
    yield recorder
    recorder.close()


def hostile(s: str) -> str:
    """A page whose every part would run code or call ``s`` if the view let it."""
    return f"""<html><body><p>{TEXT}</p>
<script>window.name = "script"; fetch("{s}/script")</script>
<img src="{s}/img.gif"><img src="x" onerror="window.name = 'onerror'; fetch('{s}/onerror')">
<iframe src="data:text/html,<script>fetch('{s}/data-iframe')</script>"></iframe>
<iframe srcdoc="<script>parent.name = 'srcdoc'; fetch('{s}/srcdoc')</script>"></iframe>
<object data="data:text/html,<script>fetch('{s}/object')</script>"></object>
<embed src="data:text/html,<script>fetch('{s}/embed')</script>">
<svg onload="window.name = 'svg'; fetch('{s}/svg')"><image href="{s}/svg-image.gif"/></svg>
<a id="js" href="jav&#x61;script:fetch('{s}/link')">link</a>
<link rel="stylesheet" href="{s}/sheet.css">
<style>@import url({s}/import.css); p {{ background: url({s}/bg.gif) }}</style>
<video poster="{s}/poster.gif"></video><input type="image" src="{s}/input.gif">
<form action="{s}/form" method="post"><button id="go">go</button></form>
</body><head><meta http-equiv="refresh" content="0;url={s}/refresh">
<link rel="prefetch" href="{s}/prefetch"></head></html>"""


def open_view(
    view: str, path: Path, wait_for: str | None = None, server: Recorder | None = None
) -> dict[str, Any]:
    """Open ``view`` from a file in Chromium; what the browser made of it once loaded.

    In a thread of its own, as VIPS renders: Playwright's sync API refuses a thread where
    an asyncio loop runs (Scrapy's test plugins may leave one)."""
    path.write_text(view, encoding="utf-8")
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(_open, path, wait_for, server).result()


def _open(path: Path, wait_for: str | None, server: Recorder | None) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = browser.new_page()
            page.goto(path.as_uri(), wait_until="load")
            if wait_for and server is not None:  # the control: until that request came
                deadline = time.monotonic() + 30
                while wait_for not in server.paths and time.monotonic() < deadline:
                    page.wait_for_timeout(100)
            page.wait_for_timeout(1000)  # room for what a load event does not wait for
            if page.query_selector("#go"):  # a person submits the page's form
                page.click("#go", timeout=5000, force=True, no_wait_after=True)
            page.wait_for_timeout(500)
            state = page.evaluate(
                """() => ({
                    name: window.name,
                    url: location.href,
                    headFirst: document.documentElement.firstElementChild === document.head,
                    csp: document.head.firstElementChild.httpEquiv,
                    labelled: document.querySelectorAll("[data-boilerplate-label]").length,
                    js: document.getElementById("js") && document.getElementById("js").href,
                })"""
            )
        finally:
            browser.close()
    return state


def test_a_hostile_pages_view_runs_nothing_and_calls_nowhere(
    tmp_path: Path, server: Recorder
) -> None:
    page = hostile(server.url)
    state = open_view(render_view(page, extract(page)), tmp_path / "view.html")
    assert server.paths == []
    assert state["name"] == ""  # no script, handler or frame ran
    assert state["url"] == (tmp_path / "view.html").as_uri()  # no refresh, no form sent
    assert state["headFirst"] and state["csp"] == "Content-Security-Policy"
    assert state["labelled"] > 0  # the blocks are outlined
    assert not state["js"]


def test_view_remote_loads_images_and_sheets_but_runs_nothing(
    tmp_path: Path, server: Recorder
) -> None:
    page = hostile(server.url)
    view = render_view(page, extract(page), remote=True)
    state = open_view(view, tmp_path / "view.html", wait_for="/img.gif", server=server)
    assert "/img.gif" in server.paths and "/sheet.css" in server.paths  # the control
    loads = {"/img.gif", "/sheet.css", "/import.css", "/bg.gif", "/poster.gif", "/input.gif"}
    assert set(server.paths) <= loads  # images and style sheets only: no script, frame...
    assert state["name"] == "" and state["url"] == (tmp_path / "view.html").as_uri()
    assert state["headFirst"] and state["csp"] == "Content-Security-Policy"
