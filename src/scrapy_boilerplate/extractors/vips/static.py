"""The static layout provider: an APPROXIMATE layout from the HTML alone, so VIPS runs where
no browser is available (and far faster than rendering the page).

What it does: the default display of each tag (HTML's user-agent stylesheet, simplified),
inline ``style`` attributes (``display``, ``visibility``, ``background``,
``background-color``, ``font-size``, ``font-weight``, ``width``, ``height``) and the old
presentational attributes (``bgcolor``, ``width``, ``height``); normal flow only: block
boxes stack down the page at their parent's width (lists and block quotes indented), inline
content (text, inline elements, images) wraps into lines of ``0.5 em`` per character and
``1.2 em`` per line, table cells share their row's width equally (or by their ``width``).

What it cannot know, and so gets wrong: style sheets (``<style>`` and linked CSS), floats
and columns, flex and grid, positioned elements, real font metrics, image sizes not written
in the HTML (``50 x 50`` px is assumed), anything a script builds. On real pages its
vertical positions drift; separators between columns are mostly missed. Nodes deeper than
:data:`MAX_DEPTH` are laid out as text of their ancestor at that depth. Use the rendered
provider (:mod:`.render`) where layout matters; docs/vips.md compares the two.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import Document
from scrapy_boilerplate.extractors.vips.layout import TEXT, Layout, LNode, parse_color

MAX_DEPTH = 180
BASE_FONT = 16.0
CHAR_EM = 0.5  # average character width, in em
LINE_EM = 1.2  # line height, in em
IMAGE_GUESS = (50.0, 50.0)

BLOCK_TAGS = frozenset(
    {
        "html", "body", "div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li",
        "dl", "dt", "dd", "table", "caption", "thead", "tbody", "tfoot", "tr", "td", "th",
        "form", "fieldset", "legend", "header", "footer", "section", "article", "nav",
        "aside", "main", "blockquote", "pre", "hr", "address", "center", "figure",
        "figcaption", "details", "summary", "menu", "dir", "noscript", "frameset", "frame",
        "hgroup", "search", "option", "optgroup",
    }
)  # fmt: skip
REPLACED = frozenset(
    {"img", "video", "audio", "canvas", "svg", "iframe", "object", "embed", "input",
     "textarea", "select", "button", "picture"}
)  # fmt: skip
FONT_EM = {"h1": 2.0, "h2": 1.5, "h3": 1.17, "h4": 1.0, "h5": 0.83, "h6": 0.67,
           "small": 0.83, "big": 1.2, "sub": 0.83, "sup": 0.83}  # fmt: skip
BOLD = frozenset({"b", "strong", "th", "h1", "h2", "h3", "h4", "h5", "h6"})
MARGIN_EM = {"p": 1.0, "ul": 1.0, "ol": 1.0, "dl": 1.0, "blockquote": 1.0, "pre": 1.0,
             "figure": 1.0, "h1": 0.67, "h2": 0.83, "h3": 1.0, "h4": 1.33, "h5": 1.67,
             "h6": 2.33, "hr": 0.5}  # fmt: skip
INDENT = {"ul": 40.0, "ol": 40.0, "blockquote": 40.0, "dd": 40.0, "menu": 40.0}

_DECL = re.compile(r"([a-zA-Z-]+)\s*:\s*([^;]+)")
_LENGTH = re.compile(r"^\s*([\d.]+)\s*(px|em|rem|%|pt)?\s*$")


def _style(el: Any) -> dict[str, str]:
    raw = el.get("style")
    if not raw:
        return {}
    return {k.lower(): v.strip().lower() for k, v in _DECL.findall(raw)}


def _length(value: str | None, em: float, whole: float) -> float | None:
    if not value:
        return None
    m = _LENGTH.match(value.removesuffix("!important"))
    if not m:
        return None
    n = float(m.group(1))
    unit = m.group(2) or "px"
    if unit == "em" or unit == "rem":
        return n * em
    if unit == "%":
        return n * whole / 100
    if unit == "pt":
        return n * 4 / 3
    return n


def _tag(el: Any) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


class _Flow:
    """Lays out one page; keeps the XPath step counts and the page height."""

    def __init__(self, doc: Document, width: float) -> None:
        self.removed = doc.removed
        self.width = width

    def element(self, el: Any, parent: LNode | None, xpath: str) -> LNode | None:
        """An LNode for ``el`` with its own style (no box yet); None when not displayed."""
        tag = _tag(el)
        if not tag or el in self.removed or tag == "head":
            return None
        st = _style(el)
        display = st.get("display") or ("block" if tag in BLOCK_TAGS else "inline")
        if tag == "table":
            display = st.get("display") or "table"
        elif tag == "tr":
            display = "table-row"
        elif tag in ("td", "th"):
            display = "table-cell"
        if display == "none":
            return None
        parent_font = parent.font_size if parent is not None else BASE_FONT
        size = _length(st.get("font-size"), parent_font, parent_font)
        if size is None:
            size = parent_font * FONT_EM.get(tag, 1.0)
        weight = parent.font_weight if parent is not None else 400
        fw = st.get("font-weight")
        if fw:
            weight = 700 if fw in ("bold", "bolder") else 400 if fw == "normal" else _int(fw)
        elif tag in BOLD:
            weight = 700
        bg = parse_color(st.get("background-color") or _first_color(st.get("background")))
        if bg is None and el.get("bgcolor"):
            bg = parse_color(el.get("bgcolor"))
        visible = st.get("visibility", "visible") not in ("hidden", "collapse")
        if parent is not None and not parent.visible:
            visible = False
        return LNode(tag, display=display, visible=visible, background=bg, font_size=size,
                     font_weight=weight, xpath=xpath)  # fmt: skip

    def content(self, el: Any, node: LNode, depth: int) -> Iterator[tuple[Any, LNode]]:
        """``el``'s content in order: ``(None, text_leaf)`` for non-blank text (whitespace
        counts in the XPath positions only), ``(child_el, child_node)`` for displayed child
        elements (attached to ``node``). Below :data:`MAX_DEPTH` a child's whole text is one
        leaf of it, yielded as text."""
        counts: dict[str, int] = {}

        def step(name: str) -> str:
            counts[name] = counts.get(name, 0) + 1
            return f"{node.xpath}/{name}[{counts[name]}]"

        if el.text and el.text.strip():
            yield None, self.text(el.text, node, step("text()"))
        elif el.text:
            step("text()")
        check()  # the page's deadline, once per element with children
        for child in el:
            ctag = _tag(child)
            cnode = self.element(child, node, step(ctag)) if ctag else None
            if cnode is not None:
                node.children.append(cnode)
                cnode.parent = node
                if depth < MAX_DEPTH:
                    yield child, cnode
                else:  # too deep: the subtree's text is one leaf of the child
                    cnode.display = "inline"
                    text = " ".join(child.itertext())
                    if text.strip():
                        yield None, self.text(text, cnode, cnode.xpath + "/text()[1]")
            tail = child.tail
            if tail and tail.strip():
                yield None, self.text(tail, node, step("text()"))
            elif tail:
                step("text()")

    @staticmethod
    def _chain(leaf: LNode, top: LNode) -> list[LNode]:
        """The inline elements from ``top`` (excluded) down to ``leaf``'s parent."""
        chain: list[LNode] = []
        n = leaf.parent
        while n is not None and n is not top:
            chain.append(n)
            n = n.parent
        chain.reverse()
        return chain

    # -- layout -------------------------------------------------------------------------------
    def block(self, el: Any, node: LNode, x: float, y: float, width: float, depth: int) -> float:
        """Lay out ``el``'s content inside the box at ``x, y`` of ``width``; returns the
        content height. ``node`` gets its children and every descendant its box."""
        st = _style(el)
        tag = node.tag
        indent = INDENT.get(tag, 0.0) + (8.0 if tag == "body" else 0.0)
        pad_top = 8.0 if tag == "body" else 0.0
        inner_x, inner_w = x + indent, max(width - indent - (8.0 if tag == "body" else 0.0), 1.0)
        cy = y + pad_top
        run: list[tuple[LNode, list[LNode]]] = []  # text leaves with their inline ancestors
        prev_margin = 0.0

        def flush() -> None:
            nonlocal cy
            if run:
                cy += self.inline_run(run, inner_x, cy, inner_w, node.font_size)
                run.clear()

        if node.display == "table-row":
            return self.row(el, node, x, y, width, depth)
        for child, cnode in self.content(el, node, depth):
            if child is None:
                run.append((cnode, self._chain(cnode, node)))
            elif cnode.display.startswith("inline") and not self._has_block(child):
                self.inline(child, cnode, run, [cnode], depth + 1)
            else:
                flush()
                margin = MARGIN_EM.get(cnode.tag, 0.0) * cnode.font_size
                cy += max(margin - prev_margin, 0.0)
                ch = self.sized(child, cnode, inner_x, cy, inner_w, depth + 1)
                cy += ch + margin
                prev_margin = margin
        flush()
        height = _length(st.get("height"), node.font_size, 0.0)
        content = cy - y
        return max(content, height) if height is not None else content

    def sized(self, el: Any, node: LNode, x: float, y: float, width: float, depth: int) -> float:
        """A block-level box: its width from ``style``/``width=`` (else the container's)."""
        st = _style(el)
        w = _length(st.get("width") or el.get("width"), node.font_size, width)
        w = min(w, width) if w else width
        if node.tag == "hr":
            node.x, node.y, node.w, node.h = x, y, w, 2.0
            return 2.0
        if node.tag in REPLACED:
            iw, ih = self.replaced_size(el, node)
            node.x, node.y, node.w, node.h = x, y, iw, ih
            return ih
        h = self.block(el, node, x, y, w, depth)
        node.x, node.y, node.w, node.h = x, y, w, h
        return h

    def row(self, el: Any, node: LNode, x: float, y: float, width: float, depth: int) -> float:
        """A table row: its cells side by side (``width=`` where given, else equal shares)."""
        cells = [c for c in el if _tag(c) in ("td", "th")]
        counts: dict[str, int] = {}
        fixed = [_length(c.get("width") or _style(c).get("width"), 16.0, width) for c in cells]
        free = max(width - sum(f for f in fixed if f), 0.0)
        n_free = sum(1 for f in fixed if not f) or 1
        cx, height = x, 0.0
        for cell, fw in zip(cells, fixed, strict=True):
            tag = _tag(cell)
            counts[tag] = counts.get(tag, 0) + 1
            cnode = self.element(cell, node, f"{node.xpath}/{tag}[{counts[tag]}]")
            if cnode is None:
                continue
            cnode.parent = node
            node.children.append(cnode)
            cw = fw if fw else free / n_free
            h = self.block(cell, cnode, cx, y, cw, depth + 1)
            cnode.x, cnode.y, cnode.w, cnode.h = cx, y, cw, h
            cx += cw
            height = max(height, h)
        for cnode in node.children:  # cells stretch to the row's height
            cnode.h = height
        return height

    def replaced_size(self, el: Any, node: LNode) -> tuple[float, float]:
        st = _style(el)
        w = _length(st.get("width") or el.get("width"), node.font_size, self.width)
        h = _length(st.get("height") or el.get("height"), node.font_size, 0.0)
        if node.tag in ("input", "select", "button"):
            return (w or 150.0), (h or node.font_size * 1.5)
        return (w or IMAGE_GUESS[0]), (h or IMAGE_GUESS[1])

    @staticmethod
    def _has_block(el: Any) -> bool:
        """An inline element holding block content is laid out as a block."""
        return any(_tag(d) in BLOCK_TAGS for d in el.iterdescendants())

    def text(self, text: str, parent: LNode, xpath: str) -> LNode:
        node = LNode(TEXT, display="inline", visible=parent.visible, font_size=parent.font_size,
                     font_weight=parent.font_weight, text=text, xpath=xpath)  # fmt: skip
        node.parent = parent
        parent.children.append(node)
        return node

    def inline(
        self, el: Any, node: LNode, run: list[tuple[LNode, list[LNode]]], chain: list[LNode],
        depth: int,
    ) -> None:  # fmt: skip
        """Collect an inline element's text leaves (and replaced elements) into ``run``."""
        if node.tag in REPLACED or node.tag == "br":
            if node.tag in REPLACED:  # its size from the HTML; the run places it
                node.w, node.h = self.replaced_size(el, node)
            run.append((node, list(chain[:-1])))
            return
        for child, cnode in self.content(el, node, depth):
            if child is None:
                run.append((cnode, chain + self._chain(cnode, node)))
            else:
                self.inline(child, cnode, run, [*chain, cnode], depth + 1)

    def inline_run(
        self, run: list[tuple[LNode, list[LNode]]], x: float, y: float, width: float,
        font: float,
    ) -> float:  # fmt: skip
        """Wrap a run of inline leaves into lines; boxes for the leaves and their inline
        ancestors; returns the run's height."""
        pos = 0.0  # pixels from the start of the run, as if on one endless line
        line_h = font * LINE_EM
        for leaf, _ in run:
            line_h = max(line_h, leaf.font_size * LINE_EM)
        top_extra = 0.0
        for leaf, _ in run:
            if leaf.tag == "br":
                pos = math.ceil((pos + 0.01) / width) * width
                leaf.x, leaf.y, leaf.w, leaf.h = x + pos % width, y + (pos // width) * line_h, 0, 0
                continue
            if leaf.tag in REPLACED:
                w, h = leaf.w or IMAGE_GUESS[0], leaf.h or IMAGE_GUESS[1]
                top_extra = max(top_extra, h - line_h)
                length = min(w, width)
            else:
                length = len(" ".join(leaf.text.split())) * CHAR_EM * leaf.font_size
                if leaf.text[:1].isspace() and pos:
                    pos += CHAR_EM * leaf.font_size
            line0 = pos // width
            end = pos + length
            line1 = max((end - 0.01) // width, line0)
            if line1 > line0:
                leaf.x, leaf.w = x, width
            else:
                leaf.x, leaf.w = x + pos - line0 * width, max(length, 1.0)
            leaf.y = y + line0 * line_h
            leaf.h = (line1 - line0 + 1) * line_h
            if leaf.tag in REPLACED:
                leaf.w, leaf.h = min(w, width), h
            pos = end
        for leaf, chain in run:  # inline ancestors: the union of their leaves
            for anc in chain:
                if anc.w == 0 and anc.h == 0:
                    anc.x, anc.y, anc.w, anc.h = leaf.x, leaf.y, leaf.w, leaf.h
                else:
                    x0, y0 = min(anc.x, leaf.x), min(anc.y, leaf.y)
                    x1, y1 = max(anc.right, leaf.right), max(anc.bottom, leaf.bottom)
                    anc.x, anc.y, anc.w, anc.h = x0, y0, x1 - x0, y1 - y0
        lines = math.floor(max(pos - 0.01, 0.0) / width) + 1
        return lines * line_h + top_extra


def _int(value: str) -> int:
    try:
        return int(float(value))
    except ValueError:
        return 400


def _first_color(value: str | None) -> str | None:
    """The colour in a ``background`` shorthand (``#fff url(x) no-repeat`` -> ``#fff``)."""
    if not value:
        return None
    m = re.search(r"(#[0-9a-f]{3,8}\b|rgba?\([^)]*\)|\b[a-z]+\b)", value)
    return m.group(1) if m else None


def static_layout(doc: Document, width: float = 1366.0) -> Layout:
    """An approximate :class:`Layout` of ``doc`` at a viewport ``width`` (see module doc)."""
    flow = _Flow(doc, width)
    root_el = doc.root
    root = LNode("html", xpath="/html[1]")
    body_el = root_el.find("body") if _tag(root_el) == "html" else None
    if body_el is None:
        body_el = root_el
    body = flow.element(body_el, root, "/html[1]/body[1]")
    if body is None:
        body = LNode("body", xpath="/html[1]/body[1]")
    body.parent = root
    root.children.append(body)
    h = flow.block(body_el, body, 0.0, 0.0, width, 0)
    body.x, body.y, body.w, body.h = 0.0, 0.0, width, h
    root.x, root.y, root.w, root.h = 0.0, 0.0, width, h
    return Layout(root, width, h, "static", doc.url)
