"""One worker of tests/test_distributed.py: the example's ``atlas`` spider, unchanged.

    python tests/distributed_worker.py ITEMS.jsonl STATS.json [-s NAME=VALUE ...]

It runs examples/distributed/ (its settings, then the ``-s`` overrides) with a JSON lines
feed to ITEMS.jsonl, and one more pipeline that checks every item holds only plain JSON
types (dict with str keys, list, str, int, float, bool, None: no numpy scalar, which a
JSON encoder may let through as a float subclass). The crawl's stats and the type
problems found go to STATS.json. Exit status: 0, or 1 when an item held another type.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, ClassVar

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "distributed"
_JSON_SCALARS = (str, int, float, bool, type(None))


def non_json(value: Any, path: str = "item") -> list[str]:
    """Where ``value`` holds something other than exact JSON types, with the type found."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return []
    if kind is list:
        return [p for i, v in enumerate(value) for p in non_json(v, f"{path}[{i}]")]
    if kind is dict:
        found = [f"{path}: key {k!r}" for k in value if type(k) is not str]
        return found + [p for k, v in value.items() for p in non_json(v, f"{path}[{k!r}]")]
    return [f"{path}: {kind.__module__}.{kind.__qualname__}"]


class PlainJsonCheck:
    """Records every value of an item that is not an exact JSON type."""

    problems: ClassVar[list[str]] = []

    def process_item(self, item: Any, spider: Any = None) -> Any:
        from itemadapter import ItemAdapter

        adapter = ItemAdapter(item)
        url = adapter.get("url")
        self.problems.extend(f"{url}: {p}" for p in non_json(adapter.asdict()))
        return item


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", type=Path)
    parser.add_argument("stats", type=Path)
    parser.add_argument("-s", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    items_path, stats_path = args.items.resolve(), args.stats.resolve()
    sys.path.insert(0, str(EXAMPLE))
    os.environ["SCRAPY_SETTINGS_MODULE"] = "atlas_redis.settings"
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    settings = get_project_settings()
    for pair in args.s:
        name, sep, value = pair.partition("=")
        if not sep:
            parser.error(f"-s expects NAME=VALUE, got {pair!r}")
        settings.set(name, value, priority="cmdline")
    settings.set(
        "FEEDS",
        {items_path.as_uri(): {"format": "jsonlines", "encoding": "utf8", "overwrite": True}},
        priority="cmdline",
    )
    pipelines = settings.getdict("ITEM_PIPELINES")
    pipelines[PlainJsonCheck] = 1000
    settings.set("ITEM_PIPELINES", pipelines, priority="cmdline")

    process = CrawlerProcess(settings)
    crawler = process.create_crawler("atlas")
    process.crawl(crawler)
    process.start()
    stats = dict(crawler.stats.get_stats())
    stats["plain_json_problems"] = PlainJsonCheck.problems
    stats_path.write_text(json.dumps(stats, default=str, indent=1), encoding="utf-8")
    return 1 if PlainJsonCheck.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
