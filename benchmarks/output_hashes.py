"""Fingerprints of every method's output on the datasets, to show a change kept them.

Each method's ``to_dict()`` on every page of the main-content datasets is serialised (keys
sorted) and hashed; ``--out FILE`` writes ``{dataset/page: {method: sha256}}``, and
``--compare FILE`` reports every page whose output differs from a file written before the
change, saying which keys of ``to_dict()`` differ (VIPS's step ``timings`` are left out:
they change from run to run). A refactor that changes no output reports no difference.

    python benchmarks/output_hashes.py --out /tmp/before.json
    ... change the code ...
    python benchmarks/output_hashes.py --compare /tmp/before.json

Needs the datasets unpacked (``../shared/data/unpack datasets``); says so when they are
missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from scrapy_boilerplate import extract

DATASETS = (
    "cleaneval",
    "google-trends-2017",
    "l3s-gn1",
    "readability-testpages",
    "trafilatura-eval",
    "wcxb-dev",
)
METHODS = ("justext", "cnr", "web2text", "vips")
#: Keys of ``to_dict()`` that differ from run to run (VIPS's step timings): left out.
VOLATILE = frozenset({"timings"})


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprints(root: Path, stride: int, methods: tuple[str, ...]) -> dict[str, Any]:
    """``{dataset/page: {method: {"all": hash, key: hash, ...}}}`` over the pages found."""
    out: dict[str, Any] = {}
    for name in DATASETS:
        folder = root / name
        pages = sorted(folder.glob("*.html"))
        pages = [p for p in pages if p.name.count(".") == 1][::stride]
        for page in pages:
            html = page.read_text("utf-8", errors="replace")
            row: dict[str, Any] = {}
            for method in methods:
                result = extract(html, method).to_dict()
                kept = {k: v for k, v in result.items() if k not in VOLATILE}
                row[method] = {"all": _digest(kept), **{k: _digest(v) for k, v in kept.items()}}
            out[f"{name}/{page.stem}"] = row
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("datasets"))
    parser.add_argument("--out", type=Path, help="write the fingerprints here")
    parser.add_argument("--compare", type=Path, help="compare with fingerprints written before")
    parser.add_argument("--stride", type=int, default=1, help="every N-th page only")
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args(argv)
    if not any((args.data / name).is_dir() for name in DATASETS):
        print(f"no datasets under {args.data}: run ../shared/data/unpack {args.data}")
        return 2
    methods = tuple(m for m in args.methods.split(",") if m)
    now = fingerprints(args.data, args.stride, methods)
    results = sum(len(row) for row in now.values())
    print(f"{len(now)} pages, {results} results")
    if args.out:
        args.out.write_text(json.dumps(now, sort_keys=True))
    if args.compare:
        before = json.loads(args.compare.read_text())
        differ: dict[str, int] = {}
        changed = 0
        for page, row in now.items():
            for method, hashes in row.items():
                old = before.get(page, {}).get(method)
                if old is None:
                    continue
                keys = (set(old) | set(hashes)) - VOLATILE - {"all"}
                wrong = sorted(k for k in keys if old.get(k) != hashes.get(k))
                if not wrong:
                    continue
                changed += 1
                for key in wrong:
                    differ[f"{method}: {key}"] = differ.get(f"{method}: {key}", 0) + 1
        print(f"{changed} of {results} results differ")
        for what, n in sorted(differ.items()):
            print(f"  {what}: {n}")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
