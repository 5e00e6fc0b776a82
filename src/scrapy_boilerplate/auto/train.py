"""Training ``auto``'s model: ``scrapy-boilerplate train auto --data DIR --out FILE``.

Reads the main-content datasets unpacked under ``DIR`` (folders with ``index.jsonl``,
``<id>.html`` and ``<id>.txt``; ``splits.json`` where the set has splits) and uses only the
training splits of sets whose licence allows a shipped model:

* ``wcxb-dev``: the two thirds of its pages whose id's CRC-32 is not a multiple of 3
  (``web2text_train``; the other third is where the benchmarks compare the methods), with
  their page types;
* ``google-trends-2017``: ``train`` and ``dev``;
* ``cleaneval``: ``web2text_train``.

Splits are fixed by the data before anything is trained; every choice (the number of
trees, the thresholds per page type) is made on out-of-fold predictions of a
cross-validation grouped by site, so no page is judged by a model that saw its site.

Block labels come from aligning the gold text onto the blocks (Web2Text's section 4.1
alignment): a block is content when at least half its characters align. The three models
(page type, blocks, quality) are LightGBM trees converted to one ONNX file; LightGBM,
scikit-learn and onnxmltools are needed to train only (``pip install -e '.[train]'``).
"""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from scrapy_boilerplate.auto import body as body_rule
from scrapy_boilerplate.auto import features, pagetype, structured
from scrapy_boilerplate.auto.asides import ASIDE_TYPES, MAX_SHARE, RULE_VERSION, aside_blocks
from scrapy_boilerplate.auto.extractor import (
    QUALITY_NAMES,
    decide,
    quality_features,
    with_page_type,
    without_asides,
)
from scrapy_boilerplate.auto.model import FEATURE_VERSION, INPUTS
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.extractors.web2text.labelling import align_blocks

#: (dataset folder, splits used for training) of the sets a shipped model may learn from.
TRAINING_SETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("wcxb-dev", ("web2text_train",)),
    ("google-trends-2017", ("train", "dev")),
    ("cleaneval", ("web2text_train",)),
)
#: Sets whose gold is the main content alone, as users of a default extractor expect
#: (CleanEval's gold keeps nearly all running text of a page): the number of trees, the
#: thresholds and the quality model are chosen and fit on their pages. Every set trains
#: the block and page-type trees.
SELECTION_SETS = ("wcxb-dev", "google-trends-2017")
FOLDS = 5
TREES = (200, 300, 400)
#: The fewest trees whose out-of-fold text F1 is within this of the best are chosen: the
#: block model's trees are most of a page's inference time.
TREES_TOLERANCE = 0.002
THRESHOLDS = tuple(round(0.2 + 0.05 * i, 2) for i in range(11))
#: The decision rule: content is kept to the page's best run of blocks
#: (:func:`~.extractor.decide`), with the blocks outside it at or above this probability.
#: Chosen by the same grouped cross-validation (out-of-fold text F1, thresholds chosen per
#: rule): 0.8512 with 0.7, 0.8507 / 0.8506 / 0.8503 with 0.8 / 0.9 / none, against 0.8470
#: for the threshold alone (docs/auto.md).
RUN_KEEP = 0.7
DECODING = {"rule": "best-run", "keep": RUN_KEEP}
#: The aside rule (:mod:`.asides`): on the page types named, content blocks inside an
#: element whose ``class`` or ``id`` names an aside (comments, related stories, sharing,
#: ...) and that holds at most ``share`` of the page's text are boilerplate. Kept by the
#: grouped cross-validation on article pages only: out-of-fold text F1 of the pages taken
#: for articles 0.9323 to 0.9351 (same probabilities and thresholds); on the other types
#: it cost (forum posts are comments, shops' reviews sit in ``rating`` boxes). The
#: thresholds are chosen on the trees' decisions without it (:func:`choose_thresholds`),
#: and the rule follows them, as it follows them in the extractor; the quality model and
#: the report's ``cv_text_f1_with_asides`` read the text with it (docs/auto.md).
ASIDES: dict[str, Any] = {"version": RULE_VERSION, "types": list(ASIDE_TYPES), "share": MAX_SHARE}
#: The named-body rule (:mod:`.body`): on the page types named, when the elements whose
#: ``class`` or ``id`` names a post's text and that hold kept blocks hold at least
#: ``share`` of the kept characters, the kept blocks that follow the body's start outside
#: them are boilerplate. Kept by the grouped cross-validation after the aside rule, on the
#: same probabilities and thresholds: out-of-fold text F1 0.8565 to 0.8576, 23 pages
#: changed, 21 of them gained; on forum pages it cost (each post has a body of its own).
#: Like the aside rule, it follows the thresholds (docs/auto.md).
BODY: dict[str, Any] = {
    "version": body_rule.RULE_VERSION,
    "types": list(body_rule.BODY_TYPES),
    "share": body_rule.MIN_SHARE,
}
#: Fewer pages of a predicted type than this: the type takes the overall threshold.
MIN_TYPE_PAGES = 25
#: The seed of the shipped model's trees (``train``'s default).
SEED = 13
_TOKEN = re.compile(r"\w+")


@dataclass
class Example:
    """One training page: its HTML, gold text, site (the CV group) and page type."""

    source: str
    id: str
    html: str
    gold: str
    group: str
    page_type: str | None = None
    url: str | None = None


@dataclass
class Featurized:
    """A page's blocks as features and labels."""

    example: Example
    texts: list[str]
    blocks: np.ndarray
    page: np.ndarray
    labels: np.ndarray
    chars: np.ndarray
    p_type: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    #: the page's JSON-LD product description (:mod:`.structured`), added to the text of
    #: a page taken for a product as ``auto`` adds it
    description: str | None = None
    #: which blocks sit in a named aside (:func:`.asides.aside_blocks` of every block),
    #: taken out of the content of a page taken for one of :data:`ASIDES`' types
    asides: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    #: the blocks each named body of the page holds (:func:`.body.named_bodies`)
    bodies: list[np.ndarray] = field(default_factory=list)


def wcxb_train_split(page_id: str) -> str:
    """wcxb-dev's fixed split: ``web2text_eval`` for a third of the ids (CRC-32 mod 3 == 0)."""
    return "web2text_eval" if zlib.crc32(page_id.encode()) % 3 == 0 else "web2text_train"


def url_host(url: str | None) -> str:
    """The host of ``url`` without ``www.`` ("" without a URL): a page's site, the group of
    the grouped cross-validation."""
    if not url or "//" not in url:
        return ""
    return re.sub(r"^www\.", "", url.split("/")[2])


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def check_data(data: Path, sets: Sequence[tuple[str, tuple[str, ...]]] = TRAINING_SETS) -> None:
    """Raise FileNotFoundError naming the first set of ``sets`` missing under ``data`` (and
    how to get it), before any page is read."""
    for name, _ in sets:
        folder = data / name
        if not (folder / "index.jsonl").is_file():
            raise FileNotFoundError(f"{folder}: no such dataset (unpack the datasets there first)")


def read_examples(
    data: Path, sets: Sequence[tuple[str, tuple[str, ...]]] = TRAINING_SETS
) -> Iterator[Example]:
    """The training pages of ``sets`` under ``data`` (:func:`check_data` first: a missing
    set fails before any page is read)."""
    check_data(data, sets)
    for name, splits in sets:
        folder = data / name
        members: set[str] | None = None
        if name != "wcxb-dev":
            chosen = json.loads(_read(folder / "splits.json"))
            members = {m for s in splits for m in chosen[s]}
        for line in _read(folder / "index.jsonl").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            pid = rec["id"]
            if name == "wcxb-dev" and wcxb_train_split(pid) not in splits:
                continue
            if members is not None and pid not in members:
                continue
            url = rec.get("url")
            host = url_host(url)
            yield Example(
                name,
                pid,
                _read(folder / f"{pid}.html"),
                _read(folder / f"{pid}.txt"),
                rec.get("domain") or host or f"{name}/{pid}",
                rec.get("page_type") if name == "wcxb-dev" else None,
                url,
            )


def featurize(example: Example) -> Featurized | None:
    """A page's features and block labels; None for a page without text blocks."""
    try:
        doc = parse(example.html, url=example.url)
    except UnsupportedInput:
        return None
    blocks = doc.section_blocks()
    if not blocks:
        return None
    texts = [b.text for b in blocks]
    bx = features.block_features(doc, blocks)
    px = pagetype.page_features(doc, blocks, bx)
    _, fractions = align_blocks(texts, example.gold)
    found = structured.product_description(doc.root)
    chars = np.array([len(t) for t in texts], dtype=np.float64)
    return Featurized(
        example,
        texts,
        bx,
        px,
        np.asarray(fractions) >= 0.5,
        chars,
        description=found[0] if found is not None else None,
        asides=aside_blocks(blocks, chars, np.ones(len(blocks), bool), MAX_SHARE),
        bodies=[inside for _, inside in body_rule.named_bodies(blocks)],
    )


# -- scoring -----------------------------------------------------------------------------------


def _shingles(text: str) -> Counter[tuple[str, ...]]:
    toks = _TOKEN.findall(text)
    if len(toks) < 4:
        return Counter([tuple(toks)]) if toks else Counter()
    return Counter(tuple(toks[i : i + 4]) for i in range(len(toks) - 3))


def page_scores(gold: str, predicted: str) -> tuple[float | None, float | None]:
    """Precision and recall of word 4-grams of one page (None where undefined)."""
    return _scores(_shingles(gold), predicted)


def _scores(g: Counter[tuple[str, ...]], predicted: str) -> tuple[float | None, float | None]:
    """:func:`page_scores` against the gold's shingles ``g`` (counted once per page)."""
    p = _shingles(predicted)
    tp = sum((g & p).values())
    fp = sum((p - g).values())
    fn = sum((g - p).values())
    total = tp + fp + fn
    if not total:
        return None, None
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    return precision, recall


def text_f1(scores: Sequence[tuple[float | None, float | None]]) -> float:
    """F1 of the mean precision and mean recall over pages (the benchmarks' text F1)."""
    ps = [p for p, _ in scores if p is not None]
    rs = [r for _, r in scores if r is not None]
    if not ps or not rs:
        return 0.0
    p, r = sum(ps) / len(ps), sum(rs) / len(rs)
    return 2 * p * r / (p + r) if p + r else 0.0


def _page_f1(score: tuple[float | None, float | None]) -> float:
    p, r = score
    p, r = p or 0.0, r or 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def _main_text(page: Featurized, labels: np.ndarray) -> str:
    """The text ``auto`` gives for these labels: the kept blocks, and on a page taken for a
    product the JSON-LD description they miss (the extractor's ``structured_data``)."""
    text = "\n\n".join(t for t, keep in zip(page.texts, labels.tolist(), strict=True) if keep)
    description = page.description
    if description is None or not len(page.p_type) or _kind(page) != "product":
        return text
    if structured.adds(description, text):
        text = f"{text}\n\n{description}" if text else description
    return text


# -- training ------------------------------------------------------------------------------------


def lightgbm_module() -> Any:
    """LightGBM, or RuntimeError saying how to install the training extra."""
    try:
        import lightgbm
    except ImportError as exc:  # pragma: no cover - the error names the extra
        raise RuntimeError(
            "training auto needs LightGBM, scikit-learn and onnxmltools: pip install -e '.[train]'"
        ) from exc
    return lightgbm


BLOCK_PARAMS = {
    "objective": "binary",
    "learning_rate": 0.05,
    "num_leaves": 31,
    "min_data_in_leaf": 40,
    "feature_fraction": 0.7,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "verbose": -1,
    "num_threads": 2,
    "seed": SEED,
    "deterministic": True,
}


def _folds(groups: Sequence[str], k: int = FOLDS) -> list[np.ndarray]:
    """Page indices of ``k`` folds, every site in one fold (a stable hash of the site)."""
    fold = np.array([zlib.crc32(g.encode()) % k for g in groups])
    return [np.flatnonzero(fold == i) for i in range(k)]


def _fit_types(pages: list[Featurized], trees: int = 200, seed: int = SEED) -> Any:
    lgb = lightgbm_module()
    x = np.stack([p.page for p in pages])
    y = np.array([pagetype.PAGE_TYPES.index(p.example.page_type or "other") for p in pages])
    params = {
        **BLOCK_PARAMS,
        "objective": "multiclass",
        "num_class": len(pagetype.PAGE_TYPES),
        "num_leaves": 15,
        "min_data_in_leaf": 10,
        "seed": seed,
    }
    return lgb.train(params, lgb.Dataset(x, y), trees)


def _block_matrix(pages: list[Featurized]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.concatenate([with_page_type(p.blocks, p.p_type) for p in pages])
    y = np.concatenate([p.labels for p in pages]).astype(int)
    w = np.concatenate([np.log1p(p.chars) + 1.0 for p in pages])
    return x, y, w


def _fit_blocks(pages: list[Featurized], trees: int, seed: int = SEED) -> Any:
    lgb = lightgbm_module()
    x, y, w = _block_matrix(pages)
    return lgb.train({**BLOCK_PARAMS, "seed": seed}, lgb.Dataset(x, y, weight=w), trees)


def _predict_blocks(model: Any, page: Featurized) -> np.ndarray:
    return np.asarray(model.predict(with_page_type(page.blocks, page.p_type)))


def _kind(page: Featurized) -> str:
    return _kind_of(page.p_type)


def _kind_of(p_type: np.ndarray) -> str:
    return pagetype.PAGE_TYPES[int(np.argmax(p_type))]


def _predict_type(model: Any, page: np.ndarray) -> np.ndarray:
    return np.asarray(model.predict(page[None])[0], np.float32)


def _decide(
    page: Featurized,
    probs: np.ndarray,
    threshold: float,
    run: bool,
    asides: bool = True,
    body: bool | None = None,
) -> Any:
    """:func:`~.extractor.decide` for a training page, by the best-run rule or not, then
    (``asides``) the aside rule and (``body``, by default as ``asides``) the named-body
    rule on the page types they name (:data:`ASIDES`, :data:`BODY`), as the extractor
    decides."""
    labels, rescued = decide(
        probs,
        threshold,
        bool(page.chars.sum()),
        page.chars if run else None,
        RUN_KEEP if run else None,
    )
    if asides and not rescued and len(page.asides) and _kind(page) in ASIDES["types"]:
        labels = without_asides(labels, page.asides)
    if body is None:
        body = asides
    if body and not rescued and _kind(page) in BODY["types"]:
        labels, _ = body_rule.apply_body(labels, page.chars, page.bodies, BODY["share"])
    return labels, rescued


def choose_thresholds(
    pages: list[Featurized],
    probs: list[np.ndarray],
    chosen: list[int] | None = None,
    run: bool = True,
) -> tuple[float, dict[str, float], dict[str, float]]:
    """The overall threshold and one per predicted page type (with enough pages), each the
    best text F1 over :data:`THRESHOLDS` on out-of-fold probabilities of the ``chosen``
    pages (default: all), decided by the best-run rule (``run``) or the threshold alone;
    and those F1s."""
    if chosen is None:
        chosen = list(range(len(pages)))
    golds = {i: _shingles(pages[i].example.gold) for i in chosen}

    def best(indices: list[int]) -> tuple[float, float]:
        results = []
        for t in THRESHOLDS:
            scores = []
            for i in indices:
                labels, _ = _decide(pages[i], probs[i], t, run, asides=False)
                scores.append(_scores(golds[i], _main_text(pages[i], labels)))
            results.append((text_f1(scores), t))
        f1, t = max(results)
        return t, f1

    overall, overall_f1 = best(chosen)
    per_type: dict[str, float] = {}
    f1s = {"all": overall_f1}
    for kind in pagetype.PAGE_TYPES:
        indices = [i for i in chosen if _kind(pages[i]) == kind]
        if len(indices) >= MIN_TYPE_PAGES:
            per_type[kind], f1s[kind] = best(indices)
    return overall, per_type, f1s


def train(
    data: Path,
    out: Path,
    log: Callable[[str], None] = print,
    sets: Sequence[tuple[str, tuple[str, ...]]] = TRAINING_SETS,
    trees: Sequence[int] = TREES,
    seed: int = SEED,
) -> dict[str, Any]:
    """Train the three models on ``sets`` under ``data``, write ``out`` (ONNX) and its report
    ``out`` with ``.json``; returns the report. ``seed`` seeds the trees' sampling of rows
    and features (the shipped model's is :data:`SEED`; another seed gives another model of
    the same recipe: ``benchmarks/auto_seeds.py`` measures how far they differ)."""
    lgb = lightgbm_module()
    pages = [f for f in map(featurize, read_examples(data, sets)) if f is not None]
    log(f"{len(pages)} pages, {sum(len(p.texts) for p in pages)} blocks")
    groups = [p.example.group for p in pages]
    folds = _folds(groups)

    # page types: out-of-fold for the pages that have one, the whole model for the others
    typed = [i for i, p in enumerate(pages) if p.example.page_type]
    type_model = _fit_types([pages[i] for i in typed], seed=seed)
    for p in pages:
        p.p_type = _predict_type(type_model, p.page)
    # the same pages as they would come without their URLs (pages reach auto without one
    # too): the type trees' probabilities, out of fold where the page has a type
    bare_types = [_predict_type(type_model, pagetype.without_url(p.page)) for p in pages]
    type_hits = bare_hits = 0
    for fold in folds:
        inside = set(fold.tolist())
        train_ix = [i for i in typed if i not in inside]
        model = _fit_types([pages[i] for i in train_ix], seed=seed)
        for i in fold:
            if pages[i].example.page_type:
                pages[i].p_type = _predict_type(model, pages[i].page)
                type_hits += _kind(pages[i]) == pages[i].example.page_type
                bare_types[i] = _predict_type(model, pagetype.without_url(pages[i].page))
                bare_hits += _kind_of(bare_types[i]) == pages[i].example.page_type
    type_accuracy = type_hits / max(len(typed), 1)
    bare_accuracy = bare_hits / max(len(typed), 1)
    log(
        f"page type accuracy (out of fold, {len(typed)} pages): {type_accuracy:.3f}; "
        f"without their URLs: {bare_accuracy:.3f}"
    )

    # blocks: out-of-fold probabilities for each number of trees
    # (and, for the pages the choices are made on, with their types told without URLs)
    chosen = [i for i, p in enumerate(pages) if p.example.source in SELECTION_SETS]
    if not chosen:
        chosen = list(range(len(pages)))
    scored = set(chosen)
    oof: dict[int, list[np.ndarray]] = {t: [np.zeros(0)] * len(pages) for t in trees}
    bare_oof: dict[int, list[np.ndarray]] = {t: [np.zeros(0)] * len(pages) for t in trees}
    for fold in folds:
        inside = set(fold.tolist())
        model = _fit_blocks(
            [p for i, p in enumerate(pages) if i not in inside], max(trees), seed=seed
        )
        for i in fold:
            x = with_page_type(pages[i].blocks, pages[i].p_type)
            bare_x = with_page_type(pages[i].blocks, bare_types[i]) if i in scored else None
            for t in trees:
                oof[t][i] = np.asarray(model.predict(x, num_iteration=t))
                if bare_x is not None:
                    bare_oof[t][i] = np.asarray(model.predict(bare_x, num_iteration=t))
    choices = {}
    for t in trees:
        choices[t] = choose_thresholds(pages, oof[t], chosen)
        log(f"{t} trees: out-of-fold text F1 {choices[t][2]['all']:.4f}")
    top = max(choices[t][2]["all"] for t in trees)
    best_trees = min(t for t in trees if choices[t][2]["all"] >= top - TREES_TOLERANCE)
    threshold, per_type, cv_f1 = choices[best_trees]
    log(f"chose {best_trees} trees, threshold {threshold}, per type {per_type}")
    plain = choose_thresholds(pages, oof[best_trees], chosen, run=False)
    log(f"the threshold alone (no best run): out-of-fold text F1 {plain[2]['all']:.4f}")

    # quality: learn the page F1 of the out-of-fold decisions
    qx, qy = [], []
    per_source: dict[str, list[tuple[float | None, float | None]]] = {}
    decided = []  # each page's out-of-fold labels, whether they were rescued, and its score
    for p, probs in zip(pages, oof[best_trees], strict=True):
        labels, rescued = _decide(p, probs, per_type.get(_kind(p), threshold), True)
        score = page_scores(p.example.gold, _main_text(p, labels))
        per_source.setdefault(p.example.source, []).append(score)
        decided.append((labels, rescued, score))
    for i in chosen:
        p = pages[i]
        labels, rescued, score = decided[i]
        qx.append(quality_features(oof[best_trees][i], p.chars, labels, p.p_type, rescued))
        qy.append(_page_f1(score))
    # the text F1 of the thresholds per type, with the aside rule and without it (each
    # type's without it is its threshold's, as chosen; all pages' is computed here)
    without: list[tuple[float | None, float | None]] = []
    for i in chosen:
        p = pages[i]
        labels, _ = _decide(p, oof[best_trees][i], per_type.get(_kind(p), threshold), True, False)
        without.append(page_scores(p.example.gold, _main_text(p, labels)))
    without_asides_f1 = {"all": text_f1(without), **{k: cv_f1[k] for k in per_type}}
    # with the aside rule alone (without the named-body rule that follows it)
    asides_only: dict[str, list[tuple[float | None, float | None]]] = {}
    for i in chosen:
        p = pages[i]
        cut = per_type.get(_kind(p), threshold)
        labels, _ = _decide(p, oof[best_trees][i], cut, True, True, body=False)
        score = page_scores(p.example.gold, _main_text(p, labels))
        asides_only.setdefault("all", []).append(score)
        asides_only.setdefault(_kind(p), []).append(score)
    # the same decisions for the pages without their URLs (their types told again)
    bare_scores = []
    for i in chosen:
        p = replace(pages[i], p_type=bare_types[i])
        labels, _ = _decide(p, bare_oof[best_trees][i], per_type.get(_kind(p), threshold), True)
        bare_scores.append(page_scores(p.example.gold, _main_text(p, labels)))
    bare_f1 = text_f1(bare_scores)
    log(f"out-of-fold text F1 of the same pages without their URLs: {bare_f1:.4f}")
    with_asides = {"all": text_f1([decided[i][2] for i in chosen])}
    for kind in per_type:
        with_asides[kind] = text_f1([decided[i][2] for i in chosen if _kind(pages[i]) == kind])
    log(
        f"thresholds per type: out-of-fold text F1 {without_asides_f1['all']:.4f}, with the "
        f"aside rule {text_f1(asides_only['all']):.4f}, and the body rule "
        f"{with_asides['all']:.4f}"
    )
    qx_a, qy_a = np.stack(qx), np.array(qy)
    q_params = {
        **BLOCK_PARAMS,
        "objective": "regression",
        "num_leaves": 7,
        "min_data_in_leaf": 20,
        "seed": seed,
    }
    q_folds = _folds([pages[i].example.group for i in chosen])
    q_oof = np.zeros(len(chosen))
    for fold in q_folds:
        mask = np.ones(len(chosen), bool)
        mask[fold] = False
        q_model = lgb.train(q_params, lgb.Dataset(qx_a[mask], qy_a[mask]), 150)
        q_oof[fold] = q_model.predict(qx_a[fold])
    q_oof = np.clip(q_oof, 0.0, 1.0)
    reliability = _reliability(q_oof, qy_a)
    quality_model = lgb.train(q_params, lgb.Dataset(qx_a, qy_a), 150)

    block_model = _fit_blocks(pages, best_trees, seed=seed)
    report: dict[str, Any] = {
        "feature_version": FEATURE_VERSION,
        "trained_on": {name: sum(p.example.source == name for p in pages) for name, _ in sets},
        "blocks": int(sum(len(p.texts) for p in pages)),
        "content_share": round(float(np.mean(np.concatenate([p.labels for p in pages]))), 4),
        "folds": FOLDS,
        "seed": seed,
        "trees": best_trees,
        "threshold": threshold,
        "thresholds": per_type,
        "decoding": DECODING,
        "asides": ASIDES,
        "body": BODY,
        "selected_on": [name for name in SELECTION_SETS if name in dict(sets)],
        "cv_text_f1": {k: round(v, 4) for k, v in cv_f1.items()},
        "cv_text_f1_by_set": {k: round(text_f1(v), 4) for k, v in per_source.items()},
        "cv_text_f1_by_trees": {str(t): round(choices[t][2]["all"], 4) for t in trees},
        "cv_text_f1_per_type": {k: round(v, 4) for k, v in without_asides_f1.items()},
        "cv_text_f1_with_asides": {
            k: round(text_f1(asides_only.get(k, [])), 4) for k in with_asides
        },
        "cv_text_f1_with_body": {k: round(v, 4) for k, v in with_asides.items()},
        "cv_text_f1_threshold_alone": {k: round(v, 4) for k, v in plain[2].items()},
        "thresholds_alone": {"threshold": plain[0], **plain[1]},
        "page_type_accuracy": round(type_accuracy, 4),
        "page_type_accuracy_without_url": round(bare_accuracy, 4),
        "cv_text_f1_without_url": round(bare_f1, 4),
        "quality_mae": round(float(np.abs(q_oof - qy_a).mean()), 4),
        "quality_reliability": reliability,
        "page_types": list(pagetype.PAGE_TYPES),
    }
    write_model(out, type_model, block_model, quality_model, report)
    out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


def _reliability(
    predicted: np.ndarray, observed: np.ndarray, bins: int = 10
) -> list[dict[str, Any]]:
    """Predicted against observed page F1, per tenth of the predicted range."""
    rows = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        mask = (predicted >= lo) & ((predicted < hi) if b < bins - 1 else (predicted <= hi))
        if mask.any():
            rows.append(
                {
                    "bin": f"{lo:.1f}-{hi:.1f}",
                    "pages": int(mask.sum()),
                    "predicted": round(float(predicted[mask].mean()), 4),
                    "observed": round(float(observed[mask].mean()), 4),
                }
            )
    return rows


#: The merged graph's name and description (fixed, so the file's bytes follow the training).
GRAPH_NAME = "scrapy_boilerplate_auto"
GRAPH_DOC = "auto: page type, block and quality models (scrapy-boilerplate train auto)"


def write_model(
    out: Path, type_model: Any, block_model: Any, quality_model: Any, report: dict[str, Any]
) -> None:
    """The three boosters as one ONNX file with inputs :data:`~.model.INPUTS`."""
    import onnx
    import onnxmltools
    from onnx import compose
    from onnxmltools.convert.common.data_types import FloatTensorType

    k = len(pagetype.PAGE_TYPES)
    widths = {"page": pagetype.WIDTH, "blocks": features.WIDTH + k, "quality": len(QUALITY_NAMES)}
    outputs = {"page": "p_type", "blocks": "p_block", "quality": "p_quality"}
    graphs = []
    for name, booster in (
        ("page", type_model),
        ("blocks", block_model),
        ("quality", quality_model),
    ):
        converted = onnxmltools.convert_lightgbm(
            booster,
            initial_types=[(name, FloatTensorType([None, widths[name]]))],
            zipmap=False,
            target_opset=15,
        )
        wanted = converted.graph.output[-1].name  # probabilities, or the regression value
        converted = compose.add_prefix(converted, prefix=f"{name}_")
        rename = {f"{name}_{name}": name, f"{name}_{wanted}": outputs[name]}
        for node in converted.graph.node:
            node.input[:] = [rename.get(v, v) for v in node.input]
            node.output[:] = [rename.get(v, v) for v in node.output]
        for value in list(converted.graph.input) + list(converted.graph.output):
            value.name = rename.get(value.name, value.name)
        keep = [v for v in converted.graph.output if v.name == outputs[name]]
        del converted.graph.output[:]
        converted.graph.output.extend(keep)
        graphs.append(converted)
    # one operator set per domain (the converter picks the lowest each graph needs)
    versions: dict[str, int] = {}
    for graph in graphs:
        for opset in graph.opset_import:
            versions[opset.domain] = max(versions.get(opset.domain, 0), opset.version)
    for graph in graphs:
        for opset in graph.opset_import:
            opset.version = versions[opset.domain]
    merged = compose.merge_models(graphs[0], graphs[1], io_map=[])
    merged = compose.merge_models(merged, graphs[2], io_map=[])
    if {i.name for i in merged.graph.input} != set(INPUTS):  # pragma: no cover - a bug here
        raise RuntimeError(f"merged model has inputs {[i.name for i in merged.graph.input]}")
    # the merge names the graph after the converter's random ids: a fixed name and
    # description make the same training write the same bytes
    merged.graph.name = GRAPH_NAME
    merged.graph.doc_string = GRAPH_DOC
    del merged.metadata_props[:]
    for key, value in {
        "feature_version": FEATURE_VERSION,
        "page_types": report["page_types"],
        "threshold": report["threshold"],
        "thresholds": report["thresholds"],
        "decoding": report["decoding"],
        "asides": report["asides"],
        "body": report["body"],
        "trained_on": report["trained_on"],
        "block_features": list(features.NAMES),
        "page_features": list(pagetype.NAMES),
        "quality_features": list(QUALITY_NAMES),
    }.items():
        prop = merged.metadata_props.add()
        prop.key = key
        prop.value = json.dumps(value)
    onnx.checker.check_model(merged)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(merged, str(out))
