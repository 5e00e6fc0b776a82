"""Page features of ``auto``: what kind of page this is (article, forum, product, ...).

The page type decides what counts as content (a forum's replies are, an article's
comments are not; a listing's repeated items are) and which threshold the block decisions
use. It is told from signals every page carries, the ones rs-trafilatura's classifier
uses too:

* the URL's words (``/blog/``, ``/product/``, ``/forum/``, ``/docs/``, ``/category/``, a
  date, an id) and its depth;
* what the page says of itself: schema.org types in JSON-LD and microdata
  (``NewsArticle``, ``Product``, ``DiscussionForumPosting``, ``ItemList``, ...) and
  ``og:type``;
* its markup: how many of each telling element (``article``, ``time``, ``pre``,
  ``form``, ``input``, ``table``, ``li``, ...) and the largest group of siblings that look
  alike (the cards of a listing, the posts of a thread);
* its blocks: how many, how long, how much of them is jusText's good text, their link
  density, and prices in the text;
* its best container by Readability's content score (:mod:`~.containers`): how much of the
  text, and of the long blocks, it holds with and without its siblings (an article's
  paragraphs sit together in one; a listing's cards or a service page's sections do not).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from scrapy_boilerplate.auto import features as block_features_module
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import Document
from scrapy_boilerplate.core.result import (
    PAGE_TYPES as PAGE_TYPES,  # auto reads pagetype.PAGE_TYPES
)

URL_WORDS: dict[str, tuple[str, ...]] = {
    "article": ("blog", "news", "article", "story", "stories", "post", "posts", "magazine"),
    "product": ("product", "products", "p", "dp", "item", "shop", "store", "buy"),
    "collection": ("collection", "collections", "category", "categories", "c", "catalog"),
    "listing": ("tag", "tags", "topics", "archive", "search", "list", "jobs", "events", "page"),
    "forum": ("forum", "forums", "thread", "threads", "t", "questions", "community", "discuss"),
    "documentation": ("docs", "doc", "documentation", "api", "reference", "guide", "manual"),
    "service": ("services", "service", "solutions", "pricing", "about", "contact", "features"),
}
SCHEMA_TYPES: dict[str, tuple[str, ...]] = {
    "article": ("article", "newsarticle", "blogposting", "reportagenewsarticle", "posting"),
    "product": ("product", "offer", "aggregateoffer", "aggregaterating"),
    "forum": ("discussionforumposting", "qapage", "question", "answer", "comment"),
    "listing": ("itemlist", "collectionpage", "searchresultspage", "listitem"),
    "documentation": ("techarticle", "apireference", "softwaresourcecode"),
    "service": ("service", "organization", "localbusiness", "faqpage", "webpage"),
    "event": ("event", "jobposting", "recipe", "howto"),
}
OG_TYPES = ("article", "product", "website", "profile", "video", "book")
ELEMENTS = (
    "article",
    "time",
    "pre",
    "code",
    "form",
    "input",
    "button",
    "table",
    "li",
    "img",
    "h2",
    "h3",
    "blockquote",
    "nav",
    "aside",
    "select",
    "a",
    "p",
)

_DATE_IN_URL = re.compile(r"/(?:19|20)\d\d/|\d{4}-\d\d-\d\d")
_LONG_ID = re.compile(r"\d{5,}|[0-9a-f]{12,}")
_SCHEMA = re.compile(
    rb'"@type"\s*:\s*\[?\s*"([A-Za-z]+)"|itemtype="https?://schema\.org/([A-Za-z]+)"'
)
_OG_TYPE = re.compile(r"(?:^|:)([a-z]+)")
_PRICE = re.compile(r"[$\u20ac\u00a3\u00a5]\s?\d|\d\s?(?:USD|EUR|GBP)\b")
#: What every match of :data:`_PRICE` holds one of (the blocks without any are not searched)
_PRICE_HINTS = ("$", "\u20ac", "\u00a3", "\u00a5", "USD", "EUR", "GBP")
_WORD = re.compile(r"[a-z]+")
#: Elements counted as look-alike siblings when they share their parent and ``class``.
SIBLING_TAGS = ("div", "li", "article", "section", "tr")

NAMES: tuple[str, ...] = (
    *(f"url_{k}" for k in URL_WORDS),
    "url_depth",
    "url_date",
    "url_id",
    "url_html",
    "url_root",
    *(f"schema_{k}" for k in SCHEMA_TYPES),
    *(f"og_{t}" for t in OG_TYPES),
    *(f"log_{t}" for t in ELEMENTS),
    "log_elements",
    "log_siblings",
    "siblings_share",
    "blocks",
    "log_chars",
    "good_share",
    "link_density",
    "long_blocks",
    "prices",
    "heading_share",
    "list_share",
    # the best container by Readability's content score (an article has one that holds
    # its long paragraphs; a listing spreads its text over many)
    "top_share",
    "top_with_siblings_share",
    "top_blocks_share",
    "top_long_text_share",
    "long_blocks_in_top_share",
    "log_long_blocks_in_top",
    "log_blocks_in_top",
)
#: The columns read off the page's URL: all zero for a page without one (a page passed to
#: ``extract`` without ``url``, or a stored page whose address was not kept).
URL_COLUMNS: tuple[int, ...] = tuple(i for i, n in enumerate(NAMES) if n.startswith("url_"))
#: A block of at least this many characters is a long one for the container features.
LONG_BLOCK_CHARS = 80
WIDTH = len(NAMES)
_INDEX = {n: i for i, n in enumerate(NAMES)}
#: A word of the URL -> the columns of the kinds it tells (:data:`URL_WORDS`).
_URL_WORD_COLUMNS: dict[str, tuple[int, ...]] = {}
for _kind, _names in URL_WORDS.items():
    for _name in _names:
        _URL_WORD_COLUMNS[_name] = (*_URL_WORD_COLUMNS.get(_name, ()), _INDEX[f"url_{_kind}"])
#: A schema.org type -> the columns of the kinds it tells (:data:`SCHEMA_TYPES`).
_SCHEMA_COLUMNS: dict[str, tuple[int, ...]] = {}
for _kind, _names in SCHEMA_TYPES.items():
    for _name in _names:
        _SCHEMA_COLUMNS[_name] = (*_SCHEMA_COLUMNS.get(_name, ()), _INDEX[f"schema_{_kind}"])
_ELEMENT_COLUMNS = tuple(_INDEX[f"log_{t}"] for t in ELEMENTS)
_ELEMENT_INDEX = np.array(_ELEMENT_COLUMNS, dtype=np.intp)  # (one assignment for them all)
#: The block features' columns, by name.
_BLOCK_INDEX = {n: i for i, n in enumerate(block_features_module.NAMES)}


def _url_words(url: str | None) -> tuple[list[str], str]:
    if not url:
        return [], ""
    try:
        path = urlsplit(url).path.lower()
    except ValueError:
        return [], ""
    return [w for w in path.split("/") if w], path


@_compiled.twin("markup_counts", module=block_features_module.COMPILED)
def _markup_counts(
    root: Any, names: tuple[str, ...], sibling_tags: tuple[str, ...], collect: tuple[str, ...]
) -> tuple[list[int], int, int, list[str], list[list[Any]]]:
    """``(counts, total, biggest, itemtypes, collected)`` of the tree under ``root``: its
    elements of each tag of ``names`` (in that order) and in all, the largest number of
    elements of one ``sibling_tags`` tag and one ``class`` under one parent (the cards of a
    listing), the ``itemtype`` values, and the elements of each tag of ``collect`` (what
    ``root.iter(tag)`` gives), in document order; compiled where ``_speedups`` is built (one
    walk over the tree's pointers, a proxy only for the elements collected)."""
    tags: Counter[str] = Counter()
    siblings: Counter[tuple[Any, str, str]] = Counter()
    itemtypes = []
    collected: dict[str, list[Any]] = {t: [] for t in collect}
    for el in root.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        tags[tag] += 1
        if tag in sibling_tags:
            siblings[(el.getparent(), tag, el.get("class") or "")] += 1
        itemtype = el.get("itemtype")
        if itemtype:
            itemtypes.append(itemtype)
        if tag in collected:
            collected[tag].append(el)
    counts = [tags[t] for t in names]
    found = [collected[t] for t in collect]
    return counts, sum(tags.values()), max(siblings.values(), default=0), itemtypes, found


#: What :func:`_block_summary` gives, in its order: the page's columns from its text
#: length on, but the prices (read by a regular expression, not summed up).
_SUMMARY = tuple(n for n in NAMES[NAMES.index("log_chars") :] if n != "prices")
_SUMMARY_INDEX = np.array([_INDEX[n] for n in _SUMMARY], dtype=np.intp)


def _compiled_summary(block_x: np.ndarray, texts: list[str]) -> tuple[Any, ...]:
    """The compiled :func:`_block_summary`' arguments: the blocks' characters as the
    reference reads them back from the features (NumPy's float32 ``expm1`` of
    ``log_chars``) and their float32 sum (NumPy's order of addition), the features
    (C order) and the columns read."""
    chars = np.expm1(block_x[:, _BLOCK_INDEX["log_chars"]])
    return (
        np.ascontiguousarray(block_x, dtype=np.float32),
        texts,
        np.ascontiguousarray(chars, dtype=np.float32),
        float(chars.sum()),
        _BLOCK_INDEX,
        float(LONG_BLOCK_CHARS),
    )


@_compiled.twin("block_summary", module=block_features_module.COMPILED, arguments=_compiled_summary)
def _block_summary(block_x: np.ndarray, texts: list[str]) -> list[float]:
    """The page's features that sum up its blocks (:data:`_SUMMARY`, in that order) from
    their features ``block_x`` and texts; compiled where ``_speedups`` is built (one pass
    over the blocks instead of an array operation per value)."""
    bcol = _BLOCK_INDEX.__getitem__
    chars = np.expm1(block_x[:, bcol("log_chars")])
    all_chars = float(chars.sum()) or 1.0
    lengths = np.array([len(t) for t in texts], dtype=np.float64)
    whole = float(lengths.sum()) or 1.0
    in_top = block_x[:, bcol("rd_in_top")] > 0
    joined = in_top | (block_x[:, bcol("rd_in_sibling")] > 0)
    long = lengths >= LONG_BLOCK_CHARS
    long_in_top = long & in_top
    return [
        math.log1p(all_chars),
        float(block_x[0, bcol("page_good_share")]),
        float(block_x[0, bcol("page_link_density")]),
        math.log1p(int((chars > 200).sum())),
        float(block_x[:, bcol("heading")].mean()),
        float(block_x[:, bcol("tag_li")].mean()),
        float(block_x[0, bcol("rd_top_share")]),
        float(lengths[joined].sum()) / whole,
        float(in_top.mean()),
        float(lengths[long_in_top].sum()) / whole,
        int(long_in_top.sum()) / max(int(long.sum()), 1),
        math.log1p(int(long_in_top.sum())),
        math.log1p(int(in_top.sum())),
    ]


def without_url(x: np.ndarray) -> np.ndarray:
    """A copy of the page vector ``x`` (:func:`page_features`) as the same page gives
    without a URL: its :data:`URL_COLUMNS` zeroed. Every typed training page has a URL;
    training reports how the trees fare on the same pages without one (a page passed
    without ``url`` looks like a site's home page: no path words, depth 0)."""
    out = np.array(x, dtype=np.float32, copy=True)
    out[..., list(URL_COLUMNS)] = 0.0
    return out


def page_features(doc: Document, blocks: list[Any], block_x: np.ndarray) -> np.ndarray:
    """The ``(WIDTH,)`` float32 vector of :data:`NAMES` for one page (``blocks`` and
    ``block_x``: its section blocks and their features)."""
    x = np.zeros(WIDTH, dtype=np.float32)
    col = _INDEX
    segments, path = _url_words(doc.url)
    for word in set(segments) | set(_WORD.findall(path)):
        for c in _URL_WORD_COLUMNS.get(word, ()):
            x[c] = 1.0
    x[col["url_depth"]] = len(segments)
    x[col["url_date"]] = _DATE_IN_URL.search(path) is not None
    x[col["url_id"]] = _LONG_ID.search(path) is not None
    x[col["url_html"]] = path.endswith((".html", ".htm", ".php", ".aspx"))
    x[col["url_root"]] = bool(doc.url) and not segments

    counts, total, biggest, itemtypes, (scripts, metas) = _markup_counts(
        doc.root, ELEMENTS, SIBLING_TAGS, ("script", "meta")
    )
    types: set[str] = set()
    for script in scripts:
        if (script.get("type") or "").lower() == "application/ld+json" and script.text:
            for m in _SCHEMA.finditer(script.text[:200_000].encode("utf-8", "replace")):
                types.add((m.group(1) or b"").decode().lower())
    for itemtype in itemtypes:
        types.add(itemtype.rstrip("/").rsplit("/", 1)[-1].lower())
    for t in types:
        for c in _SCHEMA_COLUMNS.get(t, ()):
            x[c] = 1.0
    og = ""
    for meta in metas:
        if (meta.get("property") or meta.get("name") or "").lower() == "og:type":
            og = (meta.get("content") or "").lower()
            break
    og_word = _OG_TYPE.findall(og)
    for t in OG_TYPES:
        x[col[f"og_{t}"]] = t in og_word

    x[_ELEMENT_INDEX] = [math.log1p(count) for count in counts]
    x[col["log_elements"]] = math.log1p(total)
    x[col["log_siblings"]] = math.log1p(biggest)
    x[col["siblings_share"]] = biggest / max(total, 1)

    n = len(blocks)
    x[col["blocks"]] = math.log1p(n)
    if n:
        texts = [b.text for b in blocks]
        x[_SUMMARY_INDEX] = _block_summary(block_x, texts)
        hinted = block_features_module.blocks_containing(_PRICE_HINTS, texts)
        x[col["prices"]] = math.log1p(
            sum(1 for t, h in zip(texts, hinted, strict=True) if h and _PRICE.search(t))
        )
    return x
