"""Which container holds the page's main text: Readability's content score, per block.

Readability (Arc90's bookmarklet, carried on as Mozilla's Readability.js and the
readability-lxml port) picks *one* element as the article: every paragraph of 25 or more
characters scores ``1 + commas + min(characters / 100, 3)``, the score goes to the
paragraph's parent, half of it to the grandparent and a sixth to the element above; each
scored element starts from a weight of its tag (``div`` +5, lists and forms -3, headings -5)
and of its ``class`` / ``id`` (+25 for words such as ``article`` or ``content``, -25 for
``comment``, ``sidebar``, ``footer`` ...); the final score is scaled by one minus the
element's link density, and the best element wins, with those of its siblings that score
at least a fifth as well.

A block classifier sees one block at a time, so it cannot tell that a block sits in the
page's best-scoring container while a look-alike block sits in a sidebar. These features
carry that page-wide decision to every block. They are computed from the section blocks'
XPaths; elements are read only for the scored containers' tag, ``class`` and ``id`` (no
second walk of the tree). The body is a container, as in Readability; the root is not.

* ``rd_in_top``: the block lies inside the best container;
* ``rd_below_top``: how many levels below it (-1 outside it);
* ``rd_in_sibling``: the block lies inside one of the best container's siblings that
  Readability would append (score at least ``max(10, top / 5)``);
* ``rd_best_ancestor``: the best score among the block's own containers, over the top's;
* ``rd_parent_score``: its parent's score over the top's;
* ``rd_top_share``: the share of the page's text inside the best container.

Where no block scores (no paragraph of 25 characters), every column is zero. A container's
text and link text are counted over the blocks at most four levels below it.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import TextBlock

#: ``auto``'s compiled module (the twin of :func:`container_features`).
COMPILED = "scrapy_boilerplate.auto._speedups"

NAMES: tuple[str, ...] = (
    "rd_in_top",
    "rd_best_ancestor",
    "rd_top_share",
    "rd_in_sibling",
    "rd_parent_score",
    "rd_below_top",
)
_COLUMN = {name: i for i, name in enumerate(NAMES)}
#: Levels above a block whose elements are scored containers (parent first).
LEVELS = 4
#: Share of a paragraph's score each level receives (Readability.js: 1, 1/2, 1/(3 * level)).
SHARES = (1.0, 0.5, 1.0 / 6.0)
#: Shortest paragraph that scores (characters).
MIN_CHARS = 25
#: Readability's ``class`` / ``id`` patterns (matched on the lower-cased value) and weights.
POSITIVE = re.compile(
    r"article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story"
)
NEGATIVE = re.compile(
    r"-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|foot|footer|"
    r"footnote|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|"
    r"skyscraper|sponsor|shopping|tags|tool|widget"
)
CLASS_WEIGHT = 25.0
TAG_WEIGHTS: dict[str, float] = {
    "div": 5.0,
    **dict.fromkeys(("pre", "td", "blockquote"), 3.0),
    **dict.fromkeys(("address", "ol", "ul", "dl", "dd", "dt", "li", "form"), -3.0),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6", "th"), -5.0),
}
#: A sibling joins the best container when it scores at least this, and at least
#: :data:`SIBLING_SHARE` of the best.
SIBLING_MIN = 10.0
SIBLING_SHARE = 0.2
#: Steps of ``/html[1]``: the root is never a container (the body is, as in Readability).
_ROOT_STEPS = 1


#: ``class`` / ``id`` value -> its weight, shared by the pages of a process (values repeat
#: across pages and sites); cleared when it grows past this
_VALUE_WEIGHTS: dict[str, float] = {}
_VALUE_CACHE_SIZE = 100_000


def value_weight(value: str) -> float:
    """The weight of one ``class`` or ``id`` value: -25 when it matches :data:`NEGATIVE`,
    +25 when it matches :data:`POSITIVE` (both can hold), case aside."""
    weight = _VALUE_WEIGHTS.get(value)
    if weight is None:
        weight = 0.0
        lower = value.lower()
        if NEGATIVE.search(lower):
            weight -= CLASS_WEIGHT
        if POSITIVE.search(lower):
            weight += CLASS_WEIGHT
        if len(_VALUE_WEIGHTS) >= _VALUE_CACHE_SIZE:
            _VALUE_WEIGHTS.clear()
        _VALUE_WEIGHTS[value] = weight
    return weight


def element_weight(element: Any) -> float:
    """Readability's starting score of a container: its tag's weight and its ``class`` and
    ``id`` values'."""
    tag = element.tag
    weight = TAG_WEIGHTS.get(tag, 0.0) if isinstance(tag, str) else 0.0
    for name in ("class", "id"):
        value = element.get(name)
        if value:
            weight += value_weight(value)
    return weight


def _parent_key(xpath: str) -> str:
    return xpath[: xpath.rfind("/")]


def _compiled_arguments(
    blocks: list[TextBlock], texts: list[str], chars: np.ndarray, links: np.ndarray
) -> tuple[Any, ...]:
    return (
        blocks,
        texts,
        np.ascontiguousarray(chars, dtype=np.float64),
        np.ascontiguousarray(links, dtype=np.float64),
        TAG_WEIGHTS,
        _VALUE_WEIGHTS,
        value_weight,
        _COLUMN,
        LEVELS,
        SHARES,
        float(MIN_CHARS),
        SIBLING_MIN,
        SIBLING_SHARE,
        _ROOT_STEPS,
    )


@_compiled.twin("container_features", module=COMPILED, arguments=_compiled_arguments)
def container_features(
    blocks: list[TextBlock], texts: list[str], chars: np.ndarray, links: np.ndarray
) -> np.ndarray:
    """The ``(n, len(NAMES))`` float32 matrix of :data:`NAMES` (zeros where no block
    scores); compiled where ``_speedups`` is built (the same chains and the same sums, in
    the same order, in loops instead of a dozen array operations per page)."""
    n = len(blocks)
    out = np.zeros((n, len(NAMES)), dtype=np.float32)
    if not n:
        return out
    xpaths = [b.xpath for b in blocks]
    parent_of: dict[str, int] = {}
    parent_ids = np.array(
        [parent_of.setdefault(_parent_key(x), len(parent_of)) for x in xpaths], dtype=np.intp
    )
    first = np.zeros(len(parent_of), dtype=np.intp)
    first[parent_ids[::-1]] = np.arange(n - 1, -1, -1)  # each parent's first block
    # the containers: each distinct parent's chain of up to LEVELS ancestors (by XPath),
    # numbered in order of first appearance (so ties go to the earliest); a walk that
    # reaches the start of a chain already walked copies the rest of it
    number: dict[str, int] = {}
    keys: list[str] = []
    found_at: list[tuple[int, int]] = []  # (a parent row, levels above its first block)
    walked: dict[int, list[int]] = {}
    chains = np.full((len(parent_of), LEVELS), -1, dtype=np.intp)
    parent_steps = np.zeros(len(parent_of), dtype=np.float64)
    for row, key in enumerate(parent_of):
        ids: list[int] = []
        steps = key.count("/")
        parent_steps[row] = steps
        while len(ids) < LEVELS and steps > _ROOT_STEPS:
            k = number.get(key)
            if k is None:
                k = number[key] = len(keys)
                keys.append(key)
                found_at.append((row, len(ids) + 1))
            elif k in walked:
                ids += walked[k][: LEVELS - len(ids)]
                break
            ids.append(k)
            key = _parent_key(key)
            steps -= 1
        if ids:
            walked[ids[0]] = ids
            chains[row, : len(ids)] = ids
    count = len(keys)
    if not count:
        return out
    levels = chains[parent_ids]  # (n, LEVELS): each block's containers, -1 for none
    text = np.zeros(count)
    link = np.zeros(count)
    score = np.zeros(count)
    scored = np.zeros(count, dtype=bool)
    paragraph = chars >= MIN_CHARS
    points = np.zeros(n)
    scoring = np.flatnonzero(paragraph)
    points[scoring] = (
        1.0
        + np.array([texts[i].count(",") for i in scoring.tolist()], dtype=np.float64)
        + np.minimum(chars[scoring] / 100.0, 3.0)
    )
    for level in range(LEVELS):
        ids_at = levels[:, level]
        has = ids_at >= 0
        text += np.bincount(ids_at[has], weights=chars[has], minlength=count)
        link += np.bincount(ids_at[has], weights=links[has], minlength=count)
        if level < len(SHARES):
            scored_here = has & paragraph
            score += np.bincount(
                ids_at[scored_here], weights=points[scored_here] * SHARES[level], minlength=count
            )
            scored[ids_at[scored_here]] = True
    if not scored.any():
        return out
    # the starting weights, read from the elements of the scored containers only
    weights = np.zeros(count)
    for k in np.flatnonzero(scored).tolist():
        row, up = found_at[k]
        element = blocks[int(first[row])].element
        for _ in range(up):
            element = element.getparent()
        weights[k] = element_weight(element)
    final = (weights + score) * (1.0 - np.minimum(1.0, link / np.maximum(text, 1.0)))
    candidates = np.where(scored, final, -np.inf)
    top = int(np.argmax(candidates))
    top_score = float(final[top]) if final[top] > 0 else 1.0
    top_key = keys[top]
    top_depth = top_key.count("/")
    inside = top_key + "/"
    # a block is inside the top when its parent is the top or inside it
    parent_in_top = [key == top_key or key.startswith(inside) for key in parent_of]
    in_top = np.array(parent_in_top, dtype=bool)[parent_ids]
    col = _COLUMN
    out[:, col["rd_in_top"]] = in_top
    # the siblings Readability appends: scored, beside the top, scoring well enough
    bar = max(SIBLING_MIN, SIBLING_SHARE * top_score)
    above = _parent_key(top_key) + "/"
    siblings = {
        keys[k]
        for k in np.flatnonzero(scored & (final >= bar))
        if k != top and keys[k].count("/") == top_depth and keys[k].startswith(above)
    }
    if siblings:
        start = len(above)
        out[:, col["rd_in_sibling"]] = [
            x.startswith(above) and (end := x.find("/", start)) > 0 and x[:end] in siblings
            for x in xpaths
        ]
    best = np.where(levels >= 0, np.where(scored, final, 0.0)[levels], 0.0).max(axis=1)
    out[:, col["rd_best_ancestor"]] = np.maximum(best, 0.0) / top_score
    parent = levels[:, 0]
    out[:, col["rd_parent_score"]] = (
        np.where((parent >= 0) & scored[parent], final[parent], 0.0) / top_score
    )
    total = float(chars.sum()) or 1.0
    out[:, col["rd_top_share"]] = float(chars[in_top].sum()) / total
    out[:, col["rd_below_top"]] = np.where(in_top, parent_steps[parent_ids] + 1.0 - top_depth, -1.0)
    return out
