"""Where the benchmark scripts write their reports: only into the folder ``--out`` names.

Every script prints its report; without ``--out`` it writes nothing, so a run on another
checkout, another machine or a subset of the data never overwrites the committed reports in
``benchmarks/results`` nor creates that folder under the working directory.
``tox -e bench`` passes ``--out benchmarks/results`` to refresh them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

OUT_HELP = (
    "folder to write the report files into (e.g. benchmarks/results, where the committed "
    "ones are); without it the report is printed and nothing is written"
)


def add_out(parser: argparse.ArgumentParser, files: str) -> None:
    """Add ``--out DIR`` (default: None, write nothing) to ``parser``; ``files`` names what
    the script writes there, for the help."""
    parser.add_argument(
        "--out", type=Path, default=None, metavar="DIR", help=f"{OUT_HELP} (writes {files})"
    )


def write_reports(out: Path | None, files: dict[str, str]) -> list[Path]:
    """Write ``{file name: text}`` into ``out`` (created if needed) and say so on stderr;
    nothing when ``out`` is None. The paths written."""
    if out is None:
        return []
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in files.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    print("wrote " + ", ".join(str(p) for p in paths), file=sys.stderr)
    return paths
