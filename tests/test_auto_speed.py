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

import dataclasses
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from lxml import etree

from scrapy_boilerplate import parse
from scrapy_boilerplate.auto import asides, containers, features, pagetype
from scrapy_boilerplate.auto import extractor as auto_extractor
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import TextBlock
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.extractors.justext import languages
from scrapy_boilerplate.extractors.justext.algorithm import classify_context_free
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


def _parsed(html: str) -> Any:
    """A generated page parsed; one that ``parse`` refuses (white space only, comments
    only: the generator can make both) is not a case of these tests."""
    assume(html and not html.isspace())
    try:
        return parse(html)
    except UnsupportedInput:  # (a page of comments only: no element to read)
        assume(False)


def _elements(doc: Any) -> list[Any]:
    return [b.element for b in doc.section_blocks()]


def _masks_both(elements: list[Any]) -> tuple[Any, Any]:
    fn = features._element_masks_of
    return (
        fn.compiled(elements, features._KEYWORD_BITS),  # type: ignore[misc]
        fn.python(elements, features._value_mask),
    )


def _counts_both(root: Any) -> tuple[Any, Any]:
    fn = pagetype._markup_counts
    args = (root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS, ("script", "meta", "p"))
    return fn.compiled(*args), fn.python(*args)  # type: ignore[misc]


@needs_build
def test_twins_are_declared() -> None:
    for twin, step in (
        (features._element_masks_of, _speedups.element_masks),
        (pagetype._markup_counts, _speedups.markup_counts),
        (features._text_counts, _speedups.text_counts),
        (features._word_counts, _speedups.word_counts),
        (containers.container_features, _speedups.container_features),
        (features._columns, _speedups.block_columns),
        (features._sample_hits, _speedups.sample_hits),
        (features._context_free_codes, _speedups.context_free_codes),
        (features._path_table, _speedups.path_table),
        (features._container_ids, _speedups.container_ids),
        (features.blocks_containing, _speedups.blocks_containing),
        (pagetype._block_summary, _speedups.block_summary),
        (auto_extractor.run_labels, _speedups.run_labels),
        (asides.aside_blocks, _speedups.aside_blocks),
    ):
        assert twin.compiled is step, twin.compiled_name


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


@needs_build
def test_markup_counts_past_the_table_of_names() -> None:
    """A page of more distinct tag names than the compiled step files by address (300
    made-up tags among the real ones, each used several times, some of them in the lists
    counted): it counts as Python does, the names past its table compared each time;
    and a tree built by lxml's API (its names not from the parser's dictionary) too."""
    made_up = "".join(f"<x{i} class='c'><p>t</p><li>a</li></x{i}>" for i in range(300))
    page = f"<html><body>{made_up * 2}<div class='c'><article>a</article></div></body></html>"
    root = parse(page).root
    compiled, python = _counts_both(root)
    assert compiled == python and compiled[0][pagetype.ELEMENTS.index("li")] == 600
    built = etree.Element("html")
    body = etree.SubElement(built, "body")
    for i in range(40):
        etree.SubElement(etree.SubElement(body, "div", {"class": "c"}), f"y{i % 7}").text = "t"
        etree.SubElement(body, "p").text = "x"
    compiled, python = _counts_both(built)
    assert compiled == python and compiled[2] == 40  # the 40 divs of one class under body


def test_markup_counts_of_the_edge_page() -> None:
    """The reference itself, on a page whose counts are known."""
    doc = parse(EDGE_CASES["siblings_and_types"])
    counts, total, biggest, itemtypes, (ps, missing) = pagetype._markup_counts.python(
        doc.root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS, ("p", "nosuchtag")
    )
    assert ps == list(doc.root.iter("p")) and len(ps) == 10 and missing == []
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
        _speedups.markup_counts(root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS, ())
    assert pagetype._markup_counts(root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS, ()) == (
        pagetype._markup_counts.python(root, pagetype.ELEMENTS, pagetype.SIBLING_TAGS, ())
    )
    many = (*(f"t{i}" for i in range(65)), "p")  # more tags than the C arrays hold
    html = etree.fromstring("<html><body><p>a</p><t64>b</t64></body></html>")
    with pytest.raises(_compiled.Unsupported):
        _speedups.markup_counts(html, many, pagetype.SIBLING_TAGS, ())
    counts = pagetype._markup_counts(html, many, pagetype.SIBLING_TAGS, ())
    assert counts == pagetype._markup_counts.python(html, many, pagetype.SIBLING_TAGS, ())
    assert counts[0][64:] == [1, 1]
    with pytest.raises(_compiled.Unsupported):
        _speedups.element_masks(["not an element"], features._KEYWORD_BITS)
    comment = etree.Comment("c")
    etree.fromstring("<div/>").append(comment)
    with pytest.raises(_compiled.Unsupported):
        _speedups.element_masks([comment], features._KEYWORD_BITS)


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
    doc = _parsed(html)
    compiled, python = _masks_both(_elements(doc))
    assert compiled == python
    compiled, python = _counts_both(doc.root)
    assert compiled == python


def _containers_both(blocks: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    texts = [b.text for b in blocks]
    chars = np.array([len(t) for t in texts], dtype=np.float64)
    links = np.array([b.link_chars for b in blocks], dtype=np.float64)
    fn = containers.container_features
    compiled = fn.compiled(*containers._compiled_arguments(blocks, texts, chars, links))  # type: ignore[misc]
    return compiled, fn.python(blocks, texts, chars, links)


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


CONTAINER_CASES = {
    "negative_class_container": (
        "<html><body><div class='comment-list'><p>"
        + "A long, long comment, with commas, that scores well. " * 3
        + "</p></div><div id='main' class='hidden'><p>"
        + "Text, in a container both positive and negative. " * 2
        + "</p></div><ul><li>"
        + "A list item long enough to score, with a comma. " * 2
        + "</li></ul></body></html>"
    ),
    "all_links": (
        "<html><body><div><p><a href='/'>"
        + "Only linked text here, long enough to be scored. " * 2
        + "</a></p></div></body></html>"
    ),
    "siblings": (
        "<html><body><div id='wrap'>"
        + "".join(
            f"<div class='post'><p>{'Sibling paragraph, with commas, ' * (i + 1)}{i}.</p></div>"
            for i in range(6)
        )
        + "</div><footer><p>Footer text that is long enough to score.</p></footer></body></html>"
    ),
    "namespaced": (
        "<html xmlns:x='urn:x'><body><x:div class='content'><p>"
        + "Text under a prefixed element, long enough. " * 2
        + "</p></x:div></body></html>"
    ),
}


@needs_build
@pytest.mark.parametrize(
    ("name", "doc"),
    [*DOCUMENTS, *((k, parse(v)) for k, v in CONTAINER_CASES.items())],
    ids=[*IDS, *CONTAINER_CASES],
)
def test_container_features_match_python(name: str, doc: Any) -> None:
    compiled, python = _containers_both(doc.section_blocks())
    assert _same_bytes(compiled, python)


@needs_build
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_container_features_match_python_on_generated_pages(html: str) -> None:
    compiled, python = _containers_both(_parsed(html).section_blocks())
    assert _same_bytes(compiled, python)


@needs_build
def test_container_features_refuse_blocks_without_elements() -> None:
    blocks = parse(CONTAINER_CASES["siblings"]).section_blocks()
    texts = [b.text for b in blocks]
    chars = np.array([len(t) for t in texts], dtype=np.float64)
    links = np.zeros(len(blocks))
    args = list(containers._compiled_arguments(blocks, texts, chars, links))
    args[1] = texts[:-1]
    with pytest.raises(_compiled.Unsupported):
        _speedups.container_features(*args)
    stripped = [dataclasses.replace(b, element="not an element") for b in blocks]
    with pytest.raises(_compiled.Unsupported):
        _speedups.container_features(*containers._compiled_arguments(stripped, texts, chars, links))


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


@needs_build
@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        _CLASS_TEXT,
        st.text(max_size=40),
        st.lists(
            st.sampled_from([*features._KEYWORD_BITS, "-", " ", "x", "\u0130", "\u212a", "\u03a3"]),
            max_size=8,
        ).map("".join),
    )
)
def test_compiled_value_mask_matches_python(value: str) -> None:
    """The compiled trie gives every word the groups of the keywords it starts with."""
    features._VALUE_CACHE.clear()
    assert _speedups.value_mask(value, features._KEYWORD_BITS) == features._value_mask(value)


@needs_build
def test_compiled_keywords_follow_their_table() -> None:
    """The trie is built from the table it is given (and rebuilt for another one)."""
    table = {"ab": 1, "abc": 2, "b": 4, "a-b": 8, "": 16}
    assert _speedups.value_mask("abcd AB-b x", table) == 1 | 2 | 4
    assert _speedups.value_mask("a", table) == 0
    assert _speedups.value_mask("comments", features._KEYWORD_BITS) == features._value_mask(
        "comments"
    )


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
        assert _speedups.element_masks([el], features._KEYWORD_BITS) == ([owns[0]], [0])


# --- the features computed on whole arrays, against the per-block loops they replace ---


def _cf_both(blocks: list[Any], stoplist: frozenset[str]) -> tuple[list[str], list[str]]:
    texts = [b.text for b in blocks]
    words = [t.lower().split() for t in texts]
    rows = features._path_table([b.tag_path for b in blocks])
    codes = features._context_free_codes(
        texts,
        np.array([len(t) for t in texts], dtype=np.float64),
        np.array([len(w) for w in words], dtype=np.float64),
        np.array([sum(map(stoplist.__contains__, w)) for w in words], dtype=np.float64),
        np.array([b.link_chars for b in blocks], dtype=np.float64),
        rows[:, 2] > 0,
        bool(stoplist),
    )
    if stoplist:
        reference, _ = classify_context_free(blocks, stoplist)
    else:
        reference, _ = classify_context_free(
            blocks, stoplist, stopwords_low=0.0, stopwords_high=0.0
        )
    return [features._CF_CODES[c] for c in codes.tolist()], reference


CF_EDGE = (
    "<html><body><p>" + "the of and to in a is that " * 12 + "</p>"
    "<p>short one</p><p><a href='/'>a linked short one</a></p><p>see <a href='/'>x</a> here</p>"
    "<p>" + "word " * 20 + "\u00a9 2024 " + "the and " * 20 + "</p>"
    "<p>" + "Keine Stoppwörter hier, nur lange Wörter ohne Bedeutung " * 3 + "</p>"
    "<select><option>" + "the of and to " * 10 + "</option></select>"
    "<p>" + "the of and " * 3 + "x" * 40 + "</p><h2>A heading</h2>"
    "<p>&amp;copy " + "the of " * 30 + "</p><p>" + "<a href='/'>the of</a> " * 30 + "</p>"
    "<p></p><p>   </p></body></html>"
)


@pytest.mark.parametrize(
    ("name", "doc"), [*DOCUMENTS, ("cf_edge", parse(CF_EDGE))], ids=[*IDS, "cf_edge"]
)
@pytest.mark.parametrize("stoplist", ["page", "English", "German", "none"])
def test_context_free_classes_match_justext(name: str, doc: Any, stoplist: str) -> None:
    blocks = doc.section_blocks()
    if stoplist == "page":
        words = features._stoplist(doc, blocks)
    else:
        words = frozenset() if stoplist == "none" else languages.stoplist(stoplist)
    fast, reference = _cf_both(blocks, words)
    assert fast == reference


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_context_free_classes_match_justext_on_generated_pages(html: str) -> None:
    blocks = _parsed(html).section_blocks()
    for words in (languages.stoplist("English"), frozenset()):
        fast, reference = _cf_both(blocks, words)
        assert fast == reference


def _reference_where_columns(doc: Any, blocks: list[Any], x: np.ndarray) -> dict[str, np.ndarray]:
    """The tag, path, container and neighbour columns as the model's training computed
    them: a loop per block, the containers summed in Counters by xpath prefix, a shifted
    copy per neighbour (and the title's words from ``find(".//title")``)."""
    n = len(blocks)
    col = features._INDEX
    out = {name: np.zeros(n) for name in features.NAMES}
    for i, b in enumerate(blocks):
        kind = features._TAG_KIND.get(b.tag)
        name = "tag_other" if kind is None else f"tag_{list(features.TAG_KINDS)[kind]}"
        out[name][i] = 1.0
        path = b.tag_path.split(".")
        out["depth"][i] = len(path)
        out["heading"][i] = b.is_heading
        for t in set(path[:-1]):
            if t in features.ANCESTOR_TAGS:
                out[f"in_{t}"][i] = 1.0
    chars = np.array([len(b.text) for b in blocks], dtype=np.float64)
    links = np.array([b.link_chars for b in blocks], dtype=np.float64)
    good = x[:, col["justext_good"]].astype(np.float64)
    total = float(chars.sum()) or 1.0
    for prefix, cut in (("parent", 1), ("grand", 2)):
        keys = [b.xpath.rsplit("/", cut + 1)[0] if b.xpath.count("/") > cut else "" for b in blocks]
        group_chars: Counter[str] = Counter()
        group_blocks: Counter[str] = Counter()
        group_links: Counter[str] = Counter()
        group_good: Counter[str] = Counter()
        for key, c, lk, g in zip(keys, chars, links, good, strict=True):
            group_chars[key] += c
            group_blocks[key] += 1
            group_links[key] += lk
            group_good[key] += c * g
        gc = np.array([group_chars[k] for k in keys])
        out[f"{prefix}_share"] = gc / total
        out[f"{prefix}_blocks"] = np.log1p([group_blocks[k] for k in keys])
        out[f"{prefix}_link_density"] = np.minimum(
            1.0, np.array([group_links[k] for k in keys]) / np.maximum(gc, 1.0)
        )
        out[f"{prefix}_good_share"] = np.array([group_good[k] for k in keys]) / np.maximum(gc, 1.0)
    log_chars = x[:, col["log_chars"]]
    link_density = np.minimum(1.0, links / np.maximum(chars, 1.0))
    stop_density = x[:, col["stopword_density"]].astype(np.float64)
    neighbours = []
    for o in features._NEIGHBOURS:
        for f, values, pad in (
            ("log_chars", log_chars, 0.0),
            ("link_density", link_density, 1.0),
            ("stopword_density", stop_density, 0.0),
            ("good", good, 0.0),
        ):
            shifted = np.full(n, pad, dtype=np.float64)
            if o < 0:
                shifted[-o:] = values[: n + o]
            else:
                shifted[: n - o] = values[o:]
            out[f"n{o:+d}_{f}"] = shifted
            neighbours.append(f"n{o:+d}_{f}")
    title = doc.root.find(".//title")
    text = "".join(title.itertext()) if title is not None else ""
    title_words = frozenset(w for w in re.findall(r"\w+", text.lower()) if len(w) > 2)
    assert features._title_words(doc) == title_words
    names = [
        *neighbours,
        *(f"tag_{k}" for k in features.TAG_KINDS),
        "tag_other",
        "depth",
        "heading",
        *(f"in_{t}" for t in features.ANCESTOR_TAGS),
        *(f"{p}_{f}" for p in ("parent", "grand") for f in ("share", "blocks", "link_density")),
        "parent_good_share",
        "grand_good_share",
    ]
    return {name: out[name].astype(np.float32) for name in names}


def _check_where_columns(doc: Any) -> None:
    blocks = doc.section_blocks()
    x = features.block_features(doc, blocks)
    for name, expected in _reference_where_columns(doc, blocks, x).items():
        assert np.array_equal(x[:, features._INDEX[name]], expected), name


@pytest.mark.parametrize(
    ("name", "doc"), [*DOCUMENTS, ("cf_edge", parse(CF_EDGE))], ids=[*IDS, "cf_edge"]
)
def test_where_columns_match_the_loops(name: str, doc: Any) -> None:
    _check_where_columns(doc)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_where_columns_match_the_loops_on_generated_pages(html: str) -> None:
    _check_where_columns(_parsed(html))


_WORDS = st.sampled_from(["the", "of", "and", "der", "und", "word", "Text", "x" * 9, "\u00a9"])
_PATHS = st.sampled_from(
    [
        "html.body.p",
        "html.body.div.h2",
        "html.body.form.select.option",
        "html.body.datalist.option",
        "html.body.selection.p",
        "html.body.ul.li.a",
        "html.body.h1x.p",
    ]
)


@st.composite
def _synthetic_blocks(draw: st.DrawFn) -> list[TextBlock]:
    blocks = []
    for i in range(draw(st.integers(0, 12))):
        words = draw(st.lists(_WORDS, max_size=60))
        text = " ".join(words) + draw(st.sampled_from(["", " &copy", "&COPY", " "]))
        size = draw(st.sampled_from([None, 69, 70, 71, 199, 200, 201]))
        if size is not None:  # exactly at jusText's length limits
            text = (text + " the" * 60)[:size]
        path = draw(_PATHS)
        blocks.append(
            TextBlock(
                text=text,
                element=None,
                tag=path.rsplit(".", 1)[-1],
                xpath=f"/html/body/p[{i + 1}]",
                tag_path=path,
                link_chars=draw(st.integers(0, len(text) + 2)),
            )
        )
    return blocks


@settings(max_examples=300, deadline=None)
@given(_synthetic_blocks())
def test_context_free_classes_match_justext_on_any_blocks(blocks: list[TextBlock]) -> None:
    """Every rule at its edges: lengths around 70 and 200, densities around the thresholds,
    one link character, copyright signs, a ``select`` on the path (or a tag that only
    starts so), headings."""
    for words in (languages.stoplist("English"), languages.stoplist("German"), frozenset()):
        fast, reference = _cf_both(blocks, words)
        assert fast == reference


_PIECES = st.sampled_from(
    [
        "a",
        "Word",
        " ",
        "\n",
        "\u00a0",
        "\x1c",
        ".",
        "!",
        "?",
        "$",
        "\u20ac",
        "\u00a3",
        "\u00a5",
        "5",
        "USD",
        "EUR",
        "GBPx",
        "\u00a9",
        "&copy",
        "copyright",
        "all rights reserved",
        "\x00",
        "\u00e9",
    ]
)
_TEXTS = st.lists(st.lists(_PIECES, max_size=12).map("".join), max_size=8)


def test_blocks_containing_at_the_edges_of_a_text() -> None:
    """A string at a text's very start or end, one cut off by the end, one longer than
    the text, a text that is the string, and a wide string looked for in a text of one
    byte a character (where it cannot be): the compiled search (memchr over a text of
    one byte a character) answers as a test per text does."""
    needles = ("copyright", "\u20ac", "all rights reserved", "&copy")
    texts = ["copyright", "x copyright", "copyright x", "copyrigh", "cop", "", "c",
             "\u00e9 copyright", "\u00e9 \u20ac", "\u00e9 euro", "&cop", "&copy",
             "all rights reserve", "ccopyright", "copyrightcopyright", "\u20ac"]  # fmt: skip
    twin = features.blocks_containing
    for contains in (twin.python, *([twin.compiled] if twin.compiled is not None else [])):
        assert contains(needles, texts).tolist() == [any(n in t for n in needles) for t in texts]


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_blocks_containing_as_a_test_per_text(texts: list[str]) -> None:
    """One scan of the joined texts per substring (the reference), and the compiled
    search per text where it is built, find the texts a test per text finds (copyright
    marks; the hints of prices, and so the blocks with a price)."""
    lowers = [t.lower() for t in texts]
    twin = features.blocks_containing
    for contains in (twin.python, *([twin.compiled] if twin.compiled is not None else [])):
        found = contains(features._COPYRIGHT, lowers)
        assert found.dtype == bool and found.tolist() == [
            any(c in t for c in features._COPYRIGHT) for t in lowers
        ]
        hinted = contains(pagetype._PRICE_HINTS, texts)
        assert hinted.tolist() == [any(h in t for h in pagetype._PRICE_HINTS) for t in texts]
        for t, h in zip(texts, hinted, strict=True):
            if pagetype._PRICE.search(t):
                assert h  # a price always holds a hint
        assert not contains((), texts).any()


def _char_counts_per_flag(texts: list[str], chars: np.ndarray) -> tuple[np.ndarray, ...]:
    """The reference of ``features._char_counts``: a running sum per flag."""
    n = len(texts)
    cps = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    table = features._CHAR_BITS
    bits = table[np.minimum(cps, len(table) - 1)]
    bits[cps >= len(table)] = 0
    starts = np.concatenate(([0], np.cumsum(chars[:-1]))).astype(np.int64)
    after_space = np.empty(len(bits), dtype=bool)
    if len(bits):
        after_space[0] = True
        after_space[1:] = (bits[:-1] & features._SPACE) != 0
        after_space[starts[chars > 0]] = True

    def per_block(flags: np.ndarray) -> np.ndarray:
        cum = np.concatenate(([0], np.cumsum(flags, dtype=np.int64)))
        ends = starts + chars.astype(np.int64)
        return (cum[ends] - cum[starts]).astype(np.float64) if n else np.zeros(0)

    counts = [
        per_block((bits & flag) != 0)
        for flag in (features._DIGIT, features._PUNCT, features._SEPARATOR)
    ]
    counts.append(per_block(((bits & features._CAPITAL_LETTER) != 0) & after_space))
    return tuple(counts)


_CHAR_PIECES = st.sampled_from(
    [
        "a",
        "A",
        "\u00c9",
        "\u0391",
        "\u0416",
        "\u00d7",
        " ",
        "\u00a0",
        "5",
        ".",
        "|",
        "\u00bb",
        "\U0001f600",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_CHAR_PIECES, max_size=10).map("".join), min_size=1, max_size=8))
def test_char_counts_as_one_running_sum_per_flag(texts: list[str]) -> None:
    chars = np.array([len(t) for t in texts], dtype=np.float64)
    got = features._char_counts(texts, chars)
    expected = _char_counts_per_flag(texts, chars)
    assert len(got) == len(expected) == 4
    for a, b in zip(got, expected, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)


# -- the text counts and the stopword counts ---------------------------------------------------


def _text_counts_both(texts: list[str]) -> tuple[Any, Any]:
    chars = np.array([len(t) for t in texts], dtype=np.float64)
    fn = features._text_counts
    compiled = fn.compiled(texts, features._CHAR_TABLE, features._ENDS_TEXT,  # type: ignore[misc]
                           features._CLOSERS_TEXT)  # fmt: skip
    return compiled, fn.python(texts, chars)


def _assert_same_arrays(got: Any, expected: Any) -> None:
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        assert a.dtype == b.dtype == np.float64 and np.array_equal(a, b)


#: Texts at the edges of each count: sentence breaks before white space of every kind and
#: before what is not a word, closers and ends alone or after white space, capitals after
#: wide spaces, astral and surrogate code points, numbers outside ASCII.
TEXT_EDGES = [
    "",
    " ",
    ".",
    "A.",
    "End. Next",
    "End.  Next. \tThird!\u3000Fourth?\u2028fifth.\u00a0_under. 9 ",
    "No. . . ! ?",
    "Dots...and more... Then",
    'Quote." Done\u201d ',
    "Closer only )",
    ")",
    ".)",
    " x ) ",
    "Trailing:\u2029\u3000",
    "Wide\u3000Capital \u00c9t\u00e9 \u0391\u03b8\u03ae\u03bd\u03b1 \u0416\u0443\u043a \u00d7x",
    "\U0001f600 Emoji. \U0001d400bold. \ud800lone",
    "\u0660\u0661 digits \u0663. \u0664x. \u00b2",
    "a|b \u2022 c \u00b7 d \u203a e \u00bb f / g",
    "\u2160. \u2161 roman",
]


@needs_build
def test_text_counts_match_python_on_edges() -> None:
    _assert_same_arrays(*_text_counts_both(TEXT_EDGES))
    for text in TEXT_EDGES:
        _assert_same_arrays(*_text_counts_both([text]))
    _assert_same_arrays(*_text_counts_both([]))


@needs_build
@pytest.mark.parametrize(("name", "doc"), DOCUMENTS, ids=IDS)
def test_text_and_word_counts_match_python(name: str, doc: Any) -> None:
    texts = [b.text for b in doc.section_blocks()]
    _assert_same_arrays(*_text_counts_both(texts))
    lowers = [t.lower() for t in texts]
    title = features._title_words(doc)
    for stoplist in (languages.stoplist("English"), languages.stoplist("German"), frozenset()):
        for words in (title, frozenset()):
            _assert_same_arrays(*_word_counts_both(lowers, stoplist, words))


def _word_counts_both(
    lowers: list[str], stoplist: frozenset[str], title: frozenset[str]
) -> tuple[Any, Any]:
    fn = features._word_counts
    args = (lowers, stoplist, title, features._COPYRIGHT)
    return fn.compiled(*args), fn.python(*args)  # type: ignore[misc]


#: Lower-cased texts at the edges of the word counts: white space of every kind between
#: words, the same words spaced differently (duplicates) or run together (not), words
#: repeated (distinct words in the title share), 29 and 30 words, astral code points,
#: the copyright marks.
WORD_EDGES = [
    "",
    " ",
    "the cat",
    "the  cat",
    "\u3000the\tcat\n",
    "thecat",
    "cat the",
    "the the the cat",
    "the\x1cof\x85and\u00a0or\u2028in\u200bto",
    " ".join(["the"] * 29),
    " ".join(["cat"] * 29) + " x",
    " ".join(f"w{i}" for i in range(30)),
    "\U0001f600 the \U0001f600",
    "\u00e9t\u00e9 der und die",
    "(c) \u00a9 2024",
    "all rights reserved.",
    "&copy; copyright",
    "news weather",
]
WORD_TITLE = frozenset({"the", "cat", "news", "\U0001f600", "w3", "der", "x"})


@needs_build
def test_word_counts_match_python_on_edges() -> None:
    for stoplist in (languages.stoplist("English"), languages.stoplist("German"), frozenset()):
        for title in (WORD_TITLE, frozenset()):
            _assert_same_arrays(*_word_counts_both(WORD_EDGES, stoplist, title))
            for text in WORD_EDGES:
                _assert_same_arrays(*_word_counts_both([text], stoplist, title))
    _assert_same_arrays(*_word_counts_both([], frozenset(), WORD_TITLE))


def test_word_counts_of_the_edges() -> None:
    """The reference itself, on texts whose counts are known."""
    english = languages.stoplist("English")
    words, stop, in_title, duplicate, marked = features._word_counts.python(
        WORD_EDGES, english, WORD_TITLE, features._COPYRIGHT
    )
    at = WORD_EDGES.index
    assert words[at("the  cat")] == 2 and stop[at("the  cat")] == 1
    # the same words, however spaced, repeat each other; run together they do not
    assert duplicate[at("the cat")] == duplicate[at("the  cat")] == 1
    assert duplicate[at("\u3000the\tcat\n")] == 1 and duplicate[at("thecat")] == 0
    assert duplicate[at("cat the")] == 0
    assert in_title[at("the the the cat")] == 1.0  # two distinct words, both in the title
    assert in_title[at(" ".join(["the"] * 29))] == 1.0
    assert in_title[at(" ".join(["cat"] * 29) + " x")] == 0.0  # 30 words: too long
    assert in_title[at("\u00e9t\u00e9 der und die")] == 0.25
    assert words[at("the\x1cof\x85and\u00a0or\u2028in\u200bto")] == 5  # U+200B is no space
    assert marked.tolist() == [float(any(m in t for m in features._COPYRIGHT)) for t in WORD_EDGES]
    assert marked[at("(c) \u00a9 2024")] == marked[at("all rights reserved.")] == 1


_TEXT_PIECES = st.sampled_from(
    [*"aA.!?:_ )\"'9", "\u00a0", "\u3000", "\u2028", "\u201d", "\u2019", "\t", "\n",
     "\u00c9", "\u0416", "\u0660", "\U0001f600", "\ud800", "\u00bb", "|"]
)  # fmt: skip


@needs_build
@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_TEXT_PIECES, max_size=12).map("".join), max_size=8))
def test_text_counts_match_python_on_any_texts(texts: list[str]) -> None:
    _assert_same_arrays(*_text_counts_both(texts))


@needs_build
@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_TEXT_PIECES, max_size=12).map("".join), max_size=8))
def test_word_counts_match_python_on_any_texts(texts: list[str]) -> None:
    lowers = [t.lower() for t in texts]
    title = frozenset(w for t in lowers[:2] for w in t.split())
    for stoplist in (frozenset({"a", ".", "\u00e9"}), frozenset()):
        _assert_same_arrays(*_word_counts_both(lowers, stoplist, title))


def _sample_hits_both(lowers: list[str], stoplist: frozenset[str], limit: int) -> tuple[Any, Any]:
    fn = features._sample_hits
    return fn.compiled(lowers, stoplist, limit), fn.python(lowers, stoplist, limit)  # type: ignore[misc]


def test_sample_hits_of_the_edges() -> None:
    """The reference itself: the first words over the texts, in order, cut at the limit."""
    english = languages.stoplist("English")
    texts = ["the cat", "", "  and\u00a0a\u3000dog  ", "of of of"]
    assert features._sample_hits.python(texts, english, 600) == (8, 6)
    assert features._sample_hits.python(texts, english, 3) == (3, 2)  # the, cat, and
    assert features._sample_hits.python(texts, english, 0) == (0, 0)
    assert features._sample_hits.python([], english, 600) == (0, 0)


@needs_build
@pytest.mark.parametrize("limit", [0, 1, 2, 5, 29, 600])
def test_sample_hits_match_python_on_edges(limit: int) -> None:
    for stoplist in (languages.stoplist("English"), frozenset({"the", "\U0001f600"}), frozenset()):
        assert (
            _sample_hits_both(WORD_EDGES, stoplist, limit)[0]
            == (_sample_hits_both(WORD_EDGES, stoplist, limit)[1])
        )
        for text in WORD_EDGES:
            compiled, python = _sample_hits_both([text, text], stoplist, limit)
            assert compiled == python


@needs_build
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(_TEXT_PIECES, max_size=12).map("".join), max_size=8),
    st.integers(min_value=0, max_value=40),
)
def test_sample_hits_match_python_on_any_texts(texts: list[str], limit: int) -> None:
    lowers = [t.lower() for t in texts]
    compiled, python = _sample_hits_both(lowers, frozenset({"a", ".", "\u00e9", "aa"}), limit)
    assert compiled == python


@needs_build
@pytest.mark.parametrize(("name", "doc"), DOCUMENTS, ids=IDS)
def test_page_stoplist_is_the_same_with_and_without_the_blocks_lower_cased(
    name: str, doc: Any
) -> None:
    blocks = doc.section_blocks()
    lowers = [b.text.lower() for b in blocks]
    fast = features.stoplist_name(doc, blocks, lowers)
    with _compiled.disabled():
        assert features.stoplist_name(doc, blocks) == fast


def _columns_both(blocks: list[Any], counts: features.BlockCounts) -> tuple[Any, Any]:
    fn = features._columns
    compiled = fn.compiled(*features._compiled_columns(blocks, counts))  # type: ignore[misc]
    return compiled, fn.python(blocks, counts)


@needs_build
@pytest.mark.parametrize(("name", "doc"), DOCUMENTS, ids=IDS)
def test_block_columns_match_python(name: str, doc: Any) -> None:
    blocks = doc.section_blocks()
    if not blocks:
        return
    compiled, python = _columns_both(blocks, features.block_counts(doc, blocks))
    assert _same_bytes(compiled, python)


@needs_build
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_block_columns_match_python_on_generated_pages(html: str) -> None:
    doc = _parsed(html)
    blocks = doc.section_blocks()
    if blocks:
        compiled, python = _columns_both(blocks, features.block_counts(doc, blocks))
        assert _same_bytes(compiled, python)


_COUNT = st.integers(min_value=0, max_value=5000).map(float)


@st.composite
def _block_counts(draw: st.DrawFn) -> tuple[list[TextBlock], features.BlockCounts]:
    """Any counts of 1 to 12 blocks: whole-number counts (as pages give), any shares,
    any containers and classes, tags known and unknown."""
    n = draw(st.integers(min_value=1, max_value=12))
    tags = st.sampled_from(["p", "li", "td", "h2", "div", "span", "nav", "x-custom", "body"])
    blocks = [
        TextBlock("t", None, draw(tags), "/html/body/p", "html.body.p",
                  0, tags_count=draw(st.integers(0, 40)))
        for _ in range(n)
    ]  # fmt: skip

    def counts() -> np.ndarray:
        return np.array(draw(st.lists(_COUNT, min_size=n, max_size=n)), dtype=np.float64)

    def shares() -> np.ndarray:
        values = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
        return np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64)

    def flags() -> np.ndarray:
        return np.array(draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n)))

    parents = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    grands = [draw(st.integers(0, p)) for p in parents]
    masks = st.integers(min_value=0, max_value=(1 << len(features._GROUPS)) - 1)
    paths = np.array(
        [
            [draw(st.integers(1, 30)), *(draw(st.sampled_from([0.0, 1.0])) for _ in range(
                2 + len(features.ANCESTOR_TAGS)))]
            for _ in range(n)
        ],
        dtype=np.float64,
    )  # fmt: skip
    container = np.array(
        [draw(st.lists(st.floats(-1.0, 5.0, width=32), min_size=6, max_size=6)) for _ in range(n)],
        dtype=np.float32,
    )
    return blocks, features.BlockCounts(
        counts(),
        counts(),
        counts(),
        counts(),
        paths,
        np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.intp),
        flags(),
        (counts(), counts(), counts(), counts(), counts(), counts(), flags()),
        shares(),
        flags(),
        flags(),
        draw(st.lists(masks, min_size=n, max_size=n)),
        draw(st.lists(masks, min_size=n, max_size=n)),
        np.array(parents, dtype=np.intp),
        np.array(grands, dtype=np.intp),
        container,
    )


@needs_build
@settings(max_examples=300, deadline=None)
@given(_block_counts())
def test_block_columns_match_python_on_any_counts(case: Any) -> None:
    blocks, counts = case
    compiled, python = _columns_both(blocks, counts)
    assert _same_bytes(compiled, python)


@needs_build
def test_block_columns_refuse_counts_of_other_lengths() -> None:
    doc = parse(EDGE_CASES["class_and_id"])
    blocks = doc.section_blocks()
    counts = features.block_counts(doc, blocks)
    short = counts._replace(owns=counts.owns[:-1])
    with pytest.raises(_compiled.Unsupported):
        _speedups.block_columns(*features._compiled_columns(blocks, short))
    bad = counts._replace(parent_ids=np.full(len(blocks), len(blocks) + 3, dtype=np.intp))
    with pytest.raises(_compiled.Unsupported):
        _speedups.block_columns(*features._compiled_columns(blocks, bad))
    args = list(features._compiled_columns(blocks, counts))
    at = next(i for i, a in enumerate(args) if a is features._RUNS)
    args[at] = (features.WIDTH, *features._RUNS[1:])  # a run past the matrix's end
    with pytest.raises(_compiled.Unsupported):
        _speedups.block_columns(*args)


def _inputs_both(blocks: list[Any]) -> None:
    """The compiled tag path table and container numbers are the Python ones."""
    paths = [b.tag_path for b in blocks]
    table = features._path_table
    assert _same_bytes(
        table.compiled(paths, features._PATH_ROWS, features._path_row, features._PATH_WIDTH),  # type: ignore[misc]
        table.python(paths),
    )
    xpaths = [b.xpath for b in blocks]
    ids = features._container_ids
    for a, b in zip(ids.compiled(xpaths), ids.python(xpaths), strict=True):  # type: ignore[misc]
        assert _same_bytes(a, b)


@needs_build
@pytest.mark.parametrize(("name", "doc"), DOCUMENTS, ids=IDS)
def test_path_table_and_container_ids_match_python(name: str, doc: Any) -> None:
    _inputs_both(doc.section_blocks())


@needs_build
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_path_table_and_container_ids_match_python_on_generated_pages(html: str) -> None:
    _inputs_both(_parsed(html).section_blocks())


_STEPS = st.lists(st.sampled_from(["div", "p", "div[2]", "", "li[10]"]), max_size=5)


@needs_build
@settings(max_examples=300, deadline=None)
@given(st.lists(_STEPS.map(lambda steps: "/" + "/".join(steps)), max_size=10))
def test_container_ids_match_python_on_any_xpaths(xpaths: list[str]) -> None:
    # (also XPaths with empty steps and none at all: "/", "//p")
    xpaths += ["", "p", "/p", "a/b"][: len(xpaths) % 5]
    ids = features._container_ids
    for a, b in zip(ids.compiled(xpaths), ids.python(xpaths), strict=True):  # type: ignore[misc]
        assert _same_bytes(a, b)


def test_container_ids_of_known_xpaths() -> None:
    """The reference itself: a parent is the XPath without its last two steps, its
    grandparent one step shorter, each numbered in order of first appearance."""
    parents, grands = features._container_ids.python(
        [
            "/html/body/div/p/text()",  # parent /html/body/div, grandparent /html/body
            "/html/body/div/ul/li",  # the same parent
            "/html/body/aside/p/text()",  # parent /html/body/aside, grandparent /html/body
            "/html/body/p",  # parent /html, grandparent "" (none)
            "/html",  # no parent (""), no grandparent
            "/",
        ]
    )
    assert parents.tolist() == [0, 0, 1, 2, 3, 3]
    assert grands.tolist() == [0, 0, 0, 1, 1, 1]


@needs_build
@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["word", "\u00a9", "&copy", "the", " ", "\u0416"]),
                     max_size=6).map("".join),
            st.integers(0, 400), st.integers(0, 60), st.integers(0, 60), st.integers(0, 400),
            st.booleans(),
        ),
        max_size=10,
    ),
    st.booleans(),
)  # fmt: skip
def test_context_free_codes_match_python_on_any_counts(rows: list[Any], has_stoplist: bool) -> None:
    texts = [r[0] for r in rows]
    chars, words, stop, links = (
        np.array([float(r[k]) for r in rows], dtype=np.float64) for k in range(1, 5)
    )
    stop = np.minimum(stop, words)
    in_select = np.array([r[5] for r in rows], dtype=bool)
    args = (texts, chars, words, stop, links, in_select, has_stoplist)
    fn = features._context_free_codes
    compiled = fn.compiled(*features._compiled_cf_arguments(*args))  # type: ignore[misc]
    assert _same_bytes(compiled, fn.python(*args))


def _summary_both(doc: Any) -> tuple[Any, Any] | None:
    blocks = doc.section_blocks()
    if not blocks:
        return None
    bx = features.block_features(doc, blocks)
    texts = [b.text for b in blocks]
    fn = pagetype._block_summary
    return fn.compiled(*pagetype._compiled_summary(bx, texts)), fn.python(bx, texts)  # type: ignore[misc]


@needs_build
@pytest.mark.parametrize(("name", "doc"), DOCUMENTS, ids=IDS)
def test_block_summary_matches_python(name: str, doc: Any) -> None:
    both = _summary_both(doc)
    if both is not None:
        compiled, python = both
        assert len(compiled) == len(pagetype._SUMMARY)
        assert np.array(compiled).tobytes() == np.array(python, dtype=np.float64).tobytes()


@needs_build
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_block_summary_matches_python_on_generated_pages(html: str) -> None:
    both = _summary_both(_parsed(html))
    if both is not None:
        compiled, python = both
        assert np.array(compiled).tobytes() == np.array(python, dtype=np.float64).tobytes()


@needs_build
def test_block_summary_refuses_features_without_blocks_or_flags() -> None:
    empty = np.zeros((0, features.WIDTH), dtype=np.float32)
    with pytest.raises(_compiled.Unsupported):
        _speedups.block_summary(*pagetype._compiled_summary(empty, []))
    odd = np.zeros((3, features.WIDTH), dtype=np.float32)
    odd[:, features.NAMES.index("heading")] = (1.0, 0.5, 0.0)  # not a flag
    with pytest.raises(_compiled.Unsupported):
        _speedups.block_summary(*pagetype._compiled_summary(odd, ["a", "b", "c"]))
    # the twin hands such features to the Python function
    assert pagetype._block_summary(odd, ["a", "b", "c"])[4] == pytest.approx(0.5)


def test_url_and_schema_words_set_their_kinds() -> None:
    """A URL's words and a page's schema.org types set the columns of every kind they
    name (a word of two kinds, both)."""
    html = (
        '<html><head><script type=\'application/ld+json\'>{"@type": "NewsArticle"}'
        "</script></head><body><p>text</p></body></html>"
    )
    doc = parse(html, url="https://example.com/forum/products/item")
    x = pagetype.page_features(doc, doc.section_blocks(), features.block_features(doc))
    col = pagetype._INDEX
    for kind, words in pagetype.URL_WORDS.items():
        named = any(w in ("forum", "products", "item") for w in words)
        assert x[col[f"url_{kind}"]] == float(named)
    for kind, names in pagetype.SCHEMA_TYPES.items():
        assert x[col[f"schema_{kind}"]] == float("newsarticle" in names)
    assert x[col["url_forum"]] == x[col["url_product"]] == x[col["schema_article"]] == 1.0


@needs_build
def test_compiled_steps_check_that_texts_are_strings() -> None:
    """A text that is not a ``str`` is refused with a TypeError, never read as one."""
    calls = (
        lambda: _speedups.container_ids([1]),
        lambda: _speedups.sample_hits([None], frozenset(), 5),
        lambda: _speedups.blocks_containing(("a",), [b"a"]),
        lambda: _speedups.text_counts([b"x"], features._CHAR_TABLE, ".", ")"),
        lambda: _speedups.word_counts([7], frozenset(), frozenset(), ()),
    )
    for call in calls:
        with pytest.raises(TypeError):
            call()


# -- the best-run rule -------------------------------------------------------------------


def _run_both(p: np.ndarray, chars: np.ndarray, threshold: float, keep: float | None) -> Any:
    twin = auto_extractor.run_labels
    # the compiled step's arguments as the twin makes them (the weights by NumPy)
    arguments = auto_extractor._run_weights(p, chars, threshold, keep)
    compiled = twin.compiled(*arguments)  # type: ignore[misc]
    return compiled, twin.python(p, chars, threshold, keep)


@needs_build
@pytest.mark.parametrize("seed", range(60))
def test_run_labels_match_python(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    # probabilities on a coarse grid (ties, values at the threshold and at keep) and
    # lengths that make equal sums likely
    p = (rng.integers(0, 21, n) / 20).astype(np.float32)
    chars = rng.integers(1, 4, n).astype(np.float64) * 10
    for threshold in (0.3, 0.35, 0.5, 0.7):
        for keep in (None, 0.7, 0.9):
            compiled, python = _run_both(p, chars, threshold, keep)
            assert compiled.dtype == python.dtype == np.bool_
            assert compiled.tolist() == python.tolist()


@needs_build
@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 1, width=32), st.floats(1, 1e6, allow_nan=False, allow_infinity=False)
        ),
        min_size=1,
        max_size=40,
    ),
    st.floats(0, 1),
    st.one_of(st.none(), st.floats(0, 1)),
)
def test_run_labels_match_python_on_any_probabilities(
    rows: list[tuple[float, float]], threshold: float, keep: float | None
) -> None:
    p = np.array([r[0] for r in rows], dtype=np.float32)
    chars = np.array([r[1] for r in rows], dtype=np.float64)
    compiled, python = _run_both(p, chars, threshold, keep)
    assert compiled.tolist() == python.tolist()


@needs_build
def test_run_labels_refuse_other_arrays() -> None:
    step = _speedups.run_labels
    p = np.array([0.5, 0.6], dtype=np.float32)
    for args in (
        (p.astype(np.float64), np.ones(2), 0.5, None),  # float64 probabilities
        (p, np.ones(3), 0.5, None),  # lengths differ
        (p[:0], np.ones(0), 0.5, None),  # no block
        (p, np.array([1.0, np.nan]), 0.5, None),  # a NaN weight
    ):
        with pytest.raises(_compiled.Unsupported):
            step(*args)
    # through the twin, such input goes to the Python function
    assert auto_extractor.run_labels(p, np.array([1.0, 1.0]), 0.5, None).tolist() == [True, True]
