"""What the plugin's components of one crawler share: the checked config, one worker pool,
the item writer and the stats/log reporter."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from collections import Counter, OrderedDict
from functools import partial
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import NotConfigured

from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.result import Extraction, to_jsonable
from scrapy_boilerplate.scrapy.config import ENTITY_FIELDS, BoilerplateSettingsError, Config
from scrapy_boilerplate.scrapy.items import ItemWriter
from scrapy_boilerplate.scrapy.runner import ExtractionTimeout, Runner

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self


logger = logging.getLogger("scrapy_boilerplate")

_STATES: WeakKeyDictionary[Any, CrawlerState] = WeakKeyDictionary()


#: Distinct cases of one kind of problem logged at most (more are only counted).
MAX_CASES_LOGGED = 20


class Reporter:
    """Stats under ``boilerplate/`` and logs that say each distinct problem once.

    :meth:`problem` is the one way to report a problem: it counts it under the stat it
    names in its log line, so every key a log line names exists.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        #: Problems reported per stats key, and the cases of each already logged.
        self.counts: Counter[str] = Counter()
        self.cases: dict[str, set[str | None]] = {}
        self.stats_failed = False

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
            if not self.stats_failed:
                self.stats_failed = True
                logger.error(
                    "The stats collector rejected the value of %r: %s: %s",
                    key,
                    type(exc).__name__,
                    exc,
                )

    def problem(
        self, key: str, level: int, message: str, *args: Any, case: str | None = None
    ) -> None:
        """Count a problem under ``boilerplate/<key>``; log ``message % args`` the first
        time this ``case`` of it happens (``case``: what tells one mistake of this kind
        from another, such as an exception's message without the URL; None: the kind
        alone). Repeats are only counted, so a problem on every page is one line, while
        different mistakes of one kind each get theirs (at most :data:`MAX_CASES_LOGGED`).
        """
        self.inc(key)
        self.counts[key] += 1
        cases = self.cases.setdefault(key, set())
        if case in cases or len(cases) >= MAX_CASES_LOGGED:
            return
        cases.add(case)
        logger.log(
            level,
            message + " (logged once; boilerplate/%s counts every case)",
            *args,
            key,
            extra={"spider": self._spider()},
        )

    def summary(self) -> None:
        """At the end of the crawl: how often each problem logged once happened."""
        for key, n in sorted(self.counts.items()):
            logged = len(self.cases.get(key, ()))
            if n > logged:
                logger.info(
                    "boilerplate/%s = %d in this crawl (%d distinct logged above)",
                    key,
                    n,
                    logged,
                    extra={"spider": self._spider()},
                )

    def _spider(self) -> Any:
        try:
            return self.crawler.spider
        except (AttributeError, RuntimeError):
            return None


#: What :func:`~scrapy_boilerplate.scrapy.middlewares.checked_tree` found of each response's
#: bytes: None where they passed, else the refusal's ``(reason, detail)``.
CheckedMarkup = WeakKeyDictionary[Any, "tuple[str, str] | None"]

#: Items an :class:`ItemPages` remembers at most (the oldest are let go first).
PENDING_ITEMS_LIMIT = 10000


class ItemPages:
    """Which response each item came from, until the entity pipeline takes it (bounded;
    the item itself is held, so its id cannot be reused while it waits). One per crawler
    (:attr:`CrawlerState.entity_pages`): the entity spider middleware puts, the entity
    pipeline takes."""

    def __init__(self) -> None:
        self.items: OrderedDict[int, tuple[Any, Any]] = OrderedDict()

    def put(self, item: Any, response: Any) -> None:
        self.items[id(item)] = (item, response)
        while len(self.items) > PENDING_ITEMS_LIMIT:
            self.items.popitem(last=False)

    def take(self, item: Any) -> Any:
        entry = self.items.pop(id(item), None)
        return entry[1] if entry is not None and entry[0] is item else None

    def forget(self, item: Any, **kwargs: Any) -> None:
        """An item that will not reach the pipeline (dropped, or a pipeline failed): its
        response is let go now, not when ``PENDING_ITEMS_LIMIT`` newer items push it out."""
        self.take(item)


#: Pages with at least this many blocks get their item block dicts made off the reactor.
PREPARE_MIN_BLOCKS = 2000


class CrawlerState:
    """Built once per crawler by whichever component comes first."""

    def __init__(self, crawler: Crawler) -> None:
        self.config = Config.from_settings(crawler.settings)
        self.writer = ItemWriter(self.config)
        for cls in self.config.item_classes:
            missing = self.writer.missing_fields(cls)
            if missing:
                raise BoilerplateSettingsError(
                    "BOILERPLATE_ITEM_CLASSES", self.writer.missing_message(cls, missing)
                )
            missing = self.writer.missing_fields(cls, ENTITY_FIELDS)
            if self.config.entities.enabled and missing:
                lines = ", ".join(f"{f} = scrapy.Field()" for f in missing)
                raise BoilerplateSettingsError(
                    "BOILERPLATE_ITEM_CLASSES",
                    f"item class {cls.__name__} does not declare the field(s) "
                    f"{', '.join(missing)} that the entity lists write (they are on: "
                    f"BOILERPLATE_ENTITIES_ENABLED or BOILERPLATE_ENTITY_QUERY); declare "
                    f"them ({lines}, or the same names in a dataclass/attrs class)",
                )
        self.runner = Runner(
            self.config.execution,
            self.config.workers,
            self.config.queue_size,
            self.config.timeout,
            self.config.memory_trim,
            self.config.run_options(),
        )
        self.reporter = Reporter(crawler)
        #: The entity components' record of which response each item came from.
        self.entity_pages = ItemPages()
        #: Responses whose bytes were checked before Scrapy's parser read them (thread
        #: and inline modes), so that the entity pipeline does not scan them again.
        self.checked_markup: CheckedMarkup = WeakKeyDictionary()
        crawler.signals.connect(self._opened, signal=signals.spider_opened)
        crawler.signals.connect(self._closed, signal=signals.spider_closed)

    async def _opened(self, spider: Spider | None = None) -> None:
        if self.runner.mode != "inline":
            try:  # thread and process modes await futures on the asyncio event loop
                asyncio.get_running_loop()
            except RuntimeError:
                logger.error(
                    "BOILERPLATE_EXECUTION=%r needs the asyncio reactor (TWISTED_REACTOR = "
                    "'twisted.internet.asyncioreactor.AsyncioSelectorReactor', Scrapy's "
                    "default since 2.13); extracting inline instead",
                    self.runner.mode,
                )
                self.runner = Runner(
                    "inline",
                    timeout=self.config.timeout,
                    trim=self.config.memory_trim,
                    options=self.config.run_options(),
                )
        self._log_start()
        if self.runner.mode == "inline":
            return
        if self.config.gc_freeze:
            # A full collection scans every tracked object and holds the GIL meanwhile:
            # in a busy crawl, the longest reactor stalls (benchmarks/crawl.py measures
            # them). Start-up objects live as long as the process.
            gc.freeze()
        # The crawl starts once the workers are up and the method has read a small page
        # (Scrapy awaits this handler): its start-up does not compete with the first pages.
        try:
            config = self.config
            await self.runner.warm_up(config.extractor, config.params, config.extract_options)
        except Exception as exc:  # the first page will meet the same problem and report it
            logger.warning("Could not get the extraction workers ready ahead: %s", exc)

    def _log_start(self) -> None:
        """One line at spider open: the method, its parameters and how pages are run."""
        config, runner = self.config, self.runner
        params = json.dumps(to_jsonable(config.params), sort_keys=True, default=str)
        how = "inline" if runner.mode == "inline" else f"{runner.mode}, {runner.workers} workers"
        logger.info(
            "scrapy-boilerplate: extractor %s %s, execution %s, queue %d, timeout %s",
            config.extractor,
            params,
            how,
            runner.queue_size,
            f"{config.timeout:g} s" if config.timeout else "none",
            extra={"spider": self.reporter._spider()},
        )

    def _closed(self, spider: Spider | None = None) -> None:
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
            if self.runner.restarts:  # process mode: workers killed and replaced so far
                reporter.max("workers_replaced", self.runner.restarts)
            reporter.problem(
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
            reporter.problem(
                f"errors/{name}",
                logging.ERROR,
                "Extraction of %s failed: %s: %s",
                what,
                name,
                exc,
                case=case_of(exc, url),
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
            # Building the items' block dicts of a huge page is long Python work: do it
            # now, off the reactor thread, rather than in the spider middleware.
            await self.runner.offload(result.prepare_block_dicts, self.writer.block_kind)
        return result


def case_of(exc: BaseException, url: str | None = None) -> str:
    """What tells one mistake from another: the exception's message, without the URL."""
    text = str(exc)
    return text.replace(url, "<url>") if url else text


class Component:
    """Base of the plugin's Scrapy components: built from the crawler, sharing its state."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.state = state_for(crawler)
        if not self.state.config.enabled:
            raise NotConfigured("BOILERPLATE_ENABLED is False")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)


def state_for(crawler: Crawler) -> CrawlerState:
    """The crawler's shared state, built on first use (from a component's ``from_crawler``)."""
    state = _STATES.get(crawler)
    if state is None:
        try:
            state = _STATES[crawler] = CrawlerState(crawler)
        except BoilerplateSettingsError as exc:
            _report_failed_start(exc)
            raise
    return state


def _report_failed_start(error: BoilerplateSettingsError) -> None:
    """Say in one line which setting stops the crawl; the error still fails its start.

    ``scrapy crawl`` (Scrapy 2.13+) starts the crawl in an asyncio task that nobody
    awaits: asyncio would report the error once more, as "Task exception was never
    retrieved" and a traceback of Scrapy's start-up, before this line. The task's
    exception is taken as seen when it is this error (Scrapy has noted the failed start
    by then: the command exits with 1); any other exception is reported as asyncio would.
    """
    logger.error("Cannot start the crawl: %s", error)
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop running: the caller gets the error as it is
        return
    if task is not None:
        task.add_done_callback(partial(_seen_if, error))


def _seen_if(error: BaseException, task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        return
    exc = task.exception()  # marks it retrieved
    if exc is not None and exc is not error:
        task.get_loop().call_exception_handler(
            {"message": "Task exception was never retrieved", "exception": exc, "future": task}
        )
