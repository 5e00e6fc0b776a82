# cython: language_level=3
"""Compiled steps of the document model and the block-level methods (optional accelerator).

Each function here is a Python function of the package moved, rule for rule, onto
libxml2's own tree through lxml's public C API; the Python function stays as the reference
and the fallback (it declares its twin with ``compiled.twin``, which calls the function
here where the module is built), and ``tests/test_speedups.py`` holds each pair to the same
output:

- :func:`justext_segment` is ``document.justext_segment``, jusText's block-level
  segmentation, with a recorder called on the same walk where one is given (the compiled
  form of ``document.WalkRecorder``: a :class:`WalkRecorder` subclass, declared in
  ``_speedups.pxd`` for the methods' compiled modules to cimport, called at C level): the
  nodes are visited by their ``children`` / ``next`` / ``parent`` pointers instead of
  ``lxml.etree.iterwalk`` events, the walk's state lives in C variables, path nodes and
  the whitespace rule are compiled. ``.text`` and ``.tail`` are lxml's own (``textOf`` /
  ``tailOf``), element proxies are lxml's (``elementFactory``), so an element in a block
  is the very element the Python walk would give; a recorder is given each element's
  place in the tree instead (:class:`NodeElements` finds those same elements when read);
- :func:`find_removed` is ``document.find_removed``, the cleaning, in one pass;
- :func:`blocks_from_segments` is ``result.blocks_from_segments``, the labelled blocks of
  the block-level methods, each made without a Python-level call;
- :func:`count_elements` is ``document._count_elements``, ``parse``'s count of elements;
- :func:`utf8`, :func:`count_tags` and :func:`attributes_over` are ``document._utf8``,
  ``document._count_tags`` and ``document._attributes_over``: ``parse``'s encoding of
  the decoded page and its checks before the parse, in vector instructions or one scan.
- :func:`block_elements` is ``document.block_elements``: the blocks' elements, their
  lazy slots read and filled in C;
- :func:`context_sensitive` is ``justext.algorithm.classify_context_sensitive``,
  jusText's context-sensitive pass (shared by ``justext`` and ``auto``), over arrays of
  class codes instead of lists of class names;
- :func:`recipe_names` is ``entities.features._recipe``, the entity lists' feature recipe
  (Pasupat and Liang's histogram, entropy and majority of a list's tokens, binned): the
  histogram in a dict and the bins found in C, without a ``Counter``, a generator or a
  call per bin (``tests/test_entities_model.py`` holds the pair to the same names).

Where a tree holds what the Python code was never written for (an entity reference node,
which the HTML parser never makes; a cleaning root that is not its document's top
element), :class:`Unsupported` is raised and the twin runs the Python function.

Built by ``setup.py`` when Cython and a C compiler are at hand; without it the package
runs on the Python functions, slower and otherwise the same. A method's own compiled steps
live in its package (``extractors/<method>/_speedups.pyx``), built the same way.
"""

cimport cython
from cpython cimport array
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF, Py_INCREF, Py_XDECREF
from cpython.unicode cimport (
    PyUnicode_DATA,
    PyUnicode_KIND,
    PyUnicode_New,
    PyUnicode_READ,
    PyUnicode_READ_CHAR,
    PyUnicode_WRITE,
    Py_UNICODE_ISPRINTABLE,
    Py_UNICODE_ISSPACE,
)
from libc.math cimport log as c_log
from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy, memset, strchr, strcmp, strlen

from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode
cimport lxml.includes.etreepublic as cetree

cetree.import_lxml__etree()

import array
import math as _pymath
from collections.abc import Sequence


class Unsupported(Exception):
    """The tree holds a node the compiled walk does not handle: walk it in Python."""


cdef object _TextBlock = None
cdef object _plain_steps = None
cdef object _simple_name = None
cdef object _check = None
cdef object _block_tags = None
cdef Py_ssize_t _CACHE_CHAIN = 64
cdef list _removed_tag_bytes = []  # keeps the strings that _removed_tag_names points into
cdef const char* _removed_tag_names[64]
cdef bint _removed_first_len[256][32]  # (first byte, length) of some removed tag
cdef Py_ssize_t _removed_tag_count = 0
cdef object _text_length = None
cdef Py_ssize_t _noscript_chars = 0
cdef object _react_streamed = None
cdef object _hidden_style = None


cdef _bind():
    global _TextBlock, _plain_steps, _simple_name, _check, _block_tags, _CACHE_CHAIN
    global _removed_tag_count, _text_length, _noscript_chars, _react_streamed, _hidden_style
    from . import document
    from .deadline import check

    _TextBlock = document.TextBlock
    _bind_text_block(_TextBlock, document._TEXT_BLOCK_SLOTS)
    _plain_steps = document._PLAIN_STEPS
    _simple_name = document._SIMPLE_NAME.match
    _check = check
    _block_tags = document.JUSTEXT_BLOCK_TAGS
    _CACHE_CHAIN = document._CACHE_CHAIN
    names = sorted(document.REMOVED_TAGS)
    if len(names) > 64:
        raise RuntimeError("REMOVED_TAGS holds more than 64 tags")
    _removed_tag_bytes[:] = [name.encode() for name in names]
    for i, name in enumerate(_removed_tag_bytes):
        _removed_tag_names[i] = name
        _removed_first_len[name[0]][min(len(name), 31)] = True
    _removed_tag_count = len(names)
    _text_length = document._text_length
    _noscript_chars = document.NOSCRIPT_CONTENT_CHARS
    _react_streamed = document._REACT_STREAMED.match
    _hidden_style = document._HIDDEN_STYLE.search


cdef str _xpath_step(str tag, str raw):
    """``document.xpath_step`` (``raw``: the element's ``.tag``): ``p``, or a name test
    where a plain step would not work."""
    if raw == tag and tag in _plain_steps:  # the common case: a lower-case HTML name
        return tag
    if raw[0] == "{":
        return f"*[local-name()='{tag}']"
    if _simple_name(tag):
        return tag
    return f"*[name()='{raw}']"


cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    ctypedef struct PyTypeObject:
        PyObject* (*tp_new)(PyTypeObject*, PyObject*, PyObject*)

#: TextBlock's fields in order; the walk fills them through their slots' offsets
_TEXT_BLOCK_FIELDS = (
    "text", "element", "tag", "xpath", "tag_path", "link_chars", "index", "start",
    "tags_count", "extra", "source_start", "source_end", "_elements", "_at",
)  # fmt: skip
cdef Py_ssize_t _tb_offsets[14]
cdef bint _tb_fast = False
cdef tuple _no_args = ()


cdef _bind_text_block(cls, dict slots):
    """Find TextBlock's slot offsets (a slots dataclass; ``slots``: its slot descriptors by
    name): where its fields are exactly :data:`_TEXT_BLOCK_FIELDS`, each a plain slot of
    ``cls``, blocks are made without ``setattr``."""
    global _tb_fast
    import dataclasses
    import types

    _tb_fast = False
    if tuple(f.name for f in dataclasses.fields(cls)) != _TEXT_BLOCK_FIELDS:
        return
    for i, name in enumerate(_TEXT_BLOCK_FIELDS):
        descriptor = slots.get(name)
        if type(descriptor) is not types.MemberDescriptorType or descriptor.__objclass__ is not cls:
            return
        _tb_offsets[i] = (<PyMemberDescrObject*>descriptor).d_member.offset
    _tb_fast = True


cdef inline PyObject** _slot_at(PyObject* obj, Py_ssize_t i) noexcept:
    """Where field ``i`` of a TextBlock is stored (its slot, at the offset
    :func:`_bind_text_block` found)."""
    return <PyObject**>((<char*>obj) + _tb_offsets[i])


cdef inline void _put(PyObject* obj, Py_ssize_t i, object value) noexcept:
    """Fill the empty field ``i`` of a fresh TextBlock."""
    Py_INCREF(value)
    _slot_at(obj, i)[0] = <PyObject*>value


cdef _text_block(str text, element, str tag, str xpath, str tag_path, Py_ssize_t link_chars,
                 Py_ssize_t index, Py_ssize_t start, Py_ssize_t tags_count,
                 _BlockElements elements=None):
    """A ``document.TextBlock`` with every field set as its ``__init__`` sets them, without
    the Python-level call: the fresh object's empty slots are filled directly.

    With ``elements`` (``element`` None; only where the slots are filled directly, so the
    walk passes it only then), the block's element is the one ``elements`` holds at
    ``index``, found when first read; ``extra`` is left to be made when first read (see
    ``document.TextBlock``)."""
    cdef PyObject* obj
    if _tb_fast:
        obj = (<PyTypeObject*>_TextBlock).tp_new(
            <PyTypeObject*>_TextBlock, <PyObject*>_no_args, NULL
        )
        if obj is NULL:
            raise MemoryError()
        b = <object>obj
        Py_DECREF(b)  # <object> took a reference of its own
        position = index  # (one int object for ``index`` and ``_at``)
        _put(obj, 0, text)
        if elements is None:
            _put(obj, 1, element)
            _put(obj, 12, None)
        else:
            _put(obj, 12, elements)
        _put(obj, 2, tag)
        _put(obj, 3, xpath)
        _put(obj, 4, tag_path)
        _put(obj, 5, link_chars)
        _put(obj, 6, position)
        _put(obj, 7, start)
        _put(obj, 8, tags_count)
        _put(obj, 10, 0)
        _put(obj, 11, 0)
        _put(obj, 13, position)
        return b
    if elements is not None:  # (its ordinals are still being recorded: nothing to read yet)
        raise RuntimeError("a lazy element needs TextBlock's slots")
    return _TextBlock(text, element, tag, xpath, tag_path, link_chars, index, start, tags_count)


@cython.final
cdef class _BlockElements:
    """The elements of a walk's blocks, by block index: their places in the tree (as
    :class:`NodeElements` keeps its nodes'), all found in one pass when one is first read."""

    cdef object root  # (keeps the document alive)
    cdef array.array ordinals
    cdef list found

    def __cinit__(self, root):
        self.root = root
        self.ordinals = array.array("q")
        self.found = None

    def element(self, Py_ssize_t i):
        """The element of block ``i``."""
        if self.found is None:
            self.found = _elements_at(self.root, self.ordinals.tolist())
        return self.found[i]


cdef bint _blank_run(xmlNode* c) noexcept:
    """Would lxml's ``.text`` / ``.tail`` starting at ``c`` (the run of text and CDATA nodes,
    XInclude markers skipped, as lxml's ``_collectText`` reads it) be None, empty or ASCII
    white space only? Answered from libxml2's bytes, without making a string; False where
    unsure (a byte that is not ASCII white space: the string is made and tested)."""
    cdef const unsigned char* p
    while c is not NULL:
        if c.type == tree.XML_TEXT_NODE or c.type == tree.XML_CDATA_SECTION_NODE:
            p = <const unsigned char*>c.content
            if p is not NULL:
                while p[0]:
                    # str.isspace() in ASCII: \t \n \v \f \r, \x1c-\x1f, space
                    if not (9 <= p[0] <= 13 or 28 <= p[0] <= 32):
                        return False
                    p += 1
        elif c.type != tree.XML_XINCLUDE_START and c.type != tree.XML_XINCLUDE_END:
            return True
        c = c.next
    return True


cdef inline bint _has_text(object text):
    """``text and not text.isspace()``: a string with a character that is not white space."""
    if text is None:
        return False
    cdef Py_UCS4 ch
    for ch in <str>text:
        if not Py_UNICODE_ISSPACE(ch):
            return True
    return False


cdef inline bint _printable(Py_UCS4 ch) noexcept:
    """``ch.isprintable()``, answered inline for ASCII (Python's test is a function call)."""
    if ch < 128:
        return 32 <= ch < 127
    return Py_UNICODE_ISPRINTABLE(ch)


cdef str _normalize_stripped(str text):
    """``_normalize(text.strip())``: the leading and trailing runs are dropped."""
    return _collapse(text, True)


cdef struct _Collapsed:
    Py_ssize_t length  # of the result
    Py_UCS4 widest  # its widest character but the separators (ASCII: no wider string)
    Py_ssize_t first, last  # the first and last characters that are not white space
    bint plain  # white space is single spaces only: the result is a slice of the text


cdef _Collapsed _collapse_text(str text, bint strip, int kind, void* data) noexcept:
    """One pass of :func:`_collapse`'s rule over ``text``: measured, and written into
    ``data`` (of width ``kind``) unless that is NULL; compiled once per width of ``text``
    (most page text is one byte a character), with no width test per character."""
    cdef int width = PyUnicode_KIND(text)
    cdef void* chars = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text)
    if width == 1 and (data is NULL or kind == 1):
        return _collapse_bytes(<const uint8_t*>chars, n, strip, <uint8_t*>data)
    if width == 1:
        return _collapse_pass(<const uint8_t*>chars, n, strip, kind, data)
    if width == 2:
        return _collapse_pass(<const uint16_t*>chars, n, strip, kind, data)
    return _collapse_pass(<const uint32_t*>chars, n, strip, kind, data)


#: per code point below 256: 0 printable and not white space, 1 white space, 2 neither
#: (``str.isspace`` and ``str.isprintable``, as ``Py_UNICODE_ISSPACE`` and ``_printable``
#: answer; filled at import from Python's own answers)
cdef uint8_t _BYTE_CLASS[256]
for _code in range(256):
    _BYTE_CLASS[_code] = 1 if chr(_code).isspace() else (0 if chr(_code).isprintable() else 2)


cdef _Collapsed _collapse_bytes(const uint8_t* chars, Py_ssize_t n, bint strip,
                                uint8_t* data) noexcept:
    """:func:`_collapse_pass` for a text of one byte a character, written (unless ``data``
    is NULL) into a string of one byte a character: the same rule, with each run of
    printable characters found by a table and copied at once. ``widest`` is the bitwise
    or of the characters: at least the widest and below 256, and at least 128 exactly when
    one is, so the string made for it has the same width and ASCII-ness."""
    cdef _Collapsed r
    r.length = 0
    r.widest = 0
    r.first = r.last = -1
    r.plain = True
    cdef Py_ssize_t i = 0, start
    cdef uint8_t ch, cls, widest = 0
    cdef bint in_run = False, line_break = False, space = False
    while i < n:
        ch = chars[i]
        cls = _BYTE_CLASS[ch]
        if cls == 1:
            if ch == 10 or ch == 13:  # "\n", "\r"
                line_break = True
            if ch != 32 or space:
                r.plain = False
            space = in_run = True
            i += 1
            continue
        if in_run and not (strip and r.length == 0):
            if data is not NULL:
                data[r.length] = 10 if line_break else 32
            r.length += 1
        in_run = line_break = space = False
        if r.first < 0:
            r.first = i
        if cls == 2:
            r.plain = False  # (the Python function splits lines at some of these)
        start = i
        widest |= ch
        i += 1
        while i < n:
            ch = chars[i]
            cls = _BYTE_CLASS[ch]
            if cls == 1:
                break
            if cls == 2:
                r.plain = False
            widest |= ch
            i += 1
        r.last = i - 1
        if data is not NULL:
            memcpy(data + r.length, chars + start, <size_t>(i - start))
        r.length += i - start
    if in_run and not strip:
        if data is not NULL:
            data[r.length] = 10 if line_break else 32
        r.length += 1
    r.widest = widest
    return r


cdef _Collapsed _collapse_pass(const StrChar* chars, Py_ssize_t n, bint strip, int kind,
                               void* data) noexcept:
    cdef _Collapsed r
    r.length = 0
    r.widest = 0
    r.first = r.last = -1
    r.plain = True
    cdef Py_ssize_t i
    cdef Py_UCS4 ch, sep
    cdef bint in_run = False, line_break = False, space = False
    for i in range(n):
        ch = chars[i]
        if Py_UNICODE_ISSPACE(ch):
            if ch == 10 or ch == 13:  # "\\n", "\\r"
                line_break = True
            if ch != 32 or space:  # (a line break is not 32 either)
                r.plain = False
            space = in_run = True
        else:
            if in_run and not (strip and r.length == 0):
                sep = 10 if line_break else 32
                if data is not NULL:
                    PyUnicode_WRITE(kind, data, r.length, sep)
                r.length += 1
            if r.plain and not _printable(ch):
                r.plain = False  # (the Python function splits lines at some of these)
            in_run = line_break = space = False
            if r.first < 0:
                r.first = i
            r.last = i
            if ch > r.widest:
                r.widest = ch
            if data is not NULL:
                PyUnicode_WRITE(kind, data, r.length, ch)
            r.length += 1
    if in_run and not strip:
        if data is not NULL:
            PyUnicode_WRITE(kind, data, r.length, 10 if line_break else 32)
        r.length += 1
    return r


cdef str _collapse(str text, bint strip):
    """``document.normalize_whitespace``: each run of white space becomes ``"\\n"`` when
    it holds a line break (``\\n`` or ``\\r``), else one space; text without white space
    other than single spaces comes back as it is (the same object, or a slice of it when
    ``strip`` drops leading or trailing spaces).

    That is what the Python function's lines, splits and joins amount to; the tests hold
    the two equal on generated strings. A first pass measures the result (its length and
    widest character), the second writes it straight into a string of that width.
    """
    cdef _Collapsed r = _collapse_text(text, strip, 0, NULL)
    if r.plain:  # single spaces only: the text itself, or its stripped slice
        if not strip or (r.first == 0 and r.last == len(text) - 1):
            return text
        if r.first < 0:
            return ""
        return text[r.first : r.last + 1]
    cdef str out = PyUnicode_New(r.length, r.widest)
    _collapse_text(text, strip, PyUnicode_KIND(out), PyUnicode_DATA(out))
    return out


cdef inline Py_ssize_t _normalized_length(str text) noexcept:
    """``len(_collapse(text, False))`` without making the string (a link's characters):
    the rule's measuring pass alone."""
    return _collapse_text(text, False, 0, NULL).length


cdef inline _Path _new_path(str tag, str raw, str step, _Path parent, xmlNode* c_node,
                            Py_ssize_t position, Py_ssize_t mark, bint unwrapped,
                            Py_ssize_t ordinal, int flags):
    cdef _Path p = _Path.__new__(_Path)
    p.ordinal = ordinal
    p.flags = flags
    p.tag = tag
    p.raw = raw
    p.step = step
    p.parent = parent
    p.c_node = c_node
    p.position = position
    p.mark = mark
    p.unwrapped = unwrapped
    return p


cdef enum:
    _KIDS = 4


@cython.no_gc  # holds no reference cycle (parent, strings): no GC tracking
@cython.final
cdef class _Path:
    """``document._PathNode``, compiled: the same fields, xpath and dotted path. The
    element is libxml2's node, read only while the walk runs (its proxy is made for a
    block's element only: the tree cannot change under the walk)."""

    cdef public str tag
    cdef public str raw  # the element's .tag (namespace, case)
    cdef str step  # its xpath step (_xpath_step of tag and raw)
    cdef public _Path parent
    cdef xmlNode* c_node
    cdef public Py_ssize_t position
    cdef public Py_ssize_t mark  # the recorder's mark (WalkRecorder.start)
    cdef Py_ssize_t ordinal  # the element's place in the tree (see NodeElements)
    cdef int flags  # what the walk asks of its name (_tag_flags)
    cdef public bint unwrapped
    cdef public dict counts
    cdef str _xpath
    cdef str _dotted
    # children seen per tag, for their positions: the first _KIDS tags inline, keyed by the
    # walk's one string object per name (the name table's); ``counts`` (a dict) takes over
    # for more tags or for a name outside the table
    cdef PyObject* kid_tag[_KIDS]
    cdef Py_ssize_t kid_seen[_KIDS]
    cdef int kids

    cdef list _uncached(self, bint xpath):
        """This node and its ancestors up to the closest one whose xpath (``xpath``), else
        dotted path, is made: the nodes whose string is still to make, top first."""
        cdef list chain = []
        cdef _Path n = self
        while n is not None and (n._xpath if xpath else n._dotted) is None:
            chain.append(n)
            n = n.parent
        chain.reverse()
        return chain

    cdef str dotted(self):
        cdef _Path parent = self.parent
        cdef _Path n
        cdef str prefix
        cdef list chain, tags
        if self._dotted is None:
            if parent is not None and parent._dotted is not None:  # the common case
                if self.unwrapped:
                    self._dotted = parent._dotted
                else:
                    self._dotted = f"{parent._dotted}.{self.tag}" if parent._dotted else self.tag
                return self._dotted
            chain = self._uncached(False)
            n = (<_Path>chain[0]).parent
            prefix = n._dotted if n is not None else ""
            if len(chain) > _CACHE_CHAIN:
                tags = [prefix] if prefix else []
                tags += [m.tag for m in chain if not m.unwrapped]
                self._dotted = ".".join(tags)
            else:
                for n in chain:
                    if not n.unwrapped:
                        prefix = f"{prefix}.{n.tag}" if prefix else n.tag
                    n._dotted = prefix
        return self._dotted

    cdef str xpath(self):
        cdef _Path parent = self.parent
        cdef _Path n
        cdef str prefix
        cdef list chain
        if self._xpath is None:
            if parent is not None and parent._xpath is not None:  # the common case
                self._xpath = f"{parent._xpath}/{self.step}[{self.position}]"
                return self._xpath
            chain = self._uncached(True)
            n = (<_Path>chain[0]).parent
            prefix = n._xpath if n is not None else ""
            if len(chain) > _CACHE_CHAIN:
                self._xpath = prefix + "".join(
                    [f"/{(<_Path>m).step}[{(<_Path>m).position}]" for m in chain]
                )
            else:
                for n in chain:
                    prefix = f"{prefix}/{n.step}[{n.position}]"
                    n._xpath = prefix
        return self._xpath


cdef Py_ssize_t _child_position(_Path p, str tag, bint named) except -1:
    """The position (1-based, among ``p``'s children of tag ``tag`` so far) of a new child;
    ``named``: ``tag`` is the name table's object for its name (compared by identity)."""
    cdef int i
    if p.counts is None:
        if named:
            for i in range(p.kids):
                if p.kid_tag[i] == <PyObject*>tag:
                    p.kid_seen[i] += 1
                    return p.kid_seen[i]
            if p.kids < _KIDS:
                p.kid_tag[p.kids] = <PyObject*>tag  # (owned by the walk's name list)
                p.kid_seen[p.kids] = 1
                p.kids += 1
                return 1
        p.counts = {<object>p.kid_tag[i]: p.kid_seen[i] for i in range(p.kids)}
    cdef Py_ssize_t position = p.counts.get(tag, 0) + 1
    p.counts[tag] = position
    return position


cdef inline bint _is_walked(xmlNode* c) noexcept:
    # the nodes iterwalk reports: elements, comments, processing instructions
    return (
        c.type == tree.XML_ELEMENT_NODE
        or c.type == tree.XML_COMMENT_NODE
        or c.type == tree.XML_PI_NODE
    )


cdef xmlNode* _first_walked(xmlNode* c) except? NULL:
    """``c`` or its first following sibling that the walk visits (NULL: none)."""
    while c is not NULL:
        if _is_walked(c):
            return c
        if c.type == tree.XML_ENTITY_REF_NODE:
            raise Unsupported("entity reference node")
        c = c.next
    return NULL


cdef inline xmlNode* _walk_next(xmlNode* c, bint* is_end) except? NULL:
    """The walk's next step after ``c``: its following sibling's "start" (or event), else
    its parent's "end" (``is_end`` says which)."""
    cdef xmlNode* nxt = _first_walked(c.next)
    is_end[0] = nxt is NULL
    return c.parent if nxt is NULL else nxt


@cython.no_gc
@cython.final
cdef class _Para:
    cdef public _Path path
    cdef public list chunks
    cdef public Py_ssize_t link_chars
    cdef public Py_ssize_t tags_count

    def __cinit__(self, path):
        self.path = path
        self.chunks = []
        self.link_chars = 0
        self.tags_count = 0


cdef inline void _restart(_Para p, _Path path) noexcept:
    """``p`` as a new ``_Para(path)``, once its block is closed (its list and object are
    reused: one paragraph object per walk instead of one per block)."""
    p.path = path
    p.chunks.clear()
    p.link_chars = 0
    p.tags_count = 0


cdef class WalkRecorder:
    """``document.WalkRecorder``, compiled: the base class of the compiled recorders (see
    ``_speedups.pxd``, which declares its methods); each method here records nothing."""

    cdef int name_flags(self, str raw, str tag) except -1:
        return 0

    cdef Py_ssize_t start(self, Py_ssize_t ordinal, str step, Py_ssize_t position, int flags,
                          bint removed) except -2:
        return -1

    cdef int text(self, object text, bint has_text) except -1:
        return 0

    cdef int end(self) except -1:
        return 0

    cdef int tail(self, object tail, bint has_text, Py_ssize_t ordinal) except -1:
        return 0

    cdef int block(self, Py_ssize_t mark) except -1:
        return 0

    cdef int finish(self, object root) except -1:
        return 0


cdef class _Walk:
    """The walk's state: what ``document.justext_segment``'s locals and closures hold."""

    cdef list blocks
    cdef object root
    cdef cetree._Document cdoc
    cdef Py_ssize_t offset
    cdef WalkRecorder rec  # (None: nothing recorded)
    cdef _BlockElements elements  # where each block's element is (None: proxies now)
    cdef Py_ssize_t element_count

    cdef close(self, _Para p):
        if not p.chunks:
            return
        cdef str text = _normalize_stripped("".join(p.chunks))
        if not text:  # e.g. a lone <br>: the reference drops paragraphs without text
            return
        cdef Py_ssize_t n = len(self.blocks)
        if not n & 255:
            _check()  # the page's deadline, every 256 blocks
        cdef _Path node = p.path
        if self.elements is not None:  # the element's place (the root's is 0)
            append_ordinal(self.elements.ordinals, &self.element_count,
                            0 if node is None else node.ordinal)
        if node is None:
            self.blocks.append(
                _text_block(text, self.root, "", "/", "", p.link_chars, n, self.offset,
                            p.tags_count, self.elements)
            )
            if self.rec is not None:
                self.rec.block(-1)
        else:
            self.blocks.append(
                _text_block(
                    text,
                    None if self.elements is not None
                    else cetree.elementFactory(self.cdoc, node.c_node),
                    node.tag,
                    node.xpath(),
                    node.dotted(),
                    p.link_chars,
                    n,
                    self.offset,
                    p.tags_count,
                    self.elements,
                )
            )
            if self.rec is not None:
                self.rec.block(node.mark)
        self.offset += len(text) + 2


cdef enum:
    _NAME_SLOTS = 256  # a power of two; pages have a few dozen tag names


cdef struct _NameSlot:
    const unsigned char* name  # libxml2's interned name (NULL: a free slot)
    PyObject* raw  # el.tag, owned by the walk's ``names`` list
    PyObject* tag  # its lower-case local name, owned likewise
    PyObject* step  # its xpath step (_xpath_step), owned likewise
    int flags  # what the walk asks of the name (_tag_flags), answered once per name
    int rflags  # the recorder's bits for the name (WalkRecorder.name_flags), likewise


cdef enum:
    _F_BLOCK = 1  # tag in jusText's block tags
    _F_BR = 2  # tag == "br"
    _F_A = 4  # tag == "a"
    _F_UNWRAPPED = 8  # tag in the unwrapped tags (jusText 3.0.2's cleaning)


cdef int _tag_flags(str tag, block_tags, unwrapped) except -1:
    """The walk's questions about an element's name, as bits (see _NameSlot)."""
    cdef int flags = 0
    if tag in block_tags:
        flags |= _F_BLOCK
    if tag == "br":
        flags |= _F_BR
    if tag == "a":
        flags |= _F_A
    if unwrapped and tag in unwrapped:
        flags |= _F_UNWRAPPED
    return flags


cdef inline _NameSlot* _name_slot(_NameSlot* slots, const unsigned char* name) noexcept:
    """The slot of ``name`` in the walk's table (open addressing by the pointer: libxml2
    interns one string per name in a document's dictionary), a free slot where it is not
    there yet, or NULL when the table is full (the caller then reads ``el.tag``)."""
    cdef size_t h = (<size_t>name >> 4) & (_NAME_SLOTS - 1)
    cdef Py_ssize_t probes = 0
    while probes < _NAME_SLOTS // 2:  # at most half full: short probes, a free slot left
        if slots[h].name == name or slots[h].name == NULL:
            return &slots[h]
        h = (h + 1) & (_NAME_SLOTS - 1)
        probes += 1
    return NULL


cdef size_t _GOLDEN = 0x9E3779B97F4A7C15  # Fibonacci hashing of node addresses


cdef inline size_t _ptr_slot(xmlNode* node, size_t mask) noexcept:
    return ((<size_t>node * _GOLDEN) >> 32) & mask


cdef inline void _ptr_set_add(xmlNode** table, size_t mask, xmlNode* node) noexcept:
    cdef size_t h = _ptr_slot(node, mask)
    while table[h] != NULL and table[h] != node:
        h = (h + 1) & mask
    table[h] = node


cdef inline bint _ptr_set_has(xmlNode** table, size_t mask, xmlNode* node) noexcept:
    """Is ``node`` in the open-addressing table (at most half full: a probe ends)?"""
    cdef size_t h = _ptr_slot(node, mask)
    while table[h] != NULL:
        if table[h] == node:
            return True
        h = (h + 1) & mask
    return False


cdef bytearray _node_set(elements, size_t* mask):
    """``elements`` by their libxml2 node, an open-addressing table for
    :func:`_ptr_set_has` (at most half full; ``mask`` set to its size less one): membership
    without a proxy per element (an element's proxy is unique while it lives, so this is
    ``el in elements``)."""
    cdef size_t size = 8
    while size < 2 * <size_t>len(elements) + 2:
        size *= 2
    table = bytearray(size * sizeof(xmlNode*))
    cdef xmlNode** nodes = <xmlNode**><char*>table
    mask[0] = size - 1
    for item in elements:
        if isinstance(item, cetree._Element) and (<cetree._Element>item)._c_node is not NULL:
            _ptr_set_add(nodes, mask[0], (<cetree._Element>item)._c_node)
    return table


@cython.final
cdef class NodeElements:
    """Elements recorded on the compiled walk (by a :class:`WalkRecorder`), each found in
    the tree when it is read rather than held as a proxy per element.

    The walk gives a recorder each element's *ordinal*, its place among the nodes it
    visits in document order (elements, comments and processing instructions under the
    root, those inside removed elements counted too), where the Python walk gives the
    element. A recorder typically reads a handful of its elements per page, and making
    and freeing a proxy for each of a page's elements costs more than the rest of the
    record: a sequence of ordinals read as elements keeps the walk fast. Reading one
    element walks the tree's pointers up to it; iterating, or reading many, finds them all
    in one pass. Either way the result is the element the Python walk gives (lxml gives
    an element one proxy while it lives), and it is kept.

    Nothing here points into the tree between reads, so editing the tree cannot make a
    read unsafe; but the ordinals describe the tree as it was walked: after an edit, a read
    gives what now stands at that place, or raises ``LookupError`` when nothing does.
    """

    cdef readonly object root  # the walk's root (keeps the document alive)
    cdef readonly array.array ordinals
    cdef list _all
    cdef dict _found

    def __cinit__(self, root, array.array ordinals):
        self.root = root
        self.ordinals = ordinals
        self._all = None
        self._found = {}

    def __len__(self):
        return len(self.ordinals)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._every()[index]
        cdef Py_ssize_t i = index
        cdef Py_ssize_t n = len(self.ordinals)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("node index out of range")
        if self._all is not None:
            return self._all[i]
        k = self.ordinals.data.as_longlongs[i]
        el = self._found.get(k)
        if el is None:
            if len(self._found) >= 32:  # read one by one at length: all in one pass
                return self._every()[i]
            el = _elements_at(self.root, [k])[0]
            self._found[k] = el
        return el

    def __iter__(self):
        return iter(self._every())

    def __repr__(self):
        return f"<NodeElements of {len(self.ordinals)} nodes>"

    cdef list _every(self):
        if self._all is None:
            found = _elements_at(self.root, self.ordinals.tolist())
            self._all = found
            self._found = None
        return self._all


Sequence.register(NodeElements)


cdef inline xmlNode* _preorder_next(xmlNode* c, xmlNode* top) noexcept:
    """The node after ``c`` in document order within ``top``'s subtree (into an element's
    children, never into another node's), NULL past its end: the order in which the walk
    visits nodes and counts their ordinals."""
    if c.type == tree.XML_ELEMENT_NODE and c.children is not NULL:
        return c.children
    while c is not top and c.next is NULL:
        c = c.parent
    return NULL if c is top else c.next


cdef list _elements_at(root, list ordinals):
    """The elements (or comments, PIs) at these ordinals under ``root`` (see NodeElements),
    in one pre-order pass over libxml2's pointers; a proxy is made for those only."""
    cdef cetree._Element root_el = <cetree._Element?>root
    cdef cetree._Document cdoc = root_el._doc
    cdef xmlNode* top = root_el._c_node
    cdef xmlNode* c = top
    cdef list wanted = sorted(set(ordinals))
    cdef Py_ssize_t k = 0, j = 0, nw = len(wanted)
    cdef Py_ssize_t want = wanted[0] if nw else -1
    cdef dict found = {}
    while c is not NULL and j < nw:
        if _is_walked(c):
            if k == want:
                found[k] = cetree.elementFactory(cdoc, c)
                j += 1
                if j < nw:
                    want = wanted[j]
            k += 1
        c = _preorder_next(c, top)
    if j < nw:
        raise LookupError("a recorded node is no longer in the tree (was it edited?)")
    return [found[o] for o in ordinals]


cdef Py_ssize_t _walked_below(xmlNode* top) noexcept:
    """The nodes the walk visits (elements, comments, PIs) inside ``top``'s subtree."""
    cdef Py_ssize_t k = 0
    cdef xmlNode* c = _preorder_next(top, top)
    while c is not NULL:
        k += _is_walked(c)
        c = _preorder_next(c, top)
    return k


def justext_segment(root, removed, unwrapped=frozenset(), recorder=None, block_tags=None):
    """:func:`scrapy_boilerplate.core.document.justext_segment`, compiled (same arguments, same
    result); raises :class:`Unsupported` on a tree it does not handle, or where ``recorder``
    is neither a :class:`WalkRecorder` nor has one (its ``compiled_recorder()``)."""
    if _TextBlock is None:
        _bind()
    cdef WalkRecorder rec = None
    if recorder is not None:
        rec = recorder if isinstance(recorder, WalkRecorder) else recorder.compiled_recorder()
        if rec is None:
            raise Unsupported("the recorder has no compiled form")
    cdef cetree._Element root_el = <cetree._Element?>root
    cdef cetree._Document cdoc = root_el._doc
    cdef xmlNode* c_root = root_el._c_node
    cdef xmlNode* c = c_root
    cdef xmlNode* nxt
    if c is NULL or c.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("root is not an element")

    # the removed elements by their libxml2 node: membership without a proxy per element
    cdef size_t removed_mask
    removed_table = _node_set(removed, &removed_mask)
    cdef xmlNode** removed_nodes = <xmlNode**><char*>removed_table

    cdef _Walk w = _Walk()
    w.blocks = []
    w.root = root
    w.cdoc = cdoc
    w.offset = 0
    w.elements = _BlockElements(root) if _tb_fast else None
    w.element_count = 0
    if block_tags is None:
        block_tags = _block_tags
    cdef _Path path = None
    cdef _Para para = _Para(None)
    cdef bint link = False
    cdef bint br = False
    pending_ws = None  # reference cleaning: whitespace before an unwrapped tag
    cdef bint has_unwrapped = bool(unwrapped)
    w.rec = rec
    cdef Py_ssize_t ordinal = -1  # the current node's place among the walked nodes
    cdef Py_ssize_t c_ordinal
    cdef Py_ssize_t mark = -1  # the recorder's mark for the element that starts
    cdef Py_ssize_t position
    cdef bint descend, has_text, text_tail, unwrapped_end, is_end
    cdef int flags, rflags = 0
    cdef dict root_counts = {}
    # el.tag and its lower-case local name by libxml2's name (see _name_slot)
    cdef _NameSlot name_slots[_NAME_SLOTS]
    memset(name_slots, 0, sizeof(name_slots))
    cdef _NameSlot* slot
    cdef list names = []

    # Pre-order over elements, comments and PIs, as iterwalk(root, events=("start", "end",
    # "comment", "pi")) reports them: "start" on entering an element (a removed one's
    # subtree is skipped), "end" on leaving it, one event for a comment or a PI.
    is_end = False
    while True:
        if not is_end:
            # ---- "start" (an element), or "comment" / "pi"
            ordinal += 1  # (the walk's nodes counted in document order: NodeElements)
            if c.type == tree.XML_ELEMENT_NODE:
                # No element proxy: a recorder is given the elements' ordinals, a block's
                # element gets its proxy when the block closes, and removed elements are
                # looked up by their node. The element's .tag and lower-case local name are
                # cached by libxml2's name (one interned string per name within a document)
                # for elements without a namespace, whose tag is that name.
                slot = NULL
                if c.ns is NULL:
                    slot = _name_slot(name_slots, c.name)
                if slot is not NULL and slot.name is not NULL:
                    raw = <object>slot.raw
                    tag = <object>slot.tag
                    step = <object>slot.step
                    flags = slot.flags
                    rflags = slot.rflags
                else:
                    raw = cetree.elementFactory(cdoc, c).tag
                    tag = raw.lower()
                    if tag[0] == "{":  # XHTML parsed as XML: compare local names
                        tag = tag[tag.find("}") + 1 :]
                    flags = _tag_flags(tag, block_tags, unwrapped)
                    if rec is not None:
                        rflags = rec.name_flags(raw, tag)
                    step = _xpath_step(tag, raw)
                    if slot is not NULL:
                        names.append(raw)  # (owns what the slot borrows)
                        names.append(tag)
                        names.append(step)
                        slot.name = c.name
                        slot.raw = <PyObject*>raw
                        slot.tag = <PyObject*>tag
                        slot.step = <PyObject*>step
                        slot.flags = flags
                        slot.rflags = rflags
                if path is None:
                    position = root_counts.get(tag, 0) + 1
                    root_counts[tag] = position
                else:
                    position = _child_position(path, tag, slot is not NULL)
                if _ptr_set_has(removed_nodes, removed_mask, c):
                    if rec is not None:
                        rec.start(ordinal, step, position, rflags, True)
                    is_end = True  # skip_subtree(): its "end" comes next
                    continue
                if rec is not None:
                    mark = rec.start(ordinal, step, position, rflags, False)
                # lxml's .text, unless it is white space that nothing below reads: the
                # recorder's (blank_text), jusText 3.0.2's cleaning (unwrapped tags keep it)
                if _blank_run(c.children) and not (
                    has_unwrapped or (rec is not None and rec.blank_text)
                ):
                    text = None
                    has_text = False
                else:
                    text = cetree.textOf(c)
                    has_text = _has_text(text)
                if rec is not None:
                    rec.text(text, has_text)
                if flags & _F_UNWRAPPED:
                    # The reference's Cleaner unwraps the tag: its text joins the text
                    # slot before it, whitespace included.
                    path = _new_path(tag, raw, step, path, c, position, mark, True, ordinal, flags)
                    text = (pending_ws or "") + (text or "")
                    if _has_text(text):
                        pending_ws = None
                        para.chunks.append(text)  # (characters())
                        if link:
                            para.link_chars += _normalized_length(text)
                        br = False
                    else:
                        pending_ws = text or None
                else:
                    pending_ws = None
                    path = _new_path(tag, raw, step, path, c, position, mark, False, ordinal, flags)
                    if flags & _F_BLOCK or (br and flags & _F_BR):
                        if para.chunks:
                            if flags & _F_BR:
                                para.tags_count -= 1  # <br><br> separates blocks
                            w.close(para)
                            _restart(para, path)
                        else:  # nothing to keep: reuse the empty paragraph
                            para.path = path
                            para.tags_count = 0
                    else:
                        br = flags & _F_BR != 0
                        if br:
                            para.chunks.append(" ")
                        elif flags & _F_A:
                            link = True
                        para.tags_count += 1
                    if has_text:  # (characters(), inlined)
                        para.chunks.append(text)
                        if link:
                            para.link_chars += _normalized_length(text)
                        br = False
                    elif has_unwrapped:
                        pending_ws = text or None
                # descend
                nxt = _first_walked(c.children)
                if nxt is not NULL:
                    c = nxt
                    continue
                is_end = True
                continue
            # a comment or a PI: only its tail is text (read where it is not white space,
            # or where the recorder reads blank text, or in jusText 3.0.2's cleaning)
            if _blank_run(c.next) and not (
                has_unwrapped or (rec is not None and rec.blank_text)
            ):
                tail = None
                text_tail = False
            else:
                tail = cetree.tailOf(c)
                text_tail = _has_text(tail)
            if rec is not None:
                rec.tail(tail, text_tail, ordinal)  # (the comment's or PI's)
        else:
            # ---- "end" of the element c: its tail (read where it is not white space, or
            # where the recorder reads blank text, or in jusText 3.0.2's cleaning)
            if path is not None and path.c_node == c:
                c_ordinal = path.ordinal
            else:  # a removed element: its "end" came right after its "start"
                c_ordinal = ordinal
                ordinal += _walked_below(c)  # (its subtree's nodes keep their ordinals)
            if rec is not None:
                rec.end()
            if _blank_run(c.next) and not (
                has_unwrapped or (rec is not None and rec.blank_text)
            ):
                tail = None
                text_tail = False
            else:
                tail = cetree.tailOf(c)
                text_tail = _has_text(tail)
            if rec is not None:
                rec.tail(tail, text_tail, c_ordinal)
            if path is not None and path.c_node == c:
                flags = path.flags
                unwrapped_end = path.unwrapped
                path = path.parent
                # an unwrapped tag's tail joins the text slot before it, whitespace included
                if unwrapped_end and tail and not _has_text(tail):
                    if para.chunks and pending_ws is None:
                        para.chunks.append(tail)
                    else:
                        pending_ws = (pending_ws or "") + tail
                    if c is c_root:
                        break
                    nxt = _first_walked(c.next)
                    if nxt is not NULL:
                        c = nxt
                        is_end = False
                    else:
                        c = c.parent
                    continue
                if not unwrapped_end and flags & _F_BLOCK:
                    if para.chunks:
                        w.close(para)
                        _restart(para, path)
                    else:
                        para.path = path
                        para.tags_count = 0
                if flags & _F_A:
                    link = False
        if text_tail:  # (characters(), inlined)
            pending_ws = None
            para.chunks.append(tail)
            if link:
                para.link_chars += _normalized_length(tail)
            br = False
        elif has_unwrapped:
            pending_ws = tail or None
        # next: the following sibling's "start" / event, else the parent's "end"
        if c is c_root:
            break
        c = _walk_next(c, &is_end)
    w.close(para)
    if rec is not None:
        rec.finish(root)
    return w.blocks


cdef inline bint _is_removed_tag(const unsigned char* name) noexcept:
    """Is ``name`` in ``document.REMOVED_TAGS`` (exactly, as ``root.iter(*tags)`` matches)?
    Names whose first byte and length match no removed tag are answered at once."""
    cdef size_t n = strlen(<const char*>name)
    if not _removed_first_len[name[0]][n if n < 32 else 31]:
        return False
    cdef Py_ssize_t i
    for i in range(_removed_tag_count):
        if strcmp(<const char*>name, _removed_tag_names[i]) == 0:
            return True
    return False


cdef bint _may_hide(tree.xmlAttr* attr) noexcept:
    """Can this ``style`` value match ``document._HIDDEN_STYLE``? Both of its alternatives
    need a ``:`` and a ``y`` (``display``, ``visibility``; under ``re.I`` only ``Y`` folds
    to ``y``): a value of one text node without them cannot, and is not read into Python."""
    cdef xmlNode* child = attr.children
    if child is NULL or child.next is not NULL or child.type != tree.XML_TEXT_NODE:
        return True  # not one plain text node: let the regular expression decide
    cdef const char* value = <const char*>child.content
    if value is NULL:
        return True
    return strchr(value, 58) is not NULL and (  # ":"
        strchr(value, 121) is not NULL or strchr(value, 89) is not NULL  # "y", "Y"
    )


cdef inline bint _name_is(const unsigned char* name, const char* expected) noexcept:
    return strcmp(<const char*>name, expected) == 0


def find_removed(root):
    """:func:`scrapy_boilerplate.core.document.find_removed`, compiled: one pass over the tree
    instead of ``root.iter(*tags)`` and three XPath attribute scans, the same set.

    Like ``//@style | //@hidden | //@type``, the attributes of the whole document are
    read (an HTML document can have more than one top element); the tags only under
    ``root``, like ``root.iter(*tags)``. Where ``root`` is not a top element of its
    document, :class:`Unsupported` sends the caller to the Python function.
    """
    if _TextBlock is None:
        _bind()
    cdef cetree._Element root_el = <cetree._Element?>root
    cdef cetree._Document cdoc = root_el._doc
    cdef xmlNode* c_root = root_el._c_node
    if c_root is NULL or c_root.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("root is not an element")
    if c_root.parent is NULL or (
        c_root.parent.type != tree.XML_DOCUMENT_NODE
        and c_root.parent.type != tree.XML_HTML_DOCUMENT_NODE
    ):
        raise Unsupported("root is not the document's top element")
    cdef bint namespaced = root.tag[0] == "{"
    removed = set()
    cdef xmlNode* top = _first_element(c_root.parent.children)
    while top is not NULL:
        _scan_removed(cdoc, top, top is c_root, namespaced, removed)
        top = _first_element(top.next)
    return removed


cdef _scan_removed(cetree._Document cdoc, xmlNode* top, bint tags, bint namespaced, set removed):
    """Add the removed elements of the subtree of ``top`` to ``removed`` (by their tag too
    when ``tags``)."""
    cdef xmlNode* c = top
    cdef xmlNode* nxt
    cdef tree.xmlAttr* attr
    cdef bint by_tag
    while True:
        # root.iter(*tags): a plain name matches elements without a namespace only,
        # "{*}name" (a namespaced root) any element of that local name
        by_tag = tags and (namespaced or c.ns is NULL) and _is_removed_tag(c.name)
        el = None
        if by_tag:
            el = cetree.elementFactory(cdoc, c)
            if not (
                _name_is(c.name, b"noscript")
                and _text_length(el, _noscript_chars) >= _noscript_chars
            ):
                removed.add(el)
        # //@hidden, //@type, //@style: attributes without a namespace
        attr = c.properties
        while attr is not NULL:
            if attr.ns is NULL and (
                _name_is(attr.name, b"hidden")
                or _name_is(attr.name, b"type")
                or _name_is(attr.name, b"style")
            ):
                if _name_is(attr.name, b"style") and not _may_hide(attr):
                    attr = attr.next
                    continue
                if el is None:
                    el = cetree.elementFactory(cdoc, c)
                if _name_is(attr.name, b"hidden"):
                    if not _react_streamed(el.get("id") or ""):
                        removed.add(el)
                elif _name_is(attr.name, b"type"):
                    if el.get("type").strip().lower() == "hidden":
                        removed.add(el)
                elif _hidden_style(el.get("style")):
                    removed.add(el)
            attr = attr.next
        nxt = _first_element(c.children)
        if nxt is not NULL:
            c = nxt
            continue
        # next: the following sibling, else the next sibling of the closest ancestor
        while c is not top:
            nxt = _first_element(c.next)
            if nxt is not NULL:
                c = nxt
                break
            c = c.parent
        else:
            return


cdef inline xmlNode* _first_element(xmlNode* c) noexcept:
    while c is not NULL and c.type != tree.XML_ELEMENT_NODE:
        c = c.next
    return c


def normalize_whitespace(text, strip=False):
    """The compiled ``document.normalize_whitespace`` (of ``text.strip()`` with ``strip``),
    exposed for the tests."""
    return _collapse(text, strip)


def normalized_length(text):
    """``len(normalize_whitespace(text))`` as the walk counts a link's characters, exposed
    for the tests."""
    return _normalized_length(text)


def text_blocks_filled_directly():
    """Whether blocks are made through TextBlock's slot offsets (for the tests)."""
    if _TextBlock is None:
        _bind()
    return _tb_fast


#: result.Block's fields in order; blocks_from_segments fills them through their slots
_BLOCK_FIELDS = (
    "text", "xpath", "tag", "label", "tag_path", "link_density", "index", "start", "fields",
)  # fmt: skip
cdef Py_ssize_t _block_offsets[9]
cdef object _Block = None
cdef int _block_state = 0  # 0: not looked at, 1: slots known, 2: use the Python function


cdef _bind_block():
    global _Block, _block_state
    import dataclasses
    import types

    from . import result

    _Block = result.Block
    _block_state = 2
    if tuple(f.name for f in dataclasses.fields(_Block)) != _BLOCK_FIELDS:
        return
    for i, name in enumerate(_BLOCK_FIELDS):
        descriptor = _Block.__dict__.get(name)
        if type(descriptor) is not types.MemberDescriptorType:
            return
        _block_offsets[i] = (<PyMemberDescrObject*>descriptor).d_member.offset
    _block_state = 1


cdef inline object _slot(object block, Py_ssize_t i):
    """Field ``i`` of a TextBlock read through its slot (getattr where it is unset)."""
    cdef PyObject* value = _slot_at(<PyObject*>block, i)[0]
    if value is NULL:
        return getattr(block, _TEXT_BLOCK_FIELDS[i])  # raises AttributeError
    return <object>value


cdef inline void _replace(PyObject* obj, Py_ssize_t i, object value) noexcept:
    """Set field ``i`` of a TextBlock through its slot, releasing what it held."""
    cdef PyObject** where = _slot_at(obj, i)
    cdef PyObject* old = where[0]
    Py_INCREF(value)
    where[0] = <PyObject*>value
    Py_XDECREF(old)


def block_elements(list blocks):
    """``document.block_elements``: each block's element; a block of the compiled walk
    whose element is still to be found gets it from its walk's elements (all found in one
    pass, see :class:`_BlockElements`) and keeps it, as reading ``element`` does."""
    if _TextBlock is None:
        _bind()
    cdef list out = []
    cdef PyObject* obj
    cdef PyObject* value
    cdef bint fast = _tb_fast
    for b in blocks:
        if fast and type(b) is _TextBlock:
            obj = <PyObject*>b
            value = _slot_at(obj, 1)[0]
            if value is not NULL:
                out.append(<object>value)
                continue
            elements = _slot(b, 12)
            if type(elements) is _BlockElements:
                element = (<_BlockElements>elements).element(_slot(b, 13))
                _replace(obj, 1, element)
                _replace(obj, 12, None)
                out.append(element)
                continue
        out.append(b.element)
    return out


cdef inline void _put_block(PyObject* obj, Py_ssize_t i, object value) noexcept:
    Py_INCREF(value)
    (<PyObject**>((<char*>obj) + _block_offsets[i]))[0] = <PyObject*>value


def blocks_from_segments(segments, list labels, tuple keys, tuple columns):
    """``result.blocks_from_segments`` (the reference), compiled: each block's slots are
    filled directly, its fields dict built in C. Raises :class:`Unsupported` where
    ``result.Block``'s slots are not the ones it fills."""
    if _TextBlock is None:
        _bind()
    if _block_state == 0:
        _bind_block()
    cdef bint fast_read = _tb_fast
    if _block_state != 1:
        raise Unsupported("result.Block's slots are not the expected ones")
    cdef Py_ssize_t n = len(segments), k, i, length, nkeys = len(keys)
    cdef list cols = [c if type(c) is list else list(c) for c in columns]
    if len(labels) != n or len(cols) != nkeys or any(len(c) != n for c in cols):
        raise ValueError("segments, labels and columns differ in length")
    cdef list out = []
    cdef PyObject* obj
    cdef double density
    for i in range(n):
        b = segments[i]
        if fast_read and type(b) is _TextBlock:
            text = _slot(b, 0)
            xpath = _slot(b, 3)
            tag = _slot(b, 2)
            tag_path = _slot(b, 4)
            link_chars = _slot(b, 5)
            index = _slot(b, 6)
            start = _slot(b, 7)
        else:
            text, xpath, tag, tag_path = b.text, b.xpath, b.tag, b.tag_path
            link_chars, index, start = b.link_chars, b.index, b.start
        length = len(text)
        density = min(1.0, <double>link_chars / length) if length else 0.0
        fields = {}
        for k in range(nkeys):
            fields[keys[k]] = (<list>cols[k])[i]
        obj = (<PyTypeObject*>_Block).tp_new(<PyTypeObject*>_Block, <PyObject*>_no_args, NULL)
        if obj is NULL:
            raise MemoryError()
        block = <object>obj
        Py_DECREF(block)
        _put_block(obj, 0, text)
        _put_block(obj, 1, xpath)
        _put_block(obj, 2, tag)
        _put_block(obj, 3, labels[i])
        _put_block(obj, 4, tag_path)
        _put_block(obj, 5, density)
        _put_block(obj, 6, index)
        _put_block(obj, 7, start)
        _put_block(obj, 8, fields)
        out.append(block)
    return out


def count_elements(root, Py_ssize_t limit=0):
    """``count(//*)`` on ``root``'s document (``document._count_elements``): its elements, all of
    its top elements' subtrees, by the tree's pointers instead of an XPath node-set. With
    ``limit`` > 0 the count stops once past ``limit`` (the answer is then ``limit + 1``).
    Raises :class:`Unsupported` on a node the HTML parser never makes (an entity
    reference, whose children XPath would not count)."""
    cdef cetree._Element root_el = <cetree._Element?>root
    cdef xmlNode* c = root_el._c_node
    if c is NULL:
        raise Unsupported("no node")
    while c.parent is not NULL:  # the document node
        c = c.parent
    cdef xmlNode* top = c
    cdef Py_ssize_t count = 0
    c = top.children
    while c is not NULL:
        if c.type == tree.XML_ELEMENT_NODE:
            count += 1
            if limit > 0 and count > limit:
                return count
            if c.children is not NULL:
                c = c.children
                continue
        elif c.type == tree.XML_ENTITY_REF_NODE or c.type == tree.XML_DTD_NODE and c.children:
            raise Unsupported("entity reference or DTD with children")
        while c.next is NULL:
            c = c.parent
            if c is top or c is NULL:
                return count
        c = c.next
    return count


cdef extern from "Python.h":
    char* PyBytes_AS_STRING(object)
    PyObject* _bytes_new "PyBytes_FromStringAndSize"(const char*, Py_ssize_t)
    char* _bytes_data "PyBytes_AS_STRING"(PyObject*)
    int _PyBytes_Resize(PyObject**, Py_ssize_t)
    bint PyUnicode_IS_ASCII(object)


cdef extern from *:
    """
    /* '<' in p[0..n), counted in runs of 255 bytes into a byte counter: a loop the C
       compiler turns into 16-byte vector compares (a wider counter per byte defeats it) */
    static size_t sb_count_lt(const unsigned char *p, Py_ssize_t n) {
        size_t a = 0;
        while (n > 0) {
            Py_ssize_t m = n < 255 ? n : 255, i;
            unsigned char ca = 0;
            for (i = 0; i < m; i++)
                ca += p[i] == 60;
            a += ca;
            p += m;
            n -= m;
        }
        return a;
    }
    """
    size_t sb_count_lt(const unsigned char* p, Py_ssize_t n) noexcept


def count_tags(bytes data):
    """``document._count_tags``: the page's ``<`` bytes, counted in one pass of vector
    compares (numpy's compare makes a page-sized array; this makes none)."""
    return sb_count_lt(<const unsigned char*>PyBytes_AS_STRING(data), len(data))


cdef extern from *:
    """
    #include <string.h>
    /* The scan of document._attributes_over: tags as libxml2's HTML parser (the HTML5
       tokenizer) reads them, their attributes counted. */
    static inline int sb_space(unsigned char c) {
        return c == ' ' || c == '\\t' || c == '\\n' || c == '\\f' || c == '\\r';
    }
    static inline int sb_letter(unsigned char c) {
        c |= 32;
        return c >= 'a' && c <= 'z';
    }
    /* Whether p[0..len) is the lowercase ASCII name (letters only), in any case. */
    static inline int sb_named(const unsigned char *p, Py_ssize_t len, const char *name) {
        Py_ssize_t i;
        if ((Py_ssize_t)strlen(name) != len) return 0;
        for (i = 0; i < len; i++)
            if ((p[i] | 32) != (unsigned char)name[i]) return 0;
        return 1;
    }
    /* "</name" (or "<name" when slash is 0) and a space, "/" or ">" at p[i]. */
    static inline int sb_tag_at(const unsigned char *p, Py_ssize_t n, Py_ssize_t i,
                                int slash, const char *name) {
        Py_ssize_t len = (Py_ssize_t)strlen(name), at = i + 1 + slash;
        if (at + len >= n || p[i] != '<' || (slash && p[i + 1] != '/')) return 0;
        if (!sb_named(p + at, len, name)) return 0;
        return sb_space(p[at + len]) || p[at + len] == '/' || p[at + len] == '>';
    }
    /* A tag's attributes, from p[i] (just after its name): the index after its '>' (n at
       the end of the page); its attributes through *count; *closing: whether it ends in
       "/>" read as a separator. */
    static Py_ssize_t sb_tag(const unsigned char *p, Py_ssize_t n, Py_ssize_t i,
                             Py_ssize_t *count, int *closing) {
        enum { BEFORE, NAME, AFTER_NAME, BEFORE_VALUE, UNQUOTED, AFTER_QUOTED, SLASH } s = BEFORE;
        Py_ssize_t k = 0;
        const unsigned char *q;
        unsigned char c;
        *closing = 0;
        while (i < n) {
            c = p[i];
            switch (s) {
            case BEFORE:
                if (sb_space(c)) break;
                if (c == '/') { s = SLASH; break; }
                if (c == '>') { *count = k; return i + 1; }
                k++;
                s = NAME;
                break;
            case NAME:
                if (sb_space(c)) s = AFTER_NAME;
                else if (c == '/') s = SLASH;
                else if (c == '=') s = BEFORE_VALUE;
                else if (c == '>') { *count = k; return i + 1; }
                break;
            case AFTER_NAME:
                if (sb_space(c)) break;
                if (c == '/') { s = SLASH; break; }
                if (c == '=') { s = BEFORE_VALUE; break; }
                if (c == '>') { *count = k; return i + 1; }
                k++;
                s = NAME;
                break;
            case BEFORE_VALUE:
                if (sb_space(c)) break;
                if (c == '"' || c == '\\'') {
                    q = memchr(p + i + 1, c, n - i - 1);
                    if (q == NULL) { *count = k; return n; }
                    i = q - p;
                    s = AFTER_QUOTED;
                    break;
                }
                if (c == '>') { *count = k; return i + 1; }
                s = UNQUOTED;
                break;
            case UNQUOTED:
                if (sb_space(c)) s = BEFORE;
                else if (c == '>') { *count = k; return i + 1; }
                break;
            case AFTER_QUOTED:
                if (sb_space(c)) { s = BEFORE; break; }
                if (c == '/') { s = SLASH; break; }
                if (c == '>') { *count = k; return i + 1; }
                s = BEFORE;
                continue;  /* the same byte, read again */
            case SLASH:
                if (c == '>') { *count = k; *closing = 1; return i + 1; }
                s = BEFORE;
                continue;
            }
            i++;
        }
        *count = k;
        return n;
    }
    /* The index after a comment whose "<!--" ends before p[i]. */
    static Py_ssize_t sb_comment_end(const unsigned char *p, Py_ssize_t n, Py_ssize_t i) {
        const unsigned char *q;
        if (i < n && p[i] == '>') return i + 1;
        if (i + 1 < n && p[i] == '-' && p[i + 1] == '>') return i + 2;
        while (i + 2 < n) {
            q = memchr(p + i, '-', n - i - 2);
            if (q == NULL) return n;
            i = q - p;
            if (p[i + 1] == '-') {
                if (p[i + 2] == '>') return i + 3;
                if (i + 3 < n && p[i + 2] == '!' && p[i + 3] == '>') return i + 4;
            }
            i++;
        }
        return n;
    }
    /* The index of the '<' of the end tag of a raw text element (its content from i). */
    static Py_ssize_t sb_raw_end(const unsigned char *p, Py_ssize_t n, Py_ssize_t i,
                                 const char *name) {
        const unsigned char *q;
        while (i < n) {
            q = memchr(p + i, '<', n - i);
            if (q == NULL) return n;
            i = q - p;
            if (sb_tag_at(p, n, i, 1, name)) return i;
            i++;
        }
        return n;
    }
    /* The same for a script: HTML5's script data, escaped and double escaped states. */
    static Py_ssize_t sb_script_end(const unsigned char *p, Py_ssize_t n, Py_ssize_t i) {
        int state = 0;
        const unsigned char *q;
        while (i < n) {
            if (state == 0) {
                q = memchr(p + i, '<', n - i);
                if (q == NULL) return n;
                i = q - p;
                if (sb_tag_at(p, n, i, 1, "script")) return i;
                if (i + 3 < n && p[i + 1] == '!' && p[i + 2] == '-' && p[i + 3] == '-') {
                    state = 1;
                    i += 2;  /* its dashes may close it at once: "<!-->" */
                    continue;
                }
                i++;
            } else if (i + 2 < n && p[i] == '-' && p[i + 1] == '-' && p[i + 2] == '>') {
                state = 0;
                i += 3;
            } else if (sb_tag_at(p, n, i, 1, "script")) {
                if (state == 1) return i;
                state = 1;
                i += 9;
            } else if (state == 1 && sb_tag_at(p, n, i, 0, "script")) {
                state = 2;
                i += 8;
            } else {
                i++;
            }
        }
        return n;
    }
    static const char *sb_raw_names[] = {
        "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", NULL
    };
    static Py_ssize_t sb_attributes_over(const unsigned char *p, Py_ssize_t n,
                                         Py_ssize_t limit) {
        Py_ssize_t i = 0, j, name, count;
        int closing, r;
        const unsigned char *q;
        unsigned char c;
        while (i + 1 < n) {
            q = memchr(p + i, '<', n - i - 1);
            if (q == NULL) break;
            i = q - p;
            c = p[i + 1];
            if (sb_letter(c) || (c == '/' && i + 2 < n && sb_letter(p[i + 2]))) {
                name = i + 1 + (c == '/');
                for (j = name + 1; j < n && !sb_space(p[j]) && p[j] != '/' && p[j] != '>'; j++)
                    ;
                i = sb_tag(p, n, j, &count, &closing);
                if (c == '/') continue;  /* an end tag: its attributes are dropped */
                if (count > limit) return count;
                if (closing) continue;
                if (sb_named(p + name, j - name, "script")) i = sb_script_end(p, n, i);
                else if (sb_named(p + name, j - name, "plaintext")) return 0;
                else
                    for (r = 0; sb_raw_names[r] != NULL; r++)
                        if (sb_named(p + name, j - name, sb_raw_names[r])) {
                            i = sb_raw_end(p, n, i, sb_raw_names[r]);
                            break;
                        }
            } else if (c == '!' && i + 3 < n && p[i + 2] == '-' && p[i + 3] == '-') {
                i = sb_comment_end(p, n, i + 4);
            } else if (c == '!' || c == '?' || c == '/') {  /* to the next '>' */
                q = i + 2 < n ? memchr(p + i + 2, '>', n - i - 2) : NULL;
                i = q != NULL ? q - p + 1 : n;
            } else {
                i++;
            }
        }
        return 0;
    }
    """
    Py_ssize_t sb_attributes_over(const unsigned char* p, Py_ssize_t n, Py_ssize_t limit) noexcept


def attributes_over(bytes data, Py_ssize_t limit):
    """``document._attributes_over``: the attributes of the first tag with more than
    ``limit``, 0 when none has, as libxml2's HTML parser reads the page's tags (raw text
    elements' content, comments and quoted values hold none); one scan, the Python
    function's regular expressions as a state machine."""
    return sb_attributes_over(<const unsigned char*>PyBytes_AS_STRING(data), len(data), limit)


cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* The UTF-8 of one code point at o; the byte after it, or NULL at a surrogate (which
       str.encode refuses). */
    static inline unsigned char *sb_put_utf8(unsigned char *o, uint32_t c) {
        if (c < 0x80) {
            *o++ = (unsigned char)c;
        } else if (c < 0x800) {
            *o++ = 0xC0 | (c >> 6); *o++ = 0x80 | (c & 0x3F);
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF) return NULL;
            *o++ = 0xE0 | (c >> 12); *o++ = 0x80 | ((c >> 6) & 0x3F); *o++ = 0x80 | (c & 0x3F);
        } else {
            *o++ = 0xF0 | (c >> 18); *o++ = 0x80 | ((c >> 12) & 0x3F);
            *o++ = 0x80 | ((c >> 6) & 0x3F); *o++ = 0x80 | (c & 0x3F);
        }
        return o;
    }
    /* The UTF-8 of a str's n code units (1, 2 or 4 bytes each: PEP 393's kinds) into out,
       which holds 2n, 3n or 4n bytes; returns the bytes written, or -1 at a surrogate.
       Where SSE2 is at hand (every x86-64), 16 ASCII characters at a time are checked and
       narrowed by vector instructions; after a run that is not all ASCII, 16 characters
       go one by one through sb_put_utf8. */
    #define SB_UTF8_TAIL(s, i, n, o)                                        \
        do {                                                                \
            Py_ssize_t stop_ = (i) + 16 < (n) ? (i) + 16 : (n);             \
            for (; (i) < stop_; (i)++)                                      \
                if (((o) = sb_put_utf8((o), (s)[i])) == NULL) return -1;    \
        } while (0)
    static Py_ssize_t sb_utf8_ucs1(const uint8_t *s, Py_ssize_t n, unsigned char *out) {
        unsigned char *o = out; Py_ssize_t i = 0;
        while (i < n) {
    #if defined(__SSE2__)
            while (i + 16 <= n) {
                __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
                if (_mm_movemask_epi8(a)) break;
                _mm_storeu_si128((__m128i *)o, a);
                i += 16; o += 16;
            }
    #endif
            SB_UTF8_TAIL(s, i, n, o);
        }
        return o - out;
    }
    static Py_ssize_t sb_utf8_ucs2(const uint16_t *s, Py_ssize_t n, unsigned char *out) {
        unsigned char *o = out; Py_ssize_t i = 0;
        while (i < n) {
    #if defined(__SSE2__)
            const __m128i high = _mm_set1_epi16((short)0xFF80);
            while (i + 16 <= n) {
                __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
                __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 8));
                __m128i h = _mm_and_si128(_mm_or_si128(a, b), high);
                if (_mm_movemask_epi8(_mm_cmpeq_epi16(h, _mm_setzero_si128())) != 0xFFFF) break;
                _mm_storeu_si128((__m128i *)o, _mm_packus_epi16(a, b));
                i += 16; o += 16;
            }
    #endif
            SB_UTF8_TAIL(s, i, n, o);
        }
        return o - out;
    }
    static Py_ssize_t sb_utf8_ucs4(const uint32_t *s, Py_ssize_t n, unsigned char *out) {
        unsigned char *o = out; Py_ssize_t i = 0;
        while (i < n) {
    #if defined(__SSE2__)
            const __m128i high = _mm_set1_epi32((int)0xFFFFFF80u);
            while (i + 16 <= n) {
                __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
                __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 4));
                __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 8));
                __m128i d = _mm_loadu_si128((const __m128i *)(s + i + 12));
                __m128i h = _mm_and_si128(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)), high);
                if (_mm_movemask_epi8(_mm_cmpeq_epi32(h, _mm_setzero_si128())) != 0xFFFF) break;
                _mm_storeu_si128((__m128i *)o, _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
                i += 16; o += 16;
            }
    #endif
            SB_UTF8_TAIL(s, i, n, o);
        }
        return o - out;
    }
    """
    Py_ssize_t sb_utf8_ucs1(const void*, Py_ssize_t, unsigned char*) noexcept nogil
    Py_ssize_t sb_utf8_ucs2(const void*, Py_ssize_t, unsigned char*) noexcept nogil
    Py_ssize_t sb_utf8_ucs4(const void*, Py_ssize_t, unsigned char*) noexcept nogil



def utf8(str text):
    """``document._utf8``: ``text.encode("utf-8")``, faster on the pages of
    wcxb-dev (most are 2- or 4-byte strings: a few non-ASCII characters in ASCII markup,
    which CPython's encoder takes one character at a time). An ASCII string is CPython's
    (a copy). Raises :class:`Unsupported` at a surrogate (which ``str.encode`` refuses):
    the caller's Python path replaces it."""
    cdef Py_ssize_t n = len(text)
    if PyUnicode_IS_ASCII(text):
        return text.encode("utf-8")
    cdef int kind = PyUnicode_KIND(text)
    cdef PyObject* p = _bytes_new(NULL, n * (2 if kind == 1 else (3 if kind == 2 else 4)))
    if p is NULL:
        raise MemoryError()
    cdef unsigned char* out = <unsigned char*>_bytes_data(p)
    cdef const void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t m
    if kind == 1:
        m = sb_utf8_ucs1(data, n, out)
    elif kind == 2:
        m = sb_utf8_ucs2(data, n, out)
    else:
        m = sb_utf8_ucs4(data, n, out)
    if m < 0:
        Py_DECREF(<object>p)
        raise Unsupported("a surrogate")
    if _PyBytes_Resize(&p, m) < 0:  # (frees the object and sets p to NULL on failure)
        raise MemoryError()
    result = <object>p
    Py_DECREF(result)  # <object> took a reference of its own
    return result


cdef bint _has_word(tree.xmlAttr* attr, const unsigned char** words, Py_ssize_t* lengths,
                    const unsigned char* starts, const unsigned char* by_first) except -1:
    """Whether an attribute's value holds one of ``words`` (lower-case ASCII bytes), ASCII
    letters of any case, or any byte outside ASCII (``metadata._attribute_candidates``'s
    rule). A value that is not one plain text node is refused (:class:`Unsupported`)."""
    cdef xmlNode* child = attr.children
    if child is NULL:
        return False  # an empty value
    if child.next is not NULL or child.type != tree.XML_TEXT_NODE:
        raise Unsupported("attribute value of several nodes")
    cdef const unsigned char* value = <const unsigned char*>child.content
    if value is NULL:
        return False
    cdef Py_ssize_t n = strlen(<const char*>value), i, j, k, m, w
    cdef const unsigned char* word
    cdef unsigned char ch, first
    for i in range(n):
        first = value[i]
        if first >= 128:
            return True
        if not starts[first]:  # no word starts with this letter
            continue
        if 65 <= first <= 90:
            first += 32
        for k in range(starts[first]):  # the words that start with it (by_first: 4 a letter)
            w = by_first[4 * first + k]
            word = words[w]
            m = lengths[w]
            if i + m > n:
                continue
            for j in range(1, m):
                ch = value[i + j]
                if 65 <= ch <= 90:
                    ch += 32
                if ch != word[j]:
                    break
            else:
                return True
    return False


def attribute_candidates(root, tuple words):
    """``metadata._attribute_candidates``, compiled: the elements of ``root``'s subtree
    (``root`` included, in document order) whose ``class``, ``id`` or ``rel`` value holds
    one of ``words`` (or a character outside ASCII), and the number of elements with an
    ``itemprop``, by the tree's pointers: only the elements found get a proxy. Raises
    :class:`Unsupported` on an entity reference or an attribute value of several nodes."""
    cdef cetree._Element root_el = <cetree._Element?>root
    cdef cetree._Document cdoc = root_el._doc
    cdef xmlNode* top = root_el._c_node
    cdef xmlNode* c = top
    cdef tree.xmlAttr* attr
    cdef Py_ssize_t itemprops = 0
    cdef bint found
    cdef list wanted = [bytes(w) for w in words]  # (keeps the bytes the pointers read)
    cdef const unsigned char* word_at[32]
    cdef Py_ssize_t word_length[32]
    cdef Py_ssize_t count = len(wanted)
    cdef list out = []
    # per letter (either case): how many words start with it, and (lower case) which
    cdef unsigned char starts[256]
    cdef unsigned char by_first[1024]
    cdef unsigned char first
    if count > 32:
        raise Unsupported("over 32 words")
    memset(starts, 0, 256)
    for i, w in enumerate(wanted):
        word_at[i] = <const unsigned char*>(<bytes>w)
        word_length[i] = len(<bytes>w)
        if word_length[i] == 0 or not 97 <= word_at[i][0] <= 122:
            raise Unsupported("a word that is not lower-case ASCII")
        first = word_at[i][0]
        if starts[first] == 4:
            raise Unsupported("over 4 words start with one letter")
        by_first[4 * first + starts[first]] = i
        starts[first] += 1
        starts[first - 32] = starts[first]
    if c is NULL or c.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("not an element")
    while c is not NULL:
        if c.type == tree.XML_ELEMENT_NODE:
            attr = c.properties
            found = False
            while attr is not NULL:
                if attr.ns is NULL:
                    if _name_is(attr.name, "itemprop"):
                        itemprops += 1
                    elif not found and (
                        _name_is(attr.name, "class")
                        or _name_is(attr.name, "id")
                        or _name_is(attr.name, "rel")
                    ):
                        found = _has_word(attr, word_at, word_length, starts, by_first)
                attr = attr.next
            if found:
                out.append(cetree.elementFactory(cdoc, c))
        elif c.type == tree.XML_ENTITY_REF_NODE:
            raise Unsupported("entity reference")
        c = _preorder_next(c, top)
    return itemprops, out


def ngram_counts(const unsigned int[:] nextmove, const unsigned int[:] rowbase,
                 const int[:] output, const unsigned char[:] data):
    """``language._ngram_counts``, compiled: py3langid's walk of its byte n-gram automaton
    over ``data`` (``langid.visit_counts``), in C. ``{feature: count}`` in the order the
    features are first met (as ``collections.Counter`` gives them), or None for none."""
    cdef Py_ssize_t i, n = data.shape[0]
    cdef unsigned int state = 0
    cdef int f
    cdef dict counts = {}
    for i in range(n):
        state = nextmove[rowbase[state] + data[i]]
        f = output[state]
        if f >= 0:
            key = f
            counts[key] = counts.get(key, 0) + 1
    return counts or None


cdef enum:
    _I_DROPPED = 1  # never entered (render.DROPPED_TAGS)
    _I_REMOVED = 2  # not entered when the document removed it (document.REMOVED_TAGS)
    _I_LEAF = 4  # its text is hidden text (document.LEAF_SKIPPED_TAGS)
    _I_IMG = 8
    _I_BR = 16
    _I_PAGE = 32  # html or body: holds the page, not the content


def image_walk(top, removed, dropped, removed_tags, leaf_skipped, Py_ssize_t hidden_depth):
    """``render._image_walk``, compiled: ``render._Plan.walk``'s text nodes of ``top``'s
    subtree (the strings, and whether each is hidden text) and its images, each with the
    number of text nodes before it and the text nodes inside its outermost ancestor below
    ``top`` that is neither ``html`` nor ``body`` (``(-1, -1)``: none), in one pass over
    libxml2's pointers: proxies only for the images. ``hidden_depth``: the hiding
    elements above ``top``. Raises :class:`Unsupported` on an entity reference."""
    cdef cetree._Element top_el = <cetree._Element?>top
    cdef cetree._Document cdoc = top_el._doc
    cdef xmlNode* c_top = top_el._c_node
    cdef xmlNode* c = c_top
    cdef xmlNode* nxt
    cdef xmlNode* skipped = NULL
    if c is NULL or c.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("top is not an element")
    cdef size_t removed_mask
    removed_table = _node_set(removed, &removed_mask)
    cdef xmlNode** removed_nodes = <xmlNode**><char*>removed_table
    cdef _NameSlot name_slots[_NAME_SLOTS]
    memset(name_slots, 0, sizeof(name_slots))
    cdef _NameSlot* slot
    cdef list names = []
    cdef list texts = []
    cdef bytearray hidden = bytearray()
    cdef list images = []  # [element, texts before, outer's first, outer's end]
    cdef list pending = []  # images waiting for their outer ancestor's end
    cdef list hiding = []  # per open element: whether it hides its text
    cdef Py_ssize_t outer_level = -1, outer_first = -1, level
    cdef int flags
    cdef bint is_end = False, is_hidden
    while True:
        if not is_end:
            if c.type == tree.XML_ELEMENT_NODE:
                slot = NULL
                if c.ns is NULL:
                    slot = _name_slot(name_slots, c.name)
                if slot is not NULL and slot.name is not NULL:
                    flags = slot.flags
                else:
                    tag = cetree.elementFactory(cdoc, c).tag.lower()
                    if tag[0] == "{":
                        tag = tag[tag.find("}") + 1 :]
                    flags = (
                        (_I_DROPPED if tag in dropped else 0)
                        | (_I_REMOVED if tag in removed_tags else 0)
                        | (_I_LEAF if tag in leaf_skipped else 0)
                        | (_I_IMG if tag == "img" else 0)
                        | (_I_BR if tag == "br" else 0)
                        | (_I_PAGE if tag == "html" or tag == "body" else 0)
                    )
                    if slot is not NULL:
                        names.append(tag)
                        slot.name = c.name
                        slot.flags = flags
                if flags & _I_DROPPED or (
                    flags & _I_REMOVED and _ptr_set_has(removed_nodes, removed_mask, c)
                ):
                    skipped = c
                    is_end = True
                    continue
                is_hidden = (
                    flags & _I_LEAF != 0 or _ptr_set_has(removed_nodes, removed_mask, c)
                )
                hiding.append(is_hidden)
                hidden_depth += is_hidden
                if flags & _I_IMG:
                    record = [cetree.elementFactory(cdoc, c), len(texts), -1, -1]
                    images.append(record)
                    if outer_level >= 0:
                        record[2] = outer_first
                        pending.append(record)
                elif not flags & (_I_BR | _I_PAGE) and outer_level < 0:
                    outer_level = len(hiding)
                    outer_first = len(texts)
                if not _blank_run(c.children):
                    text = cetree.textOf(c)
                    if _has_text(text):
                        texts.append(text)
                        hidden.append(1 if hidden_depth else 0)
                nxt = _first_walked(c.children)  # descend, or its "end" next
                is_end = nxt is NULL
                if not is_end:
                    c = nxt
                continue
            # a comment or a PI: its tail (below top, always inside an open element)
        elif c is skipped:
            skipped = NULL
        else:
            level = len(hiding)
            hidden_depth -= <bint>hiding.pop()
            if level == outer_level:
                for record in pending:
                    record[3] = len(texts)
                pending = []
                outer_level = -1
        if hiding and not _blank_run(c.next):
            text = cetree.tailOf(c)
            if _has_text(text):
                texts.append(text)
                hidden.append(1 if hidden_depth else 0)
        if c is c_top:
            break
        c = _walk_next(c, &is_end)
    return texts, hidden, [tuple(r) for r in images]


def elements_named(root, tuple names, bint any_namespace=False):
    """``document.elements_named``, compiled: the elements of ``root``'s subtree (``root``
    included, in document order) whose libxml2 name is one of ``names`` (bytes, compared
    exactly), without a namespace unless ``any_namespace``; a proxy for those only."""
    cdef cetree._Element root_el = <cetree._Element?>root
    cdef cetree._Document cdoc = root_el._doc
    cdef xmlNode* top = root_el._c_node
    cdef xmlNode* c = top
    cdef list wanted = [bytes(n) for n in names]  # (keeps the bytes the pointers read)
    cdef const char* name_at[16]
    cdef Py_ssize_t count = len(wanted), k
    cdef list out = []
    if count > 16:
        raise Unsupported("over 16 names")
    for k in range(count):
        name_at[k] = <const char*>(<bytes>wanted[k])
    if c is NULL or c.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("not an element")
    while c is not NULL:
        if c.type == tree.XML_ELEMENT_NODE:
            if any_namespace or c.ns is NULL:
                for k in range(count):
                    if name_at[k][0] == c.name[0] and strcmp(name_at[k], <const char*>c.name) == 0:
                        out.append(cetree.elementFactory(cdoc, c))
                        break
        elif c.type == tree.XML_ENTITY_REF_NODE:
            raise Unsupported("entity reference")
        c = _preorder_next(c, top)
    return out


cdef extern from "Python.h":
    char* PyByteArray_AS_STRING(object)
    Py_ssize_t PyUnicode_Tailmatch(object, object, Py_ssize_t, Py_ssize_t, int) except -1

cdef object _CONTENT_LABEL = None
cdef Py_ssize_t _SCAN_NEAR = 0, _SCAN_WINDOW = 0


cdef inline Py_ssize_t _squeezed_at(str target, Py_ssize_t pos, Py_ssize_t size,
                                     str text) noexcept:
    """``squeezed(target).startswith(squeezed(text), at)`` (``squeezed``: the string without
    its white space; ``at``: the non-space characters of ``target`` before ``pos``), read
    in place: the position in ``target`` after the last character matched where it is
    there, else -1. ``size``: the end of ``target``'s last non-space character."""
    cdef int target_kind = PyUnicode_KIND(target), kind = PyUnicode_KIND(text)
    cdef void* target_data = PyUnicode_DATA(target)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text), i
    cdef Py_UCS4 ch, want
    for i in range(n):
        ch = PyUnicode_READ(kind, data, i)
        if Py_UNICODE_ISSPACE(ch):
            continue
        while True:
            if pos >= size:
                return -1
            want = PyUnicode_READ(target_kind, target_data, pos)
            if not Py_UNICODE_ISSPACE(want):
                break
            pos += 1
        if want != ch:
            return -1
        pos += 1
    return pos


cdef inline bint _at_or_below(str xpath, str prefix) except -1:
    """``xpath == prefix or xpath.startswith(prefix + "/")``."""
    cdef Py_ssize_t length = len(prefix)
    if len(xpath) < length or PyUnicode_Tailmatch(xpath, prefix, 0, length, -1) != 1:
        return False
    return len(xpath) == length or PyUnicode_READ_CHAR(xpath, length) == 47  # "/"


cdef inline Py_ssize_t _parent_end(str xpath) noexcept:
    """The length of ``xpath.rsplit("/", 1)[0]``."""
    cdef int kind = PyUnicode_KIND(xpath)
    cdef void* data = PyUnicode_DATA(xpath)
    cdef Py_ssize_t i = len(xpath) - 1
    while i >= 0:
        if PyUnicode_READ(kind, data, i) == 47:
            return i
        i -= 1
    return len(xpath)


def content_parent(list blocks):
    """``render._content_parent``, compiled: the common parent path of the content blocks
    with text, their xpaths compared in place (no parent string made but the result)."""
    if _CONTENT_LABEL is None:
        _bind_render()
    cdef str first = None, xpath
    cdef Py_ssize_t common = 0, end, i
    cdef list ends = []
    cdef list xpaths = []
    for block in blocks:
        if block.label != _CONTENT_LABEL or _text_end(<str?>block.text) == 0:
            continue
        xpath = <str?>block.xpath
        end = _parent_end(xpath)
        xpaths.append(xpath)
        ends.append(end)
        if first is None:
            first = xpath
            common = end
            continue
        if end < common:
            common = end
        i = 0
        while i < common and PyUnicode_READ_CHAR(xpath, i) == PyUnicode_READ_CHAR(first, i):
            i += 1
        common = i
    if first is None:
        return None
    for i in range(len(xpaths)):
        xpath = <str>xpaths[i]
        if <Py_ssize_t>ends[i] != common and PyUnicode_READ_CHAR(xpath, common) != 47:
            while common > 0 and PyUnicode_READ_CHAR(first, common - 1) != 47:
                common -= 1
            common = common - 1 if common > 0 else 0
            break
    return first[:common]


cdef inline Py_ssize_t _text_end(str text) noexcept:
    """The end of ``text``'s last character that is not white space (0: none)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t end = len(text)
    while end > 0 and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, end - 1)):
        end -= 1
    return end


cdef _bind_render():
    global _CONTENT_LABEL, _SCAN_NEAR, _SCAN_WINDOW
    from . import render
    from .result import CONTENT

    _SCAN_NEAR, _SCAN_WINDOW = render.SCAN_NEAR, render.SCAN_WINDOW
    _CONTENT_LABEL = CONTENT


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline Py_ssize_t _match_run(
    list texts, const unsigned char* taken, const unsigned char* hidden, Py_ssize_t n,
    Py_ssize_t start, bint with_hidden, str target, Py_ssize_t size,
) noexcept:
    """``render._match_nodes``'s ``run``: the end of the text nodes from ``start`` whose
    characters make ``target``, or -1."""
    cdef Py_ssize_t pos = 0, i = start
    while i < n:
        if taken[i] or (hidden[i] and not with_hidden):
            i += 1
            continue
        pos = _squeezed_at(target, pos, size, <str>texts[i])
        if pos < 0:
            return -1
        i += 1
        if pos == size:
            return i
    return -1


@cython.boundscheck(False)
@cython.wraparound(False)
def match_nodes(list texts, bytearray hidden, list blocks, prefix=None):
    """``render._match_nodes``, compiled: the same search, its loops in C, each text node
    compared in place with the block's text (its white space skipped: no squeezed copy)."""
    if _CONTENT_LABEL is None:
        _bind_render()
    if _check is None:
        _bind()
    cdef Py_ssize_t n = len(texts)
    if len(hidden) != n:
        raise Unsupported("texts and hidden differ in length")
    for t in texts:
        if not isinstance(t, str):
            raise Unsupported("a text node that is not a str")
    cdef bytearray content = bytearray(n)
    cdef bytearray taken_buffer = bytearray(n)
    cdef bytearray visible_buffer = bytearray((n + 1) * sizeof(Py_ssize_t))
    cdef unsigned char* content_at = <unsigned char*>PyByteArray_AS_STRING(content)
    cdef unsigned char* taken = <unsigned char*>PyByteArray_AS_STRING(taken_buffer)
    cdef const unsigned char* hidden_at = <const unsigned char*>PyByteArray_AS_STRING(hidden)
    cdef Py_ssize_t* visible = <Py_ssize_t*>PyByteArray_AS_STRING(visible_buffer)
    cdef Py_ssize_t i, j, start, end, stop, tries, size, number = 0, first
    cdef Py_ssize_t cursor = 0, missed = 0
    cdef Py_ssize_t budget = 8 * n + 4096  # text nodes looked at, for all the blocks
    cdef Py_ssize_t near = _SCAN_NEAR, window = _SCAN_WINDOW
    cdef bint with_hidden, is_content
    cdef str target
    cdef dict fallback = {}
    cdef list pending = []
    visible[n] = n
    for i in range(n - 1, -1, -1):
        visible[i] = visible[i + 1] if hidden_at[i] else i
    for block in blocks:
        target = <str?>block.text
        size = _text_end(target)
        if size == 0 or (prefix is not None and not _at_or_below(<str?>block.xpath, prefix)):
            continue  # (no text, or outside the part read)
        if not number & 255:
            _check()
        number += 1
        is_content = block.label == _CONTENT_LABEL
        start = cursor
        while start < n and taken[start]:
            start += 1
        end = -1
        with_hidden = False
        j = start
        stop = min(n, start + near)
        while j < stop and budget > 0:
            budget -= 1
            if not taken[j] and _squeezed_at(target, 0, size, <str>texts[j]) >= 0:
                with_hidden = True
                end = _match_run(texts, taken, hidden_at, n, j, True, target, size)
                if end < 0 and not hidden_at[j]:
                    with_hidden = False
                    end = _match_run(texts, taken, hidden_at, n, j, False, target, size)
                if end >= 0:
                    start = j
                    break
            j += 1
        tries = 0
        j = visible[j] if j < n else n
        while end < 0 and j < n and tries < window and budget > 0:
            budget -= 1
            if not taken[j]:
                tries += 1
                if _squeezed_at(target, 0, size, <str>texts[j]) >= 0:
                    end = _match_run(texts, taken, hidden_at, n, j, False, target, size)
                    if end >= 0:
                        start = j
                        with_hidden = False
                        break
            j = visible[j + 1]
        if end >= 0:
            for i in range(start, end):
                if taken[i] or (hidden_at[i] and not with_hidden):
                    continue
                taken[i] = 1
                if is_content:
                    content_at[i] = 1
            cursor = end
            if is_content and pending:
                first = start
                while first < end and not content_at[first]:
                    first += 1
                if first == end:
                    raise StopIteration
                fallback[first] = pending
                pending = []
        elif is_content:
            pending.append(block)
            missed += 1
    return content, fallback, missed, pending


cdef inline bint _local_name_is(const unsigned char* name, const unsigned char* wanted,
                                Py_ssize_t length) except -1:
    """Whether libxml2's element name ``name`` lower-cased is ``wanted`` (lower-case ASCII,
    ``length`` bytes). Raises :class:`Unsupported` on a name outside ASCII that could be
    it (Python's ``lower()`` is Unicode's)."""
    cdef Py_ssize_t i
    cdef unsigned char ch
    for i in range(length + 1):
        ch = name[i]
        if ch >= 128:
            raise Unsupported("an element name outside ASCII")
        if 65 <= ch <= 90:
            ch += 32
        if i == length:
            return ch == 0
        if ch != wanted[i]:
            return False
    return False


def follow_steps(root, list names, list positions):
    """``render._follow``, compiled: the element the steps name from ``root``, by
    libxml2's ``children`` / ``next`` pointers; a proxy for that element only."""
    cdef cetree._Element root_el = <cetree._Element?>root
    cdef xmlNode* c = root_el._c_node
    cdef xmlNode* child
    cdef Py_ssize_t count = len(names), number, position, length
    cdef bytes wanted
    cdef const unsigned char* wanted_at
    if len(positions) != count:
        raise Unsupported("names and positions differ in length")
    if _check is None:
        _bind()
    if c is NULL or c.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("root is not an element")
    if count == 0:
        return None
    for number in range(count):
        if not number & 1023:
            _check()
        name = names[number]
        if not isinstance(name, str) or not (<str>name).isascii():
            raise Unsupported("a step name outside ASCII")
        wanted = (<str>name).encode("ascii")
        wanted_at = <const unsigned char*>wanted
        length = len(wanted)
        position = positions[number]
        if number == 0:  # (libxml2's name is the local one, as the tag's after its "}")
            if not _local_name_is(c.name, wanted_at, length) or position != 1:
                return None
            continue
        child = c.children
        while child is not NULL:
            if child.type == tree.XML_ELEMENT_NODE and _local_name_is(
                child.name, wanted_at, length
            ):
                position -= 1
                if not position:
                    break
            child = child.next
        if child is NULL:
            return None
        c = child
    return cetree.elementFactory(root_el._doc, c)


# -- jusText's context-sensitive classification (justext.algorithm.classify_context_sensitive)

cdef enum:
    _JT_GOOD = 0
    _JT_NEAR_GOOD = 1
    _JT_SHORT = 2
    _JT_BAD = 3


cdef class _JtBlocks:
    """The blocks' text lengths, read on first use (only headings look ahead)."""

    cdef list blocks
    cdef array.array lengths

    def __cinit__(self, list blocks):
        self.blocks = blocks
        self.lengths = array.array("q", [-1]) * len(blocks)

    cdef Py_ssize_t length(self, Py_ssize_t j) except -1:
        cdef long long[::1] lengths = self.lengths
        if lengths[j] < 0:
            lengths[j] = len(self.blocks[j].text)
        return lengths[j]


cdef bint _jt_precedes_good(
    _JtBlocks blocks, int[::1] classes, Py_ssize_t i, Py_ssize_t max_distance
) except -1:
    """``_precedes_good``: a good block follows block ``i`` within ``max_distance``
    characters."""
    cdef Py_ssize_t n = classes.shape[0]
    cdef Py_ssize_t distance = 0
    cdef Py_ssize_t j = i + 1
    while j < n and distance <= max_distance:
        if classes[j] == _JT_GOOD:
            return True
        distance += blocks.length(j)
        j += 1
    return False


cdef void _jt_nearest(int[::1] classes, int[::1] out, int step, bint ignore_near_good) noexcept:
    """``_nearest``: per block, the class of the closest good / bad (or near-good) block
    in direction ``step``, not counting itself; edges are bad."""
    cdef Py_ssize_t n = classes.shape[0]
    cdef Py_ssize_t k, i
    cdef int last = _JT_BAD
    cdef int c
    for k in range(n):
        i = k if step < 0 else n - 1 - k
        out[i] = last
        c = classes[i]
        if c == _JT_GOOD or c == _JT_BAD or (c == _JT_NEAR_GOOD and not ignore_near_good):
            last = c


def context_sensitive(
    list blocks,
    list cf_classes,
    list headings,
    Py_ssize_t max_heading_distance,
    bint heading_preprocessing,
    tuple names,
):
    """``justext.algorithm.classify_context_sensitive``, its passes over C arrays of class
    codes (``names``: the good, near-good, short and bad class strings, in that order). A
    class that is none of them raises :class:`Unsupported`."""
    cdef Py_ssize_t n = len(blocks)
    if len(cf_classes) != n or len(headings) != n:
        raise Unsupported("blocks, classes and headings differ in length")
    cdef _JtBlocks lengths = _JtBlocks(blocks)
    cdef array.array cf_array = array.array("i", [0]) * n
    cdef array.array work = array.array("i", [0]) * (6 * n + 1)
    cdef int[::1] cf = cf_array
    cdef int[::1] all_ = work
    cdef int[::1] classes = all_[0:n]
    cdef int[::1] prev_gb = all_[n : 2 * n]
    cdef int[::1] next_gb = all_[2 * n : 3 * n]
    cdef int[::1] prev_any = all_[3 * n : 4 * n]
    cdef int[::1] next_any = all_[4 * n : 5 * n]
    cdef int[::1] revised = all_[5 * n : 6 * n]
    cdef array.array heading_array = array.array("b", [0]) * n
    cdef signed char[::1] heading = heading_array
    cdef Py_ssize_t i, k
    cdef int c, prev, nxt, running
    for i in range(n):
        name = cf_classes[i]
        for k in range(4):
            if name is names[k] or name == names[k]:
                break
        else:
            raise Unsupported(f"class {name!r}")
        cf[i] = k
        classes[i] = k
        heading[i] = 1 if headings[i] else 0
    # heading pre-processing: short headings shortly before a good block become near-good
    if heading_preprocessing:
        for i in range(n):
            if (
                heading[i]
                and classes[i] == _JT_SHORT
                and _jt_precedes_good(lengths, classes, i, max_heading_distance)
            ):
                classes[i] = _JT_NEAR_GOOD
    # short blocks, by their good / bad neighbours (all decided before any is changed)
    _jt_nearest(classes, prev_gb, -1, True)
    _jt_nearest(classes, next_gb, 1, True)
    _jt_nearest(classes, prev_any, -1, False)
    _jt_nearest(classes, next_any, 1, False)
    for i in range(n):
        if classes[i] != _JT_SHORT:
            continue
        prev, nxt = prev_gb[i], next_gb[i]
        if prev == _JT_GOOD and nxt == _JT_GOOD:
            c = _JT_GOOD
        elif prev == _JT_BAD and nxt == _JT_BAD:
            c = _JT_BAD
        elif (prev == _JT_BAD and prev_any[i] == _JT_NEAR_GOOD) or (
            nxt == _JT_BAD and next_any[i] == _JT_NEAR_GOOD
        ):
            c = _JT_GOOD
        else:
            c = _JT_BAD
        revised[i] = c
    for i in range(n):
        if classes[i] == _JT_SHORT:
            classes[i] = revised[i]
    # near-good blocks: bad only between two bad blocks, revised in page order
    _jt_nearest(classes, next_gb, 1, True)
    running = _JT_BAD
    for i in range(n):
        if classes[i] == _JT_NEAR_GOOD:
            classes[i] = _JT_BAD if (running == _JT_BAD and next_gb[i] == _JT_BAD) else _JT_GOOD
        if classes[i] == _JT_GOOD or classes[i] == _JT_BAD:
            running = classes[i]
    # heading post-processing: non-bad headings before good text are good
    for i in range(n):
        if (
            heading[i]
            and classes[i] == _JT_BAD
            and cf[i] != _JT_BAD
            and _jt_precedes_good(lengths, classes, i, max_heading_distance)
        ):
            classes[i] = _JT_GOOD
    return [names[classes[i]] for i in range(n)]


def recipe_names(str name, tuple tokens, bint finite, bint real, bint majority_value,
                 tuple edges, tuple suffixes):
    """``entities.features._recipe``: the recipe's feature names under ``name`` over
    ``tokens``: its histogram in order of first appearance (as
    ``collections.Counter`` keeps it), its entropy and majority, binned by ``edges``
    into ``suffixes`` (``bin_value``'s unit bins); the same names in the same order,
    the sums done by Python's own ``sum`` (so in its order and precision), without a
    ``Counter``, a generator or a call per bin."""
    cdef Py_ssize_t n = len(tokens)
    if n == 0 or len(suffixes) != len(edges) + 1:
        raise Unsupported("no tokens, or bins of other lengths")
    cdef list out = []
    cdef dict hist = {}
    try:
        for t in tokens:
            hist[t] = hist.get(t, 0) + 1
    except TypeError:  # (a token that cannot be hashed: the Python function's to judge)
        raise Unsupported("an unhashable token") from None
    value = tokens[0]
    cdef Py_ssize_t count, best
    cdef double ratio
    if len(hist) == 1:  # the common case (every node a <td>): one value, no arithmetic
        if n > 1:
            out.append(name + "-ENTROPY:<=0.0")
        if majority_value:
            out.append(f"{name}-MAJORITY={value}")
        out.append(name + "-MAJORITYRATIO:<=1.0")
        out.append(name + "-SINGLE")
        if finite:
            out.append(f"{name}={value}:<=1.0")
    else:
        terms = []
        for c in hist.values():
            ratio = <double>(<Py_ssize_t>c) / <double>n
            terms.append(ratio * c_log(ratio))  # (math.log is the C library's log)
        entropy = -sum(terms) / c_log(<double>n)
        out.append(name + "-ENTROPY" + _unit_suffix(entropy, edges, suffixes))
        best = 0
        for key, c in hist.items():  # the first of the most frequent
            count = c
            if count > best:
                best = count
                value = key
        if majority_value:
            out.append(f"{name}-MAJORITY={value}")
        out.append(name + "-MAJORITYRATIO"
                   + _unit_suffix(<double>best / <double>n, edges, suffixes))
        if finite:
            for key, c in hist.items():
                out.append(f"{name}={key}" + _unit_suffix(<double>(<Py_ssize_t>c) / <double>n,
                                                          edges, suffixes))
    if real:
        mean = sum(tokens) / n
        std = _pymath.sqrt(sum([(t - mean) ** 2 for t in tokens]) / n)
        out.append(_log_bin(name + "-MEAN", mean))
        out.append(_log_bin(name + "-STD", std))
    return tuple(out)


cdef str _unit_suffix(double value, tuple edges, tuple suffixes):
    """``bin_value``'s unit bins: the suffix of the first edge not below ``value`` (the
    last, ``:>1``, for a value above every edge or NaN)."""
    if value != value:
        return <str>suffixes[len(suffixes) - 1]
    cdef Py_ssize_t k = 0, n = len(edges)
    while k < n and <double>edges[k] < value:
        k += 1
    return <str>suffixes[k]


cdef str _log_bin(str name, object value):
    """``bin_value(name, value, "log")``."""
    b = 0 if value <= 0 else int(_pymath.log2(value + 1))
    return f"{name}:log{b}"


@cython.boundscheck(False)
@cython.wraparound(False)
def ranker_leaves(feature, threshold, left, right, roots, int depth, values):
    """``entities.rerank.ranker_leaves``: each row's leaf (its node's index) in each tree,
    each row walking each tree at most ``depth`` steps, left where its value is at most
    the node's threshold (float64, as the NumPy walk compares them; a missing value goes
    right), instead of ``depth`` rounds of array operations over every row and tree."""
    import numpy as np

    cdef const long long[::1] f = np.ascontiguousarray(feature, dtype=np.int64)
    cdef const double[::1] th = np.ascontiguousarray(threshold, dtype=np.float64)
    cdef const long long[::1] lt = np.ascontiguousarray(left, dtype=np.int64)
    cdef const long long[::1] rt = np.ascontiguousarray(right, dtype=np.int64)
    cdef const long long[::1] rs = np.ascontiguousarray(roots, dtype=np.int64)
    cdef const double[:, ::1] x = np.ascontiguousarray(values, dtype=np.float64)
    cdef Py_ssize_t n_nodes = f.shape[0], n = x.shape[0], n_trees = rs.shape[0]
    cdef Py_ssize_t width = x.shape[1], i, r, t, step
    if th.shape[0] != n_nodes or lt.shape[0] != n_nodes or rt.shape[0] != n_nodes:
        raise Unsupported("the node arrays differ in length")
    for i in range(n_nodes):  # (every index checked once: the walks need no test)
        if f[i] >= width or (f[i] >= 0 and not (0 <= lt[i] < n_nodes and 0 <= rt[i] < n_nodes)):
            raise Unsupported("a node names a feature or child out of range")
    for t in range(n_trees):
        if not 0 <= rs[t] < n_nodes:
            raise Unsupported("a tree's root is out of range")
    out = np.empty((n, n_trees), dtype=np.int64)
    cdef long long[:, ::1] o = out
    cdef long long node
    with nogil:
        for r in range(n):
            for t in range(n_trees):
                node = rs[t]
                for step in range(depth):
                    if f[node] < 0:
                        break
                    if x[r, f[node]] <= th[node]:
                        node = lt[node]
                    else:
                        node = rt[node]
                o[r, t] = node
    return out
