"""A second opinion on the log-linear model's ranking, from features that carry over to
questions never seen in training.

The log-linear model of Pasupat and Liang (:mod:`.model`) learns hundreds of thousands of
sparse weights, many of them tied to words of the training questions and to the
structure of the training sites. On a question of a kind it never saw, a small ranker over
a few dozen dense features says what any question shares: how large the list is, what
its entities look like, how it was read off the page, how well the query matches its
context, nearest heading and label (and how far each falls below the page's best), its
share of the largest list under the same heading, and the query's style and category.

The ranker is a LightGBM lambdarank ensemble (trained by ``benchmarks/entities_eval.py
--save`` with the log-linear model, on the same examples) kept as plain JSON in the
model file's metadata (``meta["ranker"]``) and scored here in NumPy, so the model stays one
file and nothing but NumPy runs it. A candidate's score is its log-linear
log-probability plus ``beta`` times the ranker's score plus ``size`` times the logarithm
of its number of entities (``beta`` and ``size`` are in the same metadata, with their
own values for a query style where the cross-validation chose others: ``styles``). The size
prior counters what both models learn from the training questions' lists: on a question
of a kind never seen, they favour short fragments (a record's fields, a list's first
two names) over the list around them. How much each part adds was measured by the
cross-validation grouped by question template and page (docs/entities.md).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.entities.features import (
    QUERY_PARTS,
    QUERY_STYLES,
    Overlaps,
    query_style,
    string_cache,
)

if TYPE_CHECKING:  # pragma: no cover
    from scrapy_boilerplate.entities.extract import PageCandidates

#: Bump when :data:`DENSE` changes meaning or order: a ranker made for other features is
#: refused with a message.
RANKER_VERSION = 5
_XFORMS = ("", "lines", "lines-head", "lines-tail", "split", "head", "tail", "first-line",
           "filter", "distinct", "dates", "address", "bracket")  # fmt: skip
_TAGS = ("li", "td", "a", "p", "div", "span", "h", "option", "tr", "dt", "dd", "b", "th",
         "font", "em", "other")  # fmt: skip
_CATEGORIES = ("WHO", "WHEN", "WHERE", "other")
_NAME_LIKE = re.compile(r"^[A-Z][\w.'-]+(?: [A-Z][\w.'-]*){1,3}$")
_PARTS = (("context", "CONTEXT"), ("near", "NEAR"), ("label", "LABEL"))

#: The query-independent columns (computed once a page), then the query's.
PAGE_COLUMNS: tuple[str, ...] = (
    "log_entities", "distinct", "log_chars", "mean_words", "cv_words", "digits",
    "name_like", "lower_start", "colon_end", "comma", "upper", "log_predicates", "position",
    *(f"xform_{x or 'paper'}" for x in _XFORMS), "xform_section",
    *(f"tag_{t}" for t in _TAGS),
    "share_of_heading_max", "log_lists_under_heading", "has_heading", "has_label", "one_node",
    "filter_number", "filter_name", "filter_in_context", "filter_share",
)  # fmt: skip
QUERY_COLUMNS: tuple[str, ...] = (
    *(f"{p}_{k}" for p, _ in _PARTS for k in ("overlap", "best", "gap")),
    "entity_overlap", "question", *(f"category_{c}" for c in _CATEGORIES),
)  # fmt: skip
#: Every column of the ranker's input, in order.
DENSE: tuple[str, ...] = PAGE_COLUMNS + QUERY_COLUMNS


def _tag_class(tag: str) -> str:
    if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        return "h"
    if tag == "strong":
        return "b"
    return tag if tag in _TAGS else "other"


@string_cache
def _entity_stats(entity: str) -> tuple[int, int, bool, bool, bool, bool, bool, bool]:
    """What the page columns count of one entity string (once per string and process):
    characters, words, a digit, name-like, a lower-case start, a trailing colon, a comma,
    all capitals."""
    return (
        len(entity),
        len(entity.split()),
        any(map(str.isdigit, entity)),
        _NAME_LIKE.match(entity) is not None,
        entity[:1].islower(),
        entity.endswith(":"),
        "," in entity,
        entity.isupper(),
    )


def _list_stats(entities: tuple[str, ...]) -> tuple[float, ...]:
    """The first eleven page columns of an entity list."""
    n = len(entities)
    stats = list(map(_entity_stats, entities))
    chars, words, digits, names, lower, colon, comma, upper = map(sum, zip(*stats, strict=True))
    mean_words = words / n
    spread = math.sqrt(sum([(s[1] - mean_words) ** 2 for s in stats]) / n)
    return (
        math.log(n),
        len(set(entities)) / n,
        math.log1p(chars / n),
        mean_words,
        spread / mean_words if mean_words else 0.0,
        digits / n,
        names / n,
        lower / n,
        colon / n,
        comma / n,
        upper / n,
    )


_COLUMN = {name: i for i, name in enumerate(PAGE_COLUMNS)}
_XFORM_COLUMN = {x: _COLUMN[f"xform_{x or 'paper'}"] for x in _XFORMS}
_TAG_COLUMN = {t: _COLUMN[f"tag_{t}"] for t in _TAGS}
#: :func:`_tag_class` of every tag name with a class of its own (any other is ``other``):
#: a fixed table, where a cache of the pages' names would grow with every made-up tag.
_TAG_CLASSES = {
    tag: _tag_class(tag) for tag in (*_TAGS, "h1", "h2", "h3", "h4", "h5", "h6", "strong")
}


def _filter_columns(notes: tuple[str, ...]) -> tuple[float, float, float, float]:
    """A filtered list's notes (:mod:`.filtered`) as columns: cut by a number, by a name,
    by a word its context holds, and the upper edge of its share's bin."""
    share = 0.0
    for note in notes:
        if note.startswith("FILTER-SHARE:<="):
            share = float(note.rpartition("=")[2])
    return (
        float("FILTER=number" in notes),
        float("FILTER=name" in notes),
        float("FILTER-INCONTEXT" in notes),
        share,
    )


def _main_tag(tags: Sequence[str], nums: Sequence[int]) -> str:
    """The most common tag class of a list's first 20 nodes (the first to reach it on
    ties), read off the page's tag names (``tags``) by the nodes' numbers (``nums``)."""
    classes = _TAG_CLASSES
    found = [classes.get(tags[num], "other") for num in nums[:20]]
    if found.count(found[0]) == len(found):
        return found[0]
    return Counter(found).most_common(1)[0][0]


def page_columns(pc: PageCandidates, start: int = 0) -> np.ndarray:
    """The ``(candidates, len(PAGE_COLUMNS))`` float32 matrix of a page's candidates from
    the ``start``-th on. The lists under a heading are counted among the page's own
    candidates (``pc.page_count``, not a query's filtered lists), so that the page's rows
    are the same whatever the query. Filled column by column: a row of every column per
    candidate made as many Python objects as the matrix has cells."""
    pages = max(len(pc.page.elements), 1)
    own = pc.page_count
    largest: dict[frozenset[str], int] = {}
    for cand, text in zip(pc.candidates[:own], pc.texts[:own], strict=True):
        largest[text.near] = max(largest.get(text.near, 0), len(cand.entities))
    under = Counter(t.near for t in pc.texts[:own])
    cands = pc.candidates[start:]
    texts = pc.texts[start:]
    n = len(cands)
    out = np.zeros((n, len(PAGE_COLUMNS)), dtype=np.float32)
    if not n:
        return out
    lists: dict[tuple[str, ...], tuple[float, ...]] = {}  # (a page's lists often repeat)
    stats = []
    shares = []
    for cand, text in zip(cands, texts, strict=True):
        entities = tuple(cand.entities)
        row = lists.get(entities)
        if row is None:
            row = lists[entities] = _list_stats(entities)
        stats.append(row)
        top = max(largest.get(text.near, 0), len(entities))
        shares.append(len(entities) / top if top else 0.0)
    out[:, : _COLUMN["log_predicates"]] = stats
    out[:, _COLUMN["log_predicates"]] = [math.log(c.count) for c in cands]
    out[:, _COLUMN["position"]] = [c.first / pages for c in cands]
    rows = np.arange(n)
    xforms = np.array(
        [_XFORM_COLUMN.get(c.transform.replace("+section", ""), -1) for c in cands],
        dtype=np.intp,
    )
    known = xforms >= 0
    out[rows[known], xforms[known]] = 1.0
    out[:, _COLUMN["xform_section"]] = ["section" in c.transform for c in cands]
    tags = pc.page.tags  # (a part's first node list is the candidate's nodes' numbers)
    out[rows, [_TAG_COLUMN[_main_tag(tags, parts[0][1])] for parts in pc.parts[start:]]] = 1.0
    out[:, _COLUMN["share_of_heading_max"]] = shares
    out[:, _COLUMN["log_lists_under_heading"]] = [
        math.log(max(under.get(t.near, 0), 1)) for t in texts
    ]
    out[:, _COLUMN["has_heading"]] = [bool(t.near) for t in texts]
    out[:, _COLUMN["has_label"]] = [bool(t.label) for t in texts]
    out[:, _COLUMN["one_node"]] = [len(c.nodes) == 1 for c in cands]
    noted = [i for i, c in enumerate(cands) if c.notes]
    if noted:
        out[noted, _COLUMN["filter_number"] :] = [_filter_columns(cands[i].notes) for i in noted]
    return out


def query_columns(pc: PageCandidates, query: str) -> np.ndarray:
    """The ``(candidates, len(QUERY_COLUMNS))`` float32 matrix of ``query`` on a page."""
    q, best = pc.page_query(query)
    fixed = [float(query_style(query) == "question")]
    category = q.category if q.category in _CATEGORIES else "other"
    fixed += [float(category == c) for c in _CATEGORIES]
    tops = [best.get(name, 0.0) for name, _ in QUERY_PARTS]
    made: dict[Overlaps, list[float]] = {}  # (many candidates share their overlaps)
    rows = []
    for overlaps in pc.overlaps(query):
        row = made.get(overlaps)
        if row is None:
            row = []
            for overlap, top in zip(overlaps[:3], tops, strict=True):
                row += [overlap, float(top > 0 and overlap == top), top - overlap]
            row.append(overlaps[3])
            row = made[overlaps] = row + fixed
        rows.append(row)
    return np.array(rows, dtype=np.float32).reshape(len(rows), len(QUERY_COLUMNS))


class Ranker:
    """LightGBM trees (its ``dump_model`` structure, flattened) scored in NumPy: each
    candidate's score is the sum of its leaf in every tree, as LightGBM's raw score."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        """``data``: what :func:`ranker_data` wrote (``ValueError`` when it is not)."""
        if data.get("version") != RANKER_VERSION or list(data.get("features", ())) != list(DENSE):
            raise ValueError(
                "the model's ranker was made for other features (version "
                f"{data.get('version')!r}, this code reads {RANKER_VERSION})"
            )
        self.beta = float(data["beta"])
        #: the weight of log(number of entities) beside them (0 in files made before it)
        self.size = float(data.get("size", 0.0))
        #: ``(beta, size)`` of the query styles that have their own (:meth:`weights`)
        self.styles: dict[str, tuple[float, float]] = {}
        for style, weights in dict(data.get("styles") or {}).items():
            if style not in QUERY_STYLES:
                raise ValueError(f"the model's ranker names an unknown query style {style!r}")
            pair = (float(weights["beta"]), float(weights["size"]))
            if not all(map(math.isfinite, pair)):
                raise ValueError(f"the model's ranker weights for {style!r} are not finite")
            self.styles[style] = pair
        nodes = data["nodes"]
        self.feature = np.asarray(nodes["feature"], dtype=np.int64)
        self.threshold = np.asarray(nodes["threshold"], dtype=np.float64)
        self.left = np.asarray(nodes["left"], dtype=np.int64)
        self.right = np.asarray(nodes["right"], dtype=np.int64)
        self.value = np.asarray(nodes["value"], dtype=np.float64)
        self.roots = np.asarray(data["roots"], dtype=np.int64)
        self.depth = int(data["depth"])
        if self.feature.size and (self.feature.max() >= len(DENSE) or self.feature.min() < -1):
            raise ValueError("the model's ranker names a feature it does not have")

    def weights(self, query: str) -> tuple[float, float]:
        """``(beta, size)`` for ``query``: its style's own (:func:`.features.query_style`)
        where the model has them, else the model's ``beta`` and ``size``."""
        return self.styles.get(query_style(query), (self.beta, self.size))

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Raw scores of the rows of ``x`` (``(n, len(DENSE))``): each row's leaves
        (:func:`ranker_leaves`) summed by NumPy."""
        if not len(x) or not len(self.roots):
            return np.zeros(len(x))
        node = ranker_leaves(
            self.feature, self.threshold, self.left, self.right, self.roots, self.depth, x
        )
        return self.value[node].sum(axis=1)


@_compiled.twin("ranker_leaves")
def ranker_leaves(
    feature: np.ndarray,
    threshold: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    roots: np.ndarray,
    depth: int,
    values: np.ndarray,
) -> np.ndarray:
    """Each row of ``values``' leaf in each tree, as ``(n, trees)`` node indices: every
    row goes down every tree at once, ``depth`` rounds, left where its value (float64) is
    at most the node's threshold; compiled where the core's ``_speedups`` is built (a walk
    per row and tree, the same comparisons)."""
    node = np.broadcast_to(roots, (len(values), len(roots))).copy()
    rows = np.arange(len(values))[:, None]
    x = values.astype(np.float64)
    for _ in range(depth):
        feat = feature[node]
        inner = feat >= 0
        if not inner.any():
            break
        go_left = x[rows, np.maximum(feat, 0)] <= threshold[node]
        node = np.where(inner, np.where(go_left, left[node], right[node]), node)
    return node


def dense(pc: PageCandidates, query: str) -> np.ndarray:
    """The ranker's input for ``query``: :func:`page_columns` (kept on ``pc``, and the rows
    of the page's own candidates once a page, on the object that holds them: the paper's
    candidates, or those and the derived lists) beside :func:`query_columns`."""
    if pc.ranker_columns is None:
        own = pc.origin  # (the object holding the page's own candidates, as pc counts them)
        if own.page_count != pc.page_count:
            own = own.with_derived()
        if own is pc or own.page_count != pc.page_count:
            pc.ranker_columns = page_columns(pc)
        else:  # a query's copy: the page's rows once, on the object of its own candidates
            if own.ranker_columns is None:
                own.ranker_columns = page_columns(own)
            start = len(own.candidates)
            pc.ranker_columns = np.vstack([own.ranker_columns, page_columns(pc, start)])
    return np.hstack([pc.ranker_columns, query_columns(pc, query)])


def ranker_data(
    booster: Any,
    beta: float,
    size: float = 0.0,
    styles: Mapping[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """A LightGBM booster's trees as the JSON :class:`Ranker` reads (numerical splits,
    ``<=`` to the left, as LightGBM's ``dump_model`` gives them), with the weights
    ``beta`` of its score and ``size`` of the size prior, and ``styles``: the query
    styles' own ``(beta, size)``."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    roots: list[int] = []
    depth = 0

    def add(node: Mapping[str, Any], level: int) -> int:
        nonlocal depth
        depth = max(depth, level)
        i = len(feature)
        feature.append(-1)
        threshold.append(0.0)
        left.append(i)
        right.append(i)
        value.append(0.0)
        if "leaf_value" in node:
            value[i] = float(node["leaf_value"])
            return i
        if node.get("decision_type") != "<=" or node.get("missing_type") == "Zero":
            # (categorical splits, and zeros read as missing values, go their own way)
            raise ValueError(
                f"unsupported split {node.get('decision_type')!r} ({node.get('missing_type')})"
            )
        feature[i] = int(node["split_feature"])
        threshold[i] = float(node["threshold"])
        left[i] = add(node["left_child"], level + 1)
        right[i] = add(node["right_child"], level + 1)
        return i

    for tree in booster.dump_model()["tree_info"]:
        roots.append(add(tree["tree_structure"], 0))
    return {
        "version": RANKER_VERSION,
        "features": list(DENSE),
        "beta": beta,
        "size": size,
        "styles": {k: {"beta": b, "size": g} for k, (b, g) in (styles or {}).items()},
        "depth": depth,
        "roots": roots,
        "nodes": {"feature": feature, "threshold": threshold, "left": left, "right": right,
                  "value": value},
    }  # fmt: skip


#: The ranker's LightGBM settings (not tuned: the defaults of a small lambdarank ensemble,
#: leaves of at least 200 candidates so that no leaf stands for one site's lists).
PARAMS: dict[str, Any] = {
    "objective": "lambdarank",
    "num_leaves": 7,
    "learning_rate": 0.05,
    "min_data_in_leaf": 200,
    "feature_fraction": 0.8,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambdarank_truncation_level": 20,
    "verbose": -1,
    "num_threads": 1,
    "deterministic": True,
}
TREES = 100
#: The weight of the ranker's score beside the log-linear log-probability, for a question.
BETA = 2.0
#: The weight of log(number of entities) beside them (the size prior), for a question.
SIZE = 2.0
#: The query styles whose ``(beta, size)`` differ from :data:`BETA` and :data:`SIZE`
#: (:meth:`Ranker.weights`). Each style's pair is the best of a grid of both weights (β 0
#: to 4, γ 0 to 4) by the cross-validation grouped by question template and page, mean of
#: three AdaGrad orders, on the set whose scored queries are all of that style
#: (``benchmarks/entities_rerank.py``): webqa-utopia-dev's questions (:data:`BETA`,
#: :data:`SIZE`), and wikitablequestions-lists' titles, which name a page's main table and
#: are ranked best by the log-linear model alone (the ranker and the size prior, learned
#: for what questions ask, cost them; docs/entities.md, "The two weights per query style").
STYLE_WEIGHTS: dict[str, tuple[float, float]] = {"title": (0.0, 0.0)}


#: The most candidates LightGBM's lambdarank takes in one query: an example with more
#: (a page of over ten thousand candidates) trains the log-linear model alone.
MAX_QUERY_ROWS = 10000


def fit(matrices: Sequence[np.ndarray], compatible: Sequence[Sequence[bool]], seed: int = 0) -> Any:
    """A LightGBM lambdarank booster over examples' :func:`dense` matrices and their
    candidates' compatibility (examples without a compatible candidate are skipped, and so
    are those with more than :data:`MAX_QUERY_ROWS` candidates, which LightGBM refuses).
    Needs LightGBM (the ``train`` extra)."""
    import lightgbm

    usable = [
        (x, ok)
        for x, ok in zip(matrices, compatible, strict=True)
        if any(ok) and len(ok) <= MAX_QUERY_ROWS
    ]
    data = lightgbm.Dataset(
        np.vstack([x for x, _ in usable]),
        np.concatenate([np.asarray(ok, dtype=int) for _, ok in usable]),
        group=[len(ok) for _, ok in usable],
    )
    return lightgbm.train({**PARAMS, "seed": seed}, data, num_boost_round=TREES)
