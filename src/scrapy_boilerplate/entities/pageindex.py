"""One walk over a page's elements: their numbers in document order and what the entity
predicates (:mod:`.predicates`) and the structural features (:mod:`.features`) read of
them, so that both work on lists instead of walking the tree again."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from scrapy_boilerplate.core.deadline import check

_NAMES: dict[str, str] = {}  # raw tag -> lower-case local name

#: Elements whose text a browser never shows as the page's text: scripts, style sheets,
#: what shows only where scripts are off, inert templates. The paper reads entities off
#: rendered pages, so neither these elements nor anything inside them is an entity, and
#: their text is no part of an entity's.
HIDDEN = frozenset(("script", "style", "noscript", "template"))

#: An element's place among its siblings: see :meth:`PageIndex._about_children`.
_About = tuple[int, int, int, int, int, int, bool]


def _name(tag: str) -> str:
    name = _NAMES[tag] = tag.rsplit("}", 1)[-1].lower()
    return name


def tag_of(el: Any) -> str:
    """Lower-case local name, ``#`` for comments and processing instructions."""
    tag = el.tag
    return (_NAMES.get(tag) or _name(tag)) if isinstance(tag, str) else "#"


def shown_chunks(el: Any, limit: int | None = None) -> list[str] | None:
    """The pieces of text below ``el`` that ``itertext()`` yields, in its order, less
    those inside :data:`HIDDEN` elements (their tails are kept: they follow the element);
    None once the pieces hold more than ``limit`` characters other than spaces (as
    :func:`~.predicates.short_text` counts them), without reading further."""
    out: list[str] = []
    size = 0
    stack: list[tuple[Any, bool]] = [(el, False)]
    while stack:
        node, tail = stack.pop()
        if tail:
            text = node.tail
        elif isinstance(node.tag, str) and tag_of(node) not in HIDDEN:
            text = node.text
            for child in reversed(node):
                stack.append((child, True))
                stack.append((child, False))
        else:  # a hidden element, a comment or a processing instruction: no text of its own
            continue
        if text:
            out.append(text)
            size += len(text) - text.count(" ")
            if limit is not None and size > limit:
                return None
    return out


def text_of(el: Any) -> str:
    """All the text below ``el``, whitespace collapsed to single spaces."""
    return " ".join(" ".join(el.itertext()).split())


class PageIndex:
    """Every element of a page numbered in document order, with what the predicates and the
    structural features read: tag, id, class, children, siblings, index, parent, rank
    among the same-tag siblings (by raw tag for the holes, by lower-case local name for
    the predicates' paths) and the end of its subtree (page coverage, subtree ranges),
    all computed in one walk: generation and the features of the ~700 candidates of a
    page (and of their ancestors) are then list lookups. Children counts and positions
    count comments too, as ``len()`` and iteration of an lxml element do."""

    def __init__(self, root: Any) -> None:
        self.number: dict[Any, int] = {}
        self.elements: list[Any] = []  # (keeps every element proxy alive)
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.classes: list[str] = []
        self.children: list[int] = []
        self.siblings: list[int] = []  # the parent's children, 0 for the root
        self.position: list[int] = []  # 0-based among the parent's children, 0 for the root
        self.parent: list[int] = []  # the parent's number, -1 for the root
        self.raw_tags: list[Any] = []
        self.same_rank: list[int] = []  # 0-based among the parent's children of its tag
        self.same_total: list[int] = []
        self.local_rank: list[int] = []  # 0-based among the parent's children of its tag name
        self.local_last: list[bool] = []  # the last child of its parent with its tag name
        self.end: list[int] = []  # the number after the element's subtree
        self.memo: dict[tuple[int, ...], tuple[str, ...]] = {}  # features.node_names()'s
        self.recipes: dict[Any, tuple[str, ...]] = {}  # features.recipe_names()'s cache
        self.ups: dict[tuple[int, ...], tuple[int, ...]] = {}  # a node list -> its parents
        # features.column_header()'s, by row: its cells' first columns; a header row's cells
        self.cell_columns: dict[Any, dict[Any, int]] = {}
        self.header_cells: dict[Any, tuple[list[int], list[int], list[str]]] = {}
        self._header_rows: list[int] | None = None  # see header_row()
        self._hidden: tuple[list[bool], list[bool]] | None = None  # see hidden_marks()
        #: tag names -> the numbers of the elements with one of them (features' contexts)
        self.tagged: dict[tuple[str, ...], list[int]] = {}
        self._walk(root)
        self.total = max(len(self.tags), 1)

    def _walk(self, root: Any) -> None:
        top = root.getparent()  # (a subtree: its root's place among its own siblings)
        about = {root: (0, 0, -1, 0, 1, 0, True)} if top is None else self._about_children(top, -1)
        stack: list[tuple[Any, int]] = [(root, -1)]
        end = self.end
        while stack:
            el, done = stack.pop()
            if done >= 0:
                end[done] = len(self.tags)
                continue
            i = self._record(el, about.pop(el))
            if not i & 255:
                check()  # the page's deadline, and a point where another thread may run
            stack.append((el, i))
            if len(el):
                about.update(self._about_children(el, i))
                stack.extend((c, -1) for c in reversed(el) if isinstance(c.tag, str))

    @staticmethod
    def _about_children(el: Any, number: int) -> dict[Any, _About]:
        """(siblings, position, parent, rank among same-tag siblings, same-tag total, rank
        among same-name siblings, last of its name) of ``el``'s element children."""
        kids = list(el)
        tags = [c.tag for c in kids]
        totals = Counter(tags)
        names = [_NAMES.get(t) or _name(t) if isinstance(t, str) else t for t in tags]
        name_totals = totals if names == tags else Counter(names)
        ranks: dict[Any, int] = {}
        name_ranks: dict[Any, int] = ranks if name_totals is totals else {}
        out: dict[Any, _About] = {}
        n = len(kids)
        for pos, c in enumerate(kids):
            tag = tags[pos]
            if isinstance(tag, str):
                r = ranks.get(tag, 0)
                ranks[tag] = r + 1
                if name_ranks is ranks:
                    out[c] = (n, pos, number, r, totals[tag], r, r + 1 == totals[tag])
                else:
                    name = names[pos]
                    k = name_ranks.get(name, 0)
                    name_ranks[name] = k + 1
                    out[c] = (n, pos, number, r, totals[tag], k, k + 1 == name_totals[name])
        return out

    def _record(self, el: Any, about: _About) -> int:
        i = len(self.tags)
        self.number[el] = i
        self.elements.append(el)
        self.tags.append(tag_of(el))
        self.ids.append(el.get("id") or "")
        self.classes.append(el.get("class") or "")
        self.children.append(len(el))
        self.raw_tags.append(el.tag)
        n, pos, parent, rank, total, name_rank, name_last = about
        self.siblings.append(n)
        self.position.append(pos)
        self.parent.append(parent)
        self.same_rank.append(rank)
        self.same_total.append(total)
        self.local_rank.append(name_rank)
        self.local_last.append(name_last)
        self.end.append(i + 1)
        return i

    def header_row(self, el: Any) -> Any:
        """The first ``tr`` in document order within ``el`` (``el`` included) with a ``th``
        child, None if there is none: what ``el.iter("tr")`` would find first, without
        visiting the rows. The rows with a ``th`` child are listed in one pass over the
        page on the first call; each call is then a bisection in its subtree's range (the
        candidates of a table ask once each, so scanning its rows every time would make
        the page's work grow with its rows squared)."""
        rows = self._header_rows
        if rows is None:
            raw, parent = self.raw_tags, self.parent
            rows = self._header_rows = sorted(
                {p for k, p in enumerate(parent) if p >= 0 and self.tags[k] == "th"
                 and raw[p] == "tr"}
            )  # fmt: skip
        i = self.number[el]
        j = bisect_left(rows, i)
        if j < len(rows) and rows[j] < self.end[i]:
            return self.elements[rows[j]]
        return None

    def hidden_marks(self) -> tuple[list[bool], list[bool]]:
        """Two flags per element, in document order: it is a :data:`HIDDEN` element or lies
        inside one (its text is never shown); a :data:`HIDDEN` element lies below it (its
        shown text is not all of its text). Counted once per page, off the subtree ranges."""
        if self._hidden is None:
            marks = [tag in HIDDEN for tag in self.tags]
            n = len(marks)
            if not any(marks):
                self._hidden = ([False] * n, [False] * n)
            else:
                end = self.end
                inside = [False] * n
                for i in range(n):
                    if marks[i] and not inside[i]:
                        inside[i : end[i]] = [True] * (end[i] - i)
                self._hidden = (inside, [not clear for clear in self.none_below(marks)])
        return self._hidden

    def none_below(self, marked: list[bool]) -> list[bool]:
        """For each element: no element below it is ``marked`` (one flag an element, in
        document order), read off prefix counts of the marks in one pass."""
        seen = [0, *accumulate(marked)]
        end = self.end
        return [seen[end[i]] == seen[i + 1] for i in range(len(marked))]

    def numbers(self, nodes: Sequence[Any]) -> list[int]:
        """The numbers of ``nodes`` (elements of the page)."""
        number = self.number
        return [number[n] for n in nodes]


__all__ = ["HIDDEN", "PageIndex", "shown_chunks", "tag_of", "text_of"]
