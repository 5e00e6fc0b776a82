#!/usr/bin/env python
"""Page language detection against the language pages declare, on every dataset.

    python benchmarks/language.py [--data datasets] [--limit N] [--out benchmarks/results]

Every page of every dataset under ``--data`` that holds pages (the harness's sets, all
their splits: cleaneval, google-trends-2017, l3s-gn1, wcxb-dev, readability-testpages,
trafilatura-eval; Kreuzer's kreuzer-random and kreuzer-popular, their plain HTML; the
pages of webqa-utopia-dev and wikitablequestions-lists) is parsed once
(``core.document.parse``), extracted with ``auto``, and its language detected by
``core.language.page_language``: from the main text, completed by the page's whole text
when the main text is short. A page counts where its declared language (``<html lang>``,
the Content-Language meta, og:locale; primary subtag, ``core.language.declared_language``)
is a valid ISO 639-1 code; it is right when the detected code names the same language.

Every mismatch is listed with what a reading of the page found (:data:`EXAMINED`): pages
whose declared language is plainly not the one they are written in are counted apart, but
never left out of the accuracy. Time: ``page_language`` per page as a multiple of lxml's
parse of the same page (``lxml.html.document_fromstring``), both timed in this run, page
by page; the median over pages.

Prints the Markdown report; writes it to ``OUT/language.md`` only with ``--out``. Exit 2
when no dataset is found.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html

from harness.datasets import DATASETS, UNPACK_HINT, load
from harness.output import add_out, write_reports
from scrapy_boilerplate.core import language
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.core.extract import extract

KREUZER = ("kreuzer-random", "kreuzer-popular")
PAGE_FOLDERS = ("webqa-utopia-dev", "wikitablequestions-lists")

#: What reading each mismatched page found: (kind, note). Kinds: ``declared wrong`` (the
#: text is plainly in another language than the declared one), ``placeholder`` (lorem
#: ipsum where text would be), ``mixed`` (the main text, or its start, in another language
#: than the page's chrome, which is in the declared one), ``no text`` (no prose to detect
#: from: an empty page, a table of figures; the detection is None), ``detector`` (the
#: declared language is right, the detection wrong). Read on the pages of this run's data;
#: a mismatch not listed shows as ``not examined``.
EXAMINED: dict[tuple[str, str], tuple[str, str]] = {
    ("cleaneval", "69"): ("mixed", "HP Germany's chrome around an English case study"),
    ("cleaneval", "661"): ("declared wrong", "an English news site"),
    ("google-trends-2017", "gt_105"): ("no text", "a table of football statistics"),
    ("google-trends-2017", "gt_147"): ("no text", "a table of baseball statistics"),
    ("google-trends-2017", "gt_148"): ("declared wrong", "an English article"),
    ("google-trends-2017", "gt_171"): ("no text", "a baseball roster table"),
    ("l3s-gn1", "02e622bc-00a7-4b0e-85ef-5a663ef6233c"): (
        "mixed",
        "an English press release on a German portal",
    ),
    ("l3s-gn1", "3164baec-188a-4116-9aed-a18041854535"): ("declared wrong", "an English news page"),
    ("l3s-gn1", "bdc7803f-ac9f-44db-8250-8779e8c33d3e"): ("declared wrong", "an English news page"),
    ("wcxb-dev", "0470"): ("mixed", "bilingual Welsh / English, Welsh first"),
    ("wcxb-dev", "0585"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4147"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4314"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4577"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4607"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4681"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4802"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4838"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4871"): ("no text", "no text in the HTML (rendered by scripts)"),
    ("wcxb-dev", "4403"): ("declared wrong", "the Indonesian translation of React's docs"),
    ("readability-testpages", "data-url-image"): ("placeholder", "lorem ipsum"),
    ("readability-testpages", "hidden-nodes"): ("placeholder", "lorem ipsum"),
    ("readability-testpages", "missing-paragraphs"): ("placeholder", "lorem ipsum"),
    ("trafilatura-eval", "denkanstoos.com.2012"): ("mixed", "an English agenda in a German blog"),
    ("trafilatura-eval", "nextkabinett.wordpress.com.garden"): (
        "mixed",
        "an English film summary in a German blog",
    ),
    ("trafilatura-eval", "gizmeo.eu.insekten"): ("mixed", "comments in English and German"),
    ("trafilatura-eval", "pointofsail-kiel.de.wilson"): (
        "placeholder",
        "a theme's lorem ipsum before German text",
    ),
    ("trafilatura-eval", "sibenlab.blogspot.com.privacy"): ("declared wrong", "written in English"),
    ("trafilatura-eval", "ukbdnews.com.23646"): ("declared wrong", "written in Bengali"),
    ("trafilatura-eval", "24ora.com-internationalschol"): (
        "declared wrong",
        "written in Papiamento, which the model lacks",
    ),
    ("trafilatura-eval", "madame.lefigaro.fr.dintestin"): ("declared wrong", "written in French"),
    ("trafilatura-eval", "100noticias.com-millones"): ("declared wrong", "written in Spanish"),
    ("trafilatura-eval", "elfaro.net-asamblea"): ("declared wrong", "written in Spanish"),
    ("trafilatura-eval", "ahlen.de.reparaturcafe"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "helge.at.mahu"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "murdeltas.wordpress.com.politcamp"): (
        "declared wrong",
        "written in German",
    ),
    ("trafilatura-eval", "hr-innovation.org.enterprise"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "lexikon.huettenhilfe.de.banane"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "feuerwehrtaucher-oldenburg.de.ausbildung"): (
        "declared wrong",
        "written in German",
    ),
    ("trafilatura-eval", "rueda.wikidot.com.enchufla"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "befifty.montauk"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "vergleich.de.leasen"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "linkedin.com.hoeltmann"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "harddecor.at.denkmaler"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "archive.org.dzs-clan.de"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "villagersandheroes.com.forums.patchnotes"): (
        "declared wrong",
        "written in German",
    ),
    ("trafilatura-eval", "berkutschi.com-willingen"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "mitvergnuegen.de.herbst"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "springer.com-produkte"): ("declared wrong", "written in German"),
    ("trafilatura-eval", "d32ad974a4b04657bb6e4d91852bd52d"): (
        "detector",
        "German opening on an English quotation",
    ),
    ("trafilatura-eval", "mix1.de-clio"): (
        "detector",
        "German, a list of English song titles first",
    ),
    ("kreuzer-random", "www.citylemon.com"): ("mixed", "Dutch place names under an English menu"),
    ("kreuzer-random", "www.hedmark-hundeutstyr.no"): (
        "declared wrong",
        "a Norwegian host's placeholder page",
    ),
    ("kreuzer-random", "www.joebar.ch"): ("declared wrong", "written in German"),
    ("kreuzer-random", "www.nmch.nl"): ("declared wrong", "written in Dutch"),
    ("kreuzer-random", "www.perviam.com"): ("declared wrong", "written in Dutch"),
    ("kreuzer-random", "www.tetrade.be"): ("declared wrong", "written in English"),
    ("kreuzer-random", "www.montair.it"): ("detector", "a few Italian lines among English links"),
}


def _pages(data: Path, limit: int | None) -> Iterator[tuple[str, str, Any]]:
    """(dataset, page id, html) of every page found; says on stderr which sets are missing."""
    for name in DATASETS:
        if not (data / name / "index.jsonl").exists():
            print(f"{name}: missing under {data}; `{UNPACK_HINT} {name}`", file=sys.stderr)
            continue
        for page in load(name, data, split="all", limit=limit, with_blocks=False):
            yield name, page.id, page.html
    for name in KREUZER:
        index = data / name / "index.jsonl"
        if not index.exists():
            print(f"{name}: missing under {data}; `{UNPACK_HINT} {name}`", file=sys.stderr)
            continue
        rows = [json.loads(line) for line in index.read_text("utf-8").splitlines() if line]
        for row in rows[:limit]:
            # the page as fetched, its bytes: the parse finds its encoding
            yield name, row["id"], (data / name / row["html_plain"]).read_bytes()
    for name in PAGE_FOLDERS:
        files = sorted((data / name / "pages").glob("*.html"))
        if not files:
            print(f"{name}: missing under {data}; `{UNPACK_HINT} {name}`", file=sys.stderr)
        for path in files[:limit]:
            yield name, path.stem, path.read_bytes()


def _lxml_seconds(html: Any) -> float | None:
    start = time.perf_counter()
    try:
        root = lxml.html.document_fromstring(html)
    except Exception:  # an empty or XML page: no reference time
        return None
    seconds = time.perf_counter() - start
    del root
    return seconds


def measure(data: Path, limit: int | None) -> list[dict[str, Any]]:
    """One record per page: its declared and detected language, and the two timings."""
    language.detect_language("load the model before the first timing")
    records = []
    for name, pid, html in _pages(data, limit):
        record: dict[str, Any] = {"dataset": name, "id": pid}
        records.append(record)
        try:
            doc = parse(html)
        except Exception as exc:  # not a page (binary, empty): no declared language
            record["error"] = type(exc).__name__
            continue
        record["raw"] = doc.declared_language
        record["declared"] = language.declared_language(doc)
        main = extract(doc, "auto").main_text
        reference = _lxml_seconds(html)
        start = time.perf_counter()
        detected, confidence = language.page_language(main, doc)
        seconds = time.perf_counter() - start
        record.update(detected=detected, confidence=confidence, main_chars=len(main))
        if reference:
            record["ratio"] = seconds / reference
            record["ms"] = seconds * 1000
            record["lxml_ms"] = reference * 1000
    return records


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.2f} %" if d else "-"


def render(records: list[dict[str, Any]], shown: str) -> str:
    """The Markdown report of :func:`measure`'s records."""
    scored = [r for r in records if r.get("declared")]
    for r in scored:
        r["right"] = language.same_language(r["detected"], r["declared"])
    right = sum(r["right"] for r in scored)
    wrong = [r for r in scored if not r["right"]]
    kinds = Counter(EXAMINED.get((r["dataset"], r["id"]), ("not examined", ""))[0] for r in wrong)
    declared_wrong = kinds["declared wrong"]
    lines = [
        "# Page language: detected vs declared",
        "",
        f"`python benchmarks/language.py{shown}`: every page of every dataset found, "
        "extracted with `auto`; the language detected by `core.language.page_language` "
        f"(py3langid, at most {language.MAX_CHARS} characters of the main text read, "
        f"{language.MORE_CHARS} when unsure, the first {language.QUICK_CHARS} only where "
        "they are the declared language; the whole page's text added when the main text "
        f"is under {language.MIN_MAIN_CHARS} characters) against the page's declared "
        "language (primary subtag), on the pages that declare a valid ISO 639-1 code. "
        "No page is left out: pages whose declaration is plainly wrong count as misses.",
        "",
        f"**Accuracy: {right} / {len(scored)} = {_pct(right, len(scored))}** "
        f"({len(records)} pages read, {len(scored)} with a valid declared language).",
        "",
        f"Of the {len(wrong)} mismatches, examined by hand: "
        + ", ".join(f"{k} {n}" for k, n in kinds.most_common())
        + f". Without the {declared_wrong} pages whose declared language is plainly wrong "
        f"(for reference only): {right} / {len(scored) - declared_wrong} = "
        f"{_pct(right, len(scored) - declared_wrong)}.",
        "",
        "## Per language (declared)",
        "",
        "| language | pages | correct | accuracy |",
        "| --- | ---: | ---: | ---: |",
    ]
    by_lang: dict[str, list[bool]] = {}
    for r in scored:
        by_lang.setdefault(r["declared"], []).append(r["right"])
    for code, got in sorted(by_lang.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"| {code} | {len(got)} | {sum(got)} | {_pct(sum(got), len(got))} |")
    lines += [
        "",
        "## Per dataset",
        "",
        "`no declaration`: pages declaring nothing; `invalid`: declaring something that is "
        "not a language code (`x-default`, `english`, a template's `{{lang}}`); neither is "
        "scored.",
        "",
        "| dataset | pages | no declaration | invalid | scored | correct | accuracy |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in dict.fromkeys(r["dataset"] for r in records):
        rows = [r for r in records if r["dataset"] == name]
        none = sum(1 for r in rows if not r.get("raw"))
        invalid = sum(1 for r in rows if r.get("raw") and not r.get("declared"))
        ok = [r["right"] for r in rows if r.get("declared")]
        lines.append(
            f"| {name} | {len(rows)} | {none} | {invalid} | {len(ok)} | {sum(ok)} | "
            f"{_pct(sum(ok), len(ok))} |"
        )
    ratios = [r["ratio"] for r in records if "ratio" in r]
    if ratios:
        lines += [
            "",
            "## Time",
            "",
            f"`page_language` per page as a multiple of lxml's parse of the same page "
            f"(`lxml.html.document_fromstring`), both timed in this run, page by page, over "
            f"{len(ratios)} pages: median **{statistics.median(ratios):.3f}x**, 90th "
            f"percentile {statistics.quantiles(ratios, n=10)[-1]:.3f}x. Median times: "
            f"{statistics.median(r['ms'] for r in records if 'ms' in r):.3f} ms against "
            f"{statistics.median(r['lxml_ms'] for r in records if 'lxml_ms' in r):.3f} ms "
            "for lxml's parse. The model's load (once per process) is outside these times.",
        ]
    lines += [
        "",
        "## Mismatches",
        "",
        "| dataset | page | declared | detected | confidence | examined | note |",
        "| --- | --- | --- | --- | ---: | --- | --- |",
    ]
    for r in wrong:
        kind, note = EXAMINED.get((r["dataset"], r["id"]), ("not examined", ""))
        lines.append(
            f"| {r['dataset']} | {r['id']} | {r['raw']} | {r['detected'] or '(none)'} | "
            f"{r['confidence']:.2f} | {kind} | {note} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure and report; 2 when no dataset is found."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="N pages a set")
    add_out(parser, "language.md")
    args = parser.parse_args(argv)
    records = measure(args.data, args.limit)
    if not records:
        print(
            f"no pages: no dataset found under {args.data}; unpack them from the project root "
            f"with `{UNPACK_HINT}`, or point --data at the folder holding them",
            file=sys.stderr,
        )
        return 2
    text = render(records, f" --limit {args.limit}" if args.limit else "")
    print(text)
    write_reports(args.out, {"language.md": text})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
