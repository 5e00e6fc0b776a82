"""Algorithm 1's nodes, recorded on the jusText segmentation's walk (:class:`CNRNodes`), so
that a page is walked once for CNR's nodes and its blocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import xpath_step

#: CNR's compiled module (``_speedups.pyx`` here), where it is built.
COMPILED = "scrapy_boilerplate.extractors.cnr._speedups"
_module = _compiled.load(COMPILED)


class CNRNodes:
    """Algorithm 1's nodes of the CNR extractor, recorded by the jusText segmentation's
    walk (``document.justext_segment``, of which this is a ``WalkRecorder``), so that a page
    is walked once for both.

    Every element is a node, in document order (pre-order), and so is every non-blank
    ``.text`` / ``.tail`` string, except below a nonContentNode: a removed element or one
    whose tag is in ``skip_tags``. The walk itself enters every element that is not removed
    (the segmentation needs them), so the recorder tracks the state instead of skipping:
    below an ``<a>`` only the characters are collected (``link_texts``, one string per link
    in ``link_ids``), below any other nonContentNode nothing is.

    ``parent[i]`` is node ``i``'s parent (``-1`` for the root); ``ends[i]`` is the id after
    an element's subtree, ``-(i + 1)`` for a text node; ``elements[i]`` the element (for a
    text node, the one whose ``.text`` or ``.tail`` it is); ``texts`` the text nodes'
    strings; ``skipped`` the nonContentNodes; ``index`` the node of each element node;
    ``menu`` the element nodes whose tag is in ``menu_tags``; ``block_nodes`` the node of
    each block's element, or of its closest ancestor that is a node; ``text_counts`` /
    ``link_counts``, where the walk filled them, the characters of each of ``texts`` /
    ``link_texts`` that are not white space. ``steps`` / ``positions`` are each element
    node's xpath step and its position among its parent's children of its tag (the
    blocks' xpaths are made of them; ``None`` / 0 for a text node): CNR names its detected
    blocks by them without reading the tree again.

    The methods here are the recorder that the Python walk calls; the compiled walk calls
    its twin, ``_speedups.NodeRecorder`` (:meth:`compiled_recorder`), which records into
    the same lists, counts the characters (``text_counts`` / ``link_counts``) as it goes,
    leaves ``index`` out (None: CNR's tree makes it on first use) and records ``elements``
    as a ``core._speedups.NodeElements``: a read-only sequence of the same elements, found
    in the tree when read (a proxy per node costs more than the rest of the record).
    """

    __slots__ = (
        "_chunks",
        "_cur",
        "_hidden",
        "_in_link",
        "block_nodes",
        "elements",
        "ends",
        "index",
        "link_counts",
        "link_ids",
        "link_texts",
        "menu",
        "menu_tags",
        "parent",
        "positions",
        "skip_tags",
        "skipped",
        "steps",
        "text_counts",
        "texts",
    )

    def __init__(self, skip_tags: frozenset[str], menu_tags: frozenset[str] = frozenset()) -> None:
        self.skip_tags = skip_tags
        self.menu_tags = menu_tags
        self.index: dict[Any, int] | None = {}
        self.menu: list[int] = []
        self.parent: list[int] = []
        self.elements: Sequence[Any] = []
        self.ends: list[int] = []
        self.texts: list[str] = []
        self.skipped: list[int] = []
        self.link_ids: list[int] = []
        self.link_texts: list[str] = []
        self.block_nodes: list[int] = []
        self.steps: list[str | None] = []
        self.positions: list[int] = []
        # The compiled walk counts each text's and link text's characters that are not
        # white space as it goes; the Python walk leaves them to CNR (None).
        self.text_counts: list[int] | None = None
        self.link_counts: list[int] | None = None
        # the walk's state: the open node, the elements open inside the current <a> (the
        # <a> included) and inside a nonContentNode that is no link, the open link's text
        self._cur = -1
        self._in_link = 0
        self._hidden = 0
        self._chunks: list[str] = []

    def reset(self) -> None:
        """Forget every recorded node (a walk that stopped part way is started again)."""
        for name in self.__slots__:
            value = getattr(self, name)
            if isinstance(value, (list, dict)):
                value.clear()
        self.elements = []  # (the compiled walk's record is no list: see above)
        self.index = {}
        self.text_counts = self.link_counts = None
        self._cur = -1
        self._in_link = self._hidden = 0

    def compiled_recorder(self) -> Any:
        """The compiled twin recording into this record, or None where it is not built."""
        return _module.NodeRecorder(self) if _module is not None else None

    # -- the walk's calls (document.WalkRecorder) ---------------------------------------------
    def start(
        self, el: Any, raw: str, tag: str, position: int, removed: bool, text: Any, has_text: Any
    ) -> int:
        """Element ``el`` starts: a node unless below a nonContentNode, and its ``.text`` a
        text node or a link's characters; its node, or its closest ancestor's, is the mark
        of the blocks it holds."""
        if self._hidden:
            self._hidden += 1
            return self._cur
        if self._in_link:  # inside a link: no nodes, only its characters are counted
            self._in_link += 1
            if removed:
                pass
            elif raw in self.skip_tags:
                self._hidden = 1
            elif text:
                self._chunks.append(text)
            return self._cur
        parent = self.parent
        if removed:  # a nonContentNode
            self.skipped.append(len(parent))
        parent.append(self._cur)
        cur = self._cur = len(self.elements)
        assert self.index is not None and isinstance(self.elements, list)
        self.index[el] = cur
        self.elements.append(el)
        self.ends.append(0)
        self.steps.append(xpath_step(tag, el))
        self.positions.append(position)
        if raw in self.menu_tags:
            self.menu.append(cur)
        if removed:
            pass
        elif raw in self.skip_tags:
            self.skipped.append(cur)
            if raw == "a":
                self._in_link = 1
                self.link_ids.append(cur)
                self._chunks = [text] if text else []
            else:
                self._hidden = 1
        elif has_text:
            self._text_node(el, text)
        return cur

    def end(self, el: Any, tail: Any, has_text: Any) -> None:
        """Element ``el`` ends (a link's text is complete when the link ends), and its
        ``.tail`` is a text node or a link's characters."""
        if self._hidden > 1:  # an element below a nonContentNode ended
            self._hidden -= 1
            return
        self._hidden = 0  # (when the nonContentNode itself ended)
        if self._in_link > 1:  # an element inside a link ended: its tail is link text
            self._in_link -= 1
            if tail:
                self._chunks.append(tail)
            return
        if self._in_link:  # the link ends
            self._in_link = 0
            self.link_texts.append("".join(self._chunks))
        cur = self._cur
        parent = self.parent
        self.ends[cur] = len(parent)
        cur = self._cur = parent[cur]
        if has_text and cur >= 0:  # the root's tail is outside the tree
            self._text_node(el, tail)

    def tail(self, el: Any, tail: Any, has_text: Any) -> None:
        """The ``.tail`` of a comment or processing instruction: a text node, or a link's
        characters."""
        if self._hidden:  # (below a nonContentNode: nothing)
            return
        if self._in_link:
            if tail:
                self._chunks.append(tail)
        elif has_text:
            self._text_node(el, tail)

    def block(self, mark: int) -> None:
        """A block was closed: its element's node (the root's for the walk's root)."""
        self.block_nodes.append(mark if mark >= 0 else 0)

    def _text_node(self, el: Any, text: Any) -> None:
        parent = self.parent
        parent.append(self._cur)
        self.elements.append(el)  # type: ignore[attr-defined]
        self.ends.append(-len(parent))
        self.texts.append(text)
        self.steps.append(None)
        self.positions.append(0)
