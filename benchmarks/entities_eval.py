"""Zero-shot entity extraction: train the log-linear model and evaluate it as the paper does.

    python benchmarks/entities_eval.py [--data datasets] [--save] [--out DIR]
    python benchmarks/entities_eval.py --cv         # cross-validation grouped by template and page
    python benchmarks/entities_eval.py --cv --cv-cells --seeds 0 1 2  # every example, 3 orders
    python benchmarks/entities_eval.py --causes     # why the right list is missing (train parts)
    python benchmarks/entities_eval.py --templates  # the question templates, to check by eye
    python benchmarks/entities_eval.py --report-from benchmarks/results/entities.json --out DIR

Data (../shared/data, unpacked with ``../shared/data/unpack datasets``):
wikitablequestions-lists (its own train / test split, by page) and webqa-utopia-dev's list
examples, split two ways, both fixed by a stable CRC-32 before any training: by page (30 %
of the pages in test) and by page and question template together (30 % of the pages and
30 % of the templates; a test example has both held out, a training example neither:
:func:`load`). For each split a model is trained on its train parts (AdaGrad, λ = 0.01,
5 passes; a weight per query style for the features that are not denotation features;
webqa-utopia-dev's training pages also give question-list pairs read off their own
headings, :func:`~harness.entities_data.heading_questions`, weighted 0.3; beside it, on
the same examples, the re-ranker over dense features of
:mod:`scrapy_boilerplate.entities.rerank`, kept in the model's metadata) and evaluated on
its test parts: accuracy (the top list is compatible: first,
second and last entities match, edit distance <= 2), accuracy@5, oracle (any candidate
is compatible), and the paper's baseline (the most frequent path-suffix pattern of the
training data's compatible predicates: the last 5 entries as a multiset, indices as [*])
in the same run. Time per page: parsing, generation and features (once per page) plus
scoring a query.

``--save`` writes the template split's model into the package
(src/scrapy_boilerplate/entities/model/) with its results (no timings: the same command
writes the same file); the results are printed, and written to DIR/entities.md (and
entities.json) with ``--out DIR``."""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import scrapy_boilerplate as sb
from harness.entities_data import (
    CAUSES,
    HEADING_WEIGHT,
    Example,
    compatible,
    heading_questions,
    miss_cause,
    missing_message,
    page_of,
    read_openweb,
    read_webqa,
    read_wtq_questions,
    stable_share,
    template_groups,
)
from harness.output import add_out, write_reports
from scrapy_boilerplate.entities.derive import derive, group_pattern
from scrapy_boilerplate.entities.distinct import distinct_lists
from scrapy_boilerplate.entities.extract import (
    DEFAULT_MODEL,
    DERIVED_EVERY,
    DERIVED_FOR,
    MAX_ENTITY_CHARS,
    PageCandidates,
    rank,
)
from scrapy_boilerplate.entities.features import query_style
from scrapy_boilerplate.entities.filtered import Records, filtered
from scrapy_boilerplate.entities.model import PackedTrainingPage, TrainingPage, train
from scrapy_boilerplate.entities.pageindex import PageIndex
from scrapy_boilerplate.entities.predicates import ANY, Predicate, generate
from scrapy_boilerplate.entities.rerank import BETA, SIZE, STYLE_WEIGHTS, dense, fit, ranker_data

TEST_SHARE = 0.3
#: The splits evaluated: ``page`` holds out pages (a question seen in training may come
#: back on a held-out page), ``template`` holds out pages and question templates together.
SPLITS = ("page", "template")
#: The sets whose training pages also give question-list pairs read off their own
#: headings (:func:`~harness.entities_data.heading_questions`). Not wikitablequestions-lists:
#: its queries are page titles asking for the main table, and its headings' pairs lowered
#: its cross-validated accuracy (docs/entities.md).
HEADING_SETS = ("webqa-utopia-dev",)
#: The part of a set (:func:`load`) that only trains: wikitablequestions-lists'
#: WikiTableQuestions questions, each worded apart from every other, asked of pages that
#: are not its test pages. Only those with a compatible candidate train (42 of 150): the
#: log-linear model skips the others anyway, and holding their features would take
#: gigabytes. Chosen by the grouped cross-validation (docs/entities.md).
QUESTIONS = "questions"
#: The log-linear model's training settings (:func:`scrapy_boilerplate.entities.model.train`):
#: AdaGrad's step, the L2 penalty λ and the passes, as the shipped model was trained.
STEP = 0.03
L2 = 0.01
PASSES = 5


def webqa_split(page_id: str) -> str:
    return "test" if stable_share(page_id) < TEST_SHARE * 100 else "train"


def load(data: Path) -> tuple[dict[str, dict[str, list[Example]]], dict[str, str]]:
    """The examples by set and part, and every example's template group.

    Parts: ``train`` / ``test`` (by page) and ``train@template`` / ``test@template``:
    webqa-utopia-dev's template-disjoint split, where a test example's page and template
    group are both held out (CRC-32 of each, 30 %) and a training example's are both
    kept (the examples of a held-out page with a kept template, or the reverse, are in
    neither). wikitablequestions-lists keeps its own split by page in both (its queries
    are page titles: 17 of its 62 test queries share a template with a training one).
    Its part ``questions`` (:data:`QUESTIONS`) holds the set's WikiTableQuestions questions
    (:func:`~harness.entities_data.read_wtq_questions`) that are not asked of one of its
    test pages: more training examples for both splits, never evaluated."""
    sets: dict[str, dict[str, list[Example]]] = {}
    wtq = data / "wikitablequestions-lists"
    if (wtq / "lists.train.json").exists():
        train, test = read_openweb(wtq / "lists.train.json"), read_openweb(wtq / "lists.test.json")
        held_out = {ex.page for ex in test}
        questions = [q for q in read_wtq_questions(wtq) if q.page not in held_out]
        sets["wikitablequestions-lists"] = {
            "train": train, "test": test, "train@template": train, "test@template": test,
            QUESTIONS: questions,
        }  # fmt: skip
    webqa = data / "webqa-utopia-dev"
    if (webqa / "examples.jsonl").exists():
        examples = read_webqa(webqa)
        groups = template_groups(examples)
        page_test = {e.id: webqa_split(page_of(e)) == "test" for e in examples}
        tmpl_test = {e.id: stable_share(groups[e.id]) < TEST_SHARE * 100 for e in examples}
        sets["webqa-utopia-dev"] = {
            "train": [e for e in examples if not page_test[e.id]],
            "test": [e for e in examples if page_test[e.id]],
            "train@template": [e for e in examples
                               if not page_test[e.id] and not tmpl_test[e.id]],
            "test@template": [e for e in examples if page_test[e.id] and tmpl_test[e.id]],
        }  # fmt: skip
    groups = template_groups([e for parts in sets.values() for e in parts["train"] + parts["test"]])
    return sets, groups


def suffix_pattern(p: Predicate, length: int = 5) -> tuple[str, ...]:
    """The baseline's pattern: the last entries as a multiset, any index written [*]."""
    return tuple(sorted(tag if idx is ANY else f"{tag}[*]" for tag, idx in p.entries[-length:]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path("datasets"))
    add_out(ap, "entities.md, entities.json")
    ap.add_argument("--save", action="store_true", help="write the trained model into the package")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument(
        "--step",
        type=float,
        default=STEP,
        help=f"AdaGrad step size (the paper gives none; {STEP} had the best 5-fold "
        "cross-validated accuracy on the training examples, folds by page, among 1, 0.3, "
        "0.1 and 0.03)",
    )
    ap.add_argument("--l2", type=float, default=L2, help="L2 regularisation λ")
    ap.add_argument("--passes", type=int, default=PASSES, help="AdaGrad passes")
    ap.add_argument("--limit", type=int, default=0, help="examples per split (0: all)")
    ap.add_argument(
        "--cv",
        action="store_true",
        help="cross-validation grouped by template and page on the template split's "
        "training examples only (how every setting is chosen); the test parts are not read",
    )
    ap.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0],
        help="(with --cv) the AdaGrad orders to run, each a seed of the pages' shuffle; the "
        "order alone moves the accuracy by several examples, so compare means",
    )
    ap.add_argument(
        "--cv-cells",
        action="store_true",
        help="(with --cv) score every example, not only the diagonal folds: one model per "
        "(template fold, page fold) cell, trained on the examples of neither its template "
        "fold nor its page fold (16 models, about four times the examples scored)",
    )
    ap.add_argument(
        "--templates",
        action="store_true",
        help="print every question template group, its examples and its side of the split",
    )
    ap.add_argument(
        "--causes",
        action="store_true",
        help="count why the right list is not among the candidates (training parts only)",
    )
    ap.add_argument("--verbose", action="store_true", help="(with --causes) every miss")
    ap.add_argument(
        "--without",
        action="append",
        default=[],
        choices=("derived", "filtered", "headings", "questions", "styles", "ranker"),
        help="leave out a part (for the cross-validation of each): the derived candidates, "
        "the lists the question's words cut out of the page's (filtered), "
        "the question-list pairs read off the training pages' headings, "
        "wikitablequestions-lists' WikiTableQuestions questions, the weights per "
        "query style, the re-ranker over dense features",
    )
    ap.add_argument(
        "--derived",
        choices=(DERIVED_FOR, DERIVED_EVERY),
        default=DERIVED_FOR,
        help="the queries the derived candidates are added for: questions (a title names "
        "the page's main list, which the paper's predicates select whole; the shipped "
        "rule) or every query (the rule before it)",
    )
    ap.add_argument(
        "--report-from",
        type=Path,
        metavar="JSON",
        help="write entities.md again from an entities.json this script wrote (the same "
        "figures; nothing is trained or read from the datasets)",
    )
    args = ap.parse_args(argv)
    if args.report_from is not None:
        lines = report_lines(json.loads(args.report_from.read_text(encoding="utf-8")))
        print("\n".join(lines))
        write_reports(args.out, {"entities.md": "\n".join(lines) + "\n"})
        return 0
    sets, groups = load(args.data)
    if not sets:
        print(missing_message(args.data), file=sys.stderr)
        return 1
    if args.templates:
        return print_templates(sets, groups)
    if args.causes:
        return oracle_causes(sets, args)
    pages: dict[Path, PageCandidates] = {}
    page_seconds: dict[Path, float] = {}
    own: dict[Path, PageCandidates] = {}  # (the page's derived lists, held with the page)

    def candidates_of(ex: Example) -> PageCandidates:
        """The page's candidates, made once; timed with its derived lists where its
        questions rank among them (a page is asked questions or titles, not both), so
        that both splits' medians count them."""
        if ex.page not in pages:
            t0 = time.perf_counter()
            pc = page_candidates(ex, args)
            if args.derived == DERIVED_EVERY or query_style(ex.query) == "question":
                own[ex.page] = pc.with_derived()
            pages[ex.page] = pc
            page_seconds[ex.page] = time.perf_counter() - t0
        return pages[ex.page]

    if args.cv:
        return cross_validate(sets, groups, args)
    featurised: dict[str, TrainingPage] = {}
    headings: dict[Path, list[TrainingPage]] = {}
    matrices: dict[int, Any] = {}  # id(TrainingPage) -> its candidates' ranker input
    styles = "styles" not in args.without
    ranked = "ranker" not in args.without
    filters = "filtered" not in args.without

    def asked(ex: Example, keep: bool = True) -> PageCandidates:
        """The candidates ``ex``'s question is ranked among (``rank`` does the same with
        a model trained with filtered lists); ``keep=False``: the page's candidates are
        made for this question alone, not kept (a training-only question's page, which
        no test example asks of: holding every page's candidates to the end is what
        fills the memory)."""
        pc = candidates_of(ex) if keep else page_candidates(ex, args)
        return pc.candidates_for(ex.query, filtered=filters, derived=args.derived)

    def training_page(ex: Example, keep: bool = True) -> TrainingPage:
        """``ex`` featurised, once; a training-only question's page (``keep=False``)
        without any compatible candidate is not featurised: nothing trains on it."""
        key = f"{ex.source}/{ex.id}"
        if key not in featurised:
            pc = asked(ex, keep)
            ok = [compatible(c.entities, ex) for c in pc.candidates]
            style = query_style(ex.query) if styles else None
            if not keep and not any(ok):
                featurised[key] = TrainingPage([], pc.counts(), ok, style)
                return featurised[key]
            featurised[key] = PackedTrainingPage(pc.features(ex.query), pc.counts(), ok, style)
            if ranked:
                matrices[id(featurised[key])] = dense(pc, ex.query)
        return featurised[key]

    def heading_pages(ex: Example) -> list[TrainingPage]:
        if ex.page not in headings:
            pc = candidates_of(ex).with_derived()  # (the heading questions' candidates)
            asked = [(q, packed(page)) for q, page in heading_training(pc, styles)]
            headings[ex.page] = [page for _, page in asked]
            if ranked:
                for q, page in asked:
                    matrices[id(page)] = dense(pc, q)
        return headings[ex.page]

    report: dict[str, Any] = {"splits": {}}
    model = None
    for split in SPLITS:
        part = "" if split == "page" else "@template"
        training: list[TrainingPage] = []
        patterns: Counter[tuple[str, ...]] = Counter()
        n_train = 0
        n_headings = 0
        n_questions = 0
        for name, parts in sets.items():
            examples = parts["train" + part][: args.limit or None]
            n_train += len(examples)
            seen: set[Path] = set()
            for ex in examples:
                page = training_page(ex)
                training.append(page)
                if with_headings(name, args) and ex.page not in seen:
                    seen.add(ex.page)
                    more = heading_pages(ex)
                    training.extend(more)
                    n_headings += len(more)
                for c, good in zip(asked(ex).candidates, page.compatible, strict=True):
                    if good:
                        patterns.update(suffix_pattern(p) for p in c.predicates)
            for ex in training_questions(parts, args):  # (not the baseline's patterns)
                page = training_page(ex, keep=False)
                if any(page.compatible):  # (see QUESTIONS)
                    training.append(page)
                    n_questions += 1
        t0 = time.perf_counter()
        model = train(training, step=args.step, l2=args.l2, passes=args.passes)
        model.meta["filtered"] = filters  # (rank cuts the question's lists out, as trained)
        model.meta["derived"] = args.derived  # (and adds the derived lists as trained)
        if ranked:  # the re-ranker, on the same examples (rerank.py; its weights BETA, SIZE
            # and the query styles' own, STYLE_WEIGHTS)
            booster = fit([matrices[id(p)] for p in training], [p.compatible for p in training])
            model.meta["ranker"] = ranker_data(booster, BETA, SIZE, STYLE_WEIGHTS)
        train_s = time.perf_counter() - t0
        print(f"split by {split}: trained on {n_train} examples, {n_questions} "
              f"WikiTableQuestions questions and {n_headings} heading questions in "
              f"{train_s:.1f} s", flush=True)  # fmt: skip
        model.meta.update(
            train_examples=n_train,
            heading_questions=n_headings,
            wtq_questions=n_questions,
            train_sets={n: len(s["train" + part][: args.limit or None]) for n, s in sets.items()},
            split=split,
            command=f"python benchmarks/entities_eval.py --save --step {args.step}",
            k=args.k,
        )
        results = {
            "train_examples": n_train,
            "wtq_questions": n_questions,
            "train_seconds": train_s,
            "sets": {},
        }
        for name, parts in sets.items():
            examples = parts["test" + part][: args.limit or None]
            res = evaluate(examples, model, patterns, candidates_of, page_seconds)
            results["sets"][name] = res
        report["splits"][split] = results
    assert model is not None
    lines = report_lines(report)
    print("\n".join(lines))
    files = {"entities.md": "\n".join(lines) + "\n", "entities.json": json.dumps(report, indent=1)}
    write_reports(args.out, files)
    if args.save:  # the template split's model: its figures are the honest ones
        # (no timings in the file: the same command writes the same file)
        def untimed(sets: dict[str, Any]) -> dict[str, Any]:
            return {n: {k: v for k, v in r.items() if k != "median_ms"} for n, r in sets.items()}

        model.meta["results"] = untimed(report["splits"]["template"]["sets"])
        model.meta["results_by_page_split"] = untimed(report["splits"]["page"]["sets"])
        model.save(DEFAULT_MODEL)
        print(f"saved {DEFAULT_MODEL}")
    return 0


#: z for a two-sided 95 % interval
Z95 = 1.959964


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion of ``successes`` in ``n`` (95 % by
    default): with the few examples of a held-out question template, one example moves
    the accuracy by several points, and the interval says how far the figure can be
    trusted. ``(0.0, 1.0)`` for ``n == 0``."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


def report_lines(report: dict[str, Any]) -> list[str]:
    """entities.md's lines from the report that :func:`main` writes to entities.json: a
    row per split and set, with the number of examples behind each accuracy and its 95 %
    interval (:func:`wilson`)."""
    rows = []
    for split, results in report["splits"].items():
        for name, res in results["sets"].items():
            n = res["examples"]
            hits = round(res["accuracy"] * n)
            low, high = wilson(hits, n)
            base = round(res["baseline_accuracy"] * n)
            rows.append(
                f"| {split} | {name} | {n} | {res['accuracy']:.3f} ({hits}) | "
                f"{low:.3f}-{high:.3f} | {res['accuracy_at_5']:.3f} | {res['oracle']:.3f} | "
                f"{res['accuracy'] / res['oracle'] if res['oracle'] else 0:.2f} | "
                f"{res['baseline_accuracy']:.3f} ({base}) | {res['median_ms']:.0f} |"
            )
    page_tr = report["splits"]["page"]["train_examples"]
    tmpl_tr = report["splits"]["template"]["train_examples"]
    questions = report["splits"]["template"].get("wtq_questions", 0)
    return [
        "# Zero-shot entity extraction",
        "",
        "`python benchmarks/entities_eval.py`: two splits, each model trained on its train "
        "parts and evaluated on its test parts. **page**: webqa-utopia-dev's pages held out "
        f"(30 %, CRC-32 of the page id; {page_tr} training examples), its 25 questions "
        "seen in training. **template**: pages and question templates both held out "
        "(30 % of each, CRC-32; a test question is never seen in training; "
        f"{tmpl_tr} training examples): the honest figure for unseen questions, and the "
        "shipped model's. wikitablequestions-lists keeps its own split by page in both"
        + (
            f"; both splits' models also train on {questions} of its WikiTableQuestions "
            "questions (not asked of its test pages, never evaluated)."
            if questions
            else "."
        ),
        "",
        "| split | set (test) | examples | accuracy (examples) | accuracy, 95 % interval | "
        "accuracy@5 | oracle | accuracy / oracle | baseline accuracy (examples) | "
        "median ms/page |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *rows,
        "",
        "The interval is Wilson's score interval for the accuracy's proportion of examples. "
        "webqa-utopia-dev's template split holds few test examples (the test questions' "
        "templates and pages are both held out), so its accuracy and the baseline's are "
        "not told apart by this test alone; the grouped cross-validation "
        "(`entities_rerank.md`, every example of the training parts scored by a model that "
        "saw neither its template nor its page) is the larger measure of unseen questions.",
        "",
        "The paper (OpenWeb test): accuracy 0.405, accuracy@5 0.558, oracle 0.666 "
        "(accuracy / oracle 0.61), baseline 0.108 (development).",
    ]


def with_headings(name: str, args: Any) -> bool:
    """Whether set ``name``'s training pages give heading questions in this run."""
    return name in HEADING_SETS and "headings" not in args.without


def page_candidates(ex: Example, args: Any) -> PageCandidates:
    """The candidates of ``ex``'s page as this run makes them (``--k``, ``--without
    derived``)."""
    return PageCandidates(sb.parse(ex.html()), k=args.k, derived="derived" not in args.without)


def training_questions(parts: dict[str, list[Example]], args: Any) -> list[Example]:
    """A set's examples that only train (:data:`QUESTIONS`), unless ``--without
    questions``."""
    if "questions" in args.without:
        return []
    return parts.get(QUESTIONS, [])[: args.limit or None]


def heading_training(pc: PageCandidates, styles: bool = True) -> list[tuple[str, TrainingPage]]:
    """The training pages of :func:`~harness.entities_data.heading_questions` on one page,
    each weighted :data:`~harness.entities_data.HEADING_WEIGHT`, with its question."""
    out = []
    for q, ok in heading_questions(pc.candidates):
        style = query_style(q) if styles else None
        out.append((q, TrainingPage(pc.features(q), pc.counts(), ok, style, HEADING_WEIGHT)))
    return out


def packed(page: TrainingPage) -> PackedTrainingPage:
    """``page`` with its features packed (:class:`PackedTrainingPage`): ``--save`` holds
    every training example's features until both splits are trained; the
    cross-validation, which trains hundreds of models on the same examples, keeps its
    dicts rather than make them again at every pass."""
    return PackedTrainingPage(page.features, page.counts, page.compatible, page.style, page.weight)


def evaluate(
    examples: list[Example],
    model: Any,
    patterns: Counter[tuple[str, ...]],
    candidates_of: Any,
    page_seconds: dict[Path, float],
) -> dict[str, Any]:
    """Accuracy, accuracy@5, oracle, the baseline's accuracy and the median time per page
    (generation and features, parsing included, plus scoring the query) on ``examples``."""
    acc = acc5 = oracle = base = 0
    times = []
    for ex in examples:
        pc = candidates_of(ex)
        t0 = time.perf_counter()
        ranked = rank(pc, ex.query, model)
        score_s = time.perf_counter() - t0
        times.append(page_seconds[ex.page] + score_s)
        ok = [compatible(c.entities, ex) for _, c in ranked]
        acc += bool(ok and ok[0])
        acc5 += any(ok[:5])
        oracle += any(ok)
        best = None
        for c in pc.for_query(ex.query, model).candidates:  # baseline: the most frequent
            # training pattern, among the candidates the model ranks
            top = max((patterns.get(suffix_pattern(p), 0) for p in c.predicates), default=0)
            if top and (best is None or (top, len(c.nodes)) > best[0]):
                best = ((top, len(c.nodes)), c)
        base += bool(best and compatible(best[1].entities, ex))
    n = max(len(examples), 1)
    return {
        "examples": len(examples),
        "accuracy": acc / n,
        "accuracy_at_5": acc5 / n,
        "oracle": oracle / n,
        "baseline_accuracy": base / n,
        "median_ms": statistics.median(times) * 1000 if times else 0.0,
    }


def print_templates(sets: dict[str, dict[str, list[Example]]], groups: dict[str, str]) -> int:
    """Every template group with its examples per part (to check the normaliser by eye)."""
    for name, parts in sets.items():
        sides: dict[str, Counter[str]] = {}
        for part in ("train@template", "test@template", "train", "test"):
            for ex in parts[part]:
                sides.setdefault(groups[ex.id], Counter())[part] += 1
        print(f"## {name}: {len(sides)} template groups")
        for group, count in sorted(sides.items(), key=lambda t: (-sum(t[1].values()), t[0])):
            print(f"{stable_share(group):3d} {dict(count)} {group}")
    return 0


def oracle_causes(sets: dict[str, dict[str, list[Example]]], args: Any) -> int:
    """Why the right list is not among the paper's candidates, by
    :func:`~harness.entities_data.miss_cause`, over the by-page training parts (never a
    test part), and how many of each cause the project's candidates recover (entities up
    to :data:`~scrapy_boilerplate.entities.extract.MAX_ENTITY_CHARS` characters, and the
    derived candidates of :mod:`scrapy_boilerplate.entities.derive`): a Markdown table
    (printed, and written to DIR/entities_oracle.md with ``--out DIR``)."""
    lines = [
        "| set (training part) | cause | paper's candidates | of them found with ours "
        "| with ours | with ours and the question's lists |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    sizes = []
    for name, parts in sets.items():
        counts: Counter[str] = Counter()
        recovered: Counter[str] = Counter()
        after: Counter[str] = Counter()
        cut: Counter[str] = Counter()
        n_base, n_all = [], []
        for ex in parts["train"][: args.limit or None]:
            doc = sb.parse(ex.html())
            index = PageIndex(doc.root)
            base, _ = generate(doc.body, k=args.k, index=index)  # the paper's: 140 chars
            ours, _ = generate(doc.body, k=args.k, index=index, max_chars=MAX_ENTITY_CHARS)
            ours += derive(ours, index, doc.body)
            n_base.append(len(base))
            n_all.append(len(ours))
            texts = [" ".join(" ".join(el.itertext()).split()) for el in doc.body.iter()
                     if isinstance(el.tag, str)]  # fmt: skip
            cause = miss_cause(ex, [c.entities for c in base], texts, texts[0])
            counts[cause] += 1
            recovered[cause] += any(compatible(c.entities, ex) for c in ours)
            now = miss_cause(ex, [c.entities for c in ours], texts, texts[0])
            after[now] += 1
            records = Records(index)  # (what PageCandidates.asked adds)
            pattern = partial(group_pattern, index, root=doc.body, memo={})
            cuts = filtered(ours, index, records, records.terms(ex.query), pattern)
            if query_style(ex.query) == "question":  # (what asked adds besides the cuts)
                cuts += distinct_lists(ours + cuts)
            last = miss_cause(ex, [c.entities for c in ours + cuts], texts, texts[0])
            cut[last] += 1
            if args.verbose and last != "found":
                print(f"  {last}: {ex.id} {ex.query!r} {[c[0] for c in ex.criteria]}")
        n = max(sum(counts.values()), 1)
        for cause in CAUSES:
            lines.append(f"| {name} | {cause} | {counts[cause]} | {recovered[cause]} | "
                         f"{after[cause]} | {cut[cause]} |")  # fmt: skip
        lines.append(
            f"| {name} | **oracle** ({n} examples) | {counts['found'] / n:.3f} | | "
            f"{after['found'] / n:.3f} | {cut['found'] / n:.3f} |"
        )
        sizes.append(
            f"{name}: median candidates per page {statistics.median(n_base or [0]):.0f} "
            f"(paper's) -> {statistics.median(n_all or [0]):.0f} (ours)"
        )
    head = [
        "# Entity extraction: why the right list is not among the candidates",
        "",
        "`python benchmarks/entities_eval.py --causes`, on the by-page training parts only "
        "(no test example read). Causes (harness/entities_data.py, `miss_cause`): absent "
        "(an item is not in the page's text), inside-text (an item is only part of an "
        "element's text), normalisation (an element's text only after dropping punctuation), "
        "subset (a candidate holds the items in order with more around them), split (every "
        "item is an element's text, no candidate holds them together). Paper's candidates: "
        "the paper's predicates, entities shorter than 140 characters. Ours: the same "
        "predicates with entities up to `MAX_ENTITY_CHARS` characters, and the derived "
        "candidates (lists read inside elements' text, cut at headings, ...: "
        "`scrapy_boilerplate/entities/derive.py`). The last column classifies again with "
        "ours (a derived list is not an element's text, so an example it recovers leaves "
        "its cause's row for `found`), and the next with ours and the lists a question "
        "adds (what `PageCandidates.asked` adds): the lists its words cut out of ours "
        "(`scrapy_boilerplate/entities/filtered.py`) and the distinct values of the lists "
        "whose values repeat (`scrapy_boilerplate/entities/distinct.py`). The derived "
        "candidates are made for questions alone with the shipped model (its metadata's "
        "`derived`): a title-style query, as every wikitablequestions-lists query but its "
        "WikiTableQuestions questions is, ranks the paper's predicates' lists.",
        "",
    ]
    text = "\n".join([*head, *lines, "", *sizes])
    print(text)
    write_reports(args.out, {"entities_oracle.md": text + "\n"})
    return 0


FOLDS = 4


def cv_fold(ex: Example, groups: dict[str, str]) -> tuple[int, int]:
    """An example's (template fold, page fold): CRC-32 of its template group and of its
    page, each mod :data:`FOLDS` (a salt apart from the test split's hash)."""
    return stable_share("cv/" + groups[ex.id]) % FOLDS, cv_fold_page(ex)


def cv_fold_page(ex: Example) -> int:
    """An example's page fold (:func:`cv_fold`): a cell that scores a page's examples
    trains on nothing asked of that page."""
    return stable_share("cv/" + page_of(ex)) % FOLDS


def cross_validate(sets: dict[str, Any], groups: dict[str, str], args: Any) -> int:
    """Cross-validation grouped like the template split, on its training parts only: fold
    ``f`` trains on the examples whose template fold and page fold both differ from ``f``
    and evaluates on those whose template fold and page fold are both ``f`` (never a
    template nor a page of its training side). With ``--cv-cells`` every cell ``(t, p)``
    of template fold and page fold gets its own model, trained on the examples of neither
    fold ``t`` nor fold ``p``, so that every example is scored (about four times as many
    as the diagonal's). A page's heading questions train the models its page trains,
    and so do the WikiTableQuestions questions (:data:`QUESTIONS`; neither is scored).
    Prints accuracy and oracle per set and seed (``--seeds``), and the mean over the
    seeds."""
    examples = [(name, ex) for name, parts in sets.items()
                for ex in parts["train@template"][: args.limit or None]]  # fmt: skip
    examples.sort(key=lambda t: str(t[1].page))  # (one page's candidates in memory at a time)
    rows = []
    folds = []
    styles = "styles" not in args.without
    filters = "filtered" not in args.without
    current: dict[Path, PageCandidates] = {}
    for name, ex in examples:
        fold = cv_fold(ex, groups)
        if ex.page not in current:
            current = {ex.page: page_candidates(ex, args)}
            if with_headings(name, args):
                for _, page in heading_training(current[ex.page].with_derived(), styles):
                    rows.append(("", [], page))  # (training only, on its page's folds)
                    folds.append((-1, fold[1]))
        pc = current[ex.page].candidates_for(ex.query, filtered=filters, derived=args.derived)
        ok = [compatible(c.entities, ex) for c in pc.candidates]
        ties = [(len(c.nodes), -c.first) for c in pc.candidates]
        style = query_style(ex.query) if styles else None
        rows.append((name, ties, TrainingPage(pc.features(ex.query), pc.counts(), ok, style)))
        folds.append(fold)
    for parts in sets.values():  # training only, on their pages' folds
        for ex in training_questions(parts, args):
            pc = page_candidates(ex, args)
            pc = pc.candidates_for(ex.query, filtered=filters, derived=args.derived)
            ok = [compatible(c.entities, ex) for c in pc.candidates]
            if not any(ok):
                continue
            style = query_style(ex.query) if styles else None
            rows.append(("", [], TrainingPage(pc.features(ex.query), pc.counts(), ok, style)))
            folds.append((-1, cv_fold_page(ex)))
    cells = (
        [(t, p) for t in range(FOLDS) for p in range(FOLDS)]
        if args.cv_cells
        else [(f, f) for f in range(FOLDS)]
    )
    results: dict[str, list[tuple[float, float]]] = {}
    for seed in args.seeds:
        hits: dict[str, list[tuple[bool, bool]]] = {}
        for tf, pf in cells:
            model = train(
                [r[2] for r, (t, p) in zip(rows, folds, strict=True) if t != tf and p != pf],
                step=args.step,
                l2=args.l2,
                passes=args.passes,
                seed=seed,
            )
            for (name, ties, page), (t, p) in zip(rows, folds, strict=True):
                if t != tf or p != pf or not name:
                    continue
                if not ties:
                    hits.setdefault(name, []).append((False, False))
                    continue
                logp = model.for_style(page.style).log_probs(page.features, page.counts)
                best = max(range(len(logp)), key=lambda i: (logp[i], *ties[i]))
                hits.setdefault(name, []).append((page.compatible[best], any(page.compatible)))
        for name, h in hits.items():
            acc = sum(a for a, _ in h) / len(h)
            oracle = sum(o for _, o in h) / len(h)
            ratio = acc / oracle if oracle else 0
            results.setdefault(name, []).append((acc, oracle))
            print(f"seed {seed}: {name}: {len(h)} held-out examples, {len(cells)} models, "
                  f"grouped accuracy {acc:.3f}, oracle {oracle:.3f}, "
                  f"accuracy / oracle {ratio:.3f}")  # fmt: skip
    if len(args.seeds) > 1:
        for name, accs in results.items():
            mean = statistics.mean(a for a, _ in accs)
            print(f"mean of {len(accs)} seeds: {name}: accuracy {mean:.3f}, "
                  f"accuracy / oracle {mean / accs[0][1] if accs[0][1] else 0:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
