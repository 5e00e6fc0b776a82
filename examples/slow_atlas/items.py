"""The item of the example: a dataclass, as Scrapy's own template now writes items.

It declares the fields scrapy-boilerplate writes (BOILERPLATE_FIELDS in settings.py);
a class without them gets a clear error naming what to declare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Article:
    url: str
    title: str = ""
    main_text: str = ""
    blocks: list[dict[str, Any]] = field(default_factory=list)
    extractor: str = ""
    boilerplate_reason: str | None = None
    language: str | None = None
    markdown: str = ""
    # written by EntityPipeline (the "focused" spider)
    entities: list[str] = field(default_factory=list)
    entity_candidates: list[dict[str, Any]] = field(default_factory=list)
    entities_reason: str | None = None
