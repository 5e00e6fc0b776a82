"""What the plugin's components of one crawler share: the checked config, one worker pool,
the item writer and the stats/log reporter."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections import Counter
from typing import Any
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import NotConfigured

from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.result import Extraction
from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError, Config
from scrapy_boilerplate.scrapy.items import ItemWriter
from scrapy_boilerplate.scrapy.runner import ExtractionTimeout, Runner

logger = logging.getLogger("scrapy_boilerplate")

_STATES: WeakKeyDictionary[Any, CrawlerState] = WeakKeyDictionary()


class Reporter:
    """Stats under ``boilerplate/`` and logs that say a recurring problem once, with a count."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.logged: Counter[str] = Counter()

    def inc(self, key: str, value: float = 1) -> None:
        self._stat("inc_value", key, value)

    def max(self, key: str, value: float) -> None:
        self._stat("max_value", key, value)

    def _stat(self, method: str, key: str, value: float) -> None:
        # A stats collector that fails (e.g. one that stores integers only) must not cost
        # a page: the failure is logged once and the page goes on.
        try:
            getattr(self.crawler.stats, method)(f"boilerplate/{key}", value)
        except Exception as exc:
            self.logged["stats-failure"] += 1
            if self.logged["stats-failure"] == 1:
                logger.error(
                    "The stats collector rejected boilerplate/%s: %s: %s",
                    key,
                    type(exc).__name__,
                    exc,
                )

    def once(
        self, key: str, level: int, message: str, *args: Any, log_key: str | None = None
    ) -> None:
        """Log ``message`` the first time ``log_key`` (default: the stats ``key``) happens;
        later ones are only counted."""
        log_key = log_key or key
        self.logged[log_key] += 1
        if self.logged[log_key] == 1:
            logger.log(
                level,
                message + " (logged once; the stats count every case: boilerplate/%s)",
                *args,
                key,
                extra={"spider": self._spider()},
            )

    def summary(self) -> None:
        for key, n in sorted(self.logged.items()):
            if n > 1:
                logger.info(
                    "boilerplate/%s happened %d times in this crawl",
                    key,
                    n,
                    extra={"spider": self._spider()},
                )

    def _spider(self) -> Any:
        try:
            return self.crawler.spider
        except (AttributeError, RuntimeError):
            return None


#: Pages with at least this many blocks get their item block dicts made off the reactor.
PREPARE_MIN_BLOCKS = 2000


class CrawlerState:
    """Built once per crawler by whichever component comes first."""

    def __init__(self, crawler: Any) -> None:
        self.config = Config.from_settings(crawler.settings)
        self.writer = ItemWriter(self.config)
        for cls in self.config.item_classes:
            missing = self.writer.missing_fields(cls)
            if missing:
                raise BoilerplateSettingsError(
                    "BOILERPLATE_ITEM_CLASSES", self.writer.missing_message(cls, missing)
                )
        self.runner = Runner(
            self.config.execution,
            self.config.workers,
            self.config.queue_size,
            self.config.timeout,
            self.config.memory_trim,
        )
        self.reporter = Reporter(crawler)
        crawler.signals.connect(self._opened, signal=signals.spider_opened)
        crawler.signals.connect(self._closed, signal=signals.spider_closed)

    async def _opened(self, spider: Any = None) -> None:
        if self.runner.mode == "inline":
            return
        try:  # thread and process modes await futures on the asyncio event loop
            asyncio.get_running_loop()
        except RuntimeError:
            logger.error(
                "BOILERPLATE_EXECUTION=%r needs the asyncio reactor (TWISTED_REACTOR = "
                "'twisted.internet.asyncioreactor.AsyncioSelectorReactor', Scrapy's default "
                "since 2.13); extracting inline instead",
                self.runner.mode,
            )
            self.runner = Runner(
                "inline", timeout=self.config.timeout, trim=self.config.memory_trim
            )
            return
        if self.config.gc_freeze:
            # A full collection scans every tracked object and holds the GIL meanwhile:
            # in a busy crawl, 0.1 s every second or two, the longest reactor stalls
            # (benchmarks/crawl.py). Start-up objects live as long as the process.
            gc.freeze()
        # The crawl starts once the workers are up and the method has read a small page
        # (Scrapy awaits this handler): its start-up does not compete with the first pages.
        try:
            await self.runner.warm_up(self.config.extractor, self.config.params)
        except Exception as exc:  # the first page will meet the same problem and report it
            logger.warning("Could not get the extraction workers ready ahead: %s", exc)

    def _closed(self, spider: Any = None) -> None:
        self.runner.close()
        self.reporter.summary()

    async def extract(
        self,
        call: tuple[Any, ...],
        extractor: str,
        params: dict[str, Any],
        url: str | None,
        what: str,
    ) -> Extraction:
        """Run ``call`` (a function and its arguments) on the runner and account for it.

        Never raises: a timeout or an extractor's exception becomes an empty Extraction
        with reason ``timeout`` / ``error``, counted under ``boilerplate/errors/`` and
        logged once. ``what`` names the page in log messages.
        """
        reporter = self.reporter
        try:
            result, seconds = await self.runner.run(*call)
        except ExtractionTimeout as exc:
            reporter.inc("errors/timeout")
            if self.runner.restarts:  # process mode: workers killed and replaced so far
                reporter.max("workers_replaced", self.runner.restarts)
            reporter.once(
                "errors/timeout", logging.WARNING, "Extraction of %s timed out: %s", what, exc
            )
            return Extraction.failed(
                Reason.TIMEOUT,
                extractor,
                params,
                url=url,
                extra={"error": f"ExtractionTimeout: {exc}"},
            )
        except Exception as exc:  # an extractor's bug must not break the crawl or lose items
            name = type(exc).__name__
            reporter.inc(f"errors/{name}")
            reporter.once(
                f"errors/{name}", logging.ERROR, "Extraction of %s failed: %s: %s", what, name, exc
            )
            return Extraction.failed(
                Reason.ERROR, extractor, params, url=url, extra={"error": f"{name}: {exc}"}
            )
        reporter.inc("pages")
        reporter.inc(f"extractor/{extractor}")
        reporter.inc("seconds", round(seconds, 6))
        reporter.max("max_seconds", round(seconds, 6))
        if result.reason is not None:
            reporter.inc(f"empty/{result.reason}")
        if len(result.blocks) >= PREPARE_MIN_BLOCKS and self.writer.writes_blocks:
            # Building the items' block dicts of a huge page takes 0.1 s and more: do it
            # now, off the reactor thread, rather than in the spider middleware.
            await self.runner.offload(result.prepare_block_dicts)
        return result


class Component:
    """Base of the plugin's Scrapy components: built from the crawler, sharing its state."""

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self.state = state_for(crawler)
        if not self.state.config.enabled:
            raise NotConfigured("BOILERPLATE_ENABLED is False")

    @classmethod
    def from_crawler(cls, crawler: Any) -> Any:
        return cls(crawler)


def state_for(crawler: Any) -> CrawlerState:
    """The crawler's shared state, built on first use (from a component's ``from_crawler``)."""
    state = _STATES.get(crawler)
    if state is None:
        state = _STATES[crawler] = CrawlerState(crawler)
    return state
