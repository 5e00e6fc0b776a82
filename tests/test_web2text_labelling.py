"""Web2Text automatic block labelling (extractors/web2text/labelling.py, paper section 4.1):
exact alignment, repeated snippets, the 2/3 threshold, whitespace / case / Unicode
normalisation, empty inputs, non-Latin scripts, big pages, the linear fallback above the DP
cap, and reference labels from a hand-made CleanEval-style ``.aligned.txt``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.extractors.web2text.labelling import (
    BOX,
    _Aligner,
    _codes,
    _dp,
    align_blocks,
    align_pairs,
    fold,
    label_page,
    labels_from_aligned,
)

ARTICLE = [
    "The committee met on Tuesday to discuss the new harbour bridge.",
    "Engineers presented three designs, each with a different span length.",
    "A final decision is expected before the end of the summer recess.",
]
MENU = ["Home", "News", "Sport", "Weather", "Contact us"]
FOOTER = ["Copyright 2024 Example Media Ltd", "Privacy policy", "Terms of use"]


def page_html(*groups: list[str]) -> str:
    body = "".join(f"<p>{text}</p>" for group in groups for text in group)
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def make_aligned(source: str, gold_spans: list[str]) -> str:
    """A CleanEval-style aligned string: ``source`` with every character outside the first
    occurrence (in order) of each of ``gold_spans`` replaced by the box character."""
    out = [BOX] * len(source)
    pos = 0
    for span in gold_spans:
        at = source.index(span, pos)
        out[at : at + len(span)] = span
        pos = at + len(span)
    return "".join(out)


# -- align_blocks ------------------------------------------------------------------------------


def test_exact_alignment() -> None:
    blocks = MENU + ARTICLE + FOOTER
    labels, fractions = align_blocks(blocks, "\n\n".join(ARTICLE))
    expected = [False] * len(MENU) + [True] * len(ARTICLE) + [False] * len(FOOTER)
    assert labels == expected
    assert fractions == [1.0 if e else 0.0 for e in expected]


def test_repeated_snippet_is_placed_by_its_neighbours() -> None:
    # "Share this story" occurs three times; only the copy inside the article is gold.
    dup = "Share this story with friends"
    blocks = [dup, ARTICLE[0], dup, ARTICLE[1], ARTICLE[2], dup]
    clean = "\n".join([ARTICLE[0], dup, ARTICLE[1], ARTICLE[2]])
    labels, _ = align_blocks(blocks, clean)
    assert labels == [False, True, True, True, True, False]


def test_text_with_no_unique_window_at_all() -> None:
    # Every 10-character window of the clean text occurs twice in the page: the DP decides,
    # and exactly one copy is content.
    para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit."
    labels, fractions = align_blocks([para, para], para)
    assert sorted(labels) == [False, True]
    assert sorted(fractions) == [0.0, 1.0]


def test_repeated_menu_around_content() -> None:
    blocks = MENU + ARTICLE + MENU
    clean = "\n".join(ARTICLE)
    labels, _ = align_blocks(blocks, clean)
    assert labels == [False] * 5 + [True] * 3 + [False] * 5


@pytest.mark.parametrize(
    ("clean", "fraction", "content"),
    [
        # 33 non-space characters; 2/3 of them is 22
        ("alpha bravo charlie delta", 22 / 33, True),  # exactly 2/3
        ("alpha bravo charlie delta e", 23 / 33, True),  # just above
        ("alpha bravo charlie delt", 21 / 33, False),  # just below
    ],
)
def test_partial_block_around_two_thirds(clean: str, fraction: float, content: bool) -> None:
    block = "alpha bravo charlie delta echo foxtrot"
    assert len(fold(block)) == 33
    labels, fractions = align_blocks(["Navigation menu", block, "Footer links"], clean)
    assert fractions[1] == pytest.approx(fraction)
    assert labels == [False, content, False]
    assert fractions[0] == fractions[2] == 0.0


def test_min_aligned_parameter() -> None:
    block = "alpha bravo charlie delta echo foxtrot"
    labels, _ = align_blocks([block], "alpha bravo charlie", min_aligned=0.5)
    assert labels == [True]
    labels, _ = align_blocks([block], "alpha bravo charlie", min_aligned=0.6)
    assert labels == [False]


def test_whitespace_and_case_do_not_matter() -> None:
    blocks = MENU + ARTICLE + FOOTER
    clean = (
        "  the COMMITTEE met\non   Tuesday to discuss the new\r\nharbour bridge.\n\n\n"
        "ENGINEERS presented\tthree designs, each with a different span\u00a0length.\n"
        "A final decision is expected before the end of the summer recess."
    )
    labels, fractions = align_blocks(blocks, clean)
    assert labels == [False] * 5 + [True] * 3 + [False] * 3
    assert fractions[5:8] == [1.0, 1.0, 1.0]
    # the page side too: collapsed, broken or missing spaces
    squashed = [" ".join(b.split()).replace(" ", "") for b in ARTICLE]
    labels, _ = align_blocks(MENU + squashed, "\n".join(ARTICLE))
    assert labels == [False] * 5 + [True] * 3


def test_typography_and_compatibility_forms() -> None:
    # curly quotes vs straight, en dash vs hyphen, full-width letters, a soft hyphen
    labels, fractions = align_blocks(
        ["It\u2019s a \u201cgood\u201d day \u2013 ＡＢＣ news re\u00adport", "Unrelated block"],
        'It\'s a "good" day - ABC news report',
    )
    assert labels == [True, False]
    assert fractions[0] == 1.0


def test_blocks_not_in_clean_text() -> None:
    labels, fractions = align_blocks(MENU + FOOTER, "\n".join(ARTICLE))
    assert labels == [False] * 8
    assert fractions == [0.0] * 8


def test_clean_text_with_text_missing_from_the_page() -> None:
    # Text the annotator added (list markers, image captions) does not hurt the page's labels.
    clean = "* " + ARTICLE[0] + "\n[Photo: the bridge at night]\n1. " + ARTICLE[1]
    labels, _ = align_blocks(MENU + ARTICLE[:2] + FOOTER, clean)
    assert labels == [False] * 5 + [True, True] + [False] * 3


@pytest.mark.parametrize("clean", ["", "   \n\t  "])
def test_empty_clean_text(clean: str) -> None:
    labels, fractions = align_blocks(MENU + ARTICLE, clean)
    assert labels == [False] * 8
    assert fractions == [0.0] * 8


def test_empty_page() -> None:
    assert align_blocks([], "some clean text") == ([], [])
    assert label_page("", "some clean text") == ([], [])
    assert label_page(b"   ", "some clean text") == ([], [])
    assert label_page("<html><body><p> </p></body></html>", "x") == ([], [])
    with pytest.raises(UnsupportedInput):
        label_page(b"\x89PNG\r\n\x1a\n\x00\x00", "x")


def test_blocks_without_countable_characters() -> None:
    labels, fractions = align_blocks(["\u200b", ARTICLE[0]], ARTICLE[0])
    assert labels == [False, True]
    assert fractions == [0.0, 1.0]


def test_non_latin_scripts() -> None:
    chinese = [
        "首页",
        "北京市政府今天宣布了新的城市交通规划方案。",
        "该方案计划在未来五年内新建十条地铁线路。",
        "版权所有 2024",
    ]
    gold = "北京市政府今天宣布了新的城市交通规划方案。\n该方案计划在未来五年内新建十条地铁线路。"
    labels, _ = align_blocks(chinese, gold)
    assert labels == [False, True, True, False]
    russian = ["Главная", "Правительство объявило новый план развития транспорта.", "Контакты"]
    labels, _ = align_blocks(russian, "ПРАВИТЕЛЬСТВО объявило\nновый план развития транспорта.")
    assert labels == [False, True, False]
    greek = ["Αρχική", "Η ΟΔΟΣ ΣΤΑΔΙΟΥ ΕΙΝΑΙ ΚΛΕΙΣΤΗ ΣΗΜΕΡΑ", "Επικοινωνία"]
    labels, _ = align_blocks(greek, "η οδος σταδιου ειναι κλειστη σημερα")  # final sigma folds
    assert labels == [False, True, False]


def test_label_page_on_html() -> None:
    html = page_html(MENU, ARTICLE, FOOTER)
    blocks, labels = label_page(html, "\n\n".join(ARTICLE))
    assert [b.text for b in blocks] == MENU + ARTICLE + FOOTER
    assert labels == [False] * 5 + [True] * 3 + [False] * 3
    _, labels_b = label_page(html.encode("utf-8"), "\n\n".join(ARTICLE))
    assert labels_b == labels


def test_a_long_page_is_labelled_whole() -> None:
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choice(letters) for _ in range(6)) for _ in range(800)]
    paras = [" ".join(rng.choice(vocab) for _ in range(rng.randint(4, 25))) for _ in range(6000)]
    menu = "Home | News | Sport | Weather"
    blocks_text = []
    for i, p in enumerate(paras):
        blocks_text.append(p)
        if i % 50 == 0:
            blocks_text.append(menu)  # repeated boilerplate
    html = "<html><body>" + "".join(f"<div>{t}</div>" for t in blocks_text) + "</body></html>"
    gold = [t for i, t in enumerate(paras) if i % 3 != 0]
    blocks, labels = label_page(html, "\n\n".join(gold))
    assert len(blocks) == len(blocks_text) > 6000
    expected = []
    for i in range(len(paras)):
        expected.append(i % 3 != 0)
        if i % 50 == 0:
            expected.append(False)
    agree = sum(a == b for a, b in zip(labels, expected, strict=True)) / len(expected)
    assert agree > 0.99


def test_fallback_above_the_dp_cap_is_linear_and_sane() -> None:
    # No unique window (the article is on the page twice) and a DP cap of 100 cells: the
    # greedy fallback must still align the clean text once, in order.
    article = " ".join(ARTICLE)
    x = fold(article)
    y = fold("Home News " + article + " Related: " + article + " Footer")
    xi, yi = _Aligner(x, y, max_cells=100).run()
    assert len(xi) == len(x)
    assert np.all(np.diff(yi) > 0)
    assert "".join(y[i] for i in yi) == x


def test_alignment_pairs_are_monotone_and_identical() -> None:
    rng = random.Random(3)
    for _ in range(200):
        x = "".join(rng.choice("abcde") for _ in range(rng.randint(0, 60)))
        y = "".join(rng.choice("abcde") for _ in range(rng.randint(0, 60)))
        xi, yi = align_pairs(x, y)
        assert len(xi) == len(yi)
        assert np.all(np.diff(xi) > 0) and np.all(np.diff(yi) > 0)
        assert all(x[i] == y[j] for i, j in zip(xi.tolist(), yi.tolist(), strict=True))


def test_dp_prefers_contiguous_matches_over_scattered_letters() -> None:
    # "news" is matched as a whole in the second block rather than letter by letter elsewhere
    a = _codes("news")
    b = _codes("nxexwxsx" + "news" + "nxexwxsx")
    ai, bj = _dp(a, b)
    assert ai.tolist() == [0, 1, 2, 3]
    assert bj.tolist() == [8, 9, 10, 11]


# -- labels_from_aligned ---------------------------------------------------------------------------


def test_labels_from_aligned_small_page() -> None:
    html = (
        "<html><head><title>Hello world</title></head><body>\n"
        "<div>Menu: <a href='/'>Home</a></div>\n"
        "<p>Hello world &amp; friends, this is the story.</p>\n"
        "<ul><li>First point</li><li>&middot;</li><li>Second point</li></ul>\n"
        "<p>Partly gold paragraph here</p>\n"
        "<div>Footer text</div></body></html>"
    )
    # Web2Text masks named entities: "&amp;" and "&middot;" are never kept.
    aligned = make_aligned(
        html,
        [
            "Hello world ",
            " friends, this is the story.",
            "First point",
            "Second point",
            "Partly gold",
        ],
    )
    assert len(aligned) == len(html)
    labels = labels_from_aligned(html, aligned)
    # leaves: "Menu:", "Home", "Hello world & friends...", "First point", "·", "Second point",
    # "Partly gold paragraph here", "Footer text"
    assert labels == [False, False, True, True, True, True, False, False]


def test_labels_from_aligned_threshold_and_drift() -> None:
    html = (
        "<html><body>\r\n<p>abcdef ghi</p>\r\n<p>Navigation bar</p>\r\n"
        "<p>Content line</p></body></html>"
    )
    # Web2Text read "\r\n" as "\n": its copy is shorter, so offsets drift.
    source_as_read = html.replace("\r\n", "\n")
    aligned = make_aligned(source_as_read, ["abcdef", "Content line"])
    labels = labels_from_aligned(html, aligned)
    # "abcdefghi": 6 of 9 non-space characters kept = exactly 2/3 -> content
    assert labels == [True, False, True]
    aligned = make_aligned(source_as_read, ["abcde", "Content line"])  # 5 of 9
    assert labels_from_aligned(html, aligned) == [False, False, True]


def test_labels_from_aligned_nothing_kept() -> None:
    html = page_html(MENU, ARTICLE)
    assert labels_from_aligned(html, BOX * len(html)) == [False] * 8
    assert labels_from_aligned(html, "") == [False] * 8


def test_labels_from_aligned_agrees_with_label_page() -> None:
    html = page_html(MENU, ARTICLE, FOOTER)
    aligned = make_aligned(html, ARTICLE)
    _, ours = label_page(html, "\n".join(ARTICLE))
    assert labels_from_aligned(html, aligned) == ours
