"""An HTML view of an extraction: the page itself, every block outlined by its label.

:func:`render_view` parses a fresh copy of the page exactly as the extractor did (so
each block's ``xpath`` points at the same element), then for every element holding
blocks adds an outline (green: content, red: boilerplate, amber: mixed), a tooltip
(``title``) with the blocks' fields and ``data-boilerplate-*`` attributes:

- ``data-boilerplate-label``: ``content``, ``boilerplate`` or ``mixed``;
- ``data-boilerplate-blocks``: the indices of the blocks of that element;
- ``data-boilerplate-content`` / ``data-boilerplate-boilerplate``: how many of each;
- ``data-boilerplate-fields``: a JSON list, per block, of its index, label, tag,
  link density and the method's own fields (jusText's ``class``...).

A person opens the view in a browser, so it is inert: it runs none of the page's code
and, by default, loads nothing from the network. The page goes through an allow-list
(:class:`Inert`): elements and attributes not on it are dropped (scripts, frames,
plugins, ``<base>``, ``<meta>``, event handlers...) or, for unknown elements, renamed to
``<span>``; every URL is checked by its scheme; CSS is rewritten so it fetches nothing.
The output's ``<head>`` is built anew, first child of ``<html>``, with the
Content-Security-Policy ``<meta>`` as its first child, whatever the page's structure. With
``remote=True`` (``--view-remote``) the page's http(s) images and style sheets load, for a
faithful look; scripts stay off. A small legend sits in a corner, and the page's metadata
(when the result has it: ``extract(..., metadata=True)``) in a panel in another. Used by
``scrapy-boilerplate extract --format html``.
"""

from __future__ import annotations

import copy
import html as html_lib
import json
import re
import urllib.parse
from typing import Any

import lxml.etree as etree
import lxml.html

from scrapy_boilerplate.core.document import JUSTEXT_BLOCK_TAGS, parse
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.core.reasons import gloss
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Block, Extraction, to_jsonable

MIXED = "mixed"
COLORS = {CONTENT: "#1a7f37", BOILERPLATE: "#cf222e", MIXED: "#bf8700"}
TINTS = {
    CONTENT: "rgba(26, 127, 55, 0.08)",
    BOILERPLATE: "rgba(207, 34, 46, 0.08)",
    MIXED: "rgba(191, 135, 0, 0.08)",
}
ATTR = "data-boilerplate"
#: Tooltip lines per element at most (an element may hold many blocks).
MAX_TOOLTIP_BLOCKS = 8
_TOOLTIP_TEXT = 100
#: Elements without content: a block anchored at one (jusText's ``<br><br>``) is the text
#: that follows it, which gets wrapped in a ``<span>`` so the outline shows.
VOID_TAGS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    }
)

#: The view's Content-Security-Policy: nothing may load or run but inline styles (the
#: outlines, the legend, the page's own) and ``data:`` images (the placeholders).
#: ``form-action`` and ``base-uri`` do not fall back to ``default-src``: named too.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "form-action 'none'; base-uri 'none'"
)
#: With ``remote=True``: the page's images and style sheets load over http(s), no more.
CSP_REMOTE = (
    "default-src 'none'; style-src 'unsafe-inline' http: https:; img-src data: http: https:; "
    "form-action 'none'; base-uri 'none'"
)
#: What a remote or unsafe image is replaced by: a grey box, its size kept.
PLACEHOLDER = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='24' height='24'%3E"
    "%3Crect width='24' height='24' fill='%23eaeef2' stroke='%238c959f' stroke-dasharray='3'/%3E"
    "%3C/svg%3E"
)


def _names(text: str) -> frozenset[str]:
    """The names listed in ``text``, separated by spaces."""
    return frozenset(text.split())


#: HTML elements kept as they are (their attributes filtered). Inert without scripts.
HTML_TAGS = _names(
    "a abbr acronym address area article aside audio b bdi bdo big blink blockquote body br "
    "button canvas caption center cite code col colgroup data datalist dd del details dfn "
    "dialog dir div dl dt em fieldset figcaption figure font footer form h1 h2 h3 h4 h5 h6 "
    "header hgroup hr i img input ins kbd label legend li main map mark marquee menu meter "
    "nav nobr ol optgroup option output p picture pre progress q rb rp rt rtc ruby s samp "
    "search section select small source span strike strong style sub summary sup table "
    "tbody td textarea tfoot th thead time title tr tt u ul var video wbr"
)
#: SVG elements kept (animation, scripts, ``foreignObject`` and ``image`` are not).
SVG_TAGS = _names(
    "svg g defs symbol use path rect circle ellipse line polyline polygon text tspan textpath "
    "desc lineargradient radialgradient stop clippath mask pattern marker filter "
    "feblend fecolormatrix fecomponenttransfer fecomposite fedisplacementmap fedropshadow "
    "feflood fefunca fefuncb fefuncg fefuncr fegaussianblur femerge femergenode femorphology "
    "feoffset feturbulence"
)
#: MathML presentation elements kept (``annotation-xml`` may hold HTML: not kept).
MATHML_TAGS = _names(
    "math mi mn mo ms mtext mrow mfrac msqrt mroot msub msup msubsup munder mover "
    "munderover mmultiscripts mprescripts none mtable mtr mtd mspace mstyle mpadded "
    "mphantom menclose merror semantics annotation"
)
KEPT_TAGS = HTML_TAGS | SVG_TAGS | MATHML_TAGS
#: Elements dropped with everything inside: code, frames, plugins, what a browser parses as
#: raw text (so its content could turn into markup), what the view's ``<head>`` replaces.
#: Any other element not kept becomes a ``<span>`` (its content stays visible).
DROPPED_TAGS = _names(
    "script noscript iframe frame frameset object embed applet param base basefont meta "
    "link head template xmp plaintext listing noembed noframes portal fencedframe slot "
    "track bgsound animate animatecolor animatemotion animatetransform set discard "
    "foreignobject feimage image handler listener annotation-xml"
)
#: Dropped elements whose content stays: void in HTML (libxml2 reads ``<embed>``,
#: ``<track>``... as holding what follows them, which a browser shows), or fallback
#: content a browser shows (``<object>``, ``<applet>``).
UNWRAPPED_TAGS = _names(
    "embed track keygen image bgsound param frame base basefont meta link object applet"
)
#: Attributes kept on any kept element (``data-*`` and ``aria-*`` too). No ``on*``, no
#: URLs: those are checked apart (:data:`NAV_ATTRS`, :data:`IMAGE_ATTRS`, ``href``).
SAFE_ATTRS = _names(
    # HTML
    "abbr align alink alt axis bgcolor border cellpadding cellspacing char charoff checked "
    "class clear color cols colspan compact controls coords datetime default dir disabled "
    "face for frame headers height hidden high hspace id ismap itemprop itemscope kind label "
    "lang link low max maxlength media min multiple name noshade nowrap open optimum "
    "placeholder readonly reversed role rows rowspan rules scope selected shape size "
    "sizes span start step style summary tabindex text title translate type valign value "
    "vlink vspace width "
    # SVG presentation and geometry
    "alignment-baseline baseline-shift clip-path clip-rule clippathunits color-interpolation "
    "color-interpolation-filters cx cy d display dominant-baseline dx dy fill fill-opacity "
    "fill-rule filter filterunits flood-color flood-opacity font-family font-size font-style "
    "font-variant font-weight fr fx fy gradienttransform gradientunits in in2 k1 k2 k3 k4 "
    "kernelmatrix lengthadjust letter-spacing marker-end marker-mid marker-start markerheight "
    "markerunits markerwidth mask maskcontentunits maskunits mode offset opacity operator "
    "orient overflow paint-order pathlength patterncontentunits patterntransform patternunits "
    "points preserveaspectratio primitiveunits r radius refx refy result rotate rx ry scale "
    "shape-rendering spacing spreadmethod startoffset stddeviation stitchtiles stop-color "
    "stop-opacity stroke stroke-dasharray stroke-dashoffset stroke-linecap stroke-linejoin "
    "stroke-miterlimit stroke-opacity stroke-width surfacescale tablevalues text-anchor "
    "text-decoration text-rendering textlength transform values vector-effect viewbox "
    "visibility word-spacing x x1 x2 y y1 y2 z "
    # MathML
    "accent accentunder columnalign columnlines columnspacing columnspan displaystyle "
    "encoding fence largeop linethickness lspace mathbackground mathcolor mathsize "
    "mathvariant maxsize minsize movablelimits notation rowalign rowlines rowspacing rspace "
    "scriptlevel separator stretchy symmetric voffset"
)
#: Links a person may follow by clicking: http(s), mailto, tel, relative or ``#``.
NAV_ATTRS = frozenset({"href", "xlink:href", "cite"})
NAV_SCHEMES = frozenset({"http", "https", "mailto", "tel"})
#: Attributes that load an image when the page shows: ``data:image/`` always; http(s) only
#: with ``remote=True``; anything else replaced (``src``) or dropped.
IMAGE_ATTRS = frozenset({"src", "srcset", "poster", "background"})
#: Elements whose ``src`` is an image (``<video src>``, ``<audio src>`` never load).
IMAGE_SRC_TAGS = frozenset({"img", "input"})
#: CSS that runs code or binds behaviour in some browser: the whole style is dropped.
_CSS_ACTIVE = re.compile(
    r"expression\(|javascript:|vbscript:|-moz-binding|(?<![a-z-])behaviou?r:|livescript:"
)
_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\r\n\f]?|(\n|\r\n?|\f)|(.))", re.S)
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)'|([^"'()\\\s]*))\s*\)""", re.I)
_CSS_IMPORT = re.compile(
    r"""@import\s*(?:url\(\s*(?:"[^"]*"|'[^']*'|[^)]*)\s*\)|"[^"]*"|'[^']*')[^;{}]*;?""", re.I
)
_CSS_IMAGE_SET = re.compile(r"(?:-webkit-)?image-set\((?:[^()]|\([^()]*\))*\)", re.I)
#: In escape-decoded, comment-free, whitespace-free, lower-case CSS: what may fetch.
_CSS_FETCH = re.compile(r"url\(([\"']?)([^\"')]*)|@import|image-set\(|(?<![a-z-])src\(")
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.\-]*):")
_STRIP = "".join(chr(c) for c in range(0x21))
_TAB_NEWLINE = re.compile(r"[\t\n\r]")


def element_label(blocks: list[Block]) -> str:
    """``content`` or ``boilerplate`` when the blocks agree, else ``mixed``."""
    labels = {b.label for b in blocks}
    if len(labels) == 1:
        label = labels.pop()
        return label if label in (CONTENT, BOILERPLATE) else MIXED
    return MIXED


def _block_fields(block: Block) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": block.index,
        "label": block.label,
        "tag": block.tag,
        "link_density": round(float(block.link_density), 3),
    }
    for key, value in block.fields.items():
        out[str(key)] = to_jsonable(value)
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def tooltip(blocks: list[Block]) -> str:
    """The ``title`` of an element: one paragraph per block (fields, then start of text)."""
    parts: list[str] = []
    for block in blocks[:MAX_TOOLTIP_BLOCKS]:
        fields = _block_fields(block)
        head = f"block {fields.pop('index')}: {fields.pop('label')} <{fields.pop('tag')}>"
        body = ", ".join(f"{k}={_fmt(v)}" for k, v in fields.items())
        text = " ".join(block.text.split())
        if len(text) > _TOOLTIP_TEXT:
            text = text[: _TOOLTIP_TEXT - 1] + "…"
        parts.append(f"{head}\n{body}\n“{text}”")
    if len(blocks) > MAX_TOOLTIP_BLOCKS:
        parts.append(f"… and {len(blocks) - MAX_TOOLTIP_BLOCKS} more blocks")
    return "\n\n".join(parts)


def locate(tree: Any, blocks: list[Block]) -> tuple[dict[Any, list[Block]], int]:
    """Blocks grouped by the element their ``xpath`` names (page order); and how many missed."""
    groups: dict[Any, list[Block]] = {}
    missed = 0
    cache: dict[str, Any] = {}
    for block in blocks:
        if block.xpath not in cache:
            try:
                found = tree.xpath(block.xpath) if block.xpath else []
            except (etree.XPathError, TypeError, ValueError):
                found = []
            el = found[0] if found else None
            cache[block.xpath] = el if isinstance(el, etree._Element) else None
        el = cache[block.xpath]
        if el is None:
            missed += 1
        else:
            groups.setdefault(el, []).append(block)
    return groups, missed


def _wrap_void(el: Any, marked: set[Any]) -> Any | None:
    """Wrap the text and inline siblings after void element ``el`` in a ``<span>``.

    Stops at the next located element or block-level element. None when nothing follows.
    """
    parent = el.getparent()
    if parent is None:
        return None
    moved = []
    nxt = el.getnext()
    while (
        nxt is not None
        and nxt not in marked
        and not (isinstance(nxt.tag, str) and nxt.tag.lower() in JUSTEXT_BLOCK_TAGS)
    ):
        moved.append(nxt)
        nxt = nxt.getnext()
    if not moved and not (el.tail and el.tail.strip()):
        return None
    span = etree.Element("span")
    span.set(f"{ATTR}-after", str(el.tag))
    span.text, el.tail = el.tail, None
    for sibling in moved:
        span.append(sibling)  # lxml moves the element with its tail
    parent.insert(parent.index(el) + 1, span)
    return span


def _mark(el: Any, blocks: list[Block], container: bool) -> None:
    label = element_label(blocks)
    n_content = sum(1 for b in blocks if b.label == CONTENT)
    el.set(f"{ATTR}-label", label)
    el.set(f"{ATTR}-blocks", " ".join(str(b.index) for b in blocks))
    el.set(f"{ATTR}-content", str(n_content))
    el.set(f"{ATTR}-boilerplate", str(len(blocks) - n_content))
    el.set(f"{ATTR}-fields", json.dumps([_block_fields(b) for b in blocks], ensure_ascii=False))
    el.set("title", tooltip(blocks))
    style = (
        f"outline: 2px {'dashed' if container else 'solid'} {COLORS[label]} !important;"
        " outline-offset: -1px !important;"
    )
    if not container:  # tinting an ancestor would tint every block inside it
        style += f" background-color: {TINTS[label]} !important;"
    old = (el.get("style") or "").strip()
    el.set("style", (old.rstrip(";") + "; " if old else "") + style)


def _drop_tree(el: Any) -> None:
    """Remove ``el`` and its subtree but keep its tail text (works on plain lxml elements)."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        _text_before(el, el.tail)
    parent.remove(el)


def _text_before(el: Any, text: str) -> None:
    """Add ``text`` just before ``el`` (to its previous sibling's tail or its parent's text)."""
    prev = el.getprevious()
    if prev is not None:
        prev.tail = (prev.tail or "") + text
    else:
        parent = el.getparent()
        parent.text = (parent.text or "") + text


def _unwrap(el: Any) -> list[Any]:
    """Replace ``el`` by its content (text, children, tail kept); the children moved."""
    parent = el.getparent()
    if parent is None:
        return []
    children = list(el)
    if el.text:
        _text_before(el, el.text)
        el.text = None
    at = parent.index(el)
    for i, child in enumerate(children):
        parent.insert(at + i, child)  # (with its tail)
    _drop_tree(el)
    return children


def _css_plain(css: str) -> str:
    """``css`` as a browser tokenises it, for checks: no comments, escapes decoded, no
    whitespace, lower case (``u\\72l(`` and ``@im/**/port`` do not hide there)."""

    def unescape(m: re.Match[str]) -> str:
        if m.group(1):
            code = int(m.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
        return "" if m.group(2) else m.group(3)

    text = _CSS_ESCAPE.sub(unescape, _CSS_COMMENT.sub("", css))
    return "".join(text.split()).lower()


def _scheme(url: str) -> str | None:
    """The scheme a browser reads in ``url`` (lower case), or None for a relative URL."""
    m = _SCHEME.match(url)
    return m.group(1).lower() if m else None


class Inert:
    """The allow-list that makes a parsed page inert: :meth:`clean` filters a subtree.

    ``base`` (an absolute http(s) URL or None) resolves relative URLs; ``remote`` keeps
    http(s) images and style sheets (else they are replaced or dropped and counted in
    ``images`` and ``sheets``).
    """

    def __init__(self, base: str | None, remote: bool) -> None:
        self.base = base
        self.remote = remote
        self.images = 0
        self.sheets = 0

    # -- URLs -------------------------------------------------------------------------------

    def _absolute(self, value: str) -> str | None:
        """``value`` as a browser would read it, made absolute against :attr:`base`."""
        url = _TAB_NEWLINE.sub("", value.strip(_STRIP))
        if self.base and _scheme(url) is None:
            try:
                url = urllib.parse.urljoin(self.base, url)
            except ValueError:
                return None
        return url

    def nav_url(self, value: str) -> str | None:
        """A link to follow by clicking: kept if http(s), mailto, tel, ``#`` or relative."""
        if value.strip(_STRIP).startswith("#"):
            return value  # a place in the view itself
        url = self._absolute(value)
        if url is None:
            return None
        scheme = _scheme(url)
        if scheme is None:
            # relative with no base: kept, but not ``//host`` (a file: host from the view)
            return None if url.replace("\\", "/").startswith("//") else url
        return url if scheme in NAV_SCHEMES else None

    def image_url(self, value: str) -> str | None:
        """An image that loads: ``data:image/``, or http(s) with ``remote``; else None."""
        url = self._absolute(value)
        if url is None:
            return None
        scheme = _scheme(url)
        if scheme == "data":
            return url if url[5:].lstrip(_STRIP).lower().startswith("image/") else None
        if self.remote and scheme in ("http", "https"):
            return url
        return None

    def srcset(self, value: str) -> str | None:
        """A ``srcset`` whose every candidate :meth:`image_url` keeps, rebuilt; else None."""
        out = []
        for candidate in value.split(","):  # a data: URL's comma only makes this stricter
            parts = candidate.split()
            if not parts:
                continue
            url = self.image_url(parts[0])
            if url is None or _scheme(url) not in ("http", "https"):
                return None
            out.append(" ".join([url, *parts[1:]]))
        return ", ".join(out) or None

    # -- CSS --------------------------------------------------------------------------------

    def css(self, text: str) -> str | None:
        """``text`` (a style sheet or a ``style`` attribute) made to fetch nothing (with
        ``remote``: nothing but http(s) images and style sheets); None to drop it whole."""
        if _CSS_ACTIVE.search(_css_plain(text)):
            return None

        def url(m: re.Match[str]) -> str:
            target = next(g for g in m.groups() if g is not None)
            if target.startswith("#"):
                return m.group(0)
            if not target.strip():
                return "none"
            kept = self.image_url(target)
            if kept is None:
                self.images += 1
                return "none"
            return 'url("' + kept.replace('"', "%22").replace("\\", "%5C") + '")'

        def imported(m: re.Match[str]) -> str:
            inner = re.search(r"""url\(\s*["']?([^"')\s]*)|"([^"]*)"|'([^']*)'""", m.group(0))
            target = next((g for g in inner.groups() if g), "") if inner else ""
            if self.remote:
                absolute = self._absolute(target)
                if absolute and _scheme(absolute) in ("http", "https"):
                    tail = m.group(0)[inner.end() :] if inner else ""
                    media = re.sub(r"""^["')\s]*""", "", tail).rstrip(";")
                    safe = absolute.replace('"', "%22").replace("\\", "%5C")
                    return f'@import url("{safe}") {media};'
            self.sheets += 1
            return ""

        out = _CSS_IMPORT.sub(imported, text)
        out = _CSS_IMAGE_SET.sub("none", out)
        out = _CSS_URL.sub(url, out)
        for m in _CSS_FETCH.finditer(_css_plain(out)):  # what the rewrite missed: drop
            if m.group(0) == "@import":
                if self.remote:
                    continue
                return None
            target = m.group(2)
            if target is None or not (  # image-set( or src( hidden by escapes
                target.startswith(("#", "data:image/"))
                or (self.remote and target.startswith(("http://", "https://")))
            ):
                return None
        return out

    # -- elements -------------------------------------------------------------------------

    def attributes(self, el: Any) -> None:
        """Keep ``el``'s allowed attributes, with their URLs and CSS checked."""
        tag = el.tag
        for name in list(el.attrib):
            value = el.attrib[name]
            low = name.lower()
            keep: str | None = None
            if low.startswith(("data-", "aria-")) and re.fullmatch(r"[a-z0-9_.:-]+", low):
                keep = value
            elif low == "style":
                keep = self.css(value)
            elif low in ("href", "xlink:href") and tag in SVG_TAGS:
                keep = value if value.strip(_STRIP).startswith("#") else None
            elif (low in ("href", "xlink:href") and tag in ("a", "area")) or low == "cite":
                keep = self.nav_url(value)
            elif low == "srcset":
                keep = self.srcset(value)
                if keep is None:
                    self.images += 1
            elif low in IMAGE_ATTRS and (low != "src" or tag in IMAGE_SRC_TAGS):
                keep = self.image_url(value)
                if keep is None:
                    self.images += 1
                    if low == "src":
                        keep = PLACEHOLDER
                        el.set(f"{ATTR}-src", value)
            elif low in SAFE_ATTRS:
                keep = value
                if "url(" in "".join(value.split()).lower() and self.css(value) != value:
                    keep = None  # an SVG paint url() that is not ``#id``
            if keep is None:
                del el.attrib[name]
            elif keep is not value:
                el.set(name, keep)

    def clean(self, root: Any) -> None:
        """Filter ``root``'s subtree in place (``root`` itself: its attributes only)."""
        self.attributes(root)
        stack = list(root)
        while stack:
            el = stack.pop()
            tag = el.tag if isinstance(el.tag, str) else None
            low = tag.lower() if tag else None
            if low is None or low in DROPPED_TAGS:  # comments, PIs; code, frames...
                if low == "link" and self.remote:
                    if self.link(el):
                        continue
                elif low == "link" and "stylesheet" in (el.get("rel") or "").lower().split():
                    self.sheets += 1
                if low in UNWRAPPED_TAGS:
                    stack.extend(_unwrap(el))
                else:
                    _drop_tree(el)
                continue
            if low not in KEPT_TAGS:
                el.tag = "span"  # an unknown element: its content stays, the name goes
            elif low != tag:
                el.tag = low
            if low == "style":
                # (``<!--``/``-->`` around a sheet, as old pages hide it: ignored by CSS)
                sheet = self.css((el.text or "").replace("<!--", "").replace("-->", ""))
                if sheet is None or "<" in sheet or len(el):
                    _drop_tree(el)  # (a "<" could become markup where the browser's
                    continue  # parser differs from lxml's, as inside <svg>)
                el.text = sheet
                for name in list(el.attrib):
                    if name.lower() not in ("media", "type"):
                        del el.attrib[name]
                continue
            if low in ("textarea", "title"):  # text only: a browser reads no markup there
                text = el.xpath("string()")
                for child in list(el):
                    el.remove(child)
                el.text = text
            self.attributes(el)
            stack.extend(el)

    def link(self, el: Any) -> bool:
        """With ``remote``: keep ``el`` if it is an http(s) style sheet (filtered). Else False."""
        if (el.get("rel") or "").lower().split() != ["stylesheet"]:
            return False
        href = self._absolute(el.get("href") or "")
        if not href or _scheme(href) not in ("http", "https"):
            self.sheets += 1
            return False
        media = el.get("media")
        el.attrib.clear()
        el.set("rel", "stylesheet")
        el.set("href", href)
        if media:
            el.set("media", media)
        el.tag = "link"
        return True


def _legend(
    result: Extraction, groups: dict[Any, list[Block]], missed: int, removed: int, inert: Inert
) -> Any:
    labels = [element_label(b) for b in groups.values()]
    n_content = sum(1 for b in result.blocks if b.label == CONTENT)
    n_boiler = len(result.blocks) - n_content
    params = ", ".join(f"{k}={_fmt(v)}" for k, v in (result.params or {}).items())
    rows = [
        (CONTENT, f"content: {n_content} blocks"),
        (BOILERPLATE, f"boilerplate: {n_boiler} blocks"),
        (MIXED, f"mixed element: {labels.count(MIXED)}"),
    ]
    esc = html_lib.escape
    items = "".join(
        f'<div style="margin:2px 0"><span style="display:inline-block;width:12px;height:12px;'
        f"margin-right:6px;vertical-align:middle;border:2px solid {COLORS[k]};"
        f'background:{TINTS[k]}"></span>{esc(text)}</div>'
        for k, text in rows
    )
    notes = []
    if result.reason:
        notes.append(f"no main text: {result.reason} ({gloss(result.reason)})")
    if missed:
        notes.append(f"{missed} blocks not located in the page")
    if removed:
        notes.append(f"{removed} blocks in elements the view leaves out (scripts, frames...)")
    if not inert.remote and (inert.images or inert.sheets):
        notes.append(
            f"not loaded: {inert.images} remote images, {inert.sheets} style sheets "
            "(--view-remote loads them)"
        )
    notes.append("hover an outlined element for its blocks' fields")
    note_html = "".join(f'<div style="color:#57606a;margin-top:4px">{esc(n)}</div>' for n in notes)
    box = (
        f'<details open {ATTR}-legend="" style="all:initial;position:fixed;right:12px;'
        "bottom:12px;z-index:2147483647;background:#fff;color:#24292f;border:1px solid #d0d7de;"
        "border-radius:6px;padding:8px 12px;font:12px/1.4 system-ui,sans-serif;"
        'box-shadow:0 2px 8px rgba(0,0,0,.2);max-width:320px;display:block">'
        f'<summary style="cursor:pointer;font-weight:600" title="{esc(params)}">'
        f"scrapy-boilerplate: {esc(result.extractor)}</summary>{items}{note_html}</details>"
    )
    return lxml.html.fragment_fromstring(box)


#: Characters of one metadata value shown in the view's panel at most (cut with "…").
MAX_PANEL_CHARS = 500
#: Items of a metadata list (images, authors, breadcrumbs) shown in the panel at most.
MAX_PANEL_ITEMS = 30
#: Metadata fields whose values are URLs: links in the panel when http(s), else text.
_URL_FIELDS = frozenset({"canonical_url", "main_image", "images"})
_UNSAFE_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_CELL = (
    'style="all:initial;display:table-cell;padding:2px 6px;vertical-align:top;font:inherit;'
    "color:inherit;"
)


def _panel_text(value: Any) -> str:
    """``value`` as escaped text for the panel: one line, cut, no control characters."""
    text = " ".join(_UNSAFE_CHARS.sub("", str(value)).split())
    if len(text) > MAX_PANEL_CHARS:
        text = text[: MAX_PANEL_CHARS - 1] + "…"
    return html_lib.escape(text)


def _panel_link(url: Any, label: Any = None) -> str:
    """A link to ``url`` when it is an absolute http(s) URL, else its text (escaped)."""
    shown = _panel_text(url if label is None else label)
    if not isinstance(url, str) or _UNSAFE_CHARS.search(url) or any(c.isspace() for c in url):
        return shown
    if not re.match(r"https?://[^/\\]", url, re.I):
        return shown
    return (
        f'<a href="{html_lib.escape(url)}" rel="noopener noreferrer nofollow" '
        f'style="all:initial;color:#0969da;text-decoration:underline;cursor:pointer;'
        f'font:inherit">{shown}</a>'
    )


def _panel_value(name: str, value: Any) -> str:
    """The panel's cell for metadata field ``name`` (escaped HTML)."""
    if isinstance(value, list):
        items = value[:MAX_PANEL_ITEMS]
        more = f" … and {len(value) - len(items)} more" if len(value) > len(items) else ""
        if name == "breadcrumbs":
            parts = [
                _panel_link(c.get("url"), c.get("name") or c.get("url") or "")
                if isinstance(c, dict)
                else _panel_text(c)
                for c in items
            ]
            return " › ".join(parts) + more
        sep = "<br>" if name in _URL_FIELDS else ", "
        cells = [_panel_link(v) if name in _URL_FIELDS else _panel_text(v) for v in items]
        return sep.join(cells) + more
    return _panel_link(value) if name in _URL_FIELDS else _panel_text(value)


def metadata_panel(metadata: dict[str, Any]) -> Any:
    """The view's panel of the page's metadata: a table of field, value and source, then
    the fields not found and the notes.

    Every value comes from the page, so it is escaped; only http(s) URLs become links
    (``rel="noopener noreferrer nofollow"``). The panel sits in the bottom-left corner,
    folds like the legend and scrolls when long; ``all:initial`` keeps the page's CSS out.
    """
    found = metadata.get("sources")
    sources: dict[str, Any] = found if isinstance(found, dict) else {}
    esc = html_lib.escape
    rows: list[str] = []
    missing: list[str] = []
    names = [k for k in metadata if k not in ("sources", "notes")]
    for name in names:
        value = metadata[name]
        if value in (None, "", [], {}):
            missing.append(name)
            continue
        source = sources.get(name, "")
        rows.append(
            f'<tr {ATTR}-field="{esc(str(name))}" style="all:initial;display:table-row">'
            f'<td {_CELL}font-weight:600;white-space:nowrap">{_panel_text(name)}</td>'
            f'<td {_CELL}word-break:break-word">{_panel_value(name, value)}</td>'
            f'<td {_CELL}color:#57606a;white-space:nowrap">{_panel_text(source)}</td></tr>'
        )
    head = "".join(
        f'<th {_CELL}font-weight:600;text-align:left;color:#57606a">{h}</th>'
        for h in ("field", "value", "source")
    )
    table = (
        '<table style="all:initial;display:table;border-collapse:collapse;margin-top:4px;'
        'font:inherit;color:inherit">'
        f'<tr style="all:initial;display:table-row">{head}</tr>{"".join(rows)}</table>'
        if rows
        else '<div style="margin-top:4px">no metadata found</div>'
    )
    lines = []
    if missing and rows:
        lines.append("not found: " + ", ".join(missing))
    notes = metadata.get("notes")
    for note in (notes if isinstance(notes, list) else [])[:MAX_PANEL_ITEMS]:
        lines.append("note: " + str(note))
    extra = "".join(
        f'<div style="color:#57606a;margin-top:4px">{_panel_text(line)}</div>' for line in lines
    )
    box = (
        f'<details open {ATTR}-metadata="" style="all:initial;position:fixed;left:12px;'
        "bottom:12px;z-index:2147483647;background:#fff;color:#24292f;border:1px solid #d0d7de;"
        "border-radius:6px;padding:8px 12px;font:12px/1.4 system-ui,sans-serif;"
        "box-shadow:0 2px 8px rgba(0,0,0,.2);max-width:min(520px,45vw);max-height:60vh;"
        'overflow:auto;display:block">'
        '<summary style="cursor:pointer;font-weight:600">'
        f"page metadata: {len(rows)} fields</summary>{table}{extra}</details>"
    )
    return lxml.html.fragment_fromstring(box)


def _meta(**attrs: str) -> Any:
    el = etree.Element("meta")
    for name, value in attrs.items():
        el.set(name.replace("_", "-"), value)
    return el


def _base(root: Any, url: str | None) -> str | None:
    """The page's base URL, as its browser would take it (``<base href>`` against ``url``);
    None unless it is http(s): only then may relative URLs be resolved."""
    href = next((b.get("href") for b in root.iter("base") if b.get("href")), None)
    base = url
    if href is not None:
        try:
            base = urllib.parse.urljoin(url or "", href.strip(_STRIP))
        except ValueError:
            base = url
    return base if base and _scheme(base) in ("http", "https") else None


def _inert_document(root: Any, inert: Inert, remote: bool) -> Any:
    """A new ``<html>`` holding the page ``root``'s content made inert by ``inert``.

    Its ``<head>`` is built here and is the first child of ``<html>``, with the CSP
    ``<meta>`` first: the page's own heads give only their title, style sheets and any
    content a parser put there (a page can put a ``<head>`` after its ``</body>``, where a
    browser ignores a CSP). Everything else of the page goes in one ``<body>``.
    """
    out = etree.Element("html")
    for name in ("lang", "dir"):
        if root.get(name):
            out.set(name, root.get(name))
    head = etree.SubElement(out, "head")
    head.append(_meta(http_equiv="Content-Security-Policy", content=CSP_REMOTE if remote else CSP))
    head.append(_meta(charset="utf-8"))
    head.append(_meta(name="referrer", content="no-referrer"))
    head.append(_meta(http_equiv="x-dns-prefetch-control", content="off"))
    body = etree.Element("body")
    title: str | None = None
    styles: list[Any] = []
    parts: list[Any] = []  # what goes in the body, in page order
    if root.text and root.text.strip():
        parts.append(root.text)
    for child in list(root):
        tag = child.tag.lower() if isinstance(child.tag, str) else None
        if tag == "head":
            if child.text and child.text.strip():
                parts.append(child.text)
            for el in list(child):
                low = el.tag.lower() if isinstance(el.tag, str) else None
                if low == "title":
                    title = title if title is not None else el.xpath("string()")
                elif low in ("style", "link"):
                    styles.append(el)
                elif low not in DROPPED_TAGS and low is not None:
                    parts.append(el)  # content a parser left in a head
        elif tag == "body":
            for name, value in child.attrib.items():
                body.set(name, value)
            if child.text:
                parts.append(child.text)
            parts.extend(child)
        elif tag is not None:
            parts.append(child)
        if child.tail and child.tail.strip():
            parts.append(child.tail)
    if title is not None:
        etree.SubElement(head, "title").text = " ".join(title.split())
    for part in parts:
        if isinstance(part, str):
            if len(body):
                body[-1].tail = (body[-1].tail or "") + part
            else:
                body.text = (body.text or "") + part
        else:
            tail = part.tail
            body.append(part)  # (lxml moves the element with its tail)
            part.tail = tail
    sheets = etree.SubElement(head, "div")  # a holder: its children go in the head below
    sheets.extend(styles)
    inert.clean(sheets)
    head.extend(list(sheets))
    head.remove(sheets)
    inert.clean(body)
    out.append(body)
    return out


def notice_page(result: Extraction) -> str:
    """A small page saying why there is no view (input that is not a usable HTML page)."""
    detail = result.extra.get("detail") if isinstance(result.extra, dict) else None
    reason = result.reason or "unknown"
    text = f"{reason}: {detail}" if detail else reason
    esc = html_lib.escape
    return (
        '<!DOCTYPE html>\n<html><head><meta http-equiv="Content-Security-Policy" '
        f'content="{CSP}"><meta charset="utf-8">'
        f"<title>scrapy-boilerplate: no view</title></head><body>"
        f'<p {ATTR}-label="none">scrapy-boilerplate ({esc(result.extractor)}): '
        f"the input is not a usable HTML page ({esc(text)}).</p></body></html>\n"
    )


def render_view(
    page: Any,
    result: Extraction,
    *,
    url: str | None = None,
    encoding: str | None = None,
    remote: bool = False,
) -> str:
    """The page ``page`` (as given to the extractor) with ``result``'s blocks outlined.

    ``url`` and ``encoding`` must be those given to :func:`scrapy_boilerplate.extract`,
    so the copy parses into the same tree; an http(s) ``url`` (or the page's ``<base>``)
    also makes the page's relative links absolute. The view is inert (see the module's
    docstring): ``remote=True`` lets it load the page's http(s) images and style sheets.
    """
    try:
        doc = parse(page, url=url, encoding=encoding)
    except (UnsupportedInput, TypeError):
        return notice_page(result)
    root = doc.root
    if not isinstance(page, (str, bytes, bytearray, memoryview)):
        root = copy.deepcopy(root)  # a caller's tree: left as it was
    groups, missed = locate(root.getroottree(), result.blocks)
    marked = set(groups)
    for el in [e for e in groups if isinstance(e.tag, str) and e.tag.lower() in VOID_TAGS]:
        span = _wrap_void(el, marked)
        if span is not None:
            groups = {span if k is el else k: v for k, v in groups.items()}
            marked = set(groups)

    inert = Inert(_base(root, url), remote)
    out = _inert_document(root, inert, remote)
    body = out[1]
    kept: dict[Any, list[Block]] = {}
    for el, blocks in groups.items():
        if el is root or (el.tag == "body" and not _inside(el, body)):
            kept.setdefault(body, []).extend(blocks)  # the page's <html> or <body> itself
        elif _inside(el, body):
            kept.setdefault(el, []).extend(blocks)
    removed = sum(len(b) for b in groups.values()) - sum(len(b) for b in kept.values())
    containers = {a for el in kept for a in el.iterancestors() if a in kept}
    for el, blocks in kept.items():
        _mark(el, blocks, el in containers)
    body.append(_legend(result, kept, missed, removed, inert))
    if isinstance(result.metadata, dict):
        body.append(metadata_panel(result.metadata))
    return (
        lxml.html.tostring(out, encoding="unicode", method="html", doctype="<!DOCTYPE html>") + "\n"
    )


def _inside(el: Any, body: Any) -> bool:
    """Whether ``el`` is ``body`` or in it (elements the view dropped are not)."""
    return el is body or any(a is body for a in el.iterancestors())
