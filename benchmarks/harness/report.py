"""Markdown and JSON reports of a benchmark run (one section per dataset, never averaged)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DASH = "–"


def _num(value: float | None, digits: int = 3) -> str:
    return _DASH if value is None else f"{value:.{digits}f}"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    align = ["---"] + ["---:"] * (len(header) - 1)
    return [_row(header), _row(align), *(_row(r) for r in rows)]


def _label(name: str, info: dict[str, Any]) -> str:
    return f"{name} (ours)" if info.get("ours") else name


def dataset_table(
    extractors: dict[str, dict[str, Any]], reference_ms: float | None = None
) -> list[str]:
    """One row per extractor with the scores this dataset's gold allows; with
    ``reference_ms`` (lxml's parse alone, timed in the same run), each median ms over it."""
    summaries = {n: e["summary"] for n, e in extractors.items()}
    has = {k: any(k in s for s in summaries.values()) for k in ("text", "snippets", "blocks")}
    header = ["extractor"]
    if has["text"]:
        header += ["text P", "text R", "text F1"]
    if has["snippets"]:
        header += ["snippet P", "snippet R", "snippet F1", "snippet acc"]
    if has["blocks"]:
        header += ["block P", "block R", "block F1", "block acc"]
    parse = any("parse_median_ms" in s for s in summaries.values())
    ratio = ["median / lxml parse"] if reference_ms else []
    header += ["median ms", *ratio, "mean ms", *(["parse ms"] if parse else [])]
    header += ["pages", "errors", "empty"]
    rows = []
    for name, info in extractors.items():
        s = info["summary"]
        row = [_label(name, info)]
        if has["text"]:
            t = s.get("text", {})
            row += [_num(t.get("precision")), _num(t.get("recall")), _num(t.get("f1"))]
        for key in ("snippets", "blocks"):
            if has[key]:
                c = s.get(key, {})
                row += [_num(c.get(k)) for k in ("precision", "recall", "f1", "accuracy")]
        row.append(_num(s["median_ms"], 1))
        if reference_ms:
            median = s["median_ms"]
            row.append(_num(median / reference_ms if median is not None else None, 2))
        row.append(_num(s["mean_ms"], 1))
        if parse:
            row.append(_num(s.get("parse_median_ms"), 1))
        row += [str(s["pages"]), str(s["errors"]), str(s["empty"])]
        rows.append(row)
    return _table(header, rows)


def page_type_tables(extractors: dict[str, dict[str, Any]]) -> list[str]:
    """Text F1 and snippet F1 per page type (rows) and extractor (columns)."""
    types = sorted({t for e in extractors.values() for t in e.get("by_page_type", {})})
    if not types:
        return []
    lines: list[str] = []
    names = list(extractors)
    for key, title in (("text", "Text F1"), ("snippets", "Snippet F1")):
        rows = []
        for t in types:
            cells = [extractors[n].get("by_page_type", {}).get(t, {}) for n in names]
            pages = max((c.get("pages", 0) for c in cells), default=0)
            values = [_num(c.get(key, {}).get("f1")) for c in cells]
            if any(v != _DASH for v in values):
                rows.append([t, str(pages), *values])
        if rows:
            header = ["page type", "pages", *(_label(n, extractors[n]) for n in names)]
            lines += ["", f"{title} by page type:", "", *_table(header, rows)]
    return lines


def markdown(results: dict[str, Any]) -> str:
    """The whole report as Markdown."""
    meta = results["meta"]
    lines = [
        "# Benchmark results",
        "",
        f"Run {meta['date']} on {meta['platform']}, Python {meta['python']}; "
        f"limit {meta['limit'] or 'none'} pages per dataset; single process, "
        "`time.perf_counter` per page, str input (decoding not timed), warm-up run first.",
        "",
        "Versions: " + ", ".join(f"{k} {v or '?'}" for k, v in meta["versions"].items()) + ".",
        "",
        "Text P/R/F1: word 4-grams of `\\w+` tokens per page, precision and recall averaged "
        "over pages, F1 of the averages. Snippet: trafilatura's with/without snippets, "
        "summed over pages. Block: gold blocks covered (>50% of tokens, in order) by the "
        "output, summed over blocks. ms: whole call, parsing included; parse ms: median of "
        "our parse step alone. Scores are not comparable across datasets. See "
        "`benchmarks/README.md`.",
    ]
    for name, ds in results["datasets"].items():
        lines += ["", f"## {name}", "", f"Split `{ds['split']}`, {ds['pages']} pages.", ""]
        ref = ds.get("reference") or {}
        lines += dataset_table(ds["extractors"], ref.get("median_ms"))
        if ref.get("median_ms"):
            lines += [
                "",
                f"lxml's parse alone (`{ref['name']}` of the same str, timed among the "
                f"extractors in their shuffled order, tree freed untimed): median "
                f"{ref['median_ms']:.2f} ms, mean {ref['mean_ms']:.2f} ms over "
                f"{ref['pages']} pages. `median / lxml parse` reads a method's speed "
                "as a multiple of it, whatever the machine.",
            ]
        lines += page_type_tables(ds["extractors"])
    skipped = [*results["skipped"]["datasets"], *results["skipped"]["extractors"]]
    if skipped:
        lines += ["", "## Skipped", "", *(f"- {s}" for s in skipped)]
    return "\n".join(lines) + "\n"


def write(results: dict[str, Any], out: Path) -> tuple[Path, Path]:
    """Write ``results.md`` and ``results.json`` into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    md_path, json_path = out / "results.md", out / "results.json"
    md_path.write_text(markdown(results), encoding="utf-8")
    json_path.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    return md_path, json_path
