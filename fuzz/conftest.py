"""Prints how many examples each hypothesis fuzz test ran (fuzz/hypothesis_fuzz.py)."""

from __future__ import annotations

import sys
from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    module = sys.modules.get("hypothesis_fuzz")
    if module is None or not module.EXAMPLES:
        return
    terminalreporter.section("fuzz examples")
    terminalreporter.write_line(
        f"profile={module.PROFILE} seconds={module.SECONDS:g} (whole module, long profile)"
    )
    for name, count in sorted(module.EXAMPLES.items()):
        rounds = module.ROUNDS.get(name, 0)
        terminalreporter.write_line(f"{name}: {count} examples in {rounds} rounds")
