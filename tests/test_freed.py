"""A page is freed by reference counting once the caller drops it: nothing a method keeps
(a document's caches, a render plan, a tree with parent links, the entity candidates)
makes a reference cycle with the page. A cycle would keep the page, its lxml tree
included, until a full collection of Python's cyclic garbage collector, which then has
to walk it: in a crawl that is memory held and time spent on every page."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

import pytest

import scrapy_boilerplate as sb

LONG = "The harbour was quiet that morning, and the boats lay still in the water. " * 6
PAGE = f"""<html><head><title>Harbour</title><base href="https://example.org/news/">
<meta property="og:title" content="Harbour"></head><body>
<nav><a href="/">Home</a> | <a href="/news/">News</a></nav>
<article><h1>A quiet morning</h1><p>{LONG}</p>
<img src="boats.jpg" alt="Boats"><p>{LONG} <a href="more.html">More</a>.</p>
<table><tr><th>Boat</th><th>Length</th></tr><tr><td>Ann</td><td>9 m</td></tr>
<tr><td>Bea</td><td>12 m</td></tr><tr><td>Cy</td><td>7 m</td></tr></table></article>
<ul><li>Tide tables</li><li>Harbour fees</li><li>Contact us</li></ul>
<footer>(c) 2026 Harbour News</footer></body></html>"""


def _collector_off_after(call: Callable[[], object]) -> int:
    """Objects that Python's cyclic collector finds after ``call`` (run once before, so
    that what a first call creates once, a module's lazy tables say, is not counted),
    with the collector off during the call."""
    call()
    gc.collect()
    gc.disable()
    try:
        call()
        return gc.collect()
    finally:
        gc.enable()


@pytest.mark.parametrize("method", sb.available())
def test_a_document_is_freed_after_every_method(method: str) -> None:
    def run() -> None:
        doc = sb.parse(PAGE, url="https://example.org/news/harbour.html")
        result = sb.extract(doc, method, metadata=True, main_html=True)
        assert result.main_text
        page = weakref.ref(doc)
        del doc
        assert page() is None, f"{method} left the document in a reference cycle"

    assert _collector_off_after(run) == 0


def test_entity_lists_leave_nothing_to_the_collector() -> None:
    def run() -> None:
        found = sb.extract_entities(PAGE, "Which boats are in the harbour?")
        assert found.entities == ["Ann", "Bea", "Cy"]

    assert _collector_off_after(run) == 0
