"""CNR (extractors/cnr/): Algorithm 1 values, Algorithm 2 on the paper's Example 3.2 / 4.2,
granularity, iterative block detection, menus, parameters, deep pages, JSON output."""

from __future__ import annotations

import json

import lxml.etree as etree
import numpy as np
import pytest

from scrapy_boilerplate import extract, parse
from scrapy_boilerplate.core.errors import InvalidParameter
from scrapy_boilerplate.core.registry import get
from scrapy_boilerplate.extractors.cnr import (
    ELEMENT,
    NON_CONTENT,
    NON_CONTENT_TAGS,
    TAIL,
    TEXT,
    CNRExtractor,
    adjust_granularity,
    choose_main,
    compute_cnr,
    detect_blocks,
    detect_menus,
    identify_blocks,
    select_nodes,
)


def tree_of(html: str):
    doc = parse(html)
    return doc, compute_cnr(doc.root, doc.removed)


def node(tree, xpath: str) -> int:
    """Id of the node whose xpath is ``xpath``."""
    matches = [i for i in range(len(tree)) if tree.xpath(i) == xpath]
    assert len(matches) == 1, (xpath, matches)
    return matches[0]


# -- Algorithm 1 ------------------------------------------------------------------------------

TINY = """<html><body>
  <div>
    <p>Hello world</p>
    <p>Foo <a href="#">link text</a> bar</p>
    <img src="x.png">
  </div>
  <script>var x = "not text";</script>
</body></html>"""


def test_algorithm1_values_by_hand():
    # Nodes in document order (whitespace-only strings are not nodes):
    # 0 html, 1 body, 2 div, 3 p, 4 "Hello world", 5 p, 6 "Foo ", 7 a (nonContentNode),
    # 8 " bar", 9 img (nonContentNode), 10 script (removed: nonContentNode).
    _, tree = tree_of(TINY)
    assert len(tree) == 11
    assert tree.parent == [-1, 0, 1, 2, 3, 2, 5, 5, 5, 2, 1]
    assert tree.kind.tolist() == [
        ELEMENT,
        ELEMENT,
        ELEMENT,
        ELEMENT,
        TEXT,
        ELEMENT,
        TEXT,
        NON_CONTENT,
        TAIL,
        NON_CONTENT,
        NON_CONTENT,
    ]
    # textLength: spaces are not counted: "Hello world" -> 10, "Foo " -> 3, " bar" -> 3
    assert tree.text_length.tolist() == [16, 16, 16, 10, 10, 6, 3, 0, 3, 0, 0]
    # weight: text nodes and nonContentNodes 1; p = 1 + 1; p = 1 + 3; div = 1 + 2 + 4 + 1;
    # body = 1 + 8 + 1; html = 1 + 10
    assert tree.weight.tolist() == [11, 10, 8, 2, 1, 4, 1, 1, 1, 1, 1]
    assert tree.cnr.tolist() == pytest.approx(
        [16 / 11, 1.6, 2.0, 5.0, 10.0, 1.5, 3.0, 0.0, 3.0, 0.0, 0.0]
    )
    # the link's characters are kept apart for menu detection ("linktext": 8)
    assert tree.links.tolist() == [1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0]
    assert tree.link_chars[2] == 8
    assert tree.xpath(8) == "/html[1]/body[1]/div[1]/p[2]/text()[2]"


def test_formatting_does_not_change_cnr():
    compact = (
        "<html><body><div><p>Hello world</p><p>Foo <a href='#'>x</a> bar</p></div></body></html>"
    )
    spaced = compact.replace("><", ">\n     \n  <").replace("Hello world", "Hello\n   world")
    a, b = tree_of(compact)[1], tree_of(spaced)[1]
    assert a.cnr.tolist() == b.cnr.tolist()
    assert a.weight.tolist() == b.weight.tolist()


def test_non_content_tags_follow_the_paper():
    for tag in ("nav", "a", "script", "video", "svg", "img"):
        assert tag in NON_CONTENT_TAGS
    _, tree = tree_of(
        "<html><body><nav><ul><li>Home</li><li>About us</li></ul></nav>"
        "<p>Body text</p></body></html>"
    )
    nav = node(tree, "/html[1]/body[1]/nav[1]")
    assert tree.weight[nav] == 1 and tree.text_length[nav] == 0 and tree.cnr[nav] == 0


# -- Algorithm 2: the paper's Example 3.2 and Example 4.2 --------------------------------------

# Example 3.2 (Wikipedia, "Information retrieval"), with its "(...)" filled in so that the
# tree has the shape of Figure 3: node 1 = div#content with children 2 (a <p>) and 3 (a <p>),
# node 2 with children 5 (<b>) and 6 (<span>), node 6 with the text nodes 7 and 8, node 4 =
# the copyright line of the footer.
EXAMPLE_3_2 = """<html><body>
  <h1 id="firstHeading" class="firstHeading"> Information retrieval</h1>
  <div id="content">
    <p><b>Information retrieval</b>
      <span>(IR) is the science of searching for documents,
        <i>for information within documents</i>, and for metadata about documents (...)</span></p>
    <p>Automated information retrieval systems are used to reduce what has been called
      information overload (...)</p>
  </div>
  <div class="portal" id="p-lang">
    <h5>Languages</h5> (...)</div>
  <div id="footer">
    <li id="footer-info-lastmod"> This page was last modified on 15 April 2011 at 23:32.</li>
    <li id="footer-info-copyright">Text is available under the
      <a rel="license"> Creative Commons Attribution-ShareAlike License</a>
      additional terms may apply. See Terms of Use for (...)</li>
  </div>
</body></html>"""

FIGURE_3 = {
    1: "/html[1]/body[1]/div[1]",
    2: "/html[1]/body[1]/div[1]/p[1]",
    3: "/html[1]/body[1]/div[1]/p[2]",
    4: "/html[1]/body[1]/div[3]/li[2]",
    5: "/html[1]/body[1]/div[1]/p[1]/b[1]",
    6: "/html[1]/body[1]/div[1]/p[1]/span[1]",
    7: "/html[1]/body[1]/div[1]/p[1]/span[1]/text()[1]",
    8: "/html[1]/body[1]/div[1]/p[1]/span[1]/text()[2]",
}


def test_example_4_2_on_the_dom_of_example_3_2():
    _, tree = tree_of(EXAMPLE_3_2)
    ids = {k: node(tree, xp) for k, xp in FIGURE_3.items()}
    paper = {v: k for k, v in ids.items()}
    dark = {ids[k] for k in (5, 7, 8, 3, 4)}  # the top rated nodes of Figure 3
    trace: list = []
    final = identify_blocks(tree.parent, dark, trace)
    steps = [({paper[c] for c in kids}, paper[p]) for kids, p in trace]
    # 7, 8 are replaced by 6; then 5, 6 by 2; then 2, 3 by 1.
    assert steps == [({7, 8}, 6), ({5, 6}, 2), ({2, 3}, 1)]
    assert {paper[b] for b in final} == {1, 4}  # the dashed nodes
    # the node with more text is the main block; the footer (4) is discarded
    assert paper[choose_main(tree.text_length, final)] == 1


def test_identify_blocks_on_an_abstract_tree():
    # Figure 3's numbering on a parent map (0 = body, 9 = the footer's div)
    parent = {0: None, 1: 0, 9: 0, 2: 1, 3: 1, 5: 2, 6: 2, 7: 6, 8: 6, 4: 9, 10: 9}
    trace: list = []
    assert identify_blocks(parent, {5, 7, 8, 3, 4}, trace) == [1, 4]
    assert trace == [(frozenset({7, 8}), 6), (frozenset({5, 6}), 2), (frozenset({2, 3}), 1)]


def test_identify_blocks_drops_descendants_first():
    parent = [-1, 0, 1, 1, 0]  # 0 -> (1 -> (2, 3), 4)
    assert identify_blocks(parent, {1, 2, 3}) == [1]  # 2, 3 descend from 1: no merge
    assert identify_blocks(parent, {2, 3, 4}) == [0]  # 2, 3 -> 1; then 1, 4 -> 0
    assert identify_blocks(parent, {2}) == [2]
    assert identify_blocks(parent, []) == []


def test_identify_blocks_replaces_all_children_of_the_parent():
    parent = [-1, 0, 0, 0]
    trace: list = []
    assert identify_blocks(parent, [1, 2, 3], trace) == [0]
    assert trace == [(frozenset({1, 2, 3}), 0)]


# -- selection, granularity ---------------------------------------------------------------

ARTICLE = """<html><body>
<div id="menu"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>
<li><a href="/sport">Sport</a></li><li><a href="/about">About</a></li></ul></div>
<div id="page">
  <div id="article">
    <h1>A headline for the article</h1>
    <p>The first paragraph of the article holds a good amount of running text, written in
    whole sentences that go on for a while, as articles do.</p>
    <p>The second paragraph adds more running text to the article so that the container is
    clearly the densest text region of the whole page.</p>
    <p>A third paragraph closes the article with yet more words in complete sentences that a
    reader would want to keep.</p>
  </div>
  <div id="side"><p>Sidebar: <a href="/x">one</a> <a href="/y">two</a> <a href="/z">three</a>
  and more.</p></div>
</div>
<div id="footer"><p>Copyright 2024 Example Inc. All rights reserved.</p></div>
</body></html>"""


def test_selection_rules():
    _, tree = tree_of(ARTICLE)
    top = select_nodes(tree, "top_k", top_k=3)
    assert len(top) == 3 and top == sorted(top)
    assert all(tree.kind[i] == ELEMENT for i in top)
    best = sorted(range(len(tree)), key=lambda i: -tree.cnr[i] if tree.kind[i] == ELEMENT else 0)
    assert set(top) == set(best[:3])
    mean = select_nodes(tree, "above_mean")
    texty = [i for i in range(len(tree)) if tree.text_length[i] > 0 and tree.kind[i] == ELEMENT]
    m = np.mean([tree.cnr[i] for i in texty])
    assert mean == [i for i in texty if tree.cnr[i] > m]
    frac = select_nodes(tree, "top_fraction", top_fraction=0.5)
    assert len(frac) == -(-len(texty) // 2)
    with_text = select_nodes(tree, "top_k", top_k=1, candidates="all")
    assert tree.kind[with_text[0]] in (TEXT, TAIL)  # a text node's CNR is its length
    assert set(select_nodes(tree, "above_mean_std")) <= set(mean)


def test_main_block_is_the_article():
    result = extract(ARTICLE, "cnr")
    assert result.extra["main_xpath"] == "/html[1]/body[1]/div[2]/div[1]"
    assert "first paragraph" in result.main_text and "third paragraph" in result.main_text
    assert "sidebar" not in result.main_text and "Copyright" not in result.main_text


def test_granularity_up_and_down():
    _, tree = tree_of(ARTICLE)
    article = node(tree, "/html[1]/body[1]/div[2]/div[1]")
    page = node(tree, "/html[1]/body[1]/div[2]")
    assert adjust_granularity(tree, article, 1) == page
    assert adjust_granularity(tree, article, 2) == tree.parent[page]
    assert adjust_granularity(tree, article, 50) == 0  # stops at the root
    down = adjust_granularity(tree, article, -1)
    kids = tree.children(article)
    assert down == max(kids, key=lambda k: tree.cnr[k])
    assert tree.elements[down].tag == "p"
    leaf = adjust_granularity(tree, article, -2)  # the <p>'s text node
    assert tree.kind[leaf] == TEXT
    assert adjust_granularity(tree, article, -10) == leaf  # stops at a leaf

    up = extract(ARTICLE, "cnr", granularity=1, detect_menus=False)
    assert up.extra["main_xpath"] == "/html[1]/body[1]/div[2]"
    assert "Sidebar" in up.main_text
    down_result = extract(ARTICLE, "cnr", granularity=-1)
    assert down_result.extra["main_xpath"].startswith("/html[1]/body[1]/div[2]/div[1]/p[")
    assert len(down_result.content_blocks) == 1


def test_main_node_inside_a_block_labels_that_block():
    # granularity -2 ends on a text node: the block of its <p> is the content
    result = extract(ARTICLE, "cnr", granularity=-2)
    assert result.extra["main_xpath"].endswith("/text()[1]")
    assert len(result.content_blocks) == 1
    assert result.content_blocks[0].tag == "p"
    assert result.content_blocks[0].fields["rank"] == 1


def test_tail_of_a_comment_is_a_tail_node_with_its_xpath():
    # The comment is no node: its tail comes right after the <div> in the numbering, and
    # is still the comment's tail (not the div's .text), addressed as the div's text().
    html = (
        "<html><body><div><!-- note -->" + "Tail text of the comment, long enough. " * 5
        + "<p>x</p>after the paragraph</div></body></html>"
    )  # fmt: skip
    doc, tree = tree_of(html)
    div = node(tree, "/html[1]/body[1]/div[1]")
    tail = div + 1
    assert tree.kind[tail] == TAIL
    assert tree.xpath(tail) == "/html[1]/body[1]/div[1]/text()[1]"
    assert tree.xpath(tail + 3) == "/html[1]/body[1]/div[1]/text()[2]"  # the <p>'s tail
    assert doc.root.xpath(tree.xpath(tail))[0].startswith("Tail text of the comment")
    result = extract(html, "cnr", selection="top_k", top_k=1, candidates="all")
    assert result.extra["main_xpath"] == "/html[1]/body[1]/div[1]/text()[1]"


# -- iterative detection ------------------------------------------------------------------


def test_iterative_detection_in_relevance_order():
    _, tree = tree_of(ARTICLE)
    found = detect_blocks(tree, max_blocks=3)
    assert len(found) == 3
    assert tree.xpath(found[0]) == "/html[1]/body[1]/div[2]/div[1]"
    # later blocks lie outside the earlier ones
    for i, a in enumerate(found):
        for b in found[:i]:
            assert not (b <= a < tree.end[b])
    result = extract(ARTICLE, "cnr", max_blocks=3, content_blocks=2, detect_menus=False)
    ranks = [d["rank"] for d in result.extra["detected"]]
    assert ranks == [1, 2, 3]
    assert result.extra["detected"][0]["xpath"] == result.extra["main_xpath"]
    by_rank: dict = {}
    for b in result.blocks:
        by_rank.setdefault(b.fields["rank"], []).append(b)
    assert all(b.is_content for b in by_rank[1] + by_rank[2])
    assert not any(b.is_content for r, bs in by_rank.items() if r not in (1, 2) for b in bs)
    second = [b.text for b in by_rank[2]]
    assert second and not any("first paragraph" in t for t in second)


def test_iterative_detection_stops_when_no_text_is_left():
    _, tree = tree_of("<html><body><p>Only one paragraph of text.</p></body></html>")
    assert len(detect_blocks(tree, max_blocks=10)) < 10


# -- menus ---------------------------------------------------------------------------------

MENU_PAGE = """<html><body>
<div id="main">
  <h1>Story title</h1>
  <p>A long paragraph of the story with plenty of words so that it is clearly the main text
  of this page and the container is chosen as the main block by the algorithm.</p>
  <ul class="related">
    <li><a href="/a">Alpha</a></li><li><a href="/b">Beta</a></li>
    <li><a href="/c">Gamma</a></li><li><a href="/d">Delta</a></li>
  </ul>
  <p>Another long paragraph of the story, again with many words in full sentences, which
  belongs to the main text just as much as the first one.</p>
  <nav><ul><li>Previous story</li><li>Next story</li></ul></nav>
</div>
</body></html>"""


def test_menu_detection_on_a_nav_list():
    result = extract(MENU_PAGE, "cnr")
    assert result.extra["main_xpath"] == "/html[1]/body[1]/div[1]"
    menus = {b.text for b in result.blocks if b.fields["menu"]}
    assert {"Alpha", "Beta", "Gamma", "Delta", "Previous story", "Next story"} <= menus
    for b in result.blocks:
        if b.fields["menu"]:
            assert b.label == "boilerplate" and b.fields["rank"] == 1
    assert "long paragraph of the story" in result.main_text
    assert "Alpha" not in result.main_text
    plain = extract(MENU_PAGE, "cnr", detect_menus=False)
    assert "Alpha" in plain.main_text
    assert not any(b.fields["menu"] for b in plain.blocks)


def test_detect_menus_thresholds():
    _, tree = tree_of(MENU_PAGE)
    ul = node(tree, "/html[1]/body[1]/div[1]/ul[1]")
    nav = node(tree, "/html[1]/body[1]/div[1]/nav[1]")
    assert tree.links[ul] == 4 and tree.weight[ul] == 9
    assert detect_menus(tree) == [ul, nav]
    assert detect_menus(tree, min_links=5) == [nav]
    assert detect_menus(tree, max_link_chars=4) == [nav]  # "Alpha": 5 characters
    assert detect_menus(tree, link_ratio=0.5) == [nav]  # 4 links / 9 nodes
    assert detect_menus(tree, protect=[nav]) == [ul]


# -- parameters ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, name",
    [
        ({"selection": "best"}, "selection"),
        ({"top_k": 0}, "top_k"),
        ({"top_fraction": 1.5}, "top_fraction"),
        ({"candidates": "text"}, "candidates"),
        ({"granularity": 1000}, "granularity"),
        ({"granularity": 1.5}, "granularity"),
        ({"max_blocks": 0}, "max_blocks"),
        ({"max_blocks": 2, "content_blocks": 3}, "content_blocks"),
        ({"detect_menus": "maybe"}, "detect_menus"),
        ({"menu_link_ratio": -0.1}, "menu_link_ratio"),
        ({"menu_max_link_chars": -1}, "menu_max_link_chars"),
        ({"menu_min_links": 0}, "menu_min_links"),
        ({"topk": 3}, "topk"),
    ],
)
def test_invalid_parameters_name_the_parameter(params, name):
    with pytest.raises(InvalidParameter) as info:
        extract(ARTICLE, "cnr", **params)
    assert info.value.name == name
    assert name in str(info.value)


def test_defaults_and_registry():
    method = get("cnr")
    assert isinstance(method, CNRExtractor)
    checked = method.validate({"granularity": "-1", "detect_menus": "false"})
    assert checked["granularity"] == -1 and checked["detect_menus"] is False
    defaults = method.validate({})
    assert defaults["selection"] == "above_mean" and defaults["candidates"] == "elements"
    assert defaults["max_blocks"] == 1 and defaults["content_blocks"] == 1
    assert defaults["granularity"] == 0 and defaults["detect_menus"] is True


# -- robustness and output ------------------------------------------------------------------


def test_ten_thousand_deep_page_does_not_raise():
    root = etree.Element("html")
    el = etree.SubElement(root, "body")
    for _ in range(10_000):
        el = etree.SubElement(el, "div")
    p = etree.SubElement(el, "p")
    p.text = "Deep text at the bottom of a very deep page."
    result = extract(root, "cnr", max_blocks=2, granularity=-3)
    assert result.ok
    json.dumps(result.to_dict())
    tree = compute_cnr(root)
    assert tree.weight[0] == 10_004 and tree.text_length[0] == 35


def test_output_is_json_serialisable_with_plain_types():
    result = extract(MENU_PAGE, "cnr", max_blocks=2, content_blocks=2)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["extractor"] == "cnr"
    assert isinstance(data["main_xpath"], str) and type(data["main_cnr"]) is float
    for b in result.blocks:
        assert type(b.fields["cnr"]) is float
        assert b.fields["rank"] is None or type(b.fields["rank"]) is int
        assert type(b.fields["menu"]) is bool
    for d in result.extra["detected"]:
        assert type(d["rank"]) is int and type(d["text_length"]) is int
        assert type(d["cnr"]) is float


def test_page_without_text():
    result = extract("<html><body><img src='a.png'><script>x()</script></body></html>", "cnr")
    assert result.main_text == ""
    assert result.reason is not None
    assert result.extra["main_xpath"] is None and result.extra["detected"] == []


def test_tree_is_not_mutated_and_is_cached():
    doc = parse(ARTICLE)
    before = etree.tostring(doc.root)
    first = extract(doc, "cnr")
    second = extract(doc, "cnr", granularity=1)
    assert etree.tostring(doc.root) == before
    assert first.extra["main_xpath"] != second.extra["main_xpath"]
    assert doc.cached("cnr_tree", lambda: None) is not None
