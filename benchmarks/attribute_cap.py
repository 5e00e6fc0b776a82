#!/usr/bin/env python
"""Parse time of tags with many attributes: what sizes ``core.document.MAX_ATTRIBUTES``.

    python benchmarks/attribute_cap.py [--size 33554432] [--ks 64 128 256 512 1024 8000]

libxml2 compares each attribute of a tag with the earlier ones, so a tag of ``K``
attributes costs about ``K**2`` and a page of ``size`` bytes filled with such tags about
``size * K``: for each ``K``, a page of ``size`` bytes of ``<div>`` tags with ``K``
attributes each (``a0='0' a1='1' ...``, and the same without values) is parsed once by
the parser :func:`scrapy_boilerplate.core.document.parse` uses (one call into lxml, which
nothing can interrupt), and reported in seconds and as a multiple of the parse of an
ordinary page of the same size. No dataset is needed.
"""

from __future__ import annotations

import argparse
import time

from lxml import etree

ARTICLE = "<div class='post'><h2>Heading</h2>" + "<p>Some words of an article.</p>" * 20 + "</div>"


def _parse_seconds(data: bytes) -> float:
    parser = etree.HTMLParser(encoding="utf-8", huge_tree=True, collect_ids=False)
    start = time.perf_counter()
    etree.fromstring(data, parser)
    return time.perf_counter() - start


def flood(size: int, k: int, values: bool = True) -> bytes:
    """``size`` bytes (about) of ``<div>`` tags with ``k`` attributes each."""
    attrs = " ".join(f"a{i}='{i}'" if values else f"a{i}" for i in range(k))
    tag = f"<div {attrs}>x</div>\n"
    return ("<html><body>" + tag * max(1, size // len(tag)) + "</body></html>").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=32 * 1024 * 1024, help="page bytes")
    parser.add_argument("--ks", type=int, nargs="+", default=[64, 128, 256, 512, 1024, 8000])
    args = parser.parse_args()
    normal = ("<html><body>" + ARTICLE * (args.size // len(ARTICLE)) + "</body></html>").encode()
    base = _parse_seconds(normal)
    print(f"ordinary page of {len(normal) / 2**20:.0f} MiB: {base:.2f} s")
    print("| attributes per tag | tags | with values (s, x ordinary) | no values (s, x ordinary) |")
    print("|---|---|---|---|")
    for k in args.ks:
        cells = []
        for values in (True, False):
            data = flood(args.size, k, values)
            seconds = _parse_seconds(data)
            cells.append(f"{seconds:.2f} s, {seconds / base:.1f}x")
        tags = data.count(b"<div")
        print(f"| {k} | {tags} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
