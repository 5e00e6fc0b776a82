"""Score one extractor's output on one page, and summarise a set of page results.

A page where the extractor raised counts as an empty output in every score (no n-gram, no
snippet, no block predicted content), as trafilatura's evaluation does, and is counted in
``errors``; its time is left out of the timing statistics (which cover the pages that ran).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .datasets import Page
from .metrics import (
    Confusion,
    TextCounts,
    block_counts,
    confusion_scores,
    project_labels,
    snippet_counts,
    text_counts,
    text_scores,
)
from .peers import Output


@dataclass
class PageResult:
    """One extractor on one page: its scores' raw counts and its time."""

    id: str
    page_type: str | None
    seconds: float | None
    parse_seconds: float | None = None
    error: str | None = None
    empty: bool = False
    text: TextCounts | None = None
    snippets: Confusion | None = None
    blocks: Confusion | None = None

    def to_dict(self) -> dict[str, Any]:
        """Compact plain-JSON form (ms rounded to 0.001, scores to 1e-6)."""
        out: dict[str, Any] = {"id": self.id, "ms": _ms(self.seconds)}
        if self.page_type is not None:
            out["type"] = self.page_type
        if self.parse_seconds is not None:
            out["parse_ms"] = _ms(self.parse_seconds)
        if self.error:
            out["error"] = self.error
        if self.empty:
            out["empty"] = True
        if self.text is not None:
            out["p"] = _round(self.text.precision)
            out["r"] = _round(self.text.recall)
        for key, conf in (("snippets", self.snippets), ("blocks", self.blocks)):
            if conf is not None:
                out[key] = [conf.tp, conf.fp, conf.fn, conf.tn]
        return out


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def score_page(page: Page, output: Output | None, seconds: float, error: str | None) -> PageResult:
    """Compare ``output`` (None after an error) with the page's gold."""
    text = output.text if output is not None else ""
    result = PageResult(
        id=page.id,
        page_type=page.page_type,
        seconds=None if error else seconds,
        parse_seconds=output.parse_seconds if output is not None else None,
        error=error,
        empty=not text.strip(),
    )
    if page.gold_text is not None:
        result.text = text_counts(page.gold_text, text)
    if page.with_snippets is not None or page.without_snippets is not None:
        result.snippets = snippet_counts(
            page.with_snippets or (), page.without_snippets or (), None if error else text
        )
    if page.blocks is not None:
        predicted = project_labels([b.text for b in page.blocks], text)
        result.blocks = block_counts([b.content for b in page.blocks], predicted)
    return result


def summary_stat(values: list[float], fn: Any) -> float | None:
    return round(fn(values) * 1000, 3) if values else None


def _sum(items: Iterable[Confusion]) -> Confusion:
    total = Confusion()
    for item in items:
        total = total + item
    return total


def summarise(results: list[PageResult]) -> dict[str, Any]:
    """Scores and timings of a list of page results (one dataset or one page type)."""
    times = [r.seconds for r in results if r.seconds is not None]
    parses = [r.parse_seconds for r in results if r.parse_seconds is not None]
    out: dict[str, Any] = {
        "pages": len(results),
        "errors": sum(1 for r in results if r.error),
        "empty": sum(1 for r in results if r.empty),
        "median_ms": summary_stat(times, statistics.median),
        "mean_ms": summary_stat(times, statistics.fmean),
    }
    if parses:
        out["parse_median_ms"] = summary_stat(parses, statistics.median)
    texts = [r.text for r in results if r.text is not None]
    if texts:
        s = text_scores(texts)
        out["text"] = {
            "precision": _round(s.precision), "recall": _round(s.recall), "f1": _round(s.f1),
            "precision_pages": s.precision_pages, "recall_pages": s.recall_pages,
        }  # fmt: skip
    for key, empty in (("snippets", 0.0), ("blocks", None)):
        confs = [getattr(r, key) for r in results if getattr(r, key) is not None]
        if confs:
            c = confusion_scores(_sum(confs), empty=empty)
            out[key] = {
                "precision": _round(c.precision), "recall": _round(c.recall),
                "f1": _round(c.f1), "accuracy": _round(c.accuracy),
                "tp": c.counts.tp, "fp": c.counts.fp, "fn": c.counts.fn, "tn": c.counts.tn,
            }  # fmt: skip
    return out


def by_page_type(results: list[PageResult]) -> dict[str, dict[str, Any]]:
    """:func:`summarise` per page type (empty when no page has a type)."""
    groups: dict[str, list[PageResult]] = {}
    for r in results:
        if r.page_type is not None:
            groups.setdefault(r.page_type, []).append(r)
    return {t: summarise(rs) for t, rs in sorted(groups.items())}
