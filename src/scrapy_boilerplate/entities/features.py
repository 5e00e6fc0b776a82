"""Features of a candidate list (section 3.3): structural features on the selected nodes and
their ancestors, denotation features on the entity strings, and query features.

Every list feature follows the paper's recipe (3.3.1): each element is mapped to an
abstract token, and the histogram of the tokens gives ENTROPY (normalised to 1), MAJORITY
(the mode, an indicator), MAJORITYRATIO, SINGLE (all equal), the normalised count of every
value for tokens with finitely many values, and MEAN / STD for real-valued tokens. Real
values become indicator features by binning (:func:`bin_value`).

Query features (beyond the paper's, as section 4.6 asks for): the query's content words
against the headings and text just before the list (the nearest preceding heading, table
caption or header cells), against the entities themselves, and conjunctions of the query's
last word with the entities' majority part-of-speech pattern.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from .._deadline import check
from .predicates import Candidate

Features = dict[str, float]

MAX_ANCESTOR_LEVELS = 5
_BINS = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
_STOP = frozenset(
    (
        "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "is", "it",
        "list", "of", "on", "or", "the", "to", "what", "which", "who", "whom", "whose", "with",
        "all", "name", "names", "me", "give", "find", "show",
    )
)  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "caption", "th", "dt", "legend"})
_WORD = re.compile(r"\w+", re.UNICODE)


def bin_value(name: str, value: float, scale: str = "unit") -> str:
    """An indicator name for a real value: unit-interval bins, or log2 bins for counts."""
    if scale == "log":
        b = 0 if value <= 0 else int(math.log2(value + 1))
        return f"{name}:log{b}"
    for edge in _BINS:
        if value <= edge + 1e-9:
            return f"{name}:<={edge}"
    return f"{name}:>1"


def recipe(
    out: Features,
    name: str,
    tokens: Sequence[Any],
    finite: bool = False,
    real: bool = False,
    majority_value: bool = True,
) -> None:
    """Section 3.3.1's aggregation of ``tokens`` into ``out`` under the prefix ``name``."""
    n = len(tokens)
    if not n:
        return
    hist = Counter(tokens)
    if n > 1:
        entropy = -sum(c / n * math.log(c / n) for c in hist.values()) / math.log(n)
        out[bin_value(f"{name}-ENTROPY", entropy)] = 1.0
    value, count = hist.most_common(1)[0]
    if majority_value:
        out[f"{name}-MAJORITY={value}"] = 1.0
    out[bin_value(f"{name}-MAJORITYRATIO", count / n)] = 1.0
    if len(hist) == 1:
        out[f"{name}-SINGLE"] = 1.0
    if finite:
        for v, c in hist.items():
            out[bin_value(f"{name}={v}", c / n)] = 1.0
    if real:
        mean = sum(tokens) / n
        std = math.sqrt(sum((t - mean) ** 2 for t in tokens) / n)
        out[bin_value(f"{name}-MEAN", mean, "log")] = 1.0
        out[bin_value(f"{name}-STD", std, "log")] = 1.0


# ---------------------------------------------------------------------------------------------
# Structural features


def _tag(el: Any) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else "#"


class PageIndex:
    """Depth-first timestamps of every element (for PAGE COVERAGE), computed once a page."""

    def __init__(self, root: Any) -> None:
        self.start: dict[Any, int] = {}
        self.end: dict[Any, int] = {}
        t = 0
        stack: list[tuple[Any, bool]] = [(root, False)]
        while stack:
            el, done = stack.pop()
            if done:
                self.end[el] = t
                continue
            self.start[el] = t
            t += 1
            stack.append((el, True))
            stack.extend((c, False) for c in reversed(el) if isinstance(c.tag, str))
        self.total = max(t, 1)
        self.memo: dict[tuple[str, tuple[int, ...]], Features] = {}


def _holes(nodes: Sequence[Any]) -> tuple[bool, bool, bool]:
    """(no hole, head hole, tail hole) of the selected nodes among their same-tag siblings."""
    selected = set(nodes)
    by_parent: dict[Any, list[Any]] = {}
    for n in nodes:
        p = n.getparent()
        if p is not None:
            by_parent.setdefault(p, []).append(n)
    no_hole, head, tail = True, False, False
    for parent, kids in by_parent.items():
        check()  # one walk of the parent's children each
        tag = kids[0].tag
        same = [c for c in parent if c.tag == tag]
        flags = [c in selected for c in same]
        if not all(flags):
            no_hole = False
        if flags and not flags[0]:
            head = True
        if flags and not flags[-1]:
            tail = True
    return no_hole, head, tail


def node_features(out: Features, prefix: str, nodes: Sequence[Any], page: PageIndex) -> None:
    """The recipe on a list of nodes: tag, id, class, children and sibling counts, index,
    parent; holes; page coverage. Memoised per page and node list: candidates share their
    ancestors (every column of a table has the same grandparent list)."""
    key = (prefix, tuple(map(id, nodes)))
    cached = page.memo.get(key)
    if cached is None:
        cached = {}
        _node_features(cached, prefix, nodes, page)
        page.memo[key] = cached
    out.update(cached)


def _node_features(out: Features, prefix: str, nodes: Sequence[Any], page: PageIndex) -> None:
    recipe(out, f"{prefix}TAG", [_tag(n) for n in nodes], finite=True)
    recipe(out, f"{prefix}ID", [n.get("id") or "" for n in nodes], majority_value=False)
    recipe(out, f"{prefix}CLASS", [n.get("class") or "" for n in nodes])
    children = [len(n) for n in nodes]
    recipe(out, f"{prefix}CHILDRENCOUNT", children, real=True)
    parents = [n.getparent() for n in nodes]
    # len() and index() of an lxml element walk its children: once per parent, not once
    # per node (a list of 20 000 siblings would take 20 000 walks of 20 000).
    sizes: dict[Any, int] = {}
    positions: dict[Any, int] = {}
    for p in parents:
        if p is not None and p not in sizes:
            i = -1
            for i, c in enumerate(p):
                positions[c] = i
            sizes[p] = i + 1
    recipe(out, f"{prefix}SIBLINGSCOUNT", [sizes[p] if p is not None else 0 for p in parents],
           real=True)  # fmt: skip
    recipe(out, f"{prefix}INDEX", [positions[n] if p is not None else 0 for n, p in
                                   zip(nodes, parents, strict=True)], real=True)  # fmt: skip
    recipe(out, f"{prefix}PARENT", [id(p) for p in parents], majority_value=False)
    no_hole, head, tail = _holes(nodes)
    if no_hole:
        out[f"{prefix}NOHOLE"] = 1.0
    if head:
        out[f"{prefix}HEADHOLE"] = 1.0
    if tail:
        out[f"{prefix}TAILHOLE"] = 1.0
    covered = sum(page.end.get(n, 0) - page.start.get(n, 0) for n in nodes)
    out[bin_value(f"{prefix}PAGECOVERAGE", min(covered / page.total, 1.0))] = 1.0


def structural_features(out: Features, cand: Candidate, page: PageIndex) -> None:
    nodes = cand.nodes
    node_features(out, "", nodes, page)
    level = nodes
    for k in range(1, MAX_ANCESTOR_LEVELS + 1):
        seen: set[int] = set()
        up = []
        for n in level:
            p = n.getparent()
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                up.append(p)
        if not up:
            break
        node_features(out, f"A{k}:", up, page)
        level = up


# ---------------------------------------------------------------------------------------------
# Denotation features


@lru_cache(maxsize=1)
def _tagger() -> Callable[[str], list[tuple[str, str]]]:
    """textblob's PatternTagger (Brill tagger of Pattern; its lexicon ships in the wheel,
    nothing is downloaded). Falls back to a shape-based guess if textblob is missing."""
    try:
        from textblob.en.taggers import PatternTagger
    except ImportError:  # pragma: no cover - textblob is a dependency
        return lambda text: [(w, "NNP" if w[:1].isupper() else "NN") for w in text.split()]
    tagger = PatternTagger()
    return tagger.tag


@lru_cache(maxsize=200000)
def _pos(text: str) -> tuple[str, ...]:
    return tuple(t for _, t in _tagger()(text)) if text.strip() else ()


@lru_cache(maxsize=200000)
def word_shape(word: str) -> str:
    """Aa, a, A, 0, or the character classes collapsed (``Barack`` -> Aa, ``3.1`` -> 0.0)."""
    out = []
    for ch in word:
        c = "A" if ch.isupper() else "a" if ch.isalpha() else "0" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)[:6]


@lru_cache(maxsize=200000)
def _entity_tokens(entity: str) -> tuple[int, str, tuple[str, ...], str, str, str, tuple[str, ...]]:
    """Every abstract token of one entity string, computed once per string."""
    words = entity.split()
    shapes = tuple(word_shape(x) for x in words)
    tags = _pos(entity)
    return (
        len(words),
        " ".join(shapes[:4]),
        shapes,
        words[0].lower() if words else "",
        words[-1].lower() if words else "",
        " ".join(tags[:4]),
        tags,
    )


def denotation_features(out: Features, entities: Sequence[str]) -> None:
    toks = [_entity_tokens(e) for e in entities]
    recipe(out, "WORDSCOUNT", [t[0] for t in toks], real=True)
    recipe(out, "PHRASESHAPE", [t[1] for t in toks])
    recipe(out, "WORDSHAPE", [x for t in toks for x in t[2]], finite=True)
    recipe(out, "FIRSTWORD", [t[3] for t in toks])
    recipe(out, "LASTWORD", [t[4] for t in toks])
    recipe(out, "PHRASEPOS", [t[5] for t in toks])
    recipe(out, "WORDPOS", [x for t in toks for x in t[6]], finite=True)


# ---------------------------------------------------------------------------------------------
# Query features


def query_words(query: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(query)) if w not in _STOP]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _overlap(q: Iterable[str], text: str) -> float:
    qs = {_stem(w) for w in q}
    if not qs:
        return 0.0
    ts = {_stem(m.group(0).lower()) for m in _WORD.finditer(text)}
    return len(qs & ts) / len(qs)


def context_text(cand: Candidate, limit: int = 300) -> str:
    """The headings and text just before the list: header cells and captions of a table
    around it, then the nearest preceding headings (document order, up the tree)."""
    first = cand.nodes[0]
    parts: list[str] = []
    # lowest common ancestor of the first two nodes
    anc = {id(a) for a in first.iterancestors()}
    lca = next((a for a in cand.nodes[1].iterancestors() if id(a) in anc), None)
    if lca is not None:
        for h in lca.iter("th", "caption"):
            parts.append(" ".join(h.itertext()))
            if sum(map(len, parts)) > limit:
                break
    n = lca if lca is not None else first
    steps = 0
    while n is not None and steps < 50 and sum(map(len, parts)) < 2 * limit:
        for sib in n.itersiblings(preceding=True):
            steps += 1
            if not isinstance(sib.tag, str):
                continue
            if _tag(sib) in _HEADINGS:
                parts.append(" ".join(sib.itertext()))
                break
            heads = list(sib.iter("h1", "h2", "h3", "h4", "h5", "h6"))
            if heads:
                parts.append(" ".join(heads[-1].itertext()))
                break
            if steps > 20:
                break
        n = n.getparent()
    return " ".join(" ".join(parts).split())[: 4 * limit]


def query_features(out: Features, query: str, cand: Candidate, context: str | None = None) -> None:
    """``context`` is :func:`context_text` of the candidate, when already computed."""
    q = query_words(query)
    if not q:
        return
    if context is None:
        context = context_text(cand)
    out[bin_value("Q:CONTEXT-OVERLAP", _overlap(q, context))] = 1.0
    joined = " ".join(cand.entities[:50])
    out[bin_value("Q:ENTITY-OVERLAP", _overlap(q, joined))] = 1.0
    majority_pos = Counter(" ".join(_pos(e)[:2]) for e in cand.entities[:50]).most_common(1)
    if majority_pos:
        out[f"Q:LAST={_stem(q[-1])}|PHRASEPOS={majority_pos[0][0]}"] = 1.0
        out[f"Q:LASTPOS={_pos(query)[-1:] or ('',)}|PHRASEPOS={majority_pos[0][0]}"] = 1.0
