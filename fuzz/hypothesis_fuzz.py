"""Property fuzzing of every entry point on generated HTML (hypothesis).

Run with ``pytest fuzz/hypothesis_fuzz.py`` (see fuzz/README.md). Not part of the test
suite (``testpaths = tests``): the number of examples and the time spent come from a
settings profile chosen with ``BOILERPLATE_FUZZ_PROFILE``:

- ``ci`` (default): 50 examples per test, one round (seconds);
- ``dev``: 300 examples per test, one round;
- ``long``: rounds of 200 examples, no deadline, repeated until the test's share of
  ``BOILERPLATE_FUZZ_SECONDS`` (default 300 for the whole module) is spent.

The inputs mix the well-formed grammar of tests/test_properties.py (imported, not
copied) with hostile shapes: random known and unknown tags and attributes, unclosed and
misnested tags, nesting a few thousand deep, long sibling runs, broken tables, framesets,
``<svg>`` / ``<math>``, XML / XHTML prologs, doctype variants, CDATA, processing
instructions, valid and invalid entities (``&#0;``, ``&#xD800;``, ``&#x110000;``), NUL and
control characters, lone surrogates (str input), RTL / CJK / emoji text, ``<meta
charset>`` declarations that lie, BOMs, odd encodings and bytes cut mid-character. The
contract checked is in fuzz_contract.py.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import fuzz_contract as contract  # noqa: E402

# -- profiles ---------------------------------------------------------------------------------

_COMMON: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "print_blob": True,
}
settings.register_profile("ci", max_examples=50, **_COMMON)
settings.register_profile("dev", max_examples=300, **_COMMON)
settings.register_profile("long", max_examples=200, **_COMMON)
PROFILE = os.environ.get("BOILERPLATE_FUZZ_PROFILE", "ci")
settings.load_profile(PROFILE)
#: Seconds for the whole module in the ``long`` profile (shared equally by the tests).
SECONDS = float(os.environ.get("BOILERPLATE_FUZZ_SECONDS", "300" if PROFILE == "long" else "0"))

#: Examples run per test (printed in the terminal summary by fuzz/conftest.py).
EXAMPLES: Counter[str] = Counter()
ROUNDS: Counter[str] = Counter()


def _load_grammar() -> Any:
    """tests/test_properties.py's grammar of well-formed pages (``pages``), by path."""
    path = HERE.parent / "tests" / "test_properties.py"
    spec = importlib.util.spec_from_file_location("_boilerplate_fuzz_properties", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


grammar_pages = _load_grammar().pages

# -- hostile HTML -----------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


KNOWN_TAGS = [
    *_words("html head body title meta link base script style noscript template iframe"),
    *_words("object embed applet param svg math canvas video audio source track map area"),
    *_words("button input textarea select option optgroup datalist dialog keygen output"),
    *_words("frameset frame noframes table thead tbody tfoot tr td th caption col colgroup"),
    *_words("p div span a b i u s em strong small big font center br hr wbr img image pre"),
    *_words("code blockquote q ul ol li dl dt dd menu dir h1 h2 h3 h4 h5 h6 form label"),
    *_words("fieldset legend section article nav aside header footer main figure"),
    *_words("figcaption plaintext xmp listing nobr ruby rt rp bdi bdo details summary"),
    *_words("marquee blink isindex foreignObject desc mi mo mn mrow mtext annotation-xml"),
    *_words("layer ilayer nolayer basefont bgsound sup sub abbr time mark address"),
]
UNKNOWN_TAGS = st.one_of(
    st.sampled_from(["o:p", "x-widget", "fb:like", "ns0:html", "HTML", "Body", "DIV", "a1"]),
    st.from_regex(r"[A-Za-z][A-Za-z0-9:_.\-]{0,10}", fullmatch=True),
    # libxml2 keeps control characters and odd punctuation in a name; lxml refuses some
    # of these names as tag filters (tests/test_fuzz_regressions.py)
    st.tuples(
        st.sampled_from(["m", "p", "div", "td", "a"]),
        st.sampled_from(["\x01", "\x08", "\x15", "\x1f", "\x7f", "'", '"', "{", "}", "\u00e9"]),
        st.sampled_from(["", "x", "1"]),
    ).map("".join),
)
tag_names = st.one_of(st.sampled_from(KNOWN_TAGS), st.sampled_from(KNOWN_TAGS), UNKNOWN_TAGS)

ATTR_NAMES = [
    *_words("class id style hidden type href src lang xml:lang dir charset http-equiv"),
    *_words("content name rel property xmlns xmlns:svg colspan rowspan alt title"),
    "onclick",
    "data-x",
    "aria-hidden",
    "srcdoc",
]
ATTR_VALUES = [
    "",
    "hidden",
    "display:none",
    "DISPLAY : NONE !important",
    "visibility: hidden",
    "S:0",
    "S:12",
    "javascript:alert(1)",
    "http://www.w3.org/1999/xhtml",
    "text/html; charset=utf-16",
    "content-language",
    "en-US",
    "zh_Hant",
    "ar",
    "og:locale",
    "rtl",
    '"quoted"',
    "it's",
    "&amp;&lt;&#0;",
    "x" * 300,
]
attr_values = st.one_of(st.sampled_from(ATTR_VALUES), st.text(max_size=20))


def _attr(args: tuple[str, str, int]) -> str:
    name, value, quoting = args
    value = value.replace("\x00", "")
    if quoting == 0:
        return f" {name}"
    if quoting == 1:
        return f' {name}="{value}"'
    if quoting == 2:
        return f" {name}='{value}'"
    return f" {name}={value.split()[0] if value.split() else 'x'}"


attrs = st.lists(
    st.tuples(
        st.one_of(
            st.sampled_from(ATTR_NAMES), st.from_regex(r"[a-zA-Z_:][\w:.\-]{0,8}", fullmatch=True)
        ),
        attr_values,
        st.integers(0, 3),
    ).map(_attr),
    max_size=4,
).map("".join)

open_tags = st.tuples(tag_names, attrs, st.sampled_from(["", "", "", "/", " /"])).map(
    lambda t: f"<{t[0]}{t[1]}{t[2]}>"
)
close_tags = tag_names.map(lambda t: f"</{t}>")

ENTITIES = [
    "&amp;",
    "&lt;",
    "&gt;",
    "&nbsp;",
    "&eacute;",
    "&#233;",
    "&#x41;",
    "&#0;",
    "&#x0;",
    "&#xD800;",
    "&#xDFFF;",
    "&#x110000;",
    "&#99999999999999999999;",
    "&#xFFFE;",
    "&#128;",
    "&#x9F;",
    "&bogus;",
    "&amp",
    "&#",
    "&#x;",
    "&;",
    "&notit;",
    "&NotNestedGreaterGreater;",
]
MARKUP_BITS = [
    "<!-- comment -->",
    "<!---->",
    "<!-->",
    "<!--->",
    "<!-- a -- b --!>",
    "<!-- unterminated",
    "<![CDATA[ <p>cdata</p> ]]>",
    "<![CDATA[ unterminated",
    "<?php echo '<p>'; ?>",
    "<?xml-stylesheet href='s.xsl'?>",
    "<?xml version='1.0'?>",
    "<!DOCTYPE html>",
    "<!ELEMENT x ANY>",
    "<!x>",
    "</>",
    "< p>",
    "<p <p>",
    "<a href='unterminated>",
    "<script>document.write('<p>')",
    "<style>/* unterminated",
    "<title>unterminated",
    "<textarea><p>in textarea</p>",
    "<plaintext><p>plain",
    "<xmp><b>xmp</b></xmp>",
    "<select><p>in select</p></select>",
    "<template><p>template</p></template>",
    "<noscript><p>noscript</p></noscript>",
    "<div hidden id='S:0'><p>streamed</p></div>",
    "<svg><foreignObject><p>foreign</p></foreignObject></svg>",
    "<svg><p>breaks out</p></svg>",
    "<math><mi>x</mi><annotation-xml encoding='text/html'><p>a</p></annotation-xml></math>",
    "<table><p>misplaced<td>cell</table>",
    "<tr><td>orphan row</td></tr>",
    "<td>orphan cell",
    "<table><table><tr><td><table>",
    "<caption>caption</caption>",
    "<frameset cols='50%,50%'><frame src='a'><frame src='b'></frameset>",
    "<noframes><p>no frames</p></noframes>",
    "<base href='javascript:x'>",
    "<base href='https://www:example.org/'>",
    "<base href='http://[::1'>",
    "<meta charset='utf-16'>",
    "<meta http-equiv='Content-Type' content='text/html; charset=shift_jis'>",
    "<meta http-equiv='content-language' content=',,'>",
    "<meta property='og:locale' content=' '>",
    "<br>" * 5,
    "<hr>",
    "<img alt='&#0;'>",
    "<input type=hidden value=x>",
    "<p style='display:none'>gone</p>",
    "<html lang=''>",
    "<html xml:lang='\u0645'>",
    "</body></html><p>after the end</p>",
    "<body><body><head><html>",
]
TEXTS = [
    "The harbour of the town was rebuilt in the spring and the lighthouse painted white. ",
    "مرحبا بالعالم، هذه جملة عربية طويلة بما يكفي لتكون فقرة حقيقية في الصفحة. ",
    "\u202eevil\u202c \u200f\u200e\u2066isolate\u2069 ",
    "שלום עולם זה משפט בעברית ",
    "東京の港は春に再建され、灯台は再び白く塗られました。",
    "北京欢迎你，这是一个很长的中文句子，用来测试分词。",
    "한국어 문장입니다. ",
    "😀👨\u200d👩\u200d👧\u200d👦🏳️\u200d🌈 ",
    "Z\u0351\u0352\u0353a\u0300\u0301l\u0302go ",
    "\ufeff",
    "\u00a0\u2003\u3000",
    "\u2028\u2029\x85",
    "\ufffd\ufffe\uffff",
    "x" * 2000,
    "word " * 400,
]
CONTROL = st.sampled_from(["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x80", "\x9f"])
SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
any_text = st.text(
    alphabet=st.characters(codec=None, exclude_categories=()), min_size=1, max_size=40
)
texts = st.one_of(st.sampled_from(TEXTS), any_text, st.text(min_size=1, max_size=40))

#: Text tokens without NUL: a NUL in the first 4 KiB makes the page "binary", which would
#: hide everything else; NUL and control characters still come from CONTROL, less often.
tokens = st.one_of(
    open_tags,
    open_tags,
    close_tags,
    texts,
    texts,
    st.sampled_from(ENTITIES),
    st.sampled_from(MARKUP_BITS),
    CONTROL,
    SURROGATES,
)
soup = st.lists(tokens, min_size=1, max_size=60).map("".join)

NEST_TAGS = [
    "div",
    "span",
    "b",
    "a",
    "td",
    "table",
    "ul",
    "li",
    "p",
    "font",
    "x",
    "svg",
    "blockquote",
]


@st.composite
def structures(draw: Any, inner: Any) -> str:
    """Deep nesting, long sibling runs and their combinations, around ``inner``."""
    kind = draw(st.sampled_from(["deep", "deep-unclosed", "siblings", "mixed-deep", "flat"]))
    middle = draw(inner)
    if kind == "flat":
        return middle
    if kind == "siblings":
        n = draw(st.integers(1, 5000))
        unit = draw(
            st.sampled_from(
                ["<p>x</p>", "<br>", "<li>item", "<td>c", "<a href=/>l</a> ", "<div></div>", "w "]
            )
        )
        return unit * n + middle + unit * draw(st.integers(0, 50))
    n = draw(st.integers(1, 3000))
    if kind == "mixed-deep":
        cycle = draw(st.lists(st.sampled_from(NEST_TAGS), min_size=2, max_size=5))
        tags = [cycle[i % len(cycle)] for i in range(n)]
    else:
        tags = [draw(st.sampled_from(NEST_TAGS))] * n
    opened = "".join(f"<{t}>" for t in tags)
    closed = "" if kind == "deep-unclosed" else "".join(f"</{t}>" for t in reversed(tags))
    return opened + middle + closed


XML_DECLS = [
    "",
    '<?xml version="1.0"?>',
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    "<?xml version='1.0' encoding='utf-16'?>",
    '<?xml version="1.0" encoding="ISO-8859-1" standalone="yes"?>',
    '<?xml version="1.0" encoding="bogus"?>',
    '<?xml version="1.0" encoding="a > b, ' + "kw, " * 40 + '"?>',
    "<?xml ?>",
    "<?xml",
]
DOCTYPES = [
    "",
    "<!DOCTYPE html>",
    "<!doctype HTML>",
    "<!DOCTYPE>",
    '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
    '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN">',
    "<!DOCTYPE rss>",
    '<!DOCTYPE html [<!ENTITY x "<p>entity</p>">]>',
]
CHARSETS = [
    "utf-8",
    "utf-16",
    "utf-16le",
    "utf-32",
    "iso-8859-1",
    "windows-1252",
    "shift_jis",
    "euc-jp",
    "gb2312",
    "big5",
    "koi8-r",
    "iso-2022-jp",
    "utf-7",
    "x-user-defined",
    "bogus",
    "",
]
HTML_OPEN = [
    "",
    "<html>",
    "<html lang='en'>",
    "<html dir='rtl' lang='ar'>",
    '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="ja">',
    "<HTML LANG=ZH-hant>",
]


@st.composite
def documents(draw: Any) -> str:
    """A page: optional prolog, doctype, head with a (maybe lying) charset, hostile body."""
    body = draw(
        st.one_of(
            soup,
            soup,
            grammar_pages,
            structures(soup),
            structures(grammar_pages),
            st.lists(st.one_of(soup, grammar_pages), min_size=2, max_size=4).map("".join),
        )
    )
    if draw(st.integers(0, 3)) == 0:
        return body  # a bare fragment
    charset = draw(st.sampled_from(CHARSETS))
    meta = draw(
        st.sampled_from(
            [
                "",
                f'<meta charset="{charset}">',
                f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">',
            ]
        )
    )
    head = f"<head>{meta}<title>{draw(st.sampled_from(TEXTS))}</title></head>"
    return "".join(
        [
            draw(st.sampled_from(["", "", "\ufeff", " \n"])),
            draw(st.sampled_from(XML_DECLS)),
            draw(st.sampled_from(DOCTYPES)),
            draw(st.sampled_from(HTML_OPEN)),
            draw(st.sampled_from(["", head])),
            draw(st.sampled_from(["", "<body>"])),
            body,
            draw(st.sampled_from(["", "</body></html>", "</html>"])),
        ]
    )


ENCODINGS = [
    "utf-8",
    "utf-8-sig",
    "utf-16",
    "utf-16-le",
    "utf-16-be",
    "utf-32",
    "cp1252",
    "latin-1",
    "shift_jis",
    "euc-jp",
    "gb18030",
    "big5",
    "koi8-r",
    "iso-2022-jp",
    "utf-7",
]
BOMS = [b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"]


@st.composite
def document_bytes(draw: Any) -> bytes:
    """A page encoded in some encoding (whatever it declares), maybe behind a lying BOM,
    with raw bytes spliced in or cut mid-character."""
    text = draw(documents())
    encoding = draw(st.sampled_from(ENCODINGS))
    if encoding == "utf-8" and draw(st.booleans()):
        data = text.encode("utf-8", "surrogatepass")  # CESU-like invalid UTF-8
    else:
        errors = draw(st.sampled_from(["replace", "xmlcharrefreplace", "ignore"]))
        clean = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        data = clean.encode(encoding, errors)
    if draw(st.integers(0, 4)) == 0:
        data = draw(st.sampled_from(BOMS)) + data
    if draw(st.integers(0, 3)) == 0 and data:
        cut = draw(st.integers(0, len(data)))
        data = data[:cut] + draw(st.binary(max_size=16)) + data[cut:]
    if draw(st.integers(0, 5)) == 0 and data:
        data = data[: draw(st.integers(0, len(data)))]
    return data


extractors = st.sampled_from(contract.EXTRACTORS)
queries = st.one_of(
    st.sampled_from(["names", "countries", "list of cities", "who won", "東京", "a"]),
    st.text(min_size=1, max_size=30).filter(str.strip),
)

# -- the properties ---------------------------------------------------------------------------


@given(html=documents(), method=extractors)
def _extract_str(html: str, method: tuple[str, dict[str, Any]]) -> None:
    EXAMPLES["extract_str"] += 1
    contract.check_extract(html, *method)


@given(data=document_bytes(), method=extractors)
def _extract_bytes(data: bytes, method: tuple[str, dict[str, Any]]) -> None:
    EXAMPLES["extract_bytes"] += 1
    contract.check_extract(data, *method)


@given(html=st.one_of(documents(), document_bytes()))
def _parse(html: str | bytes) -> None:
    EXAMPLES["parse"] += 1
    contract.check_parse(html)


@given(html=st.one_of(documents(), document_bytes()), query=queries, top_k=st.integers(1, 6))
def _entities(html: str | bytes, query: str, top_k: int) -> None:
    EXAMPLES["entities"] += 1
    contract.check_entities(html, query, top_k)


@given(
    body=document_bytes(),
    content_type=st.one_of(
        st.sampled_from(contract.CONTENT_TYPES),
        st.sampled_from(CHARSETS).map(lambda c: f"text/html; charset={c}".encode()),
        st.binary(max_size=40),
    ),
    method=extractors,
    html_response=st.booleans(),
    piece_size=st.integers(1, 64),
)
def _scrapy(
    body: bytes,
    content_type: bytes | None,
    method: tuple[str, dict[str, Any]],
    html_response: bool,
    piece_size: int,
) -> None:
    EXAMPLES["scrapy"] += 1
    contract.check_scrapy(
        body, content_type, *method, html_response=html_response, piece_size=piece_size
    )


PROPERTIES = {
    "extract_str": _extract_str,
    "extract_bytes": _extract_bytes,
    "parse": _parse,
    "entities": _entities,
    "scrapy": _scrapy,
}


def _run(name: str) -> None:
    """One round (ci, dev), or rounds until this test's share of SECONDS is spent (long)."""
    prop = PROPERTIES[name]
    end = time.monotonic() + SECONDS / len(PROPERTIES)
    while True:
        prop()
        ROUNDS[name] += 1
        if time.monotonic() >= end:
            break


def test_extract_str() -> None:
    _run("extract_str")


def test_extract_bytes() -> None:
    _run("extract_bytes")


def test_parse() -> None:
    _run("parse")


def test_entities() -> None:
    _run("entities")


def test_scrapy_glue() -> None:
    _run("scrapy")
