"""Web2Text's memory on large pages: bounded as a multiple of the page's size, and the
pieces that keep it bounded (text classified in windows, statistics in row chunks, feature
rows made a chunk at a time, long text nodes collapsed in pieces) give the very values
of one pass. Sizes and bounds are generous multiples: no test depends on timing."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.core import document
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.extractors.web2text import features
from scrapy_boilerplate.extractors.web2text.features import (
    block_features,
    edge_features,
    page_feature_rows,
)

PAGES = sorted((Path(__file__).parent / "pages").glob("*.html"))
SENTENCE = "The Quick brown fox, born 1999, jumps over the lazy dog at example.org again! "

#: Every pattern of the text features, several times, with non-ASCII and astral text and a
#: character whose lower case is longer ("İ"): what a window boundary could cut.
TRICKY = (
    "<html><body><h1>The Title of 2019</h1><p>Write to jane.doe@example.org or see "
    "http://example.org/a/b?c=1 now. Is it? Yes! The end; Then more. © 1999 İstanbul and "
    "ΣΟΦΊΑ, naïve café \U0001f600 emoji \U0001d400bold. THE THEM Their theirs</p>"
    "<ul><li>a</li><li>of the</li><li>1234</li><li>12345 a@b</li></ul>"
    + "<p>" + SENTENCE * 40 + "</p>"
    + "<div><a href='#'>Link text</a> and <b>bold, words</b>.</div>"
    "<p>" + ("word " * 3000) + "</p><p>x@</p><p>@x</p></body></html>"
)  # fmt: skip


def _pages() -> list[str]:
    return [TRICKY] + [p.read_text("utf-8") for p in PAGES]


@pytest.mark.parametrize("window, rows", [(5, 1), (64, 7), (1000, 3)])
def test_windows_and_row_chunks_give_the_values_of_one_pass(monkeypatch, window, rows):
    whole = [(block_features(parse(h)), edge_features(parse(h))) for h in _pages()]
    monkeypatch.setattr(features, "WINDOW", window)
    monkeypatch.setattr(features, "ROWS", rows)
    for html, (b, e) in zip(_pages(), whole, strict=True):
        doc = parse(html)
        np.testing.assert_array_equal(block_features(doc), b)
        np.testing.assert_array_equal(edge_features(doc), e)


@pytest.mark.parametrize("html", _pages()[:3])
def test_feature_rows_are_slices_of_the_matrices(html):
    doc = parse(html)
    b, e = block_features(doc), edge_features(doc)
    rows, edges, breaks = page_feature_rows(doc)
    assert len(rows) == len(b) and len(edges) == len(e) and rows.shape == b.shape
    for i, j in [(0, len(b)), (0, 1), (2, 9), (len(b) - 3, len(b) + 5), (4, 4)]:
        np.testing.assert_array_equal(rows[i:j], b[i:j])
        np.testing.assert_array_equal(edges[i:j], e[i:j])
    np.testing.assert_array_equal(np.asarray(rows), b)
    np.testing.assert_array_equal(rows[::3], b[::3])
    np.testing.assert_array_equal(breaks, e[:, features.EDGE_FEATURE_NAMES.index("line_break")])
    with pytest.raises(TypeError):
        rows[0]


def test_a_page_without_blocks_has_empty_rows():
    rows, edges, breaks = page_feature_rows(parse("<html><body><img src=x></body></html>"))
    assert rows[0:5].shape == (0, 128) and edges[:].shape == (0, 25) and breaks.size == 0


def test_long_text_nodes_are_collapsed_in_pieces_like_at_once(monkeypatch):
    texts = [
        "  a  b\tc\n\nd  ",
        "word " * 50 + "\u2028x\u3000y\x85z\u00a0w",
        "nospacesatallinthisverylongword" * 5,
        " \n ",
        "x" * 40 + " " * 40 + "y",
    ]
    pages = [f"<html><body><p>{t}</p><div>tail</div></body></html>" for t in texts]
    whole = [[b.text for b in parse(p).leaf_blocks()] for p in pages]
    assert whole[0][0] == "a b c d" and whole[3] == ["tail"]
    monkeypatch.setattr(document, "SPACING_PIECE", 7)
    for page, want in zip(pages, whole, strict=True):
        assert [b.text for b in parse(page).leaf_blocks()] == want
    raw = "".join(texts) * 3
    assert document._single_spaced(raw) == " ".join(raw.split())


def _traced_peak(html: str) -> int:
    """Bytes tracemalloc sees at the peak of computing a page's features and potentials
    as the extractor does, over what the parsed page holds."""
    from scrapy_boilerplate.extractors.web2text.model import load_model

    doc = parse(html)
    doc.collapsed_dom()
    # Once per process: the model, and the character class table (65,536 strings made).
    load_model().potentials(*page_feature_rows(parse(TRICKY))[:2])  # type: ignore[arg-type]
    tracemalloc.start()
    try:
        rows, edges, _ = page_feature_rows(doc)
        load_model().potentials(rows, edges)  # type: ignore[arg-type]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("shape", ["text", "paragraphs"])
def test_the_feature_step_takes_a_few_times_the_page(shape):
    # One 4 MB text node, or 4 MB of short paragraphs: the features and the networks'
    # inputs peak at under 3 times the page, a chunk of 4,096 blocks' rows (2 MB, and its
    # transposed copy) included; 53 times when every character had numpy arrays of some 50
    # bytes and the (n, 128) matrix existed whole, twice.
    size = 4 << 20
    if shape == "text":
        body = "<p>" + (SENTENCE * (size // len(SENTENCE))) + "</p>"
    else:
        para = "<p>" + SENTENCE * 3 + "</p>\n"
        body = para * (size // len(para))
    html = f"<html><body>{body}</body></html>"
    assert _traced_peak(html) < 4 * len(html)


#: The child reads its peak RSS as the kernel's ``VmHWM``: ``ru_maxrss`` keeps, across
#: ``exec``, the peak of the process that started it (a test session of hundreds of MB
#: would hide the page's growth).
_CHILD = r"""
import json, sys
def peak():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
from scrapy_boilerplate import extract
extract("<html><body><p>A tiny page. It has two sentences.</p></body></html>", "web2text")
base = peak()
sentence = "The Quick brown fox, born 1999, jumps over the lazy dog at example.org again! "
shape, size = sys.argv[1], int(sys.argv[2])
if shape == "text":
    body = "<p>" + sentence * (size // len(sentence)) + "</p>"
elif shape == "paragraphs":
    para = "<p>" + sentence * 3 + "</p>\n"
    body = para * (size // len(para))
else:
    chain = "<div>" * 100 + "<p>" + sentence * 10 + "</p>" + "</div>" * 100 + "\n"
    body = chain * (size // len(chain))
html = "<html><body>" + body + "</body></html>"
del body
result = extract(html, "web2text", max_nodes=0)
grown = (peak() - base) * 1024
print(json.dumps({"bytes": len(html), "grown": grown, "chars": len(result.main_text)}))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status (Linux)")
@pytest.mark.parametrize("shape", ["text", "paragraphs", "deep"])
def test_4_mb_pages_take_less_than_15_times_their_size(shape):
    # A fresh process: its peak RSS over that of one that extracted a tiny page. The page's
    # own string counts. One text node was about 55 times the page before the text was
    # windowed (4.3 now); short paragraphs 15.8 times while every leaf block had a dict
    # and the networks' chunk a transposed copy (14.2 now); 100-deep <div> chains 21.8
    # times while the Collapsed DOM kept an lxml proxy per merged element and the features
    # a dict keyed by each (11.9 now).
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, shape, str(4 << 20)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["chars"] > report["bytes"] // 3  # the text was extracted
    assert report["grown"] < 15 * report["bytes"], report


def test_extraction_is_unchanged_by_the_chunks(monkeypatch):
    whole = extract(TRICKY, "web2text").to_dict()
    monkeypatch.setattr(features, "WINDOW", 16)
    monkeypatch.setattr(features, "ROWS", 2)
    assert extract(TRICKY, "web2text").to_dict() == whole


def _kept_by_the_leaf_walk(html: str) -> int:
    """Bytes tracemalloc sees kept by a parsed page's DOM leaves and Collapsed DOM."""
    doc = parse(html, max_nodes=0)
    tracemalloc.start()
    try:
        doc.leaf_blocks()
        doc.collapsed_dom()
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_the_collapsed_dom_of_deep_chains_keeps_a_few_times_the_page():
    # 1 MB of 100-deep <div> chains around a paragraph: the leaves and the Collapsed DOM
    # keep about 1.6 times the page (the node keeps its innermost element and a shared tag
    # name per merged element); 7.9 times when it kept the lxml proxy of every merged
    # element, with its tag string; 15 times when the walk kept a list of children, and a
    # proxy, for every element.
    chain = "<div>" * 100 + "<p>" + SENTENCE * 10 + "</p>" + "</div>" * 100 + "\n"
    html = "<html><body>" + chain * ((1 << 20) // len(chain)) + "</body></html>"
    assert _kept_by_the_leaf_walk(html) < 3 * len(html)


def test_the_collapsed_dom_of_short_paragraphs_keeps_a_few_times_the_page():
    # 1 MB of short paragraphs: a leaf block and its node keep about 4 times the page (the
    # text, XPath, the block, the node and its tags); 5 times when every leaf block had
    # an ``extra`` dict holding its node, and every node a list of its elements.
    para = "<p>" + SENTENCE * 3 + "</p>\n"
    html = "<html><body>" + para * ((1 << 20) // len(para)) + "</body></html>"
    assert _kept_by_the_leaf_walk(html) < 4.5 * len(html)


def test_form_and_line_break_features_follow_textless_and_removed_elements():
    # Found by counting blocks in one walk (the values the lookups by element gave): a
    # form element marks the node of the nearest element with text around it and that
    # node's ancestors; a textless or removed block element between two texts is a line
    # break.
    html = (
        "<html><body><div><div><p>a</p></div></div><p>b<b>c</b><br>d</p>"
        "<div style='display:none'><input></div>e<!-- x --> f<select><option>o</option>"
        "</select>g<div><span>h</span><form><input></form></div><div><div><i>k</i></div>"
        "</div></body></html>"
    )
    doc = parse(html)
    assert [b.text for b in doc.leaf_blocks()] == list("abcdefghk")
    breaks = edge_features(doc)[:, features.EDGE_FEATURE_NAMES.index("line_break")]
    assert breaks.tolist() == [1, 0, 1, 1, 0, 1, 1, 1]
    rows = block_features(doc)
    form = {
        name: rows[:, features.BLOCK_FEATURE_NAMES.index(name)].tolist()
        for name in ("p_contains_form_element", "gp_contains_form_element")
    }
    assert form == {
        "p_contains_form_element": [1, 0, 0, 0, 1, 1, 1, 1, 1],
        "gp_contains_form_element": [0, 1, 1, 1, 0, 0, 0, 0, 0],
    }


def test_the_walk_over_textless_elements_checks_the_deadline(monkeypatch):
    # 100,000 empty <div> between two paragraphs: no block, no node, but the walk that finds
    # the line breaks goes through them, and checks the page's deadline as it goes.
    calls: list[int] = []
    monkeypatch.setattr(features, "check", lambda: calls.append(1))
    page = "<html><body><p>one</p>{}<p>two</p></body></html>"
    page_feature_rows(parse(page.format(""), max_nodes=0))
    few = len(calls)
    calls.clear()
    rows, _, breaks = page_feature_rows(parse(page.format("<div></div>" * 100_000), max_nodes=0))
    assert breaks.tolist() == [True] and len(rows) == 2
    assert len(calls) >= few + 20
