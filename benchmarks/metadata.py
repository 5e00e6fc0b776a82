"""Page metadata against gold, next to trafilatura's, on the same pages in the same run.

wcxb-dev's ``.json`` files hold human gold ``title``, ``author`` and ``publish_date`` for
many pages; readability-testpages' ``.meta.json`` hold what Readability.js reports (title,
byline, site name, published time: Readability's output, not human gold, so it is agreement
with Readability that is measured there). Values are compared exactly after normalisation:
Unicode NFKC, case, punctuation and whitespace out; for authors also the words "and" and
"by" (a list of names joined, against one string of names); dates compared as days.

Two accuracies per field: over every page (a page without a gold value is right when no
value is given) and over the pages that have a gold value.

Speed: the time of the metadata alone (ours: the main content's images and
``core.metadata.page_metadata``, language detection included, on the parsed page and its
extraction: what ``extract(..., metadata=True)`` adds; trafilatura:
``trafilatura.metadata.extract_metadata`` on its own parsed tree), each as a multiple of
lxml's parse of the same page, medians over the pages.

    python benchmarks/metadata.py [--data datasets] [--split web2text_eval] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.etree as etree

from harness.datasets import UNPACK_HINT, load
from harness.output import add_out, write_reports
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.core.extract import extract
from scrapy_boilerplate.core.metadata import page_metadata
from scrapy_boilerplate.core.render import content_images

FIELDS = ("title", "author", "date", "site_name")
_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def normalise(value: Any, field: str) -> str:
    """The form two values are compared in (empty for no value)."""
    if value in (None, "", []):
        return ""
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    text = str(value)
    if field == "date":
        match = _DAY.match(text)
        return match.group(0) if match else ""
    text = unicodedata.normalize("NFKC", text).lower()
    words = re.sub(r"[^\w\s]", " ", text).split()
    if field == "author":
        words = [w for w in words if w not in ("and", "by")]
    return " ".join(words)


def gold_wcxb(folder: Path, page_id: str) -> dict[str, Any]:
    gold = json.loads((folder / f"{page_id}.json").read_text(encoding="utf-8"))["ground_truth"]
    return {"title": gold.get("title"), "author": gold.get("author"),
            "date": gold.get("publish_date")}  # fmt: skip


def gold_readability(folder: Path, page_id: str) -> dict[str, Any]:
    path = folder / f"{page_id}.meta.json"
    if not path.exists():
        return {}
    meta = json.loads(path.read_text(encoding="utf-8"))
    return {"title": meta.get("title"), "author": meta.get("byline"),
            "date": meta.get("publishedTime"), "site_name": meta.get("siteName")}  # fmt: skip


GOLD: dict[str, tuple[str, Callable[[Path, str], dict[str, Any]]]] = {
    "wcxb-dev": ("web2text_eval", gold_wcxb),
    "readability-testpages": ("all", gold_readability),
}


def ours(html: str, url: str | None) -> tuple[dict[str, Any], float]:
    doc = parse(html, url=url)
    result = extract(doc, "auto")
    start = time.perf_counter()
    images = [i["url"] for i in content_images(doc, result)] if result.reason is None else []
    meta = page_metadata(doc, result, images=images)  # language detection included
    spent = time.perf_counter() - start
    return {"title": meta["title"], "author": meta["authors"],
            "date": meta["date_published"], "site_name": meta["site_name"]}, spent  # fmt: skip


def trafilatura_peer() -> Callable[[str, str | None], tuple[dict[str, Any], float]] | None:
    try:
        import lxml.html
        from trafilatura import bare_extraction
        from trafilatura.metadata import extract_metadata
    except ImportError:
        return None

    def run(html: str, url: str | None) -> tuple[dict[str, Any], float]:
        doc = bare_extraction(html, url=url, with_metadata=True)
        found = doc.as_dict() if hasattr(doc, "as_dict") else (doc or {})
        tree = lxml.html.fromstring(html)
        start = time.perf_counter()
        extract_metadata(tree, default_url=url)
        spent = time.perf_counter() - start
        return {"title": found.get("title"), "author": found.get("author"),
                "date": found.get("date"), "site_name": found.get("sitename")}, spent  # fmt: skip

    return run


def parse_time(html: str) -> float:
    data = html.encode("utf-8", "surrogatepass")
    start = time.perf_counter()
    etree.fromstring(data, etree.HTMLParser(encoding="utf-8"))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--split", default=None, help="wcxb-dev's split (web2text_eval)")
    parser.add_argument("--limit", type=int, default=0, help="pages per set (0: all)")
    add_out(parser, "metadata.md")
    args = parser.parse_args(argv)
    peers: dict[str, Callable[[str, str | None], tuple[dict[str, Any], float]]] = {"ours": ours}
    traf = trafilatura_peer()
    if traf is None:
        print("trafilatura is not installed: ours only", file=sys.stderr)
    else:
        peers["trafilatura"] = traf
    lines = [
        "# Page metadata: exact match after normalisation, next to trafilatura",
        "",
        "`python benchmarks/metadata.py --out benchmarks/results`; both in the same run on the "
        "same pages. All pages: a page without a gold value is right when none is given. "
        "With gold: the pages that have a gold value. Speed: the metadata step alone, median "
        "of its time over lxml's parse of the same page.",
        "",
    ]
    found_any = False
    for name, (split, gold_of) in GOLD.items():
        folder = args.data / name
        if not folder.is_dir():
            print(f"{name}: not under {args.data} ({UNPACK_HINT}); skipped", file=sys.stderr)
            continue
        found_any = True
        chosen = args.split if (args.split and name == "wcxb-dev") else split
        right = {p: {f: [0, 0, 0, 0] for f in FIELDS} for p in peers}
        ratios: dict[str, list[float]] = {p: [] for p in peers}
        pages = 0
        for page in load(name, args.data, split=chosen, with_blocks=False):
            gold = gold_of(folder, page.id)
            if not gold:
                continue
            pages += 1
            lxml_time = parse_time(page.html)
            for peer, run in peers.items():
                values, spent = run(page.html, page.url)
                ratios[peer].append(spent / lxml_time if lxml_time else 0.0)
                for field in FIELDS:
                    if field not in gold:
                        continue
                    g, v = normalise(gold[field], field), normalise(values[field], field)
                    counts = right[peer][field]
                    counts[0] += 1
                    counts[1] += g == v
                    if g:
                        counts[2] += 1
                        counts[3] += g == v
            if args.limit and pages >= args.limit:
                break
        lines += [f"## {name} ({chosen}, {pages} pages)", ""]
        header = "| field | " + " | ".join(f"{p} (all) | {p} (with gold)" for p in peers)
        lines += [header + " |", "| --- |" + " ---: |" * (2 * len(peers))]
        for field in FIELDS:
            cells = []
            for peer in peers:
                total, ok, with_gold, ok_gold = right[peer][field]
                if not total:
                    cells = []
                    break
                cells += [f"{ok / total:.3f}", f"{ok_gold / with_gold:.3f} ({with_gold})"
                          if with_gold else "–"]  # fmt: skip
            if cells:
                lines.append(f"| {field} | " + " | ".join(cells) + " |")
        speed = ", ".join(f"{peer} {statistics.median(r):.2f}x" for peer, r in ratios.items() if r)
        lines += ["", f"Metadata time over lxml's parse (median): {speed}.", ""]
    if not found_any:
        print(f"no metadata gold under {args.data} ({UNPACK_HINT})", file=sys.stderr)
        return 2
    report = "\n".join(lines) + "\n"
    print(report)
    write_reports(args.out, {"metadata.md": report})
    return 0


if __name__ == "__main__":
    sys.exit(main())
