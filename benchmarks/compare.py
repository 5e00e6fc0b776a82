"""How sure a benchmark run's comparisons are: ``auto`` (or another of ours) against each
peer, dataset by dataset, with a paired bootstrap interval of each difference.

    python benchmarks/compare.py [--results benchmarks/results/results.json]
        [--extractor auto] [--data datasets] [--resamples 2000] [--out benchmarks/results]

Reads the per-page records that ``run.py`` keeps in ``results.json`` (no extraction is run
again) and writes ``comparisons.md``: for each dataset and peer, our score minus the
peer's, with the 95 % interval of that difference over resamples of the dataset's pages
(:mod:`harness.compare`). A difference whose interval holds 0 is one the run cannot tell
from the luck of which pages the set holds. wcxb-dev's rows are also given per page type;
the types come from the page records, or, for a ``results.json`` written before they
carried them, from the dataset's ``index.jsonl`` under ``--data`` (skipped, with a
message, when it is missing).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from harness.compare import dataset_lines
from harness.datasets import UNPACK_HINT, _index


def page_types(name: str, records: list[dict[str, Any]], data: Path) -> dict[str, str]:
    """Page id -> page type, from the records or else from the dataset's index."""
    types = {r["id"]: r["type"] for r in records if r.get("type")}
    if types:
        return types
    folder = data / name
    if not (folder / "index.jsonl").is_file():
        return {}
    return {str(rec["id"]): rec["page_type"] for rec in _index(folder) if rec.get("page_type")}


def markdown(results: dict[str, Any], ours: str, data: Path, resamples: int) -> str:
    """The comparisons of every dataset of ``results`` as Markdown."""
    meta = results["meta"]
    lines = [
        f"# How sure the comparisons are: `{ours}` against each peer",
        "",
        f"`python benchmarks/compare.py`, over the run of {meta['date']} "
        "(`results.json` beside this file, `results.md` for its tables). Each cell: "
        f"`{ours}`'s score minus the peer's on the same pages, then the 95 % interval of "
        f"that difference over {resamples} resamples of the dataset's pages (paired "
        'bootstrap, seeded). "ahead" / "behind": the whole interval is above / below '
        "0; otherwise the run cannot tell the two apart on such pages. Text F1 as the "
        "report computes it (precision and recall averaged over pages), snippet F1 from "
        "the summed snippets.",
    ]
    missing = []
    for name, ds in results["datasets"].items():
        extractors = ds["extractors"]
        if ours not in extractors:
            continue
        types = page_types(name, extractors[ours]["pages"], data)
        if name == "wcxb-dev" and not types:
            missing.append(name)
        body = dataset_lines(name, extractors, ours, types or None, resamples)
        if body:
            lines += ["", *body]
    if missing:
        lines += ["", f"Page types not found for {', '.join(missing)} ({UNPACK_HINT})."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/compare.py", description=__doc__.split("\n")[0])
    ap.add_argument("--results", type=Path, default=Path("benchmarks/results/results.json"))
    ap.add_argument("--extractor", default="auto", help="which of ours to compare")
    ap.add_argument("--data", type=Path, default=Path("datasets"))
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--out", type=Path, help="folder for comparisons.md (default: print)")
    args = ap.parse_args(argv)
    if not args.results.is_file():
        print(f"no results at {args.results}: run benchmarks/run.py first", file=sys.stderr)
        return 2
    results = json.loads(args.results.read_text(encoding="utf-8"))
    text = markdown(results, args.extractor, args.data, args.resamples)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "comparisons.md"
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
