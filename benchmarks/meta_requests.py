#!/usr/bin/env python
"""What reading a hostile ``meta["boilerplate"]`` costs the reactor thread.

    python benchmarks/meta_requests.py [--calls N]

``Config.for_request`` runs on the reactor thread for every request that carries
``meta["boilerplate"]``. For each hostile meta (an import path, file paths, values that
break conversion), the outcome and the time per call, the method already imported; then
the time of one call naming a Web2Text model file not loaded yet (a copy of the shipped
model, listed in ``BOILERPLATE_META_FILES``): nothing may be loaded there.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from scrapy_boilerplate.extractors.web2text import model
from scrapy_boilerplate.scrapy.config import Config

HOSTILE: dict[str, dict[str, Any]] = {
    "extractor=json:loads": {"extractor": "json:loads"},
    "layout=/etc/passwd": {"extractor": "vips", "params": {"layout": "/etc/passwd"}},
    "model=/etc/passwd": {"extractor": "web2text", "params": {"model": "/etc/passwd"}},
    "model=/proc/self/environ": {
        "extractor": "web2text",
        "params": {"model": "/proc/self/environ"},
    },
    "stopwords_low=10**400": {"params": {"stopwords_low": 10**400}},
    "params={1: 2, 'a': 3}": {"params": {1: 2, "a": 3}},
}


def _outcome(config: Config, meta: dict[str, Any]) -> str:
    try:
        config.for_request({"boilerplate": meta})
    except Exception as exc:
        return type(exc).__name__
    return "accepted"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    args = parser.parse_args()
    config = Config()
    print("| meta | outcome | µs per call |\n| --- | --- | ---: |")
    for name, meta in HOSTILE.items():
        _outcome(config, meta)  # imports the method
        start = time.perf_counter()
        for _ in range(args.calls):
            outcome = _outcome(config, meta)
        seconds = (time.perf_counter() - start) / args.calls
        print(f"| `{name}` | {outcome} | {seconds * 1e6:.1f} |")

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "listed.onnx"
        shutil.copy(model.DEFAULT_MODEL, copy)
        listed = Config(meta_files=frozenset({str(copy)}))
        _outcome(listed, {"extractor": "web2text"})
        start = time.perf_counter()
        outcome = _outcome(listed, {"extractor": "web2text", "params": {"model": str(copy)}})
        seconds = time.perf_counter() - start
        print(f"\nA listed model file not loaded yet: {outcome}, {seconds * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
