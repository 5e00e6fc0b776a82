"""Extraction.main_html: the content blocks as clean HTML, on every method.

The text of the HTML is the content blocks' texts, in order (whitespace aside: the HTML
keeps the page's spaces between inline elements, which some segmentations drop); links
and images survive with absolute URLs; nothing that runs code or styles the page does.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import lxml.etree as etree
import pytest

from scrapy_boilerplate import CONTENT, Block, Extraction, extract, parse
from scrapy_boilerplate.core import render
from scrapy_boilerplate.core.deadline import ExtractionTimeout, deadline

PAGES = Path(__file__).parent / "pages"
FIXTURES = sorted(PAGES.glob("*.html")) + sorted((PAGES / "vips").glob("*.html"))
METHODS = ("justext", "cnr", "web2text", "vips", "auto")
URL = "https://news.example.org/section/story.html"

ALLOWED = render.BLOCK_TAGS | render.INLINE_TAGS | {"img", "br"}
ALLOWED_ATTRIBUTES = {
    "a": {"href"},
    "img": {"src", "alt"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
}
_BREAKS = render.BLOCK_TAGS | {"br"}

LONG = (
    "The harbour council met on Tuesday evening and voted to restore the old lighthouse "
    "that has stood at the end of the north pier for almost two hundred years, after a "
    "debate that divided the town since the building closed to visitors last spring. "
)


def fragment(html: str) -> etree._Element:
    """The output parsed as XML inside one element: it must be well-formed."""
    return etree.fromstring(f"<div>{html}</div>")


def html_text(html: str) -> str:
    """The text a reader sees: a line break per block element and ``<br/>``."""
    parts: list[str] = []
    root = fragment(html)
    for event, el in etree.iterwalk(root, events=("start", "end")):
        if event == "start":
            if el.tag in _BREAKS:
                parts.append("\n")
            parts.append(el.text or "")
        else:
            if el.tag in _BREAKS:
                parts.append("\n")
            if el is not root:
                parts.append(el.tail or "")
    return "".join(parts)


def squeezed(text: str) -> str:
    return "".join(text.split())


def assert_clean(html: str) -> None:
    for el in fragment(html).iterdescendants():
        assert el.tag in ALLOWED, el.tag
        assert set(el.attrib) <= ALLOWED_ATTRIBUTES.get(el.tag, set()), (el.tag, el.attrib)
    lowered = html.lower()
    for bad in ("<script", "<style", "<iframe", "<form", "javascript:", "vbscript:", "data:"):
        assert bad not in lowered, bad


def assert_text_invariant(result: Extraction) -> None:
    html = result.main_html
    assert html is not None
    content = [b.text for b in result.content_blocks]
    text = html_text(html)
    assert squeezed(text) == squeezed("".join(content))
    # each content block's text, once and in order, whitespace aside
    rest = squeezed(text)
    for block_text in content:
        at = rest.find(squeezed(block_text))
        assert at == 0, block_text[:60]
        rest = rest[len(squeezed(block_text)) :]
    shown = squeezed("".join(content))
    for block in result.blocks:
        if block.label != CONTENT and squeezed(block.text) not in shown:
            assert squeezed(block.text) not in squeezed(text)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("page", FIXTURES, ids=lambda p: p.name)
def test_every_method_gives_the_content_blocks_as_clean_html(method: str, page: Path) -> None:
    data = page.read_bytes()
    result = extract(data, method, url=URL, main_html=True)
    assert_text_invariant(result)
    assert_clean(result.main_html or "")
    again = extract(data, method, url=URL, main_html=True)
    assert again.main_html == result.main_html  # deterministic
    if result.content_blocks:
        assert result.main_html


@pytest.mark.parametrize("method", METHODS)
def test_the_methods_other_outputs_do_not_change(method: str) -> None:
    data = (PAGES / "news_article.html").read_bytes()
    plain = extract(data, method, url=URL).to_dict()
    with_html = extract(data, method, url=URL, main_html=True).to_dict()
    assert "main_html" not in plain
    html = with_html.pop("main_html")
    assert isinstance(html, str) and html
    for out in (plain, with_html):
        out.pop("timings", None)  # (VIPS's own timings)
    assert with_html == plain


def test_structure_is_kept() -> None:
    page = f"""<html><body><div id="main" class="x">
    <h2 class="t">Restoring the light</h2>
    <p style="color:red">{LONG}<b>bold</b> and <em>stressed</em> H<sub>2</sub>O
    x<sup>2</sup> first line<br>second line</p>
    <ul><li>{LONG}one</li><li>{LONG}two</li></ul>
    <table><tr><th>Year</th><th>Cost</th></tr><tr><td colspan="2">{LONG}</td></tr></table>
    <pre><code>  keep   this
      indent</code></pre>
    <blockquote>{LONG}quoted</blockquote>
    </div></body></html>"""
    blocks = [Block(b.text, b.xpath, b.tag, CONTENT) for b in extract(page, "justext").blocks]
    result = Extraction.from_blocks(blocks, "test", {})
    html = render.main_html(parse(page, url=URL), result)
    assert_clean(html)
    for piece in (
        "<h2>Restoring the light</h2>",
        "<b>bold</b> and <em>stressed</em> H<sub>2</sub>O",
        "first line<br/>second line",
        "<ul><li>",
        "<th>Year</th>",
        '<td colspan="2">',
        "<pre><code>  keep   this\n      indent</code></pre>",
        "<blockquote>",
    ):
        assert piece in html, piece


def page_with_links(head: str = "") -> str:
    return f"""<html><head>{head}</head><body><article>
    <p>{LONG}See <a href="/archive/2024.html">the archive</a>,
    <a href="other.html?a=1&amp;b=2">the other story</a> and
    <a href="https://elsewhere.example.com/x">elsewhere</a>.
    <img src="img/light.jpg" alt="The  lighthouse"> {LONG}</p>
    </article></body></html>"""


def test_links_and_images_are_made_absolute() -> None:
    result = extract(page_with_links(), "justext", url=URL, main_html=True)
    html = result.main_html or ""
    assert '<a href="https://news.example.org/archive/2024.html">the archive</a>' in html
    assert '<a href="https://news.example.org/section/other.html?a=1&amp;b=2">' in html
    assert '<a href="https://elsewhere.example.com/x">' in html
    assert '<img src="https://news.example.org/section/img/light.jpg" alt="The lighthouse"/>' in (
        html
    )
    doc = parse(page_with_links(), url=URL)
    assert render.content_images(doc, extract(doc, "justext")) == [
        {"url": "https://news.example.org/section/img/light.jpg", "alt": "The lighthouse"}
    ]


def test_a_page_rendered_is_freed_without_the_garbage_collector() -> None:
    """The document keeps its render plan (main_html's walk, which the content images read
    again); the plan must not hold the document back, or the whole page (its lxml proxies
    and blocks) waits for Python's cyclic collector. Freed by reference counting alone."""
    import gc
    import weakref

    gc.collect()
    gc.disable()
    try:
        doc = parse(page_with_links(), url=URL)
        result = extract(doc, "justext", main_html=True)
        assert render.content_images(doc, result)  # the kept plan, read again
        page = weakref.ref(doc)
        del doc
        assert page() is None
        assert "light.jpg" in (result.main_html or "")
    finally:
        gc.enable()


def test_base_href_wins_over_the_page_url() -> None:
    page = page_with_links('<base href="https://cdn.example.net/root/">')
    html = extract(page, "justext", url=URL, main_html=True).main_html or ""
    assert '<a href="https://cdn.example.net/archive/2024.html">' in html
    assert '<a href="https://cdn.example.net/root/other.html?a=1&amp;b=2">' in html
    assert 'src="https://cdn.example.net/root/img/light.jpg"' in html
    # a relative <base href> is resolved against the page's URL
    page = page_with_links('<base href="/static/">')
    html = extract(page, "justext", url=URL, main_html=True).main_html or ""
    assert 'src="https://news.example.org/static/img/light.jpg"' in html


def test_relative_urls_without_a_page_url_are_dropped() -> None:
    html = extract(page_with_links(), "justext", main_html=True).main_html or ""
    assert "<img" not in html and "archive" not in html.split("the archive")[0][-40:]
    assert '<a href="https://elsewhere.example.com/x">elsewhere</a>' in html
    assert "the archive" in html  # the link's text stays
    assert_clean(html)


HOSTILE = f"""<html><body onload="alert(1)"><div class="story" id="s">
<p onclick="alert(1)" style="position:fixed" class="lead">{LONG}
<a href="javascript:alert(1)">one</a> <a href=" JaVaScRiPt:alert(2)">two</a>
<a href="java&#9;script:alert(3)">three</a> <a href="vbscript:msgbox(4)">four</a>
<a href="data:text/html,&lt;script&gt;alert(5)&lt;/script&gt;">five</a>
<a onmouseover="alert(6)">six</a> <a>seven</a>
<img src="x.png" onerror="alert(7)" alt="seven">
<script>document.write("injected script text")</script>
<style>p {{ display: none }}</style>
<iframe src="https://evil.example.com/">framed text</iframe>
<form action="/post"><input name="q" value="typed"><button>Send</button></form>
<svg onload="alert(8)"><text>svg text</text></svg>
{LONG}</p></div></body></html>"""


def test_hostile_markup_is_dropped() -> None:
    result = extract(HOSTILE, "justext", url=URL, main_html=True)
    html = result.main_html or ""
    assert_clean(html)
    assert_text_invariant(result)
    for word in ("one", "two", "three", "four", "five", "six", "seven"):
        assert f">{word}<" not in html and f" {word} " in f" {html_text(html)} "
    assert "<a" not in html  # no link had a safe href
    for absent in ("onclick", "onerror", "onload", "alert", "style=", "class=", "id="):
        assert absent not in html, absent
    for absent in ("injected script text", "framed text", "svg text", "typed", "Send"):
        assert absent not in html, absent
    assert '<img src="https://news.example.org/section/x.png" alt="seven"/>' in html


def test_a_huge_data_image_is_dropped() -> None:
    payload = "A" * (10 * 1024 * 1024)
    page = (
        f"<html><body><article><p>{LONG}</p><img src='data:image/png;base64,{payload}' "
        f"alt='inline'><img src='data:image/gif;base64,R0lGODlhAQABAAAAACw=' "
        f"data-src='/real.jpg' alt='lazy'><p>{LONG}</p></article></body></html>"
    )
    doc = parse(page, url=URL)
    result = extract(doc, "justext")
    html = render.main_html(doc, result)
    assert len(html) < 2 * len(result.main_text)
    assert "data:" not in html and "base64" not in html
    assert render.content_images(doc, result) == [
        {"url": "https://news.example.org/real.jpg", "alt": "lazy"}
    ]


def test_content_images_are_deduplicated_in_order_and_bounded() -> None:
    images = "".join(f'<img src="/i/{i % 150}.jpg" alt="n{i}">' for i in range(300))
    page = f"<html><body><article><p>{LONG}{images}{LONG}</p></article></body></html>"
    doc = parse(page, url=URL)
    found = render.content_images(doc, extract(doc, "justext"))
    assert len(found) == render.MAX_IMAGES
    assert [f["url"] for f in found[:3]] == [
        f"https://news.example.org/i/{i}.jpg" for i in range(3)
    ]
    assert found[0]["alt"] == "n0"


def test_boilerplate_images_and_text_are_left_out() -> None:
    page = f"""<html><body><nav><a href="/">Home</a> <img src="/logo.png" alt="logo">
    <a href="/news">News</a></nav><article><p>{LONG}</p><p>{LONG}</p></article>
    <footer>Copyright 2024 <img src="/badge.png" alt="badge"> All rights reserved</footer>
    </body></html>"""
    doc = parse(page, url=URL)
    result = extract(doc, "auto")
    html = render.main_html(doc, result)
    assert "Home" not in html and "Copyright" not in html
    assert render.content_images(doc, result) == []


def test_a_page_without_content_gives_an_empty_string() -> None:
    menu = (
        '<html><body><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul></body></html>'
    )
    no_text = "<html><body><script>var text = 1;</script><img src='/a.png'></body></html>"
    for method, page in [(m, menu) for m in ("justext", "cnr", "web2text")] + [("auto", no_text)]:
        plain = extract(page, method, url=URL)
        result = extract(page, method, url=URL, main_html=True)
        assert result.main_html == "" and result.reason == plain.reason
        assert result.reason in ("no-content", "no-text")
    for bad in (b"", b"\x89PNG\r\n\x1a\n" + bytes(100)):
        result = extract(bad, "justext", main_html=True)
        assert result.main_html == "" and result.reason is not None


def deep_tree(depth: int) -> etree._Element:
    root = etree.Element("html")
    node = etree.SubElement(root, "body")
    for _ in range(depth):
        node = etree.SubElement(node, "div")
    for _ in range(3):
        p = etree.SubElement(node, "p")
        p.text = LONG
        a = etree.SubElement(p, "a", href="/deep")
        a.text = "deep link"
        a.tail = " and more text after it."
    return root


@pytest.mark.parametrize("method", ["justext", "web2text", "auto"])
def test_a_10000_deep_page_does_not_recurse(method: str) -> None:
    result = extract(deep_tree(10_000), method, url=URL, main_html=True)
    assert result.reason is None, result.reason
    assert_text_invariant(result)
    assert result.main_html and '<a href="https://news.example.org/deep">' in result.main_html


def test_rendering_stops_at_the_page_deadline() -> None:
    doc = parse(HOSTILE, url=URL)
    result = extract(doc, "justext")
    with deadline(0.0), pytest.raises(ExtractionTimeout):
        render.main_html(doc, result)


def test_a_block_not_found_in_the_tree_is_written_as_escaped_text() -> None:
    doc = parse(f"<html><body><p>{LONG}</p></body></html>", url=URL)
    blocks = [
        Block("Intro <script>alert(1)</script> & more", "/html[1]/body[1]/h1[1]", "h1", CONTENT),
        Block(LONG.strip(), "/html[1]/body[1]/p[1]", "p", CONTENT, index=1),
        Block("Trailing <b>words</b>", "/nowhere", "li", CONTENT, index=2),
    ]
    result = Extraction.from_blocks(blocks, "test", {})
    html = render.main_html(doc, result)
    assert html.startswith("<h1>Intro &lt;script&gt;alert(1)&lt;/script&gt; &amp; more</h1>")
    assert html.endswith("<p>Trailing &lt;b&gt;words&lt;/b&gt;</p>")
    result.main_html = html
    assert_text_invariant(result)


def test_the_scrapy_response_tree_is_not_changed() -> None:
    http = pytest.importorskip("scrapy.http")
    response = http.HtmlResponse(URL, body=HOSTILE.encode(), encoding="utf-8")
    before = etree.tostring(response.selector.root, method="html")
    for method in METHODS:
        result = extract(response.selector, method, url=URL, main_html=True)
        assert result.main_html
    assert etree.tostring(response.selector.root, method="html") == before
    assert response.css("script::text").get() == 'document.write("injected script text")'


def test_main_html_travels_with_the_result() -> None:
    result = extract(page_with_links(), "justext", url=URL, main_html=True)
    copy = pickle.loads(pickle.dumps(result))
    assert copy.main_html == result.main_html and copy.main_html
    assert copy.to_dict() == result.to_dict()
    assert pickle.loads(pickle.dumps(extract(page_with_links(), "justext"))).main_html is None


def test_line_breaks_next_to_boilerplate_are_left_out() -> None:
    page = f"""<html><body><div>Share this<br><br>{LONG}<br>{LONG}<br><br>Print</div>
    <ul><li><div>{LONG}</div><div>Martha Quill</div></li></ul></body></html>"""
    doc = parse(page, url=URL)
    blocks = extract(doc, "justext").blocks
    for block in blocks:
        block.label = CONTENT if block.text.startswith(("The harbour", "Martha")) else "x"
    result = Extraction.from_blocks(blocks, "test", {})
    html = render.main_html(doc, result)
    assert html.startswith("<p>The harbour") and html.count("<br/>") == 1
    assert "Share" not in html and "Print" not in html
    # two divs in one list item stay two paragraphs
    assert "</p>\n<p>Martha Quill</p>\n</li>" in html


def test_loose_text_and_orphan_items_get_the_parents_html_needs() -> None:
    page = (
        "<html><body><table>Loose in table<tr>Loose in row<td>Cell</td></tr></table>"
        "<ul>Loose in list<li>Item</li></ul><li>Orphan item</li><td>Orphan cell</td>"
        "</body></html>"
    )
    doc = parse(page, url=URL)
    blocks = extract(doc, "justext").blocks
    for block in blocks:
        block.label = CONTENT
    html = render.main_html(doc, Extraction.from_blocks(blocks, "test", {}))
    assert html.replace("\n", "") == (
        "<table><tr><td>Loose in table</td></tr><tr><td>Loose in row</td><td>Cell</td></tr>"
        "</table><ul><li>Loose in list</li><li>Item</li></ul><ul><li>Orphan item</li></ul>"
        "<table><tr><td>Orphan cell</td></tr></table>"
    )


@pytest.mark.parametrize(
    ("method", "params"),
    [("justext", {}), ("justext", {"reference_compat": True}), ("web2text", {}), ("cnr", {})],
)
def test_text_some_methods_skip_does_not_lose_the_blocks_after_it(method, params) -> None:
    """A drop-down list (Web2Text leaves it out, jusText reads it) and a hidden element
    (jusText's reference cleaning reads it) lie between the text nodes of the blocks."""
    options = "".join(f"<option>{i}</option>" for i in range(150))
    page = f"""<html><body><p>{LONG}</p><form><select>{options}</select></form>
    <p>{LONG}<span style="display:none">hidden words</span> read
    <a href="/more">the full story</a> here.</p></body></html>"""
    doc = parse(page, url=URL)
    blocks = extract(doc, method, **params).blocks
    for block in blocks:
        block.label = CONTENT
    result = Extraction.from_blocks(blocks, "test", {})
    result.main_html = render.main_html(doc, result)
    assert_text_invariant(result)
    assert '<a href="https://news.example.org/more">the full story</a>' in result.main_html


@pytest.mark.parametrize(
    "href",
    [
        "other.html",
        "sub/dir/page.html?q=1#top",
        "/root.html",
        "//cdn.example.com/lib.js",
        "../up.html",
        "./here.html",
        "?page=2",
        "#section",
        "a/./b/../c.html",
        "HTTPS://Elsewhere.example.com/Path",
        "mailto:editor@example.org",
        "  \n/spaced.html\t ",
    ],
)
def test_urls_are_joined_as_urljoin_does(href: str) -> None:
    from urllib.parse import urljoin

    base = "https://news.example.org/section/story.html?id=7"
    page = f'<html><body><p>{LONG}<a href="{href}">link</a></p></body></html>'
    html = extract(page, "justext", url=base, main_html=True).main_html or ""
    expected = urljoin(base, href.strip())
    assert f'<a href="{expected}">link</a>' in html


@pytest.mark.parametrize(
    "href", ["http:no-host", "https://", "http:///path", "file:///etc/passwd", "ftp:x"]
)
def test_urls_without_a_host_or_with_other_schemes_are_dropped(href: str) -> None:
    page = f'<html><body><p>{LONG}<a href="{href}">link</a></p></body></html>'
    html = extract(page, "justext", url=URL, main_html=True).main_html or ""
    assert "<a" not in html and "link" in html
