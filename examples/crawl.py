#!/usr/bin/env python
"""The example crawl: Scrapy walks a small static site and extracts each page's main text.

    python examples/crawl.py [--output FILE] [--extractor NAME] [--param NAME=VALUE ...]

No network and no server: the site in ``examples/site/`` is crawled through ``file://``
URLs. Each page becomes one item (url, title, language, extractor, params, main_text,
blocks, reason) written as JSON lines to ``examples/output/items.jsonl`` (overwritten on
every run); a short summary is printed at the end. Exit status: 0 when every page gave an
item, 1 when nothing was extracted or the crawl had errors, 2 for a bad argument or an
extractor that cannot be loaded.

The spider calls the public API in its callback::

    result = extract(response.selector, extractor=..., url=response.url, **params)

Passing ``response.selector`` reuses the tree Scrapy already parsed. Which method runs,
and with which thresholds, comes from two settings read by the spider
(``BOILERPLATE_EXTRACTOR``, ``BOILERPLATE_PARAMS``; each spider sets them in
``custom_settings``) and, for a single request, from ``meta["boilerplate"] =
{"extractor": ..., "params": {...}}``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urldefrag

import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from scrapy_boilerplate import CONTENT, BoilerplateError, extract

HERE = Path(__file__).resolve().parent
SITE = HERE / "site"
DEFAULT_OUTPUT = HERE / "output" / "items.jsonl"


class ArticleSpider(scrapy.Spider):
    """Follow the links of the example site; one item per page, extracted with jusText."""

    name = "articles"
    custom_settings: ClassVar[dict[str, Any]] = {
        "BOILERPLATE_EXTRACTOR": "justext",
        # jusText's thresholds, spelled out with the paper's values so they are easy to tweak.
        "BOILERPLATE_PARAMS": {
            "length_low": 70,
            "length_high": 200,
            "stopwords_low": 0.30,
            "stopwords_high": 0.32,
            "max_link_density": 0.2,
        },
    }

    #: Per-request overrides, put in ``Request.meta["boilerplate"]`` for these pages.
    #: The Czech article always gets jusText with the Czech stoplist forced (whatever the
    #: spider's own method) and a lower ``length_low``, so shorter blocks are judged on
    #: their stopword density instead of being left to their neighbours.
    page_overrides: ClassVar[dict[str, dict[str, Any]]] = {
        "stare-kolo.html": {
            "extractor": "justext",
            "params": {"language": "cs", "length_low": 50},
        },
    }

    def __init__(self, site_dir: str | Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.site_dir = Path(site_dir or SITE).resolve()
        self.site_url = self.site_dir.as_uri() + "/"
        self.start_urls = [(self.site_dir / "index.html").as_uri()]

    async def start(self):
        for url in self.start_urls:
            yield self.page_request(url)

    def page_request(self, url: str) -> scrapy.Request:
        meta = {}
        override = self.page_overrides.get(url.rsplit("/", 1)[-1])
        if override is not None:
            meta["boilerplate"] = override
        return scrapy.Request(url, callback=self.parse, meta=meta)

    def method_for(self, response: scrapy.http.Response) -> tuple[str, dict[str, Any]]:
        """The extractor and parameters for this response: settings, then the request's meta."""
        extractor = self.settings.get("BOILERPLATE_EXTRACTOR") or "justext"
        params = dict(self.settings.getdict("BOILERPLATE_PARAMS"))
        override = response.meta.get("boilerplate") or {}
        wanted = override.get("extractor") or extractor
        if wanted != extractor:  # another method: the spider's thresholds do not apply to it
            extractor, params = wanted, {}
        params.update(override.get("params") or {})
        return extractor, params

    def parse(self, response: scrapy.http.Response):
        extractor, params = self.method_for(response)
        result = extract(response.selector, extractor=extractor, url=response.url, **params)
        data = result.to_dict()  # plain JSON types only
        yield {
            "url": response.url,
            "title": " ".join(response.css("title::text").get("").split()),
            "language": result.language or response.xpath("/html/@lang").get(),
            "extractor": result.extractor,
            "params": data["params"],
            "main_text": result.main_text,
            "blocks": data["blocks"],
            "reason": result.reason,
        }
        for href in response.css("a::attr(href)").getall():
            url = urldefrag(response.urljoin(href))[0]
            if url.startswith(self.site_url) and url.endswith(".html"):
                yield self.page_request(url)


class CnrSpider(ArticleSpider):
    """The same crawl with another method, chosen through ``custom_settings``."""

    name = "cnr"
    custom_settings: ClassVar[dict[str, Any]] = {
        "BOILERPLATE_EXTRACTOR": "cnr",
        "BOILERPLATE_PARAMS": {},  # the method's defaults; put its thresholds here
    }


SPIDERS = {"justext": ArticleSpider, "cnr": CnrSpider}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Crawl examples/site through file:// URLs and extract each page's main text."
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help="JSON lines file, overwritten on each run (default: examples/output/items.jsonl)",
    )
    parser.add_argument(
        "--extractor",
        default="justext",
        help="method name: justext (ArticleSpider), cnr (CnrSpider) or any registered one",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a threshold of the method, e.g. --param length_low=50 (repeatable)",
    )
    parser.add_argument("--log-level", default="WARNING", help="Scrapy log level (WARNING)")
    args = parser.parse_args(argv)
    args.params = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            parser.error(f"--param expects NAME=VALUE, got {item!r}")
        args.params[name.strip()] = value.strip()
    return args


def _show(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def summarize(
    items: list[dict[str, Any]], stats: dict[str, Any], output: Path, spider: str, extractor: str
) -> None:
    items = sorted(items, key=lambda it: it["url"])
    print(f"\nSpider {spider!r} (extractor {extractor!r}); items written to {_show(output)}")
    print(f"  {'page':<26} {'lang':<5} {'extractor':<10} {'blocks':>6} {'content':>8} {'chars':>6}")
    for it in items:
        blocks = it["blocks"]
        n_content = sum(b["label"] == CONTENT for b in blocks)
        share = f"{n_content / len(blocks):.0%}" if blocks else "-"
        page = it["url"].rsplit("/", 1)[-1]
        flag = "*" if page in ArticleSpider.page_overrides else " "
        print(
            f"{flag} {page:<26} {it['language'] or '-':<5} {it['extractor']:<10} "
            f"{len(blocks):>6} {share:>8} {len(it['main_text']):>6}"
            + (f"  ({it['reason']})" if it["reason"] else "")
        )
    for page, override in ArticleSpider.page_overrides.items():
        print(f"  * meta['boilerplate'] for {page}: {override}")

    n_blocks = sum(len(it["blocks"]) for it in items)
    n_content = sum(b["label"] == CONTENT for it in items for b in it["blocks"])
    mean_len = sum(len(it["main_text"]) for it in items) / len(items) if items else 0.0
    print()
    print(f"Pages crawled:           {stats.get('response_received_count', 0)}")
    print(f"Items:                   {len(items)}")
    print(f"Mean main-text length:   {mean_len:,.0f} characters")
    if n_blocks:
        print(f"Blocks labelled content: {n_content} of {n_blocks} ({n_content / n_blocks:.1%})")
    errors = stats.get("spider_exceptions/count", 0) + stats.get("downloader/exception_count", 0)
    if errors:
        print(f"Errors:                  {errors} (run with --log-level INFO for details)")
    with_text = [it for it in items if it["main_text"]]
    if with_text:
        sample = max(with_text, key=lambda it: len(it["main_text"]))
        print(f"\nSample: {sample['url']}")
        text = sample["main_text"][:300]
        print("  " + " ".join(text.split()) + ("…" if len(sample["main_text"]) > 300 else ""))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    spider_cls = SPIDERS.get(args.extractor, ArticleSpider)

    # Settings given here have "cmdline" priority, above the spider's custom_settings:
    # they are only set when the command line asks for something the spider does not do.
    settings = Settings()
    settings.setdict(
        {
            "LOG_LEVEL": args.log_level.upper(),
            "TELNETCONSOLE_ENABLED": False,
            "ROBOTSTXT_OBEY": False,
            "FEEDS": {
                args.output.resolve().as_uri(): {
                    "format": "jsonlines",
                    "encoding": "utf8",
                    "overwrite": True,
                },
            },
        },
        priority="project",
    )
    own = spider_cls.custom_settings
    params = (
        dict(own["BOILERPLATE_PARAMS"]) if own["BOILERPLATE_EXTRACTOR"] == args.extractor else {}
    )
    params.update(args.params)
    if args.extractor != own["BOILERPLATE_EXTRACTOR"] or args.params:
        settings.set("BOILERPLATE_EXTRACTOR", args.extractor, priority="cmdline")
        settings.set("BOILERPLATE_PARAMS", params, priority="cmdline")

    # Fail early, with a readable message, on an unknown method or a bad threshold.
    try:
        extract("<html><body><p>probe</p></body></html>", extractor=args.extractor, **params)
    except (BoilerplateError, ImportError) as exc:
        print(f"crawl.py: extractor {args.extractor!r}: {exc}", file=sys.stderr)
        return 2

    args.output.parent.mkdir(parents=True, exist_ok=True)
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(spider_cls)
    items: list[dict[str, Any]] = []

    def collect(item: dict[str, Any], **_: Any) -> None:
        items.append(item)

    # Signal receivers are held by weak reference: ``collect`` lives as long as main() runs.
    crawler.signals.connect(collect, signal=signals.item_scraped)
    process.crawl(crawler)
    process.start()

    stats = crawler.stats.get_stats()
    summarize(items, stats, args.output, spider_cls.name, args.extractor)
    if not items:
        print("No items: nothing was extracted.", file=sys.stderr)
        return 1
    if stats.get("spider_exceptions/count") or stats.get("downloader/exception_count"):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
