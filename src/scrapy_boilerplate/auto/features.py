"""Block features of ``auto``: every method's cheap evidence on one segmentation.

The blocks are jusText's paragraphs with HTML5's sectioning elements as block tags too
(:meth:`Document.section_blocks`), so a ``<nav>`` or ``<footer>`` never runs into the
text beside it. Each block gets one row of :data:`NAMES`:

* **jusText's evidence**: length, words, stopword density (the page's stoplist, chosen as
  jusText chooses it), link density, heading, its context-free class and its final class
  (jusText's own defaults, on these blocks);
* **the text itself**: punctuation, digits, capitals, sentence ends, copyright, separators;
* **where it sits**: its tag, the tags above it (``article``, ``nav``, ``footer``, ...), and
  words of the ``class`` and ``id`` of its element and its ancestors (``comment``,
  ``related``, ``share``, ``content``, ...), the vocabulary content extractors such as
  trafilatura and Readability match on;
* **its container** (CNR's view of the page: text per markup): how much of the page's text
  its parent and grandparent hold, in how many blocks, with what link density;
* **its neighbours**: length, link density, stopwords and jusText class of the two blocks
  before and after it, and the share of good blocks around it;
* **the page**: its block count, text length, share of good text, link density, and
  whether the block repeats the page's title or another block;
* **the main container**: whether the block sits in the element Readability's content
  score would pick as the article, or in a sibling it would append
  (:mod:`scrapy_boilerplate.auto.containers`).

Everything is computed in a few passes over the blocks; nothing here parses again.
"""

from __future__ import annotations

import inspect
import math
import re
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from scrapy_boilerplate.auto import containers
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import (
    Document,
    TextBlock,
    block_elements,
    heading_in_path,
)
from scrapy_boilerplate.extractors.justext import languages
from scrapy_boilerplate.extractors.justext.algorithm import (
    BAD,
    GOOD,
    NEAR_GOOD,
    SHORT,
    classify_context_free,
    classify_context_sensitive,
)

#: Words of ``class`` / ``id`` values, by what they usually mark. A value's words are
#: matched by prefix anywhere in it (``commentlist``, ``post-comments``, ``relatedPosts``).
KEYWORDS: dict[str, tuple[str, ...]] = {
    "content": ("article", "content", "entry", "post", "story", "body", "text", "main", "prose"),
    "comment": ("comment", "disqus", "respond", "reply", "discussion"),
    "nav": ("nav", "menu", "breadcrumb", "crumb", "toc", "pagination", "pager", "skip"),
    "footer": ("footer", "foot", "copyright", "legal", "colophon"),
    "header": ("header", "masthead", "banner", "topbar", "hero"),
    "side": ("sidebar", "aside", "widget", "rail", "secondary"),
    "related": ("related", "recommend", "more", "popular", "trending", "readnext", "teaser"),
    "share": ("share", "social", "sharing", "follow", "facebook", "twitter"),
    "ad": (
        "advert",
        "sponsor",
        "promo",
        "banner-ad",
        "dfp",
        "ads",
        "adslot",
        "outbrain",
        "taboola",
    ),
    "author": ("author", "byline", "bio", "contributor", "profile"),
    "tags": ("tag", "categor", "topic", "keyword", "label"),
    "media": ("caption", "credit", "photo", "image", "figure", "gallery", "video", "media"),
    "meta": ("meta", "date", "time", "published", "updated", "dateline"),
    "subscribe": ("newsletter", "subscribe", "signup", "sign-up", "register", "login", "cta"),
    "modal": ("cookie", "consent", "modal", "popup", "overlay", "gdpr", "notice", "alert"),
    "hidden": ("hidden", "sr-only", "visually-hidden", "screen-reader", "offscreen"),
    "title": ("title", "headline", "heading"),
    "product": ("product", "price", "cart", "buy", "sku", "review", "rating"),
    "forum": ("thread", "message", "forum", "topic", "answer", "question", "postbody"),
    "list": ("card", "item", "tile", "listing", "grid", "result"),
    "doc": ("markdown", "rst", "docs", "documentation", "highlight", "api"),
    "search": ("search", "filter", "sort", "form"),
}
_GROUPS = tuple(KEYWORDS)
_GROUP_BIT = {g: 1 << i for i, g in enumerate(_GROUPS)}
_BITS = np.array([1 << k for k in range(len(_GROUPS))], dtype=np.int64)
#: keyword -> its group's bit, and the keyword lengths (a token matches the keywords it
#: starts with: ``commentlist``, ``relatedposts``, ``sidebar``)
_KEYWORD_BITS: dict[str, int] = {}
for _group, _words in KEYWORDS.items():
    for _word in _words:
        for _part in _word.split("-"):
            _KEYWORD_BITS[_part] = _KEYWORD_BITS.get(_part, 0) | _GROUP_BIT[_group]
_KEYWORD_LENGTHS = tuple(sorted({len(w) for w in _KEYWORD_BITS}))
_CLASS_TOKEN = re.compile(r"[a-z]+")
#: token -> its groups, shared by every page of the process (class names repeat across
#: pages and sites: utility classes, CMS themes); cleared when it grows past this
_TOKEN_CACHE: dict[str, int] = {}
_TOKEN_CACHE_SIZE = 200_000
#: ``class`` / ``id`` value -> its groups (:func:`_value_mask`), bounded the same way
_VALUE_CACHE: dict[str, int] = {}
#: ``auto``'s compiled module (its twins' home)
COMPILED = "scrapy_boilerplate.auto._speedups"


def _token_mask(token: str) -> int:
    mask = _TOKEN_CACHE.get(token)
    if mask is None:
        mask = 0
        get = _KEYWORD_BITS.get
        for n in _KEYWORD_LENGTHS:
            if n > len(token):
                break
            mask |= get(token[:n], 0)
        if len(_TOKEN_CACHE) >= _TOKEN_CACHE_SIZE:
            _TOKEN_CACHE.clear()
        _TOKEN_CACHE[token] = mask
    return mask


#: Tags above a block that say something about it (any ancestor, from its tag path).
ANCESTOR_TAGS = (
    "article",
    "main",
    "section",
    "nav",
    "header",
    "footer",
    "aside",
    "form",
    "ul",
    "ol",
    "table",
    "figure",
    "blockquote",
    "dl",
    "li",
    "a",
    "button",
    "label",
)
#: The block's own tag, by kind.
TAG_KINDS: dict[str, tuple[str, ...]] = {
    "p": ("p",),
    "li": ("li",),
    "cell": ("td", "th"),
    "h1": ("h1",),
    "h23": ("h2", "h3"),
    "h456": ("h4", "h5", "h6"),
    "div": ("div",),
    "pre": ("pre",),
    "quote": ("blockquote",),
    "def": ("dd", "dt", "dl"),
    "caption": ("figcaption", "caption", "figure"),
    "section": ("section", "article", "main"),
    "chrome": ("nav", "header", "footer", "aside", "menu"),
    "body": ("body",),
    "form": ("form", "option", "optgroup", "textarea", "legend", "fieldset", "details", "summary"),
    "table": ("table", "tr", "thead", "tfoot", "col", "colgroup"),
}
_TAG_KIND = {t: i for i, ts in enumerate(TAG_KINDS.values()) for t in ts}

_NEIGHBOURS = (-2, -1, 1, 2)

NAMES: tuple[str, ...] = (
    # the text
    "log_chars",
    "log_words",
    "stopword_density",
    "link_density",
    "avg_word_length",
    "punctuation_ratio",
    "digit_ratio",
    "capital_ratio",
    "ends_sentence",
    "sentences",
    "copyright",
    "separators",
    "markup_per_word",
    "heading",
    # jusText
    "cf_good",
    "cf_near_good",
    "cf_short",
    "cf_bad",
    "justext_good",
    # where
    *(f"tag_{k}" for k in TAG_KINDS),
    "tag_other",
    "depth",
    *(f"in_{t}" for t in ANCESTOR_TAGS),
    *(f"own_{g}" for g in _GROUPS),
    *(f"above_{g}" for g in _GROUPS),
    # containers
    "parent_share",
    "parent_blocks",
    "parent_link_density",
    "parent_good_share",
    "grand_share",
    "grand_blocks",
    "grand_link_density",
    "grand_good_share",
    # position
    "position",
    "char_position",
    # neighbours
    *(
        f"n{o:+d}_{f}"
        for o in _NEIGHBOURS
        for f in ("log_chars", "link_density", "stopword_density", "good")
    ),
    "good_around",
    "good_before",
    "good_after",
    # the page
    "page_log_blocks",
    "page_log_chars",
    "page_good_share",
    "page_link_density",
    "in_title",
    "duplicate",
    # the main container (Readability's content score)
    *containers.NAMES,
)
WIDTH = len(NAMES)
_INDEX = {n: i for i, n in enumerate(NAMES)}

#: Characters by what is counted of them (bits), for the code points below U+2100.
_DIGIT, _PUNCT, _SEPARATOR, _CAPITAL_LETTER, _SPACE = 1, 2, 4, 8, 16
_CHAR_BITS = np.zeros(0x2100, dtype=np.uint8)
for _c in "0123456789":
    _CHAR_BITS[ord(_c)] |= _DIGIT
for _c in ".,;:!?":
    _CHAR_BITS[ord(_c)] |= _PUNCT
for _c in "|\u2022\u00b7\u203a\u00bb/":
    _CHAR_BITS[ord(_c)] |= _SEPARATOR
for _lo, _hi in ((0x41, 0x5A), (0xC0, 0xDE), (0x391, 0x3A9), (0x410, 0x42F)):
    _CHAR_BITS[_lo : _hi + 1] |= _CAPITAL_LETTER
_CHAR_BITS[0xD7] &= ~np.uint8(_CAPITAL_LETTER)  # the multiplication sign
for _c in " \t\n\r\f\v\u00a0":
    _CHAR_BITS[ord(_c)] |= _SPACE
#: :data:`_CHAR_BITS` as bytes, for the compiled :func:`_text_counts`.
_CHAR_TABLE = _CHAR_BITS.tobytes()
_ENDS_TEXT = ".!?:"
_CLOSERS_TEXT = "\"')]\u201d\u2019"
_ENDS = frozenset(_ENDS_TEXT)
_CLOSERS = frozenset(_CLOSERS_TEXT)
_SENTENCE = re.compile(r"[.!?](?=\s+\w)")
_COPYRIGHT = ("\u00a9", "&copy", "copyright", "all rights reserved")
#: Words of the page (in block order) over which its stoplist is guessed when it declares
#: no language: enough to tell the language (guessing costs a count per stopword and
#: language, so jusText's sample of 20,000 words would be most of the features' time).
STOPLIST_SAMPLE_WORDS = 600
#: A sample with at least this share of English stopwords is English without a guess over
#: every stoplist (English is most of the web; its text has about 0.4).
ENGLISH_SHARE = 0.25


def _value_mask(value: str) -> int:
    """The keyword groups of one ``class`` or ``id`` value: its words (``[a-z]+`` of the
    value lower-cased) matched by :func:`_token_mask`; memoised for the process like the
    tokens (a site's class values repeat on every element and page)."""
    mask = _VALUE_CACHE.get(value)
    if mask is None:
        mask = 0
        token_mask = _token_mask
        for token in _CLASS_TOKEN.findall(value.lower()):
            mask |= token_mask(token)
        if len(_VALUE_CACHE) >= _TOKEN_CACHE_SIZE:
            _VALUE_CACHE.clear()
        _VALUE_CACHE[value] = mask
    return mask


def _element_masks(blocks: list[TextBlock]) -> tuple[list[int], list[int]]:
    """Per block, the keyword groups of its own element and parent (``own``), and of every
    element above those (``above``), from the words of ``class`` and ``id``, lower-cased
    (:func:`_element_masks_of` on the blocks' elements)."""
    return _element_masks_of(block_elements(blocks), _value_mask)


@_compiled.twin(
    "element_masks",
    module=COMPILED,
    arguments=lambda elements, value_mask: (elements, _KEYWORD_BITS),
)
def _element_masks_of(
    elements: list[Any], value_mask: Callable[[str], int]
) -> tuple[list[int], list[int]]:
    """:func:`_element_masks` on the blocks' elements: an element's groups are those of its
    ``class`` and of its ``id`` (``value_mask`` of each non-empty one: the words of one
    never run into the other's, as they are split at anything but ``a-z``); compiled where
    ``_speedups`` is built (ancestors found by the tree's pointers, memoised by node,
    without a proxy each; the words matched by a trie of :data:`KEYWORDS`, as
    ``value_mask`` matches them by default)."""
    owned: dict[Any, int] = {}  # element -> its own groups
    memo: dict[Any, int] = {}  # element -> groups of it and all above it

    def own(el: Any) -> int:
        mask = owned.get(el)
        if mask is None:
            get = el.get
            value = get("class")
            ident = get("id")
            mask = (value_mask(value) if value else 0) | (value_mask(ident) if ident else 0)
            owned[el] = mask
        return mask

    def chain(el: Any) -> int:
        # iterative: the ancestors not memoised yet, then fill them top-down
        todo = []
        node = el
        while node is not None and node not in memo:
            todo.append(node)
            node = node.getparent()
        mask = memo[node] if node is not None else 0
        for n in reversed(todo):
            mask |= own(n)
            memo[n] = mask
        return memo[el]

    owns, aboves = [], []
    for el in elements:
        parent = el.getparent()
        if parent is None:
            owns.append(own(el))
            aboves.append(0)
            continue
        owns.append(own(el) | own(parent))
        up = parent.getparent()
        aboves.append(chain(up) if up is not None else 0)
    return owns, aboves


def _char_counts(texts: list[str], chars: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per block: ASCII digits, punctuation ``.,;:!?``, separators ``|•·›»/`` and words
    that start with a capital letter (Latin, Greek, Cyrillic), over every block's text at
    once (one array of code points, no loop per character)."""
    cps = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    bits = _CHAR_BITS[np.minimum(cps, len(_CHAR_BITS) - 1)]
    bits[cps >= len(_CHAR_BITS)] = 0
    starts = np.concatenate(([0], np.cumsum(chars[:-1]))).astype(np.int64)
    # a capital starts a word when the character before it is a space or a block's start
    after_space = np.empty(len(bits), dtype=bool)
    if len(bits):
        after_space[0] = True
        after_space[1:] = (bits[:-1] & _SPACE) != 0
        after_space[starts[chars > 0]] = True
    # the four flags of every character, counted per block by one running sum
    cum = np.zeros((len(bits) + 1, 4), dtype=np.int64)
    for k, flag in enumerate((_DIGIT, _PUNCT, _SEPARATOR)):
        cum[1:, k] = (bits & flag) != 0
    cum[1:, 3] = ((bits & _CAPITAL_LETTER) != 0) & after_space
    np.cumsum(cum, axis=0, out=cum)
    counts = (cum[starts + chars.astype(np.int64)] - cum[starts]).astype(np.float64)
    return counts[:, 0], counts[:, 1], counts[:, 2], counts[:, 3]


@_compiled.twin(
    "text_counts",
    module=COMPILED,
    arguments=lambda texts, chars: (texts, _CHAR_TABLE, _ENDS_TEXT, _CLOSERS_TEXT),
)
def _text_counts(texts: list[str], chars: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per block, as float64: :func:`_char_counts`'s four counts (digits, punctuation,
    separators, capitalised words), then its letters (characters but the space U+0020),
    its sentence breaks (:data:`_SENTENCE`'s matches) and whether it ends a sentence
    (:func:`_ends_sentence`); compiled where ``_speedups`` is built (one pass over each
    text's code points instead of an array of them, a regular expression and a copy)."""
    digits, punctuation, separators, capitals = _char_counts(texts, chars)
    letters = np.array([len(t) - t.count(" ") for t in texts], dtype=np.float64)
    sentences = np.array([len(_SENTENCE.findall(t)) for t in texts], dtype=np.float64)
    ends = np.array([_ends_sentence(t) for t in texts], dtype=np.float64)
    return digits, punctuation, separators, capitals, letters, sentences, ends


@_compiled.twin("word_counts", module=COMPILED)
def _word_counts(
    lowers: list[str], stoplist: frozenset[str], title: frozenset[str], substrings: tuple[str, ...]
) -> tuple[np.ndarray, ...]:
    """Per lower-cased block text, as float64: its words (``str.split``), those in
    ``stoplist``, the share of its distinct words in ``title`` (blocks of 1 to 29 words
    that share one with it, else 0), whether another block has the same words, and
    whether it holds one of ``substrings``; compiled where ``_speedups`` is built (one
    pass over each text, no string made per word)."""
    words_of = [t.split() for t in lowers]
    n_words = np.array([len(w) for w in words_of], dtype=np.float64)
    stop = np.array([sum(map(stoplist.__contains__, w)) for w in words_of], dtype=np.float64)
    in_title = np.zeros(len(lowers), dtype=np.float64)
    if title:
        # the share of a short block's distinct words in the title (no set made for the
        # blocks that share none, most of them)
        disjoint = title.isdisjoint
        in_title[:] = [
            len(title.intersection(w)) / len(set(w)) if 0 < len(w) < 30 and not disjoint(w) else 0.0
            for w in words_of
        ]
    keys = [" ".join(w) for w in words_of]
    counts = Counter(keys)
    duplicate = np.array([counts[k] > 1 for k in keys], dtype=np.float64)
    holds = blocks_containing(substrings, lowers).astype(np.float64)
    return n_words, stop, in_title, duplicate, holds


@_compiled.twin("blocks_containing", module=COMPILED)
def blocks_containing(substrings: tuple[str, ...], texts: list[str]) -> np.ndarray:
    """Which texts contain any of ``substrings`` (none holding a NUL): one ``str.find``
    scan per substring over the texts joined by NULs, the hits assigned to texts by
    position, instead of a test per text and substring; compiled where ``_speedups`` is
    built (each text read once, until its first hit, the substrings tried only where a
    character starts one of them)."""
    joined = "\x00".join(texts)
    found = []
    for sub in substrings:
        i = joined.find(sub)
        while i >= 0:
            found.append(i)
            i = joined.find(sub, i + 1)
    out = np.zeros(len(texts), dtype=bool)
    if found:
        ends = np.cumsum([len(t) + 1 for t in texts])  # where each text's successor starts
        out[np.searchsorted(ends, found, side="right")] = True
    return out


def _ends_sentence(text: str) -> bool:
    """True when the text ends with ``. ! ? :``, maybe followed by a closing quote or
    bracket."""
    tail = text.rstrip()[-2:]
    if tail[-1:] in _CLOSERS:
        tail = tail[:-1]
    return tail[-1:] in _ENDS


def stoplist_name(doc: Document, blocks: list[TextBlock], lowers: list[str] | None = None) -> str:
    """The jusText stoplist of the page: the declared language's where it has one, else
    English when the first words are English enough, else the best guess over every
    stoplist on the first :data:`STOPLIST_SAMPLE_WORDS` words (English without words).
    ``lowers``: the blocks' texts lower-cased, where the caller has them."""
    declared = languages.declared_language(doc.declared_language)
    if declared is not None:
        return declared
    if lowers is None:
        lowers = [b.text.lower() for b in _first_words(blocks)]
    english = languages.stoplist("English")
    words, hits = _sample_hits(lowers, english, STOPLIST_SAMPLE_WORDS)
    if not words or hits >= ENGLISH_SHARE * words:
        return "English"
    guessed, _ = languages.guess(_sample(lowers, STOPLIST_SAMPLE_WORDS))
    return guessed or "English"


def _first_words(blocks: list[TextBlock]) -> list[TextBlock]:
    """The first blocks that hold :data:`STOPLIST_SAMPLE_WORDS` words (all of them where
    the page has fewer), counted as ``str.split`` counts them."""
    count = 0
    for k, b in enumerate(blocks):
        count += len(b.text.split())
        if count >= STOPLIST_SAMPLE_WORDS:
            return blocks[: k + 1]
    return blocks


def _sample(lowers: list[str], limit: int) -> list[str]:
    """The first ``limit`` words of the texts, in order (split as ``str.split`` splits)."""
    words: list[str] = []
    for text in lowers:
        words.extend(text.split())
        if len(words) >= limit:
            break
    return words[:limit]


@_compiled.twin("sample_hits", module=COMPILED)
def _sample_hits(lowers: list[str], stoplist: frozenset[str], limit: int) -> tuple[int, int]:
    """How many words :func:`_sample` takes, and how many of them are in ``stoplist``;
    compiled where ``_speedups`` is built (the words read where they stand, each looked up
    by its hash, no string made for it)."""
    words = _sample(lowers, limit)
    return len(words), sum(map(stoplist.__contains__, words))


def page_language(doc: Document, blocks: list[TextBlock], lowers: list[str] | None = None) -> str:
    """The jusText stoplist the features read the page with (:func:`stoplist_name`),
    chosen once per document."""
    return doc.cached("auto_language", lambda: stoplist_name(doc, blocks, lowers))


def language_code(name: str) -> str:
    """The ISO code of a stoplist name (the name itself where there is none), as jusText
    reports its language."""
    return languages.iso_code(name) or name


def _stoplist(
    doc: Document, blocks: list[TextBlock], lowers: list[str] | None = None
) -> frozenset[str]:
    """The page's stoplist (:func:`page_language`; empty for the language-independent mode)."""
    language = page_language(doc, blocks, lowers)
    return frozenset() if language == languages.INDEPENDENT else languages.stoplist(language)


#: :func:`classify_context_free`'s own defaults, which :func:`_context_free_codes` applies
_CF_DEFAULTS = {
    name: p.default for name, p in inspect.signature(classify_context_free).parameters.items()
}
_CF_CODES = (GOOD, NEAR_GOOD, SHORT, BAD)


def _compiled_cf_arguments(texts: list[str], *counts: Any) -> tuple[Any, ...]:
    """The compiled :func:`_context_free_codes`' arguments: the texts, the four counts as
    contiguous float64, the ``select`` flags as bytes, whether there is a stoplist, then
    :func:`classify_context_free`'s defaults."""
    *numbers, in_select, has_stoplist = counts
    d = _CF_DEFAULTS
    return (
        texts,
        *(np.ascontiguousarray(a, dtype=np.float64) for a in numbers),
        np.ascontiguousarray(in_select, dtype=np.uint8),
        has_stoplist,
        *(float(d[k]) for k in ("length_low", "length_high", "stopwords_low", "stopwords_high")),
        float(d["max_link_density"]),
    )


@_compiled.twin("context_free_codes", module=COMPILED, arguments=_compiled_cf_arguments)
def _context_free_codes(
    texts: list[str],
    chars: np.ndarray,
    n_words: np.ndarray,
    stop: np.ndarray,
    links: np.ndarray,
    in_select: np.ndarray,
    has_stoplist: bool,
) -> np.ndarray:
    """jusText's context-free classes (:func:`classify_context_free` with its defaults, and
    no stopword thresholds without a stoplist) as codes, the index of each class in
    :data:`_CF_CODES` (good, near-good, short, bad), from the counts the features make
    anyway (``stop``: stopwords among the ``n_words`` lower-cased words of each of
    ``texts``; ``in_select``: a ``select`` on the block's tag path): the same rules, in
    their order, on whole arrays; compiled where ``_speedups`` is built (the rules block by
    block, without an array operation per rule)."""
    d = _CF_DEFAULTS
    low, high = (d["stopwords_low"], d["stopwords_high"]) if has_stoplist else (0.0, 0.0)
    if has_stoplist:
        stopword_density = np.where(n_words > 0, stop / np.maximum(n_words, 1.0), 0.0)
    else:
        stopword_density = np.zeros(len(chars))
    link_density = np.where(chars > 0, links / np.maximum(chars, 1.0), 0.0)
    short = chars < d["length_low"]
    bad = (link_density > d["max_link_density"]) | in_select | (short & (links > 0))
    bad |= np.fromiter(("\xa9" in t or "&copy" in t for t in texts), dtype=bool, count=len(texts))
    # the rules from the last to the first, each overriding those after it
    codes = np.full(len(chars), 3, dtype=np.intp)  # bad
    codes[stopword_density >= low] = 1  # near-good
    codes[stopword_density >= high] = 1
    codes[(stopword_density >= high) & (chars > d["length_high"])] = 0  # good
    codes[short] = 2  # short
    codes[bad] = 3
    return codes


def _title_words(doc: Document) -> frozenset[str]:
    title = next(doc.root.iterdescendants("title"), None)  # find(".//title"), without a path
    text = "".join(title.itertext()) if title is not None else ""
    return frozenset(w for w in re.findall(r"\w+", text.lower()) if len(w) > 2)


def _ids(keys: list[str]) -> tuple[np.ndarray, list[str]]:
    """Each key's number (in order of first appearance) and the distinct keys."""
    numbers: dict[str, int] = {}
    ids = np.array([numbers.setdefault(k, len(numbers)) for k in keys], dtype=np.intp)
    return ids, list(numbers)


#: Column of each :data:`ANCESTOR_TAGS` tag in :func:`_path_table`'s rows.
_ANCESTOR_COLUMN = {t: 3 + k for k, t in enumerate(ANCESTOR_TAGS)}
_PATH_WIDTH = 3 + len(ANCESTOR_TAGS)


#: tag path -> its row of :func:`_path_table` (a pure function of the path), shared by every
#: page of the process (a site's paths repeat on every page); cleared past this size
_PATH_ROWS: dict[str, np.ndarray] = {}
_PATH_ROWS_SIZE = 100_000


def _path_row(path: str) -> np.ndarray:
    """What a tag path says, as float64: depth, heading (jusText's test on the path), a
    ``select`` on it, then a flag per :data:`ANCESTOR_TAGS` above the block."""
    row = _PATH_ROWS.get(path)
    if row is None:
        tags = path.split(".")
        row = np.zeros(_PATH_WIDTH, dtype=np.float64)
        row[0] = len(tags)
        row[1] = heading_in_path(path)
        row[2] = "select" in tags
        column = _ANCESTOR_COLUMN
        for t in tags[:-1]:
            k = column.get(t)
            if k is not None:
                row[k] = 1.0
        if len(_PATH_ROWS) >= _PATH_ROWS_SIZE:
            _PATH_ROWS.clear()
        _PATH_ROWS[path] = row
    return row


@_compiled.twin(
    "path_table",
    module=COMPILED,
    arguments=lambda paths: (paths, _PATH_ROWS, _path_row, _PATH_WIDTH),
)
def _path_table(paths: list[str]) -> np.ndarray:
    """Each block's :func:`_path_row` (its tag path's depth, heading, ``select`` and
    ancestor flags), as one ``(n, 3 + len(ANCESTOR_TAGS))`` float64 array: the distinct
    paths' rows (a page has far fewer paths than blocks), taken once per block; compiled
    where ``_speedups`` is built (each row copied into place, without a list of the
    paths' numbers and an array of the distinct rows)."""
    ids, distinct = _ids(paths)
    if not distinct:
        return np.zeros((0, _PATH_WIDTH), dtype=np.float64)
    return np.stack([_path_row(p) for p in distinct])[ids]


@_compiled.twin("container_ids", module=COMPILED)
def _container_ids(xpaths: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each block's parent and grandparent container (intp), numbered in order of first
    appearance, from the blocks' XPaths: a block's parent is its XPath without the last
    two steps (none for a block at most one step below the root), the grandparent the
    parent's without its last step; compiled where ``_speedups`` is built (the keys cut
    where the slashes are, without a list of the parts)."""
    parent_keys = [x.rsplit("/", 2)[0] if x.count("/") > 1 else "" for x in xpaths]
    parent_ids, parents = _ids(parent_keys)
    grand_of, _ = _ids([k.rsplit("/", 1)[0] if "/" in k else "" for k in parents])
    return parent_ids, grand_of[parent_ids]


def block_features(doc: Document, blocks: list[TextBlock] | None = None) -> np.ndarray:
    """The ``(n, WIDTH)`` float32 matrix of :data:`NAMES` for the page's section blocks."""
    if blocks is None:
        blocks = doc.section_blocks()
    if not blocks:
        return np.zeros((0, WIDTH), dtype=np.float32)
    return _columns(blocks, block_counts(doc, blocks))


def block_counts(doc: Document, blocks: list[TextBlock]) -> BlockCounts:
    """What the block features are made from (:class:`BlockCounts`), for ``blocks`` of
    ``doc``: the counts of each block's text, jusText's classes, the keyword groups of
    its elements, its containers and Readability's view of them."""
    texts = [b.text for b in blocks]
    chars = np.array([len(t) for t in texts], dtype=np.float64)
    lowers = [t.lower() for t in texts]
    stoplist = _stoplist(doc, blocks, lowers)
    n_words, stop, in_title, duplicate, copyright = _word_counts(
        lowers, stoplist, _title_words(doc), _COPYRIGHT
    )
    links = np.array([b.link_chars for b in blocks], dtype=np.float64)
    # what a tag path says, once per distinct path (a page has far fewer paths than blocks)
    paths = _path_table([b.tag_path for b in blocks])
    headings = paths[:, 1]
    cf_codes = _context_free_codes(
        texts, chars, n_words, stop, links, paths[:, 2] > 0, bool(stoplist)
    )
    cf = [_CF_CODES[c] for c in cf_codes.tolist()]
    final = classify_context_sensitive(blocks, cf, (headings > 0).tolist())
    good = np.array([c == GOOD for c in final], dtype=np.float64)
    owns, aboves = _element_masks(blocks)
    parent_ids, grand_ids = _container_ids([b.xpath for b in blocks])
    return BlockCounts(
        chars,
        n_words,
        stop,
        links,
        paths,
        cf_codes,
        good,
        _text_counts(texts, chars),
        in_title,
        duplicate,
        copyright,
        owns,
        aboves,
        parent_ids,
        grand_ids,
        containers.container_features(blocks, texts, chars, links),
    )


class BlockCounts(NamedTuple):
    """What :func:`block_features` counts of each block before its columns are made
    (:func:`_columns`): float64 arrays of one value per block unless said otherwise."""

    chars: np.ndarray
    n_words: np.ndarray
    #: stopwords among the words
    stop: np.ndarray
    #: characters inside links
    links: np.ndarray
    #: :func:`_path_table`'s rows
    paths: np.ndarray
    #: jusText's context-free class, as its index in :data:`_CF_CODES` (intp)
    cf_codes: np.ndarray
    #: 1.0 where jusText's final class is good
    good: np.ndarray
    #: :func:`_text_counts`: digits, punctuation, separators, capitalised words, letters,
    #: sentence breaks and whether the text ends a sentence
    text: tuple[np.ndarray, ...]
    in_title: np.ndarray
    duplicate: np.ndarray
    copyright: np.ndarray
    #: :func:`_element_masks`: the keyword groups of the element and its parent, and of
    #: every element above (ints)
    owns: list[int]
    aboves: list[int]
    #: each block's parent and grandparent, numbered (intp)
    parent_ids: np.ndarray
    grand_ids: np.ndarray
    #: :func:`containers.container_features`' matrix
    container: np.ndarray


#: The first column of each run of columns the compiled :func:`_columns` writes by
#: offset: the ancestor tags, the element's own and the ancestors' keyword groups, and
#: Readability's view of the container.
_RUNS = (
    _INDEX[f"in_{ANCESTOR_TAGS[0]}"],
    _INDEX[f"own_{_GROUPS[0]}"],
    _INDEX[f"above_{_GROUPS[0]}"],
    _INDEX[containers.NAMES[0]],
)


def _compiled_columns(blocks: list[TextBlock], counts: BlockCounts) -> tuple[Any, ...]:
    """The compiled :func:`_columns`' arguments: the counts as contiguous arrays, the
    logarithms made by NumPy (the reference's own, whichever implementation NumPy
    dispatches to), and the column numbers."""
    n = len(blocks)
    digits, punctuation, separators, capitals, letters, sentences, ends = counts.text
    return (
        blocks,
        np.array(  # (one (17, n) C-order array, made at once rather than by np.vstack)
            (
                counts.chars,
                counts.n_words,
                counts.stop,
                counts.links,
                counts.good,
                digits,
                punctuation,
                separators,
                capitals,
                letters,
                ends,
                counts.in_title,
                counts.duplicate,
                counts.copyright,
                np.log1p(counts.chars),
                np.log1p(counts.n_words),
                np.log1p(sentences),
            ),
            dtype=np.float64,
        ),
        np.ascontiguousarray(counts.paths, dtype=np.float64),
        np.ascontiguousarray(counts.cf_codes, dtype=np.intp),
        counts.owns,
        counts.aboves,
        np.ascontiguousarray(counts.parent_ids, dtype=np.intp),
        np.ascontiguousarray(counts.grand_ids, dtype=np.intp),
        np.ascontiguousarray(counts.container, dtype=np.float32),
        np.log1p(np.arange(n + 1, dtype=np.float64)),
        _INDEX,
        _TAG_KIND,
        _RUNS,
        len(_GROUPS),
        len(ANCESTOR_TAGS),
    )


@_compiled.twin("block_columns", module=COMPILED, arguments=_compiled_columns)
def _columns(blocks: list[TextBlock], counts: BlockCounts) -> np.ndarray:
    """The ``(n, WIDTH)`` float32 matrix of :data:`NAMES` from what was counted of the
    blocks; compiled where ``_speedups`` is built (one pass over the blocks that writes
    each row, instead of a hundred array operations on columns: the same float64
    arithmetic, each value rounded to float32 once)."""
    n = len(blocks)
    x = np.zeros((n, WIDTH), dtype=np.float32)
    chars, n_words, stop, links, good = (
        counts.chars,
        counts.n_words,
        counts.stop,
        counts.links,
        counts.good,
    )
    paths, cf_codes = counts.paths, counts.cf_codes
    link_density = np.minimum(1.0, links / np.maximum(chars, 1.0))
    safe_words = np.maximum(n_words, 1.0)
    stop_density = stop / safe_words

    col = _INDEX
    x[:, col["log_chars"]] = np.log1p(chars)
    x[:, col["log_words"]] = np.log1p(n_words)
    x[:, col["stopword_density"]] = stop_density
    x[:, col["link_density"]] = link_density
    digits, punctuation, separators, capitals, letters, sentences, ends = counts.text
    x[:, col["avg_word_length"]] = letters / safe_words
    safe_chars = np.maximum(chars, 1.0)
    x[:, col["punctuation_ratio"]] = punctuation / safe_chars
    x[:, col["digit_ratio"]] = digits / safe_chars
    x[:, col["capital_ratio"]] = capitals / safe_words
    x[:, col["ends_sentence"]] = ends
    x[:, col["sentences"]] = np.log1p(sentences)
    x[:, col["copyright"]] = counts.copyright
    x[:, col["separators"]] = separators / safe_words
    x[:, col["markup_per_word"]] = [b.tags_count for b in blocks] / safe_words

    for code, name in enumerate(("cf_good", "cf_near_good", "cf_short", "cf_bad")):
        x[:, col[name]] = cf_codes == code  # in the order of _CF_CODES
    x[:, col["justext_good"]] = good

    other = col["tag_other"]
    first_tag = col["tag_p"]
    tag_kind = _TAG_KIND.get
    x[np.arange(n), [first_tag + tag_kind(b.tag, other - first_tag) for b in blocks]] = 1.0
    x[:, col["depth"]] = paths[:, 0]
    x[:, col["heading"]] = paths[:, 1]
    first_in, own0, above0, first_rd = _RUNS
    x[:, first_in : first_in + len(ANCESTOR_TAGS)] = paths[:, 3:]

    owns = np.array(counts.owns, dtype=np.int64)[:, None]
    aboves = np.array(counts.aboves, dtype=np.int64)[:, None]
    x[:, own0 : own0 + len(_GROUPS)] = (owns & _BITS) > 0
    x[:, above0 : above0 + len(_GROUPS)] = (aboves & _BITS) > 0

    total = float(chars.sum()) or 1.0
    good_chars = chars * good
    for prefix, ids in (("parent", counts.parent_ids), ("grand", counts.grand_ids)):
        # sums of whole numbers, so exact in any order
        gc = np.bincount(ids, weights=chars)[ids]
        x[:, col[f"{prefix}_share"]] = gc / total
        x[:, col[f"{prefix}_blocks"]] = np.log1p(np.bincount(ids)[ids])
        x[:, col[f"{prefix}_link_density"]] = np.minimum(
            1.0, np.bincount(ids, weights=links)[ids] / np.maximum(gc, 1.0)
        )
        x[:, col[f"{prefix}_good_share"]] = np.bincount(ids, weights=good_chars)[ids] / np.maximum(
            gc, 1.0
        )

    x[:, col["position"]] = np.arange(n) / max(n - 1, 1)
    x[:, col["char_position"]] = (np.cumsum(chars) - chars) / total

    log_chars = x[:, col["log_chars"]]
    reach = max(map(abs, _NEIGHBOURS))
    for f, values, pad in (
        ("log_chars", log_chars, 0.0),
        ("link_density", link_density, 1.0),
        ("stopword_density", stop_density, 0.0),
        ("good", good, 0.0),
    ):
        edge = np.full(reach, pad, dtype=np.float64)
        padded = np.concatenate((edge, values, edge))  # block i at reach + i
        for o in _NEIGHBOURS:
            x[:, col[f"n{o:+d}_{f}"]] = padded[reach + o : reach + o + n]
    cum = np.concatenate(([0.0], np.cumsum(good)))
    idx = np.arange(n)
    lo, hi = np.maximum(idx - 5, 0), np.minimum(idx + 6, n)
    x[:, col["good_around"]] = (cum[hi] - cum[lo]) / (hi - lo)
    x[:, col["good_before"]] = cum[idx] / np.maximum(idx, 1)
    x[:, col["good_after"]] = (cum[n] - cum[idx + 1]) / np.maximum(n - idx - 1, 1)

    x[:, col["page_log_blocks"]] = math.log1p(n)
    x[:, col["page_log_chars"]] = math.log1p(total)
    x[:, col["page_good_share"]] = float((chars * good).sum()) / total
    x[:, col["page_link_density"]] = float(links.sum()) / total
    x[:, col["in_title"]] = counts.in_title
    x[:, col["duplicate"]] = counts.duplicate
    x[:, first_rd : first_rd + len(containers.NAMES)] = counts.container
    return x
