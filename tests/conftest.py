"""Shared test set-up: the benchmark harness (``benchmarks/harness``, not shipped in the
wheel) is importable as ``harness`` for the tests of its metrics and readers; and
``auto_model_with``, the shipped ``auto`` model with one metadata value changed."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))


@pytest.fixture
def auto_model_with(tmp_path: Path) -> Callable[[str, Any, str | None], Any]:
    """A function writing the shipped ``auto`` model with metadata ``key`` set to ``value``
    (JSON; None: the key left out) under ``tmp_path`` and loading it: with ``error``, it
    checks that loading fails with that message, naming the file, and returns None;
    otherwise it returns the loaded model."""
    onnx = pytest.importorskip("onnx")
    from scrapy_boilerplate.auto import model

    def load(key: str, value: Any, error: str | None = None) -> Any:
        proto = onnx.load(str(model.DEFAULT_MODEL))
        kept = [p for p in proto.metadata_props if p.key != key]
        del proto.metadata_props[:]
        proto.metadata_props.extend(kept)
        if value is not None:
            prop = proto.metadata_props.add()
            prop.key, prop.value = key, json.dumps(value)
        path = tmp_path / f"{key}{abs(hash(json.dumps(value))) % 10**6}.onnx"
        onnx.save(proto, str(path))
        if error is None:
            return model.AutoModel(path)
        with pytest.raises(model.ModelError, match=error) as info:
            model.AutoModel(path)
        assert str(path) in str(info.value)
        return None

    return load
