"""VIPS segmentation quality on Kreuzer's hand-segmented pages, rendered and static layouts
side by side, with rendering and algorithm time per page.

    python benchmarks/vips_eval.py [--data datasets] [--limit N] [--pdoc 6]

Needs ../shared/data's kreuzer-random and kreuzer-popular unpacked under ``--data``
(``../shared/data/unpack datasets``), Playwright and Debian's Chromium. Writes
benchmarks/results/vips.md and vips.json.

How it is measured (kreuzer.README.md, "Computing extended BCubed"):

- each page's ``index.blocks.html`` is rendered offline with JavaScript off (it is already
  the post-JavaScript DOM); the ground truth is read from the rendered DOM (lxml misses it
  in 24 files), every element with ``data-block`` being one gold segment;
- units are the visible non-blank text nodes, weighted by their non-space characters
  (extended BCubed over characters); only units inside at least one gold segment are
  scored (coverage is partial), pages whose blocks a broken script swallowed are left out;
- the prediction is VIPS's leaf blocks against the finest gold segmentation (every unit
  in its innermost block), and all of VIPS's levels (the page itself left out) against all
  gold blocks (overlapping: extended BCubed's case);
- the static layout runs on the rendered DOM serialised as HTML (so both see the same
  DOM); its units are matched to the rendered ones by XPath (coverage in the table);
- baselines: the whole page as one segment, and every text node a segment of its own.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import scrapy_boilerplate as sb
from harness.output import add_out, write_reports
from harness.segmentation import extended_bcubed
from scrapy_boilerplate.extractors.vips import (
    Layout,
    RenderError,
    VipsConfig,
    from_snapshot,
    render_snapshot,
    segment,
    static_layout,
)
from scrapy_boilerplate.extractors.vips.layout import LNode

SETS = ("kreuzer-random", "kreuzer-popular")


def units_of(layout: Layout) -> dict[str, float]:
    """Visible non-blank text nodes by XPath, weighted by non-space characters."""
    out: dict[str, float] = {}
    for n in layout.nodes():
        if n.is_text and n.visible and n.w > 0 and n.h > 0:
            chars = sum(len(t) for t in n.text.split())
            if chars:
                out[n.xpath] = float(chars)
    return out


def text_under(nodes: list[LNode]) -> set[str]:
    return {n.xpath for top in nodes for n in top.iter() if n.is_text}


def gold_segments(layout: Layout) -> tuple[list[set[str]], list[set[str]]]:
    """(all gold blocks, finest: each unit only in its innermost block)."""
    blocks = [n for n in layout.nodes() if "data-block" in n.attrs]
    all_levels = [text_under([b]) for b in blocks]
    innermost: dict[str, int] = {}
    for k, b in enumerate(blocks):  # document order: inner blocks come after outer ones
        for x in text_under([b]):
            innermost[x] = k
    finest: list[set[str]] = [set() for _ in blocks]
    for x, k in innermost.items():
        finest[k].add(x)
    return all_levels, [s for s in finest if s]


def predicted(page_block: Any) -> tuple[list[set[str]], list[set[str]]]:
    """(leaves, every level but the page) as sets of text XPaths."""
    leaves = [text_under(vb.nodes) for vb in page_block.leaves()]
    levels = [text_under(vb.nodes) for vb in page_block.walk() if vb is not page_block]
    return leaves, levels


def score(units: dict[str, float], pred: list[set[str]], gold: list[set[str]]) -> dict[str, Any]:
    b = extended_bcubed(units, pred, gold)
    return {"p": b.precision, "r": b.recall, "f1": b.f1}


def evaluate_page(
    path: Path, config: VipsConfig, timeout: float, cached: Path | None = None
) -> dict[str, Any]:
    if cached is not None and cached.exists():
        snap = json.loads(cached.read_text(encoding="utf-8"))
    else:
        snap = render_snapshot(
            url=path.resolve().as_uri(), javascript=False, content=True, timeout=timeout
        )
        if cached is not None:
            cached.write_text(json.dumps(snap), encoding="utf-8")
    layout = from_snapshot(snap, attributes=("data-block",))
    units_all = units_of(layout)
    gold_all, gold_finest = gold_segments(layout)
    annotated = set().union(*gold_all) if gold_all else set()
    units = {u: w for u, w in units_all.items() if u in annotated}
    out: dict[str, Any] = {"timings": snap["timings"], "units": len(units)}
    t0 = time.perf_counter()
    rendered = segment(layout, config)
    out["segment_s"] = time.perf_counter() - t0
    leaves, levels = predicted(rendered)
    out["rendered"] = {
        "leaves": score(units, leaves, gold_finest),
        "levels": score(units, levels, gold_all),
        "n_leaves": len(leaves),
    }
    t0 = time.perf_counter()
    doc = sb.parse(snap["html"])
    static = static_layout(doc)
    t1 = time.perf_counter()
    static_page = segment(static, config)
    out["static_s"] = (t1 - t0, time.perf_counter() - t1)
    s_leaves, s_levels = predicted(static_page)
    matched = set(units_of(static)) & set(units)
    out["static"] = {
        "leaves": score(units, s_leaves, gold_finest),
        "levels": score(units, s_levels, gold_all),
        "n_leaves": len(s_leaves),
        "coverage": sum(units[u] for u in matched) / max(sum(units.values()), 1.0),
    }
    out["one_segment"] = score(units, [set(units)], gold_finest)
    out["text_nodes"] = score(units, [{u} for u in units], gold_finest)
    out["gold_blocks"] = len(gold_all)
    return out


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("datasets"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--pdoc", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60.0)
    add_out(ap, "vips.md, vips.json")
    ap.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="keep each page's snapshot here and reuse it (render times are then those "
        "of the first run)",
    )
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    ap.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another VipsConfig value, e.g. large_size=0.2 (VALUE as JSON)",
    )
    args = ap.parse_args(argv)
    extra = {k: json.loads(v) for k, v in (p.split("=", 1) for p in args.param)}
    config = VipsConfig(pdoc=args.pdoc, **extra)
    results: dict[str, list[dict[str, Any]]] = {}
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
    for name in args.sets:
        folder = args.data / name
        index = folder / "index.jsonl"
        if not index.exists():
            print(f"{name}: missing ({index}); unpack ../shared/data with "
                  "'../shared/data/unpack DEST' and pass --data DEST", file=sys.stderr)  # fmt: skip
            continue
        rows = [json.loads(line) for line in index.read_text().splitlines() if line.strip()]
        rows = [r for r in rows if r["n_blocks"] == r["n_blocks_in_source"] and r["n_blocks"]]
        if args.limit:
            rows = rows[: args.limit]
        got = []
        for r in rows:
            try:
                cache = args.cache / name if args.cache is not None else None
                if cache is not None:
                    cache.mkdir(exist_ok=True)
                cached = cache / f"{r['id']}.json" if cache is not None else None
                res = evaluate_page(folder / r["html"], config, args.timeout, cached)
            except RenderError as exc:
                print(f"{name}/{r['id']}: {exc}", file=sys.stderr)
                continue
            res["id"] = r["id"]
            got.append(res)
            print(f"{name}/{r['id']}: rendered F1 {_fmt(res['rendered']['leaves']['f1'])} "
                  f"static F1 {_fmt(res['static']['leaves']['f1'])}", flush=True)  # fmt: skip
        results[name] = got
    lines = [
        "# VIPS segmentation on Kreuzer's pages",
        "",
        f"`python benchmarks/vips_eval.py --pdoc {args.pdoc}"
        + "".join(f" --param {p}" for p in args.param)
        + "`: extended BCubed over characters "
        "(macro average over pages), annotated text only; rendered = headless Chromium "
        "(JavaScript off, offline), static = the approximate layout from the same DOM.",
        "",
        "| set | pages | layout | leaves P | leaves R | leaves F1 | all levels P | "
        "all levels R | all levels F1 | leaves / page |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, got in results.items():
        if not got:
            continue
        for kind in ("rendered", "static"):
            lv = [g[kind]["leaves"] for g in got]
            al = [g[kind]["levels"] for g in got]
            lines.append(
                f"| {name} | {len(got)} | {kind} | {_fmt(_mean([x['p'] for x in lv]))} | "
                f"{_fmt(_mean([x['r'] for x in lv]))} | {_fmt(_mean([x['f1'] for x in lv]))} | "
                f"{_fmt(_mean([x['p'] for x in al]))} | {_fmt(_mean([x['r'] for x in al]))} | "
                f"{_fmt(_mean([x['f1'] for x in al]))} | "
                f"{statistics.median(g[kind]['n_leaves'] for g in got):.0f} |"
            )
        for base in ("one_segment", "text_nodes"):
            vals = [g[base] for g in got]
            lines.append(
                f"| {name} | {len(got)} | baseline: {base.replace('_', ' ')} | "
                f"{_fmt(_mean([x['p'] for x in vals]))} | {_fmt(_mean([x['r'] for x in vals]))} | "
                f"{_fmt(_mean([x['f1'] for x in vals]))} | | | | |"
            )
    lines += [
        "",
        "Time per page (median, seconds)"
        + (
            "; render times are those of the run that filled the snapshot cache"
            if args.cache is not None
            else ""
        )
        + ":",
        "",
        "| set | launch | load | snapshot | VIPS on rendered | static layout | "
        "VIPS on static | static coverage |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, got in results.items():
        if not got:
            continue

        def med(f: Any, got: list[dict[str, Any]] = got) -> str:
            return f"{statistics.median(f(g) for g in got):.4f}"

        lines.append(
            f"| {name} | {med(lambda g: g['timings']['launch_s'])} | "
            f"{med(lambda g: g['timings']['load_s'])} | "
            f"{med(lambda g: g['timings']['snapshot_s'])} | {med(lambda g: g['segment_s'])} | "
            f"{med(lambda g: g['static_s'][0])} | {med(lambda g: g['static_s'][1])} | "
            f"{_fmt(_mean([g['static']['coverage'] for g in got]))} |"
        )
    print("\n".join(lines))
    files = {"vips.md": "\n".join(lines) + "\n", "vips.json": json.dumps(results, indent=1)}
    write_reports(args.out, files)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
