"""Model files loaded once per process, and failures remembered until the file changes.

Methods that ship a model (an ONNX file in their package) load it where pages are
extracted, never on the crawl's reactor thread; :meth:`ModelFiles.check` is the cheap test
that may run there (a request's meta naming a missing file fails at once). A file that
failed to load fails every later page at once with the same error, without reading the
file again, until its size or modification time changes.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from scrapy_boilerplate.core.errors import BoilerplateError

M = TypeVar("M")


class ModelFileError(BoilerplateError):
    """A model file is missing, unreadable or made for other features; names the file."""

    def __init__(self, path: Path | str, reason: str, kind: str = "model") -> None:
        super().__init__(f"{kind} {path}: {reason}")
        self.path = str(path)
        self.reason = reason


def onnx_session(
    path: Path, threads: int | None, error: Callable[[Path, str], ModelFileError]
) -> Any:
    """An onnxruntime session of ``path`` on the CPU, ``threads`` threads (default: the
    ``SCRAPY_BOILERPLATE_ORT_THREADS`` environment variable, else 1: a page is far too small
    to gain from threads, and a crawl's parallelism comes from its workers); a broken
    install or a corrupt file raises ``error(path, why)``."""
    try:
        import onnxruntime as ort
    except ImportError as exc:  # a core dependency; only a broken install lacks it
        raise error(path, f"onnxruntime cannot be imported: {exc}") from exc
    options = ort.SessionOptions()
    count = threads or int(os.environ.get("SCRAPY_BOILERPLATE_ORT_THREADS", "1") or 1)
    options.intra_op_num_threads = count
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    try:
        return ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own types for corrupt files
        raise error(path, f"not a readable ONNX model ({type(exc).__name__}: {exc})") from exc


def open_onnx(
    path: Path,
    threads: int | None,
    error: Callable[[Path, str], ModelFileError],
    feature_version: str,
    retrain: str,
) -> tuple[Any, dict[str, Any]]:
    """The session of the ONNX model at ``path`` (:func:`onnx_session`) and its metadata
    (``metadata_props``, JSON values decoded); a model whose ``feature_version`` is not
    ``feature_version`` raises ``error`` saying to retrain it with the command ``retrain``,
    rather than silently mislabelling pages."""
    session = onnx_session(path, threads, error)
    meta = session.get_modelmeta().custom_metadata_map
    metadata = {k: _json_or_text(v) for k, v in meta.items()}
    version = str(metadata.get("feature_version", ""))
    if version != feature_version:
        raise error(
            path,
            f"made for feature version {version or '(none)'}, this package computes "
            f"version {feature_version}: retrain it with `{retrain}`",
        )
    return session, metadata


def _json_or_text(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def model_file(path: Path | str | None, model_dir: Path, default: Path) -> Path:
    """The file of a model: None is ``default``; a bare name without a suffix or folder is
    the shipped model of that name in ``model_dir`` (when there is one); anything else is a
    path (a path comes from settings only, never from a request)."""
    if not path:
        return default
    text = str(path)
    if isinstance(path, str) and "/" not in text and "\\" not in text and "." not in text:
        shipped = model_dir / f"{text}.onnx"
        if shipped.is_file():
            return shipped
    return Path(path).expanduser().resolve()


def file_signature(path: str) -> tuple[int, int] | None:
    """(size, modification time) of ``path``, or None where it cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


class ModelFiles(Generic[M]):
    """Loaded models by resolved path, with the failures of files that would not load.

    ``load(path)`` builds the model (raising a subclass of :class:`ModelFileError`, which
    carries ``reason``); it runs once per path and process.
    """

    def __init__(self, load: Callable[[str], M]) -> None:
        self._load = load
        self.models: dict[str, M] = {}
        #: path -> (the file's size and modification time, why it failed)
        self.failures: dict[str, tuple[tuple[int, int], str]] = {}
        self._lock = threading.Lock()
        self._error: type[ModelFileError] | None = None

    def check(self, key: str) -> None:
        """Raise the remembered failure of ``key``, or the missing file's error; no load."""
        if key in self.models:
            return
        self.raise_failure(key)
        if not Path(key).is_file():
            self._load(key)  # raises the missing file's error, named

    def get(self, key: str) -> M:
        """The model of ``key``, loaded on first use; a remembered failure raises again."""
        model = self.models.get(key)
        if model is None:
            with self._lock:
                model = self.models.get(key)
                if model is None:
                    self.raise_failure(key)
                    try:
                        model = self.models[key] = self._load(key)
                    except ModelFileError as exc:
                        self._error = type(exc)
                        signature = file_signature(key)
                        if signature is not None:  # a missing file is not remembered
                            self.failures[key] = (signature, exc.reason)
                        raise
        return model

    def raise_failure(self, key: str) -> None:
        """Raise the remembered failure of ``key`` if the file has not changed since."""
        failure = self.failures.get(key)
        if failure is not None and failure[0] == file_signature(key):
            raise (self._error or ModelFileError)(key, failure[1])
