"""An HTML view of an extraction: the page itself, every block outlined by its label.

:func:`render_view` parses a fresh copy of the page exactly as the extractor did (so
each block's ``xpath`` points at the same element), then for every element holding
blocks adds an outline (green: content, red: boilerplate, amber: mixed), a tooltip
(``title``) with the blocks' fields and ``data-boilerplate-*`` attributes:

- ``data-boilerplate-label``: ``content``, ``boilerplate`` or ``mixed``;
- ``data-boilerplate-blocks``: the indices of the blocks of that element;
- ``data-boilerplate-content`` / ``data-boilerplate-boilerplate``: how many of each;
- ``data-boilerplate-fields``: a JSON list, per block, of its index, label, tag,
  link density and the method's own fields (jusText's ``class``...).

Scripts, inline event handlers, ``javascript:`` links and meta refreshes are removed
and a Content-Security-Policy forbids scripts, so the view is static. A small legend
sits in a corner. Used by ``scrapy-boilerplate extract --format html``.
"""

from __future__ import annotations

import html as html_lib
import json
from typing import Any

import lxml.etree as etree
import lxml.html

from scrapy_boilerplate.core.document import JUSTEXT_BLOCK_TAGS, parse
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.core.reasons import gloss
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Block, Extraction, to_jsonable

MIXED = "mixed"
COLORS = {CONTENT: "#1a7f37", BOILERPLATE: "#cf222e", MIXED: "#bf8700"}
TINTS = {
    CONTENT: "rgba(26, 127, 55, 0.08)",
    BOILERPLATE: "rgba(207, 34, 46, 0.08)",
    MIXED: "rgba(191, 135, 0, 0.08)",
}
ATTR = "data-boilerplate"
#: Tooltip lines per element at most (an element may hold many blocks).
MAX_TOOLTIP_BLOCKS = 8
_TOOLTIP_TEXT = 100
_URL_ATTRS = ("href", "src", "action", "formaction", "xlink:href", "data")
#: Elements without content: a block anchored at one (jusText's ``<br><br>``) is the text
#: that follows it, which gets wrapped in a ``<span>`` so the outline shows.
VOID_TAGS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    }
)
_CSP = "script-src 'none'; object-src 'none'; frame-src 'none'"


def element_label(blocks: list[Block]) -> str:
    """``content`` or ``boilerplate`` when the blocks agree, else ``mixed``."""
    labels = {b.label for b in blocks}
    if len(labels) == 1:
        label = labels.pop()
        return label if label in (CONTENT, BOILERPLATE) else MIXED
    return MIXED


def _block_fields(block: Block) -> dict[str, Any]:
    out: dict[str, Any] = {
        "index": block.index,
        "label": block.label,
        "tag": block.tag,
        "link_density": round(float(block.link_density), 3),
    }
    for key, value in block.fields.items():
        out[str(key)] = to_jsonable(value)
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return str(value)


def tooltip(blocks: list[Block]) -> str:
    """The ``title`` of an element: one paragraph per block (fields, then start of text)."""
    parts: list[str] = []
    for block in blocks[:MAX_TOOLTIP_BLOCKS]:
        fields = _block_fields(block)
        head = f"block {fields.pop('index')}: {fields.pop('label')} <{fields.pop('tag')}>"
        body = ", ".join(f"{k}={_fmt(v)}" for k, v in fields.items())
        text = " ".join(block.text.split())
        if len(text) > _TOOLTIP_TEXT:
            text = text[: _TOOLTIP_TEXT - 1] + "…"
        parts.append(f"{head}\n{body}\n“{text}”")
    if len(blocks) > MAX_TOOLTIP_BLOCKS:
        parts.append(f"… and {len(blocks) - MAX_TOOLTIP_BLOCKS} more blocks")
    return "\n\n".join(parts)


def locate(tree: Any, blocks: list[Block]) -> tuple[dict[Any, list[Block]], int]:
    """Blocks grouped by the element their ``xpath`` names (page order); and how many missed."""
    groups: dict[Any, list[Block]] = {}
    missed = 0
    cache: dict[str, Any] = {}
    for block in blocks:
        if block.xpath not in cache:
            try:
                found = tree.xpath(block.xpath) if block.xpath else []
            except (etree.XPathError, TypeError, ValueError):
                found = []
            el = found[0] if found else None
            cache[block.xpath] = el if isinstance(el, etree._Element) else None
        el = cache[block.xpath]
        if el is None:
            missed += 1
        else:
            groups.setdefault(el, []).append(block)
    return groups, missed


def _wrap_void(el: Any, marked: set[Any]) -> Any | None:
    """Wrap the text and inline siblings after void element ``el`` in a ``<span>``.

    Stops at the next located element or block-level element. None when nothing follows.
    """
    parent = el.getparent()
    if parent is None:
        return None
    moved = []
    nxt = el.getnext()
    while (
        nxt is not None
        and nxt not in marked
        and not (isinstance(nxt.tag, str) and nxt.tag.lower() in JUSTEXT_BLOCK_TAGS)
    ):
        moved.append(nxt)
        nxt = nxt.getnext()
    if not moved and not (el.tail and el.tail.strip()):
        return None
    span = etree.Element("span")
    span.set(f"{ATTR}-after", str(el.tag))
    span.text, el.tail = el.tail, None
    for sibling in moved:
        span.append(sibling)  # lxml moves the element with its tail
    parent.insert(parent.index(el) + 1, span)
    return span


def _mark(el: Any, blocks: list[Block], container: bool) -> None:
    label = element_label(blocks)
    n_content = sum(1 for b in blocks if b.label == CONTENT)
    el.set(f"{ATTR}-label", label)
    el.set(f"{ATTR}-blocks", " ".join(str(b.index) for b in blocks))
    el.set(f"{ATTR}-content", str(n_content))
    el.set(f"{ATTR}-boilerplate", str(len(blocks) - n_content))
    el.set(f"{ATTR}-fields", json.dumps([_block_fields(b) for b in blocks], ensure_ascii=False))
    el.set("title", tooltip(blocks))
    style = (
        f"outline: 2px {'dashed' if container else 'solid'} {COLORS[label]} !important;"
        " outline-offset: -1px !important;"
    )
    if not container:  # tinting an ancestor would tint every block inside it
        style += f" background-color: {TINTS[label]} !important;"
    old = (el.get("style") or "").strip()
    el.set("style", (old.rstrip(";") + "; " if old else "") + style)


def _drop_tree(el: Any) -> None:
    """Remove ``el`` and its subtree but keep its tail text (works on plain lxml elements)."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def _make_static(root: Any) -> None:
    """Drop scripts, event handlers, ``javascript:`` URLs, meta refresh and charset metas."""
    for el in list(root.iter("script")):
        _drop_tree(el)
    for el in list(root.iter("meta")):
        equiv = (el.get("http-equiv") or "").strip().lower()
        if equiv in ("refresh", "content-type", "content-security-policy") or el.get("charset"):
            _drop_tree(el)
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for name in list(el.attrib):
            low = name.lower()
            if low.startswith("on"):
                del el.attrib[name]
            elif low in _URL_ATTRS or low == "srcdoc":
                value = "".join(el.get(name, "").split()).lower()
                if low == "srcdoc" or value.startswith(("javascript:", "vbscript:")):
                    del el.attrib[name]


def _legend(result: Extraction, groups: dict[Any, list[Block]], missed: int) -> Any:
    labels = [element_label(b) for b in groups.values()]
    n_content = sum(1 for b in result.blocks if b.label == CONTENT)
    n_boiler = len(result.blocks) - n_content
    params = ", ".join(f"{k}={_fmt(v)}" for k, v in (result.params or {}).items())
    rows = [
        (CONTENT, f"content: {n_content} blocks"),
        (BOILERPLATE, f"boilerplate: {n_boiler} blocks"),
        (MIXED, f"mixed element: {labels.count(MIXED)}"),
    ]
    esc = html_lib.escape
    items = "".join(
        f'<div style="margin:2px 0"><span style="display:inline-block;width:12px;height:12px;'
        f"margin-right:6px;vertical-align:middle;border:2px solid {COLORS[k]};"
        f'background:{TINTS[k]}"></span>{esc(text)}</div>'
        for k, text in rows
    )
    notes = []
    if result.reason:
        notes.append(f"no main text: {result.reason} ({gloss(result.reason)})")
    if missed:
        notes.append(f"{missed} blocks not located in the page")
    notes.append("hover an outlined element for its blocks' fields")
    note_html = "".join(f'<div style="color:#57606a;margin-top:4px">{esc(n)}</div>' for n in notes)
    box = (
        f'<details open {ATTR}-legend="" style="all:initial;position:fixed;right:12px;'
        "bottom:12px;z-index:2147483647;background:#fff;color:#24292f;border:1px solid #d0d7de;"
        "border-radius:6px;padding:8px 12px;font:12px/1.4 system-ui,sans-serif;"
        'box-shadow:0 2px 8px rgba(0,0,0,.2);max-width:320px;display:block">'
        f'<summary style="cursor:pointer;font-weight:600" title="{esc(params)}">'
        f"scrapy-boilerplate: {esc(result.extractor)}</summary>{items}{note_html}</details>"
    )
    return lxml.html.fragment_fromstring(box)


def _head(root: Any) -> Any:
    head = root.find("head")
    if head is None:
        head = etree.Element("head")
        root.insert(0, head)
    return head


def notice_page(result: Extraction) -> str:
    """A small page saying why there is no view (input that is not a usable HTML page)."""
    detail = result.extra.get("detail") if isinstance(result.extra, dict) else None
    reason = result.reason or "unknown"
    text = f"{reason}: {detail}" if detail else reason
    esc = html_lib.escape
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>scrapy-boilerplate: no view</title></head><body>"
        f'<p {ATTR}-label="none">scrapy-boilerplate ({esc(result.extractor)}): '
        f"the input is not a usable HTML page ({esc(text)}).</p></body></html>\n"
    )


def render_view(
    page: Any,
    result: Extraction,
    *,
    url: str | None = None,
    encoding: str | None = None,
) -> str:
    """The page ``page`` (as given to the extractor) with ``result``'s blocks outlined.

    ``url`` and ``encoding`` must be those given to :func:`scrapy_boilerplate.extract`,
    so the copy parses into the same tree. A ``<base href>`` is added when ``url`` is set
    and the page has none, so relative stylesheets and images still load.
    """
    try:
        doc = parse(page, url=url, encoding=encoding)
    except (UnsupportedInput, TypeError):
        return notice_page(result)
    root = doc.root
    groups, missed = locate(doc.tree, result.blocks)
    marked = set(groups)
    for el in [e for e in groups if isinstance(e.tag, str) and e.tag.lower() in VOID_TAGS]:
        span = _wrap_void(el, marked)
        if span is not None:
            groups = {span if k is el else k: v for k, v in groups.items()}
            marked = set(groups)
    containers = {a for el in marked for a in el.iterancestors() if a in marked}
    for el, blocks in groups.items():
        _mark(el, blocks, el in containers)
    _make_static(root)

    head = _head(root)
    additions: list[etree._Element] = [
        lxml.html.fragment_fromstring('<meta charset="utf-8">'),
        lxml.html.fragment_fromstring(
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        ),
    ]
    if url and root.find(".//base") is None:
        base = etree.Element("base")
        base.set("href", url)
        additions.append(base)
    for i, el in enumerate(additions):
        head.insert(i, el)

    body = root.find("body")
    (body if body is not None else root).append(_legend(result, groups, missed))
    return (
        lxml.html.tostring(root, encoding="unicode", method="html", doctype="<!DOCTYPE html>")
        + "\n"
    )
