#!/usr/bin/env python
"""Web2Text block quality on the CleanEval *validation* pages (what may guide choices).

    python benchmarks/web2text_valid.py [--data datasets] --models cleaneval /tmp/m.onnx
        [--lambdas 0 0.05 0.1 0.2 0.5 1]

The validation pages are those ``train_web2text.py`` holds out of cleaneval
``web2text_train`` (every 10th page in id order: 59 pages), labelled from the paper's own
alignment (``.aligned.txt``). For every model: accuracy, precision, recall and F1 of the
content class, every block weighted the same and micro-averaged (as Table 1), for the
unary argmax and for Viterbi at each ``--lambdas`` value (the paper's eq. 3 lambda). The
test split is never read here.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("SCRAPY_BOILERPLATE_ORT_THREADS", "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scrapy_boilerplate.extractors.web2text.model import load_model  # noqa: E402
from scrapy_boilerplate.extractors.web2text.viterbi import viterbi  # noqa: E402
from web2text_eval import _count, cleaneval_features, scores  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=HERE.parent / "datasets")
    parser.add_argument("--models", nargs="+", default=["cleaneval"])
    parser.add_argument("--lambdas", type=float, nargs="+", default=[0.1])
    args = parser.parse_args(argv)
    models = {name: load_model(name) for name in args.models}
    modes = [(m, lam) for m in args.models for lam in [None, *args.lambdas]]
    counts = {mode: [0, 0, 0, 0] for mode in modes}
    rows = cleaneval_features(args.data, "validation")
    for b, e, gold in rows:
        for name, model in models.items():
            unary, pairwise = model.potentials(b, e)
            for lam in [None, *args.lambdas]:
                if lam is None:
                    labels = [bool(x) for x in unary.argmax(1)]
                else:
                    labels = [bool(x) for x in viterbi(unary, pairwise, lam)]
                _count(counts[(name, lam)], labels, gold)
    pages, blocks = len(rows), sum(len(gold) for _, _, gold in rows)
    print(f"cleaneval validation: {pages} pages, {blocks} blocks")
    print("| model | mode | accuracy | precision | recall | F1 |")
    print("|---|---|---|---|---|---|")
    for (name, lam), c in counts.items():
        s = scores(*c)
        how = "unary" if lam is None else f"viterbi {lam:g}"
        print(
            f"| {name} | {how} | {s['accuracy']:.4f} | {s['precision']:.4f} "
            f"| {s['recall']:.4f} | {s['f1']:.4f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
