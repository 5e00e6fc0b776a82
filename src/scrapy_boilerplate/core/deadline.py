"""A page's time limit, checked by the extraction code as it goes.

A thread cannot be killed: a page abandoned at ``BOILERPLATE_TIMEOUT`` would keep its
worker thread (and the GIL, and the pages queued behind it) busy until it finished, which
on a hostile page can be minutes. So the document model and every method call
:func:`check` in their loops; once the deadline of the page being extracted in this thread
has passed, it raises :class:`ExtractionTimeout` and the worker is free again within
milliseconds. The runner sets the deadline (:func:`deadline`) in every execution mode, so
inline extraction stops at the limit too, and a worker process normally stops by itself
before it would have to be killed. Code outside a :func:`deadline` block never times out.

What cannot be interrupted is a single call into C (one lxml parse, one regular
expression): those are bounded by the size limits instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from scrapy_boilerplate.core.errors import BoilerplateError


class ExtractionTimeout(BoilerplateError, TimeoutError):
    """A page took longer than its time limit (``BOILERPLATE_TIMEOUT``, ``timeout=``)."""


_LOCAL = threading.local()


@contextmanager
def deadline(at: float | None, limit: float | None = None) -> Iterator[None]:
    """Within this block, :func:`check` raises once ``time.monotonic()`` passes ``at``.

    ``at`` is a ``time.monotonic()`` value (None: no limit); ``limit`` is the limit in
    seconds, for the message. Blocks nest: the earlier deadline wins.
    """
    previous = getattr(_LOCAL, "at", None)
    previous_limit = getattr(_LOCAL, "limit", None)
    if at is not None and (previous is None or at < previous):
        _LOCAL.at, _LOCAL.limit = at, limit
    try:
        yield
    finally:
        _LOCAL.at, _LOCAL.limit = previous, previous_limit


def now() -> float:
    """The clock deadlines are read on (``time.monotonic()``, the same in every process of
    the machine): a deadline for a page started elsewhere is ``now() + limit``."""
    return time.monotonic()


def within(limit: float | None) -> AbstractContextManager[None]:
    """:func:`deadline` ``limit`` seconds from now (None or 0: no limit)."""
    return deadline(time.monotonic() + limit if limit else None, limit)


def check() -> None:
    """Raise :class:`ExtractionTimeout` if this thread's page is past its deadline."""
    at = getattr(_LOCAL, "at", None)
    if at is not None and time.monotonic() > at:
        limit = getattr(_LOCAL, "limit", None)
        raise ExtractionTimeout(
            f"over its time limit of {limit:g} s" if limit is not None else "past its deadline"
        )


def remaining() -> float | None:
    """Seconds left before this thread's page deadline (0 once past it), or None where no
    deadline is set: for a wait that cannot call :func:`check` as it goes (a browser
    rendering the page), to bound it by the page's deadline."""
    at = getattr(_LOCAL, "at", None)
    return None if at is None else max(at - time.monotonic(), 0.0)


def active() -> bool:
    """Whether a deadline is set in this thread (for loops that check only then)."""
    return getattr(_LOCAL, "at", None) is not None
