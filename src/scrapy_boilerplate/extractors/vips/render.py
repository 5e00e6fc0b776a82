"""The rendered layout provider: headless Chromium through Playwright, one CDP
``DOMSnapshot.captureSnapshot`` call per page.

Playwright is an optional extra (``pip install -e .[vips]``) and drives the system Chromium
(Debian's ``chromium`` package, :data:`CHROMIUM`); no browser is ever downloaded. Requests
that are not ``file:``, ``data:`` or ``about:`` are aborted unless ``offline=False``, and
every top-level navigation after the first is aborted (a ``<meta http-equiv=refresh>``
would otherwise replace the page), so a render never waits on the network.

In a crawl, scrapy-playwright renders the page; :func:`capture_snapshot` takes the snapshot
from its Playwright page (see docs/vips.md).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from scrapy_boilerplate.extractors.vips.layout import SNAPSHOT_STYLES

#: Chromium's path; ``SCRAPY_BOILERPLATE_CHROMIUM`` overrides it.
CHROMIUM = os.environ.get("SCRAPY_BOILERPLATE_CHROMIUM", "/usr/bin/chromium")

LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class RenderError(RuntimeError):
    """Rendering failed: no browser, a crash, or the page did not load in time."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


SNAPSHOT_PARAMS = {"computedStyles": list(SNAPSHOT_STYLES)}


async def capture_snapshot(page: Any) -> dict[str, Any]:
    """The CDP snapshot of a Playwright (async API) page, e.g. scrapy-playwright's
    ``response.meta["playwright_page"]``."""
    session = await page.context.new_cdp_session(page)
    try:
        return await session.send("DOMSnapshot.captureSnapshot", SNAPSHOT_PARAMS)
    finally:
        await session.detach()


def render_snapshot(
    html: str | None = None,
    *,
    url: str | None = None,
    width: int = 1366,
    height: int = 768,
    timeout: float = 30.0,
    javascript: bool = True,
    offline: bool = True,
    content: bool = False,
) -> dict[str, Any]:
    """Render ``html`` (a string) or ``url`` (``file:`` or, with ``offline=False``, any URL)
    in headless Chromium and return its CDP snapshot (plain JSON) with ``timings``.

    ``timeout`` bounds the whole render in seconds (launch, load, snapshot). Pages that grow
    as they are scrolled are not scrolled: the snapshot is the layout after the load event.
    Raises :class:`RenderError` (``reason`` ``no-browser``, ``timeout`` or ``crash``).
    ``content=True`` adds the rendered DOM serialised as HTML under ``"html"``.

    Playwright's sync API refuses to run where an asyncio loop runs (a Scrapy crawl, an
    async test), so the browser is driven from a thread of its own.
    """
    return _in_render_thread(
        html, url, timeout, _render, html, url, width, height, timeout, javascript, offline,
        content,
    )  # fmt: skip


def _in_render_thread(
    html: str | None, url: str | None, timeout: float, func: Any, *args: Any
) -> Any:
    """Run ``func(*args)`` in a thread of its own (Playwright's sync API refuses a running
    asyncio loop), for one of ``html`` / ``url``; the render bounds itself in ``timeout``
    seconds, and waiting here is a backstop."""
    if (html is None) == (url is None):
        raise ValueError("give exactly one of html and url")
    pool = ThreadPoolExecutor(1, thread_name_prefix="vips-render")
    try:
        future = pool.submit(func, *args)
        try:
            return future.result(timeout + 15)
        except FutureTimeout:
            raise RenderError("timeout", f"rendering took more than {timeout} s") from None
    finally:
        pool.shutdown(wait=False)


def _render(
    html: str | None,
    url: str | None,
    width: int,
    height: int,
    timeout: float,
    javascript: bool,
    offline: bool,
    content: bool,
    then: Any = None,
) -> dict[str, Any]:
    """:func:`render_snapshot`'s work, in the calling (render) thread; ``then(page,
    snapshot)`` runs before the browser closes."""
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise RenderError(
            "no-browser", "Playwright is not installed: pip install -e '.[vips]'"
        ) from None
    if not Path(CHROMIUM).exists():
        raise RenderError("no-browser", f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    deadline = time.monotonic() + timeout

    def left_ms() -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise RenderError("timeout", f"rendering took more than {timeout} s")
        return left * 1000

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, args=LAUNCH_ARGS, timeout=left_ms()
            )
            try:
                context = browser.new_context(
                    viewport={"width": width, "height": height}, java_script_enabled=javascript
                )
                started: list[str] = []

                def on_route(route: Any) -> Any:
                    req = route.request
                    if req.is_navigation_request() and req.frame.parent_frame is None:
                        if started:
                            return route.abort("aborted")
                        started.append(req.url)
                    if not offline or req.url.startswith(("file:", "data:", "about:")):
                        return route.continue_()
                    return route.abort()

                context.route("**/*", on_route)
                page = context.new_page()
                page.set_default_timeout(left_ms())
                timings["launch_s"] = time.perf_counter() - t0
                if html is not None:
                    page.set_content(html, wait_until="load", timeout=left_ms())
                else:
                    assert url is not None  # (_run checked: exactly one of html and url)
                    page.goto(url, wait_until="load", timeout=left_ms())
                timings["load_s"] = time.perf_counter() - t0 - timings["launch_s"]
                session = context.new_cdp_session(page)
                t1 = time.perf_counter()
                left_ms()
                snapshot = session.send("DOMSnapshot.captureSnapshot", SNAPSHOT_PARAMS)
                timings["snapshot_s"] = time.perf_counter() - t1
                if content:
                    snapshot["html"] = page.content()
                if then is not None:
                    then(page, snapshot)
            finally:
                browser.close()
    except PlaywrightTimeout as exc:
        raise RenderError("timeout", str(exc).splitlines()[0]) from None
    except PlaywrightError as exc:
        raise RenderError("crash", str(exc).splitlines()[0]) from None
    snapshot["timings"] = timings
    return snapshot


#: The overlay drawn on a screenshot: one absolutely placed box per visual block.
_OVERLAY_JS = """(boxes) => {
  const layer = document.createElement('div');
  layer.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;'
    + 'pointer-events:none';
  for (const b of boxes) {
    const d = document.createElement('div');
    d.style.cssText = `position:absolute;left:${b.x}px;top:${b.y}px;width:${b.w}px;`
      + `height:${b.h}px;outline:2px solid ${b.color};background:${b.color}22;`
      + 'box-sizing:border-box';
    const tag = document.createElement('span');
    tag.textContent = b.label;
    tag.style.cssText = `position:absolute;left:0;top:0;font:bold 11px/13px monospace;`
      + `color:#fff;background:${b.color};padding:0 3px;white-space:nowrap`;
    d.appendChild(tag);
    layer.appendChild(d);
  }
  document.documentElement.appendChild(layer);
}"""


def render_png(
    html: str | None = None,
    *,
    url: str | None = None,
    draw: Any,
    width: int = 1366,
    height: int = 768,
    timeout: float = 60.0,
) -> tuple[bytes, Any]:
    """Render a page, give its snapshot to ``draw`` (which returns ``(boxes, value)``, boxes
    being dicts with ``x, y, w, h, color, label``), outline the boxes on the page and take
    a full-page screenshot. Returns the PNG bytes and ``draw``'s value. One browser session,
    so the boxes and the picture share one layout."""
    return _in_render_thread(
        html, url, timeout, _render_png, html, url, draw, width, height, timeout
    )


def _render_png(
    html: str | None, url: str | None, draw: Any, width: int, height: int, timeout: float
) -> tuple[bytes, Any]:
    holder: dict[str, Any] = {}

    def after_snapshot(page: Any, snapshot: dict[str, Any]) -> None:
        boxes, holder["value"] = draw(snapshot)
        page.evaluate(_OVERLAY_JS, boxes)
        holder["png"] = page.screenshot(full_page=True, timeout=timeout * 1000)

    _render(html, url, width, height, timeout, True, True, False, after_snapshot)
    return holder["png"], holder["value"]
