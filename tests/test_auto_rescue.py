"""``auto`` reads two kinds of broken page that leave the cleaned tree without text: a page
whose content sits in a wrapper hidden by its style, and a page whose unclosed ``<title>``
swallowed the rest of it."""

from __future__ import annotations

from scrapy_boilerplate import extract
from scrapy_boilerplate.auto.extractor import rescue_blocks
from scrapy_boilerplate.core.document import parse

STORY = (
    "<p>The council met on Tuesday to vote on the new budget for the coming year, and the "
    "debate went on well into the evening as members argued over the cost of roads.</p>"
)


def test_content_in_a_hidden_wrapper_is_read() -> None:
    html = f"<html><body><div style='display: none'><h1>Budget</h1>{STORY}</div></body></html>"
    assert extract(html, "justext").reason == "no-text"  # the faithful method sees nothing
    result = extract(html, "auto")
    assert result.reason is None and "council met on Tuesday" in result.main_text
    assert result.extra["recovered"] == "hidden"


def test_a_page_swallowed_by_an_unclosed_title_is_read() -> None:
    filler = "x = 1;" * 80  # the page's script, read as the title's text too
    html = f"<html><head><title>Budget news<script>{filler}</script></head><body>{STORY}</body>"
    doc = parse(html)
    assert not doc.section_blocks()
    _, blocks, way = rescue_blocks(doc)
    assert way == "title" and any("council met" in b.text for b in blocks)
    result = extract(html, "auto")
    assert "council met on Tuesday" in result.main_text
    assert result.extra["recovered"] == "title"


def test_a_page_with_nothing_to_rescue_still_says_no_text() -> None:
    html = "<html><head><title>Short</title></head><body><img src=a.png></body></html>"
    doc = parse(html)
    assert rescue_blocks(doc)[1] == []
    assert extract(html, "auto").reason == "no-text"
