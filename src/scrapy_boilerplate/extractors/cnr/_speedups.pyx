# cython: language_level=3
"""CNR's compiled steps (optional accelerator), each the twin of a Python function of
:mod:`.algorithm` or :mod:`.recorder`, which stays the reference and the fallback (it
declares its twin with ``core.compiled.twin``); ``tests/test_speedups.py`` holds each pair
to the same output:

- :class:`NodeRecorder` is ``recorder.CNRNodes``'s recording, the compiled walk's recorder
  (a ``core._speedups.WalkRecorder``, whose methods the walk calls at C level): it records
  Algorithm 1's nodes into the same :class:`~.recorder.CNRNodes`, and counts each text's
  characters as it goes;
- :func:`tree_arrays` is ``algorithm._tree_arrays`` (Algorithm 1's values from the walk's
  record) and :func:`label_blocks` is ``algorithm.label_blocks`` (selection, Algorithm 2,
  granularity, iterative detection, menus and each block's rank), on C arrays instead of
  numpy calls and Python sets (the means and deviations are still numpy's);
- :func:`element_xpath` is ``algorithm._element_xpath``, a detected block's xpath, over
  libxml2's sibling pointers.

Built by ``setup.py`` with the core's ``_speedups`` (whose ``_speedups.pxd`` it cimports)
when Cython and a C compiler are at hand; without it CNR runs on the Python functions.
"""

cimport cython
from cpython cimport array
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND, Py_UNICODE_ISSPACE
from libc.math cimport ceil
from libc.stdint cimport int8_t, int64_t, uint8_t, uint16_t, uint32_t
from libc.stdlib cimport qsort
from libc.string cimport memset, strcmp

from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode
cimport lxml.includes.etreepublic as cetree

from scrapy_boilerplate.core._speedups cimport WalkRecorder, append_ordinal

cetree.import_lxml__etree()

import array

from scrapy_boilerplate.core._speedups import NodeElements, Unsupported

cdef object _simple_name = None


cdef _bind():
    global _simple_name
    from scrapy_boilerplate.extractors.cnr import algorithm

    _simple_name = algorithm._SIMPLE_NAME.match


ctypedef fused _Char:  # a str's characters: 1, 2 or 4 bytes each (PEP 393)
    uint8_t
    uint16_t
    uint32_t


cdef Py_ssize_t _non_space(str text):
    """Characters of ``text`` that are not white space (``str.isspace``), as CNR counts."""
    cdef int width = PyUnicode_KIND(text)
    cdef void* chars = PyUnicode_DATA(text)
    if width == 1:
        return _count_non_space(<const uint8_t*>chars, len(text))
    if width == 2:
        return _count_non_space(<const uint16_t*>chars, len(text))
    return _count_non_space(<const uint32_t*>chars, len(text))


cdef Py_ssize_t _count_non_space(const _Char* chars, Py_ssize_t n) noexcept:
    cdef Py_ssize_t i, k = 0
    for i in range(n):
        if not Py_UNICODE_ISSPACE(chars[i]):
            k += 1
    return k


# ---------------------------------------------------------------------------------------------
# Algorithm 1's nodes, recorded on the compiled walk

cdef enum:
    _MENU = 1  # raw in the menu tags
    _SKIP = 2  # raw in the nonContentNode tags
    _RAW_A = 4  # raw == "a"


@cython.final
cdef class NodeRecorder(WalkRecorder):
    """``recorder.CNRNodes``'s recording, compiled: the same nodes into the same record's
    lists, each node's element by its ordinal (the record's ``elements`` becomes a
    ``NodeElements`` when the walk is over), each text's and link text's characters that
    are not white space counted (``text_counts`` / ``link_counts``)."""

    cdef object nodes
    cdef object skip_tags, menu_tags
    cdef list menu, parent, ends, texts, skipped, link_ids, link_texts, block_nodes
    cdef list steps, positions, text_counts, link_counts
    cdef array.array ordinals  # each node's element by its ordinal (NodeElements)
    cdef Py_ssize_t count  # nodes recorded
    cdef Py_ssize_t cur  # the open node: at its "end", the node that ends
    cdef Py_ssize_t in_link  # elements open inside the current <a> (the <a> included)
    cdef Py_ssize_t hidden  # elements open inside a nonContentNode that is no link
    cdef Py_ssize_t ordinal  # the element that started (its text node's)
    cdef list chunks  # text of the open link

    def __cinit__(self, nodes):
        self.nodes = nodes
        self.skip_tags = nodes.skip_tags
        self.menu_tags = nodes.menu_tags
        nodes.index = None  # made by CNR's tree on first use (CNRTree.element_index)
        self.menu = nodes.menu
        self.parent = nodes.parent
        self.ends = nodes.ends
        self.texts = nodes.texts
        self.skipped = nodes.skipped
        self.link_ids = nodes.link_ids
        self.link_texts = nodes.link_texts
        self.block_nodes = nodes.block_nodes
        self.steps = nodes.steps
        self.positions = nodes.positions
        self.text_counts = nodes.text_counts = []
        self.link_counts = nodes.link_counts = []
        self.ordinals = array.array("q")
        self.count = 0
        self.cur = -1
        self.in_link = 0
        self.hidden = 0
        self.chunks = []
        self.blank_text = False

    cdef int name_flags(self, str raw, str tag) except -1:
        cdef int flags = 0
        if raw in self.menu_tags:
            flags |= _MENU
        if raw in self.skip_tags:
            flags |= _SKIP
        if raw == "a":
            flags |= _RAW_A
        return flags

    cdef Py_ssize_t start(self, Py_ssize_t ordinal, str step, Py_ssize_t position, int flags,
                          bint removed) except -2:
        self.ordinal = ordinal
        if self.hidden:
            self.hidden += 1
            return self.cur
        if self.in_link:  # inside a link: no nodes, only its characters are counted
            self.in_link += 1
            if not removed and flags & _SKIP:
                self.hidden = 1
                self.blank_text = False
            return self.cur
        if removed:  # a nonContentNode
            self.skipped.append(self.count)
        self.parent.append(self.cur)
        self.cur = self.count
        append_ordinal(self.ordinals, &self.count, ordinal)
        self.ends.append(0)
        self.steps.append(step)
        self.positions.append(position)
        if flags & _MENU:
            self.menu.append(self.cur)
        if not removed and flags & _SKIP:
            self.skipped.append(self.cur)
            if flags & _RAW_A:
                self.in_link = 1
                self.link_ids.append(self.cur)
                self.chunks = []
                self.blank_text = True  # a link's characters: its blank text too
            else:
                self.hidden = 1
        return self.cur

    cdef int text(self, object text, bint has_text) except -1:
        if self.hidden:
            return 0
        if self.in_link:
            if text:
                self.chunks.append(text)
            return 0
        if has_text:
            self._text_node(text, self.ordinal)
        return 0

    cdef int end(self) except -1:
        if self.hidden > 1:  # an element below a nonContentNode ended
            self.hidden -= 1
            return 0
        self.hidden = 0  # (when the nonContentNode itself ended)
        if self.in_link > 1:  # an element inside a link ended
            self.in_link -= 1
            self.blank_text = True
            return 0
        if self.in_link:  # the link ends
            self.in_link = 0
            self.blank_text = False
            self.link_texts.append("".join(self.chunks))
            self.link_counts.append(_non_space(self.link_texts[-1]))
        self.ends[self.cur] = len(self.parent)
        self.cur = self.parent[self.cur]
        return 0

    cdef int tail(self, object tail, bint has_text, Py_ssize_t ordinal) except -1:
        if self.hidden:  # (below a nonContentNode: nothing)
            return 0
        if self.in_link:
            if tail:
                self.chunks.append(tail)
            return 0
        if has_text and self.cur >= 0:  # the root's tail is outside the tree
            self._text_node(tail, ordinal)
        return 0

    cdef int block(self, Py_ssize_t mark) except -1:
        self.block_nodes.append(mark if mark >= 0 else 0)
        return 0

    cdef int finish(self, object root) except -1:
        self.nodes.elements = NodeElements(root, self.ordinals)
        return 0

    cdef int _text_node(self, str text, Py_ssize_t ordinal) except -1:
        self.parent.append(self.cur)
        append_ordinal(self.ordinals, &self.count, ordinal)
        self.ends.append(-len(self.parent))
        self.texts.append(text)
        self.text_counts.append(_non_space(text))
        self.steps.append(None)
        self.positions.append(0)
        return 0


# ---------------------------------------------------------------------------------------------
# Algorithm 1's values from the walk's record, and the detection, menus and block labels, on
# C arrays. Node kinds as algorithm.ELEMENT, TEXT, TAIL, NON_CONTENT.

cdef enum:
    _ELEMENT = 0
    _TEXT = 1
    _TAIL = 2
    _NON_CONTENT = 3

#: the node kinds (tests/test_speedups.py holds them equal to cnr's)
NODE_KINDS = (_ELEMENT, _TEXT, _TAIL, _NON_CONTENT)

cdef object _np = None


cdef _numpy():
    global _np
    if _np is None:
        import numpy

        _np = numpy
    return _np


def tree_arrays(nodes):
    """``algorithm._tree``'s arrays from a record of the compiled walk (which counted each text's
    characters): ``(end, kind, chars, weight, text_length, cnr, links, link_chars)``, the
    same values as the numpy code, in one pass plus the prefix sums. Raises
    :class:`Unsupported` on a record of the Python walk."""
    cdef list parent = nodes.parent, ends = nodes.ends, skipped = nodes.skipped
    cdef list link_ids = nodes.link_ids
    elements = nodes.elements
    text_counts = nodes.text_counts
    link_counts = nodes.link_counts
    if (
        not isinstance(elements, NodeElements)
        or text_counts is None
        or link_counts is None
        or len(link_counts) != len(link_ids)
    ):
        raise Unsupported("not a record of the compiled walk")
    cdef array.array ordinals = elements.ordinals
    cdef long long* ords = ordinals.data.as_longlongs
    np = _numpy()
    cdef Py_ssize_t n = len(parent), i, t = 0, j, e, p
    if len(ends) != n or len(elements) != n:
        raise Unsupported("ends, elements and parents differ in length")
    end_a = np.empty(n, dtype=np.int64)
    kind_a = np.zeros(n, dtype=np.int8)
    chars_a = np.zeros(n, dtype=np.int64)
    weight_a = np.empty(n, dtype=np.int64)
    tl_a = np.empty(n, dtype=np.int64)
    cnr_a = np.empty(n, dtype=np.float64)
    links_a = np.empty(n, dtype=np.int64)
    lc_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] end = end_a, chars = chars_a, weight = weight_a, tl = tl_a
    cdef int64_t[::1] links = links_a, lc = lc_a
    cdef int8_t[::1] kind = kind_a
    cdef double[::1] cnr = cnr_a
    cdef list texts = text_counts
    cdef Py_ssize_t ntexts = len(texts)
    cdef int64_t* cum = <int64_t*>PyMem_Malloc(3 * (n + 1) * sizeof(int64_t))
    cdef int64_t* own_link = <int64_t*>PyMem_Malloc((n + 1) * sizeof(int64_t))
    if cum is NULL or own_link is NULL:
        PyMem_Free(cum)
        PyMem_Free(own_link)
        raise MemoryError()
    cdef int64_t* cum_chars = cum
    cdef int64_t* cum_link_chars = cum + (n + 1)
    cdef int64_t* cum_links = cum + 2 * (n + 1)
    try:
        memset(own_link, 0, (n + 1) * sizeof(int64_t))
        for i in range(n):
            e = ends[i]
            if e < 0:  # a text node: end -ends, its characters the next count
                end[i] = -e
                p = parent[i]
                # .text: right after its element, recorded with it (a comment's or PI's
                # tail right after the parent element is a tail)
                kind[i] = _TEXT if p == i - 1 and ords[i] == ords[p] else _TAIL
                if t >= ntexts:
                    raise Unsupported("more text nodes than counts")
                chars[i] = texts[t]
                t += 1
            else:
                end[i] = e
            if end[i] <= i or end[i] > n:
                raise Unsupported("a node's end is out of range")
        if t != ntexts:
            raise Unsupported("fewer text nodes than counts")
        for i in skipped:
            kind[i] = _NON_CONTENT
        cum_links[0] = 0
        for i in range(n):
            cum_links[i + 1] = 0
        for j in range(len(link_ids)):
            i = link_ids[j]
            own_link[i] = link_counts[j]
            cum_links[i + 1] = 1
        cum_chars[0] = cum_link_chars[0] = 0
        for i in range(n):
            cum_chars[i + 1] = cum_chars[i] + chars[i]
            cum_link_chars[i + 1] = cum_link_chars[i] + own_link[i]
            cum_links[i + 1] += cum_links[i]
        for i in range(n):
            e = end[i]
            weight[i] = e - i
            tl[i] = cum_chars[e] - cum_chars[i]
            cnr[i] = <double>tl[i] / <double>weight[i]
            links[i] = cum_links[e] - cum_links[i]
            lc[i] = cum_link_chars[e] - cum_link_chars[i]
    finally:
        PyMem_Free(cum)
        PyMem_Free(own_link)
    return end_a, kind_a, chars_a, weight_a, tl_a, cnr_a, links_a, lc_a


cdef struct _Ranked:
    double value
    int64_t pos


cdef int _by_value_desc(const void* a, const void* b) noexcept nogil:
    """Higher value first, then earlier position (numpy's stable argsort of -values)."""
    cdef const _Ranked* x = <const _Ranked*>a
    cdef const _Ranked* y = <const _Ranked*>b
    if x.value > y.value:
        return -1
    if x.value < y.value:
        return 1
    return (x.pos > y.pos) - (x.pos < y.pos)


cdef int _by_int(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cdef struct _HeapItem:
    int64_t depth
    int64_t seq
    int64_t node


cdef inline bint _heap_before(_HeapItem* a, _HeapItem* b) noexcept nogil:
    # identify_blocks' heap of (-depth, seq, node): the deepest first, then the first queued
    if a.depth != b.depth:
        return a.depth > b.depth
    return a.seq < b.seq


cdef void _heap_push(_HeapItem* heap, Py_ssize_t* size, _HeapItem item) noexcept nogil:
    cdef Py_ssize_t i = size[0], up
    size[0] += 1
    heap[i] = item
    while i > 0:
        up = (i - 1) >> 1
        if _heap_before(&heap[i], &heap[up]):
            heap[i], heap[up] = heap[up], heap[i]
            i = up
        else:
            break


cdef _HeapItem _heap_pop(_HeapItem* heap, Py_ssize_t* size) noexcept nogil:
    cdef _HeapItem top = heap[0]
    cdef Py_ssize_t i = 0, left, best, n
    size[0] -= 1
    n = size[0]
    heap[0] = heap[n]
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        best = left
        if left + 1 < n and _heap_before(&heap[left + 1], &heap[left]):
            best = left + 1
        if _heap_before(&heap[best], &heap[i]):
            heap[i], heap[best] = heap[best], heap[i]
            i = best
        else:
            break
    return top


cdef class _CNRWork:
    """Work arrays of one :func:`label_blocks` call, ``n`` entries each (``cover`` and
    ``prefix``: ``n + 1``), carved out of one allocation freed with the object."""

    cdef Py_ssize_t n
    cdef void* block
    cdef int64_t* parent
    cdef int64_t* depth
    cdef int64_t* kid_head
    cdef int64_t* kid_tail
    cdef int64_t* kid_next
    cdef int64_t* kid_count
    cdef int64_t* stack
    cdef int64_t* weight
    cdef int64_t* tl
    cdef int64_t* ids
    cdef int64_t* cover
    cdef int64_t* prefix
    cdef double* cnr
    cdef _Ranked* ranked
    cdef _HeapItem* heap
    cdef char* alive
    cdef char* selected
    cdef signed char* covered
    cdef char* current
    cdef char* listed
    cdef char* mask

    def __cinit__(self, Py_ssize_t n):
        self.n = n
        cdef size_t m = n if n > 0 else 1
        # 8-byte fields first (int64, double, the structs of them), then the bytes
        cdef size_t size = (
            (10 * m + 2 * (m + 1)) * sizeof(int64_t)
            + m * (sizeof(double) + sizeof(_Ranked) + sizeof(_HeapItem))
            + 6 * m
        )
        self.block = PyMem_Malloc(size)
        if self.block is NULL:
            raise MemoryError()
        cdef int64_t* words = <int64_t*>self.block
        self.parent = words
        self.depth = words + m
        self.kid_head = words + 2 * m
        self.kid_tail = words + 3 * m
        self.kid_next = words + 4 * m
        self.kid_count = words + 5 * m
        self.stack = words + 6 * m
        self.weight = words + 7 * m
        self.tl = words + 8 * m
        self.ids = words + 9 * m
        self.cover = words + 10 * m
        self.prefix = words + 11 * m + 1
        self.cnr = <double*>(words + 12 * m + 2)
        self.ranked = <_Ranked*>(self.cnr + m)
        self.heap = <_HeapItem*>(self.ranked + m)
        cdef char* bytes_ = <char*>(self.heap + m)
        self.alive = bytes_
        self.selected = bytes_ + m
        self.covered = <signed char*>(bytes_ + 2 * m)
        self.current = bytes_ + 3 * m
        self.listed = bytes_ + 4 * m
        self.mask = bytes_ + 5 * m

    def __dealloc__(self):
        PyMem_Free(self.block)


cdef Py_ssize_t _select(_CNRWork w, const int64_t* tl, const double* cnr,
                        const int8_t* kind, bint any_alive_filter, int rule, Py_ssize_t top_k,
                        double top_fraction, bint elements_only) except -1:
    """``cnr.select_nodes``: the chosen ids, in document order, into ``w.ids``; their count.
    ``rule``: 0 top_k, 1 top_fraction, 2 above_mean, 3 above_mean_std."""
    cdef Py_ssize_t n = w.n, i, m = 0, k, c
    cdef int64_t* ids = w.ids
    for i in range(n):
        if tl[i] > 0 and (not elements_only or kind[i] == _ELEMENT) and (
            not any_alive_filter or w.alive[i]
        ):
            ids[m] = i
            m += 1
    if m == 0:
        return 0
    cdef double threshold
    cdef double[::1] values
    if rule == 0 or rule == 1:
        k = top_k if rule == 0 else <Py_ssize_t>ceil(top_fraction * m)
        if k < 1:
            k = 1
        if k > m:
            k = m
        for i in range(m):
            w.ranked[i].value = cnr[ids[i]]
            w.ranked[i].pos = i
        qsort(w.ranked, m, sizeof(_Ranked), _by_value_desc)
        for i in range(k):
            w.stack[i] = ids[w.ranked[i].pos]
        qsort(w.stack, k, sizeof(int64_t), _by_int)
        for i in range(k):
            ids[i] = w.stack[i]
        return k
    np = _numpy()
    array = np.empty(m, dtype=np.float64)  # numpy's mean and std: the same sums as cnr.py
    values = array
    for i in range(m):
        values[i] = cnr[ids[i]]
    if rule == 2:
        threshold = array.mean()
        c = 0
        for i in range(m):
            if values[i] > threshold:
                ids[c] = ids[i]
                c += 1
        return c if c else m  # all equal: every candidate is as good as the mean
    threshold = array.mean() + array.std()
    c = 0
    for i in range(m):
        if values[i] >= threshold:
            ids[c] = ids[i]
            c += 1
    return c


cdef int64_t _depth_of(_CNRWork w, int64_t node) noexcept:
    """``identify_blocks.depth_of``: ancestors above ``node``, memoised in ``w.depth``."""
    cdef int64_t* parent = w.parent
    cdef int64_t* depth = w.depth
    cdef Py_ssize_t top = 0
    cdef int64_t d
    while node != -1 and depth[node] < 0:
        w.stack[top] = node
        top += 1
        node = parent[node]
    d = -1 if node == -1 else depth[node]
    while top > 0:
        top -= 1
        d += 1
        depth[w.stack[top]] = d
    return d


cdef int _append_kid(_CNRWork w, int64_t p, int64_t node, Py_ssize_t* size,
                     int64_t* seq) except -1:
    """``by_parent[p].append(node)`` (a new list where p has none); a parent that now has
    two of the set's children is queued (``heappush((-depth_of(p), seq, p))``)."""
    cdef _HeapItem item
    if w.listed[node]:
        raise Unsupported("a node joined two lists")  # never, by Algorithm 2's order
    w.listed[node] = 1
    w.kid_next[node] = -1
    if w.kid_count[p] == 0:
        w.kid_head[p] = node
    else:
        w.kid_next[w.kid_tail[p]] = node
    w.kid_tail[p] = node
    w.kid_count[p] += 1
    if w.kid_count[p] == 2:
        seq[0] += 1
        item.depth = _depth_of(w, p)
        item.seq = seq[0]
        item.node = p
        _heap_push(w.heap, size, item)
    return 0


cdef int64_t _identify_main(_CNRWork w, Py_ssize_t m, const int64_t* tl) except -2:
    """``cnr.identify_blocks`` on the ``m`` selected ids in ``w.ids`` (document order), then
    ``cnr.choose_main``: the block with the most text ``tl`` (ties: the first); -1: none."""
    cdef Py_ssize_t n = w.n, i, top, size = 0
    cdef int64_t b, a, p, g, kid, seq = 0, best = -1, best_len = -1
    cdef int64_t* parent = w.parent
    cdef signed char verdict
    cdef _HeapItem item
    memset(w.selected, 0, n)
    memset(w.covered, -1, n)
    memset(w.current, 0, n)
    memset(w.listed, 0, n)
    for i in range(n):
        w.depth[i] = -1
        w.kid_count[i] = 0
    for i in range(m):
        w.selected[w.ids[i]] = 1
    # (1) drop the selected nodes below another selected node (memoised along the paths)
    cdef Py_ssize_t kept = 0
    for i in range(m):
        b = w.ids[i]
        top = 0
        a = parent[b]
        verdict = 0
        while a != -1:
            if w.covered[a] >= 0:
                verdict = w.covered[a]
                break
            if w.selected[a]:
                verdict = 1
                break
            w.stack[top] = a
            top += 1
            a = parent[a]
        while top > 0:
            top -= 1
            w.covered[w.stack[top]] = verdict
        if not verdict:
            w.ids[kept] = b
            kept += 1
    # (2)-(3) the set's children per parent; a parent with two is queued, deepest first
    for i in range(kept):
        w.current[w.ids[i]] = 1
    for i in range(kept):
        b = w.ids[i]
        p = parent[b]
        if p != -1:
            _append_kid(w, p, b, &size, &seq)
    while size > 0:
        item = _heap_pop(w.heap, &size)
        p = item.node
        kid = w.kid_head[p]
        while kid != -1:
            w.current[kid] = 0
            w.listed[kid] = 0
            kid = w.kid_next[kid]
        w.kid_count[p] = 0  # (by_parent.pop(p))
        w.current[p] = 1
        g = parent[p]
        if g != -1:
            _append_kid(w, g, p, &size, &seq)
    for i in range(n):
        if w.current[i] and tl[i] > best_len:
            best = i
            best_len = tl[i]
    return best


def label_blocks(list parent, end_a, kind_a, chars_a, weight_a, tl_a, cnr_a, links_a, lc_a,
              list menu_tag_nodes, list block_nodes, str selection, Py_ssize_t top_k,
              double top_fraction, str candidates, Py_ssize_t granularity,
              Py_ssize_t max_blocks, Py_ssize_t content_blocks, bint detect_menus,
              double link_ratio, double max_link_chars, Py_ssize_t min_links):
    """``cnr.label_blocks``, compiled: ``(detected, ranks, in_menu, cnrs)`` from the tree's
    arrays (``CNRTree``'s fields) and each block's node."""
    cdef Py_ssize_t n = len(parent), i, j, m, r, nb = len(block_nodes), g
    cdef const int64_t[::1] end = end_a, chars = chars_a, weight0 = weight_a, tl0 = tl_a
    cdef const int64_t[::1] links = links_a, lc = lc_a
    cdef const int8_t[::1] kind = kind_a
    cdef const double[::1] cnr0 = cnr_a
    if (
        end.shape[0] != n or kind.shape[0] != n or chars.shape[0] != n
        or cnr0.shape[0] != n or tl0.shape[0] != n
    ):
        raise ValueError("the tree's arrays differ in length")
    cdef int rule
    if selection == "top_k":
        rule = 0
    elif selection == "top_fraction":
        rule = 1
    elif selection == "above_mean":
        rule = 2
    elif selection == "above_mean_std":
        rule = 3
    else:
        raise Unsupported(f"selection {selection!r}")
    if candidates != "elements" and candidates != "all":
        raise Unsupported(f"candidates {candidates!r}")
    cdef bint elements_only = candidates == "elements"
    cdef _CNRWork w = _CNRWork(n)
    cdef int64_t node, best, e, s
    cdef double best_cnr
    cdef bint first = True
    cdef list detected = []
    for i in range(n):
        w.parent[i] = parent[i]
        if w.parent[i] < -1 or w.parent[i] >= i:
            raise Unsupported("a parent after its child")
    if n == 0:
        return [], [None] * nb, [False] * nb, []
    # the first round reads Algorithm 1's own values, the later ones those of the tree
    # without the dead nodes
    cdef int64_t* prefix = w.prefix
    for i in range(n):
        w.tl[i] = tl0[i]
        w.cnr[i] = cnr0[i]
        w.alive[i] = 1
    for r in range(max_blocks):
        if not first:  # cnr.CNRTree.values(alive): the tree without the dead nodes
            prefix[0] = 0
            w.cover[0] = 0
            for i in range(n):
                prefix[i + 1] = prefix[i] + (chars[i] if w.alive[i] else 0)
                w.cover[i + 1] = w.cover[i] + w.alive[i]
            for i in range(n):
                e = end[i]
                w.weight[i] = w.cover[e] - w.cover[i]
                w.tl[i] = prefix[e] - prefix[i]
                w.cnr[i] = (<double>w.tl[i] / <double>w.weight[i]) if w.weight[i] > 0 else 0.0
        m = _select(w, w.tl, w.cnr, &kind[0], not first, rule, top_k, top_fraction,
                    elements_only)
        if m == 0:
            break
        best = _identify_main(w, m, w.tl)
        if best < 0:
            break
        # section 6's granularity (cnr.adjust_granularity)
        for g in range(granularity if granularity > 0 else 0):
            if w.parent[best] < 0:
                break
            best = w.parent[best]
        if granularity < 0:
            for g in range(-granularity):
                node = -1
                best_cnr = 0.0
                for i in range(best + 1, end[best]):
                    if w.parent[i] == best and (first or w.alive[i]):
                        if node == -1 or w.cnr[i] > best_cnr:
                            node = i
                            best_cnr = w.cnr[i]
                if node == -1:
                    break
                best = node
        detected.append(best)
        first = False
        for i in range(best, end[best]):
            w.alive[i] = 0
        s = 0
        for i in range(n):
            if w.alive[i]:
                s = 1
                break
        if not s:
            break
    # ranks: the best detected block covering a block's node (cnr._cover)
    cdef int64_t* rank_of = w.weight
    for i in range(n):
        rank_of[i] = 0
    cdef Py_ssize_t nd = len(detected)
    for r in range(nd - 1, -1, -1):
        node = detected[r]
        for i in range(node, end[node]):
            rank_of[i] = r + 1
    cdef list ranks = [None] * nb
    for j in range(nb):
        node = block_nodes[j]
        if node < 0 or node >= n:
            raise ValueError("a block's node is out of range")
        if rank_of[node]:
            ranks[j] = rank_of[node]
    # a detected node with no block inside (an inline element, a text node): the blocks of
    # its closest ancestor that is a block's node take its rank
    memset(w.mask, 0, n)
    for j in range(nb):
        w.mask[<int64_t>block_nodes[j]] = 1
    w.cover[0] = 0  # w.cover[i]: block nodes among the ids before i
    for i in range(n):
        w.cover[i + 1] = w.cover[i] + w.mask[i]
    for r in range(nd):
        node = detected[r]
        if w.cover[end[node]] - w.cover[node] > 0:  # a block's node in its subtree
            continue
        e = node
        while e >= 0 and not w.mask[e]:
            e = w.parent[e]
        if e < 0:
            continue
        for j in range(nb):
            if block_nodes[j] == e:
                rj = ranks[j]
                if rj is None or rj > r + 1:
                    ranks[j] = r + 1
    # section 7's menus (cnr.detect_menus), with the content blocks protected
    cdef list in_menu = [False] * nb
    cdef int64_t last_end
    if detect_menus:
        for i in range(n):
            w.mask[i] = (
                links[i] >= min_links
                and <double>links[i] >= link_ratio * <double>weight0[i]
                and <double>lc[i] <= max_link_chars * <double>links[i]
                and kind[i] != _TAIL
                and kind[i] != _TEXT
            )
        for node in menu_tag_nodes:
            w.mask[node] = 1
        for r in range(min(content_blocks, nd)):
            node = detected[r]
            while node >= 0:
                w.mask[node] = 0
                node = w.parent[node]
        memset(w.current, 0, n)
        last_end = -1
        for i in range(n):
            if w.mask[i] and i >= last_end:
                last_end = end[i]
                for s in range(i, last_end):
                    w.current[s] = 1
        for j in range(nb):
            if w.current[<int64_t>block_nodes[j]]:
                in_menu[j] = True
    cdef list cnrs = [cnr0[<int64_t>block_nodes[j]] for j in range(nb)]
    return detected, ranks, in_menu, cnrs


cdef inline bint _same_tag(xmlNode* a, xmlNode* b) noexcept:
    """Do ``a`` and ``b`` have the same ``.tag`` (name and namespace URI)?"""
    if a.name != b.name and strcmp(<const char*>a.name, <const char*>b.name) != 0:
        return False
    if a.ns is NULL or b.ns is NULL:
        return a.ns is NULL and b.ns is NULL
    return a.ns.href == b.ns.href or (
        a.ns.href is not NULL and b.ns.href is not NULL
        and strcmp(<const char*>a.ns.href, <const char*>b.ns.href) == 0
    )


def element_xpath(el):
    """``algorithm._element_xpath``, compiled: each step's position is
    counted over libxml2's sibling pointers instead of a proxy per preceding sibling (the slow case: a
    detected block high in the page, under a ``<body>`` of many children)."""
    if _simple_name is None:
        _bind()
    cdef xmlNode* c = (<cetree._Element?>el)._c_node
    cdef xmlNode* sib
    cdef Py_ssize_t position
    cdef list parts = []
    if c is NULL or c.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("not an element")
    while c is not NULL and c.type == tree.XML_ELEMENT_NODE:
        position = 1
        sib = c.prev
        while sib is not NULL:
            if sib.type == tree.XML_ELEMENT_NODE and _same_tag(sib, c):
                position += 1
            sib = sib.prev
        name = cetree.namespacedName(c)
        if name[0] == "{":
            step = f"*[local-name()='{name.rsplit('}', 1)[1].lower()}']"
        elif _simple_name(name):
            step = name.lower()
        else:
            step = f"*[name()='{name}']"
        parts.append(f"{step}[{position}]")
        c = c.parent
    parts.reverse()
    return "/" + "/".join(parts)


