"""The README's first command runs examples/crawl.py: keep it working."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_example_crawl_runs_every_spider_and_writes_items_with_main_text(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "crawl.py"), "--output-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for spider, extractor in (("articles", "auto"), ("cnr", "cnr"), ("per_request", None)):
        lines = (tmp_path / f"{spider}.jsonl").read_text(encoding="utf-8").splitlines()
        items = [json.loads(line) for line in lines]
        assert len(items) == 9
        assert all(it["main_text"] and it["blocks"] for it in items)
        assert all(it["boilerplate_reason"] is None for it in items)
        if extractor:
            assert {it["extractor"] for it in items} == {extractor}
    per_request = {
        json.loads(line)["url"].rsplit("/", 1)[-1]: json.loads(line)
        for line in (tmp_path / "per_request.jsonl").read_text(encoding="utf-8").splitlines()
    }
    assert per_request["index.html"]["extractor"] == "cnr"
    assert per_request["night-trains.html"]["extractor"] == "auto"
    assert per_request["stare-kolo.html"]["extractor"] == "justext"
    focused = [json.loads(line) for line in (tmp_path / "focused.jsonl").read_text().splitlines()]
    assert len(focused) == 9 and all(isinstance(it["entities"], list) for it in focused)
    assert any(it["entities"] and it["entity_candidates"][0]["xpath"] for it in focused)
    # the default question finds the home page's "Most read this week" box
    by_page = {it["url"].rsplit("/", 1)[-1]: it for it in focused}
    assert by_page["index.html"]["entities"] == [
        "The quiet return of the night train",
        "Warum Sauerteig Geduld braucht",
        "Des ruches sur les toits de la ville",
    ]
    assert "Pages crawled:           9" in proc.stdout
    assert "Mean main-text length:" in proc.stdout and "Sample:" in proc.stdout


def test_example_crawl_with_a_bad_setting_says_so_in_one_line_and_exits_2(tmp_path):
    """A wrong ``-s BOILERPLATE_...`` stops the example before any page: its one-line
    message, no traceback, exit status 2 (the docstring's)."""
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "crawl.py"),
            "--output-dir",
            str(tmp_path),
            "-s",
            "BOILERPLATE_EXECUTION=bogus",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    message = "BOILERPLATE_EXECUTION: expected one of inline, thread, process, got 'bogus'"
    assert proc.stderr.strip() == f"crawl.py: {message}", proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
