"""``benchmarks/auto_pagetypes.py``: its parts by site, its per-type scores of ``auto`` and
a peer, and its report, on pages written here (no dataset; the peer is a stand-in)."""

from __future__ import annotations

import zlib

import pytest

import auto_pagetypes
from harness.datasets import Page
from harness.metrics import Confusion, TextCounts
from harness.peers import Extractor, Output

ARTICLE = (
    "<html><head><title>Tide pools</title></head><body>"
    "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
    "<article><h1>Tide pools at low water</h1>"
    + "".join(
        f"<p>Paragraph {i}: the tide pools of the northern shore hold anemones, crabs and "
        "small fish, and the rangers lead walks there when the water is low in spring.</p>"
        for i in range(6)
    )
    + "</article><footer>Cookie settings. Share this page.</footer></body></html>"
)


def test_site_and_part_follow_the_urls_host() -> None:
    page = Page("trafilatura-eval", "a", ARTICLE, url="https://www.example.org/2019/x")
    assert auto_pagetypes.site(page) == "example.org"
    assert auto_pagetypes.site(Page("trafilatura-eval", "b", ARTICLE)) == "b"
    part = zlib.crc32(b"example.org") % 3
    assert auto_pagetypes.in_part(page, 3, part)
    assert not auto_pagetypes.in_part(page, 3, (part + 1) % 3)
    assert auto_pagetypes.in_part(page, 1, 0)


def _stand_in(text: str) -> Extractor:
    return Extractor("stand-in", lambda html, url=None: Output(text), False, None)


def test_measure_scores_auto_its_variants_and_the_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        auto_pagetypes, "resolve", lambda names: ([_stand_in("Cookie settings.")], [])
    )
    snippets = Page(
        "trafilatura-eval",
        "s",
        ARTICLE,
        with_snippets=("the rangers lead walks there",),
        without_snippets=("Cookie settings.",),
    )
    text = Page("readability-testpages", "t", ARTICLE, gold_text="Tide pools at low water")
    rows = auto_pagetypes.measure([snippets, text], "stand-in")
    assert len(rows) == 2
    kind, scores = rows[0]
    assert set(scores) == {*auto_pagetypes.OURS, "stand-in"}
    # the peer's text is the cookie line: it keeps the boilerplate snippet, misses the other
    assert scores["stand-in"] == Confusion(tp=0, fp=1, fn=1, tn=0)
    assert isinstance(scores["auto"], Confusion) and scores["auto"].tp == 1
    assert all(isinstance(s, TextCounts) for s in rows[1][1].values())
    if kind == "article":  # both variants decide an article as it is decided
        assert scores["article threshold"] == scores["taken for articles"] == scores["auto"]


def test_measure_refuses_an_unknown_peer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auto_pagetypes, "resolve", lambda names: ([], ["nope: unknown"]))
    with pytest.raises(SystemExit, match="nope"):
        auto_pagetypes.measure([Page("x", "a", ARTICLE, gold_text="a")], "nope")


def test_report_sums_each_type_and_the_whole_set() -> None:
    miss = Confusion(tp=1, fp=2, fn=1)
    hit = Confusion(tp=2, fp=0, fn=0)
    rows = [
        ("article", {c: hit for c in (*auto_pagetypes.OURS, "peer")}),
        ("listing", {**{c: miss for c in auto_pagetypes.OURS}, "peer": hit}),
        ("listing", {**{c: miss for c in auto_pagetypes.OURS}, "peer": hit}),
    ]
    text = auto_pagetypes.report("trafilatura-eval", "peer", rows, 3, 1)
    assert "--sites 3 --part 1" in text and "(3 pages)" in text
    assert "| listing | 2 | 4 / 2 | 4 / 2 | 4 / 2 | 0 / 0 |" in text
    assert "| **all** | 3 | 4 / 2 | 4 / 2 | 4 / 2 | 0 / 0 |" in text
    # all: ours tp 4 fp 4 fn 2 (F1 0.5714); the peer tp 6, nothing wrong (1.0)
    assert "| snippet F1 | | 0.5714 | 0.5714 | 0.5714 | 1.0000 |" in text
    # a column with no snippet right scores 0 (run.py's snippet F1), not an error
    nothing = [("article", {c: Confusion(fn=1) for c in (*auto_pagetypes.OURS, "peer")})]
    none_right = auto_pagetypes.report("trafilatura-eval", "peer", nothing, 1, 0)
    assert "| snippet F1 | | 0.0000 | 0.0000 | 0.0000 | 0.0000 |" in none_right
    texts = [("article", {c: TextCounts(0.5, 0.25, 0.25) for c in (*auto_pagetypes.OURS, "p")})]
    gold = auto_pagetypes.report("l3s-gn1", "p", texts, 1, 0)
    assert "text F1 of word 4-grams" in gold and "| article | 1 | 0.667 |" in gold
    assert "snippet F1" not in gold
