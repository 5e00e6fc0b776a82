"""CNR: the chars-nodes ratio content extractor (López, Silva, Insa, "Using the DOM Tree for
Content Extraction": Algorithms 1 and 2, granularity, iterative blocks, menu detection).

What the paper specifies, and how it is done here (docs/cnr.md has the reasons and numbers):

- **Algorithm 1** gives every DOM node a ``weight`` (nodes in its subtree), a ``textLength``
  (characters of the text nodes below it, spaces and line breaks not counted) and
  ``CNR = textLength / weight``. The nodes are numbered in document order by ONE iterative
  walk (``lxml.etree.iterwalk``, no recursion: 10 000-deep pages are fine): the jusText
  segmentation's walk, which records them on the way (``recorder.CNRNodes``, a recorder of
  that walk), so the page is walked once for the nodes and the blocks. The values then
  come from prefix sums (a subtree is a contiguous id range), so no per-node Python object
  is made. Text nodes are
  the non-blank ``.text`` / ``.tail`` strings of lxml; a whitespace-only string is *not* a
  node (the paper wants formatting not to change CNR), neither are comments nor processing
  instructions. *nonContentNodes* (weight 1,
  textLength 0, their children are no nodes) are the elements the document already removes
  (scripts, styles, hidden elements, ...) and :data:`NON_CONTENT_TAGS` (the paper's menu
  tags ``nav`` and ``a``, its irrelevant tags ``script``, ``video``, ``svg`` and elements
  without text such as ``img``). Below a link only its characters are counted (menu
  detection); below every other nonContentNode nothing is (the walk enters the elements
  that are not removed, for the segmentation; the recorder ignores them).
- The paper leaves "select the nodes with a higher CNR" open: :func:`select_nodes` offers
  ``top_k``, ``top_fraction``, ``above_mean`` and ``above_mean_std``.
- **Algorithm 2** (:func:`identify_blocks`): drop selected nodes that descend from another
  selected node, then, while two nodes of the set are siblings, replace all the set's
  children of their parent by the parent. The node of the result with the most text is the
  main block.
- Section 6's "increase / decrease information" buttons: ``granularity`` (+n: n times the
  parent, -n: n times the child with the highest CNR).
- Section 7's iterative block detection (``max_blocks``: detect a block, remove its nodes
  from the tree, recompute, detect the next) and its hyperlinks/nodes menu detection
  (``detect_menus``).
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import Document, TextBlock, justext_segment
from scrapy_boilerplate.core.errors import InvalidParameter
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.registry import Extractor
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Extraction, blocks_from_segments
from scrapy_boilerplate.extractors.cnr.recorder import COMPILED, CNRNodes

#: The paper's nonContentNodes by tag: weight 1, textLength 0, CNR 0, children no nodes.
#: "nodes mainly used for menus (e.g., nav and a)", "irrelevant nodes (e.g., script, video
#: and svg)" and "nodes without text (e.g., img)". The document's removed elements (hidden
#: ones, ``head``, ``style``, ``button``, ...) are nonContentNodes as well.
NON_CONTENT_TAGS = frozenset(
    {
        # menus (the paper's examples)
        "nav",
        "a",
        # irrelevant code and media
        "script",
        "style",
        "noscript",
        "template",
        "video",
        "audio",
        "svg",
        "math",
        "canvas",
        # elements without page text of their own
        "img",
        "picture",
        "iframe",
        "frame",
        "object",
        "embed",
        "applet",
        "param",
        "source",
        "track",
        "map",
        "area",
        "select",
        "input",
        "button",
        "textarea",
    }
)

#: Tags whose blocks are menus whatever their link ratio (the paper's menu tag).
MENU_TAGS = frozenset({"nav"})

#: Node kinds in :attr:`CNRTree.kind`.
ELEMENT, TEXT, TAIL, NON_CONTENT = 0, 1, 2, 3

SELECTION_RULES = ("top_k", "top_fraction", "above_mean", "above_mean_std")
CANDIDATES = ("all", "elements")

PARAMS = (
    Param(
        "selection",
        str,
        "above_mean",
        "rule that picks the top-rated nodes fed to Algorithm 2: 'top_k' (the top_k "
        "highest CNRs), 'top_fraction' (that share of the text-bearing nodes), "
        "'above_mean' (CNR above the mean CNR of the text-bearing nodes), "
        "'above_mean_std' (CNR at least mean + one standard deviation)",
        choices=SELECTION_RULES,
    ),
    Param("top_k", int, 10, "nodes selected by the 'top_k' rule", 1),
    Param(
        "top_fraction",
        float,
        0.1,
        "share of the candidate nodes selected by 'top_fraction'",
        0.0,
        1.0,
    ),
    Param(
        "candidates",
        str,
        "elements",
        "nodes the selection rule may pick: 'all' (text and element nodes, as Algorithm 1 "
        "rates them) or 'elements' (element nodes only)",
        choices=CANDIDATES,
    ),
    Param(
        "granularity",
        int,
        0,
        "section 6: +n takes the parent n times (more text), -n takes n times the child "
        "with the highest CNR (less text)",
        -100,
        100,
    ),
    Param(
        "max_blocks",
        int,
        1,
        "section 7: blocks detected in relevance order (1: the main block only)",
        1,
        1000,
    ),
    Param(
        "content_blocks",
        int,
        1,
        "how many of the top-ranked detected blocks are content (at most max_blocks)",
        1,
        1000,
    ),
    Param(
        "detect_menus",
        bool,
        True,
        "section 7: label concentrations of short links (and <nav>) as menus, i.e. "
        "boilerplate, even inside the main block",
    ),
    Param(
        "menu_link_ratio",
        float,
        0.4,
        "a menu node has at least this many hyperlinks per node of its subtree",
        0.0,
        1.0,
    ),
    Param(
        "menu_max_link_chars",
        float,
        25.0,
        "a menu node's links hold at most this many characters on average",
        0.0,
    ),
    Param("menu_min_links", int, 3, "a menu node holds at least this many hyperlinks", 1),
)

_WS_TABLE_SIZE = 0x3002  # str.isspace() is False above U+3000
_WS_TABLE = np.zeros(_WS_TABLE_SIZE, dtype=bool)
_WS_TABLE[[c for c in range(_WS_TABLE_SIZE) if chr(c).isspace()]] = True


def _non_space_counts(texts: list[str]) -> np.ndarray:
    """Characters that are not whitespace, per (non-empty) string, in one vectorised pass."""
    if not texts:
        return np.zeros(0, dtype=np.int64)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    keep = ~_WS_TABLE[np.minimum(codes, _WS_TABLE_SIZE - 1)]
    starts = np.zeros(len(texts), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return np.add.reduceat(keep.astype(np.int64), starts)


# ---------------------------------------------------------------------------------------------
# Algorithm 1


@dataclass
class CNRTree:
    """Algorithm 1's values for every node, numbered in document order (pre-order).

    Node ``i``'s subtree is the id range ``[i, end[i])``; ``parent[i]`` is ``-1`` for the
    root. ``elements[i]`` is the lxml element of an element node; for a text node it is the
    element whose ``.text`` (``kind`` TEXT) or ``.tail`` (``kind`` TAIL) holds the string
    (for the tail of a comment or processing instruction, which are no nodes, that comment
    or instruction).
    ``chars`` is a node's own characters (text nodes only), ``text_length`` / ``weight`` /
    ``cnr`` are Algorithm 1's attributes. ``links`` / ``link_chars`` count the ``<a>``
    elements in the subtree and the characters inside them (section 7's menus).
    ``steps`` / ``positions``, where the walk recorded them (:class:`CNRNodes`), are each
    element node's xpath step and position: :meth:`xpath` is made of them.
    """

    parent: list[int]
    end: np.ndarray
    kind: np.ndarray
    elements: Sequence[Any]
    chars: np.ndarray
    weight: np.ndarray
    text_length: np.ndarray
    cnr: np.ndarray
    links: np.ndarray
    link_chars: np.ndarray
    index: dict[Any, int] | None = field(repr=False)
    menu_tag_nodes: list[int] = field(default_factory=list)
    steps: list[str | None] | None = field(default=None, repr=False)
    positions: list[int] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.parent)

    def element_index(self) -> dict[Any, int]:
        """``index``, the node id of each element node: as the walk recorded it, or made
        here on first use (the compiled walk leaves it out: most pages never need it)."""
        if self.index is None:
            kind, elements = self.kind, self.elements
            ids = np.flatnonzero((kind == ELEMENT) | (kind == NON_CONTENT)).tolist()
            self.index = {elements[i]: i for i in ids}
        return self.index

    def node_of(self, el: Any) -> int:
        """The id of ``el``, or of its closest ancestor that is a node (children of
        nonContentNodes are not nodes); 0 (the root) when none is."""
        index = self.element_index()
        while el is not None:
            i = index.get(el)
            if i is not None:
                return i
            el = el.getparent()
        return 0

    def nodes_of(self, els: Iterable[Any]) -> list[int]:
        """:meth:`node_of` for many elements (ancestors looked up once)."""
        index = self.element_index()
        memo: dict[Any, int] = {}
        out = []
        for el in els:
            i = index.get(el)
            if i is None:
                i = memo.get(el)
            if i is None:
                path = []
                a = el
                while a is not None:
                    j = index.get(a)
                    if j is None:
                        j = memo.get(a)
                    if j is not None:
                        break
                    path.append(a)
                    a = a.getparent()
                i = 0 if a is None or j is None else j
                for m in path:
                    memo[m] = i
            out.append(i)
        return out

    def children(self, i: int) -> list[int]:
        """Ids of the children of node ``i``, in document order."""
        lo, hi = i + 1, int(self.end[i])
        if lo >= hi:
            return []
        parent = np.asarray(self.parent[lo:hi])
        return (np.flatnonzero(parent == i) + lo).tolist()

    def depth(self, i: int) -> int:
        d = 0
        parent = self.parent
        while parent[i] >= 0:
            i = parent[i]
            d += 1
        return d

    def xpath(self, i: int) -> str:
        """XPath of node ``i`` in the style of the blocks' xpaths (``/html[1]/body[1]/...``);
        text nodes end in ``/text()[k]``.

        An element node's is made of the recorded steps of it and its ancestors (every
        ancestor of an element node is one), when the walk started at the document's root:
        the tree is not read again."""
        kind = int(self.kind[i])
        steps, positions = self.steps, self.positions
        if (
            kind != TEXT
            and kind != TAIL
            and steps is not None
            and positions is not None
            and len(steps) == len(self.parent)
            and self._at_top()
        ):
            parent = self.parent
            parts = []
            while i >= 0:
                parts.append(f"{steps[i]}[{positions[i]}]")
                i = parent[i]
            parts.append("")
            return "/".join(reversed(parts))
        el = self.elements[i]
        if kind == TEXT:
            return _element_xpath(el) + "/text()[" + str(_text_position(el, None)) + "]"
        if kind == TAIL:
            par = el.getparent()
            return _element_xpath(par) + "/text()[" + str(_text_position(par, el)) + "]"
        return _element_xpath(el)

    def _at_top(self) -> bool:
        """Does node 0 stand for the document's root element (no element above it)?"""
        top = getattr(self.elements, "root", None)
        if top is None:
            top = self.elements[0]
        return top.getparent() is None

    def values(self, alive: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(weight, text_length, cnr) recomputed on the tree without the dead nodes."""
        if alive is None:
            return self.weight, self.text_length, self.cnr
        return _ratios(self.end, alive.astype(np.int64), self.chars * alive)


def _ratios(
    end: np.ndarray, node_count: np.ndarray, chars: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(end)
    ids = np.arange(n)
    cum_nodes = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(node_count, out=cum_nodes[1:])
    cum_chars = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(chars, out=cum_chars[1:])
    weight = cum_nodes[end] - cum_nodes[ids]
    text_length = cum_chars[end] - cum_chars[ids]
    cnr = np.divide(text_length, weight, out=np.zeros(n), where=weight > 0)
    return weight, text_length, cnr


@_compiled.twin("element_xpath", module=COMPILED)
def _element_xpath(el: Any) -> str:
    """``/html[1]/body[1]/...`` as the blocks' xpaths write it (a name test for a namespaced
    or prefixed tag), built bottom-up without recursion; compiled where ``_speedups`` is
    built (``_speedups.element_xpath``, the same string)."""
    parts = []
    while el is not None:
        tag = el.tag
        try:
            position = 1 + sum(1 for _ in el.itersiblings(tag, preceding=True))
        except ValueError:  # a tag lxml refuses as a filter: libxml2 keeps "<m\x15>"
            position = 1 + sum(1 for s in el.itersiblings(preceding=True) if s.tag == tag)
        name = str(tag)
        if name.startswith("{"):
            step = f"*[local-name()='{name.rsplit('}', 1)[1].lower()}']"
        elif _SIMPLE_NAME.match(name):
            step = name.lower()
        else:
            step = f"*[name()='{name}']"
        parts.append(f"{step}[{position}]")
        el = el.getparent()
    return "/" + "/".join(reversed(parts))


_SIMPLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def _text_position(parent: Any, after: Any) -> int:
    """1-based position among ``parent``'s text() nodes of its ``.text`` (``after`` None) or
    of the tail of its child ``after`` (every non-empty string is a text node in XPath)."""
    k = 1 if parent.text else 0
    if after is None:
        return k
    for child in parent:
        if child.tail:
            k += 1
        if child is after:
            break
    return k


def compute_cnr(
    root: Any,
    removed: Iterable[Any] = (),
    non_content_tags: frozenset[str] = NON_CONTENT_TAGS,
    menu_tags: frozenset[str] = MENU_TAGS,
) -> CNRTree:
    """Algorithm 1 on the tree under ``root`` in one iterative walk.

    ``removed`` (the document's skipped elements) and ``non_content_tags`` are
    nonContentNodes. Every other element is a node, and so is every non-blank text string.
    The walk is the jusText segmentation's, which records the nodes (:class:`CNRNodes`);
    the extractor keeps its blocks too (:func:`tree_and_blocks`).
    """
    removed = removed if isinstance(removed, (set, frozenset)) else set(removed)
    nodes = CNRNodes(non_content_tags, menu_tags)
    justext_segment(root, removed, recorder=nodes)
    return _tree(nodes)


def tree_and_blocks(doc: Document) -> tuple[CNRTree, list[TextBlock], list[int]]:
    """The CNR tree, the page's jusText blocks and the node of each block's element (or of
    its closest ancestor that is a node), all from one walk of the page; cached on ``doc``."""

    def walk() -> CNRTree:
        nodes = CNRNodes(NON_CONTENT_TAGS, MENU_TAGS)
        blocks = justext_segment(doc.root, doc.removed, recorder=nodes)
        doc.cached("justext_blocks", lambda: blocks)
        doc.cached("cnr_block_nodes", lambda: nodes.block_nodes)
        return _tree(nodes)

    tree: CNRTree = doc.cached("cnr_tree", walk)
    blocks = doc.justext_blocks()
    block_nodes = doc.cached("cnr_block_nodes", lambda: tree.nodes_of([b.element for b in blocks]))
    return tree, blocks, block_nodes


def _tree(nodes: CNRNodes) -> CNRTree:
    """The :class:`CNRTree` of the recorded nodes: Algorithm 1's values by prefix sums
    (:func:`_tree_arrays`)."""
    end, kind, chars, weight, text_length, cnr, links, link_chars = _tree_arrays(nodes)
    return CNRTree(
        parent=nodes.parent,
        end=end,
        kind=kind,
        elements=nodes.elements,
        chars=chars,
        weight=weight,
        text_length=text_length,
        cnr=cnr,
        links=links,
        link_chars=link_chars,
        index=nodes.index,
        menu_tag_nodes=nodes.menu,
        steps=nodes.steps,
        positions=nodes.positions,
    )


@_compiled.twin("tree_arrays", module=COMPILED)
def _tree_arrays(nodes: CNRNodes) -> tuple[np.ndarray, ...]:
    """``(end, kind, chars, weight, text_length, cnr, links, link_chars)`` of the recorded
    nodes, in numpy (see :func:`_tree`). On a record of the compiled walk, its compiled twin
    (``_speedups.tree_arrays``) gives the same values in one pass; on the Python walk's
    record (no character counts) it leaves them to this function."""
    parent, texts = nodes.parent, nodes.texts
    link_ids, link_texts = nodes.link_ids, nodes.link_texts
    n = len(parent)
    ids = np.arange(n)
    end = np.asarray(nodes.ends, dtype=np.int64)
    is_text = end < 0
    np.negative(end, out=end, where=is_text)
    parents = np.asarray(parent, dtype=np.int64)
    kind = np.zeros(n, dtype=np.int8)
    kind[is_text] = TAIL
    # A .text string directly follows its element and is recorded with it; a string right
    # after its parent element that is the tail of a comment or PI (no node) is a tail.
    elements = nodes.elements
    first = np.flatnonzero(is_text & (parents == ids - 1)).tolist()
    kind[[i for i in first if elements[i] is elements[i - 1]]] = TEXT
    kind[nodes.skipped] = NON_CONTENT
    if nodes.text_counts is not None and nodes.link_counts is not None:  # the compiled walk
        link_counts = [c for t, c in zip(link_texts, nodes.link_counts, strict=True) if t]
        counts = np.array(nodes.text_counts + link_counts, dtype=np.int64)
    else:
        counts = _non_space_counts(texts + [t for t in link_texts if t])
    own = np.zeros((2, n), dtype=np.int64)  # own characters, own link characters
    own[0, is_text] = counts[: len(texts)]
    if link_ids:
        has_text = [i for i, t in zip(link_ids, link_texts, strict=True) if t]
        own[1, has_text] = counts[len(texts) :]
    cum = np.zeros((2, n + 1), dtype=np.int64)
    np.cumsum(own, axis=1, out=cum[:, 1:])
    sums = cum[:, end] - cum[:, ids]
    text_length, link_chars = sums[0], sums[1]
    weight = end - ids
    cnr = text_length / weight
    cum_links = np.zeros(n + 1, dtype=np.int64)
    if link_ids:
        marks = np.zeros(n, dtype=np.int64)
        marks[link_ids] = 1
        np.cumsum(marks, out=cum_links[1:])
    links = cum_links[end] - cum_links[ids]
    return end, kind, own[0], weight, text_length, cnr, links, link_chars


# ---------------------------------------------------------------------------------------------
# Selection of the top-rated nodes (the paper leaves the rule open)


def select_nodes(
    tree: CNRTree,
    rule: str = "above_mean",
    top_k: int = 10,
    top_fraction: float = 0.1,
    candidates: str = "elements",
    alive: np.ndarray | None = None,
) -> list[int]:
    """Ids of the top-rated nodes, in document order.

    Candidates are the nodes with text (textLength > 0; with ``candidates="elements"``,
    element nodes only), alive ones only when ``alive`` is given. Ties in CNR are broken by
    document order.
    """
    _, text_length, cnr = tree.values(alive)
    mask = text_length > 0
    if candidates == "elements":
        mask &= tree.kind == ELEMENT
    elif candidates != "all":
        raise InvalidParameter(f"parameter 'candidates' got {candidates!r}", "candidates")
    if alive is not None:
        mask &= alive
    ids = np.flatnonzero(mask)
    if not len(ids):
        return []
    values = cnr[ids]
    if rule == "top_k" or rule == "top_fraction":
        k = top_k if rule == "top_k" else math.ceil(top_fraction * len(ids))
        k = min(max(k, 1), len(ids))
        order = np.argsort(-values, kind="stable")[:k]
        chosen = ids[np.sort(order)]
    elif rule == "above_mean":
        chosen = ids[values > values.mean()]
        if not len(chosen):  # all equal: every candidate is as good as the mean
            chosen = ids
    elif rule == "above_mean_std":
        threshold = values.mean() + values.std()
        chosen = ids[values >= threshold]
    else:
        raise InvalidParameter(f"parameter 'selection' got {rule!r}", "selection")
    return chosen.tolist()


# ---------------------------------------------------------------------------------------------
# Algorithm 2


def identify_blocks(
    parent: Sequence[Any] | Mapping[Any, Any],
    selected: Iterable[Any],
    trace: list[tuple[frozenset[Any], Any]] | None = None,
) -> list[Any]:
    """Algorithm 2: the blocks that the ``selected`` nodes belong to.

    ``parent[n]`` is the parent of node ``n``, ``None`` or ``-1`` at the root (a list indexed
    by node id, or a dict; node ids must be comparable, e.g. ints). (1) Selected nodes that
    descend from another selected node are dropped. (2, 3) While the set holds two children
    of one node ``n``, the set's children of ``n`` are replaced by ``n``. Replacements are
    made deepest parent first: replacing children by their parent never makes siblings
    deeper down, so one pass over the parents, in order of decreasing depth, reaches the
    fixpoint, in time linear in the nodes walked. Each replacement is appended to ``trace``
    as ``(frozenset(children), n)`` when a list is given. Returns the final set, sorted.
    """
    blocks = set(selected)
    # (1) drop descendants of other selected nodes; "has a selected ancestor" is memoised
    # along the walked paths, so every node is walked at most once.
    covered: dict[Any, bool] = {}
    keep: list[Any] = []
    for b in sorted(blocks):
        path = []
        n = parent[b]
        verdict = False
        while n is not None and n != -1:
            known = covered.get(n)
            if known is not None:
                verdict = known
                break
            if n in blocks:
                verdict = True
                break
            path.append(n)
            n = parent[n]
        for m in path:
            covered[m] = verdict
        if not verdict:
            keep.append(b)

    depth: dict[Any, int] = {}

    def depth_of(n: Any) -> int:
        path = []
        while n is not None and n != -1 and n not in depth:
            path.append(n)
            n = parent[n]
        d = -1 if n is None or n == -1 else depth[n]
        for m in reversed(path):
            d += 1
            depth[m] = d
        return d

    # (2)-(3): the set's children per parent; a parent with two of them is queued by depth
    # (deepest first; same depth: in the order they were queued).
    current = set(keep)
    by_parent: dict[Any, list[Any]] = {}
    heap: list[tuple[int, int, Any]] = []
    seq = 0
    for b in keep:
        p = parent[b]
        if p is None or p == -1:
            continue
        kids = by_parent.get(p)
        if kids is None:
            by_parent[p] = [b]
            continue
        kids.append(b)
        if len(kids) == 2:
            seq += 1
            heapq.heappush(heap, (-depth_of(p), seq, p))
    while heap:
        _, _, p = heapq.heappop(heap)
        kids = by_parent.pop(p)
        current.difference_update(kids)
        current.add(p)
        if trace is not None:
            trace.append((frozenset(kids), p))
        g = parent[p]
        if g is None or g == -1:
            continue
        siblings = by_parent.get(g)
        if siblings is None:
            by_parent[g] = [p]
            continue
        siblings.append(p)
        if len(siblings) == 2:
            seq += 1
            heapq.heappush(heap, (-depth_of(g), seq, g))
    return sorted(current)


def choose_main(text_length: np.ndarray, blocks: Sequence[int]) -> int | None:
    """The block with the most text (ties: the first in document order)."""
    best = None
    best_len = -1
    for b in sorted(blocks):
        t = int(text_length[b])
        if t > best_len:
            best, best_len = b, t
    return best


def adjust_granularity(
    tree: CNRTree, node: int, granularity: int, alive: np.ndarray | None = None
) -> int:
    """Section 6: ``+n`` takes the parent n times (stops at the root), ``-n`` takes n times the
    (alive) child with the highest CNR (ties: the first; stops at a leaf)."""
    parent = tree.parent
    for _ in range(max(granularity, 0)):
        if parent[node] < 0:
            break
        node = parent[node]
    if granularity < 0:
        _, _, cnr = tree.values(alive)
        for _ in range(-granularity):
            kids = tree.children(node)
            if alive is not None:
                kids = [k for k in kids if alive[k]]
            if not kids:
                break
            node = max(kids, key=lambda k: (cnr[k], -k))
    return node


def detect_blocks(
    tree: CNRTree,
    selection: str = "above_mean",
    top_k: int = 10,
    top_fraction: float = 0.1,
    candidates: str = "elements",
    granularity: int = 0,
    max_blocks: int = 1,
) -> list[int]:
    """Main block first, then (section 7) the next blocks in relevance order: the nodes of a
    detected block are removed from the tree, CNRs recomputed, and detection repeated.
    Stops early when no text is left."""
    found: list[int] = []
    alive: np.ndarray | None = None
    for _ in range(max_blocks):
        _, text_length, _ = tree.values(alive)
        selected = select_nodes(tree, selection, top_k, top_fraction, candidates, alive)
        if not selected:
            break
        blocks = identify_blocks(tree.parent, selected)
        main = choose_main(text_length, blocks)
        if main is None:
            break
        main = adjust_granularity(tree, main, granularity, alive)
        found.append(main)
        if alive is None:
            alive = np.ones(len(tree), dtype=bool)
        alive[main : int(tree.end[main])] = False
        if not alive.any():
            break
    return found


# ---------------------------------------------------------------------------------------------
# Section 7: menus


def detect_menus(
    tree: CNRTree,
    link_ratio: float = 0.4,
    max_link_chars: float = 25.0,
    min_links: int = 3,
    protect: Iterable[int] = (),
) -> list[int]:
    """Menu nodes: concentrations of links whose links hold few characters.

    A node is a menu when it holds at least ``min_links`` hyperlinks (``<a>``), at least
    ``link_ratio`` hyperlinks per node of its subtree (Algorithm 1's weight) and at most
    ``max_link_chars`` characters per link on average; :data:`MENU_TAGS` elements are menus
    too. Nodes that contain a ``protect`` node (the content blocks) are not menus. Returns
    the outermost menu nodes in document order.
    """
    links = tree.links
    mask = (
        (links >= min_links)
        & (links >= link_ratio * tree.weight)
        & (tree.link_chars <= max_link_chars * links)
    )
    mask &= tree.kind != TAIL
    mask &= tree.kind != TEXT
    if tree.menu_tag_nodes:
        mask[tree.menu_tag_nodes] = True
    for p in protect:  # ancestors-or-self of a content block
        n = p
        while n >= 0:
            mask[n] = False
            n = tree.parent[n]
    out: list[int] = []
    last_end = -1
    end = tree.end
    for i in np.flatnonzero(mask).tolist():
        if i >= last_end:
            out.append(i)
            last_end = int(end[i])
    return out


def _cover(
    n: int, end: np.ndarray, nodes: Iterable[int], values: Iterable[int] | None = None
) -> np.ndarray:
    """Per node id, the smallest value of the given subtrees covering it (0 when none).

    Values are positive; with ``values`` None every subtree has value 1.
    """
    out = np.zeros(n, dtype=np.int64)
    pairs = list(zip(nodes, values, strict=True)) if values is not None else [(x, 1) for x in nodes]
    for node, value in sorted(pairs, key=lambda p: -p[1]):  # smaller values overwrite
        out[node : int(end[node])] = value
    return out


# ---------------------------------------------------------------------------------------------
# The extractor


def _cnr_label_arguments(
    tree: CNRTree, block_nodes: Sequence[int], params: Mapping[str, Any]
) -> tuple[Any, ...]:
    """:func:`label_blocks`' arguments as its compiled twin takes them: the tree's arrays
    and the parameters one by one."""
    return (
        tree.parent, tree.end, tree.kind, tree.chars, tree.weight, tree.text_length,
        tree.cnr, tree.links, tree.link_chars, tree.menu_tag_nodes, list(block_nodes),
        params["selection"], params["top_k"], params["top_fraction"],
        params["candidates"], params["granularity"], params["max_blocks"],
        params["content_blocks"], params["detect_menus"], params["menu_link_ratio"],
        params["menu_max_link_chars"], params["menu_min_links"],
    )  # fmt: skip


@_compiled.twin("label_blocks", arguments=_cnr_label_arguments, module=COMPILED)
def label_blocks(
    tree: CNRTree, block_nodes: Sequence[int], params: Mapping[str, Any]
) -> tuple[list[int], list[int | None], list[bool], list[float]]:
    """The detected blocks (:func:`detect_blocks`, best first) and, per segmentation block
    (``block_nodes``: its node, see :func:`tree_and_blocks`), its rank (the best detected
    block it lies in, None when none), whether it lies in a menu (:func:`detect_menus`,
    the ``content_blocks`` best detected blocks protected) and its node's CNR.

    This is the reference, in numpy (``label_blocks.python``); the compiled twin
    (``_speedups.label_blocks``, in CNR's compiled module: see
    :mod:`scrapy_boilerplate.core.compiled`) gives the same four lists on C arrays.
    """
    detected = detect_blocks(
        tree,
        params["selection"],
        params["top_k"],
        params["top_fraction"],
        params["candidates"],
        params["granularity"],
        params["max_blocks"],
    )
    n = len(tree)
    end = tree.end
    nodes = np.asarray(block_nodes, dtype=np.int64)
    rank_of = _cover(n, end, detected, range(1, len(detected) + 1))
    ranks: list[int | None] = [r or None for r in rank_of[nodes].tolist()]
    # A detected node with no block inside (an inline element, a text node): the blocks of
    # its closest ancestor that is a block's element take its rank.
    sorted_nodes = np.sort(nodes)
    by_node: dict[int, list[int]] | None = None
    for r, node in enumerate(detected, 1):
        lo = np.searchsorted(sorted_nodes, node)
        if lo < len(sorted_nodes) and sorted_nodes[lo] < end[node]:
            continue
        if by_node is None:
            by_node = {}
            for j, i in enumerate(nodes.tolist()):
                by_node.setdefault(i, []).append(j)
        a = node
        while a >= 0 and a not in by_node:
            a = tree.parent[a]
        for j in by_node.get(a, ()):
            rj = ranks[j]
            if rj is None or rj > r:
                ranks[j] = r
    menus: list[int] = []
    if params["detect_menus"]:
        menus = detect_menus(
            tree,
            params["menu_link_ratio"],
            params["menu_max_link_chars"],
            params["menu_min_links"],
            protect=detected[: params["content_blocks"]],
        )
    in_menu = _cover(n, end, menus)[nodes].astype(bool).tolist()
    cnrs = tree.cnr[nodes].tolist()
    return detected, ranks, in_menu, cnrs


class CNRExtractor(Extractor):
    """CNR as an extractor: blocks carry ``cnr``, ``rank`` and ``menu``.

    Blocks are the page's block-level segmentation (shared with jusText). A block is
    content when it lies in one of the ``content_blocks`` best detected blocks and is no
    menu. ``Extraction.extra`` holds ``main_xpath``, ``main_cnr`` and ``detected`` (every
    detected block's rank, xpath, CNR and text length).
    """

    name = "cnr"
    params = PARAMS

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        checked = super().validate(params)
        if checked["content_blocks"] > checked["max_blocks"]:
            raise InvalidParameter(
                f"parameter 'content_blocks' ({checked['content_blocks']}) must not exceed "
                f"'max_blocks' ({checked['max_blocks']})",
                "content_blocks",
            )
        return checked

    def extract(self, doc: Document, params: dict[str, Any]) -> Extraction:
        tree, text_blocks, nodes_of_blocks = tree_and_blocks(doc)
        check()  # the page's deadline
        detected, ranks, in_menu, cnrs = label_blocks(tree, nodes_of_blocks, params)
        limit = params["content_blocks"]
        labels = [
            CONTENT if (r is not None and r <= limit and not m) else BOILERPLATE
            for r, m in zip(ranks, in_menu, strict=True)
        ]
        out = blocks_from_segments(
            text_blocks, labels, ("cnr", "rank", "menu"), (cnrs, ranks, in_menu)
        )
        cnr = tree.cnr
        info = [
            {
                "rank": r,
                "xpath": tree.xpath(node),
                "cnr": float(cnr[node]),
                "text_length": int(tree.text_length[node]),
            }
            for r, node in enumerate(detected, 1)
        ]
        extra: dict[str, Any] = {
            "main_xpath": info[0]["xpath"] if info else None,
            "main_cnr": info[0]["cnr"] if info else None,
            "detected": info,
        }
        return Extraction.from_blocks(out, self.name, dict(params), extra=extra)
