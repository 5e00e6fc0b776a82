"""Parse a page once (or take the tree Scrapy already parsed), clean it, segment it into blocks.

Every method reads the page through :class:`Document`. Cleaning never mutates
the tree (a Scrapy response's selector keeps working): removed elements are
collected once into a set and every walk skips them. Walks are iterative
(``lxml.etree.iterwalk``), so a 10 000-deep page cannot raise RecursionError.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, overload

import lxml.etree as etree
import numpy as np
from w3lib.encoding import html_to_unicode, read_bom, resolve_encoding

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.core.reasons import Reason

#: Elements whose content is never page text (shared by every method).
REMOVED_TAGS = frozenset(
    {
        "head",
        "script",
        "style",
        "noscript",
        "template",
        "iframe",
        "object",
        "embed",
        "applet",
        "svg",
        "math",
        "canvas",
        "video",
        "audio",
        "map",
        "button",
        "input",
        "textarea",
        "datalist",
        "dialog",
    }
)

#: A ``noscript`` element with at least this much text is kept: it is the page's content
#: for clients without JavaScript (forum engines serve every post that way).
NOSCRIPT_CONTENT_CHARS = 500

#: jusText 3.0.2's own pre-processing (lxml Cleaner): these subtrees are dropped ...
JUSTEXT_REFERENCE_REMOVED = frozenset(
    {
        "head",
        "script",
        "style",
        "applet",
        "button",
        "input",
        "select",
        "textarea",
        "base",
    }
)
#: ... and these tags are unwrapped (their content stays, the tag is gone).
JUSTEXT_REFERENCE_UNWRAPPED = frozenset({"form", "iframe", "embed", "layer", "object", "param"})

#: jusText's block-level tags (the paper's list, plus ``body`` as the reference does).
JUSTEXT_BLOCK_TAGS = frozenset(
    {
        "body",
        "blockquote",
        "caption",
        "center",
        "col",
        "colgroup",
        "dd",
        "div",
        "dl",
        "dt",
        "fieldset",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "legend",
        "li",
        "optgroup",
        "option",
        "p",
        "pre",
        "table",
        "td",
        "textarea",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)

#: jusText's block tags plus the sectioning and grouping elements of HTML5, which jusText
#: predates: with them a page's ``<nav>``, ``<footer>`` or ``<figcaption>`` starts a
#: paragraph of its own instead of running into its neighbours' (:meth:`Document.section_blocks`).
SECTION_BLOCK_TAGS = JUSTEXT_BLOCK_TAGS | frozenset(
    {
        "address",
        "article",
        "aside",
        "details",
        "dialog",
        "dir",
        "figcaption",
        "figure",
        "footer",
        "header",
        "hgroup",
        "main",
        "menu",
        "nav",
        "section",
        "summary",
    }
)

#: Default limit on the decoded page size (characters); larger pages are refused.
MAX_SIZE_DEFAULT = 64 * 1024 * 1024
#: Pages with more elements than this are refused (reason ``too-many-nodes``): every
#: method holds a few kilobytes per element, so this bounds memory whatever the bytes
#: (a million ``<p>x</p>`` are 9 MB). Real pages have a few thousand; the largest
#: real pages of our datasets stitched into 50 MB have about 150 000.
MAX_NODES_DEFAULT = 250_000

# React 18 streaming (Next.js and others) sends each resolved Suspense boundary as
# <div hidden id="S:0">...</div>, which a script then moves into place: it is page content.
_REACT_STREAMED = re.compile(r"S:\d+$")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
_XML_ROOT = re.compile(
    r"^\s*(?:<\?xml[^>]*\?>\s*)(?:<!--.*?-->\s*|<\?.*?\?>\s*)*<([A-Za-z][\w:.-]*)", re.S
)
# Documents that are XML even without an ``<?xml ...?>`` declaration.
_FIRST_TAG = re.compile(r"^\s*(?:<!--.*?-->\s*|<\?.*?\?>\s*)*<([A-Za-z][\w:.-]*)", re.S)
_XML_ONLY_ROOTS = frozenset(
    {
        "rss",
        "feed",
        "rdf:rdf",
        "urlset",
        "sitemapindex",
        "svg",
        "opml",
        "kml",
        "gpx",
        "soap:envelope",
    }
)
_BINARY_MAGIC = (
    b"\x89PNG",
    b"GIF8",
    b"\xff\xd8\xff",
    b"%PDF",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"RIFF",
    b"\x00\x00\x01\x00",
    b"OggS",
    b"ID3",
    b"BM",
)
_HEADING_IN_PATH = re.compile(r"\bh\d\b")  # jusText's test on the dotted tag path


def heading_in_path(tag_path: str) -> bool:
    """True when a dotted tag path (``html.body.h2.a``) goes through an ``<h1>``..``<h6>``
    (jusText's test, :attr:`TextBlock.is_heading`)."""
    return _HEADING_IN_PATH.search(tag_path) is not None


def normalize_whitespace(text: str) -> str:
    """Collapse whitespace runs: to ``"\\n"`` if the run holds a line break, else to a space.

    This is jusText's rule, kept so its block lengths match the reference. Done line by
    line with C-level string methods (``str.split`` splits on the whitespace that ``\\s``
    matches): words of one line are joined by spaces, lines with words by ``"\\n"``; a
    run at either end becomes a space, or ``"\\n"`` when it holds a line break.
    """
    if text.isprintable() and "  " not in text:  # no whitespace but single ASCII spaces
        return text
    lines = text.replace("\r", "\n").split("\n")
    parts = [" ".join(line.split()) for line in lines]
    body = "\n".join([p for p in parts if p])
    if not body:  # whitespace only
        return "\n" if len(lines) > 1 else " "
    if not parts[0]:  # the first line has no words: the leading run holds a line break
        body = "\n" + body
    elif text[0].isspace():
        body = " " + body
    if not parts[-1]:
        body += "\n"
    elif text[-1].isspace():
        body += " "
    return body


def _is_blank(text: str | None) -> bool:
    return not text or text.isspace()


@dataclass(slots=True)
class TextBlock:
    """A segment of the page: its text and where it sits.

    ``element`` is the element the block belongs to (the block-level element
    that opened it, for jusText's segmentation; the text node's parent for DOM
    leaves). ``link_chars`` counts characters inside ``<a>``. ``start`` is the
    block's offset in the blocks' texts joined by one character; for DOM leaves,
    ``source_start`` / ``source_end`` are where its raw text node lies in the page
    as serialised again (see :func:`_leaf_segment`; Web2Text's positions).

    The compiled segmentation leaves ``element`` and ``extra`` to be made when first
    read: most methods read neither, and a proxy and a dict per block were a tenth of
    the walk. ``element`` is then found by the element's place in the tree, recorded by
    the walk (all of a page's blocks' elements in one pass, see
    ``_speedups.NodeElements``): read it before editing the tree, or it names what
    stands at that place now. Both read and compare as plain fields.
    """

    text: str
    element: Any
    tag: str
    xpath: str
    tag_path: str
    link_chars: int
    index: int = 0
    start: int = 0
    tags_count: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    source_start: int = 0
    source_end: int = 0
    # the compiled walk's blocks: where ``element`` is found until it is read
    _elements: Any = field(default=None, init=False, repr=False, compare=False)
    _at: int = field(default=0, init=False, repr=False, compare=False)

    @property
    def link_density(self) -> float:
        """Share of the block's characters inside links (at most 1: jusText counts a link's
        whitespace before the block text is stripped)."""
        n = len(self.text)
        return min(1.0, self.link_chars / n) if n else 0.0

    @property
    def is_heading(self) -> bool:
        """True when the block lies inside an ``<h1>``..``<h6>`` (jusText's test on its path)."""
        return heading_in_path(self.tag_path)


#: TextBlock's slots by field name, as the dataclass made them (``element`` and ``extra``
#: are read through the properties below; the compiled walk fills the slots directly)
_TEXT_BLOCK_SLOTS = {name: TextBlock.__dict__[name] for name in TextBlock.__slots__}


def _lazy_field(name: str, make: Any) -> property:
    """A property over TextBlock's slot ``name`` that fills an empty slot with
    ``make(block)`` on first read."""
    slot = _TEXT_BLOCK_SLOTS[name]
    get, put, drop = slot.__get__, slot.__set__, slot.__delete__

    def read(self: TextBlock) -> Any:
        try:
            return get(self)
        except AttributeError:
            value = make(self)
            put(self, value)
            return value

    doc = f"The block's ``{name}`` (a plain field, made on first read where left empty)."
    return property(read, put, drop, doc)


def _walked_element(block: TextBlock) -> Any:
    elements = block._elements
    if elements is None:  # (deleted, or never set: as a plain slot would)
        raise AttributeError("'TextBlock' object has no attribute 'element'")
    element = elements.element(block._at)
    block._elements = None
    return element


TextBlock.element = _lazy_field("element", _walked_element)  # type: ignore[misc]
TextBlock.extra = _lazy_field("extra", lambda block: {})  # type: ignore[misc, assignment]


@_compiled.twin("block_elements")
def block_elements(blocks: list[TextBlock]) -> list[Any]:
    """Each block's element (``[b.element for b in blocks]``, filling the blocks' lazy
    fields the same way); compiled where ``_speedups`` is built (the slots read and filled
    in C, without a property call per block: a page's features read every block's)."""
    return [b.element for b in blocks]


class Document:
    """A parsed HTML page, cleaned once and shared by every method.

    Build it with :func:`parse`. ``root`` is the ``<html>`` element of the lxml
    tree; it may be the very tree of a Scrapy response, which is never mutated.
    """

    def __init__(
        self,
        root: Any,
        url: str | None = None,
        encoding: str | None = None,
        declared_language: str | None = None,
        max_nodes: int = MAX_NODES_DEFAULT,
    ) -> None:
        self.root = root
        self.tree = root.getroottree()
        self.url = url
        self.encoding = encoding
        self.declared_language = declared_language
        #: The element limit the page was parsed under (0: none), for what a method builds
        #: from it in other ways (a rendered or supplied layout).
        self.max_nodes = max_nodes
        self._removed: set[Any] | None = None
        self.warnings: list[str] = []
        self._cache: dict[str, Any] = {}

    # -- cleaning ---------------------------------------------------------------------------
    @property
    def removed(self) -> set[Any]:
        """Elements whose subtree is not page text: scripts, styles, hidden elements, ..."""
        if self._removed is None:
            self._removed = find_removed(self.root)
        return self._removed

    def is_removed(self, el: Any) -> bool:
        return el in self.removed

    @property
    def body(self) -> Any:
        body = self.root.find("body")
        return body if body is not None else self.root

    def empty_reason(self) -> Reason:
        """Why the page gave no text blocks: ``frameset``, ``too-deep`` or ``no-text``."""
        if Reason.TOO_DEEP in self.warnings:
            return Reason.TOO_DEEP
        if self.root.find(".//frameset") is not None:
            return Reason.FRAMESET
        return Reason.NO_TEXT

    def cached(self, key: str, factory: Any) -> Any:
        """Memoise a per-document computation (segmentations, features) under ``key``."""
        if key not in self._cache:
            self._cache[key] = factory()
        return self._cache[key]

    # -- segmentations ------------------------------------------------------------------------
    def justext_blocks(self, cleaning: str = "default") -> list[TextBlock]:
        """jusText's block-level segmentation (paper, "segmentation"), computed once.

        ``cleaning="default"`` skips what every method skips (:attr:`removed`);
        ``cleaning="reference"`` cleans as jusText 3.0.2 does (it keeps hidden elements
        and ``noscript``, and unwraps ``form``), for exact comparison with it.
        """
        if cleaning == "reference":
            tags = JUSTEXT_REFERENCE_REMOVED
            if self.root.tag[0] == "{":
                tags = frozenset("{*}" + t for t in tags)
            return self.cached(
                "justext_blocks_reference",
                lambda: justext_segment(
                    self.root, set(self.root.iter(*tags)), JUSTEXT_REFERENCE_UNWRAPPED
                ),
            )
        return self.cached("justext_blocks", lambda: justext_segment(self.root, self.removed))

    def section_blocks(self) -> list[TextBlock]:
        """jusText's segmentation with HTML5's sectioning elements as block tags too
        (:data:`SECTION_BLOCK_TAGS`), cleaned as :meth:`justext_blocks` is, computed once:
        paragraphs that never straddle a ``<nav>``, ``<header>`` or ``<footer>``."""
        return self.cached(
            "section_blocks",
            lambda: justext_segment(self.root, self.removed, block_tags=SECTION_BLOCK_TAGS),
        )

    def leaf_blocks(self) -> list[TextBlock]:
        """DOM-leaf text blocks (Web2Text 3.2): one block per non-blank text node, in order
        (none inside :data:`LEAF_SKIPPED_TAGS`)."""
        return self.cached("leaf_blocks", lambda: _leaf_segment(self))

    def collapsed_dom(self) -> CNode:
        """The Collapsed DOM (Web2Text 3.1) whose leaves are :meth:`leaf_blocks`."""
        return self.cached("cdom", lambda: _build_cdom(self))

    def iter_text(self) -> Iterator[tuple[Any, str]]:
        """Yield ``(parent_element, text)`` for every non-blank text node outside removed parts."""
        removed = self.removed
        walker = etree.iterwalk(self.root, events=("start", "end", "comment", "pi"))
        for event, el in walker:
            if event == "start":
                if el in removed:
                    walker.skip_subtree()
                    continue
                if not _is_blank(el.text):
                    yield el, el.text
            else:
                tail = el.tail
                if not _is_blank(tail):
                    parent = el.getparent()
                    if parent is not None:
                        yield parent, tail

    def text_length(self) -> int:
        """Characters of page text (whitespace collapsed), outside removed parts."""
        return self.cached(
            "text_length",
            lambda: sum(len(normalize_whitespace(t.strip())) for _, t in self.iter_text()),
        )


# ---------------------------------------------------------------------------------------------
# Parsing


def parse(
    html: Any,
    url: str | None = None,
    encoding: str | None = None,
    max_size: int = MAX_SIZE_DEFAULT,
    max_nodes: int = MAX_NODES_DEFAULT,
) -> Document:
    """Turn ``str``, ``bytes``, a ``parsel.Selector`` or an lxml tree into a :class:`Document`.

    Bytes are decoded as Scrapy and w3lib do it (BOM, then ``encoding``, then the
    declared ``<meta charset>``, then UTF-8); when the declared encoding does not
    fit the bytes, the decoding with fewest errors wins. Raises
    :class:`~scrapy_boilerplate.core.errors.UnsupportedInput` for empty, binary, XML or
    oversize input (over ``max_size`` bytes or characters, or over ``max_nodes``
    elements; 0 turns a limit off).
    """
    if isinstance(html, Document):
        return html
    root = _tree_root(html)
    if root is not None:
        _check_nodes(root, max_nodes)
        return Document(
            root, url=url, encoding=encoding, declared_language=_lang(root), max_nodes=max_nodes
        )
    if isinstance(html, (bytes, bytearray, memoryview)):
        data = bytes(html)
        if not data or data.isspace():  # (no copy of the page, as strip() makes)
            raise UnsupportedInput(Reason.EMPTY, "no bytes")
        if max_size and len(data) > max_size:
            raise UnsupportedInput(Reason.TOO_LARGE, f"{len(data)} bytes > max_size {max_size}")
        check_binary(data)
        encoding, text = _decode(data, encoding)
    elif isinstance(html, str):
        text = html
        if max_size and len(text) > max_size:
            raise UnsupportedInput(
                Reason.TOO_LARGE, f"{len(text)} characters > max_size {max_size}"
            )
        if _mostly_controls(text[:4096].encode("latin-1", "replace")):
            raise UnsupportedInput(Reason.BINARY, "control characters in text")
    else:
        raise TypeError(
            f"expected str, bytes, parsel.Selector or an lxml tree, got {type(html).__name__}"
        )
    if not text or text.isspace():
        raise UnsupportedInput(Reason.EMPTY, "no text")
    # (matched within the first 4096 characters without slicing them off: no copy)
    m = _XML_ROOT.match(text, 0, 4096)
    if m and m.group(1).lower().split(":")[-1] != "html":
        raise UnsupportedInput(Reason.NOT_HTML, f"XML document with root <{m.group(1)}>")
    m = _FIRST_TAG.match(text, 0, 4096)
    if m and m.group(1).lower() in _XML_ONLY_ROOTS:
        raise UnsupportedInput(Reason.NOT_HTML, f"XML document with root <{m.group(1)}>")
    text = _XML_DECL.sub("", text, count=1)
    # libxml2 reads UTF-8 natively: the decoded text goes in as UTF-8 bytes with the
    # encoding fixed (a <meta charset> or XML declaration no longer applies). Same tree as
    # from the str, and faster; and the scans of check_markup are faster on bytes.
    data = _utf8(text)
    tags = check_markup(data, max_nodes)
    parser = _parser()
    try:
        root = etree.fromstring(data, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise UnsupportedInput(Reason.PARSE_ERROR, str(exc)) from None
    if root is None:
        raise UnsupportedInput(Reason.EMPTY, "no element in the page")
    if not _surely_within(tags, max_nodes):
        _check_nodes(root, max_nodes)
    doc = Document(
        root, url=url, encoding=encoding, declared_language=_lang(root), max_nodes=max_nodes
    )
    if any(e.type_name == "ERR_RESOURCE_LIMIT" and "depth" in e.message for e in parser.error_log):
        # libxml2 stops at 2048 levels and drops the rest
        doc.warnings.append(Reason.TOO_DEEP.value)
    return doc


@_compiled.twin("utf8")
def _utf8(text: str) -> bytes:
    """``text`` as UTF-8, a lone surrogate (text decoded with surrogateescape, say) as
    U+FFFD: libxml2 would stop there and silently drop the rest of the page. The compiled
    ``_speedups.utf8`` encodes faster (docs/document.md; it leaves a surrogate to this
    function)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode("utf-8")


_LOCAL = threading.local()
_COUNT_ELEMENTS = etree.XPath("count(//*)")
_SURROGATE = re.compile("[\ud800-\udfff]")


#: More attributes than this on one tag: libxml2 compares each attribute with all the
#: earlier ones of its tag, so a page of tags with many attributes costs its size times
#: their number, in one uninterruptible call (``benchmarks/attribute_cap.py`` measures it;
#: docs/reliability.md has the figures). At this cap a page of the largest size costs a few
#: ordinary parses of that size; real tags have a handful of attributes, the most found on
#: page of the datasets is below it (``benchmarks/markup_scan.py --survey``).
MAX_ATTRIBUTES = 256


@_compiled.twin("count_tags")
def _count_tags(data: bytes) -> int:
    """The page's ``<`` bytes, counted in numpy (faster than ``bytes.count``); the
    compiled ``_speedups.count_tags`` is faster still."""
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 60))


# The tokens of a tag as libxml2's HTML parser reads them (the HTML5 tokenizer): a run of
# separators (space, tab, newline, form feed, carriage return, "/"), or an attribute (a
# name with or without a value: the name runs to a space, "/", ">" or "="; a value is
# quoted, where ">" and "<" do not end the tag, or runs to a space or ">").
_SEPARATORS = rb"[\t\n\f\r /]+"
_ATTRIBUTE = (
    rb"[^\t\n\f\r />][^\t\n\f\r />=]*"
    rb"(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:\"[^\"]*\"?|'[^']*'?|[^\t\n\f\r >]*))?"
)
_TAG_BODY = re.compile(rb"(?:" + _SEPARATORS + rb"|" + _ATTRIBUTE + rb")*")
_TAG_TOKEN = re.compile(rb"(" + _SEPARATORS + rb")|" + _ATTRIBUTE)
# What a "<" opens outside raw text: a start tag (1: its name), an end tag, a comment (2),
# or a bogus comment ("<!", "<?", "</" and no letter; a doctype), which ends at the next
# ">" wherever it stands. A "<" before anything else is text.
_MARKUP = re.compile(rb"<(?:([A-Za-z][^\t\n\f\r />]*)|/[A-Za-z][^\t\n\f\r />]*|(!--)|[!?/])")
_COMMENT_END = re.compile(rb"--!?>")
# Elements whose content libxml2 reads as text up to their end tag (when their start tag
# does not end in "/>"): RAWTEXT and RCDATA in HTML5's terms, and plaintext (to the end).
_RAW_TEXT = {
    name: re.compile(rb"</(?i:" + name + rb")[\t\n\f\r />]")
    for name in (b"style", b"title", b"textarea", b"xmp", b"iframe", b"noembed", b"noframes")
}
_END = rb"</(?i:script)[\t\n\f\r />]"
# Script data: its end tag, or "<!--", after which "<script" switches to the double-escaped
# state, where "</script" does not end the script (it returns to the escaped state) and
# "-->" ends both.
_SCRIPT = re.compile(_END + rb"|(<!--)")
_SCRIPT_ESCAPED = re.compile(_END + rb"|(-->)|(<(?i:script)[\t\n\f\r />])")
_SCRIPT_DOUBLE_ESCAPED = re.compile(rb"(-->)|(</(?i:script)[\t\n\f\r />])")


def _script_end(data: bytes, pos: int) -> int:
    """Where the content of a ``<script>`` that starts at ``pos`` ends: the ``<`` of its end
    tag, or the end of ``data`` (HTML5's script data states, libxml2's since 2.14)."""
    state = 0  # 0: script data, 1: escaped (after "<!--"), 2: double escaped
    while True:
        if state == 0:
            m = _SCRIPT.search(data, pos)
            if m is None:
                return len(data)
            if m.group(1) is None:  # its end tag
                return m.start()
            state, pos = 1, m.end() - 2  # (its dashes may close it at once: "<!-->")
            continue
        if state == 1:
            m = _SCRIPT_ESCAPED.search(data, pos)
            if m is None:
                return len(data)
            if m.lastindex is None:  # its end tag
                return m.start()
            state = 0 if m.group(1) is not None else 2
        else:
            m = _SCRIPT_DOUBLE_ESCAPED.search(data, pos)
            if m is None:
                return len(data)
            state = 0 if m.group(1) is not None else 1
        pos = m.end()


@_compiled.twin("attributes_over")
def _attributes_over(data: bytes, limit: int) -> int:
    """The attributes of the first tag of ``data`` with more than ``limit``, 0 when none
    has, as libxml2's HTML parser reads its tags (the content of ``<script>``, ``<style>``,
    ``<title>``, ``<textarea>`` and the other raw text elements, comments and quoted values
    hold no tag; an attribute is counted with or without a value). Only a tag of more than
    ``2 * limit`` bytes is counted here; the compiled twin, ``_speedups.attributes_over``,
    counts every tag in one scan."""
    n = len(data)
    pos = 0
    while True:
        m = _MARKUP.search(data, pos)
        if m is None:
            return 0
        pos = m.end()
        if m.group(2) is not None:  # a comment: "<!-->" and "<!--->" are whole comments
            if data.startswith(b">", pos):
                pos += 1
            elif data.startswith(b"->", pos):
                pos += 2
            else:
                close = _COMMENT_END.search(data, pos)
                pos = close.end() if close is not None else n
            continue
        if m.group(0)[1:2] in b"!?" or m.group(0) == b"</":  # a bogus comment, a doctype
            gt = data.find(b">", pos)
            pos = gt + 1 if gt >= 0 else n
            continue
        body = _TAG_BODY.match(data, pos)  # (always matches: every part is optional)
        body_end = body.end() if body is not None else pos
        if (body_end - pos + 1) // 2 > limit and m.group(1) is not None:
            # (each attribute takes two bytes at least: one of name, one of separator)
            count = _count_attributes(data, pos, body_end)
            if count > limit:
                return count
        name = (m.group(1) or b"").lower()
        pos = body_end + 1
        if body_end >= n or (name not in _RAW_TEXT and name not in (b"script", b"plaintext")):
            continue
        if _self_closing(data, m.end(), body_end):  # "<script/>": no content
            continue
        if name == b"plaintext":
            return 0
        pos = _script_end(data, pos) if name == b"script" else _raw_end(data, pos, name)
        # (the end tag's "<": it is read as a tag next)


def _raw_end(data: bytes, pos: int, name: bytes) -> int:
    end = _RAW_TEXT[name].search(data, pos)
    return end.start() if end is not None else len(data)


def _count_attributes(data: bytes, start: int, end: int) -> int:
    return sum(1 for t in _TAG_TOKEN.finditer(data, start, end) if t.group(1) is None)


def _self_closing(data: bytes, start: int, end: int) -> bool:
    """Whether the tag whose attributes are ``data[start:end]`` (``end`` at its ``>``) ends
    in "/>" read as a separator (not as the end of an unquoted value: ``<p a=b/>``)."""
    if data[end - 1 : end] != b"/":
        return False
    tokens = list(_TAG_TOKEN.finditer(data, start, end))
    return bool(tokens) and tokens[-1].group(1) is not None


def check_markup(data: bytes, max_nodes: int) -> int:
    """Refuse, before parsing, markup that would hold the parser or fill memory; return
    the page's number of ``<``.

    Over four ``<`` per allowed element: such a page is far over ``max_nodes`` (an
    element has one or two tags), and the tree alone would cost 300 bytes an element (a
    million ``<p>x</p>``: 300 MB); reason ``too-many-nodes``. A tag with more than
    :data:`MAX_ATTRIBUTES` attributes: reason ``too-many-attributes``. Both scans run in
    C, in time linear in the page. ``data``: the page's bytes
    (:func:`parse` encodes decoded text to UTF-8 first).
    """
    tags = _count_tags(data)
    if max_nodes and tags > 4 * max_nodes:
        raise UnsupportedInput(
            Reason.TOO_MANY_NODES, f"{tags} '<' before parsing > 4 x max_nodes {max_nodes}"
        )
    most = _attributes_over(data, MAX_ATTRIBUTES)
    if most:
        raise UnsupportedInput(
            Reason.TOO_MANY_ATTRIBUTES, f"a tag with {most} attributes > {MAX_ATTRIBUTES}"
        )
    return tags


def _surely_within(tags: int, max_nodes: int) -> bool:
    """Whether a page parsed from markup with ``tags`` ``<`` surely has at most
    ``max_nodes`` elements, so that :func:`_check_nodes` need not count them: libxml2 makes
    an element for a start tag (one ``<`` each) and adds at most ``html``, ``head`` and
    ``body`` (``tests/test_document.py`` checks the bound on hand-written and generated
    markup); twice the tags and 8 more leave a wide margin."""
    return not max_nodes or 2 * tags + 8 <= max_nodes


def _check_nodes(root: Any, max_nodes: int) -> None:
    """Refuse a tree of more than ``max_nodes`` elements (counted by :func:`_count_elements`,
    which stops once past the limit)."""
    if max_nodes and _count_elements(root, max_nodes) > max_nodes:
        raise UnsupportedInput(Reason.TOO_MANY_NODES, f"over max_nodes {max_nodes} elements")


@_compiled.twin("count_elements")
def _count_elements(root: Any, limit: int = 0) -> int:
    """The elements of ``root``'s document (``count(//*)``), or ``limit + 1`` when there are
    more than ``limit`` > 0. By XPath (in C as well, but it builds the node-set); the compiled
    ``_speedups.count_elements`` follows the tree's pointers and stops once past ``limit``."""
    count = int(_COUNT_ELEMENTS(root))
    return limit + 1 if 0 < limit < count else count


@_compiled.twin("elements_named")
def elements_named(root: Any, names: tuple[bytes, ...], any_namespace: bool = False) -> list[Any]:
    """The elements of ``root``'s subtree (``root`` included, in document order) named one
    of ``names`` (exactly: ASCII bytes, as the HTML parser lower-cases them) without a
    namespace, or in any namespace with ``any_namespace``: ``list(root.iter(*names))``
    (``"{*}name"`` each with ``any_namespace``). The compiled
    ``_speedups.elements_named`` compares libxml2's names and makes a proxy for the
    elements found only, where lxml's tag filter makes none either but walks in Python's
    iterator protocol."""
    tags = [name.decode() for name in names]
    return list(root.iter(*(f"{{*}}{t}" for t in tags) if any_namespace else tags))


def _parser() -> Any:
    """One parser per thread: lxml parsers must not be shared by concurrent threads.

    A plain ``etree.HTMLParser`` reading UTF-8 (:func:`parse` hands it the decoded text
    as UTF-8 bytes): ``lxml.html``'s element classes cost a Python call per element proxy,
    and nothing here needs their extra methods. ``collect_ids=False``: libxml2 does not
    file every ``id`` attribute in a hash table of the document (only XPath's ``id()``
    reads it, and nothing here calls it); that table cost 6 % of the parse on wcxb-dev.
    """
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        # huge_tree as parsel (Scrapy) parses: text nodes over 10 MB are kept (without it,
        # libxml2 drops them), nesting stops at 2048 levels instead of 256, so a page's
        # tree is the same whether the body or response.selector is extracted.
        parser = etree.HTMLParser(
            remove_blank_text=False,
            remove_comments=False,
            encoding="utf-8",
            huge_tree=True,
            collect_ids=False,
        )
        _LOCAL.parser = parser
    return parser


def _tree_root(obj: Any) -> Any:
    """The ``<html>`` element of a parsel Selector or an lxml tree/element, else None."""
    sel_root = getattr(obj, "root", None)
    if sel_root is not None and hasattr(obj, "xpath") and hasattr(obj, "type"):
        if getattr(obj, "type", "html") not in ("html", None):
            raise UnsupportedInput(Reason.NOT_HTML, f"selector of type {obj.type!r}")
        if not isinstance(sel_root, etree._Element):
            raise UnsupportedInput(Reason.NOT_HTML, "selector without an element tree")
        obj = sel_root
    if isinstance(obj, etree._ElementTree):
        obj = obj.getroot()
    if isinstance(obj, etree._Element):
        root = obj.getroottree().getroot()
        if root is None or not isinstance(root.tag, str):
            raise UnsupportedInput(Reason.EMPTY, "tree without a root element")
        tag = root.tag.rsplit("}", 1)[-1].lower()
        if tag != "html" and root.find(".//body") is None and tag not in ("body", "div"):
            raise UnsupportedInput(Reason.NOT_HTML, f"tree with root <{root.tag}>")
        return root
    return None


def check_binary(data: bytes) -> None:
    """Refuse bytes that are not text (reason ``binary``)."""
    if _looks_binary(data):
        raise UnsupportedInput(Reason.BINARY, "not text (binary signature or control bytes)")


def _looks_binary(data: bytes) -> bool:
    head = data[:4096]
    if head.startswith(_BINARY_MAGIC):
        return True
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 BOM: text with NULs
        return False
    return _mostly_controls(head)


_CONTROLS = bytes(c for c in range(32) if c not in b"\t\n\v\f\r")


def _mostly_controls(head: bytes) -> bool:
    """Binary rather than text: over 2 % control bytes (NUL included) in the first 4 KB
    (counted over at least 1 KB). Random bytes have 9 %, UTF-16 without a BOM 50 %; an
    HTML page with a stray NUL is text (browsers read it as U+FFFD, and so does lxml)."""
    if not head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROLS))
    return controls * 50 > max(len(head), 1024) or controls * 4 > len(head)


def _decode(data: bytes, encoding: str | None) -> tuple[str, str]:
    """Decode like Scrapy (``w3lib.encoding.html_to_unicode``: BOM, declared, meta, UTF-8).

    Departures, for wrongly declared pages: when the bytes are valid UTF-8 with non-ASCII
    characters, UTF-8 wins over a different declaration (multi-byte UTF-8 sequences do
    not occur by chance in legacy encodings). When the chosen decoding yields U+FFFD
    replacement characters for more than a few percent of the non-ASCII characters, the
    page is taken to be cp1252; a few stray bytes (a body cut mid-character) keep UTF-8.
    """
    content_type = f"text/html; charset={encoding}" if encoding else None
    enc, text = html_to_unicode(content_type, data)
    if read_bom(data)[0] is not None or data.isascii():
        return enc, text
    if resolve_encoding(enc) != "utf-8":
        try:
            return "utf-8", data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    bad = text.count("\ufffd")
    if bad:
        non_ascii = sum(1 for ch in text if ord(ch) > 127)
        if bad > max(3, 0.05 * non_ascii):
            try:
                alt = data.decode("cp1252")
            except UnicodeDecodeError:
                alt = None
            if alt is not None and alt.count("\ufffd") < bad:
                return "cp1252", alt
    return enc, text


#: The metas that declare a page's language (compiled once: compiling it per page cost more
#: than running it)
_LANGUAGE_METAS = etree.XPath(
    "head/meta[translate(@http-equiv,'CONTENTLAGU','contentlagu')='content-language']"
    "/@content | head/meta[@property='og:locale']/@content"
)


def _lang(root: Any) -> str | None:
    """The page's declared language (``<html lang>``, ``Content-Language`` meta, og:locale)."""
    for key in ("lang", "{http://www.w3.org/XML/1998/namespace}lang", "xml:lang"):
        value = root.get(key)
        if value and value.strip():
            return value.strip()
    try:
        metas = _LANGUAGE_METAS(root)
    except etree.XPathError:
        return None
    for value in metas:
        if value.strip():
            return value.strip().split(",")[0].strip()
    return None


@_compiled.twin("find_removed")
def find_removed(root: Any) -> set[Any]:
    """Elements to skip: REMOVED_TAGS, ``hidden`` elements and inline-hidden styles.

    Two exceptions keep what a client without JavaScript would be shown, or what scripts
    would show at once: a ``noscript`` with at least :data:`NOSCRIPT_CONTENT_CHARS` of
    text, and React's streamed Suspense content (``<div hidden id="S:0">``).
    """
    namespaced = root.tag[0] == "{"
    tags = REMOVED_TAGS if not namespaced else {"{*}" + t for t in REMOVED_TAGS}
    removed = set(root.iter(*tags))
    # A noscript that holds the page itself is kept: forum engines (Discourse, Flarum)
    # serve every post inside <noscript> to clients without JavaScript, which is what a
    # crawler is. Tracking pixels and "enable JavaScript" notices are far shorter.
    for el in root.iter("{*}noscript" if namespaced else "noscript"):
        if el in removed and _text_length(el, NOSCRIPT_CONTENT_CHARS) >= NOSCRIPT_CONTENT_CHARS:
            removed.discard(el)
    for attr in _HIDDEN_ATTRS(root):  # attribute values: no element proxy unless it matches
        name = attr.attrname
        if (
            (name == "hidden" and not _REACT_STREAMED.match(attr.getparent().get("id") or ""))
            or (name == "type" and attr.strip().lower() == "hidden")
            or (name == "style" and _HIDDEN_STYLE.search(attr))
        ):
            removed.add(attr.getparent())
    return removed


def _text_length(el: Any, enough: int) -> int:
    """Characters of non-blank text below ``el`` (whitespace runs count once), up to ``enough``."""
    total = 0
    for text in el.itertext():
        total += len(" ".join(text.split()))
        if total >= enough:
            break
    return total


# Selecting attributes is several times faster in libxml2 than testing every element.
_HIDDEN_ATTRS = etree.XPath("//@style | //@hidden | //@type")


# ---------------------------------------------------------------------------------------------
# jusText segmentation: a faithful port of the reference's SAX ParagraphMaker, on our walk.


class _PathNode:
    """A persistent linked path: a block keeps its tag path and XPath without copying a list.

    ``position`` is the element's 1-based index among its parent's children of the same
    tag (removed ones included), so :meth:`xpath` names the element in the real tree in
    O(depth), where ``tree.getpath`` would scan every sibling (quadratic on flat pages).
    """

    __slots__ = (
        "_dotted",
        "_xpath",
        "counts",
        "element",
        "mark",
        "parent",
        "position",
        "tag",
        "unwrapped",
    )

    def __init__(
        self,
        tag: str,
        parent: _PathNode | None,
        element: Any,
        position: int,
        mark: int = -1,
        unwrapped: bool = False,
    ) -> None:
        self.tag = tag
        self.parent = parent
        self.element = element
        self.position = position
        self.mark = mark  # the walk's recorder's mark for the element (WalkRecorder.start)
        self.unwrapped = unwrapped  # left out of the dotted tag path (reference cleaning)
        self.counts: dict[str, int] = {}
        self._xpath: str | None = None
        self._dotted: str | None = None

    def child_position(self, tag: str) -> int:
        n = self.counts.get(tag, 0) + 1
        self.counts[tag] = n
        return n

    def _steps_to_cached(self, attr: str) -> tuple[str, list[_PathNode]]:
        """The nearest ancestor-or-self value of ``attr`` already computed, and the nodes
        below it (root-most first). Iterative: a 10 000-deep page cannot recurse."""
        chain = []
        node: _PathNode | None = self
        while node is not None and getattr(node, attr) is None:
            chain.append(node)
            node = node.parent
        prefix = getattr(node, attr) if node is not None else ""
        chain.reverse()
        return prefix, chain

    def dotted(self) -> str:
        """Tags from the root, dot-separated (jusText's ``dom_path``).

        Cached on the ancestors computed on the way when the path is short, on this
        node alone when it is long, so memory stays linear on pathologically deep pages
        while sibling blocks share their ancestors' work.
        """
        if self._dotted is None:
            parent = self.parent
            if parent is not None and parent._dotted is not None:  # the common case
                if self.unwrapped:
                    self._dotted = parent._dotted
                else:
                    self._dotted = f"{parent._dotted}.{self.tag}" if parent._dotted else self.tag
                return self._dotted
            prefix, chain = self._steps_to_cached("_dotted")
            if len(chain) > _CACHE_CHAIN:
                tags = [prefix] if prefix else []
                tags += [n.tag for n in chain if not n.unwrapped]
                self._dotted = ".".join(tags)
            else:
                for n in chain:
                    if not n.unwrapped:
                        prefix = f"{prefix}.{n.tag}" if prefix else n.tag
                    n._dotted = prefix
        assert self._dotted is not None  # (set above: the chain ends with this node)
        return self._dotted

    def xpath(self) -> str:
        """An XPath naming this element in the tree (every step indexed), cached like
        :meth:`dotted`."""
        if self._xpath is None:
            parent = self.parent
            if parent is not None and parent._xpath is not None:  # the common case
                self._xpath = (
                    f"{parent._xpath}/{xpath_step(self.tag, self.element)}[{self.position}]"
                )
                return self._xpath
            prefix, chain = self._steps_to_cached("_xpath")
            if len(chain) > _CACHE_CHAIN:
                self._xpath = prefix + "".join(
                    f"/{xpath_step(n.tag, n.element)}[{n.position}]" for n in chain
                )
            else:
                for n in chain:
                    prefix = f"{prefix}/{xpath_step(n.tag, n.element)}[{n.position}]"
                    n._xpath = prefix
        assert self._xpath is not None  # (set above: the chain ends with this node)
        return self._xpath


# Paths of at most this many uncached steps are cached on every node on the way.
_CACHE_CHAIN = 64


def local_name(tag: Any) -> str:
    """An element's tag as the walk compares it: lower case, without a namespace (XHTML
    parsed as XML); "" for a comment or processing instruction."""
    if not isinstance(tag, str):
        return ""
    tag = tag.lower()
    return tag[tag.find("}") + 1 :] if tag[0] == "{" else tag


def element_xpath(el: Any) -> str:
    """``el``'s XPath as the walk writes the blocks' xpaths (:meth:`_PathNode.xpath`: every
    step indexed among the siblings of the same name), for an element that no block
    names (what ``render``'s ``_resolve`` follows back to it)."""
    steps = []
    node = el
    while node is not None:
        tag = local_name(node.tag)
        position = 1 + sum(
            1 for sibling in node.itersiblings(preceding=True) if local_name(sibling.tag) == tag
        )
        steps.append(f"{xpath_step(tag, node)}[{position}]")
        node = node.getparent()
    return "/" + "/".join(reversed(steps))


def xpath_step(tag: str, el: Any) -> str:
    """An element's XPath step: ``p``, or a name test where a plain step would not work: a
    namespaced element (XHTML parsed as XML) or a prefixed HTML tag such as MS Word's
    ``o:p`` (``tag``: its lower-case local name)."""
    raw = el.tag
    if raw == tag and tag in _PLAIN_STEPS:  # the common case: a lower-case HTML name
        return tag
    if raw[0] == "{":
        return f"*[local-name()='{tag}']"
    if _SIMPLE_NAME.match(tag):
        return tag
    return f"*[name()='{el.tag}']"


_SIMPLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
#: HTML element names that are their own XPath step (checked once, not per element).
_PLAIN_STEPS = frozenset(
    {
        "html", "head", "body", "div", "span", "p", "a", "ul", "ol", "li", "dl", "dt", "dd",
        "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "colgroup", "col",
        "h1", "h2", "h3", "h4", "h5", "h6", "b", "i", "u", "s", "em", "strong", "small",
        "sub", "sup", "code", "pre", "blockquote", "q", "cite", "abbr", "time", "mark",
        "br", "hr", "img", "figure", "figcaption", "article", "section", "aside", "nav",
        "header", "footer", "main", "form", "label", "input", "button", "select", "option",
        "textarea", "fieldset", "legend", "font", "center", "address", "details", "summary",
        "picture", "source", "video", "audio", "iframe", "noscript", "script", "style",
        "meta", "link", "title", "base", "wbr", "del", "ins", "kbd", "samp", "var", "dfn",
        "bdi", "bdo", "ruby", "rt", "rp", "data", "output", "progress", "meter", "menu",
        "tt", "big", "strike", "nobr", "map", "area", "object", "embed", "param", "svg",
    }
)  # fmt: skip


def _element_tag(el: Any) -> str:
    """Lower-case tag without a namespace ("" for comments and processing instructions)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    if tag[0] == "{":
        tag = tag[tag.find("}") + 1 :]
    return tag.lower()


class _Para:
    __slots__ = ("chunks", "link_chars", "path", "tags_count")

    def __init__(self, path: _PathNode | None) -> None:
        self.path = path
        self.chunks: list[str] = []
        self.link_chars = 0
        self.tags_count = 0


class WalkRecorder(Protocol):
    """What :func:`justext_segment` calls as it walks, where a recorder is given: a method
    records what it needs of the page on the segmentation's own walk, so that the page is
    walked once for both.

    The walk enters every element that is not removed, in document order; a removed
    element is started and ended at once (its subtree is not entered). For each element:
    :meth:`start` (with its ``.text``), the events of its subtree, and :meth:`end` (with
    its ``.tail``); a comment or processing instruction gets :meth:`tail`. Each block the
    walk closes gets :meth:`block`.

    The compiled walk (``_speedups.justext_segment``) calls a compiled recorder instead:
    a subclass of ``_speedups.WalkRecorder`` (declared in ``core/_speedups.pxd``), the twin
    of this one, which :meth:`compiled_recorder` gives. It is called with the same events,
    each text in a call of its own, and given each element's place in the tree (an
    ordinal, see ``_speedups.NodeElements``) where this one is given the element; it gets
    None for a blank ``.text`` / ``.tail`` unless it asks for those (``blank_text``).
    """

    def start(
        self, el: Any, raw: str, tag: str, position: int, removed: bool, text: Any, has_text: Any
    ) -> int:
        """Element ``el`` starts (``raw``: its ``.tag``; ``tag``: its lower-case local name;
        ``position``: 1-based among its parent's children of that tag; ``text``: its
        ``.text``, ``has_text`` true where that is not blank; ``removed``: its subtree is
        skipped, its :meth:`end` comes next, ``text`` is None). Returns the recorder's mark
        for it, given back to :meth:`block` for the blocks whose element it is."""
        ...

    def end(self, el: Any, tail: Any, has_text: Any) -> None:
        """The open element, ``el``, ends; ``tail``: its ``.tail`` (``has_text`` true where
        that is not blank)."""
        ...

    def tail(self, el: Any, tail: Any, has_text: Any) -> None:
        """The ``.tail`` of ``el``, a comment or processing instruction."""
        ...

    def block(self, mark: int) -> None:
        """A block was closed: the mark of its element (-1: the walk's root, no element
        started for it)."""
        ...

    def reset(self) -> None:
        """Forget what was recorded (a compiled walk that stopped part way is started again
        in Python)."""
        ...

    def compiled_recorder(self) -> Any:
        """The compiled twin recording into this recorder (a ``_speedups.WalkRecorder``),
        or None where it is not built: the walk then runs in Python."""
        ...


def _forget_record(
    root: Any,
    removed: set[Any] | frozenset[Any],
    unwrapped: frozenset[str] = frozenset(),
    recorder: WalkRecorder | None = None,
    block_tags: frozenset[str] | None = None,
) -> None:
    """The compiled walk stopped part way: forget what it recorded, for the Python walk to
    start again."""
    if recorder is not None:
        recorder.reset()


@_compiled.twin("justext_segment", on_unsupported=_forget_record)
def justext_segment(
    root: Any,
    removed: set[Any] | frozenset[Any],
    unwrapped: frozenset[str] = frozenset(),
    recorder: WalkRecorder | None = None,
    block_tags: frozenset[str] | None = None,
) -> list[TextBlock]:
    """jusText's paragraphs of the tree under ``root`` in one iterative walk; with
    ``recorder``, the same walk calls it as it goes (see :class:`WalkRecorder`).
    ``block_tags`` replaces the tags that start a new paragraph (default: jusText's own,
    :data:`JUSTEXT_BLOCK_TAGS`).

    This is the reference walk, in Python (``justext_segment.python``). The compiled walk
    (``_speedups.justext_segment``, built at install where a C compiler is at hand) gives
    exactly the same, several times faster, and runs instead where it is built and enabled
    (:mod:`.compiled`); the tests hold the two to the same output.
    """
    blocks: list[TextBlock] = []
    if block_tags is None:
        block_tags = JUSTEXT_BLOCK_TAGS
    path: _PathNode | None = None
    para = _Para(None)
    link = False
    br = False
    offset = 0
    pending_ws: str | None = None  # reference cleaning: whitespace before an unwrapped tag
    record = recorder is not None
    if recorder is not None:
        r_start, r_end = recorder.start, recorder.end
        r_tail, r_block = recorder.tail, recorder.block
    mark = -1  # the recorder's mark for the element that starts

    def close(p: _Para) -> None:
        nonlocal offset
        if not p.chunks:
            return
        text = normalize_whitespace("".join(p.chunks).strip())
        if not text:  # e.g. a lone <br>: the reference drops paragraphs without text
            return
        if not len(blocks) & 255:
            check()  # the page's deadline, every 256 blocks
        node = p.path
        if node is None:
            blocks.append(
                TextBlock(text, root, "", "/", "", p.link_chars, len(blocks), offset, p.tags_count)
            )
            if record:
                r_block(-1)
        else:
            blocks.append(
                TextBlock(
                    text,
                    node.element,
                    node.tag,
                    node.xpath(),
                    node.dotted(),
                    p.link_chars,
                    len(blocks),
                    offset,
                    p.tags_count,
                )
            )
            if record:
                r_block(node.mark)
        offset += len(text) + 2

    def characters(content: str) -> None:
        # Raw chunks: close() normalises the joined text, which gives the same result as
        # the reference's per-chunk normalisation; only link characters need it per chunk.
        nonlocal br
        para.chunks.append(content)
        if link:
            para.link_chars += len(normalize_whitespace(content))
        br = False

    root_counts: dict[str, int] = {}
    names: dict[str, str] = {}  # tag -> lower-case local name
    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if event == "start":
            raw = el.tag
            tag = names.get(raw)
            if tag is None:
                tag = raw.lower()
                if tag[0] == "{":  # XHTML parsed as XML: compare local names
                    tag = tag[tag.find("}") + 1 :]
                names[raw] = tag
            counts = path.counts if path is not None else root_counts
            position = counts[tag] = counts.get(tag, 0) + 1
            if el in removed:
                if record:
                    r_start(el, raw, tag, position, True, None, False)
                walker.skip_subtree()
                continue
            text = el.text
            has_text = text and not text.isspace()
            if record:
                mark = r_start(el, raw, tag, position, False, text, has_text)
            if tag in unwrapped:
                # The reference's Cleaner unwraps the tag: its text joins the text slot
                # before it, whitespace included.
                path = _PathNode(tag, path, el, position, mark, unwrapped=True)
                text = (pending_ws or "") + (text or "")
                if text and not text.isspace():
                    pending_ws = None
                    characters(text)
                else:
                    pending_ws = text or None
                continue
            pending_ws = None
            path = _PathNode(tag, path, el, position, mark)
            if tag in block_tags or (tag == "br" and br):
                if para.chunks:
                    if tag == "br":
                        para.tags_count -= 1  # <br><br> separates blocks, not a tag of one
                    close(para)
                    para = _Para(path)
                else:  # nothing to keep: reuse the empty paragraph
                    para.path = path
                    para.tags_count = 0
            else:
                br = tag == "br"
                if br:
                    para.chunks.append(" ")
                elif tag == "a":
                    link = True
                para.tags_count += 1
            if has_text:  # (characters(), inlined)
                para.chunks.append(text)
                if link:
                    para.link_chars += len(normalize_whitespace(text))
                br = False
            elif unwrapped:
                pending_ws = text or None
            continue
        tail = el.tail  # comments, PIs and removed elements: only the tail is text
        text_tail = tail and not tail.isspace()
        if not record:
            pass
        elif event == "end":
            r_end(el, tail, text_tail)
        else:
            r_tail(el, tail, text_tail)
        if event == "end" and path is not None and path.element is el:  # not a removed one
            tag = path.tag
            unwrapped_end = path.unwrapped
            path = path.parent
            # an unwrapped tag's tail joins the text slot before it, whitespace included
            if unwrapped_end and tail and tail.isspace():
                if para.chunks and pending_ws is None:
                    para.chunks.append(tail)
                else:
                    pending_ws = (pending_ws or "") + tail
                continue
            if not unwrapped_end and tag in block_tags:
                if para.chunks:
                    close(para)
                    para = _Para(path)
                else:
                    para.path = path
                    para.tags_count = 0
            if tag == "a":
                link = False
        if text_tail:  # (characters(), inlined)
            pending_ws = None
            para.chunks.append(tail)
            if link:
                para.link_chars += len(normalize_whitespace(tail))
            br = False
        elif unwrapped:
            pending_ws = tail or None
    close(para)
    return blocks


# ---------------------------------------------------------------------------------------------
# DOM leaves and the Collapsed DOM (Web2Text sections 3.1 and 3.2)


_Node = TypeVar("_Node")


class WeakParent(Generic[_Node]):
    """A tree node's ``parent``, kept in its ``_parent`` attribute as a weak reference
    (None at the root). A tree is held from its root down; parent links held strongly
    would make every node part of a reference cycle, and a page's tree (its lxml proxies
    too) would wait for a full collection of Python's cyclic garbage collector instead of
    being freed when dropped. Used by the Collapsed DOM's :class:`CNode` and by VIPS's
    layout nodes."""

    __slots__ = ()

    @overload
    def __get__(self, node: None, owner: Any = None) -> WeakParent[_Node]: ...
    @overload
    def __get__(self, node: object, owner: Any = None) -> _Node | None: ...
    def __get__(self, node: object | None, owner: Any = None) -> Any:
        if node is None:
            return self
        ref = node._parent  # type: ignore[attr-defined]
        return None if ref is None else ref()

    def __set__(self, node: object, parent: _Node | None) -> None:
        node._parent = None if parent is None else weakref.ref(parent)  # type: ignore[attr-defined]


class CNode:
    """A node of the Collapsed DOM: a chain of single-child elements merged into one node.

    ``tags`` lists the merged elements' tags, outermost first; a leaf's ``block``
    is its :class:`TextBlock`. ``element`` is the innermost merged lxml element (None for
    a text leaf below a node with several children): the node keeps no other element, so
    a long chain costs a tag name (shared) per merged element, not an lxml proxy each;
    :attr:`elements` finds the others through their parents. ``parent`` is held weakly
    (:class:`WeakParent`).
    """

    __slots__ = ("__weakref__", "_parent", "block", "children", "depth", "element", "tags")

    parent = WeakParent["CNode"]()

    def __init__(self, tags: list[str], element: Any, parent: CNode | None) -> None:
        self.tags = tags
        self.element = element
        self.parent = parent
        self.children: list[CNode] = []
        self.block: TextBlock | None = None
        self.depth: int = 0 if parent is None else parent.depth + 1

    @property
    def tag(self) -> str:
        """The innermost merged tag (``#text`` for a leaf)."""
        return self.tags[-1] if self.tags else ""

    @property
    def size(self) -> int:
        """How many elements the node merged (0 for a text leaf below several children)."""
        tags = self.tags
        return len(tags) - 1 if tags and tags[-1] == "#text" else len(tags)

    @property
    def elements(self) -> list[Any]:
        """The merged lxml elements, outermost first (made anew on each read: keep
        the list only while the tree is not edited)."""
        el = self.element
        out: list[Any] = []
        for _ in range(self.size):
            out.append(el)
            el = el.getparent()
        out.reverse()
        return out

    def __repr__(self) -> str:
        return f"CNode({'>'.join(self.tags)}, children={len(self.children)})"


#: Beside the removed elements, the DOM-leaf segmentation leaves these subtrees out, as the
#: Web2Text authors' Collapsed DOM does (their ``Settings.skipTags``; the others there are
#: removed for every method or hold no text): a drop-down list's options and a stray
#: ``<title>`` in the body are no running text. Without them CleanEval's ``web2text_train``
#: pages have 188 blocks a page on average, the count the paper gives (195 with them).
LEAF_SKIPPED_TAGS = frozenset({"select", "title"})

#: Elements serialised without an end tag (for source positions).
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
     "source", "track", "wbr", "basefont", "frame", "isindex", "keygen"}
)  # fmt: skip


def _name_length(name: Any) -> int:
    """Length of a tag or attribute name without its ``{namespace}``."""
    if not isinstance(name, str):
        return 0
    return len(name) - name.find("}") - 1 if name[:1] == "{" else len(name)


_WHITE_SPACE = re.compile(r"\s")  # the characters str.split() splits on
#: Texts longer than this are collapsed by :func:`_single_spaced` piece by piece.
SPACING_PIECE = 1 << 16


def _single_spaced(raw: str) -> str:
    """``" ".join(raw.split())``, in pieces for a long text.

    ``str.split`` makes a string object per word, about 13 times a long text's size: a
    text node of a few megabytes is therefore cut, at white space, into pieces of about
    :data:`SPACING_PIECE` characters, each collapsed on its own (no word spans two pieces).
    """
    if len(raw) <= SPACING_PIECE:
        return " ".join(raw.split())
    parts: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        m = _WHITE_SPACE.search(raw, min(i + SPACING_PIECE, n))
        j = m.start() if m else n
        piece = " ".join(raw[i:j].split())
        if piece:
            parts.append(piece)
        i = j
    return " ".join(parts)


def _leaf_segment(doc: Document) -> list[TextBlock]:
    """DOM-leaf blocks in one iterative walk.

    The same walk measures where each text node lies in the page as serialised again
    (Web2Text's "source code characters"; lxml keeps no source offsets): a start tag
    counts ``len(tag) + 2`` plus ``len(name) + len(value) + 4`` per attribute, an end tag
    ``len(tag) + 3`` (none for void elements), text and tails their raw length, a comment
    its text + 7, a processing instruction and a removed element (script, style, hidden,
    ...) their own serialised length. It also builds the Collapsed DOM
    (:func:`_build_cdom` finishes it) as elements end: an element's children with text
    (its child elements with text and its text blocks, in page order) are kept only while
    it is open, so the walk holds one list per open element, not one per element.
    """
    removed = doc.removed
    blocks: list[TextBlock] = []
    path: _PathNode | None = None
    in_link = 0
    offset = 0
    pos = 0
    names: dict[Any, int] = {}
    tag_paths: dict[str, str] = {}  # one string per distinct tag path, shared by the blocks
    tag_names: dict[str, str] = {}  # one string per tag name, shared by the Collapsed DOM
    kids: list[Any] = []  # the children with text of the open element, in page order
    open_kids: list[list[Any]] = []  # those of its open ancestors
    top: CNode | None = None

    def add(node: _PathNode, raw: str) -> TextBlock:
        nonlocal offset
        if not len(blocks) & 255:
            check()  # the page's deadline, every 256 blocks
        text = _single_spaced(raw)
        dotted = node.dotted()
        block = TextBlock(
            text=text,
            element=node.element,
            tag=node.tag,
            xpath=node.xpath(),
            tag_path=tag_paths.setdefault(dotted, dotted),
            link_chars=len(text) if in_link else 0,
            index=len(blocks),
            start=offset,
            source_start=pos,
            source_end=pos + len(raw),
        )
        del block.extra  # made when first read: most leaf blocks never need a dict
        blocks.append(block)
        offset += len(text) + 1
        return block

    walker = etree.iterwalk(doc.root, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if event == "start":
            tag = _element_tag(el)
            position = path.child_position(tag) if path is not None else 1
            if el in removed or tag in LEAF_SKIPPED_TAGS:
                # its whole serialisation; its "end" event adds nothing
                pos += len(etree.tostring(el, encoding=str, method="html", with_tail=False))
                walker.skip_subtree()
                continue
            path = _PathNode(tag, path, el, position)
            if tag == "a":
                in_link += 1
            open_kids.append(kids)
            kids = []
            name = el.tag
            size = names.get(name)
            if size is None:
                size = names[name] = _name_length(name)
            pos += size + 2
            for key, value in el.items():
                size = names.get(key)
                if size is None:
                    size = names[key] = _name_length(key)
                pos += size + len(value) + 4
            raw = el.text
            if raw:
                if not raw.isspace():
                    kids.append(add(path, raw))
                pos += len(raw)
            continue
        if event == "end":
            if path is not None and path.element is el:  # not a removed or skipped one
                tag = path.tag  # the node of ``el``
                if tag == "a":
                    in_link -= 1
                path = path.parent
                name = el.tag
                if tag not in _VOID:
                    pos += names[name] + 3
                if kids or path is None:
                    node = _cdom_node(el, tag_names.setdefault(name, name), kids)
                else:
                    node = None
                kids = open_kids.pop()
                if node is not None:
                    if path is None:
                        top = node
                    else:
                        kids.append(node)
        elif event == "comment":
            pos += len(el.text or "") + 7
        else:
            pos += len(etree.tostring(el, encoding=str, with_tail=False))
        raw = el.tail
        if raw:
            if path is not None and not raw.isspace():
                kids.append(add(path, raw))
            pos += len(raw)
    if top is None:  # the root itself is removed
        top = CNode([doc.root.tag], doc.root, None)
    doc.cached("cdom_built", lambda: top)
    return blocks


def _cdom_node(el: Any, tag: str, kids: list[Any]) -> CNode:
    """The Collapsed DOM node of an element that ends (``tag``: its name, one string shared
    by every element of that name), from its children with text (nodes already made, and
    text blocks). Chains are built from the inside out, so a node's ``tags`` are innermost
    first and its ``depth`` unset until :func:`_build_cdom` puts them in order. An element
    that joins a chain is not kept: the node keeps its innermost element alone."""
    if len(kids) == 1:
        kid = kids[0]
        if isinstance(kid, CNode):  # a single child element: it joins the chain
            kid.tags.append(tag)
            return kid
        node = CNode(["#text", tag], el, None)  # a single text child: a leaf
        node.block = kid
        return node
    node = CNode([tag], el, None)
    children = node.children
    for kid in kids:
        if isinstance(kid, TextBlock):
            child = CNode(["#text"], None, node)
            child.block = kid
        else:
            child = kid
            child.parent = node
        children.append(child)
    return node


def _build_cdom(doc: Document) -> CNode:
    """Collapse single-child chains (3.1); children are elements with text below, and text leaves.

    Removed elements and elements without text below them are dropped first (3.1's
    "empty nodes" and "nodes without content"); :func:`_leaf_segment` built the tree in the
    walk that made the leaf blocks, chains innermost first: here they are put outermost
    first and every node gets its depth.
    """
    doc.leaf_blocks()
    root: CNode = doc.cached("cdom_built", lambda: None)
    doc._cache.pop("cdom_built", None)
    todo = [root]
    while todo:
        node = todo.pop()
        node.tags.reverse()
        parent = node.parent
        node.depth = 0 if parent is None else parent.depth + 1
        todo.extend(node.children)
    return root
