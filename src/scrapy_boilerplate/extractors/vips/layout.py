"""The layout VIPS reads: a tree of boxes with the visual cues of the TR (section 4.1).

One model, two providers. A :class:`Layout` is built either from a Chromium
``DOMSnapshot.captureSnapshot`` (:func:`from_snapshot`, the rendered layout; see
:mod:`.render`) or from the HTML alone (:mod:`.static`, approximate). Both give the same
:class:`LNode` tree, and a layout serialises to plain JSON (:meth:`Layout.to_json`) so the
algorithm's tests run on recorded layouts without a browser.

The JSON form is flat (one row per node, in document order, with the parent's row number),
so a 10 000-deep page serialises without recursion.

A snapshot or a saved layout comes from outside the parsed page (a browser that ran its
scripts, a request's meta, a file), so both builders take the page's ``max_nodes``: one
with more elements is refused (reason ``too-many-nodes``) after counting them, before a
node is built; and they check the page's deadline as they go.
"""

from __future__ import annotations

import json
import math
import re
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import WeakParent
from scrapy_boilerplate.core.errors import BoilerplateError, UnsupportedInput
from scrapy_boilerplate.core.reasons import Reason

#: Computed styles asked of Chromium, in this order (``DOMSnapshot.captureSnapshot``).
SNAPSHOT_STYLES = (
    "display",
    "visibility",
    "opacity",
    "background-color",
    "font-size",
    "font-weight",
)

TEXT = "#text"
WHITE = (255, 255, 255)
LAYOUT_FORMAT = 1
#: Nodes built between two checks of the page's deadline.
CHECK_EVERY = 1024


def check_elements(count: int, max_nodes: int, what: str) -> None:
    """Refuse a layout of ``count`` elements when over ``max_nodes`` (0: no limit)."""
    if max_nodes and count > max_nodes:
        raise UnsupportedInput(
            Reason.TOO_MANY_NODES, f"{what}: {count} elements > max_nodes {max_nodes}"
        )


class LayoutError(BoilerplateError, ValueError):
    """A layout that cannot be used: a saved layout's JSON or a CDP snapshot that is not of
    the expected shape (a list for an object, a missing key, a row too short, a string where
    a number belongs, an index out of range). The message says what is wrong.

    Raised by :meth:`Layout.from_json`, :meth:`Layout.load` and :func:`from_snapshot` before
    any node is built, so a malformed layout never surfaces as a bare ``KeyError`` or
    ``TypeError`` later in the algorithm. A ``ValueError``, as the JSON errors it replaces.
    """


class Boxed:
    """Edges and area of anything with a box ``x, y, w, h``."""

    x: float
    y: float
    w: float
    h: float

    @property
    def area(self) -> float:
        return self.w * self.h

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h


@dataclass(eq=False)
class LNode(Boxed):
    """One DOM node with its box and the cues VIPS uses.

    ``tag`` is the lower-case tag, or ``"#text"`` for a text node (whose ``text`` is the
    string). ``x, y, w, h`` is the border box in page coordinates (CSS pixels); a node the
    browser did not render has ``w == h == 0``. ``background`` is the node's own opaque
    background colour as ``(r, g, b)``, or None where it is transparent (VIPS compares the
    colour a reader sees: :meth:`seen_background` resolves it to the nearest ancestor that
    paints one). ``font_size`` is in pixels, ``font_weight`` numeric (400 normal, 700
    bold).
    """

    tag: str
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    display: str = "block"
    visible: bool = True
    background: tuple[int, int, int] | None = None
    font_size: float = 16.0
    font_weight: int = 400
    text: str = ""
    children: list[LNode] = field(default_factory=list)
    xpath: str = ""
    attrs: dict[str, str] = field(default_factory=dict, repr=False)  # only those asked for
    _parent: weakref.ref[LNode] | None = field(default=None, init=False, repr=False)
    #: the node above (None at the root), held weakly (core.document's WeakParent)
    parent = WeakParent["LNode"]()

    @property
    def is_text(self) -> bool:
        return self.tag == TEXT

    def seen_background(self) -> tuple[int, int, int]:
        """The background colour a reader sees behind this node (white at the root)."""
        node: LNode | None = self
        while node is not None:
            if node.background is not None:
                return node.background
            node = node.parent
        return WHITE

    def iter(self) -> Iterator[LNode]:
        """This node and its descendants in document order (iterative)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def text_content(self) -> str:
        """The visible text below this node, whitespace collapsed, a line break between
        block-level parts (``display`` not inline) so paragraphs stay apart."""
        parts: list[str] = []
        stack: list[LNode | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
                continue
            if not item.visible:  # hidden (display: none, visibility: hidden): not read
                continue
            if item.is_text:
                parts.append(item.text)
                continue
            breaks = not item.display.startswith("inline") and item is not self
            if breaks or item.tag == "br":
                parts.append("\n")
                stack.append("\n")
            stack.extend(reversed(item.children))
        lines = (" ".join(line.split()) for line in "".join(parts).split("\n"))
        return "\n".join(line for line in lines if line)


@dataclass(eq=False)
class Layout:
    """A page's layout: the ``root`` node (``<html>`` or ``<body>``) and the page size."""

    root: LNode
    width: float
    height: float
    source: str = "static"  # "rendered" (Chromium) or "static" (approximate, from the HTML)
    url: str | None = None
    timings: dict[str, float] = field(default_factory=dict)  # a render's seconds per stage

    def nodes(self) -> Iterator[LNode]:
        return self.root.iter()

    def body(self) -> LNode:
        """The ``<body>`` node (the first round's sub-page), else the root."""
        for child in self.root.children:
            if child.tag == "body":
                return child
        return self.root

    # -- JSON ---------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Plain JSON: ``nodes`` rows ``[parent_row, tag, x, y, w, h, display, visible,
        background, font_size, font_weight, text, xpath]`` in document order."""
        rows: list[list[Any]] = []
        row_of: dict[int, int] = {}
        for node in self.root.iter():
            row_of[id(node)] = len(rows)
            parent = row_of[id(node.parent)] if node.parent is not None else -1
            bg = node.background
            rows.append(
                [
                    parent,
                    node.tag,
                    round(node.x, 2),
                    round(node.y, 2),
                    round(node.w, 2),
                    round(node.h, 2),
                    node.display,
                    int(node.visible),
                    "#{:02x}{:02x}{:02x}".format(*bg) if bg is not None else None,
                    round(node.font_size, 2),
                    node.font_weight,
                    node.text,
                    node.xpath,
                ]
            )
        return {
            "format": LAYOUT_FORMAT,
            "source": self.source,
            "url": self.url,
            "width": self.width,
            "height": self.height,
            "nodes": rows,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], max_nodes: int = 0) -> Layout:
        """The inverse of :meth:`to_json`; also accepts a raw CDP snapshot. More than
        ``max_nodes`` elements (0: no limit) raise :class:`UnsupportedInput`.

        :raises LayoutError: ``data`` is neither, or a malformed one.
        """
        if isinstance(data, dict) and "documents" in data and "strings" in data:
            return from_snapshot(data, max_nodes=max_nodes)
        _check_layout_json(data)
        rows = data["nodes"]
        if max_nodes and len(rows) > max_nodes:
            elements = sum(1 for row in rows if not (isinstance(row, list) and row[1:2] == [TEXT]))
            check_elements(elements, max_nodes, "layout")
        nodes: list[LNode] = []
        for k, row in enumerate(rows):
            if not k % CHECK_EVERY:
                check()  # the page's deadline
            parent_row, tag, x, y, w, h, display, visible, bg, fs, fw, text, xpath = row
            node = LNode(
                tag,
                x,
                y,
                w,
                h,
                display,
                bool(visible),
                _hex_rgb(bg),
                fs,
                fw,
                text,
                xpath=xpath,
            )
            if parent_row >= 0:
                parent = nodes[parent_row]
                node.parent = parent
                parent.children.append(node)
            nodes.append(node)
        return cls(nodes[0], data["width"], data["height"], data.get("source", "static"),
                   data.get("url"))  # fmt: skip

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, max_nodes: int = 0) -> Layout:
        """A layout or a raw CDP snapshot from a JSON file (``max_nodes``: as
        :meth:`from_json`).

        :raises OSError: the file cannot be read.
        :raises LayoutError: it is not JSON, or not a layout.
        """
        text = Path(path).read_bytes()
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # (RecursionError: nested too deep)
            raise LayoutError(f"not JSON ({type(exc).__name__}: {exc})") from None
        return cls.from_json(data, max_nodes)


def _hex_rgb(value: str | None) -> tuple[int, int, int] | None:
    if not value:
        return None
    v = value.lstrip("#")
    return int(v[0:2], 16), int(v[2:4], 16), int(v[4:6], 16)


# ---------------------------------------------------------------------------------------------
# CSS values

_RGB = re.compile(r"rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)")
_NAMED = {
    "white": WHITE,
    "black": (0, 0, 0),
    "red": (255, 0, 0),
    "green": (0, 128, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 255, 0),
    "gray": (128, 128, 128),
    "grey": (128, 128, 128),
    "silver": (192, 192, 192),
    "navy": (0, 0, 128),
    "maroon": (128, 0, 0),
    "orange": (255, 165, 0),
    "purple": (128, 0, 128),
    "teal": (0, 128, 128),
    "lime": (0, 255, 0),
    "aqua": (0, 255, 255),
    "fuchsia": (255, 0, 255),
    "olive": (128, 128, 0),
}


def parse_color(value: str | None) -> tuple[int, int, int] | None:
    """``rgb(...)``, ``rgba(...)``, ``#rgb``, ``#rrggbb`` or a basic colour name as
    ``(r, g, b)``; None for transparent (alpha 0), ``transparent`` or anything unparsable.

    A half-transparent colour counts as painted: VIPS asks whether a reader sees a change.
    """
    if not value:
        return None
    v = value.strip().lower()
    m = _RGB.match(v)
    if m:
        alpha = m.group(4)
        if alpha is not None:
            a = float(alpha[:-1]) / 100 if alpha.endswith("%") else float(alpha)
            if a <= 0:
                return None
        return tuple(min(255, round(float(m.group(i)))) for i in (1, 2, 3))  # type: ignore[return-value]
    if v.startswith("#"):
        h = v[1:]
        if len(h) in (3, 4):
            h = "".join(c * 2 for c in h[:3])
        if len(h) in (6, 8) and all(c in "0123456789abcdef" for c in h):
            if len(h) == 8 and h[6:8] == "00":
                return None
            return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
        return None
    return _NAMED.get(v)


def parse_px(value: str | None, default: float = 16.0) -> float:
    """``"16px"`` -> 16.0 (never a string comparison: ``'16px' < '9px'`` is a known port bug)."""
    if not value:
        return default
    try:
        return float(value.strip().removesuffix("px"))
    except ValueError:
        return default


def parse_weight(value: str | None) -> int:
    """A computed ``font-weight`` (``"700"``, ``"bold"``) as a number."""
    if not value:
        return 400
    v = value.strip().lower()
    if v == "bold" or v == "bolder":
        return 700
    if v == "normal" or v == "lighter":
        return 400
    try:
        return int(float(v))
    except ValueError:
        return 400


# ---------------------------------------------------------------------------------------------
# Chromium's DOMSnapshot


def _boxes_for_unboxed(root: LNode) -> None:
    """Elements whose box is empty while their children render are given the union of
    the children's boxes: a wrapper of floats (height 0, the clearfix case), a
    ``display: contents`` element (no box at all). A reader sees them, so VIPS must
    count them as valid nodes (TR 4.1: "a node that can be seen through the browser")."""
    order = list(root.iter())
    for k, node in enumerate(reversed(order)):  # children before their parent
        if not k % CHECK_EVERY:
            check()  # the page's deadline
        if node.is_text or not node.children or (node.w > 0 and node.h > 0):
            continue
        if node.visible is False and node.display != "none":
            continue  # visibility: hidden
        shown = [c for c in node.children if c.visible and c.w > 0 and c.h > 0]
        if not shown:
            continue
        boxes = shown if node.display == "none" else [*shown, node]
        x0 = min(c.x for c in boxes)
        y0 = min(c.y for c in boxes)
        node.w = max(c.right for c in boxes) - x0
        node.h = max(c.bottom for c in boxes) - y0
        node.x, node.y = x0, y0
        if node.display == "none":
            node.visible = True
            node.display = "contents"


def from_snapshot(
    snapshot: dict[str, Any],
    styles: Sequence[str] = SNAPSHOT_STYLES,
    attributes: Sequence[str] = (),
    max_nodes: int = 0,
) -> Layout:
    """A :class:`Layout` from a CDP ``DOMSnapshot.captureSnapshot`` result.

    ``styles`` is the ``computedStyles`` list the snapshot was taken with; the element
    attributes named in ``attributes`` are kept in :attr:`LNode.attrs` (e.g. an evaluation's
    ground truth). The main frame's
    document is used; an iframe is a box of its own (its document is not entered). Nodes the
    browser did not lay out (``display: none``, ``<head>``) get an empty box. Text nodes take
    their font from their parent element (the TR's cues are per element). A main frame of
    more than ``max_nodes`` elements (0: no limit) raises :class:`UnsupportedInput`
    (``too-many-nodes``) before any node is built.
    """
    _check_snapshot(snapshot, bool(attributes))
    strings: list[str] = snapshot["strings"]
    doc = snapshot["documents"][0]
    nodes = doc["nodes"]
    layout = doc["layout"]
    parents: list[int] = nodes["parentIndex"]
    types: list[int] = nodes["nodeType"]
    names: list[int] = nodes["nodeName"]
    values: list[int] = nodes["nodeValue"]
    if max_nodes and len(types) > max_nodes:
        check_elements(types.count(1), max_nodes, "rendered layout")
    col = {name: i for i, name in enumerate(styles)}
    wanted = frozenset(attributes)
    attr_lists: list[list[int]] = nodes.get("attributes", [])

    def s(i: int) -> str:
        return strings[i] if i >= 0 else ""

    box: dict[int, tuple[list[float], list[int]]] = {}
    for k, ni in enumerate(layout["nodeIndex"]):
        if not k % CHECK_EVERY:
            check()  # the page's deadline
        box.setdefault(ni, (layout["bounds"][k], layout["styles"][k]))

    made: dict[int, LNode] = {}
    counts: dict[int, dict[str, int]] = {}  # XPath step counts per parent (blank texts too)
    root: LNode | None = None
    for i, kind in enumerate(types):
        if not i % CHECK_EVERY:
            check()  # the page's deadline
        p = parents[i]
        parent = made.get(p)
        if kind == 1:
            tag = s(names[i]).lower()
            if parent is None and (root is not None or tag != "html"):
                continue  # outside <html> (or a second root): not page content
            node = LNode(tag)
            step = tag
            if wanted:
                flat = attr_lists[i]
                for k in range(0, len(flat) - 1, 2):
                    name = s(flat[k])
                    if name in wanted:
                        node.attrs[name] = s(flat[k + 1])
        elif kind == 3 and parent is not None:
            step = "text()"
            text = s(values[i])
            if not text.strip() or parent.tag in ("script", "style"):
                seen = counts.setdefault(p, {})
                seen[step] = seen.get(step, 0) + 1
                continue
            node = LNode(TEXT, text=text, display="inline")
        else:
            continue
        if parent is None:
            node.xpath = f"/{step}[1]"
        else:
            seen = counts.setdefault(p, {})
            n = seen[step] = seen.get(step, 0) + 1
            node.xpath = f"{parent.xpath}/{step}[{n}]"
        entry = box.get(i)
        if entry is not None:
            (x, y, w, h), st = entry
            node.x, node.y, node.w, node.h = x, y, w, h

            def style(name: str, st: list[int] = st) -> str | None:
                j = col.get(name)
                return s(st[j]) if j is not None and j < len(st) else None

            if kind == 1:
                node.display = style("display") or "block"
                node.background = parse_color(style("background-color"))
                node.font_size = parse_px(style("font-size"))
                node.font_weight = parse_weight(style("font-weight"))
            visibility = style("visibility")
            opacity = style("opacity")
            node.visible = visibility not in ("hidden", "collapse") and opacity not in ("0",)
        else:
            node.visible = False
            if kind == 1:
                node.display = "none"
        if kind == 3 and parent is not None:
            node.font_size, node.font_weight = parent.font_size, parent.font_weight
            if parent.display != "none":  # (a boxless parent may still show its text)
                node.visible = node.visible and parent.visible
        if parent is None:
            root = node
        else:
            node.parent = parent
            parent.children.append(node)
        made[i] = node
    if root is None:
        root = LNode("html", display="none", visible=False, xpath="/html[1]")
    _boxes_for_unboxed(root)
    width = float(doc.get("contentWidth") or root.w)
    height = float(doc.get("contentHeight") or root.h)
    return Layout(
        root,
        width,
        height,
        "rendered",
        s(doc.get("documentURL", -1)) or None,
        dict(snapshot.get("timings") or {}),
    )


# ---------------------------------------------------------------------------------------------
# Validation: a malformed layout is refused with a LayoutError before anything is built


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_HEX = re.compile(r"#[0-9a-fA-F]{6}")
#: The columns of a layout row (:meth:`Layout.to_json`) and what each must hold.
_ROW = (
    ("parent_row", _int),
    ("tag", lambda v: isinstance(v, str)),
    ("x", _number),
    ("y", _number),
    ("w", _number),
    ("h", _number),
    ("display", lambda v: isinstance(v, str)),
    ("visible", lambda v: isinstance(v, (bool, int))),
    ("background", lambda v: v is None or (isinstance(v, str) and _HEX.fullmatch(v))),
    ("font_size", _number),
    ("font_weight", _number),
    ("text", lambda v: isinstance(v, str)),
    ("xpath", lambda v: isinstance(v, str)),
)


def _check_layout_json(data: Any) -> None:
    """Refuse (:class:`LayoutError`) anything :meth:`Layout.from_json` cannot build from."""
    if not isinstance(data, dict):
        raise LayoutError(
            f"not a scrapy-boilerplate layout nor a CDP snapshot: a JSON {type(data).__name__}, "
            "not an object"
        )
    if data.get("format") != LAYOUT_FORMAT or not data.get("nodes"):
        raise LayoutError("not a scrapy-boilerplate layout (format 1) nor a CDP snapshot")
    rows = data["nodes"]
    if not isinstance(rows, list):
        raise LayoutError("layout 'nodes' is not a list")
    for key in ("width", "height"):
        if not _number(data.get(key)):
            raise LayoutError(f"layout {key!r} is not a number: {data.get(key)!r:.40}")
    if not isinstance(data.get("url"), (str, type(None))) or not isinstance(
        data.get("source", "static"), str
    ):
        raise LayoutError("layout 'url' and 'source' must be strings")
    for k, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(_ROW):
            raise LayoutError(f"layout row {k} is not a list of {len(_ROW)} values")
        for (name, ok), value in zip(_ROW, row, strict=True):
            if not ok(value):
                raise LayoutError(f"layout row {k}: bad {name} {value!r:.40}")
        parent = row[0]
        if (k == 0 and parent != -1) or (k > 0 and not 0 <= parent < k):
            raise LayoutError(
                f"layout row {k}: parent row {parent} (the first row is the root, -1; "
                "every other row's parent comes before it)"
            )


def _int_list(value: Any) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(_int(v) for v in value)


def _check_snapshot(snapshot: Any, attributes: bool) -> None:
    """Refuse (:class:`LayoutError`) a CDP snapshot :func:`from_snapshot` cannot read: every
    array it indexes present, of the right type, as long as the node list, and every string
    index within ``strings``."""

    def bad(what: str) -> LayoutError:
        return LayoutError(f"malformed CDP snapshot: {what}")

    if not isinstance(snapshot, dict):
        raise bad(f"a JSON {type(snapshot).__name__}, not an object")
    strings = snapshot.get("strings")
    documents = snapshot.get("documents")
    if not isinstance(strings, list) or not all(isinstance(v, str) for v in strings):
        raise bad("'strings' is not a list of strings")
    if not isinstance(documents, list) or not documents or not isinstance(documents[0], dict):
        raise bad("'documents' is not a non-empty list of objects")
    timings = snapshot.get("timings")
    if timings is not None and not (
        isinstance(timings, dict) and all(_number(v) for v in timings.values())
    ):
        raise bad("'timings' is not an object of numbers")
    doc = documents[0]
    nodes, layout = doc.get("nodes"), doc.get("layout")
    if not isinstance(nodes, dict) or not isinstance(layout, dict):
        raise bad("the document has no 'nodes' or 'layout' object")
    n_strings = len(strings)

    def indices(values: list[int], what: str) -> None:
        if any(v >= n_strings for v in values):
            raise bad(f"{what} refers to a string beyond 'strings'")

    columns: dict[str, list[int]] = {}
    for key in ("parentIndex", "nodeType", "nodeName", "nodeValue"):
        column = nodes.get(key)
        if not _int_list(column):
            raise bad(f"nodes.{key} is not a list of integers")
        columns[key] = column
    count = len(columns["nodeType"])
    if any(len(c) < count for c in columns.values()):
        raise bad("the nodes' arrays are shorter than nodes.nodeType")
    indices(columns["nodeName"], "nodes.nodeName")
    indices(columns["nodeValue"], "nodes.nodeValue")
    if attributes:
        attrs = nodes.get("attributes", [])
        if not isinstance(attrs, list) or len(attrs) < count or not all(map(_int_list, attrs)):
            raise bad("nodes.attributes is not a list of integer lists, one per node")
        for flat in attrs:
            indices(flat, "nodes.attributes")
    node_index, bounds, style_rows = (layout.get(k) for k in ("nodeIndex", "bounds", "styles"))
    if not _int_list(node_index):
        raise bad("layout.nodeIndex is not a list of integers")
    if not isinstance(bounds, list) or not isinstance(style_rows, list):
        raise bad("layout.bounds or layout.styles is not a list")
    if len(bounds) < len(node_index) or len(style_rows) < len(node_index):
        raise bad("layout.bounds or layout.styles is shorter than layout.nodeIndex")
    for k in range(len(node_index)):
        box, row = bounds[k], style_rows[k]
        if not isinstance(box, list) or len(box) != 4 or not all(map(_number, box)):
            raise bad(f"layout.bounds[{k}] is not four numbers")
        if not _int_list(row):
            raise bad(f"layout.styles[{k}] is not a list of integers")
        indices(row, "layout.styles")
    for key in ("contentWidth", "contentHeight"):
        value = doc.get(key)
        if value is not None and not _number(value):
            raise bad(f"{key} is not a number")
    url = doc.get("documentURL", -1)
    if not _int(url) or url >= n_strings:
        raise bad("documentURL is not an index into 'strings'")
