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
