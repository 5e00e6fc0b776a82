"""The soak crawl's machinery (``benchmarks/soak.py``) on 60 pages written here, every
failure kind included: items in equal items out, and each kind ends as it should.

One real crawl in a fresh interpreter (as the soak runs it) against its local server in a
process of its own; small sizes and delays so it takes seconds. No dataset page is read.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOAK_PATH = ROOT / "benchmarks" / "soak.py"

PAGES = 60
TEXT = (
    "the council said that it would meet again in the spring to decide on the new harbour "
    "wall and most of the people who came to the meeting were in favour of the plan"
)
WORDS = TEXT.split(" ")


def load_soak():
    spec = importlib.util.spec_from_file_location("soak", SOAK_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("soak", module)
    spec.loader.exec_module(module)
    return module


def page(n: int) -> bytes:
    """A small article page: a menu, three paragraphs of running text, a footer."""
    paragraphs = "".join(
        "<p>" + " ".join(WORDS[(n + k + j) % len(WORDS)] for j in range(60)) + ".</p>"
        for k in range(3)
    )
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Page {n}</title>"
        "</head><body><ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li></ul>"
        f"<h1>Story number {n}</h1>{paragraphs}<footer>Copyright 2024</footer></body></html>"
    ).encode()


@pytest.fixture(scope="module")
def soak():
    return load_soak()


def test_plan_is_deterministic_and_spreads_every_kind(soak):
    kinds = soak.plan(5000, 0.05, seed=0)
    assert kinds == soak.plan(5000, 0.05, seed=0)
    assert len(kinds) == 250
    counts = {k: list(kinds.values()).count(k) for k in soak.KINDS}
    assert min(counts.values()) >= 250 // len(soak.KINDS)
    assert soak.plan(5000, 0.05, seed=1) != kinds


def test_a_page_without_main_text_is_expected_only_with_its_reason(soak):
    """A real page may give no main text, with the reason that says why; an empty main
    text without a reason is a defect the report flags."""
    no_content = soak._outcome({"main_text": "", "boilerplate_reason": "no-content"})
    no_reason = soak._outcome({"main_text": "", "boilerplate_reason": None})
    assert no_content == "no-content" and no_content in soak.EXPECTED["ok"]
    assert no_reason == "empty-text" and no_reason not in soak.EXPECTED["ok"]
    assert soak._outcome({"main_text": "Text.", "boilerplate_reason": None}) == "ok"


def test_memory_summary_uses_the_warm_up_high_as_baseline(soak):
    samples = [
        {"items": n, "rss_kb": kb, "children_kb": 0, "children": 0}
        for n, kb in ((0, 100), (10, 200), (19, 180), (20, 190), (50, 215), (100, 210))
    ]
    memory = soak.summarize_memory(samples, 100, 0.2)
    assert memory["warmup_mb"] == 200 / 1024
    assert memory["max_after_mb"] == 215 / 1024
    assert memory["end_mb"] == 210 / 1024
    assert memory["growth"] == pytest.approx(0.075)


def test_items_in_equal_items_out_and_every_failure_kind_ends_as_expected(soak, tmp_path):
    failing = range(5, 5 + 2 * 2 * len(soak.KINDS), 2)  # two pages of every kind
    kinds = {i: soak.KINDS[n % len(soak.KINDS)] for n, i in enumerate(failing)}
    options = {
        "download_timeout": 2.5,  # ordinary pages on a loaded machine stay well within
        "extraction_timeout": 2.0,
        "download_maxsize": 1024 * 1024,
        "max_body_size": 64 * 1024,
        "too_large_bytes": 100 * 1024,
        "bomb_bytes": 4 * 1024 * 1024,
        "deep_depth": 1000,
        "workers": 2,
    }
    pages = [page(n) for n in range(12)]
    (result,) = soak.soak(pages, kinds, PAGES, ["justext"], ["thread"], tmp_path, options)

    assert result["items_in"] == result["items_out"] == result["item_scraped_count"] == PAGES
    assert result["item_dropped_count"] == 0
    assert not result["signals"].get("item_error")
    assert not soak.lost(result)
    by_kind = result["outcomes_by_kind"]
    assert set(by_kind) == {"ok", *soak.KINDS}
    for kind, outcomes in by_kind.items():
        expected = 2 if kind != "ok" else PAGES - len(kinds)
        assert sum(outcomes.values()) == expected, kind
        assert set(outcomes) <= soak.EXPECTED[kind], (kind, outcomes)
    assert by_kind["ok"] == {"ok": PAGES - len(kinds)}
    assert result["memory"]["samples"] >= 1
    assert result["memory"]["max_after_mb"] > 0
