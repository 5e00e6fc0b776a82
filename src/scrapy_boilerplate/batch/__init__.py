"""Batch extraction over stored crawls: WARC files, Scrapy's HTTP cache, JSON lines and
folders of HTML files, in worker processes, into JSON lines or Parquet (``scrapy-boilerplate
batch``; docs/batch.md).

Scrapy-free: it reads Scrapy's cache from its files and imports only the core. WARC files
need FastWARC and Parquet needs pyarrow (``pip install 'scrapy-boilerplate[batch]'``).

One output record per page, the same as a loop over :func:`~scrapy_boilerplate.extract`
gives (:func:`page_record`)::

    from scrapy_boilerplate.batch import BatchOptions, run_batch
    summary = run_batch(["crawl.warc.gz"], "pages.jsonl", BatchOptions(extractor="auto"))
"""

from __future__ import annotations

from scrapy_boilerplate.batch.output import OUTPUT_FORMATS, done_keys
from scrapy_boilerplate.batch.run import (
    BLOCKS_MODES,
    MAX_BODY_SIZE,
    TIMEOUT,
    BatchOptions,
    Summary,
    default_workers,
    page_record,
    process_file,
    run_batch,
    skipped_record,
)
from scrapy_boilerplate.batch.sources import (
    INPUT_FORMATS,
    TRUNCATED,
    UNREADABLE,
    InputProblem,
    Record,
    read,
)

__all__ = [
    "BLOCKS_MODES",
    "INPUT_FORMATS",
    "MAX_BODY_SIZE",
    "OUTPUT_FORMATS",
    "TIMEOUT",
    "TRUNCATED",
    "UNREADABLE",
    "BatchOptions",
    "InputProblem",
    "Record",
    "Summary",
    "default_workers",
    "done_keys",
    "page_record",
    "process_file",
    "read",
    "run_batch",
    "skipped_record",
]
