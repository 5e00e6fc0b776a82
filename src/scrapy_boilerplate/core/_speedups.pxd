# cython: language_level=3
"""What other compiled modules of the package cimport from ``_speedups``: the compiled
walk's recorder protocol (:class:`WalkRecorder`), so that a method records what it needs
of a page on the segmentation's walk through C-level calls, a helper to append to an
``array.array('q')``, and the fused type of a str's characters (:data:`StrChar`)."""

from cpython cimport array
from libc.stdint cimport uint8_t, uint16_t, uint32_t


# A str's characters as PEP 393 stores them, 1, 2 or 4 bytes each: a loop over a text's
# data is compiled once per width, with no width test per character.
ctypedef fused StrChar:
    uint8_t
    uint16_t
    uint32_t


cdef class WalkRecorder:
    """The compiled form of ``document.WalkRecorder``: the walk calls these methods
    (C-level virtual calls) as it goes; a subclass in another compiled module records.

    ``blank_text``: the recorder reads white-space-only ``.text`` / ``.tail`` strings too
    (it is read by the walk after ``start`` and ``end``), so the walk must make them;
    otherwise it passes None for them."""

    cdef bint blank_text

    # The recorder's bits for an element name (``raw``: its ``.tag``; ``tag``: its
    # lower-case local name), asked once per name per walk and given back to ``start``.
    cdef int name_flags(self, str raw, str tag) except -1
    # An element starts: its ``ordinal`` (its place among the walked nodes: see
    # NodeElements), xpath ``step``, ``position`` among its parent's children of its tag,
    # the recorder's ``flags`` for its name, and whether it is ``removed`` (its subtree is
    # skipped: no ``text``, its ``end`` comes next). Returns the recorder's mark for the
    # element, given back to ``block`` for the blocks it holds.
    cdef Py_ssize_t start(self, Py_ssize_t ordinal, str step, Py_ssize_t position, int flags,
                          bint removed) except -2
    # The started element's ``.text`` (None where it is blank and ``blank_text`` is False).
    cdef int text(self, object text, bint has_text) except -1
    # The open element ends.
    cdef int end(self) except -1
    # The ``.tail`` of the element that just ended, or of a comment or processing
    # instruction (``ordinal``: that node's).
    cdef int tail(self, object tail, bint has_text, Py_ssize_t ordinal) except -1
    # A block was closed: the mark of its element (-1: the walk's root, no path node).
    cdef int block(self, Py_ssize_t mark) except -1
    # The walk is over (``root``: its root).
    cdef int finish(self, object root) except -1


cdef inline void append_ordinal(array.array ordinals, Py_ssize_t* count, Py_ssize_t value):
    """Append ``value`` to ``ordinals`` (``count``: its length, kept by the caller)."""
    array.resize_smart(ordinals, count[0] + 1)
    ordinals.data.as_longlongs[count[0]] = value
    count[0] += 1
