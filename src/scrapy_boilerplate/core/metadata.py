"""Page metadata: title, authors, dates, description, canonical URL, site name, images,
breadcrumbs, read from the one parsed :class:`~scrapy_boilerplate.core.document.Document`.

Sources, in order of trust: the page's structured data (JSON-LD and microdata, read by
extruct, the Scrapy ecosystem's library for them), its ``<meta>`` tags (OpenGraph, Twitter
cards, Dublin Core and the common publisher tags, read in one pass over the page's
``<meta>`` and ``<link>`` elements), then the page itself: the main heading next to the main
text, bylines, ``<time>`` elements, the date in the URL and, for pages that publish
(articles, forums), htmldate's search of the page. Every field records where it came from
(``sources``); what was refused on the way (a JSON-LD block too large or broken, a date
out of range, a ``javascript:`` image) is said in ``notes``.

Everything is bounded: a JSON-LD block over :data:`MAX_JSONLD_CHARS` characters is not
parsed, text fields are cut at :data:`MAX_TEXT_CHARS`, lists at a few dozen entries, URLs
at :data:`MAX_URL_CHARS` characters, and dates outside :data:`MIN_YEAR` and a day past
today are refused. The tree is never modified.
"""

from __future__ import annotations

import datetime as _dt
import html
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import lxml.etree as etree
from lxml.html import HtmlElement

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.document import elements_named
from scrapy_boilerplate.core.language import normalize_language, page_language

if TYPE_CHECKING:
    from scrapy_boilerplate.core.document import Document
    from scrapy_boilerplate.core.result import Extraction

__all__ = ["FIELDS", "MAX_JSONLD_CHARS", "empty_metadata", "page_metadata"]

#: The keys of every metadata dict, in order (``sources`` and ``notes`` follow them).
FIELDS = (
    "title",
    "authors",
    "date_published",
    "date_modified",
    "language",
    "declared_language",
    "description",
    "canonical_url",
    "site_name",
    "main_image",
    "images",
    "breadcrumbs",
)

#: A JSON-LD block longer than this (characters) is not parsed (noted in ``notes``).
MAX_JSONLD_CHARS = 1_000_000
#: Structured-data items read per page (JSON-LD ``@graph`` members and microdata items).
MAX_ITEMS = 200
#: Microdata is not read on pages with more ``itemprop`` elements than this: extruct copies
#: each property's subtree to read its text.
MAX_ITEMPROPS = 2_000
#: Longest title, description, site name or author kept (longer ones are cut at a word).
MAX_TEXT_CHARS = 1_000
#: Longest URL kept; longer ones (a ``data:`` image of megabytes) are refused.
MAX_URL_CHARS = 2_048
#: Most authors, breadcrumbs and images kept.
MAX_LIST = 30
#: Dates before this year are refused (the web's pages are younger).
MIN_YEAR = 1990
#: The longest date string parsed.
MAX_DATE_CHARS = 64

#: schema.org types whose item is the page's main thing, by preference.
_ARTICLE_TYPES = frozenset(
    {
        "article",
        "newsarticle",
        "blogposting",
        "report",
        "scholarlyarticle",
        "techarticle",
        "analysisnewsarticle",
        "reportagenewsarticle",
        "opinionnewsarticle",
        "reviewnewsarticle",
        "backgroundnewsarticle",
        "liveblogposting",
        "socialmediaposting",
        "discussionforumposting",
        "medicalwebpage",
        "howto",
        "recipe",
        "review",
        "question",
        "qapage",
        "faqpage",
        "product",
        "event",
        "course",
        "jobposting",
        "videoobject",
        "podcastepisode",
        "creativework",
    }
)
_PAGE_TYPES = frozenset(
    {"webpage", "itempage", "aboutpage", "collectionpage", "contactpage", "profilepage"}
)
_SITE_TYPES = frozenset({"website", "organization", "corporation", "newsmediaorganization"})

_PUBLISHED_META = (
    "article:published_time",
    "og:article:published_time",
    "og:published_time",
    "datepublished",
    "article.published",
    "published_time",
    "publish_date",
    "publishdate",
    "pubdate",
    "parsely-pub-date",
    "sailthru.date",
    "citation_publication_date",
    "citation_date",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date",
    "dcterms.date",
    "dcterms.created",
    "date",
)
_MODIFIED_META = (
    "article:modified_time",
    "og:updated_time",
    "datemodified",
    "dcterms.modified",
    "dc.date.modified",
    "last-modified",
    "article.updated",
)
_AUTHOR_META = (
    "author",
    "article:author",
    "dc.creator",
    "dcterms.creator",
    "parsely-author",
    "sailthru.author",
    "citation_author",
    "byl",
)
_DESCRIPTION_META = ("og:description", "description", "twitter:description", "dc.description")
_TITLE_META = ("og:title", "twitter:title", "dc.title", "citation_title")
_IMAGE_META = (
    "og:image:secure_url",
    "og:image",
    "og:image:url",
    "twitter:image",
    "twitter:image:src",
)
_SITE_META = ("og:site_name", "application-name", "apple-mobile-web-app-title")

#: Separators between a page's title and its site's name in ``<title>``.
_TITLE_SEPARATORS = re.compile(r"\s+[|\-\u2013\u2014:\u00b7\u2022\u00bb/~]\s+|\s*[|\u00bb]\s*")
_BYLINE_PREFIX = re.compile(
    r"^(?:(?:[Ww]ritten|[Pp]osted|[Pp]ublished|[Rr]eviewed|[Ee]dited|[Aa]rticle|[Ss]tory)\s*)?"
    r"(?:[Bb]y|BY|[Vv]on|[Pp]ar|[Pp]or|[Dd]i|[Dd]oor|[Aa]v|[Aa]f)(?:\s*[:\-]\s*|\s+|(?=[A-Z]))"
)
#: Where a byline's name ends: a date, a reading time, a separator.
_BYLINE_END = re.compile(
    r"\s*(?:[|\u2022\u00b7\u2013\u2014]|\s-\s|-\s*\d|,\s*\d|\d{1,4}[/.]\d|"
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d|"
    r"\b(?:[Ll]ast\s)?[Uu]pdated|\b[Pp]ublished|\b[Oo]n\s+\d|\d+\s*min)"
)
#: Texts of byline elements that are labels, not names.
_NOT_NAMES = frozenset(
    {"author", "the author", "authors", "about the author", "written by", "by", "name",
     "posted by", "admin", "guest", "anonymous", "editor", "staff", "contributor"}
)  # fmt: skip
_AUTHOR_SPLIT = re.compile(r"\s*(?:;|\||\band\b|&|\bund\b|\bet\b|\by\b)\s*", re.IGNORECASE)
_WORDS = re.compile(r"\w+")
_URL_DATE = re.compile(r"/((?:19|20)\d{2})[/_-]([01]?\d)[/_-]([0-3]?\d)(?:/|[_-]|\.html?|$)")
#: Control and format characters (zero-width, direction marks): out of every text field.
_CONTROL = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]"
)
#: class / id words of elements that show a page's date.
_DATE_CLASS = re.compile(r"date|time|publish|posted|byline|entry-meta|post-meta")
#: A month's name or abbreviation (a regular expression to compile case-insensitively;
#: the entity extractor's dates read the same names).
MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
#: A date as pages write it: "June 12, 2025", "12 June 2025", "2025-06-12".
_TEXT_DATE = re.compile(
    rf"\b{MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d{{2}}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTHS},?\s+(?:19|20)\d{{2}}\b"
    r"|\b(?:19|20)\d{2}-[01]\d-[0-3]\d\b",
    re.IGNORECASE,
)
#: Any of the class / id words the attributes pass looks for (one search per element).
_ATTRIBUTE_WORDS = re.compile("author|byline|writer|breadcrumb|" + _DATE_CLASS.pattern)
#: Those words, for the scan that picks the elements the pass reads (plain words: the
#: pattern is an alternation of literals).
_ATTRIBUTE_WORD_LIST = tuple(w.encode() for w in _ATTRIBUTE_WORDS.pattern.split("|"))
#: An absolute http(s) URL that ``urljoin`` gives back as it is, whatever the base (a host
#: without brackets, no ``;`` parameters, no empty query or fragment, no white space): the
#: main content's images are such URLs, made absolute already.
_PLAIN_URL = re.compile(r"https?://[^\s/?#;@\[\]\\]+(?:/[^\s?#;]*)?(?:\?[^\s?#;]+)?(?:#\S+)?")
_SCANNED_TAGS = (b"meta", b"link", b"title", b"base", b"script", b"h1", b"time")
_NOT_BYLINES = frozenset({"meta", "link", "script", "style", "body", "html", "head", "img"})
_PUBLISHING_TYPES = frozenset({"article", "forum"})


def empty_metadata() -> dict[str, Any]:
    """The metadata dict of a page without any: every field empty, no sources."""
    out: dict[str, Any] = {f: None for f in FIELDS}
    out["authors"] = []
    out["images"] = []
    out["breadcrumbs"] = []
    out["sources"] = {}
    out["notes"] = []
    return out


def page_metadata(
    doc: Document,
    result: Extraction | None = None,
    *,
    images: list[str] | None = None,
    language: tuple[str | None, float] | None = None,
) -> dict[str, Any]:
    """The metadata of ``doc`` as a plain JSON dict (keys :data:`FIELDS`, ``sources``,
    ``notes``).

    ``result`` (the page's :class:`Extraction`) places the main heading next to the main
    text and tells, by its ``page_type``, whether a date found only in the page's text is
    worth reporting; ``images`` are the main content's image URLs (``images`` and the
    ``main_image`` of last resort); ``language`` is the main text's detected language and
    its confidence (by default detected here, from ``result``'s main text:
    :func:`~scrapy_boilerplate.core.language.page_language`).
    """
    meta = _Reader(doc)
    out = empty_metadata()
    sources: dict[str, str] = out["sources"]

    def put(name: str, found: tuple[Any, str] | None) -> None:
        if found is not None and found[0] not in (None, "", []):
            out[name], sources[name] = found

    put("title", meta.title(result))
    put("authors", meta.authors(result))
    put("date_published", meta.date_published(result))
    put("date_modified", meta.date_modified())
    put("description", meta.description())
    put("canonical_url", meta.canonical_url())
    put("site_name", meta.site_name(out["title"]))
    content_images = [u for u in (images or []) if meta.safe_url(u, "images") is not None]
    put("images", (content_images[:MAX_LIST], "main-content") if content_images else None)
    put("main_image", meta.main_image(content_images))
    put("breadcrumbs", meta.breadcrumbs())
    declared = normalize_language(doc.declared_language)
    if language is None:
        language = page_language(result.main_text if result is not None else "", doc)
    if declared:
        out["declared_language"], sources["declared_language"] = declared, "html-lang"
    if language is not None and language[0]:
        out["language"], sources["language"] = language[0], "main-text"
    elif declared:
        out["language"], sources["language"] = declared, "html-lang"
    out["notes"] = meta.notes
    return out


# -- reading the page -------------------------------------------------------------------------


def _clean(text: Any, limit: int = MAX_TEXT_CHARS) -> str | None:
    """Whitespace collapsed, control characters out, cut at ``limit`` (at a word)."""
    if not isinstance(text, str):
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            text = str(text)
        else:
            return None
    if len(text) > 8 * limit:
        text = text[: 8 * limit]
    text = " ".join(_CONTROL.sub("", text).split())
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0]
    return text or None


def _meta_source(key: str) -> str:
    """The source a meta tag's key names: ``opengraph`` for ``og:`` properties."""
    return "opengraph" if key.startswith("og:") else "meta"


def _norm(text: str | None) -> str:
    """Lower case, punctuation and whitespace out: for comparing two spellings of a title."""
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).lower()
    return " ".join(_WORDS.findall(text))


def _types(item: dict[str, Any]) -> set[str]:
    value = item.get("@type", item.get("type"))
    values = value if isinstance(value, list) else [value]
    out = set()
    for v in values:
        if isinstance(v, str):
            out.add(v.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1].lower())
    return out


def _element_text(el: Any, limit: int = MAX_TEXT_CHARS) -> str | None:
    parts: list[str] = []
    size = 0
    for piece in el.itertext():
        parts.append(piece)
        size += len(piece)
        if size > 4 * limit:
            break
    return _clean("".join(parts), limit)


@_compiled.twin("attribute_candidates")
def _attribute_candidates(root: Any, words: tuple[bytes, ...]) -> tuple[int, list[Any]]:
    """The elements of ``root``'s subtree (``root`` included, in document order) whose
    ``class``, ``id`` or ``rel`` value holds one of ``words`` (lower-case ASCII) in ASCII
    letters of any case, or has a character outside ASCII; and the number of elements with
    an ``itemprop``. Every element the attributes pass keeps is among them (an ASCII
    value's ``lower()`` is its ASCII lower case, and every other value is taken), so the
    pass reads these only. The compiled ``_speedups.attribute_candidates`` walks
    libxml2's tree and makes a proxy for the elements found only."""
    texts = tuple(w.decode() for w in words)
    itemprops = 0
    out: list[Any] = []
    for n, el in enumerate(root.iter(etree.Element)):
        if n % 4096 == 0:
            check()
        attributes = el.attrib
        if not attributes:
            continue
        if "itemprop" in attributes:
            itemprops += 1
        for name in ("class", "id", "rel"):
            value = attributes.get(name)
            if value and (not value.isascii() or any(w in value.lower() for w in texts)):
                out.append(el)
                break
    return itemprops, out


class _Reader:
    """The page's metadata sources, read once, and the choice of each field from them."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.notes: list[str] = []
        self.meta: dict[str, list[str]] = {}
        self.canonical: str | None = None
        self.title_text: str | None = None
        self.base = doc.url
        self.h1: list[tuple[Any, str]] = []
        self.times: list[str] = []
        self.jsonld_scripts: list[Any] = []
        self.itemprops = 0
        self.author_elements: list[Any] = []
        self.breadcrumb_elements: list[Any] = []
        self.date_elements: list[Any] = []
        self._passed = False
        self._microdata: list[tuple[dict[str, Any], str]] | None = None
        self._items: list[tuple[dict[str, Any], str]] | None = None
        self._main_items: list[tuple[dict[str, Any], str]] | None = None
        self._scan()
        self.jsonld = self._jsonld()

    # -- one pass over the tree
    def _scan(self) -> None:
        root = self.doc.root
        removed = self.doc.removed
        base_set = False
        # found in C: only these elements reach Python
        for n, el in enumerate(elements_named(root, _SCANNED_TAGS)):
            if n % 1024 == 0:
                check()
            tag = el.tag
            if tag == "meta":
                key = el.get("property") or el.get("name") or el.get("itemprop")
                if key is None:
                    key = el.get("http-equiv")
                content = el.get("content")
                if key and content is not None and len(self.meta) < 500:
                    self.meta.setdefault(key.strip().lower(), []).append(content)
            elif tag == "link":
                rel = (el.get("rel") or "").lower().split()
                if "canonical" in rel and self.canonical is None:
                    self.canonical = el.get("href")
            elif tag == "title":
                if self.title_text is None:
                    self.title_text = _element_text(el)
            elif tag == "base":
                if not base_set and el.get("href"):
                    base_set = True
                    self.base = urljoin(self.doc.url or "", el.get("href", "").strip())
            elif tag == "script":
                kind = (el.get("type") or "").strip().lower()
                if kind == "application/ld+json" and len(self.jsonld_scripts) < 50:
                    self.jsonld_scripts.append(el)
            elif tag == "h1":
                if len(self.h1) < 10 and el not in removed:
                    text = _element_text(el)
                    if text:
                        self.h1.append((el, text))
            elif tag == "time" and len(self.times) < 20:
                value = el.get("datetime")
                if value and ("pubdate" in el.attrib or "published" in (el.get("class") or "")):
                    self.times.insert(0, value)
                elif value:
                    self.times.append(value)

    def _attributes_pass(self) -> None:
        """One scan of every element (:func:`_attribute_candidates`) for what only class /
        id attributes tell: bylines, breadcrumb trails, and whether the page has microdata
        (``itemprop``). Done when a field needs it, since most pages' structured data or
        meta tags say enough."""
        if self._passed:
            return
        self._passed = True
        self.itemprops, candidates = _attribute_candidates(self.doc.root, _ATTRIBUTE_WORD_LIST)
        for n, el in enumerate(candidates):
            if n % 4096 == 0:
                check()
            attributes = el.attrib
            names = attributes.get("class") or ""
            if "id" in attributes or "rel" in attributes:
                names = f"{names} {attributes.get('id') or ''} {attributes.get('rel') or ''}"
            if not names or len(names) > 300:
                continue
            lowered = names.lower()
            if _ATTRIBUTE_WORDS.search(lowered) is None:
                continue
            if (
                ("author" in lowered or "byline" in lowered or "writer" in lowered)
                and len(self.author_elements) < 20
                and el.tag not in _NOT_BYLINES
            ):
                self.author_elements.append(el)
            if "breadcrumb" in lowered and len(self.breadcrumb_elements) < 3:
                self.breadcrumb_elements.append(el)
            if _DATE_CLASS.search(lowered) and len(self.date_elements) < 20:
                self.date_elements.append(el)

    def _jsonld(self) -> list[tuple[dict[str, Any], str]]:
        """The JSON-LD items, flattened (``@graph`` members, nested lists)."""
        items: list[tuple[dict[str, Any], str]] = []
        if not self.jsonld_scripts:
            return items
        from extruct.jsonld import JsonLdExtractor

        reader = JsonLdExtractor()
        for i, script in enumerate(self.jsonld_scripts):
            size = sum(len(t) for t in script.itertext())
            if size > MAX_JSONLD_CHARS:
                self.notes.append(f"json-ld block {i + 1}: {size} characters, not read")
                continue
            try:
                found = reader.extract_items(script)
            except (ValueError, RecursionError, TypeError) as exc:
                self.notes.append(f"json-ld block {i + 1}: not JSON ({type(exc).__name__})")
                continue
            for item in _flatten(found):
                if len(items) < MAX_ITEMS:
                    items.append((item, "json-ld"))
        return items

    def microdata(self) -> list[tuple[dict[str, Any], str]]:
        """The microdata items (extruct), read on first use."""
        if self._microdata is not None:
            return self._microdata
        self._attributes_pass()
        items: list[tuple[dict[str, Any], str]] = []
        if self.itemprops > MAX_ITEMPROPS:
            self.notes.append(f"microdata: {self.itemprops} itemprop elements, not read")
        elif self.itemprops:
            try:
                found = _microdata_reader().extract_items(self.doc.root, self.base)
            except (ValueError, RecursionError, TypeError, AttributeError) as exc:
                self.notes.append(f"microdata: not read ({type(exc).__name__})")
                found = []
            for item in found[:MAX_ITEMS]:
                if isinstance(item, dict) and isinstance(item.get("properties"), dict):
                    flat = dict(item["properties"])
                    flat["@type"] = item.get("type")
                    items.append((flat, "microdata"))
        self._microdata = items
        return items

    @property
    def items(self) -> list[tuple[dict[str, Any], str]]:
        """The structured data: JSON-LD's items, or microdata's where JSON-LD says nothing
        of the page's main thing."""
        if self._items is None:
            if any(rank < 2 for rank, _ in _ranked(self.jsonld)):
                self._items = self.jsonld
            else:
                self._items = self.jsonld + self.microdata()
        return self._items

    # -- helpers
    def first_meta(self, keys: Iterable[str]) -> tuple[str, str] | None:
        for key in keys:
            for value in self.meta.get(key, ()):
                text = _clean(value)
                if text:
                    return text, key
        return None

    def main_items(self) -> list[tuple[dict[str, Any], str]]:
        """Items about the page's main thing first (articles, products...), then pages
        (ranked once: every field reads them)."""
        if self._main_items is None:
            self._main_items = [pair for _, pair in _ranked(self.items)]
        return self._main_items

    def item_value(self, keys: Iterable[str]) -> tuple[Any, str] | None:
        keys = tuple(keys)
        for item, source in self.main_items():
            for key in keys:
                value = item.get(key)
                if value not in (None, "", [], {}):
                    return value, source
        return None

    def safe_url(self, value: Any, field: str) -> str | None:
        """An absolute http(s) URL, or None (noted when the page gave something else)."""
        if isinstance(value, dict):
            value = value.get("url") or value.get("contentUrl") or value.get("@id")
        if isinstance(value, list):
            value = value[0] if value else None
        if not isinstance(value, str):
            return None
        value = value.strip()
        if not value:
            return None
        if len(value) > MAX_URL_CHARS:
            self.notes.append(f"{field}: a URL of {len(value)} characters refused")
            return None
        if value.isascii() and _PLAIN_URL.fullmatch(value):
            return value  # what urljoin gives back unchanged, whatever the base
        try:
            url = urljoin(self.base or "", value)
            scheme = urlsplit(url).scheme.lower()
        except ValueError:
            self.notes.append(f"{field}: an unreadable URL refused")
            return None
        if scheme not in ("http", "https"):
            if scheme:
                self.notes.append(f"{field}: a {scheme}: URL refused")
            return None
        return url

    # -- fields
    def title(self, result: Extraction | None) -> tuple[str, str] | None:
        structured = self.item_value(("headline", "name"))
        named: list[tuple[str, str]] = []
        if structured is not None:
            text = _clean(structured[0] if not isinstance(structured[0], list) else None)
            # microdata gives a link's href as its value: a path is no title
            if text and not (" " not in text and ("/" in text or "://" in text)):
                named.append((text, structured[1]))
        found = self.first_meta(_TITLE_META)
        if found:
            named.append((found[0], _meta_source(found[1])))
        parts = []
        if self.title_text:
            named.append((self.title_text, "title"))
            parts = [p for p in _TITLE_SEPARATORS.split(self.title_text) if p.strip()]
        whole = {_norm(text) for text, _ in named}
        site = {_norm(v) for v in self.meta.get("og:site_name", ())}
        if len(parts) > 1 and not site:
            # "Title | Site" or "Site | Title": the site's name is the shorter end
            site = {_norm(min(parts[0], parts[-1], key=len))}
        inner = {_norm(p) for p in parts} - site
        main_heading, headings = self._headings(result)
        for wanted in (whole - site, inner, whole | site):
            wanted.discard("")
            for text in headings:
                if _norm(text) in wanted:
                    return text, "page"
        if named and named[0][1] in ("json-ld", "microdata"):
            return named[0]
        if main_heading or headings:
            return main_heading or headings[0], "page"
        for text, source in named:
            pieces = [p.strip() for p in _TITLE_SEPARATORS.split(text) if p.strip()]
            pieces = [p for p in pieces if _norm(p) not in site] or pieces
            if pieces:
                best = max(pieces, key=len)
                return _clean(best) or best, source
        return None

    def _headings(self, result: Extraction | None) -> tuple[str | None, list[str]]:
        """The ``<h1>`` of the main text (a content block of ``result``), if any, and the
        page's ``<h1>`` texts."""
        texts = [text for _, text in self.h1 if len(text) <= 300]
        if result is not None:
            for block in result.blocks:
                if block.label == "content" and block.tag == "h1":
                    text = _clean(block.text)
                    if text and len(text) <= 300:
                        return text, texts
        return None, texts

    def authors(self, result: Extraction | None = None) -> tuple[list[str], str] | None:
        found = self.item_value(("author", "creator"))
        if found is not None:
            names = _names(found[0])
            if names:
                return names, found[1]
        for key in _AUTHOR_META:
            for value in self.meta.get(key, ()):
                if "://" in value or value.startswith("@"):
                    continue
                names = _names(value)
                if names:
                    return names, "meta"
        if result is not None and result.page_type not in (None, *_PUBLISHING_TYPES):
            return None  # a name in a product's or a service's page is no byline
        self._attributes_pass()
        for el in self.author_elements:
            if el in self.doc.removed:
                continue
            text = _element_text(el, 200)
            if not text or len(text) > 120:
                continue
            names = _names(text, byline=True)
            if names:
                return names, "page"
        return None

    def date_published(self, result: Extraction | None) -> tuple[str, str] | None:
        candidates: list[tuple[Any, str]] = []
        found = self.item_value(("datePublished", "dateCreated", "uploadDate", "startDate"))
        if found is not None:
            candidates.append(found)
        found_meta = self.first_meta(_PUBLISHED_META)
        if found_meta:
            candidates.append((found_meta[0], "meta"))
        candidates.extend((t, "page") for t in self.times[:1])
        for value, source in candidates:
            date = self.date(value, "date_published")
            if date:
                return date, source
        publishing = result is None or result.page_type in (None, *_PUBLISHING_TYPES)
        match = _URL_DATE.search(urlsplit(self.doc.url or "").path) if self.doc.url else None
        if match:
            date = self.date("-".join(match.groups()), "date_published")
            if date:
                return date, "url"
        if publishing:
            return self._visible_date() or self._date_by_heading() or self._htmldate()
        return None

    def _date_by_heading(self) -> tuple[str, str] | None:
        """A date written in the few short texts just after (or just before) the page's
        main ``<h1>``: where articles print their date, often without a telling class."""
        if not self.h1:
            return None
        heading = self.h1[0][0]
        texts: list[str] = []
        node, level = heading, 0
        while node is not None and level < 3 and len(texts) < 20:
            for sibling in node.itersiblings(etree.Element):
                for text in sibling.itertext():
                    if text.strip():
                        texts.append(text)
                    if len(texts) >= 20:
                        break
                if len(texts) >= 20:
                    break
            tail = node.tail
            if tail and tail.strip():
                texts.insert(0, tail)
            node, level = node.getparent(), level + 1
        previous = next(heading.itersiblings(etree.Element, preceding=True), None)
        if previous is not None:
            texts.extend(t for t in previous.itertext() if t.strip())
        return self._first_text_date(t for t in texts[:24] if len(t) <= 200)

    def _visible_date(self) -> tuple[str, str] | None:
        """A date written in a byline or a date element (``class="post-date"``, ...): the
        date a reader sees, which htmldate's quick search does not read as text."""
        self._attributes_pass()
        removed = self.doc.removed
        elements = self.date_elements + self.author_elements
        return self._first_text_date(
            _element_text(el, 200) or "" for el in elements if el not in removed
        )

    def _first_text_date(self, texts: Iterable[str]) -> tuple[str, str] | None:
        """The first date written in ``texts`` (:data:`_TEXT_DATE`) that is a valid one."""
        for text in texts:
            match = _TEXT_DATE.search(text)
            if match:
                date = self.date(match.group(0), "date_published")
                if date:
                    return date, "page"
        return None

    def _htmldate(self) -> tuple[str, str] | None:
        try:
            from htmldate import find_date
        except ImportError:  # pragma: no cover - htmldate is a dependency
            return None
        root = self.doc.root
        if not isinstance(root, HtmlElement):
            # htmldate reads lxml.html's trees (which it copies before pruning) or a string
            # (which it parses itself): a plain lxml tree goes as its serialisation.
            root = etree.tostring(root, encoding="unicode", method="html")
        try:
            found = find_date(
                root,
                extensive_search=False,
                original_date=True,
                url=self.doc.url,
                min_date=f"{MIN_YEAR}-01-01",
                max_date=(_dt.date.today() + _dt.timedelta(days=1)).isoformat(),
            )
        except Exception:  # htmldate's own failures on odd pages
            self.notes.append("date_published: htmldate failed on the page")
            return None
        if found:
            date = self.date(found, "date_published")
            if date:
                return date, "htmldate"
        return None

    def date_modified(self) -> tuple[str, str] | None:
        found = self.item_value(("dateModified",))
        if found is not None:
            date = self.date(found[0], "date_modified")
            if date:
                return date, found[1]
        found_meta = self.first_meta(_MODIFIED_META)
        if found_meta:
            date = self.date(found_meta[0], "date_modified")
            if date:
                return date, "meta"
        return None

    def date(self, value: Any, field: str) -> str | None:
        """An ISO 8601 date (with its time where the source gives one), or None."""
        if isinstance(value, list):
            value = value[0] if value else None
        if not isinstance(value, str):
            return None
        value = value.strip()
        if not value or len(value) > MAX_DATE_CHARS:
            return None
        parsed = _parse_date(value)
        if parsed is None:
            self.notes.append(f"{field}: {value[:40]!r} is not a date")
            return None
        day = parsed.date() if isinstance(parsed, _dt.datetime) else parsed
        latest = _dt.date.today() + _dt.timedelta(days=1)
        if not _dt.date(MIN_YEAR, 1, 1) <= day <= latest:
            self.notes.append(f"{field}: {day.isoformat()} out of range, refused")
            return None
        return parsed.isoformat()

    def description(self) -> tuple[str, str] | None:
        found = self.item_value(("description",))
        if found is not None:
            text = _clean(found[0] if isinstance(found[0], str) else None)
            if text:
                return text, found[1]
        found_meta = self.first_meta(_DESCRIPTION_META)
        if found_meta:
            return found_meta[0], _meta_source(found_meta[1])
        return None

    def canonical_url(self) -> tuple[str, str] | None:
        for value, source in (
            (self.canonical, "link"),
            (next(iter(self.meta.get("og:url", ())), None), "opengraph"),
        ):
            url = self.safe_url(value, "canonical_url")
            if url:
                return url, source
        return None

    def site_name(self, title: str | None) -> tuple[str, str] | None:
        found = self.first_meta(_SITE_META)
        if found:
            return found[0], _meta_source(found[1])
        for item, source in self.items:
            publisher = item.get("publisher")
            if isinstance(publisher, dict) and _clean(publisher.get("name")):
                return _clean(publisher.get("name")) or "", source
        for item, source in self.items:
            if _types(item) & {"website"} and _clean(item.get("name")):
                return _clean(item.get("name")) or "", source
        if self.title_text and title:
            parts = [p.strip() for p in _TITLE_SEPARATORS.split(self.title_text) if p.strip()]
            rest = [p for p in parts if _norm(p) != _norm(title)]
            if len(parts) > 1 and len(rest) == len(parts) - 1 and rest:
                return rest[-1], "title"
        return None

    def main_image(self, content_images: list[str]) -> tuple[str, str] | None:
        found = self.item_value(("image", "thumbnailUrl"))
        if found is not None:
            url = self.safe_url(found[0], "main_image")
            if url:
                return url, found[1]
        for key in _IMAGE_META:
            for value in self.meta.get(key, ()):
                url = self.safe_url(value, "main_image")
                if url:
                    return url, _meta_source(key)
        if content_images:
            return content_images[0], "main-content"
        return None

    def breadcrumbs(self) -> tuple[list[dict[str, Any]], str] | None:
        for item, source in self.items:
            if "breadcrumblist" not in _types(item):
                continue
            crumbs = self._crumbs_from_list(item.get("itemListElement"))
            if crumbs:
                return crumbs, source
        self._attributes_pass()
        for el in self.breadcrumb_elements:
            if el in self.doc.removed:
                continue
            crumbs = []
            for a in el.iter("a"):
                name = _element_text(a, 200)
                if name:
                    url = self.safe_url(a.get("href"), "breadcrumbs")
                    crumbs.append({"name": name, "url": url})
                if len(crumbs) >= MAX_LIST:
                    break
            if crumbs:
                return crumbs, "page"
        return None

    def _crumbs_from_list(self, elements: Any) -> list[dict[str, Any]]:
        if isinstance(elements, dict):
            elements = [elements]
        if not isinstance(elements, list):
            return []
        rows = []
        for i, entry in enumerate(elements[:MAX_LIST]):
            if not isinstance(entry, dict):
                continue
            inner = entry.get("item")
            name = entry.get("name")
            url: Any = None
            if isinstance(inner, dict):
                name = name or inner.get("name")
                url = inner.get("@id") or inner.get("url")
            elif isinstance(inner, str):
                url = inner
            text = _clean(name if isinstance(name, str) else None, 200)
            if not text:
                continue
            position = entry.get("position")
            key = position if isinstance(position, (int, float)) else i
            rows.append((key, i, {"name": text, "url": self.safe_url(url, "breadcrumbs")}))
        rows.sort(key=lambda r: (r[0], r[1]))
        return [r[2] for r in rows]


_MICRODATA: Any = None


def _microdata_reader() -> Any:
    """extruct's microdata reader, reading a property's text without copying its subtree
    (extruct cleans a copy with lxml.html's cleaner, which needs lxml.html's elements)."""
    global _MICRODATA
    if _MICRODATA is None:
        from extruct.w3cmicrodata import MicrodataExtractor

        class _Reader(MicrodataExtractor):
            def _extract_textContent(self, node: Any) -> str:
                return _element_text(node, MAX_TEXT_CHARS * 8) or ""

        _MICRODATA = _Reader()
    return _MICRODATA


def _ranked(
    items: list[tuple[dict[str, Any], str]],
) -> list[tuple[int, tuple[dict[str, Any], str]]]:
    """``items`` about a page's main thing (rank 0: articles, products...; 1: web pages;
    2: other things), in that order; sites, organisations and breadcrumb lists left out."""
    ranked = []
    for order, (item, source) in enumerate(items):
        types = _types(item)
        if types & _ARTICLE_TYPES or "headline" in item:
            rank = 0
        elif types & _PAGE_TYPES:
            rank = 1
        elif types & _SITE_TYPES or "breadcrumblist" in types:
            continue
        else:
            rank = 2
        ranked.append((rank, order, item, source))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [(rank, (item, source)) for rank, _, item, source in ranked]


def _flatten(found: Iterable[Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    for item in found:
        if isinstance(item, list) and depth < 3:
            yield from _flatten(item, depth + 1)
        elif isinstance(item, dict):
            graph = item.get("@graph")
            if isinstance(graph, list) and depth < 3:
                yield from _flatten(graph, depth + 1)
            if "@type" in item:
                yield item


def _names(value: Any, byline: bool = False) -> list[str]:
    """Author names from a JSON-LD or microdata value, a meta tag or (``byline``) the text
    of a byline in the page, which is cut where a date or a reading time starts."""
    raw: list[str] = []

    def add(v: Any, depth: int = 0) -> None:
        if len(raw) >= MAX_LIST or depth > 3:
            return
        if isinstance(v, list):
            for x in v:
                add(x, depth + 1)
        elif isinstance(v, dict):
            name = v.get("name")
            if isinstance(name, list):
                name = name[0] if name else None
            if isinstance(name, str):
                raw.append(name)
            elif isinstance(v.get("properties"), dict):
                add(v["properties"], depth + 1)
        elif isinstance(v, str):
            raw.extend(p for p in _AUTHOR_SPLIT.split(v))

    add(value)
    out: list[str] = []
    for name in raw:
        text = _clean(name, 200)
        if not text:
            continue
        text = html.unescape(text)
        text = _BYLINE_PREFIX.sub("", text)
        if byline:
            text = _BYLINE_END.split(text, maxsplit=1)[0]
        text = text.strip(" ,:-|")
        if (
            not text
            or "://" in text
            or "*" in text
            or len(text) > 100
            or not any(c.isalpha() for c in text)
            or text.lower() in _NOT_NAMES
        ):
            continue
        if text not in out:
            out.append(text)
        if len(out) >= MAX_LIST:
            break
    return out


def _parse_date(value: str) -> _dt.date | _dt.datetime | None:
    text = value.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            return _dt.date.fromisoformat(text)
        except ValueError:
            return None
    try:
        parsed = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is None:
        try:
            from dateutil import parser as date_parser

            parsed = date_parser.parse(text, fuzzy=False)
        except (ValueError, OverflowError, TypeError):
            return None
        if not re.search(r"\d{1,2}:\d{2}", text):
            return parsed.date()
    if parsed.hour == parsed.minute == parsed.second == 0 and parsed.tzinfo is None:
        return parsed.date()
    return parsed
