"""VIPS (MSR-TR-2003-79) rule by rule, on hand-built layouts and on layouts Chromium recorded
(tests/pages/vips/*.snapshot.json, made by tests/make_vips_fixtures.py): no browser needed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

import scrapy_boilerplate as sb
from scrapy_boilerplate.core.errors import InvalidParameter
from scrapy_boilerplate.extractors.vips import (
    Layout,
    LNode,
    VipsConfig,
    VisualBlock,
    segment,
    static_layout,
)
from scrapy_boilerplate.extractors.vips.algorithm import (
    CUT,
    DIVIDE,
    KEEP,
    _Round,
    build_structure,
    detect_separators,
    dividable,
    doc_from_weight,
    extract_blocks,
    is_virtual_text,
    separator_weight,
)
from scrapy_boilerplate.extractors.vips.layout import (
    parse_color,
    parse_px,
    parse_weight,
)

PAGES = Path(__file__).parent / "pages" / "vips"
CONFIG = VipsConfig()


def node(tag, x=0, y=0, w=100, h=20, children=(), **kw) -> LNode:
    n = LNode(tag, x, y, w, h, **kw)
    if tag == "#text":
        n.display = "inline"
    for c in children:
        c.parent = n
        n.children.append(c)
    return n


def text(s, x=0, y=0, w=100, h=20, **kw) -> LNode:
    return node("#text", x, y, w, h, text=s, **kw)


def decide(n, roots=None, area=1000 * 1000, prev=None, config=CONFIG):
    rnd = _Round(roots or [node("body", 0, 0, 1000, 1000)], area, config)
    return dividable(n, rnd, prev)[:2]


# -- definitions (TR 4.1) ---------------------------------------------------------------------


def test_virtual_text_node_is_inline_with_only_text_or_virtual_text_children():
    assert is_virtual_text(node("b", children=[text("x")]), CONFIG)
    assert is_virtual_text(node("span", children=[node("i", children=[text("x")])]), CONFIG)
    assert not is_virtual_text(node("span", children=[node("div", children=[text("x")])]), CONFIG)
    assert not is_virtual_text(node("div", children=[text("x")]), CONFIG)  # not inline


def test_inline_by_display_uses_the_computed_style():
    span_block = node("span", display="block", children=[text("x")])
    assert is_virtual_text(span_block, CONFIG)  # by tag (the TR)
    assert not is_virtual_text(span_block, VipsConfig(inline_by="display"))


def test_css_values_are_parsed_as_numbers_not_strings():
    assert parse_px("16px") > parse_px("9px")  # '16px' < '9px' as strings
    assert parse_weight("bold") == 700 and parse_weight("400") == 400
    assert parse_color("rgba(0, 0, 0, 0)") is None  # transparent is no colour
    assert parse_color("rgb(255, 0, 0)") == (255, 0, 0)
    assert parse_color("#fc0") == (255, 204, 0)
    assert parse_color("transparent") is None


# -- the rules of Table 1, per Table 2 ------------------------------------------------------


def test_rule1_node_without_valid_children_is_cut():
    empty = node("div", children=[node("span", w=0, h=0, children=[text("x", w=0, h=0)])])
    assert decide(empty) == (CUT, 0)


def test_rule1_a_visible_replaced_element_is_a_basic_object_not_cut():
    assert decide(node("img")) == (KEEP, 10)
    assert decide(node("img", w=0)) == (CUT, 0)


def test_rule2_one_valid_child_that_is_not_text_divides():
    only = node("div", w=900, h=900, children=[node("div", w=900, h=900, children=[text("x")])])
    assert decide(only)[0] == DIVIDE


def test_rule3_the_root_of_a_single_sub_dom_tree_divides():
    root = node("div", w=100, h=40, children=[text("a"), node("b", children=[text("b")])])
    assert decide(root, roots=[root])[0] == DIVIDE  # rule 3 before rule 4
    assert decide(root)[0] == KEEP  # not the root: rule 4 keeps it


def test_rule3_does_not_fire_when_the_block_has_several_sub_dom_trees():
    a = node("div", w=100, h=40, children=[text("a"), node("b", children=[text("b")])])
    b = node("div", y=50, w=100, h=40, children=[text("c"), node("i", children=[text("d")])])
    assert decide(a, roots=[a, b])[0] == KEEP


def test_rule4_all_text_children_same_font_gives_doc_10_else_9():
    same = node("p", w=500, h=40, children=[text("a"), node("a", children=[text("b")])])
    assert decide(same) == (KEEP, 10)
    mixed = node(
        "p", w=500, h=40, children=[text("a"), node("b", font_weight=700, children=[
            text("b", font_weight=700)])],
    )  # fmt: skip
    assert decide(mixed) == (KEEP, 9)


def test_rule5_a_line_break_child_divides_inline_and_p_nodes_only():
    kids = lambda: [text("a", w=900, h=400), node("div", y=400, w=900, h=400, children=[text("b")])]  # noqa: E731
    assert decide(node("p", w=900, h=900, children=kids())) == (DIVIDE, 0)
    assert decide(node("span", w=900, h=900, children=kids())) == (DIVIDE, 0)
    # "other tags" have no rule 5: a small div with a text child is kept by rule 9
    small_kids = [text("a", w=100, h=40), node("div", y=50, w=100, h=40, children=[text("b")])]
    small = node("div", w=100, h=100, children=small_kids)
    assert decide(small)[0] == KEEP


def test_rule6_an_hr_child_divides():
    n = node("div", w=100, h=60, children=[text("a"), node("hr", y=25, h=2), text("b", y=30)])
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    assert dividable(n, rnd, None)[2] == "R6"


def test_rule6_looks_at_children_not_descendants():
    inner = node("div", w=100, h=30, children=[text("a"), node("hr", y=25, h=2)])
    n = node("div", w=100, h=60, children=[inner, node("p", y=30, h=30, children=[text("b")])])
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    assert dividable(n, rnd, None)[2] != "R6"


def test_rule7_children_larger_than_the_node_divide():
    big = node("div", w=200, h=200, children=[text("a")])
    n = node("div", w=100, h=100, children=[big, node("div", w=50, h=50, children=[text("b")])])
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    assert dividable(n, rnd, None)[2] == "R7"


def test_rule8_background_difference_divides_tables_and_rows_and_keeps_the_child():
    cell = node("td", w=200, h=100, background=(255, 204, 102), children=[text("a")])
    other = node("td", x=200, w=200, h=100, children=[text("b")])
    row = node("tr", w=400, h=100, children=[cell, other])
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    action, _, rule = dividable(row, rnd, None)
    assert (action, rule) == (DIVIDE, "R8")
    doc, why = rnd.forced[id(cell)]
    assert why == "R8" and 6 <= doc <= 8
    assert id(other) not in rnd.forced


def test_rule8_transparent_children_take_the_colour_behind_them():
    # the classic port bug: rgba(0,0,0,0) compared literally with the parent's colour
    row = node("tr", w=400, h=100, background=(200, 200, 200), children=[
        node("td", w=200, h=100, children=[text("a")]),
        node("td", x=200, w=200, h=100, children=[text("b")]),
    ])  # fmt: skip
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    assert dividable(row, rnd, None)[2] != "R8"
    assert not rnd.forced


def test_rule8_does_not_apply_to_other_tags():
    div = node("div", w=900, h=900, children=[
        node("div", w=900, h=450, background=(0, 0, 255), children=[text("a")]),
        node("div", y=450, w=900, h=450, children=[text("b")]),
    ])  # fmt: skip
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    assert dividable(div, rnd, None)[2] != "R8"


def test_rule9_small_node_with_text_children_is_kept_with_doc_by_tag():
    kids = lambda: [text("a", w=300), node("div", y=20, w=300, h=20, children=[text("b")])]  # noqa: E731
    small = node("div", w=300, h=40, children=kids())
    action, doc = decide(small)
    assert action == KEEP and 5 <= doc <= 8
    big_kids = [text("a", w=1000, h=400), node("div", y=400, w=1000, h=400, children=[text("b")])]
    assert decide(node("div", w=1000, h=800, children=big_kids))[0] == DIVIDE  # rule 12


def test_rule10_largest_child_below_threshold_keeps_the_node():
    items = [node("li", y=i * 10, w=40, h=10, children=[node("a", w=40, h=10, children=[
        node("img", w=40, h=10)])]) for i in range(5)]  # fmt: skip
    ul = node("ul", w=900, h=900, children=items)
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    action, doc, rule = dividable(ul, rnd, None)
    assert (action, rule) == (KEEP, "R10")
    assert doc == 6  # ul's base DoC 7, one less for its large relative size (0.81)


def test_rule11_td_whose_previous_sibling_was_not_divided_is_kept():
    first = node("div", w=400, h=200, children=[text("a")])
    td = node("td", w=500, h=500, children=[first, node("p", y=200, w=400, h=200, children=[
        text("b")])])  # fmt: skip
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    assert dividable(td, rnd, False)[2] == "R11"
    assert dividable(td, rnd, True)[2] == "R13"  # table parts end in rule 13 (keep)


def test_rule12_other_tags_end_divided_and_rule13_table_parts_end_kept():
    big = [node("div", y=i * 300, w=900, h=300, children=[text("a"), node("div", children=[
        text("b")])]) for i in range(3)]  # fmt: skip
    rnd = _Round([node("body", 0, 0, 1000, 1000)], 1000 * 1000, CONFIG)
    assert dividable(node("div", w=900, h=900, children=big), rnd, None)[2] == "R12"
    big2 = [node("div", y=i * 300, w=900, h=300, children=[text("a"), node("div", children=[
        text("b")])]) for i in range(3)]  # fmt: skip
    assert dividable(node("td", w=900, h=900, children=big2), rnd, None)[2] == "R13"


def test_figure7_table_row_split_by_colour_cut_cells_and_rule11():
    """TR Figure 7: the TABLE has one valid TR (rule 2); the first TD's background differs,
    so rule 8 splits the TR and keeps that TD; invisible TDs are cut (rule 1); the third and
    fifth TDs are not divided, by rule 11."""
    layout = Layout.load(PAGES / "figure7.snapshot.json")
    config = VipsConfig(child_size={"td": 0.0, "other": 0.05})
    blocks = extract_blocks([layout.body()], config)
    got = [(b.nodes[0].xpath.rsplit("/", 1)[1], b.rule) for b in blocks]
    assert got == [("td[1]", "R8"), ("td[3]", "R11"), ("td[5]", "R11")]


# -- separators (4.2) ---------------------------------------------------------------------------


def vb(x, y, w, h, **kw) -> VisualBlock:
    return VisualBlock([node("div", x, y, w, h, children=[text("t", x, y, w, h)], **kw)], 10, "R4")


def test_separator_detection_splits_updates_and_removes():
    """Figure 8: blocks split the pool's separator, a block crossing one shrinks it, a block
    covering one removes it, and the separators at the pool's border go."""
    blocks = [vb(0, 10, 100, 20), vb(0, 50, 100, 20), vb(0, 90, 100, 20), vb(200, 60, 50, 45)]
    seps = detect_separators(blocks, 0, 120, "h")
    # pool 0..120: border bands 0..10 and 110..120 removed; 30..50 stays; 70..90 is crossed
    # by the fourth block (60..105): shrinks to nothing, so it is removed
    assert [(s.start, s.end) for s in seps] == [(30, 50)]


def test_touching_blocks_leave_a_zero_width_separator():
    seps = detect_separators([vb(0, 0, 100, 20), vb(0, 20, 100, 20)], 0, 40, "h")
    assert [(s.start, s.end) for s in seps] == [(20, 20)]


def test_vertical_separators_between_columns():
    seps = detect_separators([vb(0, 0, 200, 500), vb(250, 0, 600, 300)], 0, 850, "v")
    assert [(s.start, s.end) for s in seps] == [(200, 250)]


def test_weight_rules():
    from scrapy_boilerplate.extractors.vips.algorithm import Separator

    up, down = vb(0, 0, 500, 20), vb(0, 60, 500, 20)
    narrow = separator_weight(Separator("h", 20, 25), [up], [down], [], CONFIG)
    wide = separator_weight(Separator("h", 20, 60), [up], [down], [], CONFIG)
    assert wide > narrow  # rule 1: distance
    hr = node("hr", 0, 40, 500, 2)
    assert separator_weight(Separator("h", 20, 60), [up], [down], [hr], CONFIG) > wide  # rule 2
    coloured = vb(0, 60, 500, 20, background=(0, 0, 128))
    assert separator_weight(Separator("h", 20, 60), [up], [coloured], [], CONFIG) > wide  # rule 3
    big = VisualBlock([node("h1", 0, 60, 500, 40, font_size=32, children=[
        text("T", 0, 60, 500, 40, font_size=32)])], 10, "R9")  # fmt: skip
    small_above = separator_weight(Separator("h", 20, 60), [up], [big], [], CONFIG)
    big_above = separator_weight(Separator("h", 20, 60), [big], [up], [], CONFIG)
    assert small_above > big_above > 0  # rule 4: size difference, and smaller above counts more
    # rule 5: similar structure on both sides lowers the weight
    other = VisualBlock([node("ul", 0, 60, 500, 20, children=[node("li", 0, 60, 500, 20,
        children=[node("img", 0, 60, 20, 20)])])], 7, "R10")  # fmt: skip
    assert separator_weight(Separator("h", 20, 60), [up], [other], [], CONFIG) > wide


def test_doc_from_weight_is_higher_for_lighter_separators():
    assert doc_from_weight(1) == 10 and doc_from_weight(10) == 1
    assert doc_from_weight(3) > doc_from_weight(6)


# -- content structure (4.3) ---------------------------------------------------------------


def test_structure_merges_across_light_separators_first():
    """Three text blocks close together and one far below: the two groups are the children
    of the page, the close blocks merged under a block whose DoC comes from their light
    separators."""
    blocks = [vb(0, 0, 500, 20), vb(0, 24, 500, 20), vb(0, 48, 500, 20), vb(0, 200, 500, 20)]
    top = build_structure(blocks, [], CONFIG)
    assert len(top.children) == 2
    merged, alone = top.children
    assert merged.rule == "merge" and len(merged.children) == 3
    assert alone is blocks[3]
    assert merged.doc > top.doc  # the child is more coherent than its parent


def test_pdoc_drives_further_rounds():
    layout = Layout.load(PAGES / "article.snapshot.json")
    coarse = segment(layout, VipsConfig(pdoc=1))
    fine = segment(layout, VipsConfig(pdoc=9))
    assert len(fine.leaves()) >= len(coarse.leaves())
    assert all(leaf.doc > 1 or leaf.rule in ("text", "object") for leaf in coarse.leaves())


def test_ids_follow_the_tr_naming():
    page = segment(Layout.load(PAGES / "article.snapshot.json"))
    assert page.id == "VB1"
    for block in page.walk():
        for i, child in enumerate(block.children, 1):
            assert child.id == f"{block.id}-{i}"


# -- layouts -----------------------------------------------------------------------------------


def test_snapshot_layout_has_boxes_styles_and_xpaths():
    layout = Layout.load(PAGES / "article.snapshot.json")
    assert layout.source == "rendered"
    by_xpath = {n.xpath: n for n in layout.nodes()}
    top = by_xpath["/html[1]/body[1]/div[1]"]
    assert (top.w, top.h) == (1366, 60) and top.background == (0x22, 0x33, 0x44)
    h1 = by_xpath["/html[1]/body[1]/div[3]/h1[1]"]
    assert h1.font_size == 32 and h1.font_weight == 700
    assert by_xpath["/html[1]/head[1]"].display == "none"  # not rendered: no box
    # XPaths are real: they select the same element in lxml's tree of the page
    doc = sb.parse((PAGES / "article.html").read_text())
    assert doc.root.xpath("/html[1]/body[1]/div[3]/h1[1]")[0].text == "Hiking trails near Baltimore"


def test_layout_json_round_trip():
    layout = Layout.load(PAGES / "article.snapshot.json")
    again = Layout.from_json(json.loads(json.dumps(layout.to_json())))

    def rows(lay):  # boxes are stored to 0.01 px
        return [
            (n.tag, round(n.x, 2), round(n.y, 2), round(n.w, 2), round(n.h, 2), n.background,
             n.font_size, n.font_weight, n.display, n.visible, n.text, n.xpath)
            for n in lay.nodes()
        ]  # fmt: skip

    assert rows(layout) == rows(again)


def test_static_layout_stacks_blocks_and_reads_inline_styles():
    doc = sb.parse(
        "<body><div style='background:#123456'>x</div><p>para</p>"
        "<table><tr><td width=200>a</td><td>b</td></tr></table></body>"
    )
    layout = static_layout(doc, 1000)
    assert layout.source == "static"
    nodes = {n.xpath: n for n in layout.nodes()}
    div, p = nodes["/html[1]/body[1]/div[1]"], nodes["/html[1]/body[1]/p[1]"]
    assert div.background == (0x12, 0x34, 0x56)
    assert p.y >= div.bottom  # blocks stack down the page
    td1, td2 = (
        nodes["/html[1]/body[1]/table[1]/tr[1]/td[1]"],
        nodes["/html[1]/body[1]/table[1]/tr[1]/td[2]"],
    )
    assert td1.w == 200 and td2.x == td1.right and td1.y == td2.y  # cells side by side


def test_static_layout_survives_deep_nesting():
    from lxml import etree

    root = etree.Element("html")
    el = etree.SubElement(root, "body")
    for _ in range(5000):  # deeper than libxml2 parses, as a tree handed over directly
        el = etree.SubElement(el, "div")
    el.text = "deep text " * 20
    result = sb.extract(root, extractor="vips")
    assert "deep text" in result.main_text
    json.dumps(result.to_dict())


# -- the extractor -------------------------------------------------------------------------------


def test_vips_extractor_on_a_recorded_layout():
    html = (PAGES / "article.html").read_text()
    result = sb.extract(html, extractor="vips", layout=str(PAGES / "article.snapshot.json"))
    assert result.extra["layout"] == "rendered"
    assert "Baltimore sits within an hour" in result.main_text
    assert "Gunpowder Falls" not in result.main_text  # the link list in the side column
    block = result.blocks[0]
    assert {"id", "doc", "rule", "box", "xpaths"} <= set(block.fields)
    assert result.extra["tree"]["id"] == "VB1"
    json.dumps(result.to_dict())  # plain JSON


def test_layout_attached_to_the_document_is_used_by_auto():
    from scrapy_boilerplate.extractors.vips import attach_layout

    doc = sb.parse((PAGES / "article.html").read_text())
    snapshot = json.loads((PAGES / "article.snapshot.json").read_text())
    attach_layout(doc, snapshot)
    assert sb.extract(doc, extractor="vips").extra["layout"] == "rendered"


def test_bad_parameters_name_themselves():
    with pytest.raises(InvalidParameter, match="layout"):
        sb.extract("<p>x</p>", extractor="vips", layout="/no/such/file.json")
    with pytest.raises(InvalidParameter, match="pdoc"):
        sb.extract("<p>x</p>", extractor="vips", pdoc=11)
    with pytest.raises(InvalidParameter, match="text_size"):
        sb.extract("<p>x</p>", extractor="vips", text_size={"p": 2})
    ok = sb.extract("<p>x</p>", extractor="vips", text_size='{"p": 0.2}')
    assert ok.params["text_size"]["p"] == 0.2 and ok.params["text_size"]["td"] == 0.3


@pytest.mark.parametrize("html", ["<html><body></body></html>", "<p>one block</p>"])
def test_empty_and_one_block_pages(html):
    result = sb.extract(html, extractor="vips")
    assert isinstance(result.main_text, str)
    json.dumps(result.to_dict())


def test_cli_png_needs_vips_and_an_output_file(capsys):
    from scrapy_boilerplate.cli import EXIT_USAGE, main

    page = str(PAGES / "article.html")
    assert main(["extract", "--extractor", "justext", "--format", "png", "-o", "x.png", page]) == (
        EXIT_USAGE
    )
    assert "use --extractor vips" in capsys.readouterr().err
    assert main(["extract", "--extractor", "vips", "--format", "png", page]) == EXIT_USAGE
    assert "--output" in capsys.readouterr().err


# -- Scrapy ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["inline", "process"])
@deferred_f_from_coro_f
async def test_crawl_with_vips_uses_the_layout_the_request_carries(mode):
    """A rendered layout travels with the request (meta, or scrapy-playwright's PageMethod
    result) to the extractor, in every execution mode; without one VIPS is static."""
    from scrapy_helpers import PagesSpider, boilerplate_stats, crawl

    snapshot = json.loads((PAGES / "article.snapshot.json").read_text())

    class Method:  # what scrapy-playwright leaves in meta["playwright_page_methods"]
        result = snapshot

    url = (PAGES / "article.html").as_uri()
    static_url = (PAGES / "figure7.html").as_uri()

    class VipsSpider(PagesSpider):
        name = "vips-pages"
        custom_settings: ClassVar[dict] = {
            "BOILERPLATE_EXTRACTOR": "vips",
            "BOILERPLATE_EXECUTION": mode,
            "BOILERPLATE_WORKERS": 1,
        }

    items, stats, seen = await crawl(
        spider=VipsSpider,
        urls=[url, static_url],
        metas={url: {"playwright_page_methods": [Method()]}},
    )
    by_url = {view["url"]: view["boilerplate"] for view in seen}
    assert by_url[url].extra["layout"] == "rendered"
    assert "Baltimore sits within an hour" in by_url[url].main_text
    assert by_url[static_url].extra["layout"] == "static"
    assert len(items) == 2 and all(item["extractor"] == "vips" for item in items)
    assert boilerplate_stats(stats)["extractor/vips"] == 2


def test_layout_from_meta_prefers_the_explicit_key():
    from scrapy_boilerplate.extractors.vips import LAYOUT_KEY, layout_from_meta

    snap = {"documents": [], "strings": []}

    class Method:
        result: ClassVar[dict] = {"documents": [1], "strings": []}

    assert layout_from_meta({LAYOUT_KEY: snap, "playwright_page_methods": [Method()]}) is snap
    assert layout_from_meta({"playwright_page_methods": {"s": Method()}}) is Method.result
    assert layout_from_meta({}) is None


def test_tree_leaves_carry_their_whole_text_and_parents_a_preview():
    html = (PAGES / "article.html").read_text()
    result = sb.extract(html, extractor="vips", layout=str(PAGES / "article.snapshot.json"))
    tree = result.extra["tree"]
    stack, leaves = [tree], []
    while stack:
        node = stack.pop()
        assert {"id", "doc", "rule", "box", "xpaths", "text", "children"} <= set(node)
        if node["children"]:
            assert len(node["text"]) <= 200
            stack.extend(node["children"])
        else:
            leaves.append(node)
    texts = {b.text for b in result.blocks}
    assert any(len(leaf["text"]) > 100 and leaf["text"] in texts for leaf in leaves)


def test_rule4_font_thresholds_are_parameters():
    from scrapy_boilerplate.extractors.vips.algorithm import Separator

    up = VisualBlock([node("p", 0, 0, 500, 20, children=[text("a", 0, 0, 500, 20)])], 10, "R4")
    down = VisualBlock([node("p", 0, 40, 500, 20, font_size=17, children=[
        text("b", 0, 40, 500, 20, font_size=17)])], 10, "R4")  # fmt: skip
    sep = Separator("h", 20, 40)
    strict = separator_weight(sep, [up], [down], [], VipsConfig(font_size_diff=0.5))
    lenient = separator_weight(sep, [up], [down], [], VipsConfig(font_size_diff=2.0))
    assert strict > lenient  # 16 px vs 17 px: different only under the strict threshold
    result = sb.extract("<p>x</p>", extractor="vips", font_size_diff=2.0, weight_base=2.0)
    assert result.params["font_size_diff"] == 2.0


# -- layouts from outside the parsed page: the node cap and the deadline --------------------


def flat_layout(paragraphs: int) -> dict:
    """A saved layout (format 1) of ``<html><body>`` and ``paragraphs`` ``<p>`` with text."""
    body = "/html[1]/body[1]"
    rows = [[-1, "html", 0, 0, 800, 600, "block", 1, None, 16, 400, "", "/html[1]"],
            [0, "body", 0, 0, 800, 600, "block", 1, None, 16, 400, "", body]]  # fmt: skip
    for i in range(paragraphs):
        xpath = f"{body}/p[{i + 1}]"
        rows.append([1, "p", 0, 20 * i, 800, 20, "block", 1, None, 16, 400, "", xpath])
        rows.append([len(rows) - 1, "#text", 0, 20 * i, 800, 20, "inline", 1, None, 16, 400,
                     f"paragraph {i}", xpath + "/text()[1]"])  # fmt: skip
    return {"format": 1, "source": "rendered", "width": 800, "height": 20 * paragraphs,
            "nodes": rows}  # fmt: skip


def flat_snapshot(paragraphs: int) -> dict:
    """A CDP snapshot of ``<html><body>`` and ``paragraphs`` ``<p>`` with text."""
    strings = ["HTML", "BODY", "P", "#text", "block", "visible", "1", "none", "16px", "400", "x"]
    parents, types, names, values = [-1, 0], [1, 1], [0, 1], [-1, -1]
    for _ in range(paragraphs):
        parents += [1, len(parents)]
        types += [1, 3]
        names += [2, 3]
        values += [-1, 10]
    n = len(types)
    return {
        "strings": strings,
        "documents": [{
            "nodes": {"parentIndex": parents, "nodeType": types, "nodeName": names,
                      "nodeValue": values},
            "layout": {"nodeIndex": list(range(n)), "bounds": [[0, 20 * i, 800, 20]
                       for i in range(n)], "styles": [[4, 5, 6, 7, 8, 9]] * n},
            "contentWidth": 800, "contentHeight": 20 * n,
        }],
    }  # fmt: skip


HTML = "<html><body><p>one paragraph of the page</p></body></html>"


def test_a_supplied_layout_over_max_nodes_is_refused_before_it_is_built(tmp_path):
    from scrapy_boilerplate.core.errors import UnsupportedInput
    from scrapy_boilerplate.extractors.vips import attach_layout, from_snapshot

    layout = tmp_path / "big.json"
    layout.write_text(json.dumps(flat_layout(300)))
    result = sb.extract(HTML, extractor="vips", layout=str(layout), max_nodes=100)
    assert result.reason == "too-many-nodes" and "max_nodes 100" in result.extra["detail"]
    # text nodes do not count: 300 elements pass a cap of 302
    assert sb.extract(HTML, extractor="vips", layout=str(layout), max_nodes=302).reason is None
    # a request's layout (meta): refused by with_context, a saved layout or a CDP snapshot
    for supplied in (flat_layout(300), flat_snapshot(300)):
        with pytest.raises(UnsupportedInput) as info:
            attach_layout(sb.parse(HTML, max_nodes=100), supplied)
        assert info.value.reason == "too-many-nodes"
    with pytest.raises(UnsupportedInput):
        from_snapshot(flat_snapshot(300), max_nodes=100)
    assert len(list(from_snapshot(flat_snapshot(300), max_nodes=302).nodes())) == 602


@deferred_f_from_coro_f
async def test_a_crawl_refuses_a_meta_layout_over_boilerplate_max_nodes():
    from scrapy_boilerplate.extractors.vips import LAYOUT_KEY
    from scrapy_helpers import PagesSpider, boilerplate_stats, crawl

    url = (PAGES / "article.html").as_uri()

    class VipsSpider(PagesSpider):
        name = "vips-big-layout"
        custom_settings: ClassVar[dict] = {
            "BOILERPLATE_EXTRACTOR": "vips",
            "BOILERPLATE_MAX_NODES": 1000,
        }

    items, stats, _ = await crawl(
        spider=VipsSpider, urls=[url], metas={url: {LAYOUT_KEY: flat_layout(5000)}}
    )
    assert items[0]["boilerplate_reason"] == "too-many-nodes"
    assert boilerplate_stats(stats)["empty/too-many-nodes"] == 1


@deferred_f_from_coro_f
async def test_a_malformed_meta_layout_is_invalid_meta_and_the_item_is_kept():
    # A layout a request carries is untrusted input, like the rest of its meta.
    from scrapy_boilerplate.extractors.vips import LAYOUT_KEY
    from scrapy_helpers import PagesSpider, boilerplate_stats, crawl

    url = (PAGES / "article.html").as_uri()

    class VipsSpider(PagesSpider):
        name = "vips-bad-layout"
        custom_settings: ClassVar[dict] = {"BOILERPLATE_EXTRACTOR": "vips"}

    bad = {"format": 1, "nodes": [[0, "div"]]}
    items, stats, _ = await crawl(spider=VipsSpider, urls=[url], metas={url: {LAYOUT_KEY: bad}})
    assert items[0]["boilerplate_reason"] == "invalid-meta"
    assert boilerplate_stats(stats)["empty/invalid-meta"] == 1


@pytest.mark.parametrize("kind", ["layout", "snapshot"])
def test_building_a_layout_checks_the_pages_deadline(monkeypatch, kind):
    from scrapy_boilerplate.core.deadline import ExtractionTimeout, within
    from scrapy_boilerplate.extractors.vips import from_snapshot
    from scrapy_helpers import CheckClock

    build = (lambda: Layout.from_json(flat_layout(20_000))) if kind == "layout" else (
        lambda: from_snapshot(flat_snapshot(20_000)))  # fmt: skip
    clock = CheckClock(monkeypatch)
    with within(1e9):
        build()
    checks = clock.checks()
    assert checks >= 20  # as it goes: ~40 000 nodes, a check every 1024 at least
    clock.reset()
    with pytest.raises(ExtractionTimeout), within(checks // 2):
        build()


def test_a_render_never_gets_more_time_than_the_page_has_left(monkeypatch):
    """``render_timeout`` (up to 600 s, settable from meta) is capped by the page's own
    deadline: the renderer is asked for no more than ``timeout``."""
    from scrapy_boilerplate.extractors.vips import RenderError, render

    asked = []

    def fake_render(html=None, *, url=None, timeout, **kw):
        asked.append(timeout)
        raise RenderError("timeout", "the fake browser always times out")

    monkeypatch.setattr(render, "render_snapshot", fake_render)
    result = sb.extract(HTML, extractor="vips", layout="rendered", render_timeout=600, timeout=5)
    assert asked and 0 < asked[0] <= 5
    assert result.reason in ("timeout", "render-timeout")
    result = sb.extract(HTML, extractor="vips", layout="rendered", render_timeout=20)
    assert asked[-1] == 20  # no deadline: the parameter


# -- the browser's sandbox, with a fake Playwright (tests/test_vips_browser.py: the real one) --


class FakeChromium:
    """Playwright's ``chromium`` whose sandboxed start fails as Chromium's does as root."""

    def __init__(self, error):
        self.error = error
        self.launches = []

    def launch(self, **kw):
        self.launches.append(kw["chromium_sandbox"])
        if kw["chromium_sandbox"]:
            raise self.error("BrowserType.launch: Browser logs: Chromium sandboxing failed!")
        return "browser"


def test_chromium_starts_sandboxed_and_unsandboxed_only_when_allowed(monkeypatch, caplog):
    playwright = pytest.importorskip("playwright.sync_api")
    from types import SimpleNamespace

    from scrapy_boilerplate.extractors.vips import RenderError, render

    chromium = FakeChromium(playwright.Error)
    fake = SimpleNamespace(chromium=chromium)
    monkeypatch.setattr(render, "_sandbox_fails", False)
    monkeypatch.delenv(render.SANDBOX_ENV, raising=False)
    with pytest.raises(RenderError) as info:  # the default: required
        render.launch(fake, None, 1000)
    assert info.value.reason == "no-sandbox" and render.SANDBOX_ENV in info.value.detail
    assert chromium.launches == [True]
    monkeypatch.setenv(render.SANDBOX_ENV, "allow-unsandboxed")
    with caplog.at_level("WARNING", logger=render.__name__):
        assert render.launch(fake, None, 1000) == "browser"
        assert render.launch(fake, None, 1000) == "browser"
    # tried with the sandbox once; then without, remembered, and said once
    assert chromium.launches == [True, True, False, False]
    assert len([r for r in caplog.records if "sandbox" in r.getMessage()]) == 1
    with pytest.raises(RenderError):  # the argument wins over the environment
        render.launch(fake, "require", 1000)
    with pytest.raises(ValueError):
        render.sandbox_mode("off")


def test_boilerplate_browser_sandbox_setting(monkeypatch):
    from scrapy.settings import Settings

    from scrapy_boilerplate.extractors.vips import render
    from scrapy_boilerplate.scrapy.config import (
        BROWSER_SANDBOX_MODES,
        BoilerplateSettingsError,
        Config,
    )

    assert BROWSER_SANDBOX_MODES == render.SANDBOX_MODES
    monkeypatch.delenv(render.SANDBOX_ENV, raising=False)
    assert Config.from_settings(Settings()).browser_sandbox is None
    config = Config.from_settings(Settings({"BOILERPLATE_BROWSER_SANDBOX": "allow-unsandboxed"}))
    assert config.browser_sandbox == "allow-unsandboxed"
    assert config.run_options() == {"browser_sandbox": "allow-unsandboxed"}
    # Reading settings changes nothing of the process (the choice goes with the pages).
    assert render.SANDBOX_ENV not in __import__("os").environ
    assert render.sandbox_mode() == "require"
    with pytest.raises(BoilerplateSettingsError, match="BOILERPLATE_BROWSER_SANDBOX"):
        Config.from_settings(Settings({"BOILERPLATE_BROWSER_SANDBOX": "off"}))


@deferred_f_from_coro_f
async def test_two_crawlers_in_one_process_each_render_with_their_own_sandbox_setting(
    monkeypatch,
):
    """``BOILERPLATE_BROWSER_SANDBOX`` goes with each crawler's pages to the renderer (a
    run option its runner sets where the page runs), never through the environment that
    every crawler, thread and later process of the process would share."""
    from functools import partial

    from scrapy.utils.test import get_crawler

    from scrapy_boilerplate.extractors.vips import RenderError, render
    from scrapy_boilerplate.scrapy.state import state_for
    from scrapy_helpers import PagesSpider

    asked: list[str | None] = []

    def fake_render(html=None, *, sandbox=None, **kw):
        asked.append(sandbox)
        raise RenderError("no-sandbox", "(a fake browser)")

    monkeypatch.setattr(render, "render_snapshot", fake_render)
    monkeypatch.delenv(render.SANDBOX_ENV, raising=False)
    modes = ("allow-unsandboxed", "require", "allow-unsandboxed")
    states = [
        state_for(get_crawler(PagesSpider, {"BOILERPLATE_BROWSER_SANDBOX": mode})) for mode in modes
    ]
    other = state_for(get_crawler(PagesSpider, {"BOILERPLATE_EXECUTION": "inline"}))
    assert render.SANDBOX_ENV not in __import__("os").environ
    rendered = partial(sb.extract, HTML, "vips", layout="rendered")
    try:
        for state in [*states, other]:
            result, _ = await state.runner.run(rendered)
            assert result.reason == "render-no-sandbox"
    finally:
        for state in states:
            state.runner.close()
    assert asked == [*modes, None]  # None: the renderer's own default (require)
    # In process mode the choice goes with each page to the worker process.
    from scrapy_boilerplate.core.options import option

    settings = {"BOILERPLATE_BROWSER_SANDBOX": "allow-unsandboxed"}
    settings.update(BOILERPLATE_EXECUTION="process", BOILERPLATE_WORKERS=1)
    state = state_for(get_crawler(PagesSpider, settings))
    try:
        assert (await state.runner.run(option, "browser_sandbox"))[0] == "allow-unsandboxed"
    finally:
        state.runner.close()
    assert option("browser_sandbox") is None  # (nothing left where the runner ran it)
