"""``auto``'s fast paths against their references (no timing here: the same output).

``auto``'s compiled steps (``scrapy_boilerplate.auto._speedups``) are twins of Python
functions of :mod:`scrapy_boilerplate.auto.features` and :mod:`~.pagetype`; the shipped
model was trained on the features as the Python functions compute them, so the compiled
ones must give exactly the same values: each pair is compared on the test pages, on
generated pages and on edge cases, and so are whole feature matrices with the compiled
steps on and off. Where the module is not built, the compiled comparisons skip, unless
``BOILERPLATE_REQUIRE_SPEEDUPS=1`` (set by .ci/run), where they fail.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from scrapy_boilerplate import parse
from scrapy_boilerplate.auto import features, pagetype
from scrapy_boilerplate.core import compiled as _compiled
from test_properties import pages as generated_pages

try:
    from scrapy_boilerplate.auto import _speedups
except ImportError:  # pragma: no cover - depends on the build
    _speedups = None
    if os.environ.get("BOILERPLATE_REQUIRE_SPEEDUPS") == "1":
        raise

needs_build = pytest.mark.skipif(_speedups is None, reason="auto's compiled module is not built")

PAGES = Path(__file__).parent / "pages"
EDGE_CASES = {
    "empty_body": "<html><body></body></html>",
    "text_only": "plain text, no markup at all, long enough to make a block of its own",
    "class_and_id": (
        "<html><body><div class='Main-Content' id='post-17'><div class=''>"
        "<p id='comments'>Some text of a paragraph here.</p></div>"
        "<aside class='sidebar widget'><ul><li class='menu-item'>Home</li>"
        "<li class='menu-item'>About</li><li class='menu-item'>Blog</li></ul></aside>"
        "</div><footer id='copyright'>\u00a9 2024 All rights reserved</footer></body></html>"
    ),
    "unicode_class": (
        "<html><body><div class='\u212aomment \u0130tem ARTICLE'><p class='x'>"
        "A paragraph under a class with odd letters.</p></div></body></html>"
    ),
    "deep": "<html><body>"
    + "".join(f"<div class='d{i} content'>" for i in range(300))
    + "<p>Deep text in the tree.</p>"
    + "</div>" * 300
    + "</body></html>",
    "siblings_and_types": (
        "<html><body itemscope itemtype='https://schema.org/Product/'>"
        + "".join(f"<div class='card'><p>Item {i} text</p></div>" for i in range(7))
        + "".join(f"<div><p>Other {i}</p></div>" for i in range(3))
        + "<table><tr><td>a</td></tr><tr><td>b</td></tr></table>"
        "<ul><li>x</li><li class=''>y</li></ul><!-- a comment --><?pi here?>"
        "<section itemtype='http://schema.org/ItemList'><article>x</article></section>"
        "<time>now</time><pre>code</pre><code>c</code><form><input><button>b</button>"
        "<select></select></form><img><h2>h</h2><h3>h</h3><blockquote>q</blockquote>"
        "<nav><a href='/'>home</a></nav><aside>side</aside></body></html>"
    ),
}


def _documents() -> list[tuple[str, Any]]:
    docs = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(PAGES.glob("*.html"))]
    return [(name, parse(html, url="https://example.com/blog/post")) for name, html in docs] + [
        (name, parse(html)) for name, html in EDGE_CASES.items()
    ]


DOCUMENTS = _documents()
IDS = [name for name, _ in DOCUMENTS]


def _elements(doc: Any) -> list[Any]:
    return [b.element for b in doc.section_blocks()]


def _masks_both(elements: list[Any]) -> tuple[Any, Any]:
    fn = features._element_masks_of
    return (
        fn.compiled(elements, features._value_mask),  # type: ignore[misc]
        fn.python(elements, features._value_mask),
    )


def _counts_both(root: Any) -> tuple[Any, Any]:
    fn = pagetype._markup_counts
    args = (root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS)
    return fn.compiled(*args), fn.python(*args)  # type: ignore[misc]


@needs_build
def test_twins_are_declared() -> None:
    assert features._element_masks_of.compiled is _speedups.element_masks
    assert pagetype._markup_counts.compiled is _speedups.markup_counts


@needs_build
@pytest.mark.parametrize(("name", "doc"), DOCUMENTS, ids=IDS)
def test_element_masks_match_python(name: str, doc: Any) -> None:
    elements = _elements(doc)
    compiled, python = _masks_both(elements)
    assert compiled == python
    # every element of the page, in any order, not only the blocks' (ancestors first)
    every = [el for el in doc.root.iter() if isinstance(el.tag, str)]
    compiled, python = _masks_both(every[::-1] + every)
    assert compiled == python


@needs_build
@pytest.mark.parametrize(("name", "doc"), DOCUMENTS, ids=IDS)
def test_markup_counts_match_python(name: str, doc: Any) -> None:
    compiled, python = _counts_both(doc.root)
    assert compiled == python
    for el in doc.root.iter():  # from any element down, not only the root
        if isinstance(el.tag, str):
            assert _counts_both(el)[0] == _counts_both(el)[1]


def test_markup_counts_of_the_edge_page() -> None:
    """The reference itself, on a page whose counts are known."""
    doc = parse(EDGE_CASES["siblings_and_types"])
    counts, total, biggest, itemtypes = pagetype._markup_counts.python(
        doc.root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS
    )
    assert dict(zip(pagetype.ELEMENTS, counts, strict=True))["li"] == 2
    assert biggest == 7  # the seven cards (the three plain divs are another group)
    assert itemtypes == ["https://schema.org/Product/", "http://schema.org/ItemList"]
    assert total == sum(1 for el in doc.root.iter() if isinstance(el.tag, str))


@needs_build
def test_compiled_steps_refuse_what_they_were_not_written_for() -> None:
    """A namespaced element, or something that is not an element, goes to Python."""
    root = etree.fromstring(
        "<html xmlns:x='urn:x'><body><x:div class='content'><p>t</p></x:div></body></html>"
    )
    with pytest.raises(_compiled.Unsupported):
        _speedups.markup_counts(root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS)
    assert pagetype._markup_counts(root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS) == (
        pagetype._markup_counts.python(root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS)
    )
    with pytest.raises(_compiled.Unsupported):
        _speedups.element_masks(["not an element"], features._value_mask)
    comment = etree.Comment("c")
    etree.fromstring("<div/>").append(comment)
    with pytest.raises(_compiled.Unsupported):
        _speedups.element_masks([comment], features._value_mask)


def _all_features(doc: Any) -> tuple[np.ndarray, np.ndarray]:
    blocks = doc.section_blocks()
    bx = features.block_features(doc, blocks)
    return bx, pagetype.page_features(doc, blocks, bx)


@needs_build
@pytest.mark.parametrize(("name", "html"), [(p.name, p) for p in sorted(PAGES.glob("*.html"))])
def test_feature_matrices_identical_with_and_without_compiled_steps(name: str, html: Path) -> None:
    text = html.read_text(encoding="utf-8")
    fast = _all_features(parse(text, url="https://example.com/blog/2024/01/post-12345"))
    with _compiled.disabled():
        slow = _all_features(parse(text, url="https://example.com/blog/2024/01/post-12345"))
    for a, b in zip(fast, slow, strict=True):
        assert a.dtype == b.dtype == np.float32
        assert np.array_equal(a, b)


@needs_build
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_twins_match_python_on_generated_pages(html: str) -> None:
    doc = parse(html)
    compiled, python = _masks_both(_elements(doc))
    assert compiled == python
    compiled, python = _counts_both(doc.root)
    assert compiled == python


def _combined_mask(value: str | None, ident: str | None) -> int:
    """The groups of ``class`` and ``id`` as the model was trained on them: the two values
    joined by a space, lower-cased, split into ``[a-z]+`` words."""
    if ident:
        value = f"{value} {ident}" if value else ident
    mask = 0
    if value:
        for token in re.findall(r"[a-z]+", value.lower()):
            mask |= features._token_mask(token)
    return mask


_CLASS_TEXT = st.lists(
    st.sampled_from([*"abcnotemrwsiK -_ΣσςİI\u212a\u0130ßẞ0", "COMMENT", "Nav"]),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.none(), _CLASS_TEXT), st.one_of(st.none(), _CLASS_TEXT))
def test_class_and_id_masked_apart_as_joined(value: str | None, ident: str | None) -> None:
    """Masking ``class`` and ``id`` apart (and memoising each value) gives the groups of
    the two joined: lower-casing never makes an ``a-z`` letter across the space."""
    apart = (features._value_mask(value) if value else 0) | (
        features._value_mask(ident) if ident else 0
    )
    assert apart == _combined_mask(value, ident)


@pytest.mark.parametrize(
    ("value", "ident"),
    [
        ("Comment-List", "post-1"),
        ("", "sidebar"),
        ("nav", ""),
        (None, "\u212aomment"),
        ("\u03a3OCIAL SHARE", None),
    ],
)
def test_class_and_id_masked_apart_examples(value: str | None, ident: str | None) -> None:
    el = etree.Element("div")
    if value is not None:
        el.set("class", value)
    if ident is not None:
        el.set("id", ident)
    owns, _ = features._element_masks_of.python([el], features._value_mask)
    assert owns == [_combined_mask(value, ident)]
    if _speedups is not None:
        assert _speedups.element_masks([el], features._value_mask) == ([owns[0]], [0])
