"""Regression tests for what the fuzzers (fuzz/, see fuzz/README.md) found.

Each test is the minimised input of one finding, built in code, run through the public
entry point it broke, with the contract fuzz/fuzz_contract.py checks.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scrapy.http import HtmlResponse
from scrapy.utils.defer import deferred_f_from_coro_f

from scrapy_boilerplate import BOILERPLATE, CONTENT, Extraction, extract, parse
from scrapy_boilerplate.scrapy import middlewares as mw


def check_result(result: Extraction) -> Extraction:
    """The fuzzers' contract on every Extraction (fuzz_contract.check_result, in short)."""
    assert isinstance(result, Extraction)
    if result.reason is not None:
        assert result.main_text == ""
        # only a page read whole whose blocks are all boilerplate keeps its blocks
        assert result.reason == "no-content" or result.blocks == []
    else:
        assert result.main_text  # every empty main text says why
    for block in result.blocks:
        assert block.label in (CONTENT, BOILERPLATE)
    json.dumps(result.to_dict(), allow_nan=False)
    assert isinstance(result.to_markdown(), str)
    return result


@pytest.mark.parametrize("html", ["><m\x15>%2", b"><m\x15>%2"])
@pytest.mark.parametrize("method", ["cnr", "justext", "web2text", "vips"])
def test_an_element_name_with_a_control_character(method, html):
    """Found by atheris (a real page with two bytes mutated): libxml2's HTML parser keeps a
    control character in a tag name (``<m\x15>``), which lxml refuses as a tag filter;
    CNR's XPath of a detected node passed the tag to ``itersiblings`` and raised."""
    params = {"layout": "static"} if method == "vips" else {}
    result = check_result(extract(html, method, **params))
    assert result.reason in (None, "no-content")


@pytest.mark.parametrize("href", ["https://www:example.org/", "http://[::1", "http://a:99999/"])
def test_a_base_href_that_w3lib_cannot_split_still_extracts_in_a_crawl(href):
    """Found by atheris (one byte of a real page changed, ``www.`` to ``www:``): Scrapy's
    ``response.selector`` reads ``<base href>`` with w3lib, which raises ValueError on a
    bad port or IPv6 host; the crawl's thread mode then reported "error" for a page that
    process mode extracts."""
    body = (
        f'<html><head><base href="{href}"></head>'
        "<body><p>The lighthouse was painted white again.</p></body></html>"
    ).encode()
    response = mw._as_extractable(HtmlResponse("https://example.com/", body=body))
    result = check_result(mw._extract_response(response, "justext", {"length_low": 5}))
    assert result.reason in (None, "no-content")
    assert [b.text for b in result.blocks] == ["The lighthouse was painted white again."]


@deferred_f_from_coro_f
async def test_the_entity_pipeline_keeps_the_item_of_a_page_with_such_a_base_href(tmp_path):
    """The same ``<base href>``: EntityPipeline read ``response.selector`` outside its
    error handling, so the item was lost."""
    from scrapy_helpers import PAGES, PagesSpider, crawl

    class Trails(PagesSpider):
        name = "trails-bad-base"
        entity_query = "hiking trails near baltimore"

    html = (PAGES / "trails.html").read_text()
    page = tmp_path / "trails.html"
    page.write_text(html.replace("<head>", '<head><base href="https://www:example.org/">', 1))
    settings = {"BOILERPLATE_ENTITIES_ENABLED": True}  # through the add-on
    items, _, _ = await crawl(settings, spider=Trails, urls=[page.as_uri()])
    (item,) = items
    assert item["entities"]


def _response(body: bytes, charset: str) -> HtmlResponse:
    return HtmlResponse(
        "https://example.com/", body=body, headers={"Content-Type": f"text/html; charset={charset}"}
    )


@pytest.mark.parametrize("charset", ["gb18030", "gbk", "gb2312"])
def test_decode_in_pieces_decodes_a_gb18030_lead_0x80_as_response_text_does(charset):
    """Found by fuzzing decode_in_pieces: w3lib decodes a GB18030 lead byte 0x80 as the
    euro sign (the Encoding Standard's GBK compatibility, w3lib >= 2.5), the codec's
    ``errors="replace"`` as U+FFFD; big GBK pages then read differently in a crawl."""
    body = "<html><body><p>价格 5".encode("gb18030") + b"\x80" + b"</p></body></html>"
    response = _response(body, charset)
    assert mw.decode_in_pieces(response) == response.text


@pytest.mark.parametrize("piece", [1, 2, 3])
def test_decode_in_pieces_keeps_the_byte_after_a_gb18030_lead_0x80_at_a_cut(monkeypatch, piece):
    """Found by the property test below: with w3lib's GB18030 handler, CPython's
    incremental decoder lost the bytes it held after a lead 0x80 (b"\\x800": "€"
    instead of "€0"). Such bodies are now decoded in one piece."""
    monkeypatch.setattr(mw, "_DECODE_CHUNK", piece)
    for body in (b"\x800", b"<p>\x800</p><p>\x80a<b>\x80</b>\x80"):
        response = _response(body, "gb18030")
        assert mw.decode_in_pieces(response) == response.text


def test_decode_in_pieces_on_a_broken_escape_sequence_at_a_piece_boundary(monkeypatch):
    """Found by fuzzing decode_in_pieces: CPython's incremental ISO-2022-JP decoder raises
    ``UnicodeError: pending buffer overflow`` (whatever ``errors``) when a piece ends in
    a malformed escape sequence; one ``bytes.decode`` of the same body does not."""
    monkeypatch.setattr(mw, "_DECODE_CHUNK", 64)
    body = b"a" * (64 - 9) + b"\x1b(\n?a<p>\x1b" + b"b" * 10
    response = _response(body, "iso-2022-jp")
    text = mw.decode_in_pieces(response)  # no exception
    assert text is None or text == response.text


def test_the_page_of_such_a_response_still_extracts(monkeypatch):
    monkeypatch.setattr(mw, "_DECODE_CHUNK", 64)
    body = b"<p>" + b"a" * (64 - 12) + b"\x1b(\n?a<p>\x1b" + b"b" * 10
    response = _response(body, "iso-2022-jp")
    check_result(extract(response.selector, "justext"))


CHARSETS = [
    "utf-8",
    "utf-16",
    "utf-16be",
    "utf-32",
    "gb18030",
    "gbk",
    "big5",
    "shift_jis",
    "euc-jp",
    "euc-kr",
    "iso-2022-jp",
    "hz-gb-2312",
    "koi8-r",
    "windows-1252",
]


#: Bytes that start, end or break multi-byte characters and ISO-2022 / HZ escapes.
JUNK = st.one_of(
    st.sampled_from([b"\x80", b"\xff", b"\xa1", b"\x836", b"\x1b(", b"\x1b$", b"\x1b$B", b"~{"]),
    st.binary(min_size=1, max_size=3),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(alphabet="a<p>\n é東京😀한ж€", max_size=40),
    charset=st.sampled_from(CHARSETS),
    noise=st.lists(st.tuples(st.integers(0, 200), JUNK), max_size=4),
    piece=st.integers(1, 9),
)
def test_decode_in_pieces_is_response_text_wherever_the_pieces_are_cut(text, charset, noise, piece):
    """Pieces cut inside multi-byte characters and escape sequences, bad bytes anywhere:
    the same text as one decode, or None (not covered by tests/test_properties.py)."""
    body = bytearray(text.encode(charset, "replace"))
    for at, junk in noise:
        body[at:at] = junk
    response = _response(bytes(body), charset)
    saved = mw._DECODE_CHUNK
    mw._DECODE_CHUNK = piece
    try:
        decoded = mw.decode_in_pieces(response)
    finally:
        mw._DECODE_CHUNK = saved
    assert decoded is None or decoded == response.text


LONE_SURROGATE_PAGE = "<p>first paragraph</p><p>a \ud800 b</p><p>third paragraph</p>"


def test_a_lone_surrogate_in_a_str_page_does_not_cut_the_page():
    """Found by fuzzing extract() on str input (lone surrogates: a page decoded with
    ``surrogateescape``): no exception, but everything after the surrogate is gone."""
    texts = [b.text for b in parse(LONE_SURROGATE_PAGE).leaf_blocks()]
    assert texts[0] == "first paragraph"
    assert texts[-1] == "third paragraph"
    result = check_result(extract(LONE_SURROGATE_PAGE, "justext", length_low=5))
    assert "third paragraph" in [b.text for b in result.blocks]
