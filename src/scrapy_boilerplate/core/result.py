"""Extraction and Block: the one result type every method returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from scrapy_boilerplate.core import compiled as _compiled

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
    return [Block(*row, f) for row, f in zip(zip(*columns, strict=True), field_dicts, strict=True)]


def _rebuild_extraction(main_text: str, packed: tuple[Any, ...], *rest: Any) -> Extraction:
    return Extraction(main_text, _rebuild_blocks(packed), *rest)


@dataclass
class Extraction:
    """What an extractor found on one page.

    ``reason`` is ``None`` when the page was processed; otherwise it states
    why nothing could be extracted (``"empty"``, ``"binary"``, ``"not-html"``,
    ``"too-large"``, ``"no-text"``, ...), and ``main_text`` is empty.
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
    # ``to_dict()`` of every block, made ahead of time off the reactor thread for big
    # pages (see :meth:`prepare_block_dicts`); taken once by the first item written.
    _block_dicts: list[dict[str, Any]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def prepare_block_dicts(self) -> None:
        """Compute the blocks' plain dicts now (in a worker thread), for the item."""
        self._block_dicts = [b.to_dict() for b in self.blocks]

    def block_dicts(self) -> list[dict[str, Any]]:
        """Every block's :meth:`Block.to_dict`; the prepared list the first time, if any.

        The prepared list is handed out once, so two items of one page never share
        mutable dicts.
        """
        prepared, self._block_dicts = self._block_dicts, None
        if prepared is not None:
            return prepared
        return [b.to_dict() for b in self.blocks]

    def __reduce__(self) -> tuple[Any, ...]:
        # Sent from a worker process, tens of thousands of Block objects would be
        # unpickled in one C call that holds the GIL (a 20 MB page: about 0.3 s during
        # which the reactor thread cannot run). Columns of plain values unpickle in a few
        # milliseconds, and the blocks are rebuilt in Python code, which lets go of the
        # GIL every few milliseconds.
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
        by a blank line, for methods whose blocks are finer than paragraphs.
        """
        text = kwargs.pop("main_text", None)
        if text is None:
            text = "\n\n".join(b.text for b in blocks if b.label == CONTENT and b.text)
        reason = kwargs.pop("reason", None)
        if reason is None and not blocks:
            reason = "no-text"
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
        cls, reason: str, extractor: str, params: dict[str, Any] | None = None, **kwargs: Any
    ) -> Extraction:
        """An empty result that says why nothing was extracted."""
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
