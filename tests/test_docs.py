"""The documentation says what the code does: every sub-command, format, method, setting and
stats key is written down, and shipped files speak to a user (no paths outside the
repository, no work items)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

import scrapy_boilerplate
from scrapy_boilerplate import cli
from scrapy_boilerplate.core import registry
from scrapy_boilerplate.scrapy import config

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PACKAGE = Path(scrapy_boilerplate.__file__).resolve().parent


def _read(name: str) -> str:
    return (DOCS / name).read_text("utf-8")


def _subcommands() -> list[str]:
    specs, _ = cli.load_specs()
    parser, _ = cli.build_parser(specs)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def test_cli_doc_names_every_sub_command_format_and_method() -> None:
    text = _read("cli.md")
    missing = [f"sub-command {c}" for c in _subcommands() if f"`{c}" not in text]
    missing += [f"format {f}" for f in cli.FORMATS if f"`{f}`" not in text]
    missing += [f"method {m}" for m in registry.BUILTIN if f"`{m}`" not in text]
    assert not missing, f"docs/cli.md does not name: {', '.join(missing)}"


def test_the_removed_bench_command_is_not_documented() -> None:
    assert "bench" not in _subcommands()
    for name in ("cli.md", "usage.md", "settings.md"):
        assert "scrapy-boilerplate bench" not in _read(name), name
    assert "scrapy-boilerplate bench" not in (ROOT / "README.md").read_text("utf-8")


def test_settings_doc_names_every_setting_and_every_method() -> None:
    text = _read("settings.md")
    missing = [name for name in config.DEFAULTS if f"`{name}`" not in text]
    assert not missing, f"docs/settings.md does not document {missing}"
    row = next(line for line in text.splitlines() if line.startswith("| `BOILERPLATE_EXTRACTOR`"))
    assert all(f"`{m}`" in row for m in registry.BUILTIN), row


def _stat_families() -> set[str]:
    """The first part of every stats key the Scrapy glue counts (``errors``, ``empty``...)."""
    families = set()
    pattern = re.compile(r"\.(?:inc|max|problem)\(\s*f?\"([a-z_]+)(?:/([a-z_]+))?")
    for path in (PACKAGE / "scrapy").glob("*.py"):
        for first, second in pattern.findall(path.read_text("utf-8")):
            families.add(f"{first}/{second}" if first == "entities" and second else first)
    return families


def test_usage_doc_has_every_stats_key() -> None:
    families = _stat_families()
    assert {"pages", "errors", "empty", "skipped", "decoded", "entities/pages"} <= families
    text = _read("usage.md")
    missing = [f for f in sorted(families) if f"`boilerplate/{f}" not in text]
    assert not missing, f"docs/usage.md's stats table lacks boilerplate/{missing}"


def _shipped_text_files() -> list[Path]:
    suffixes = {".py", ".pyx", ".pyi", ".md", ".txt"}
    return [
        p
        for p in PACKAGE.rglob("*")
        if p.suffix in suffixes and "stoplists" not in p.parts and "__pycache__" not in p.parts
    ]


@pytest.mark.parametrize(
    "pattern",
    [r"\.\./shared", r"/work/", r"\bthe issue\b", r"issue's"],
    ids=["shared", "machine-path", "the-issue", "issues-target"],
)
def test_shipped_files_and_docs_speak_to_a_user(pattern: str) -> None:
    found = []
    files = [*_shipped_text_files(), *DOCS.glob("*.md")]
    for path in files:
        for n, line in enumerate(path.read_text("utf-8", errors="replace").splitlines(), 1):
            if re.search(pattern, line, re.I):
                found.append(f"{path.relative_to(ROOT)}:{n}")
    assert not found, found
