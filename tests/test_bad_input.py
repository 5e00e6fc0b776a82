"""Bad input through extract(): an empty Extraction with a stated reason, or a proper result.

Never an exception, never a half-empty result without a reason; ``to_dict()`` is JSON.
"""

from __future__ import annotations

import importlib.util
import json
import random

import pytest

from scrapy_boilerplate import Extraction, UnsupportedInput, extract, parse

METHODS = ["justext", "vips"] + (["cnr"] if importlib.util.find_spec("numpy") else [])
#: Reasons of a page that was read: its blocks are there, content or all boilerplate.
READ = (None, "no-content")


def check(result: Extraction) -> Extraction:
    """What every result must satisfy, whatever the input."""
    assert isinstance(result, Extraction)
    if result.reason is not None:
        assert result.main_text == ""
    if not result.main_text:  # every empty main text says why
        assert result.reason is not None
    json.loads(json.dumps(result.to_dict(), allow_nan=False))
    return result


def failed_with(result: Extraction, reason: str) -> None:
    check(result)
    assert result.reason == reason
    assert result.blocks == []
    assert result.main_text == ""
    assert not result.ok


LONG_EN = (
    "The town council voted on Tuesday evening to restore the lighthouse that has stood at the "
    "end of the north pier for almost two hundred years, ending a debate that had divided the "
    "community since the building was closed to visitors in the spring of last year."
)


@pytest.fixture(params=METHODS)
def method(request):
    return request.param


@pytest.mark.parametrize("html", ["", b"", bytearray(), "   \n\t  ", b" \r\n\t ", "\ufeff "])
def test_empty_input(method, html):
    failed_with(extract(html, method), "empty")


def test_empty_memoryview(method):
    failed_with(extract(memoryview(b""), method), "empty")


@pytest.mark.parametrize(
    "magic", [b"\x89PNG\r\n\x1a\n", b"GIF89a", b"%PDF-1.7\n", b"PK\x03\x04", b"\x1f\x8b\x08\x00"]
)
def test_binary_data(method, magic):
    data = magic + random.Random(7).randbytes(4096)
    result = extract(data, method)
    failed_with(result, "binary")
    assert result.extra["detail"]


def test_random_bytes_with_nul(method):
    data = random.Random(1).randbytes(2000) + b"\x00" + b"<p>text</p>"
    failed_with(extract(data, method), "binary")


@pytest.mark.parametrize("html", [b"<html><body><p>a\x00b</p></body></html>",
                                  "<html><body><p>a\x00b</p></body></html>"])  # fmt: skip
def test_a_stray_nul_in_an_html_page_reads_as_a_replacement_character(method, html):
    # As browsers read it: the page is text, the NUL becomes U+FFFD.
    result = check(extract(html, method))
    assert result.reason in READ
    assert [b.text for b in result.blocks] == ["a\ufffdb"]


def test_text_of_control_characters_is_binary(method):
    failed_with(extract("<p>" + "\x01\x02\x00" * 200 + "</p>", method), "binary")
    failed_with(extract(b"<p>" + b"\x00\x1b" * 40 + b"</p>", method), "binary")


def test_nul_character_late_in_a_long_page_does_not_raise(method):
    html = "<html><body>" + "<p>hello world</p>" * 400 + "<p>a\x00b</p></body></html>"
    result = check(extract(html, method))
    assert result.reason in READ
    assert all("\x00" not in b.text for b in result.blocks)


def test_twenty_megabyte_page(method):
    para = "<p>" + LONG_EN + "</p>\n"
    html = (
        '<html lang="en"><body><div><a href="/">Home</a></div>'
        + para * (20_000_000 // len(para) + 1)
        + "</body></html>"
    )
    assert len(html) > 20_000_000
    result = check(extract(html, method))
    assert result.reason is None
    assert LONG_EN in result.main_text


def test_page_over_max_size_is_refused():
    with pytest.raises(UnsupportedInput) as info:
        parse("<p>" + "x" * 100 + "</p>", max_size=50)
    assert info.value.reason == "too-large"
    with pytest.raises(UnsupportedInput):
        parse(b"<p>" + b"x" * 100 + b"</p>", max_size=50)


def test_ten_thousand_deep_nesting(method):
    html = "<html><body>" + "<div>" * 10_000 + "deep text" + "</div>" * 10_000 + "</body></html>"
    result = check(extract(html, method))  # no RecursionError
    assert result.reason == "too-deep" or "deep text" in result.main_text


def test_deep_nesting_after_real_text_keeps_the_text(method):
    html = (
        f"<html><body><p>{LONG_EN}</p>"
        + "<span>" * 10_000
        + "deep"
        + "</span>" * 10_000
        + "</body></html>"
    )
    result = check(extract(html, method))
    assert result.reason is None
    assert result.blocks[0].text == LONG_EN


def test_frameset_only_page(method):
    html = (
        '<html><head><title>Frames</title></head><frameset cols="20%,80%">'
        '<frame src="menu.html"><frame src="main.html"></frameset></html>'
    )
    failed_with(extract(html, method), "frameset")


@pytest.mark.parametrize(
    "xml",
    [
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>News</title>'
        "<item><title>Item one</title><description>A long description of the first item of the "
        "feed.</description></item></channel></rss>",
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title>'
        "<entry><title>Post</title><content>Some content</content></entry></feed>",
        '<?xml version="1.0"?>\n<!-- generator -->\n<?xml-stylesheet href="s.xsl"?>\n'
        "<rss><channel><title>News</title></channel></rss>",
    ],
)
def test_xml_document_is_not_html(method, xml):
    failed_with(extract(xml, method), "not-html")
    failed_with(extract(xml.encode("utf-8"), method), "not-html")


def test_xhtml_with_xml_declaration_is_html(method):
    html = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<html '
        'xmlns="http://www.w3.org/1999/xhtml"><body><p>café au lait</p></body></html>'
    )
    result = check(extract(html.encode("latin-1"), method))
    assert result.reason in READ
    assert [b.text for b in result.blocks] == ["café au lait"]


def test_wrongly_declared_encoding(method):
    html = (
        f'<html><head><meta charset="utf-8"></head><body><p>{LONG_EN} Café crème – “good”.'
        "</p></body></html>"
    )
    result = check(extract(html.encode("cp1252"), method))
    assert result.reason is None
    assert result.blocks[0].text.endswith("Café crème – “good”.")
    assert result.encoding == "cp1252"


def test_undecodable_bytes_are_replaced_not_raised(method):
    data = b"<html><body><p>ok \xff\xfe\xfd then more</p></body></html>"
    result = check(extract(data, method))
    assert result.reason in READ
    assert result.blocks[0].text.startswith("ok ")


@pytest.mark.parametrize(
    "cut",
    [
        "<html><body><p>This is the first paragraph of a page that was cut.</p><di",
        "<html><body><p>This is the first paragraph of a page that was cut.</p><p>Sec",
        '<html><body><p>This is the first paragraph of a page that was cut.</p><a href="htt',
        "<html><body><p>This is the first paragraph of a page that was cut.</p><!-- unfinished",
    ],
)
def test_truncated_page(method, cut):
    result = check(extract(cut, method))
    assert result.reason in READ
    assert result.blocks[0].text == "This is the first paragraph of a page that was cut."


@pytest.mark.parametrize("declared", ["", '<meta charset="utf-8">'])
def test_page_cut_in_the_middle_of_a_utf8_character(method, declared):
    data = f"<html>{declared}<body><p>Привет, мир</p><p>Ещё".encode()[:-1]
    result = check(extract(data, method))
    assert result.reason in READ
    assert result.blocks[0].text == "Привет, мир"


def test_one_stray_byte_in_a_utf8_page(method):
    data = "<html><body><p>Привет, мир</p><p>x</p></body></html>".encode().replace(b"x", b"\xff")
    result = check(extract(data, method))
    assert result.blocks[0].text == "Привет, мир"


def test_page_cut_in_the_middle_of_a_character_stays_html(method):
    data = "<html><body><p>Привет, мир</p><p>Ещё".encode()[:-1]
    result = check(extract(data, method))
    assert result.reason in READ
    assert len(result.blocks) == 2


def test_page_of_only_comments(method):
    failed_with(extract("<!-- one --><!-- two -->", method), "empty")
    failed_with(extract("<html><body><!-- one --><!-- two --></body></html>", method), "no-text")


def test_page_of_only_scripts_and_styles(method):
    html = "<html><head><style>p{}</style></head><body><script>var x = 1;</script></body></html>"
    failed_with(extract(html, method), "no-text")


def test_plain_text_is_a_one_block_page(method):
    result = check(extract("just some plain text, no tags at all", method))
    assert result.reason in READ
    assert [b.text for b in result.blocks] == ["just some plain text, no tags at all"]


def test_unbalanced_and_misnested_tags(method):
    html = f"<html><body><p><b>bold <i>both</b> italic</i></p></div></span><p>{LONG_EN}"
    result = check(extract(html, method))
    assert result.reason is None
    assert result.blocks[-1].text == LONG_EN


def test_failed_result_keeps_the_url_and_parameters(method):
    result = extract(b"", method, url="https://example.com/x")
    failed_with(result, "empty")
    assert result.url == "https://example.com/x"
    assert result.extractor == method
    assert result.params  # the validated parameters, defaults filled in


def test_parse_raises_what_extract_reports():
    with pytest.raises(UnsupportedInput) as info:
        parse(b"\x89PNG\r\n\x1a\n\x00\x00")
    assert info.value.reason == "binary"


def test_mangled_xml_declaration_in_a_decoded_page(method):
    """A declaration our pattern cannot strip (its 'encoding' is a list of keywords holding
    a '>'): lxml refuses a str with an encoding declaration; the page is still read."""
    html = (
        '<?xml version="1.0" encoding="news, world > politics, ' + "keyword, " * 60 + '"?>'
        "<html><body><p>" + LONG_EN + "</p></body></html>"
    )
    result = check(extract(html, method))
    assert result.reason is None and LONG_EN in result.main_text
