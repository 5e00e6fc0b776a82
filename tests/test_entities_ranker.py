"""The re-ranker's trees: the compiled walk (``_speedups.ranker_leaves``) reaches the leaves
the NumPy walk (``rerank.ranker_leaves.python``) reaches, and the scores of the shipped
model's ranker are the same either way."""

from __future__ import annotations

import numpy as np
import pytest

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.entities import rerank
from scrapy_boilerplate.entities.extract import load_model

needs_build = pytest.mark.skipif(
    rerank.ranker_leaves.compiled is None, reason="the core's compiled module not built"
)


def _rows(ranker: rerank.Ranker, n: int, seed: int) -> np.ndarray:
    """``n`` rows whose values are the ranker's thresholds, values just above them,
    missing values, infinities and random numbers: every branch both ways, ties too."""
    rng = np.random.default_rng(seed)
    width = int(ranker.feature.max()) + 1
    cuts = ranker.threshold[ranker.feature >= 0]
    x = rng.normal(0, 3, (n, width))
    picked = rng.random((n, width))
    at = cuts[rng.integers(0, len(cuts), (n, width))]
    x = np.where(picked < 0.3, at, x)
    x = np.where((picked >= 0.3) & (picked < 0.5), np.nextafter(at, np.inf), x)
    x[(picked >= 0.5) & (picked < 0.55)] = np.nan
    x[(picked >= 0.55) & (picked < 0.58)] = np.inf
    x[(picked >= 0.58) & (picked < 0.6)] = -np.inf
    return x


@needs_build
@pytest.mark.parametrize("n", [0, 1, 2, 17, 400])
def test_compiled_walk_reaches_the_numpy_walks_leaves(n: int) -> None:
    r = load_model().ranker
    assert r is not None
    x = _rows(r, n, seed=n)
    args = (r.feature, r.threshold, r.left, r.right, r.roots, r.depth, x)
    compiled = rerank.ranker_leaves(*args)
    python = rerank.ranker_leaves.python(*args)
    assert compiled.shape == python.shape == (n, len(r.roots))
    assert compiled.dtype == python.dtype
    assert np.array_equal(compiled, python)
    assert (r.feature[compiled] < 0).all()  # (every walk ends at a leaf)


@needs_build
def test_ranker_scores_are_the_same_without_the_compiled_walk() -> None:
    r = load_model().ranker
    assert r is not None
    x = _rows(r, 300, seed=3)
    with _compiled.disabled():
        python = r.predict(x)
    assert r.predict(x).tobytes() == python.tobytes()


@needs_build
@pytest.mark.parametrize(
    ("left", "right", "roots", "width"),
    [
        ([1, 0, 0], [5, 0, 0], [0], 2),  # a child out of range
        ([1, 0, 0], [2, 0, 0], [3], 2),  # a root out of range
        ([1, 0, 0], [2, 0, 0], [0], 1),  # a feature the rows do not have
    ],
)
def test_trees_the_compiled_walk_cannot_read_are_left_to_numpy(
    left: list[int], right: list[int], roots: list[int], width: int
) -> None:
    """The compiled walk refuses such arrays and the NumPy walk runs, raising on them as
    it did (the rows go right, where the first case's child is missing)."""
    feature = np.array([1, -1, -1])
    threshold = np.array([0.5, 1.0, 2.0])
    with pytest.raises(_compiled.Unsupported):
        rerank.ranker_leaves.compiled(
            feature, threshold, np.array(left), np.array(right), np.array(roots), 2,
            np.ones((3, width)),
        )  # fmt: skip
    with pytest.raises(IndexError):
        rerank.ranker_leaves(
            feature, threshold, np.array(left), np.array(right), np.array(roots), 2,
            np.ones((3, width)),
        )  # fmt: skip


@needs_build
def test_a_small_tree_by_hand() -> None:
    """Feature 0 at most 0.5 goes left (leaf 1), else right (leaf 2); NaN goes right."""
    feature, threshold = np.array([0, -1, -1]), np.array([0.5, 1.0, 2.0])
    left, right, roots = np.array([1, 0, 0]), np.array([2, 0, 0]), np.array([0])
    x = np.array([[0.25], [0.5], [0.75], [np.nan]])
    leaves = rerank.ranker_leaves(feature, threshold, left, right, roots, 1, x)
    assert leaves[:, 0].tolist() == [1, 1, 2, 2]
