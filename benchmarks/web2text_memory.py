#!/usr/bin/env python
"""Peak memory of a Web2Text extraction, as a multiple of the page's size.

    python benchmarks/web2text_memory.py [--mb 4 20 40] [--cases text paragraphs deep]
                                         [--depth 100] [--method web2text] [--profile]

For each synthetic page (built in the child, no dataset read) a fresh Python process
imports the package, extracts a tiny page (so the model is loaded and every lazy import
done), reads its peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``: the baseline),
then builds the page and extracts it. The report gives the growth of the peak over that
baseline in MB and as a multiple of the page's UTF-8 size; the page's own ``str`` is part
of the growth. The element limit is off (``max_nodes=0``: the deep pages have more than
250,000 elements from 20 MB on). Cases:

- ``text``: one ``<p>`` holding a single text node of the whole size (words, capitals,
  punctuation, digits, sentence ends);
- ``paragraphs``: many ``<p>`` paragraphs of three sentences (240 characters);
- ``deep``: chains of ``--depth`` nested ``<div>`` (default 100) around a paragraph of ten
  sentences;
- ``deeptext`` (only when named): chains of ``--depth`` nested ``<div>`` with 40 characters
  of text at every level. Each block's XPath and tag path, part of the result, are then
  about 8 characters per level: at depth 200 they alone are some 20 times the page.

``--profile`` also prints, per case, the ``tracemalloc`` peak of each step (parse, the
Collapsed DOM and its leaves, the features, the networks), measured in the child.
Exits 1 when a case grows by more than ``--bound`` times the page (default 15).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASES = ("text", "paragraphs", "deep", "deeptext")

#: The child: argv is (case, bytes, method, profile, depth); prints one JSON line.
CHILD = r"""
import json, resource, sys, gc
case, size, method, profile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
DEPTH = int(sys.argv[5])
from scrapy_boilerplate import extract
extract("<html><body><p>A tiny page. It has two sentences.</p></body></html>", method)

def kib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

SENTENCE = "The Quick brown fox, born 1999, jumps over the lazy dog at example.org again! "

def page(case, size):
    if case == "text":
        body = (SENTENCE * (size // len(SENTENCE) + 1))[:size]
        return "<html><body><p>" + body + "</p></body></html>"
    if case == "paragraphs":
        para = "<p>" + SENTENCE * 3 + "</p>\n"
        return "<html><body>" + para * max(1, size // len(para)) + "</body></html>"
    if case == "deep":
        chain = "<div>" * DEPTH + "<p>" + SENTENCE * 10 + "</p>" + "</div>" * DEPTH + "\n"
        return "<html><body>" + chain * max(1, size // len(chain)) + "</body></html>"
    if case == "deeptext":
        level = "<div>" + SENTENCE[:40]
        chain = level * DEPTH + "</div>" * DEPTH + "\n"
        return "<html><body>" + chain * max(1, size // len(chain)) + "</body></html>"
    raise SystemExit(f"unknown case {case}")

gc.collect()
base = kib()
html = page(case, size)
nbytes = len(html.encode("utf-8"))
steps = {}
if profile:
    import tracemalloc
    from scrapy_boilerplate.core.document import parse
    from scrapy_boilerplate.extractors.web2text.features import page_feature_rows
    from scrapy_boilerplate.extractors.web2text.model import load_model
    tracemalloc.start()
    def step(name, fn):
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        out = fn()
        now, peak = tracemalloc.get_traced_memory()
        steps[name] = {"peak_mb": (peak - before) / 2**20, "kept_mb": (now - before) / 2**20}
        return out
    doc = step("parse", lambda: parse(html, max_nodes=0))
    step("collapsed_dom", doc.collapsed_dom)
    step("leaf_blocks", doc.leaf_blocks)
    bx, ex, _ = step("features", lambda: page_feature_rows(doc))
    step("networks", lambda: load_model().potentials(bx, ex))
    del doc, bx, ex
    tracemalloc.stop()
else:
    result = extract(html, method, max_nodes=0)
    steps["blocks"] = len(result.blocks)
    steps["reason"] = result.reason
peak = kib()
print(json.dumps({"bytes": nbytes, "growth_kib": peak - base, "base_kib": base, **steps}))
"""


def run_case(case: str, size: int, method: str, profile: bool, depth: int) -> dict:
    """One case in a fresh interpreter: its JSON report."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, case, str(size), method, "1" if profile else "0", str(depth)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode:
        raise SystemExit(f"{case} {size}: child failed\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, nargs="+", default=[4.0, 20.0, 40.0])
    ap.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES[:3]))
    ap.add_argument("--method", default="web2text")
    ap.add_argument("--bound", type=float, default=15.0)
    ap.add_argument("--depth", type=int, default=100, help="nesting of the deep cases")
    ap.add_argument("--profile", action="store_true", help="tracemalloc peak per step")
    args = ap.parse_args(argv)
    print("| case | page MB | blocks | peak growth MB | x page |")
    print("|---|---:|---:|---:|---:|")
    worst = 0.0
    for case in args.cases:
        for mb in args.mb:
            r = run_case(case, int(mb * 2**20), args.method, False, args.depth)
            ratio = r["growth_kib"] * 1024 / r["bytes"]
            worst = max(worst, ratio)
            print(
                f"| {case} | {r['bytes'] / 2**20:.1f} | {r['blocks']} "
                f"| {r['growth_kib'] / 1024:.0f} | {ratio:.1f} |"
            )
            if args.profile:
                p = run_case(case, int(mb * 2**20), args.method, True, args.depth)
                for name in ("parse", "collapsed_dom", "leaf_blocks", "features", "networks"):
                    s = p[name]
                    print(
                        f"|   {name} | | | peak {s['peak_mb']:.0f}, kept {s['kept_mb']:.0f} "
                        f"| {s['peak_mb'] * 2**20 / p['bytes']:.1f} |"
                    )
    print(f"\nworst: {worst:.1f} x the page (bound {args.bound:g})")
    return 1 if worst > args.bound else 0


if __name__ == "__main__":
    sys.exit(main())
