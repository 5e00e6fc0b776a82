"""Scores for main-content extraction: word 4-gram text score, snippet score, block score.

**Text score** (the field's score, as ``../shared/data/README.md`` defines it; same rules as
the reference implementation of Zyte's *article-extraction-benchmark*, ``evaluate.py``):

- Tokens are ``\\w+`` matches (Unicode), **case kept** (not lowercased), exactly as the
  reference does; extractors do not change case, so case only matters where an extractor
  really returns different text.
- Per page, the multisets (``Counter``) of word 4-grams of gold and prediction give
  TP = sum of min(gold, pred) counts, FP = the prediction's surplus, FN = the gold's surplus,
  then TP, FP, FN are divided by their sum, so that long pages do not weigh more.
- A text with 1 to 3 tokens gives a single shorter n-gram made of all its tokens (the
  reference's fallback); a text with no token gives no n-gram at all.
- Page precision TP / (TP + FP) is defined only when the prediction has an n-gram: a page
  with an **empty prediction is left out of the precision average** (and scores recall 0 when
  its gold is not empty). Page recall is defined only when the gold has an n-gram: a page with
  an **empty gold is left out of the recall average** (and scores precision 0 when anything
  was predicted). A page where both are empty is left out of both. That is what the
  reference does; the runner also reports how many predictions were empty so that an
  extractor cannot hide its failures in the precision column.
- Precision and recall are the means over the pages where they are defined; F1 is the
  harmonic mean of the two means (not the mean of per-page F1).

**Snippet score** (trafilatura's ``tests/eval_common.py``): every ``with`` snippet found in the
output is a TP, a missing one a FN; every ``without`` snippet found is a FP, an absent one a TN.
Matching is a plain, case-sensitive substring test after collapsing whitespace runs to one
space on both sides. An extractor that raised counts as an empty output (TP = FP = 0).
Counts are summed over all pages (micro average); precision, recall, accuracy and
F1 = 2TP / (2TP + FP + FN) are 0.0 when their denominator is 0.

**Block score**: the gold is a list of page blocks labelled content / boilerplate (see
:mod:`.goldblocks`). An extractor only returns text, so its output is projected onto the gold
blocks: the lowercased ``\\w+`` tokens of all gold blocks, in page order, are aligned with the
tokens of the predicted text by :class:`difflib.SequenceMatcher` (an in-order alignment: a
token of the page can only be claimed by a predicted token in the same order); a gold block
counts as *predicted content* when **more than half** of its tokens are aligned. Blocks
without a token are not scored. TP/FP/FN/TN are counted per block and summed over all pages
of a dataset (micro average, every block weighs the same); precision, recall, F1 and
accuracy are computed from the sums and are ``None`` when their denominator is 0.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

TOKEN_RE = re.compile(r"\w+")
_WS_RE = re.compile(r"\s+")
NGRAM = 4


def tokens(text: str | None) -> list[str]:
    """The ``\\w+`` tokens of ``text``, case kept."""
    return TOKEN_RE.findall(text or "")


def shingles(text: str | None, n: int = NGRAM) -> Counter[tuple[str, ...]]:
    """Multiset of word n-grams; 1..n-1 tokens give one shorter n-gram, none give nothing."""
    toks = tokens(text)
    if not toks:
        return Counter()
    if len(toks) < n:
        return Counter([tuple(toks)])
    return Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))


@dataclass(frozen=True)
class TextCounts:
    """One page's TP, FP, FN over n-grams, normalised by their sum (all 0 when both empty)."""

    tp: float
    fp: float
    fn: float

    @property
    def precision(self) -> float | None:
        """TP / (TP + FP), or None when the prediction had no n-gram."""
        if self.tp + self.fp == 0:
            return None
        return self.tp / (self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        """TP / (TP + FN), or None when the gold had no n-gram."""
        if self.tp + self.fn == 0:
            return None
        return self.tp / (self.tp + self.fn)


def text_counts(gold: str | None, predicted: str | None, n: int = NGRAM) -> TextCounts:
    """Compare the n-gram multisets of one page's gold and predicted text."""
    g, p = shingles(gold, n), shingles(predicted, n)
    tp = sum((g & p).values())
    fp = sum((p - g).values())
    fn = sum((g - p).values())
    total = tp + fp + fn
    if total == 0:
        return TextCounts(0.0, 0.0, 0.0)
    return TextCounts(tp / total, fp / total, fn / total)


@dataclass(frozen=True)
class Scores:
    """Precision, recall, F1 (None where undefined) and how many pages each is averaged over."""

    precision: float | None
    recall: float | None
    f1: float | None
    precision_pages: int
    recall_pages: int


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def harmonic(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean of two scores; None if either is None, 0.0 if both are 0."""
    if precision is None or recall is None:
        return None
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def text_scores(pages: Iterable[TextCounts]) -> Scores:
    """Average page precision and recall where defined; F1 = harmonic mean of the averages."""
    precisions: list[float] = []
    recalls: list[float] = []
    for counts in pages:
        if (p := counts.precision) is not None:
            precisions.append(p)
        if (r := counts.recall) is not None:
            recalls.append(r)
    precision, recall = _mean(precisions), _mean(recalls)
    return Scores(precision, recall, harmonic(precision, recall), len(precisions), len(recalls))


def normalise_ws(text: str) -> str:
    """Collapse whitespace runs to one space and strip (trafilatura's ``norm``)."""
    return _WS_RE.sub(" ", text).strip()


@dataclass(frozen=True)
class Confusion:
    """TP, FP, FN, TN counts (snippets or blocks); add them up with ``+``."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def __add__(self, other: Confusion) -> Confusion:
        return Confusion(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
        )


def snippet_counts(
    with_snippets: Sequence[str], without_snippets: Sequence[str], predicted: str | None
) -> Confusion:
    """One page's snippet confusion counts; ``predicted=None`` (an error) finds nothing."""
    text = normalise_ws(predicted) if predicted else ""
    tp = sum(1 for s in with_snippets if text and normalise_ws(s) in text)
    fp = sum(1 for s in without_snippets if text and normalise_ws(s) in text)
    return Confusion(tp, fp, len(with_snippets) - tp, len(without_snippets) - fp)


@dataclass(frozen=True)
class ConfusionScores:
    """Precision, recall, F1 and accuracy from summed confusion counts."""

    precision: float | None
    recall: float | None
    f1: float | None
    accuracy: float | None
    counts: Confusion


def _ratio(num: int, den: int, empty: float | None) -> float | None:
    return num / den if den else empty


def confusion_scores(total: Confusion, empty: float | None = None) -> ConfusionScores:
    """Micro scores from summed counts; ``empty`` is the value of a 0/0 score.

    Snippet scores use ``empty=0.0`` as trafilatura does; block scores keep ``None``.
    """
    tp, fp, fn, tn = total.tp, total.fp, total.fn, total.tn
    return ConfusionScores(
        precision=_ratio(tp, tp + fp, empty),
        recall=_ratio(tp, tp + fn, empty),
        f1=_ratio(2 * tp, 2 * tp + fp + fn, empty),
        accuracy=_ratio(tp + tn, tp + fp + fn + tn, empty),
        counts=total,
    )


def project_labels(
    block_texts: Sequence[str], predicted: str | None, threshold: float = 0.5
) -> list[bool | None]:
    """Which gold blocks the predicted text covers (None for a block without tokens).

    A block is predicted content when more than ``threshold`` of its lowercased tokens are
    aligned, in order, with tokens of ``predicted``.
    """
    owners: list[int] = []
    page: list[str] = []
    for i, text in enumerate(block_texts):
        toks = [t.lower() for t in tokens(text)]
        page.extend(toks)
        owners.extend([i] * len(toks))
    pred = [t.lower() for t in tokens(predicted)]
    covered = [0] * len(block_texts)
    if page and pred:
        matcher = difflib.SequenceMatcher(None, page, pred, autojunk=True)
        for a, _b, size in matcher.get_matching_blocks():
            for k in range(a, a + size):
                covered[owners[k]] += 1
    sizes = Counter(owners)
    return [
        (covered[i] / sizes[i] > threshold) if sizes[i] else None for i in range(len(block_texts))
    ]


def block_counts(gold: Sequence[bool], predicted: Sequence[bool | None]) -> Confusion:
    """Confusion counts of one page's blocks; blocks predicted ``None`` (no tokens) are skipped."""
    tp = fp = fn = tn = 0
    for g, p in zip(gold, predicted, strict=True):
        if p is None:
            continue
        if g and p:
            tp += 1
        elif p:
            fp += 1
        elif g:
            fn += 1
        else:
            tn += 1
    return Confusion(tp, fp, fn, tn)
