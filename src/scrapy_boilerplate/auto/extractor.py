"""``auto``: every method's evidence at once, weighed block by block by a learned model.

One pass segments the page (:meth:`Document.section_blocks`); :mod:`.features` gives each
block jusText's evidence, its text, its place in the tree and CNR's view of its container;
:mod:`.pagetype` tells the page's type from its URL, its schema.org types and its markup.
Gradient-boosted trees (:mod:`.model`) then give the page type, each block's probability
of being main content (the page type's probabilities are among its inputs, so a forum's
replies and a listing's items are judged as such), and the expected text F1 of the result
(``quality``), from which a crawl can drop or re-route poor pages.

A page with text always gets main text: where no block reaches the threshold, the blocks
closest to it are kept (the page's best guess), and ``quality`` says how much to trust it.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from scrapy_boilerplate.auto import features, pagetype, structured
from scrapy_boilerplate.auto.asides import ASIDE_TYPES, MAX_SHARE, aside_blocks
from scrapy_boilerplate.auto.body import (
    BODY_TYPES,
    MIN_SHARE,
    apply_body,
    named_bodies,
    outermost,
)
from scrapy_boilerplate.auto.model import check_model, load_model, shipped_models
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import (
    REMOVED_TAGS,
    SECTION_BLOCK_TAGS,
    Document,
    TextBlock,
    element_xpath,
    justext_segment,
    local_name,
    parse,
)
from scrapy_boilerplate.core.errors import InvalidParameter, UnsupportedInput
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.registry import Extractor
from scrapy_boilerplate.core.result import (
    BOILERPLATE,
    CONTENT,
    Block,
    Extraction,
    blocks_from_segments,
)

#: A ``<title>`` whose text is longer than this and holds markup swallowed the page (an
#: unclosed title: the parser reads everything after it as the title's text).
SWALLOWED_TITLE_CHARS = 300
_MARKUP = re.compile(r"<[A-Za-z!/]")

#: How far below the best block's probability a rescued block may be (a page where no
#: block reaches the threshold keeps its best blocks rather than nothing).
RESCUE_MARGIN = 0.15

PARAMS = (
    Param(
        "model",
        str,
        None,
        "the shipped model by name (auto) or the path of an ONNX model (`scrapy-boilerplate "
        "train auto`); null: auto",
        nullable=True,
        path=True,
        keywords=tuple(shipped_models()),
    ),
    Param(
        "threshold",
        float,
        None,
        "a block is content when its probability is at least this; null: the model's "
        "threshold for the page's type (chosen by cross-validation)",
        nullable=True,
        minimum=0.0,
        maximum=1.0,
    ),
    Param(
        "best_run",
        bool,
        None,
        "keep content to the page's best run of consecutive blocks (and blocks outside it "
        "that the model is sure of); false: every block at or above the threshold; null: as "
        "the model was trained (the shipped model: true)",
        nullable=True,
    ),
    Param(
        "asides",
        bool,
        None,
        "on a page taken for an article, content inside an element whose class or id names "
        "comments, related stories, sharing, the author, a newsletter, advertising or the "
        "post's meta line (and that holds at most a quarter of the page's text) is "
        "boilerplate; false: the blocks' probabilities alone decide; null: as the model was "
        "trained (the shipped model: true)",
        nullable=True,
    ),
    Param(
        "body",
        bool,
        None,
        "on a page taken for anything but a forum, when the elements whose class or id "
        "names a post's text (entry-content, post-body, article-body, itemprop articleBody, "
        "...) hold at least half of the kept text, the content that follows their start "
        "outside them is boilerplate (what comes before them stays); false: the blocks' "
        "probabilities alone decide; null: as the model was trained (the shipped model: "
        "true)",
        nullable=True,
    ),
    Param(
        "page_type",
        str,
        None,
        f"take the page as this type instead of classifying it ({', '.join(pagetype.PAGE_TYPES)})",
        nullable=True,
    ),
    Param(
        "structured_data",
        bool,
        True,
        "on a product page, add the description that the page's JSON-LD gives its product "
        "when the kept blocks hold less than half of its words (shops that render the "
        "description by script); false: the page's blocks only",
    ),
)

QUALITY_NAMES: tuple[str, ...] = (
    "mean_p",
    "content_share",
    "log_content_chars",
    "log_content_blocks",
    "uncertain_share",
    "max_p",
    "rescued",
    "log_chars",
    "log_blocks",
    *(f"type_{t}" for t in pagetype.PAGE_TYPES),
)
QUALITY_WIDTH = len(QUALITY_NAMES)


def quality_features(
    p: np.ndarray, chars: np.ndarray, labels: np.ndarray, p_type: np.ndarray, rescued: bool
) -> np.ndarray:
    """The ``(QUALITY_WIDTH,)`` vector the quality model reads: how sure the block
    decisions were, how much they kept, and the page type's probabilities."""
    total = float(chars.sum()) or 1.0
    kept = float(chars[labels].sum())
    uncertain = float(chars[(p > 0.2) & (p < 0.8)].sum())
    head = [
        float((p * chars).sum()) / total,
        kept / total,
        math.log1p(kept),
        math.log1p(int(np.count_nonzero(labels))),
        uncertain / total,
        float(p.max()) if len(p) else 0.0,
        float(rescued),
        math.log1p(total),
        math.log1p(len(p)),
    ]
    out = np.empty(QUALITY_WIDTH, dtype=np.float32)
    out[: len(head)] = head
    out[len(head) :] = p_type
    return out


def with_page_type(bx: np.ndarray, p_type: np.ndarray) -> np.ndarray:
    """The block trees' input: each block's features, then the page type's probabilities
    (the same on every row), as one float32 array in C order."""
    width = bx.shape[1]
    out = np.empty((len(bx), width + len(p_type)), dtype=np.float32)
    out[:, :width] = bx
    out[:, width:] = p_type
    return out


def rounded(p: np.ndarray) -> list[float]:
    """``[round(v, 4) for v in p]``, at once for float32 probabilities: a float32 times
    10,000 is exact in float64 (24 + 14 bits), so rounding it half to even gives the
    correctly rounded decimal that ``round`` finds, and dividing by 10,000 the float
    nearest to that decimal, which ``round`` returns too. Other arrays go one by one."""
    if p.dtype != np.float32:
        return [round(v, 4) for v in p.tolist()]
    return (np.rint(p.astype(np.float64) * 10000.0) / 10000.0).tolist()


def best_run(weights: np.ndarray) -> tuple[int, int]:
    """The first and last index of the run of consecutive items with the largest sum of
    ``weights`` (the earliest such run; ``(0, -1)`` for no items)."""
    if not len(weights):
        return 0, -1
    sums = np.concatenate(([0.0], np.cumsum(weights, dtype=np.float64)))
    lowest = np.minimum.accumulate(sums[:-1])  # the smallest prefix sum before each end
    end = int(np.argmax(sums[1:] - lowest))
    start = int(np.argmin(sums[: end + 1]))
    return start, end


def _run_weights(
    p: np.ndarray, chars: np.ndarray, threshold: float, keep: float | None
) -> tuple[Any, ...]:
    return p, (p.astype(np.float64) - threshold) * chars, threshold, keep


@_compiled.twin("run_labels", module=features.COMPILED, arguments=_run_weights)
def run_labels(
    p: np.ndarray, chars: np.ndarray, threshold: float, keep: float | None
) -> np.ndarray:
    """The blocks at or above ``threshold`` that lie in the page's best run of blocks (by
    :func:`best_run` of ``(p - threshold) * chars``), and those outside it at or above
    ``keep`` (None: none); compiled where ``_speedups`` is built (two passes instead of a
    dozen array operations)."""
    start, end = best_run((p.astype(np.float64) - threshold) * chars)
    inside = np.zeros(len(p), dtype=bool)
    inside[start : end + 1] = True
    if keep is not None:
        inside |= p >= keep
    return (p >= threshold) & inside


def decide(
    p: np.ndarray,
    threshold: float,
    has_text: bool,
    chars: np.ndarray | None = None,
    keep: float | None = None,
) -> tuple[np.ndarray, bool]:
    """Content labels from probabilities: at least ``threshold``; where nothing reaches it
    on a page with text, the blocks within :data:`RESCUE_MARGIN` of the best one.

    With ``chars`` (each block's length), only the blocks in the page's best run are kept,
    and those outside it at or above ``keep`` (None: none of them). The best run is the
    stretch of consecutive blocks with the largest sum of ``(p - threshold) * chars``: the
    body text extraction of Finn, Kushmerick and Smyth ("Fact or fiction: Content
    classification for digital libraries"), here over the blocks' probabilities instead of
    tags and words. A reply box or a list of related stories that the model finds
    somewhat likely, but that boilerplate separates from the article, is then left out.
    """
    # (the rule only ever takes blocks out: no block at the threshold, none in the run)
    labels = p >= threshold if chars is None else run_labels(p, chars, threshold, keep)
    if labels.any() or not has_text or not len(p):
        return labels, False
    return p >= float(p.max()) - RESCUE_MARGIN, True


def without_asides(labels: np.ndarray, asides: np.ndarray) -> np.ndarray:
    """``labels`` less the blocks in asides (:mod:`.asides`); unchanged where that would
    leave no content (the rule never empties a page the model found content on)."""
    kept = labels & ~asides
    return kept if kept.any() else labels


def rescue_blocks(doc: Document) -> tuple[Document, list[TextBlock], str | None]:
    """Blocks for a page whose cleaned tree gave none, and how they were found.

    Two broken pages are common enough to read anyway: a page whose whole content sits in
    an element hidden by its style (a ``display: none`` wrapper that the page's script
    reveals), read with only scripts, styles and the like left out (``hidden``); and a
    page whose ``<title>`` is never closed, so the parser took the rest of the page for
    the title's text, read by parsing that text (``title``). Returns the document the
    blocks belong to, the blocks (empty when neither applies) and the way (None).
    """
    removed = {el for el in doc.removed if isinstance(el.tag, str) and el.tag in REMOVED_TAGS}
    if len(removed) < len(doc.removed):
        blocks = justext_segment(doc.root, removed, block_tags=SECTION_BLOCK_TAGS)
        if blocks:
            return doc, blocks, "hidden"
    title = doc.root.find(".//title")
    text = "".join(title.itertext()) if title is not None else ""
    start = _MARKUP.search(text)
    if len(text) > SWALLOWED_TITLE_CHARS and start is not None:
        try:
            inner = parse(text[start.start() :], url=doc.url, max_nodes=doc.max_nodes)
        except UnsupportedInput:
            return doc, [], None
        blocks = inner.section_blocks()
        if blocks:
            return inner, blocks, "title"
    return doc, [], None


def _described(doc: Document, out: list[Block]) -> Block | None:
    """A content block holding the product description of the page's JSON-LD, when the
    content blocks of ``out`` hold less than half of its words (:mod:`.structured`); it
    follows the page's blocks, with the ``<script>``'s place and ``source: json-ld``."""
    kept = "\n\n".join(b.text for b in out if b.label == CONTENT and b.text)
    found = structured.missing_description(doc.root, kept)
    if found is None:
        return None
    text, script = found
    tags = [local_name(a.tag) for a in (script, *script.iterancestors())]
    last = out[-1] if out else None
    return Block(
        text,
        element_xpath(script),
        "script",
        CONTENT,
        ".".join(reversed(tags)),
        0.0,
        last.index + 1 if last is not None else 0,
        last.start + len(last.text) + 1 if last is not None else 0,
        {"p_content": None, "source": "json-ld"},
    )


class AutoExtractor(Extractor):
    """``auto``: blocks carry ``p_content``; the result carries ``page_type``, its
    probability and ``quality`` (the expected text F1)."""

    name = "auto"
    params = PARAMS

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """The parameters checked; a missing model file, or one that already failed to
        load, fails here, named (without loading it: this may run on the reactor thread)."""
        checked = super().validate(params)
        if checked["page_type"] is not None and checked["page_type"] not in pagetype.PAGE_TYPES:
            raise InvalidParameter(
                f"parameter 'page_type' must be one of {', '.join(pagetype.PAGE_TYPES)}, "
                f"got {checked['page_type']!r}",
                "page_type",
            )
        check_model(checked["model"])
        return checked

    def extract(self, doc: Document, params: dict[str, Any]) -> Extraction:
        model = load_model(params["model"])
        blocks = doc.section_blocks()
        extra: dict[str, Any] = {"model": model.path.name}
        if not blocks:
            doc, blocks, rescued_from = rescue_blocks(doc)
            if not blocks:
                return Extraction.from_blocks([], self.name, dict(params), extra=extra)
            extra["recovered"] = rescued_from
        bx = features.block_features(doc, blocks)
        check()
        px = pagetype.page_features(doc, blocks, bx)
        p_type = model.page_type(px)
        forced = params["page_type"]
        if forced is not None:
            p_type = np.asarray([t == forced for t in model.page_types], np.float32)
        k = int(p_type.argmax())
        kind = model.page_types[k]
        p = model.blocks(with_page_type(bx, p_type))
        check()
        threshold = params["threshold"]
        if threshold is None:
            threshold = model.thresholds.get(kind, model.default_threshold)
        chars = np.array([len(b.text) for b in blocks], dtype=np.float64)
        run = params["best_run"]
        if run is None:
            run = model.best_run
        labels, rescued = decide(
            p, threshold, bool(chars.sum()), chars if run else None, model.run_keep
        )
        use_asides = params["asides"]
        if use_asides is None:
            use_asides = bool(model.aside_types)
        if use_asides and not rescued and kind in (model.aside_types or ASIDE_TYPES):
            share = model.aside_share or MAX_SHARE
            labels = without_asides(labels, aside_blocks(blocks, chars, labels, share))
        use_body = params["body"]
        if use_body is None:
            use_body = bool(model.body_types)
        if use_body and not rescued and kind in (model.body_types or BODY_TYPES):
            bodies = named_bodies(blocks, labels)
            share = model.body_share or MIN_SHARE
            labels, chosen = apply_body(labels, chars, [inside for _, inside in bodies], share)
            if chosen is not None:
                extra["body"] = outermost([bodies[k][0] for k in chosen])
        quality = model.quality(quality_features(p, chars, labels, p_type, rescued))
        out = blocks_from_segments(
            blocks,
            [CONTENT if lab else BOILERPLATE for lab in labels.tolist()],
            ("p_content",),
            (rounded(p),),
        )
        if kind == "product" and params["structured_data"]:
            added = _described(doc, out)
            if added is not None:
                out.append(added)
                extra["structured_data"] = "json-ld product description"
        return Extraction.from_blocks(
            out,
            self.name,
            dict(params),
            language=features.language_code(features.page_language(doc, blocks)),
            extra=extra,
            page_type=kind,
            page_type_probability=round(float(p_type[k]), 4),
            quality=round(min(1.0, max(0.0, quality)), 4),
        )
