#!/usr/bin/env python
"""Cost of ``core.document.check_markup`` (the scans before parsing) against the parse.

    python benchmarks/markup_scan.py --data datasets [--dataset wcxb-dev] [--pages 400]
    python benchmarks/markup_scan.py --data datasets --survey

Timing: for the first ``--pages`` pages of ``--dataset``, the page is decoded and encoded as
:func:`scrapy_boilerplate.core.document.parse` does, then ``check_markup`` and the parse
(lxml's HTML parser, as ``parse`` calls it) are each timed, best of three; the totals and
their ratio are printed, for the compiled scan and for its Python reference.

``--survey``: every ``.html`` page under ``--data`` (every dataset, subfolders included)
is scanned, and the pages with the most attributes on one tag are listed, with the count:
what a real page needs of ``core.document.MAX_ATTRIBUTES``.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path

from lxml import etree

from scrapy_boilerplate.core import compiled, document


def _best(fn, *args) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def _page_bytes(path: Path) -> bytes:
    _, text = document._decode(path.read_bytes(), None)
    return document._utf8(text)


def _parse(data: bytes) -> None:
    parser = etree.HTMLParser(encoding="utf-8", huge_tree=True, collect_ids=False)
    etree.fromstring(data, parser)


def _check(data: bytes) -> None:
    with contextlib.suppress(document.UnsupportedInput):
        document.check_markup(data, 0)


def timing(data_dir: Path, dataset: str, pages: int) -> None:
    paths = sorted((data_dir / dataset).glob("*.html"))[:pages]
    datas = [_page_bytes(p) for p in paths]
    parse = sum(_best(_parse, d) for d in datas)
    print(f"{len(datas)} pages of {dataset}, {sum(map(len, datas)) / 2**20:.1f} MiB")
    print(f"parse (lxml): {parse:.3f} s")
    for label, enabled in (("compiled", True), ("python", False)):
        before = compiled.ENABLED
        compiled.ENABLED = enabled
        try:
            scan = sum(_best(_check, d) for d in datas)
        finally:
            compiled.ENABLED = before
        print(f"check_markup ({label}): {scan:.4f} s, {100 * scan / parse:.1f} % of the parse")


def _most_attributes(data: bytes) -> int:
    """The most attributes on one tag (``_attributes_over`` gives 0 from that limit on)."""
    low, high = 0, len(data)
    while low < high:
        mid = (low + high) // 2
        if document._attributes_over(data, mid):
            low = mid + 1
        else:
            high = mid
    return low


def survey(data_dir: Path) -> None:
    found = []
    for path in sorted(data_dir.rglob("*.html")):
        if not path.is_file():
            continue
        try:
            data = _page_bytes(path)
        except Exception:  # a page that does not decode is no HTML page here
            continue
        found.append((_most_attributes(data), str(path.relative_to(data_dir))))
    found.sort(reverse=True)
    print(f"{len(found)} pages; the most attributes on one tag:")
    for count, name in found[:10]:
        print(f"{count:6d}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--dataset", default="wcxb-dev")
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--survey", action="store_true")
    args = parser.parse_args()
    if args.survey:
        survey(args.data)
    else:
        timing(args.data, args.dataset, args.pages)


if __name__ == "__main__":
    main()
