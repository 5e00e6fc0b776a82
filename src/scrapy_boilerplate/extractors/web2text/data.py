"""Training pages for Web2Text: (HTML, clean text) pairs turned into features and labels.

Labels come from the automatic block labelling of section 4.1 (:mod:`.labelling`): a
DOM-leaf block is content when at least 2/3 of its text aligns with the clean text. For
CleanEval, whose ``.aligned.txt`` files are the paper's own alignment, the labels are read
from them instead (:func:`.labelling.labels_from_aligned`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.core.errors import BoilerplateError
from scrapy_boilerplate.extractors.web2text.train import PageData

logger = logging.getLogger(__name__)


def page_data(
    name: str,
    html: str | bytes,
    clean_text: str | None = None,
    labels: Sequence[bool] | None = None,
) -> PageData | None:
    """Features and labels of one page (``labels`` given, or aligned from ``clean_text``).

    None when the page cannot be parsed or has no text block.
    """
    from scrapy_boilerplate.extractors.web2text.features import page_features
    from scrapy_boilerplate.extractors.web2text.labelling import align_blocks

    try:
        doc = parse(html)
    except BoilerplateError as exc:
        logger.info("skipping %s: %s", name, exc)
        return None
    leaves = doc.leaf_blocks()
    if not leaves:
        return None
    if labels is None:
        if clean_text is None:
            raise ValueError("page_data needs labels or a clean text")
        labels, _ = align_blocks([b.text for b in leaves], clean_text)
    if len(labels) != len(leaves):
        raise ValueError(f"{name}: {len(labels)} labels for {len(leaves)} blocks")
    blocks, edges = page_features(doc)
    return PageData(name, blocks, edges, np.asarray(labels, dtype=np.int64))


def folder_pairs(folder: Path) -> Iterator[tuple[str, Path, Path]]:
    """``(name, html path, text path)`` for every ``NAME.html`` with a ``NAME.txt`` beside it."""
    for html_path in sorted(folder.glob("*.html")):
        text_path = html_path.with_suffix(".txt")
        if text_path.is_file():
            yield html_path.stem, html_path, text_path


def load_folder(folder: Path) -> list[PageData]:
    """Every (html, text) pair of ``folder`` as training pages (texts read as UTF-8)."""
    pages = []
    for name, html_path, text_path in folder_pairs(folder):
        text = text_path.read_text("utf-8", errors="replace")
        page = page_data(name, html_path.read_bytes(), text)
        if page is not None:
            pages.append(page)
    return pages


def split_pages(
    pages: Iterable[PageData], valid_share: float = 0.1, seed: int = 0
) -> tuple[list[PageData], list[PageData]]:
    """A random ``valid_share`` of the pages (at least one) for early stopping; the rest train."""
    pages = list(pages)
    if len(pages) < 2:
        raise ValueError("training needs at least two pages (one is kept for validation)")
    order = np.random.default_rng(seed).permutation(len(pages))
    n_valid = min(len(pages) - 1, max(1, round(valid_share * len(pages))))
    valid = {int(i) for i in order[:n_valid]}
    return (
        [p for i, p in enumerate(pages) if i not in valid],
        [p for i, p in enumerate(pages) if i in valid],
    )
