"""``extract_entities(html, query)``: the entity lists of a page that answer a query, ranked.

Generation (:mod:`.predicates`), features (:mod:`.features`), the log-linear model
(:mod:`.model`, weights shipped in ``entities/model/entities.json.gz``) and its re-ranker
(:mod:`.rerank`, in the same file) together; the result is plain JSON.
"""

from __future__ import annotations

import copy
import math
import time
import weakref
from dataclasses import dataclass, field
from functools import lru_cache, partial
from itertools import repeat
from pathlib import Path
from sys import intern
from typing import Any

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import Document, parse
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.entities.derive import derive, group_pattern
from scrapy_boilerplate.entities.distinct import distinct_lists
from scrapy_boilerplate.entities.features import (
    Overlaps,
    PageIndex,
    Part,
    Query,
    best_overlaps,
    context_of,
    denotation_names,
    header_names,
    list_text,
    node_names,
    query_denotation_names,
    query_features,
    query_overlaps,
    query_style,
    structural_parts,
)
from scrapy_boilerplate.entities.filtered import PROMOTED, Records, filtered
from scrapy_boilerplate.entities.model import Model, normalise
from scrapy_boilerplate.entities.predicates import Candidate, generate
from scrapy_boilerplate.entities.rerank import dense

#: Longest entity text (characters) the paper's predicates read off an element: longer
#: than the paper's 140, so that a list of long items (a course with its terms, a book
#: with its authors and publisher) is a candidate. Chosen on the training parts' oracle
#: (docs/entities.md).
MAX_ENTITY_CHARS = 300

#: The rule of a model trained with the derived lists (:mod:`.derive`) for questions alone
#: (``Model.meta["derived"]``): a title ("tallest buildings in minneapolis") names the
#: page's main list, which the paper's predicates select whole, and a question asks for
#: a part of one, or a list written inside text. Chosen by the grouped cross-validation
#: (docs/entities.md).
DERIVED_FOR = "questions"
#: The rule of a model whose metadata names none (an older model file): the derived lists
#: for every query, as it was trained.
DERIVED_EVERY = "every"

MODEL_DIR = Path(__file__).parent / "model"
DEFAULT_MODEL = MODEL_DIR / "entities.json.gz"


@dataclass
class EntityResult:
    """Ranked entity lists (best first) with their probability and XPath; ``reason`` says
    why there are none (a :class:`~scrapy_boilerplate.core.reasons.Reason` value, a plain
    string)."""

    query: str
    lists: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def entities(self) -> list[str]:
        return list(self.lists[0]["entities"]) if self.lists else []

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "lists": self.lists, "reason": self.reason,
                "info": self.info}  # fmt: skip


@lru_cache(maxsize=8)
def load_model(path: str | None = None) -> Model:
    """The shipped model, or a user's (a path); loaded once per process."""
    return Model.load(path or DEFAULT_MODEL)


#: A list of candidates' query-independent features (:meth:`PageCandidates._features_of`).
_Features = tuple[list[Any], list[tuple[str, ...]], list[list[Part]], list[tuple[str, ...]]]


class PageCandidates:
    """A page's candidates with their query-independent features, computed once so that
    several queries on one page (a focused crawl, the benchmark) share the work: the
    paper's candidates here, the derived lists (:meth:`with_derived`) and a question's
    filtered lists (:meth:`asked`) in copies made when a query needs them
    (:meth:`for_query`)."""

    def __init__(self, doc: Document, k: int = 8, max_nodes: int = 20000,
                 max_predicates: int = 500000, extended: bool = False,
                 derived: bool = True, max_chars: int = MAX_ENTITY_CHARS) -> None:  # fmt: skip
        """The paper's candidates of ``doc`` with their features. ``derived``: the lists
        read inside elements' text (:mod:`.derive`) may be added after them, for the
        queries whose model asks for them (:meth:`for_query`); ``max_chars``: see
        :data:`MAX_ENTITY_CHARS`."""
        t0 = time.perf_counter()
        self.page = PageIndex(doc.root)
        self.candidates, self.info = generate(
            doc.body,
            k=k,
            max_chars=max_chars,
            extended=extended,
            max_nodes=max_nodes,
            max_predicates=max_predicates,
            index=self.page,
        )
        self._root = doc.body
        #: whether lists read inside elements' text may be added (:meth:`with_derived`)
        self._derives = derived and self.page.number.get(doc.body) is not None
        #: those lists and their features, made on the first question that needs them
        self._derived: tuple[list[Candidate], _Features] | None = None
        self._derived_view: weakref.ref[PageCandidates] | None = None
        self.texts: list[Any] = []  # what the query features read, query-independent
        # Query-independent features, kept in parts: the structural ones as node lists
        # (their names are shared by every candidate with the same list at some level),
        # the denotation and column header ones as names.
        self.parts: list[list[Part]] = []
        self.denotation: list[tuple[str, ...]] = []
        self.headers: list[tuple[str, ...]] = []
        self._add_features(self.candidates)
        #: the candidates that do not depend on the query (all of them here; the first
        #: ones of a page asked a query, :meth:`asked`)
        self.page_count = len(self.candidates)
        self._origin: PageCandidates | None = None  # (a query's copy: the page's own)
        self._base_scores: dict[int, tuple[Model, list[float]]] = {}
        #: the re-ranker's query-independent columns (:func:`.rerank.page_columns`), once
        self.ranker_columns: Any = None
        self._last_query: tuple[str, Query, dict[str, float], list[Overlaps]] | None = None
        self._records: Records | None = None
        #: the last query :meth:`asked` and its copy (or this object itself), held
        #: weakly: the copy holds this object, and a cycle would leave the page's whole
        #: graph (lxml proxies, candidates, features) to the garbage collector
        self._asked: tuple[str, weakref.ref[PageCandidates]] | None = None
        self.info["seconds"] = time.perf_counter() - t0

    @property
    def origin(self) -> PageCandidates:
        """The page's own candidates, which :meth:`asked` extends (this object itself, or
        the object a query's copy was made from)."""
        origin = self._origin
        return self if origin is None else origin

    def _add_features(self, candidates: list[Candidate]) -> None:
        """Append the query-independent features of ``candidates`` to the page's."""
        texts, headers, parts, denotation = self._features_of(candidates)
        self.texts += texts
        self.headers += headers
        self.parts += parts
        self.denotation += denotation

    def _features_of(self, candidates: list[Candidate]) -> _Features:
        """The query-independent features of ``candidates``: what the query features read
        (:func:`.features.list_text`), the column header, structural and denotation
        names, each a list in the candidates' order."""
        contexts: dict[Any, Any] = {}
        memo: dict[Any, Any] = {}  # (entity lists and context texts)
        texts = []
        for k, c in enumerate(candidates):
            if not k & 15:
                check()  # the page's deadline, and a point where another thread may run
            texts.append(list_text(c, context_of(c, contexts, self.page), memo))
        headers = [header_names(c, self.page) for c in candidates]
        all_parts: list[list[Part]] = []
        all_names: list[tuple[str, ...]] = []
        denotations: dict[tuple[str, ...], tuple[str, ...]] = {}
        for cand in candidates:
            check()  # the page's deadline (a crawl's BOILERPLATE_TIMEOUT)
            parts = structural_parts(cand, self.page)
            for _, nums in parts:
                node_names(self.page, nums)
            all_parts.append(parts)
            entities = tuple(cand.entities)
            names = denotations.get(entities)
            if names is None:  # (lists of one page often repeat: a cell's text and its link's)
                names = denotations[entities] = denotation_names(entities, self.page.recipes)
            if cand.transform:  # (a denotation feature: conjoined with the query's category)
                names = (*names, "XFORM=" + cand.transform, *cand.notes)
            all_names.append(names)
        return texts, headers, all_parts, all_names

    def _view(self, more: list[Candidate], features: _Features) -> PageCandidates:
        """A copy of this object with ``more`` candidates after its own, and their
        ``features`` (:meth:`_features_of`) after its features: it shares this object's
        page and features, and has the page's own object as its :attr:`origin`."""
        texts, headers, parts, denotation = features
        view = copy.copy(self)
        view._origin, view._asked, view._derived_view = self.origin, None, None
        view.candidates = [*self.candidates, *more]
        view.texts, view.parts = [*self.texts, *texts], [*self.parts, *parts]
        view.denotation = [*self.denotation, *denotation]
        view.headers = [*self.headers, *headers]
        view._base_scores = {}
        view.ranker_columns = None
        view._last_query = None
        return view

    def with_derived(self) -> PageCandidates:
        """The page's candidates with the lists read inside its elements' text after them
        (:func:`.derive.derive`: lines, lists cut at separators, heads and tails of
        entities, dates, lists cut at headings): a copy that shares this object's page
        and features, or this object itself where nothing is derived. The derived lists
        and their features are made once a page; the copy is kept weakly (made again,
        cheaply, if it was dropped). Its candidates are all the page's own
        (:attr:`page_count`)."""
        origin = self.origin
        if origin is not self:
            return origin.with_derived()
        if not self._derives:
            return self
        kept = self._derived_view() if self._derived_view is not None else None
        if kept is not None:
            return kept
        if self._derived is None:
            more = derive(self.candidates, self.page, self._root)
            self._derived = (more, self._features_of(more))
        more, features = self._derived
        self.info["derived"] = len(more)
        if not more:
            return self
        view = self._view(more, features)
        view.page_count = len(view.candidates)
        view.info = dict(self.info)
        self._derived_view = weakref.ref(view)
        return view

    def for_query(self, query: str, model: Model) -> PageCandidates:
        """The candidates ``query`` is ranked among under ``model``: the rule it was
        trained with, read from its metadata (:meth:`candidates_for`)."""
        return self.candidates_for(
            query,
            filtered=bool(model.meta.get("filtered")),
            derived=model.meta.get("derived", DERIVED_EVERY),
        )

    def candidates_for(
        self, query: str, filtered: bool = True, derived: str = DERIVED_FOR
    ) -> PageCandidates:
        """The candidates ``query`` is ranked among (and a training example featurised
        with): the paper's, then the derived lists (:meth:`with_derived`) for every
        query (``derived`` :data:`DERIVED_EVERY`) or for a question alone
        (:data:`DERIVED_FOR`), then, for a question and with ``filtered``, the lists its
        words cut out of those (:meth:`asked`)."""
        if derived not in (DERIVED_FOR, DERIVED_EVERY):
            raise ValueError(f"derived: {DERIVED_FOR!r} or {DERIVED_EVERY!r}, not {derived!r}")
        origin = self.origin
        question = query_style(query) == "question"
        if filtered and question:
            return origin.asked(query)
        if question or derived == DERIVED_EVERY:
            return origin.with_derived()
        return origin

    def asked(self, query: str) -> PageCandidates:
        """For a question, the page's candidates and its derived lists
        (:meth:`with_derived`) with the lists that ``query``'s words cut out of them
        (:mod:`.filtered`) and the distinct values of the lists whose values repeat
        (:mod:`.distinct`) after them: a copy that shares this object's page and the
        features of its candidates (the derived view itself when the query adds no list);
        for a title, the object it is asked of.
        Only a question adds lists (:func:`.features.query_style`): it asks for a part
        of a list ("published in 2012"), where a title ("tallest buildings in
        minneapolis") names the page's main list, whose rows hold the title's words
        anyway (chosen by the grouped cross-validation: docs/entities.md). The last
        query's is kept."""
        if query_style(query) != "question":
            return self
        origin = self.origin
        if origin is not self:
            return origin.asked(query)
        last = self._asked
        if last is not None and last[0] == query:
            kept = last[1]()
            if kept is not None:
                return kept
        if self._records is None:
            self._records = Records(self.page)
        base = self.with_derived()
        start = self.page.number.get(self._root)
        extra: list[Candidate] = []
        if start is not None:
            memo: dict[int, Any] = {}
            extra = filtered(
                base.candidates,
                self.page,
                self._records,
                self._records.terms(query),
                lambda nums: group_pattern(self.page, nums, self._root, memo),
                contexts=[text.context for text in base.texts],
            )
        more = distinct_lists([*base.candidates, *extra])
        distinct = len(more)
        extra += more
        view = base
        if extra:
            view = base._view(extra, base._features_of(extra))
            view.page_count = base.page_count
            view.info = {**base.info, "filtered": len(extra) - distinct, "distinct": distinct}
        self._asked = (query, weakref.ref(view))
        return view

    def base_features(self, i: int) -> dict[str, float]:
        """Candidate ``i``'s query-independent features (structural, then denotation)."""
        feats: dict[str, float] = {}
        memo = self.page.memo
        for prefix, nums in self.parts[i]:
            for name in memo[nums]:
                feats[prefix + name] = 1.0
        for name in self.denotation[i]:
            feats[name] = 1.0
        for name in self.headers[i]:
            feats[name] = 1.0
        return feats

    def page_query(self, query: str) -> tuple[Query, dict[str, float]]:
        """``query`` as this page reads it (:meth:`Query.on_page`) and the best overlap of
        each context part among the page's candidates (:func:`best_overlaps`). The last
        query's are kept: ranking one query reads them for its query features, its
        query-denotation features and the re-ranker's columns."""
        last = self._query_state(query)
        return last[1], last[2]

    def overlaps(self, query: str) -> list[Overlaps]:
        """Every candidate's overlaps with ``query`` (:func:`query_overlaps`): what its query
        features and the re-ranker's query columns read of it. The last query's are kept."""
        return self._query_state(query)[3]

    def _query_state(self, query: str) -> tuple[str, Query, dict[str, float], list[Overlaps]]:
        last = self._last_query
        if last is None or last[0] != query:
            q = Query(query).on_page(self.texts)
            overlaps = query_overlaps(q, self.texts)
            last = self._last_query = (query, q, best_overlaps(overlaps), overlaps)
        return last

    def features(self, query: str) -> list[dict[str, float]]:
        """Every candidate's features for ``query`` (the training's input). The names are
        interned (:func:`sys.intern`): a training set holds every example's features at
        once, and the same names recur across the candidates of a page and across pages,
        each made anew by joining a level's prefix to a node name."""
        category = self.page_query(query)[0].category
        out = []
        for i, feats in enumerate(self._query_features(query)):
            base = self.base_features(i)
            base.update(feats)
            for name in query_denotation_names(category, self.denotation[i]):
                base[name] = 1.0
            out.append({intern(name): value for name, value in base.items()})
        return out

    def _query_features(self, query: str) -> list[dict[str, float]]:
        """Every candidate's query features."""
        q, best = self.page_query(query)
        out = []
        for cand, text in zip(self.candidates, self.texts, strict=True):
            feats: dict[str, float] = {}
            query_features(feats, q, cand, text=text, best=best)
            out.append(feats)
        return out

    def _query_scores(self, query: str, model: Model) -> list[float]:
        """``θ · φ`` of every candidate's query features (:meth:`_query_features`), made and
        scored once per distinct pair of overlaps and entities' part-of-speech pattern:
        all that the features read of a candidate, and many candidates share them."""
        q, best = self.page_query(query)
        scored: dict[tuple[Overlaps, str | None], float] = {}
        out = []
        for cand, text, overlaps in zip(
            self.candidates, self.texts, self.overlaps(query), strict=True
        ):
            key = (overlaps, text.majority_pos)
            score = scored.get(key)
            if score is None:
                feats: dict[str, float] = {}
                query_features(feats, q, cand, text=text, best=best)
                score = scored[key] = model.score(feats)
            out.append(score)
        return out

    def counts(self) -> list[int]:
        return [c.count for c in self.candidates]

    def _base(self, model: Model) -> list[float]:
        """``θ · φ`` of every candidate's query-independent features, once per model: each
        part's share is computed once a page (the parts recur across candidates), and the
        denotation features' once per entity list (equal lists share their names). A
        level's names are looked up in its own table (:attr:`Model.level_weights`)."""
        cached = self._base_scores.get(id(model))
        if cached is not None and cached[0] is model:
            return cached[1]
        w = model.weights
        levels = model.level_weights
        memo = self.page.memo
        shares: dict[Part, float] = {}
        denotation: dict[int, float] = {}  # by id of the names' tuple, alive in self
        out = []
        start = 0
        if self.origin is not self:  # (a query's copy: the page's own scores are kept there)
            out = list(self.origin._base(model))
            start = len(out)
        for k, (parts, names, header) in enumerate(
            zip(self.parts[start:], self.denotation[start:], self.headers[start:], strict=True)
        ):
            if not k & 15:
                check()
            score = 0.0
            for part in parts:
                share = shares.get(part)
                if share is None:
                    prefix, nums = part
                    table = levels[prefix] if prefix else w
                    share = shares[part] = sum(map(table.get, memo[nums], repeat(0.0)))
                score += share
            score += sum(map(w.get, header, repeat(0.0)))
            own = denotation.get(id(names))
            if own is None:
                own = denotation[id(names)] = sum(map(w.get, names, repeat(0.0)))
            out.append(score + own)
        self._base_scores[id(model)] = (model, out)
        return out

    def _query_denotation(self, query: str, model: Model) -> list[float]:
        """``θ · φ`` of the query-denotation features of every candidate, once per
        distinct entity list (the denotation names are shared by equal lists), read in the
        category's table (:attr:`Model.query_denotation_weights`)."""
        category = self.page_query(query)[0].category
        if "|" in category:  # (no table can hold it: the names, made as training makes them)
            w = model.weights
            lookup = w.get
            conjoin: Any = partial(query_denotation_names, category)
        else:
            lookup = model.query_denotation_weights.get(category, {}).get
            conjoin = None
        shares: dict[int, float] = {}
        out = []
        for names in self.denotation:
            share = shares.get(id(names))
            if share is None:
                share = shares[id(names)] = sum(
                    map(lookup, conjoin(names) if conjoin else names, repeat(0.0))
                )
            out.append(share)
        return out

    def scores(self, query: str, model: Model) -> list[float]:
        """``θ · φ`` of every candidate for ``query``: the query-independent part once per
        model, plus the query features' and the query-denotation features' parts. The
        weights are the model's for the query's style (:meth:`Model.for_query`)."""
        model = model.for_query(query)
        return [
            base + query_score + qd
            for base, query_score, qd in zip(
                self._base(model),
                self._query_scores(query, model),
                self._query_denotation(query, model),
                strict=True,
            )
        ]


def rank(pc: PageCandidates, query: str, model: Model) -> list[tuple[float, Candidate]]:
    """Candidates with their probability, best first (ties: larger lists first). With a
    model that has a re-ranker (:attr:`Model.ranker`), each candidate's log-linear
    log-probability plus ``beta`` times the ranker's score plus ``size`` times the
    logarithm of its number of entities, normalised again (``beta`` and ``size`` of the
    query's style: :meth:`.rerank.Ranker.weights`; where both are 0 the ranker is not
    run)."""
    pc = pc.for_query(query, model)  # (the candidates of the model's rule)
    if not pc.candidates:
        return []
    logp = normalise(pc.scores(query, model), pc.counts())
    ranker = model.ranker
    beta, size = ranker.weights(query) if ranker is not None else (0.0, 0.0)
    if ranker is not None and (beta or size):
        extra = ranker.predict(dense(pc, query)) if beta else [0.0] * len(logp)
        prior = [size * math.log(max(len(c.entities), 1)) if size else 0.0 for c in pc.candidates]
        logp = normalise(
            [lp + beta * float(e) + s for lp, e, s in zip(logp, extra, prior, strict=True)],
            [1] * len(logp),
        )
    if pc.page_count < len(pc.candidates):
        logp = promote_cut(pc, logp)
    order = sorted(
        zip(logp, pc.candidates, strict=True), key=lambda t: (-t[0], -len(t[1].nodes), t[1].first)
    )
    return [(math.exp(lp), c) for lp, c in order]


def promote_cut(pc: PageCandidates, logp: list[float]) -> list[float]:
    """The question's constraint on the best list: when the best candidate is one of the
    page's own and lists cut out of it by a number or a name of the question (a year, an
    acronym, an award: :data:`.filtered.PROMOTED`) are among the query's, the best of
    those takes its place, and the two exchange their log-probabilities (the model's
    belief in the list goes to the list the question narrows it to). Chosen by the grouped
    cross-validation (docs/entities.md)."""
    key = [(lp, len(c.nodes), -c.first) for lp, c in zip(logp, pc.candidates, strict=True)]
    best = max(range(len(key)), key=key.__getitem__)
    cuts = cuts_of(pc, best)
    if not cuts:
        return logp
    cut = max(cuts, key=key.__getitem__)
    out = list(logp)
    out[best], out[cut] = logp[cut], logp[best]
    return out


def cuts_of(pc: PageCandidates, i: int) -> list[int]:
    """The query's lists (indices in ``pc.candidates``) that :func:`promote_cut` may put in
    candidate ``i``'s place: cut out of it (a part of its nodes) by a number or a name of
    the question (:data:`.filtered.PROMOTED`); none for a candidate that is itself one of
    the query's lists."""
    if i >= pc.page_count:
        return []
    whole = {id(node) for node in pc.candidates[i].nodes}
    return [
        f
        for f in range(pc.page_count, len(pc.candidates))
        if any(note in PROMOTED for note in pc.candidates[f].notes)
        and len(pc.candidates[f].nodes) < len(whole)
        and all(id(node) in whole for node in pc.candidates[f].nodes)
    ]


def extract_entities(
    html: Any,
    query: str,
    top_k: int = 5,
    model: str | None = None,
    k: int = 8,
    max_nodes: int = 20000,
    max_predicates: int = 500000,
    max_chars: int = MAX_ENTITY_CHARS,
) -> EntityResult:
    """The ``top_k`` entity lists of ``html`` (str, bytes, Selector, lxml tree or Document)
    for ``query``, each ``{"entities", "score", "xpath", "predicates"}``; ``max_chars``:
    the longest entity read off one element (:data:`MAX_ENTITY_CHARS`).

    An empty or missing query raises ``ValueError`` (a configuration error); a page that
    cannot be read or has no list gives an empty result with ``reason``.
    """
    if not isinstance(query, str) or not query.strip():
        raise ValueError("extract_entities needs a non-empty query")
    if top_k < 1:
        raise ValueError("top_k must be at least 1")
    result = EntityResult(query)
    try:
        doc = parse(html)
    except UnsupportedInput as exc:
        result.reason = exc.reason
        return result
    pc = PageCandidates(
        doc, k=k, max_nodes=max_nodes, max_predicates=max_predicates, max_chars=max_chars
    )
    entity_model = load_model(model)
    view = pc.for_query(query, entity_model)  # (rank reads the same, kept by pc)
    result.info = {k_: v for k_, v in view.info.items() if k_ != "seconds"}
    if not view.candidates:
        result.reason = Reason.NO_LIST.value
        return result
    for prob, cand in rank(view, query, entity_model)[:top_k]:
        result.lists.append(
            {
                "entities": list(cand.entities),
                "score": round(prob, 6),
                "xpath": cand.predicate.xpath(),
                "predicates": cand.count,
                "transform": cand.transform,
            }
        )
    return result


__all__ = [
    "DERIVED_EVERY",
    "DERIVED_FOR",
    "MAX_ENTITY_CHARS",
    "EntityResult",
    "PageCandidates",
    "cuts_of",
    "extract_entities",
    "load_model",
    "promote_cut",
    "rank",
]
