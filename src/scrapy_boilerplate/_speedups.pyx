# cython: language_level=3
"""Compiled steps of the document model and the block-level methods (optional accelerator).

Each function here is a Python function of the package moved, rule for rule, onto
libxml2's own tree through lxml's public C API; the Python function stays as the reference
and the fallback, and ``tests/test_speedups.py`` holds each pair to the same output:

- :func:`justext_segment` is ``document._justext_segment``, jusText's block-level
  segmentation with CNR's nodes recorded on the same walk: the nodes are visited by their
  ``children`` / ``next`` / ``parent`` pointers instead of ``lxml.etree.iterwalk`` events,
  the walk's state lives in C variables, path nodes and the whitespace rule are compiled.
  ``.text`` and ``.tail`` are lxml's own (``textOf`` / ``tailOf``), element proxies are
  lxml's (``elementFactory``), so an element in a block is the very element the Python
  walk would give;
- :func:`find_removed` is ``document._find_removed``, the cleaning, in one pass;
- :func:`blocks_from_segments` is ``result._blocks_from_segments``, the labelled blocks of
  jusText and CNR, each made without a Python-level call.

Where a tree holds what the Python code was never written for (an entity reference node,
which the HTML parser never makes; a cleaning root that is not its document's top
element), :class:`Unsupported` is raised and the caller runs the Python function.

Built by ``setup.py`` when Cython and a C compiler are at hand; without it the package
runs on the Python functions, slower and otherwise the same.
"""

cimport cython
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF, Py_INCREF
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport (
    PyUnicode_4BYTE_KIND,
    PyUnicode_FromKindAndData,
    Py_UNICODE_ISPRINTABLE,
    Py_UNICODE_ISSPACE,
)
from libc.string cimport strchr, strcmp, strlen

from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode
cimport lxml.includes.etreepublic as cetree

cetree.import_lxml__etree()


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
    from ._deadline import check

    _TextBlock = document.TextBlock
    _bind_text_block(_TextBlock)
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
    """``document._xpath_step`` (``raw``: the element's ``.tag``): ``p``, or a name test
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
    "tags_count", "extra", "source_start", "source_end",
)  # fmt: skip
cdef Py_ssize_t _tb_offsets[12]
cdef bint _tb_fast = False
cdef tuple _no_args = ()


cdef _bind_text_block(cls):
    """Find TextBlock's slot offsets (a slots dataclass): where its fields are exactly
    :data:`_TEXT_BLOCK_FIELDS`, each a plain slot, blocks are made without ``setattr``."""
    global _tb_fast
    import dataclasses
    import types

    _tb_fast = False
    if tuple(f.name for f in dataclasses.fields(cls)) != _TEXT_BLOCK_FIELDS:
        return
    for i, name in enumerate(_TEXT_BLOCK_FIELDS):
        descriptor = cls.__dict__.get(name)
        if type(descriptor) is not types.MemberDescriptorType:
            return
        _tb_offsets[i] = (<PyMemberDescrObject*>descriptor).d_member.offset
    _tb_fast = True


cdef inline void _put(PyObject* obj, Py_ssize_t i, object value) noexcept:
    Py_INCREF(value)
    (<PyObject**>((<char*>obj) + _tb_offsets[i]))[0] = <PyObject*>value


cdef _text_block(str text, element, str tag, str xpath, str tag_path, Py_ssize_t link_chars,
                 Py_ssize_t index, Py_ssize_t start, Py_ssize_t tags_count):
    """A ``document.TextBlock`` with every field set as its ``__init__`` sets them, without
    the Python-level call: the fresh object's empty slots are filled directly."""
    cdef PyObject* obj
    if _tb_fast:
        obj = (<PyTypeObject*>_TextBlock).tp_new(
            <PyTypeObject*>_TextBlock, <PyObject*>_no_args, NULL
        )
        if obj is NULL:
            raise MemoryError()
        b = <object>obj
        Py_DECREF(b)  # <object> took a reference of its own
        _put(obj, 0, text)
        _put(obj, 1, element)
        _put(obj, 2, tag)
        _put(obj, 3, xpath)
        _put(obj, 4, tag_path)
        _put(obj, 5, link_chars)
        _put(obj, 6, index)
        _put(obj, 7, start)
        _put(obj, 8, tags_count)
        _put(obj, 9, {})
        _put(obj, 10, 0)
        _put(obj, 11, 0)
        return b
    b = _TextBlock.__new__(_TextBlock)
    b.text = text
    b.element = element
    b.tag = tag
    b.xpath = xpath
    b.tag_path = tag_path
    b.link_chars = link_chars
    b.index = index
    b.start = start
    b.tags_count = tags_count
    b.extra = {}
    b.source_start = 0
    b.source_end = 0
    return b


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


cdef Py_ssize_t _non_space(str text):
    """Characters of ``text`` that are not white space (``str.isspace``), as CNR counts."""
    cdef Py_UCS4 ch
    cdef Py_ssize_t k = 0
    for ch in text:
        if not Py_UNICODE_ISSPACE(ch):
            k += 1
    return k


cdef bint _plain(str text):
    """``text.isprintable() and "  " not in text``, in one pass."""
    cdef Py_UCS4 ch
    cdef bint space = False
    for ch in text:
        if ch == 32:  # " "
            if space:
                return False
            space = True
        elif not Py_UNICODE_ISPRINTABLE(ch):
            return False
        else:
            space = False
    return True


cdef str _normalize(str text):
    return _collapse(text, False)


cdef str _normalize_stripped(str text):
    """``_normalize(text.strip())``: the leading and trailing runs are dropped."""
    return _collapse(text, True)


cdef str _collapse(str text, bint strip):
    """``document.normalize_whitespace`` in one pass: each run of white space becomes
    ``"\\n"`` when it holds a line break (``\\n`` or ``\\r``), else one space; text
    without white space other than single spaces comes back as it is (the same object).

    That is what the Python function's lines, splits and joins amount to; the tests hold
    the two equal on generated strings.
    """
    if not strip and _plain(text):  # no whitespace but single ASCII spaces
        return text
    cdef Py_ssize_t n = len(text), k = 0
    cdef Py_UCS4* out = <Py_UCS4*>PyMem_Malloc((n if n else 1) * sizeof(Py_UCS4))
    if out is NULL:
        raise MemoryError()
    cdef Py_UCS4 ch
    cdef bint in_run = False, line_break = False
    try:
        for ch in text:
            if Py_UNICODE_ISSPACE(ch):
                if ch == 10 or ch == 13:  # "\\n", "\\r"
                    line_break = True
                in_run = True
            else:
                if in_run and not (strip and k == 0):
                    out[k] = 10 if line_break else 32
                    k += 1
                in_run = line_break = False
                out[k] = ch
                k += 1
        if in_run and not strip:
            out[k] = 10 if line_break else 32
            k += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, k)
    finally:
        PyMem_Free(out)


cdef inline _Path _new_path(str tag, str raw, _Path parent, element, Py_ssize_t position,
                            Py_ssize_t node, bint unwrapped):
    cdef _Path p = _Path.__new__(_Path)
    p.tag = tag
    p.raw = raw
    p.parent = parent
    p.element = element
    p.position = position
    p.node = node
    p.unwrapped = unwrapped
    return p


@cython.no_gc  # holds no reference cycle (parent, element, strings): no GC tracking
@cython.final
cdef class _Path:
    """``document._PathNode``, compiled: the same fields, xpath and dotted path."""

    cdef public str tag
    cdef public str raw  # the element's .tag (namespace, case)
    cdef public _Path parent
    cdef public object element
    cdef public Py_ssize_t position
    cdef public Py_ssize_t node
    cdef public bint unwrapped
    cdef public dict counts
    cdef str _xpath
    cdef str _dotted

    # ``counts`` (children per tag, for their positions) is made when a first child is
    # seen: most elements have none.

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
                    self._dotted = (parent._dotted + "." + self.tag) if parent._dotted else self.tag
                return self._dotted
            chain = []
            n = self
            while n is not None and n._dotted is None:
                chain.append(n)
                n = n.parent
            prefix = n._dotted if n is not None else ""
            chain.reverse()
            if len(chain) > _CACHE_CHAIN:
                tags = [prefix] if prefix else []
                tags += [m.tag for m in chain if not m.unwrapped]
                self._dotted = ".".join(tags)
            else:
                for n in chain:
                    if not n.unwrapped:
                        prefix = (prefix + "." + n.tag) if prefix else n.tag
                    n._dotted = prefix
        return self._dotted

    cdef str xpath(self):
        cdef _Path parent = self.parent
        cdef _Path n
        cdef str prefix
        cdef list chain
        if self._xpath is None:
            if parent is not None and parent._xpath is not None:  # the common case
                self._xpath = (
                    f"{parent._xpath}/{_xpath_step(self.tag, self.raw)}[{self.position}]"
                )
                return self._xpath
            chain = []
            n = self
            while n is not None and n._xpath is None:
                chain.append(n)
                n = n.parent
            prefix = n._xpath if n is not None else ""
            chain.reverse()
            if len(chain) > _CACHE_CHAIN:
                self._xpath = prefix + "".join(
                    [f"/{_xpath_step(m.tag, m.raw)}[{m.position}]" for m in chain]
                )
            else:
                for n in chain:
                    prefix = f"{prefix}/{_xpath_step(n.tag, n.raw)}[{n.position}]"
                    n._xpath = prefix
        return self._xpath


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


cdef class _Walk:
    """The walk's state: what ``_justext_segment``'s locals and closures hold."""

    cdef list blocks
    cdef object root
    cdef Py_ssize_t offset
    cdef bint record
    cdef list block_nodes

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
        if node is None:
            self.blocks.append(
                _text_block(text, self.root, "", "/", "", p.link_chars, n, self.offset,
                            p.tags_count)
            )
            if self.record:
                self.block_nodes.append(0)
        else:
            self.blocks.append(
                _text_block(
                    text,
                    node.element,
                    node.tag,
                    node.xpath(),
                    node.dotted(),
                    p.link_chars,
                    n,
                    self.offset,
                    p.tags_count,
                )
            )
            if self.record:
                self.block_nodes.append(node.node)
        self.offset += len(text) + 2


def justext_segment(root, removed, unwrapped=frozenset(), nodes=None):
    """:func:`scrapy_boilerplate.document._justext_segment`, compiled (same arguments, same
    result); raises :class:`Unsupported` on a tree it does not handle."""
    if _TextBlock is None:
        _bind()
    cdef cetree._Element root_el = <cetree._Element?>root
    cdef cetree._Document cdoc = root_el._doc
    cdef xmlNode* c_root = root_el._c_node
    cdef xmlNode* c = c_root
    cdef xmlNode* nxt
    if c is NULL or c.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("root is not an element")

    cdef _Walk w = _Walk()
    w.blocks = []
    w.root = root
    w.offset = 0
    block_tags = _block_tags
    cdef _Path path = None
    cdef _Para para = _Para(None)
    cdef bint link = False
    cdef bint br = False
    pending_ws = None  # reference cleaning: whitespace before an unwrapped tag
    cdef bint has_unwrapped = bool(unwrapped)
    cdef bint record = nodes is not None
    w.record = record
    cdef list n_menu, n_parent, n_elements, n_ends, n_texts, n_skipped, link_ids, link_texts
    cdef list text_counts, link_counts
    skip_tags = menu_tags = None
    if record:
        skip_tags = nodes.skip_tags
        menu_tags = nodes.menu_tags
        nodes.index = None  # made by CNR's tree on first use (CNRTree.element_index)
        n_menu = nodes.menu
        n_parent = nodes.parent
        n_elements = nodes.elements
        n_ends = nodes.ends
        n_texts = nodes.texts
        n_skipped = nodes.skipped
        link_ids = nodes.link_ids
        link_texts = nodes.link_texts
        w.block_nodes = nodes.block_nodes
        text_counts = nodes.text_counts = []
        link_counts = nodes.link_counts = []
    cdef Py_ssize_t cur = -1  # the open node: at its "end" event, the node that ends
    cdef Py_ssize_t in_link = 0  # elements open inside the current <a> (the <a> included)
    cdef Py_ssize_t hidden = 0  # elements open inside a nonContentNode that is no link
    cdef Py_ssize_t position
    cdef bint descend, has_text, text_tail, unwrapped_end, is_end
    cdef list chunks = []  # text of the open link
    cdef dict root_counts = {}
    cdef dict names = {}  # libxml2 name -> (el.tag, lower-case local name)
    cdef dict counts

    # Pre-order over elements, comments and PIs, as iterwalk(root, events=("start", "end",
    # "comment", "pi")) reports them: "start" on entering an element (a removed one's
    # subtree is skipped), "end" on leaving it, one event for a comment or a PI.
    is_end = False
    while True:
        if not is_end:
            # ---- "start" (an element), or "comment" / "pi"
            el = cetree.elementFactory(cdoc, c)
            if c.type == tree.XML_ELEMENT_NODE:
                # el.tag and its lower-case local name, cached by libxml2's name (one
                # interned string per name within a document) for elements without a
                # namespace, whose tag is that name
                key = <size_t>c.name if c.ns is NULL else 0
                named = names.get(key) if key else None
                if named is None:
                    raw = el.tag
                    tag = raw.lower()
                    if tag[0] == "{":  # XHTML parsed as XML: compare local names
                        tag = tag[tag.find("}") + 1 :]
                    if key:
                        names[key] = (raw, tag)
                else:
                    raw, tag = named
                if path is None:
                    counts = root_counts
                else:
                    counts = path.counts
                    if counts is None:
                        counts = path.counts = {}
                position = counts.get(tag, 0) + 1
                counts[tag] = position
                if el in removed:
                    if not record:
                        pass
                    elif hidden:
                        hidden += 1
                    elif in_link:
                        in_link += 1
                    else:  # a nonContentNode
                        n_skipped.append(len(n_parent))
                        n_parent.append(cur)
                        cur = len(n_elements)
                        n_elements.append(el)
                        n_ends.append(0)
                        if raw in menu_tags:
                            n_menu.append(cur)
                    is_end = True  # skip_subtree(): its "end" comes next
                    continue
                # lxml's .text, unless it is white space that nothing below reads: inside a
                # recorded link (its characters), at a recorded <a> (its first chunk), in
                # jusText 3.0.2's cleaning (unwrapped tags keep it)
                if _blank_run(c.children) and not (
                    has_unwrapped or (record and not hidden and (in_link or raw == "a"))
                ):
                    text = None
                    has_text = False
                else:
                    text = cetree.textOf(c)
                    has_text = _has_text(text)
                if not record:
                    pass
                elif hidden:
                    hidden += 1
                elif in_link:  # inside a link: no nodes, only its characters are counted
                    in_link += 1
                    if raw in skip_tags:
                        hidden = 1
                    elif text:
                        chunks.append(text)
                else:
                    n_parent.append(cur)
                    cur = len(n_elements)
                    n_elements.append(el)
                    n_ends.append(0)
                    if raw in menu_tags:
                        n_menu.append(cur)
                    if raw in skip_tags:
                        n_skipped.append(cur)
                        if raw == "a":
                            in_link = 1
                            link_ids.append(cur)
                            chunks = [text] if text else []
                        else:
                            hidden = 1
                    elif has_text:
                        n_parent.append(cur)
                        n_elements.append(el)
                        n_ends.append(-cur - 2)
                        n_texts.append(text)
                        text_counts.append(_non_space(text))
                if has_unwrapped and tag in unwrapped:
                    # The reference's Cleaner unwraps the tag: its text joins the text
                    # slot before it, whitespace included.
                    path = _new_path(tag, raw, path, el, position, cur, True)
                    text = (pending_ws or "") + (text or "")
                    if _has_text(text):
                        pending_ws = None
                        para.chunks.append(text)  # (characters())
                        if link:
                            para.link_chars += len(_normalize(text))
                        br = False
                    else:
                        pending_ws = text or None
                else:
                    pending_ws = None
                    path = _new_path(tag, raw, path, el, position, cur, False)
                    if tag in block_tags or (br and tag == "br"):
                        if para.chunks:
                            if tag == "br":
                                para.tags_count -= 1  # <br><br> separates blocks
                            w.close(para)
                            para = _Para(path)
                        else:  # nothing to keep: reuse the empty paragraph
                            para.path = path
                            para.tags_count = 0
                    else:
                        br = tag == "br"
                        if br:
                            para.chunks.append(" ")
                        elif tag == "a":
                            link = True
                        para.tags_count += 1
                    if has_text:  # (characters(), inlined)
                        para.chunks.append(text)
                        if link:
                            para.link_chars += len(_normalize(text))
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
            # or inside a recorded link, or in jusText 3.0.2's cleaning)
            if _blank_run(c.next) and not (has_unwrapped or (record and not hidden and in_link)):
                tail = None
                text_tail = False
            else:
                tail = cetree.tailOf(c)
                text_tail = _has_text(tail)
            if not record or hidden:  # (below a nonContentNode: nothing)
                pass
            elif in_link:
                if tail:
                    chunks.append(tail)
            elif text_tail:
                n_parent.append(cur)
                n_elements.append(el)
                n_ends.append(-len(n_parent))
                n_texts.append(tail)
                text_counts.append(_non_space(tail))
        else:
            # ---- "end" of the element c: its tail (read where it is not white space, or
            # inside a recorded link, or in jusText 3.0.2's cleaning)
            if _blank_run(c.next) and not (
                has_unwrapped or (record and hidden <= 1 and in_link > 1)
            ):
                tail = None
                text_tail = False
            else:
                tail = cetree.tailOf(c)
                text_tail = _has_text(tail)
            if record:
                if hidden > 1:  # an element below a nonContentNode ended
                    hidden -= 1
                else:
                    hidden = 0  # (when the nonContentNode itself ended)
                    if in_link > 1:  # an element inside a link ended: its tail is link text
                        in_link -= 1
                        if tail:
                            chunks.append(tail)
                    else:
                        if in_link:  # the link ends
                            in_link = 0
                            link_texts.append("".join(chunks))
                            link_counts.append(_non_space(link_texts[-1]))
                        n_ends[cur] = len(n_parent)
                        cur = n_parent[cur]
                        if text_tail and cur >= 0:  # the root's tail is outside the tree
                            n_parent.append(cur)
                            n_elements.append(cetree.elementFactory(cdoc, c))
                            n_ends.append(-len(n_parent))
                            n_texts.append(tail)
                            text_counts.append(_non_space(tail))
            if path is not None and (<cetree._Element>path.element)._c_node is c:
                tag = path.tag
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
                if not unwrapped_end and tag in block_tags:
                    if para.chunks:
                        w.close(para)
                        para = _Para(path)
                    else:
                        para.path = path
                        para.tags_count = 0
                if tag == "a":
                    link = False
        if text_tail:  # (characters(), inlined)
            pending_ws = None
            para.chunks.append(tail)
            if link:
                para.link_chars += len(_normalize(tail))
            br = False
        elif has_unwrapped:
            pending_ws = tail or None
        # next: the following sibling's "start" / event, else the parent's "end"
        if c is c_root:
            break
        nxt = _first_walked(c.next)
        if nxt is not NULL:
            c = nxt
            is_end = False
        else:
            c = c.parent
            is_end = True
    w.close(para)
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
    """:func:`scrapy_boilerplate.document._find_removed`, compiled: one pass over the tree
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
cdef object _python_blocks = None


cdef _bind_block():
    global _Block, _block_state, _python_blocks
    import dataclasses
    import types

    from . import result

    _Block = result.Block
    _python_blocks = result._blocks_from_segments
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
    cdef PyObject* value = (<PyObject**>((<char*><PyObject*>block) + _tb_offsets[i]))[0]
    if value is NULL:
        return getattr(block, _TEXT_BLOCK_FIELDS[i])  # raises AttributeError
    return <object>value


cdef inline void _put_block(PyObject* obj, Py_ssize_t i, object value) noexcept:
    Py_INCREF(value)
    (<PyObject**>((<char*>obj) + _block_offsets[i]))[0] = <PyObject*>value


def blocks_from_segments(segments, list labels, tuple keys, tuple columns):
    """``result._blocks_from_segments`` (the reference), compiled: each block's slots are
    filled directly, its fields dict built in C."""
    if _TextBlock is None:
        _bind()
    if _block_state == 0:
        _bind_block()
    cdef bint fast_read = _tb_fast
    if _block_state != 1:
        return _python_blocks(segments, labels, keys, columns)
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
