"""Entity lists: how much the re-ranker over dense, question-independent features adds
to the log-linear model on questions never seen, by grouped cross-validation.

    python benchmarks/entities_rerank.py [--data datasets] [--seeds 0 1 2] [--without-filtered]
        [--without-questions] [--derived questions|every]
        [--extra-headings N [--extra-weight W] [--extra-ranker]] [--out DIR]

On the template split's training parts only (the test parts are not read), the grouped
cross-validation of ``entities_eval.py --cv --cv-cells``: every (template fold, page fold)
cell gets a model trained on the examples of neither fold, so that every example is scored
by a model that never saw its question template nor its page. Each example is featurised
once; the log-linear model is trained by a NumPy copy of
:func:`scrapy_boilerplate.entities.model.train` (the same AdaGrad, λ, step, passes, style
copies and heading questions weighted 0.3; the examples are visited in another order, so a
seed's figures differ from ``--cv``'s by the order's noise). Beside it, per cell:

* the re-ranker the package ships (:mod:`scrapy_boilerplate.entities.rerank`: LightGBM
  lambdarank over dense features of each candidate: its size, what its entities look
  like, how it was read, its nodes' tag, the query's overlap with its context, nearest
  heading and label and how far each falls below the page's best, its share of the
  largest list under the same heading, the query's style and category), trained alone;
* the two together: the log-linear log-probability plus ``β`` times the ranker's score,
  for each ``β`` of :data:`BETAS`;
* those (``β`` = 1) plus ``γ`` times the logarithm of the list's number of entities, for
  each ``γ`` of :data:`SIZES` (a size prior: the rank's ``size``);
* the shipped ranking: the ``β`` and ``γ`` of the query's style
  (``rerank.STYLE_WEIGHTS``, else ``rerank.BETA`` and ``rerank.SIZE``), and a list cut
  out of the best one by a number or a name of the question put in its place
  (``extract.promote_cut``);
* that ranking for every ``β`` of :data:`GRID_BETAS` and ``γ`` of :data:`GRID_SIZES`,
  with the best pair of each set: each set's scored queries are of one style, so its
  best pair is the one its style ships with.

Each example is ranked among its page's candidates and the lists its question cuts out
of them (``PageCandidates.asked``), as the shipped model ranks them;
``--without-filtered`` ranks the page's candidates alone. wikitablequestions-lists'
WikiTableQuestions questions (``entities_eval.QUESTIONS``) train every cell but those of
their page's fold and are never scored; ``--without-questions`` leaves them out.

``--extra-headings N`` adds, to every cell's training, the heading questions of N pages of
wcxb-dev's training split (``web2text_train``; main-content pages of every kind, CC-BY-4.0,
never an example of the entity sets), :data:`EXTRA_QUESTIONS` a page, weighted
``--extra-weight``: more synthetic question-list pairs, on pages of other sites than the
entity sets'. They train the log-linear model, and the ranker too with ``--extra-ranker``.

Prints accuracy (the top list is compatible) and oracle per set, seed and variant, and
writes DIR/entities_rerank.md with ``--out DIR``. Needs LightGBM (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

import scrapy_boilerplate as sb
from entities_eval import (
    FOLDS,
    HEADING_SETS,
    L2,
    PASSES,
    QUESTIONS,
    STEP,
    cv_fold,
    cv_fold_page,
    load,
)
from harness.datasets import load as load_pages
from harness.entities_data import HEADING_WEIGHT, compatible, heading_questions, missing_message
from harness.output import add_out, write_reports
from scrapy_boilerplate.entities.extract import DERIVED_EVERY, DERIVED_FOR, PageCandidates, cuts_of
from scrapy_boilerplate.entities.features import query_style, styled
from scrapy_boilerplate.entities.model import STYLE_PREFIX
from scrapy_boilerplate.entities.rerank import BETA, DENSE, SIZE, STYLE_WEIGHTS, dense, fit

#: The column of the dense matrix holding log(number of entities).
LOG_ENTITIES = DENSE.index("log_entities")

BETAS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
#: The weights of log(number of entities) tried beside the log-linear model and the ranker
#: (weight 1; a question's shipped ``size``: :data:`scrapy_boilerplate.entities.rerank.SIZE`).
SIZES = (0.5, 1.0, 2.0)
#: The grid of the shipped ranking's two weights (β of the ranker, γ of the size prior)
#: searched per query style.
GRID_BETAS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
GRID_SIZES = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0)
#: ``--extra-headings``: the set and split the pages come from, the heading questions
#: read off each, and the most candidates a page may have (a larger page is skipped).
EXTRA_SET, EXTRA_SPLIT = "wcxb-dev", "web2text_train"
EXTRA_QUESTIONS = 3
EXTRA_MAX_CANDIDATES = 1500
#: The set name of those rows (never scored).
EXTRA = "extra"


class Row:
    """One featurised example (or heading question): sparse feature ids with their style
    copies, compatibility, the tie-break keys of ``rank`` and the dense matrix."""

    def __init__(self, name: str, scored: bool, fold: tuple[int, int], query: str,
                 pc: PageCandidates, ok: list[bool], weight: float,
                 vocab: dict[str, int]) -> None:  # fmt: skip
        self.name, self.scored, self.fold, self.weight = name, scored, fold, weight
        self.ok = np.array(ok, dtype=bool)
        self.ties = [(len(c.nodes), -c.first) for c in pc.candidates]
        self.dense = dense(pc, query)
        self.style = style = query_style(query)
        ids: list[int] = []
        owner: list[int] = []
        for i, feats in enumerate(pc.features(query)):
            for k in feats:  # (every feature's value is 1)
                ids.append(vocab.setdefault(k, len(vocab)))
                owner.append(i)
                if styled(k):
                    ids.append(vocab.setdefault(STYLE_PREFIX.format(style) + k, len(vocab)))
                    owner.append(i)
        self.uniq, self.inv = np.unique(np.array(ids, dtype=np.int64), return_inverse=True)
        self.owner = np.array(owner, dtype=np.int64)
        self.log_counts = np.log(np.array(pc.counts(), dtype=float))
        # what extract.promote_cut reads: the page's own candidates, and the cut lists
        # by a number or a name of the question that each of them holds
        self.page_count = pc.page_count
        self.cuts: dict[int, list[int]] = {}
        if pc.page_count < len(pc.candidates):
            for i in range(pc.page_count):
                cuts = cuts_of(pc, i)
                if cuts:
                    self.cuts[i] = cuts

    def scores(self, w: np.ndarray) -> np.ndarray:
        """``θ · φ + log(count)`` of every candidate."""
        per = w[self.uniq][self.inv]
        return np.bincount(self.owner, weights=per, minlength=len(self.ok)) + self.log_counts

    def best(self, s: np.ndarray) -> int:
        return max(range(len(s)), key=lambda i: (s[i], *self.ties[i]))

    def promoted(self, s: np.ndarray) -> int:
        """:meth:`best`, then :func:`~scrapy_boilerplate.entities.extract.promote_cut`'s
        choice: the best of the cut lists by a number or a name of the best list."""
        top = self.best(s)
        cuts = self.cuts.get(top, []) if top < self.page_count else []
        return max(cuts, key=lambda i: (s[i], *self.ties[i])) if cuts else top


def train_loglinear(rows: list[Row], size: int, seed: int, passes: int = PASSES,
                    l2: float = L2, step: float = STEP) -> np.ndarray:  # fmt: skip
    """:func:`scrapy_boilerplate.entities.model.train` on ``rows``, in NumPy."""
    w = np.zeros(size)
    g2 = np.zeros(size)
    usable = [r for r in rows if r.ok.any()]
    n = max(len(usable), 1)
    order = list(range(len(usable)))
    rng = random.Random(seed)
    for _ in range(passes):
        rng.shuffle(order)
        for i in order:
            r = usable[i]
            s = r.scores(w)
            p = np.exp(s - s.max())
            p /= p.sum()
            coef = (np.where(r.ok, p / p[r.ok].sum(), 0.0) - p) * r.weight
            coef[np.abs(coef) < 1e-12] = 0.0
            g = np.bincount(r.inv, weights=coef[r.owner], minlength=len(r.uniq))
            touched = np.bincount(r.inv, weights=(coef[r.owner] != 0), minlength=len(r.uniq)) > 0
            u, g = r.uniq[touched], g[touched]
            g = g - l2 / n * w[u]
            g2[u] += g * g
            live = g2[u] > 0
            w[u[live]] += step * g[live] / np.sqrt(g2[u[live]])
    return w


def train_ranker(rows: list[Row], seed: int) -> Any:
    """The shipped re-ranker's training (:func:`scrapy_boilerplate.entities.rerank.fit`)."""
    return fit([r.dense for r in rows], [r.ok for r in rows], seed=seed)


def featurise(
    data: Path,
    filtered: bool = True,
    questions: bool = True,
    derived: str = DERIVED_FOR,
    extra: int = 0,
    extra_weight: float = HEADING_WEIGHT,
) -> tuple[list[Row], int]:
    """Every example of the template split's training parts (and the heading questions of
    its pages) as a :class:`Row`; ``filtered``: with the lists its question's words cut
    out of the page's (``PageCandidates.asked``), as the shipped model ranks them;
    ``questions``: with wikitablequestions-lists' WikiTableQuestions questions, which
    train the cells of other pages' folds and are never scored (``entities_eval.QUESTIONS``);
    ``derived``: the queries the derived lists are added for (``PageCandidates.candidates_for``);
    ``extra``: the pages of ``--extra-headings`` (their rows train every cell)."""
    sets, groups = load(data)
    vocab: dict[str, int] = {}
    rows: list[Row] = []
    t0 = time.perf_counter()
    for name, parts in sets.items():
        current: dict[Path, PageCandidates] = {}
        for ex in sorted(parts["train@template"], key=lambda e: str(e.page)):
            fold = cv_fold(ex, groups)
            if ex.page not in current:
                current = {ex.page: PageCandidates(sb.parse(ex.html()))}
                if name in HEADING_SETS:
                    pc = current[ex.page].with_derived()  # (the heading questions' candidates)
                    for q, ok in heading_questions(pc.candidates):
                        rows.append(Row(name, False, (-1, fold[1]), q, pc, ok, HEADING_WEIGHT,
                                        vocab))  # fmt: skip
            pc = current[ex.page].candidates_for(ex.query, filtered=filtered, derived=derived)
            ok = [compatible(c.entities, ex) for c in pc.candidates]
            rows.append(Row(name, True, fold, ex.query, pc, ok, 1.0, vocab))
        for ex in parts.get(QUESTIONS, []) if questions else []:  # training only
            pc = PageCandidates(sb.parse(ex.html()))
            pc = pc.candidates_for(ex.query, filtered=filtered, derived=derived)
            ok = [compatible(c.entities, ex) for c in pc.candidates]
            if any(ok):  # (as entities_eval trains them)
                rows.append(Row(name, False, (-1, cv_fold_page(ex)), ex.query, pc, ok, 1.0, vocab))
        print(f"{name}: featurised in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if extra:
        rows += extra_rows(data, extra, extra_weight, vocab)
    return rows, len(vocab)  # (the style copies are in the vocabulary)


def extra_rows(data: Path, n: int, weight: float, vocab: dict[str, int]) -> list[Row]:
    """The heading questions of ``n`` pages of :data:`EXTRA_SET` (in the order of their
    ids' CRC-32; pages without a heading question, or with more than
    :data:`EXTRA_MAX_CANDIDATES` candidates, skipped), as rows that train every cell."""
    pages = sorted(load_pages(EXTRA_SET, data, split=EXTRA_SPLIT, with_blocks=False),
                   key=lambda p: zlib.crc32(p.id.encode("utf-8")))  # fmt: skip
    rows: list[Row] = []
    used = 0
    t0 = time.perf_counter()
    for page in pages:
        if used >= n:
            break
        pc = PageCandidates(sb.parse(page.html)).with_derived()
        if len(pc.candidates) > EXTRA_MAX_CANDIDATES:
            continue
        asked = heading_questions(pc.candidates, EXTRA_QUESTIONS)
        if asked:
            used += 1
            rows += [Row(EXTRA, False, (-1, -1), q, pc, ok, weight, vocab) for q, ok in asked]
    print(f"{EXTRA_SET}: {len(rows)} heading questions on {used} pages in "
          f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)  # fmt: skip
    return rows


def grid_lines(grid: dict[tuple[str, float, float], list[float]], seeds: list[int]) -> list[str]:
    """The grid of the two weights, per set, as Markdown: the mean accuracy over the seeds
    of the shipped ranking (log-linear + β x ranker + γ x log(entities), a cut by a number
    or a name promoted) for every β of :data:`GRID_BETAS` and γ of :data:`GRID_SIZES`,
    and the pair with the best mean. Each set's scored queries are of one style
    (wikitablequestions-lists' titles, webqa-utopia-dev's questions), so a set's best pair
    is its style's (``rank``'s weights per query style: ``Ranker.styles``)."""
    out = [
        "",
        "## The two weights per query style",
        "",
        "Accuracy of log-linear + β x ranker + γ x log(entities), a cut by a number or a "
        f"name promoted (no cut is made for a title), mean of the seeds "
        f"{', '.join(map(str, seeds))}; the best pair of each set in bold. "
        "wikitablequestions-lists scores titles alone and webqa-utopia-dev questions alone, "
        "so each set's best pair is its query style's.",
    ]
    for name in sorted({key[0] for key in grid}):
        means = {(b, g): statistics.mean(grid[(name, b, g)]) for b in GRID_BETAS
                 for g in GRID_SIZES}  # fmt: skip
        best = max(means, key=lambda k: (means[k], -k[0], -k[1]))
        out += ["", f"{name} (best: β = {best[0]}, γ = {best[1]}):", "",
                "| β \\ γ | " + " | ".join(str(g) for g in GRID_SIZES) + " |",
                "| --- | " + " | ".join("---:" for _ in GRID_SIZES) + " |"]  # fmt: skip
        for b in GRID_BETAS:
            cells = [f"**{means[(b, g)]:.3f}**" if (b, g) == best else f"{means[(b, g)]:.3f}"
                     for g in GRID_SIZES]  # fmt: skip
            out.append(f"| {b} | " + " | ".join(cells) + " |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("datasets"))
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument(
        "--without-filtered",
        action="store_true",
        help="rank the page's own candidates only, without the lists the question's words "
        "cut out of them",
    )
    ap.add_argument(
        "--without-questions",
        action="store_true",
        help="train without wikitablequestions-lists' WikiTableQuestions questions",
    )
    ap.add_argument(
        "--derived",
        choices=(DERIVED_FOR, DERIVED_EVERY),
        default=DERIVED_FOR,
        help="the queries the derived candidates are added for (the shipped rule: questions)",
    )
    ap.add_argument(
        "--extra-headings",
        type=int,
        default=0,
        metavar="N",
        help=f"train every cell on the heading questions of N {EXTRA_SET} pages too",
    )
    ap.add_argument(
        "--extra-weight",
        type=float,
        default=HEADING_WEIGHT,
        help="(with --extra-headings) their weight against an annotated example",
    )
    ap.add_argument(
        "--extra-ranker",
        action="store_true",
        help="(with --extra-headings) train the ranker on them too",
    )
    add_out(ap, "entities_rerank.md")
    args = ap.parse_args(argv)
    if not (args.data / "webqa-utopia-dev").is_dir():
        print(missing_message(args.data), file=sys.stderr)
        return 1
    if args.extra_headings and not (args.data / EXTRA_SET).is_dir():
        print(f"--extra-headings needs {args.data / EXTRA_SET}: unpack it with "
              f"`../shared/data/unpack {args.data} {EXTRA_SET}`", file=sys.stderr)  # fmt: skip
        return 1
    rows, size = featurise(
        args.data,
        filtered=not args.without_filtered,
        questions=not args.without_questions,
        derived=args.derived,
        extra=args.extra_headings,
        extra_weight=args.extra_weight,
    )
    hits: dict[tuple[str, str], list[float]] = {}
    oracle: dict[str, float] = {}
    #: (set, β, γ) -> accuracy of each seed
    grid_hits: dict[tuple[str, float, float], list[float]] = {}
    for seed in args.seeds:
        per: dict[tuple[str, str], list[bool]] = {}
        grid: dict[tuple[str, float, float], list[bool]] = {}
        for tf in range(FOLDS):
            for pf in range(FOLDS):
                train = [r for r in rows if r.fold[0] != tf and r.fold[1] != pf]
                w = train_loglinear(train, size, seed)
                ranker = train_ranker(
                    train if args.extra_ranker else [r for r in train if r.name != EXTRA], seed
                )
                for r in rows:
                    if r.fold != (tf, pf) or not r.scored:
                        continue
                    s = r.scores(w)
                    logp = s - s.max() - math.log(np.exp(s - s.max()).sum())
                    tree = np.asarray(ranker.predict(r.dense))
                    per.setdefault((r.name, "ranker"), []).append(bool(r.ok[r.best(tree)]))
                    for beta in BETAS:
                        key = (r.name, f"log-linear + {beta} x ranker" if beta else "log-linear")
                        per.setdefault(key, []).append(bool(r.ok[r.best(logp + beta * tree)]))
                    log_size = r.dense[:, LOG_ENTITIES].astype(np.float64)
                    for gamma in SIZES:
                        key = (r.name, f"log-linear + 1.0 x ranker + {gamma} x log(entities)")
                        got = r.best(logp + tree + gamma * log_size)
                        per.setdefault(key, []).append(bool(r.ok[got]))
                    beta, gamma = STYLE_WEIGHTS.get(r.style, (BETA, SIZE))
                    key = (r.name, "shipped: log-linear + β x ranker + γ x log(entities) with "
                           "the query style's β and γ, a cut by a number or a name "
                           "promoted")  # fmt: skip
                    got = r.promoted(logp + beta * tree + gamma * log_size)
                    per.setdefault(key, []).append(bool(r.ok[got]))
                    per.setdefault((r.name, "oracle"), []).append(bool(r.ok.any()))
                    for beta in GRID_BETAS:
                        for gamma in GRID_SIZES:
                            got = r.promoted(logp + beta * tree + gamma * log_size)
                            grid.setdefault((r.name, beta, gamma), []).append(bool(r.ok[got]))
        for (name, variant), got in sorted(per.items()):
            if variant == "oracle":
                oracle[name] = sum(got) / len(got)
                continue
            hits.setdefault((name, variant), []).append(sum(got) / len(got))
            print(f"seed {seed}: {name}: {variant}: accuracy {sum(got) / len(got):.3f} "
                  f"({sum(got)} of {len(got)})", flush=True)  # fmt: skip
        for key, got in grid.items():
            grid_hits.setdefault(key, []).append(sum(got) / len(got))
    queries = "every query" if args.derived == DERIVED_EVERY else "questions alone"
    lines = [
        "# Entity lists: the re-ranker over dense features, cross-validated",
        "",
        "`python benchmarks/entities_rerank.py`: grouped cross-validation on the template "
        "split's training parts (every example scored by a model that saw neither its "
        "question template nor its page), the log-linear model (NumPy copy of its "
        f"training), a LightGBM ranker over {len(DENSE)} dense features, and the two "
        "together (log-probability + β x the ranker's score). Accuracy; mean of the seeds "
        f"{', '.join(map(str, args.seeds))} (each seed in the seeds column). The derived "
        f"candidates are added for {queries} (`--derived {args.derived}`).",
        "",
        "| set | variant | accuracy | seeds | oracle |",
        "| --- | --- | ---: | --- | ---: |",
    ]
    for (name, variant), accs in sorted(hits.items()):
        lines.append(f"| {name} | {variant} | {statistics.mean(accs):.3f} | "
                     f"{' / '.join(f'{a:.3f}' for a in accs)} | {oracle[name]:.3f} |")  # fmt: skip
    lines += grid_lines(grid_hits, args.seeds)
    text = "\n".join(lines)
    print(text)
    write_reports(args.out, {"entities_rerank.md": text + "\n"})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
