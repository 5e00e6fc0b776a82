"""The rendered layout provider: headless Chromium through Playwright, one CDP
``DOMSnapshot.captureSnapshot`` call per page.

Playwright is an optional extra (``pip install -e .[vips]``) and drives the system Chromium
(Debian's ``chromium`` package, :data:`CHROMIUM`); no browser is ever downloaded.

The page is untrusted, so the browser is a sandbox (docs/security/browser.md):

- Chromium runs with its own sandbox. Where it cannot start sandboxed (as root, or in a
  container without user namespaces) the render fails with reason ``no-sandbox`` unless
  :data:`SANDBOX_ENV` (or the ``sandbox`` argument) is ``allow-unsandboxed``; then it runs
  without, and says so in the log once per process.
- The page's JavaScript is off unless ``javascript=True``.
- Requests that are not ``file:``, ``data:`` or ``about:`` are aborted unless
  ``offline=False``, WebSockets included, and the browser is started with no route out
  (a dead proxy, no name resolution, no WebRTC UDP) in case a request escapes the router.
- Every top-level navigation after the first is aborted (a ``<meta http-equiv=refresh>``
  would otherwise replace the page); no frame loads a ``file:`` document, and a ``file:``
  page loads ``file:`` resources (style sheets, images) from its own folder only.

So a render never waits on the network, reaches no server, and shows no other local file.

In a crawl, scrapy-playwright renders the page; :func:`capture_snapshot` takes the snapshot
from its Playwright page (see docs/vips.md).
"""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.extractors.vips.layout import SNAPSHOT_STYLES

logger = logging.getLogger(__name__)

#: Chromium's path; ``SCRAPY_BOILERPLATE_CHROMIUM`` overrides it.
CHROMIUM = os.environ.get("SCRAPY_BOILERPLATE_CHROMIUM", "/usr/bin/chromium")

#: Chromium's flags (its sandbox is Playwright's ``chromium_sandbox``, see :func:`launch`).
LAUNCH_ARGS = [
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

#: Added to :data:`LAUNCH_ARGS` for an offline render: should a request get past the
#: router (which does not see every kind), it goes to a proxy that is not there (loopback
#: included), no host name resolves and WebRTC sends no UDP.
OFFLINE_ARGS = [
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--dns-prefetch-disable",
]

#: The environment variable that says what to do where Chromium cannot start with its
#: sandbox: ``require`` (the default: the render fails, reason ``render-no-sandbox``) or
#: ``allow-unsandboxed`` (run it without, logged once). In a crawl, the
#: ``BOILERPLATE_BROWSER_SANDBOX`` setting comes first: VIPS passes it as ``sandbox``.
SANDBOX_ENV = "SCRAPY_BOILERPLATE_BROWSER_SANDBOX"
SANDBOX_MODES = ("require", "allow-unsandboxed")

_sandbox_lock = threading.Lock()
_sandbox_fails = False  # Chromium failed to start sandboxed once in this process


class RenderError(RuntimeError):
    """Rendering failed: no browser, a crash, or the page did not load in time."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


SNAPSHOT_PARAMS = {"computedStyles": list(SNAPSHOT_STYLES)}

#: Elements of the rendered page, counted before the snapshot is taken (``max_nodes``).
_COUNT_JS = "() => document.getElementsByTagName('*').length"


def sandbox_mode(sandbox: str | None = None) -> str:
    """``sandbox``, else the :data:`SANDBOX_ENV` environment variable, else ``require``;
    ValueError for anything not in :data:`SANDBOX_MODES`."""
    mode = sandbox if sandbox is not None else os.environ.get(SANDBOX_ENV) or "require"
    mode = mode.strip().lower()
    if mode not in SANDBOX_MODES:
        raise ValueError(f"{SANDBOX_ENV}: expected one of {', '.join(SANDBOX_MODES)}, got {mode!r}")
    return mode


def launch(playwright: Any, sandbox: str | None, timeout_ms: float, offline: bool = True) -> Any:
    """Start Chromium with its sandbox; without it only where :func:`sandbox_mode` is
    ``allow-unsandboxed`` and the sandboxed start failed (remembered for the process, said
    once in the log). Raises :class:`RenderError` ``no-sandbox`` where it is required but
    cannot start, and Playwright's errors for any other failure."""
    from playwright.sync_api import Error as PlaywrightError

    global _sandbox_fails
    mode = sandbox_mode(sandbox)
    args = LAUNCH_ARGS + (OFFLINE_ARGS if offline else [])
    if mode == "require" or not _sandbox_fails:
        try:
            return playwright.chromium.launch(
                executable_path=CHROMIUM, args=args, chromium_sandbox=True, timeout=timeout_ms
            )
        except PlaywrightError as exc:
            if "sandbox" not in str(exc).lower():
                raise
            if mode == "require":
                raise RenderError(
                    "no-sandbox",
                    "Chromium cannot start with its sandbox here (running as root, or no user "
                    f"namespaces); set {SANDBOX_ENV}=allow-unsandboxed (the "
                    "BOILERPLATE_BROWSER_SANDBOX setting) to run it without",
                ) from None
    with _sandbox_lock:
        if not _sandbox_fails:
            _sandbox_fails = True
            logger.warning(
                "Chromium cannot start with its sandbox here (running as root, or no user "
                "namespaces); rendering pages without it, as allow-unsandboxed (%s or the "
                "BOILERPLATE_BROWSER_SANDBOX setting) allows",
                SANDBOX_ENV,
            )
    return playwright.chromium.launch(
        executable_path=CHROMIUM, args=args, chromium_sandbox=False, timeout=timeout_ms
    )


#: Seconds past a render's deadline after which its browser is killed (a page whose script
#: loops after the load event holds the snapshot call, which has no time limit of its own).
KILL_GRACE = 1.0


def _watchdog(browser: Any, deadline: float, killed: list[int]) -> threading.Timer:
    """A started timer that kills the browser's processes :data:`KILL_GRACE` seconds past
    ``deadline`` (a ``time.monotonic()`` value), appending their ids to ``killed``: the
    Playwright call waiting on the page then fails, and the render thread is free. The
    browser is its process group's leader (Playwright starts it detached), so its
    renderers go with it."""
    session = browser.new_browser_cdp_session()
    try:
        info = session.send("SystemInfo.getProcessInfo")
    finally:
        session.detach()
    pids = [int(p["id"]) for p in info.get("processInfo", ()) if p.get("type") == "browser"]

    def kill() -> None:
        for pid in pids:
            for kill_one in (os.killpg, os.kill):
                try:
                    kill_one(pid, signal.SIGKILL)
                except OSError:
                    continue
                killed.append(pid)
                break

    timer = threading.Timer(max(deadline - time.monotonic(), 0.0) + KILL_GRACE, kill)
    timer.daemon = True
    timer.start()
    return timer


def _folder(url: str | None) -> str | None:
    """The ``file:`` URL of the folder of a ``file:`` page (with its final slash)."""
    if not url or not url.startswith("file:"):
        return None
    return url.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[0] + "/"


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
    javascript: bool = False,
    offline: bool = True,
    content: bool = False,
    sandbox: str | None = None,
    max_nodes: int = 0,
) -> dict[str, Any]:
    """Render ``html`` (a string) or ``url`` (``file:`` or, with ``offline=False``, any URL)
    in headless Chromium and return its CDP snapshot (plain JSON) with ``timings``.

    ``timeout`` bounds the whole render in seconds (launch, load, snapshot). Pages that grow
    as they are scrolled are not scrolled: the snapshot is the layout after the load event.
    ``javascript`` runs the page's scripts (off: the page as served); ``sandbox`` overrides
    :data:`SANDBOX_ENV` (see :func:`launch`). A rendered page of more than ``max_nodes``
    elements (0: no limit) raises :class:`UnsupportedInput` ``too-many-nodes`` before its
    snapshot is taken. Raises :class:`RenderError` (``reason`` ``no-browser``, ``timeout``,
    ``crash`` or ``no-sandbox``).
    ``content=True`` adds the rendered DOM serialised as HTML under ``"html"``.

    Playwright's sync API refuses to run where an asyncio loop runs (a Scrapy crawl, an
    async test), so the browser is driven from a thread of its own.
    """
    return _in_render_thread(
        html, url, timeout, _render, html, url, width, height, timeout, javascript, offline,
        content, sandbox, max_nodes,
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
    sandbox: str | None = None,
    max_nodes: int = 0,
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
    killed: list[int] = []
    t0 = time.perf_counter()
    try:
        with sync_playwright() as p:
            browser = launch(p, sandbox, left_ms(), offline)
            watchdog = _watchdog(browser, deadline, killed)
            try:
                context = browser.new_context(
                    viewport={"width": width, "height": height},
                    java_script_enabled=javascript,
                    service_workers="block",  # (their requests would bypass the router)
                )
                # A string page is already the document: any navigation replaces it.
                started: list[str] = [] if html is None else ["about:blank"]
                folder = _folder(url)

                def on_route(route: Any) -> Any:
                    req = route.request
                    target = req.url
                    frame = req.is_navigation_request() or req.resource_type in (
                        "document", "object"
                    )  # fmt: skip
                    if frame:
                        try:
                            top = req.frame.parent_frame is None
                        except PlaywrightError:
                            top = False
                        if top and not started:
                            started.append(target)
                            return route.continue_()
                        if top or target.startswith("file:"):
                            return route.abort("blockedbyclient")
                    elif target.startswith("file:") and not (
                        folder is not None and target.startswith(folder)
                    ):  # another folder's file: not this page's
                        return route.abort("blockedbyclient")
                    if not offline or target.startswith(("file:", "data:", "about:")):
                        return route.continue_()
                    return route.abort("blockedbyclient")

                context.route("**/*", on_route)
                if offline:  # (the router does not see WebSockets)
                    context.route_web_socket(re.compile(".*"), lambda ws: ws.close())
                page = context.new_page()
                page.set_default_timeout(left_ms())
                timings["launch_s"] = time.perf_counter() - t0
                if html is not None:
                    page.set_content(html, wait_until="load", timeout=left_ms())
                else:
                    assert url is not None  # (_run checked: exactly one of html and url)
                    page.goto(url, wait_until="load", timeout=left_ms())
                timings["load_s"] = time.perf_counter() - t0 - timings["launch_s"]
                if max_nodes:
                    count = int(page.evaluate(_COUNT_JS))
                    if count > max_nodes:
                        raise UnsupportedInput(
                            Reason.TOO_MANY_NODES,
                            f"{count} elements rendered > max_nodes {max_nodes}",
                        )
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
                watchdog.cancel()
                browser.close()
    except PlaywrightTimeout as exc:
        raise RenderError("timeout", str(exc).splitlines()[0]) from None
    except PlaywrightError as exc:
        if killed:
            raise RenderError("timeout", f"rendering took more than {timeout} s") from None
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
    javascript: bool = False,
    sandbox: str | None = None,
    max_nodes: int = 0,
) -> tuple[bytes, Any]:
    """Render a page, give its snapshot to ``draw`` (which returns ``(boxes, value)``, boxes
    being dicts with ``x, y, w, h, color, label``), outline the boxes on the page and take
    a full-page screenshot. Returns the PNG bytes and ``draw``'s value. One browser session,
    so the boxes and the picture share one layout. ``javascript``, ``sandbox`` and
    ``max_nodes`` are :func:`render_snapshot`'s."""
    return _in_render_thread(
        html, url, timeout, _render_png, html, url, draw, width, height, timeout, javascript,
        sandbox, max_nodes,
    )  # fmt: skip


def _render_png(
    html: str | None, url: str | None, draw: Any, width: int, height: int, timeout: float,
    javascript: bool, sandbox: str | None, max_nodes: int,
) -> tuple[bytes, Any]:  # fmt: skip
    holder: dict[str, Any] = {}

    def after_snapshot(page: Any, snapshot: dict[str, Any]) -> None:
        boxes, holder["value"] = draw(snapshot)
        page.evaluate(_OVERLAY_JS, boxes)
        holder["png"] = page.screenshot(full_page=True, timeout=timeout * 1000)

    _render(html, url, width, height, timeout, javascript, True, False, sandbox, max_nodes,
            then=after_snapshot)  # fmt: skip
    return holder["png"], holder["value"]
