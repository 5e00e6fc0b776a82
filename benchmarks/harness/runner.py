"""``python benchmarks/run.py``: quality and speed against peers.

For each dataset and extractor: text P/R/F1 (word 4-grams), snippet P/R/F1/accuracy, block
P/R/F1/accuracy where the gold allows them (see :mod:`.metrics`), median and mean ms per
page and the number of pages that raised. Pages are run one at a time in a single process,
every extractor on a page before the next page, in an order shuffled per page (seeded by
the page's number: the same every run), so that no method always meets the caches or the
freed memory that one particular other method leaves; each call is timed with
:func:`time.perf_counter` from the decoded ``str`` to the text (decoding and scoring are not
timed). lxml's own parse of the page (:data:`REFERENCE`) is timed among them, in the
same shuffled order, so that each median can be read as a multiple of lxml's parse on the
same machine in the same run. Every extractor runs once on a tiny page and on the first
page before timing starts (imports, models, caches). Prints the Markdown; writes
``results.md``, ``results.json`` and ``quality_speed.png`` only into the folder ``--out``
names (``tox -e bench``: ``benchmarks/results``, the committed ones).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lxml import html as lxml_html

from . import chart, report
from .datasets import ALL, DATASETS, Page, load, missing_message
from .evaluate import PageResult, by_page_type, score_page, summarise, summary_stat
from .output import add_out
from .peers import Extractor, resolve

DESCRIPTION = (
    "Quality (text, snippet and block scores) and speed (ms per page) of our extractors and "
    "of trafilatura, jusText, readability-lxml and resiliparse, per dataset."
)
_TINY = "<html><body><h1>Warm-up</h1><p>This is a short paragraph of text.</p></body></html>"


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The argument parser."""
    p = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    p.add_argument(
        "--data",
        type=Path,
        default=Path("datasets"),
        help="folder with the unpacked datasets (default: ./datasets)",
    )
    p.add_argument(
        "--datasets",
        nargs="+",
        choices=list(DATASETS),
        default=list(DATASETS),
        metavar="NAME",
        help=f"datasets to run (default: all: {', '.join(DATASETS)})",
    )
    p.add_argument(
        "--extractors",
        nargs="+",
        default=["all"],
        metavar="NAME",
        help="ours by registered name, peers by name, or the groups ours, peers, "
        "all (default: all)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="first N pages of each dataset (after the split)",
    )
    add_out(p, "results.md, results.json, quality_speed.png")
    p.add_argument(
        "--split",
        action="append",
        default=[],
        metavar="[DATASET=]SPLIT",
        help="split to evaluate: SPLIT for every set that has it, DATASET=SPLIT for "
        "one, 'all' for every page; defaults: cleaneval=web2text_test, "
        "google-trends-2017=test, wcxb-dev=web2text_eval, others all",
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="EXTRACTOR.KEY=VALUE",
        help="a parameter for one of our extractors, e.g. justext.language=en "
        "(VALUE parsed as JSON when it can be)",
    )
    return p  # fmt: skip


def parse_splits(items: list[str], datasets: list[str]) -> dict[str, str]:
    """Resolve ``--split`` items into a split per dataset."""
    chosen = {name: DATASETS[name].default_split for name in datasets}
    for item in items:
        name, _, split = item.rpartition("=")
        targets = [name] if name else datasets
        for target in targets:
            spec = DATASETS.get(target)
            if spec is None:
                raise SystemExit(f"--split {item}: unknown dataset {target!r}")
            if split == ALL or split in spec.splits:
                chosen[target] = split
            elif name:
                raise SystemExit(f"--split {item}: {target} splits are {', '.join(spec.splits)}")
    return chosen


def parse_params(items: list[str]) -> dict[str, dict[str, Any]]:
    """Resolve ``--param EXTRACTOR.KEY=VALUE`` items."""
    params: dict[str, dict[str, Any]] = {}
    for item in items:
        target, eq, raw = item.partition("=")
        name, dot, key = target.partition(".")
        if not (eq and dot and name and key):
            raise SystemExit(f"--param {item}: expected EXTRACTOR.KEY=VALUE")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        params.setdefault(name, {})[key] = value
    return params


def run_page(ex: Extractor, page: Page) -> PageResult:
    """Run one extractor on one page, timed, and score it."""
    error = None
    output = None
    start = time.perf_counter()
    try:
        output = ex.run(page.html, url=page.url)
    except Exception as exc:  # an extractor failing on a page is a result, not a crash
        error = f"{type(exc).__name__}: {exc}"[:300]
    seconds = time.perf_counter() - start
    return score_page(page, output, seconds, error)


def warm_up(extractors: list[Extractor], page: Page | None, problems: list[str]) -> list[Extractor]:
    """Run each extractor once untimed; drop those that cannot even import."""
    kept = []
    for ex in extractors:
        try:
            ex.run(_TINY)
        except ImportError as exc:
            problems.append(f"{ex.name}: not available ({exc}); skipped")
            continue
        except Exception:  # per-page failures are reported by run_page
            pass
        if page is not None:
            run_page(ex, page)
        kept.append(ex)
    return kept


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


#: The reference timed with the extractors: lxml's own parse of the page, as a user calls it
#: ("lxml parsing alone" of a page), so that a method's time can be read as a
#: multiple of it, whatever the machine and its load.
REFERENCE = "lxml.html.document_fromstring"


def time_reference(html: str) -> float | None:
    """Seconds that :data:`REFERENCE` takes on ``html`` (its tree freed untimed); None when
    lxml refuses the page."""
    start = time.perf_counter()
    try:
        root = lxml_html.document_fromstring(html)
    except Exception:  # (an empty or XML page): no reference time for it
        return None
    seconds = time.perf_counter() - start
    del root
    return seconds


def reference_summary(seconds: list[float]) -> dict[str, Any]:
    """Median and mean ms of the reference parse over a dataset's pages."""
    return {
        "name": REFERENCE,
        "pages": len(seconds),
        "median_ms": summary_stat(seconds, statistics.median),
        "mean_ms": summary_stat(seconds, statistics.fmean),
    }


def run_dataset(
    name: str, pages: Iterable[Page], extractors: list[Extractor]
) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """All extractors on all pages of one dataset (streamed): the page count, the results
    per extractor and the reference parse's times (:func:`reference_summary`)."""
    per: dict[str, list[PageResult]] = {ex.name: [] for ex in extractors}
    reference: list[float] = []
    n = 0
    for n, page in enumerate(pages, 1):
        # the extractors and the reference parse (None) in an order of their own on each
        # page (seeded: the same every run): no method always runs first (with the coldest
        # caches), or always right after the same other one, whose garbage and freed memory
        # the next call inherits
        order: list[Extractor | None] = [*extractors, None]
        random.Random(n).shuffle(order)
        for ex in order:
            if ex is None:
                seconds = time_reference(page.html)
                if seconds is not None:
                    reference.append(seconds)
            else:
                per[ex.name].append(run_page(ex, page))
        if n % 50 == 0:
            _progress(f"  {name}: {n} pages")
    return (
        n,
        {
            ex.name: {
                "ours": ex.ours,
                "summary": summarise(per[ex.name]),
                "by_page_type": by_page_type(per[ex.name]),
                "pages": [r.to_dict() for r in per[ex.name]],
            }
            for ex in extractors
        },
        reference_summary(reference),
    )


def _meta(limit: int | None, splits: dict[str, str], extractors: list[Extractor]) -> dict[str, Any]:
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "limit": limit,
        "splits": splits,
        "versions": {ex.name: ex.version for ex in extractors},
    }


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark; 0 on success, 1 when nothing could be run."""
    args = build_parser(prog).parse_args(argv)
    splits = parse_splits(args.split, args.datasets)
    extractors, problems = resolve(args.extractors, parse_params(args.param))
    for msg in problems:
        _progress(msg)
    skipped_sets: list[str] = []
    present = []
    for name in args.datasets:
        if (args.data / name / "index.jsonl").is_file():
            present.append(name)
        else:
            skipped_sets.append(missing_message(name, args.data))
            _progress(skipped_sets[-1])
    if not present:
        _progress(f"nothing to run: none of the datasets is unpacked under {args.data}")
        return 1
    known = len(problems)
    extractors = warm_up(extractors, next(load(present[0], args.data, None, 1), None), problems)
    for msg in problems[known:]:
        _progress(msg)
    if not extractors:
        _progress("nothing to run: none of the extractors asked for is available")
        return 1
    results: dict[str, Any] = {
        "meta": _meta(args.limit, {n: splits[n] for n in present}, extractors),
        "datasets": {},
        "skipped": {"datasets": skipped_sets, "extractors": problems},
    }
    for name in present:
        _progress(f"{name} (split {splits[name]}): {len(extractors)} extractors")
        pages = load(name, args.data, splits[name], args.limit)
        count, per_extractor, reference = run_dataset(name, pages, extractors)
        results["datasets"][name] = {
            "split": splits[name],
            "pages": count,
            "reference": reference,
            "extractors": per_extractor,
        }
    print(report.markdown(results))
    if args.out is not None:
        md_path, json_path = report.write(results, args.out)
        png = chart.draw(results, args.out / "quality_speed.png")
        _progress(f"wrote {md_path}, {json_path}" + (f", {png}" if png else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
