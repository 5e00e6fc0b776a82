"""Extraction predicates (Pasupat and Liang, "Zero-shot Entity Extraction from Web Pages",
section 3.1; ../shared/papers/zero-shot-entity-extraction.txt).

A predicate is a simplified XPath, a list of path entries: a tag (every child with that tag)
or a tag and an index (only the i-th child with that tag). For every DOM node, the
predicate selecting only that node is generalised by dropping any subset of the indices of
its last ``k`` entries (``k = 8``: at most 2^8 predicates per node). Predicates selecting at
least two nodes are kept, and predicates with the same denotation (the same nodes) form one
:class:`Candidate`. A node's text, whitespace collapsed, is a candidate entity when it is
shorter than ``max_chars`` (140) characters.

The denotations are computed without running any XPath: a node matches a generalised
predicate exactly when it generates that predicate itself (its own path with the same
indices dropped), so grouping the nodes by the predicates they generate gives every
predicate's denotation in one pass. With ``extended=True`` the index types ``[1:]`` (every
node but the first with its tag) and ``[:-1]`` (every node but the last) are generated too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._deadline import check

ANY = None
ALL_BUT_FIRST = "1:"
ALL_BUT_LAST = ":-1"

Entry = tuple[str, Any]  # (tag, index): index an int, ANY, ALL_BUT_FIRST or ALL_BUT_LAST


@dataclass(frozen=True)
class Predicate:
    """A simplified XPath: its path entries from the root."""

    entries: tuple[Entry, ...]

    def xpath(self) -> str:
        parts = []
        for tag, index in self.entries:
            if index is ANY:
                parts.append(tag)
            elif index == ALL_BUT_FIRST:
                parts.append(f"{tag}[position()>1]")
            elif index == ALL_BUT_LAST:
                parts.append(f"{tag}[position()<last()]")
            else:
                parts.append(f"{tag}[{index}]")
        return "/" + "/".join(parts)

    def __str__(self) -> str:
        return "/" + "/".join(
            tag if index is ANY else f"{tag}[{index}]" for tag, index in self.entries
        )


@dataclass
class Candidate:
    """Predicates with one denotation: the selected nodes and their entity strings."""

    nodes: list[Any]
    entities: list[str]
    predicates: list[Predicate] = field(default_factory=list)
    first: int = 0  # document position of the first node

    @property
    def predicate(self) -> Predicate:
        """The most specific predicate of the group (most indices kept), as the representative."""
        return max(self.predicates, key=lambda p: (sum(i is not ANY for _, i in p.entries), str(p)))


@dataclass
class PageNodes:
    """Every element of a page in document order, with its path and entity text."""

    elements: list[Any]
    paths: list[tuple[Entry, ...]]
    texts: list[str | None]  # None: not a candidate entity (empty or too long)
    last_of_tag: list[bool]  # the last child of its parent with its tag
    truncated: bool = False


def _tag(el: Any) -> str | None:
    tag = el.tag
    if not isinstance(tag, str):
        return None
    return tag.rsplit("}", 1)[-1].lower()


def _path_of(el: Any) -> tuple[Entry, ...]:
    """The path of ``el`` from the document's root (a predicate is an absolute XPath even
    when the walk starts at ``<body>``)."""
    entries: list[Entry] = []
    while el is not None:
        tag = _tag(el) or "html"
        parent = el.getparent()
        index = 1
        if parent is not None:
            index = 1 + sum(1 for s in el.itersiblings(preceding=True) if _tag(s) == tag)
        entries.append((tag, index))
        el = parent
    return tuple(reversed(entries))


def page_nodes(root: Any, max_chars: int = 140, max_nodes: int = 20000) -> PageNodes:
    """Walk the tree once (iteratively): paths with same-tag indices, entity texts."""
    elements: list[Any] = []
    paths: list[tuple[Entry, ...]] = []
    last: list[bool] = []
    truncated = False
    stack: list[tuple[Any, tuple[Entry, ...], bool]] = [(root, _path_of(root), True)]
    while stack:
        el, path, is_last = stack.pop()
        if len(elements) >= max_nodes:
            truncated = True
            break
        elements.append(el)
        paths.append(path)
        last.append(is_last)
        kids = [c for c in el if _tag(c) is not None]
        counts: dict[str, int] = {}
        totals: dict[str, int] = {}
        for c in kids:
            t = _tag(c)
            totals[t] = totals.get(t, 0) + 1  # type: ignore[index]
        entries = []
        for c in kids:
            t = _tag(c)
            counts[t] = counts.get(t, 0) + 1  # type: ignore[index]
            entries.append((c, (*path, (t, counts[t])), counts[t] == totals[t]))  # type: ignore[index]
        stack.extend(reversed(entries))
    texts = [_short_text(el, max_chars) for el in elements]
    return PageNodes(elements, paths, texts, last, truncated)


def _short_text(el: Any, max_chars: int) -> str | None:
    """The element's text, whitespace collapsed, if non-empty and shorter than
    ``max_chars``; reading stops as soon as it is too long (big containers cost little)."""
    parts: list[str] = []
    seen = 0
    for chunk in el.itertext():
        parts.append(chunk)
        seen += len(chunk) - chunk.count(" ")
        if seen > 4 * max_chars:  # far too long even before collapsing whitespace
            return None
    text = " ".join(" ".join(parts).split())
    return text if text and len(text) < max_chars else None


def generate(
    root: Any,
    k: int = 8,
    max_chars: int = 140,
    extended: bool = False,
    max_nodes: int = 20000,
    max_predicates: int = 500000,
) -> tuple[list[Candidate], dict[str, Any]]:
    """Candidates (denotation groups) of the page under ``root``, in order of first node,
    and ``info`` (counts; ``truncated`` when a cap was reached)."""
    nodes = page_nodes(root, max_chars, max_nodes)
    truncated = nodes.truncated
    # Nodes that can share a predicate: the same untouched head, the same tail length.
    families: dict[tuple[tuple[Entry, ...], int], list[int]] = {}
    for i, (path, text) in enumerate(zip(nodes.paths, nodes.texts, strict=True)):
        if text is None:
            continue
        m = min(k, len(path))
        families.setdefault((path[: len(path) - m], m), []).append(i)
    groups: list[tuple[tuple[Entry, ...], list[int]]] = []
    for (head, m), members in families.items():
        if len(members) < 2:
            continue
        check()  # the page's deadline (a crawl's BOILERPLATE_TIMEOUT)
        tails = {i: nodes.paths[i][len(nodes.paths[i]) - m :] for i in members}
        truncated |= _expand(
            members, 0, m, head, tails, nodes.last_of_tag, extended, groups, max_predicates
        )
    by_denotation: dict[tuple[int, ...], Candidate] = {}
    n_predicates = 0
    for entries, members in groups:
        n_predicates += 1
        denotation = tuple(members)
        cand = by_denotation.get(denotation)
        if cand is None:
            cand = by_denotation[denotation] = Candidate(
                [nodes.elements[i] for i in members],
                [nodes.texts[i] for i in members],  # type: ignore[misc]
                first=members[0],
            )
        cand.predicates.append(Predicate(entries))
    candidates = sorted(
        by_denotation.values(),
        key=lambda c: (c.first, -len(c.nodes), [id(n) for n in c.nodes]),
    )
    info = {
        "nodes": len(nodes.elements),
        "predicates": n_predicates,
        "candidates": len(candidates),
        "truncated": truncated,
    }
    return candidates, info


def _expand(
    members: list[int],
    j: int,
    m: int,
    pattern: tuple[Entry, ...],
    tails: dict[int, tuple[Entry, ...]],
    last_of_tag: list[bool],
    extended: bool,
    out: list[tuple[tuple[Entry, ...], list[int]]],
    limit: int,
) -> bool:
    """Every generalised predicate that at least two of ``members`` generate, built entry by
    entry: at tail position ``j`` the nodes split by tag (index dropped) and by tag and
    index (kept), and only groups of two or more go on. This gives exactly the groups of
    the 2^k generalisations of every node, without enumerating the ones a single node
    generates (a table column's cells each keep their own row index). Returns True when
    ``limit`` predicates were reached."""
    if j == m:
        if len(out) >= limit:
            return True
        out.append((pattern, members))
        return False
    by_tag: dict[str, list[int]] = {}
    for i in members:
        by_tag.setdefault(tails[i][j][0], []).append(i)
    capped = False
    for tag, same in by_tag.items():
        if len(same) < 2:
            continue
        capped |= _expand(same, j + 1, m, (*pattern, (tag, ANY)), tails, last_of_tag,
                          extended, out, limit)  # fmt: skip
        by_index: dict[int, list[int]] = {}
        for i in same:
            by_index.setdefault(tails[i][j][1], []).append(i)
        for index, sub in by_index.items():
            if len(sub) >= 2:
                capped |= _expand(sub, j + 1, m, (*pattern, (tag, index)), tails, last_of_tag,
                                  extended, out, limit)  # fmt: skip
        if extended:
            rest = [i for i in same if tails[i][j][1] > 1]
            if len(rest) >= 2:
                capped |= _expand(rest, j + 1, m, (*pattern, (tag, ALL_BUT_FIRST)), tails,
                                  last_of_tag, extended, out, limit)  # fmt: skip
            if j == m - 1:
                most = [i for i in same if not last_of_tag[i]]
                if len(most) >= 2:
                    capped |= _expand(most, j + 1, m, (*pattern, (tag, ALL_BUT_LAST)), tails,
                                      last_of_tag, extended, out, limit)  # fmt: skip
        if capped:
            return True
    return capped


__all__ = ["Candidate", "Predicate", "generate", "page_nodes"]
