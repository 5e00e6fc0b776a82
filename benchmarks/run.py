"""Run the benchmark: ``python benchmarks/run.py --help`` (same as ``scrapy-boilerplate bench``)."""

from scrapy_boilerplate.benchmark.runner import main

if __name__ == "__main__":
    raise SystemExit(main(prog="benchmarks/run.py"))
