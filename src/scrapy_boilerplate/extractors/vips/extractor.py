"""VIPS as an extractor: segment the page, then label the visual blocks content / boilerplate.

The TR segments; it does not say which block is main content. Our labelling (docs/vips.md
has the measurements) uses the structure VIPS found:

1. every leaf visual block gets its characters, its link characters (text inside ``<a>``)
   and its words;
2. the **main block** is the deepest visual block (at any level) that holds at least
   ``main_share`` of the page's non-link characters: the region of the page where the text
   is, as a reader sees it;
3. a leaf inside the main block is content when its link density is at most
   ``max_link_density``; a leaf outside it is content when it also has at least
   ``outside_min_words`` words (0 turns that off), so a long text block in another column
   is kept.

Layouts: ``layout="auto"`` uses the layout attached to the document (a crawl with
scrapy-playwright, :func:`attach_layout`), else the static approximation;
``"static"``; ``"rendered"`` renders the page in headless Chromium (slow: a browser per
call; for many pages render once and attach); or a path to a saved layout or CDP snapshot
(JSON).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scrapy_boilerplate.core.deadline import check, remaining
from scrapy_boilerplate.core.document import Document
from scrapy_boilerplate.core.errors import InvalidParameter, UnsupportedInput
from scrapy_boilerplate.core.options import option
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.registry import Extractor
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Block, Extraction
from scrapy_boilerplate.extractors.vips.algorithm import (
    DEFAULT_CHILD_SIZE,
    DEFAULT_TAG_DOC,
    DEFAULT_TEXT_SIZE,
    VipsConfig,
    VisualBlock,
    segment,
    tree_to_dict,
)
from scrapy_boilerplate.extractors.vips.layout import Layout, LayoutError, LNode
from scrapy_boilerplate.extractors.vips.render import RenderError

_CACHE_KEY = "vips_layout"
#: The values of ``layout`` that are not files (the only ones a request's meta may give,
#: besides the files the crawl's settings allow).
LAYOUT_KEYWORDS = ("auto", "static", "rendered")

PARAMS = (
    Param(
        "layout",
        str,
        "auto",
        "where the layout comes from: 'auto' (the one attached to the page, else static), "
        "'static' (approximate, from the HTML), 'rendered' (headless Chromium), or the path "
        "of a saved layout / CDP snapshot (JSON)",
        path=True,
        keywords=LAYOUT_KEYWORDS,
    ),
    Param(
        "pdoc",
        int,
        5,
        "permitted degree of coherence: leaves with DoC <= pdoc are "
        "segmented again (smaller: coarser)",
        1,
        10,
    ),
    Param("max_rounds", int, 20, "rounds of segmentation at most", 1, 100),
    Param(
        "inline_by",
        str,
        "tag",
        "what makes an inline node: 'tag' (the TR's inline text tags) or 'display' "
        "(computed CSS display inline*)",
        choices=("tag", "display"),
    ),
    Param(
        "text_size",
        dict,
        DEFAULT_TEXT_SIZE,
        "rule 9: relative size below which a node "
        "with text children is one block, per node kind (inline, p, td, other)",
        0.0,
        1.0,
    ),
    Param(
        "child_size",
        dict,
        DEFAULT_CHILD_SIZE,
        "rule 10: relative size of the largest "
        "child below which a node is one block, per node kind",
        0.0,
        1.0,
    ),
    Param(
        "tag_doc",
        dict,
        DEFAULT_TAG_DOC,
        "base DoC per tag for 'DoC by tag and size' (other tags: default_tag_doc)",
        1,
        10,
    ),
    Param("default_tag_doc", int, 6, "base DoC of tags not in tag_doc", 1, 10),
    Param("small_size", float, 0.05, "DoC by size: relative size below which DoC + 1", 0.0, 1.0),
    Param("large_size", float, 0.3, "DoC by size: relative size above which DoC - 1", 0.0, 1.0),
    Param("weight_gap", float, 3.0, "separator weight rule 1: weight of the widest gaps", 0.0),
    Param("gap_cap", float, 30.0, "rule 1: gap in pixels that earns the full weight_gap", 1.0),
    Param("weight_hr", float, 3.0, "rule 2: added when an <hr> lies in the separator", 0.0),
    Param(
        "weight_background",
        float,
        2.0,
        "rule 3: added for different background colours on the two sides",
        0.0,
    ),
    Param(
        "weight_font_size",
        float,
        1.0,
        "rule 4: added for different font sizes (horizontal separators)",
        0.0,
    ),
    Param("weight_font_weight", float, 1.0, "rule 4: added for different font weights", 0.0),
    Param(
        "weight_font_order",
        float,
        1.0,
        "rule 4: added when the font above is smaller than below",
        0.0,
    ),
    Param(
        "weight_similar",
        float,
        1.0,
        "rule 5: subtracted for similar structure on both sides (horizontal separators)",
        0.0,
    ),
    Param("weight_base", float, 1.0, "the weight every separator starts from", 0.0, 10.0),
    Param(
        "font_size_diff",
        float,
        0.5,
        "rule 4: font sizes (px) that differ by more than this are different",
        0.0,
    ),
    Param(
        "font_weight_diff",
        int,
        200,
        "rule 4: font weights that differ by at least this are different",
        1,
    ),
    Param(
        "viewport_width",
        int,
        1366,
        "page width in CSS pixels for static and rendered layouts",
        200,
        10000,
    ),
    Param(
        "render_timeout",
        float,
        30.0,
        "seconds a rendering may take ('rendered'; never past the page's own time limit)",
        1.0,
        600.0,
    ),
    Param(
        "javascript",
        bool,
        False,
        "run the page's JavaScript when rendering it ('rendered'; off: the page as served)",
    ),
    Param(
        "main_share",
        float,
        0.7,
        "labelling: the main block is the deepest visual block "
        "with at least this share of the page's non-link characters",
        0.0,
        1.0,
    ),
    Param(
        "max_link_density",
        float,
        0.5,
        "labelling: leaves with a higher link density are boilerplate",
        0.0,
        1.0,
    ),
    Param(
        "outside_min_words",
        int,
        30,
        "labelling: leaves outside the main block with at "
        "least this many words are content too (0: none)",
        0,
    ),
)


#: Request meta: the page's rendered layout for VIPS (a CDP ``DOMSnapshot.captureSnapshot``
#: result or a saved layout's JSON). With scrapy-playwright, a
#: ``PageMethod(scrapy_boilerplate.extractors.vips.capture_snapshot)`` in
#: ``playwright_page_methods`` is found without it.
LAYOUT_KEY = "boilerplate_layout"


def layout_from_meta(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """The rendered layout a request carries (see :data:`LAYOUT_KEY`), or None."""
    layout = meta.get(LAYOUT_KEY)
    if isinstance(layout, dict):
        return layout
    methods = meta.get("playwright_page_methods") or ()
    if isinstance(methods, dict):
        methods = methods.values()
    for method in methods:
        result = getattr(method, "result", None)
        if isinstance(result, dict) and "documents" in result and "strings" in result:
            return result
    return None


def attach_layout(doc: Document, layout: Layout | dict[str, Any]) -> Document:
    """Give ``doc`` the layout VIPS should use with ``layout="auto"`` (a :class:`Layout`,
    a saved layout's JSON or a raw CDP snapshot, e.g. from scrapy-playwright)."""
    if not isinstance(layout, Layout):
        layout = Layout.from_json(layout, doc.max_nodes)
    doc._cache[_CACHE_KEY] = layout
    return doc


def _config(params: dict[str, Any]) -> VipsConfig:
    return VipsConfig(
        pdoc=params["pdoc"],
        max_rounds=params["max_rounds"],
        inline_by=params["inline_by"],
        text_size=params["text_size"],
        child_size=params["child_size"],
        tag_doc={k: int(v) for k, v in params["tag_doc"].items()},
        default_tag_doc=params["default_tag_doc"],
        small_size=params["small_size"],
        large_size=params["large_size"],
        weight_gap=params["weight_gap"],
        gap_cap=params["gap_cap"],
        weight_hr=params["weight_hr"],
        weight_background=params["weight_background"],
        weight_font_size=params["weight_font_size"],
        weight_font_weight=params["weight_font_weight"],
        weight_font_order=params["weight_font_order"],
        weight_similar=params["weight_similar"],
        weight_base=params["weight_base"],
        font_size_diff=params["font_size_diff"],
        font_weight_diff=params["font_weight_diff"],
    )


def get_layout(doc: Document, params: dict[str, Any]) -> Layout:
    """The layout ``params["layout"]`` asks for (see the module docstring)."""
    source = params["layout"]
    width = params["viewport_width"]
    if source == "auto":
        cached = doc._cache.get(_CACHE_KEY)
        if cached is not None:
            return cached
        source = "static"
    if source == "static":
        from scrapy_boilerplate.extractors.vips.static import static_layout

        return static_layout(doc, width)
    if source == "rendered":
        return render_layout(doc, width, params["render_timeout"], params["javascript"])
    path = Path(source)
    if not path.is_file():
        raise InvalidParameter(
            f"parameter 'layout' got {source!r}: not 'auto', 'static', 'rendered' nor an "
            "existing layout file",
            "layout",
        )
    try:
        return Layout.load(path, doc.max_nodes)
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise InvalidParameter(
            f"parameter 'layout': {source} is not a layout or CDP snapshot ({exc})", "layout"
        ) from None


def render_layout(doc: Document, width: int, timeout: float, javascript: bool = False) -> Layout:
    """Render ``doc`` in headless Chromium (its file if ``doc.url`` is a ``file:`` URL, so
    style sheets load; else its serialised HTML), its scripts run only with ``javascript``.

    The render takes ``timeout`` seconds at most, and never more than what is left of the
    page's deadline; the rendered page is held to ``doc.max_nodes`` elements. The browser's
    sandbox is the run option ``browser_sandbox`` where the caller set one (a crawl's
    ``BOILERPLATE_BROWSER_SANDBOX``), else the renderer's default."""
    from lxml import etree

    from scrapy_boilerplate.extractors.vips.layout import from_snapshot
    from scrapy_boilerplate.extractors.vips.render import render_snapshot

    left = remaining()
    if left is not None:
        check()
        timeout = min(timeout, left)
    limits: dict[str, Any] = {"width": width, "timeout": timeout, "javascript": javascript,
              "max_nodes": doc.max_nodes, "sandbox": option("browser_sandbox")}  # fmt: skip
    if doc.url and doc.url.startswith("file:"):
        snapshot = render_snapshot(url=doc.url, **limits)
    else:
        html = etree.tostring(doc.root, method="html", encoding="unicode")
        snapshot = render_snapshot(html, **limits)
    return from_snapshot(snapshot, max_nodes=doc.max_nodes)


def _link_text_ids(root: LNode) -> set[int]:
    """ids of the text nodes inside an ``<a>``."""
    out: set[int] = set()
    stack: list[tuple[LNode, bool]] = [(root, False)]
    while stack:
        node, in_link = stack.pop()
        if node.is_text:
            if in_link:
                out.add(id(node))
            continue
        inside = in_link or node.tag == "a"
        stack.extend((c, inside) for c in node.children)
    return out


def label_blocks(
    page: VisualBlock, main_share: float, max_link_density: float, outside_min_words: int
) -> tuple[list[VisualBlock], list[bool], list[float], VisualBlock]:
    """The leaves in document order, their content labels, link densities and the main block
    (module docstring, steps 1-3)."""
    order = {id(n): i for i, n in enumerate(page.nodes[0].iter())} if page.nodes else {}
    link_ids = _link_text_ids(page.nodes[0]) if page.nodes else set()
    leaves = page.leaves()
    leaves.sort(key=lambda vb: order.get(id(vb.nodes[0]), 0) if vb.nodes else 0)
    stats: dict[int, tuple[int, int, int]] = {}  # id(leaf) -> chars, link chars, words
    for leaf in leaves:
        check()  # the page's deadline
        chars = links = words = 0
        for node in leaf.nodes:
            for n in node.iter():
                if n.is_text and n.visible:
                    t = n.text.split()
                    c = sum(map(len, t))
                    chars += c
                    words += len(t)
                    if id(n) in link_ids:
                        links += c
        stats[id(leaf)] = (chars, links, words)
    total = sum(c - lk for c, lk, _ in stats.values())
    main = page
    if total > 0:  # deepest block holding main_share of the non-link text
        best_depth = 0
        stack: list[tuple[VisualBlock, int]] = [(page, 0)]
        while stack:
            vb, depth = stack.pop()
            own = sum(stats[id(lf)][0] - stats[id(lf)][1] for lf in vb.leaves())
            if own < main_share * total:
                continue
            if depth > best_depth:
                main, best_depth = vb, depth
            stack.extend((c, depth + 1) for c in vb.children)
    inside = {id(lf) for lf in main.leaves()}
    labels: list[bool] = []
    densities: list[float] = []
    for leaf in leaves:
        chars, links, words = stats[id(leaf)]
        density = links / chars if chars else 0.0
        densities.append(density)
        ok = chars > 0 and density <= max_link_density
        if id(leaf) not in inside:
            ok = ok and outside_min_words > 0 and words >= outside_min_words
        labels.append(ok)
    return leaves, labels, densities, main


class VipsExtractor(Extractor):
    """VIPS: the visual block tree in ``extra["tree"]``; blocks are the leaf visual blocks
    (fields ``id``, ``doc``, ``rule``, ``box``, ``xpaths``), labelled as the module says."""

    name = "vips"
    params = PARAMS

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        checked = super().validate(params)
        if checked["small_size"] > checked["large_size"]:
            raise InvalidParameter(
                "parameter 'small_size' must not exceed 'large_size'", "small_size"
            )
        return checked

    def context_from_meta(self, meta: Mapping[str, Any]) -> dict[str, Any] | None:
        """The rendered layout a crawl request carries (:func:`layout_from_meta`)."""
        return layout_from_meta(meta)

    def with_context(self, doc: Document, context: Any) -> Document:
        """``doc`` with the request's layout attached (used by ``layout="auto"``); a
        malformed layout is a bad meta value (:class:`InvalidParameter`)."""
        try:
            return attach_layout(doc, context)
        except LayoutError as exc:
            raise InvalidParameter(f"meta[{LAYOUT_KEY!r}]: {exc}", LAYOUT_KEY) from None

    def extract(self, doc: Document, params: dict[str, Any]) -> Extraction:
        t0 = time.perf_counter()
        try:
            layout = get_layout(doc, params)
        except RenderError as exc:  # bad input for the browser: a result that says why
            check()  # (a render cut short by the page's deadline: reason timeout)
            return Extraction.failed(
                f"render-{exc.reason}", self.name, dict(params), extra={"detail": exc.detail}
            )
        except UnsupportedInput as exc:  # a rendered or supplied layout over max_nodes
            return Extraction.failed(
                exc.reason, self.name, dict(params), extra={"detail": exc.detail}
            )
        t1 = time.perf_counter()
        page = segment(layout, _config(params))
        t2 = time.perf_counter()
        leaves, labels, densities, main = label_blocks(
            page, params["main_share"], params["max_link_density"], params["outside_min_words"]
        )
        blocks: list[Block] = []
        offset = 0
        texts: dict[int, str] = {}
        for leaf, content, density in zip(leaves, labels, densities, strict=True):
            text = texts[id(leaf)] = leaf.text()
            if not text:
                continue
            node = leaf.nodes[0]
            blocks.append(
                Block(
                    text.replace("\n", " ") if node.is_text else text,
                    node.xpath,
                    "#text" if node.is_text else node.tag,
                    CONTENT if content else BOILERPLATE,
                    "",
                    round(density, 4),
                    len(blocks),
                    offset,
                    {
                        "id": leaf.id,
                        "doc": int(leaf.doc),
                        "rule": leaf.rule,
                        "box": [
                            round(leaf.x, 1),
                            round(leaf.y, 1),
                            round(leaf.w, 1),
                            round(leaf.h, 1),
                        ],
                        "xpaths": [n.xpath for n in leaf.nodes],
                    },
                )
            )
            offset += len(text) + 2
        timings = dict(layout.timings)
        timings.update(layout_s=round(t1 - t0, 6), segment_s=round(t2 - t1, 6))
        extra: dict[str, Any] = {
            "layout": layout.source,
            "page_size": [layout.width, layout.height],
            "main_block": main.id,
            "tree": tree_to_dict(page, texts=texts),
            "timings": {k: round(float(v), 6) for k, v in timings.items()},
        }
        return Extraction.from_blocks(blocks, self.name, dict(params), extra=extra)
