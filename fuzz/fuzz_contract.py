"""The contract every fuzzer checks, shared by ``hypothesis_fuzz.py`` and ``atheris_fuzz.py``.

Each ``check_*`` function calls one public entry point on one input and raises
``AssertionError`` (or lets the entry point's own exception through) when the contract
is broken:

- ``extract(html, extractor, **params)`` never raises; a failed page gives an
  ``Extraction`` with a short ``reason`` (``"empty"``, ``"binary"``, ``"not-html"``...),
  no blocks and an empty ``main_text``; ``to_dict()`` is JSON (``allow_nan=False``) and
  ``to_markdown()`` works; block labels are ``"content"`` / ``"boilerplate"``.
- ``parse(html)`` raises nothing but ``UnsupportedInput``; the ``Document`` it returns
  can be segmented.
- ``extract_entities(html, query)`` never raises for a non-empty query.
- the Scrapy glue (``middleware.skip_reason``, ``decode_in_pieces``,
  ``_as_extractable`` + ``_extract_response`` in thread mode, ``_extract_body`` in
  process mode) never raises on any response body and ``Content-Type``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from scrapy_boilerplate import (
    BOILERPLATE,
    CONTENT,
    Extraction,
    Reason,
    UnsupportedInput,
    extract,
    parse,
)

#: (extractor, params) pairs every extraction fuzzer cycles through; no browser, no network.
EXTRACTORS: list[tuple[str, dict[str, Any]]] = [
    ("justext", {}),
    ("justext", {"reference_compat": True}),
    ("cnr", {}),
    ("web2text", {}),
    ("vips", {"layout": "static"}),
]
EXTRACTOR_NAMES = sorted({name for name, _ in EXTRACTORS})

#: A reason is a short lower-case slug ("empty", "too-deep", "not-html", ...).
_REASON = re.compile(r"[a-z][a-z0-9-]{0,31}")

URL = "https://example.com/fuzz/page.html"


def _json_roundtrip(obj: Any, strict_utf8: bool) -> None:
    json.loads(json.dumps(obj, allow_nan=False))
    if strict_utf8:
        # Scrapy's feed exporters write ensure_ascii=False, then UTF-8: a lone surrogate
        # in the output would fail there. Only bytes input guarantees there is none (a str
        # with lone surrogates is the caller's).
        json.dumps(obj, allow_nan=False, ensure_ascii=False).encode("utf-8")


def check_result(result: Any, extractor: str, strict_utf8: bool = True) -> Extraction:
    """What every Extraction must satisfy, whatever the input."""
    assert isinstance(result, Extraction), type(result)
    assert result.extractor == extractor
    assert isinstance(result.main_text, str)
    if result.reason is not None:
        assert isinstance(result.reason, str) and _REASON.fullmatch(result.reason), result.reason
        assert Reason.of(result.reason) is not None, result.reason  # one of the vocabulary
        assert result.main_text == "", "a failed result has main text"
        if result.reason == Reason.NO_CONTENT:  # read whole, every block boilerplate
            assert result.blocks and not result.content_blocks, "no-content with content"
        else:
            assert result.blocks == [], "a failed result has blocks"
    else:
        assert result.blocks, "no reason but no blocks"
        assert result.main_text.strip(), "no reason but no main text"
    for i, block in enumerate(result.blocks):
        assert block.label in (CONTENT, BOILERPLATE), block.label
        assert isinstance(block.text, str)
        assert isinstance(block.xpath, str)
        ld = float(block.link_density)
        assert math.isfinite(ld) and 0.0 <= ld <= 1.0, ld
        assert block.index == i, (block.index, i)
    assert "\x00" not in result.main_text
    for block in result.content_blocks:
        # main_text is made of the content blocks (some methods re-join finer blocks)
        for word in block.text.split()[:3]:
            assert word in result.main_text, (word, result.main_text[:200])
    _json_roundtrip(result.to_dict(), strict_utf8)
    markdown = result.to_markdown()
    assert isinstance(markdown, str)
    if result.reason is not None:
        assert markdown == ""
    return result


def check_extract(html: Any, extractor: str, params: dict[str, Any]) -> Extraction:
    """``extract`` on ``html`` (str or bytes): never raises, always a well-formed result."""
    result = extract(html, extractor, url=URL, **params)
    check_result(result, extractor, strict_utf8=not isinstance(html, str))
    assert result.url == URL
    return result


def check_parse(html: Any) -> None:
    """``parse`` raises only UnsupportedInput; the Document's segmentations work."""
    try:
        doc = parse(html)
    except UnsupportedInput as exc:
        assert isinstance(exc.reason, str) and _REASON.fullmatch(exc.reason), exc.reason
        return
    for blocks in (doc.justext_blocks(), doc.justext_blocks("reference"), doc.leaf_blocks()):
        for i, block in enumerate(blocks):
            assert block.index == i
            assert 0.0 <= block.link_density <= 1.0
    doc.collapsed_dom()
    assert doc.text_length() >= 0
    assert doc.empty_reason() in ("too-deep", "frameset", "no-text")


def check_entities(html: Any, query: str = "names", top_k: int = 5) -> None:
    """``extract_entities`` never raises for a non-empty query."""
    from scrapy_boilerplate import extract_entities

    result = extract_entities(html, query, top_k=top_k)
    assert result.reason is None or _REASON.fullmatch(result.reason), result.reason
    assert len(result.lists) <= top_k
    if result.reason is not None:
        assert result.lists == []
    for entry in result.lists:
        assert all(isinstance(e, str) for e in entry["entities"])
        assert math.isfinite(entry["score"]) and 0.0 <= entry["score"] <= 1.0, entry["score"]
        assert isinstance(entry["xpath"], str)
    _json_roundtrip(result.to_dict(), strict_utf8=not isinstance(html, str))


def _decode_in_pieces(function: Any, response: Any, chunk: int | None) -> str | None:
    from scrapy_boilerplate.scrapy import middlewares as middleware

    saved = middleware._DECODE_CHUNK
    if chunk is not None:
        middleware._DECODE_CHUNK = chunk
    try:
        return function(response)
    finally:
        middleware._DECODE_CHUNK = saved


#: ``Content-Type`` values the Scrapy fuzzers pick from (None: no header at all).
CONTENT_TYPES: list[bytes | None] = [
    None,
    b"text/html",
    b"text/html; charset=utf-8",
    b"text/html; charset=UTF-16",
    b"text/html; charset=utf-16le",
    b"text/html; charset=utf-32",
    b"text/html; charset=iso-8859-1",
    b"text/html; charset=windows-1252",
    b"text/html; charset=shift_jis",
    b"text/html; charset=gb2312",
    b"text/html; charset=iso-2022-jp",
    b"text/html; charset=utf-7",
    b"text/html; charset=x-user-defined",
    b"text/html; charset=koi8-r",
    b"text/html; charset=bogus-charset",
    b'text/html; charset="utf-8"; foo=bar',
    b"text/html;charset=",
    b"application/xhtml+xml",
    b"text/plain",
    b"text/plain; charset=utf-8",
    b"application/octet-stream",
    b"application/json",
    b"text/xml; charset=utf-8",
]


def check_scrapy(
    body: bytes,
    content_type: bytes | None,
    extractor: str,
    params: dict[str, Any],
    html_response: bool = True,
    piece_size: int = 7,
) -> None:
    """The middleware's path from a response to an Extraction, without a crawl.

    ``decode_in_pieces`` runs with its own piece size (256 KiB) and with ``piece_size``
    bytes, so that pieces end inside multi-byte characters and escape sequences."""
    from scrapy.http import HtmlResponse, TextResponse
    from w3lib.encoding import http_content_type_encoding

    from scrapy_boilerplate.scrapy.middlewares import (
        _as_extractable,
        _extract_body,
        _extract_response,
        decode_in_pieces,
        skip_reason,
    )

    headers = {b"Content-Type": content_type} if content_type is not None else {}
    cls = HtmlResponse if html_response else TextResponse
    response = cls(url=URL, body=body, headers=headers, status=200)
    reason = skip_reason(response, max_body_size=64 * 1024 * 1024, sniff=True)
    assert reason in (None, "empty", "too-large", "not-html"), reason
    for chunk in (None, piece_size):
        text = _decode_in_pieces(decode_in_pieces, response, chunk)
        if text is not None:
            # documented: exactly what TextResponse.text gives
            assert text == response.text, f"decode_in_pieces ({chunk=}) differs from .text"
    if reason is not None:
        return
    new = _as_extractable(response)
    check_result(_extract_response(new, extractor, dict(params)), extractor)
    header = (content_type or b"").decode("latin-1")
    encoding = http_content_type_encoding(header)
    check_result(_extract_body(body, encoding, URL, extractor, dict(params)), extractor)
