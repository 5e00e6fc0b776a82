"""The main content as clean HTML (:func:`main_html`) and its images (:func:`content_images`).

Every method's result is a list of blocks (text, xpath, tag, label); the page's tree holds
what the blocks' texts lost: links, images, emphasis, list and table structure. This module
puts the two together for any method, whatever its segmentation (paragraphs that share an
element with other paragraphs, as jusText's do, or one block per DOM text node, as
Web2Text's are):

1. One iterative walk of the tree lists its text nodes (``text`` and ``tail``) in page
   order, with the elements around them; nothing that can hold code or never shows
   (scripts, styles, frames, embedded objects, ...) is entered.
2. The blocks, in page order, are matched to runs of consecutive text nodes by their
   characters (whitespace aside; every segmentation only collapses whitespace). A block's
   text nodes are thus known exactly, and boilerplate text sharing an element with
   content (a ``<div>`` holding a byline and a paragraph) is left out.
3. The elements that hold content text are written out again through an allow-list of
   tags and attributes: links and images with absolute URLs of safe schemes, no other
   attribute. Containers without meaning (``div``, ``span``, ``section``...) are unwrapped;
   text they held directly becomes a paragraph.

A block whose text cannot be found in the tree (a method that read text from elsewhere:
a browser's DOM, a tree parsed again) is written as plain, escaped text at its place in
the order, so the text of the output is always the content blocks' texts, in order.

The tree is read, never changed (it may be a Scrapy response's). Time is linear in the
page, checked against the page's deadline (:func:`~.deadline.check`) as it goes, and no
walk recurses, so a 10 000-deep page is no harder than a flat one.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.etree as etree

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import REMOVED_TAGS, SECTION_BLOCK_TAGS, Document
from scrapy_boilerplate.core.result import CONTENT, Block, Extraction

#: Elements never entered, whatever the method read: code, styles, embedded documents and
#: objects, form controls, metadata (:data:`~.document.REMOVED_TAGS`, but a ``noscript``
#: the document keeps as content, and the few more below).
DROPPED_TAGS = (REMOVED_TAGS - {"noscript"}) | frozenset(
    {"meta", "link", "base", "frame", "frameset", "noembed", "noframes", "param",
     "source", "track", "xmp", "plaintext"}
)  # fmt: skip

#: Inline elements written out (``a`` only with a safe ``href``, ``img`` with a safe
#: ``src``); every other inline element is unwrapped (its content kept).
INLINE_TAGS = frozenset(
    {"a", "abbr", "b", "cite", "code", "del", "em", "i", "ins", "kbd", "mark", "q", "s",
     "samp", "small", "strong", "sub", "sup", "u", "var"}
)  # fmt: skip

#: Block elements written out; other block elements (``div``, ``section``, ``article``,
#: ``center``...) are unwrapped, and a paragraph ends where they start or end.
BLOCK_TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "table",
     "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "pre", "blockquote", "figure",
     "figcaption"}
)  # fmt: skip

#: Unwrapped elements that end a paragraph (HTML's block-level elements).
_BOUNDARY_TAGS = SECTION_BLOCK_TAGS | frozenset({"noscript", "hr", "form", "option", "optgroup"})

#: Elements that hold only other elements: text or an inline element in one is wrapped in
#: the child element named here (text straight in a ``<ul>``: a list item).
_CONTAINER_CHILD = {
    "ul": "li",
    "ol": "li",
    "dl": "dd",
    "table": "tr",
    "thead": "tr",
    "tbody": "tr",
    "tfoot": "tr",
    "tr": "td",
}

#: The outermost of those (a row made for a cell in a table is kept to hold more cells).
_OUTER_CONTAINERS = frozenset({"ul", "ol", "dl", "table"})

#: Elements that need a given parent, and the one made when it is missing.
_REQUIRED_PARENT: dict[str, tuple[frozenset[str], str]] = {
    "li": (frozenset({"ul", "ol"}), "ul"),
    "dt": (frozenset({"dl"}), "dl"),
    "dd": (frozenset({"dl"}), "dl"),
    "tr": (frozenset({"table", "thead", "tbody", "tfoot"}), "table"),
    "td": (frozenset({"tr"}), "tr"),
    "th": (frozenset({"tr"}), "tr"),
    "thead": (frozenset({"table"}), "table"),
    "tbody": (frozenset({"table"}), "table"),
    "tfoot": (frozenset({"table"}), "table"),
    "caption": (frozenset({"table"}), "table"),
}

#: URL schemes a link may have; images must be ``http`` or ``https``. Everything else
#: (``javascript:``, ``vbscript:``, ``data:``, ``file:``...) is dropped, ``data:`` images
#: too whatever their size: a page's inline images are mostly placeholders of lazy
#: loading, and an item is no place for megabytes of base64.
LINK_SCHEMES = frozenset({"http", "https", "ftp", "mailto", "tel"})
IMAGE_SCHEMES = frozenset({"http", "https"})
#: Longer URLs (and ``alt`` texts) are dropped (cut): they bound the output's size.
MAX_URL_CHARS = 8192
MAX_ALT_CHARS = 1000
#: Where an image's URL is read, in this order: ``src``, then the attributes of the common
#: lazy-loading scripts (whose ``src`` is a placeholder, dropped above).
IMAGE_URL_ATTRIBUTES = ("src", "data-src", "data-lazy-src", "data-original")
#: At most this many images from :func:`content_images`.
MAX_IMAGES = 100
#: A block not found at the current place in the page's text is looked for in at most
#: this many following text nodes (a method that leaves text out, as VIPS does with
#: what it does not see); then it is written as plain text.
SCAN_WINDOW = 64

#: Elements that may hold paragraphs as well as text.
_FLOW_CONTAINERS = frozenset({"li", "dd", "td", "th", "blockquote", "figure", "figcaption"})

# Events of the walk (kinds).
_START, _END, _TEXT, _SPACE, _IMG, _BR = range(6)

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Characters XML 1.0 does not allow (C0 controls but tab, line feed, carriage return):
#: removed, so the output parses as XML too.
_NOT_XML = {c: None for c in range(32) if c not in (9, 10, 13)}
_URL_NOISE = {9: None, 10: None, 13: None}  # browsers remove these anywhere in a URL
_URL_TRIM = "".join(chr(c) for c in range(33))  # and these at either end
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"} | _NOT_XML)
_ATTR_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"} | _NOT_XML | {9: " ", 10: " ", 13: " "}
)


def main_html(doc: Document, result: Extraction) -> str:
    """The content blocks of ``result`` as clean HTML fragments, read from ``doc``'s tree.

    Headings, paragraphs, lists, tables, ``pre`` / ``code``, quotations, emphasis, line
    breaks, links (``<a href>``) and images (``<img src alt>``) are kept, URLs made
    absolute against the page's URL and its ``<base href>`` (a URL that cannot be made
    absolute, or whose scheme is not an allowed one, is dropped: a link without one is
    written as its text). Nothing else is: no script, style, frame, form control, event
    handler, ``style``, ``class`` or ``id`` attribute. The result is well-formed (it also
    parses as XML inside one element) and the same for the same input; it has no
    ``<html>`` or ``<body>``. Its text (a line break per ``<br/>`` and block element,
    whitespace collapsed) is the content blocks' texts in order, each once; "" when
    there is no content block.

    An image is kept where the text next to it (before or after) is content, inside an
    element that holds content below ``<body>``; a ``<br/>``, where the text on both
    sides is content.
    """
    plan = _plan(doc, result)
    return plan.render() if plan is not None else ""


def content_images(doc: Document, result: Extraction) -> list[dict[str, str]]:
    """The images of the main content (those :func:`main_html` keeps), in page order, each
    ``{"url": absolute URL, "alt": text}``, one per URL, at most :data:`MAX_IMAGES`."""
    plan = _plan(doc, result)
    if plan is None:
        return []
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for i in plan.images:
        url, alt = plan.image(i)
        if url is not None and url not in seen:
            seen.add(url)
            out.append({"url": url, "alt": alt})
            if len(out) >= MAX_IMAGES:
                break
    return out


def _plan(doc: Document, result: Extraction) -> _Plan | None:
    content = [b for b in result.blocks if b.label == CONTENT and b.text.strip()]
    if not content:
        return None
    plan = _Plan(doc, result)
    plan.walk()
    plan.match([b for b in result.blocks if b.text.strip()])
    plan.decide()
    return plan


def _collapsed(text: str) -> str:
    """Whitespace runs as one space, kept at either end."""
    inner = " ".join(text.split())
    if not inner:
        return " "
    if text[0].isspace():
        inner = " " + inner
    if text[-1].isspace():
        inner += " "
    return inner


def _clean_url(raw: str | None, base: str | None, schemes: frozenset[str]) -> str | None:
    """``raw`` made absolute against ``base``, or None where it cannot be, is too long or
    has a scheme outside ``schemes``."""
    if not raw or len(raw) > MAX_URL_CHARS:
        return None
    value = raw.translate(_URL_NOISE).strip(_URL_TRIM)
    if not value:
        return None
    try:
        url = urljoin(base, value) if base else value
        parts = urlsplit(url)
    except ValueError:  # (an invalid IPv6 host, say)
        return None
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        return None
    if scheme in ("http", "https", "ftp") and not parts.netloc:
        return None
    return url


class _Plan:
    """The walk's events, the blocks matched to its text nodes, and what is written out."""

    def __init__(self, doc: Document, result: Extraction) -> None:
        self.doc = doc
        self.result = result
        # events: parallel lists (kind, payload); payload: the element (start, image,
        # line break), the text node's number (text), the raw text (space), None (end)
        self.kinds: list[int] = []
        self.items: list[Any] = []
        self.tags: list[str] = []  # per event: the element's tag (start, end), else ""
        self.texts: list[str] = []  # the text nodes, raw
        self.hidden = bytearray()  # per text node: inside an element the page hides
        self.content = bytearray()  # per text node: part of a content block
        self.fallback: dict[int, list[Block]] = {}  # text node -> unmatched blocks before
        self.trailing: list[Block] = []  # unmatched blocks after the last matched one
        self.kept = bytearray()  # per event: written out (an element, image, line break)
        self.images: list[int] = []  # events of the kept images
        self.base = self._base_url()

    # -- 1. the walk -------------------------------------------------------------------------
    def walk(self) -> None:
        removed = self.doc.removed
        kinds, items, tags, texts, hidden = (
            self.kinds,
            self.items,
            self.tags,
            self.texts,
            self.hidden,
        )
        hidden_depth = 0
        hiding: list[bool] = []  # per open element: whether it is hidden (and not dropped)
        skipped: Any = None
        names: dict[Any, str] = {}

        def text(value: str) -> None:
            if value.isspace():
                kinds.append(_SPACE)
                items.append(value)
            else:
                kinds.append(_TEXT)
                items.append(len(texts))
                texts.append(value)
                hidden.append(1 if hidden_depth else 0)
            tags.append("")

        walker = etree.iterwalk(self.doc.root, events=("start", "end", "comment", "pi"))
        for event, el in walker:
            if not len(kinds) & 1023:
                check()  # the page's deadline, every 1024 events
            if event == "start":
                raw = el.tag
                tag = names.get(raw)
                if tag is None:  # its lower-case local name (XHTML parsed as XML too)
                    tag = raw.lower()
                    names[raw] = tag = tag[tag.find("}") + 1 :] if tag[0] == "{" else tag
                if tag in DROPPED_TAGS or (tag in REMOVED_TAGS and el in removed):
                    skipped = el
                    walker.skip_subtree()
                    continue
                is_hidden = el in removed
                hiding.append(is_hidden)
                hidden_depth += is_hidden
                if tag == "img":
                    kinds.append(_IMG)
                elif tag == "br":
                    kinds.append(_BR)
                else:
                    kinds.append(_START)
                items.append(el)
                tags.append(tag)
                value = el.text
                if value:
                    text(value)
                continue
            if event == "end":
                if el is skipped:
                    skipped = None
                else:
                    hidden_depth -= hiding.pop()
                    tag = names[el.tag]
                    if tag != "img" and tag != "br":
                        kinds.append(_END)
                        items.append(None)
                        tags.append(tag)
            value = el.tail
            if value and hiding:  # (not after the root)
                text(value)

    # -- 2. the blocks matched to text nodes -------------------------------------------------
    def match(self, blocks: list[Block]) -> None:
        texts, hidden, content = self.texts, self.hidden, self.content
        n = len(texts)
        squeezed = ["".join(t.split()) for t in texts]
        content.extend(bytes(n))
        taken = bytearray(n)
        visible = [n] * (n + 1)  # the first text node from i on that is not hidden
        for i in range(n - 1, -1, -1):
            visible[i] = visible[i + 1] if hidden[i] else i
        cursor = 0
        pending: list[Block] = []  # content blocks not found, waiting for a place

        def run(start: int, with_hidden: bool, target: str) -> int:
            """The end of the text nodes from ``start`` whose characters make ``target``
            (hidden ones left out unless ``with_hidden``), or -1."""
            pos = 0
            i = start
            size = len(target)
            while i < n:
                if taken[i] or (hidden[i] and not with_hidden):
                    i += 1
                    continue
                piece = squeezed[i]
                if not target.startswith(piece, pos):
                    return -1
                pos += len(piece)
                i += 1
                if pos == size:
                    return i
            return -1

        def claim(start: int, end: int, with_hidden: bool, is_content: bool) -> None:
            for i in range(start, end):
                if taken[i] or (hidden[i] and not with_hidden):
                    continue
                taken[i] = 1
                if is_content:
                    content[i] = 1

        for number, block in enumerate(blocks):
            if not number & 255:
                check()
            target = "".join(block.text.split())
            is_content = block.label == CONTENT
            start = cursor
            while start < n and taken[start]:
                start += 1
            with_hidden = True
            end = run(start, True, target) if start < n else -1
            if end < 0:
                with_hidden = False
                tries = 0
                j = visible[start] if start < n else n
                while j < n and tries <= SCAN_WINDOW:
                    if taken[j]:
                        j = visible[j + 1]
                        continue
                    tries += 1
                    if squeezed[j] and target.startswith(squeezed[j]):
                        end = run(j, False, target)
                        if end >= 0:
                            start = j
                            break
                    j = visible[j + 1]
            if end >= 0:
                claim(start, end, with_hidden, is_content)
                cursor = end
                if is_content and pending:
                    first = next(i for i in range(start, end) if content[i])
                    self.fallback[first] = pending
                    pending = []
            elif is_content:
                pending.append(block)
        self.trailing = pending

    # -- 3. what is written out ----------------------------------------------------------------
    def decide(self) -> None:
        """Which elements, images and line breaks are written: an element holding content
        text (or a kept image); an image next to content text inside an element that holds
        content below ``<body>``; a line break between content texts."""
        kinds, items, tags, content = self.kinds, self.items, self.tags, self.content
        m = len(kinds)
        holds = bytearray(m)  # per start event: content text below
        stack: list[int] = []
        for e in range(m):
            kind = kinds[e]
            if kind == _START:
                stack.append(e)
            elif kind == _END:
                s = stack.pop()
                if holds[s] and stack:
                    holds[stack[-1]] = 1
            elif kind == _TEXT and content[items[e]] and stack:
                holds[stack[-1]] = 1
            if not e & 4095:
                check()
        kept = self.kept = bytearray(m)
        n = len(self.texts)
        piece = 0  # text nodes before this event
        inside = 0  # open elements holding content, below <body>
        open_holding: list[bool] = []
        for e in range(m):
            kind = kinds[e]
            if kind == _START:
                h = bool(holds[e]) and tags[e] not in ("html", "body")
                open_holding.append(h)
                inside += h
            elif kind == _END:
                inside -= open_holding.pop()
            elif kind == _TEXT:
                piece += 1
            elif kind in (_IMG, _BR):
                before = piece > 0 and content[piece - 1]
                after = piece < n and content[piece]
                if kind == _BR:
                    kept[e] = inside and before and after
                elif inside and (before or after) and self.image(e)[0] is not None:
                    kept[e] = 1
                    self.images.append(e)
            if not e & 4095:
                check()
        # the elements written: those holding content text or a kept image
        stack.clear()
        for e in range(m):
            kind = kinds[e]
            if kind == _START:
                stack.append(e)
                kept[e] = holds[e]
            elif kind == _END:
                s = stack.pop()
                if kept[s] and stack:
                    kept[stack[-1]] = 1
            elif kept[e] and stack:  # a kept image or line break
                kept[stack[-1]] = 1
            if not e & 4095:
                check()

    def _base_url(self) -> str | None:
        page = self.doc.url or self.result.url
        page = _clean_url(page, None, LINK_SCHEMES) if page else None
        root = self.doc.root
        base = root.find(".//{*}base[@href]") if root.tag[0] == "{" else root.find(".//base[@href]")
        if base is not None:
            joined = _clean_url(base.get("href"), page, IMAGE_SCHEMES)
            if joined is not None:
                return joined
        return page

    def image(self, e: int) -> tuple[str | None, str]:
        """The URL (None: none usable) and alt text of the image of event ``e``."""
        el = self.items[e]
        url = None
        for name in IMAGE_URL_ATTRIBUTES:
            url = _clean_url(el.get(name), self.base, IMAGE_SCHEMES)
            if url is not None:
                break
        alt = el.get("alt") or ""
        return url, " ".join(alt[: MAX_ALT_CHARS * 2].split())[:MAX_ALT_CHARS]

    # -- 4. the HTML ------------------------------------------------------------------------------
    def render(self) -> str:
        kinds, items, tags, kept = self.kinds, self.items, self.tags, self.kept
        texts, content = self.texts, self.content
        writer = _Writer()
        # per open source element: the writer's depth before it, and whether it was written
        opened: list[tuple[int, bool, bool]] = []
        m = len(kinds)
        n = len(texts)
        # the first content text node from i on: blocks not found before it are written
        # where the first written element before it starts (a paragraph of their own)
        next_content = [n] * (n + 1)
        for i in range(n - 1, -1, -1):
            next_content[i] = i if content[i] else next_content[i + 1]
        fallback = dict(self.fallback)
        piece = 0
        e = 0
        skip_depth = 0
        while e < m:
            if not e & 4095:
                check()
            kind = kinds[e]
            if skip_depth:
                if kind == _START:
                    skip_depth += 1
                elif kind == _END:
                    skip_depth -= 1
                elif kind == _TEXT:
                    piece += 1
                e += 1
                continue
            if kind == _START:
                if not kept[e]:
                    skip_depth = 1
                    e += 1
                    continue
                for block in fallback.pop(next_content[piece], ()):
                    writer.plain_block(block)
                tag = tags[e]
                attrs = ""
                out_tag = tag if tag in BLOCK_TAGS or tag in INLINE_TAGS else ""
                if tag == "a":
                    href = _clean_url(items[e].get("href"), self.base, LINK_SCHEMES)
                    if href is None:
                        out_tag = ""
                    else:
                        attrs = f' href="{href.translate(_ATTR_ESCAPES)}"'
                elif tag in ("td", "th"):
                    attrs = _span_attributes(items[e])
                boundary = not out_tag and tag in _BOUNDARY_TAGS
                if boundary:
                    writer.end_paragraph()
                    writer.boundaries.append(len(writer.stack))
                depth = len(writer.stack)
                if out_tag:
                    writer.open(out_tag, attrs)
                opened.append((depth, bool(out_tag), boundary))
            elif kind == _END:
                depth, written, boundary = opened.pop()
                if written:
                    writer.close_to(depth)
                elif boundary:
                    writer.end_paragraph()
                    writer.boundaries.pop()
            elif kind == _TEXT:
                i = items[e]
                piece += 1
                for block in fallback.pop(i, ()):
                    writer.plain_block(block)
                if content[i]:
                    writer.text(texts[i])
            elif kind == _SPACE:
                writer.space(items[e])
            elif kept[e]:
                if kind == _IMG:
                    url, alt = self.image(e)
                    assert url is not None  # (kept images have one)
                    src, alt = url.translate(_ATTR_ESCAPES), alt.translate(_ATTR_ESCAPES)
                    writer.void("img", f' src="{src}" alt="{alt}"')
                else:
                    writer.void("br", "")
            e += 1
        writer.close_to(0)
        for block in self.trailing:
            writer.plain_block(block)
        writer.close_to(0)
        return writer.html()


def _span_attributes(el: Any) -> str:
    out = ""
    for name in ("colspan", "rowspan"):
        value = (el.get(name) or "").strip()
        if value.isdigit() and value.isascii() and 1 < int(value) <= 1000:
            out += f' {name}="{int(value)}"'
    return out


class _Writer:
    """Writes elements and text, opening the parents the HTML needs (a list item's list, a
    paragraph for loose text) and closing each element it opened."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, made here)
        self.pre = 0
        # per open unwrapped block element of the source (a div): the depth of the stack
        # when it started; loose text in it, straight inside a list item or a cell, gets a
        # paragraph of its own, so that two divs in one list item stay two paragraphs
        self.boundaries: list[int] = []

    def html(self) -> str:
        return "".join(self.out).strip()

    def _top(self) -> tuple[str | None, bool]:
        return self.stack[-1] if self.stack else (None, False)

    def prepare(self, tag: str) -> None:
        """Make the place for ``tag`` (``#text`` for text, ``img``, ``br``...)."""
        for _ in range(8):  # (a few steps at most: table, row, cell)
            top, made = self._top()
            required = _REQUIRED_PARENT.get(tag)
            if required is not None:
                parents, wrapper = required
                if top in parents:
                    return
                if made:  # (a paragraph, a cell or a list item made here: it ends)
                    self.close_top()
                    continue
                self.open(wrapper, "", made=True)
                continue
            if top in _CONTAINER_CHILD:
                if made and top in _OUTER_CONTAINERS:  # made for an item: the items end
                    self.close_top()
                    continue
                self.open(_CONTAINER_CHILD[top], "", made=True)
                continue
            if tag in BLOCK_TAGS:
                if made and top == "p":
                    self.close_top()
                    continue
                return
            if top is None or (
                not made
                and top in _FLOW_CONTAINERS
                and self.boundaries
                and self.boundaries[-1] == len(self.stack)
            ):
                self.open("p", "", made=True)
            return

    def open(self, tag: str, attrs: str, made: bool = False) -> None:
        self.prepare(tag)
        self.out.append(f"<{tag}{attrs}>")
        self.stack.append((tag, made))
        if tag == "pre":
            self.pre += 1

    def close_top(self) -> None:
        tag, _ = self.stack.pop()
        if tag == "pre":
            self.pre -= 1
        self.out.append(f"</{tag}>\n" if tag in BLOCK_TAGS else f"</{tag}>")

    def close_to(self, depth: int) -> None:
        while len(self.stack) > depth:
            self.close_top()

    def end_paragraph(self) -> None:
        """Close the elements made here on top (a paragraph of loose text, a list made for
        loose list items): the source's block ends."""
        while self.stack and self.stack[-1][1]:
            self.close_top()

    def text(self, value: str) -> None:
        self.prepare("#text")
        if not self.pre:
            value = _collapsed(value)
        self.out.append(value.translate(_TEXT_ESCAPES))

    def space(self, value: str) -> None:
        top, _ = self._top()
        if top is None or top in _CONTAINER_CHILD:
            return
        self.out.append(value.translate(_TEXT_ESCAPES) if self.pre else " ")

    def void(self, tag: str, attrs: str) -> None:
        self.prepare(tag)
        self.out.append(f"<{tag}{attrs}/>")

    def plain_block(self, block: Block) -> None:
        """A block not found in the tree: its text, escaped, as a paragraph (a heading or
        preformatted text where it was one) when a block may stand here, else inline."""
        self.end_paragraph()
        top, _ = self._top()
        if top is None or top in _FLOW_CONTAINERS:
            tag = block.tag if block.tag in _HEADINGS or block.tag == "pre" else "p"
            depth = len(self.stack)
            self.open(tag, "")
            self.out.append(block.text.translate(_TEXT_ESCAPES))
            self.close_to(depth)
        else:
            self.prepare("#text")
            self.out.append(" " + _collapsed(block.text).translate(_TEXT_ESCAPES) + " ")
