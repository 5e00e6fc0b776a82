"""The HTML view of ``extract --format html`` is inert: a person opens it in a browser, so
it must run none of the page's code and (unless asked) load nothing from the network.

Each hostile page is rendered and the output parsed with lxml, then checked structurally:
the CSP ``<meta>`` is the first child of a ``<head>`` that is the first child of
``<html>``; no script, frame, plugin, ``<base>`` or ``<meta http-equiv=refresh>``; no
``on*`` attribute; every URL attribute's scheme allowed; no CSS that fetches or runs
code. tests/test_htmlview_browser.py opens such views in Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.cli import EXIT_NO_TEXT, EXIT_OK, main
from scrapy_boilerplate.cli.htmlview import CSP, CSP_REMOTE, render_view
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Block, Extraction

TEXT = (
    "The river runs through the old town, past the market square and the bridge that "
    "the merchants built in the fourteenth century to carry their goods to the fair."
)
EVIL = "http://evil.example"

#: name -> a hostile page. Each holds the article paragraph, so the view has blocks.
HOSTILE = {
    "body-head-trick": (
        f"<html><body><p>{TEXT}</p></body><head><script>alert(1)</script>"
        f'<meta http-equiv="refresh" content="0;url={EVIL}/r"></head><p>after</p></html>'
    ),
    "data-iframe": (
        f"<p>{TEXT}</p><iframe src=\"data:text/html,<script>top.name='ran'</script>\"></iframe>"
        '<IFRAME SRC="DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="></IFRAME>'
    ),
    "srcdoc-iframe": f'<p>{TEXT}</p><iframe srcdoc="<script>alert(1)</script>"></iframe>',
    "frames": (
        f'<html><frameset><frame src="javascript:alert(1)"><frame src="{EVIL}/f">'
        f"</frameset><body><p>{TEXT}</p></body></html>"
    ),
    "object-embed": (
        f'<p>{TEXT}</p><object data="data:text/html,<script>alert(1)</script>"></object>'
        f'<object data="{EVIL}/x.swf"><param name="movie" value="x.swf"></object>'
        f'<embed src="data:image/svg+xml,<svg onload=alert(1)>"><embed src="{EVIL}/e.swf">'
        f'<applet code="X" codebase="{EVIL}/"></applet>'
    ),
    "svg": (
        f"<p>{TEXT}</p><svg onload=alert(1)><script>alert(2)</script>"
        "<use href=\"data:image/svg+xml,<svg id='x' onload='alert(3)'/>#x\"/>"
        '<use xlink:href="http://evil.example/s.svg#x"/><a xlink:href="javascript:alert(4)">'
        '<text>t</text></a><animate attributeName="href" to="javascript:alert(5)"/>'
        '<set attributeName="onmouseover" to="alert(6)"/><foreignObject><iframe '
        'src="javascript:alert(7)"></iframe></foreignObject>'
        f'<image href="{EVIL}/i.png"/><rect fill="url({EVIL}/p.svg#g)" width="5"/></svg>'
        "<SVG><STYLE><img src=x onerror=alert(8)></STYLE></SVG>"
    ),
    "javascript-links": (
        f'<p>{TEXT} <a href="javascript:alert(1)">a</a> <A HREF="JaVaScRiPt:alert(2)">b</A>'
        ' <a href="jav&#x61;script:alert(3)">c</a> <a href="&#106;avascript:alert(4)">d</a>'
        ' <a href=" \tjava\nscript:alert(5)">e</a> <a href="vbscript:msgbox(1)">f</a>'
        ' <a href="data:text/html,<script>alert(6)</script>">g</a>'
        ' <map name="m"><area href="javascript:alert(7)" shape="rect"></map>'
        ' <a href="//evil.example/x">h</a> <a href="/\\evil.example/x">i</a></p>'
    ),
    "meta-refresh-base": (
        '<html><head><META HTTP-EQUIV="Refresh" CONTENT="0; URL=javascript:alert(1)">'
        f'<meta http-equiv="refresh" content="1;url={EVIL}/r"><base href="{EVIL}/">'
        '<BASE HREF="javascript:alert(2)//"></head>'
        f'<body><p>{TEXT}</p><img src="pixel.gif"></body></html>'
    ),
    "style-fetches": (
        f"<html><head><style>@import url({EVIL}/a.css); @import '{EVIL}/b.css';"
        f' @IMPORT "{EVIL}/c.css" screen; body {{ background: url("{EVIL}/bg.png") }}'
        f" @font-face {{ font-family: x; src: url({EVIL}/f.woff) }}"
        f" p {{ background-image: -webkit-image-set('{EVIL}/s.png' 1x) }}"
        f" div {{ background: u\\72l({EVIL}/escaped.png) }}</style>"
        f'<link rel="stylesheet" href="{EVIL}/l.css"><link rel=prefetch href="{EVIL}/p">'
        f'<link rel="dns-prefetch" href="{EVIL}"><LINK REL="import" HREF="{EVIL}/i.html">'
        f"</head><body><p>{TEXT}</p></body></html>"
    ),
    "remote-images": (
        f'<html><body background="{EVIL}/body.png"><p>{TEXT}</p><img src="{EVIL}/t.gif">'
        f'<IMG SRC="{EVIL}/T.GIF" SRCSET="{EVIL}/2x.gif 2x"><picture><source '
        f'srcset="{EVIL}/s.webp"><img src="/rel.png"></picture><video poster="{EVIL}/v.png" '
        f'src="{EVIL}/v.mp4"><source src="{EVIL}/v.webm"><track src="{EVIL}/t.vtt"></video>'
        f'<audio src="{EVIL}/a.mp3" autoplay></audio><input type="image" src="{EVIL}/in.png">'
        f'<table background="{EVIL}/tb.png"><tr><td>cell</td></tr></table></body></html>'
    ),
    "forms": (
        f'<p>{TEXT}</p><form action="javascript:alert(1)"><input name="q">'
        f'<button formaction="javascript:alert(2)">go</button></form>'
        f'<FORM ACTION="{EVIL}/post" METHOD="post"><input type="submit"></FORM>'
        '<isindex action="javascript:alert(3)">'
    ),
    "event-handlers": (
        f'<body onload="alert(1)"><p onclick="alert(2)" OnMouseOver="alert(3)">{TEXT}</p>'
        '<img src=x onerror="alert(4)"><div ONFOCUS="alert(5)" tabindex=0 autofocus>x</div>'
        '<details open ontoggle="alert(6)"><summary>s</summary></details>'
        '<a href="#" onmousemove=alert(7)>m</a><marquee onstart="alert(8)">q</marquee></body>'
    ),
    "css-attributes": (
        f'<p style="width: expression(alert(1))">{TEXT}</p>'
        '<div style="background: url(javascript:alert(2))">a</div>'
        f"<div style=\"background-image: url('{EVIL}/st.png')\">b</div>"
        "<div style=\"behavior: url(x.htc); -moz-binding: url('x.xml#y')\">c</div>"
        f'<div style="background: u\\72 l({EVIL}/esc.png)">d</div>'
        '<div style="width: ex/**/pression(alert(3))">e</div>'
        '<div style="color: red">kept</div>'
    ),
    "scripts-and-raw-text": (
        f'<p>{TEXT}</p><SCRIPT>alert(1)</SCRIPT><script src="{EVIL}/x.js"></script>'
        '<noscript><p title="</noscript><img src=x onerror=alert(2)>"></p></noscript>'
        '<textarea><p title="</textarea><img src=x onerror=alert(3)>"></textarea>'
        "<xmp><img src=x onerror=alert(4)></xmp><template><script>alert(5)</script></template>"
        "<!-- a --!><img src=x onerror=alert(6)> --><noembed><img src=x></noembed>"
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(7)></style></mglyph>"
        '</table></mtext><mi xlink:href="javascript:alert(8)" href="javascript:alert(9)">m</mi>'
        '</math><portal src="https://evil.example"></portal><custom-el onclick=x>c</custom-el>'
    ),
}

#: Attributes whose value is a URL (any element); ``srcset`` holds several.
URL_ATTRS = frozenset(
    {
        "href",
        "src",
        "srcset",
        "action",
        "formaction",
        "data",
        "poster",
        "background",
        "cite",
        "xlink:href",
        "codebase",
        "archive",
        "ping",
        "longdesc",
        "lowsrc",
        "dynsrc",
        "usemap",
        "classid",
        "profile",
        "manifest",
        "icon",
    }
)
#: Elements that must never reach the view.
ACTIVE_TAGS = frozenset(
    {
        "script",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "param",
        "base",
        "meta",
        "noscript",
        "template",
        "portal",
        "animate",
        "set",
        "animatemotion",
        "animatetransform",
        "foreignobject",
        "image",
        "xmp",
    }
)


def _css_plain(css: str) -> str:
    """CSS as a browser tokenises it: no comments, escapes decoded, no space, lower case."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(
        r"\\([0-9a-fA-F]{1,6})\s?|\\(.)",
        lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(2),
        css,
    )
    return "".join(css.split()).lower()


def _scheme(url: str) -> str | None:
    url = re.sub(r"[\t\n\r]", "", url.strip("".join(chr(c) for c in range(0x21))))
    m = re.match(r"([a-zA-Z][a-zA-Z0-9+.\-]*):", url)
    return m.group(1).lower() if m else None


def _check_css(css: str, remote: bool) -> None:
    plain = _css_plain(css)
    for bad in ("expression(", "javascript:", "vbscript:", "-moz-binding", "image-set("):
        assert bad not in plain, css
    assert not re.search(r"(?<![a-z-])(behaviou?r:|src\()", plain), css  # not scroll-behavior
    if not remote:
        assert "@import" not in plain, css
    for target in re.findall(r"url\(([\"']?)([^\"')]*)", plain):
        url = target[1]
        assert url.startswith(("#", "data:image/")) or (
            remote and url.startswith(("http://", "https://"))
        ), css


def check_inert(view: str, remote: bool = False) -> Any:
    """Assert ``view`` is inert (see the module docstring); its parsed tree."""
    assert view.startswith("<!DOCTYPE html>")
    root = lxml.html.document_fromstring(view)
    assert root.tag == "html"
    head = root[0]
    assert head.tag == "head" and len(root.findall("head")) == 1
    csp = head[0]
    assert csp.tag == "meta" and csp.get("http-equiv") == "Content-Security-Policy"
    assert csp.get("content") == (CSP_REMOTE if remote else CSP)
    assert "script-src" not in csp.get("content")  # default-src 'none' covers scripts
    assert [el.tag for el in root] == ["head", "body"]
    for el in root.iter():
        if not isinstance(el.tag, str):
            raise AssertionError(f"comment or PI kept: {el!r}")
        tag = el.tag.lower()
        assert tag not in ACTIVE_TAGS or (el is csp or (tag == "meta" and el.getparent() is head))
        if tag == "meta":
            assert (el.get("http-equiv") or "").lower() != "refresh"
        if tag == "link":
            assert remote and el.get("rel") == "stylesheet", lxml.html.tostring(el)
            assert _scheme(el.get("href")) in ("http", "https")
        if tag == "style":
            assert "<" not in (el.text or "")
            _check_css(el.text or "", remote)
        if tag in ("textarea", "title"):
            assert len(el) == 0
        for name, value in el.attrib.items():
            low = name.lower()
            assert not low.startswith("on"), (tag, name)
            assert low not in ("srcdoc", "formaction", "action", "ping", "target"), (tag, name)
            if low == "style":
                _check_css(value, remote)
            if low not in URL_ATTRS or tag == "link":  # (checked above)
                continue
            urls = (
                [c.split()[0] for c in value.split(",") if c.split()]
                if low == "srcset"
                else [value]
            )
            for url in urls:
                scheme = _scheme(url)
                if tag in ("a", "area") or low == "cite":
                    assert scheme in (None, "http", "https", "mailto", "tel"), (tag, name, url)
                    assert scheme or not url.replace("\\", "/").startswith("//"), url
                elif low in ("href", "xlink:href"):  # SVG references: in the page only
                    assert url.startswith("#"), (tag, name, url)
                else:  # an image that loads
                    assert low in ("src", "srcset", "poster", "background"), (tag, name)
                    if scheme == "data":
                        assert url[5:].lower().startswith("image/"), url
                    else:
                        assert remote and scheme in ("http", "https"), (tag, name, url)
    return root


@pytest.mark.parametrize("remote", [False, True], ids=["static", "remote"])
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_page_view_is_inert(name: str, remote: bool) -> None:
    page = HOSTILE[name]
    view = render_view(page, extract(page), url="https://site.example/a/", remote=remote)
    root = check_inert(view, remote)
    assert TEXT in " ".join(root.text_content().split())  # the page is still there
    assert root.xpath("//*[@data-boilerplate-label]")  # with its blocks outlined


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_page_view_without_url(name: str) -> None:
    page = HOSTILE[name]
    check_inert(render_view(page, extract(page)))


def test_body_head_trick_keeps_the_csp_in_the_head() -> None:
    page = HOSTILE["body-head-trick"]
    root = check_inert(render_view(page, extract(page)))
    assert root.xpath("//p[@data-boilerplate-label]/text()") == [TEXT, "after"]


def test_remote_images_become_placeholders_and_are_counted() -> None:
    page = HOSTILE["remote-images"]
    root = check_inert(render_view(page, extract(page), url="https://site.example/a/"))
    imgs = root.findall(".//img")
    assert imgs and all(i.get("src").startswith("data:image/svg+xml,") for i in imgs)
    assert imgs[0].get("data-boilerplate-src") == f"{EVIL}/t.gif"
    assert imgs[0].get("srcset") is None and root.find(".//body").get("background") is None
    legend = root.xpath("//*[@data-boilerplate-legend]")[0].text_content()
    assert "not loaded: " in legend and "--view-remote" in legend


def test_view_remote_keeps_http_images_and_style_sheets_absolute() -> None:
    page = (
        '<html><head><link rel="stylesheet" href="/s.css"><style>@import "i.css";'
        " body { background: url(bg.png) }</style></head>"
        f'<body><p>{TEXT}</p><img src="img/a.png" srcset="img/b.png 2x"></body></html>'
    )
    root = check_inert(
        render_view(page, extract(page), url="https://site.example/a/", remote=True), True
    )
    assert root.xpath("//head/link/@href") == ["https://site.example/s.css"]
    style = root.xpath("//head/style/text()")[0]
    assert '@import url("https://site.example/a/i.css")' in style
    assert 'url("https://site.example/a/bg.png")' in style
    img = root.find(".//img")
    assert img.get("src") == "https://site.example/a/img/a.png"
    assert img.get("srcset") == "https://site.example/a/img/b.png 2x"


def test_view_remote_resolves_against_the_pages_base() -> None:
    page = (
        '<html><head><base href="https://cdn.example/x/"></head>'
        f'<body><p>{TEXT}</p><img src="a.png"></body></html>'
    )
    root = check_inert(
        render_view(page, extract(page), url="https://site.example/", remote=True), True
    )
    assert root.find(".//img").get("src") == "https://cdn.example/x/a.png"
    assert root.find(".//base") is None


def test_view_remote_without_an_http_url_loads_no_relative_image() -> None:
    page = f'<p>{TEXT}</p><img src="a.png"><img src="file:///etc/passwd">'
    root = check_inert(render_view(page, extract(page), remote=True), True)
    assert all(i.get("src").startswith("data:image/") for i in root.findall(".//img"))


def test_links_stay_clickable_and_absolute() -> None:
    page = (
        f'<p>{TEXT} <a href="/about">about</a> <a href="https://x.example/">x</a>'
        ' <a href="mailto:a@b.example">mail</a> <a href="#top">top</a></p>'
    )
    root = check_inert(render_view(page, extract(page), url="https://site.example/a/"))
    assert root.xpath("//a/@href") == [
        "https://site.example/about",
        "https://x.example/",
        "mailto:a@b.example",
        "#top",
    ]


def test_page_styles_and_inline_svg_survive() -> None:
    page = (
        "<html><head><title>T</title><style><!-- p { color: #123456 } --></style></head><body>"
        f'<p style="margin: 3px">{TEXT}</p><svg viewBox="0 0 10 10"><defs><linearGradient '
        'id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>'
        '<rect width="10" height="10" fill="url(#g)"/><use href="#g"/></svg>'
        '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline"></body></html>'
    )
    root = check_inert(render_view(page, extract(page)))
    assert root.findtext(".//title") == "T"
    assert root.xpath("//head/style/text()") == [" p { color: #123456 } "]
    assert root.find(".//rect").get("fill") == "url(#g)"
    assert root.find(".//use").get("href") == "#g"
    assert root.find(".//img").get("src") == "data:image/png;base64,iVBORw0KGgo="
    p = root.xpath("//p[@data-boilerplate-label]")[0]
    assert p.get("style").startswith("margin: 3px; outline:")


def test_blocks_of_the_pages_body_outline_the_views_body() -> None:
    html = "<html><body bgcolor=white>Loose text<p>para</p></body><head></head></html>"
    blocks = [
        Block("Loose text", "/html/body", "body", label=BOILERPLATE, index=0),
        Block("para", "/html/body/p", "p", label=CONTENT, index=1),
    ]
    root = check_inert(render_view(html, Extraction.from_blocks(blocks, "test", {})))
    body = root.find("body")
    assert body.get("data-boilerplate-blocks") == "0" and body.get("bgcolor") == "white"
    assert "dashed" in body.get("style")  # it holds another outlined element
    assert root.find("body/p").get("data-boilerplate-blocks") == "1"


def test_blocks_of_removed_elements_are_counted() -> None:
    html = "<html><body><p>kept</p><noscript><p>hidden</p></noscript></body></html>"
    blocks = [
        Block("kept", "/html/body/p", "p", label=CONTENT, index=0),
        Block("hidden", "/html/body/noscript/p", "p", label=BOILERPLATE, index=1),
    ]
    root = check_inert(render_view(html, Extraction.from_blocks(blocks, "test", {})))
    legend = root.xpath("//*[@data-boilerplate-legend]")[0].text_content()
    assert "1 blocks in elements the view leaves out" in legend
    assert [p.get("data-boilerplate-label") for p in root.xpath("//p")] == [CONTENT]


def test_a_callers_tree_is_left_as_it_was() -> None:
    tree = lxml.html.document_fromstring(f"<p>{TEXT}</p><script>x()</script>")
    before = lxml.html.tostring(tree)
    check_inert(render_view(tree, extract(tree)))
    assert lxml.html.tostring(tree) == before


def test_cli_view_remote_flag(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(f'<p>{TEXT}</p><img src="https://img.example/a.png">', encoding="utf-8")
    static, remote = tmp_path / "static.html", tmp_path / "remote.html"
    codes = (EXIT_OK, EXIT_NO_TEXT)  # (a one-paragraph page may have no main text)
    assert main(["extract", str(page), "-f", "html", "-o", str(static)]) in codes
    assert main(["extract", str(page), "-f", "html", "--view-remote", "-o", str(remote)]) in codes
    s = check_inert(static.read_text(encoding="utf-8"))
    r = check_inert(remote.read_text(encoding="utf-8"), True)
    assert s.find(".//img").get("src").startswith("data:image/")
    assert r.find(".//img").get("src") == "https://img.example/a.png"


def test_notice_page_has_the_csp() -> None:
    view = render_view(b"", Extraction.failed("empty", "test", {}))
    root = lxml.html.document_fromstring(view)
    assert root[0].tag == "head" and root[0][0].get("http-equiv") == "Content-Security-Policy"


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_page_view_with_metadata_is_inert(name: str) -> None:
    page = HOSTILE[name]
    root = check_inert(render_view(page, extract(page, metadata=True), url="https://s.example/"))
    assert root.xpath("//*[@data-boilerplate-metadata]")


def test_metadata_panel_escapes_values_and_links_only_http() -> None:
    result = extract(f"<p>{TEXT}</p>")
    result.metadata = {
        "title": "<script>alert(1)</script>\x00\x1b",
        "authors": ['"><img src=x onerror=alert(2)>'],
        "canonical_url": "javascript:alert(3)",
        "main_image": 'https://img.example/a.png" onmouseover="alert(4)',
        "images": ["data:image/svg+xml,<svg onload=alert(5)>", "HTTPS://img.example/b.png"],
        "breadcrumbs": [
            {"name": "Home", "url": "https://site.example/"},
            {"name": "<b>News</b>", "url": " javascript:alert(6)"},
            {"name": "Local", "url": "//evil.example/x"},
        ],
        "description": "x" * 5000,
        "site_name": None,
        "sources": {"title": "<i>opengraph</i>", "canonical_url": "link"},
        "notes": ["<script>alert(7)</script> refused"],
    }
    view = render_view(f"<p>{TEXT}</p>", result)
    root = check_inert(view)
    assert "<script" not in view.lower() and "<img src=x" not in view and "<b>News" not in view
    panel = root.xpath("//*[@data-boilerplate-metadata]")[0]
    text = panel.text_content()
    for shown in ("<script>alert(1)</script>", "<i>opengraph</i>", "javascript:alert(3)"):
        assert shown in text, shown
    assert "<script>alert(7)</script> refused" in text and "not found: site_name" in text
    assert "\x00" not in text and "\x1b" not in text
    assert panel.xpath(".//a/@href") == ["HTTPS://img.example/b.png", "https://site.example/"]
    assert len(panel.xpath(".//tr[@data-boilerplate-field='description']")[0].text_content()) < 600
    assert not any(n.startswith("on") for el in root.iter() for n in el.attrib)


def test_no_metadata_no_panel() -> None:
    assert "data-boilerplate-metadata" not in render_view(f"<p>{TEXT}</p>", extract(TEXT))
