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

import os
import re
from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.etree as etree

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import (
    LEAF_SKIPPED_TAGS,
    REMOVED_TAGS,
    SECTION_BLOCK_TAGS,
    Document,
    elements_named,
)
from scrapy_boilerplate.core.document import local_name as _local_name
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
#: A block not found at the current place in the page's text is looked for in the next
#: :data:`SCAN_NEAR` text nodes, then in the next :data:`SCAN_WINDOW` text nodes the page
#: shows (a method leaves text out: VIPS what it does not see, Web2Text drop-down lists);
#: then it is written as plain text.
SCAN_NEAR = 1024
SCAN_WINDOW = 64

#: Elements that may hold paragraphs as well as text.
_FLOW_CONTAINERS = frozenset({"li", "dd", "td", "th", "blockquote", "figure", "figcaption"})

# Events of the walk (kinds; an image and a line break come last).
_START, _END, _TEXT, _SPACE, _IMG, _BR = range(6)

_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Characters XML 1.0 does not allow (C0 controls but tab, line feed, carriage return):
#: removed, so the output parses as XML too.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _escape(text: str) -> str:
    """``text`` as HTML text, which also parses as XML."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return _NOT_XML.sub("", text) if _NOT_XML.search(text) else text


def _attribute(text: str) -> str:
    """``text`` as a double-quoted attribute value (line breaks and tabs as spaces)."""
    text = _escape(text).replace('"', "&quot;")
    return text.translate(_ATTR_SPACES) if "\n" in text or "\t" in text or "\r" in text else text


_ATTR_SPACES = {9: " ", 10: " ", 13: " "}
_URL_NOISE = {9: None, 10: None, 13: None}  # browsers remove these anywhere in a URL
_URL_TRIM = "".join(chr(c) for c in range(33))  # and these at either end


def main_html(doc: Document, result: Extraction) -> str:
    """The content blocks of ``result`` as clean HTML fragments, read from ``doc``'s tree.

    Headings, paragraphs, lists, tables, ``pre`` / ``code``, quotations, emphasis, line
    breaks, links (``<a href>``) and images (``<img src alt>``) are kept, URLs made
    absolute against the page's URL and its ``<base href>`` (a URL that cannot be made
    absolute, or whose scheme is not an allowed one, is dropped: a link without one is
    written as its text). Nothing else is: no script, style, frame, form control, event
    handler, ``style``, ``class`` or ``id`` attribute. The result is well-formed (it also
    parses as XML inside one element) and the same for the same input; it has no
    ``<html>`` or ``<body>``. Its text (a line break per ``<br/>`` and block element) is
    the content blocks' texts in order, each once, white space aside (the page's spaces
    between inline elements are kept where a segmentation dropped them); "" when there
    is no content block.

    An image is kept where the text next to it (before or after) is content, inside an
    element that holds content below ``<body>``; a ``<br/>``, where the text on both
    sides is content.
    """
    plan = _plan(doc, result)
    return plan.render() if plan is not None else ""


def content_images(doc: Document, result: Extraction) -> list[dict[str, str]]:
    """The images of the main content (those :func:`main_html` keeps), in page order, each
    ``{"url": absolute URL, "alt": text}``, one per URL, at most :data:`MAX_IMAGES`."""
    made = doc.cached("render_plans", dict).get(id(result))
    if made is not None and made[0] is result:  # main_html's walk, made already
        plan = made[1]
        found = [plan.image(i) for i in plan.images] if plan is not None else []
    else:
        found = _images(doc, result)
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for url, alt in found:
        if url is not None and url not in seen:
            seen.add(url)
            out.append({"url": url, "alt": alt})
            if len(out) >= MAX_IMAGES:
                break
    return out


def _plan(doc: Document, result: Extraction) -> _Plan | None:
    """The walk both :func:`main_html` and :func:`content_images` read, made once for a
    document and a result (the result itself, not an equal one: labels may change)."""
    made = doc.cached("render_plans", dict)
    key = id(result)
    if key in made and made[key][0] is result:
        return made[key][1]
    plan = _make_plan(doc, result)
    made[key] = (result, plan)
    return plan


def _images(doc: Document, result: Extraction) -> list[tuple[str | None, str]]:
    """The (URL, alt) of the images :func:`main_html` keeps, without its walk's events:
    :func:`_image_walk` lists the text nodes and the images, the blocks are matched to the
    text nodes as for :func:`main_html`, and an image is kept by :meth:`_Plan.decide`'s
    rule (content text next to it, inside an element below ``<body>`` that holds content
    text, a usable URL). The same part of the page is read as :func:`_make_plan` reads."""
    prefix = _content_parent(result.blocks)
    if prefix is None:
        return []
    region = _resolve(doc.root, prefix)
    if region is not None and region is not doc.root and not _dropped(region, doc.removed):
        kept = _images_below(doc, result, region, prefix)
        if kept is not None:
            return kept
    return _images_below(doc, result, doc.root, None) or []


def _images_below(
    doc: Document, result: Extraction, top: Any, prefix: str | None
) -> list[tuple[str | None, str]] | None:
    """The kept images of ``top``'s subtree, the element that the xpath ``prefix`` names
    (None: the whole page); None where a content block is not found there (and ``top`` is
    not the whole page)."""
    removed = doc.removed
    depth = sum(
        1 for el in top.iterancestors() if el in removed or _local_name(el.tag) in LEAF_SKIPPED_TAGS
    )
    texts, hidden, images = _image_walk(doc, result, top, depth)
    plan = _Plan(doc, result)
    plan.texts, plan.hidden = texts, hidden
    plan.match(result.blocks, prefix)
    if plan.missed and prefix is not None:
        return None
    content, n = plan.content, len(texts)
    out = []
    for el, piece, first, end in images:
        before = piece > 0 and content[piece - 1]
        after = piece < n and content[piece]
        # (content text inside its outer element: a 1 between first and end, found in C)
        if (before or after) and first >= 0 and content.find(1, first, end) >= 0:
            image = _image_of(plan.urls, el)
            if image[0] is not None:
                out.append(image)
    return out


@_compiled.twin(
    "image_walk",
    arguments=lambda doc, result, top, depth: (
        top,
        doc.removed,
        DROPPED_TAGS,
        REMOVED_TAGS,
        LEAF_SKIPPED_TAGS,
        depth,
    ),
)
def _image_walk(
    doc: Document, result: Extraction, top: Any, depth: int
) -> tuple[list[str], bytearray, list[tuple[Any, int, int, int]]]:
    """:meth:`_Plan.walk`'s text nodes of ``top``'s subtree (``texts``, ``hidden``) and its
    images, each as (element, text nodes before it, first and end text node of its
    outermost open element below ``top`` that is neither ``html`` nor ``body``; -1, -1
    where there is none): what :meth:`_Plan.decide` reads of an image. ``depth``: the
    hiding elements above ``top`` (the walk counts them itself). Read from the walk's
    events here; the compiled ``_speedups.image_walk`` makes no event and no proxy but the
    images'."""
    plan = _Plan(doc, result)
    plan.walk(top)
    images: list[list[Any]] = []
    piece = 0
    stack: list[tuple[bool, list[list[Any]]]] = []  # per open element: page tag, its images
    outer = -1  # the stack level of the outermost element that is not html / body
    first = -1
    for kind, item, tag in zip(plan.kinds, plan.items, plan.tags, strict=True):
        if kind == _START:
            stack.append((tag in ("html", "body"), []))
            if outer < 0 and tag not in ("html", "body"):
                outer, first = len(stack), piece
        elif kind == _END:
            if len(stack) == outer:
                for record in stack[-1][1]:
                    record[3] = piece
                outer = -1
            stack.pop()
        elif kind == _TEXT:
            piece += 1
        elif kind == _IMG:
            record = [item, piece, -1, -1]
            if outer >= 0:
                record[2] = first
                stack[outer - 1][1].append(record)
            images.append(record)
    return plan.texts, plan.hidden, [(r[0], r[1], r[2], r[3]) for r in images]


@_compiled.twin("match_nodes")
def _match_nodes(
    texts: list[str], hidden: bytearray, blocks: list[Block], prefix: str | None = None
) -> tuple[bytearray, dict[int, list[Block]], int, list[Block]]:
    """The blocks that have text (and are at or below the xpath ``prefix``, unless that is
    None) matched to the text nodes ``texts`` in page order, each block to the run of text
    nodes whose characters (white space left out) make its text: per text node,
    whether a content block covers it; the content blocks not found, by the first content
    text node after them; how many; and those after the last one found. A block is
    looked for from where the one before it ended, first among the next
    :data:`SCAN_NEAR` text nodes (with the ``hidden`` ones, or else without them), then in
    the next :data:`SCAN_WINDOW` text nodes the page shows; at most ``8 n + 4096`` text
    nodes are looked at in all, so the time is linear. The compiled
    ``_speedups.match_nodes`` makes no squeezed copies: it compares each text node with
    the block's text in place, white space skipped."""
    if prefix is None:
        blocks = [b for b in blocks if b.text.strip()]
    else:
        inside = prefix + "/"
        blocks = [
            b
            for b in blocks
            if b.text.strip() and (b.xpath.startswith(inside) or b.xpath == prefix)
        ]
    n = len(texts)
    content = bytearray(n)
    fallback: dict[int, list[Block]] = {}
    missed = 0
    squeezed = ["".join(t.split()) for t in texts]
    taken = bytearray(n)
    visible = [n] * (n + 1)  # the first text node from i on that is not hidden
    for i in range(n - 1, -1, -1):
        visible[i] = visible[i + 1] if hidden[i] else i
    cursor = 0
    budget = 8 * n + 4096  # text nodes looked at, for all the blocks: linear time
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
        # the nearest text nodes first (a gap of text the method did not read: a
        # drop-down list, a hidden element), then text nodes the page shows only
        end, with_hidden, j, stop = -1, False, start, min(n, start + SCAN_NEAR)
        while j < stop and budget > 0:
            budget -= 1
            piece = squeezed[j]
            if not taken[j] and target.startswith(piece):
                # with the text the method may not have read, else without it
                with_hidden = True
                end = run(j, True, target)
                if end < 0 and not hidden[j]:
                    with_hidden = False
                    end = run(j, False, target)
                if end >= 0:
                    start = j
                    break
            j += 1
        tries = 0
        j = visible[j] if j < n else n
        while end < 0 and j < n and tries < SCAN_WINDOW and budget > 0:
            budget -= 1
            if not taken[j]:
                tries += 1
                if target.startswith(squeezed[j]):
                    end = run(j, False, target)
                    if end >= 0:
                        start, with_hidden = j, False
                        break
            j = visible[j + 1]
        if end >= 0:
            claim(start, end, with_hidden, is_content)
            cursor = end
            if is_content and pending:
                first = next(i for i in range(start, end) if content[i])
                fallback[first] = pending
                pending = []
        elif is_content:
            pending.append(block)
            missed += 1
    return content, fallback, missed, pending


def _make_plan(doc: Document, result: Extraction) -> _Plan | None:
    prefix = _content_parent(result.blocks)
    if prefix is None:
        return None
    plan = _Plan(doc, result)
    region = _resolve(doc.root, prefix)
    if region is not None and region is not doc.root and not _dropped(region, doc.removed):
        # Only the part of the page that holds every content block is read (about half of
        # a page), with the blocks inside it; where a content block is not found there
        # (its xpath names another tree: a browser's), the whole page is read instead.
        plan.walk(region)
        plan.match(result.blocks, prefix)
        if not plan.missed:
            plan.decide()
            return plan
        plan = _Plan(doc, result)
    plan.walk(doc.root)
    plan.match(result.blocks, None)
    plan.decide()
    return plan


@_compiled.twin("content_parent")
def _content_parent(blocks: list[Block]) -> str | None:
    """:func:`_common_parent` of the xpaths of the content blocks that have text: the part
    of the page that holds the main content; None where there is no such block. The
    compiled ``_speedups.content_parent`` compares the xpaths in place."""
    content = [b.xpath for b in blocks if b.label == CONTENT and b.text.strip()]
    if not content:
        return None
    return _common_parent(content)


def _common_parent(xpaths: list[str]) -> str:
    """The longest path of whole steps that starts every xpath's parent ("": the root)."""
    parents = [x.rsplit("/", 1)[0] for x in xpaths]
    prefix = os.path.commonprefix(parents)  # noqa: RUF071 (by character: cut at a step below)
    if not all(len(x) == len(prefix) or x[len(prefix)] == "/" for x in parents):
        prefix = prefix[: prefix.rfind("/")] if "/" in prefix else ""
    return prefix


# One step of a block's xpath (see document.xpath_step): a name, or a name test, and the
# element's 1-based position among its parent's children of that (lower-case local) name.
_STEP = re.compile(r"/(?:([^/\[*]+)|\*\[(?:local-)?name\(\)='([^']*)'\])\[(\d+)\]")


def _dropped(el: Any, removed: set[Any]) -> bool:
    """Whether ``el`` is, or is inside, an element the walk does not enter."""
    node = el
    while node is not None:
        tag = _local_name(node.tag)
        if tag in DROPPED_TAGS or (tag in REMOVED_TAGS and node in removed):
            return True
        node = node.getparent()
    return False


def _resolve(root: Any, path: str) -> Any:
    """The element a block's xpath (every step indexed) names below ``root``, or None:
    followed step by step (:func:`_follow`), without XPath (a 10 000-step path is a long
    expression)."""
    if not path:
        return root
    names: list[str] = []
    positions: list[int] = []
    at = 0
    for m in _STEP.finditer(path):
        if m.start() != at:
            return None
        at = m.end()
        names.append((m.group(1) or m.group(2)).lower())
        positions.append(int(m.group(3)))
    if at != len(path):
        return None
    return _follow(root, names, positions)


@_compiled.twin("follow_steps")
def _follow(root: Any, names: list[str], positions: list[int]) -> Any:
    """The element that the steps ``names`` / ``positions`` name from ``root`` (the first
    step is ``root`` itself, at position 1; each next one the child of that lower-case
    local name at that 1-based position among its namesakes), or None. The compiled
    ``_speedups.follow_steps`` walks libxml2's children and makes one proxy, the found
    element's."""
    el = None
    for number, (name, position) in enumerate(zip(names, positions, strict=True)):
        if not number & 1023:
            check()
        if el is None:
            if _local_name(root.tag) != name or position != 1:
                return None
            el = root
            continue
        for child in el:
            if _local_name(child.tag) == name:
                position -= 1
                if not position:
                    el = child
                    break
        else:
            return None
    return el


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


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_NETWORK_SCHEMES = frozenset({"http", "https", "ftp"})


def _has_host(url: str, at: int) -> bool:
    """Whether ``url`` has ``//`` and a host from ``at`` on."""
    return url.startswith("//", at) and len(url) > at + 2 and url[at + 2] not in "/?#\\"


class _Urls:
    """A page's URLs made absolute against its base URL, or None where they cannot be, are
    longer than :data:`MAX_URL_CHARS` or have a scheme not allowed. The common shapes (an
    absolute URL, a path from the root, a relative path without dot segments) are joined
    by string operations, the others by ``urllib.parse.urljoin``, which is several times
    slower (a page may have tens of thousands of links)."""

    def __init__(self, base: str | None) -> None:
        self.base = base
        self.scheme = self.origin = self.folder = ""
        if base is not None:
            parts = urlsplit(base)
            self.scheme = parts.scheme
            self.origin = f"{parts.scheme}://{parts.netloc}"
            path = parts.path or "/"
            self.folder = self.origin + path[: path.rfind("/") + 1]

    def absolute(self, raw: str | None, schemes: frozenset[str]) -> str | None:
        if not raw or len(raw) > MAX_URL_CHARS:
            return None
        value = raw.strip(_URL_TRIM)
        if "\t" in value or "\n" in value or "\r" in value:
            value = value.translate(_URL_NOISE)
        if not value:
            return None
        m = _SCHEME.match(value)
        if m is not None:
            scheme = m.group(1).lower()
            if scheme not in schemes:
                return None
            if scheme in _NETWORK_SCHEMES and not _has_host(value, m.end()):
                return None
            return scheme + value[len(scheme) :]
        base = self.base
        if base is None:
            return None
        if value.startswith("//"):
            return f"{self.scheme}:{value}" if _has_host(value, 0) else None
        if value[0] in "?#." or "/." in value or "\\" in value:
            try:
                url = urljoin(base, value)
                parts = urlsplit(url)
            except ValueError:  # (an invalid IPv6 host, say)
                return None
            return url if parts.scheme.lower() in schemes and parts.netloc else None
        return self.origin + value if value[0] == "/" else self.folder + value


class _Plan:
    """The walk's events, the blocks matched to its text nodes, and what is written out."""

    def __init__(self, doc: Document, result: Extraction) -> None:
        # (the document's removed elements, not the document: a plan is kept in the
        # document's cache, and a plan that held it would make a reference cycle, which
        # leaves the whole page to the garbage collector)
        self.removed = doc.removed
        self.result = result
        # events: parallel lists (kind, payload); payload: the element (start, image,
        # line break), the text node's number (text), the raw text (space), None (end)
        self.kinds: list[int] = []
        self.items: list[Any] = []
        self.tags: list[str] = []  # per event: the element's tag (start, end), else ""
        self.texts: list[str] = []  # the text nodes, raw
        # per text node: text that some methods read and others do not (inside an element
        # the page hides, a drop-down list, a stray <title>): a block is matched with it,
        # or else without it
        self.hidden = bytearray()
        self.content = bytearray()  # per text node: part of a content block
        self.fallback: dict[int, list[Block]] = {}  # text node -> unmatched blocks before
        self.trailing: list[Block] = []  # unmatched blocks after the last matched one
        self.missed = 0  # content blocks not found
        self.kept = bytearray()  # per event: written out (an element, image, line break)
        self.ends: list[int] = []  # per start event: its end event
        self.inner: list[int] = []  # per start event: the text nodes inside
        self.images: list[int] = []  # events of the kept images
        self.urls = self._urls(doc)
        self.image_urls: dict[int, tuple[str | None, str]] = {}  # per image event

    # -- 1. the walk -------------------------------------------------------------------------
    def walk(self, top: Any) -> None:
        """Events of the subtree of ``top`` (the root, or the part holding the content)."""
        removed = self.removed
        kinds, items, tags, texts, hidden = (
            self.kinds,
            self.items,
            self.tags,
            self.texts,
            self.hidden,
        )
        hidden_depth = sum(
            1
            for el in top.iterancestors()
            if el in removed or _local_name(el.tag) in LEAF_SKIPPED_TAGS
        )
        hiding: list[bool] = []  # per open element: whether it hides its text (see hidden)
        skipped: Any = None
        names: dict[Any, str] = {}
        add_kind, add_item, add_tag = kinds.append, items.append, tags.append
        add_text, add_hidden = texts.append, hidden.append
        walker = etree.iterwalk(top, events=("start", "end", "comment", "pi"))
        for event, el in walker:
            if not len(kinds) & 1023:
                check()  # the page's deadline, every 1024 events
            if event == "start":
                raw = el.tag
                tag = names.get(raw)
                if tag is None:
                    tag = names[raw] = _local_name(raw)
                if tag in DROPPED_TAGS or (tag in REMOVED_TAGS and el in removed):
                    skipped = el
                    walker.skip_subtree()
                    continue
                is_hidden = el in removed or tag in LEAF_SKIPPED_TAGS
                hiding.append(is_hidden)
                hidden_depth += is_hidden
                add_kind(_IMG if tag == "img" else _BR if tag == "br" else _START)
                add_item(el)
                add_tag(tag)
                value = el.text
            else:
                if event == "end":
                    if el is skipped:
                        skipped = None
                    else:
                        hidden_depth -= hiding.pop()
                        if names[el.tag] not in ("img", "br"):
                            add_kind(_END)
                            add_item(None)
                            add_tag("")
                if not hiding:  # (no tail after ``top``)
                    continue
                value = el.tail
            if not value:
                continue
            if value.isspace():
                add_kind(_SPACE)
                add_item(value)
            else:
                add_kind(_TEXT)
                add_item(len(texts))
                add_text(value)
                add_hidden(1 if hidden_depth else 0)
            add_tag("")

    # -- 2. the blocks matched to text nodes -------------------------------------------------
    def match(self, blocks: list[Block], prefix: str | None) -> None:
        """Which text nodes the text of each block with text covers (``content``), in page
        order, for the blocks at or below the xpath ``prefix`` (None: every block); content
        blocks not found are kept for :attr:`fallback` / :attr:`trailing`."""
        self.content, self.fallback, self.missed, self.trailing = _match_nodes(
            self.texts, self.hidden, blocks, prefix
        )

    # -- 3. what is written out ----------------------------------------------------------------
    def decide(self) -> None:
        """Which elements, images and line breaks are written: an element holding content
        text (or a kept image); an image next to content text inside an element that holds
        content below ``<body>``; a line break between content texts."""
        kinds, items, tags, content = self.kinds, self.items, self.tags, self.content
        m = len(kinds)
        holds = bytearray(m)  # per start event: content text below
        # per start event: its end event, and the text nodes between
        ends, inner = self.ends, self.inner
        ends.extend(bytes(m))
        inner.extend(bytes(m))
        stack: list[int] = []
        counts: list[int] = []
        count = 0
        for e in range(m):
            kind = kinds[e]
            if kind == _START:
                stack.append(e)
                counts.append(count)
            elif kind == _END:
                s = stack.pop()
                ends[s] = e
                inner[s] = count - counts.pop()
                if holds[s] and stack:
                    holds[stack[-1]] = 1
            elif kind == _TEXT:
                count += 1
                if content[items[e]] and stack:
                    holds[stack[-1]] = 1
            if not e & 4095:
                check()
        # the elements written: those holding content text, a kept image or line break
        kept = self.kept = bytearray(holds)
        n = len(self.texts)
        piece = 0  # text nodes before this event
        inside = 0  # open elements holding content, below <body>
        open_holding: list[bool] = []
        for e in range(m):
            kind = kinds[e]
            if kind == _START:
                stack.append(e)
                h = bool(holds[e]) and tags[e] not in ("html", "body")
                open_holding.append(h)
                inside += h
            elif kind == _END:
                stack.pop()
                inside -= open_holding.pop()
            elif kind == _TEXT:
                piece += 1
            elif kind >= _IMG:  # an image or a line break
                before = piece > 0 and content[piece - 1]
                after = piece < n and content[piece]
                if kind == _BR:
                    keep = inside and before and after
                else:
                    keep = inside and (before or after) and self.image(e)[0] is not None
                    if keep:
                        self.images.append(e)
                if keep:
                    kept[e] = 1
                    for s in reversed(stack):  # (up to the first written one: once each)
                        if kept[s]:
                            break
                        kept[s] = 1
            if not e & 4095:
                check()

    def _urls(self, doc: Document) -> _Urls:
        """The page's URL (from the document or the result) and its ``<base href>``, made
        once per document and page URL (every plan of a page reads the same)."""
        page = doc.url or self.result.url
        made = doc.cached("render_urls", dict)
        urls = made.get(page)
        if urls is None:
            urls = made[page] = self._page_urls(doc, page)
        return urls

    @staticmethod
    def _page_urls(doc: Document, page: str | None) -> _Urls:
        page = _Urls(None).absolute(page, IMAGE_SCHEMES) if page else None
        for base in elements_named(doc.root, (b"base",), any_namespace=True):
            # the first with an href counts
            href = base.get("href")
            if href is not None:
                joined = _Urls(page).absolute(href, IMAGE_SCHEMES)
                return _Urls(joined if joined is not None else page)
        return _Urls(page)

    def image(self, e: int) -> tuple[str | None, str]:
        """The URL (None: none usable) and alt text of the image of event ``e``."""
        found = self.image_urls.get(e)
        if found is None:
            found = self.image_urls[e] = _image_of(self.urls, self.items[e])
        return found

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
        ends, inner = self.ends, self.inner
        piece = 0
        e = 0
        steps = 0
        while e < m:
            steps += 1
            if not steps & 4095:
                check()
            kind = kinds[e]
            if kind == _START:
                if not kept[e]:  # nothing written below: on after its end
                    piece += inner[e]
                    e = ends[e] + 1
                    continue
                for block in fallback.pop(next_content[piece], ()):
                    writer.plain_block(block)
                tag = tags[e]
                attrs = ""
                out_tag = tag if tag in BLOCK_TAGS or tag in INLINE_TAGS else ""
                if tag == "a":
                    href = self.urls.absolute(items[e].get("href"), LINK_SCHEMES)
                    if href is None:
                        out_tag = ""
                    else:
                        attrs = f' href="{_attribute(href)}"'
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
                    writer.void("img", f' src="{_attribute(url)}" alt="{_attribute(alt)}"')
                else:
                    writer.void("br", "")
            e += 1
        writer.close_to(0)
        for block in self.trailing:
            writer.plain_block(block)
        writer.close_to(0)
        return writer.html()


def _image_of(urls: _Urls, el: Any) -> tuple[str | None, str]:
    """The URL (None: none usable) and alt text of the image ``el``."""
    url = None
    for name in IMAGE_URL_ATTRIBUTES:
        url = urls.absolute(el.get(name), IMAGE_SCHEMES)
        if url is not None:
            break
    alt = el.get("alt") or ""
    return url, " ".join(alt[: MAX_ALT_CHARS * 2].split())[:MAX_ALT_CHARS]


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
        self.out.append(_escape(value))

    def space(self, value: str) -> None:
        top, _ = self._top()
        if top is None or top in _CONTAINER_CHILD:
            return
        self.out.append(_escape(value) if self.pre else " ")

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
            self.out.append(_escape(block.text))
            self.close_to(depth)
        else:
            self.prepare("#text")
            self.out.append(" " + _escape(_collapsed(block.text)) + " ")
