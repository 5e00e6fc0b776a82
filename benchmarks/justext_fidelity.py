"""How faithful and how fast is our jusText compared with the reference jusText 3.0.2?

    python benchmarks/justext_fidelity.py [--data datasets] [--datasets ...] [--limit N]

For each page (every split; default sets cleaneval, wcxb-dev, google-trends-2017), both run
from the same decoded ``str``: the reference ``justext.justext(html,
justext.get_stoplist("English"))`` and ours ``extract(html, "justext", language="en")``.

Alignment rule: paragraph texts are normalised (whitespace runs collapsed, stripped) and the
reference paragraph list is aligned with our block list by :class:`difflib.SequenceMatcher`
(in order). Paragraphs in an ``equal`` run are counterparts. Inside a ``replace`` run, each
reference paragraph takes the next one of our blocks in the run whose text is similar
(``SequenceMatcher.ratio() >= 0.8``), in order. A reference paragraph left without a
counterpart is a mismatch, unless its reference class is ``bad``: then ours is taken to
have dropped it in pre-processing, which gives the same final result, and it counts as an
identical final class (it is left out of the context-free comparison, which needs both
classes). Context-free classes are compared after mapping ours ``near-good`` to the
reference's ``neargood``.

A page where either side raises is counted in ``errors`` (the side is printed) and left out.
Reported per set and in total: reference paragraphs, counterparts, share of reference
paragraphs whose final class (good / bad) is identical, share of counterparts whose
context-free class is identical, dropped-bad and missing paragraphs, extra blocks of ours,
and speed: median ms per page of each (parsing included), with the ratio reference / ours
of the medians and of the totals. Targets: >= 99 % identical final classes, ours >= 3x
faster. The summary is printed, and written to ``DIR/justext_fidelity.md``
(``justext_fidelity-compat.md`` with ``--reference-compat``) with ``--out DIR``.
"""

from __future__ import annotations

import argparse
import difflib
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.datasets import ALL, DATASETS, load, missing_message
from harness.output import add_out, write_reports

DEFAULT_SETS = ("cleaneval", "wcxb-dev", "google-trends-2017")
SIMILAR = 0.8
TARGET_CLASSES = 0.99
TARGET_SPEEDUP = 3.0
_WS = re.compile(r"\s+")

Para = tuple[str, str, str]  # normalised text, final class, context-free class


@dataclass
class Tally:
    """Agreement counts and timings of one dataset (or of all)."""

    pages: int = 0
    errors: int = 0
    reference: int = 0
    matched: int = 0
    same_class: int = 0
    same_cf: int = 0
    dropped_bad: int = 0
    missing: int = 0
    extra: int = 0
    ref_s: list[float] = field(default_factory=list)
    ours_s: list[float] = field(default_factory=list)
    worst: list[tuple[float, str]] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("pages", "errors", "reference", "matched", "same_class", "same_cf"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("dropped_bad", "missing", "extra"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.ref_s += other.ref_s
        self.ours_s += other.ours_s
        self.worst += other.worst


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _cf(value: Any) -> str:
    return str(value).replace("-", "").lower()


def reference_paras(paragraphs: list[Any]) -> list[Para]:
    """The reference paragraphs as (text, final class, context-free class)."""
    return [(_norm(p.text), p.class_type, _cf(p.cf_class)) for p in paragraphs]


def our_paras(extraction: Any) -> list[Para]:
    """Our blocks as (text, final class, context-free class)."""
    out = []
    for b in extraction.blocks:
        final = b.fields.get("class") or ("good" if b.label == "content" else "bad")
        out.append((_norm(b.text), str(final), _cf(b.fields.get("context_free_class"))))
    return out


def align(ref: list[Para], ours: list[Para]) -> list[int | None]:
    """For each reference paragraph, the index of its counterpart in ``ours`` (or None)."""
    match: list[int | None] = [None] * len(ref)
    sm = difflib.SequenceMatcher(None, [p[0] for p in ref], [p[0] for p in ours], autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                match[i1 + k] = j1 + k
        elif tag == "replace":
            j = j1
            for i in range(i1, i2):
                for jj in range(j, j2):
                    pair = difflib.SequenceMatcher(None, ref[i][0], ours[jj][0], autojunk=False)
                    if pair.quick_ratio() >= SIMILAR and pair.ratio() >= SIMILAR:
                        match[i], j = jj, jj + 1
                        break
    return match


def compare(ref: list[Para], ours: list[Para]) -> Tally:
    """Agreement of one page's classes."""
    t = Tally(pages=1, reference=len(ref))
    match = align(ref, ours)
    for r, j in zip(ref, match, strict=True):
        if j is None:
            if r[1] == "bad":
                t.dropped_bad += 1
                t.same_class += 1
            else:
                t.missing += 1
            continue
        t.matched += 1
        t.same_class += ours[j][1] == r[1]
        t.same_cf += ours[j][2] == r[2]
    t.extra = len(ours) - t.matched
    return t


class SideError(Exception):
    """One side (``reference`` or ``ours``) raised on a page."""

    def __init__(self, side: str, exc: Exception) -> None:
        super().__init__(f"{side} raised {type(exc).__name__}: {exc}")


def _timed(side: str, fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    try:
        out = fn(*args, **kwargs)
    except Exception as exc:
        raise SideError(side, exc) from exc
    return out, time.perf_counter() - start


def run_page(
    html: str, stoplist: Any, justext: Any, extract: Any, page_id: str, compat: bool = False
) -> Tally:
    """Both implementations on one page, timed, and compared."""
    ref, ref_s = _timed("reference", justext.justext, html, stoplist)
    ours, ours_s = _timed("ours", extract, html, "justext", language="en", reference_compat=compat)
    t = compare(reference_paras(ref), our_paras(ours))
    t.ref_s.append(ref_s)
    t.ours_s.append(ours_s)
    if t.reference:
        t.worst.append((t.same_class / t.reference, page_id))
    return t


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.2f} %" if den else "–"


def _ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.1f}" if values else "–"


def _ratio(ref: list[float], ours: list[float], fn: Any) -> float | None:
    return fn(ref) / fn(ours) if ref and ours and fn(ours) > 0 else None


def row(name: str, t: Tally) -> str:
    """One Markdown table row."""
    med = _ratio(t.ref_s, t.ours_s, statistics.median)
    tot = _ratio(t.ref_s, t.ours_s, sum)
    cells = [
        name, str(t.pages), str(t.errors), str(t.reference), str(t.matched),
        _pct(t.same_class, t.reference), _pct(t.same_cf, t.matched), str(t.dropped_bad),
        str(t.missing), str(t.extra), _ms(t.ref_s), _ms(t.ours_s),
        f"{med:.2f}x" if med else "–", f"{tot:.2f}x" if tot else "–",
    ]  # fmt: skip
    return "| " + " | ".join(cells) + " |"


def report(tallies: dict[str, Tally], limit: int | None) -> str:
    """The Markdown summary."""
    total = Tally()
    for t in tallies.values():
        total.add(t)
    header = (
        "| set | pages | errors | ref paragraphs | counterparts | final class identical | "
        "context-free identical | dropped bad | missing | extra ours | ref median ms | "
        "ours median ms | speed (medians) | speed (totals) |"
    )
    lines = [
        "# jusText fidelity: ours vs reference jusText 3.0.2 (English stoplist)",
        "",
        f"Limit {limit or 'none'} pages per set, all splits; both timed from the same decoded "
        "str, parsing included; single process. Alignment rule: see the docstring of "
        "`benchmarks/justext_fidelity.py`.",
        "",
        header,
        "| --- " + "| ---: " * 13 + "|",
        *(row(name, t) for name, t in tallies.items()),
        row("**all**", total),
        "",
    ]
    share = total.same_class / total.reference if total.reference else 0.0
    speed = _ratio(total.ref_s, total.ours_s, statistics.median) or 0.0
    met_classes = "met" if share >= TARGET_CLASSES else "NOT met"
    met_speed = "met" if speed >= TARGET_SPEEDUP else "NOT met"
    lines.append(
        f"- final classes identical: {100 * share:.2f} % "
        f"(target >= {100 * TARGET_CLASSES:.0f} %: {met_classes})"
    )
    lines.append(
        f"- speed: ours {speed:.2f}x as fast as the reference by median "
        f"(target >= {TARGET_SPEEDUP:.0f}x: {met_speed})"
    )
    worst = sorted(w for w in total.worst if w[0] < 1.0)[:10]
    if worst:
        lines += ["", "Pages with the most differing final classes (share identical, id):", ""]
        lines += [f"- {100 * s:.1f} % {pid}" for s, pid in worst]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; 0 when it ran, 1 when ours or the reference is missing."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("datasets"))
    ap.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DEFAULT_SETS))
    ap.add_argument("--limit", type=int, default=None, help="first N pages of each set")
    add_out(ap, "justext_fidelity.md, or justext_fidelity-compat.md with --reference-compat")
    ap.add_argument(
        "--reference-compat",
        action="store_true",
        help="run ours with reference_compat=True (jusText 3.0.2's cleaning and "
        "its inactive heading pre-processing) instead of the paper's defaults",
    )
    args = ap.parse_args(argv)
    try:
        import justext
    except ImportError:
        print("the reference jusText is missing: pip install -e '.[bench]'", file=sys.stderr)
        return 1
    try:
        from scrapy_boilerplate import extract

        extract("<html><body><p>Warm-up text.</p></body></html>", "justext", language="en")
    except Exception as exc:  # the API may not be there yet: say so, never crash
        print(f"our jusText is not usable: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    stoplist = justext.get_stoplist("English")
    justext.justext("<html><body><p>Warm-up text.</p></body></html>", stoplist)
    tallies: dict[str, Tally] = {}
    for name in args.datasets:
        if not (args.data / name / "index.jsonl").is_file():
            print(missing_message(name, args.data), file=sys.stderr)
            continue
        tally = Tally()
        for page in load(name, args.data, ALL, args.limit, with_blocks=False):
            try:
                tally.add(
                    run_page(
                        page.html,
                        stoplist,
                        justext,
                        extract,
                        f"{name}/{page.id}",
                        args.reference_compat,
                    )
                )
            except SideError as exc:  # one side failed on this page: count it, go on
                tally.pages += 1
                tally.errors += 1
                print(f"{name}/{page.id}: {exc}", file=sys.stderr)
        tallies[name] = tally
    if not tallies:
        print("no dataset found", file=sys.stderr)
        return 1
    text = report(tallies, args.limit)
    mode = (
        "reference_compat=True (jusText 3.0.2's cleaning, no heading pre-processing)"
        if args.reference_compat
        else "paper defaults (shared cleaning, both heading stages)"
    )
    text = text.replace("\n", f"\n\nOur mode: {mode}.\n", 1)
    print(text)
    suffix = "-compat" if args.reference_compat else ""
    write_reports(args.out, {f"justext_fidelity{suffix}.md": text})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
