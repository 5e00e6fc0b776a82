"""Properties of every extraction, on random HTML from a small grammar (hypothesis).

The grammar nests block and inline tags, text with whitespace runs and entities, links,
``<br>`` runs, comments, scripts, styles, ``noscript`` and hidden elements. Invisible parts
carry marker words that must never reach a block's text.
"""

from __future__ import annotations

import importlib.util
import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_boilerplate import CONTENT, UnsupportedInput, extract, parse
from scrapy_boilerplate.core.document import CNode

METHODS = [
    ("justext", {}),
    ("justext", {"reference_compat": True}),
    ("justext", {"language": "none", "no_headings": True}),
    ("justext", {"length_low": 5, "length_high": 20, "max_heading_distance": 10}),
]
if importlib.util.find_spec("numpy"):
    METHODS += [("cnr", {}), ("cnr", {"selection": "top_k", "top_k": 2, "max_blocks": 2})]

#: Text that no cleaning keeps; jusText 3.0.2's (reference_compat) keeps the other markers.
ALWAYS_REMOVED = ("SCRIPTMARK", "STYLEMARK", "COMMENTMARK", "TITLEMARK")
MARKERS = (*ALWAYS_REMOVED, "HIDDENMARK", "NOSCRMARK")

BLOCK_TAGS = [
    "div",
    "p",
    "section",
    "ul",
    "li",
    "h1",
    "h2",
    "blockquote",
    "td",
    "pre",
    "table",
    "form",
    "center",
    "dd",
]
INLINE_TAGS = ["span", "b", "em", "i", "strong", "small", "font", "label"]

words = st.sampled_from(
    [
        "the",
        "lighthouse",
        "of",
        "and",
        "harbour",
        "was",
        "café",
        "Ünïcode",
        "東京",
        "x",
        "2024",
        "a",
        "is",
        "in",
        "to",
        "it",
        "new",
        "on",
    ]
)
entities = st.sampled_from(
    ["&amp;", "&lt;", "&gt;", "&nbsp;", "&copy;", "&#233;", "&eacute;", "&quot;", "&#x41;"]
)
spaces = st.sampled_from([" ", "  ", "\n", "\t", " \n  ", "\r\n"])
sentence = st.sampled_from(
    [
        "The harbour of the town was rebuilt in the spring, and the old lighthouse at the end of "
        "the pier was painted white again so that it could be seen from the sea at night. ",
        "Der Gemeinderat hat am Dienstag beschlossen, den alten Leuchtturm am Ende der Mole zu "
        "renovieren, weil er für die Fischer sehr wichtig ist. ",
        "Home | News | Sport | Weather | Contact ",
    ]
)
text = st.lists(
    st.one_of(words, words, words, entities, spaces, sentence), min_size=1, max_size=30
).map("".join)
leaf = st.one_of(
    text,
    text,
    text,
    text,
    text,
    text,
    st.integers(1, 3).map(lambda n: "<br>" * n),
    text.map(lambda t: f"<!-- COMMENTMARK {t.replace('-', ' ')} -->"),
    st.just("<script>var SCRIPTMARK = '<p>not a tag</p>';</script>"),
    st.just("<style>.STYLEMARK { color: red }</style>"),
    st.just("<noscript>NOSCRMARK enable scripts</noscript>"),
    st.sampled_from(
        [
            "<div hidden>HIDDENMARK one</div>",
            '<p style="display:none">HIDDENMARK two</p>',
            '<span style="visibility: hidden">HIDDENMARK three</span>',
        ]
    ),
    st.just('<img src="a.png" alt="picture">'),
)


def _element(args: tuple[str, list[str]]) -> str:
    tag, kids = args
    return f"<{tag}>{''.join(kids)}</{tag}>"


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from(BLOCK_TAGS), st.lists(children, max_size=4)).map(_element),
        st.tuples(st.sampled_from(INLINE_TAGS), st.lists(children, max_size=3)).map(_element),
        st.lists(children, min_size=1, max_size=3).map(
            lambda kids: '<a href="/link">' + "".join(kids) + "</a>"
        ),
    )


body = st.recursive(leaf, _extend, max_leaves=40).map(str)
wrappers = st.sampled_from(
    [
        "{}",
        "<html><body>{}</body></html>",
        "<!DOCTYPE html><html lang='en'><head><title>TITLEMARK</title>"
        "<script>SCRIPTMARK()</script></head><body>{}</body></html>",
    ]
)
pages = st.tuples(wrappers, st.lists(body, min_size=1, max_size=8)).map(
    lambda t: t[0].format("".join(t[1]))
)

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_INVISIBLE_TAGS = {"head", "script", "style", "noscript"}


def _invisible(el) -> bool:
    return (
        el.tag in _INVISIBLE_TAGS
        or "hidden" in el.attrib
        or bool(_HIDDEN_STYLE.search(el.get("style", "")))
    )


def visible_words(root) -> list[str]:
    """The page's words, found independently of Document: every text node (XPath ``text()``)
    not under an invisible element."""
    out = []
    for t in root.xpath("//text()"):
        el = t.getparent()
        if t.is_tail:
            el = el.getparent()
        if el is None or any(_invisible(a) for a in (el, *el.iterancestors())):
            continue
        out.extend(t.split())
    return out


def parse_or_none(html: str):
    """The Document, or None for a page with no element (comments only): reason "empty"."""
    try:
        return parse(html)
    except UnsupportedInput as exc:
        assert exc.reason == "empty"
        assert extract(html).reason == "empty"
        return None


def cdom_leaves(node: CNode) -> list:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if n.block is not None:
            out.append(n.block)
        todo.extend(reversed(n.children))
    return out


@SETTINGS
@given(pages)
def test_every_extraction_is_well_formed(html):
    doc = parse_or_none(html)
    for method, params in METHODS:
        r = extract(html if doc is None else doc, method, **params)
        assert r.extractor == method
        assert r.main_text == "\n\n".join(b.text for b in r.blocks if b.label == CONTENT)
        if r.reason is not None:
            assert r.main_text == ""
            # only a page read whole whose blocks are all boilerplate keeps its blocks
            assert r.reason == "no-content" or r.blocks == []
        else:
            assert r.main_text  # every empty main text says why
        d = r.to_dict()
        assert json.loads(json.dumps(d, allow_nan=False)) == d
        for i, b in enumerate(r.blocks):
            assert b.label in ("content", "boilerplate")
            assert b.text and b.text == b.text.strip()
            assert b.index == i
            assert 0.0 <= b.link_density <= 1.0
            markers = ALWAYS_REMOVED if params.get("reference_compat") else MARKERS
            assert not any(m in b.text for m in markers)
            assert doc is not None
            found = doc.root.xpath(b.xpath)
            assert len(found) == 1 and isinstance(found[0].tag, str)
            if method == "justext":
                assert b.fields["class"] in ("good", "bad")
                assert b.fields["context_free_class"] in ("good", "bad", "short", "near-good")
                assert isinstance(b.fields["heading"], bool)
                assert (b.fields["class"] == "good") == (b.label == CONTENT)
                if b.fields["context_free_class"] in ("good", "bad") and not b.fields["heading"]:
                    assert b.fields["class"] == b.fields["context_free_class"]


@SETTINGS
@given(pages)
def test_segmentations_cover_exactly_the_visible_text(html):
    doc = parse_or_none(html)
    if doc is None:
        return
    words = visible_words(doc.root)
    leaves = doc.leaf_blocks()
    assert " ".join(b.text for b in leaves).split() == words
    assert cdom_leaves(doc.collapsed_dom()) == leaves
    # jusText blocks hold the same characters (they join text nodes without separators)
    jt = doc.justext_blocks()
    assert "".join("".join(b.text.split()) for b in jt) == "".join(words)
    for blocks in (jt, leaves, doc.justext_blocks("reference")):
        for i, b in enumerate(blocks):
            assert b.index == i
            assert doc.root.xpath(b.xpath) == [b.element]
            assert 0.0 <= b.link_density <= 1.0
            assert not any(m in b.text for m in ALWAYS_REMOVED)
    starts = [b.start for b in jt]
    assert starts == sorted(starts)


@SETTINGS
@given(pages)
def test_extraction_is_deterministic_and_input_kind_independent(html):
    for method, params in (("auto", {}), ("justext", {"language": "en"})):
        a = extract(html, method, **params).to_dict()
        b = extract(html.encode("utf-8"), method, **params).to_dict()
        b["encoding"] = a["encoding"]
        a.pop("detail", None), b.pop("detail", None)  # "no text" / "no bytes"
        assert a == b
