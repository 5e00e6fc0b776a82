"""The Scrapy add-on: ``ADDONS = {"scrapy_boilerplate.Addon": 0}`` wires every component.

It adds the downloader middleware (545), the decoding middleware (585), the spider
middleware (600) and the pipeline (200) unless the project already lists them (a user's
own priority, or ``None`` to disable one, wins). It sets nothing else: every
``BOILERPLATE_*`` default lives in :mod:`scrapy_boilerplate.scrapy.config`, and the reactor is
left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.utils.misc import load_object

from scrapy_boilerplate.scrapy.middlewares import (
    BoilerplateDecodeMiddleware,
    BoilerplateDownloaderMiddleware,
    BoilerplateSpiderMiddleware,
)
from scrapy_boilerplate.scrapy.pipelines import BoilerplatePipeline

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

DOWNLOADER_MIDDLEWARE_PRIORITY = 545
DECODE_MIDDLEWARE_PRIORITY = 585
SPIDER_MIDDLEWARE_PRIORITY = 600
PIPELINE_PRIORITY = 200

_COMPONENTS = (
    ("DOWNLOADER_MIDDLEWARES", BoilerplateDownloaderMiddleware, DOWNLOADER_MIDDLEWARE_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", BoilerplateDecodeMiddleware, DECODE_MIDDLEWARE_PRIORITY),
    ("SPIDER_MIDDLEWARES", BoilerplateSpiderMiddleware, SPIDER_MIDDLEWARE_PRIORITY),
    ("ITEM_PIPELINES", BoilerplatePipeline, PIPELINE_PRIORITY),
)


class Addon:
    """Enables scrapy-boilerplate's components with their documented priorities."""

    def update_settings(self, settings: BaseSettings) -> None:
        for name, component, priority in _COMPONENTS:
            current = settings.getdict(name)
            # A string entry naming the same class counts as already there.
            if any(_same(key, component) for key in current):
                continue
            settings.setdefault_in_component_priority_dict(name, component, priority)


def _same(key: Any, component: type) -> bool:
    if key is component:
        return True
    if isinstance(key, str):
        try:
            return load_object(key) is component
        except (ImportError, NameError, ValueError, AttributeError):
            return False
    return False
