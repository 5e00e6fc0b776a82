#!/usr/bin/env python
"""How much the training seed alone moves Web2Text's block scores (a study, not a choice).

    OMP_NUM_THREADS=2 python benchmarks/train_web2text.py --model cleaneval --no-ensemble \\
        --out /tmp/seeds/chosen.onnx --per-seed /tmp/seeds
    python benchmarks/web2text_seeds.py /tmp/seeds/seed*.onnx [--also cleaneval /tmp/chosen.onnx]
        [--data datasets] [--out benchmarks/results]

Each ``seed<s>.onnx`` holds the unary and pairwise networks of one training seed (same
data, recipe and iterations; only the seed differs). For each model, block accuracy,
precision, recall and F1 (content class, every block weighted the same, Viterbi with
lambda 0.1 and unary only) on the 59 CleanEval *validation* pages that training holds out
and on the 148 ``web2text_test`` pages, then the mean, standard deviation, minimum and
maximum over the seeds. ``--also`` adds whole models (shipped names or files), each named
by how it was made (its training report in the file: an ensemble of N seeds, or the seed
with the lowest validation error per network).

The test split picks nothing here: the shipped model is chosen by validation error alone
(``train_web2text.py``). This report says how far apart models that differ only by their
seed land on the test split, so that a gap to the paper's figure can be read against it.
Exit 2 when the cleaneval dataset is missing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("SCRAPY_BOILERPLATE_ORT_THREADS", "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness.datasets import missing_message  # noqa: E402
from harness.output import add_out, write_reports  # noqa: E402
from scrapy_boilerplate.extractors.web2text.model import Web2TextModel, load_model  # noqa: E402
from scrapy_boilerplate.extractors.web2text.viterbi import viterbi  # noqa: E402
from web2text_eval import PAPER, TARGET_F1, _count, cleaneval_features, scores  # noqa: E402

LAMBDA = 0.1
SETS = ("validation", "test")
MODES = ("viterbi", "unary")


def evaluate(model: Web2TextModel, sets: dict[str, list[Any]]) -> dict[str, dict[str, Any]]:
    """Scores of one model on every set and mode."""
    result: dict[str, dict[str, Any]] = {}
    for name, rows in sets.items():
        counts = {mode: [0, 0, 0, 0] for mode in MODES}
        halves = [[0, 0], [0, 0]]  # wrong, blocks: unary argmax, even / odd pages
        for k, (b, e, gold) in enumerate(rows):
            unary, pairwise = model.potentials(b, e)
            predicted = [bool(x) for x in unary.argmax(1)]
            halves[k % 2][0] += sum(p != g for p, g in zip(predicted, gold, strict=True))
            halves[k % 2][1] += len(gold)
            _count(counts["unary"], predicted, gold)
            _count(counts["viterbi"], [bool(x) for x in viterbi(unary, pairwise, LAMBDA)], gold)
        for mode, c in counts.items():
            result[f"{name}/{mode}"] = scores(*c)
        result[f"{name}/halves"] = {"error": [w / n if n else 0.0 for w, n in halves]}
    return result


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation of two equally long lists (ties broken by order)."""
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    return float(np.corrcoef(ra, rb)[0, 1])


def describe(model_path: str, model: Web2TextModel) -> str:
    """How a model was made, from the training report in its file."""
    meta = model.metadata
    training = meta.get("training") or {}
    if int(meta.get("ensemble", 1)) > 1:
        how = f"the mean of {meta['ensemble']} seeds' networks"
    elif training:
        seeds = "/".join(str(training[k].get("seed")) for k in ("unary", "pairwise"))
        how = f"lowest validation error of its seeds (unary/pairwise seed {seeds})"
    else:
        how = "one seed"
    return f"{model_path} ({how})"


def report(
    rows: dict[str, dict[str, Any]], extra: list[str], sizes: dict[str, int], command: str
) -> str:
    """The Markdown table: one line per model, then the spread over the seed models."""
    cols = [f"{s}/{m}" for s in SETS for m in MODES]
    lines = [
        "# Web2Text: how much the seed alone moves the block scores",
        "",
        f"Command: `{command}` (the module docstring gives the training command that writes"
        " the models). Content-class block F1, every block weighted the"
        f" same; Viterbi with lambda {LAMBDA:g}. Validation: the {sizes['validation']} CleanEval"
        " pages training holds out; test: the paper's"
        f" {sizes['test']} `web2text_test` pages. The test split chooses nothing.",
        "",
        "| model | "
        + " | ".join(f"F1 {c.replace('/', ', ')}" for c in cols)
        + " | test accuracy |",
        "| --- | " + " | ".join("---:" for _ in cols) + " | ---: |",
    ]
    seeds = [name for name in rows if name not in extra]
    for name in [*seeds, *extra]:
        r = rows[name]
        lines.append(
            f"| {name} | "
            + " | ".join(f"{r[c]['f1']:.4f}" for c in cols)
            + f" | {r['test/viterbi']['accuracy']:.4f} |"
        )
    if len(seeds) > 1:
        for stat, fn in (
            ("mean", statistics.mean),
            ("standard deviation", statistics.stdev),
            ("minimum", min),
            ("maximum", max),
        ):
            vals = [fn([rows[s][c]["f1"] for s in seeds]) for c in cols]
            acc = fn([rows[s]["test/viterbi"]["accuracy"] for s in seeds])
            lines.append(
                f"| seeds: {stat} | " + " | ".join(f"{v:.4f}" for v in vals) + f" | {acc:.4f} |"
            )
        halves = [rows[s]["validation/halves"]["error"] for s in seeds]
        lines += [
            "",
            "Can the validation pages rank the seeds? Unary block error of each seed on the"
            " validation pages in even and in odd places (the same halves for every seed):",
            "",
            "| seed model | error, even pages | error, odd pages |",
            "| --- | ---: | ---: |",
            *(f"| {s} | {h[0]:.4f} | {h[1]:.4f} |" for s, h in zip(seeds, halves, strict=True)),
            "",
            "Spearman rank correlation of the seeds between the two halves:"
            f" {spearman([h[0] for h in halves], [h[1] for h in halves]):.2f} (1: the halves"
            " rank the seeds alike; 0: no relation, so picking the seed with the lowest"
            " validation error picks by chance).",
        ]
        reached = sum(rows[s]["test/viterbi"]["f1"] >= TARGET_F1 for s in seeds)
        lines += [
            "",
            f"Seed models with test F1 (Viterbi) >= {TARGET_F1}: {reached} of {len(seeds)}."
            f" The paper (Table 1, same split): accuracy {PAPER['accuracy']:.2f},"
            f" F1 {PAPER['f1']:.2f}.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", type=Path, nargs="+", help="one ONNX file per seed")
    parser.add_argument("--also", nargs="+", default=[], help="whole models to add")
    parser.add_argument("--data", type=Path, default=HERE.parent / "datasets")
    add_out(parser, "web2text_seeds.md")
    args = parser.parse_args(argv)
    if not (args.data / "cleaneval").is_dir():
        print(missing_message("cleaneval", args.data).replace("; skipping it", ""), file=sys.stderr)
        return 2
    sets = {name: cleaneval_features(args.data, name) for name in SETS}
    sizes = {name: len(rows) for name, rows in sets.items()}
    paths = sorted(args.models, key=lambda p: (len(p.stem), p.stem))
    rows = {p.stem: evaluate(load_model(str(p)), sets) for p in paths}
    extra = []
    for path in args.also:
        model = load_model(path)
        extra.append(describe(path, model))
        rows[extra[-1]] = evaluate(model, sets)
    command = "python benchmarks/web2text_seeds.py " + " ".join(argv or sys.argv[1:])
    text = report(rows, extra, sizes, command)
    print(text)
    write_reports(args.out, {"web2text_seeds.md": text})
    return 0


if __name__ == "__main__":
    sys.exit(main())
