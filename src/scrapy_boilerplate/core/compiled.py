"""The optional compiled steps (``_speedups``, built by setup.py), in one place.

``step(name)`` gives the compiled twin of a Python function (``justext_segment``,
``find_removed``, ``blocks_from_segments``, ``cnr_tree_arrays``, ``cnr_label``,
``count_elements``, ``element_xpath``, ``markup_counts``, ``many_attributes``, ``utf8``),
or None where the module is not built or :data:`ENABLED` is False: the caller then runs its
Python function, which gives the same result. ``ENABLED = False`` turns every compiled step
off at once (the tests and ``benchmarks/cnr_speed.py`` compare the two).
"""

from __future__ import annotations

from typing import Any

#: Use the compiled steps where they are built.
ENABLED = True

try:  # _speedups imports the document model lazily, so importing it here makes no cycle
    from scrapy_boilerplate.core import _speedups
except ImportError:  # not built: every step runs in Python
    _speedups = None


class _NeverRaised(Exception):
    """Stands for ``_speedups.Unsupported`` where the module is not built."""


#: Raised by a compiled step on input its Python function must handle instead.
Unsupported: type[Exception] = _speedups.Unsupported if _speedups is not None else _NeverRaised


def built() -> bool:
    """Whether the compiled module is built (whatever :data:`ENABLED` says)."""
    return _speedups is not None


def step(name: str) -> Any:
    """The compiled function ``name``, or None (not built, or turned off)."""
    if _speedups is None or not ENABLED:
        return None
    return getattr(_speedups, name)


def call(name: str, python: Any, *args: Any) -> Any:
    """The compiled step ``name`` on ``args``; ``python(*args)``, its Python twin, where the
    step is not built, is turned off, or raises :data:`Unsupported` on this input."""
    compiled = step(name)
    if compiled is not None:
        try:
            return compiled(*args)
        except Unsupported:
            pass
    return python(*args)
