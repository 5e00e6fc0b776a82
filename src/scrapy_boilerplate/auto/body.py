"""The named body: the element a page's template names as the post's or article's text.

Blog and news templates wrap the text of a post in an element whose ``class`` or ``id``
says so: WordPress's ``entry-content``, ``post-content``, ``article-body``, schema.org's
``itemprop="articleBody"``. trafilatura looks for such an element first and extracts from
it alone ("Trafilatura: A Web Scraping Library and Command-Line Tool for Text Discovery
and Extraction"; its ``BODY_XPATH``). ``auto``'s block trees read the same words as one
piece of evidence among many, and on a page whose type they misread (a short blog post in
a language the training pages do not speak, among sidebars and link lists, taken for a
service page or a listing) they keep a sidebar's or a footer's text beside the post.

Here the template's word decides, after the trees: when the elements so named that hold
the text the trees kept (one, or the parts of an article split alike) hold at least
:data:`MIN_SHARE` of its characters, the kept blocks that follow the body's start and lie
outside it are boilerplate (the comments, related posts, widgets and footer after a
post); what comes before it stays (a post's title, lead and byline sit in the
template's header above its body). Forum pages are left out: each post there has a body
of its own, and the first one is not the thread. The rule was kept by ``auto``'s grouped
cross-validation (docs/auto.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import TextBlock

#: A ``class`` or ``id`` that names a post's or an article's text (matched anywhere in the
#: value, case kept, as trafilatura matches its first body XPath; ``articleBody`` with
#: either of its two capitals or none).
BODY_WORDS = re.compile(
    r"post-text|post_text|post-body|post-entry|postentry|post-content|post_content"
    r"|postcontent|postContent|post_inner_wrapper|article-text|articletext|articleText"
    r"|entry-content|article-content|article__content|article-body|article__body"
    r"|[aA]rticle[bB]ody|ArticleContent|page-content|text-content|body-text"
    r"|article__container|art-content"
)
#: Whole ``class`` values that name a post's text.
BODY_CLASSES = frozenset({"post", "entry"})
#: The elements that may be the body (trafilatura's).
BODY_TAGS = ("article", "div", "main", "section")
#: The least share of the kept characters the body must hold for the rule to apply: a
#: body holding less is a teaser's or a widget's, not the page's text.
MIN_SHARE = 0.5
#: The page types the rule applies to where a model does not say.
BODY_TYPES: tuple[str, ...] = (
    "article",
    "collection",
    "documentation",
    "listing",
    "product",
    "service",
)
#: The version of the rule a model's metadata names (:func:`.model._body`).
RULE_VERSION = 1
#: Named bodies looked at, at most (a page of nested post boxes).
MAX_BODIES = 100
#: ``auto``'s compiled module, where :func:`_body_walk` has its twin
COMPILED = "scrapy_boilerplate.auto._speedups"
#: (class, id, itemprop) -> whether they name a body; shared by the process's pages
#: (templates repeat), cleared when it grows past this
_NAMED_CACHE: dict[tuple[str | None, str | None, str | None], bool] = {}
_NAMED_CACHE_SIZE = 100_000

_BODY_TAGS = frozenset(BODY_TAGS)


def _named_values(cls: str | None, ident: str | None, itemprop: str | None) -> bool:
    """Whether these ``class``, ``id`` and ``itemprop`` values name a post's text."""
    if cls and (cls in BODY_CLASSES or BODY_WORDS.search(cls)):
        return True
    if ident and (ident == "articleContent" or BODY_WORDS.search(ident)):
        return True
    return itemprop == "articleBody"


def names_body(el: Any) -> bool:
    """Whether ``el``'s ``class`` or ``id`` (or its ``itemprop``) names a post's text."""
    cls, ident, itemprop = el.get("class"), el.get("id"), el.get("itemprop")
    if cls is None and ident is None and itemprop is None:
        return False
    key = (cls, ident, itemprop)
    found = _NAMED_CACHE.get(key)
    if found is None:
        found = _named_values(cls, ident, itemprop)
        if len(_NAMED_CACHE) >= _NAMED_CACHE_SIZE:
            _NAMED_CACHE.clear()
        _NAMED_CACHE[key] = found
    return found


def _walk_arguments(elements: list[Any], limit: int) -> tuple[Any, ...]:
    return (elements, limit, _named_values, _NAMED_CACHE, _NAMED_CACHE_SIZE)


@_compiled.twin("body_walk", module=COMPILED, arguments=_walk_arguments)
def _body_walk(elements: list[Any], limit: int) -> list[tuple[int, int]]:
    """Walk up from each of ``elements`` (each element looked at once) and return, for
    each element of :data:`BODY_TAGS` met that :func:`names_body`, the index of the
    element it was reached from and how many steps up it lies; in the order met, at most
    ``limit``. Compiled where ``_speedups`` is built (the tree's pointers, without a
    proxy for each element passed)."""
    seen: set[Any] = set()
    out: list[tuple[int, int]] = []
    tags, named = _BODY_TAGS, names_body
    for i, el in enumerate(elements):
        up = 0
        while el is not None and el not in seen:
            seen.add(el)
            if el.tag in tags and named(el):
                out.append((i, up))
                if len(out) >= limit:
                    return out
            el = el.getparent()
            up += 1
    return out


def named_bodies(
    blocks: Sequence[TextBlock], labels: np.ndarray | None = None
) -> list[tuple[str, np.ndarray]]:
    """The elements of :data:`BODY_TAGS` that :func:`names_body` and that hold one of the
    ``blocks`` kept by ``labels`` (None: any block), each as its xpath (as the blocks'
    are written) and which blocks it holds; in the order they were met, at most
    :data:`MAX_BODIES`.

    Found by walking up from the blocks' elements (:func:`_body_walk`), so a page's many
    other ``div``\\ s cost nothing. The blocks under an element are a stretch of
    consecutive blocks whose xpaths start with the element's, widened from the block it
    was reached from; the blocks' xpaths are read only on a page with a named body."""
    indices = list(range(len(blocks))) if labels is None else np.flatnonzero(labels).tolist()
    found = _body_walk([blocks[i].element for i in indices], MAX_BODIES)
    if not found:
        return []
    xpaths = [b.xpath for b in blocks]
    last = len(blocks) - 1
    out: list[tuple[str, np.ndarray]] = []
    for k, up in found:
        i = indices[k]
        path = xpaths[i].rsplit("/", up)[0] if up else xpaths[i]
        prefix = path + "/"
        lo = hi = i
        while lo and (xpaths[lo - 1] == path or xpaths[lo - 1].startswith(prefix)):
            lo -= 1
        while hi < last and (xpaths[hi + 1] == path or xpaths[hi + 1].startswith(prefix)):
            hi += 1
        inside = np.zeros(len(blocks), dtype=bool)
        inside[lo : hi + 1] = True
        out.append((path, inside))
    return out


def choose_body(
    labels: np.ndarray,
    chars: np.ndarray,
    bodies: Sequence[np.ndarray],
    min_share: float = MIN_SHARE,
) -> list[int] | None:
    """Which of ``bodies`` (each the blocks a named body holds, :func:`named_bodies`) the
    rule follows: all those holding a block kept by ``labels`` (an article split into
    parts names each part alike), provided that together they hold at least
    ``min_share`` of the kept characters (``chars``); None when they do not."""
    found = _chosen(labels, chars, bodies, min_share)
    return None if found is None else found[0]


def _chosen(
    labels: np.ndarray, chars: np.ndarray, bodies: Sequence[np.ndarray], min_share: float
) -> tuple[list[int], np.ndarray] | None:
    """:func:`choose_body`'s bodies and the blocks they hold together."""
    kept = labels.astype(bool)
    chosen = [k for k, inside in enumerate(bodies) if (kept & inside).any()]
    if not chosen:
        return None
    inside = np.logical_or.reduce([bodies[k] for k in chosen])
    if float(chars[kept & inside].sum()) < min_share * float(chars[kept].sum()):
        return None
    return chosen, inside


def apply_body(
    labels: np.ndarray,
    chars: np.ndarray,
    bodies: Sequence[np.ndarray],
    min_share: float = MIN_SHARE,
) -> tuple[np.ndarray, list[int] | None]:
    """The rule on ``labels``: :func:`choose_body`, then :func:`outside_body` of the bodies
    chosen taken out. Returns the labels and the bodies followed (None: the rule did not
    apply, and the labels are ``labels``)."""
    found = _chosen(labels, chars, bodies, min_share)
    if found is None:
        return labels, None
    chosen, inside = found
    return labels & ~outside_body(labels, inside), chosen


def outermost(paths: Sequence[str]) -> list[str]:
    """``paths`` less those inside another of them (the bodies a result names)."""
    return [p for p in paths if not any(p.startswith(q + "/") for q in paths if q != p)]


def outside_body(labels: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """The kept blocks (``labels``) that follow the body's first block and lie outside it
    (``inside``: the blocks it holds): what the rule takes out. What comes before the body
    stays: a post's title, its lead and its byline sit in the template's header above it."""
    drop = labels.astype(bool) & ~inside
    drop[: int(np.flatnonzero(inside)[0])] = False
    return drop


__all__ = [
    "BODY_TAGS",
    "BODY_TYPES",
    "BODY_WORDS",
    "MIN_SHARE",
    "RULE_VERSION",
    "apply_body",
    "choose_body",
    "named_bodies",
    "names_body",
    "outermost",
    "outside_body",
]
