"""Extraction and Block: plain-JSON dicts, Markdown output, failed results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scrapy_boilerplate import BOILERPLATE, CONTENT, Block, Extraction, extract

np = pytest.importorskip("numpy")

PAGES = Path(__file__).parent / "pages"
PAGE = (PAGES / "news_article.html").read_bytes()
PLAIN = (str, int, float, bool, type(None))


def assert_plain(value, where="value"):
    """Only dict / list / str / int / float / bool / None, by exact type (no subclasses such as
    numpy.float64, which json accepts but other exporters do not)."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert type(k) is str, f"{where}: key {k!r}"
            assert_plain(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            assert_plain(v, f"{where}[{i}]")
    else:
        assert type(value) in PLAIN, f"{where}: {type(value).__name__}"


def numpy_block() -> Block:
    return Block(
        text="numbers",
        xpath="/html[1]/body[1]/p[1]",
        tag="p",
        label=CONTENT,
        link_density=np.float32(0.25),
        fields={
            "score32": np.float32(0.5),
            "count": np.int64(3),
            "small": np.int8(-2),
            "flag": np.bool_(True),
            "vector": np.arange(3),
            "matrix": np.array([[1.5, 2.0]]),
            "nan": np.float64("nan"),
            "inf": np.float32("inf"),
            "pair": (np.int16(1), 2.0),
            "nested": {"ids": np.array([4, 5], dtype=np.uint8), 7: np.float16(0.5)},
            "tags": {"a"},
        },
    )


def test_block_to_dict_turns_numpy_values_into_plain_json_types():
    d = numpy_block().to_dict()
    assert d == {
        "text": "numbers",
        "xpath": "/html[1]/body[1]/p[1]",
        "tag": "p",
        "label": "content",
        "tag_path": "",
        "link_density": 0.25,
        "index": 0,
        "start": 0,
        "score32": 0.5,
        "count": 3,
        "small": -2,
        "flag": True,
        "vector": [0, 1, 2],
        "matrix": [[1.5, 2.0]],
        "nan": None,
        "inf": None,
        "pair": [1, 2.0],
        "nested": {"ids": [4, 5], "7": 0.5},
        "tags": ["a"],
    }
    assert_plain(d)
    assert json.loads(json.dumps(d, allow_nan=False)) == d


def test_numpy_float64_field_becomes_a_plain_float():
    d = Block("t", "/x", "p", fields={"score": np.float64(0.5)}).to_dict()
    assert type(d["score"]) is float


def test_extraction_to_dict_is_plain_json():
    r = Extraction.from_blocks(
        [numpy_block()],
        "mine",
        {"threshold": np.float32(0.5), "k": np.int32(4)},
        language="en",
        extra={"main_cnr": np.float32(1.5), "detected": [{"rank": np.int64(1)}]},
    )
    d = r.to_dict()
    assert d["params"] == {"threshold": 0.5, "k": 4}
    assert d["main_cnr"] == 1.5 and d["detected"] == [{"rank": 1}]
    assert d["main_text"] == "numbers"
    assert_plain(d)
    json.dumps(d, allow_nan=False)


@pytest.mark.parametrize("method", ["justext", "cnr", "web2text"])
def test_real_extraction_to_dict_is_plain_json(method):
    html = (PAGES / "news_article.html").read_text(encoding="utf-8")
    d = extract(html, method, url="https://example.com/a").to_dict()
    assert_plain(d)
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert d["url"] == "https://example.com/a"
    assert d["extractor"] == method


def test_main_text_is_the_content_blocks_in_page_order():
    blocks = [
        Block("one", "/a", "p", CONTENT),
        Block("two", "/b", "p", BOILERPLATE),
        Block("three", "/c", "p", CONTENT),
    ]
    r = Extraction.from_blocks(blocks, "x", {})
    assert r.main_text == "one\n\nthree"
    assert [b.text for b in r.content_blocks] == ["one", "three"]
    assert r.ok and r.reason is None
    assert [b.is_content for b in blocks] == [True, False, True]


def test_from_blocks_without_blocks_says_no_text():
    r = Extraction.from_blocks([], "x", {})
    assert (r.reason, r.main_text, r.ok) == ("no-text", "", False)


def test_failed():
    params = {"length_low": 70}
    r = Extraction.failed(
        "binary", "justext", params, url="https://e.com/", extra={"detail": "PNG"}
    )
    assert (r.main_text, r.blocks, r.reason, r.extractor) == ("", [], "binary", "justext")
    assert r.params == params and r.params is not params
    assert not r.ok
    assert r.to_markdown() == ""
    d = r.to_dict()
    assert (d["reason"], d["url"], d["detail"], d["blocks"]) == (
        "binary",
        "https://e.com/",
        "PNG",
        [],
    )
    assert Extraction.failed("empty", "cnr").params == {}


# ---------------------------------------------------------------------------------------------
# to_markdown


def blk(text, tag, xpath, label=CONTENT):
    return Block(text=text, xpath=xpath, tag=tag, label=label)


def md(blocks) -> str:
    return Extraction.from_blocks(blocks, "x", {}).to_markdown()


def test_markdown_headings_paragraphs_and_lists():
    out = md(
        [
            blk("Page  title", "h1", "/html[1]/body[1]/h1[1]"),
            blk("Menu", "div", "/html[1]/body[1]/div[1]", BOILERPLATE),
            blk("Intro text.", "p", "/html[1]/body[1]/p[1]"),
            blk("Part two", "h2", "/html[1]/body[1]/h2[1]"),
            blk("Detail", "h3", "/html[1]/body[1]/h3[1]"),
            blk("first", "li", "/html[1]/body[1]/ul[1]/li[1]"),
            blk("second", "li", "/html[1]/body[1]/ul[1]/li[2]"),
            blk("After the list.", "p", "/html[1]/body[1]/p[2]"),
        ]
    )
    assert out == (
        "# Page title\n\nIntro text.\n\n## Part two\n\n### Detail\n\n- first\n- second\n\n"
        "After the list.\n"
    )


def test_markdown_table_has_a_header_separator_line():
    out = md(
        [
            blk("Name", "th", "/html[1]/body[1]/table[1]/tr[1]/th[1]"),
            blk("Qty", "th", "/html[1]/body[1]/table[1]/tr[1]/th[2]"),
            blk("Eggs", "td", "/html[1]/body[1]/table[1]/tr[2]/td[1]"),
            blk("a|b", "td", "/html[1]/body[1]/table[1]/tr[2]/td[2]"),
            blk("Milk", "td", "/html[1]/body[1]/table[1]/tr[3]/td[1]"),
            blk("1 l", "td", "/html[1]/body[1]/table[1]/tr[3]/td[2]"),
        ]
    )
    assert out == "| Name | Qty |\n| --- | --- |\n| Eggs | a\\|b |\n| Milk | 1 l |\n"


def test_markdown_two_tables_each_get_a_separator():
    out = md(
        [
            blk("A", "td", "/html[1]/body[1]/table[1]/tr[1]/td[1]"),
            blk("between", "p", "/html[1]/body[1]/p[1]"),
            blk("B", "td", "/html[1]/body[1]/table[2]/tr[1]/td[1]"),
        ]
    )
    assert out.count("| --- |") == 2
    assert "| A |" in out and "| B |" in out and "\nbetween\n" in out


def test_markdown_table_after_a_paragraph_is_separated_by_a_blank_line():
    out = md(
        [
            blk("Intro text.", "p", "/html[1]/body[1]/p[1]"),
            blk("Name", "th", "/html[1]/body[1]/table[1]/tr[1]/th[1]"),
            blk("Eggs", "td", "/html[1]/body[1]/table[1]/tr[2]/td[1]"),
        ]
    )
    assert out == "Intro text.\n\n| Name |\n| --- |\n| Eggs |\n"


def test_markdown_pre_block_is_fenced_and_keeps_its_lines():
    out = md(
        [
            blk("Run this:", "p", "/html[1]/body[1]/p[1]"),
            blk("pip install x\npython -m x", "pre", "/html[1]/body[1]/pre[1]"),
        ]
    )
    assert out == "Run this:\n\n```\npip install x\npython -m x\n```\n"


def test_markdown_blockquote():
    assert md([blk("A quote\nsecond line", "blockquote", "/html[1]/body[1]/blockquote[1]")]) == (
        "> A quote\n> second line\n"
    )


def test_markdown_of_a_real_page_keeps_headings_and_list_items():
    html = (PAGES / "recipe.html").read_text(encoding="utf-8")
    out = extract(html).to_markdown()
    lines = out.splitlines()
    assert lines[0] == "# Simple lentil soup"
    assert "## Ingredients" in lines and "## Method" in lines
    i = lines.index("- 250 g red lentils")
    assert lines[i : i + 4] == [
        "- 250 g red lentils",
        "- 1 onion",
        "- 2 carrots",
        "- 1 litre of stock",
    ]
    assert "Home" not in out  # boilerplate stays out


def test_an_extraction_survives_pickling_between_processes():
    import pickle

    for name in ("justext", "cnr"):
        result = extract(PAGE, name)
        again = pickle.loads(pickle.dumps(result))
        assert again == result
        assert [b.to_dict() for b in again.blocks] == [b.to_dict() for b in result.blocks]
    mixed = Extraction.from_blocks(
        [
            Block("a", "/html/body/p[1]", "p", CONTENT, fields={"x": 1}),
            Block("b", "/html/body/p[2]", "p", fields={"y": [1, 2]}),
            Block("c", "/html/body/p[3]", "p"),
        ],
        "test",
        {"k": 1},
        extra={"note": "n"},
    )
    assert pickle.loads(pickle.dumps(mixed)) == mixed
    empty = Extraction.failed("empty", "justext")
    assert pickle.loads(pickle.dumps(empty)) == empty


def test_prepared_block_dicts_are_handed_out_once():
    result = extract(PAGE, "justext")
    result.prepare_block_dicts()
    first = result.block_dicts()
    second = result.block_dicts()
    assert first == second == [b.to_dict() for b in result.blocks]
    # No dict is shared by two items.
    assert all(a is not b for a, b in zip(first, second, strict=True))
