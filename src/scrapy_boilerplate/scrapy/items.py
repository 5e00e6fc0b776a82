"""Writing an :class:`~scrapy_boilerplate.core.result.Extraction` into items of every kind.

Items are reached only through :class:`itemadapter.ItemAdapter` (dict, ``scrapy.Item``,
dataclass, attrs, pydantic). Values are plain JSON types, so feed exports, JOBDIR
queues and scrapy-redis serialise them. ``BOILERPLATE_BLOCKS`` decides how much of the
blocks goes in: every block with every key is most of an item's bytes, and Scrapy's DEBUG
"Scraped from" log line repeats the whole item.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from itemadapter import ItemAdapter

from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.result import Extraction, to_jsonable
from scrapy_boilerplate.scrapy.config import Config

#: The outputs a container field (``BOILERPLATE_FIELDS`` given as one name) receives.
CONTAINER_OUTPUTS = ("main_text", "blocks", "extractor", "language", "reason")
#: The outputs it receives too where the method set them (auto's page type and quality,
#: by which a crawl drops or re-routes poor pages), so other methods' items keep their shape.
CONTAINER_OUTPUTS_WHEN_SET = ("page_type", "page_type_probability", "quality")


def output_value(result: Extraction, output: str, blocks: str = "all") -> Any:
    """The plain-JSON value of one output (see :data:`scrapy_boilerplate.scrapy.config.OUTPUTS`);
    ``blocks`` is the kind of block dicts (:meth:`Extraction.block_dicts`) for ``"blocks"``."""
    if output == "blocks":
        return result.block_dicts(blocks)
    if output == "markdown":
        return result.to_markdown()
    if output == "params":
        return to_jsonable(result.params)
    return to_jsonable(getattr(result, output))


class ItemWriter:
    """Puts the configured outputs of an extraction into an item's fields."""

    def __init__(self, config: Config) -> None:
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

    def write(self, item: Any, result: Extraction) -> None:
        """Set the fields; raises KeyError when the item class lacks one (checked first)."""
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

    def quality(self, item: Any) -> float | None:
        """The quality written into an item (None where its method gives none or the item
        holds no quality output): what ``BOILERPLATE_MIN_QUALITY`` looks at."""
        adapter = ItemAdapter(item)
        if self.container:
            value = adapter.get(self.container)
            quality = value.get("quality") if isinstance(value, dict) else None
        elif "quality" in self.fields:
            quality = adapter.get(self.fields["quality"])
        else:
            return None
        return float(quality) if isinstance(quality, (int, float)) else None

    def failure(self, item: Any) -> str | None:
        """The recorded reason an item has no main text (None when it has it or none was
        written): what ``BOILERPLATE_ON_ERROR = "drop"`` looks at."""
        adapter = ItemAdapter(item)
        if self.container:
            value = adapter.get(self.container)
            return value.get("reason") if isinstance(value, dict) else None
        if "reason" in self.fields:
            return adapter.get(self.fields["reason"])
        if "main_text" in self.fields and self.fields["main_text"] in adapter:
            return None if adapter.get(self.fields["main_text"]) else Reason.NO_TEXT.value
        return None
