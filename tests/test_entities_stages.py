"""``benchmarks/entities_stages.py``: the entity extractor's time by step on a small
entity set written here, its report, and every timed step put back afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import entities_stages
from entities_eval import webqa_split
from scrapy_boilerplate.entities import extract, rerank

NAMES = ["Ann Lee", "Bob Ray", "Cy Dee", "Dan Oak"]


def _page(i: int) -> str:
    people = "".join(f"<li>{n} {i}</li>" for n in NAMES)
    return (
        f"<html><body><h1>Lab {i}</h1><h2>Students</h2><ul>{people}</ul>"
        "<h2>Courses</h2><ul><li>Parsing</li><li>Compilers</li><li>Types</li></ul>"
        "<p>Contact us at the front desk.</p></body></html>"
    )


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A webqa-utopia-dev-like set of six pages, at least one of them a test page."""
    folder = tmp_path / "data" / "webqa-utopia-dev"
    (folder / "pages").mkdir(parents=True)
    ids = [f"fac_{i}" for i in range(40)]
    test = [p for p in ids if webqa_split(p) == "test"][:2]
    train = [p for p in ids if webqa_split(p) == "train"][:4]
    rows = []
    for k, page in enumerate(test + train):
        (folder / "pages" / f"{page}.html").write_text(_page(k), encoding="utf-8")
        rows.append({"id": f"{page}-t1", "domain": "fac", "task_id": "t1",
                     "question": "Who are the students?", "page_id": page,
                     "answer_kind": "list",
                     "answers": [[f"{n} {k}"] for n in NAMES]})  # fmt: skip
    (folder / "examples.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    return tmp_path / "data"


def test_the_report_has_every_step_and_the_steps_are_put_back(data: Path, tmp_path: Path) -> None:
    before = {name: getattr(extract, name) for name in entities_stages.FUNCTIONS}
    methods = {name: getattr(extract.PageCandidates, name) for name in entities_stages.METHODS}
    ranker = {name: getattr(rerank.Ranker, name) for name in entities_stages.RANKER_METHODS}
    out = tmp_path / "reports"
    assert entities_stages.main(["--data", str(data), "--repeat", "1", "--out", str(out)]) == 0
    text = (out / "entities_stages.md").read_text(encoding="utf-8")
    assert "## webqa-utopia-dev" in text
    for label in entities_stages.LABELS.values():
        assert f"| {label} |" in text
    assert {name: getattr(extract, name) for name in entities_stages.FUNCTIONS} == before
    assert {n: getattr(extract.PageCandidates, n) for n in entities_stages.METHODS} == methods
    assert {n: getattr(rerank.Ranker, n) for n in entities_stages.RANKER_METHODS} == ranker


def test_the_steps_are_timed_inside_the_block_only() -> None:
    times: dict[str, float] = {}
    with entities_stages.timed_steps(times):
        extract.extract_entities(_page(0), "Who are the students?")
    assert times["generate"] > 0 and times["denotation_names"] > 0 and times["_base"] > 0
    after = dict(times)
    extract.extract_entities(_page(1), "Who are the students?")
    assert times == after


def test_without_datasets_it_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert entities_stages.main(["--data", str(tmp_path / "none")]) == 1
    assert "no entity datasets" in capsys.readouterr().err
