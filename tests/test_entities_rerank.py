"""The entity re-ranker (scrapy_boilerplate.entities.rerank): its dense features, its trees
scored in NumPy as LightGBM scores them, and its part in the ranking."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

import scrapy_boilerplate as sb
from scrapy_boilerplate.entities import rerank
from scrapy_boilerplate.entities.extract import DEFAULT_MODEL, PageCandidates, rank
from scrapy_boilerplate.entities.model import Model
from test_entities_predicates import TRAILS

lightgbm = pytest.importorskip("lightgbm")


def _page() -> PageCandidates:
    return PageCandidates(sb.parse(TRAILS))


def test_dense_columns_are_finite_float32_and_page_columns_computed_once():
    pc = _page()
    x = rerank.dense(pc, "hiking trails near baltimore")
    assert x.shape == (len(pc.candidates), len(rerank.DENSE))
    assert x.dtype == np.float32 and np.isfinite(x).all()
    cached = pc.ranker_columns
    y = rerank.dense(pc, "Who are the rangers?")
    assert pc.ranker_columns is cached
    page = len(rerank.PAGE_COLUMNS)
    assert np.array_equal(x[:, :page], y[:, :page])
    question = rerank.DENSE.index("question")
    assert x[:, question].max() == 0.0 and y[:, question].min() == 1.0
    # one transform and one tag column set per candidate
    xforms = [
        i for i, n in enumerate(rerank.DENSE) if n.startswith("xform_") and n != "xform_section"
    ]
    tags = [i for i, n in enumerate(rerank.DENSE) if n.startswith("tag_")]
    assert (x[:, xforms].sum(axis=1) == 1).all() and (x[:, tags].sum(axis=1) == 1).all()


def test_ranker_scores_as_lightgbm_does():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(600, len(rerank.DENSE))).astype(np.float32)
    x[:, 5] = np.round(x[:, 5])  # ties at thresholds
    y = (x[:, 0] + 0.5 * x[:, 5] > 0.3).astype(int)
    groups = [len(x) // 20] * 20
    params = {**rerank.PARAMS, "min_data_in_leaf": 5, "seed": 1}
    booster = lightgbm.train(params, lightgbm.Dataset(x, y, group=groups), 30)
    ranker = rerank.Ranker(rerank.ranker_data(booster, 1.0))
    probe = np.vstack([x, rng.normal(size=(50, len(rerank.DENSE))).astype(np.float32)])
    assert np.allclose(ranker.predict(probe), booster.predict(probe, raw_score=True), atol=1e-9)
    assert ranker.predict(probe[:0]).shape == (0,)


def test_fit_leaves_out_examples_over_lightgbms_query_limit(monkeypatch):
    # LightGBM refuses a query of more rows than its limit: such an example (a page of
    # over ten thousand candidates) trains the log-linear model alone, not the ranker
    monkeypatch.setattr(rerank, "MAX_QUERY_ROWS", 40)
    rng = np.random.default_rng(5)
    width = len(rerank.DENSE)
    small = [rng.normal(size=(30, width)).astype(np.float32) for _ in range(30)]
    labels = [[bool(row[0] > 0.5) or i == 0 for i, row in enumerate(x)] for x in small]
    big = rng.normal(size=(41, width)).astype(np.float32)
    booster = rerank.fit([*small, big], [*labels, [True] * 41], seed=1)
    alone = rerank.fit(small, labels, seed=1)
    probe = rng.normal(size=(20, width)).astype(np.float32)
    assert np.array_equal(booster.predict(probe), alone.predict(probe))


def _one_split(feature: str, threshold: float, low: float, high: float) -> dict:
    """A ranker of one tree: ``low`` for ``feature <= threshold``, else ``high``."""
    return {
        "version": rerank.RANKER_VERSION,
        "features": list(rerank.DENSE),
        "beta": 1.0,
        "depth": 1,
        "roots": [0],
        "nodes": {
            "feature": [rerank.DENSE.index(feature), -1, -1],
            "threshold": [threshold, 0.0, 0.0],
            "left": [1, 1, 2],
            "right": [2, 1, 2],
            "value": [0.0, low, high],
        },
    }


def test_the_ranker_moves_the_ranking():
    pc = _page()
    sizes = {len(c.entities) for c in pc.candidates}
    assert len(sizes) > 1
    low, nxt = sorted(sizes)[:2]
    cut = float(np.log(low) + np.log(nxt)) / 2  # the smallest lists are below it
    plain = rank(pc, "trails", Model())
    big = rank(pc, "trails", Model(meta={"ranker": _one_split("log_entities", cut, -50.0, 0.0)}))
    small = rank(pc, "trails", Model(meta={"ranker": _one_split("log_entities", cut, 0.0, -50.0)}))
    assert len(big[0][1].entities) > min(sizes)
    assert len(small[0][1].entities) == min(sizes)
    for ranked in (plain, big, small):
        assert abs(sum(p for p, _ in ranked) - 1.0) < 1e-6
        assert [p for p, _ in ranked] == sorted((p for p, _ in ranked), reverse=True)


def test_the_size_prior_moves_the_ranking_toward_longer_lists():
    pc = _page()
    sizes = [len(c.entities) for c in pc.candidates]
    assert len(set(sizes)) > 1
    flat = _one_split("log_entities", 0.0, 0.0, 0.0)  # a ranker that says nothing
    before = rank(pc, "trails", Model(meta={"ranker": flat}))
    assert rerank.Ranker(flat).size == 0.0  # files without it rank as before
    after = rank(pc, "trails", Model(meta={"ranker": dict(flat, size=1.0)}))
    strong = rank(pc, "trails", Model(meta={"ranker": dict(flat, size=50.0)}))
    assert len(strong[0][1].entities) == max(sizes)
    # each candidate's log-probability moves by log(its size), then all are normalised
    lp_before = {id(c): np.log(p) for p, c in before}
    lp_after = {id(c): np.log(p) for p, c in after}
    shift = [lp_after[id(c)] - lp_before[id(c)] - np.log(len(c.entities)) for c in pc.candidates]
    assert np.allclose(shift, shift[0], atol=1e-9)
    assert abs(sum(p for p, _ in after) - 1.0) < 1e-6


def test_a_query_style_ranks_with_its_own_weights():
    pc = _page()
    sizes = {len(c.entities) for c in pc.candidates}
    low, nxt = sorted(sizes)[:2]
    cut = float(np.log(low) + np.log(nxt)) / 2
    small = _one_split("log_entities", cut, 0.0, -50.0)  # the smallest lists first
    title_off = dict(small, styles={"title": {"beta": 0.0, "size": 0.0}})
    ranker = rerank.Ranker(title_off)
    assert ranker.weights("trails") == (0.0, 0.0)
    assert ranker.weights("Which trails are there?") == (1.0, 0.0)
    # a title ranks as the log-linear model alone does, and the ranker is not run
    plain = rank(pc, "trails", Model())
    calls = []
    model = Model(meta={"ranker": title_off})
    original = model.ranker.predict
    model.ranker.predict = lambda x: calls.append(len(x)) or original(x)
    off = rank(pc, "trails", model)
    assert [(p, id(c)) for p, c in off] == [(p, id(c)) for p, c in plain] and not calls
    # a question keeps the model's weights: the ranker's smallest lists come first
    asked = rank(pc, "Which trails are there?", model)
    assert calls and len(asked[0][1].entities) == min(sizes)
    # a style's size prior alone, without the ranker's trees
    sized = rerank.Ranker(dict(small, styles={"title": {"beta": 0.0, "size": 50.0}}))
    assert sized.weights("trails") == (0.0, 50.0)
    top = rank(pc, "trails", Model(meta={"ranker": dict(small, styles={
        "title": {"beta": 0.0, "size": 50.0}})}))  # fmt: skip
    assert len(top[0][1].entities) == max(sizes)
    # files without ``styles`` use one pair for every query
    assert rerank.Ranker(small).styles == {}


@pytest.mark.parametrize(
    "styles, message",
    [
        ({"heading": {"beta": 0.0, "size": 0.0}}, "unknown query style"),
        ({"title": {"beta": float("nan"), "size": 0.0}}, "not finite"),
    ],
)
def test_a_ranker_refuses_styles_it_cannot_read(styles, message):
    with pytest.raises(ValueError, match=message):
        rerank.Ranker(dict(_one_split("log_entities", 1.0, 0.0, 0.0), styles=styles))


def test_model_file_keeps_its_ranker_and_refuses_a_foreign_one(tmp_path):
    data = _one_split("log_entities", 1.0, -1.0, 1.0)
    path = tmp_path / "m.json"
    Model({"a": 1.0}, {"ranker": data}).save(path)
    loaded = Model.load(path)
    assert loaded.ranker is not None and loaded.ranker.beta == 1.0
    assert Model().ranker is None
    bad = dict(data, features=list(rerank.DENSE)[::-1])
    Model({}, {"ranker": bad}).save(path)
    with pytest.raises(ValueError, match=r"m\.json: its ranker cannot be read"):
        Model.load(path)
    broken = dict(data, nodes={"feature": [len(rerank.DENSE) + 3]})
    Model({}, {"ranker": broken}).save(path)
    with pytest.raises(ValueError, match="ranker"):
        Model.load(path)
    for styles in ({"title": 5}, {"title": {"beta": 1.0}}, ["title"]):
        Model({}, {"ranker": dict(data, styles=styles)}).save(path)
        with pytest.raises(ValueError, match=r"m\.json: its ranker cannot be read"):
            Model.load(path)


def test_ranker_data_refuses_splits_it_cannot_score():
    class Fake:
        def dump_model(self):
            return {"tree_info": [{"tree_structure": {"decision_type": "==", "split_feature": 0,
                                                      "threshold": "1||2", "left_child": {},
                                                      "right_child": {}}}]}  # fmt: skip

    with pytest.raises(ValueError, match="unsupported split"):
        rerank.ranker_data(Fake(), 1.0)


def test_the_shipped_model_has_a_ranker_for_these_features():
    data = json.loads(gzip.decompress(DEFAULT_MODEL.read_bytes()))
    ranker = rerank.Ranker(data["meta"]["ranker"])
    assert ranker.beta == rerank.BETA and len(ranker.roots) == rerank.TREES
    assert ranker.size == rerank.SIZE
    assert ranker.styles == dict(rerank.STYLE_WEIGHTS)


def _reference_rows(pc: PageCandidates, start: int = 0) -> np.ndarray:
    """The page columns row by row, as their definitions read (the reference of the
    column-by-column fill of :func:`rerank.page_columns`)."""
    import math
    from collections import Counter

    from scrapy_boilerplate.entities.pageindex import tag_of

    pages = max(len(pc.page.elements), 1)
    own = pc.page_count
    largest: dict[frozenset[str], int] = {}
    for cand, text in zip(pc.candidates[:own], pc.texts[:own], strict=True):
        largest[text.near] = max(largest.get(text.near, 0), len(cand.entities))
    under = Counter(t.near for t in pc.texts[:own])
    rows = []
    for cand, text in zip(pc.candidates[start:], pc.texts[start:], strict=True):
        xform = cand.transform.replace("+section", "")
        tags = [rerank._tag_class(tag_of(node)) for node in cand.nodes[:20]]
        main = Counter(tags).most_common(1)[0][0] if len(set(tags)) > 1 else tags[0]
        top = max(largest.get(text.near, 0), len(cand.entities))
        rows.append(
            (
                *rerank._list_stats(tuple(cand.entities)),
                math.log(cand.count),
                cand.first / pages,
                *(float(xform == x) for x in rerank._XFORMS),
                "section" in cand.transform,
                *(float(main == t) for t in rerank._TAGS),
                len(cand.entities) / top if top else 0.0,
                math.log(max(under.get(text.near, 0), 1)),
                bool(text.near),
                bool(text.label),
                len(cand.nodes) == 1,
                *rerank._filter_columns(cand.notes),
            )
        )
    return np.array(rows, dtype=np.float32).reshape(len(rows), len(rerank.PAGE_COLUMNS))


def test_page_columns_are_their_row_by_row_definition_to_the_bit():
    html = (
        "<html><body><h2>Staff</h2><ul><li>Ann Lee (2012)</li><li>Bo Chan (2015)</li>"
        "<li>Cy Dunn (2012)</li><li><b>Dee Fox</b> (2019)</li></ul>"
        "<h2>Awards</h2><p>Best Paper 2012: Ann Lee<br>Best Poster 2015: Bo Chan<br>"
        "Test of Time 2019: Cy Dunn</p><table><tr><th>Name</th><th>Year</th></tr>"
        "<tr><td>Ann Lee</td><td>2012</td></tr><tr><td><a href='/b'>Bo Chan</a></td>"
        "<td>2015</td></tr><!-- a comment --><tr><td>Cy Dunn</td><td>2019</td></tr></table>"
        "</body></html>"
    )
    for page in (html, TRAILS):
        pc = PageCandidates(sb.parse(page)).with_derived()
        for query in ("staff", "Who joined in 2012?", "Which trails are near Baltimore?"):
            view = pc.asked(query)
            got = rerank.page_columns(view)
            assert got.tobytes() == _reference_rows(view).tobytes()
            if view is not pc:  # a query's cut lists, from the page's own count on
                assert any(c.notes for c in view.candidates)
                tail = rerank.page_columns(view, pc.page_count)
                assert tail.tobytes() == _reference_rows(view, pc.page_count).tobytes()
    assert rerank.page_columns(PageCandidates(sb.parse("<html><body></body></html>"))).shape == (
        0,
        len(rerank.PAGE_COLUMNS),
    )
