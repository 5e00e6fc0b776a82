"""Web2Text block and edge features (extractors/web2text/features.py; paper section 3.3 and
Appendix A): one test per feature group on small hand-written pages whose expected values
are worked out by hand in the comments, then shapes, edge cases and robustness."""

from __future__ import annotations

import math

import lxml.etree as etree
import numpy as np
import pytest

from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.extractors.web2text.features import (
    BLOCK_BINARY,
    BLOCK_FEATURE_NAMES,
    EDGE_BINARY,
    EDGE_FEATURE_NAMES,
    N_BLOCK,
    N_EDGE,
    STOPWORDS,
    block_features,
    edge_features,
    page_features,
)

log = math.log


def features(html: str, stopwords: frozenset[str] | None = None):
    """Block texts, block features and edge features of a page."""
    doc = parse(html)
    blocks, edges = page_features(doc, stopwords=stopwords)
    return [b.text for b in doc.leaf_blocks()], blocks, edges


def check(row: np.ndarray, names: tuple[str, ...], expected: dict[str, float]) -> None:
    """The named columns of ``row`` have the expected values (float32 precision)."""
    got = {name: float(row[names.index(name)]) for name in expected}
    assert got == pytest.approx(expected, rel=1e-5, abs=1e-6)


def block(row: np.ndarray, name: str) -> float:
    return float(row[BLOCK_FEATURE_NAMES.index(name)])


#: The 20 node features (parent, grandparent, root, common ancestor), without prefix.
NODE_NAMES = [n.removeprefix("ca_") for n in EDGE_FEATURE_NAMES[5:]]


def group(row: np.ndarray, prefix: str) -> np.ndarray:
    """The 20 node features of a block row for ``prefix`` (``p_``, ``gp_`` or ``root_``)."""
    return np.array([row[BLOCK_FEATURE_NAMES.index(prefix + n)] for n in NODE_NAMES])


def ones(row: np.ndarray, prefix: str) -> set[str]:
    """Names (without ``prefix``) of the ``prefix*`` tag columns that are 1."""
    return {
        n[len(prefix) :]
        for n, v in zip(BLOCK_FEATURE_NAMES, row, strict=True)
        if n.startswith(prefix) and v
    }


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


# ---------------------------------------------------------------------------------------------
# b1-b3: duplicates and class path

DUP_PAGE = page(
    '<div class="nav"><p>Home</p><p>Home</p></div>'
    '<div class="main"><p>Text one</p><p>Text two</p><p class="x">Home</p></div>'
    "<ul>" + "<li>Item</li>" * 11 + "</ul>"
    "<ol>" + "<li>Row</li>" * 10 + "</ol>"
)


def test_duplicates_and_class_path_b1_b3():
    texts, b, _ = features(DUP_PAGE)
    assert texts[:5] == ["Home", "Home", "Text one", "Text two", "Home"]
    assert texts[5:] == ["Item"] * 11 + ["Row"] * 10
    n = len(texts)  # 2 + 3 + 11 + 10 = 26 blocks
    assert n == 26
    dup = [block(row, "has_duplicate") for row in b]
    dup10 = [block(row, "has_10_duplicates") for row in b]
    # "Home" 3 times, "Text one"/"Text two" once, "Item" 11 times, "Row" 10 times
    assert dup == [1, 1, 0, 0, 1] + [1] * 11 + [1] * 10
    # at least 10 *other* blocks: "Item" has 10 others, "Row" 9, "Home" 2
    assert dup10 == [0, 0, 0, 0, 0] + [1] * 11 + [0] * 10
    # class paths (tags and classes from the root down):
    #   body > div.nav > p          blocks 0, 1      -> 2/26
    #   body > div.main > p         blocks 2, 3      -> 2/26 (same tags, the ancestor's
    #                                                  class differs from blocks 0, 1)
    #   body > div.main > p.x       block 4          -> 1/26
    #   body > ul > li              11 items         -> 11/26
    #   body > ol > li              10 rows          -> 10/26
    same = [block(row, "r_same_class_path") for row in b]
    expected = [2 / n, 2 / n, 2 / n, 2 / n, 1 / n] + [11 / n] * 11 + [10 / n] * 10
    assert same == pytest.approx(expected, rel=1e-6)


def test_class_path_compares_class_names_not_attribute_strings():
    # As the authors' classSelector (Jsoup classNames()): "a  b ", "a b" and "a b a" are
    # the same classes; class="" and "  " are no class at all.
    html = page(
        '<div class="a  b "><p>One</p></div><div class="a b"><p>Two</p></div>'
        '<div class="a b a"><p>Three</p></div><div class="b a"><p>Four</p></div>'
        '<div class=""><p>Five</p></div><div class="  "><p>Six</p></div><div><p>Seven</p></div>'
    )
    texts, b, _ = features(html)
    n = len(texts)
    assert n == 7
    same = [block(row, "r_same_class_path") for row in b]
    # div.a.b x3, div.b.a (order kept, as the authors' small Scala sets), div x3
    assert same == pytest.approx([3 / n, 3 / n, 3 / n, 1 / n, 3 / n, 3 / n, 3 / n])


# ---------------------------------------------------------------------------------------------
# b4-b27: the block's own text

LONG = ", ".join(["abcdefghijklmnopq"] * 40)  # 40 words of 17 letters, 39 ", " separators
TEXTS = [
    "The cat of the house sat.",
    "Is it 2019? Yes. Go on?",
    "© 1999 Acme",
    "Mail bob@x.org or see https://x.org/a",
    LONG,
    "Dr. Who is here. yes; No",
    "!?",
    "Room 12345",
]
TEXT_PAGE = page("".join(f"<p>{t}</p>" for t in TEXTS))
TEXT_STOPWORDS = frozenset({"the", "of", "it"})


@pytest.fixture(scope="module")
def text_page():
    texts, b, _ = features(TEXT_PAGE, stopwords=TEXT_STOPWORDS)
    assert texts == TEXTS
    return b


def test_block_text_features_of_an_ordinary_sentence(text_page):
    # "The cat of the house sat.": 25 characters, 6 words (The cat of the house sat) of
    # 3+3+2+3+5+3 = 19 letters; stopwords The (lower-cased), of, the -> 3; 1 punctuation
    # mark (".") and 1 sentence; one capitalised word (The).
    check(
        text_page[0],
        BLOCK_FEATURE_NAMES,
        {
            "has_word": 1,
            "log_n_words": log(6),  # 1.79, inside [0, 3.5]
            "avg_word_length": 19 / 6,  # 3.17, inside [3, 15]
            "has_stopword": 1,
            "stopword_ratio": 3 / 6,
            "log_n_characters": log(25),  # 3.22, inside [2.5, 5.5]
            "log_punctuation_ratio": log(1 / 25),  # -3.22, inside [-4, -2.5]
            "has_numeric": 0,
            "numeric_ratio": 0,
            "log_avg_sentence_length": log(25 / 1),  # 3.22, inside [2, 5]
            "ends_with_punctuation": 1,
            "ends_with_question_mark": 0,
            "contains_copyright": 0,
            "contains_email": 0,
            "contains_url": 0,
            "contains_year": 0,
            "ratio_words_with_capital": 1 / 6,
            "ratio_words_with_capital_2": 1 / 36,
            "ratio_words_with_capital_3": 1 / 216,
            "contains_punctuation": 1,
            "n_punctuation": 1,
            "has_multiple_sentences": 0,
        },
    )


def test_block_text_features_of_questions_numbers_and_sentences(text_page):
    # "Is it 2019? Yes. Go on?": 23 characters, 6 words (Is it 2019 Yes Go on) of
    # 2+2+4+3+2+2 = 15 characters; stopword "it"; 3 punctuation marks (? . ?); 4 digits;
    # "? Y" and ". G" split it into 3 sentences; capitalised: Is, Yes, Go.
    check(
        text_page[1],
        BLOCK_FEATURE_NAMES,
        {
            "log_n_words": log(6),
            "avg_word_length": 3.0,  # 15 / 6 = 2.5, clipped up to 3
            "has_stopword": 1,
            "stopword_ratio": 1 / 6,
            "log_n_characters": log(23),
            "log_punctuation_ratio": -2.5,  # log(3 / 23) = -2.04, clipped down to -2.5
            "has_numeric": 1,
            "numeric_ratio": 4 / 23,
            "log_avg_sentence_length": log(23 / 3),  # 2.04, inside [2, 5]
            "ends_with_punctuation": 1,
            "ends_with_question_mark": 1,
            "contains_year": 1,  # "2019": a word of 4 digits
            "ratio_words_with_capital": 3 / 6,
            "ratio_words_with_capital_2": 1 / 4,
            "ratio_words_with_capital_3": 1 / 8,
            "n_punctuation": 3,
            "has_multiple_sentences": 1,
        },
    )
    # "Dr. Who is here. yes; No": 24 characters; the authors' splitter (a [.?!;] then a space
    # then an upper-case letter) splits at ". W" and "; N" but not at ". y": 3 sentences.
    check(
        text_page[5],
        BLOCK_FEATURE_NAMES,
        {
            "log_avg_sentence_length": log(24 / 3),  # log 8 = 2.08
            "has_multiple_sentences": 1,
            "n_punctuation": 3,  # . . ;
            "ratio_words_with_capital": 3 / 6,  # Dr, Who, No of 6 words
            "ends_with_punctuation": 0,
        },
    )


def test_block_text_features_copyright_email_url_year(text_page):
    # "© 1999 Acme": 11 characters, words 1999 and Acme (© is no word character) of 4+4.
    check(
        text_page[2],
        BLOCK_FEATURE_NAMES,
        {
            "log_n_words": log(2),
            "avg_word_length": 4.0,  # 8 / 2
            "has_stopword": 0,
            "stopword_ratio": 0,
            "log_n_characters": 2.5,  # log 11 = 2.40, clipped up to 2.5
            "log_punctuation_ratio": -4.0,  # no punctuation: log 0 takes the lower bound
            "numeric_ratio": 4 / 11,
            "log_avg_sentence_length": log(11),  # 2.40, inside [2, 5]
            "ends_with_punctuation": 0,
            "contains_copyright": 1,
            "contains_year": 1,
            "contains_email": 0,
            "contains_url": 0,
            "ratio_words_with_capital": 1 / 2,  # Acme
            "contains_punctuation": 0,
            "n_punctuation": 0,
        },
    )
    # "Mail bob@x.org or see https://x.org/a": one e-mail address and one URL, no digits.
    check(
        text_page[3],
        BLOCK_FEATURE_NAMES,
        {
            "contains_email": 1,
            "contains_url": 1,
            "contains_year": 0,
            "contains_copyright": 0,
            "has_numeric": 0,
            "log_n_characters": log(37),  # 4 + 1 + 9 + 1 + 2 + 1 + 3 + 1 + 15
        },
    )
    # "Room 12345": five digits are no year.
    check(
        text_page[7],
        BLOCK_FEATURE_NAMES,
        {"contains_year": 0, "has_numeric": 1, "numeric_ratio": 5 / 10},
    )


def test_block_text_features_are_clipped(text_page):
    # 40 words of 17 letters joined by ", ": 40 * 17 + 39 * 2 = 758 characters, 39 commas,
    # one sentence, no capitals.
    check(
        text_page[4],
        BLOCK_FEATURE_NAMES,
        {
            "log_n_words": 3.5,  # log 40 = 3.69, clipped to 3.5
            "avg_word_length": 15.0,  # 17, clipped to 15
            "log_n_characters": 5.5,  # log 758 = 6.63, clipped to 5.5
            "log_punctuation_ratio": log(39 / 758),  # -2.97, inside [-4, -2.5]
            "log_avg_sentence_length": 5.0,  # log 758, clipped to 5
            "n_punctuation": 10,  # 39, clipped to 10
            "contains_punctuation": 1,
            "ends_with_punctuation": 0,
            "ratio_words_with_capital": 0,
        },
    )
    # "!?": 2 characters, no word, 2 punctuation marks.
    check(
        text_page[6],
        BLOCK_FEATURE_NAMES,
        {
            "has_word": 0,
            "log_n_words": 0.0,  # log 0, the lower bound
            "avg_word_length": 3.0,  # no words: the lower bound
            "stopword_ratio": 0,
            "log_n_characters": 2.5,  # log 2 = 0.69, clipped to 2.5
            "log_punctuation_ratio": -2.5,  # log(2 / 2) = 0, clipped to -2.5
            "log_avg_sentence_length": 2.0,  # log 2 = 0.69, clipped to 2
            "ends_with_punctuation": 1,
            "ends_with_question_mark": 1,
            "ratio_words_with_capital": 0,
            "n_punctuation": 2,
            "has_multiple_sentences": 0,
        },
    )


def test_stopwords_default_to_the_authors_list_and_match_lower_case():
    html = page("<p>THE Of tHe cat</p><p>cat dog</p><p>Album and by ourselves</p>")
    _, b, _ = features(html, stopwords=frozenset({"the", "of"}))
    assert block(b[0], "stopword_ratio") == pytest.approx(3 / 4)  # THE Of tHe of 4 words
    assert block(b[1], "has_stopword") == 0
    # The default is the authors' list (Settings.stopwords, 122 words): "the" and "of" are
    # in it, "and" and "by" were taken out of it, "album" (in jusText's list) never was,
    # "ourselves" is (not in jusText's): 1 stopword of 4 words.
    _, default, _ = features(html)
    assert block(default[0], "stopword_ratio") == pytest.approx(3 / 4)
    assert block(default[2], "stopword_ratio") == pytest.approx(1 / 4)
    _, none, _ = features(html, stopwords=frozenset())
    assert block(none[0], "has_stopword") == 0


def test_default_stopwords_are_the_authors_list():
    assert len(STOPWORDS) == 122
    assert {"the", "of", "a", "ourselves", "cannot", "ought"} <= STOPWORDS
    assert not {"and", "by", "album", "also"} & STOPWORDS


def test_relative_position_counts_source_code_characters():
    # Positions in the page as serialised again, from the start of the first text:
    #   "Title"                       [0, 5)
    #   </h1> 5, "\n" 1, <div class="nav"> 3+2 + (5+3+4) = 17, <a href="/a"> 1+2 + (4+2+4)
    #   = 13: 5 + 5 + 1 + 17 + 13 = 41
    #   "Home"                        [41, 45)
    #   </a> 4, <script>x()</script> 8+3+9 = 20 (removed, still source code), </div> 6,
    #   <p> 3: 45 + 4 + 20 + 6 + 3 = 78
    #   "Text"                        [78, 82)      -> the page spans 82 characters
    html = (
        "<html><head><title>t</title></head><body><h1>Title</h1>\n"
        '<div class="nav"><a href="/a">Home</a><script>x()</script></div><p>Text</p>'
        "</body></html>"
    )
    texts, b, _ = features(html)
    assert texts == ["Title", "Home", "Text"]
    rel = [block(row, "relative_position") for row in b]
    rel2 = [block(row, "relative_position_2") for row in b]
    assert rel == pytest.approx([0, 41 / 82, 78 / 82])  # 0, 0.5, 0.951
    assert rel2 == pytest.approx([0, 0.25, (78 / 82) ** 2])


def test_skipped_subtrees_are_still_source_code():
    # A drop-down list (LEAF_SKIPPED_TAGS) gives no block, and counts its serialisation:
    #   "Pick"                        [0, 4)
    #   </p> 4, <select><option>A</option></select> 8 + 8+1+9 + 9 = 35: 4 + 4 + 35 = 43
    #   "after"                       [43, 48)      -> the page spans 48 characters
    html = "<body><p>Pick</p><select><option>A</option></select>after</body>"
    texts, b, _ = features(html)
    assert texts == ["Pick", "after"]
    assert [block(row, "relative_position") for row in b] == pytest.approx([0, 43 / 48])


# ---------------------------------------------------------------------------------------------
# b28-b109: parent, grandparent and root node features

NODE_PAGE = page(
    '<div id="main"><p>Read <a href="/x">this link</a> now.</p>'
    '<form><input name="q"><span>Search here</span></form></div>'
    "<div><ul><li>Alpha</li><li>Beta</li></ul></div>"
)
NODE_STOPWORDS = frozenset({"this", "now"})
# Collapsed DOM (html>body is the root; chains of single children merge):
#   html>body                                    blocks 0-5
#     div#main                                   blocks 0-3
#       p            #text "Read", a>#text "this link", #text "now."   blocks 0-2
#       form>span>#text "Search here"            block 3 (the input is removed)
#     div>ul         li>#text "Alpha", li>#text "Beta"                  blocks 4-5
# Source positions from the start of "Read " (raw text nodes, tags as serialised):
#   "Read " [0, 5), <a href="/x"> 13, "this link" [18, 27), </a> 4, " now." [31, 36),
#   </p> 4, <form> 6, <input name="q"> 16, <span> 6, "Search here" [68, 79), </span> 7,
#   </form> 7, </div> 6, <div> 5, <ul> 4, <li> 4, "Alpha" [112, 117), </li> 5, <li> 4,
#   "Beta" [126, 130)  -> the page spans 130 characters.


@pytest.fixture(scope="module")
def node_page():
    texts, b, _ = features(NODE_PAGE, stopwords=NODE_STOPWORDS)
    assert texts == ["Read", "this link", "now.", "Search here", "Alpha", "Beta"]
    return b


def test_collapsed_dom_of_the_node_page():
    root = parse(NODE_PAGE).collapsed_dom()
    assert root.tags == ["html", "body"]
    main, lst = root.children
    assert main.tags == ["div"] and lst.tags == ["div", "ul"]
    assert [c.tags for c in main.children] == [["p"], ["form", "span", "#text"]]
    assert [c.tags for c in main.children[0].children] == [["#text"], ["a", "#text"], ["#text"]]


def test_parent_node_features_b28_b48(node_page):
    # Block 1 ("this link") has the p as parent: blocks "Read" (4), "this link" (9), "now."
    # (4) -> 17 characters, 9 of them in a link; words Read this link now (4+4+4+3 = 15),
    # stopwords this, now; one "."; 3 blocks of 1 sentence; ends with "."; capital: Read.
    check(
        node_page[1],
        BLOCK_FEATURE_NAMES,
        {
            "has_parent": 1,
            "p_body_percentage": 36 / 130,  # "Read " starts at 0, " now." ends at 36
            "p_link_density": 9 / 17,
            "p_avg_word_length": 15 / 4,
            "p_has_stopword": 1,
            "p_stopword_ratio": 2 / 4,
            "p_log_n_characters": log(17),  # 2.83, node range [2.5, 10]
            "p_log_punctuation_ratio": log(1 / 17),  # -2.83, inside [-4, -2.5]
            "p_has_numeric": 0,
            "p_numeric_ratio": 0,
            "p_log_avg_sentence_length": 2.0,  # log(17 / 3) = 1.73, clipped to 2
            "p_ends_with_punctuation": 1,
            "p_ends_with_question_mark": 0,
            "p_contains_copyright": 0,
            "p_contains_email": 0,
            "p_contains_url": 0,
            "p_contains_year": 0,
            "p_ratio_words_with_capital": 1 / 4,
            "p_ratio_words_with_capital_2": 1 / 16,
            "p_ratio_words_with_capital_3": 1 / 64,
            "p_contains_form_element": 0,
        },
    )
    # Block 3 ("Search here") has div#main as parent, which holds the form.
    check(
        node_page[3],
        BLOCK_FEATURE_NAMES,
        {"has_parent": 1, "p_body_percentage": 79 / 130, "p_contains_form_element": 1},
    )
    # Block 4 ("Alpha") has div>ul as parent: "Alpha" [112, 117) to "Beta" [126, 130).
    check(
        node_page[4],
        BLOCK_FEATURE_NAMES,
        {"p_body_percentage": (130 - 112) / 130, "p_contains_form_element": 0},
    )


def test_grandparent_node_features_b69_b89(node_page):
    # Block 1's grandparent is div#main, blocks 0-3: 17 + 11 = 28 characters (9 in a link);
    # words Read this link now Search here (15 + 6 + 4 = 25 letters), stopwords this, now;
    # one "."; 4 sentences; ends with "Search here"; capitals Read, Search; holds a form.
    check(
        node_page[1],
        BLOCK_FEATURE_NAMES,
        {
            "has_gp": 1,
            "gp_body_percentage": 79 / 130,  # 0 to the end of "Search here"
            "gp_link_density": 9 / 28,
            "gp_avg_word_length": 25 / 6,
            "gp_has_stopword": 1,
            "gp_stopword_ratio": 2 / 6,
            "gp_log_n_characters": log(28),
            "gp_log_punctuation_ratio": log(1 / 28),  # -3.33
            "gp_log_avg_sentence_length": 2.0,  # log(28 / 4) = 1.95, clipped to 2
            "gp_ends_with_punctuation": 0,
            "gp_ratio_words_with_capital": 2 / 6,
            "gp_ratio_words_with_capital_2": 1 / 9,
            "gp_ratio_words_with_capital_3": 1 / 27,
            "gp_contains_form_element": 1,
        },
    )
    # Blocks 3 and 4 hang two levels below the root: their grandparent is the root.
    for i in (3, 4):
        assert block(node_page[i], "has_gp") == 1
        np.testing.assert_array_equal(group(node_page[i], "gp_"), group(node_page[i], "root_"))


def test_a_block_without_grandparent_has_zero_grandparent_columns():
    html = page("<p>Top</p><div><p>Deep one</p><p>Deep two</p></div>")
    texts, b, _ = features(html)
    assert texts == ["Top", "Deep one", "Deep two"]
    # "Top" (body > p) hangs right below the root: parent yes, grandparent no.
    assert block(b[0], "has_parent") == 1
    assert block(b[0], "has_gp") == 0
    assert not group(b[0], "gp_").any()
    np.testing.assert_array_equal(group(b[0], "p_"), group(b[0], "root_"))  # the root
    # "Deep one" (body > div > p): its grandparent is the root.
    assert block(b[1], "has_gp") == 1
    np.testing.assert_array_equal(group(b[1], "gp_"), group(b[1], "root_"))


def test_root_node_features_b90_b109(node_page):
    # The root (html>body) holds all 6 blocks: 28 + 5 + 4 = 37 characters (9 in a link);
    # words: 6 + Alpha + Beta = 8 of 25 + 5 + 4 = 34 letters; stopwords this, now; one ".";
    # 6 sentences; ends with "Beta"; capitals Read Search Alpha Beta; holds a form.
    expected = {
        "root_body_percentage": 1.0,
        "root_link_density": 9 / 37,
        "root_avg_word_length": 34 / 8,
        "root_has_stopword": 1,
        "root_stopword_ratio": 2 / 8,
        "root_log_n_characters": log(37),
        "root_log_punctuation_ratio": log(1 / 37),  # -3.61
        "root_log_avg_sentence_length": 2.0,  # log(37 / 6) = 1.82, clipped to 2
        "root_ends_with_punctuation": 0,
        "root_ratio_words_with_capital": 4 / 8,
        "root_ratio_words_with_capital_2": 1 / 4,
        "root_ratio_words_with_capital_3": 1 / 8,
        "root_contains_form_element": 1,
    }
    for row in node_page:  # the same for every block
        check(row, BLOCK_FEATURE_NAMES, expected)


# ---------------------------------------------------------------------------------------------
# b49-b68 parent tags, b110-b128 leaf tags

TAG_PAGE = page(
    "<table><tr><td>A1</td><td>B1</td></tr></table>"
    "<blockquote><span>Q1</span><span>Q2</span></blockquote>"
    "<pre><i>P1</i><strong>P2</strong></pre>"
    "<p><em>Emph</em></p>"
    "<div><sup>2</sup> text</div>"
    "<table><tr><td>Cell</td></tr></table>"
    "<h1>Head</h1>"
    "<ol><li><b>L1</b> tail</li><li>L2</li></ol>"
    "<div><ul><li>U1</li><li>U2</li></ul></div>"
)


def test_collapsed_dom_of_the_tag_page():
    root = parse(TAG_PAGE).collapsed_dom()
    assert [c.tags for c in root.children] == [
        ["table", "tr"],  # no tbody: table>tr merge, two td leaves below
        ["blockquote"],
        ["pre"],
        ["p", "em", "#text"],
        ["div"],
        ["table", "tr", "td", "#text"],  # a single cell: the whole chain is one leaf
        ["h1", "#text"],
        ["ol"],
        ["div", "ul"],
    ]


def test_parent_tags_b49_b68():
    texts, b, _ = features(TAG_PAGE)
    assert texts[:8] == ["A1", "B1", "Q1", "Q2", "P1", "P2", "Emph", "2"]
    assert texts[8:] == ["text", "Cell", "Head", "L1", "tail", "L2", "U1", "U2"]
    parent_tags = [ones(row, "p_tag_") for row in b]
    assert parent_tags[0] == {"table", "tr"}  # every merged tag of the parent counts
    assert parent_tags[2] == {"blockquote"}
    assert parent_tags[4] == {"pre"}
    assert parent_tags[6] == {"body"}  # the root html>body
    assert parent_tags[7] == parent_tags[8] == {"div"}
    assert parent_tags[9] == {"body"}
    assert parent_tags[11] == parent_tags[12] == {"li"}
    assert parent_tags[13] == {"ol"}
    # The printed list has "ul" twice (b55 and b63): both are set, always together.
    assert parent_tags[14] == {"div", "ul", "ul_2"}
    for row in b:
        assert block(row, "p_tag_ul") == block(row, "p_tag_ul_2")
    assert BLOCK_FEATURE_NAMES.index("p_tag_ul") == 55 - 1
    assert BLOCK_FEATURE_NAMES.index("p_tag_ul_2") == 63 - 1


def test_leaf_tags_b110_b128():
    _, b, _ = features(TAG_PAGE)
    leaf_tags = [ones(row, "tag_") for row in b]
    assert leaf_tags[0] == {"td"}
    assert leaf_tags[2] == {"span"}
    assert leaf_tags[4] == {"i"}
    assert leaf_tags[5] == {"strong"}
    assert leaf_tags[6] == {"p", "em"}
    assert leaf_tags[7] == {"sup"}
    assert leaf_tags[8] == set()  # a bare text node: no tag
    assert leaf_tags[9] == {"table", "tr", "td"}
    assert leaf_tags[10] == {"h1"}
    assert leaf_tags[11] == {"b"}
    assert leaf_tags[14] == {"li"}


# ---------------------------------------------------------------------------------------------
# Edge features

EDGE_PAGE = page(
    "<p>One</p><p>Two <span>three</span> <span>four</span></p>"
    "<div><div><p>Five</p><p>Six</p></div><ul><li>Seven<br>Eight</li></ul></div>"
)
# Collapsed DOM with depths:
#   html>body (0)
#     p>#text "One" (1)
#     p (1): #text "Two" (2), span>#text "three" (2), span>#text "four" (2)
#     div (1)
#       div (2): p>#text "Five" (3), p>#text "Six" (3)
#       ul>li (2): #text "Seven" (3), #text "Eight" (3)      (the <br> has no text)


def test_collapsed_dom_of_the_edge_page():
    root = parse(EDGE_PAGE).collapsed_dom()
    one, p, div = root.children
    assert (one.tags, one.depth) == (["p", "#text"], 1)
    assert [c.depth for c in p.children] == [2, 2, 2]
    inner, lst = div.children
    assert inner.tags == ["div"] and lst.tags == ["ul", "li"]
    assert [c.depth for c in inner.children + lst.children] == [3, 3, 3, 3]


def test_edge_tree_distance_and_line_break():
    texts, _, e = features(EDGE_PAGE)
    assert texts == ["One", "Two", "three", "four", "Five", "Six", "Seven", "Eight"]
    distance = ["tree_distance_2", "tree_distance_3", "tree_distance_4", "tree_distance_more"]
    idx = [EDGE_FEATURE_NAMES.index(n) for n in distance]
    one_hot = e[:, idx].tolist()
    assert one_hot == [
        [0, 1, 0, 0],  # One-Two: 1 + 2 hops to the root
        [1, 0, 0, 0],  # Two-three: 1 + 1 to the p
        [1, 0, 0, 0],  # three-four: 1 + 1 to the p
        [0, 0, 0, 1],  # four-Five: 2 + 3 to the root = 5
        [1, 0, 0, 0],  # Five-Six: 1 + 1 to the inner div
        [0, 0, 1, 0],  # Six-Seven: 2 + 2 to the outer div
        [1, 0, 0, 0],  # Seven-Eight: 1 + 1 to ul>li
    ]
    breaks = e[:, EDGE_FEATURE_NAMES.index("line_break")].tolist()
    # </p><p> between One and Two; two inline spans inside one p: none; </p> <div><div><p>;
    # </p><p>; </p></div><ul><li>; a <br> between Seven and Eight.
    assert breaks == [1, 0, 0, 1, 1, 1, 1]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<p>a</p><p>b</p>", 1),
        ("<p><span>a</span> <span>b</span></p>", 0),
        ("<p><b>a</b><i>b</i></p>", 0),
        ("<p>a<br>b</p>", 1),
        ("<div>a<hr>b</div>", 1),
        ("<div><span>a</span><span><br></span><span>b</span></div>", 1),  # a nested <br>
        ("<div><span>a</span><div hidden>x</div><span>b</span></div>", 1),  # removed, counts
        ("<div><span>a</span><script>x</script><span>b</span></div>", 0),  # not block-level
        ("<div><span>a</span><!-- c --><span>b</span></div>", 0),
        ("<ul><li>a</li><li>b</li></ul>", 1),
    ],
)
def test_line_break_cases(body, expected):
    texts, _, e = features(page(body))
    assert texts == ["a", "b"]
    assert e[0, EDGE_FEATURE_NAMES.index("line_break")] == expected


def test_edge_common_ancestor_features():
    _, b, e = features(EDGE_PAGE, stopwords=frozenset({"two"}))
    ca = e[:, 5:]
    assert [n.removeprefix("ca_") for n in EDGE_FEATURE_NAMES[5:]] == [
        n.removeprefix("p_") for n in BLOCK_FEATURE_NAMES[28:48]
    ]
    # Two-three: the common ancestor is the p holding "Two" (3), "three" (5), "four" (4):
    # 12 characters, 3 words of 3+5+4 = 12 letters, stopword "two", no punctuation,
    # 3 sentences, one capital. Positions from "One" at 0: <p>One</p><p> puts "Two " at
    # [10, 14), <span> "three" [20, 25) </span> " " <span> "four" [39, 43); the page ends
    # with "Eight" at 113 (… </p></div><ul><li>Seven<br>Eight).
    check(
        e[1],
        EDGE_FEATURE_NAMES,
        {
            "ca_body_percentage": (43 - 10) / 113,
            "ca_link_density": 0,
            "ca_avg_word_length": 12 / 3,
            "ca_has_stopword": 1,
            "ca_stopword_ratio": 1 / 3,
            "ca_log_n_characters": 2.5,  # log 12 = 2.48, clipped to 2.5
            "ca_log_punctuation_ratio": -4.0,
            "ca_log_avg_sentence_length": 2.0,  # log(12 / 3) = 1.39, clipped to 2
            "ca_ends_with_punctuation": 0,
            "ca_ratio_words_with_capital": 1 / 3,
            "ca_contains_form_element": 0,
        },
    )
    np.testing.assert_array_equal(ca[1], ca[2])  # the same p
    np.testing.assert_array_equal(ca[1], group(b[2], "p_"))  # ... the parent of "three"
    np.testing.assert_array_equal(ca[0], group(b[0], "root_"))  # One-Two: the root
    np.testing.assert_array_equal(ca[3], group(b[0], "root_"))  # four-Five: the root
    np.testing.assert_array_equal(ca[4], group(b[4], "p_"))  # Five-Six: the inner div
    np.testing.assert_array_equal(ca[5], group(b[5], "gp_"))  # Six-Seven: the outer div
    np.testing.assert_array_equal(ca[6], group(b[6], "p_"))  # Seven-Eight: ul>li


# ---------------------------------------------------------------------------------------------
# Shapes, edge cases, robustness

ALL_PAGES = [DUP_PAGE, TEXT_PAGE, NODE_PAGE, TAG_PAGE, EDGE_PAGE]


def test_names_and_binary_masks():
    assert N_BLOCK == len(BLOCK_FEATURE_NAMES) == 128
    assert N_EDGE == len(EDGE_FEATURE_NAMES) == 25
    assert len(set(BLOCK_FEATURE_NAMES)) == 128 and len(set(EDGE_FEATURE_NAMES)) == 25
    assert BLOCK_BINARY.shape == (128,) and BLOCK_BINARY.dtype == bool
    assert EDGE_BINARY.shape == (25,) and EDGE_BINARY.dtype == bool
    # The paper's 1/0 features, by 1-based id.
    binary_ids = {1, 2, 4, 7, 11, 14, 15, 16, 17, 18, 19, 23, 25, 28}
    binary_ids |= {i + 28 for i in (4, 8, 11, 12, 13, 14, 15, 16, 20)}  # parent b29-b48
    binary_ids |= set(range(49, 70))  # parent tags b49-b68, has grandparent b69
    binary_ids |= {i + 69 for i in (4, 8, 11, 12, 13, 14, 15, 16, 20)}  # b70-b89
    binary_ids |= {i + 89 for i in (4, 8, 11, 12, 13, 14, 15, 16, 20)}  # b90-b109
    binary_ids |= set(range(110, 129))  # leaf tags
    assert {i + 1 for i in np.flatnonzero(BLOCK_BINARY)} == binary_ids
    assert EDGE_BINARY[:5].all()
    np.testing.assert_array_equal(EDGE_BINARY[5:], BLOCK_BINARY[28:48])


@pytest.mark.parametrize("html", ALL_PAGES)
def test_shapes_dtypes_finite_and_binary(html):
    doc = parse(html)
    n = len(doc.leaf_blocks())
    b, e = page_features(doc)
    assert b.shape == (n, N_BLOCK) and b.dtype == np.float32
    assert e.shape == (n - 1, N_EDGE) and e.dtype == np.float32
    assert np.isfinite(b).all() and np.isfinite(e).all()
    assert np.isin(b[:, BLOCK_BINARY], (0, 1)).all()
    assert np.isin(e[:, EDGE_BINARY], (0, 1)).all()
    assert (e[:, :4].sum(axis=1) == 1).all()  # the tree distance is one-hot
    np.testing.assert_array_equal(block_features(doc), b)
    np.testing.assert_array_equal(edge_features(doc), e)
    b[:] = -1  # a copy: the cached features are untouched
    assert not (block_features(doc) == -1).all()


@pytest.mark.parametrize(
    "html",
    [
        "<html><body></body></html>",
        "<html><body><script>var x = 1;</script><div hidden>secret</div></body></html>",
    ],
)
def test_a_page_without_blocks(html):
    b, e = page_features(parse(html))
    assert b.shape == (0, 128) and e.shape == (0, 25)
    assert b.dtype == e.dtype == np.float32


def test_a_page_with_one_block():
    doc = parse(page("<p>Only one block.</p>"))
    b, e = page_features(doc)
    assert b.shape == (1, 128) and e.shape == (0, 25)
    # html>body>p>#text collapses into the root itself: no parent, no grandparent.
    assert block(b[0], "has_parent") == 0 and block(b[0], "has_gp") == 0
    assert not group(b[0], "p_").any() and not group(b[0], "gp_").any()
    assert block(b[0], "relative_position") == 0
    assert block(b[0], "root_body_percentage") == 1
    assert block(b[0], "r_same_class_path") == 1
    assert np.isfinite(b).all()


def test_non_ascii_words_and_capitals():
    # "Grüße aus Köln und Москве 😀 Ärger!": 5+1+3+1+4+1+3+1+6+1+1+1+6 = 34 characters (the
    # emoji, outside the BMP, is one); words Grüße aus Köln und Москве Ärger (the emoji is
    # none) of 5+3+4+3+6+5 = 26 letters; capitals G K М Ä: 4 of 6; stopwords aus, und.
    # "İstanbul of the City": lower-casing İ makes two characters (the slow path):
    # 4 words, stopwords of, the; capitals İ, C.
    texts, b, _ = features(
        page("<p>Grüße aus Köln und Москве 😀 Ärger!</p><p>İstanbul of the City</p>"),
        stopwords=frozenset({"aus", "und", "of", "the"}),
    )
    assert texts[0] == "Grüße aus Köln und Москве 😀 Ärger!"
    check(
        b[0],
        BLOCK_FEATURE_NAMES,
        {
            "log_n_words": log(6),
            "avg_word_length": 26 / 6,
            "stopword_ratio": 2 / 6,
            "log_n_characters": log(34),
            "log_punctuation_ratio": log(1 / 34),
            "ratio_words_with_capital": 4 / 6,
            "ends_with_punctuation": 1,
        },
    )
    check(
        b[1],
        BLOCK_FEATURE_NAMES,
        {
            "log_n_words": log(4),
            "avg_word_length": (8 + 2 + 3 + 4) / 4,
            "stopword_ratio": 2 / 4,
            "ratio_words_with_capital": 2 / 4,
        },
    )


def test_a_deeply_nested_page_does_not_recurse():
    # 5000 nested divs, each with its own text: a Collapsed DOM 5000 levels deep (built
    # with lxml directly, since libxml2's parser stops at 256 levels).
    root = etree.Element("html")
    el = etree.SubElement(root, "body")
    for i in range(5000):
        el = etree.SubElement(el, "div")
        el.text = f"level {i}"
    b, e = page_features(parse(root))
    assert b.shape == (5000, 128) and e.shape == (4999, 25)
    assert np.isfinite(b).all() and np.isfinite(e).all()
    # "level i" (a #text leaf) and "level i+1" (a #text leaf inside the next div's node):
    # 1 + 2 hops; the innermost div holds only its text, so it is a leaf itself: 1 + 1.
    assert e[:-1, EDGE_FEATURE_NAMES.index("tree_distance_3")].all()
    assert e[-1, EDGE_FEATURE_NAMES.index("tree_distance_2")] == 1
    # The same through the parser, which keeps 256 levels and warns.
    html = "<html><body>" + "<div>" * 5000 + "deep" + "</div>" * 5000 + "</body></html>"
    b, e = page_features(parse(html))
    assert b.shape[1] == 128 and e.shape == (max(b.shape[0] - 1, 0), 25)


def test_a_page_with_20000_blocks():
    html = page("".join(f"<p>Paragraph {i} of the page.</p>" for i in range(20_000)))
    b, e = page_features(parse(html))
    assert b.shape == (20_000, 128) and e.shape == (19_999, 25)
    assert np.isfinite(b).all() and np.isfinite(e).all()
    rel = b[:, BLOCK_FEATURE_NAMES.index("relative_position")]
    assert rel[0] == 0 and (np.diff(rel) > 0).all() and rel[-1] < 1
