"""A product's description from the page's JSON-LD, for product pages whose blocks miss it.

Shops often render a product's description by script: the HTML that a crawl downloads then
holds it only in the JSON-LD ``Product`` item that the shop writes for search engines, and
no block of the page carries it. rs-trafilatura reads such descriptions on the pages it
takes for products; ``auto`` does the same when the blocks it kept hold less than half of
the description's words (:func:`missing_description`).

Everything read here is untrusted and bounded: at most :data:`MAX_SCRIPTS` JSON-LD scripts
of at most ``MAX_JSONLD_CHARS`` characters each (the page metadata's bound), items walked
to a fixed depth and count, and a description cut at :data:`MAX_DESCRIPTION_CHARS`
characters. A script that is not JSON is skipped; nothing is fetched or run.
"""

from __future__ import annotations

import html
import json
import re
from collections import deque
from collections.abc import Iterator
from typing import Any

import lxml.etree
import lxml.html

from scrapy_boilerplate.core.metadata import MAX_JSONLD_CHARS

#: JSON-LD scripts read per page.
MAX_SCRIPTS = 20
#: Items (dicts) visited per script, and how deep the walk goes.
MAX_ITEMS = 500
MAX_DEPTH = 8
#: The longest description kept (cut at a word).
MAX_DESCRIPTION_CHARS = 20_000
#: A description of fewer words is not added (a tagline, a product code).
MIN_WORDS = 5
#: The description is added when the kept text holds less than this share of its words.
MISSING_SHARE = 0.5

_PRODUCT_TYPES = frozenset({"product", "productgroup", "productmodel", "individualproduct"})
_WORD = re.compile(r"\w+")
_BREAK = re.compile(r"<\s*(?:br|/p|/div|/li|/h[1-6]|/tr|/ul|/ol|/dd|/dt)\b[^>]*>", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\r\f\v\xa0]+")


def _types(item: dict[str, Any]) -> set[str]:
    """The item's ``@type`` names, lower case, without a vocabulary's prefix
    (``schema:Product`` and ``https://schema.org/Product`` are ``product``)."""
    value = item.get("@type")
    names = value if isinstance(value, list) else [value]
    return {
        re.split(r"[/:#]", name.strip())[-1].lower()
        for name in names[:10]
        if isinstance(name, str) and name.strip()
    }


def _items(data: Any) -> Iterator[dict[str, Any]]:
    """The dicts of one JSON-LD value, breadth first, bounded in count and depth."""
    queue: deque[tuple[Any, int]] = deque([(data, 0)])
    seen = 0
    while queue and seen < MAX_ITEMS:
        value, depth = queue.popleft()
        if depth > MAX_DEPTH:
            continue
        if isinstance(value, list):
            queue.extend((v, depth + 1) for v in value[:MAX_ITEMS])
        elif isinstance(value, dict):
            seen += 1
            yield value
            for key in ("@graph", "mainEntity", "mainEntityOfPage", "hasVariant"):
                if key in value:
                    queue.append((value[key], depth + 1))


def plain_text(value: str) -> str:
    """A description as plain text: markup and character references read, each line's
    spaces collapsed, empty lines dropped."""
    value = value[: MAX_DESCRIPTION_CHARS * 2]
    if "<" in value:
        value = _BREAK.sub("\n", value)
        try:
            value = lxml.html.fromstring(f"<div>{value}</div>").text_content()
        except (lxml.etree.ParserError, ValueError):
            value = html.unescape(value)
    else:
        value = html.unescape(value)
    lines = (_SPACES.sub(" ", line).strip() for line in value.splitlines())
    text = "\n".join(line for line in lines if line)
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[:MAX_DESCRIPTION_CHARS].rsplit(" ", 1)[0]
    return text


def product_description(root: Any) -> tuple[str, Any] | None:
    """The first description of at least :data:`MIN_WORDS` words that a JSON-LD
    ``Product`` item of the page gives, as plain text, with its ``<script>`` element; None
    when there is none."""
    scripts = 0
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        scripts += 1
        if scripts > MAX_SCRIPTS:
            break
        source = script.text or ""
        if not source or len(source) > MAX_JSONLD_CHARS:
            continue
        try:
            data = json.loads(source, strict=False)
        except (ValueError, RecursionError):
            continue
        for item in _items(data):
            if not _types(item) & _PRODUCT_TYPES:
                continue
            description = item.get("description")
            if not isinstance(description, str):
                continue
            text = plain_text(description)
            if len(_WORD.findall(text)) >= MIN_WORDS:
                return text, script
    return None


def covered_share(text: str, kept: str) -> float:
    """The share of ``text``'s words (lower case) that occur in ``kept``."""
    words = _WORD.findall(text.lower())
    if not words:
        return 1.0
    present = set(_WORD.findall(kept.lower()))
    return sum(word in present for word in words) / len(words)


def adds(description: str, kept: str) -> bool:
    """Whether ``description`` is added to ``kept`` (the text kept so far): when that holds
    less than :data:`MISSING_SHARE` of its words."""
    return covered_share(description, kept) < MISSING_SHARE


def missing_description(root: Any, kept: str) -> tuple[str, Any] | None:
    """:func:`product_description` when :func:`adds` says ``kept`` misses it; else None."""
    found = product_description(root)
    if found is None or not adds(found[0], kept):
        return None
    return found
