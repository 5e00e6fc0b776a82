"""Run a script with the Python sources of the modules that setup.py compiles unchanged.

setup.py compiles some plain Python modules with Cython as they are (its
``COMPILED_MODULES``: the entity extractor's), and Python imports a built module in place
of its ``.py``. This runs a script as ``__main__`` with every such module loaded from its
``.py`` instead, so that both can be timed on the same machine, one after the other::

    python benchmarks/entities_stages.py --out A
    python benchmarks/python_sources.py benchmarks/entities_stages.py --out B

A report that names what it timed (``benchmarks/entities_stages.py`` does) then says
"Python sources". tests/test_entities_compiled.py uses the same loader to check that the
built modules rank every list as their sources do.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def compiled_module_names(setup: Path = ROOT / "setup.py") -> tuple[str, ...]:
    """``COMPILED_MODULES`` of setup.py as full module names (setup.py is read, not
    imported: importing it would run the build)."""
    tree = ast.parse(setup.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED_MODULES" for t in node.targets
        ):
            return tuple(f"scrapy_boilerplate.{n}" for n in ast.literal_eval(node.value))
    raise ValueError(f"{setup} defines no COMPILED_MODULES")


class Sources(importlib.abc.MetaPathFinder):
    """Finds each module of ``names`` as its ``.py`` in its package's folder, whatever
    else lies there."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = frozenset(names)

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self.names or not path:
            return None
        for folder in path:
            source = Path(folder) / (name.rpartition(".")[2] + ".py")
            if source.is_file():
                return importlib.util.spec_from_file_location(name, source)
        return None


def built_modules(names: Sequence[str] | None = None) -> list[str]:
    """The modules of ``names`` (default: setup.py's) that import as built modules rather
    than from their ``.py``."""
    names = compiled_module_names() if names is None else names
    return [n for n in names if not str(importlib.import_module(n).__file__).endswith(".py")]


def use_sources(names: Sequence[str] | None = None) -> Sources:
    """Make the modules of ``names`` (default: setup.py's) import from their ``.py``
    from now on; call it before anything imports them."""
    finder = Sources(compiled_module_names() if names is None else names)
    already = [n for n in finder.names if n in sys.modules]
    if already:
        raise RuntimeError(f"already imported: {', '.join(sorted(already))}")
    sys.meta_path.insert(0, finder)
    return finder


def main(argv: Sequence[str]) -> None:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        raise SystemExit(0 if argv else 2)
    use_sources()
    script = Path(argv[0])
    sys.argv = [str(script), *argv[1:]]
    sys.path.insert(0, str(script.resolve().parent))
    runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
