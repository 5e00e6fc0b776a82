"""Hostile pages, generated (never stored): what tests/test_adversarial.py and
benchmarks/adversarial.py feed to every extractor, in-process and through crawls.

Each page is a function returning the bytes (or, for inputs that only exist as Python
text, a ``str``) of one kind of hostile input, and :data:`PAGES` lists them with the
outcomes a correct extraction may have: ``None`` (extracted) or a reason. Sizes are the
issue's: 100 000-deep nesting, a million siblings, 50 MB.

    python tests/adversarial.py DIR     # write every page to DIR (for a server or a browser)
"""

from __future__ import annotations

import gzip
import io
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SENTENCE = (
    "The town council voted on Tuesday evening to restore the lighthouse that has stood at "
    "the end of the north pier for almost two hundred years, ending a long debate. "
)
#: A paragraph every method keeps as main text.
ARTICLE = "".join(f"<p>{SENTENCE * 3}</p>\n" for _ in range(4))


def _page(body: str, head: str = "<title>t</title>") -> str:
    return f"<!DOCTYPE html>\n<html><head>{head}</head><body>{body}</body></html>"


def deep_nesting(depth: int = 100_000) -> bytes:
    """Real text, then ``depth`` nested ``<div>`` (libxml2 and parsel stop at 256 / 2048)."""
    return _page(ARTICLE + "<div>" * depth + "deep text" + "</div>" * depth).encode()


def deep_inline_nesting(depth: int = 100_000) -> bytes:
    """``depth`` unclosed ``<span>`` with text in each: one giant inline run."""
    return _page(ARTICLE + "<span>word " * depth).encode()


def million_siblings(count: int = 1_000_000) -> bytes:
    """A million ``<p>x</p>`` siblings (9 MB): over the element cap."""
    return _page("<p>x</p>" * count).encode()


def many_siblings_under_cap(count: int = 240_000) -> bytes:
    """Just under ``max_nodes`` (250 000 elements): every method must get through it."""
    return _page(ARTICLE + "<p>x</p>" * count).encode()


def fifty_megabytes(size: int = 50 * 1024 * 1024) -> bytes:
    """50 MB of ordinary article markup (over BOILERPLATE_MAX_BODY_SIZE, under max_size)."""
    unit = f"<div class='post'><h2>Heading</h2>{ARTICLE}<a href='/x'>a link</a></div>\n"
    return _page(unit * (size // len(unit))).encode()


def one_huge_text_node(size: int = 10 * 1024 * 1024) -> bytes:
    """10 MB of text in one ``<p>``, with no markup at all inside."""
    return _page("<p>" + (SENTENCE * (size // len(SENTENCE))) + "</p>").encode()


def gzip_bomb(size: int = 200 * 1024 * 1024) -> bytes:
    """A gzip body of ``size`` bytes of HTML whitespace once inflated (about 200 KB sent)."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as out:
        out.write(b"<html><body><p>")
        chunk = b" " * (1024 * 1024)
        for _ in range(size // len(chunk)):
            out.write(chunk)
    return buf.getvalue()


def nul_bytes() -> bytes:
    """An article with NUL bytes inside words and between tags."""
    return _page(ARTICLE.replace("lighthouse", "light\x00house") + "\x00<p>\x00</p>").encode()


def lone_surrogates_text() -> str:
    """Python text with lone surrogates (what a bad decoder upstream hands over)."""
    return _page(ARTICLE.replace("pier", "pier\ud800") + "<p>\udfff alone</p>")


def surrogate_bytes() -> bytes:
    """UTF-8-encoded surrogates (CESU-8 / WTF-8 bytes: invalid UTF-8)."""
    return _page(ARTICLE).encode().replace(b"pier", b"pier\xed\xa0\x80")


def mixed_encodings() -> bytes:
    """UTF-8 and Windows-1252 in one page, declared UTF-8."""
    head = '<meta charset="utf-8"><title>t</title>'
    body = ARTICLE.replace("council", "conseil élu").encode()
    latin = "<p>Café crème, déjà vu, naïve façade, señor.</p>".encode("cp1252")
    return _page("", head).encode().replace(b"</body>", body + latin + b"</body>")


def wrongly_declared_encoding() -> bytes:
    """Declared Shift_JIS, UTF-8 bytes."""
    head = '<meta charset="shift_jis"><title>t</title>'
    return _page(ARTICLE.replace("council", "conseil élu → 議会"), head).encode()


def utf16_undeclared() -> bytes:
    """UTF-16 without a BOM or a declaration (looks binary: NUL every other byte)."""
    return _page(ARTICLE).encode("utf-16-le")


def broken_tables() -> bytes:
    """Cells outside tables, unclosed rows, tables in cells in rows, absurd spans."""
    cells = "".join(f"<td colspan=100000000 rowspan=-5>{SENTENCE}" for _ in range(20))
    nested = "<table><tr><td>" * 300 + "inner" + "</td></tr></table>" * 150
    return _page(
        ARTICLE + "<td>stray cell</td><tr><th>stray row" + f"<table><tr>{cells}" + nested
    ).encode()


def frameset() -> bytes:
    return (
        b"<!DOCTYPE html><html><head><title>f</title></head><frameset cols='50%,50%'>"
        b"<frame src='a.html'><frame src='b.html'><noframes><p>No frames.</p></noframes>"
        b"</frameset></html>"
    )


def rss_feed() -> bytes:
    return (
        b'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>T'
        b"</title><item><title>An item</title><description>" + SENTENCE.encode() + b"</description>"
        b"</item></channel></rss>"
    )


def xhtml() -> bytes:
    return (
        b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 '
        b'Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
        b'<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body>'
        + ARTICLE.encode()
        + b"</body></html>"
    )


def svg_only() -> bytes:
    return (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><text x="0" y="20">'
        + SENTENCE.encode()
        + b"</text></svg>"
    )


def right_to_left() -> bytes:
    ar = "هذه فقرة طويلة باللغة العربية عن المدينة والمجلس الذي صوت على ترميم المنارة القديمة. "
    he = "זוהי פסקה ארוכה בעברית על העיר ועל המועצה שהצביעה על שיקום המגדלור הישן. "
    body = f"<p dir='rtl'>{ar * 6}</p><p dir='rtl'>{he * 6}</p><p>\u202eevil override\u202c</p>"
    return _page(body, '<meta charset="utf-8"><title>rtl</title>').encode()


def cjk() -> bytes:
    zh = "市议会周二晚间投票决定修复北码头尽头那座矗立了近两百年的灯塔，结束了长期争论。"
    ja = "町議会は火曜日の夜、北の桟橋の端に二百年近く立っている灯台を修復することを決めた。"
    ko = "시의회는 화요일 저녁 북쪽 부두 끝에 있는 등대를 복원하기로 결정했다. "
    body = f"<p>{zh * 5}</p><p>{ja * 5}</p><p>{ko * 5}</p>"
    return _page(body, '<meta charset="utf-8"><title>cjk</title>').encode()


def control_characters() -> bytes:
    """Every C0 control but NUL, DEL and C1 controls, form feeds and vertical tabs in text."""
    junk = "".join(chr(c) for c in range(1, 32)) + "\x7f" + "".join(chr(c) for c in range(128, 160))
    return _page(ARTICLE + f"<p>{junk}</p>" + ARTICLE.replace(" ", "\x0b\x0c ")).encode()


def attribute_flood() -> bytes:
    """One element with 100 000 attributes and one attribute value of 5 MB."""
    attrs = " ".join(f"a{i}='{i}'" for i in range(100_000))
    return _page(f"<div {attrs} title='{'x' * 5_000_000}'>{ARTICLE}</div>").encode()


def many_br() -> bytes:
    """200 000 ``<br>`` (jusText splits blocks at two of them)."""
    return _page(ARTICLE + "<br>" * 200_000 + ARTICLE).encode()


# Bounds: a page whose work grew with its size squared --------------------------------------


def table_without_header(rows: int = 10_000) -> bytes:
    """A ``rows``-row table without a ``<th>``: the entity features once looked for its
    header row among all its rows for each of its candidates (one a row)."""
    cells = "".join(
        f"<tr><td>Name {i}</td><td>{i}</td><td><a href='/{i}'>link {i}</a></td></tr>"
        for i in range(rows)
    )
    return _page(ARTICLE + f"<table>{cells}</table>").encode()


# Metadata: structured data and meta tags that lie, break or overflow ------------------------


def _jsonld(text: str) -> str:
    return f'<script type="application/ld+json">{text}</script>'


def jsonld_broken() -> bytes:
    """JSON-LD blocks cut short, with comments, with a trailing comma, and one good block."""
    head = "<title>t</title>" + _jsonld('{"@type": "Article", "headline": ')
    head += _jsonld('// a comment\n{"@type": "Article",}') + _jsonld("[[[[")
    head += _jsonld('{"@type": "Article", "headline": "Lighthouse keepers"}')
    return _page(ARTICLE, head).encode()


def jsonld_50mb(size: int = 50 * 1024 * 1024) -> bytes:
    """One JSON-LD block of 50 MB (a valid one: parsing it would hold the page's memory)."""
    filler = '"' + "x" * size + '"'
    head = "<title>t</title>" + _jsonld(
        '{"@type": "Article", "headline": "H", "x": ' + filler + "}"
    )
    return _page(ARTICLE, head).encode()


def dates_out_of_range() -> bytes:
    """Dates in the year 99999, 0 and 10 000, in JSON-LD, meta tags and ``<time>``."""
    head = "<title>t</title>" + _jsonld(
        '{"@type": "NewsArticle", "headline": "H", "datePublished": "99999-01-01T00:00:00Z",'
        ' "dateModified": "0000-00-00"}'
    )
    head += '<meta property="article:published_time" content="10000-12-31">'
    body = '<time datetime="+099999-01-01">then</time>' + ARTICLE
    return _page(body, head).encode()


def megabyte_title(size: int = 1024 * 1024) -> bytes:
    """A ``<title>``, an ``og:title`` and a ``<h1>`` of a megabyte each."""
    words = "lighthouse " * (size // 11)
    head = f'<title>{words}</title><meta property="og:title" content="{words}">'
    return _page(f"<h1>{words}</h1>" + ARTICLE, head).encode()


def hostile_image_urls() -> bytes:
    """``javascript:``, ``vbscript:`` and a 10 MB ``data:`` image as the page's images."""
    data = "data:image/png;base64," + "A" * (10 * 1024 * 1024)
    head = '<title>t</title><meta property="og:image" content="javascript:alert(1)">'
    head += _jsonld('{"@type": "Article", "headline": "H", "image": "vbscript:msgbox(1)"}')
    body = f'<img src="{data}"><img src="javascript:alert(2)">' + ARTICLE
    return _page(body, head).encode()


def contradictory_metadata() -> bytes:
    """Every source names another title, author and date."""
    head = "<title>Title tag | Site</title>" + _jsonld(
        '{"@type": "Article", "headline": "From JSON-LD", "author": "JSON-LD Author",'
        ' "datePublished": "2020-01-01"}'
    )
    head += '<meta property="og:title" content="From OpenGraph">'
    head += '<meta name="author" content="Meta Author">'
    head += '<meta property="article:published_time" content="2021-02-02">'
    body = "<h1>From the heading</h1><span class=byline>By Page Author, 3 March 2022</span>"
    return _page(body + ARTICLE, head).encode()


def named_bodies(depth: int = 2_000, teasers: int = 20_000) -> bytes:
    """The article inside ``depth`` nested ``<div class="post-content">``, then ``teasers``
    sibling ``<article class="entry">``: post boxes named as `auto`'s named-body rule
    reads them, nested and repeated."""
    nest = "<div class='post-content'>" * depth + ARTICLE + "</div>" * depth
    card = "<article class='entry'><p>A teaser of another story about the pier.</p></article>"
    return _page(nest + card * teasers).encode()


def dates_everywhere(items: int = 5_000, lines: int = 1_000) -> bytes:
    """``items`` list items of two dates each, a ``<br>`` list of ``lines`` dates and a
    table of a date a cell: lists that the entity extractor's ``dates`` reading reads
    (each element's dates, and a list's one date an item), at every size it bounds."""
    item = "<li>Round {0}: due June 14, 2019, or else 10/29/2019 (late)</li>"
    listing = "<ul>" + "".join(item.format(i) for i in range(items)) + "</ul>"
    breaks = "<p>" + "<br>".join(f"{i % 28 + 1} May 2020" for i in range(lines)) + "</p>"
    table = "<table>" + "<tr><td>Oct 22</td><td>12/10</td></tr>" * items + "</table>"
    return _page(ARTICLE + listing + breaks + table).encode()


@dataclass
class Adversarial:
    """One hostile input and the outcomes a correct extraction may have."""

    make: Callable[[], bytes | str]
    #: Reasons an extraction may give (None: extracted normally).
    outcomes: tuple[str | None, ...]
    #: What the main text must contain when extracted (checked for text-keeping outcomes).
    keeps: str | None = None
    #: Over the default BOILERPLATE_MAX_BODY_SIZE (32 MiB): not extracted in a crawl.
    crawl_too_large: bool = False
    #: Seconds of work for some methods: tests give it a short limit (outcome ``timeout``).
    slow: bool = False
    #: Content-Type the crawl server sends.
    content_type: str = "text/html; charset=utf-8"
    extra_headers: dict[str, str] = field(default_factory=dict)


#: Every page; the name is its file name without ``.html``.
PAGES: dict[str, Adversarial] = {
    "deep-100k": Adversarial(deep_nesting, (None,), keeps="lighthouse"),
    "deep-inline-100k": Adversarial(deep_inline_nesting, (None,), keeps="lighthouse"),
    "siblings-1m": Adversarial(million_siblings, ("too-many-nodes",)),
    "siblings-240k": Adversarial(
        many_siblings_under_cap, (None, "timeout"), keeps="lighthouse", slow=True
    ),
    "size-50mb": Adversarial(fifty_megabytes, (None, "timeout"), crawl_too_large=True, slow=True),
    "text-node-10mb": Adversarial(
        one_huge_text_node, (None, "timeout"), keeps="lighthouse", slow=True
    ),
    "nul-bytes": Adversarial(nul_bytes, (None,), keeps="council"),
    "lone-surrogates": Adversarial(lone_surrogates_text, (None,), keeps="alone"),  # last text
    "surrogate-bytes": Adversarial(surrogate_bytes, (None,), keeps="lighthouse"),
    "mixed-encodings": Adversarial(mixed_encodings, (None,), keeps="lighthouse"),
    "wrong-declared-encoding": Adversarial(
        wrongly_declared_encoding, (None,), keeps="lighthouse", content_type="text/html"
    ),
    "utf16-undeclared": Adversarial(utf16_undeclared, ("binary",), content_type="text/html"),
    "broken-tables": Adversarial(broken_tables, (None,), keeps="lighthouse"),
    "named-bodies": Adversarial(named_bodies, (None,), keeps="lighthouse"),
    "dates-everywhere": Adversarial(dates_everywhere, (None,), keeps="lighthouse"),
    "frameset": Adversarial(frameset, ("frameset", None)),  # <noframes> text may be read
    "rss": Adversarial(rss_feed, ("not-html",), content_type="application/rss+xml"),
    "xhtml": Adversarial(xhtml, (None,), keeps="lighthouse", content_type="application/xhtml+xml"),
    "svg-only": Adversarial(svg_only, ("not-html",), content_type="image/svg+xml"),
    "right-to-left": Adversarial(right_to_left, (None,), keeps="המגדלור"),
    "cjk": Adversarial(cjk, (None,), keeps="灯塔"),
    "control-characters": Adversarial(control_characters, (None,), keeps="lighthouse"),
    "attribute-flood": Adversarial(attribute_flood, ("too-many-attributes",)),
    "many-br": Adversarial(many_br, (None,), keeps="lighthouse"),
    # Bounds: work linear in the page
    "table-10k-rows": Adversarial(table_without_header, (None, "timeout"), slow=True),
    # Metadata (the tests also read it with ``metadata=True``)
    "jsonld-broken": Adversarial(jsonld_broken, (None,), keeps="lighthouse"),
    "jsonld-50mb": Adversarial(jsonld_50mb, (None, "timeout"), crawl_too_large=True, slow=True),
    "dates-out-of-range": Adversarial(dates_out_of_range, (None,), keeps="lighthouse"),
    "title-1mb": Adversarial(megabyte_title, (None, "timeout"), keeps="lighthouse", slow=True),
    "hostile-image-urls": Adversarial(hostile_image_urls, (None,), keeps="lighthouse"),
    "contradictory-metadata": Adversarial(contradictory_metadata, (None,), keeps="lighthouse"),
}


def write_all(directory: Path) -> list[Path]:
    """Write every page (``str`` ones as UTF-8 with surrogates escaped) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, page in PAGES.items():
        data = page.make()
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        path = directory / f"{name}.html"
        path.write_bytes(data)
        paths.append(path)
    bomb = directory / "gzip-bomb.html.gz"
    bomb.write_bytes(gzip_bomb())
    paths.append(bomb)
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for path in write_all(Path(sys.argv[1])):
        print(f"{path.stat().st_size:>12,}  {path}")
