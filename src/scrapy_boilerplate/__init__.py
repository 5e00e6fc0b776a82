"""scrapy-boilerplate: tell a page's main content from its boilerplate, at crawl time.

One line for a newcomer::

    from scrapy_boilerplate import extract
    result = extract(html, extractor="justext", length_low=70)
    print(result.main_text)
"""

from __future__ import annotations

from typing import Any

from scrapy_boilerplate.core.deadline import ExtractionTimeout
from scrapy_boilerplate.core.document import (
    Document,
    TextBlock,
    parse,
)
from scrapy_boilerplate.core.errors import (
    BoilerplateError,
    InvalidParameter,
    UnknownExtractor,
    UnsupportedInput,
)
from scrapy_boilerplate.core.extract import extract
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.registry import Extractor, available, register
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Block, Extraction

__all__ = [
    "BOILERPLATE",
    "CONTENT",
    "Addon",
    "Block",
    "BoilerplateError",
    "BoilerplateHtmlResponse",
    "Document",
    "Extraction",
    "ExtractionTimeout",
    "Extractor",
    "InvalidParameter",
    "Param",
    "Reason",
    "TextBlock",
    "UnknownExtractor",
    "UnsupportedInput",
    "available",
    "extract",
    "extract_entities",
    "get_extraction",
    "parse",
    "register",
]

__version__ = "0.1.0"

# The Scrapy glue loads on first use: the core (extract, parse) never imports Scrapy.
_LAZY = {
    "Addon": "scrapy_boilerplate.scrapy.addon",
    "BoilerplateHtmlResponse": "scrapy_boilerplate.scrapy.middlewares",
    "get_extraction": "scrapy_boilerplate.scrapy.middlewares",
    "extract_entities": "scrapy_boilerplate.entities.extract",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'scrapy_boilerplate' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(module), name)
