"""Shared test set-up: the benchmark harness (``benchmarks/harness``, not shipped in the
wheel) is importable as ``harness`` for the tests of its metrics and readers."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))
