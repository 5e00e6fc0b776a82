"""How far ``auto``'s held-out figures move with the seed of its trees alone.

``auto``'s model is trained by one recipe (``scrapy-boilerplate train auto``); the seed of
its gradient-boosted trees decides which rows and features each tree samples, and nothing
else. This script trains the recipe once per seed (``--seeds``; the shipped model's is
13), then scores every model on the evaluation splits of the six main-content sets, as
``run.py`` scores them (text F1 of word 4-grams; trafilatura-eval's snippet F1; wcxb-dev
per page type), with trafilatura, readability-lxml and resiliparse on the same pages in
the same run. The report gives each seed's figures, their mean, standard deviation and
range, and for each comparison with a peer how many seeds' models are above it: a change
whose held-out gain is smaller than this spread cannot be told from a reseeding, and a
comparison that only some seeds win is won by chance.

    python benchmarks/auto_seeds.py --data datasets --models /tmp/auto-seeds \\
        [--seeds 13 14 15 16 17] [--out benchmarks/results]

Models already in ``--models`` (``seed<N>.onnx``) are reused; training needs the
``train`` extra (LightGBM, onnxmltools) and takes a few minutes a seed. Needs the datasets
unpacked (``../shared/data/unpack datasets``); says so when they are missing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from harness.datasets import UNPACK_HINT, Page, load
from harness.evaluate import PageResult
from harness.metrics import Confusion, confusion_scores, text_scores
from harness.output import add_out, write_reports
from harness.peers import resolve
from harness.runner import run_page

#: The evaluation split of each set (``run.py``'s defaults); none of them trains ``auto``.
SETS = (
    "cleaneval",
    "google-trends-2017",
    "l3s-gn1",
    "wcxb-dev",
    "readability-testpages",
    "trafilatura-eval",
)
#: The set scored by its snippets (it has no full gold text).
SNIPPET_SET = "trafilatura-eval"
PEERS = ("trafilatura", "readability-lxml", "resiliparse")
#: How far above trafilatura a set's text F1 is compared (its snippet F1: at all).
MARGIN = 0.01
DEFAULT_SEEDS = (13, 14, 15, 16, 17)
#: The seed of the shipped model (``scrapy_boilerplate.auto.train.SEED``).
SHIPPED_SEED = 13


def scores(results: Sequence[PageResult]) -> dict[str, float]:
    """The figures of one extractor's page results (``run.py``'s ``run_page``, an error
    scored as it scores one), unrounded: ``text`` (text F1 over the pages with gold text),
    ``snippets`` (snippet F1, counts summed over the pages) and ``type:<page type>`` (text
    F1 of each page type's pages)."""
    out: dict[str, float] = {}
    texts = [(r.page_type, r.text) for r in results if r.text is not None]
    if texts:
        out["text"] = text_scores([c for _, c in texts]).f1 or 0.0
        for kind in sorted({k for k, _ in texts if k}):
            out[f"type:{kind}"] = text_scores([c for k, c in texts if k == kind]).f1 or 0.0
    snippets = [r.snippets for r in results if r.snippets is not None]
    if snippets:
        out["snippets"] = confusion_scores(sum(snippets, Confusion()), empty=0.0).f1 or 0.0
    return out


def train_models(data: Path, models: Path, seeds: Sequence[int]) -> dict[int, Path]:
    """``seed<N>.onnx`` under ``models`` for every seed, trained where missing."""
    paths = {}
    for seed in seeds:
        path = models / f"seed{seed}.onnx"
        if not path.is_file():
            from scrapy_boilerplate.auto import train

            print(f"training seed {seed} -> {path}", file=sys.stderr)
            train.train(data, path, log=lambda line: print(f"  {line}", file=sys.stderr), seed=seed)
        paths[seed] = path
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--models", type=Path, required=True, help="folder of seed<N>.onnx")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(DEFAULT_SEEDS))
    add_out(parser, "auto_seeds.md")
    args = parser.parse_args(argv)
    missing = [name for name in SETS if not (args.data / name / "index.jsonl").is_file()]
    if missing:
        print(f"datasets missing under {args.data}: {', '.join(missing)} ({UNPACK_HINT})",
              file=sys.stderr)  # fmt: skip
        return 2
    paths = train_models(args.data, args.models, args.seeds)

    pages = {name: list(load(name, args.data, with_blocks=False)) for name in SETS}
    results: dict[str, dict[str, dict[str, float]]] = {}  # extractor -> set -> figures
    errors: Counter[str] = Counter()
    peers, problems = resolve(list(PEERS))
    models = {}  # "seed N" -> auto with that seed's model
    for seed, path in paths.items():
        ours, trouble = resolve(["auto"], {"auto": {"model": str(path)}})
        problems += trouble
        models.update((f"seed {seed}", ex) for ex in ours)
    for problem in problems:
        print(problem, file=sys.stderr)
    for who, ex in [*models.items(), *((p.name, p) for p in peers)]:
        figures = {}
        for name, ps in pages.items():
            page_results = [run_page(ex, p) for p in ps]
            if failed := sum(1 for r in page_results if r.error):
                errors[who] += failed
            figures[name] = scores(page_results)
        results[who] = figures
        print(f"{who}: scored", file=sys.stderr)
    report = render(results, list(models), [p.name for p in peers], pages)
    report += training_table(paths)
    shipped = paths.get(SHIPPED_SEED)
    if shipped is not None:
        from scrapy_boilerplate.auto.model import DEFAULT_MODEL

        same = shipped.read_bytes() == Path(DEFAULT_MODEL).read_bytes()
        report += (
            f"\nThe model of seed {SHIPPED_SEED} is the shipped model byte for byte: "
            f"{'yes' if same else 'no'}.\n"
        )
    if errors:
        report += (
            "\nPages an extractor failed on (scored as `run.py` scores them): "
            + ", ".join(f"{name} {n}" for name, n in sorted(errors.items()))
            + ".\n"
        )
    print(report)
    write_reports(args.out, {"auto_seeds.md": report})
    return 0


def training_table(paths: dict[int, Path]) -> str:
    """What each seed's training chose and measured on its own folds (the reports beside
    the models): the out-of-fold text F1 with the model's rules (aside, named body), the
    page-type accuracy out of fold, and the thresholds per page type."""
    rows = []
    kinds: list[str] = []
    reports = {}
    for seed, path in paths.items():
        try:
            reports[seed] = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        kinds += [k for k in reports[seed].get("thresholds", {}) if k not in kinds]
    if not reports:
        return ""
    kinds.sort()
    for seed, rep in reports.items():
        thresholds = rep.get("thresholds", {})
        # the text the model's rules give: with the body rule where the model has it
        cv = rep.get("cv_text_f1_with_body", rep["cv_text_f1_with_asides"])
        rows.append(
            f"| seed {seed} | {cv['all']:.4f} | "
            f"{rep['page_type_accuracy']:.3f} | {rep['trees']} | "
            + " | ".join(str(thresholds.get(k, rep["threshold"])) for k in kinds)
            + " |"
        )
    head = [
        "",
        "What each seed's training measured on its own folds (out-of-fold text F1 with the "
        "aside and named-body rules, on the pages the thresholds are chosen on; page-type "
        "accuracy out of fold) and chose (trees, thresholds per page type):",
        "",
        "| model | out-of-fold text F1 | page-type accuracy | trees | "
        + " | ".join(f"threshold {k}" for k in kinds)
        + " |",
        "| --- |" + " ---: |" * (3 + len(kinds)),
    ]
    return "\n".join(head + rows) + "\n"


def _columns(pages: dict[str, list[Page]]) -> list[tuple[str, str, str]]:
    """(set, figure key, header) of every column of the report."""
    cols = [(name, "snippets" if name == SNIPPET_SET else "text", name) for name in pages]
    kinds = sorted({p.page_type for p in pages.get("wcxb-dev", []) if p.page_type})
    cols += [("wcxb-dev", f"type:{k}", f"wcxb-dev {k}") for k in kinds]
    return cols


def render(
    results: dict[str, dict[str, dict[str, float]]],
    seeds: list[str],
    peers: list[str],
    pages: dict[str, list[Page]],
) -> str:
    """The report: each seed's figures and their spread, the peers', and the comparisons."""
    cols = _columns(pages)

    def value(who: str, col: tuple[str, str, str]) -> float | None:
        return results.get(who, {}).get(col[0], {}).get(col[1])

    def cell(v: float | None) -> str:
        return "–" if v is None else f"{v:.4f}"

    lines = [
        "# `auto`: how far the held-out figures move with the trees' seed",
        "",
        "`python benchmarks/auto_seeds.py --models DIR --out benchmarks/results`: the recipe "
        "of `scrapy-boilerplate train auto` trained once per seed (the shipped model's is "
        "13), every model scored on the evaluation splits of the six sets as `run.py` "
        "scores them (text F1; trafilatura-eval's snippet F1; wcxb-dev per page type), "
        "with the peers on the same pages in the same run. "
        + ", ".join(f"{name} {len(ps)} pages" for name, ps in pages.items())
        + ".",
        "",
        "| model | " + " | ".join(c[2] for c in cols) + " |",
        "| --- |" + " ---: |" * len(cols),
    ]
    for who in [*seeds, *peers]:
        lines.append(f"| {who} | " + " | ".join(cell(value(who, c)) for c in cols) + " |")
    spread: dict[str, list[float]] = {"mean": [], "standard deviation": [], "min": [], "max": []}
    for c in cols:
        vs = [v for s in seeds if (v := value(s, c)) is not None]
        spread["mean"].append(statistics.fmean(vs) if vs else float("nan"))
        spread["standard deviation"].append(statistics.stdev(vs) if len(vs) > 1 else float("nan"))
        spread["min"].append(min(vs) if vs else float("nan"))
        spread["max"].append(max(vs) if vs else float("nan"))
    for name, vs in spread.items():
        lines.append(f"| seeds: {name} | " + " | ".join(f"{v:.4f}" for v in vs) + " |")
    lines += [
        "",
        f"How many of the {len(seeds)} seeds' models are above each peer (text F1; "
        f"trafilatura-eval: snippet F1). Against trafilatura, a set with full gold text is "
        f"counted above it by at least {MARGIN}, the snippets and the page types at all:",
        "",
        "| comparison | " + " | ".join(c[2] for c in cols) + " |",
        "| --- |" + " ---: |" * len(cols),
    ]
    for peer in peers:
        row = []
        for c in cols:
            theirs = value(peer, c)
            if theirs is None or (peer != "trafilatura" and c[1].startswith("type:")):
                row.append("–")
                continue
            if peer == "trafilatura":  # at least its figure (plus the margin on text F1)
                bar = theirs + (MARGIN if c[1] == "text" else 0.0)
                wins = sum(1 for s in seeds if (v := value(s, c)) is not None and v >= bar)
            else:  # above it
                wins = sum(1 for s in seeds if (v := value(s, c)) is not None and v > theirs)
            row.append(f"{wins}/{len(seeds)}")
        label = f"above {peer}" + (f" (+{MARGIN} on text F1)" if peer == "trafilatura" else "")
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
