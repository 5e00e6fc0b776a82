"""Types of the compiled steps (``_speedups.pyx``, built by setup.py where a C compiler is at
hand). The package reaches them through :mod:`scrapy_boilerplate.core.compiled`, by name, in
place of their Python twins: the stub leaves them Any."""

from typing import Any

class Unsupported(Exception):
    """Raised by a compiled step on input its Python function must handle instead."""

def __getattr__(name: str) -> Any: ...
