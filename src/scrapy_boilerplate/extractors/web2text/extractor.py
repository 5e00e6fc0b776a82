"""Web2Text as an extractor: features, both networks (onnxruntime), Viterbi, labels."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import Document
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.registry import Extractor
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Block, Extraction
from scrapy_boilerplate.extractors.web2text.model import check_model, load_model, shipped_models
from scrapy_boilerplate.extractors.web2text.viterbi import viterbi

PARAMS = (
    Param(
        "model",
        str,
        None,
        "a shipped model by name (web2text: every allowed set; cleaneval: the paper's "
        "CleanEval split) or the path of an ONNX model (`scrapy-boilerplate train`); "
        "null: web2text",
        nullable=True,
        path=True,
        keywords=tuple(shipped_models()),
    ),
    Param(
        "lambda_",
        float,
        0.1,
        "weight of the pairwise term in equation (3) (the paper's lambda)",
        minimum=0.0,
    ),
    Param(
        "unary_only",
        bool,
        False,
        "label each block by its unary probability alone (no pairwise network, no Viterbi)",
    ),
    Param(
        "threshold",
        float,
        0.5,
        "unary_only: a block is content when its content probability is at least this",
        minimum=0.0,
        maximum=1.0,
    ),
)


class Web2TextExtractor(Extractor):
    """Web2Text (Vogels et al.): blocks carry ``p_content``, the unary content probability.

    Blocks are the DOM leaves of the Collapsed DOM (:meth:`Document.leaf_blocks`); the
    model is loaded once per process and path.
    """

    name = "web2text"
    params = PARAMS

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """The parameters checked; a missing model file, or one that already failed to
        load, fails here, named. The model is not loaded here: validation runs on the
        crawl's reactor thread (a request's meta), loading runs where pages are extracted."""
        checked = super().validate(params)
        check_model(checked["model"])
        return checked

    def extract(self, doc: Document, params: dict[str, Any]) -> Extraction:
        from scrapy_boilerplate.extractors.web2text.features import page_feature_rows

        leaves = doc.leaf_blocks()
        model = load_model(params["model"])
        if not leaves:
            return Extraction.from_blocks(
                [], self.name, dict(params), extra={"model": model.path.name}
            )
        # The features as rows made chunk by chunk when the model slices them (all that
        # potentials does with its arguments): the (n, 128) matrix never exists whole.
        block_x, edge_x, line_breaks = page_feature_rows(doc)
        check()  # the page's deadline
        unary, pairwise = model.potentials(cast(np.ndarray, block_x), cast(np.ndarray, edge_x))
        breaks = line_breaks.tolist()
        del block_x, edge_x, line_breaks  # the statistics are freed before the blocks are made
        check()
        p_content = unary[:, 1].tolist()
        if params["unary_only"]:
            threshold = params["threshold"]
            labels = [p >= threshold for p in p_content]
        else:
            labels = [bool(v) for v in viterbi(unary, pairwise, params["lambda_"])]
        check()
        blocks = [
            Block(
                text=b.text,
                xpath=b.xpath,
                tag=b.tag,
                label=CONTENT if lab else BOILERPLATE,
                tag_path=b.tag_path,
                link_density=b.link_density,
                index=b.index,
                start=b.start,
                fields={"p_content": round(float(p), 6)},
            )
            for b, lab, p in zip(leaves, labels, p_content, strict=True)
        ]
        return Extraction.from_blocks(
            blocks,
            self.name,
            dict(params),
            main_text=join_leaves([b.text for b in leaves], labels, breaks),
            extra={"model": model.path.name},
        )


_NO_SPACE_BEFORE = frozenset(".,;:!?)]}\u2019\u201d%")
_NO_SPACE_AFTER = frozenset("([{\u2018\u201c")


def join_leaves(texts: list[str], labels: list[bool], breaks: list[float]) -> str:
    """The main text from DOM leaves: a leaf continues the previous content leaf's line
    when both are content and no line break (edge feature 5: a block-level tag or
    ``<br>``) separates them, so a paragraph with links stays one paragraph; otherwise
    a blank line separates them. Leaf texts are stripped, so a space is put between
    leaves of one line except before closing punctuation and after an opening bracket."""
    parts: list[str] = []
    previous = False
    for i, (text, content) in enumerate(zip(texts, labels, strict=True)):
        if content:
            if previous and not breaks[i - 1]:
                if not (text[:1] in _NO_SPACE_BEFORE or parts[-1][-1:] in _NO_SPACE_AFTER):
                    parts.append(" ")
            elif parts:
                parts.append("\n\n")
            parts.append(text)
        previous = content
    return "".join(parts)
