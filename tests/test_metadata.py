"""Page metadata (``extract(..., metadata=True)``): each field from its most trusted
source, the source recorded, hostile values refused with a note, the tree untouched."""

from __future__ import annotations

import json

import lxml.etree as etree
import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.core import metadata as md
from scrapy_boilerplate.core.document import parse

BODY = "<p>" + "The river rose through the night and the town woke to water in the streets. " * 6
BODY += "</p>"


def page(head: str = "", body: str = "", lang: str = "en") -> str:
    return f"<html lang='{lang}'><head>{head}</head><body>{body}{BODY}</body></html>"


def jsonld(data: object) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def meta_of(html: str, url: str | None = "https://news.example/2024/05/02/flood", **kw: object):
    result = extract(html, url=url, metadata=True, **kw)  # type: ignore[arg-type]
    assert result.metadata is not None
    return result.metadata


ARTICLE = {
    "@context": "https://schema.org",
    "@type": "NewsArticle",
    "headline": "Flood reaches the old town",
    "datePublished": "2024-05-02T07:30:00+02:00",
    "dateModified": "2024-05-03",
    "author": [{"@type": "Person", "name": "Ann Lee"}, {"@type": "Person", "name": "Bo Chen"}],
    "description": "The river rose overnight.",
    "image": {"@type": "ImageObject", "url": "/img/flood.jpg"},
    "publisher": {"@type": "Organization", "name": "Daily Example"},
}


def test_json_ld_article_gives_every_field_with_its_source() -> None:
    head = "<title>Flood reaches the old town | Daily Example</title>" + jsonld(ARTICLE)
    head += '<link rel="canonical" href="/2024/05/02/flood">'
    m = meta_of(page(head, "<h1>Flood reaches the old town</h1>", lang="en-GB"))
    assert m["title"] == "Flood reaches the old town"
    assert m["authors"] == ["Ann Lee", "Bo Chen"]
    assert m["date_published"] == "2024-05-02T07:30:00+02:00"
    assert m["date_modified"] == "2024-05-03"
    assert m["description"] == "The river rose overnight."
    assert m["main_image"] == "https://news.example/img/flood.jpg"
    assert m["canonical_url"] == "https://news.example/2024/05/02/flood"
    assert m["site_name"] == "Daily Example"
    assert m["declared_language"] == "en"
    assert m["sources"]["authors"] == "json-ld"
    assert m["sources"]["date_published"] == "json-ld"
    assert m["sources"]["canonical_url"] == "link"
    assert m["notes"] == []
    assert list(m)[: len(md.FIELDS)] == list(md.FIELDS)
    json.dumps(m)  # plain JSON


def test_graph_members_and_breadcrumb_list() -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "Example Docs"},
            {
                "@type": "BreadcrumbList",
                "itemListElement": [
                    {"@type": "ListItem", "position": 2, "name": "Guides", "item": "/guides"},
                    {"@type": "ListItem", "position": 1, "name": "Home", "item": "/"},
                ],
            },
            {"@type": "TechArticle", "headline": "Install", "datePublished": "2023-01-09"},
        ],
    }
    m = meta_of(page(jsonld(graph)), url="https://docs.example/guides/install")
    assert m["breadcrumbs"] == [
        {"name": "Home", "url": "https://docs.example/"},
        {"name": "Guides", "url": "https://docs.example/guides"},
    ]
    assert m["title"] == "Install"
    assert m["date_published"] == "2023-01-09"


def test_microdata_product() -> None:
    body = (
        '<div itemscope itemtype="https://schema.org/Product">'
        '<h1 itemprop="name">Blue Kettle</h1>'
        '<img itemprop="image" src="/k.png" alt="kettle">'
        '<p itemprop="description">A kettle that is blue.</p></div>'
    )
    m = meta_of(page("<title>Shop</title>", body), url="https://shop.example/p/1")
    assert m["title"] == "Blue Kettle"
    assert m["main_image"] == "https://shop.example/k.png"
    assert m["description"] == "A kettle that is blue."
    assert m["sources"]["description"] == "microdata"


def test_meta_tags_when_no_structured_data() -> None:
    head = (
        "<title>Why rivers flood - The Blog</title>"
        '<meta property="og:title" content="Why rivers flood">'
        '<meta property="og:site_name" content="The Blog">'
        '<meta name="author" content="Carla Diaz">'
        '<meta property="article:published_time" content="2021-03-04T10:00:00Z">'
        '<meta name="description" content="A short answer.">'
        '<meta property="og:image" content="https://cdn.example/r.jpg">'
    )
    m = meta_of(page(head, "<h1>Why rivers flood</h1>"))
    assert m["title"] == "Why rivers flood"
    assert m["authors"] == ["Carla Diaz"]
    assert m["sources"]["authors"] == "meta"
    assert m["date_published"] == "2021-03-04T10:00:00+00:00"
    assert m["site_name"] == "The Blog"
    assert m["description"] == "A short answer."
    assert m["main_image"] == "https://cdn.example/r.jpg"


def test_title_is_the_heading_that_the_title_tag_names() -> None:
    head = "<title>Green pea soup | Cook's Corner</title>"
    body = "<h1>Cook's Corner</h1><h1>Green pea soup</h1>"
    m = meta_of(page(head, body))
    assert m["title"] == "Green pea soup"
    assert m["sources"]["title"] == "page"


def test_byline_in_the_page_cut_at_its_date() -> None:
    body = '<div class="post-byline">By Dana Smith - June 12, 2025 · 4 min read</div>'
    m = meta_of(page("<title>t</title>", body))
    assert m["authors"] == ["Dana Smith"]
    assert m["sources"]["authors"] == "page"


def test_labels_are_not_names() -> None:
    body = '<div class="comment-author">Name *</div><span class="author">The Author</span>'
    assert meta_of(page("<title>t</title>", body))["authors"] == []


def test_date_from_the_url_when_the_page_says_none() -> None:
    m = meta_of(page("<title>t</title>"), url="https://news.example/2019/11/03/storm.html")
    assert m["date_published"] == "2019-11-03"
    assert m["sources"]["date_published"] == "url"


def test_empty_page_metadata_has_the_full_shape() -> None:
    result = extract(b"", metadata=True)
    assert result.reason == "empty"
    assert result.metadata is not None
    assert set(md.FIELDS) <= set(result.metadata)
    assert result.metadata["notes"] == ["page not read: empty"]


def test_metadata_is_off_by_default_and_absent_from_to_dict() -> None:
    result = extract(page("<title>t</title>"), "justext")
    assert result.metadata is None
    assert "metadata" not in result.to_dict()
    assert extract(page("<title>t</title>"), "justext", metadata=True).to_dict()["metadata"]


# -- hostile values -------------------------------------------------------------------------


def test_broken_json_ld_is_noted_and_the_rest_still_read() -> None:
    head = '<script type="application/ld+json">{"@type": "Article", "headline": </script>'
    head += jsonld({"@type": "Article", "headline": "Second block"})
    m = meta_of(page(head))
    assert m["title"] == "Second block"
    assert any("json-ld block 1" in n and "not JSON" in n for n in m["notes"])


def test_oversized_json_ld_is_not_parsed() -> None:
    big = {"@type": "Article", "headline": "Huge", "filler": "x" * (md.MAX_JSONLD_CHARS + 10)}
    m = meta_of(page(jsonld(big)))
    assert m["title"] != "Huge"
    assert any("not read" in n for n in m["notes"])


def test_deeply_nested_json_ld_does_not_crash() -> None:
    nested = '{"@type": "Article", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    head = f'<script type="application/ld+json">{nested}</script>'
    m = meta_of(page(head))
    assert m["title"] is None or isinstance(m["title"], str)


@pytest.mark.parametrize("value", ["99999-01-01", "1066-10-14", "0000-00-00", "2024-13-45"])
def test_dates_out_of_range_are_refused(value: str) -> None:
    data = {"@type": "Article", "headline": "h", "datePublished": value}
    m = meta_of(page(jsonld(data)), url="https://x.example/a")
    assert m["date_published"] != value
    assert m["date_published"] is None or m["date_published"][:4] not in ("9999", "1066")
    assert any("date_published" in n for n in m["notes"])


def test_megabyte_title_is_cut() -> None:
    m = meta_of(page("<title>" + "word " * 200_000 + "</title>"))
    assert m["title"] is not None
    assert len(m["title"]) <= md.MAX_TEXT_CHARS


@pytest.mark.parametrize(
    "src",
    ["javascript:alert(1)", "data:image/png;base64," + "A" * 10_000_000, "vbscript:x"],
)
def test_hostile_image_urls_are_refused(src: str) -> None:
    head = f'<meta property="og:image" content="{src}">'
    m = meta_of(page(head))
    assert m["main_image"] is None
    assert m["notes"]


def test_contradictory_sources_follow_the_order_of_trust() -> None:
    head = jsonld({"@type": "Article", "headline": "H", "author": {"name": "From JSON-LD"}})
    head += '<meta name="author" content="From Meta">'
    body = '<span class="byline">By From Page</span>'
    m = meta_of(page(head, body))
    assert m["authors"] == ["From JSON-LD"]
    assert m["sources"]["authors"] == "json-ld"


def test_the_tree_is_not_modified() -> None:
    html = page("<title>T</title>" + jsonld(ARTICLE), '<div itemscope><b itemprop="x">y</b></div>')
    doc = parse(html, url="https://x.example/")
    before = etree.tostring(doc.root)
    md.page_metadata(doc)
    assert etree.tostring(doc.root) == before


def test_page_metadata_reads_an_lxml_html_tree_too() -> None:
    from lxml import html as lxml_html

    root = lxml_html.fromstring(page("<title>T</title>", "<h1>T</h1>"))
    before = lxml_html.tostring(root)
    result = extract(root, metadata=True)
    assert result.metadata is not None and result.metadata["title"] == "T"
    assert lxml_html.tostring(root) == before


def test_visible_date_next_to_the_heading() -> None:
    body = "<h1>Kitchen sinks in the cloud</h1><div class='x'>October 3, 2024</div>"
    # justext tells no page type: every page may carry a publication date
    m = meta_of(
        page("<title>t</title>", body), url="https://blog.example/sinks", extractor="justext"
    )
    assert m["date_published"] == "2024-10-03"
    assert m["sources"]["date_published"] == "page"


def test_visible_date_in_a_date_element() -> None:
    body = "<span class='post-date'>Published 12 June 2025</span><h1>Title</h1>"
    m = meta_of(page("<title>t</title>", body), url="https://blog.example/p", extractor="justext")
    assert m["date_published"] == "2025-06-12"


def test_detected_language_beside_the_declared_one() -> None:
    text = "<p>" + "Der Fluss stieg in der Nacht und die Stadt erwachte im Wasser. " * 8 + "</p>"
    html = f"<html lang='en'><head><title>t</title></head><body>{text}</body></html>"
    m = meta_of(html)
    assert m["language"] == "de"
    assert m["declared_language"] == "en"
    assert m["sources"]["language"] == "main-text"


def test_byline_cut_at_a_day_and_month() -> None:
    body = '<p class="byline">By Martha Quill, 12 March</p>'
    m = meta_of(page("<title>t</title>", body), extractor="justext")
    assert m["authors"] == ["Martha Quill"]


#: URLs at the edges of what urljoin gives back unchanged (an empty query or fragment, a
#: parameter, a bracketed host, an upper-case scheme, white space, a host outside ASCII).
_URLS = (
    "http://a/b", "https://a.com/x/y.png?w=1&h=2", "http://a/b?", "http://a/b#",
    "http://a/b;p", "http://a", "https://a:80/x#frag?x", "http://a/b/../c", "http://[::1]/x",
    "http://[x/y", "http://a/b?x?y", "HTTP://a/b", "http://a/b c", "http://a/b\\c",
    "http://u@a/b", "https://a//b", "http://a/b?q#f#g", "http:///b", "http://a/b?;",
    "https://\u00e9.com/x", "https://\uff41.com/x", "//a/b", "/x/y.png", "x.png",
    "javascript:alert(1)", "ftp://a/b",
)  # fmt: skip


@pytest.mark.parametrize("base", [None, "http://base/x/", "https://base/", "ftp://b/"])
def test_safe_url_is_urljoin(base: str | None) -> None:
    """Every URL reads as ``urljoin`` against the page's base makes it (http and https
    only), the plain absolute URLs it gives back unchanged included."""
    from urllib.parse import urljoin, urlsplit

    reader = md._Reader(parse("<html><body><p>x</p></body></html>", url=base))
    for url in _URLS:
        try:
            joined: str | None = urljoin(base or "", url)
            if urlsplit(joined).scheme.lower() not in ("http", "https"):
                joined = None
        except ValueError:
            joined = None
        assert reader.safe_url(url, "images") == joined, url
