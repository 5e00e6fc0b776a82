"""Run the benchmark: ``python benchmarks/run.py --help``."""

from harness.runner import main

if __name__ == "__main__":
    raise SystemExit(main(prog="benchmarks/run.py"))
