"""``auto``'s trees scored by the compiled forest (``auto.forest``) give onnxruntime's output
bit for bit, and what the forest does not cover, or scores otherwise, is left to the
session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scrapy_boilerplate.auto import features, forest, model, pagetype
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import parse

_speedups = _compiled.load(forest.COMPILED)
needs_build = pytest.mark.skipif(_speedups is None, reason="auto's compiled module not built")
PAGES = Path(__file__).parent / "pages"


def _session_scores(m: model.AutoModel, name: str, x: np.ndarray) -> np.ndarray:
    with _compiled.disabled():
        return m._scores(name, x)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@needs_build
def test_the_shipped_model_is_scored_by_its_forests() -> None:
    m = model.load_model(None)
    assert set(m.forests) == {"page", "blocks", "quality"}


@needs_build
@pytest.mark.parametrize("html", sorted(PAGES.glob("*.html")), ids=lambda p: p.name)
def test_forests_give_the_sessions_output_on_pages(html: Path) -> None:
    m = model.load_model(None)
    doc = parse(html.read_text(encoding="utf-8"), url="https://example.com/news/2024/a-story")
    blocks = doc.section_blocks()
    if not blocks:
        pytest.skip("no blocks")
    bx = features.block_features(doc, blocks)
    px = pagetype.page_features(doc, blocks, bx)
    p_type = m.page_type(px)
    assert _same(p_type, _session_scores(m, "page", px.reshape(1, -1))[0])
    rows = np.hstack((bx, np.broadcast_to(p_type, (len(bx), len(p_type)))))
    assert _same(m.blocks(rows), _session_scores(m, "blocks", rows))
    q = np.concatenate((np.linspace(0, 1, 9, dtype=np.float32), p_type))
    assert m.quality(q) == float(_session_scores(m, "quality", q.reshape(1, -1))[0])


@needs_build
@pytest.mark.parametrize("name", ["page", "blocks", "quality"])
def test_forests_give_the_sessions_output_on_any_rows(name: str) -> None:
    """Random rows, thresholds themselves, missing and infinite values, no rows at all,
    rows without a missing value."""
    m = model.load_model(None)
    width = {i.name: int(i.shape[1]) for i in m.session.get_inputs()}[name]
    rng = np.random.default_rng(7)
    rows = rng.normal(0, 3, (300, width)).astype(np.float32)
    rows[rng.random(rows.shape) < 0.1] = np.nan
    rows[rng.random(rows.shape) < 0.02] = np.inf
    rows[rng.random(rows.shape) < 0.02] = -np.inf
    rows[:50] = 0.0
    # without a missing value anywhere the forest walks without testing for one; one
    # missing value in the last cell sends every row through the test again
    clean = np.where(np.isnan(rows), np.float32(0.25), rows)
    late = clean.copy()
    late[-1, -1] = np.nan
    for x in (rows, rows[:1], rows[:0], rows[::-1].copy(), clean, clean[:1], late):
        got = m._scores(name, x)
        assert _same(got, _session_scores(m, name, x))


@needs_build
def test_a_model_trained_here_is_checked_before_its_forests_are_used(tmp_path: Path) -> None:
    """A forest that would score otherwise than the session (here: the session's graph
    scales the probabilities after the trees) is refused and the session scores."""
    onnx = pytest.importorskip("onnx")
    proto = onnx.load(str(model.DEFAULT_MODEL))
    for init in proto.graph.initializer:
        if init.name.startswith("blocks_") and init.float_data:
            init.float_data[:] = [2.0] * len(init.float_data)
        elif init.name.startswith("blocks_") and init.raw_data:
            count = len(init.raw_data) // 4
            init.raw_data = np.full(count, 2.0, dtype=np.float32).tobytes()
    path = tmp_path / "scaled.onnx"
    onnx.save(proto, str(path))
    m = model.AutoModel(path)
    assert "blocks" not in m.forests and {"page", "quality"} <= set(m.forests)
    rows = np.zeros((3, features.WIDTH + len(m.page_types)), dtype=np.float32)
    assert _same(m.blocks(rows), _session_scores(m, "blocks", rows))


def _tree_node(proto: Any, name: str) -> Any:
    return next(
        n for n in proto.graph.node if n.op_type.startswith("TreeEnsemble") and n.input[0] == name
    )


@needs_build
@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("mode", "branch modes"),
        ("base", "base values"),
        ("transform", "post-transform"),
    ],
)
def test_ensembles_the_forest_does_not_cover_are_left_to_the_session(
    tmp_path: Path, change: str, why: str
) -> None:
    onnx = pytest.importorskip("onnx")
    proto = onnx.load(str(model.DEFAULT_MODEL))
    node = _tree_node(proto, "quality")
    attributes = {a.name: a for a in node.attribute}
    if change == "mode":
        modes = attributes["nodes_modes"]
        modes.strings[:] = [b"BRANCH_LT" if m == b"BRANCH_LEQ" else m for m in modes.strings]
    elif change == "base":
        node.attribute.append(onnx.helper.make_attribute("base_values", [0.25]))
    else:
        attributes["post_transform"].s = b"PROBIT"
    path = tmp_path / f"{change}.onnx"
    onnx.save(proto, str(path))
    nodes = {n[1][0]: n for n in _speedups.onnx_tree_nodes(path.read_bytes()) if n[3]}
    op_type, _, _, attrs = nodes["quality"]
    with pytest.raises(forest.Unsupported, match=why):
        forest.build_forest(op_type, attrs, 17)
    m = model.AutoModel(path)
    assert "quality" not in m.forests and "blocks" in m.forests
    q = np.linspace(0, 1, 17, dtype=np.float32)
    assert m.quality(q) == float(_session_scores(m, "quality", q.reshape(1, -1))[0])


@needs_build
def test_the_protobuf_reader_reads_the_graphs_nodes() -> None:
    nodes = _speedups.onnx_tree_nodes(model.DEFAULT_MODEL.read_bytes())
    trees = [(op, inputs[0]) for op, inputs, _, attrs in nodes if attrs is not None]
    assert trees == [
        ("TreeEnsembleClassifier", "page"),
        ("TreeEnsembleClassifier", "blocks"),
        ("TreeEnsembleRegressor", "quality"),
    ]
    assert any(op == "Mul" and attrs is None for op, _, _, attrs in nodes)
    attrs = dict(nodes[0][3])
    assert attrs["post_transform"] == b"SOFTMAX"
    assert len(attrs["nodes_treeids"]) == len(attrs["nodes_values"]) == len(attrs["nodes_modes"])


@needs_build
@pytest.mark.parametrize(
    "data",
    [
        b"",  # no graph
        b"\x3a\x05abc",  # a graph field longer than the bytes left
        b"\x3a",  # a length cut off
        b"\x3b\x00",  # wire type 3 (a group)
        b"\xff" * 12,  # a varint that never ends
    ],
)
def test_the_protobuf_reader_refuses_what_is_not_a_model(data: bytes) -> None:
    with pytest.raises(ValueError):
        _speedups.onnx_tree_nodes(data)


@needs_build
def test_a_truncated_model_file_fails_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "cut.onnx"
    path.write_bytes(model.DEFAULT_MODEL.read_bytes()[:5000])
    with pytest.raises(model.ModelError, match=r"cut\.onnx"):
        model.AutoModel(path)
    # the reader alone: an error, never a crash
    with pytest.raises(ValueError):
        _speedups.onnx_tree_nodes(path.read_bytes())


@needs_build
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([0, -1, -1], [0.5, 1.0, 2.0], [1, 0, 0], [2, 0, 0], [0, 0, 0], [0], [0]), None),
        (([5, -1, -1], [0.5, 1.0, 2.0], [1, 0, 0], [2, 0, 0], [0, 0, 0], [0], [0]), "feature"),
        (([0, -1, -1], [0.5, 1.0, 2.0], [1, 0, 0], [9, 0, 0], [0, 0, 0], [0], [0]), "child"),
        (([0, 0, -1], [0.5, 0.5, 2.0], [1, 0, 0], [2, 2, 0], [0, 0, 0], [0], [0]), "twice"),
        (([0, -1, -1], [0.5, 1.0, 2.0], [1, 0, 0], [2, 0, 0], [0, 0], [0], [0]), "length"),
        (([0, -1, -1], [0.5, 1.0, 2.0], [1, 0, 0], [2, 0, 0], [0, 0, 0], [7], [0]), "root"),
    ],
)
def test_forest_refuses_arrays_that_are_not_trees(
    args: tuple[Any, ...], message: str | None
) -> None:
    if message is None:
        f = _speedups.Forest(*args, 2, 1, "NONE")
        x = np.array([[0.5, 0], [0.75, 0], [np.nan, 0]], dtype=np.float32)
        assert f.scores(x)[:, 0].tolist() == [1.0, 2.0, 2.0]  # at most 0.5: true; NaN: false
        with pytest.raises(ValueError, match="features"):
            f.scores(np.zeros((1, 3), dtype=np.float32))
        return
    with pytest.raises(ValueError, match=message):
        _speedups.Forest(*args, 2, 1, "NONE")


def test_without_the_compiled_module_the_session_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_compiled, "load", lambda module: None)
    m = model.AutoModel(model.DEFAULT_MODEL)
    assert m.forests == {}
    q = np.linspace(0, 1, 17, dtype=np.float32)
    assert 0.0 <= m.quality(q) <= 1.5


@needs_build
def test_forests_score_the_same_from_many_threads() -> None:
    """The forests release the GIL while they score: pages extracted at once in threads
    (as the Scrapy plugin extracts them) get the results they get one by one."""
    from concurrent.futures import ThreadPoolExecutor

    from scrapy_boilerplate import extract

    pages = [p.read_text(encoding="utf-8") for p in sorted(PAGES.glob("*.html"))] * 3
    alone = [extract(html, "auto").to_dict() for html in pages]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda html: extract(html, "auto").to_dict(), pages))
    assert together == alone


def _threshold_rows(name: str, n: int, seed: int) -> np.ndarray:
    """``n`` rows for the shipped model's input ``name`` whose values are its trees'
    thresholds, the next float above one, zero, signed zeros and infinities: every branch
    taken both ways, ties included."""
    m = model.load_model(None)
    nodes = _speedups.onnx_tree_nodes(m.path.read_bytes())
    attributes = next(a for _, inputs, _, a in nodes if a is not None and inputs == [name])
    width = {i.name: int(i.shape[1]) for i in m.session.get_inputs()}[name]
    rows = forest.probe_rows(attributes["nodes_featureids"], attributes["nodes_values"], width)
    rows = np.where(np.isnan(rows), np.float32(-0.0), rows)  # (no missing value: by feature)
    rng = np.random.default_rng(seed)
    picked = rows[rng.integers(0, len(rows), n)]
    special = rng.random(picked.shape)
    picked[special < 0.02] = np.inf
    picked[(special >= 0.02) & (special < 0.04)] = -np.inf
    return np.ascontiguousarray(picked, dtype=np.float32)


@needs_build
@pytest.mark.parametrize("name", ["page", "blocks", "quality"])
def test_scoring_by_feature_gives_the_walks_output(name: str) -> None:
    """Rows scored several at a time feature by feature (QuickScorer's layout) reach the
    leaves a walk reaches and sum them in the same order: the same bits, for every number
    of rows around the lanes' width and the least work scored so."""
    f = model.load_model(None).forests[name]
    assert f.by_feature
    for n in (*range(0, 35), 64, 300):
        x = _threshold_rows(name, n, seed=n)
        assert _same(f.scores(x), f.scores(x, by_feature=False)), n


def _chain(leaves: int) -> tuple[list[Any], ...]:
    """One tree on feature 0 with ``leaves`` leaves: branch ``k`` tests ``x <= k``, its
    true child the leaf of weight ``k``, its false child the next branch."""
    feature, threshold, left, right, missing = [], [], [], [], []
    for k in range(leaves - 1):
        b = len(feature)
        feature += [0, -1]
        threshold += [float(k), float(k)]
        left += [b + 1, 0]
        right += [b + 2, 0]
        missing += [0, 0]
    feature.append(-1)
    threshold.append(float(leaves))
    left.append(0)
    right.append(0)
    missing.append(0)
    return feature, threshold, left, right, missing


@needs_build
@pytest.mark.parametrize("leaves", [2, 32, 33])
def test_trees_of_more_than_32_leaves_are_walked(leaves: int) -> None:
    feature, threshold, left, right, missing = _chain(leaves)
    f = _speedups.Forest(feature, threshold, left, right, missing, [0], [0], 1, 1, "NONE")
    assert f.by_feature == (leaves <= 32)
    x = np.arange(-1, leaves + 1, 0.5, dtype=np.float32).reshape(-1, 1)
    x = np.repeat(x, 1000 // len(x) + 1, axis=0)[:1000]
    expected = np.minimum(np.ceil(np.maximum(x[:, 0], 0)), leaves - 1).astype(np.float32)
    expected[x[:, 0] > leaves - 2] = float(leaves)
    assert f.scores(x)[:, 0].tolist() == expected.tolist()
    assert _same(f.scores(x), f.scores(x, by_feature=False))


@needs_build
def test_a_nan_threshold_is_walked() -> None:
    """A branch whose threshold is NaN sends every row to its false child; thresholds
    that cannot be sorted leave the forest to the walk."""
    feature, threshold, left, right, missing = _chain(4)
    threshold[2] = float("nan")
    f = _speedups.Forest(feature, threshold, left, right, missing, [0], [0], 1, 1, "NONE")
    assert not f.by_feature
    x = np.linspace(-1, 4, 1000, dtype=np.float32).reshape(-1, 1)
    assert not (f.scores(x)[:, 0] == 1.0).any()  # (the NaN branch's true leaf)
    assert _same(f.scores(x), f.scores(x, by_feature=False))


@needs_build
def test_scoring_by_feature_adds_each_class_its_trees() -> None:
    """Trees of several classes: each row's class sums its own trees' leaves, in order."""
    trees = [_chain(k) for k in (3, 5, 2, 7)]
    feature: list[Any] = []
    threshold: list[Any] = []
    left: list[Any] = []
    right: list[Any] = []
    missing: list[Any] = []
    roots = []
    for t in trees:
        roots.append(len(feature))
        shift = len(feature)
        feature += t[0]
        threshold += t[1]
        left += [c + shift if f >= 0 else 0 for f, c in zip(t[0], t[2], strict=True)]
        right += [c + shift if f >= 0 else 0 for f, c in zip(t[0], t[3], strict=True)]
        missing += t[4]
    f = _speedups.Forest(feature, threshold, left, right, missing, roots, [0, 1, 0, 2], 1, 3,
                         "SOFTMAX")  # fmt: skip
    x = np.linspace(-2, 9, 500, dtype=np.float32).reshape(-1, 1)
    assert f.by_feature
    assert _same(f.scores(x), f.scores(x, by_feature=False))
