#!/usr/bin/env python
"""The example crawl: serve the Slow Atlas site locally, crawl it with scrapy-boilerplate.

    python examples/crawl.py [--spider NAME ...] [--output-dir DIR] [-s SETTING=VALUE ...]

The site in ``examples/site/`` is served on 127.0.0.1 (a free port, nothing leaves the
machine) and the spiders of the example project ``examples/slow_atlas`` crawl it:
``articles`` (the project's settings: jusText), ``cnr`` (another method and threshold
through ``custom_settings``) and ``per_request`` (overrides in ``Request.meta``). The
project enables the plugin with one line, ``ADDONS = {"scrapy_boilerplate.Addon": 0}``;
the spiders never call the extractor. Items go to ``examples/output/<spider>.jsonl``
(overwritten); a summary is printed per spider.

Exit status: 0 when every page gave an item with main text, 1 otherwise, 2 on a bad
argument or setting.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SITE = HERE / "site"
DEFAULT_OUTPUT = HERE / "output"
SPIDERS = ("articles", "cnr", "per_request", "focused")


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def serve(directory: Path) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``directory`` on 127.0.0.1 in a thread; returns the server and its base URL."""
    handler = partial(_QuietHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return server, f"http://{host}:{port}/"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--spider",
        action="append",
        choices=SPIDERS,
        help="spider to run (repeatable; default: all four)",
    )
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=DEFAULT_OUTPUT,
        help="where <spider>.jsonl files go (default: examples/output)",
    )
    parser.add_argument(
        "-s",
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Scrapy setting, e.g. -s BOILERPLATE_EXECUTION=process",
    )
    args = parser.parse_args(argv)
    args.settings = {}
    for item in args.set:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            parser.error(f"-s expects NAME=VALUE, got {item!r}")
        args.settings[name.strip()] = value
    return args


def summarize(
    spider: str, items: list[dict[str, Any]], stats: dict[str, Any], output: Path
) -> bool:
    """Print one spider's summary; True when every page gave an item with main text."""
    items = sorted(items, key=lambda it: it["url"])
    print(f"\nSpider {spider!r}: items written to {_show(output)}")
    print(f"  {'page':<26} {'lang':<5} {'extractor':<10} {'blocks':>6} {'content':>8} {'chars':>6}")
    for it in items:
        blocks = it["blocks"]
        n_content = sum(b["label"] == "content" for b in blocks)
        share = f"{n_content / len(blocks):.0%}" if blocks else "-"
        page = it["url"].rsplit("/", 1)[-1]
        print(
            f"  {page:<26} {it['language'] or '-':<5} {it['extractor']:<10} "
            f"{len(blocks):>6} {share:>8} {len(it['main_text']):>6}"
            + (f"  ({it['boilerplate_reason']})" if it["boilerplate_reason"] else "")
        )
    n_blocks = sum(len(it["blocks"]) for it in items)
    n_content = sum(b["label"] == "content" for it in items for b in it["blocks"])
    mean_len = sum(len(it["main_text"]) for it in items) / len(items) if items else 0.0
    pages = stats.get("response_received_count", 0)
    print(f"Pages crawled:           {pages}")
    print(f"Items:                   {len(items)}")
    print(f"Mean main-text length:   {mean_len:,.0f} characters")
    if n_blocks:
        print(f"Blocks labelled content: {n_content} of {n_blocks} ({n_content / n_blocks:.1%})")
    seconds = stats.get("boilerplate/seconds", 0.0)
    extracted = stats.get("boilerplate/pages", 0)
    if extracted:
        print(
            f"Extraction time:         {1000 * seconds / extracted:.1f} ms/page "
            f"({stats.get('boilerplate/max_seconds', 0) * 1000:.1f} ms at most)"
        )
    problems = {
        k: v
        for k, v in stats.items()
        if k.startswith(("boilerplate/errors/", "boilerplate/skipped/"))
    }
    for key, value in sorted(problems.items()):
        print(f"  {key}: {value}")
    with_lists = [it for it in items if it.get("entities")]
    if with_lists:  # every page's best list, right or wrong, with the model's probability
        print(f"Entities ({len(with_lists)} pages), the best list of each:")
        for it in sorted(with_lists, key=lambda it: it["url"]):
            page = it["url"].rsplit("/", 1)[-1]
            best = "; ".join(it["entities"][:3]) + ("; ..." if len(it["entities"]) > 3 else "")
            if len(best) > 90:
                best = best[:87] + "..."
            print(f"  {page:<26} {it['entity_candidates'][0]['score']:.2f}  {best}")
    with_text = [it for it in items if it["main_text"]]
    if with_text:
        sample = max(with_text, key=lambda it: len(it["main_text"]))
        print(f"Sample: {sample['url']}")
        text = " ".join(sample["main_text"][:300].split())
        print("  " + text + ("…" if len(sample["main_text"]) > 300 else ""))
    return bool(items) and len(with_text) == len(items) and pages == len(items)


def _show(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _bad_setting(failure: Any, failed: list[BaseException]) -> Any:
    """A crawl's start failed: keep a setting's error (said in one line at the end, not as
    a Twisted traceback), pass any other on."""
    from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError

    if failure.check(BoilerplateSettingsError):
        failed.append(failure.value)
        return None
    return failure


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str(HERE))  # the example project, wherever the command runs from
    os.environ["SCRAPY_SETTINGS_MODULE"] = "slow_atlas.settings"
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError, Config

    settings = get_project_settings()
    for name, value in args.settings.items():
        settings.set(name, value, priority="cmdline")
    args.output_dir.mkdir(parents=True, exist_ok=True)
    server, base_url = serve(SITE)
    print(f"Serving {_show(SITE)} at {base_url}")
    process = CrawlerProcess(settings)
    runs = []
    failed: list[BaseException] = []
    try:
        for name in args.spider or SPIDERS:
            output = args.output_dir / f"{name}.jsonl"
            crawler = process.create_crawler(name)
            # Checked here, where the error can be caught: CrawlerProcess would only meet
            # it inside the crawl's Deferred, and print a Twisted traceback.
            Config.from_settings(crawler.settings)
            crawler.settings.set(
                "FEEDS",
                {
                    output.resolve().as_uri(): {
                        "format": "jsonlines",
                        "encoding": "utf8",
                        "overwrite": True,
                    }
                },
                priority="cmdline",
            )
            items: list[dict[str, Any]] = []

            def collect(item: Any, items: list = items, **_: Any) -> None:
                from itemadapter import ItemAdapter

                items.append(ItemAdapter(item).asdict())

            crawler.signals.connect(collect, signal=signals.item_scraped, weak=False)
            started = process.crawl(crawler, base_url=base_url)
            started.addErrback(_bad_setting, failed)  # one found as the crawl starts
            runs.append((name, crawler, items, output))
        process.start()
    except BoilerplateSettingsError as exc:
        failed.append(exc)
    finally:
        server.shutdown()
    if failed:
        print(f"crawl.py: {failed[0]}", file=sys.stderr)
        return 2
    ok = True
    for name, crawler, items, output in runs:
        ok &= summarize(name, items, crawler.stats.get_stats(), output)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
