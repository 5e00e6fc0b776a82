"""Extraction and Block: the one result type every method returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.reasons import Reason, reason_value

CONTENT = "content"
BOILERPLATE = "boilerplate"
LABELS = (CONTENT, BOILERPLATE)

_HEADING_TAGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


def to_jsonable(value: Any) -> Any:
    """Turn numpy scalars/arrays, tuples and sets into plain JSON types (items must be plain)."""
    if hasattr(value, "tolist") and not isinstance(value, (str, list)):
        return to_jsonable(value.tolist())  # numpy scalar (np.float64 is a float subclass)
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    return str(value)


@dataclass(slots=True)
class Block:
    """One segment of a page with its label.

    ``fields`` holds the method's own per-block values (jusText's ``class``,
    CNR's ``cnr``, ...); they are flattened into :meth:`to_dict`.
    """

    text: str
    xpath: str
    tag: str
    label: str = BOILERPLATE
    tag_path: str = ""
    link_density: float = 0.0
    index: int = 0
    start: int = 0  # character offset of the block in the page's block text
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def is_content(self) -> bool:
        return self.label == CONTENT

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.text,
            "xpath": self.xpath,
            "tag": self.tag,
            "label": self.label,
            "tag_path": self.tag_path,
            "link_density": round(float(self.link_density), 6),
            "index": self.index,
            "start": self.start,
        }
        for key, value in self.fields.items():
            out[key] = to_jsonable(value)
        return out

    def compact_dict(self) -> dict[str, Any]:
        """The few keys a content block needs in an item (:data:`COMPACT_KEYS`): its text,
        its tag (heading, paragraph, list item: how to render it), its xpath (where it is in
        the page) and its index among all the page's blocks (page order, and where
        boilerplate was left out between two content blocks). The label (always content
        here), the method's scores and the rest of :meth:`to_dict` stay out."""
        return {"text": self.text, "tag": self.tag, "xpath": self.xpath, "index": self.index}


#: The page types ``auto`` tells apart (wcxb's seven, and ``other``): the values of
#: :attr:`Extraction.page_type` (kept here so the Scrapy glue checks settings against them).
PAGE_TYPES = (
    "article",
    "collection",
    "documentation",
    "forum",
    "listing",
    "product",
    "service",
    "other",
)

#: The keys of :meth:`Block.compact_dict`.
COMPACT_KEYS = ("text", "tag", "xpath", "index")

#: What :meth:`Extraction.block_dicts` can give: every block's :meth:`Block.to_dict`
#: (``all``) or the content blocks' :meth:`Block.compact_dict` (``content``).
BLOCK_DICT_KINDS = ("all", "content")


@_compiled.twin("blocks_from_segments")
def blocks_from_segments(
    segments: Any, labels: list[str], keys: tuple[str, ...], columns: tuple[list[Any], ...]
) -> list[Block]:
    """One :class:`Block` per segment (``document.TextBlock``): its text, xpath, tag, tag
    path, index and start, its link density (link characters per character, at most 1),
    ``labels[i]``, and ``fields`` ``{keys[k]: columns[k][i]}``.

    This is the reference, in Python (``blocks_from_segments.python``); the compiled twin
    (``_speedups.blocks_from_segments``, see :mod:`.compiled`) gives the same blocks without
    a Python-level call per block.
    """
    if len(keys) != len(columns) or any(len(c) != len(labels) for c in columns):
        raise ValueError("segments, labels and columns differ in length")
    out = []
    for i, (b, label) in enumerate(zip(segments, labels, strict=True)):
        out.append(
            Block(
                b.text,
                b.xpath,
                b.tag,
                label,
                b.tag_path,
                b.link_density,
                b.index,
                b.start,
                {key: column[i] for key, column in zip(keys, columns, strict=True)},
            )
        )
    return out


_BLOCK_SLOTS = ("text", "xpath", "tag", "label", "tag_path", "link_density", "index", "start")
#: A Block's values in the order of :data:`_BLOCK_SLOTS`.
_BlockRow = tuple[str, str, str, str, str, float, int, int]


def _block_columns(blocks: list[Block]) -> tuple[Any, ...]:
    columns = tuple([getattr(b, name) for b in blocks] for name in _BLOCK_SLOTS)
    keys = tuple(blocks[0].fields) if blocks else ()
    if all(tuple(b.fields) == keys for b in blocks):
        fields: Any = (keys, [[b.fields[k] for b in blocks] for k in keys])
    else:
        fields = [b.fields for b in blocks]
    return columns, fields


def _rebuild_blocks(packed: tuple[Any, ...]) -> list[Block]:
    columns, fields = packed
    if isinstance(fields, tuple):
        keys, values = fields
        rows = zip(*values, strict=True)
        field_dicts = [dict(zip(keys, row, strict=True)) for row in rows] if keys else None
    else:
        field_dicts = fields
    if field_dicts is None:
        return [Block(*row) for row in zip(*columns, strict=True)]
    block_rows: zip[_BlockRow] = zip(*columns, strict=True)
    return [Block(*row, f) for row, f in zip(block_rows, field_dicts, strict=True)]


def _rebuild_extraction(main_text: str, packed: tuple[Any, ...], *rest: Any) -> Extraction:
    return Extraction(main_text, _rebuild_blocks(packed), *rest)


@dataclass
class Extraction:
    """What an extractor found on one page.

    ``reason`` is ``None`` when the page gave main text; otherwise it states why not
    (``"empty"``, ``"binary"``, ``"not-html"``, ``"too-large"``, ``"no-text"``,
    ``"no-content"``, ...: a :class:`~scrapy_boilerplate.core.reasons.Reason` value, or a
    third-party extractor's own string), and ``main_text`` is empty. It is stored as a
    plain string (a :class:`Reason` passed in is turned into its value), so ``to_dict()``
    and items hold JSON strings.
    """

    main_text: str
    blocks: list[Block]
    extractor: str
    params: dict[str, Any] = field(default_factory=dict)
    language: str | None = None
    reason: str | None = None
    encoding: str | None = None
    url: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: What kind of page this is (``article``, ``forum``, ``product``, ...), for methods that
    #: tell (``auto``); None where the method does not.
    page_type: str | None = None
    #: The method's probability of :attr:`page_type`.
    page_type_probability: float | None = None
    #: The expected text F1 of this result (0-1), for methods that estimate it (``auto``):
    #: a crawl may drop or re-route pages below a bound.
    quality: float | None = None
    #: The page's metadata (title, authors, dates, language, description, canonical URL,
    #: site name, images, breadcrumbs, each with its source: see
    #: :func:`scrapy_boilerplate.core.metadata.page_metadata`), when asked for
    #: (``extract(..., metadata=True)``); None otherwise.
    metadata: dict[str, Any] | None = None
    #: The content blocks as clean HTML (``extract(..., main_html=True)``, see
    #: :func:`~scrapy_boilerplate.core.render.main_html`); None where not asked for.
    main_html: str | None = None
    # The block dicts an item gets (see :meth:`block_dicts`), made ahead of time off the
    # reactor thread for big pages (see :meth:`prepare_block_dicts`), with the kind they
    # were made for; taken once by the first item written.
    _block_dicts: tuple[str, list[dict[str, Any]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self.reason = reason_value(self.reason)

    def prepare_block_dicts(self, kind: str = "all") -> None:
        """Compute the blocks' plain dicts of ``kind`` now (in a worker thread), for the item."""
        self._block_dicts = (kind, self._make_block_dicts(kind))

    def block_dicts(self, kind: str = "all") -> list[dict[str, Any]]:
        """The blocks as plain dicts; the prepared list the first time, if any of that kind.

        ``kind`` is ``"all"`` (every block's :meth:`Block.to_dict`) or ``"content"`` (the
        content blocks' :meth:`Block.compact_dict`). The prepared list is handed out once,
        so two items of one page never share mutable dicts.
        """
        prepared, self._block_dicts = self._block_dicts, None
        if prepared is not None and prepared[0] == kind:
            return prepared[1]
        return self._make_block_dicts(kind)

    def _make_block_dicts(self, kind: str) -> list[dict[str, Any]]:
        if kind == "all":
            return [b.to_dict() for b in self.blocks]
        if kind == "content":
            return [b.compact_dict() for b in self.blocks if b.label == CONTENT]
        raise ValueError(
            f"block dicts: expected one of {', '.join(BLOCK_DICT_KINDS)}, got {kind!r}"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Sent from a worker process, tens of thousands of Block objects would be
        # unpickled in one C call that holds the GIL (on a big page, a stall of the
        # reactor thread; docs/usage.md). Columns of plain values unpickle quickly, and the
        # blocks are rebuilt in Python code, which lets go of the GIL at each switch
        # interval.
        return (
            _rebuild_extraction,
            (
                self.main_text,
                _block_columns(self.blocks),
                self.extractor,
                self.params,
                self.language,
                self.reason,
                self.encoding,
                self.url,
                self.extra,
                self.page_type,
                self.page_type_probability,
                self.quality,
                self.metadata,
                self.main_html,
            ),
        )

    @classmethod
    def from_blocks(
        cls,
        blocks: list[Block],
        extractor: str,
        params: dict[str, Any],
        **kwargs: Any,
    ) -> Extraction:
        """Build an Extraction whose main text is the content blocks in page order.

        ``main_text`` (keyword) replaces the default, the content blocks' texts separated
        by a blank line, for methods whose blocks are finer than paragraphs. ``reason``
        (keyword, a :class:`Reason` or a string) defaults to ``no-text`` when there are no
        blocks and to ``no-content`` when no block is content (every empty main text says
        why).
        """
        text = kwargs.pop("main_text", None)
        if text is None:
            text = "\n\n".join(b.text for b in blocks if b.label == CONTENT and b.text)
        reason = kwargs.pop("reason", None)
        if reason is None and not blocks:
            reason = Reason.NO_TEXT
        elif reason is None and not text.strip():
            reason = Reason.NO_CONTENT
        return cls(
            main_text=text,
            blocks=blocks,
            extractor=extractor,
            params=params,
            reason=reason,
            **kwargs,
        )

    @classmethod
    def failed(
        cls,
        reason: Reason | str,
        extractor: str,
        params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Extraction:
        """An empty result that says why nothing was extracted (``reason``: a
        :class:`Reason`, or a third-party extractor's own string)."""
        return cls(
            main_text="",
            blocks=[],
            extractor=extractor,
            params=dict(params or {}),
            reason=reason,
            **kwargs,
        )

    @property
    def ok(self) -> bool:
        return self.reason is None

    @property
    def content_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.label == CONTENT]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types only (no numpy scalars): safe to put in an item."""
        return {
            "main_text": self.main_text,
            "blocks": [b.to_dict() for b in self.blocks],
            "extractor": self.extractor,
            "params": to_jsonable(self.params),
            "language": self.language,
            "reason": self.reason,
            "encoding": self.encoding,
            "url": self.url,
            **{k: to_jsonable(v) for k, v in self.extra.items()},
            # only where the method gives them, so other methods' dicts keep their shape
            **{
                k: v
                for k, v in (
                    ("page_type", self.page_type),
                    ("page_type_probability", self.page_type_probability),
                    ("quality", self.quality),
                    ("metadata", self.metadata),
                    ("main_html", self.main_html),
                )
                if v is not None
            },
        }

    def to_markdown(self) -> str:
        """Content blocks as Markdown, keeping headings, list items, tables and code."""
        out: list[str] = []
        row: list[str] = []
        row_key: str | None = None
        table_rows = 0

        def flush_row() -> None:
            nonlocal row, row_key, table_rows
            if row:
                out.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
                if table_rows == 0:
                    out.append("|" + " --- |" * len(row))
                table_rows += 1
            row, row_key = [], None

        prev_kind = None
        for block in self.content_blocks:
            tag = block.tag
            text = block.text.strip()
            if not text:
                continue
            if tag in ("td", "th"):
                key = block.xpath.rsplit("/", 1)[0]
                if key != row_key:
                    flush_row()
                    row_key = key
                if prev_kind != "table" and out:
                    out.append("")  # a table needs a blank line before it
                row.append(" ".join(text.split()))
                prev_kind = "table"
                continue
            flush_row()
            if prev_kind == "table":
                table_rows = 0
                out.append("")
            if tag in _HEADING_TAGS:
                kind, line = "h", "#" * _HEADING_TAGS[tag] + " " + " ".join(text.split())
            elif tag in ("li", "dd", "dt"):
                kind, line = "li", "- " + " ".join(text.split())
            elif tag == "pre":
                kind, line = "pre", "```\n" + block.text + "\n```"
            elif tag == "blockquote":
                kind, line = "p", "> " + text.replace("\n", "\n> ")
            else:
                kind, line = "p", text
            if out and not (kind == "li" and prev_kind == "li"):
                out.append("")
            out.append(line)
            prev_kind = kind
        flush_row()
        return "\n".join(out).strip() + ("\n" if out else "")
