"""Running the trained Web2Text networks with onnxruntime (no PyTorch at run time).

A model is one ONNX file holding both networks of section 3.4 behind one graph:

- inputs ``blocks`` (1, 128, n) and ``edges`` (1, 25, m) float32, the *raw* features of
  :mod:`.features` (clipped, not standardised): the graph standardises the non-binary
  columns itself with the mean and standard deviation learned on the training data, so the
  statistics travel with the weights and cannot be mismatched;
- outputs ``unary`` (1, 2, n) and ``pairwise`` (1, 4, m) softmax probabilities
  (unary: boilerplate, content; pairwise: 00, 01, 10, 11).

The file's metadata (``metadata_props``) says which feature set it expects
(``feature_version``) and what it was trained on. One onnxruntime session is made per
process and model path (:func:`load_model`), single-threaded by default: a page's forward
pass is far too small to gain from threads, and the crawl's parallelism comes from the
plugin's worker processes; ``SCRAPY_BOILERPLATE_ORT_THREADS`` sets another count.

Pages are run in chunks of :data:`CHUNK` blocks with a margin of :data:`MARGIN` blocks on
each side (the receptive field of three kernel-3 layers is 3 blocks each way), so a page of
100,000 blocks needs bounded memory and gives exactly what one pass would.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from scrapy_boilerplate.core.models import ModelFileError, ModelFiles, model_file, open_onnx

MODEL_DIR = Path(__file__).resolve().parent / "model"
DEFAULT_MODEL = MODEL_DIR / "web2text.onnx"
#: Bump when the features change meaning or order: a model trained on another version
#: is refused with a message, rather than silently mislabelling pages.
FEATURE_VERSION = "2"
CHUNK = 4096
MARGIN = 3


class ModelError(ModelFileError):
    """A Web2Text model file is missing, unreadable or of another feature version.

    The message names the file.
    """

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(path, reason, "Web2Text model")


class Web2TextModel:
    """Both networks of one ONNX file, ready to give a page's potentials."""

    def __init__(self, path: Path | str, threads: int | None = None) -> None:
        path = Path(path)
        if not path.is_file():
            raise ModelError(
                path,
                f"no such file; the shipped models are {', '.join(shipped_models())} (give "
                f"one by name), or give the path of a model file (train one with "
                f"`scrapy-boilerplate train`)",
            )
        self.session, self.metadata = open_onnx(
            path, threads, ModelError, FEATURE_VERSION, "scrapy-boilerplate train"
        )
        self.path = path
        names = {i.name for i in self.session.get_inputs()}
        if names != {"blocks", "edges"}:
            raise ModelError(path, f"expected inputs 'blocks' and 'edges', found {sorted(names)}")
        self._lock = threading.Lock()

    def potentials(self, blocks: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Unary (n, 2) and pairwise (n - 1, 4) probabilities for one page's raw features."""
        n = len(blocks)
        if n == 0:
            return np.zeros((0, 2), np.float32), np.zeros((0, 4), np.float32)
        unary = np.empty((n, 2), np.float32)
        pairwise = np.empty((max(n - 1, 0), 4), np.float32)
        m = n - 1
        for start in range(0, n, CHUNK):
            stop = min(n, start + CHUNK)
            lo, hi = max(0, start - MARGIN), min(n, stop + MARGIN)
            # Edges start..edge_stop, with their own margins (edge i joins blocks i, i+1).
            edge_stop = min(stop, m)
            elo, ehi = max(0, start - MARGIN), min(m, edge_stop + MARGIN)
            u, p = self._run(blocks[lo:hi], edges[elo:ehi] if edge_stop > start else edges[:0])
            unary[start:stop] = u[start - lo : stop - lo]
            if edge_stop > start:
                pairwise[start:edge_stop] = p[start - elo : edge_stop - elo]
        return unary, pairwise

    def _run(self, blocks: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m = len(edges)
        if m == 0:  # one block: the pairwise net still needs a non-empty sequence
            edges = np.zeros((1, edges.shape[1] if edges.ndim == 2 else 25), np.float32)
        feeds = {
            "blocks": np.ascontiguousarray(blocks.T[None], dtype=np.float32),
            "edges": np.ascontiguousarray(edges.T[None], dtype=np.float32),
        }
        # InferenceSession.run is thread-safe, but one session per process is shared by
        # the plugin's threads: serialising keeps its scratch memory to one page at a time.
        with self._lock:
            unary, pairwise = self.session.run(["unary", "pairwise"], feeds)
        return unary[0].T, pairwise[0].T[:m]


#: Models by path, loaded once per process; a file that failed to load fails every later
#: page at once (a load reads the whole file) until the file changes.
_files: ModelFiles[Web2TextModel] = ModelFiles(Web2TextModel)


def shipped_models() -> list[str]:
    """Names of the models shipped in the package (``web2text``, ``cleaneval``)."""
    return sorted(p.stem for p in MODEL_DIR.glob("*.onnx"))


def resolve_model(path: Path | str | None) -> Path:
    """The file of a model: None is the default shipped model; a bare name without a
    suffix or folder (``"cleaneval"``) is a shipped model; anything else is a path."""
    return model_file(path, MODEL_DIR, DEFAULT_MODEL)


def check_model(path: Path | str | None = None) -> None:
    """Raise :class:`ModelError` when the model at ``path`` is missing or already failed
    to load; cheap (no load), so it may run where a load must not (the reactor thread)."""
    _files.check(str(resolve_model(path)))


def load_model(path: Path | str | None = None) -> Web2TextModel:
    """The model at ``path`` (see :func:`resolve_model`), loaded once per process; a file
    that failed to load raises the same :class:`ModelError` again without another try."""
    return _files.get(str(resolve_model(path)))
