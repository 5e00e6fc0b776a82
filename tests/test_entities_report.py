"""benchmarks/entities_eval.py's report: Wilson intervals and entities.md from its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import entities_eval


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # the template split's WebQA accuracy; values checked against the roots of
        # (p - x)^2 = z^2 x (1 - x) / n
        (2, 28, 0.0198, 0.2265),
        (15, 86, 0.1086, 0.2680),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_wilson_interval(k: int, n: int, low: float, high: float) -> None:
    lo, hi = entities_eval.wilson(k, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)
    assert lo <= k / n <= hi


def test_wilson_without_examples_says_nothing() -> None:
    assert entities_eval.wilson(0, 0) == (0.0, 1.0)


def test_wilson_narrows_with_more_examples() -> None:
    small = entities_eval.wilson(2, 28)
    large = entities_eval.wilson(20, 280)
    assert large[1] - large[0] < small[1] - small[0]


def _result(examples: int, accuracy: float, baseline: float) -> dict[str, float]:
    return {
        "examples": examples,
        "accuracy": accuracy,
        "accuracy_at_5": 0.5,
        "oracle": 0.5,
        "baseline_accuracy": baseline,
        "median_ms": 100.0,
    }


REPORT = {
    "splits": {
        "page": {"train_examples": 10, "sets": {"webqa-utopia-dev": _result(86, 15 / 86, 3 / 86)}},
        "template": {
            "train_examples": 8,
            "sets": {"webqa-utopia-dev": _result(28, 2 / 28, 3 / 28)},
        },
    }
}


def test_report_rows_give_counts_and_intervals() -> None:
    lines = entities_eval.report_lines(REPORT)
    rows = [
        line for line in lines if line.startswith("| page |") or line.startswith("| template |")
    ]
    assert rows == [
        "| page | webqa-utopia-dev | 86 | 0.174 (15) | 0.109-0.268 | 0.500 | 0.500 | 0.35 | "
        "0.035 (3) | 100 |",
        "| template | webqa-utopia-dev | 28 | 0.071 (2) | 0.020-0.226 | 0.500 | 0.500 | 0.14 | "
        "0.107 (3) | 100 |",
    ]
    assert any("10 training examples" in line for line in lines)


def test_report_from_json_writes_the_markdown_only(tmp_path: Path) -> None:
    source = tmp_path / "entities.json"
    source.write_text(json.dumps(REPORT), encoding="utf-8")
    out = tmp_path / "out"
    assert entities_eval.main(["--report-from", str(source), "--out", str(out)]) == 0
    assert (
        (out / "entities.md")
        .read_text(encoding="utf-8")
        .startswith("# Zero-shot entity extraction")
    )
    assert not (out / "entities.json").exists()
