"""``python benchmarks/run.py`` writes its report only where ``--out`` says: run without it
(as on another checkout, or on a few pages), it prints the report and leaves every folder,
the committed ``benchmarks/results`` included, as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import runner

PAGE = (
    "<html><head><title>Tide pools</title></head><body>"
    "<nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
    "<h1>Tide pools at low water</h1>"
    "<p>At low water the rocks hold small pools where anemones, crabs and sea snails wait "
    "for the sea to come back. Visitors should step only on bare rock and leave every "
    "creature where it was found, because the pools are small and easily disturbed.</p>"
    "<p>The best time to visit is an hour before the lowest tide of the day, when the "
    "pools are largest and the water is clear enough to see the bottom.</p>"
    "<footer>Copyright 2024</footer></body></html>"
)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A one-page readability-testpages set under ``tmp_path/data``."""
    folder = tmp_path / "data" / "readability-testpages"
    folder.mkdir(parents=True)
    (folder / "index.jsonl").write_text(json.dumps({"id": "p1"}) + "\n", encoding="utf-8")
    (folder / "p1.html").write_text(PAGE, encoding="utf-8")
    (folder / "p1.txt").write_text("Tide pools at low water\n", encoding="utf-8")
    return tmp_path / "data"


def args(data: Path) -> list[str]:
    return ["--data", str(data), "--datasets", "readability-testpages", "--extractors", "justext"]


def files_under(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*")}


def test_without_out_the_report_is_printed_and_nothing_written(data, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    before = files_under(tmp_path)
    assert runner.main(args(data)) == 0
    assert files_under(tmp_path) == before  # no ./benchmarks/results, no report anywhere here
    assert "readability-testpages" in capsys.readouterr().out


def test_with_out_the_report_goes_there(data, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "reports"
    assert runner.main([*args(data), "--out", str(out)]) == 0
    assert {"results.md", "results.json"} <= {p.name for p in out.iterdir()}
    assert "readability-testpages" in (out / "results.md").read_text(encoding="utf-8")
    assert not (tmp_path / "benchmarks").exists()
