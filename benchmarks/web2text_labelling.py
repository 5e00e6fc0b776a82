"""Web2Text automatic block labelling (paper 4.1) against Web2Text's own CleanEval alignment.

    python benchmarks/web2text_labelling.py [--data datasets] [--split all|web2text_train|
        web2text_test] [--limit N] [--show ID ...] [--out DIR]

For each CleanEval page, over the DOM leaves of ``parse(html).leaf_blocks()``:

- ours: ``label_page(html, gold_txt)``, the paper's procedure (unique 10-character anchors,
  divide and conquer, DP on what is left, content iff >= 2/3 aligned) run on the leaf texts;
- reference: ``labels_from_aligned(html, aligned_txt)``, the labels that Web2Text's own
  character alignment of the gold onto the page source (``<id>.aligned.txt``) gives the same
  leaves (rule in that function's docstring).

Reported: pages, blocks, the share of blocks whose labels agree (target >= 95 % over all 737
pages), the agreement weighted by non-space characters, the per-page median agreement, the
confusion counts, the time per page of ``label_page`` (parsing included) and of the reference,
and the 10 pages with the lowest agreement. ``--show ID`` prints the disagreeing blocks of
those pages. The summary is printed, and with ``--out DIR`` written to
``DIR/web2text_labelling.md``.
Files are decoded as UTF-8 with bad bytes replaced. A page that ``parse`` refuses (both sides
use it) is counted as an error and left out. Exit status 2 when ``datasets/cleaneval`` is
missing.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.datasets import read_text
from harness.output import add_out, write_reports
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.extractors.web2text.labelling import label_page, labels_from_aligned

TARGET = 0.95
SPLITS = ("all", "web2text_train", "web2text_test")
# Web2Text's CleanEval.normalizeCleanFile: drops the <p>/<h>/<l> markers, separator lines and
# the list markers (», *, "12. ") that follow <l>.
_WEB2TEXT_CLEAN = re.compile(
    r"^\s*<l>\s*(?:»|\*|\d{1,2}\.\s)\s*|<(?:l|h|p)>\s*|^\s*(?:_{10,}|-{10,})\s*$|^\s*",
    re.I | re.M,
)


def web2text_gold(cleaneval_txt: str) -> str:
    """The gold text exactly as Web2Text aligned it: ``<id>.cleaneval.txt`` without its
    ``URL:`` line, normalised by Web2Text's ``normalizeCleanFile``."""
    if cleaneval_txt.startswith("URL:"):
        cleaneval_txt = cleaneval_txt.split("\n", 1)[1] if "\n" in cleaneval_txt else ""
    return _WEB2TEXT_CLEAN.sub("", cleaneval_txt).strip()


@dataclass
class PageResult:
    """Agreement of one page."""

    pid: str
    blocks: int
    agree: int
    chars: int
    chars_agree: int
    ours_only: int  # content for us, boilerplate for the reference
    ref_only: int  # boilerplate for us, content for the reference
    both: int  # content for both
    ours_s: float
    ref_s: float

    @property
    def share(self) -> float:
        return self.agree / self.blocks if self.blocks else 1.0


@dataclass
class Totals:
    """Sums over the pages."""

    pages: list[PageResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def total(self, attr: str) -> int:
        return sum(getattr(p, attr) for p in self.pages)


def page_ids(folder: Path, split: str) -> list[str]:
    """Page ids in ``index.jsonl`` order, restricted to ``split`` unless it is ``all``."""
    ids = []
    with (folder / "index.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                ids.append(str(json.loads(line)["id"]))
    if split != "all":
        members = set(json.loads((folder / "splits.json").read_text(encoding="utf-8"))[split])
        ids = [i for i in ids if i in members]
    return ids


def run_page(folder: Path, pid: str, gold_kind: str = "txt", show: bool = False) -> PageResult:
    """Label one page both ways and count agreements; print disagreements when ``show``."""
    html = read_text(folder / f"{pid}.html")
    if gold_kind == "web2text":
        gold = web2text_gold(read_text(folder / f"{pid}.cleaneval.txt"))
    else:
        gold = read_text(folder / f"{pid}.txt")
    aligned = read_text(folder / f"{pid}.aligned.txt")
    t0 = time.perf_counter()
    blocks, ours = label_page(html, gold)
    t1 = time.perf_counter()
    ref = labels_from_aligned(html, aligned)
    t2 = time.perf_counter()
    assert len(ref) == len(ours), (pid, len(ref), len(ours))
    res = PageResult(pid, len(blocks), 0, 0, 0, 0, 0, 0, t1 - t0, t2 - t1)
    for block, a, b in zip(blocks, ours, ref, strict=True):
        n = len("".join(block.text.split()))
        res.chars += n
        if a == b:
            res.agree += 1
            res.chars_agree += n
            res.both += a
        elif a:
            res.ours_only += 1
        else:
            res.ref_only += 1
        if show and a != b:
            side = "ours=content ref=boilerplate" if a else "ours=boilerplate ref=content"
            print(f"  [{pid}#{block.index}] {side}: {block.text[:160]!r}")
    return res


def _pct(num: float, den: float) -> str:
    return f"{100 * num / den:.2f} %" if den else "-"


def report(t: Totals, split: str, limit: int | None, gold_kind: str = "txt") -> str:
    """The Markdown summary."""
    blocks = t.total("blocks")
    agree = t.total("agree")
    chars = t.total("chars")
    ours_s = [p.ours_s for p in t.pages]
    ref_s = [p.ref_s for p in t.pages]
    share = agree / blocks if blocks else 0.0
    median = statistics.median(p.share for p in t.pages) if t.pages else 0.0
    lines = [
        "# Web2Text automatic block labelling vs Web2Text's own CleanEval alignment",
        "",
        f"Split `{split}`, limit {limit or 'none'}. Ours: `label_page(html, gold)` with gold = "
        + (
            "`<id>.txt`"
            if gold_kind == "txt"
            else "`<id>.cleaneval.txt` normalised as Web2Text did (list markers dropped)"
        )
        + "; "
        "reference: `labels_from_aligned(html, <id>.aligned.txt)`; both over the DOM leaves of "
        "`parse(html).leaf_blocks()`. Rules: `src/scrapy_boilerplate/extractors/web2text/"
        "labelling.py`.",
        "",
        "| measure | value |",
        "| --- | ---: |",
        f"| pages | {len(t.pages)} |",
        f"| errors (page refused by parse) | {len(t.errors)} |",
        f"| blocks | {blocks} |",
        f"| blocks whose labels agree | {_pct(agree, blocks)} |",
        f"| agreement weighted by non-space characters | {_pct(t.total('chars_agree'), chars)} |",
        f"| per-page median agreement | {100 * median:.2f} % |",
        f"| content for both | {t.total('both')} |",
        f"| content for ours only | {t.total('ours_only')} |",
        f"| content for the reference only | {t.total('ref_only')} |",
        f"| label_page ms per page: mean / median / max | {_times(ours_s)} |",
        f"| reference ms per page: mean / median / max | {_times(ref_s)} |",
        "",
        f"Target: at least {100 * TARGET:.0f} % of blocks agree: "
        f"{'met' if share >= TARGET else 'NOT met'} ({100 * share:.2f} %).",
    ]
    worst = sorted(t.pages, key=lambda p: (p.share, -p.blocks))[:10]
    if worst:
        lines += [
            "",
            "Worst 10 pages:",
            "",
            "| id | blocks | agree | content ours only | content reference only |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {p.pid} | {p.blocks} | {100 * p.share:.1f} % | {p.ours_only} | {p.ref_only} |"
            for p in worst
        ]
    if t.errors:
        lines += ["", "Errors: " + ", ".join(t.errors)]
    return "\n".join(lines) + "\n"


def _times(values: list[float]) -> str:
    if not values:
        return "-"
    return (
        f"{1000 * statistics.fmean(values):.1f} / {1000 * statistics.median(values):.1f} / "
        f"{1000 * max(values):.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; 0 when it ran, 2 when the dataset is missing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("datasets"))
    ap.add_argument("--split", choices=SPLITS, default="all")
    ap.add_argument("--limit", type=int, default=None, help="first N pages of the split")
    ap.add_argument(
        "--gold",
        choices=("txt", "web2text"),
        default="txt",
        help="txt: <id>.txt (default); web2text: <id>.cleaneval.txt normalised as Web2Text did "
        "before its own alignment (its list markers », *, '12. ' dropped)",
    )
    ap.add_argument("--show", nargs="*", default=[], help="print disagreements of these ids")
    add_out(ap, "web2text_labelling.md; not with --show")
    args = ap.parse_args(argv)
    folder = args.data / "cleaneval"
    if not (folder / "index.jsonl").exists():
        print(
            f"dataset 'cleaneval' not found in {folder}: unpack it from the project root with "
            "`../shared/data/unpack datasets cleaneval`",
            file=sys.stderr,
        )
        return 2
    ids = page_ids(folder, args.split)
    if args.show:
        ids = [i for i in ids if i in set(args.show)]
    elif args.limit is not None:
        ids = ids[: args.limit]
    totals = Totals()
    for n, pid in enumerate(ids, 1):
        try:
            totals.pages.append(run_page(folder, pid, args.gold, show=bool(args.show)))
        except UnsupportedInput as exc:
            totals.errors.append(f"{pid} ({exc})")
        if n % 100 == 0:
            print(f"... {n} / {len(ids)} pages", file=sys.stderr)
    text = report(totals, args.split, args.limit, args.gold)
    print(text)
    if not args.show:
        write_reports(args.out, {"web2text_labelling.md": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
