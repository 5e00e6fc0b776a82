#!/usr/bin/env python
"""Where the entity extractor's time goes, step by step, per page of the entity sets.

    python benchmarks/entities_stages.py [--data datasets] [--limit N] [--repeat 1]
        [--out DIR]

The shipped model, warm: every distinct training page of both sets is read once first
(parse, candidates and its first question ranked), as a crawl's process that has seen
pages has it and as ``entities_eval.py`` times its test pages: the model loaded and the
per-string caches (tags, stems, entity tokens) filled. Then, for each distinct test page
of wikitablequestions-lists and webqa-utopia-dev (both splits' test parts; the first
question asked of the page), ``--repeat`` passes of: lxml's own parse of the page
(``harness.runner.time_reference``, as ``benchmarks/run.py`` times it); the whole call
(``parse``, :class:`~scrapy_boilerplate.entities.extract.PageCandidates` and ``rank`` of
the question, what ``extract_entities`` does); and the same call again with each step
timed (generation, derivation, contexts, list texts, column headers, structural parts and
names, denotation names, the question's filtered lists, the re-ranker's columns and
trees, and the scores). Printed: the median
over the pages of each, in ms and as a multiple of the median lxml parse, and the mean of
the middle half of the pages by whole time. The steps' medians need not add up to the
whole's; timing the steps costs a little, so the whole call is timed on its own.
The whole call reads a page the process has not seen, as a crawl does; the steps' call
reads it again. A second pass (``--repeat 2``) reads every page again, with its strings
still in the per-string caches where they are large enough to hold them all, which a
crawl's process never meets: its figures mix first and second reads. Single-threaded.
Writes ``entities_stages.md`` with ``--out``.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from entities_eval import load
from harness.entities_data import Example, missing_message
from harness.output import add_out, write_reports
from harness.runner import time_reference
from python_sources import built_modules, compiled_module_names
from scrapy_boilerplate.core import compiled
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.entities import extract, rerank
from scrapy_boilerplate.entities.extract import PageCandidates, load_model, rank

#: The functions of ``extract``'s namespace timed as steps (each a sum over its calls).
FUNCTIONS = ("PageIndex", "generate", "derive", "context_of", "list_text", "header_names",
             "structural_parts", "node_names", "denotation_names", "filtered",
             "dense")  # fmt: skip
#: The methods of :class:`PageCandidates` timed as steps.
METHODS = ("_base", "_query_scores", "_query_denotation")
#: The methods of :class:`~scrapy_boilerplate.entities.rerank.Ranker` timed as steps.
RANKER_METHODS = ("predict",)
STEPS = ("lxml", "whole", "parse", "candidates", "rank", *FUNCTIONS, *RANKER_METHODS, *METHODS)
LABELS = {
    "lxml": "lxml's parse",
    "whole": "whole call (parse, candidates, rank)",
    "parse": "`parse`",
    "candidates": "`PageCandidates` (the paper's candidates)",
    "rank": "`rank` (a question's derived and filtered lists, the scores)",
    "PageIndex": "page index (one walk)",
    "generate": "generation (the paper's predicates)",
    "derive": "derivation (lists read inside text; for questions)",
    "context_of": "contexts (headings, labels)",
    "list_text": "list texts (stems, tags)",
    "header_names": "column headers",
    "structural_parts": "structural parts (ancestor levels)",
    "node_names": "structural names",
    "denotation_names": "denotation names",
    "filtered": "filtered lists (the question's words; their features are in the steps above)",
    "dense": "re-ranker's columns",
    "predict": "re-ranker's trees",
    "_base": "query-independent score",
    "_query_scores": "query features' score",
    "_query_denotation": "query-denotation score",
}


@contextmanager
def timed_steps(times: dict[str, float]) -> Iterator[None]:
    """Within the block, each step of :data:`FUNCTIONS`, :data:`METHODS` and
    :data:`RANKER_METHODS` adds its seconds to ``times``; the originals are put back on
    leaving it."""
    saved: list[tuple[Any, str, Any]] = []

    def wrap(owner: Any, name: str) -> None:
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                times[name] = times.get(name, 0.0) + time.perf_counter() - start

        saved.append((owner, name, original))
        setattr(owner, name, timed)

    for name in FUNCTIONS:
        wrap(extract, name)
    for name in METHODS:
        wrap(PageCandidates, name)
    for name in RANKER_METHODS:
        wrap(rerank.Ranker, name)
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def whole(html: str, query: str, model: Any) -> tuple[float, float, float, int]:
    """Seconds of ``parse``, ``PageCandidates`` and ``rank`` of one page, and the number
    of candidates the query was ranked among (the paper's, and for a question the derived
    and filtered lists: ``PageCandidates.for_query``)."""
    t0 = time.perf_counter()
    doc = parse(html)
    t1 = time.perf_counter()
    pc = PageCandidates(doc)
    t2 = time.perf_counter()
    rank(pc, query, model)
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2, len(pc.for_query(query, model).candidates)


def distinct_pages(examples: list[Example]) -> list[Example]:
    """The first example of each page, in the examples' order."""
    first: dict[Path, Example] = {}
    for ex in examples:
        first.setdefault(ex.page, ex)
    return list(first.values())


def measure(examples: list[Example], model: Any, repeat: int) -> dict[str, Any]:
    """Per step (:data:`STEPS`), the seconds of each page and pass; ``cands``: each page's
    number of candidates."""
    per_step: dict[str, list[float]] = defaultdict(list)
    cands = []
    for _ in range(repeat):
        for ex in examples:
            html = ex.html()
            gc.collect()
            reference = time_reference(html)
            if reference is not None:
                per_step["lxml"].append(reference)
            gc.collect()
            p, c, r, n = whole(html, ex.query, model)
            per_step["whole"].append(p + c + r)
            per_step["parse"].append(p)
            per_step["candidates"].append(c)
            per_step["rank"].append(r)
            cands.append(n)
            gc.collect()
            steps: dict[str, float] = defaultdict(float)
            with timed_steps(steps):
                whole(html, ex.query, model)
            for name in (*FUNCTIONS, *RANKER_METHODS, *METHODS):
                per_step[name].append(steps[name])
    return {"times": per_step, "cands": cands}


def entity_modules() -> str:
    """Whether the entity extractor's modules that setup.py compiles ran compiled (how many)
    or from their Python sources (``benchmarks/python_sources.py``)."""
    names = compiled_module_names()
    built = built_modules(names)
    if not built:
        return "the entity extractor's modules run from their Python sources"
    return f"the entity extractor's modules compiled ({len(built)} of {len(names)})"


def report(results: dict[str, dict[str, Any]], repeat: int, warm: int) -> str:
    lines = [
        "# Where the entity extractor's time goes",
        "",
        f"`python benchmarks/entities_stages.py` on {platform.platform()}, Python "
        f"{platform.python_version()}; compiled steps "
        f"{'built' if compiled.built() else 'not built'}; {entity_modules()}; the shipped "
        "model, warmed on the "
        f"{warm} distinct training pages of both sets; {repeat} "
        f"{'pass' if repeat == 1 else 'passes'} over each set's "
        "distinct test pages (both splits), each page with the first question asked of "
        "it. Median ms per page, and as a multiple of the median of lxml's parse of the "
        "same pages in the same run. The steps are timed in a call of their own and sum "
        "their calls within it; their medians need not add up to the whole call's.",
        "",
    ]
    for name, res in results.items():
        times = res["times"]
        reference = statistics.median(times["lxml"]) if times["lxml"] else float("nan")
        order = sorted(range(len(times["whole"])), key=times["whole"].__getitem__)
        n = len(order)
        middle = order[n // 4 : n - n // 4] or order
        pages = n // repeat
        lines += [
            f"## {name}",
            "",
            f"{pages} pages, median {statistics.median(res['cands']):.0f} candidates a page. "
            "Middle half: the mean over the half of the pages in the middle by whole time.",
            "",
            "| step | median ms | × lxml parse | middle half: mean ms |",
            "| --- | ---: | ---: | ---: |",
        ]
        for step in STEPS:
            values = times[step]
            median = statistics.median(values) if values else float("nan")
            # (lxml's times skip the pages it refuses: no middle half of its own)
            mean = (
                "–" if step == "lxml" else f"{statistics.mean(values[i] for i in middle) * 1e3:.1f}"
            )
            lines.append(
                f"| {LABELS[step]} | {median * 1e3:.1f} | {median / reference:.1f} | {mean} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--limit", type=int, default=None, help="test pages per set")
    parser.add_argument("--repeat", type=int, default=1)
    add_out(parser, "entities_stages.md")
    args = parser.parse_args(argv)
    sets, _ = load(args.data)
    if not sets:
        print(missing_message(args.data), file=sys.stderr)
        return 1
    model = load_model()
    warm_pages = distinct_pages(
        [ex for parts in sets.values() for ex in parts["train"] + parts["train@template"]]
    )
    for ex in warm_pages:
        whole(ex.html(), ex.query, model)
    results = {}
    for name, parts in sets.items():
        pages = distinct_pages(parts["test"] + parts["test@template"])[: args.limit]
        if pages:
            results[name] = measure(pages, model, args.repeat)
    if not results:
        print(f"no test pages in the entity datasets under {args.data}", file=sys.stderr)
        return 2
    text = report(results, args.repeat, len(warm_pages))
    print(text)
    write_reports(args.out, {"entities_stages.md": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
