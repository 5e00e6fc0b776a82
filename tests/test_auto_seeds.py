"""``benchmarks/auto_seeds.py``: its scoring, its report's comparisons with the peers and
its training table, on pages and figures written here (no dataset, no training)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import auto_seeds
from harness.datasets import Page
from harness.evaluate import PageResult, score_page
from harness.peers import Output

GOLD = "the quick brown fox jumps over the lazy dog near the quiet river bank today"


def _pages() -> dict[str, list[Page]]:
    return {
        "wcxb-dev": [
            Page("wcxb-dev", "a", "<html></html>", gold_text=GOLD, page_type="article"),
            Page("wcxb-dev", "b", "<html></html>", gold_text=GOLD, page_type="product"),
        ],
        "trafilatura-eval": [
            Page(
                "trafilatura-eval",
                "c",
                "<html></html>",
                with_snippets=("quick brown fox",),
                without_snippets=("cookie banner",),
            )
        ],
    }


def _results(pages: list[Page], texts: list[str | None]) -> list[PageResult]:
    """``run_page``'s results for these texts (None: the extractor raised on the page)."""
    return [
        score_page(p, None if t is None else Output(t), 0.0, None if t is not None else "boom")
        for p, t in zip(pages, texts, strict=True)
    ]


def test_scores_reads_text_snippets_and_page_types() -> None:
    pages = _pages()
    perfect = auto_seeds.scores(_results(pages["wcxb-dev"], [GOLD, GOLD]))
    assert perfect == {"text": 1.0, "type:article": 1.0, "type:product": 1.0}
    half = auto_seeds.scores(
        _results(pages["wcxb-dev"], [GOLD, None])
    )  # a failure scores as nothing
    assert half["type:article"] == 1.0 and half["type:product"] == 0.0
    assert 0.0 < half["text"] < 1.0
    snippets = auto_seeds.scores(_results(pages["trafilatura-eval"], ["the quick brown fox"]))
    assert snippets == {"snippets": 1.0}
    wrong = auto_seeds.scores(_results(pages["trafilatura-eval"], ["cookie banner"]))
    assert wrong["snippets"] == 0.0


def test_render_counts_the_seeds_above_each_peer() -> None:
    pages = _pages()

    def figures(text: float, product: float, snippets: float) -> dict[str, dict[str, float]]:
        return {
            "wcxb-dev": {"text": text, "type:article": 0.9, "type:product": product},
            "trafilatura-eval": {"snippets": snippets},
        }

    results = {
        "seed 1": figures(0.815, 0.60, 0.95),
        "seed 2": figures(0.805, 0.555, 0.925),
        "trafilatura": figures(0.80, 0.55, 0.92),
        "readability-lxml": figures(0.805, 0.10, 0.80),
    }
    report = auto_seeds.render(
        results, ["seed 1", "seed 2"], ["trafilatura", "readability-lxml"], pages
    )
    rows = {
        cells[0]: cells
        for line in report.splitlines()
        if line.startswith("| ")
        for cells in [[c.strip() for c in line.strip("|").split("|")]]
    }
    header = rows["comparison"]
    trafilatura = dict(zip(header, rows["above trafilatura (+0.01 on text F1)"], strict=True))
    # text F1 needs the margin (0.815 >= 0.81, 0.805 < 0.81); snippets and types do not
    assert trafilatura["wcxb-dev"] == "1/2"
    assert trafilatura["trafilatura-eval"] == "2/2"  # 0.925 >= 0.92: no margin
    assert trafilatura["wcxb-dev product"] == "2/2"  # 0.555 >= 0.55: no margin
    readability = dict(zip(header, rows["above readability-lxml"], strict=True))
    assert readability["wcxb-dev"] == "1/2"  # strictly above: a tie (0.805) is not
    assert readability["wcxb-dev product"] == "–"  # page types are compared with trafilatura
    assert rows["seeds: mean"][1] == "0.8100"  # wcxb-dev's text F1, the first column


def test_training_table_reads_the_reports_beside_the_models(tmp_path: Path) -> None:
    report = {
        "cv_text_f1_with_asides": {"all": 0.85651},
        "page_type_accuracy": 0.8012,
        "trees": 200,
        "threshold": 0.35,
        "thresholds": {"article": 0.5, "forum": 0.3},
    }
    (tmp_path / "seed13.json").write_text(json.dumps(report), encoding="utf-8")
    table = auto_seeds.training_table({13: tmp_path / "seed13.onnx", 14: tmp_path / "seed14.onnx"})
    assert "| seed 13 | 0.8565 | 0.801 | 200 | 0.5 | 0.3 |" in table
    assert "seed 14" not in table  # no report: left out
    assert auto_seeds.training_table({14: tmp_path / "seed14.onnx"}) == ""
    # a model with the named-body rule: its figure with the rule
    report["cv_text_f1_with_body"] = {"all": 0.85742}
    (tmp_path / "seed13.json").write_text(json.dumps(report), encoding="utf-8")
    table = auto_seeds.training_table({13: tmp_path / "seed13.onnx"})
    assert "| seed 13 | 0.8574 | 0.801 | 200 | 0.5 | 0.3 |" in table


def test_missing_datasets_are_named_and_nothing_is_trained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = auto_seeds.main(["--data", str(tmp_path), "--models", str(tmp_path / "models")])
    assert code == 2
    assert "cleaneval" in capsys.readouterr().err
    assert not (tmp_path / "models").exists()
