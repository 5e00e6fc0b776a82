"""The atheris seed corpus: real pages, each behind the header bytes that pick an entry point.

An atheris input is ``[target] [content-type] [extractor] page...``: byte 0 picks the
entry point (see ``atheris_fuzz.TARGETS``), bytes 1 and 2 are read only by the Scrapy
targets (the ``Content-Type`` and the extractor), the rest is the page. The seeds are
tests/pages/**/*.html (ours, committed; every target gets each of them) and, when the
datasets are unpacked in ./datasets (``../shared/data/unpack datasets``), a
deterministic sample of their pages (one target each). They are written to a
git-ignored work directory at run time, never into the repository.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "fuzz" / ".work"
DATASETS = REPO / "datasets"
OUR_PAGES = REPO / "tests" / "pages"

#: How many entry points byte 0 chooses from (kept in step with atheris_fuzz.TARGETS).
N_TARGETS = 15
#: Dataset pages taken per dataset directory.
PER_DATASET = 16


def _sample(paths: list[Path], n: int) -> list[Path]:
    """``n`` paths, the same ones on every machine (ordered by a hash of the name)."""
    keyed = sorted(paths, key=lambda p: hashlib.sha1(str(p).encode()).hexdigest())
    return keyed[:n]


def dataset_pages(per_dataset: int = PER_DATASET) -> list[Path]:
    """A sample of the unpacked datasets' pages; [] when ./datasets is missing."""
    if not DATASETS.is_dir():
        return []
    out: list[Path] = []
    for directory in sorted(p for p in DATASETS.iterdir() if p.is_dir()):
        pages = [
            p
            for p in directory.rglob("*.htm*")
            if p.is_file() and not p.name.endswith((".annotated.html", ".dom.html"))
        ]
        out.extend(_sample(pages, per_dataset))
    return out


def build_corpus(dest: Path, max_len: int = 65536, per_dataset: int = PER_DATASET) -> dict:
    """Write the seeds into ``dest`` (created); returns counts for the log."""
    dest.mkdir(parents=True, exist_ok=True)
    ours = sorted(OUR_PAGES.rglob("*.html"))
    theirs = dataset_pages(per_dataset)
    written = 0

    def write(target: int, page: bytes) -> None:
        nonlocal written
        data = bytes([target, target * 7 % 251, target * 3 % 251]) + page[: max_len - 3]
        name = hashlib.sha1(data).hexdigest()
        path = dest / name
        if not path.exists():
            path.write_bytes(data)
            written += 1

    for page_path in ours:
        page = page_path.read_bytes()
        for target in range(N_TARGETS):
            write(target, page)
    for i, page_path in enumerate(theirs):
        write(i % N_TARGETS, page_path.read_bytes())
    return {
        "our_pages": len(ours),
        "dataset_pages": len(theirs),
        "datasets_present": DATASETS.is_dir(),
        "written": written,
    }
