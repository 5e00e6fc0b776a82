"""How sure a benchmark run's differences are: a paired bootstrap over its pages.

A dataset of a few dozen to a thousand pages gives each extractor one score; two scores
0.003 apart may differ only by which pages the set happens to hold. Resampling the pages
(with replacement, the same pages for both extractors, so that what the pages share
cancels out) and scoring both on each resample gives the spread of the difference: a 95 %
interval that holds 0 says the run cannot tell the two apart on such pages (Efron and
Tibshirani, "An Introduction to the Bootstrap"; the paired form is the one Koehn's
"Statistical significance tests for machine translation evaluation" made usual for
system comparisons).

The scores are recomputed from the per-page records of ``results.json`` as the report
computes them: text F1 is the harmonic mean of precision averaged over the pages with an
output and recall averaged over the pages with gold; snippet F1 is computed from the
with / without snippets summed over the pages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .report import _table

#: The metrics a page record can carry, and the key it carries them under.
METRICS = {"text": "text F1", "snippets": "snippet F1"}


@dataclass(frozen=True)
class Difference:
    """``a``'s score minus ``b``'s on the same pages, and the bootstrap's interval of it."""

    metric: str
    a: float
    b: float
    low: float
    high: float
    pages: int

    @property
    def difference(self) -> float:
        return self.a - self.b

    @property
    def settled(self) -> str:
        """``a``, ``b`` or ``neither``: which one the interval says is ahead."""
        if self.low > 0:
            return "a"
        if self.high < 0:
            return "b"
        return "neither"


def _text_arrays(pages: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """Per-page precision and recall (NaN where the page has none)."""
    p = np.array([np.nan if r.get("p") is None else float(r["p"]) for r in pages])
    r = np.array([np.nan if x.get("r") is None else float(x["r"]) for x in pages])
    return p, r


def _text_f1(p: np.ndarray, r: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Text F1 of each resample (a row of page indices): F1 of the averages."""
    pp, rr = p[rows], r[rows]
    has_p, has_r = ~np.isnan(pp), ~np.isnan(rr)
    with np.errstate(invalid="ignore", divide="ignore"):
        mp = np.where(has_p, pp, 0.0).sum(axis=1) / has_p.sum(axis=1)
        mr = np.where(has_r, rr, 0.0).sum(axis=1) / has_r.sum(axis=1)
        f1 = np.where(mp + mr > 0, 2 * mp * mr / (mp + mr), 0.0)
    return f1


def _snippet_arrays(pages: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Per-page (tp, fp, fn) of the snippets."""
    return np.array([r["snippets"][:3] for r in pages], dtype=float).reshape(-1, 3)


def _snippet_f1(counts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Snippet F1 of each resample, from its summed counts (0 where there is none)."""
    tp, fp, fn = (counts[:, k][rows].sum(axis=1) for k in range(3))
    den = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 2 * tp / den, 0.0)


def has_metric(pages: Sequence[Mapping[str, Any]], metric: str) -> bool:
    """Whether the page records carry ``metric`` (text: precision or recall; snippets)."""
    if metric == "text":
        return any(r.get("p") is not None or r.get("r") is not None for r in pages)
    return bool(pages) and all("snippets" in r for r in pages)


def paired(
    a: Sequence[Mapping[str, Any]],
    b: Sequence[Mapping[str, Any]],
    metric: str,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Difference:
    """``a``'s and ``b``'s ``metric`` (a key of :data:`METRICS`) on the pages both scored,
    paired by page id, and the percentile interval of the difference over ``resamples``
    resamples of those pages (seeded: the same interval every run)."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {sorted(METRICS)}")
    by_id = {r["id"]: r for r in b}
    both = [(r, by_id[r["id"]]) for r in a if r["id"] in by_id]
    if not both:
        raise ValueError("the two extractors share no page")
    pa, pb = [x for x, _ in both], [y for _, y in both]
    n = len(both)
    full = np.arange(n)[None, :]
    rows = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    if metric == "text":
        (p1, r1), (p2, r2) = _text_arrays(pa), _text_arrays(pb)
        score_a, score_b = _text_f1(p1, r1, full)[0], _text_f1(p2, r2, full)[0]
        diffs = _text_f1(p1, r1, rows) - _text_f1(p2, r2, rows)
    else:
        c1, c2 = _snippet_arrays(pa), _snippet_arrays(pb)
        score_a, score_b = _snippet_f1(c1, full)[0], _snippet_f1(c2, full)[0]
        diffs = _snippet_f1(c1, rows) - _snippet_f1(c2, rows)
    tail = (1 - level) / 2 * 100
    low, high = np.nanpercentile(diffs, [tail, 100 - tail])
    return Difference(metric, float(score_a), float(score_b), float(low), float(high), n)


def _cell(d: Difference) -> str:
    mark = {"a": " (ahead)", "b": " (behind)", "neither": ""}[d.settled]
    return f"{d.difference:+.3f} [{d.low:+.3f}, {d.high:+.3f}]{mark}"


def dataset_lines(
    name: str,
    extractors: Mapping[str, Mapping[str, Any]],
    ours: str,
    types: Mapping[str, str] | None = None,
    resamples: int = 2000,
) -> list[str]:
    """The comparisons of one dataset as Markdown: ``ours`` against every extractor that
    is not the project's, for each metric the pages carry, and per page type where
    ``types`` (page id -> type) names them."""
    if ours not in extractors:
        return []
    mine = extractors[ours]["pages"]
    peers = [n for n, e in extractors.items() if not e.get("ours")]
    metrics = [m for m in METRICS if has_metric(mine, m)]
    if not peers or not metrics:
        return []
    lines = [f"## {name}", ""]
    header = ["peer", *(f"{METRICS[m]}: {ours} − peer [95 %]" for m in metrics)]
    rows = []
    for peer in peers:
        cells = [_cell(paired(mine, extractors[peer]["pages"], m, resamples)) for m in metrics]
        rows.append([peer, *cells])
    lines += _table(header, rows)
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in mine:
        if types and r["id"] in types:
            groups.setdefault(types[r["id"]], []).append(r)
    for metric in metrics if groups else ():
        header = ["page type", "pages", *peers]
        rows = []
        for kind, pages in sorted(groups.items()):
            # (paired keeps the peer's records of these pages alone: it pairs by page id)
            cells = [_cell(paired(pages, extractors[p]["pages"], metric, resamples)) for p in peers]
            rows.append([kind, str(len(pages)), *cells])
        lines += ["", f"{METRICS[metric]} by page type, {ours} − peer [95 %]:", ""]
        lines += _table(header, rows)
    return lines
