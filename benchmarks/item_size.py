#!/usr/bin/env python
"""Bytes per item of each ``BOILERPLATE_BLOCKS`` mode, on real pages.

    python benchmarks/item_size.py [--data datasets] [--limit N] [--out benchmarks/results]

Every page of wcxb-dev (``DATA/wcxb-dev/*.html``) is extracted with the default method
and settings (``BOILERPLATE_EXTRACTOR``, ``BOILERPLATE_PARAMS``), and for each mode
(``content``, ``all``, ``none``) :class:`~scrapy_boilerplate.scrapy.items.ItemWriter`
writes the default fields (``BOILERPLATE_FIELDS``) into an item ``{"url": ...}``, which
is serialised as one line of a JSON-lines feed by Scrapy's own ``JsonLinesItemExporter``
(UTF-8, ``FEED_EXPORT_ENCODING = "utf-8"`` as ``scrapy startproject`` sets it). The
median and 90th percentile of the line's bytes, per mode; also how much of an ``all``
item is its blocks. Scrapy's DEBUG "Scraped from" log line prints the same item again.

Prints the Markdown report; writes it to ``OUT/item_size.md`` only with ``--out``.
Exit 2 when the dataset is missing.
"""

from __future__ import annotations

import argparse
import io
import math
import statistics
import sys
from pathlib import Path

from scrapy.exporters import JsonLinesItemExporter
from scrapy.settings import Settings

from harness.datasets import UNPACK_HINT
from harness.output import add_out, write_reports
from scrapy_boilerplate import extract
from scrapy_boilerplate.scrapy.config import BLOCKS_MODES, Config
from scrapy_boilerplate.scrapy.items import ItemWriter

DATASET = "wcxb-dev"


def line_bytes(item: dict) -> int:
    """The bytes of ``item`` as one line of a UTF-8 JSON-lines feed."""
    buffer = io.BytesIO()
    exporter = JsonLinesItemExporter(buffer, encoding="utf-8")
    exporter.export_item(item)
    return len(buffer.getvalue())


def percentile(values: list[int], q: float) -> int:
    """The nearest-rank ``q`` percentile (0 < q <= 100) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def measure(pages: list[Path]) -> dict[str, list[int]]:
    """Each mode's item bytes, page by page (one extraction per page for all modes)."""
    writers = {
        mode: ItemWriter(Config.from_settings(Settings({"BOILERPLATE_BLOCKS": mode})))
        for mode in BLOCKS_MODES
    }
    defaults = Config.from_settings(Settings())
    sizes: dict[str, list[int]] = {mode: [] for mode in writers}
    for n, path in enumerate(pages, 1):
        result = extract(path.read_bytes(), defaults.extractor, **defaults.params)
        url = f"https://example.com/{DATASET}/{path.name}"
        for mode, writer in writers.items():
            item = {"url": url}
            writer.write(item, result)
            sizes[mode].append(line_bytes(item))
        if n % 200 == 0:
            print(f"  {n} pages", file=sys.stderr, flush=True)
    return sizes


def render(sizes: dict[str, list[int]], pages: int, extractor: str, args: str) -> str:
    """The Markdown report."""
    full = sum(sizes["all"])
    lines = [
        "# Item size per `BOILERPLATE_BLOCKS` mode",
        "",
        f"`python benchmarks/item_size.py{args}`: {pages} {DATASET} pages, extractor "
        f"`{extractor}` with its default parameters, the default `BOILERPLATE_FIELDS` plus "
        "`url`; bytes of one JSON-lines item (Scrapy's `JsonLinesItemExporter`, UTF-8).",
        "",
        "| mode | median bytes | 90th percentile bytes | mean bytes | feed vs `all` |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for mode in BLOCKS_MODES:
        values = sizes[mode]
        lines.append(
            f"| `{mode}` | {statistics.median(values):,.0f} | {percentile(values, 90):,} | "
            f"{statistics.fmean(values):,.0f} | {100 * sum(values) / full:.1f} % |"
        )
    blocks_share = 100 * (full - sum(sizes["none"])) / full
    lines += [
        "",
        f"With `all`, the blocks are {blocks_share:.1f} % of the feed's bytes. Scrapy's DEBUG "
        "'Scraped from' log line prints each item once more.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure and report; 2 when the dataset is missing."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="first N pages")
    add_out(parser, "item_size.md")
    args = parser.parse_args(argv)
    pages = sorted((args.data / DATASET).glob("*.html"))[: args.limit]
    if not pages:
        print(
            f"no pages: {args.data / DATASET}/*.html not found; unpack the dataset from the "
            f"project root with `{UNPACK_HINT} {DATASET}`, or point --data at the folder "
            f"holding {DATASET}/",
            file=sys.stderr,
        )
        return 2
    extractor = Config.from_settings(Settings()).extractor
    shown = f" --limit {args.limit}" if args.limit else ""
    text = render(measure(pages), len(pages), extractor, shown)
    print(text)
    write_reports(args.out, {"item_size.md": text})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
