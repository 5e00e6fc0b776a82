"""``auto``'s models: gradient-boosted trees in ONNX files, run by onnxruntime.

The package ships one file, ``model/auto.onnx``, holding three graphs' worth of trees
behind named inputs and outputs:

- ``page`` (1, :data:`.pagetype.WIDTH`) float32, the page features, to ``p_type``
  (1, k): the page type's probabilities, in the order of the metadata's ``page_types``;
- ``blocks`` (n, :data:`.features.WIDTH` + k) float32, the block features and the page
  type's probabilities, to ``p_block`` (n, 2): the probability that a block is content;
- ``quality`` (1, :data:`.extractor.QUALITY_WIDTH`) float32 to ``p_quality`` (1, 1): the
  expected text F1 of the result.

Its metadata (``metadata_props``, JSON values) names the feature sets it was trained on
(``feature_version``), the page types, the decision thresholds per page type, the decision
rule (``decoding``), the aside rule (``asides``: :mod:`.asides`), the named-body rule
(``body``: :mod:`.body`) and what it was trained on. One session per process and path,
single-threaded (a page's trees are far too small to gain from threads;
``SCRAPY_BOILERPLATE_ORT_THREADS`` sets another count).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from scrapy_boilerplate.auto import body as _body_rule
from scrapy_boilerplate.auto import forest
from scrapy_boilerplate.auto.asides import RULE_VERSION
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.models import ModelFileError, ModelFiles, model_file, open_onnx

MODEL_DIR = Path(__file__).resolve().parent / "model"
DEFAULT_MODEL = MODEL_DIR / "auto.onnx"
#: Bump when a feature set changes meaning or order: a model made for another version is
#: refused with a message rather than silently mislabelling pages.
FEATURE_VERSION = "2"
INPUTS = ("blocks", "page", "quality")
OUTPUTS = ("p_block", "p_type", "p_quality")
#: input -> the output the session gives for it, and the column of it that is used (-1: all)
GRAPHS = {"blocks": ("p_block", 1), "page": ("p_type", -1), "quality": ("p_quality", 0)}


class ModelError(ModelFileError):
    """The ``auto`` model file is missing, unreadable or made for other features."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(path, reason, "auto model")


class AutoModel:
    """One ONNX file's trees, ready to score a page's blocks, type and quality."""

    def __init__(self, path: Path | str, threads: int | None = None) -> None:
        path = Path(path)
        if not path.is_file():
            raise ModelError(
                path,
                "no such file (the shipped model is auto; train one with "
                "`scrapy-boilerplate train auto`)",
            )
        self.session, self.metadata = open_onnx(
            path, threads, ModelError, FEATURE_VERSION, "scrapy-boilerplate train auto"
        )
        self.path = path
        inputs = {i.name for i in self.session.get_inputs()}
        outputs = {o.name for o in self.session.get_outputs()}
        if inputs != set(INPUTS) or not set(OUTPUTS) <= outputs:
            raise ModelError(
                path,
                f"expected inputs {', '.join(INPUTS)} and outputs {', '.join(OUTPUTS)}, "
                f"found {sorted(inputs)} and {sorted(outputs)}",
            )
        types = self.metadata.get("page_types")
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise ModelError(path, "its metadata lacks the list of page types")
        self.page_types: list[str] = types
        thresholds = self.metadata.get("thresholds", {})
        self.default_threshold = float(self.metadata.get("threshold", 0.5))
        self.thresholds: dict[str, float] = {
            str(k): float(v)
            for k, v in (thresholds.items() if isinstance(thresholds, dict) else ())
        }
        #: The model's decision rule (chosen with its thresholds): keep content to the
        #: page's best run of blocks (:func:`.extractor.decide`), and blocks outside it at
        #: or above :attr:`run_keep`. Models without it in their metadata were chosen for
        #: the threshold alone.
        self.best_run, self.run_keep = _decoding(path, self.metadata.get("decoding"))
        #: The page types on which content in a named aside is boilerplate
        #: (:mod:`.asides`), and the largest share of the page such an aside may hold;
        #: models without it in their metadata were chosen without the rule.
        self.aside_types, self.aside_share = _asides(path, self.metadata.get("asides"))
        #: The page types on which content outside the template's named body is
        #: boilerplate (:mod:`.body`), and the least share of the kept text that body must
        #: hold; models without it in their metadata were chosen without the rule.
        self.body_types, self.body_share = _body(path, self.metadata.get("body"))
        self._empty = {
            i.name: np.zeros((0, int(i.shape[1])), np.float32) for i in self.session.get_inputs()
        }
        self._lock = threading.Lock()
        #: input -> its trees, scored without the session (empty where not compiled)
        self.forests: dict[str, Any] = forest.forests(path, self.session, GRAPHS)

    def _scores(self, name: str, x: np.ndarray) -> np.ndarray:
        """The column :data:`GRAPHS` names of input ``name``'s output for the rows ``x``:
        by the compiled forest where there is one (and twins are enabled), else by the
        session."""
        output, column = GRAPHS[name]
        trees = self.forests.get(name)
        if trees is not None and _compiled.ENABLED:
            return forest.column_of(trees.scores(np.ascontiguousarray(x, dtype=np.float32)), column)
        return forest.column_of(self._run(output, name, x), column)

    def _run(self, output: str, name: str, x: np.ndarray) -> np.ndarray:
        # every input must be fed: the graphs not asked for get no rows
        feeds = {
            i: (np.ascontiguousarray(x, dtype=np.float32) if i == name else self._empty[i])
            for i in INPUTS
        }
        with self._lock:  # one session per process, shared by the plugin's threads
            return np.asarray(self.session.run([output], feeds)[0])

    def page_type(self, page: np.ndarray) -> np.ndarray:
        """The page type's probabilities (k,), in the order of :attr:`page_types`."""
        return self._scores("page", page.reshape(1, -1))[0]

    def blocks(self, blocks: np.ndarray) -> np.ndarray:
        """Each block's probability of being main content (n,)."""
        if not len(blocks):
            return np.zeros(0, np.float32)
        return self._scores("blocks", blocks)

    def quality(self, quality: np.ndarray) -> float:
        """The expected text F1 of a result, from its quality features."""
        return float(self._scores("quality", quality.reshape(1, -1))[0])


def _decoding(path: Path, value: Any) -> tuple[bool, float | None]:
    """The decision rule a model's metadata names: (best run or not, its ``keep``). None is
    the threshold alone; anything but the rule this code knows is refused, naming the
    file, rather than guessed at."""
    if value is None:
        return False, None
    if not isinstance(value, dict) or value.get("rule") != "best-run":
        raise ModelError(path, f"its metadata names an unknown decision rule: {str(value)[:100]}")
    keep = value.get("keep")
    if keep is None:
        return True, None
    if isinstance(keep, bool) or not isinstance(keep, (int, float)) or not 0.0 <= keep <= 1.0:
        raise ModelError(path, f"its decision rule's keep is not a probability: {keep!r:.40}")
    return True, float(keep)


def _typed_rule(path: Path, value: Any, name: str, version: int) -> tuple[frozenset[str], float]:
    """A rule a model's metadata names as ``{version, types, share}`` (the ``name`` rule:
    ``aside``, ``body``): the page types it applies to and its share. None is no rule; a
    version other than ``version``, or values that are not what they should be, are
    refused, naming the file."""
    if value is None:
        return frozenset(), 0.0
    if not isinstance(value, dict) or value.get("version") != version:
        raise ModelError(path, f"its metadata names an unknown {name} rule: {str(value)[:100]}")
    types, share = value.get("types"), value.get("share")
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise ModelError(path, f"its {name} rule's types are not a list of names: {types!r:.60}")
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0.0 < share <= 1.0:
        raise ModelError(path, f"its {name} rule's share is not a fraction: {share!r:.40}")
    return frozenset(types), float(share)


def _asides(path: Path, value: Any) -> tuple[frozenset[str], float]:
    """The aside rule a model's metadata names (:mod:`.asides`): the page types it applies
    to and the largest share of the page an aside may hold (:func:`_typed_rule`)."""
    return _typed_rule(path, value, "aside", RULE_VERSION)


def _body(path: Path, value: Any) -> tuple[frozenset[str], float]:
    """The named-body rule a model's metadata names (:mod:`.body`): the page types it
    applies to and the least share of the kept text the body holds (:func:`_typed_rule`)."""
    return _typed_rule(path, value, "body", _body_rule.RULE_VERSION)


_files: ModelFiles[AutoModel] = ModelFiles(AutoModel)


def shipped_models() -> list[str]:
    """Names of the models shipped in the package (``auto``)."""
    return sorted(p.stem for p in MODEL_DIR.glob("*.onnx"))


def resolve_model(path: Path | str | None) -> Path:
    """The file of a model: None is the shipped model; a bare name (``"auto"``) a shipped
    model; anything else a path (a path comes from settings only, never a request)."""
    return model_file(path, MODEL_DIR, DEFAULT_MODEL)


def check_model(path: Path | str | None = None) -> None:
    """Raise :class:`ModelError` when the model is missing or already failed to load; no
    load (it may run on the reactor thread)."""
    _files.check(str(resolve_model(path)))


def load_model(path: Path | str | None = None) -> AutoModel:
    """The model at ``path``, loaded once per process (a failed file fails again at once)."""
    return _files.get(str(resolve_model(path)))
