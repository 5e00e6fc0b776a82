"""Benchmark scores on tiny hand-made strings; expected values computed by hand."""

from __future__ import annotations

import pytest

from harness.goldblocks import GoldBlock, cleaneval_blocks, gold_mask
from harness.metrics import (
    Confusion,
    TextCounts,
    block_counts,
    confusion_scores,
    harmonic,
    project_labels,
    shingles,
    snippet_counts,
    text_counts,
    text_scores,
    tokens,
)


def test_tokens_are_word_runs_with_case_kept():
    assert tokens("Hello, world! It's 2024.") == ["Hello", "world", "It", "s", "2024"]
    assert tokens(None) == []


def test_shingles_are_a_multiset_of_4grams():
    assert shingles("a b c d e") == {("a", "b", "c", "d"): 1, ("b", "c", "d", "e"): 1}
    assert shingles("a b c d a b c d")[("a", "b", "c", "d")] == 2


def test_short_text_gives_one_shorter_ngram_and_empty_gives_none():
    assert shingles("a b") == {("a", "b"): 1}
    assert shingles("one") == {("one",): 1}
    assert shingles(" ,. ") == {}


def test_case_matters():
    assert text_counts("Alpha beta", "alpha beta") == TextCounts(0.0, 0.5, 0.5)


def test_text_counts_normalised_by_their_sum():
    # gold: abcd bcde; pred: abcd -> TP 1, FP 0, FN 1, sum 2
    c = text_counts("a b c d e", "a b c d")
    assert c == TextCounts(0.5, 0.0, 0.5)
    assert (c.precision, c.recall) == (1.0, 0.5)
    # gold: abcd bcde cdef; pred: xabc abcd -> TP 1, FP 1, FN 2, sum 4
    c = text_counts("a b c d e f", "x a b c d")
    assert c == TextCounts(0.25, 0.25, 0.5)
    assert c.precision == pytest.approx(0.5)
    assert c.recall == pytest.approx(1 / 3)


def test_repeated_ngrams_count_as_often_as_they_occur():
    # gold: abcd x2, bcda, cdab, dabc (5); pred: abcd -> TP 1, FN 4
    c = text_counts("a b c d a b c d", "a b c d")
    assert c.precision == 1.0
    assert c.recall == pytest.approx(0.2)


def test_empty_prediction_and_empty_gold():
    assert text_counts("a b c d", "").precision is None
    assert text_counts("a b c d", "").recall == 0.0
    assert text_counts("", "a b").precision == 0.0
    assert text_counts("", "a b").recall is None
    both = text_counts("", "")
    assert (both.precision, both.recall) == (None, None)


def test_text_scores_average_where_defined_and_f1_of_the_averages():
    pages = [
        text_counts("a b c d e", "a b c d"),  # P 1, R 0.5
        text_counts("a b c d", ""),  # P undefined, R 0
        text_counts("", "a b"),  # P 0, R undefined
        text_counts("", ""),  # neither
    ]
    s = text_scores(pages)
    assert s.precision == pytest.approx(0.5)  # (1 + 0) / 2
    assert s.recall == pytest.approx(0.25)  # (0.5 + 0) / 2
    assert s.f1 == pytest.approx(1 / 3)  # 2 * 0.5 * 0.25 / 0.75
    assert (s.precision_pages, s.recall_pages) == (2, 2)


def test_text_scores_of_nothing_are_undefined():
    s = text_scores([text_counts("a b", "")])
    assert s.precision is None
    assert s.recall == 0.0
    assert s.f1 is None


def test_harmonic():
    assert harmonic(0.0, 0.0) == 0.0
    assert harmonic(1.0, 0.5) == pytest.approx(2 / 3)
    assert harmonic(None, 1.0) is None


def test_snippets_whitespace_normalised_substring_case_sensitive():
    predicted = "foo\n  bar and footer menu"
    c = snippet_counts(["foo bar", "baz", "Foo bar"], ["nav", "footer  menu"], predicted)
    assert c == Confusion(tp=1, fp=1, fn=2, tn=1)


def test_snippets_of_an_error_find_nothing():
    assert snippet_counts(["a", "b"], ["c"], None) == Confusion(tp=0, fp=0, fn=2, tn=1)
    assert snippet_counts(["a"], ["c"], "") == Confusion(tp=0, fp=0, fn=1, tn=1)


def test_confusion_scores_are_micro_averages():
    total = Confusion(1, 0, 1, 1) + Confusion(2, 1, 1, 3)
    assert total == Confusion(3, 1, 2, 4)
    s = confusion_scores(total, empty=0.0)
    assert s.precision == pytest.approx(0.75)
    assert s.recall == pytest.approx(0.6)
    assert s.f1 == pytest.approx(2 / 3)  # 6 / (6 + 1 + 2)
    assert s.accuracy == pytest.approx(0.7)


def test_confusion_scores_when_empty():
    assert confusion_scores(Confusion(), empty=0.0).f1 == 0.0
    assert confusion_scores(Confusion()).precision is None
    assert confusion_scores(Confusion(tn=2)).accuracy == 1.0


def test_project_labels_majority_of_tokens_in_order():
    blocks = ["Home About", "The cat sat on the mat today", "Copyright 2024", "—"]
    labels = project_labels(blocks, "the cat sat on the mat")
    assert labels == [False, True, False, None]  # 6 of 7 tokens; no token in the last one


def test_project_labels_needs_more_than_half():
    assert project_labels(["a b", "c d e"], "a d e") == [False, True]


def test_project_labels_claims_each_predicted_token_once():
    assert project_labels(["x y", "x y"], "x y") == [True, False]
    assert project_labels(["x y", "x y"], "") == [False, False]


def test_block_counts_skip_blocks_without_tokens():
    gold = [True, False, True, False, True]
    predicted = [True, True, False, False, None]
    assert block_counts(gold, predicted) == Confusion(tp=1, fp=1, fn=1, tn=1)


def _aligned(source: str, gold: str) -> str:
    start = source.index(gold)
    return "".join(
        ch if start <= i < start + len(gold) else "\u25a1" for i, ch in enumerate(source)
    )


def test_cleaneval_gold_blocks_from_the_alignment():
    source = (
        "<html><head><title>Title</title></head><body><div>Menu <a href=x>link</a></div>"
        "<p>Real text &amp; more</p><script>var x;</script></body></html>"
    )
    aligned = _aligned(source, "Real text &amp; more")
    assert sum(gold_mask(source, aligned)) == len("Realtext&amp;more")
    assert cleaneval_blocks(source, aligned) == [
        GoldBlock("Menu link", False),
        GoldBlock("Real text & more", True),
    ]


def test_cleaneval_alignment_tolerates_a_small_drift():
    source = "<body><p>Skip this</p><p>Keep this one</p></body>"
    aligned = _aligned(source, "Keep this one")[3:]  # three characters fewer before the gold
    assert [b.content for b in cleaneval_blocks(source, aligned)] == [False, True]


def test_extended_bcubed_worked_example():
    """kreuzer.README.md's example: leaves a-d; gold X={a,b,c} holding Y={a,b}, and Z={d};
    prediction S1={a,b}, S2={c,d}."""
    from harness.segmentation import extended_bcubed

    units = {u: 1.0 for u in "abcd"}
    predicted = [{"a", "b"}, {"c", "d"}]
    all_levels = extended_bcubed(units, predicted, [{"a", "b", "c"}, {"a", "b"}, {"d"}])
    assert all_levels.precision == pytest.approx(0.75)
    assert all_levels.recall == pytest.approx(0.5)
    assert all_levels.f1 == pytest.approx(0.6)
    level1 = extended_bcubed(units, predicted, [{"a", "b", "c"}, {"d"}])
    assert (level1.precision, level1.recall) == (pytest.approx(0.75), pytest.approx(2 / 3))
    finest = extended_bcubed(units, predicted, [{"a", "b"}, {"c"}, {"d"}])
    assert (finest.precision, finest.recall, finest.f1) == (
        pytest.approx(0.75),
        pytest.approx(1.0),
        pytest.approx(6 / 7),
    )


def test_extended_bcubed_weights_count_like_repeated_units():
    from harness.segmentation import extended_bcubed

    weighted = extended_bcubed({"a": 2.0, "b": 1.0}, [{"a", "b"}], [{"a"}, {"b"}])
    repeated = extended_bcubed(
        {"a1": 1.0, "a2": 1.0, "b": 1.0}, [{"a1", "a2", "b"}], [{"a1", "a2"}, {"b"}]
    )
    assert weighted.precision == pytest.approx(repeated.precision)
    assert weighted.recall == pytest.approx(repeated.recall) == 1.0


def test_runner_times_lxml_parse_as_the_reference() -> None:
    from harness import report, runner
    from harness.datasets import Page
    from harness.peers import Extractor, Output

    page = "<html><body><p>Some gold text of the page, long enough.</p></body></html>"
    pages = [
        Page("set", "a", page, gold_text="Some gold text of the page, long enough."),
        Page("set", "b", "", gold_text="x"),  # lxml refuses an empty page: no reference
        Page("set", "c", page, gold_text="Some gold text"),
    ]
    echo = Extractor("echo", lambda html, url=None: Output(html), ours=False, version=None)
    count, per, reference = runner.run_dataset("set", pages, [echo])
    assert count == 3 and per["echo"]["summary"]["pages"] == 3
    assert reference["name"] == "lxml.html.document_fromstring"
    assert reference["pages"] == 2 and reference["median_ms"] > 0
    results = {
        "meta": {"date": "d", "platform": "p", "python": "3", "limit": None, "versions": {}},
        "datasets": {"set": {"split": None, "pages": 3, "reference": reference, "extractors": per}},
        "skipped": {"datasets": [], "extractors": []},
    }
    text = report.markdown(results)
    assert "median / lxml parse" in text and "`lxml.html.document_fromstring`" in text
    ratio = per["echo"]["summary"]["median_ms"] / reference["median_ms"]
    assert f"| {ratio:.2f} |" in text
