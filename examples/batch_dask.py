"""Batch extraction of WARC files on a Dask cluster: one task per WARC file, one JSON lines
file (or Parquet folder) per input, the same records as ``scrapy-boilerplate batch``.

    python examples/batch_dask.py crawl-*.warc.gz --out-dir extracted/
    python examples/batch_dask.py crawl-*.warc.gz --out-dir extracted/ --scheduler tcp://host:8786

Without ``--scheduler`` it starts a ``distributed.LocalCluster`` on this machine (one
worker process per CPU, one thread each: extraction holds the GIL). Every task runs
:func:`scrapy_boilerplate.batch.process_file`, which resumes its output file: a task run
again after a lost worker, or the whole script run again after a crash, writes no record
twice. Each worker needs scrapy-boilerplate installed with the ``batch`` extra and the
WARC files at the same path (a shared file system, or object storage mounted there).
See docs/batch.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from scrapy_boilerplate.batch import BatchOptions, Summary, process_file


def output_path(warc: str | Path, out_dir: str | Path, fmt: str = "jsonl") -> Path:
    """The output of one input: ``OUT_DIR/NAME.jsonl`` (or the Parquet folder
    ``OUT_DIR/NAME.parquet``), NAME being the input's file name."""
    return Path(out_dir) / f"{Path(warc).name}.{'parquet' if fmt == 'parquet' else 'jsonl'}"


def extract_warcs(
    client: Any, warcs: list[str], out_dir: str | Path, options: BatchOptions
) -> dict[str, Any]:
    """Run one task per WARC file on ``client``'s cluster; the summaries added up (with
    each file's own under ``files``)."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    outs = [str(output_path(w, out_dir, options.format)) for w in warcs]
    # pure=False: a file is processed again when asked again (its output resumes)
    futures = client.map(process_file, warcs, outs, options=options, pure=False)
    files = client.gather(futures)
    total = Summary()
    for part in files:
        total.merge(part)
    out = total.to_dict()
    out["files"] = dict(zip(warcs, files, strict=True))
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, start (or join) a cluster, process the WARC files."""
    from dask.distributed import Client, LocalCluster

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warcs", nargs="+", help="WARC / WARC.gz files")
    parser.add_argument("--out-dir", required=True, help="one output per input goes here")
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    parser.add_argument("-e", "--extractor", default="auto")
    parser.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl")
    parser.add_argument("--metadata", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--blocks", choices=("content", "all", "none"), default="content")
    args = parser.parse_args(argv)
    options = BatchOptions(
        extractor=args.extractor,
        format=args.format,
        metadata=args.metadata,
        markdown=args.markdown,
        blocks=args.blocks,
    )
    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(threads_per_worker=1)
        client = Client(cluster)
    try:
        summary = extract_warcs(client, args.warcs, args.out_dir, options)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    for name, part in summary.pop("files").items():
        print(f"{name}: {part['records']} records, {part['extracted']} extracted", file=sys.stderr)
    print(summary, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
