"""Run options: choices a caller makes for every page it extracts, which are neither a
method's parameters (a crawl request's untrusted meta may set those) nor part of a page.

The one known option is ``browser_sandbox``: what VIPS's rendered layout does where
Chromium cannot start with its sandbox (``require`` or ``allow-unsandboxed``; unset: the
renderer's own default). A crawl's ``BOILERPLATE_BROWSER_SANDBOX`` is one.

The caller sets them around each page where the page runs (:func:`run_options`: the
Scrapy runner does it in every execution mode, sending them with the page to a worker
process); extraction code reads one with :func:`option`. They hold in the calling thread
for that block only, so two crawls of one process, or a crawl and other code, each see
their own, and nothing is left behind in the process or its environment.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

_LOCAL = threading.local()


@contextmanager
def run_options(values: Mapping[str, Any] | None) -> Iterator[None]:
    """Within this block, :func:`option` gives ``values`` (over those of an enclosing
    block) in this thread."""
    previous: dict[str, Any] | None = getattr(_LOCAL, "values", None)
    if values:
        _LOCAL.values = {**(previous or {}), **values}
    try:
        yield
    finally:
        _LOCAL.values = previous


def option(name: str, default: Any = None) -> Any:
    """The run option ``name`` set in this thread (:func:`run_options`), else ``default``."""
    values: dict[str, Any] | None = getattr(_LOCAL, "values", None)
    return default if values is None else values.get(name, default)
