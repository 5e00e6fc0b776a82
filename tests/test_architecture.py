"""The package's layers, and the direction its imports go.

``core`` is the Scrapy-free base; ``extractors`` (each method on its own) and ``entities``
build on it; the ``scrapy`` glue builds on ``core`` and ``entities`` and names no method;
the command line sits on top. Every import in the package, at module level or inside a
function, is checked against this map, and the core is run in a Python that cannot import
Scrapy.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import scrapy_boilerplate

PACKAGE = Path(scrapy_boilerplate.__file__).resolve().parent
NAME = "scrapy_boilerplate"

#: What each layer may import from the package (its own layer is always allowed, but a
#: method may not import another method).
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "extractors": {"core"},
    "entities": {"core"},
    # auto weighs every method's evidence: it reads the methods, and no method reads it
    "auto": {"core", "extractors"},
    "scrapy": {"core", "entities"},
    # batch extraction over stored crawls: Scrapy-free, it reads Scrapy's cache from its files
    "batch": {"core"},
    "cli": {"core", "extractors", "entities", "auto", "scrapy", "batch", ""},
    "": {"core", "scrapy", "entities", "cli"},  # __init__ (lazy names), __main__
}
#: Methods the core knows nothing of: what they record on the core's walk, and their
#: compiled steps, live in their package (extractors/<method>/), which the walk calls
#: through its generic recorder protocol (document.WalkRecorder, _speedups.pxd).
UNKNOWN_TO_THE_CORE = ("cnr",)
#: Third-party packages of the Scrapy stack, out of bounds below the glue.
SCRAPY_STACK = {"scrapy", "twisted", "itemadapter", "scrapy_playwright", "scrapy_redis"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (absolute names), with its line."""
    tree = ast.parse(path.read_text("utf-8"))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.append((node.lineno, base))
            # ``from scrapy_boilerplate.core import document`` imports a module too
            out += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return out


def _layer(module: str) -> tuple[str, str]:
    """(layer, the method or sub-package within it) of a module of the package."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in ("__main__",):
        return "", ""
    if parts[0] not in ALLOWED:
        return "?", parts[0]
    return parts[0], parts[1] if len(parts) > 1 else ""


def _package_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_belongs_to_a_layer() -> None:
    strays = [
        _module_name(p) for p in _package_files() if _layer(_module_name(p))[0] not in ALLOWED
    ]
    assert strays == []


@pytest.mark.parametrize("path", _package_files(), ids=lambda p: _module_name(p))
def test_imports_only_go_down(path: Path) -> None:
    module = _module_name(path)
    layer, method = _layer(module)
    wrong = []
    for line, name in _imports(path):
        top = name.split(".")[0]
        if top in SCRAPY_STACK and layer in ("core", "extractors", "entities", "batch"):
            wrong.append(f"line {line}: {name} (the Scrapy stack, below the glue)")
        if top != NAME or (name == NAME and layer == ""):
            continue
        if name == NAME:
            if layer not in ("cli", ""):
                wrong.append(f"line {line}: the package's public face, from inside {layer}")
            continue
        target, target_method = _layer(name)
        if target == "?":  # ``from scrapy_boilerplate import extract``: a name, not a module
            if layer not in ("cli", ""):
                wrong.append(f"line {line}: {name} (the public face) from inside {layer}")
            continue
        if target == layer:
            if layer == "extractors" and method and target_method and target_method != method:
                wrong.append(f"line {line}: {name} (another method)")
            continue
        if target not in ALLOWED[layer]:
            wrong.append(f"line {line}: {name} ({layer} may not import {target})")
    assert not wrong, f"{module} imports against the layers: " + "; ".join(wrong)


def _private_imports(path: Path) -> list[str]:
    """Names with a leading underscore imported from another module of the package (the
    compiled module ``_speedups`` excepted: it is private to the package, not to a module)."""
    tree = ast.parse(path.read_text("utf-8"))
    module = _module_name(path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(NAME):
            if node.module == module:
                continue
            for alias in node.names:
                if (
                    alias.name.startswith("_")
                    and not alias.name.endswith("__")
                    and alias.name != "_speedups"
                ):
                    out.append(f"line {node.lineno}: {node.module}.{alias.name}")
    return out


@pytest.mark.parametrize("path", _package_files(), ids=lambda p: _module_name(p))
def test_no_module_imports_another_modules_private_names(path: Path) -> None:
    assert not _private_imports(path)


def _core_sources() -> list[Path]:
    core = PACKAGE / "core"
    return sorted(p for ext in ("py", "pyi", "pyx", "pxd") for p in core.glob(f"*.{ext}"))


def _names_of(path: Path) -> list[str]:
    """The identifiers of a core source: a Python module's names (variables, functions,
    classes, attributes, arguments, imports); every word of a Cython source (its comments
    and docstrings included)."""
    text = path.read_text("utf-8")
    if path.suffix not in (".py", ".pyi"):
        return re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)
    names = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.arg):
            names.append(node.arg)
        elif isinstance(node, ast.alias):
            names += [node.name, node.asname or ""]
        elif isinstance(node, ast.keyword) and node.arg:
            names.append(node.arg)
    return names


@pytest.mark.parametrize("path", _core_sources(), ids=lambda p: p.name)
def test_the_core_names_no_method_it_serves(path: Path) -> None:
    """The core's walk records nothing for a method: no identifier of the core names one
    (the registry names every method in strings: its lazy import paths)."""
    found = sorted({n for n in _names_of(path) for m in UNKNOWN_TO_THE_CORE if m in n.lower()})
    assert not found, f"core/{path.name} names {', '.join(found)}"


def test_the_check_sees_a_method_in_the_core() -> None:
    stray = PACKAGE / "core" / "_method_probe.py"
    stray.write_text('"""Docstrings may cite CNR."""\n\ndef walk(cnr_nodes=None):\n    pass\n')
    pyx = PACKAGE / "core" / "_method_probe.pyx"
    pyx.write_text("cdef int _F_SKIP = 32  # CNR's nonContentNode tags\n")
    try:
        with pytest.raises(AssertionError, match="names cnr_nodes"):
            test_the_core_names_no_method_it_serves(stray)
        with pytest.raises(AssertionError, match="names CNR"):
            test_the_core_names_no_method_it_serves(pyx)
    finally:
        stray.unlink()
        pyx.unlink()


def test_the_check_sees_a_wrong_import(tmp_path: Path) -> None:
    # The map above is only worth something if a wrong import is caught.
    stray = PACKAGE / "core" / "_layer_probe.py"
    stray.write_text("from scrapy_boilerplate.scrapy import config\nimport scrapy\n")
    try:
        with pytest.raises(AssertionError) as info:
            test_imports_only_go_down(stray)
    finally:
        stray.unlink()
    assert "core may not import scrapy" in str(info.value)
    assert "the Scrapy stack" in str(info.value)


_WITHOUT_SCRAPY = """
import importlib.abc, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"scrapy", "twisted", "itemadapter", "parsel"}:
            raise ImportError(f"{name} is not installed here")
        return None

sys.meta_path.insert(0, Refuse())
import scrapy_boilerplate
from scrapy_boilerplate import extract, available
words = "Words of a sentence in a paragraph. " * 20
page = f"<html><body><h1>Title</h1><p>{words}</p></body></html>"
for name in ("justext", "cnr", "web2text", "vips"):
    result = extract(page, name)
    assert result.reason is None and "Words of a" in result.main_text, (name, result.reason)
entities = scrapy_boilerplate.extract_entities(page, "titles")
assert not any(m.split(".")[0] in {"scrapy", "twisted", "itemadapter"} for m in sys.modules)
print("ok", sorted(available()))
"""


def test_the_core_and_every_method_run_without_scrapy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_SCRAPY],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ok ")


def test_the_default_method_is_named_once() -> None:
    # extract(), the crawl's setting and the command line all read registry's constant.
    import inspect

    from scrapy_boilerplate import cli, extract
    from scrapy_boilerplate.core import registry
    from scrapy_boilerplate.scrapy import config

    assert inspect.signature(extract).parameters["extractor"].default == registry.DEFAULT_EXTRACTOR
    assert config.BOILERPLATE_EXTRACTOR == registry.DEFAULT_EXTRACTOR
    assert config.Config().extractor == registry.DEFAULT_EXTRACTOR
    specs, _ = cli.load_specs()
    parser, _ = cli.build_parser(specs)
    args = parser.parse_args(["extract", "page.html"])
    assert args.extractor == registry.DEFAULT_EXTRACTOR
