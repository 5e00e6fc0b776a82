"""The compiled steps (``scrapy_boilerplate.core._speedups`` and CNR's
``extractors.cnr._speedups``) against the Python ones they replace.

``document.justext_segment.python`` is the reference: jusText's segmentation, with a
recorder called on the same walk (CNR's nodes, ``recorder.CNRNodes``, whose compiled twin
the compiled walk calls). The compiled walk must give exactly the same blocks (every
field, the very same elements) and the same :class:`CNRNodes`, in each of the three ways
the package walks a page: default cleaning, jusText 3.0.2's cleaning (unwrapped tags), and
with CNR's nodes recorded. Where the modules are not built, these tests skip, unless
``BOILERPLATE_REQUIRE_SPEEDUPS=1`` (set by .ci/run), where they fail.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from scrapy_boilerplate import extract, parse
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core import document, language, metadata, render
from scrapy_boilerplate.core.document import (
    JUSTEXT_REFERENCE_REMOVED,
    JUSTEXT_REFERENCE_UNWRAPPED,
    justext_segment,
)
from scrapy_boilerplate.core.errors import InvalidParameter
from scrapy_boilerplate.core.result import Block, blocks_from_segments
from scrapy_boilerplate.extractors.cnr import MENU_TAGS, NON_CONTENT_TAGS
from scrapy_boilerplate.extractors.cnr import algorithm as cnr
from scrapy_boilerplate.extractors.cnr.recorder import CNRNodes
from scrapy_boilerplate.extractors.justext import algorithm as justext
from test_properties import pages as generated_pages

try:
    from scrapy_boilerplate.core import _speedups
    from scrapy_boilerplate.extractors.cnr import _speedups as _cnr_speedups
except ImportError:  # pragma: no cover - depends on the build
    _speedups = _cnr_speedups = None
    if os.environ.get("BOILERPLATE_REQUIRE_SPEEDUPS") == "1":
        raise
    pytestmark = pytest.mark.skip(reason="the compiled modules are not built")

PAGES = Path(__file__).parent / "pages"
#: The reference walk, in Python.
_python_walk = justext_segment.python
#: What both walks record (the two tag sets are their input; only the compiled walk
#: counts characters, which CNR's tree must then get the same: see _tree_arrays; the
#: recorder's own state during the walk is private).
NODE_FIELDS = tuple(
    f
    for f in CNRNodes.__slots__
    if f not in ("skip_tags", "menu_tags", "text_counts", "link_counts", "index")
    and not f.startswith("_")
)


def _tree_arrays(nodes: CNRNodes) -> list:
    """CNR's tree made from what a walk recorded: its arrays, and its element index."""
    tree = cnr._tree(nodes)
    fields = ("parent", "end", "kind", "chars", "weight", "text_length", "cnr", "links",
              "link_chars", "menu_tag_nodes")  # fmt: skip
    arrays = [getattr(tree, f) for f in fields]
    index = {id(k): v for k, v in tree.element_index().items()}
    return [*(a.tolist() if hasattr(a, "tolist") else a for a in arrays), index]


def _block_fields(blocks: list) -> list[tuple]:
    return [
        (b.text, id(b.element), b.tag, b.xpath, b.tag_path, b.link_chars, b.index, b.start,
         b.tags_count, b.extra, b.source_start, b.source_end)
        for b in blocks
    ]  # fmt: skip


def _recorded(nodes: CNRNodes) -> tuple:
    """What a walk recorded (elements by identity), and CNR's tree built from it."""
    values = []
    for name in NODE_FIELDS:
        value = getattr(nodes, name)
        if name == "elements":
            values.append([id(v) for v in value])
        else:
            values.append(list(value))
    return (*values, _tree_arrays(nodes))


def _walks(doc: document.Document, mode: str) -> tuple[tuple, tuple]:
    """(Python walk, compiled walk) of ``doc`` in ``mode``, each as comparable values."""
    unwrapped: frozenset[str] = frozenset()
    block_tags = document.SECTION_BLOCK_TAGS if mode == "sections" else None
    if mode == "reference":
        tags = JUSTEXT_REFERENCE_REMOVED
        if doc.root.tag[0] == "{":
            tags = frozenset("{*}" + t for t in tags)
        removed = set(doc.root.iter(*tags))
        unwrapped = JUSTEXT_REFERENCE_UNWRAPPED
    else:
        removed = doc.removed
    out = []
    keep = []  # both walks' proxies stay alive, so the same element has the same proxy
    for walk in (_python_walk, _speedups.justext_segment):
        nodes = CNRNodes(NON_CONTENT_TAGS, MENU_TAGS) if mode == "cnr" else None
        blocks = walk(doc.root, removed, unwrapped, nodes, block_tags=block_tags)
        recorded = _recorded(nodes) if nodes is not None else None
        out.append((_block_fields(blocks), recorded))
        keep.append((blocks, nodes))
    return out[0], out[1]


def _assert_same(doc: document.Document) -> None:
    for mode in ("default", "reference", "cnr", "sections"):
        python, compiled = _walks(doc, mode)
        assert compiled == python, mode


EDGE_CASES = {
    "links and hidden parts": (
        "<html><body><div>Intro <a href='/x'>a <b>bold</b> link<script>x()</script> "
        "tail</a> after<!-- note --> text<?pi data?> more</div>"
        "<nav><a href='/1'>One</a> <a href='/2'>Two</a></nav>"
        "<p style='display:none'>hidden</p><p hidden>also hidden</p></body></html>"
    ),
    "br runs and inline": (
        "<body><div>one<br>two<br><br>three<br> <br>four<span>five<br><br>six</span>"
        "</div><p>a<br/>b</p></body>"
    ),
    "unwrapped tags": (
        "<body><form> <p>in form</p> text <input value='x'> tail </form>"
        "<div>x <iframe>frame</iframe> <object> obj <param> </object> y</div></body>"
    ),
    "comments with tails in links": (
        "<body><p><a href='#'>x<!-- c -->tail<?p q?>more<svg><text>s</text></svg>t</a></p></body>"
    ),
    "text around the body": "lead text<p>para</p>trailing<div>block</div>end",
    "tables": (
        "<table><tr><td>a</td><td>b <a href='#'>c</a></td></tr>"
        "<tr><th>h</th><td><ul><li>one</li><li>two</li></ul></td></tr></table>"
    ),
    "headings and prefixed tags": (
        "<body><h1>Title</h1><o:p>word</o:p><My-Tag>mixed</My-Tag><h2>Sub</h2><p>text</p></body>"
    ),
    "noscript with content": "<body><noscript>" + "<p>forum post text</p>" * 60 + "</noscript>",
    # more names than the walk's name table holds (128): positions of named and unnamed
    # tags mixed under one parent, and more than four tags per parent
    "many tag names": "<body><div>"
    + "".join(f"<t{i % 150}><p>x{i}</p></t{i % 150}>" for i in range(330))
    + "</div><p><b>1</b><i>2</i><b>3</b><u>4</u><s>5</s><em>6</em><b>7</b></p></body>",
    "removed subtrees before nodes": (
        "<body><div><div hidden><p>a<!--c--><b>x</b><?pi y?></p><ul><li>z</li></ul></div>"
        "tail<p>after<script>s()</script>more</p><nav><a href='#'>m</a><i>n</i></nav>"
        "<!--x-->end</div></body>"
    ),
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases(name: str) -> None:
    _assert_same(parse(EDGE_CASES[name]))


def _both_records(doc: document.Document) -> tuple[CNRNodes, CNRNodes]:
    python, compiled = CNRNodes(NON_CONTENT_TAGS, MENU_TAGS), CNRNodes(NON_CONTENT_TAGS, MENU_TAGS)
    _python_walk(doc.root, doc.removed, recorder=python)
    _speedups.justext_segment(doc.root, doc.removed, recorder=compiled)
    return python, compiled


@pytest.mark.parametrize(
    "html",
    [*(EDGE_CASES[k] for k in sorted(EDGE_CASES)), (PAGES / "forum_thread.html").read_bytes()],
)
def test_node_elements_read_one_by_one_are_the_walks(html: str | bytes) -> None:
    """The compiled record's elements, read singly (each found by its ordinal), in reverse,
    by negative index and as slices, are the very elements the Python walk records."""
    doc = parse(html)
    python, compiled = _both_records(doc)
    elements = compiled.elements
    assert isinstance(elements, _speedups.NodeElements)
    n = len(python.elements)
    assert len(elements) == n
    for i in reversed(range(n)):  # singly, until 32 are found: then all in one pass
        assert elements[i] is python.elements[i], i
    fresh = _both_records(doc)[1].elements
    assert fresh[-1] is python.elements[-1]
    assert fresh[1:4] == python.elements[1:4]
    assert list(fresh) == python.elements
    with pytest.raises(IndexError):
        fresh[n]


def test_node_elements_after_the_tree_is_edited() -> None:
    """Ordinals describe the walked tree: an edited tree gives what stands there now, or
    ``LookupError``; never a read of freed memory."""
    doc = parse("<body><div><p>one</p><p>two <b>bold</b> tail</p></div><p>three</p></body>")
    _, compiled = _both_records(doc)
    last = len(compiled.elements) - 1
    for el in list(doc.root.iter("div")):
        el.getparent().remove(el)
    del el
    import gc

    gc.collect()
    with pytest.raises(LookupError):
        compiled.elements[last]
    assert compiled.elements[0] is doc.root


@pytest.mark.parametrize("path", sorted(PAGES.glob("*.html")), ids=lambda p: p.stem)
def test_fixture_pages(path: Path) -> None:
    _assert_same(parse(path.read_bytes()))


def test_xhtml_namespaced_tree() -> None:
    xhtml = (
        b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>t'
        b"</title></head><body><div><p>namespaced <a href='#'>link</a> text</p>"
        b"<script>x()</script></div></body></html>"
    )
    root = etree.fromstring(xhtml)
    assert root.tag[0] == "{"
    _assert_same(parse(root))


def _xpath_trees() -> list:
    """Trees whose element xpaths take every branch: pages, prefixed, odd and mixed-case
    names, and XHTML with elements of two namespaces under one name."""
    trees = [parse(p.read_bytes()).root for p in sorted(PAGES.glob("*.html"))]
    trees += [parse(EDGE_CASES[k]).root for k in sorted(EDGE_CASES)]
    trees.append(
        etree.fromstring(
            b'<html xmlns="http://www.w3.org/1999/xhtml" xmlns:o="urn:o"><body><p>a</p>'
            b"<o:p>b</o:p><p>c</p><o:p>d</o:p><P>e</P><div><p/><!--x--><p/></div></body></html>"
        )
    )
    odd = etree.HTML("<body><m\x15>x</m\x15><m\x15>y</m\x15><o:p>w</o:p><o:p>v</o:p></body>")
    trees.append(odd)
    return trees


def test_element_xpath_equals_python() -> None:
    checked = 0
    for root in _xpath_trees():
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            assert _cnr_speedups.element_xpath(el) == cnr._element_xpath.python(el), el.tag
            checked += 1
    assert checked > 300
    with pytest.raises(_speedups.Unsupported):
        _cnr_speedups.element_xpath(etree.Comment("c"))


def test_tree_xpaths_from_the_record() -> None:
    """CNR names element nodes by the walk's recorded steps: both walks give the same
    xpath; on HTML it is the one read from the tree (``_element_xpath``) and selects the
    element; a walk below the document's root reads the tree, as before."""
    checked = 0
    for root in _xpath_trees():
        doc = parse(root)
        python, compiled = _both_records(doc)
        trees = (cnr._tree(python), cnr._tree(compiled))
        html = not root.tag.startswith("{")
        for i, el in enumerate(python.elements):
            if int(trees[0].kind[i]) not in (cnr.ELEMENT, cnr.NON_CONTENT):
                continue
            xpath = trees[0].xpath(i)
            assert trees[1].xpath(i) == xpath
            if html:
                assert xpath == cnr._element_xpath(el)
                if xpath.isprintable():  # (lxml takes no control character)
                    assert root.getroottree().xpath(xpath) == [el], xpath
            checked += 1
    assert checked > 300
    doc = parse("<body><div><p>a</p><p>b</p></div></body>")
    div = doc.root.find(".//div")
    nodes = CNRNodes(NON_CONTENT_TAGS, MENU_TAGS)
    _speedups.justext_segment(div, doc.removed, recorder=nodes)
    tree = cnr._tree(nodes)
    assert tree.xpath(0) == "/html[1]/body[1]/div[1]"
    assert tree.xpath(len(tree) - 2) == "/html[1]/body[1]/div[1]/p[2]"


def test_deep_tree_needs_no_recursion() -> None:
    depth = 5000
    html = "<body>" + "<div>" * depth + "deep text" + "</div>" * depth + "</body>"
    doc = parse(html)
    _assert_same(doc)


def test_removed_root() -> None:
    root = etree.fromstring("<html hidden=''><body><p>text</p></body></html>", etree.HTMLParser())
    doc = parse(root)
    assert root in doc.removed
    _assert_same(doc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_generated_pages(html: str) -> None:
    try:
        doc = parse(html)
    except Exception:  # unsupported input: nothing to walk
        return
    _assert_same(doc)


def test_entity_reference_is_refused() -> None:
    """A node kind the compiled walk was not written for (the HTML parser makes none)."""
    doc = parse("<body><p>one</p><p>two</p><div>three</div></body>")
    doc.root.find("body/div").append(etree.Entity("nbsp"))
    with pytest.raises(_speedups.Unsupported):
        _speedups.justext_segment(
            doc.root, doc.removed, frozenset(), CNRNodes(NON_CONTENT_TAGS, MENU_TAGS)
        )


def test_refused_tree_is_walked_again_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the compiled walk recorded before it gave up is forgotten (justext_segment's
    ``on_unsupported``): the twin's record is the Python walk's."""
    doc = parse((PAGES / "recipe.html").read_bytes())

    walk = _speedups.justext_segment

    def gives_up(root, removed, unwrapped, recorder):
        walk(root, removed, unwrapped, recorder)  # records everything
        raise _speedups.Unsupported("test")

    # a twin looks its compiled step up once, when declared: declare it again
    monkeypatch.setattr(_speedups, "justext_segment", gives_up)
    segment = _compiled.twin("justext_segment", on_unsupported=justext_segment.on_unsupported)(
        _python_walk
    )
    assert segment.compiled is gives_up
    nodes = CNRNodes(NON_CONTENT_TAGS, MENU_TAGS)
    blocks = segment(doc.root, doc.removed, frozenset(), nodes)
    expected_nodes = CNRNodes(NON_CONTENT_TAGS, MENU_TAGS)
    expected = _python_walk(doc.root, doc.removed, frozenset(), expected_nodes)
    assert _block_fields(blocks) == _block_fields(expected)
    for name in NODE_FIELDS:
        assert getattr(nodes, name) == getattr(expected_nodes, name), name


class _Events:
    """A walk recorder without a compiled twin (``document.WalkRecorder``): it logs the
    calls, and marks each element by its place in the log."""

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self.marked: dict[int, Any] = {}

    def start(self, el: Any, raw: str, tag: str, position: int, removed: bool, text: Any,
              has_text: Any) -> int:  # fmt: skip
        self.events.append(("start", el, removed, text))
        self.marked[len(self.events)] = el
        return len(self.events)

    def end(self, el: Any, tail: Any, has_text: Any) -> None:
        self.events.append(("end", el, tail))

    def tail(self, el: Any, tail: Any, has_text: Any) -> None:
        self.events.append(("tail", el, tail))

    def block(self, mark: int) -> None:
        self.events.append(("block", mark))

    def reset(self) -> None:
        self.events.clear()
        self.marked.clear()

    def compiled_recorder(self) -> None:
        return None


def test_a_recorder_without_a_compiled_twin_is_called_by_the_python_walk() -> None:
    """The compiled walk refuses a recorder that has no compiled twin, so the twin runs the
    Python walk, which calls it: every element started is ended, in document order, and
    each block's mark is its element's (the root's, -1, where it has none)."""
    doc = parse(EDGE_CASES["removed subtrees before nodes"])
    with pytest.raises(_speedups.Unsupported):
        _speedups.justext_segment(doc.root, doc.removed, frozenset(), _Events())
    events = _Events()
    blocks = justext_segment(doc.root, doc.removed, recorder=events)
    assert _block_fields(blocks) == _block_fields(_python_walk(doc.root, doc.removed))
    open_elements = []
    started = []
    for event in events.events:
        if event[0] == "start":
            open_elements.append(event[1])
            started.append(event[1])
        elif event[0] == "end":
            assert open_elements.pop() is event[1]
    assert open_elements == []
    walked = [el for el in doc.root.iter() if isinstance(el.tag, str)]
    assert started == [el for el in walked if not any(a in doc.removed for a in el.iterancestors())]
    assert any(removed for _, _, removed, _ in (e for e in events.events if e[0] == "start"))
    marks = [e[1] for e in events.events if e[0] == "block"]
    assert len(marks) == len(blocks)
    for block, mark in zip(blocks, marks, strict=True):
        assert (doc.root if mark == -1 else events.marked[mark]) is block.element


def _with_surrogate() -> str:
    """A page the compiled ``utf8`` refuses (a lone surrogate, as text decoded with
    surrogateescape holds), so that a twin's fallback runs inside a whole extraction."""
    return (PAGES / "news_article.html").read_text().replace("</h1>", "\udcff</h1>", 1)


#: Whole pages for :func:`test_extractions_equal_both_ways`: the fixture pages, VIPS' ones
#: and the edge cases above, each made afresh per extraction (a tree is not shared).
WHOLE_PAGES = {
    **{p.stem: p.read_bytes for p in sorted(PAGES.glob("*.html"))},
    **{f"vips/{p.stem}": p.read_bytes for p in sorted((PAGES / "vips").glob("*.html"))},
    **{name: (lambda html=html: html) for name, html in sorted(EDGE_CASES.items())},
    "lone surrogate": _with_surrogate,
}
#: What ``to_dict()`` holds that differs between two runs of the same extraction.
VOLATILE_KEYS = ("timings",)


def _extraction(page: str, method: str) -> dict:
    out = extract(WHOLE_PAGES[page](), method).to_dict()
    for key in VOLATILE_KEYS:
        out.pop(key, None)
    return out


@pytest.mark.parametrize("page", sorted(WHOLE_PAGES))
@pytest.mark.parametrize("method", ["justext", "cnr", "web2text", "vips"])
def test_extractions_equal_both_ways(method: str, page: str) -> None:
    """extract() with every compiled step on and with every one off (``compiled.disabled``)
    gives the same ``to_dict()``: the twins agree inside whole extractions, where each
    step's input is what the steps before it made."""
    compiled = _extraction(page, method)
    with _compiled.disabled():
        python = _extraction(page, method)
    assert compiled == python


#: Every twin of the package.
TWINS = (
    document.justext_segment, document.find_removed, document._count_elements,
    document._utf8, document._count_tags, document._attributes_over,
    blocks_from_segments, cnr._tree_arrays, cnr.label_blocks, cnr._element_xpath,
    metadata._attribute_candidates, language._ngram_counts, render._image_walk,
    document.elements_named, render._match_nodes, render._follow, render._content_parent,
    justext.classify_context_sensitive, document.block_elements,
)  # fmt: skip


def _references_run(page: str, method: str) -> set[str]:
    """The twins whose Python function ran during one extraction (by its code object)."""
    names = {t.python.__code__: t.compiled_name for t in TWINS}
    ran = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in names:
            ran.add(names[frame.f_code])

    sys.setprofile(profile)
    try:
        _extraction(page, method)
    finally:
        sys.setprofile(None)
    return ran


def test_block_elements_match_reading_each_block() -> None:
    """The blocks' elements read at once are those read one by one, and the blocks keep
    them (their lazy slots filled as reading ``element`` fills them)."""
    html = (
        "<html><body><div><p>one</p><p>two <b>bold</b></p></div>"
        "<ul><li>three</li></ul></body></html>"
    )
    fast = parse(html).section_blocks()
    slow = parse(html).section_blocks()
    elements = document.block_elements(fast)
    assert [e.tag for e in elements] == [b.element.tag for b in slow] == ["p", "p", "li"]
    assert all(e is b.element for e, b in zip(elements, fast, strict=True))
    assert all(b._elements is None for b in fast)
    assert document.block_elements(fast) == elements  # read again: the kept ones
    # blocks made by hand, and blocks read half before
    half = parse(html).section_blocks()
    first = half[0].element
    made = document.TextBlock("x", first, "p", "", "", 0)
    got = document.block_elements([*half, made])
    assert got[0] is first and got[-1] is first
    assert [e.tag for e in got[:-1]] == ["p", "p", "li"]
    with _compiled.disabled():
        assert [e.tag for e in document.block_elements(parse(html).section_blocks())] == [
            "p", "p", "li",
        ]  # fmt: skip


_CLASS = st.sampled_from(justext._CLASS_NAMES)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_CLASS, st.booleans(), st.integers(0, 120)), max_size=40),
    st.integers(-5, 400),
    st.booleans(),
)
def test_context_sensitive_classes_match_python(
    rows: list[tuple[str, bool, int]], distance: int, preprocessing: bool
) -> None:
    """jusText's context-sensitive pass, compiled, on any run of classes, headings and
    block lengths (a heading looks ahead by characters)."""
    blocks = [document.TextBlock("x" * length, None, "p", "", "", 0) for _, _, length in rows]
    classes = [c for c, _, _ in rows]
    headings = [h for _, h, _ in rows]
    compiled = justext.classify_context_sensitive(
        blocks, classes, headings, distance, preprocessing
    )
    python = justext.classify_context_sensitive.python(
        blocks, classes, headings, distance, preprocessing
    )
    assert compiled == python
    assert classes == [c for c, _, _ in rows]  # the input is not changed


def test_context_sensitive_refuses_what_it_was_not_written_for() -> None:
    blocks = [document.TextBlock("text", None, "p", "", "", 0)] * 2
    with pytest.raises(_compiled.Unsupported):
        _speedups.context_sensitive(
            blocks, ["good", "odd"], [False, False], 200, True, justext._CLASS_NAMES
        )
    with pytest.raises(_compiled.Unsupported):
        _speedups.context_sensitive(
            blocks, ["good"], [False, False], 200, True, justext._CLASS_NAMES
        )
    # the Python function takes over: tuples, a fractional distance
    for args in (
        (tuple(blocks), ("short", "good"), (True, False), 200),
        (blocks, ["short", "good"], [True, False], 3.5),
    ):
        assert justext.classify_context_sensitive(*args) == ["good", "good"]


def test_disabled_runs_every_reference() -> None:
    """The switch reaches every twin (else the test above would compare the compiled steps
    with themselves), and the fallback runs where a compiled step refuses its input."""
    assert all(
        t.compiled is getattr(importlib.import_module(t.compiled_module), t.compiled_name)
        for t in TWINS
    )
    assert {t.compiled_module for t in TWINS} == {_speedups.__name__, _cnr_speedups.__name__}
    steps = {"utf8", "count_tags", "find_removed", "justext_segment", "tree_arrays",
             "label_blocks", "blocks_from_segments"}  # fmt: skip
    assert _references_run("news_article", "cnr") == set()
    with _compiled.disabled():
        assert _references_run("news_article", "cnr") >= steps
        with _compiled.disabled():
            pass
        assert not _compiled.ENABLED
    assert _compiled.ENABLED
    assert _references_run("lone surrogate", "cnr") == {"utf8"}


def test_deadline_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from scrapy_boilerplate.core.deadline import ExtractionTimeout, deadline

    doc = parse("<body>" + "<p>block</p>" * 600 + "</body>")
    with deadline(0.0), pytest.raises(ExtractionTimeout):
        _speedups.justext_segment(doc.root, doc.removed)


REMOVED_CASES = {
    "tags, attributes and styles": (
        "<html><head><title>t</title></head><body><script>x</script><p hidden>h</p>"
        "<input type=' HIDDEN '><input type='text'><div style='DISPLAY : none'>d</div>"
        "<div style='visibility:hidden'>v</div><div style='color:red'>c</div>"
        "<span style='visibility: h\u0131dden'>dotless i, as re.I matches it</span>"
        "<div hidden id='S:0'>React's streamed content is kept</div><svg><p>in svg</p></svg>"
        "</body></html>"
    ),
    "noscript short and long": (
        "<body><noscript>enable JavaScript</noscript><noscript>"
        + "<p>a forum post that clients without JavaScript read</p>" * 20
        + "</noscript><noscript hidden>"
        + "long text " * 100
        + "</noscript></body>"
    ),
    "a second top element": (
        "<html><body>x<p style='display:none'>y</p></body></html>"
        "<html><body><input type=hidden><p hidden>z</p><script>s</script></body></html>"
    ),
}


@pytest.mark.parametrize("name", sorted(REMOVED_CASES))
def test_find_removed_equals_python(name: str) -> None:
    root = parse(REMOVED_CASES[name]).root
    assert _speedups.find_removed(root) == document.find_removed.python(root)


def test_find_removed_on_pages_and_xhtml() -> None:
    roots = [parse(p.read_bytes()).root for p in sorted(PAGES.glob("*.html"))]
    roots.append(
        etree.fromstring(
            b'<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>'
            b"<p style='display:none'>x</p><script>y</script><p>z</p></body></html>"
        )
    )
    for root in roots:
        expected = document.find_removed.python(root)
        assert expected and _speedups.find_removed(root) == expected


def test_find_removed_below_the_top_element_falls_back() -> None:
    root = parse(REMOVED_CASES["tags, attributes and styles"]).root
    body = root.find("body")
    with pytest.raises(_speedups.Unsupported):
        _speedups.find_removed(body)
    assert document.find_removed(body) == document.find_removed.python(body)


WHITESPACE_HEAVY = st.text(
    alphabet=st.sampled_from(
        [
            *" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u2029\u3000",
            *"\u200b\x00ab\u00e9\u4e2d\U0001f600\ud800",
        ]
    ),
    max_size=40,
)


@settings(max_examples=2000, deadline=None)
@given(WHITESPACE_HEAVY)
def test_whitespace_rule_equals_python(text: str) -> None:
    assert _speedups.normalize_whitespace(text) == document.normalize_whitespace(text)


@settings(max_examples=2000, deadline=None)
@given(WHITESPACE_HEAVY)
def test_stripped_whitespace_rule_equals_python(text: str) -> None:
    expected = document.normalize_whitespace(text.strip())
    assert _speedups.normalize_whitespace(text, strip=True) == expected


@settings(max_examples=2000, deadline=None)
@given(WHITESPACE_HEAVY)
def test_link_character_count_equals_python(text: str) -> None:
    assert _speedups.normalized_length(text) == len(document.normalize_whitespace(text))


ONE_BYTE = st.lists(  # texts of one byte a character: every code point below 256
    st.one_of(
        st.characters(max_codepoint=255),
        st.sampled_from([" ", "  ", "\n", " \r\n ", "word", "\xa0", "\x85", "\xad"]),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(ONE_BYTE, st.booleans())
def test_whitespace_rule_of_one_byte_text_equals_python(text: str, strip: bool) -> None:
    """The rule's pass for texts of one byte a character (runs found by a table, copied
    at once) gives Python's string, of the same width and ASCII-ness, and its length."""
    expected = document.normalize_whitespace(text.strip() if strip else text)
    out = _speedups.normalize_whitespace(text, strip=strip)
    assert out == expected and out.isascii() == expected.isascii()
    assert hash(out) == hash(expected) and sys.getsizeof(out) == sys.getsizeof(expected)
    assert _speedups.normalized_length(text) == len(document.normalize_whitespace(text))


@pytest.mark.parametrize(
    ("text", "strip", "expected"),
    [
        ("a\u3000b", False, "a b"),  # a wide space goes: the result is narrow again
        (" \u4e2d\u2028x ", True, "\u4e2d x"),
        ("\u4e2d \r\n x ", False, "\u4e2d\nx "),
        (" plain text ", True, "plain text"),  # a slice of the text
        ("plain text", True, "plain text"),
        ("   ", True, ""),
        ("", False, ""),
    ],
)
def test_whitespace_rule_results_are_canonical(text: str, strip: bool, expected: str) -> None:
    """Strings written by the compiled rule compare equal to Python's (same width)."""
    out = _speedups.normalize_whitespace(text, strip=strip)
    assert out == expected and hash(out) == hash(expected)
    assert out == document.normalize_whitespace(text.strip() if strip else text)


def test_text_blocks_are_complete_when_filled_directly() -> None:
    """Blocks made through TextBlock's slots equal blocks made by its ``__init__``."""
    assert _speedups.text_blocks_filled_directly()
    doc = parse("<body><p>one <a href='#'>link</a></p><div>two</div></body>")
    for block in _speedups.justext_segment(doc.root, doc.removed):
        fields = {f.name: getattr(block, f.name) for f in dataclasses.fields(block) if f.init}
        assert block == document.TextBlock(**fields)
        assert block.extra == {} and block.extra is not doc.justext_blocks()[0].extra


def test_block_element_and_extra_are_made_when_read() -> None:
    """The compiled walk leaves each block's element and extra empty until read: then they
    are the Python walk's element (the same proxy) and a dict of the block's own; set,
    they hold what is set; after an edit of the tree, a place that is gone says so."""
    html = (
        "<body><div hidden><p>h<b>x</b></p><!--c--></div><p>one <a href='#'>l</a></p>"
        "<div>two<p>three</p>tail</div><script>s()</script>four</body>"
    )
    doc = parse(html)
    python = _python_walk(doc.root, doc.removed)
    compiled = _speedups.justext_segment(doc.root, doc.removed)
    slots = document._TEXT_BLOCK_SLOTS
    for block in compiled:
        for name in ("element", "extra"):
            with pytest.raises(AttributeError):
                slots[name].__get__(block)  # empty until read
    assert [b.element for b in compiled] == [b.element for b in python]
    assert all(b._elements is None for b in compiled)  # found once, then held
    assert compiled == python
    first, second = compiled[0], compiled[1]
    first.extra["k"] = 1
    assert first.extra == {"k": 1} and second.extra == {}
    second.element = doc.root
    assert second.element is doc.root
    del second.element
    with pytest.raises(AttributeError):
        _ = second.element
    moved = _speedups.justext_segment(doc.root, doc.removed)
    for el in list(doc.root.iter("p", "div")):
        el.getparent().remove(el)
    with pytest.raises(LookupError):
        _ = moved[0].element


def test_result_blocks_equal_python() -> None:
    from scrapy_boilerplate.core import result

    segments = parse((PAGES / "forum_thread.html").read_bytes()).justext_blocks()
    segments.append(document.TextBlock("", None, "p", "/p", "p", 0))  # no text: density 0
    n = len(segments)
    labels = [result.CONTENT if i % 3 else result.BOILERPLATE for i in range(n)]
    columns = ([i * 0.5 for i in range(n)], tuple(None if i % 2 else i for i in range(n)))
    compiled = _speedups.blocks_from_segments(segments, labels, ("score", "rank"), columns)
    python = result.blocks_from_segments.python(segments, labels, ("score", "rank"), columns)
    assert compiled == python and [b.to_dict() for b in compiled] == [b.to_dict() for b in python]
    with pytest.raises(ValueError):
        _speedups.blocks_from_segments(segments, labels[:-1], ("score", "rank"), columns)
    with pytest.raises(ValueError):
        result.blocks_from_segments.python(segments, labels, ("score",), columns)


# CNR's Algorithm 1 values, detection, menus and block labels (cnr._tree_arrays and
# cnr.label_blocks are the references of CNR's _speedups.tree_arrays and label_blocks).

LABEL_PARAMS = (
    {},
    {"max_blocks": 3, "content_blocks": 2},
    {"selection": "top_k", "top_k": 3},
    {"selection": "top_fraction", "top_fraction": 0.3, "candidates": "all"},
    {"selection": "above_mean_std", "granularity": -2, "max_blocks": 2},
    {"granularity": 2, "max_blocks": 4, "detect_menus": False},
    {"granularity": -1, "max_blocks": 5, "content_blocks": 5, "candidates": "all"},
    {"menu_link_ratio": 0.1, "menu_max_link_chars": 80.0, "menu_min_links": 1},
)


def _labels_both_ways(tree: cnr.CNRTree, block_nodes: list[int], overrides: dict) -> tuple:
    params = cnr.CNRExtractor().validate(overrides)
    compiled = cnr.label_blocks(tree, block_nodes, params)
    python = cnr.label_blocks.python(tree, block_nodes, params)
    return compiled, python


def test_node_kinds_match() -> None:
    assert _cnr_speedups.NODE_KINDS == (cnr.ELEMENT, cnr.TEXT, cnr.TAIL, cnr.NON_CONTENT)


@pytest.mark.parametrize("path", sorted(PAGES.glob("*.html")), ids=lambda p: p.stem)
def test_cnr_labels_equal_python_on_pages(path: Path) -> None:
    doc = parse(path.read_bytes())
    tree, _, block_nodes = cnr.tree_and_blocks(doc)
    for overrides in LABEL_PARAMS:
        compiled, python = _labels_both_ways(tree, block_nodes, overrides)
        assert compiled == python, overrides
        assert all(type(x) is float for x in compiled[3])


@st.composite
def cnr_trees(draw: st.DrawFn) -> tuple[cnr.CNRTree, list[int]]:
    """A random CNR tree in pre-order (each node's parent: the node before it or one of
    its ancestors), with text nodes as leaves, links and menu tags, and blocks' nodes."""
    n = draw(st.integers(1, 60))
    parent = [-1]
    kinds = [cnr.ELEMENT]
    for i in range(1, n):
        chain = []
        a = i - 1
        while a >= 0:
            if kinds[a] in (cnr.ELEMENT,):  # only elements have children
                chain.append(a)
            a = parent[a]
        if not chain:
            break
        parent.append(draw(st.sampled_from(chain)))
        kinds.append(draw(st.sampled_from([cnr.ELEMENT] * 3 + [cnr.TEXT, cnr.NON_CONTENT])))
    n = len(parent)
    end = list(range(1, n + 1))
    for i in range(n - 1, 0, -1):
        end[parent[i]] = max(end[parent[i]], end[i])
    kind = [cnr.TAIL if k == cnr.TEXT and parent[i] != i - 1 else k for i, k in enumerate(kinds)]
    chars = [draw(st.integers(0, 40)) if k in (cnr.TEXT, cnr.TAIL) else 0 for k in kind]
    links = [draw(st.booleans()) if k == cnr.NON_CONTENT else False for k in kind]
    own_link = [draw(st.integers(0, 30)) if is_link else 0 for is_link in links]
    end_a = np.array(end, dtype=np.int64)
    ids = np.arange(n)
    weight, text_length, cnr_values = cnr._ratios(end_a, np.ones(n, dtype=np.int64),
                                                  np.array(chars, dtype=np.int64))  # fmt: skip
    cum_links = np.concatenate([[0], np.cumsum(np.array(links, dtype=np.int64))])
    cum_lc = np.concatenate([[0], np.cumsum(np.array(own_link, dtype=np.int64))])
    menu = [i for i in range(n) if kind[i] == cnr.ELEMENT and draw(st.integers(0, 9)) == 0]
    tree = cnr.CNRTree(
        parent=parent,
        end=end_a,
        kind=np.array(kind, dtype=np.int8),
        elements=[None] * n,
        chars=np.array(chars, dtype=np.int64),
        weight=weight,
        text_length=text_length,
        cnr=cnr_values,
        links=cum_links[end_a] - cum_links[ids],
        link_chars=cum_lc[end_a] - cum_lc[ids],
        index={},
        menu_tag_nodes=menu,
    )
    block_nodes = draw(st.lists(st.integers(0, n - 1), max_size=30))
    return tree, block_nodes


@settings(max_examples=300, deadline=None)
@given(cnr_trees(), st.sampled_from(LABEL_PARAMS))
def test_cnr_labels_equal_python_on_generated_trees(
    made: tuple[cnr.CNRTree, list[int]], overrides: dict
) -> None:
    tree, block_nodes = made
    compiled, python = _labels_both_ways(tree, block_nodes, overrides)
    assert compiled == python


def test_cnr_label_falls_back_on_what_it_does_not_handle(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = parse((PAGES / "news_article.html").read_bytes())
    tree, _, block_nodes = cnr.tree_and_blocks(doc)
    params = cnr.CNRExtractor().validate({})
    with pytest.raises(_speedups.Unsupported):
        _cnr_speedups.label_blocks(
            [0, *tree.parent[1:]], tree.end, tree.kind, tree.chars, tree.weight,
            tree.text_length, tree.cnr, tree.links, tree.link_chars, [], list(block_nodes),
            "above_mean", 10, 0.1, "elements", 0, 1, 1, True, 0.4, 25.0, 3,
        )  # fmt: skip
    with pytest.raises(_speedups.Unsupported):  # a record of the Python walk: no counts
        nodes = CNRNodes(NON_CONTENT_TAGS, MENU_TAGS)
        _python_walk(doc.root, doc.removed, frozenset(), nodes)
        _cnr_speedups.tree_arrays(nodes)
    monkeypatch.setitem(params, "selection", "unknown")  # (validate() would refuse it)
    with pytest.raises(_speedups.Unsupported):
        cnr.label_blocks.compiled(*cnr._cnr_label_arguments(tree, block_nodes, params))
    # the twin runs the reference instead, which refuses the rule by name
    with pytest.raises(InvalidParameter, match="'selection' got 'unknown'"):
        cnr.label_blocks(tree, block_nodes, params)


@pytest.mark.parametrize(
    "html",
    [
        "<p>one</p>",
        "<html><body><div><p>a<b>b</b></p><!-- c --><?pi x?></div>tail</body></html>",
        "<!DOCTYPE html><html><head><title>t</title></head><body>"
        + "<ul>" + "<li><a href='#'>x</a></li>" * 50 + "</ul></body></html>",
        "<div>" * 3000 + "deep" + "</div>" * 3000,
    ],
)  # fmt: skip
def test_count_elements_equals_xpath(html: str) -> None:
    doc = parse(html, max_nodes=0)
    expected = int(document._COUNT_ELEMENTS(doc.root))
    assert _speedups.count_elements(doc.root) == expected
    inner = doc.root.find(".//body") if doc.root.find(".//body") is not None else doc.root
    assert _speedups.count_elements(inner) == expected  # the whole document, as //*
    assert _speedups.count_elements(doc.root, expected) == expected
    assert _speedups.count_elements(doc.root, expected - 1) == expected  # stops past it
    if expected > 2:
        assert _speedups.count_elements(doc.root, 2) == 3


def test_check_nodes_both_ways() -> None:
    root = parse("<html><body><p>x</p></body></html>").root
    for limit, count in ((0, 3), (1, 2), (2, 3), (3, 3), (4, 3)):
        assert document._count_elements.python(root, limit) == count
        assert _speedups.count_elements(root, limit) == count
    document._check_nodes(root, 3)
    with pytest.raises(document.UnsupportedInput, match="over max_nodes 2 elements"):
        document._check_nodes(root, 2)
    with _compiled.disabled():
        document._check_nodes(root, 3)
        with pytest.raises(document.UnsupportedInput, match="over max_nodes 2 elements"):
            document._check_nodes(root, 2)


_MARKUP = st.text(alphabet="<>=aZ1 '\"/é", max_size=300).map(lambda t: t.encode("utf-8"))
#: Markup of the constructs the attribute scan reads as libxml2 does: raw text elements
#: (script's escaped states included), comments, bogus comments, quotes, self-closing tags.
_TAG_PIECES = st.lists(
    st.sampled_from([
        "<script>", "</script>", "</SCRIPT ", "<script/>", "<script a=b/>", "<!--", "-->",
        "--!>", "<!-->", "<style>", "</style>", "<title>", "</title/>", "<textarea>",
        "</textarea>", "<xmp>", "</xmp>", "<iframe>", "</iframe>", "<noembed>", "</noembed>",
        "<noframes>", "</noframes>", "<plaintext>", "<p a='", "'>", '<p b="', '">', "<p c=x>",
        "<!DOCTYPE x '>", "<?x ", "</ ", "</p x='", "<b/>", ">", "<", "/", "'", '"', "=", " ",
        "\t", "x", "-", "<!", "</scriptx>", "<script\n", "<div a b c d e>", "<div f g=1 h>",
    ]),
    max_size=30,
).map(lambda pieces: "".join(pieces).encode())  # fmt: skip


@given(st.one_of(_MARKUP, _TAG_PIECES), st.integers(min_value=0, max_value=6))
@settings(max_examples=400, deadline=None)
def test_markup_scans_equal_their_python_twins(data: bytes, limit: int) -> None:
    assert _speedups.count_tags(data) == document._count_tags.python(data) == data.count(b"<")
    over = _speedups.attributes_over(data, limit)
    assert over == document._attributes_over.python(data, limit)
    assert over > limit or over == 0


@pytest.mark.parametrize(
    ("markup", "most"),
    [
        (b"<p a=1 b c='2' d=\"3\">x</p>", 4),  # with or without a value
        (b"<P A B C>x</P>", 3),  # uppercase
        (b"<p a='>' b='<q r s t u v>' c>x</p>", 3),  # '>' and '<' inside quotes
        (b"<p a=\"1\"b='2'c/d>x</p>", 4),  # after a quoted value, after '/': a new one
        (b"<p =a = b c>", 2),  # '=' first starts a name; "= b" is the value of "=a"
        (b'<p a=x"y b>', 2),  # a quote inside an unquoted value
        (b"<p a<b c>", 2),  # '<' inside a tag does not end it
        (b"<p>" + b"=" * 20 + b"</p>", 0),  # '=' outside tags
        (b"< p a b c d>", 0),  # no tag: a space after '<'
        (b"</p a b c d>", 0),  # an end tag's attributes are dropped
        (b"<script>var s = '<p a b c d e>';</script><i x>", 1),
        (b"<SCRIPT>if (a < b) x = '<p a b c d>'</Script ><i x>", 1),
        (b"<script>x</scriptx><p a b c></script>", 0),  # "</scriptx" does not end it
        (b"<script><!--<script></script><p a b c>--></script><i x>", 1),  # double escaped
        (b"<script><!--></script><p a b c>", 3),  # "<!-->" closes the escape at once
        (b"<script/><p a b c>", 3),  # "/>": no content
        (b"<script a=b/><p a b c></script>", 1),  # "b/" is a value: content follows
        (b"<style>p[a=b] {}</style><title><p a b c></title><i x>", 1),
        (b"<textarea><p a b c></textarea><xmp><p a b></xmp>", 0),
        (b"<iframe><p a b c></iframe><noembed><p a b></noembed><noframes><p a></noframes>", 0),
        (b"<noscript><p a b c></noscript>", 3),  # noscript is parsed
        (b"<plaintext><p a b c></plaintext><p d e>", 0),  # plaintext runs to the end
        (b"<!-- <p a b c> --><!-- --!><p d>", 1),
        (b"<!--><p a b><!---><p c d e>", 3),  # "<!-->" and "<!--->" are whole comments
        (b"<!DOCTYPE html '><p a b c>' ><p d>", 3),  # a doctype ends at its first '>'
        (b"<?php $a = 1 ?><p a b>", 2),
        (b"<p a='1", 1),  # an unterminated tag
    ],
)
def test_attributes_over_reads_tags_as_libxml2(markup: bytes, most: int) -> None:
    # the first tag over most - 1 has most; none has more
    for limit in (most - 1, most):
        if limit >= 0:
            over = most if limit < most else 0
            assert _speedups.attributes_over(markup, limit) == over
            assert document._attributes_over.python(markup, limit) == over
    if most:  # what libxml2 made of it: no element has more attributes than counted
        root = etree.fromstring(b"<html><body>" + markup, etree.HTMLParser())
        assert max(len(e.attrib) for e in root.iter() if isinstance(e.tag, str)) <= most


def test_attributes_over_gives_the_first_tag_over_the_limit() -> None:
    data = b"<p a b c d e f><q a b c d><r a b c d e f g h>"
    assert _speedups.attributes_over(data, 4) == document._attributes_over.python(data, 4) == 6
    assert _speedups.attributes_over(data, 6) == document._attributes_over.python(data, 6) == 8
    assert _speedups.attributes_over(data, 8) == document._attributes_over.python(data, 8) == 0


@given(st.text(max_size=200))
@settings(max_examples=500, deadline=None)
def test_utf8_equals_str_encode(text: str) -> None:
    # st.text() draws from every code point, lone surrogates included; runs of 16 ASCII
    # characters take the vector path, so ASCII is mixed in at every offset
    for t in (text, "a" * 17 + text, text + "b" * 33, text * 3):
        try:
            expected = t.encode("utf-8")
        except UnicodeEncodeError:
            with pytest.raises(_speedups.Unsupported):
                _speedups.utf8(t)
            # the Python path (parse's fallback) reads each surrogate as U+FFFD
            fixed = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in t)
            assert document._utf8.python(t) == fixed.encode("utf-8")
        else:
            assert _speedups.utf8(t) == expected


@pytest.mark.parametrize(
    "text",
    ["é" * 40 + "a" * 40, "a" * 40 + "中文" * 20, "x" * 31 + "\U0001f600" + "y" * 31,
     "\xff" * 17, "\u07ff\u0800\uffff\U00010000\U0010ffff" * 5, "a\ud800" + "b" * 20],
)  # fmt: skip
def test_utf8_at_the_boundaries(text: str) -> None:
    try:
        expected = text.encode("utf-8")
    except UnicodeEncodeError:
        with pytest.raises(_speedups.Unsupported):
            _speedups.utf8(text)
        assert parse(f"<p>{text}</p>").root.findtext(".//p") == text.replace("\ud800", "\ufffd")
    else:
        assert _speedups.utf8(text) == expected


#: Class / id / rel values the metadata's attribute scan must read as its Python twin does:
#: any case, words inside longer names, characters outside ASCII (the Kelvin sign lower-cases
#: to an ASCII "k"), empty values, namespaced attributes (not read), ``itemprop`` counted.
_ATTRIBUTE_PAGE = """<html><body class="Post-DATE"><div id="x">
<span class="ByLine">A</span><p class="AUTHOR-name" itemprop="author">B</p>
<a rel="Author" href="/a">C</a><div class="">D</div><div class="\u212aelvin">E</div>
<ul class="crumbs" id="BreadCrumb-trail"><li itemprop="name">F</li></ul>
<i class="posted-on" itemprop="">G</i><b class="writerly">H</b><em class="autho r">I</em>
<time class="t">J</time><!-- c --><div class="entry-Meta">K</div><u class="pub">L</u></div>
</body></html>"""


def _attribute_scans_agree(root: Any) -> tuple[int, list[Any]]:
    words = metadata._ATTRIBUTE_WORD_LIST
    compiled = _speedups.attribute_candidates(root, words)
    python = metadata._attribute_candidates.python(root, words)
    assert compiled[0] == python[0]
    assert len(compiled[1]) == len(python[1])
    assert all(a is b for a, b in zip(compiled[1], python[1], strict=True))
    return compiled


def test_attribute_candidates_equal_python() -> None:
    """The compiled attribute scan finds the very elements the Python one finds, in order,
    and counts the same ``itemprop`` elements: on a page of tricky values, below the top
    element, on an XHTML tree with namespaced attributes, and on the fixture pages."""
    root = parse(_ATTRIBUTE_PAGE).root
    itemprops, found = _attribute_scans_agree(root)
    assert itemprops == 3
    assert [el.tag for el in found] == ["body", "span", "p", "a", "div", "ul", "i", "b", "div"]
    _attribute_scans_agree(root.find(".//ul"))
    _attribute_scans_agree(root.find(".//time"))  # a leaf: itself only
    xhtml = etree.fromstring(
        b'<html xmlns="http://www.w3.org/1999/xhtml" xmlns:x="urn:x"><body>'
        b'<p x:class="author" class="byline" x:itemprop="a">t</p></body></html>'
    )
    assert _attribute_scans_agree(xhtml)[0] == 0
    for path in sorted(PAGES.glob("*.html")):
        _attribute_scans_agree(parse(path.read_bytes()).root)


def test_ngram_counts_equal_python() -> None:
    """The compiled walk of py3langid's automaton gives its Python walk's counts, in the
    same order (the order the scores are summed in)."""
    model = language._model()
    tables = (model.nextmove, model.rowbase, model.output)
    texts = ("", "a", "The quick brown fox jumps over the lazy dog " * 20,
             "Der schnelle braune Fuchs springt über den faulen Hund",
             "日本語のテキストです。", "Ελληνικά κείμενα", "\x00\xff")  # fmt: skip
    for text in texts:
        data = text.encode("utf-8", "replace")
        compiled = _speedups.ngram_counts(*tables, data)
        python = language._ngram_counts.python(*tables, data)
        assert compiled == python
        assert list((compiled or {}).items()) == list((python or {}).items())


#: Images where main_html's rule has cases: next to content text or not, inside an element
#: below ``<body>`` or straight in it, hidden text, a dropped subtree, a comment's tail.
_IMAGE_PAGE = """<html><head><title>t</title></head><body>
<img src="/top.png"><p>Intro paragraph with enough words to be content.</p>
<img src="/after-intro.png" alt=" an  image ">
<div class="post"><h1>Title of the post</h1><!-- c -->tail of a comment
<p>First paragraph of the article, long enough to count.<img src="a.png"></p>
<figure><img data-src="//cdn.example.com/b.png"><figcaption>A caption</figcaption></figure>
<script>var x = "<img src=x.png>";</script><div hidden><img src="/hidden.png">Hidden</div>
<p>Second paragraph of the article, long enough as well.</p><img src="javascript:x">
<ul><li>Share</li><li><img src="/icon.png">Tweet</li></ul></div>
<footer><img src="/logo.png">Copyright</footer></body></html>"""


def test_image_walk_equals_python() -> None:
    """The compiled image walk gives its Python twin's text nodes and images (read from
    main_html's walk) on a page of cases, below ``<body>`` and on the whole page, and
    content_images agrees with main_html's images on the fixture pages."""
    pages = [_IMAGE_PAGE.encode(), *(p.read_bytes() for p in sorted(PAGES.glob("*.html")))]
    for html in pages:
        doc = parse(html, url="https://example.com/a/b.html")
        result = extract(doc, "justext")
        for block in result.blocks:  # a short page: its paragraphs made content here
            block.label = "boilerplate" if len(block.text) < 12 else "content"
        body = doc.root.find("body")
        for top in (doc.root, body, body.find("div") if body is not None else None):
            if top is None:
                continue
            compiled = _speedups.image_walk(
                top, doc.removed, render.DROPPED_TAGS, document.REMOVED_TAGS,
                document.LEAF_SKIPPED_TAGS, 0,
            )  # fmt: skip
            python = render._image_walk.python(doc, result, top, 0)
            assert compiled[:2] == python[:2]
            assert [r[1:] for r in compiled[2]] == [r[1:] for r in python[2]]
            assert all(a[0] is b[0] for a, b in zip(compiled[2], python[2], strict=True))
        images = render.content_images(doc, result)
        if html is pages[0]:
            assert [i["url"] for i in images] == [
                "https://example.com/a/a.png", "https://cdn.example.com/b.png",
            ]  # fmt: skip
        render.main_html(doc, result)  # the walk main_html reads, cached: read by both now
        assert render.content_images(doc, result) == images


def test_match_nodes_equals_python() -> None:
    """The compiled block matching gives its Python twin's content flags, unmatched blocks
    and misses: on the fixture pages (each block once as extracted, once with every other
    block's text changed so that it is missed), on texts with white space of every width
    (a squeezed string must compare equal however wide its original was), and on hidden
    text nodes that a block covers only with them."""
    cases = []
    for path in sorted(PAGES.glob("*.html")):
        doc = parse(path.read_bytes(), url="https://example.com/")
        result = extract(doc, "justext")
        texts, hidden, _ = render._image_walk.python(doc, result, doc.root, 0)
        blocks = [b for b in result.blocks if b.text.strip()]
        cases.append((texts, hidden, blocks))
        changed = [
            Block(text=b.text + (" x" if i % 2 else ""), label="content", xpath=b.xpath, tag="p")
            for i, b in enumerate(blocks)
        ]
        cases.append((texts, hidden, changed))
    wide = ["caf\u00e9\u3000bar", "\u4e2d\u3000\u6587", "a\u2028b \U0001f600\u00a0c", "  ", "plain"]
    cases.append((wide, bytearray(len(wide)), [
        Block(text="caf\u00e9 bar \u4e2d\u6587", label="content", xpath="/x", tag="p"),
        Block(text="a b\U0001f600 c", label="boilerplate", xpath="/y", tag="p"),
        Block(text="plain", label="content", xpath="/z", tag="p"),
    ]))  # fmt: skip
    hidden_texts = ["Menu", "One two", "three", "Four"]
    cases.append((hidden_texts, bytearray([0, 0, 1, 0]), [
        Block(text="One two three", label="content", xpath="/a", tag="p"),
        Block(text="Four", label="content", xpath="/b", tag="p"),
        Block(text="Nowhere", label="content", xpath="/c", tag="p"),
    ]))  # fmt: skip
    for texts, hidden, blocks in cases:
        prefixes = {None, render._content_parent.python(blocks)}
        prefixes |= {b.xpath.rsplit("/", 1)[0] for b in blocks[:3]}
        for prefix in prefixes:
            compiled = _speedups.match_nodes(texts, hidden, blocks, prefix)
            python = render._match_nodes.python(texts, hidden, blocks, prefix)
            assert compiled[0] == python[0]
            assert compiled[2:] == python[2:]
            assert {k: [id(b) for b in v] for k, v in compiled[1].items()} == {
                k: [id(b) for b in v] for k, v in python[1].items()
            }
    assert any(sum(c[0]) for c in [render._match_nodes.python(*case) for case in cases])
    assert render._match_nodes.python(*cases[-1])[0] == bytearray([0, 1, 1, 1])


def test_content_parent_equals_python() -> None:
    """The compiled common parent of the content blocks' xpaths is its Python twin's: on
    the fixture pages' blocks and on made-up xpaths (siblings, a step that only starts
    like another, no slash, blocks without text or not content, none at all)."""

    def made(*pairs: tuple[str, str]) -> list[Block]:
        return [Block(text=t, xpath=x, tag="p", label="content") for x, t in pairs]

    cases = [
        made(("/html[1]/body[1]/div[1]/p[1]", "a"), ("/html[1]/body[1]/div[1]/p[2]", "b")),
        made(("/html[1]/body[1]/div[1]/p[1]", "a"), ("/html[1]/body[1]/div[12]/p[1]", "b")),
        made(("/html[1]/body[1]/div[1]", "a"), ("/html[1]/body[1]/div[1]/p[3]", "b")),
        made(("p[1]", "a"), ("p[2]", "b")),
        made(("/html[1]/body[1]/div[1]/p[1]", " \u3000 "), ("/html[1]/body[1]/x[1]", "b")),
        made(("/html[1]/b\u00f6dy[1]/p[1]", "a"), ("/html[1]/b\u00f6dy[1]/p[2]", "b")),
        [Block(text="a", xpath="/html[1]/p[1]", tag="p", label="boilerplate")],
        [],
    ]
    for path in sorted(PAGES.glob("*.html")):
        doc = parse(path.read_bytes(), url="https://example.com/")
        cases.append(extract(doc, "justext").blocks)
    for blocks in cases:
        assert _speedups.content_parent(blocks) == render._content_parent.python(blocks)
    assert render._content_parent(cases[1]) == "/html[1]/body[1]"
    assert render._content_parent(cases[4]) == "/html[1]/body[1]"
    assert render._content_parent(cases[6]) is None


def test_follow_steps_equals_python() -> None:
    """The compiled step-by-step xpath walk finds the element its Python twin finds (the
    same proxy target, or None) for every block's xpath of the fixture pages and variants
    of it (its parent, upper-case names, other positions, a step too many), on a page with
    comments and processing instructions among the children, and on a namespaced XHTML
    tree; a name outside ASCII leaves the work to the Python function."""
    roots = []
    for path in sorted(PAGES.glob("*.html")):
        doc = parse(path.read_bytes(), url="https://example.com/")
        roots.append((doc.root, [b.xpath for b in extract(doc, "justext").blocks]))
    mixed = etree.fromstring(
        b"<html><body><!-- c --><div>a</div><?pi x?><div>b<p>one</p><!-- d --><p>two</p>"
        b"</div><DIV>c</DIV></body></html>",
        etree.HTMLParser(),
    )
    roots.append((mixed, ["/html[1]/body[1]/div[2]/p[2]", "/html[1]/body[1]/div[3]"]))
    xhtml = etree.fromstring(
        b'<html xmlns="http://www.w3.org/1999/xhtml"><body><div/><Div><p>x</p></Div></body></html>'
    )
    roots.append((xhtml, ["/html[1]/body[1]/div[1]", "/html[1]/body[1]/div[2]/p[1]"]))
    looked = found = 0
    for root, xpaths in roots:
        for xpath in xpaths:
            variants = (xpath, xpath.rsplit("/", 1)[0], xpath.upper(),
                        xpath.replace("[1]", "[2]"), xpath + "/p[1]")  # fmt: skip
            for variant in variants:
                steps = list(render._STEP.finditer(variant))
                if not steps:
                    continue
                names = [(m.group(1) or m.group(2)).lower() for m in steps]
                positions = [int(m.group(3)) for m in steps]
                compiled = _speedups.follow_steps(root, names, positions)
                python = render._follow.python(root, names, positions)
                assert compiled is python or (compiled is not None and compiled == python)
                looked += 1
                found += python is not None
    assert looked > 50 and 0 < found < looked
    assert render._resolve(mixed, "/html[1]/body[1]/div[2]/p[2]").text == "two"
    assert render._resolve(xhtml, "/html[1]/body[1]/div[2]/p[1]").text == "x"
    with pytest.raises(_speedups.Unsupported):
        _speedups.follow_steps(mixed, ["html", "b\u00f6dy"], [1, 1])
    assert render._follow(mixed, ["html", "b\u00f6dy"], [1, 1]) is None


def test_elements_named_equals_lxml() -> None:
    """The compiled name filter finds what ``root.iter(*names)`` finds (``"{*}name"`` with
    any_namespace): case-sensitive names, no namespace or any, ``root`` itself included."""
    xhtml = etree.fromstring(
        b'<html xmlns="http://www.w3.org/1999/xhtml" xmlns:x="urn:x"><head><meta name="a"/>'
        b"<base/><x:base/></head><body><META/><h1>t</h1><time/></body></html>"
    )
    roots = [xhtml, parse(_ATTRIBUTE_PAGE).root, *(parse(p.read_bytes()).root
             for p in sorted(PAGES.glob("*.html")))]  # fmt: skip
    for root in roots:
        for names in ((b"meta", b"base", b"h1", b"time"), (b"html",), (b"base",), (b"title",)):
            for anywhere in (False, True):
                compiled = _speedups.elements_named(root, names, anywhere)
                python = document.elements_named.python(root, names, anywhere)
                assert len(compiled) == len(python)
                assert all(a is b for a, b in zip(compiled, python, strict=True))
    assert len(_speedups.elements_named(xhtml, (b"base",), True)) == 2
    assert _speedups.elements_named(xhtml, (b"base", b"meta"), False) == []
