"""The entity extractor's modules compiled by Cython (setup.py's ``COMPILED_MODULES``)
against their Python sources.

Cython compiles these modules unchanged, so a built module must rank every list exactly as
its ``.py`` does: the same lists, in the same order, with the same scores to the bit. The
reference runs in a fresh interpreter that imports the ``.py`` sources of every such module
(``benchmarks/python_sources.py``). A built module older than its source is refused: it
would run the code as it was before the source was edited. Where the modules are not
built, the comparison skips, unless ``BOILERPLATE_REQUIRE_SPEEDUPS=1`` (set by .ci/run),
where it fails.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from python_sources import built_modules, compiled_module_names

ROOT = Path(__file__).resolve().parent.parent
PAGES = Path(__file__).parent / "pages"
SITE = ROOT / "examples" / "site"
MODULES = compiled_module_names()

#: Computes the rankings of :data:`CASES` and prints them as JSON (floats written exactly).
RANKINGS = """
import json, sys
NAMES = set(sys.argv[1].split(","))
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.entities.extract import PageCandidates, load_model, rank
model = load_model()
out = []
for path, query in json.loads(sys.argv[2]):
    html = open(path, encoding="utf-8", errors="replace").read()
    ranked = rank(PageCandidates(parse(html)), query, model)
    out.append([[s.hex(), list(c.entities), c.first, c.count, c.transform, list(c.notes)]
                for s, c in ranked])
files = sorted({m.__file__ for n, m in sys.modules.items() if n in NAMES})
print(json.dumps({"files": files, "rankings": out}))
"""

#: Pages and queries that reach every step: tables and lists (the paper's predicates),
#: lists read inside text (questions only), titles, and pages in other languages.
CASES: list[tuple[str, str]] = [
    (str(PAGES / "trails.html"), "hiking trails near baltimore"),
    (str(PAGES / "trails.html"), "Which trails are the longest?"),
    (str(PAGES / "forum_thread.html"), "Who replied in the thread?"),
    (str(PAGES / "news_article.html"), "related stories"),
    (str(PAGES / "recipe.html"), "What are the ingredients?"),
    (str(PAGES / "blog_comments.html"), "Who are the commenters?"),
    (str(SITE / "night-trains.html"), "Which articles are the most read this week?"),
    (str(SITE / "sauerteig.html"), "most read articles this week"),
    (str(SITE / "index.html"), "What are the sections of the site?"),
]


def _rankings(tmp_path: Path, python_sources: bool) -> dict[str, Any]:
    script = tmp_path / "rankings.py"
    script.write_text(RANKINGS, encoding="utf-8")
    runner = [str(ROOT / "benchmarks" / "python_sources.py")] if python_sources else []
    proc = subprocess.run(
        [sys.executable, *runner, str(script), ",".join(MODULES), json.dumps(CASES)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(proc.stdout)


def test_setup_names_real_modules() -> None:
    for name in MODULES:
        source = ROOT / "src" / Path(*name.split(".")).with_suffix(".py")
        assert source.is_file(), f"setup.py compiles {name}, which has no source {source}"


@pytest.mark.parametrize("name", MODULES)
def test_built_module_is_not_older_than_its_source(name: str) -> None:
    module = importlib.import_module(name)
    if module.__file__.endswith(".py"):
        pytest.skip(f"{name} is not built")
    source = Path(module.__file__).with_name(name.rsplit(".", 1)[1] + ".py")
    assert os.stat(module.__file__).st_mtime >= os.stat(source).st_mtime, (
        f"{module.__file__} was built before {source} was last changed: "
        "rebuild it (python setup.py build_ext --inplace, or pip install -e . again)"
    )


def test_compiled_modules_rank_as_their_sources(tmp_path: Path) -> None:
    built = built_modules(MODULES)
    if not built:
        if os.environ.get("BOILERPLATE_REQUIRE_SPEEDUPS") == "1":
            pytest.fail("the entity extractor's compiled modules are not built")
        pytest.skip("the entity extractor's compiled modules are not built")
    if os.environ.get("BOILERPLATE_REQUIRE_SPEEDUPS") == "1":
        assert built == list(MODULES), f"only {built} of {MODULES} are built"
    compiled = _rankings(tmp_path, python_sources=False)
    reference = _rankings(tmp_path, python_sources=True)
    # each side ran what it was meant to: the built modules, and the sources
    assert not any(f.endswith(".py") for f in compiled["files"]), compiled["files"]
    assert all(f.endswith(".py") for f in reference["files"]), reference["files"]
    assert len(reference["files"]) == len(MODULES)
    assert all(reference["rankings"]), "a case ranked no list"
    for case, got, want in zip(CASES, compiled["rankings"], reference["rankings"], strict=True):
        assert got == want, f"{case}: the compiled modules rank differently"
