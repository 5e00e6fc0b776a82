"""``auto``'s trees scored by the compiled module, with onnxruntime's arithmetic.

A page asks three small questions of the model (its type, its blocks, its quality), and
onnxruntime answers each with a session call whose fixed costs, and whose generic node
layout, weigh more than the trees themselves on a page of a hundred blocks. Where the
compiled module is built, :func:`forests` reads the trees out of the same ONNX file
(``_speedups.onnx_tree_nodes``, a protobuf reader of the graph's nodes) into flat arrays,
and ``_speedups.Forest`` scores them as onnxruntime does: the leaves summed tree after tree
in float32, then onnxruntime's own softmax or logistic, in float32. A page's blocks (and
its type's 1,600 trees) find their leaves feature by feature, sixteen rows at a time, as
QuickScorer does (Lucchese et al., "QuickScorer: a fast algorithm to rank documents with
additive ensembles of regression trees"), rather than by a walk per row and tree whose
jumps the processor mispredicts: the same leaves, summed in the same order.

The session stays the reference: a forest is used only after it gave exactly the
session's output, bit for bit, on probe rows built from its own thresholds (values at a
threshold, just above it, missing values); an ensemble this reader does not cover (other
branch modes, base values, several weights per leaf, another post-transform) is left to
the session. ``tests/test_auto_forest.py`` holds both to the same output on pages.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from scrapy_boilerplate.core import compiled as _compiled

logger = logging.getLogger(__name__)

#: ``auto``'s compiled module, where ``onnx_tree_nodes`` and ``Forest`` live
COMPILED = "scrapy_boilerplate.auto._speedups"
#: Probe rows scored by both the forest and the session before the forest is used.
PROBE_ROWS = 256
_PROBE_SEED = 20260


class Unsupported(ValueError):
    """An ensemble this reader does not cover; the session scores it."""


def _ints(attributes: Mapping[str, Any], name: str, default: list[int] | None = None) -> list[int]:
    value = attributes.get(name, default)
    if value is None:
        raise Unsupported(f"no {name}")
    if isinstance(value, int):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise Unsupported(f"{name} is not a list of integers")
    return value


def _floats(attributes: Mapping[str, Any], name: str) -> list[float]:
    value = attributes.get(name)
    if isinstance(value, float):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, float) for v in value):
        raise Unsupported(f"{name} is not a list of floats")
    return value


def _text(attributes: Mapping[str, Any], name: str, default: str) -> str:
    value = attributes.get(name, default.encode())
    if not isinstance(value, bytes):
        raise Unsupported(f"{name} is not a string")
    return value.decode("utf-8", "replace")


def build_forest(op_type: str, attributes: Mapping[str, Any], n_features: int) -> Any:
    """A ``_speedups.Forest`` of one ``TreeEnsembleClassifier`` / ``TreeEnsembleRegressor``
    node's attributes (:class:`Unsupported` when it holds what the forest cannot score as
    onnxruntime does)."""
    speedups = _compiled.load(COMPILED)
    if speedups is None:
        raise Unsupported("the compiled module is not built")
    tree_ids = _ints(attributes, "nodes_treeids")
    node_ids = _ints(attributes, "nodes_nodeids")
    features = _ints(attributes, "nodes_featureids")
    values = _floats(attributes, "nodes_values")
    modes = attributes.get("nodes_modes")
    true_ids = _ints(attributes, "nodes_truenodeids")
    false_ids = _ints(attributes, "nodes_falsenodeids")
    missing = _ints(attributes, "nodes_missing_value_tracks_true", [0] * len(tree_ids))
    size = len(tree_ids)
    if not isinstance(modes, list) or not all(
        len(a) == size for a in (node_ids, features, values, modes, true_ids, false_ids, missing)
    ):
        raise Unsupported("node attributes of different lengths")
    if set(modes) - {b"BRANCH_LEQ", b"LEAF"}:
        raise Unsupported(f"branch modes {sorted(set(modes))}")
    prefix = "class_" if op_type == "TreeEnsembleClassifier" else "target_"
    if attributes.get("base_values") or attributes.get("base_values_as_tensor"):
        raise Unsupported("base values")
    if any(name.endswith("_as_tensor") for name in attributes):
        raise Unsupported("double-precision attributes")
    index = {(t, n): i for i, (t, n) in enumerate(zip(tree_ids, node_ids, strict=True))}
    if len(index) != size:
        raise Unsupported("a node id repeated in a tree")
    # trees in the order their nodes first appear (onnxruntime's order of its roots)
    trees = list(dict.fromkeys(tree_ids))
    if any((t, 0) not in index for t in trees):
        raise Unsupported("a tree without node 0")
    roots = [index[(t, 0)] for t in trees]
    feature = [-1] * size
    left = [0] * size
    right = [0] * size
    threshold = [0.0] * size
    for i in range(size):
        if modes[i] == b"LEAF":
            continue
        key_true, key_false = (tree_ids[i], true_ids[i]), (tree_ids[i], false_ids[i])
        if key_true not in index or key_false not in index or features[i] < 0:
            raise Unsupported("a branch to a node that is not there")
        feature[i], threshold[i] = features[i], values[i]
        left[i], right[i] = index[key_true], index[key_false]
    weight_trees = _ints(attributes, prefix + "treeids")
    weight_nodes = _ints(attributes, prefix + "nodeids")
    weight_ids = _ints(attributes, prefix + "ids")
    weights = _floats(attributes, prefix + "weights")
    if not len(weight_trees) == len(weight_nodes) == len(weight_ids) == len(weights):
        raise Unsupported("weight attributes of different lengths")
    tree_class: dict[int, int] = {}
    weighted = set()
    for t, n, k, w in zip(weight_trees, weight_nodes, weight_ids, weights, strict=True):
        leaf = index.get((t, n))
        if leaf is None or modes[leaf] != b"LEAF" or leaf in weighted:
            raise Unsupported("a weight not on a leaf, or two on one")
        if tree_class.setdefault(t, k) != k:
            raise Unsupported("a tree adding to two classes")
        weighted.add(leaf)
        threshold[leaf] = w
    if len(weighted) != modes.count(b"LEAF"):
        raise Unsupported("a leaf without a weight")
    transform = _text(attributes, "post_transform", "NONE")
    if op_type == "TreeEnsembleClassifier":
        labels = attributes.get("classlabels_int64s") or attributes.get("classlabels_strings")
        n_labels = len(labels) if isinstance(labels, list) else 0
        if n_labels == 2 and set(tree_class.values()) == {0} and transform == "LOGISTIC":
            n_classes = 1  # binary: the positive class's probability
        elif (
            n_labels > 2
            and transform == "SOFTMAX"
            and set(tree_class.values()) <= set(range(n_labels))
        ):
            n_classes = n_labels
        else:
            raise Unsupported(f"{n_labels} classes with post-transform {transform}")
    else:
        aggregate = _text(attributes, "aggregate_function", "SUM")
        if aggregate != "SUM" or transform != "NONE":
            raise Unsupported(f"a regressor with aggregate {aggregate}, post-transform {transform}")
        if _ints(attributes, "n_targets", [1]) != [1] or set(tree_class.values()) - {0}:
            raise Unsupported("more than one target")
        n_classes = 1
    classes = [tree_class.get(t, 0) for t in trees]
    return speedups.Forest(
        feature, threshold, left, right, [1 if m else 0 for m in missing], roots, classes,
        n_features, n_classes, transform,
    )  # fmt: skip


def column_of(scores: np.ndarray, column: int) -> np.ndarray:
    """The column of an ensemble's ``(n, k)`` output that is used (all of it for -1); a
    forest's binary ``LOGISTIC`` output, ``(n,)``, is that column already."""
    return scores if scores.ndim == 1 or column < 0 else scores[:, column]


def probe_rows(forest_features: list[int], thresholds: list[float], n_features: int) -> np.ndarray:
    """:data:`PROBE_ROWS` rows (float32) that take every branch both ways: each value a
    threshold of its feature, the next float above one, a missing value or zero."""
    rng = np.random.default_rng(_PROBE_SEED)
    by_feature: dict[int, list[float]] = {}
    for f, t in zip(forest_features, thresholds, strict=True):
        if f >= 0:
            by_feature.setdefault(f, []).append(t)
    rows = np.zeros((PROBE_ROWS, n_features), dtype=np.float32)
    for f in range(n_features):
        cuts = np.asarray(by_feature.get(f, [0.0]), dtype=np.float32)
        picked = cuts[rng.integers(0, len(cuts), PROBE_ROWS)]
        kind = rng.integers(0, 8, PROBE_ROWS)
        above = np.nextafter(picked, np.float32(np.inf))
        rows[:, f] = np.where(kind < 3, picked, np.where(kind < 6, above, 0.0))
        rows[kind == 6, f] = np.nan
    return rows


def forests(path: Path, session: Any, graphs: Mapping[str, tuple[str, int]]) -> dict[str, Any]:
    """The forests of the model at ``path`` that score exactly as ``session`` does, by the
    name of their input (``graphs``: input -> the session's output for it and the column
    of that output the forest gives, -1 for all of them). Empty where the compiled module
    is not built; an ensemble not covered, or not matching, is left out (logged)."""
    speedups = _compiled.load(COMPILED)
    if speedups is None:
        return {}
    try:
        nodes = speedups.onnx_tree_nodes(path.read_bytes())
    except (OSError, ValueError) as exc:
        logger.debug("auto model %s: trees not read (%s); onnxruntime scores them", path, exc)
        return {}
    widths = {i.name: int(i.shape[1]) for i in session.get_inputs()}
    found: dict[str, Any] = {}
    for op_type, inputs, _outputs, attributes in nodes:
        if attributes is None or len(inputs) != 1 or inputs[0] not in graphs:
            continue
        name = inputs[0]
        output, column = graphs[name]
        try:
            forest = build_forest(op_type, attributes, widths[name])
        except (Unsupported, ValueError, KeyError) as exc:
            logger.debug("auto model %s, %s: %s; onnxruntime scores it", path, name, exc)
            continue
        probe = probe_rows(
            attributes.get("nodes_featureids", []), attributes.get("nodes_values", []), widths[name]
        )
        feeds = {
            i: (probe if i == name else np.zeros((0, w), np.float32)) for i, w in widths.items()
        }
        expected = column_of(np.asarray(session.run([output], feeds)[0]), column)
        got = column_of(forest.scores(probe), column)
        if got.shape != expected.shape or got.tobytes() != expected.tobytes():
            logger.debug("auto model %s, %s: the forest differs; onnxruntime scores it", path, name)
            continue
        found[name] = forest
    return found
