"""VIPS (Cai, Yu, Wen, Ma, "VIPS: a Vision-based Page Segmentation Algorithm",
MSR-TR-2003-79), on a :class:`Layout`.

A round on a sub-page runs the TR's three steps:

1. **Visual block extraction** (section 4.1, Figure 6's DivideDomtree): from the sub-page's
   DOM node(s) down, :func:`dividable` applies the rules of Table 1 that Table 2 gives for
   the node's kind (inline text node, TABLE, TR, TD, P, other tags) in priority order; a
   node that is not divided goes into the pool as a block with a DoC, a node with nothing
   visible is cut. Iterative (no recursion): a 10 000-deep page is fine.
2. **Separator detection** (4.2.1): horizontal and vertical separators over the pool (split
   / update / remove per block, border separators removed), weighted by the five rules of
   4.2.2 (:func:`separator_weight`).
3. **Content structure construction** (4.3): blocks are merged across the lowest-weight
   separators first, up to the heaviest; a merged block's DoC comes from the heaviest
   separator inside it. Merging from the lightest up gives the same tree as splitting
   across the heaviest first, which is how it is computed here, so that in two dimensions
   the separators of each part are found within that part (a column's horizontal
   separators do not cross its neighbour column).

Then every leaf with ``DoC <= PDoC`` is a sub-page for a new round (``DoC > PDoC`` is the
TR's granularity requirement), until all leaves pass, cannot be divided, or ``max_rounds``.

The TR gives no numbers for its relative-size thresholds, its "DoC by tag and size" or its
weight increments: every such value is a parameter (:class:`VipsConfig`), with our defaults
documented in docs/vips.md.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.extractors.vips.layout import Boxed, Layout, LNode

#: "Inline text tags" (TR 4.1, after HTML 4.01): they change how text looks without a line
#: break. Every other tag makes a line-break node.
INLINE_TAGS = frozenset(
    {
        "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "del", "dfn",
        "em", "font", "i", "ins", "kbd", "label", "mark", "nobr", "q", "s", "samp",
        "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var",
    }
)  # fmt: skip

#: Replaced elements: a visible one is a basic object (TR section 3), so it is a block of its
#: own rather than cut by rule 1 for having no children.
REPLACED_TAGS = frozenset(
    {"img", "video", "audio", "canvas", "svg", "iframe", "object", "embed", "input",
     "textarea", "select", "button", "picture", "math"}
)  # fmt: skip

#: Table 2: the rules tried, in order, per kind of node.
RULES: dict[str, tuple[int, ...]] = {
    "inline": (1, 2, 3, 4, 5, 6, 7, 9, 10, 12),
    "table": (1, 2, 3, 8, 10, 13),
    "tr": (1, 2, 3, 7, 8, 10, 13),
    "td": (1, 2, 3, 4, 9, 10, 11, 13),
    "p": (1, 2, 3, 4, 5, 6, 7, 9, 10, 12),
    "other": (1, 2, 3, 4, 6, 7, 9, 10, 12),
}

DIVIDE, KEEP, CUT = "divide", "keep", "cut"

#: Base DoC per tag for "DoC by tag (and size)" (rules 8, 9, 10, 11, 13): tags that hold
#: running text are more coherent than layout containers.
DEFAULT_TAG_DOC: dict[str, int] = {
    "p": 8, "h1": 8, "h2": 8, "h3": 8, "h4": 8, "h5": 8, "h6": 8, "li": 8, "dt": 8,
    "dd": 8, "blockquote": 8, "pre": 8, "a": 8, "span": 8, "label": 8, "caption": 8,
    "td": 7, "th": 7, "ul": 7, "ol": 7, "dl": 7, "form": 7,
    "table": 6, "tbody": 6, "tr": 6, "div": 6, "section": 6, "article": 6, "aside": 6,
    "nav": 6, "header": 6, "footer": 6, "main": 6, "body": 5, "html": 5,
}  # fmt: skip

#: Rule 9's relative size threshold per node kind (below it, a node with text children is
#: one block) and rule 10's (below it, the node's largest child is too small to stand alone).
DEFAULT_TEXT_SIZE: dict[str, float] = {"inline": 0.3, "p": 0.5, "td": 0.3, "other": 0.3}
DEFAULT_CHILD_SIZE: dict[str, float] = {
    "inline": 0.05, "p": 0.05, "table": 0.05, "tr": 0.05, "td": 0.05, "other": 0.05,
}  # fmt: skip


@dataclass(frozen=True)
class VipsConfig:
    """Every threshold of the algorithm (see docs/vips.md for how defaults were chosen)."""

    pdoc: int = 5
    max_rounds: int = 20
    inline_by: str = "tag"  # "tag" (the TR's inline text tags) or "display" (computed CSS)
    text_size: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_TEXT_SIZE))
    child_size: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_CHILD_SIZE))
    tag_doc: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_TAG_DOC))
    default_tag_doc: int = 6
    small_size: float = 0.05  # "DoC by size": below this relative size, DoC + 1
    large_size: float = 0.3  # above it, DoC - 1
    weight_base: float = 1.0
    weight_gap: float = 3.0  # rule 1: up to this much for the widest gaps ...
    gap_cap: float = 30.0  # ... reached at this many pixels
    weight_hr: float = 3.0  # rule 2
    weight_background: float = 2.0  # rule 3
    weight_font_size: float = 1.0  # rule 4, horizontal separators
    weight_font_weight: float = 1.0
    weight_font_order: float = 1.0  # smaller font above than below
    weight_similar: float = 1.0  # rule 5: subtracted for similar structure on both sides
    font_size_diff: float = 0.5  # rule 4: font sizes differ by more than this (px)
    font_weight_diff: int = 200  # rule 4: font weights differ by at least this


@dataclass(eq=False)
class VisualBlock(Boxed):
    """A node of the vision-based content structure.

    ``nodes`` are the DOM nodes the block covers (one for an extracted block, the union of
    its children's for a merged one); ``doc`` its degree of coherence (1..10); ``rule`` the
    block-extraction rule that made a leaf (``"R4"``, ...; ``"merge"`` for a merged block).
    """

    nodes: list[LNode]
    doc: int
    rule: str
    children: list[VisualBlock] = field(default_factory=list)
    id: str = ""
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    separators: list[Separator] = field(default_factory=list)
    font: tuple[float, int] | None = field(default=None, repr=False)  # cache of _font

    def __post_init__(self) -> None:
        if self.nodes and not self.w:
            self.x, self.y, self.w, self.h = _union_box(self.nodes)

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def leaves(self) -> list[VisualBlock]:
        out: list[VisualBlock] = []
        stack: list[VisualBlock] = [self]
        while stack:
            vb = stack.pop()
            if vb.children:
                stack.extend(reversed(vb.children))
            else:
                out.append(vb)
        return out

    def walk(self) -> list[VisualBlock]:
        out: list[VisualBlock] = []
        stack: list[VisualBlock] = [self]
        while stack:
            vb = stack.pop()
            out.append(vb)
            stack.extend(reversed(vb.children))
        return out

    def text(self) -> str:
        return "\n".join(t for t in (n.text_content() for n in self.nodes) if t)


@dataclass
class Separator:
    """A horizontal (``"h"``, a band of rows ``start..end``) or vertical (``"v"``, columns)
    separator and its weight."""

    direction: str
    start: float
    end: float
    weight: float = 0.0


def _union_box(nodes: Sequence[LNode]) -> tuple[float, float, float, float]:
    x0 = min(n.x for n in nodes)
    y0 = min(n.y for n in nodes)
    x1 = max(n.right for n in nodes)
    y1 = max(n.bottom for n in nodes)
    return x0, y0, x1 - x0, y1 - y0


# ---------------------------------------------------------------------------------------------
# Definitions of section 4.1


def is_valid(node: LNode) -> bool:
    """A node a reader sees: visible, with nonzero width and height."""
    return node.visible and node.w > 0 and node.h > 0


def is_inline(node: LNode, config: VipsConfig) -> bool:
    if node.is_text:
        return True
    if config.inline_by == "display":
        return node.display.startswith("inline") and node.tag not in REPLACED_TAGS
    return node.tag in INLINE_TAGS


def is_line_break(node: LNode, config: VipsConfig) -> bool:
    return not node.is_text and not is_inline(node, config)


def is_virtual_text(node: LNode, config: VipsConfig) -> bool:
    """An inline node whose children are all text or virtual text nodes (TR 4.1; iterative)."""
    if node.is_text or not is_inline(node, config) or not node.children:
        return False
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.is_text:
            continue
        if not is_inline(child, config) or not child.children:
            return False
        stack.extend(child.children)
    return True


def node_kind(node: LNode, config: VipsConfig) -> str:
    """The row of Table 2 the node belongs to."""
    tag = node.tag
    if tag == "table":
        return "table"
    if tag == "tr":
        return "tr"
    if tag in ("td", "th"):
        return "td"
    if tag == "p":
        return "p"
    if is_inline(node, config):
        return "inline"
    return "other"


def _fonts(node: LNode) -> set[tuple[float, int]]:
    return {(n.font_size, n.font_weight) for n in node.iter() if n.is_text}


def doc_by_tag_and_size(
    node: LNode, relative_size: float | None, low: int, high: int, config: VipsConfig
) -> int:
    """The DoC "based on the html tag (and size)" of rules 8-13: the tag's base DoC, one
    more for a small node, one less for a large one (``relative_size`` None: tag only),
    kept within ``low..high``."""
    doc = config.tag_doc.get(node.tag, config.default_tag_doc)
    if relative_size is not None:
        if relative_size < config.small_size:
            doc += 1
        elif relative_size > config.large_size:
            doc -= 1
    return max(low, min(high, doc))


# ---------------------------------------------------------------------------------------------
# Visual block extraction


@dataclass
class _Round:
    roots: list[LNode]
    area: float  # the sub-page's: relative sizes for rules 9 and 10
    config: VipsConfig
    page_area: float = 0.0  # the page's: "DoC by size" (0: the sub-page's)
    forced: dict[int, tuple[int, str]] = field(default_factory=dict)  # rule 8's children


def dividable(node: LNode, rnd: _Round, prev_sibling_divided: bool | None) -> tuple[str, int, str]:
    """Table 1's rules for ``node``'s kind (Table 2): ``(action, DoC, rule)`` with action
    ``divide``, ``keep`` (a block) or ``cut``. ``prev_sibling_divided`` is None when the node
    has no previous sibling in this round."""
    config = rnd.config
    if node.is_text:
        return (KEEP, 10, "text") if is_valid(node) else (CUT, 0, "R1")
    if node.tag in REPLACED_TAGS:
        return (KEEP, 10, "object") if is_valid(node) else (CUT, 0, "R1")
    kind = node_kind(node, config)
    valid = [c for c in node.children if is_valid(c)]
    rel = node.area / rnd.area if rnd.area > 0 else 1.0
    page = rnd.page_area or rnd.area
    size = node.area / page if page > 0 else 1.0  # for "DoC by size"
    for rule in RULES[kind]:
        if rule == 1:
            if not valid:
                return CUT, 0, "R1"
        elif rule == 2:
            if len(valid) == 1 and not valid[0].is_text:
                return DIVIDE, 0, "R2"
        elif rule == 3:
            if len(rnd.roots) == 1 and node is rnd.roots[0]:
                return DIVIDE, 0, "R3"
        elif rule == 4:
            if all(c.is_text or is_virtual_text(c, config) for c in valid):
                fonts: set[tuple[float, int]] = set()
                for c in valid:
                    fonts |= _fonts(c)
                return KEEP, (10 if len(fonts) <= 1 else 9), "R4"
        elif rule == 5:
            if any(is_line_break(c, config) for c in valid):
                return DIVIDE, 0, "R5"
        elif rule == 6:
            if any(c.tag == "hr" for c in node.children):
                return DIVIDE, 0, "R6"
        elif rule == 7:
            if sum(c.area for c in valid) > node.area * (1 + 1e-9) + 1e-6:
                return DIVIDE, 0, "R7"
        elif rule == 8:
            own = node.seen_background()
            different = [c for c in valid if not c.is_text and c.seen_background() != own]
            if different:
                for c in different:
                    c_rel = c.area / page if page > 0 else 1.0
                    rnd.forced[id(c)] = (doc_by_tag_and_size(c, c_rel, 6, 8, config), "R8")
                return DIVIDE, 0, "R8"
        elif rule == 9:
            has_text = any(c.is_text or is_virtual_text(c, config) for c in valid)
            if has_text and rel < config.text_size.get(kind, config.text_size.get("other", 0.3)):
                return KEEP, doc_by_tag_and_size(node, None, 5, 8, config), "R9"
        elif rule == 10:
            largest = max(c.area for c in valid)
            threshold = config.child_size.get(kind, config.child_size.get("other", 0.05))
            if rnd.area > 0 and largest / rnd.area < threshold:
                return KEEP, doc_by_tag_and_size(node, size, 1, 9, config), "R10"
        elif rule == 11:
            if prev_sibling_divided is False:
                return KEEP, doc_by_tag_and_size(node, size, 1, 9, config), "R11"
        elif rule == 12:
            return DIVIDE, 0, "R12"
        elif rule == 13:
            return KEEP, doc_by_tag_and_size(node, size, 1, 9, config), "R13"
    return DIVIDE, 0, "R12"  # not reached: every row ends in rule 12 or 13


def extract_blocks(
    roots: Sequence[LNode], config: VipsConfig, page_area: float = 0.0
) -> list[VisualBlock]:
    """DivideDomtree (Figure 6) from the sub-page's DOM node(s): the pool of one round, in
    document order. Each extracted block is one DOM node with its DoC and rule."""
    area = _area(roots)
    rnd = _Round(list(roots), area, config, page_area)
    pool: list[VisualBlock] = []
    # (node, index among its parent's children in this round's walk); siblings are
    # processed in order, so "the previous sibling was divided" is known when it is needed.
    divided_of: dict[int, bool] = {}
    stack: list[tuple[LNode, LNode | None]] = [(r, None) for r in reversed(roots)]
    while stack:
        node, prev = stack.pop()
        check()  # the page's deadline
        forced = rnd.forced.pop(id(node), None)
        if forced is not None:
            action, doc, rule = KEEP, forced[0], forced[1]
        else:
            prev_divided = divided_of.get(id(prev)) if prev is not None else None
            action, doc, rule = dividable(node, rnd, prev_divided)
        divided_of[id(node)] = action == DIVIDE
        if action == KEEP:
            pool.append(VisualBlock([node], doc, rule))
        elif action == DIVIDE:
            kids = node.children
            for i in range(len(kids) - 1, -1, -1):
                stack.append((kids[i], kids[i - 1] if i > 0 else None))
    return pool


def _area(nodes: Sequence[LNode]) -> float:
    if not nodes:
        return 0.0
    _x, _y, w, h = _union_box(nodes)
    return w * h


# ---------------------------------------------------------------------------------------------
# Separator detection and weights


def detect_separators(
    blocks: Sequence[VisualBlock], lo: float, hi: float, direction: str
) -> list[Separator]:
    """Section 4.2.1 along one axis over ``lo..hi`` (the pool's extent): one separator
    spanning the pool, split by every block inside it, shrunk by a block crossing it,
    removed by a block covering it; separators on the pool's border are then removed.

    A block occupies the open interval between its edges, so blocks that touch leave a
    zero-width separator between them (a boundary a reader sees, e.g. two coloured bars).

    The result is the part of ``lo..hi`` that no block's interior covers, so it is computed
    in one sweep over the blocks sorted by their start (O(n log n); the block-by-block
    procedure is quadratic on a page of 25 000 paragraphs) with the same separators.
    """
    spans = sorted((b.y, b.bottom) if direction == "h" else (b.x, b.right) for b in blocks)
    seps: list[tuple[float, float]] = []
    covered = lo  # everything before this is covered by some block (or is a separator)
    for b0, b1 in spans:
        if b1 <= b0:
            continue
        if b0 >= covered:
            seps.append((covered, b0))
        covered = max(covered, b1)
    if covered <= hi:
        seps.append((covered, hi))
    return [Separator(direction, s0, s1) for s0, s1 in seps if s0 > lo and s1 < hi]


def _font(vb: VisualBlock) -> tuple[float, int]:
    """The font of most of the block's characters (computed once per block)."""
    if vb.font is None:
        vb.font = _majority_font(vb)
    return vb.font


def _majority_font(vb: VisualBlock) -> tuple[float, int]:
    chars: dict[tuple[float, int], int] = {}
    for node in vb.nodes:
        for n in node.iter():
            if n.is_text:
                key = (n.font_size, n.font_weight)
                chars[key] = chars.get(key, 0) + len(n.text.strip())
    if not chars:
        return (0.0, 0)
    return max(chars.items(), key=lambda kv: kv[1])[0]


def _structure(vb: VisualBlock) -> str:
    node = vb.nodes[0]
    if node.is_text or vb.rule in ("R4", "text"):
        return "text"
    return node.tag


def separator_weight(
    sep: Separator,
    before: Sequence[VisualBlock],
    after: Sequence[VisualBlock],
    hrs: Sequence[LNode],
    config: VipsConfig,
) -> float:
    """Section 4.2.2's five rules; ``before`` / ``after`` are the blocks touching the
    separator above (left) and below (right) of it. Kept within 1..10."""
    check()  # the page's deadline (a big page has hundreds of thousands)
    w = config.weight_base
    gap = sep.end - sep.start
    w += config.weight_gap * min(gap, config.gap_cap) / config.gap_cap  # rule 1
    horizontal = sep.direction == "h"
    for hr in hrs if horizontal else ():  # rule 2: an <hr> (a horizontal rule) in the band
        if hr.y <= sep.end and hr.bottom >= sep.start:
            w += config.weight_hr
            break
    if before and after:
        bg_before = {b.nodes[0].seen_background() for b in before}
        bg_after = {b.nodes[0].seen_background() for b in after}
        if bg_before != bg_after:  # rule 3
            w += config.weight_background
        if horizontal:
            size_a, weight_a = _font(before[-1])
            size_b, weight_b = _font(after[0])
            if size_a and size_b:  # rule 4
                if abs(size_a - size_b) > config.font_size_diff:
                    w += config.weight_font_size
                if abs(weight_a - weight_b) >= config.font_weight_diff:
                    w += config.weight_font_weight
                if size_a < size_b - config.font_size_diff:
                    w += config.weight_font_order
            shapes = {_structure(b) for b in before} | {_structure(b) for b in after}
            if len(shapes) == 1:  # rule 5: similar structure on both sides
                w -= config.weight_similar
    return max(1.0, min(10.0, w))


def _weighted_separators(
    blocks: Sequence[VisualBlock], hrs: Sequence[LNode], config: VipsConfig
) -> list[Separator]:
    x0 = min(b.x for b in blocks)
    y0 = min(b.y for b in blocks)
    x1 = max(b.right for b in blocks)
    y1 = max(b.bottom for b in blocks)
    out: list[Separator] = []
    for direction, lo, hi in (("h", y0, y1), ("v", x0, x1)):
        seps = detect_separators(blocks, lo, hi, direction)
        if not seps:
            continue
        # the blocks touching each separator: ends at its start, starts at its end
        ending: dict[float, list[VisualBlock]] = {}
        starting: dict[float, list[VisualBlock]] = {}
        for b in blocks:
            b0, b1 = (b.y, b.bottom) if direction == "h" else (b.x, b.right)
            ending.setdefault(b1, []).append(b)
            starting.setdefault(b0, []).append(b)
        for sep in seps:
            before = ending.get(sep.start, [])
            after = starting.get(sep.end, [])
            sep.weight = separator_weight(sep, before, after, hrs, config)
            out.append(sep)
    return out


# ---------------------------------------------------------------------------------------------
# Content structure construction


def doc_from_weight(weight: float) -> int:
    """A merged block's DoC from the heaviest separator inside it: the heavier, the less
    coherent (weight 1 -> DoC 10, weight 10 -> DoC 1)."""
    return max(1, min(10, round(11 - weight)))


def build_structure(
    blocks: list[VisualBlock], hrs: Sequence[LNode], config: VipsConfig
) -> VisualBlock:
    """Section 4.3: the hierarchy over one round's pool (iterative)."""
    top = VisualBlock([], 0, "merge")
    work: list[tuple[VisualBlock, list[VisualBlock]]] = [(top, blocks)]
    while work:
        holder, group = work.pop()
        check()  # the page's deadline
        if len(group) == 1:
            holder.children = [group[0]]
            continue
        seps = _weighted_separators(group, hrs, config)
        holder.separators = seps
        if not seps:  # overlapping blocks: no line crosses between them
            holder.children = list(group)
            holder.doc = min(b.doc for b in group)
            continue
        heaviest = max(s.weight for s in seps)
        holder.doc = doc_from_weight(heaviest)
        # the heaviest separators of one direction (horizontal first on a tie) cut the group
        direction = "h" if any(s.weight == heaviest and s.direction == "h" for s in seps) else "v"
        cuts = sorted(s.start for s in seps if s.direction == direction and s.weight == heaviest)
        parts: list[list[VisualBlock]] = [[] for _ in range(len(cuts) + 1)]
        for b in group:
            parts[bisect_right(cuts, b.y if direction == "h" else b.x)].append(b)
        for part in parts:
            if not part:
                continue
            if len(part) == 1:
                holder.children.append(part[0])
            else:
                child = VisualBlock([n for b in part for n in b.nodes], 0, "merge")
                holder.children.append(child)
                work.append((child, part))
    if len(top.children) == 1 and top.children[0].rule != "merge" and not top.separators:
        return top.children[0]
    for vb in top.walk():  # merged blocks cover their children's nodes (document order)
        if vb.rule == "merge" and vb.children:
            vb.nodes = [n for leaf in vb.leaves() for n in leaf.nodes]
            vb.x, vb.y, vb.w, vb.h = _union_box(vb.nodes)
    return top


def segment(layout: Layout, config: VipsConfig | None = None) -> VisualBlock:
    """The vision-based content structure of ``layout``: the root block ``VB1`` (the page)
    and its tree. Leaves with ``DoC <= pdoc`` are segmented again in further rounds."""
    config = config or VipsConfig()
    body = layout.body()
    page = VisualBlock([body], 1, "page")
    hrs = [n for n in layout.nodes() if n.tag == "hr" and is_valid(n)]
    page_area = page.w * page.h
    queue: list[VisualBlock] = [page]
    rounds = 0
    while queue and rounds < config.max_rounds:
        rounds += 1
        next_queue: list[VisualBlock] = []
        for vb in queue:
            check()
            pool = extract_blocks(vb.nodes, config, page_area)
            if not pool or (len(pool) == 1 and pool[0].nodes == vb.nodes):
                continue  # nothing to divide: the block stays a leaf
            structure = build_structure(pool, hrs, config)
            if structure.rule == "merge":
                vb.children = structure.children
                vb.separators = structure.separators
                if vb is page:  # a leaf divided later keeps the DoC it was extracted with
                    vb.doc = structure.doc
            else:
                vb.children = [structure]
            for leaf in vb.leaves():
                if (
                    leaf is not vb
                    and leaf.doc <= config.pdoc
                    and leaf.rule not in ("text", "object")
                ):
                    next_queue.append(leaf)
        queue = next_queue
    _number(page)
    return page


def _number(page: VisualBlock) -> None:
    """Ids in the TR's style: the page is VB1, its children VB1-1, VB1-2, ..."""
    page.id = "VB1"
    stack = [page]
    while stack:
        vb = stack.pop()
        for i, child in enumerate(vb.children, 1):
            child.id = f"{vb.id}-{i}"
            stack.append(child)


def tree_to_dict(
    root: VisualBlock, max_text: int = 200, texts: Mapping[int, str] | None = None
) -> dict[str, Any]:
    """The visual block tree as plain JSON (iterative): per block its id, DoC, rule, box,
    the XPaths of a leaf's DOM nodes and its text (a leaf's whole text; the first
    ``max_text`` characters for a block with children, whose text is its leaves').
    ``texts`` may give the leaves' texts by ``id(leaf)`` (already computed)."""
    blocks = root.walk()
    short: dict[int, str] = {}
    full: dict[int, str] = {}
    for vb in reversed(blocks):  # children before their parent: each text built once
        if vb.children:
            text = "\n".join(t for t in (short[id(c)] for c in vb.children) if t)
        else:
            text = texts[id(vb)] if texts is not None and id(vb) in texts else vb.text()
            full[id(vb)] = text
        short[id(vb)] = text[:max_text]
    dicts = {
        id(vb): {
            "id": vb.id,
            "doc": int(vb.doc),
            "rule": vb.rule,
            "box": [round(vb.x, 1), round(vb.y, 1), round(vb.w, 1), round(vb.h, 1)],
            "xpaths": [n.xpath for n in vb.nodes] if vb.is_leaf else [],
            "text": full.get(id(vb), short[id(vb)]),
            "children": [],
        }
        for vb in blocks
    }
    for vb in blocks:
        dicts[id(vb)]["children"] = [dicts[id(c)] for c in vb.children]
    return dicts[id(root)]
