"""Asides: the parts of an article page that its markup names as something else.

An article page's template wraps the story and, around or inside it, parts that are not
the story: the reader comments, the related stories, the sharing buttons, the author's
bio, the newsletter box, the advertisements, the date and category line. Templates name
these parts in their ``class`` and ``id`` (WordPress's ``jp-relatedposts`` and
``yarpp-related``, ``comment-list``, ``author-bio``, ``sharedaddy``), and trafilatura
drops every element so named before it extracts ("Trafilatura: A Web Scraping Library
and Command-Line Tool for Text Discovery and Extraction"). `auto`'s block trees see the
same words as features, weighed against the rest of a block's evidence; on pages in
languages the training pages do not speak, a "Related posts" heading inside the article's
own container can still score as content.

Here the words decide, after the trees: on a page taken for an article, a content block
inside an element so named is boilerplate, provided that element holds at most
:data:`MAX_SHARE` of the page's text (a page's outer wrappers and its ``<article>`` can
carry such words too: WordPress gives the article element a class per tag and category).
The vocabulary is trafilatura's, less the words that cost text F1 on article pages in
``auto``'s grouped cross-validation (``widget``, ``nav``, ``menu``), and the rule was
kept by that cross-validation (docs/auto.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import TextBlock

#: ``auto``'s compiled module, where :func:`aside_blocks` has its twin
COMPILED = "scrapy_boilerplate.auto._speedups"

#: A ``class`` word or an ``id`` that names a part of an article page that is not the
#: article (matched anywhere in the word, case aside, except where anchored).
ASIDE_WORDS = re.compile(
    r"related|social|comment|newsletter|subscri|byline|author|advert|sponsor|promo"
    r"|post-?meta|entry-meta|^meta$|shar(?:e|ing)|sidebar|footer|breadcrumb|cookie|disqus"
    r"|respond|outbrain|taboola|^tags?$|tag-?(?:list|cloud)|^tags-",
    re.IGNORECASE,
)

#: The largest share of the page's text (its blocks' characters) that a named element may
#: hold for its blocks to be taken out: above it, the element is the page's body or the
#: article itself, whatever its class says.
MAX_SHARE = 0.25

#: The page types the rule applies to where a model does not say (``auto``'s shipped
#: model names the same): on the other types the words mark content as often as not
#: (a forum's posts are comments, a shop's reviews sit in ``rating`` boxes).
ASIDE_TYPES: tuple[str, ...] = ("article",)

#: The version of the rule a model's metadata names (:func:`.model._asides`).
RULE_VERSION = 1

_STOP = frozenset({"body", "html"})
#: ``class`` / ``id`` value -> whether it names an aside; shared by the process's pages
#: (templates repeat), cleared when it grows past this
_VALUE_CACHE: dict[str, bool] = {}
_VALUE_CACHE_SIZE = 100_000


def names_aside(value: str) -> bool:
    """Whether a ``class`` value (any of its words) or an ``id`` names an aside."""
    found = _VALUE_CACHE.get(value)
    if found is None:
        search = ASIDE_WORDS.search
        found = any(search(word) for word in value.split())
        if len(_VALUE_CACHE) >= _VALUE_CACHE_SIZE:
            _VALUE_CACHE.clear()
        _VALUE_CACHE[value] = found
    return found


def _compiled_arguments(
    blocks: Sequence[TextBlock],
    chars: np.ndarray,
    labels: np.ndarray,
    max_share: float = MAX_SHARE,
) -> tuple[Any, ...]:
    return (
        list(blocks),
        chars,
        np.flatnonzero(labels).tolist(),
        float(max_share),
        names_aside,
        _VALUE_CACHE,
    )


@_compiled.twin("aside_blocks", module=COMPILED, arguments=_compiled_arguments)
def aside_blocks(
    blocks: Sequence[TextBlock],
    chars: np.ndarray,
    labels: np.ndarray,
    max_share: float = MAX_SHARE,
) -> np.ndarray:
    """Which of the blocks kept by ``labels`` sit in an aside: their element, or an element
    above it holding at most ``max_share`` of the blocks' characters (``chars``), has a
    ``class`` word or an ``id`` that :data:`ASIDE_WORDS` matches. Blocks not kept are
    never marked.

    The blocks under an element are a stretch of consecutive blocks (document order)
    whose xpaths start with the element's; the walk up from a block widens that stretch
    one element at a time and stops at the first element above the share. What is found
    of an element (an aside at or above it within the share, or not) is kept for the
    next block that reaches it: a page's kept blocks mostly share their parents.
    Compiled where ``_speedups`` is built (the blocks under an element found by the parent
    pointers of their nodes instead of their xpaths' prefixes).
    """
    out = np.zeros(len(blocks), dtype=bool)
    kept = np.flatnonzero(labels).tolist()
    if not kept:
        return out
    cum = np.concatenate(([0.0], np.cumsum(chars, dtype=np.float64))).tolist()
    limit = max_share * cum[-1]
    xpaths = [b.xpath for b in blocks]
    last = len(blocks) - 1
    verdicts: dict[object, bool] = {}  # element -> an aside at or above it, within the share
    marked = []
    for i in kept:
        el = blocks[i].element
        path = xpaths[i]
        lo = hi = i
        walked = []
        verdict = False
        while el is not None:
            known = verdicts.get(el)
            if known is not None:
                verdict = known
                break
            tag = el.tag
            if not isinstance(tag, str) or tag in _STOP:
                break
            inside = path + "/"
            while lo and (xpaths[lo - 1] == path or xpaths[lo - 1].startswith(inside)):
                lo -= 1
            while hi < last and (xpaths[hi + 1] == path or xpaths[hi + 1].startswith(inside)):
                hi += 1
            if cum[hi + 1] - cum[lo] > limit:
                verdicts[el] = False  # it and all above it hold too much: no aside there
                break
            walked.append(el)
            for value in (el.get("class"), el.get("id")):
                if value and names_aside(value):
                    verdict = True
            if verdict:
                break
            el = el.getparent()
            path = path[: path.rfind("/")]
        for w in walked:
            verdicts[w] = verdict
        if verdict:
            marked.append(i)
    out[marked] = True
    return out


__all__ = ["ASIDE_TYPES", "ASIDE_WORDS", "MAX_SHARE", "RULE_VERSION", "aside_blocks", "names_aside"]
