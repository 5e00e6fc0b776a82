"""The Scrapy add-on: ``ADDONS = {"scrapy_boilerplate.Addon": 0}`` wires every component.

It adds the downloader middleware (545), the decoding middleware (585), the spider
middleware (600) and the pipeline (200) unless the project already lists them (a user's
own priority, or ``None`` to disable one, wins); when entity lists are on
(``BOILERPLATE_ENTITIES_ENABLED`` or ``BOILERPLATE_ENTITY_QUERY``), the entity spider
middleware (40) and pipeline (250) too, and otherwise not even their module is imported;
none at all when ``BOILERPLATE_ENABLED`` is False. It sets nothing else: every
``BOILERPLATE_*`` default lives in :mod:`scrapy_boilerplate.scrapy.config`, and the reactor is
left alone.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.utils.misc import load_object

from scrapy_boilerplate.scrapy.config import (
    BOILERPLATE_ENABLED,
    BoilerplateSettingsError,
    entities_wanted,
)
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
#: Low: it sees the items that go on to the pipelines, after middlewares that replace them.
ENTITY_SPIDER_MIDDLEWARE_PRIORITY = 40
#: After the main-content pipeline (items it drops cost nothing), before storage (300).
ENTITY_PIPELINE_PRIORITY = 250

logger = logging.getLogger("scrapy_boilerplate")

_COMPONENTS = (
    ("DOWNLOADER_MIDDLEWARES", BoilerplateDownloaderMiddleware, DOWNLOADER_MIDDLEWARE_PRIORITY),
    ("DOWNLOADER_MIDDLEWARES", BoilerplateDecodeMiddleware, DECODE_MIDDLEWARE_PRIORITY),
    ("SPIDER_MIDDLEWARES", BoilerplateSpiderMiddleware, SPIDER_MIDDLEWARE_PRIORITY),
    ("ITEM_PIPELINES", BoilerplatePipeline, PIPELINE_PRIORITY),
)


class Addon:
    """Enables scrapy-boilerplate's components with their documented priorities."""

    def update_settings(self, settings: BaseSettings) -> None:
        if not _enabled(settings):
            # Components added only to raise NotConfigured would each log a warning.
            logger.info("scrapy-boilerplate is disabled (BOILERPLATE_ENABLED is False)")
            return
        components: tuple[tuple[str, Any, int], ...] = _COMPONENTS
        if _entities_wanted(settings):
            from scrapy_boilerplate.scrapy.entities import EntityPipeline, EntitySpiderMiddleware

            components += (
                ("SPIDER_MIDDLEWARES", EntitySpiderMiddleware, ENTITY_SPIDER_MIDDLEWARE_PRIORITY),
                ("ITEM_PIPELINES", EntityPipeline, ENTITY_PIPELINE_PRIORITY),
            )
        for name, component, priority in components:
            current = settings.getdict(name)
            # A string entry naming the same class counts as already there.
            if any(_same(key, component) for key in current):
                continue
            settings.setdefault_in_component_priority_dict(name, component, priority)


def _entities_wanted(settings: BaseSettings) -> bool:
    try:
        return entities_wanted(settings)
    except BoilerplateSettingsError:
        return True  # added, so that the crawl fails at start with the setting's error


def _enabled(settings: BaseSettings) -> bool:
    try:
        return settings.getbool("BOILERPLATE_ENABLED", BOILERPLATE_ENABLED)
    except ValueError:  # the components fail the start, naming the setting
        return True


def _same(key: Any, component: type) -> bool:
    if key is component:
        return True
    if isinstance(key, str):
        try:
            return load_object(key) is component
        except (ImportError, NameError, ValueError, AttributeError):
            return False
    return False
