"""The paired bootstrap of benchmarks/compare.py on hand-made page records."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from harness.compare import Difference, dataset_lines, has_metric, paired
from harness.metrics import harmonic

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _text(i: int, p: float | None, r: float | None, kind: str | None = None) -> dict:
    rec: dict = {"id": str(i), "ms": 1.0, "p": p, "r": r}
    if kind:
        rec["type"] = kind
    return rec


def test_scores_are_the_reports_f1_of_the_averages():
    a = [_text(0, 1.0, 0.5), _text(1, None, 0.0), _text(2, 0.5, 1.0)]
    b = [_text(2, 0.5, 0.5), _text(0, 0.5, 0.5), _text(1, 0.5, 0.5)]  # (another order)
    d = paired(a, b, "text", resamples=50)
    # precision over the pages with an output (2 of 3), recall over all three
    assert d.a == pytest.approx(harmonic(0.75, 0.5))
    assert d.b == pytest.approx(0.5)
    assert d.pages == 3


def test_the_same_pages_give_a_difference_of_nothing():
    pages = [_text(i, 0.1 * (i % 10), 0.05 * (i % 20)) for i in range(40)]
    d = paired(pages, [dict(r) for r in pages], "text", resamples=200)
    assert (d.difference, d.low, d.high) == (0.0, 0.0, 0.0)
    assert d.settled == "neither"


def test_better_on_every_page_is_ahead_and_a_coin_toss_is_not():
    worse = [_text(i, 0.5 + 0.01 * (i % 7), 0.6) for i in range(60)]
    better = [_text(i, r["p"] + 0.2, 0.8) for i, r in enumerate(worse)]
    ahead = paired(better, worse, "text", resamples=300)
    assert ahead.settled == "a" and ahead.low > 0
    assert paired(worse, better, "text", resamples=300).settled == "b"
    # half the pages one way, half the other: the interval holds 0
    mixed = [_text(i, 0.9 if i % 2 else 0.3, 0.9 if i % 2 else 0.3) for i in range(60)]
    other = [_text(i, 0.3 if i % 2 else 0.9, 0.3 if i % 2 else 0.9) for i in range(60)]
    coin = paired(mixed, other, "text", resamples=300)
    assert coin.low < 0 < coin.high and coin.settled == "neither"


def test_snippet_f1_sums_the_pages_counts():
    a = [{"id": "x", "snippets": [3, 1, 0, 2]}, {"id": "y", "snippets": [1, 0, 2, 1]}]
    b = [{"id": "x", "snippets": [2, 0, 1, 3]}, {"id": "y", "snippets": [0, 0, 3, 1]}]
    d = paired(a, b, "snippets", resamples=50)
    assert d.a == pytest.approx(2 * 4 / (2 * 4 + 1 + 2))
    assert d.b == pytest.approx(2 * 2 / (2 * 2 + 0 + 4))
    assert has_metric(a, "snippets") and not has_metric(a, "text")


def test_resamples_are_seeded_and_pages_must_be_shared():
    a = [_text(i, 0.1 * (i % 9), 0.7) for i in range(30)]
    b = [_text(i, 0.5, 0.1 * (i % 8)) for i in range(30)]
    assert paired(a, b, "text", seed=3) == paired(a, b, "text", seed=3)
    with pytest.raises(ValueError, match="share no page"):
        paired(a, [_text(99, 1.0, 1.0)], "text")
    with pytest.raises(ValueError, match="unknown metric"):
        paired(a, b, "blocks")


def test_dataset_lines_compare_ours_with_each_peer_and_each_type():
    mine = [_text(i, 0.9, 0.9, "article" if i % 2 else "product") for i in range(20)]
    theirs = [_text(i, 0.5, 0.5) for i in range(20)]
    extractors = {
        "auto": {"ours": True, "pages": mine},
        "cnr": {"ours": True, "pages": theirs},  # (ours too: not a peer)
        "peer": {"ours": False, "pages": theirs},
    }
    types = {r["id"]: r["type"] for r in mine}
    lines = dataset_lines("set", extractors, "auto", types, resamples=100)
    text = "\n".join(lines)
    assert "| peer | +0.400 [+0.400, +0.400] (ahead) |" in text
    assert "cnr" not in text
    assert "| article | 10 |" in text and "| product | 10 |" in text
    assert dataset_lines("set", extractors, "missing") == []


def test_the_script_reads_page_types_from_the_records_or_the_dataset(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_compare", BENCHMARKS / "compare.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    records = [_text(i, 0.9, 0.9) for i in range(4)]
    folder = tmp_path / "wcxb-dev"
    folder.mkdir()
    rows = [{"id": str(i), "page_type": "forum" if i < 2 else "listing"} for i in range(4)]
    (folder / "index.jsonl").write_text("\n".join(map(json.dumps, rows)), encoding="utf-8")
    assert module.page_types("wcxb-dev", records, tmp_path) == {
        "0": "forum", "1": "forum", "2": "listing", "3": "listing",
    }  # fmt: skip
    typed = [_text(0, 0.9, 0.9, "article")]
    assert module.page_types("wcxb-dev", typed, tmp_path) == {"0": "article"}
    assert module.page_types("other", records, tmp_path) == {}
    results = {
        "meta": {"date": "today"},
        "datasets": {
            "wcxb-dev": {
                "extractors": {
                    "auto": {"ours": True, "pages": records},
                    "peer": {"ours": False, "pages": [_text(i, 0.5, 0.5) for i in range(4)]},
                }
            }
        },
    }
    out = tmp_path / "out"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    argv = ["--results", str(path), "--data", str(tmp_path), "--out", str(out)]
    assert module.main([*argv, "--resamples", "50"]) == 0
    report = (out / "comparisons.md").read_text(encoding="utf-8")
    assert "## wcxb-dev" in report and "| forum | 2 |" in report
    assert module.main(["--results", str(tmp_path / "none.json")]) == 2


def test_difference_names_the_side_its_interval_is_on():
    assert Difference("text", 0.5, 0.4, 0.01, 0.2, 10).settled == "a"
    assert Difference("text", 0.4, 0.5, -0.2, -0.01, 10).settled == "b"
    assert Difference("text", 0.4, 0.5, -0.2, 0.01, 10).settled == "neither"
