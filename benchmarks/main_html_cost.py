#!/usr/bin/env python
"""What ``Extraction.main_html`` costs per page, as a multiple of lxml's parse of the page.

    python benchmarks/main_html_cost.py [--data datasets] [--split dev] [--limit 200]
        [--repeat 3] [--methods auto,justext]

Per wcxb-dev page: the page is parsed and extracted once per method; then lxml's parse
alone (``etree.fromstring`` of the page's UTF-8 bytes with the parser ``parse`` uses) and
``core.render.main_html(doc, result)`` on that extraction are each timed, the fastest of
``--repeat`` runs. Printed per method: the medians over pages of both times (ms), and the
median and 90th percentile of the per-page ratio main_html / parse. Single-threaded.
Exit 2 when the dataset is missing.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

from lxml import etree

from harness.datasets import load, missing_message
from harness.output import add_out, write_reports
from scrapy_boilerplate import extract
from scrapy_boilerplate.core import document, render
from scrapy_boilerplate.core.document import parse


def best_of(repeat: int, call: object) -> float:
    """The fastest of ``repeat`` runs of ``call()`` (seconds)."""
    assert callable(call)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t0)
    return best


def measure(pages: list[tuple[str, str | None]], method: str, repeat: int) -> dict[str, float]:
    parser = document._parser()
    parse_ms, html_ms, ratios = [], [], []
    for html, url in pages:
        data = html.encode("utf-8")
        doc = parse(html, url=url)
        result = extract(doc, method)
        t_parse = best_of(repeat, lambda data=data: etree.fromstring(data, parser))
        t_html = best_of(repeat, lambda doc=doc, result=result: render.main_html(doc, result))
        parse_ms.append(t_parse * 1000)
        html_ms.append(t_html * 1000)
        ratios.append(t_html / t_parse)
    ratios.sort()
    return {
        "parse_ms": statistics.median(parse_ms),
        "main_html_ms": statistics.median(html_ms),
        "ratio": statistics.median(ratios),
        "ratio_p90": ratios[min(len(ratios) - 1, int(0.9 * len(ratios)))],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--split", default="dev")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--methods", default="auto,justext")
    add_out(parser, "main_html_cost.md")
    args = parser.parse_args(argv)
    if not (args.data / "wcxb-dev").is_dir():
        print(missing_message("wcxb-dev", args.data).replace("; skipping it", ""), file=sys.stderr)
        return 2
    pages = [(p.html, p.url) for p in load("wcxb-dev", args.data, args.split, args.limit, False)]
    if not pages:
        print(f"no wcxb-dev pages in split {args.split!r} under {args.data}", file=sys.stderr)
        return 2
    lines = [
        f"# main_html per page vs lxml's parse: wcxb-dev {args.split}, {len(pages)} pages, "
        f"fastest of {args.repeat} runs each; Python {platform.python_version()}, "
        f"{platform.machine()}, single thread",
        "",
        "| method | lxml parse, median ms | main_html, median ms | ratio, median | ratio, p90 |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for method in args.methods.split(","):
        r = measure(pages, method, args.repeat)
        lines.append(
            f"| {method} | {r['parse_ms']:.2f} | {r['main_html_ms']:.2f} | "
            f"{r['ratio']:.2f}x | {r['ratio_p90']:.2f}x |"
        )
    lines += [
        "",
        "Command: `python benchmarks/main_html_cost.py --data datasets --out benchmarks/results` "
        "from the project root. The ratio is page by page, in the same run; absolute times "
        "move with the machine's load.",
    ]
    report = "\n".join(lines) + "\n"
    print(report)
    write_reports(args.out, {"main_html_cost.md": report})
    return 0


if __name__ == "__main__":
    sys.exit(main())
