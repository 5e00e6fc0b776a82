"""Writing an :class:`~scrapy_boilerplate.core.result.Extraction` into items of every kind.

Items are reached only through :class:`itemadapter.ItemAdapter` (dict, ``scrapy.Item``,
dataclass, attrs, pydantic). Values are plain JSON types, so feed exports, JOBDIR
queues and scrapy-redis serialise them. ``BOILERPLATE_BLOCKS`` decides how much of the
blocks goes in: every block with every key is most of an item's bytes, and Scrapy's DEBUG
"Scraped from" log line repeats the whole item.
"""

from __future__ import annotations

import datetime as _dt
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from itemadapter import ItemAdapter

from scrapy_boilerplate.core.metadata import empty_metadata
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.result import Extraction, to_jsonable
from scrapy_boilerplate.scrapy.config import METADATA_OUTPUTS, Config

#: The outputs a container field (``BOILERPLATE_FIELDS`` given as one name) receives.
CONTAINER_OUTPUTS = ("main_text", "blocks", "extractor", "language", "reason")
#: The outputs it receives too where the method set them (auto's page type and quality,
#: by which a crawl drops or re-routes poor pages), so other methods' items keep their shape.
CONTAINER_OUTPUTS_WHEN_SET = ("page_type", "page_type_probability", "quality")


#: The fields of zyte-common-items' ``Article`` that ``BOILERPLATE_ITEM_SCHEMA =
#: "zyte-article"`` writes (docs/items.md maps each to its source).
ARTICLE_FIELDS = (
    "url",
    "canonicalUrl",
    "headline",
    "datePublished",
    "datePublishedRaw",
    "dateModified",
    "dateModifiedRaw",
    "authors",
    "inLanguage",
    "mainImage",
    "images",
    "description",
    "articleBody",
    "articleBodyHtml",
    "breadcrumbs",
    "metadata",
)
#: Items whose drop facts an :class:`ItemWriter` of the ``zyte-article`` schema remembers
#: at most until the pipeline reads them (the oldest are let go first).
PENDING_FACTS_LIMIT = 1000


def output_value(result: Extraction, output: str, blocks: str = "all") -> Any:
    """The plain-JSON value of one output (see :data:`scrapy_boilerplate.scrapy.config.OUTPUTS`);
    ``blocks`` is the kind of block dicts (:meth:`Extraction.block_dicts`) for ``"blocks"``.

    The metadata outputs (:data:`~scrapy_boilerplate.scrapy.config.METADATA_OUTPUTS`) read
    ``result.metadata``; where it is None (a page not extracted) they hold the empty values
    (None, or [] for lists), so every item has the same shape."""
    if output in METADATA_OUTPUTS:
        metadata = result.metadata if result.metadata is not None else empty_metadata()
        key = METADATA_OUTPUTS[output]
        return to_jsonable(metadata if key is None else metadata.get(key))
    if output == "blocks":
        return result.block_dicts(blocks)
    if output == "markdown":
        return result.to_markdown()
    if output == "main_html":
        return result.main_html or ""  # "" for a page not extracted, as its main text
    if output == "params":
        return to_jsonable(result.params)
    return to_jsonable(getattr(result, output))


def zyte_date(value: Any) -> str | None:
    """An ISO 8601 date or time of the metadata in ``Article``'s format:
    ``YYYY-MM-DDThh:mm:ss``, with ``Z`` or ``±hh:mm`` where the time zone is known (a date
    alone gets midnight, without a zone); None for anything else."""
    if not isinstance(value, str) or not value:
        return None
    try:
        if len(value) == 10:
            return f"{_dt.date.fromisoformat(value).isoformat()}T00:00:00"
        parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    text = parsed.replace(microsecond=0).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def article_values(result: Extraction, downloaded: str | None = None) -> dict[str, Any]:
    """The ``Article`` fields of ``result`` as plain JSON (docs/items.md): only those with
    a value, as Zyte API gives them, besides ``url`` and ``metadata``, always there.

    ``downloaded`` is ``metadata.dateDownloaded`` (default: now, UTC). ``articleBodyHtml``
    is the method's clean HTML (``Extraction.main_html``) where the extraction has one.
    """
    meta = result.metadata if result.metadata is not None else empty_metadata()
    out: dict[str, Any] = {"url": result.url}

    def put(name: str, value: Any) -> None:
        if value not in (None, "", [], {}):
            out[name] = to_jsonable(value)

    put("canonicalUrl", meta.get("canonical_url"))
    put("headline", meta.get("title"))
    for name, key in (("datePublished", "date_published"), ("dateModified", "date_modified")):
        put(name, zyte_date(meta.get(key)))
        put(f"{name}Raw", meta.get(key))  # the metadata's ISO string: the page's text is gone
    authors = [a for a in meta.get("authors") or () if isinstance(a, str) and a]
    put("authors", [{"name": a, "nameRaw": a} for a in authors])
    put("inLanguage", meta.get("language") or result.language)
    if meta.get("main_image"):
        put("mainImage", {"url": meta["main_image"]})
    put("images", [{"url": u} for u in meta.get("images") or () if isinstance(u, str) and u])
    put("description", meta.get("description"))
    put("articleBody", result.main_text.strip())
    put("articleBodyHtml", getattr(result, "main_html", None))
    crumbs = [c for c in meta.get("breadcrumbs") or () if isinstance(c, dict)]
    put("breadcrumbs", [{"name": c.get("name"), "url": c.get("url")} for c in crumbs])
    if downloaded is None:
        downloaded = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out["metadata"] = {"probability": to_jsonable(result.quality), "dateDownloaded": downloaded}
    return out


def article_class() -> type | None:
    """zyte-common-items' ``Article`` class, or None where the package is not installed."""
    try:
        from zyte_common_items import Article
    except ImportError:
        return None
    return Article


def as_article_components(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (:func:`article_values`) with zyte-common-items' component objects
    (``Author``, ``Image``, ``Breadcrumb``, ``ArticleMetadata``) in place of their dicts."""
    from zyte_common_items import ArticleMetadata, Author, Breadcrumb, Image

    out = dict(values)
    if "authors" in out:
        out["authors"] = [Author(**a) for a in out["authors"]]
    if "mainImage" in out:
        out["mainImage"] = Image(**out["mainImage"])
    if "images" in out:
        out["images"] = [Image(**i) for i in out["images"]]
    if "breadcrumbs" in out:
        out["breadcrumbs"] = [Breadcrumb(**b) for b in out["breadcrumbs"]]
    out["metadata"] = ArticleMetadata(**out["metadata"])
    return out


class ItemWriter:
    """Puts the configured outputs of an extraction into an item's fields.

    With ``BOILERPLATE_ITEM_SCHEMA = "zyte-article"`` it writes the ``Article`` fields
    instead (:data:`ARTICLE_FIELDS`): into an ``Article`` item as zyte-common-items'
    objects; a dict with no key but ``Article``'s is replaced by an ``Article`` (where
    zyte-common-items is installed); any other item gets them as plain JSON values.
    A field the item already holds (not None) is kept: the spider's own value wins.
    """

    def __init__(self, config: Config) -> None:
        #: ``BOILERPLATE_ITEM_SCHEMA``: ``plain`` or ``zyte-article``.
        self.schema = config.item_schema
        #: zyte-common-items' ``Article`` (None: not installed, or the plain schema).
        self.article_schema = self.schema == "zyte-article"
        self.article = article_class() if self.article_schema else None
        # zyte-article: what the pipeline's drop rules read of each item written (the
        # Article fields hold no reason nor page type): {id: (item, (reason, quality,
        # page type))}, bounded; the item is held so its id is not reused meanwhile.
        self._facts: OrderedDict[int, tuple[Any, tuple[str | None, float | None, str | None]]]
        self._facts = OrderedDict()
        # ... recorded only where a drop rule will read them
        self._keeps_facts = self.article_schema and (
            config.on_error == "drop"
            or bool(config.min_quality or config.min_quality_by_type or config.page_types)
        )
        #: ``BOILERPLATE_BLOCKS``: ``content``, ``all`` or ``none``.
        self.blocks = config.blocks
        # "none" leaves the blocks output out: no field for it, none to declare.
        self.fields = {
            out: name
            for out, name in config.fields.items()
            if out != "blocks" or self.blocks != "none"
        }
        self.container = config.container
        self.container_outputs = tuple(
            out for out in CONTAINER_OUTPUTS if out != "blocks" or self.blocks != "none"
        )

    @property
    def writes_blocks(self) -> bool:
        """Whether items get the blocks (the largest output by far)."""
        if self.article_schema:
            return False
        if self.container:
            return "blocks" in self.container_outputs
        return "blocks" in self.fields

    @property
    def block_kind(self) -> str:
        """The kind of :meth:`Extraction.block_dicts` items get: ``content`` or ``all``."""
        return "all" if self.blocks == "all" else "content"

    @property
    def field_names(self) -> list[str]:
        """The item fields this writer sets."""
        if self.article_schema:
            return list(ARTICLE_FIELDS)
        return [self.container] if self.container else list(self.fields.values())

    def missing_fields(self, item_class: type, names: Iterable[str] | None = None) -> list[str]:
        """The fields ``item_class`` would need (``names``, else :attr:`field_names`) but
        does not declare ([] for dicts)."""
        declared = ItemAdapter.get_field_names_from_class(item_class)
        if declared is None:  # dicts and other free-form items take any key
            return []
        wanted = self.field_names if names is None else names
        return [name for name in wanted if name not in declared]

    def missing_message(self, item_class: type, missing: list[str]) -> str:
        """What to declare, said so it can be pasted into the item class."""
        name = item_class.__name__
        lines = ", ".join(f"{f} = scrapy.Field()" for f in missing)
        return (
            f"item class {name} does not declare the field(s) {', '.join(missing)} that "
            f"scrapy-boilerplate writes (BOILERPLATE_FIELDS); declare them ({lines}, or the "
            f"same names in a dataclass/attrs class), or set BOILERPLATE_FIELDS to the fields "
            f"{name} has, or to one container field name"
        )

    def write(self, item: Any, result: Extraction) -> Any:
        """Set the fields; raises KeyError when the item class lacks one (checked first).

        Returns the item to pass on: ``item``, or the ``Article`` that replaces a dict of
        the ``zyte-article`` schema."""
        if self.article_schema:
            item = self._write_article(item, result)
            if self._keeps_facts:
                self._facts[id(item)] = (item, (result.reason, result.quality, result.page_type))
                while len(self._facts) > PENDING_FACTS_LIMIT:
                    self._facts.popitem(last=False)
            return item
        self._write_plain(item, result)
        return item

    def _write_article(self, item: Any, result: Extraction) -> Any:
        values = article_values(result)
        article = self.article
        if article is not None and isinstance(item, dict) and set(item) <= set(ARTICLE_FIELDS):
            # the spider's own values win; what it left out comes from the extraction
            given = {k: v for k, v in item.items() if v is not None}
            try:
                return article(**{**as_article_components(values), **given})
            except (TypeError, ValueError):  # a value of the spider's Article refuses: the
                pass  # dict stays, and gets the fields as plain values below
        adapter = ItemAdapter(item)
        if article is not None and isinstance(item, article):
            values = as_article_components(values)
        elif not isinstance(item, dict):
            missing = [n for n in values if n not in adapter.field_names()]
            if missing:
                raise KeyError(", ".join(missing))
        for name, value in values.items():
            if adapter.get(name) is None:
                adapter[name] = value
        return item

    def _write_plain(self, item: Any, result: Extraction) -> None:
        adapter = ItemAdapter(item)
        if self.container:
            container = {
                out: output_value(result, out, self.block_kind) for out in self.container_outputs
            }
            for out in CONTAINER_OUTPUTS_WHEN_SET:
                if getattr(result, out) is not None:
                    container[out] = output_value(result, out)
            adapter[self.container] = container
            return
        values = {
            name: output_value(result, out, self.block_kind) for out, name in self.fields.items()
        }
        declared = adapter.field_names() if not isinstance(item, dict) else None
        if declared is not None:
            missing = [n for n in values if n not in declared]
            if missing:
                raise KeyError(", ".join(missing))
        for name, value in values.items():
            adapter[name] = value

    def facts(self, item: Any) -> tuple[str | None, float | None, str | None]:
        """``(failure reason, quality, page type)`` of an item, for the pipeline's drop
        rules: read from its fields (:meth:`failure`, :meth:`quality`, :meth:`page_type`),
        or in the ``zyte-article`` schema from what :meth:`write` recorded, let go now."""
        if self.article_schema:
            entry = self._facts.pop(id(item), None)
            if entry is None or entry[0] is not item:
                return None, None, None
            reason, quality, page_type = entry[1]
            return reason, quality, page_type
        return self.failure(item), self.quality(item), self.page_type(item)

    def written(self, item: Any, output: str) -> Any:
        """The value ``item`` holds for ``output``: in the container field, or in the
        output's own field; None where this writer writes that output nowhere."""
        adapter = ItemAdapter(item)
        if self.container:
            value = adapter.get(self.container)
            return value.get(output) if isinstance(value, dict) else None
        if output in self.fields:
            return adapter.get(self.fields[output])
        return None

    def page_type(self, item: Any) -> str | None:
        """The page type written into an item (None where its method tells none or the
        item holds no page_type output): what ``BOILERPLATE_PAGE_TYPES`` looks at."""
        page_type = self.written(item, "page_type")
        return page_type if isinstance(page_type, str) else None

    def quality(self, item: Any) -> float | None:
        """The quality written into an item (None where its method gives none or the item
        holds no quality output): what ``BOILERPLATE_MIN_QUALITY`` looks at."""
        quality = self.written(item, "quality")
        return float(quality) if isinstance(quality, (int, float)) else None

    def failure(self, item: Any) -> str | None:
        """The recorded reason an item has no main text (None when it has it or none was
        written): what ``BOILERPLATE_ON_ERROR = "drop"`` looks at."""
        if self.container or "reason" in self.fields:
            return self.written(item, "reason")
        adapter = ItemAdapter(item)
        if "main_text" in self.fields and self.fields["main_text"] in adapter:
            return None if adapter.get(self.fields["main_text"]) else Reason.NO_TEXT.value
        return None
