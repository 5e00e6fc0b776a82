# cython: language_level=3
"""``auto``'s compiled steps (optional accelerator), each the twin of a Python function of
:mod:`.features`, :mod:`.containers`, :mod:`.pagetype`, :mod:`.extractor` or
:mod:`.asides`, which stays the reference and the fallback (it declares its twin with
``core.compiled.twin``);
``tests/test_auto_speed.py`` holds each pair to the same output:

- :func:`element_masks` is ``features._element_masks_of``: the keyword groups of each
  block's element, its parent and everything above, with the ancestors found by libxml2's
  parent pointers and memoised by node instead of through a proxy per ancestor, and the
  words of a ``class`` / ``id`` (the value lower-cased by Python) matched against a trie
  of the keywords (:func:`value_mask` is ``features._value_mask``) instead of a
  dictionary look-up per prefix of each word;
- :func:`markup_counts` is ``pagetype._markup_counts``: the page's elements counted by
  tag, its largest group of look-alike siblings, its microdata types and its ``script``
  and ``meta`` elements, in one walk over the tree's pointers instead of a proxy per
  element (and a walk per tag looked for);
- :func:`text_counts` is ``features._text_counts``: each block's digits, punctuation,
  separators, capitalised words, letters, sentence breaks and whether it ends a sentence,
  in one pass over its code points (white space and word characters as Python's
  ``Py_UNICODE_ISSPACE`` and ``Py_UNICODE_ISALNUM`` say, which ``str.rstrip`` and ``re``
  use) instead of an array of every code point, a regular expression and a copy;
- :func:`word_counts` is ``features._word_counts``: each block's words, those in the
  stoplist, the share of them in the title, whether another block has the same words and
  whether it holds a copyright mark, in one pass over each lower-cased text, its words
  looked up by their hashes and code points instead of a string made for each;
- :func:`blocks_containing` is ``features.blocks_containing``: which texts hold one of
  a few strings (price marks, copyright marks), each text searched until its first hit
  instead of every text joined and searched for every string;
- :func:`container_features` is ``containers.container_features``: Readability's
  content score per container, with the same chains, the same sums in the same order and
  the same choices, in loops instead of a dozen array operations, and the scored
  containers' weights read through libxml2's parent pointers;
- :func:`context_free_codes`, :func:`path_table` and :func:`container_ids` are
  ``features._context_free_codes`` (jusText's context-free rules, block by block instead
  of an array operation per rule), ``features._path_table`` (each tag path's memoised row
  copied into place) and ``features._container_ids`` (each block's parent and grandparent
  numbered, their keys cut where the slashes are);
- :func:`block_columns` is ``features._columns``: the block feature matrix written row by
  row from the blocks' counts, with the reference's float64 arithmetic and one rounding
  to float32 per value, instead of a hundred array operations on its columns;
- :func:`sample_hits` is ``features._sample_hits``: the page's first words and how many
  of them are English stopwords (is the page English?), read where they stand instead of
  split into strings;
- :func:`block_summary` is ``pagetype._block_summary``: the page's features that sum up
  its blocks (their text in the best container, the share of headings, ...), in one pass
  over the blocks instead of an array operation per value;
- :func:`run_labels` is ``extractor.run_labels``: the best-run rule's labels, the prefix
  sums and the run found in one pass instead of a dozen array operations;
- :func:`aside_blocks` is ``asides.aside_blocks``: the kept blocks inside an element named
  as an aside, the blocks under an element found by their nodes' parent pointers instead
  of their xpaths' prefixes, and what is found of an element kept by its node's address;
- :class:`Forest` (with :func:`onnx_tree_nodes`, which reads the trees out of the ONNX
  file) scores the model's trees as onnxruntime's session does, the same float32 sums in
  the same order and the same post-transforms, without a session call's fixed costs
  (``auto.forest`` checks each forest against the session before it is used).

Where a tree holds what the Python function was never written for (a namespaced element,
an element that is not one), :class:`Unsupported` is raised and the twin runs the Python
function. Built by ``setup.py`` with the core's ``_speedups`` when Cython and a C compiler
are at hand; without it ``auto`` runs on the Python functions, slower and otherwise the
same.
"""

cimport cython
from cpython cimport array
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_RawFree, PyMem_RawMalloc
from cpython.unicode cimport (
    Py_UNICODE_ISALNUM,
    Py_UNICODE_ISSPACE,
    PyUnicode_DATA,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
    PyUnicode_READ,
)
from libc.float cimport FLT_MAX
from libc.math cimport expf, fabsf, isnan, log1p
from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.stdlib cimport qsort
from libc.string cimport memchr, memcmp, strcmp

from lxml.includes cimport tree
from lxml.includes.tree cimport xmlNode
cimport lxml.includes.etreepublic as cetree

cetree.import_lxml__etree()

import array

from scrapy_boilerplate.core._speedups cimport StrChar
from scrapy_boilerplate.core._speedups import Unsupported


cdef inline xmlNode* _parent(xmlNode* c) noexcept:
    """``getparent()``: the parent element, NULL at the top (lxml's ``_parentElement``)."""
    c = c.parent
    if c is NULL or not cetree._isElement(c):
        return NULL
    return c


cdef class _Keywords:
    """The keywords of ``features._KEYWORD_BITS`` as a trie over ``a``..``z``: a word's
    groups are the bits met on its way down (those of every keyword it starts with)."""

    cdef object source  # the dict it was built from
    cdef array.array children  # 26 per node, -1: none
    cdef array.array bits  # per node: the groups of the keyword ending there

    def __cinit__(self, dict keyword_bits):
        self.source = keyword_bits
        self.children = array.array("i", [-1] * 26)
        self.bits = array.array("q", [0])
        cdef int node, k
        for word, mask in keyword_bits.items():
            if not word or not all("a" <= ch <= "z" for ch in word):
                continue  # never a word of [a-z]+
            node = 0
            for ch in word:
                k = ord(ch) - 97
                if self.children[node * 26 + k] < 0:
                    self.children[node * 26 + k] = len(self.bits)
                    self.children.extend([-1] * 26)
                    self.bits.append(0)
                node = self.children[node * 26 + k]
            self.bits[node] |= mask

    cdef long long value_mask(self, str value) except? -1:
        """``features._value_mask``: the groups of the ``[a-z]+`` words of the value
        lower-cased (by Python's own ``str.lower``)."""
        cdef str lowered = value.lower()
        cdef int kind = PyUnicode_KIND(lowered)
        cdef void* data = PyUnicode_DATA(lowered)
        cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(lowered)
        cdef unsigned int ch
        cdef int node = 0  # 0 at a word's start; -1 past every keyword of this word
        cdef long long mask = 0
        cdef int* children = self.children.data.as_ints
        cdef long long* bits = self.bits.data.as_longlongs
        for i in range(n):
            ch = <unsigned int>PyUnicode_READ(kind, data, i)
            if 97 <= ch <= 122:
                if node >= 0:
                    node = children[node * 26 + (ch - 97)]
                    if node >= 0:
                        mask |= bits[node]
            else:
                node = 0
        return mask


cdef _Keywords _keywords = None


cdef _Keywords _keywords_of(dict keyword_bits):
    global _keywords
    if _keywords is None or _keywords.source is not keyword_bits:
        _keywords = _Keywords(keyword_bits)
    return _keywords


def value_mask(str value, dict keyword_bits):
    """``features._value_mask`` with the keywords ``keyword_bits`` (word -> groups)."""
    return _keywords_of(keyword_bits).value_mask(value)


cdef class _Masks:
    cdef dict owned  # node address -> groups of its own class and id
    cdef dict memo  # node address -> groups of it and every element above it
    cdef _Keywords keywords

    def __cinit__(self, _Keywords keywords):
        self.owned = {}
        self.memo = {}
        self.keywords = keywords

    cdef object own(self, xmlNode* c):
        key = <size_t>c
        mask = self.owned.get(key)
        if mask is None:
            if c.type != tree.XML_ELEMENT_NODE:
                raise Unsupported("not an element")
            value = cetree.attributeValueFromNsName(c, NULL, <const unsigned char*>b"class")
            ident = cetree.attributeValueFromNsName(c, NULL, <const unsigned char*>b"id")
            mask = (self.keywords.value_mask(value) if value else 0) | (
                self.keywords.value_mask(ident) if ident else 0
            )
            self.owned[key] = mask
        return mask

    cdef object chain(self, xmlNode* c):
        cdef list todo = []
        cdef xmlNode* node = c
        cdef Py_ssize_t i
        while node is not NULL and <size_t>node not in self.memo:
            todo.append(<size_t>node)
            node = _parent(node)
        mask = self.memo[<size_t>node] if node is not NULL else 0
        for i in range(len(todo) - 1, -1, -1):
            mask = mask | self.own(<xmlNode*><size_t>todo[i])
            self.memo[todo[i]] = mask
        return self.memo[<size_t>c]


def element_masks(list elements, dict keyword_bits):
    """``features._element_masks_of`` on the blocks' elements: ``(owns, aboves)``, each
    block's groups of its own element and parent, and of every element above those; an
    element's groups are those of the ``[a-z]+`` words of its ``class`` and of its ``id``
    lower-cased, by the keywords ``keyword_bits`` (word -> groups: a word has those of
    every keyword it starts with)."""
    cdef _Masks masks = _Masks(_keywords_of(keyword_bits))
    cdef list owns = [], aboves = []
    cdef xmlNode* c
    cdef xmlNode* parent
    cdef xmlNode* up
    for el in elements:
        if not isinstance(el, cetree._Element) or (<cetree._Element>el)._c_node is NULL:
            raise Unsupported("not an element")
        c = (<cetree._Element>el)._c_node
        parent = _parent(c)
        if parent is NULL:
            owns.append(masks.own(c))
            aboves.append(0)
            continue
        owns.append(masks.own(c) | masks.own(parent))
        up = _parent(parent)
        aboves.append(masks.chain(up) if up is not NULL else 0)
    return owns, aboves


cdef enum:
    _MAX_NAMES = 64  # tags a list of markup_counts holds at most (more: Python runs)
    _NAME_SLOTS = 256  # markup_counts' table of the tag names met (a power of two)
    _NAME_FILL = 192  # names filed in it at most; the others are compared each time


cdef struct _NameSlot:
    const char* name  # NULL: an empty slot
    int tag, sibling, collected  # the name's index in each list, -1 where it is not in it


cdef inline int _index_of(const char* name, const char** names, Py_ssize_t n) noexcept:
    cdef Py_ssize_t k
    for k in range(n):
        if strcmp(name, names[k]) == 0:
            return <int>k
    return -1


def markup_counts(root, tuple names, tuple sibling_tags, tuple collect):
    """``pagetype._markup_counts``: ``(counts, total, biggest, itemtypes, collected)``, the
    number of elements of each tag of ``names`` (a list in that order), of elements in all,
    the largest number of elements of one ``sibling_tags`` tag and one ``class`` under one
    parent, the raw ``itemtype`` values and, per tag of ``collect``, its elements (lxml's
    proxies), in document order."""
    if not isinstance(root, cetree._Element) or (<cetree._Element>root)._c_node is NULL:
        raise Unsupported("not an element")
    cdef xmlNode* top = (<cetree._Element>root)._c_node
    cdef xmlNode* c = top
    cdef xmlNode* parent
    cdef list encoded = [n.encode("utf-8") for n in names]
    cdef list sibling_encoded = [n.encode("utf-8") for n in sibling_tags]
    cdef list collect_encoded = [n.encode("utf-8") for n in collect]
    cdef list collected = [[] for _ in collect]
    cdef Py_ssize_t n_collect = len(collect_encoded)
    cdef cetree._Document cdoc = (<cetree._Element>root)._doc
    cdef Py_ssize_t n_names = len(encoded), n_siblings = len(sibling_encoded), k
    if n_names > _MAX_NAMES or n_siblings > _MAX_NAMES or n_collect > _MAX_NAMES:
        raise Unsupported("more tags than the compiled step holds")
    # the tags as C strings (the lists above keep their bytes alive), counts in C
    cdef const char* name_of[_MAX_NAMES]
    cdef const char* sibling_of[_MAX_NAMES]
    cdef const char* collect_of[_MAX_NAMES]
    cdef Py_ssize_t tag_counts[_MAX_NAMES]
    for k in range(n_names):
        name_of[k] = <const char*>(<bytes>encoded[k])
        tag_counts[k] = 0
    for k in range(n_siblings):
        sibling_of[k] = <const char*>(<bytes>sibling_encoded[k])
    for k in range(n_collect):
        collect_of[k] = <const char*>(<bytes>collect_encoded[k])
    cdef Py_ssize_t total = 0
    cdef dict siblings = {}
    cdef list itemtypes = []
    cdef const char* name
    # each tag name met, by its address, with its place in the three lists: libxml2's
    # parser keeps one copy of each name in the document's dictionary, so a page's
    # thousands of elements come to a few dozen addresses, each compared with the lists
    # once (a name filed by its address is the same text for the whole walk)
    cdef _NameSlot names_met[_NAME_SLOTS]
    cdef _NameSlot found
    cdef Py_ssize_t slot, filed = 0
    for slot in range(_NAME_SLOTS):
        names_met[slot].name = NULL
    if top.type != tree.XML_ELEMENT_NODE:
        raise Unsupported("not an element")
    while c is not NULL:
        if c.type == tree.XML_ELEMENT_NODE:
            if c.ns is not NULL:
                raise Unsupported("a namespaced element")
            total += 1
            name = <const char*>c.name
            slot = <Py_ssize_t>((<size_t>name >> 4) & (_NAME_SLOTS - 1))
            while names_met[slot].name is not NULL and names_met[slot].name != name:
                slot = (slot + 1) & (_NAME_SLOTS - 1)
            if names_met[slot].name is not NULL:
                found = names_met[slot]
            else:
                found.name = name
                found.tag = _index_of(name, name_of, n_names)
                found.sibling = _index_of(name, sibling_of, n_siblings)
                found.collected = _index_of(name, collect_of, n_collect)
                if filed < _NAME_FILL:
                    names_met[slot] = found
                    filed += 1
            if found.tag >= 0:
                tag_counts[found.tag] += 1
            if found.sibling >= 0:
                parent = _parent(c)
                cls = cetree.attributeValueFromNsName(
                    c, NULL, <const unsigned char*>b"class"
                ) or ""
                key = (<size_t>parent, found.sibling, cls)
                siblings[key] = siblings.get(key, 0) + 1
            itemtype = cetree.attributeValueFromNsName(c, NULL, <const unsigned char*>b"itemtype")
            if itemtype:
                itemtypes.append(itemtype)
            if found.collected >= 0:
                (<list>collected[found.collected]).append(cetree.elementFactory(cdoc, c))
            if c.children is not NULL:
                c = c.children
                continue
        # the next node: a sibling, else the first ancestor's sibling (never past the top)
        while c is not top and c.next is NULL:
            c = c.parent
        if c is top:
            break
        c = c.next
    counts = [tag_counts[k] for k in range(n_names)]
    return counts, total, max(siblings.values(), default=0), itemtypes, collected


cdef inline bint _in(Py_UCS4 ch, str chars):
    """Whether ``ch`` is one of ``chars`` (a handful of characters)."""
    cdef Py_UCS4 c
    for c in chars:
        if c == ch:
            return True
    return False


cdef struct _CharCounts:
    long digits, punctuation, separators, capitals, spaces, sentences


cdef void _count_chars(const StrChar* chars, Py_ssize_t length, const unsigned char* bits,
                       Py_ssize_t size, _CharCounts* c) noexcept:
    """:func:`text_counts`' pass over one text, compiled once per width of its characters
    (no width test per character); the flags added without a test each."""
    cdef Py_ssize_t i, j
    cdef Py_UCS4 ch, nxt
    cdef unsigned int flag, after_space = 1  # a block's first character starts a word
    cdef long digits = 0, punctuation = 0, separators = 0, capitals = 0, spaces = 0
    cdef long sentences = 0
    for i in range(length):
        ch = chars[i]
        flag = bits[ch] if ch < <Py_UCS4>size else 0
        digits += flag & 1
        punctuation += (flag >> 1) & 1
        separators += (flag >> 2) & 1
        capitals += (flag >> 3) & after_space
        after_space = (flag >> 4) & 1
        spaces += ch == 32
        if ch == 46 or ch == 33 or ch == 63:  # . ! ?
            j = i + 1
            while j < length and Py_UNICODE_ISSPACE(chars[j]):
                j += 1
            if j > i + 1 and j < length:
                nxt = chars[j]
                if Py_UNICODE_ISALNUM(nxt) or nxt == 95:  # \w: alphanumeric or "_"
                    sentences += 1
    c.digits = digits
    c.punctuation = punctuation
    c.separators = separators
    c.capitals = capitals
    c.spaces = spaces
    c.sentences = sentences


def text_counts(list texts, bytes table, str ends, str closers):
    """``features._text_counts``: per text, its digits, punctuation, separators and
    capitalised words (the bits of ``table``, one byte per code point below its length:
    1 digit, 2 punctuation, 4 separator, 8 capital letter, 16 space), its characters but
    U+0020, its sentence breaks (``[.!?]`` followed by white space then a word character,
    as the regular expression ``[.!?](?=\\s+\\w)`` finds them) and whether it ends a
    sentence (the last of ``ends`` after white space, and one of ``closers``, are taken
    off its end): seven float64 arrays, in one pass over each text's code points."""
    import numpy as np

    cdef Py_ssize_t n = len(texts)
    out = np.zeros((7, n), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef const unsigned char* bits = table
    cdef Py_ssize_t size = len(table)
    cdef Py_ssize_t b, j, length
    cdef int kind
    cdef void* data
    cdef _CharCounts c
    cdef str text
    for b in range(n):
        text = <str?>texts[b]
        kind = PyUnicode_KIND(text)
        data = PyUnicode_DATA(text)
        length = PyUnicode_GET_LENGTH(text)
        if kind == 1:
            _count_chars(<const uint8_t*>data, length, bits, size, &c)
        elif kind == 2:
            _count_chars(<const uint16_t*>data, length, bits, size, &c)
        else:
            _count_chars(<const uint32_t*>data, length, bits, size, &c)
        o[0, b] = c.digits
        o[1, b] = c.punctuation
        o[2, b] = c.separators
        o[3, b] = c.capitals
        o[4, b] = length - c.spaces
        o[5, b] = c.sentences
        # ends a sentence: text.rstrip()[-2:], a closer taken off, the last in ``ends``
        j = length - 1
        while j >= 0 and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, j)):
            j -= 1
        if j >= 0 and _in(PyUnicode_READ(kind, data, j), closers):
            j -= 1
        o[6, b] = 1.0 if j >= 0 and _in(PyUnicode_READ(kind, data, j), ends) else 0.0
    return tuple(out)


#: FNV-1a over code points: a word's hash, the same for a word of a text and of a set
cdef extern from *:
    """
    #define SB_FNV_OFFSET 14695981039346656037ULL
    #define SB_FNV_PRIME 1099511628211ULL
    """
    unsigned long long _FNV_OFFSET "SB_FNV_OFFSET"
    unsigned long long _FNV_PRIME "SB_FNV_PRIME"


cdef inline unsigned long long _word_hash(int kind, void* data, Py_ssize_t start,
                                          Py_ssize_t end) noexcept:
    cdef unsigned long long h = _FNV_OFFSET
    cdef Py_ssize_t i
    for i in range(start, end):
        h = (h ^ <unsigned long long>PyUnicode_READ(kind, data, i)) * _FNV_PRIME
    return h


cdef inline bint _same_span(int kind, void* data, Py_ssize_t start, int okind, void* odata,
                            Py_ssize_t ostart, Py_ssize_t n) noexcept:
    """Whether ``n`` code points from ``start`` of one string's data equal ``n`` from
    ``ostart`` of another's (or the same one's)."""
    cdef Py_ssize_t i
    for i in range(n):
        if PyUnicode_READ(kind, data, start + i) != PyUnicode_READ(okind, odata, ostart + i):
            return False
    return True


cdef inline Py_ssize_t _next_word(int kind, void* data, Py_ssize_t length, Py_ssize_t i,
                                  Py_ssize_t* start, unsigned long long* h) noexcept:
    """The next word of a text from ``i`` on (split at white space as ``str.split``
    splits): its end, with its start and :func:`_word_hash` in ``start`` and ``h``; -1
    where no word is left. The text's width is tested once a word, not once a character."""
    if kind == 1:
        return _next_word_of(<const uint8_t*>data, length, i, start, h)
    if kind == 2:
        return _next_word_of(<const uint16_t*>data, length, i, start, h)
    return _next_word_of(<const uint32_t*>data, length, i, start, h)


cdef inline Py_ssize_t _next_word_of(const StrChar* chars, Py_ssize_t length, Py_ssize_t i,
                                     Py_ssize_t* start, unsigned long long* h) noexcept:
    cdef Py_UCS4 ch
    cdef unsigned long long hash_ = _FNV_OFFSET
    while i < length and Py_UNICODE_ISSPACE(chars[i]):
        i += 1
    if i >= length:
        return -1
    start[0] = i
    while i < length:
        ch = chars[i]
        if Py_UNICODE_ISSPACE(ch):
            break
        hash_ = (hash_ ^ <unsigned long long>ch) * _FNV_PRIME
        i += 1
    h[0] = hash_
    return i


cdef class _WordSet:
    """A set of words (``str``) looked up by a slice of a text, without making the slice
    a string: open addressing on :func:`_word_hash`, every hit checked code point by code
    point."""

    cdef object source  # the set it was built from
    cdef list words
    cdef array.array hashes  # per slot: the word's hash
    cdef array.array slots  # per slot: the word's index in ``words``, -1: empty
    cdef Py_ssize_t mask

    def __cinit__(self, source):
        self.source = source
        self.words = [w for w in source if isinstance(w, str)]
        cdef Py_ssize_t size = 8, slot
        while size < 2 * len(self.words):
            size *= 2
        self.mask = size - 1
        self.hashes = array.array("Q", [0] * size)
        self.slots = array.array("q", [-1] * size)
        cdef unsigned long long h
        cdef str word
        cdef Py_ssize_t k
        for k in range(len(self.words)):
            word = <str>self.words[k]
            h = _word_hash(PyUnicode_KIND(word), PyUnicode_DATA(word), 0,
                           PyUnicode_GET_LENGTH(word))
            slot = <Py_ssize_t>(h & <unsigned long long>self.mask)
            while self.slots.data.as_longlongs[slot] >= 0:
                slot = (slot + 1) & self.mask
            self.slots.data.as_longlongs[slot] = k
            self.hashes.data.as_ulonglongs[slot] = h

    cdef bint contains(self, int kind, void* data, Py_ssize_t start, Py_ssize_t end,
                       unsigned long long h) noexcept:
        cdef Py_ssize_t slot = <Py_ssize_t>(h & <unsigned long long>self.mask)
        cdef long long k
        cdef long long* slots = self.slots.data.as_longlongs
        cdef unsigned long long* hashes = self.hashes.data.as_ulonglongs
        cdef str word
        while True:
            k = slots[slot]
            if k < 0:
                return False
            if hashes[slot] == h:  # (the word itself read only where the hash agrees)
                word = <str>self.words[k]
                if (PyUnicode_GET_LENGTH(word) == end - start
                        and _same_span(kind, data, start, PyUnicode_KIND(word),
                                       PyUnicode_DATA(word), 0, end - start)):
                    return True
            slot = (slot + 1) & self.mask


#: the stoplists' sets, by the stoplist object (each kept, so its id stays its own)
cdef dict _word_sets = {}


cdef _WordSet _word_set_of(object words):
    cdef _WordSet found = _word_sets.get(id(words))
    if found is None or found.source is not words:
        if len(_word_sets) >= 64:
            _word_sets.clear()
        found = _WordSet(words)
        _word_sets[id(words)] = found
    return found


cdef enum:
    _TITLE_WORDS = 30  # a block of fewer words gets the share of them in the title


cdef struct _Keyed:
    unsigned long long key
    Py_ssize_t index


cdef int _by_key(const void* a, const void* b) noexcept nogil:
    cdef unsigned long long x = (<const _Keyed*>a).key, y = (<const _Keyed*>b).key
    return (x > y) - (x < y)


cdef inline bint _in_bytes(const unsigned char* data, Py_ssize_t length,
                           const unsigned char* needle, Py_ssize_t n) noexcept:
    """Whether the ``n`` bytes of ``needle`` (``n`` > 0) occur in the ``length`` bytes of
    ``data``: each place of the first byte found by ``memchr``, the rest compared there."""
    if n > length:
        return False
    cdef const unsigned char* at = data
    cdef const unsigned char* last = data + length - n  # the last place a match can start
    while at <= last:
        at = <const unsigned char*>memchr(at, needle[0], <size_t>(last - at + 1))
        if at is NULL:
            return False
        if memcmp(at + 1, needle + 1, <size_t>(n - 1)) == 0:
            return True
        at += 1
    return False


cdef class _Needles:
    """A few strings searched for in texts in one pass over each text: at each code point
    that starts one of them (a table for the code points below 256), the strings that
    start with it are compared where they stand."""

    cdef tuple strings
    cdef unsigned char starts[256]  # 1 where a string starts with this code point
    cdef bint wide  # a string starts with a code point past 255

    def __cinit__(self, tuple strings):
        if not all(isinstance(u, str) and u for u in strings):
            raise Unsupported("substrings the compiled step does not take")
        self.strings = strings
        self.wide = False
        cdef Py_ssize_t k
        for k in range(256):
            self.starts[k] = 0
        cdef Py_UCS4 first
        for u in strings:
            first = PyUnicode_READ(PyUnicode_KIND(u), PyUnicode_DATA(u), 0)
            if first < 256:
                self.starts[first] = 1
            else:
                self.wide = True

    cdef bint found_in(self, str text) except -1:
        cdef int kind = PyUnicode_KIND(text), ukind
        cdef void* data = PyUnicode_DATA(text)
        cdef void* udata
        cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text), i, n
        cdef Py_UCS4 ch
        cdef str u
        if kind == 1:
            # a text of one byte a character (most page text): each string of one byte a
            # character searched for with the C library's memchr; a wider one (a code
            # point past 255) cannot be in it
            for item in self.strings:
                u = <str>item
                if PyUnicode_KIND(u) == 1 and _in_bytes(<const unsigned char*>data, length,
                             <const unsigned char*>PyUnicode_DATA(u), PyUnicode_GET_LENGTH(u)):
                    return True
            return False
        for i in range(length):
            ch = PyUnicode_READ(kind, data, i)
            if (ch < 256 and not self.starts[ch]) or (ch >= 256 and not self.wide):
                continue
            for item in self.strings:
                u = <str>item
                n = PyUnicode_GET_LENGTH(u)
                ukind = PyUnicode_KIND(u)
                udata = PyUnicode_DATA(u)
                if (PyUnicode_READ(ukind, udata, 0) == ch and i + n <= length
                        and _same_span(kind, data, i, ukind, udata, 0, n)):
                    return True
        return False


def blocks_containing(tuple substrings, list texts):
    """``features.blocks_containing``: which texts hold one of ``substrings`` (non-empty
    strings), each text searched until its first hit."""
    import numpy as np

    cdef _Needles needles = _Needles(substrings)
    cdef Py_ssize_t n = len(texts), i
    out = np.zeros(n, dtype=bool)
    if not substrings:
        return out
    cdef unsigned char[::1] o = out.view(np.uint8)
    for i in range(n):
        if needles.found_in(<str?>texts[i]):
            o[i] = 1
    return out


def word_counts(list lowers, frozenset stoplist, frozenset title, tuple substrings):
    """``features._word_counts``: per lower-cased text, its words (split at white space as
    ``str.split`` splits), those in ``stoplist``, the share of its distinct words in
    ``title`` (texts of 1 to 29 words that share one), whether another text has the same
    words, and whether it holds one of ``substrings``: five float64 arrays, in one pass
    over each text's code points, each word looked up by its hash and its code points
    without a string made for it. Texts whose words hash alike are compared as the Python
    function compares them (their words joined), so a collision never makes a
    duplicate."""
    import numpy as np

    cdef Py_ssize_t n = len(lowers)
    cdef _Needles needles = _Needles(substrings)
    out = np.zeros((5, n), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef _WordSet stop_set = _word_set_of(stoplist)
    cdef _WordSet title_set = _WordSet(title) if title else None
    cdef Py_ssize_t k, j, b, i, s = 0, end, length, words, hits, distinct, shared
    cdef Py_ssize_t starts[_TITLE_WORDS]
    cdef Py_ssize_t ends[_TITLE_WORDS]
    cdef unsigned long long hashes[_TITLE_WORDS]
    cdef unsigned long long h, key
    cdef int kind
    cdef void* data
    cdef str text
    cdef bint seen
    cdef _Keyed* keyed = <_Keyed*>PyMem_Malloc(max(n, 1) * sizeof(_Keyed))
    if keyed is NULL:
        raise MemoryError()
    try:
        for b in range(n):
            text = <str?>lowers[b]
            kind = PyUnicode_KIND(text)
            data = PyUnicode_DATA(text)
            length = PyUnicode_GET_LENGTH(text)
            words = hits = 0
            key = _FNV_OFFSET
            i = 0
            while True:
                end = _next_word(kind, data, length, i, &s, &h)
                if end < 0:
                    break
                if stop_set.contains(kind, data, s, end, h):
                    hits += 1
                if words < _TITLE_WORDS:
                    starts[words] = s
                    ends[words] = end
                    hashes[words] = h
                words += 1
                key = (key ^ h) * _FNV_PRIME
                i = end
            o[0, b] = words
            o[1, b] = hits
            o[4, b] = 1.0 if substrings and needles.found_in(text) else 0.0
            if title_set is not None and 0 < words < _TITLE_WORDS:
                distinct = shared = 0
                for k in range(words):
                    seen = False
                    for j in range(k):  # the same word earlier in the block: not distinct
                        if (hashes[j] == hashes[k] and ends[j] - starts[j] == ends[k] - starts[k]
                                and _same_span(kind, data, starts[j], kind, data, starts[k],
                                               ends[k] - starts[k])):
                            seen = True
                            break
                    if seen:
                        continue
                    distinct += 1
                    if title_set.contains(kind, data, starts[k], ends[k], hashes[k]):
                        shared += 1
                if shared:
                    o[2, b] = <double>shared / <double>distinct
            keyed[b].key = (key ^ <unsigned long long>words) * _FNV_PRIME
            keyed[b].index = b
        # texts whose words hash alike, found by sorting the hashes; their words compared
        qsort(keyed, n, sizeof(_Keyed), _by_key)
        i = 0
        while i < n:
            j = i + 1
            while j < n and keyed[j].key == keyed[i].key:
                j += 1
            if j - i > 1:
                joined = {}
                group = []
                for k in range(i, j):
                    words_key = " ".join((<str>lowers[keyed[k].index]).split())
                    joined[words_key] = joined.get(words_key, 0) + 1
                    group.append((keyed[k].index, words_key))
                for b, words_key in group:
                    if joined[words_key] > 1:
                        o[3, b] = 1.0
            i = j
    finally:
        PyMem_Free(keyed)
    return tuple(out)


def sample_hits(list lowers, frozenset stoplist, Py_ssize_t limit):
    """``features._sample_hits``: how many of the texts' first ``limit`` words there are
    (split at white space as ``str.split`` splits) and how many of them are in
    ``stoplist``, each word looked up by its hash and code points where it stands."""
    cdef _WordSet stop_set = _word_set_of(stoplist)
    cdef Py_ssize_t words = 0, hits = 0, b, i, s = 0, end, length
    cdef unsigned long long h = 0
    cdef int kind
    cdef void* data
    cdef str text
    for b in range(len(lowers)):
        if words >= limit:
            break
        text = <str?>lowers[b]
        kind = PyUnicode_KIND(text)
        data = PyUnicode_DATA(text)
        length = PyUnicode_GET_LENGTH(text)
        i = 0
        while words < limit:
            end = _next_word(kind, data, length, i, &s, &h)
            if end < 0:
                break
            words += 1
            if stop_set.contains(kind, data, s, end, h):
                hits += 1
            i = end
    return words, hits


cdef inline str _parent_key(str xpath):
    return xpath[: xpath.rfind("/")]


cdef double _container_weight(
    xmlNode* c, dict tag_weights, dict value_weights, object value_weight
) except? -1e300:
    """``containers.element_weight`` of the element at ``c``: its tag's weight (the tag as
    lxml names it) and its ``class`` and ``id`` values' (memoised in ``value_weights``
    by ``value_weight``)."""
    cdef double weight = tag_weights.get(cetree.namespacedName(c), 0.0)
    for name in (b"class", b"id"):
        value = cetree.attributeValueFromNsName(c, NULL, <const unsigned char*>(<bytes>name))
        if value:
            found = value_weights.get(value)
            weight += found if found is not None else value_weight(value)
    return weight


def container_features(
    list blocks,
    list texts,
    const double[::1] chars,
    const double[::1] links,
    dict tag_weights,
    dict value_weights,
    object value_weight,
    dict columns,
    Py_ssize_t levels_n,
    tuple shares,
    double min_chars,
    double sibling_min,
    double sibling_share,
    Py_ssize_t root_steps,
):
    """``containers.container_features``: the same chains of containers by XPath, and
    the same sums in the same order (per level, block by block, as ``np.bincount`` adds),
    in loops instead of a dozen array operations per page, and each scored container's
    weight (``containers.element_weight``: ``tag_weights``, and ``value_weight`` memoised
    in ``value_weights``) read through libxml2's parent pointers without a proxy per
    ancestor (``columns``: each of the six columns' index, by its name)."""
    import numpy as np

    cdef Py_ssize_t n = len(blocks)
    out = np.zeros((n, len(columns)), dtype=np.float32)  # (one column per name)
    if n == 0:
        return out
    if len(texts) != n or chars.shape[0] != n or links.shape[0] != n or levels_n < 1:
        raise Unsupported("blocks, texts and counts differ in length")
    cdef float[:, ::1] o = out
    cdef Py_ssize_t c_top = columns["rd_in_top"], c_best = columns["rd_best_ancestor"]
    cdef Py_ssize_t c_share = columns["rd_top_share"], c_sibling = columns["rd_in_sibling"]
    cdef Py_ssize_t c_parent = columns["rd_parent_score"], c_below = columns["rd_below_top"]
    cdef Py_ssize_t n_shares = len(shares)
    cdef list xpaths = [b.xpath for b in blocks]
    # each block's parent (by XPath), numbered in order of first appearance
    cdef dict parent_of = {}
    cdef list parent_keys = []
    parent_ids_a = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] parent_ids = parent_ids_a
    cdef list first = []
    cdef Py_ssize_t i, k, row, level, p_count, count, steps, top
    cdef str x, key
    for i in range(n):
        x = xpaths[i]
        key = _parent_key(x)
        found = parent_of.get(key)
        if found is None:
            row = len(parent_keys)
            parent_of[key] = row
            parent_keys.append(key)
            first.append(i)
        else:
            row = found
        parent_ids[i] = row
    p_count = len(parent_keys)
    # each parent's chain of containers, as the Python function walks it
    cdef dict number = {}
    cdef list keys = []
    cdef list found_at = []
    cdef dict walked = {}
    chains_a = np.full((p_count, levels_n), -1, dtype=np.intp)
    cdef Py_ssize_t[:, ::1] chains = chains_a
    parent_steps_a = np.zeros(p_count, dtype=np.float64)
    cdef double[::1] parent_steps = parent_steps_a
    cdef list ids
    for row in range(p_count):
        key = parent_keys[row]
        ids = []
        steps = key.count("/")
        parent_steps[row] = steps
        while len(ids) < levels_n and steps > root_steps:
            got = number.get(key)
            if got is None:
                k = len(keys)
                number[key] = k
                keys.append(key)
                found_at.append((row, len(ids) + 1))
            else:
                k = got
                if k in walked:
                    ids += (<list>walked[k])[: levels_n - len(ids)]
                    break
            ids.append(k)
            key = _parent_key(key)
            steps -= 1
        if ids:
            walked[ids[0]] = ids
            for level in range(len(ids)):
                chains[row, level] = ids[level]
    count = len(keys)
    if count == 0:
        return out
    text_a = np.zeros(count)
    link_a = np.zeros(count)
    score_a = np.zeros(count)
    added_a = np.zeros(count)
    scored_a = np.zeros(count, dtype=np.uint8)
    points_a = np.zeros(n)
    cdef double[::1] text = text_a, link = link_a, score = score_a, added = added_a
    cdef double[::1] points = points_a
    cdef unsigned char[::1] scored = scored_a
    cdef double share, w
    for i in range(n):
        if chars[i] >= min_chars:
            points[i] = (1.0 + <double>(<str?>texts[i]).count(",")) + min(chars[i] / 100.0, 3.0)
    cdef Py_ssize_t lv
    for level in range(levels_n):
        for k in range(count):
            added[k] = 0.0
        share = shares[level] if level < n_shares else 0.0
        for i in range(n):
            lv = chains[parent_ids[i], level]
            if lv < 0:
                continue
            text[lv] += chars[i]  # whole numbers: exact in any order
            link[lv] += links[i]
            if level < n_shares and chars[i] >= min_chars:
                added[lv] += points[i] * share
                scored[lv] = 1
        if level < n_shares:
            for k in range(count):
                score[k] += added[k]
    cdef bint any_scored = False
    for k in range(count):
        if scored[k]:
            any_scored = True
            break
    if not any_scored:
        return out
    final_a = np.zeros(count)
    cdef double[::1] final = final_a
    cdef Py_ssize_t up, j
    cdef xmlNode* node
    for k in range(count):
        w = 0.0
        if scored[k]:
            row, up = found_at[k]
            element = blocks[<Py_ssize_t>first[row]].element
            if not isinstance(element, cetree._Element) or (<cetree._Element>element)._c_node is NULL:
                raise Unsupported("not an element")
            node = (<cetree._Element>element)._c_node
            for j in range(up):
                node = _parent(node)  # getparent()
                if node is NULL:
                    raise Unsupported("a container above the root")
            w = _container_weight(node, tag_weights, value_weights, value_weight)
        final[k] = (w + score[k]) * (1.0 - min(1.0, link[k] / max(text[k], 1.0)))
    top = -1
    for k in range(count):
        if scored[k] and (top < 0 or final[k] > final[top]):
            top = k
    cdef double top_score = final[top] if final[top] > 0 else 1.0
    cdef str top_key = keys[top]
    cdef Py_ssize_t top_depth = top_key.count("/")
    cdef str inside = top_key + "/"
    in_parent_a = np.zeros(p_count, dtype=np.uint8)
    cdef unsigned char[::1] in_parent = in_parent_a
    for row in range(p_count):
        key = parent_keys[row]
        in_parent[row] = key == top_key or key.startswith(inside)
    cdef double total = 0.0, top_chars = 0.0
    for i in range(n):
        total += chars[i]
        if in_parent[parent_ids[i]]:
            top_chars += chars[i]
    if total == 0.0:
        total = 1.0
    # the siblings Readability appends
    cdef double bar = max(sibling_min, sibling_share * top_score)
    cdef str above = _parent_key(top_key) + "/"
    cdef set siblings = set()
    for k in range(count):
        if scored[k] and final[k] >= bar and k != top:
            key = keys[k]
            if key.count("/") == top_depth and key.startswith(above):
                siblings.add(key)
    cdef Py_ssize_t start = len(above), end
    cdef double best, v
    for i in range(n):
        row = parent_ids[i]
        if in_parent[row]:
            o[i, c_top] = 1.0
            o[i, c_below] = <float>(parent_steps[row] + 1.0 - top_depth)
        else:
            o[i, c_below] = -1.0
        if siblings:
            x = xpaths[i]
            if x.startswith(above):
                end = x.find("/", start)
                if end > 0 and x[:end] in siblings:
                    o[i, c_sibling] = 1.0
        best = 0.0
        for level in range(levels_n):
            lv = chains[row, level]
            if lv < 0:
                continue  # (the Python function counts a missing level as 0)
            v = final[lv] if scored[lv] else 0.0
            if v > best:
                best = v
        o[i, c_best] = <float>(best / top_score)
        lv = chains[row, 0]
        o[i, c_parent] = <float>((final[lv] if lv >= 0 and scored[lv] else 0.0) / top_score)
        o[i, c_share] = <float>(top_chars / total)
    return out


# -- the block features' inputs --------------------------------------------------------

def context_free_codes(
    list texts,
    const double[::1] chars,
    const double[::1] n_words,
    const double[::1] stop,
    const double[::1] links,
    const unsigned char[::1] in_select,
    bint has_stoplist,
    double length_low,
    double length_high,
    double stopwords_low,
    double stopwords_high,
    double max_link_density,
):
    """``features._context_free_codes``: jusText's context-free class of each block as a
    code (0 good, 1 near-good, 2 short, 3 bad), the same rules with the same float64
    values, block by block."""
    import numpy as np

    cdef Py_ssize_t n = len(texts), i
    if (chars.shape[0] != n or n_words.shape[0] != n or stop.shape[0] != n
            or links.shape[0] != n or in_select.shape[0] != n):
        raise Unsupported("the counts differ in length")
    out = np.full(n, 3, dtype=np.intp)
    cdef Py_ssize_t[::1] codes = out
    cdef double low = stopwords_low if has_stoplist else 0.0
    cdef double high = stopwords_high if has_stoplist else 0.0
    cdef double density, link_density, c
    cdef bint short, bad
    cdef Py_ssize_t code
    cdef _Needles marks = _Needles(("\u00a9", "&copy"))
    for i in range(n):
        c = chars[i]
        if has_stoplist and n_words[i] > 0:
            density = stop[i] / n_words[i]
        else:
            density = 0.0
        link_density = links[i] / c if c > 0 else 0.0
        short = c < length_low
        bad = (link_density > max_link_density or in_select[i] != 0
               or (short and links[i] > 0) or marks.found_in(<str?>texts[i]))
        code = 3
        if density >= low or density >= high:
            code = 1
        if density >= high and c > length_high:
            code = 0
        if short:
            code = 2
        if bad:
            code = 3
        codes[i] = code
    return out


def path_table(list paths, dict rows, object row_of, Py_ssize_t width):
    """``features._path_table``: each path's row (``rows``, the process's memo, else
    ``row_of(path)``, which fills it), copied into one ``(n, width)`` float64 array."""
    import numpy as np

    cdef Py_ssize_t n = len(paths), i, k, first
    out = np.empty((n, width), dtype=np.float64)
    cdef double[:, ::1] o = out
    cdef const double[::1] row
    cdef dict seen = {}  # path -> the first block with it
    for i in range(n):
        path = paths[i]
        found = seen.get(path)
        if found is not None:
            first = <Py_ssize_t>found
            o[i, :] = o[first, :]
            continue
        value = rows.get(path)
        if value is None:
            value = row_of(path)
        row = value
        if row.shape[0] != width:
            raise Unsupported("a path's row of another width")
        for k in range(width):
            o[i, k] = row[k]
        seen[path] = i
    return out


cdef inline Py_ssize_t _number(dict numbers, str key):
    found = numbers.get(key)
    if found is not None:
        return <Py_ssize_t>found
    cdef Py_ssize_t k = len(numbers)
    numbers[key] = k
    return k


def container_ids(list xpaths):
    """``features._container_ids``: each block's parent (its XPath without the last two
    steps; none within one step of the root) and grandparent (the parent's without its
    last step), numbered in order of first appearance, cut where the slashes are."""
    import numpy as np

    cdef Py_ssize_t n = len(xpaths), i, last, cut
    parents_a = np.empty(n, dtype=np.intp)
    grands_a = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] parents = parents_a, grands = grands_a
    cdef dict parent_numbers = {}, grand_numbers = {}
    cdef list grand_of = []  # parent number -> grandparent number
    cdef str x, key
    cdef Py_ssize_t p
    for i in range(n):
        x = <str?>xpaths[i]
        last = x.rfind("/")
        cut = x.rfind("/", 0, last) if last > 0 else -1
        key = x[:cut] if cut >= 0 else ""
        p = _number(parent_numbers, key)
        if p == len(grand_of):  # a new parent: its grandparent
            last = key.rfind("/")
            grand_of.append(_number(grand_numbers, key[:last] if last >= 0 else ""))
        parents[i] = p
        grands[i] = <Py_ssize_t>grand_of[p]
    return parents_a, grands_a


# -- the block features' columns ---------------------------------------------------------

#: rows of ``block_columns``' ``counts`` argument (``features._compiled_columns``)
cdef enum:
    _CHARS, _WORDS, _STOP, _LINKS, _GOOD, _DIGITS, _PUNCTUATION, _SEPARATORS, _CAPITALS
    _LETTERS, _ENDS_SENTENCE, _IN_TITLE, _DUPLICATE, _COPYRIGHT, _LOG_CHARS, _LOG_WORDS
    _LOG_SENTENCES, _COUNT_ROWS


cdef inline double _at_least(double v, double floor) noexcept:
    return v if v >= floor else floor


cdef inline double _at_most_one(double v) noexcept:
    return v if v <= 1.0 else 1.0


def block_columns(
    list blocks,
    const double[:, ::1] counts,
    const double[:, ::1] paths,
    const Py_ssize_t[::1] cf_codes,
    list owns,
    list aboves,
    const Py_ssize_t[::1] parent_ids,
    const Py_ssize_t[::1] grand_ids,
    const float[:, ::1] container,
    const double[::1] log1p_of,
    dict columns,
    dict tag_kinds,
    tuple runs,
    Py_ssize_t n_groups,
    Py_ssize_t n_ancestors,
):
    """``features._columns``: the block feature matrix, row by row, from the counts
    (``counts``: the rows named above, ``log1p_of``: NumPy's ``log1p`` of 0 to n), with
    the reference's float64 arithmetic (the sums over parents and the running sums are
    of whole numbers, so exact in any order) and each value rounded to float32 once
    (``columns``: each name's column; ``tag_kinds``: a tag's kind; ``runs``: the first
    column of the ancestor tags, the own and the above keyword groups and Readability's
    columns, each a run of columns)."""
    import numpy as np

    cdef Py_ssize_t n = len(blocks)
    cdef Py_ssize_t width = len(columns)
    out = np.zeros((n, width), dtype=np.float32)
    if n == 0:
        return out
    if (
        counts.shape[0] != _COUNT_ROWS or counts.shape[1] != n or paths.shape[0] != n
        or paths.shape[1] != 3 + n_ancestors or cf_codes.shape[0] != n or len(owns) != n
        or len(aboves) != n or parent_ids.shape[0] != n or grand_ids.shape[0] != n
        or container.shape[0] != n or log1p_of.shape[0] != n + 1 or n_groups > 62
    ):
        raise Unsupported("the counts differ in length")
    cdef float[:, ::1] o = out
    cdef Py_ssize_t c_log_chars = columns["log_chars"], c_log_words = columns["log_words"]
    cdef Py_ssize_t c_stop = columns["stopword_density"], c_link = columns["link_density"]
    cdef Py_ssize_t c_avg = columns["avg_word_length"], c_punct = columns["punctuation_ratio"]
    cdef Py_ssize_t c_digit = columns["digit_ratio"], c_capital = columns["capital_ratio"]
    cdef Py_ssize_t c_ends = columns["ends_sentence"], c_sentences = columns["sentences"]
    cdef Py_ssize_t c_copyright = columns["copyright"], c_separators = columns["separators"]
    cdef Py_ssize_t c_markup = columns["markup_per_word"], c_cf = columns["cf_good"]
    cdef Py_ssize_t c_good = columns["justext_good"], c_other = columns["tag_other"]
    cdef Py_ssize_t c_first_tag = columns["tag_p"], c_depth = columns["depth"]
    cdef Py_ssize_t c_heading = columns["heading"], c_in = runs[0]
    cdef Py_ssize_t c_own = runs[1], c_above = runs[2]
    cdef Py_ssize_t c_position = columns["position"]
    cdef Py_ssize_t c_char_position = columns["char_position"]
    cdef Py_ssize_t c_around = columns["good_around"], c_before = columns["good_before"]
    cdef Py_ssize_t c_after = columns["good_after"]
    cdef Py_ssize_t c_page_blocks = columns["page_log_blocks"]
    cdef Py_ssize_t c_page_chars = columns["page_log_chars"]
    cdef Py_ssize_t c_page_good = columns["page_good_share"]
    cdef Py_ssize_t c_page_links = columns["page_link_density"]
    cdef Py_ssize_t c_in_title = columns["in_title"], c_duplicate = columns["duplicate"]
    cdef Py_ssize_t c_container = runs[3]
    cdef Py_ssize_t n_container = container.shape[1]
    if (len(runs) != 4 or c_in + n_ancestors > width or c_own + n_groups > width
            or c_above + n_groups > width or c_container + n_container > width):
        raise Unsupported("a run of columns past the matrix")
    # the containers' columns: share, blocks, link density, good share (parent, grand)
    cdef Py_ssize_t c_family[2][4]
    cdef Py_ssize_t c_neighbour[4][4]  # [offset -2, -1, +1, +2][log chars, links, stop, good]
    cdef Py_ssize_t f, k, i, j, level
    for f, prefix in enumerate(("parent", "grand")):
        for k, what in enumerate(("share", "blocks", "link_density", "good_share")):
            c_family[f][k] = columns[f"{prefix}_{what}"]
    for f, offset in enumerate(("-2", "-1", "+1", "+2")):
        for k, what in enumerate(("log_chars", "link_density", "stopword_density", "good")):
            c_neighbour[f][k] = columns[f"n{offset}_{what}"]
    cdef int offsets[4]
    offsets[:] = [-2, -1, 1, 2]
    cdef float pads[4]
    pads[:] = [0.0, 1.0, 0.0, 0.0]
    cdef Py_ssize_t from_columns[4]
    from_columns[:] = [c_log_chars, c_link, c_stop, c_good]
    cdef const double[::1] chars = counts[_CHARS]
    cdef const double[::1] links = counts[_LINKS]
    cdef const double[::1] good = counts[_GOOD]
    cdef double total = 0.0, link_total = 0.0, good_total = 0.0
    for i in range(n):
        total += chars[i]
        link_total += links[i]
        good_total += chars[i] * good[i]
    if total == 0.0:
        total = 1.0
    # each parent's and grandparent's sums: characters, blocks, link and good characters
    sums_a = np.zeros((2, n, 4), dtype=np.float64)
    cdef double[:, :, ::1] sums = sums_a
    cdef const Py_ssize_t[::1] ids
    for level in range(2):
        ids = parent_ids if level == 0 else grand_ids
        for i in range(n):
            j = ids[i]
            if j < 0 or j >= n:
                raise Unsupported("a container number out of range")
            sums[level, j, 0] += chars[i]
            sums[level, j, 1] += 1.0
            sums[level, j, 2] += links[i]
            sums[level, j, 3] += chars[i] * good[i]
    good_cum_a = np.zeros(n + 1, dtype=np.float64)
    cdef double[::1] good_cum = good_cum_a
    for i in range(n):
        good_cum[i + 1] = good_cum[i] + good[i]
    cdef double c, words, safe_words, safe_chars, gc, char_cum = 0.0
    cdef double page_blocks = log1p(<double>n), page_chars = log1p(total)
    cdef double page_good = good_total / total, page_links = link_total / total
    cdef long long own, above
    cdef Py_ssize_t code, kind, lo, hi
    cdef Py_ssize_t other_kind = c_other - c_first_tag
    for i in range(n):
        block = blocks[i]
        c = chars[i]
        words = counts[_WORDS, i]
        safe_words = _at_least(words, 1.0)
        safe_chars = _at_least(c, 1.0)
        o[i, c_log_chars] = <float>counts[_LOG_CHARS, i]
        o[i, c_log_words] = <float>counts[_LOG_WORDS, i]
        o[i, c_stop] = <float>(counts[_STOP, i] / safe_words)
        o[i, c_link] = <float>_at_most_one(links[i] / safe_chars)
        o[i, c_avg] = <float>(counts[_LETTERS, i] / safe_words)
        o[i, c_punct] = <float>(counts[_PUNCTUATION, i] / safe_chars)
        o[i, c_digit] = <float>(counts[_DIGITS, i] / safe_chars)
        o[i, c_capital] = <float>(counts[_CAPITALS, i] / safe_words)
        o[i, c_ends] = <float>counts[_ENDS_SENTENCE, i]
        o[i, c_sentences] = <float>counts[_LOG_SENTENCES, i]
        o[i, c_copyright] = <float>counts[_COPYRIGHT, i]
        o[i, c_separators] = <float>(counts[_SEPARATORS, i] / safe_words)
        o[i, c_markup] = <float>(<double>(<Py_ssize_t>block.tags_count) / safe_words)
        code = cf_codes[i]
        if code < 0 or code > 3:
            raise Unsupported("a context-free class out of range")
        o[i, c_cf + code] = 1.0
        o[i, c_good] = <float>good[i]
        found = tag_kinds.get(block.tag)
        kind = other_kind if found is None else <Py_ssize_t>found
        o[i, c_first_tag + kind] = 1.0
        o[i, c_depth] = <float>paths[i, 0]
        o[i, c_heading] = <float>paths[i, 1]
        for k in range(n_ancestors):
            o[i, c_in + k] = <float>paths[i, 3 + k]
        own = owns[i]
        above = aboves[i]
        for k in range(n_groups):
            if (own >> k) & 1:
                o[i, c_own + k] = 1.0
            if (above >> k) & 1:
                o[i, c_above + k] = 1.0
        for level in range(2):
            j = parent_ids[i] if level == 0 else grand_ids[i]
            gc = sums[level, j, 0]
            o[i, c_family[level][0]] = <float>(gc / total)
            o[i, c_family[level][1]] = <float>log1p_of[<Py_ssize_t>sums[level, j, 1]]
            o[i, c_family[level][2]] = <float>_at_most_one(sums[level, j, 2] / _at_least(gc, 1.0))
            o[i, c_family[level][3]] = <float>(sums[level, j, 3] / _at_least(gc, 1.0))
        o[i, c_position] = <float>(<double>i / <double>(n - 1 if n > 1 else 1))
        o[i, c_char_position] = <float>(char_cum / total)
        char_cum += c
        lo = i - 5 if i >= 5 else 0
        hi = i + 6 if i + 6 <= n else n
        o[i, c_around] = <float>((good_cum[hi] - good_cum[lo]) / <double>(hi - lo))
        o[i, c_before] = <float>(good_cum[i] / <double>(i if i > 1 else 1))
        o[i, c_after] = <float>(
            (good_cum[n] - good_cum[i + 1]) / <double>(n - i - 1 if n - i - 1 > 1 else 1)
        )
        o[i, c_page_blocks] = <float>page_blocks
        o[i, c_page_chars] = <float>page_chars
        o[i, c_page_good] = <float>page_good
        o[i, c_page_links] = <float>page_links
        o[i, c_in_title] = <float>counts[_IN_TITLE, i]
        o[i, c_duplicate] = <float>counts[_DUPLICATE, i]
        for k in range(n_container):
            o[i, c_container + k] = container[i, k]
    # the neighbours' values: their own cells (already rounded, as the reference copies
    # float32 log lengths and rounds the others the same way), a pad past either end
    for i in range(n):
        for f in range(4):
            j = i + offsets[f]
            for k in range(4):
                if 0 <= j < n:
                    o[i, c_neighbour[f][k]] = o[j, from_columns[k]]
                else:
                    o[i, c_neighbour[f][k]] = pads[k]
    return out


def block_summary(
    const float[:, ::1] block_x,
    list texts,
    const float[::1] chars,
    double chars_sum,
    dict columns,
    double long_chars,
):
    """``pagetype._block_summary``: the page's features that sum up its blocks, in its
    order, in one pass over the blocks (``chars``: the blocks' characters read back from
    the features as the reference reads them, ``chars_sum``: their sum as the reference
    adds them; every other sum is of whole numbers, so exact in any order)."""
    cdef Py_ssize_t n = block_x.shape[0], i
    if n == 0 or len(texts) != n or chars.shape[0] != n:
        raise Unsupported("no blocks, or features and texts of different lengths")
    cdef Py_ssize_t c_heading = columns["heading"], c_li = columns["tag_li"]
    cdef Py_ssize_t c_top = columns["rd_in_top"], c_sibling = columns["rd_in_sibling"]
    cdef Py_ssize_t c_good = columns["page_good_share"], c_links = columns["page_link_density"]
    cdef Py_ssize_t c_share = columns["rd_top_share"]
    cdef long long over_200 = 0, headings = 0, items = 0, in_top = 0, long_ = 0
    cdef long long long_in_top = 0
    cdef double whole = 0.0, joined_chars = 0.0, long_top_chars = 0.0, length
    cdef bint top, is_long
    for i in range(n):
        length = <double>len(<str?>texts[i])
        whole += length
        if chars[i] > 200:
            over_200 += 1
        # flags, 0 or 1, so their mean is a count over n (a float32 mean of other values
        # would depend on NumPy's order of addition: the Python function's to give)
        if block_x[i, c_heading] == 1:
            headings += 1
        elif block_x[i, c_heading] != 0:
            raise Unsupported("a heading flag other than 0 or 1")
        if block_x[i, c_li] == 1:
            items += 1
        elif block_x[i, c_li] != 0:
            raise Unsupported("a list-item flag other than 0 or 1")
        top = block_x[i, c_top] > 0
        is_long = length >= long_chars
        if top or block_x[i, c_sibling] > 0:
            joined_chars += length
        if top:
            in_top += 1
        if is_long:
            long_ += 1
            if top:
                long_in_top += 1
                long_top_chars += length
    if whole == 0.0:
        whole = 1.0
    if chars_sum == 0.0:
        chars_sum = 1.0
    return [
        log1p(chars_sum),
        <double>block_x[0, c_good],
        <double>block_x[0, c_links],
        log1p(<double>over_200),
        <double><float>(<double>headings / <double>n),
        <double><float>(<double>items / <double>n),
        <double>block_x[0, c_share],
        joined_chars / whole,
        <double>in_top / <double>n,
        long_top_chars / whole,
        <double>long_in_top / <double>(long_ if long_ > 1 else 1),
        log1p(<double>long_in_top),
        log1p(<double>in_top),
    ]


# -- the models' trees: read from the ONNX file, evaluated as onnxruntime evaluates them ------


cdef Py_ssize_t _varint(const unsigned char* p, Py_ssize_t end, Py_ssize_t pos,
                        unsigned long long* value) except -1:
    """Read a protobuf varint at ``pos``; the position after it (ValueError past ``end``)."""
    cdef unsigned long long v = 0
    cdef int shift = 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError("truncated or malformed varint")
        v |= (<unsigned long long>(p[pos] & 0x7F)) << shift
        shift += 7
        pos += 1
        if not (p[pos - 1] & 0x80):
            value[0] = v
            return pos


cdef list _fields(bytes data):
    """The fields of one protobuf message: ``(number, wire type, value)``, the value an
    int for varints and fixed-size fields (their raw bits), bytes for length-delimited."""
    cdef const unsigned char* p = data
    cdef Py_ssize_t end = len(data), pos = 0
    cdef unsigned long long key, value, size
    cdef list out = []
    cdef int wire
    while pos < end:
        pos = _varint(p, end, pos, &key)
        wire = key & 7
        if wire == 0:
            pos = _varint(p, end, pos, &value)
            out.append((key >> 3, 0, value))
        elif wire == 1:
            if pos + 8 > end:
                raise ValueError("truncated fixed64 field")
            out.append((key >> 3, 1, data[pos:pos + 8]))
            pos += 8
        elif wire == 2:
            pos = _varint(p, end, pos, &size)
            if size > <unsigned long long>(end - pos):
                raise ValueError("truncated length-delimited field")
            out.append((key >> 3, 2, data[pos:pos + size]))
            pos += size
        elif wire == 5:
            if pos + 4 > end:
                raise ValueError("truncated fixed32 field")
            out.append((key >> 3, 5, data[pos:pos + 4]))
            pos += 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
    return out


cdef long long _signed(unsigned long long v):
    return <long long>v  # int64 fields are two's complement varints


cdef object _attribute(bytes data):
    """One ``AttributeProto``: ``(name, value)``, the value an int, a float, bytes, or a
    list (ints, floats or bytes: repeated fields, packed or not)."""
    import struct

    name = None
    single = None
    cdef list ints = [], floats = [], strings = []
    cdef const unsigned char* p
    cdef Py_ssize_t pos, end
    cdef unsigned long long v
    for number, wire, value in _fields(data):
        if number == 1 and wire == 2:
            name = value.decode("utf-8")
        elif number == 2 and wire == 5:
            single = struct.unpack("<f", value)[0]
        elif number == 3 and wire == 0:
            single = _signed(value)
        elif number == 4 and wire == 2:
            single = value
        elif number == 7 and wire == 5:
            floats.append(struct.unpack("<f", value)[0])
        elif number == 7 and wire == 2:
            if len(value) % 4:
                raise ValueError("packed floats of a length not a multiple of 4")
            floats.extend(struct.unpack(f"<{len(value) // 4}f", value))
        elif number == 8 and wire == 0:
            ints.append(_signed(value))
        elif number == 8 and wire == 2:
            p = value
            end = len(value)
            pos = 0
            while pos < end:
                pos = _varint(p, end, pos, &v)
                ints.append(_signed(v))
        elif number == 9 and wire == 2:
            strings.append(value)
    if name is None:
        raise ValueError("an attribute without a name")
    return name, (floats or ints or strings or single)


def onnx_tree_nodes(bytes model):
    """The tree-ensemble nodes of an ONNX model's graph, read from its protobuf bytes:
    ``[(op_type, inputs, outputs, {attribute: value})]`` for every node whose operator is
    ``TreeEnsembleClassifier`` or ``TreeEnsembleRegressor``, and ``(op_type, inputs,
    outputs, None)`` for every other node (ValueError on bytes that are not a model)."""
    graphs = [value for number, wire, value in _fields(model) if number == 7 and wire == 2]
    if len(graphs) != 1:
        raise ValueError("no graph, or more than one")
    nodes = []
    for number, wire, value in _fields(graphs[0]):
        if number != 1 or wire != 2:
            continue
        inputs, outputs, op_type, attributes = [], [], "", []
        for n, w, v in _fields(value):
            if w != 2:
                continue
            if n == 1:
                inputs.append(v.decode("utf-8"))
            elif n == 2:
                outputs.append(v.decode("utf-8"))
            elif n == 4:
                op_type = v.decode("utf-8")
            elif n == 5:
                attributes.append(v)
        if op_type in ("TreeEnsembleClassifier", "TreeEnsembleRegressor"):
            nodes.append((op_type, inputs, outputs, dict(_attribute(a) for a in attributes)))
        else:
            nodes.append((op_type, inputs, outputs, None))
    return nodes


# A branch's test on LANES rows at once: each row's leaves keep ``mask``'s bits unless the
# row's value passes the test (value <= threshold). SSE2 (every x86-64) does four rows an
# instruction; elsewhere the same loop in C. Either compares the same floats: the same bits.
cdef extern from *:
    """
    #include <stdint.h>
    enum { SB_LANES = 16 };
    #if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    #include <emmintrin.h>
    static inline void sb_apply_branch(uint32_t *kept, const float *values,
                                       float threshold, uint32_t mask) {
        const __m128 t = _mm_set1_ps(threshold);
        const __m128i m = _mm_set1_epi32((int)mask);
        for (int j = 0; j < SB_LANES; j += 4) {
            __m128i passed = _mm_castps_si128(_mm_cmple_ps(_mm_loadu_ps(values + j), t));
            __m128i k = _mm_loadu_si128((const __m128i *)(kept + j));
            _mm_storeu_si128((__m128i *)(kept + j), _mm_and_si128(k, _mm_or_si128(m, passed)));
        }
    }
    #else
    static inline void sb_apply_branch(uint32_t *kept, const float *values,
                                       float threshold, uint32_t mask) {
        for (int j = 0; j < SB_LANES; j++)
            kept[j] &= mask | ((uint32_t)0 - (uint32_t)(values[j] <= threshold));
    }
    #endif
    """
    enum: LANES "SB_LANES"  # rows :meth:`Forest.scores` scores at once, by feature
    void sb_apply_branch(uint32_t* kept, const float* values, float threshold,
                         uint32_t mask) noexcept nogil

cdef enum:
    MIN_LANE_WORK = 400  # the fewest rows times trees scored by feature

#: :meth:`Forest.scores` scores rows feature by feature where their number times the
#: trees' is at least this, and walks the trees below it (a page's quality: one row of
#: 150 trees). Chosen by timing both ways on the evaluation pages' rows (docs/auto.md).
LANE_WORK = MIN_LANE_WORK

# the position of a 32-bit word's lowest set bit, by de Bruijn's sequence (portable C)
cdef int _DE_BRUIJN[32]
for _k, _v in enumerate((
    0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
    31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9,
)):
    _DE_BRUIJN[_k] = _v


cdef inline int _lowest_bit(uint32_t bits) noexcept nogil:
    """The index of the lowest set bit of ``bits`` (not 0: a tree keeps a leaf)."""
    return _DE_BRUIJN[<uint32_t>((bits & (<uint32_t>0 - bits)) * <uint32_t>0x077CB531) >> 27]


cdef struct _TreeNode:
    int feature  # a leaf: 0, and itself as its false child (its weight is in ``values``)
    float threshold
    int right  # the false child (the true child is the next node: preorder, true first)
    int missing_true  # a missing value goes to the true child


cdef class Forest:
    """One ensemble's trees (``auto.forest`` reads them from the ONNX file): given per node
    its feature (-1: a leaf), threshold (a leaf: its weight), true and false child, and
    whether a missing value goes to the true child, and per tree its root and the class it
    adds to. Each tree is laid out again in preorder, the true child right after its
    parent, so that a node is one 16-byte record read at once.

    :meth:`scores` sums, per row and class, the leaves the row reaches, tree after tree in
    float32 (onnxruntime's order and precision), then applies onnxruntime's own
    post-transform: ``SOFTMAX``, the binary ``LOGISTIC`` (the positive class's probability),
    or none. It finds those leaves by walking each tree, or, for a page's blocks and its
    type (:data:`LANE_WORK`), by testing every branch of a feature on several rows at
    once (:meth:`_lanes`): the same leaves, the same sums."""

    cdef _TreeNode* nodes
    cdef Py_ssize_t n_nodes
    cdef array.array roots, classes, values
    cdef readonly int n_features, n_classes, n_trees
    cdef readonly str transform
    # the same trees laid out by feature for :meth:`_lanes` (NULL where not laid out)
    cdef float* by_threshold  # each branch's threshold, by feature then threshold
    cdef int* by_tree  # its tree
    cdef uint32_t* by_mask  # the leaves of its tree it rules out when false: bits cleared
    cdef int* feature_start  # per feature, its first branch (n_features + 1 entries)
    cdef float* leaf_values  # per tree, its leaves' weights left to right (32 a tree)
    #: Whether :meth:`scores` may score rows several at a time by feature (every tree
    #: has at most 32 leaves)
    cdef readonly bint by_feature

    def __cinit__(self, feature, threshold, left, right, missing_true, roots, classes,
                  int n_features, int n_classes, str transform):
        self.nodes = NULL  # (the by-feature layout's pointers are NULL too: zeroed memory)
        cdef array.array f = array.array("i", feature), th = array.array("f", threshold)
        cdef array.array lt = array.array("i", left), rt = array.array("i", right)
        cdef array.array mt = array.array("b", missing_true)
        cdef array.array rs = array.array("i", roots)
        self.classes = array.array("i", classes)
        self.n_features = n_features
        self.n_classes = n_classes
        self.n_trees = len(rs)
        self.transform = transform
        if transform not in ("NONE", "SOFTMAX", "LOGISTIC"):
            raise ValueError(f"post-transform {transform} is not supported")
        cdef Py_ssize_t n = len(f), i, t, at
        if not (len(th) == len(lt) == len(rt) == len(mt) == n
                and len(self.classes) == self.n_trees):
            raise ValueError("the node arrays differ in length")
        for i in range(n):
            if f.data.as_ints[i] >= n_features or (
                f.data.as_ints[i] >= 0 and not (0 <= lt.data.as_ints[i] < n
                                                and 0 <= rt.data.as_ints[i] < n)
            ):
                raise ValueError("a node names a feature or child out of range")
        for t in range(self.n_trees):
            if not (0 <= rs.data.as_ints[t] < n
                    and 0 <= self.classes.data.as_ints[t] < n_classes):
                raise ValueError("a tree's root or class is out of range")
        # preorder, true child first; a node met twice (not a tree) is refused
        self.nodes = <_TreeNode*>PyMem_Malloc(max(n, 1) * sizeof(_TreeNode))
        if self.nodes is NULL:
            raise MemoryError()
        self.roots = array.array("i", [0] * self.n_trees)
        self.values = array.array("f", [0.0] * n)  # a leaf's weight, by its new index
        cdef array.array placed = array.array("i", [-1] * n)
        cdef list stack, fix = []  # (new index of a branch, old index of its false child)
        cdef Py_ssize_t old
        at = 0
        for t in range(self.n_trees):
            self.roots.data.as_ints[t] = at
            stack = [rs.data.as_ints[t]]
            while stack:
                old = stack.pop()
                if placed.data.as_ints[old] >= 0 or at >= n:
                    raise ValueError("a node reached twice: not a tree")
                placed.data.as_ints[old] = at
                if f.data.as_ints[old] >= 0:
                    self.nodes[at].feature = f.data.as_ints[old]
                    self.nodes[at].threshold = th.data.as_floats[old]
                    self.nodes[at].missing_true = mt.data.as_schars[old] != 0
                    self.nodes[at].right = -1
                    fix.append((at, rt.data.as_ints[old]))
                    stack.append(rt.data.as_ints[old])
                    stack.append(lt.data.as_ints[old])
                else:
                    self.nodes[at].feature = 0
                    self.nodes[at].threshold = 0
                    self.nodes[at].missing_true = 0
                    self.nodes[at].right = at
                    self.values.data.as_floats[at] = th.data.as_floats[old]
                at += 1
        self.n_nodes = at
        for i, old in fix:
            self.nodes[i].right = placed.data.as_ints[old]
            if placed.data.as_ints[old] < 0:
                raise ValueError("a branch to a node never reached")
        self._lay_out_by_feature()

    cdef _lay_out_by_feature(self):
        """The branches sorted by feature and threshold, each with its tree and the
        leaves it rules out when its test fails (the true subtree's: in preorder, true
        child first, they are the leaves between the branch and its false child), and
        each tree's leaf weights left to right; for :meth:`_lanes` (the QuickScorer
        layout of Lucchese et al., "QuickScorer: a fast algorithm to rank documents
        with additive ensembles of regression trees"). Left undone where a tree has
        more than 32 leaves, or a threshold is NaN."""
        cdef Py_ssize_t n = self.n_nodes, i, t, end, k
        cdef array.array before = array.array("i", [0] * (n + 1))  # leaves before node i
        for i in range(n):
            before.data.as_ints[i + 1] = before.data.as_ints[i] + (self.nodes[i].right == i)
        branches = []
        weights = []  # per tree, its leaves' weights left to right
        for t in range(self.n_trees):
            end = self.roots.data.as_ints[t + 1] if t + 1 < self.n_trees else n
            base = before.data.as_ints[self.roots.data.as_ints[t]]
            if before.data.as_ints[end] - base > 32:
                return
            weights.append([])
            for i in range(self.roots.data.as_ints[t], end):
                if self.nodes[i].right == i:
                    weights[t].append(self.values.data.as_floats[i])
                else:
                    if isnan(self.nodes[i].threshold):
                        return  # (no order to sort it in: walked, as the walk tests it)
                    branches.append((
                        self.nodes[i].feature,
                        self.nodes[i].threshold,
                        t,
                        before.data.as_ints[i + 1] - base,
                        before.data.as_ints[self.nodes[i].right] - base,
                    ))
        branches.sort()
        cdef Py_ssize_t m = len(branches)
        self.by_threshold = <float*>PyMem_Malloc(max(m, 1) * sizeof(float))
        self.by_tree = <int*>PyMem_Malloc(max(m, 1) * sizeof(int))
        self.by_mask = <uint32_t*>PyMem_Malloc(max(m, 1) * sizeof(uint32_t))
        self.feature_start = <int*>PyMem_Malloc((self.n_features + 1) * sizeof(int))
        self.leaf_values = <float*>PyMem_Malloc(max(self.n_trees, 1) * 32 * sizeof(float))
        if (self.by_threshold is NULL or self.by_tree is NULL or self.by_mask is NULL
                or self.feature_start is NULL or self.leaf_values is NULL):
            raise MemoryError()
        cdef uint32_t mask
        cdef int f = 0, low, high, b
        for k in range(m):
            feature, threshold, t, low, high = branches[k]
            while f <= feature:
                self.feature_start[f] = k
                f += 1
            mask = 0xFFFFFFFF
            for b in range(low, high):
                mask &= ~((<uint32_t>1) << b)
            self.by_threshold[k] = threshold
            self.by_tree[k] = t
            self.by_mask[k] = mask
        while f <= self.n_features:
            self.feature_start[f] = m
            f += 1
        for t in range(self.n_trees):
            for k in range(32):
                self.leaf_values[t * 32 + k] = weights[t][k] if k < len(weights[t]) else 0
        self.by_feature = True

    def __dealloc__(self):
        PyMem_Free(self.nodes)
        PyMem_Free(self.by_threshold)
        PyMem_Free(self.by_tree)
        PyMem_Free(self.by_mask)
        PyMem_Free(self.feature_start)
        PyMem_Free(self.leaf_values)

    @cython.boundscheck(False)
    @cython.wraparound(False)
    cdef bint _lanes(self, const float* first, Py_ssize_t n, Py_ssize_t stride,
                     float[:, ::1] o) noexcept nogil:
        """Every row's leaf in every tree found LANES rows at a time, feature by feature
        (each branch whose test fails for a row rules out leaves of its tree for that row;
        a tree's leftmost leaf left is the one a walk reaches), then each row's leaves
        summed tree after tree into ``o``, as the walk sums them. Rows without a missing
        value only. A branch is applied to the LANES rows at once, without a jump
        (``sb_apply_branch``); a walk's jump at every node, taken one way or the other
        from row to row, is what the processor mispredicts, and it costs more than the
        branches applied here that a walk would not have tested. False (and nothing
        summed) where its buffer cannot be allocated."""
        cdef int n_trees = self.n_trees, f, k, end, t, lane, lanes
        cdef uint32_t* leaves = <uint32_t*>PyMem_RawMalloc(n_trees * LANES * sizeof(uint32_t))
        if leaves is NULL:
            return False
        cdef float values[LANES]
        cdef float top
        cdef float* out
        cdef Py_ssize_t start = 0
        cdef const int* classes = self.classes.data.as_ints
        cdef const float* leaf_values = self.leaf_values
        while start < n:
            lanes = LANES if n - start >= LANES else <int>(n - start)
            for k in range(n_trees * LANES):
                leaves[k] = 0xFFFFFFFF
            for f in range(self.n_features):
                top = -FLT_MAX
                for lane in range(LANES):
                    values[lane] = first[(start + lane) * stride + f] if lane < lanes else -FLT_MAX
                    if values[lane] > top:
                        top = values[lane]
                k = self.feature_start[f]
                end = self.feature_start[f + 1]
                while k < end and self.by_threshold[k] < top:
                    sb_apply_branch(leaves + self.by_tree[k] * LANES, values,
                                    self.by_threshold[k], self.by_mask[k])
                    k += 1
            for lane in range(lanes):
                out = &o[start + lane, 0]
                for t in range(n_trees):
                    out[classes[t]] += leaf_values[t * 32 + _lowest_bit(leaves[t * LANES + lane])]
            start += LANES
        PyMem_RawFree(leaves)
        return True

    @cython.boundscheck(False)
    @cython.wraparound(False)
    def scores(self, float[:, ::1] x, bint by_feature=True):
        """The ensemble's output for the rows of ``x`` (float32, C order, ``n_features``
        columns): ``(n, n_classes)`` float32 scores or probabilities; for the binary
        ``LOGISTIC``, ``(n,)`` the positive class's probability. Rows without a missing
        value, :data:`LANE_WORK` or more of them times the trees, are scored feature by feature
        (:meth:`_lanes`) where the trees are laid out for it and ``by_feature``; else each
        row walks each tree. The two give the same leaves, summed in the same order."""
        import numpy as np

        if x.shape[1] != self.n_features:
            raise ValueError(f"expected {self.n_features} features, got {x.shape[1]}")
        cdef Py_ssize_t n = x.shape[0], r, t, k
        out = np.zeros((n, self.n_classes), dtype=np.float32)
        cdef float[:, ::1] o = out
        cdef const _TreeNode* nodes = self.nodes
        cdef const int* roots = self.roots.data.as_ints
        cdef const int* classes = self.classes.data.as_ints
        cdef const float* values = self.values.data.as_floats
        cdef const _TreeNode* node
        cdef const float* row
        cdef int n_trees = self.n_trees, i
        cdef float v
        cdef Py_ssize_t stride = x.shape[1]
        cdef const float* first = &x[0, 0] if n else NULL
        cdef int c, root
        cdef bint missing = False, lanes
        cdef Py_ssize_t cell, cells = n * stride
        with nogil:
            # a missing value (NaN) anywhere? Pages' features have none: then each step
            # of a walk is one comparison, without the test for a missing value
            for cell in range(cells):
                if isnan(first[cell]):
                    missing = True
                    break
            lanes = (by_feature and self.by_feature and not missing
                     and n * n_trees >= MIN_LANE_WORK)
            if lanes:
                lanes = self._lanes(first, n, stride, o)  # (False: walk instead)
            # tree after tree (a tree's nodes stay in the closest cache while every row
            # goes down it); each row's sum still adds the trees in their order
            if not lanes:
                for t in range(n_trees):
                    root = roots[t]
                    c = classes[t]
                    for r in range(n):
                        row = first + r * stride
                        i = root
                        node = &nodes[i]
                        if missing:
                            while node.right != i:  # a leaf is its own false child
                                v = row[node.feature]
                                if (v <= node.threshold) | (isnan(v) & node.missing_true):
                                    i = i + 1
                                else:
                                    i = node.right
                                node = &nodes[i]
                        else:
                            while node.right != i:
                                if row[node.feature] <= node.threshold:
                                    i = i + 1
                                else:
                                    i = node.right
                                node = &nodes[i]
                        o[r, c] += values[i]
        cdef float one = 1, top, total, p
        cdef float[::1] positive
        if self.transform == "SOFTMAX":
            for r in range(n):
                top = -FLT_MAX
                for k in range(self.n_classes):
                    if o[r, k] > top:
                        top = o[r, k]
                total = 0
                for k in range(self.n_classes):
                    o[r, k] = expf(o[r, k] - top)
                    total += o[r, k]
                for k in range(self.n_classes):
                    o[r, k] = o[r, k] / total
        elif self.transform == "LOGISTIC":
            positive_a = np.empty(n, dtype=np.float32)
            positive = positive_a
            for r in range(n):
                p = one / (one + expf(-fabsf(o[r, 0])))
                positive[r] = (one - p) if o[r, 0] < 0 else p
            return positive_a
        return out


# -- the decision rule ---------------------------------------------------------------------


@cython.boundscheck(False)
@cython.wraparound(False)
def run_labels(p, weights, double threshold, object keep):
    """``extractor.run_labels``: the blocks at or above ``threshold`` inside the best run of
    ``weights`` (``(p - threshold) * chars``, computed by NumPy as the reference does), and
    outside it at or above ``keep``, in one pass for the prefix sums and one for the labels
    instead of a dozen array operations. The sums are NumPy's (float64, in order); ``p`` is
    compared with the threshold and ``keep`` in float32, as NumPy compares a float32 array
    with a Python float."""
    import numpy as np

    if (
        not isinstance(p, np.ndarray) or p.dtype != np.float32 or p.ndim != 1
        or not isinstance(weights, np.ndarray) or weights.dtype != np.float64
        or weights.ndim != 1 or len(p) != len(weights) or not len(p)
    ):
        raise Unsupported("run_labels takes float32 probabilities and float64 weights")
    cdef const float[::1] pv = np.ascontiguousarray(p)
    cdef const double[::1] wv = np.ascontiguousarray(weights)
    cdef Py_ssize_t n = pv.shape[0], i, start = 0, end = 0, low_at = 0
    cdef double total = 0.0, low = 0.0, best = 0.0, gain
    cdef float t32 = <float>threshold, k32 = 0.0
    cdef bint has_keep = keep is not None
    if has_keep:
        k32 = <float>(<double?>keep)
    # sums[0] = 0, sums[i + 1] = sums[i] + w[i]; the end is the first i with the largest
    # sums[i + 1] - min(sums[0..i]); the start the first index of that minimum
    for i in range(n):
        if isnan(wv[i]):
            raise Unsupported("a weight is NaN")
        if total < low:  # min(sums[0..i]) takes sums[i] (the first of equal minima kept)
            low = total
            low_at = i
        total = total + wv[i]
        gain = total - low
        if i == 0 or gain > best:
            best = gain
            end = i
            start = low_at
    labels_a = np.zeros(n, dtype=bool)
    cdef char[::1] labels = labels_a.view(np.int8)
    for i in range(n):
        if pv[i] >= t32 and ((start <= i <= end) or (has_keep and pv[i] >= k32)):
            labels[i] = 1
    return labels_a


cdef inline bint _holds(xmlNode* outer, xmlNode* c) noexcept:
    """Whether ``c`` is ``outer`` or lies under it (by the parent pointers)."""
    while c is not NULL:
        if c is outer:
            return True
        c = c.parent
    return False


cdef xmlNode* _block_node(list blocks, Py_ssize_t j, xmlNode** nodes) except? NULL:
    """Block ``j``'s element (its node, read once into ``nodes``)."""
    cdef xmlNode* c = nodes[j]
    if c is NULL:
        el = blocks[j].element
        if not isinstance(el, cetree._Element) or (<cetree._Element>el)._c_node is NULL:
            raise Unsupported("not an element")
        c = nodes[j] = (<cetree._Element>el)._c_node
    return c


def aside_blocks(list blocks, chars, list kept, double max_share, object names_aside, dict cache):
    """``asides.aside_blocks``: which of the ``kept`` blocks (their indices, in order) sit in
    an aside, as a bool array over every block. The blocks under an element are found by
    the parent pointers of their nodes rather than by their xpaths, and what is found of an
    element is kept by its node's address; an element's ``class`` and ``id`` are judged by
    ``names_aside`` through its ``cache`` (value -> bool), as the reference judges them."""
    import numpy as np

    if not isinstance(chars, np.ndarray) or chars.dtype != np.float64 or chars.ndim != 1:
        raise Unsupported("aside_blocks takes float64 character counts")
    cdef const double[::1] cv = np.ascontiguousarray(chars)
    cdef Py_ssize_t n = len(blocks), i, j, lo, hi
    if cv.shape[0] != n:
        raise Unsupported("one count per block")
    out = np.zeros(n, dtype=bool)
    if not kept:
        return out
    cdef double* cum = <double*>PyMem_Malloc((n + 1) * sizeof(double))
    cdef xmlNode** nodes = <xmlNode**>PyMem_Malloc(max(n, 1) * sizeof(xmlNode*))
    if cum is NULL or nodes is NULL:
        PyMem_Free(cum)
        PyMem_Free(nodes)
        raise MemoryError()
    cdef double limit
    cdef xmlNode* c
    cdef bint verdict
    cdef dict verdicts = {}
    cdef list walked, marked = []
    try:
        cum[0] = 0.0
        for j in range(n):
            cum[j + 1] = cum[j] + cv[j]
            nodes[j] = NULL
        limit = max_share * cum[n]
        for i in kept:
            c = _block_node(blocks, i, nodes)
            lo = hi = i
            walked = []
            verdict = False
            while c is not NULL:
                known = verdicts.get(<size_t>c)
                if known is not None:
                    verdict = known
                    break
                if c.type != tree.XML_ELEMENT_NODE:
                    break
                if c.ns is not NULL:
                    raise Unsupported("a namespaced element")
                if strcmp(<const char*>c.name, b"body") == 0 or strcmp(<const char*>c.name, b"html") == 0:
                    break
                while lo > 0 and _holds(c, _block_node(blocks, lo - 1, nodes)):
                    lo -= 1
                while hi < n - 1 and _holds(c, _block_node(blocks, hi + 1, nodes)):
                    hi += 1
                if cum[hi + 1] - cum[lo] > limit:
                    verdicts[<size_t>c] = False
                    break
                walked.append(<size_t>c)
                for name in (b"class", b"id"):
                    value = cetree.attributeValueFromNsName(c, NULL, <const unsigned char*>name)
                    if value:
                        found = cache.get(value)  # (a value seen before: no call)
                        if found is None:
                            found = names_aside(value)
                        if found:
                            verdict = True
                if verdict:
                    break
                c = c.parent
            for key in walked:
                verdicts[key] = verdict
            if verdict:
                marked.append(i)
    finally:
        PyMem_Free(cum)
        PyMem_Free(nodes)
    out[marked] = True
    return out


cdef inline bint _is_body_tag(xmlNode* c) noexcept:
    """Whether an element is a ``div``, ``article``, ``main`` or ``section`` (no namespace,
    as ``el.tag in body.BODY_TAGS`` reads it)."""
    cdef const char* name
    if c.type != tree.XML_ELEMENT_NODE or c.ns is not NULL or c.name is NULL:
        return False
    name = <const char*>c.name
    return (
        strcmp(name, b"div") == 0
        or strcmp(name, b"article") == 0
        or strcmp(name, b"section") == 0
        or strcmp(name, b"main") == 0
    )


def body_walk(
    list elements, Py_ssize_t limit, object named_values, dict cache, Py_ssize_t cache_size
):
    """``body._body_walk``: walking up from each of ``elements`` (each node once, by the
    tree's pointers), ``(index, steps up)`` of each ``div`` / ``article`` / ``main`` /
    ``section`` whose ``class``, ``id`` and ``itemprop`` values ``named_values`` says name
    a body (memoised in ``cache`` by the three values, cleared when it holds
    ``cache_size``, as ``body.names_body`` memoises them); in the order met, at most
    ``limit``."""
    cdef set seen = set()
    cdef list out = []
    cdef xmlNode* c
    cdef Py_ssize_t i, up
    for i in range(len(elements)):
        el = elements[i]
        if not isinstance(el, cetree._Element) or (<cetree._Element>el)._c_node is NULL:
            raise Unsupported("not an element")
        c = (<cetree._Element>el)._c_node
        up = 0
        while c is not NULL and <size_t>c not in seen:
            seen.add(<size_t>c)
            if _is_body_tag(c):
                cls = cetree.attributeValueFromNsName(c, NULL, <const unsigned char*>b"class")
                ident = cetree.attributeValueFromNsName(c, NULL, <const unsigned char*>b"id")
                itemprop = cetree.attributeValueFromNsName(
                    c, NULL, <const unsigned char*>b"itemprop"
                )
                if cls is not None or ident is not None or itemprop is not None:
                    key = (cls, ident, itemprop)
                    found = cache.get(key)
                    if found is None:
                        found = bool(named_values(cls, ident, itemprop))
                        if len(cache) >= cache_size:
                            cache.clear()
                        cache[key] = found
                    if found:
                        out.append((i, up))
                        if len(out) >= limit:
                            return out
            c = _parent(c)
            up += 1
    return out
