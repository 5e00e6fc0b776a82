"""The optional compiled steps (``_speedups``, built by setup.py), in one place.

A compiled step is the twin of a Python function, its reference: the same result, faster.
The reference declares its twin with :func:`twin`::

    @twin("find_removed")
    def find_removed(root): ...

``find_removed`` is then a dispatcher: it runs ``_speedups.find_removed`` where the module
is built and :data:`ENABLED` is True, and the reference (``find_removed.python``) where it
is not, or where the compiled step raises :data:`Unsupported` on this input (a tree it was
not written for). The core's twins (in ``core/_speedups.pyx``): ``justext_segment``,
``find_removed``, ``count_elements``, ``elements_named`` and ``block_elements``
(core/document.py), ``utf8``, ``count_tags`` and ``attributes_over`` (``parse``'s checks),
``blocks_from_segments`` (core/result.py), ``attribute_candidates`` (core/metadata.py),
``image_walk``, ``match_nodes``, ``content_parent`` and ``follow_steps``
(core/render.py), ``ngram_counts`` (core/language.py), ``context_sensitive``
(jusText's context-sensitive pass, extractors/justext/algorithm.py), ``recipe_names``
(the entity lists' feature recipe, entities/features.py) and ``ranker_leaves`` (the
re-ranker's trees, entities/rerank.py). A method's own
compiled steps are in its package's compiled module (``module=`` names it), built the same way.
``ENABLED = False``, or ``with disabled():``, turns every twin off at once (the tests and
the speed benchmarks compare the two ways).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, Protocol, TypeVar, cast

#: Use the compiled steps where they are built (read on every call of a twin).
ENABLED = True

try:  # _speedups imports the document model lazily, so importing it here makes no cycle
    from scrapy_boilerplate.core import _speedups
except ImportError:  # not built: every step runs in Python
    _speedups = None


class _NeverRaised(Exception):
    """Stands for ``_speedups.Unsupported`` where the module is not built."""


#: Raised by a compiled step on input its Python function must handle instead.
Unsupported: type[Exception] = _speedups.Unsupported if _speedups is not None else _NeverRaised

#: The core's compiled module.
CORE_MODULE = "scrapy_boilerplate.core._speedups"

P = ParamSpec("P")
R = TypeVar("R")


class Twin(Protocol[P, R]):
    """A Python function with its compiled twin: called like the function (see :func:`twin`)."""

    #: The Python function: the reference, and the fallback.
    python: Callable[P, R]
    #: The compiled step's name in its module.
    compiled_name: str
    #: The compiled step's module (full name): the core's ``_speedups``, or a method's.
    compiled_module: str
    #: The compiled step, or None where the module is not built or lacks it.
    compiled: Callable[..., Any] | None
    #: What runs before the fallback when the compiled step raises :data:`Unsupported`.
    on_unsupported: Callable[..., object] | None

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...


def built() -> bool:
    """Whether the compiled module is built (whatever :data:`ENABLED` says)."""
    return _speedups is not None


def load(module: str) -> Any:
    """The compiled module ``module`` (a method's, by its full name), or None where it is not
    built (a method's module needs the core's: it subclasses its walk recorder)."""
    if _speedups is None:
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


@contextmanager
def disabled() -> Iterator[None]:
    """Every twin runs its Python function inside the block (sets :data:`ENABLED` for the
    whole process, so not for use while other threads extract)."""
    global ENABLED
    before = ENABLED
    ENABLED = False
    try:
        yield
    finally:
        ENABLED = before


def twin(
    name: str,
    *,
    on_unsupported: Callable[..., object] | None = None,
    arguments: Callable[..., tuple[Any, ...]] | None = None,
    module: str | None = None,
) -> Callable[[Callable[P, R]], Twin[P, R]]:
    """Declare the decorated Python function the reference of the compiled step ``name``.

    The step is ``_speedups.name`` (the core's), or ``name`` in the compiled module
    ``module`` (a method's, by its full name: see :func:`load`).
    The result is called like the function: where the step is built and
    :data:`ENABLED`, it runs; on :data:`Unsupported`, ``on_unsupported`` (if given) gets the
    same arguments, to undo what the compiled step did part way, and the Python function
    runs. ``arguments`` maps the function's arguments to the compiled step's, where they
    differ (as a tuple of positional arguments). The compiled step is looked up once, here:
    a call costs one check of :data:`ENABLED` over calling it directly.
    """

    def decorate(python: Callable[P, R]) -> Twin[P, R]:
        where = _speedups if module is None else load(module)
        compiled = getattr(where, name, None) if where is not None else None
        if compiled is None:

            def dispatch(*args: Any, **kwargs: Any) -> Any:
                return python(*args, **kwargs)

        elif arguments is not None:

            def dispatch(*args: Any, **kwargs: Any) -> Any:
                if ENABLED:
                    try:
                        return compiled(*arguments(*args, **kwargs))
                    except Unsupported:
                        if on_unsupported is not None:
                            on_unsupported(*args, **kwargs)
                return python(*args, **kwargs)

        else:

            def dispatch(*args: Any, **kwargs: Any) -> Any:
                if ENABLED:
                    try:
                        return compiled(*args, **kwargs)
                    except Unsupported:
                        if on_unsupported is not None:
                            on_unsupported(*args, **kwargs)
                return python(*args, **kwargs)

        functools.update_wrapper(dispatch, python)
        out = cast(Any, dispatch)
        out.python = python
        out.compiled_name = name
        out.compiled_module = module or CORE_MODULE
        out.compiled = compiled
        out.on_unsupported = on_unsupported
        return cast(Twin[P, R], out)

    return decorate
