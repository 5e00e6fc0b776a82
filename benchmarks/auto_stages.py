#!/usr/bin/env python
"""Where ``auto``'s time goes, step by step, as multiples of lxml's parse of the same page.

    python benchmarks/auto_stages.py [--data datasets] [--datasets l3s-gn1 cleaneval]
        [--limit N] [--repeat 2] [--out DIR]

Per page of each set's evaluation split, in page order, ``--repeat`` times: lxml's own
parse (``lxml.html.document_fromstring`` of the str, as ``benchmarks/run.py`` times it),
the whole ``extract(html, "auto")``, then its steps one after the other on a fresh parse:
``parse``, the segmentation (``Document.section_blocks``), the block features, the page
features, the page type's trees, the block trees (with the page type's columns joined to
the block features) and the rest (the decision, the aside and named-body rules, the
quality model, the result); and, on its own, the named-body rule on the pages it applies
to (a part of the rest). Printed:
the median of each over the pages, in ms and as a multiple of the median lxml parse. The
steps' medians need not add up to the whole's. Single-threaded; the compiled steps and
forests as installed. Writes ``auto_stages.md`` with ``--out``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from lxml import html as lxml_html

from harness.datasets import DATASETS, load, missing_message
from harness.output import add_out, write_reports
from scrapy_boilerplate import extract
from scrapy_boilerplate.auto import features, pagetype
from scrapy_boilerplate.auto.asides import aside_blocks
from scrapy_boilerplate.auto.body import apply_body, named_bodies
from scrapy_boilerplate.auto.extractor import (
    _described,
    decide,
    quality_features,
    rounded,
    with_page_type,
    without_asides,
)
from scrapy_boilerplate.auto.model import load_model
from scrapy_boilerplate.core import compiled
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.core.result import (
    BOILERPLATE,
    CONTENT,
    Extraction,
    blocks_from_segments,
)

STEPS = ("lxml", "auto", "parse", "segment", "block features", "page features", "page type",
         "block trees", "rest", "named body")  # fmt: skip


def _timed(times: dict[str, list[float]], step: str, call: Callable[..., Any], *args: Any) -> Any:
    start = time.perf_counter()
    value = call(*args)
    times[step].append(time.perf_counter() - start)
    return value


def _lxml_parse(html: str) -> Any:
    try:
        return lxml_html.document_fromstring(html)
    except ValueError:  # (lxml refuses a str with an encoding declaration)
        return None


def _decided(
    model: Any, blocks: list[Any], p: np.ndarray, p_type: np.ndarray
) -> tuple[str, np.ndarray, np.ndarray, bool]:
    """The page type, the blocks' characters and the decision, as the extractor makes it."""
    kind = model.page_types[int(p_type.argmax())]
    threshold = model.thresholds.get(kind, model.default_threshold)
    chars = np.array([len(b.text) for b in blocks], dtype=np.float64)
    labels, rescued = decide(
        p, threshold, bool(chars.sum()), chars if model.best_run else None, model.run_keep
    )
    return kind, chars, labels, rescued


def _named_body(model: Any, blocks: list[Any], chars: np.ndarray, labels: np.ndarray) -> Any:
    """The named-body rule alone (:mod:`scrapy_boilerplate.auto.body`), on decided labels."""
    bodies = named_bodies(blocks, labels)
    return apply_body(labels, chars, [inside for _, inside in bodies], model.body_share)[0]


def _rest(model: Any, doc: Any, blocks: list[Any], p: np.ndarray, p_type: np.ndarray) -> Any:
    """What ``AutoExtractor.extract`` does after the block trees: the decision, the aside
    and named-body rules where the model applies them, the quality, the result."""
    kind, chars, labels, rescued = _decided(model, blocks, p, p_type)
    if not rescued and kind in model.aside_types:
        labels = without_asides(labels, aside_blocks(blocks, chars, labels, model.aside_share))
    if not rescued and kind in model.body_types:
        labels = _named_body(model, blocks, chars, labels)
    model.quality(quality_features(p, chars, labels, p_type, rescued))
    out = blocks_from_segments(
        blocks,
        [CONTENT if lab else BOILERPLATE for lab in labels.tolist()],
        ("p_content",),
        (rounded(p),),
    )
    if kind == "product":  # (the JSON-LD description the kept blocks miss)
        added = _described(doc, out)
        if added is not None:
            out.append(added)
    language = features.language_code(features.page_language(doc, blocks))
    return Extraction.from_blocks(out, "auto", {}, language=language)


def measure_page(model: Any, page: Any, times: dict[str, list[float]]) -> None:
    """One page's steps, each timed into ``times``."""
    if _timed(times, "lxml", _lxml_parse, page.html) is None:
        times["lxml"].pop()
    _timed(times, "auto", lambda: extract(page.html, "auto", url=page.url))
    doc = _timed(times, "parse", parse, page.html, page.url)
    blocks = _timed(times, "segment", doc.section_blocks)
    if not blocks:
        return
    bx = _timed(times, "block features", features.block_features, doc, blocks)
    px = _timed(times, "page features", pagetype.page_features, doc, blocks, bx)
    p_type = _timed(times, "page type", model.page_type, px)
    p = _timed(times, "block trees", lambda: model.blocks(with_page_type(bx, p_type)))
    _timed(times, "rest", _rest, model, doc, blocks, p, p_type)
    kind, chars, labels, rescued = _decided(model, blocks, p, p_type)
    if not rescued and kind in model.body_types:
        _timed(times, "named body", _named_body, model, blocks, chars, labels)


def measure(pages: list[Any], repeat: int) -> dict[str, list[float]]:
    """Seconds per page and step (:data:`STEPS`), ``repeat`` passes over ``pages``."""
    model = load_model(None)
    times: dict[str, list[float]] = {s: [] for s in STEPS}
    for _ in range(repeat):
        for page in pages:
            measure_page(model, page, times)
    return times


def report(results: dict[str, dict[str, list[float]]], repeat: int) -> str:
    lines = [
        "# Where `auto`'s time goes",
        "",
        f"`python benchmarks/auto_stages.py` on {platform.platform()}, Python "
        f"{platform.python_version()}; compiled steps "
        f"{'built' if compiled.built() else 'not built'}; {repeat} passes over each "
        "set's evaluation split. Median ms per page, and as a multiple of the median of "
        "lxml's parse of the same pages in the same run (`lxml.html.document_fromstring`, "
        "as `benchmarks/run.py` times it). The steps run one after the other on a fresh "
        "parse; their medians need not add up to the whole call's.",
        "",
    ]
    for name, times in results.items():
        reference = statistics.median(times["lxml"])
        lines += [f"## {name}", "", "| step | median ms | × lxml parse |", "| --- | ---: | ---: |"]
        for step in STEPS:
            median = statistics.median(times[step]) if times[step] else float("nan")
            label = 'whole `extract(html, "auto")`' if step == "auto" else step
            if step == "named body":
                label = f"named-body rule (in the rest; {len(times[step])} of the passes)"
            lines.append(f"| {label} | {median * 1e3:.3f} | {median / reference:.2f} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--datasets", nargs="+", default=["l3s-gn1", "cleaneval"])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=2)
    add_out(parser, "auto_stages.md")
    args = parser.parse_args(argv)
    results = {}
    for name in args.datasets:
        spec = DATASETS[name]
        if not (args.data / name).is_dir():
            print(missing_message(name, args.data), file=sys.stderr)
            continue
        pages = list(load(name, args.data, spec.default_split))[: args.limit]
        extract(pages[0].html, "auto")  # warm: the model loaded, the caches made
        results[name] = measure(pages, args.repeat)
    if not results:
        return 2
    text = report(results, args.repeat)
    print(text)
    write_reports(args.out, {"auto_stages.md": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
