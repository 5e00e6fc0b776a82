"""Give freed memory back to the system, now and then, where extraction runs.

A crawl frees what it allocates for a page (the body, its tree, the blocks), but glibc's
allocator keeps the freed memory in its heaps, and big temporaries (a 3 MB body, a 16 MB
decompression) leave holes that later pages cannot always fill: resident memory keeps
creeping up for thousands of pages although live objects do not grow
(benchmarks/soak.py measured +15 to +21 % after warm-up without this, +3 % with it).
``malloc_trim(0)`` returns the free parts. It is not free, so it runs at most every
``BOILERPLATE_MEMORY_TRIM`` seconds, after a page, in the thread or process that extracted
it. Elsewhere than glibc (musl, macOS) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from typing import Any

_LOCK = threading.Lock()
_LAST = [float("-inf")]
_LIBC: list[Any] = []  # [] not looked up yet, [None] no malloc_trim here, [func]


def _malloc_trim() -> Any:
    if not _LIBC:
        func = None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            func = getattr(libc, "malloc_trim", None)
            if func is not None:
                func.argtypes = [ctypes.c_size_t]
                func.restype = ctypes.c_int
        except OSError:
            func = None
        _LIBC.append(func)
    return _LIBC[0]


def maybe_trim(interval: float) -> bool:
    """``malloc_trim(0)`` if ``interval`` seconds passed since the last one in this
    process (0: never). Returns whether it ran."""
    if interval <= 0:
        return False
    now = time.monotonic()
    if now - _LAST[0] < interval:
        return False
    with _LOCK:
        if now - _LAST[0] < interval:
            return False
        _LAST[0] = now
    func = _malloc_trim()
    if func is None:
        return False
    func(0)
    return True
