"""Where ``auto`` gains or loses against a peer, by the page type it takes each page for.

A set's score says how far an extractor is from the gold, but not why. ``auto`` decides a
page by the type it takes the page for (the type's threshold, and on articles the aside
and named-body rules), so this script splits the score by that type, beside a peer
(``--peer``, trafilatura by default) on the same pages in the same run: on a set scored by
snippets (trafilatura-eval: a few sentences a page that the main text must hold, and a
few of boilerplate that it must not) the snippets kept and missed, on a set with gold
text the text F1 of word 4-grams. It scores two decisions that a type alone changes too:

* **the article threshold on every type**: each page decided with the article type's
  threshold (the ``threshold`` parameter), its type and the block probabilities unchanged;
* **every page taken for an article**: the ``page_type`` parameter set to ``article``, so
  that the block trees read the article type too, as a user who crawls only news or blogs
  may set it.

Where the loss lies on the pages taken for articles, the block trees are what misses;
where it lies on the other types and the second variant closes it, the page type is.

    python benchmarks/auto_pagetypes.py [--data datasets] [--set trafilatura-eval]
        [--peer trafilatura] [--sites 3 --part 0] [--out benchmarks/results]

``--sites N --part K`` keeps the pages of the sites whose CRC-32 (of the URL's host,
``www.`` dropped) is K modulo N: a fixed part of the set by site. Needs the datasets
unpacked (``../shared/data/unpack datasets``) and the peer (the ``bench`` extra); says so
when either is missing. The report goes to ``auto_pagetypes-<set>.md``.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from collections import defaultdict
from pathlib import Path

from harness.datasets import DATASETS, Page, load, missing_message
from harness.metrics import (
    Confusion,
    TextCounts,
    confusion_scores,
    snippet_counts,
    text_counts,
    text_scores,
)
from harness.output import add_out, write_reports
from harness.peers import resolve
from scrapy_boilerplate.auto.train import url_host

#: ``auto``'s columns of the report: as shipped, and its two variants (the peer follows).
OURS = ("auto", "article threshold", "taken for articles")

#: One page's score in one column: snippet counts, or text counts where the set has gold.
Score = Confusion | TextCounts


def site(page: Page) -> str:
    """The host of the page's URL without ``www.``, as ``auto``'s training groups pages
    (the page's id where it has no URL)."""
    return url_host(page.url) or page.id


def in_part(page: Page, sites: int, part: int) -> bool:
    """Whether the page's site is in part ``part`` of ``sites`` (CRC-32 of the site)."""
    return sites <= 1 or zlib.crc32(site(page).encode("utf-8")) % sites == part


def _score(page: Page, text: str | None) -> Score:
    if page.gold_text is not None:
        return text_counts(page.gold_text, text)
    return snippet_counts(page.with_snippets or (), page.without_snippets or (), text)


def measure(pages: list[Page], peer: str) -> list[tuple[str, dict[str, Score]]]:
    """Each page's type as ``auto`` takes it, and its score in every column (``OURS``,
    then ``peer``)."""
    import scrapy_boilerplate as sb
    from scrapy_boilerplate.auto.model import load_model

    article_threshold = float(load_model().thresholds["article"])
    found, problems = resolve([peer])
    if problems or not found:
        raise SystemExit("; ".join(problems) or f"{peer}: unknown peer")
    other = found[0]
    out = []
    for page in pages:
        doc = sb.parse(page.html, url=page.url)
        shipped = sb.extract(doc, extractor="auto")
        kind = shipped.page_type or "other"
        texts: dict[str, str | None] = {"auto": shipped.main_text}
        if kind == "article":  # (both variants decide an article as it is decided)
            texts["article threshold"] = texts["taken for articles"] = shipped.main_text
        else:
            texts["article threshold"] = sb.extract(
                doc, extractor="auto", threshold=article_threshold
            ).main_text
            texts["taken for articles"] = sb.extract(
                doc, extractor="auto", page_type="article"
            ).main_text
        texts[peer] = other.run(page.html, url=page.url).text
        out.append((kind, {column: _score(page, text) for column, text in texts.items()}))
    return out


def _cell(scores: list[Score]) -> str:
    if scores and isinstance(scores[0], TextCounts):
        f1 = text_scores([s for s in scores if isinstance(s, TextCounts)]).f1
        return "-" if f1 is None else f"{f1:.3f}"
    total = sum((s for s in scores if isinstance(s, Confusion)), Confusion())
    return f"{total.fp} / {total.fn}"


def report(
    name: str, peer: str, rows: list[tuple[str, dict[str, Score]]], sites: int, part: int
) -> str:
    """The Markdown report."""
    columns = (*OURS, peer)
    snippets = bool(rows) and isinstance(rows[0][1]["auto"], Confusion)
    chosen = f"the sites whose CRC-32 is {part} modulo {sites}" if sites > 1 else "every page"
    what = (
        "boilerplate snippets kept / main-text snippets missed, summed over the type's pages"
        if snippets
        else "text F1 of word 4-grams over the type's pages"
    )
    lines = [
        f"# `auto` on {name}, by the page type it takes each page for",
        "",
        f"`python benchmarks/auto_pagetypes.py --set {name} --peer {peer}"
        + (f" --sites {sites} --part {part}" if sites > 1 else "")
        + f"`: {chosen} ({len(rows)} pages). Each cell: {what}. `article threshold`: each "
        "page decided with the article type's threshold, its type and block probabilities "
        "unchanged; `taken for articles`: the `page_type` parameter set to `article`; "
        f"{peer} with its defaults, on the same pages in the same run.",
        "",
        "| type (auto's) | pages | " + " | ".join(columns) + " |",
        "| --- | ---: |" + " ---: |" * len(columns),
    ]
    by_kind: dict[str, list[dict[str, Score]]] = defaultdict(list)
    for kind, scores in rows:
        by_kind[kind].append(scores)
    kinds = sorted(by_kind, key=lambda k: (-len(by_kind[k]), k))
    for kind in [*kinds, "all"]:
        group = [s for _, s in rows] if kind == "all" else by_kind[kind]
        cells = [_cell([s[c] for s in group]) for c in columns]
        label = "**all**" if kind == "all" else kind
        lines.append(f"| {label} | {len(group)} | " + " | ".join(cells) + " |")
    if snippets:
        totals = [
            sum((s[c] for _, s in rows if isinstance(s[c], Confusion)), Confusion())
            for c in columns
        ]
        # (run.py's snippet F1: a 0/0 score is 0, as trafilatura counts it)
        f1s = " | ".join(f"{confusion_scores(t, empty=0.0).f1:.4f}" for t in totals)
        lines.append(f"| snippet F1 | | {f1s} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("datasets"))
    ap.add_argument("--set", default="trafilatura-eval", choices=sorted(DATASETS))
    ap.add_argument("--peer", default="trafilatura", help="the peer beside auto")
    ap.add_argument("--sites", type=int, default=1, help="parts of the set by site (1: all)")
    ap.add_argument("--part", type=int, default=0, help="the part kept (0 to SITES - 1)")
    add_out(ap, "auto_pagetypes-<set>.md")
    args = ap.parse_args(argv)
    if not (args.data / args.set).is_dir():
        print(missing_message(args.set, args.data), file=sys.stderr)
        return 2
    pages = [
        p
        for p in load(args.set, args.data, with_blocks=False)
        if (p.gold_text is not None or p.with_snippets is not None)
        and in_part(p, args.sites, args.part)
    ]
    if not pages:
        print(f"{args.set}: no page with gold in this part", file=sys.stderr)
        return 2
    rows = measure(pages, args.peer)
    text = report(args.set, args.peer, rows, args.sites, args.part)
    print(text)
    write_reports(args.out, {f"auto_pagetypes-{args.set}.md": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
