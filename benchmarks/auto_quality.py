"""How well ``auto``'s ``quality`` predicts the text F1 of its result, on held-out pages.

For every page of the evaluation splits of the sets with full gold text (none of which the
shipped model trained on: wcxb-dev ``web2text_eval``, google-trends-2017 ``test``,
cleaneval ``web2text_test``, l3s-gn1, readability-testpages), ``auto``'s predicted quality
is set against the page's observed text F1 (word 4-grams, as in ``run.py``). Per tenth of
the prediction, the report gives the pages, the mean predicted and the mean observed F1:
a reliability diagram as a table. It also gives what dropping the pages below a bound would
keep, the use ``quality`` is for.

    python benchmarks/auto_quality.py [--data datasets] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.datasets import UNPACK_HINT, load
from harness.metrics import harmonic, text_counts
from harness.output import add_out, write_reports
from scrapy_boilerplate import extract

SETS = (
    ("wcxb-dev", "web2text_eval"),
    ("google-trends-2017", "test"),
    ("cleaneval", "web2text_test"),
    ("l3s-gn1", "all"),
    ("readability-testpages", "all"),
)
BOUNDS = (0.3, 0.5, 0.7)


def page_f1(gold: str, predicted: str) -> float | None:
    counts = text_counts(gold, predicted)
    if counts.precision is None and counts.recall is None:
        return None
    return harmonic(counts.precision or 0.0, counts.recall or 0.0) or 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    add_out(parser, "auto_quality.md")
    args = parser.parse_args(argv)
    rows: list[tuple[str, float, float]] = []
    for name, split in SETS:
        if not (args.data / name).is_dir():
            print(f"{name}: not under {args.data} ({UNPACK_HINT}); skipped", file=sys.stderr)
            continue
        for page in load(name, args.data, split=split):
            if not (page.gold_text or "").strip():
                continue
            result = extract(page.html, "auto", url=page.url)
            if result.quality is None:
                continue
            f1 = page_f1(page.gold_text or "", result.main_text)
            if f1 is not None:
                rows.append((name, result.quality, f1))
    lines = [
        "# `auto`: predicted quality against observed text F1 (held-out pages)",
        "",
        f"{len(rows)} pages of the evaluation splits ({', '.join(f'{n} {s}' for n, s in SETS)}); "
        "observed: the page's text F1 (word 4-grams). `python benchmarks/auto_quality.py`.",
        "",
        "| predicted | pages | mean predicted | mean observed |",
        "| --- | ---: | ---: | ---: |",
    ]
    for b in range(10):
        lo, hi = b / 10, (b + 1) / 10
        chosen = [(q, f) for _, q, f in rows if lo <= q < hi or (b == 9 and q == 1.0)]
        if chosen:
            mean_q = sum(q for q, _ in chosen) / len(chosen)
            mean_f = sum(f for _, f in chosen) / len(chosen)
            lines.append(f"| {lo:.1f}-{hi:.1f} | {len(chosen)} | {mean_q:.3f} | {mean_f:.3f} |")
    if rows:
        mae = sum(abs(q - f) for _, q, f in rows) / len(rows)
        lines += ["", f"Mean absolute error: {mae:.3f}.", ""]
        lines += [
            "| dropping pages with quality below | pages kept | mean F1 kept | mean F1 dropped |",
            "| ---: | ---: | ---: | ---: |",
        ]
        for bound in BOUNDS:
            kept = [f for _, q, f in rows if q >= bound]
            dropped = [f for _, q, f in rows if q < bound]
            kept_f = f"{sum(kept) / len(kept):.3f}" if kept else "–"
            dropped_f = f"{sum(dropped) / len(dropped):.3f}" if dropped else "–"
            lines.append(f"| {bound:.1f} | {len(kept)} of {len(rows)} | {kept_f} | {dropped_f} |")
    report = "\n".join(lines) + "\n"
    print(report)
    write_reports(args.out, {"auto_quality.md": report})
    return 0


if __name__ == "__main__":
    sys.exit(main())
