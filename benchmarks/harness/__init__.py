"""Benchmark harness: quality and speed of our extractors against peers on public datasets.

Run it with ``python benchmarks/run.py`` (see
``benchmarks/README.md``). Modules: :mod:`.metrics` (scores), :mod:`.goldblocks` (gold
blocks), :mod:`.datasets` (loaders), :mod:`.peers` (extractors), :mod:`.evaluate` (per-page
scoring and summaries), :mod:`.report` and :mod:`.chart` (output), :mod:`.runner` (CLI).
Nothing here is imported by the rest of the package.
"""
