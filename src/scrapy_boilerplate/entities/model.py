"""The log-linear model over extraction predicates and its training (section 3.2).

``p(z | x, w) ∝ exp(θ · φ(x, w, z))`` over every predicate of the page. Predicates with one
denotation share their features, so a candidate (denotation group) of ``m`` predicates has
probability ``m · exp(θ · φ) / Z``. Training maximises the regularised log marginal
probability of the predicates whose list is compatible with the annotation,
``Σ log Σ_{z compatible} p(z | x, w) - λ/2 ||θ||²`` (λ = 0.01), with AdaGrad, 5 passes.

Query styles. A query written as a question ("Who are the program co-chairs?") asks for
one section's list; a query written as a title ("tallest buildings in minneapolis") for a
page's main list. Besides its shared weight, every feature that is not a denotation
feature has one weight per style (``QS:question|<name>``, ``QS:title|<name>``): the
model scores a query with the shared weights plus its style's ("frustratingly easy
domain adaptation", Daumé III 2007). :meth:`Model.for_style` folds the two into one table
once, so scoring costs the same as without styles.
"""

from __future__ import annotations

import gzip
import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from operator import mul
from pathlib import Path
from typing import Any

from scrapy_boilerplate.entities.features import (
    LEVELS,
    QD_MARKER,
    Features,
    query_style,
    styled,
)
from scrapy_boilerplate.entities.rerank import Ranker

#: What every style weight's name starts with, and the prefix of a feature's weight for
#: one query style (:func:`query_style`).
STYLE_MARKER = "QS:"
STYLE_PREFIX = STYLE_MARKER + "{}|"

MODEL_FORMAT = 1


@dataclass
class TrainingPage:
    """One training example, featurised: per candidate its features, its number of
    predicates, and whether its list is compatible; ``style`` the query's
    (:func:`~scrapy_boilerplate.entities.features.query_style`; ``None``: shared weights
    only) and ``weight`` the example's share of the gradient (the question-list pairs
    read off a page's own headings count less than annotated examples)."""

    features: list[Features]
    counts: list[int]
    compatible: list[bool]
    style: str | None = None
    weight: float = 1.0


class PackedTrainingPage(TrainingPage):
    """A :class:`TrainingPage` that keeps its features packed: per candidate the tuple of
    its feature names and the tuple of their values, or ``None`` where every value is 1
    (most features are indicators). A training set holds every example's features at
    once, and a dict's hash table costs more than the two tuples (docs/entities.md,
    "Training's memory", measures it); :attr:`features` gives the dicts
    again, with the same names, values and order, each time it is read (:func:`train`
    reads a page's once a pass, so it trains on the same floats)."""

    @property
    def features(self) -> list[Features]:
        return [
            dict.fromkeys(names, 1.0) if values is None else dict(zip(names, values, strict=True))
            for names, values in self._packed
        ]

    @features.setter
    def features(self, features: list[Features]) -> None:
        packed: list[tuple[tuple[str, ...], tuple[float, ...] | None]] = []
        for feats in features:
            values = tuple(feats.values())
            packed.append((tuple(feats), None if all(v == 1.0 for v in values) else values))
        self._packed = packed


@dataclass
class Model:
    """Weights by feature name (plain JSON in the package)."""

    weights: dict[str, float] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    _styles: dict[str, Model] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def ranker(self) -> Ranker | None:
        """The re-ranker kept in the metadata (``meta["ranker"]``, :mod:`.rerank`), read
        once; ``None`` for a model without one (its ranking is the log-linear model's
        alone). A ranker made for other features raises ``ValueError``."""
        data = self.meta.get("ranker")
        return Ranker(data) if isinstance(data, dict) else None

    @cached_property
    def level_weights(self) -> dict[str, dict[str, float]]:
        """The weights of the ancestor levels' structural features by level prefix
        (:data:`~.features.LEVELS`), each keyed by the name after the prefix: a page's
        query-independent score looks a level's node names up there, without joining
        every name to its prefix (the same weights, so the same sums). Made once per model
        (one pass over the weights)."""
        tables: dict[str, dict[str, float]] = {prefix: {} for prefix in LEVELS}
        widths = sorted({len(prefix) for prefix in LEVELS})
        for name, value in self.weights.items():
            for width in widths:
                table = tables.get(name[:width])
                if table is not None:
                    table[name[width:]] = value
                    break
        return tables

    @cached_property
    def query_denotation_weights(self) -> dict[str, dict[str, float]]:
        """The query-denotation weights (``QD:<category>|<denotation name>``) by category,
        each keyed by the denotation feature's name: a query's score reads its category's
        table without making the conjoined names. Made once per model."""
        tables: dict[str, dict[str, float]] = {}
        start = len(QD_MARKER)
        for name, value in self.weights.items():
            if name.startswith(QD_MARKER):
                category, _, rest = name[start:].partition("|")
                tables.setdefault(category, {})[rest] = value
        return tables

    def for_style(self, style: str | None) -> Model:
        """The model that scores queries of ``style``: each feature's shared weight plus
        its weight for the style, in one table (made once per style and kept). A model
        without style weights (trained without styles) is returned as it is."""
        if style is None:
            return self
        folded = self._styles.get(style)
        if folded is None:
            if not any(k.startswith(STYLE_MARKER) for k in self.weights):
                folded = self
            else:
                prefix = STYLE_PREFIX.format(style)
                weights = {k: v for k, v in self.weights.items() if not k.startswith(STYLE_MARKER)}
                for k, v in self.weights.items():
                    if k.startswith(prefix):
                        name = k[len(prefix) :]
                        weights[name] = weights.get(name, 0.0) + v
                folded = Model(weights, self.meta)
            self._styles[style] = folded
        return folded

    def for_query(self, query: str) -> Model:
        """:meth:`for_style` of the query's style."""
        return self.for_style(query_style(query))

    def score(self, feats: Features) -> float:
        """``θ · φ``, summed in the order of ``feats`` (in C: no Python call per feature)."""
        return sum(map(mul, map(self.weights.get, feats, repeat(0.0)), feats.values()))

    def log_probs(self, features: Sequence[Features], counts: Sequence[int]) -> list[float]:
        return normalise([self.score(f) for f in features], counts)

    def save(self, path: str | Path) -> None:
        """Write the model as JSON; gzip-compressed when ``path`` ends with ``.gz`` (the
        shipped model: the same weights in a fifth of the space), byte for byte the same
        file for the same model (no time stamp in the gzip header)."""
        data = {"format": MODEL_FORMAT, "meta": self.meta, "weights": self.weights}
        raw = json.dumps(data, indent=0, sort_keys=True).encode("utf-8")
        if str(path).endswith(".gz"):
            raw = gzip.compress(raw, compresslevel=9, mtime=0)
        Path(path).write_bytes(raw)

    @classmethod
    def load(cls, path: str | Path) -> Model:
        """Read a model :meth:`save` wrote (JSON, or gzip-compressed JSON whatever the file's
        name); a file that is neither raises ``ValueError`` naming it."""
        raw = Path(path).read_bytes()
        try:
            if raw[:2] == b"\x1f\x8b":  # gzip's magic number
                raw = gzip.decompress(raw)
            data = json.loads(raw.decode("utf-8"))
        except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: not an entity model ({exc})") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{path}: not an entity model of format {MODEL_FORMAT}")
        if data.get("format") != MODEL_FORMAT:
            raise ValueError(f"{path}: not an entity model of format {MODEL_FORMAT}")
        model = cls({k: float(v) for k, v in data["weights"].items()}, data.get("meta", {}))
        try:
            model.ranker  # noqa: B018 - read now, so that a bad file fails at load
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: its ranker cannot be read ({exc})") from exc
        return model


def normalise(scores: Sequence[float], counts: Sequence[int]) -> list[float]:
    """Log probabilities of candidates scored ``θ · φ``, each standing for ``count``
    predicates: ``log(count · exp(score) / Z)``."""
    scores = [s + math.log(c) for s, c in zip(scores, counts, strict=True)]
    top = max(scores)
    z = top + math.log(sum(math.exp(s - top) for s in scores))
    return [s - z for s in scores]


def train(
    pages: Sequence[TrainingPage],
    passes: int = 5,
    l2: float = 0.01,
    step: float = 1.0,
    seed: int = 0,
) -> Model:
    """AdaGrad on the regularised log marginal likelihood; pages without any compatible
    candidate carry no signal and are skipped."""
    model = Model()
    w = model.weights
    g2: dict[str, float] = {}
    usable = [p for p in pages if any(p.compatible)]
    copies: dict[tuple[str, str], str] = {}  # (style, name) -> the name of its style weight

    def with_style(feats: Features, style: str | None) -> Features:
        """``feats`` and, for a styled page, each styled feature's copy for its style."""
        if style is None:
            return feats
        out = dict(feats)
        for k, v in feats.items():
            name = copies.get((style, k))
            if name is None:
                name = copies[style, k] = STYLE_PREFIX.format(style) + k if styled(k) else ""
            if name:
                out[name] = v
        return out

    order = list(range(len(usable)))
    rng = random.Random(seed)
    n = max(len(usable), 1)
    for _ in range(passes):
        rng.shuffle(order)
        for i in order:
            page = usable[i]
            features = [with_style(f, page.style) for f in page.features]
            logp = model.log_probs(features, page.counts)
            p = [math.exp(x) for x in logp]
            good = [x for x, ok in zip(p, page.compatible, strict=True) if ok]
            mass = sum(good)
            grad: dict[str, float] = {}
            for feats, prob, ok in zip(features, p, page.compatible, strict=True):
                coef = ((prob / mass if ok else 0.0) - prob) * page.weight  # E_q[φ] - E_p[φ]
                if abs(coef) < 1e-12:
                    continue
                for k, v in feats.items():
                    grad[k] = grad.get(k, 0.0) + coef * v
            for k in grad:  # the regulariser, spread over the examples of a pass
                grad[k] -= l2 / n * w.get(k, 0.0)
            for k, g in grad.items():
                acc = g2.get(k, 0.0) + g * g
                g2[k] = acc
                if acc > 0:
                    w[k] = w.get(k, 0.0) + step * g / math.sqrt(acc)
    model.meta.update(passes=passes, l2=l2, step=step, seed=seed, pages=len(usable))
    return model
