"""Extraction predicates (Pasupat and Liang, "Zero-shot Entity Extraction from Web Pages",
section 3.1).

A predicate is a simplified XPath, a list of path entries: a tag (every child with that tag)
or a tag and an index (only the i-th child with that tag). For every DOM node, the
predicate selecting only that node is generalised by dropping any subset of the indices of
its last ``k`` entries (``k = 8``: at most 2^8 predicates per node). Predicates selecting at
least two nodes are kept, and predicates with the same denotation (the same nodes) form one
:class:`Candidate`. A node's text, whitespace collapsed, is a candidate entity when it is
shorter than ``max_chars`` (140) characters. The paper reads rendered pages, so the text a
browser does not show is no entity and no part of one: a script, a style sheet, a
``noscript`` or ``template`` element and everything inside it
(:data:`~.pageindex.HIDDEN`).

The denotations are computed without running any XPath: a node matches a generalised
predicate exactly when it generates that predicate itself (its own path with the same
indices dropped), so grouping the nodes by the predicates they generate gives every
predicate's denotation in one pass. With ``extended=True`` the index types ``[1:]`` (every
node but the first with its tag) and ``[:-1]`` (every node but the last) are generated too.

Where several choices at one entry select the same nodes (all the cells of a table share
its index and those of every ancestor), they are kept together as one entry with
alternatives instead of being expanded: a :class:`Candidate` holds such *patterns* and the
number of predicates they stand for, and expands them only on demand
(:attr:`Candidate.predicates`). A Wikipedia list page has tens of thousands of predicates
but a few hundred patterns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Any

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.entities.pageindex import PageIndex, shown_chunks

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


#: A pattern entry: a tag and its index alternatives (each an index of :data:`Entry`); a
#: pattern with ``n`` alternatives at one entry and one elsewhere stands for ``n`` predicates.
PatternEntry = tuple[str, tuple[Any, ...]]


def _entry_str(tag: str, index: Any) -> str:
    return tag if index is ANY else f"{tag}[{index}]"


@dataclass
class Candidate:
    """Predicates with one denotation: the selected nodes and their entity strings.

    ``patterns`` are the predicates in compressed form (an entry may hold several index
    alternatives: every combination is a predicate of the group); ``count`` is how many
    predicates they stand for, which the model uses (the group's probability is the sum
    over its predicates)."""

    nodes: list[Any]
    entities: list[str]
    patterns: list[tuple[PatternEntry, ...]] = field(default_factory=list)
    count: int = 0
    first: int = 0  # document position of the first node
    #: How the entities were read off the nodes: "" (their whole text, the paper's) or a
    #: derivation of :mod:`.derive` ("lines", "split", "head").
    transform: str = ""
    #: Feature names that say more of how the list was made than its ``transform`` (a
    #: filtered list's: what kind of query word cut it, :mod:`.filtered`).
    notes: tuple[str, ...] = ()

    @property
    def predicates(self) -> list[Predicate]:
        """Every predicate of the group, expanded from :attr:`patterns` (``count`` of them)."""
        return [
            Predicate(tuple(zip((tag for tag, _ in pattern), combo, strict=True)))
            for pattern in self.patterns
            for combo in product(*(alts for _, alts in pattern))
        ]

    @property
    def predicate(self) -> Predicate:
        """The most specific predicate of the group (most indices kept; ties: the greatest
        string), as the representative; found without expanding the patterns."""
        best: tuple[int, str] | None = None
        chosen: Predicate | None = None
        for pattern in self.patterns:
            # Within a pattern: an index wherever there is one, the greatest string among
            # indices (entries are compared in order, and two index strings of one tag are
            # never a prefix of one another, so the greatest entries give the greatest path).
            entries = []
            for tag, alts in pattern:
                kept = [i for i in alts if i is not ANY]
                entries.append((tag, max(kept, key=lambda i: _entry_str(tag, i)) if kept else ANY))
            pred = Predicate(tuple(entries))
            key = (sum(i is not ANY for _, i in entries), str(pred))
            if best is None or key > best:
                best, chosen = key, pred
        assert chosen is not None
        return chosen


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


def path_of(el: Any) -> tuple[Entry, ...]:
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


def page_nodes(
    root: Any, max_chars: int = 140, max_nodes: int = 20000, index: PageIndex | None = None
) -> PageNodes:
    """The elements under ``root`` (the first ``max_nodes`` in document order) with their
    paths (same-tag indices) and entity texts, read from the page's :class:`PageIndex`
    (made here when not given)."""
    if index is None or root not in index.number:
        index = PageIndex(root)
    start = index.number[root]
    stop = index.end[start]
    truncated = stop - start > max_nodes
    stop = min(stop, start + max_nodes)
    elements = index.elements[start:stop]
    tags, ranks, parents = index.tags, index.local_rank, index.parent
    paths: list[tuple[Entry, ...]] = [path_of(root)]
    for i in range(start + 1, stop):
        paths.append((*paths[parents[i] - start], (tags[i], ranks[i] + 1)))
    hidden, holds_hidden = index.hidden_marks()
    texts: list[str | None] = []
    for i, el in zip(range(start, stop), elements, strict=True):
        if not i & 255:
            check()  # the page's deadline, and a point where another thread may run
        texts.append(
            None if hidden[i] else _shown_short_text(el, max_chars) if holds_hidden[i]
            else short_text(el, max_chars)
        )  # fmt: skip
    return PageNodes(elements, paths, texts, index.local_last[start:stop], truncated)


def short_text(el: Any, max_chars: int) -> str | None:
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


def _shown_short_text(el: Any, max_chars: int) -> str | None:
    """:func:`short_text` of an element with a script, a style sheet or another
    :data:`~.pageindex.HIDDEN` element below it: its text without theirs."""
    parts = shown_chunks(el, 4 * max_chars)
    if parts is None:
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
    index: PageIndex | None = None,
) -> tuple[list[Candidate], dict[str, Any]]:
    """Candidates (denotation groups) of the page under ``root``, in order of first node,
    and ``info`` (counts; ``truncated`` when a cap was reached). ``index``: the page's
    :class:`PageIndex`, when already made."""
    nodes = page_nodes(root, max_chars, max_nodes, index)
    truncated = nodes.truncated
    # Nodes that can share a predicate: the same untouched head, the same tail length.
    families: dict[tuple[tuple[Entry, ...], int], list[int]] = {}
    for i, (path, text) in enumerate(zip(nodes.paths, nodes.texts, strict=True)):
        if text is None:
            continue
        m = min(k, len(path))
        families.setdefault((path[: len(path) - m], m), []).append(i)
    groups: list[tuple[tuple[PatternEntry, ...], list[int], int]] = []
    budget = [max_predicates]  # predicates still allowed (shared by every family)
    for (head, m), members in families.items():
        if len(members) < 2:
            continue
        check()  # the page's deadline (a crawl's BOILERPLATE_TIMEOUT)
        tails = {i: nodes.paths[i][len(nodes.paths[i]) - m :] for i in members}
        fixed = tuple((tag, (index,)) for tag, index in head)
        truncated |= _expand(
            members, 0, m, fixed, 1, tails, nodes.last_of_tag, extended, groups, budget
        )
    by_denotation: dict[tuple[int, ...], Candidate] = {}
    n_predicates = 0
    for pattern, members, count in groups:
        n_predicates += count
        denotation = tuple(members)
        cand = by_denotation.get(denotation)
        if cand is None:
            cand = by_denotation[denotation] = Candidate(
                [nodes.elements[i] for i in members],
                [nodes.texts[i] for i in members],  # type: ignore[misc]
                first=members[0],
            )
        cand.patterns.append(pattern)
        cand.count += count
    # Document order of the first node, larger lists first, then the nodes' positions
    # (deterministic: never memory addresses).
    candidates = [by_denotation[d] for d in sorted(by_denotation, key=lambda d: (d[0], -len(d), d))]
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
    pattern: tuple[PatternEntry, ...],
    count: int,
    tails: dict[int, tuple[Entry, ...]],
    last_of_tag: list[bool],
    extended: bool,
    out: list[tuple[tuple[PatternEntry, ...], list[int], int]],
    budget: list[int],
) -> bool:
    """Every generalised predicate that at least two of ``members`` generate, built entry by
    entry: at tail position ``j`` the nodes split by tag (index dropped) and by tag and
    index (kept), and only groups of two or more go on. This gives exactly the groups of
    the 2^k generalisations of every node, without enumerating the ones a single node
    generates (a table column's cells each keep their own row index). Choices at ``j``
    that keep the same nodes (dropping an index all of them share, or keeping it) go on
    once, as one entry with alternatives: ``count`` is the number of predicates
    ``pattern`` stands for. ``budget`` holds the predicates still allowed; returns True
    when it ran out."""
    if j == m:
        if count > budget[0]:
            budget[0] = 0
            return True
        budget[0] -= count
        out.append((pattern, members, count))
        return False
    if len(members) >= 64:  # (a large group: its split is long work)
        check()  # the page's deadline, and a point where another thread may run
    by_tag: dict[str, list[int]] = {}
    for i in members:
        by_tag.setdefault(tails[i][j][0], []).append(i)
    for tag, same in by_tag.items():
        if len(same) < 2:
            continue
        by_index: dict[int, list[int]] = {}
        for i in same:
            by_index.setdefault(tails[i][j][1], []).append(i)
        if not extended:  # (the common case, without the merging below)
            if len(by_index) == 1:  # one index for all: kept or dropped, the same nodes
                if _expand(same, j + 1, m, (*pattern, (tag, (ANY, *by_index))), count * 2,
                           tails, last_of_tag, extended, out, budget):  # fmt: skip
                    return True
                continue
            if _expand(same, j + 1, m, (*pattern, (tag, (ANY,))), count, tails, last_of_tag,
                       extended, out, budget):  # fmt: skip
                return True
            for index, sub in by_index.items():  # disjoint subsets, none of them ``same``
                if len(sub) < 2:
                    continue
                if _expand(sub, j + 1, m, (*pattern, (tag, (index,))), count, tails,
                           last_of_tag, extended, out, budget):  # fmt: skip
                    return True
            continue
        # (index choice, the nodes it keeps): dropping the index keeps them all
        options: list[tuple[Any, list[int]]] = [(ANY, same)]
        options += [(index, sub) for index, sub in by_index.items() if len(sub) >= 2]
        rest = [i for i in same if tails[i][j][1] > 1]
        if len(rest) >= 2:
            options.append((ALL_BUT_FIRST, rest))
        if j == m - 1:
            most = [i for i in same if not last_of_tag[i]]
            if len(most) >= 2:
                options.append((ALL_BUT_LAST, most))
        # Choices that keep the same nodes share one recursion (their subsets of ``same``
        # are in document order, so equal subsets are equal tuples).
        merged: dict[tuple[int, ...], tuple[list[Any], list[int]]] = {}
        for index, sub in options:
            key = tuple(sub)
            if key in merged:
                merged[key][0].append(index)
            else:
                merged[key] = ([index], sub)
        for alts, sub in merged.values():
            if _expand(sub, j + 1, m, (*pattern, (tag, tuple(alts))), count * len(alts), tails,
                       last_of_tag, extended, out, budget):  # fmt: skip
                return True
    return False


__all__ = ["Candidate", "Predicate", "generate", "page_nodes", "path_of", "short_text"]
