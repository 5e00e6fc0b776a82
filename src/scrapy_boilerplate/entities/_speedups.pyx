# cython: language_level=3
"""Compiled steps of the entity lists' features (optional accelerator).

Each function here is a Python function of :mod:`scrapy_boilerplate.entities.features`
moved rule for rule into C; the Python function stays as the reference and the fallback
(it declares its twin with ``compiled.twin``), and ``tests/test_entities_speedups.py``
holds each pair to the same output:

- :func:`node_names` is ``features._node_names``: the structural features of a node list
  (the recipe over its tags, ids, classes, children and sibling counts, indices and
  parents; its holes; its page coverage), the token lists gathered and the recipe's cache
  read without a Python-level call each;
- :func:`denotation_names` is ``features._denotation_names``: the denotation features of
  an entity list (the recipe over each entity's word count, shapes, first and last words
  and part-of-speech tags), the tokens gathered in one loop.

The recipe itself is the core's compiled ``recipe_names``; a name list is cached in the
page's dict under the same key as ``features.recipe_names`` uses, so either twin fills
the cache for the other.
"""

cimport cython

from scrapy_boilerplate.core._speedups import recipe_names as _recipe

#: (feature name, the PageIndex attribute its tokens come from, finite, real, majority
#: value) of the recipe's structural features, in ``features._node_names``' order.
_STRUCTURAL = (
    ("TAG", "tags", True, False, True),
    ("ID", "ids", False, False, False),
    ("CLASS", "classes", False, False, True),
    ("CHILDRENCOUNT", "children", False, True, True),
    ("SIBLINGSCOUNT", "siblings", False, True, True),
    ("INDEX", "position", False, True, True),
    ("PARENT", "parent", False, False, False),
)


cdef tuple _cached(dict cache, str name, bint finite, bint real, bint majority_value,
                   tuple tokens, tuple edges, tuple suffixes):
    """``features.recipe_names`` with a cache: the key is the same tuple."""
    key = (name, bool(finite), bool(real), bool(majority_value), tokens)
    names = cache.get(key)
    if names is None:
        names = _recipe(name, tokens, finite, real, majority_value, edges, suffixes)
        cache[key] = names
    return <tuple>names


cdef str _unit_suffix(double value, tuple edges, tuple suffixes):
    """``features.bin_value``'s unit bins: the suffix of the first edge not below
    ``value`` (the last, ``:>1``, for a value above every edge or NaN)."""
    if value != value:
        return <str>suffixes[len(suffixes) - 1]
    cdef Py_ssize_t k = 0, n = len(edges)
    while k < n and <double>edges[k] < value:
        k += 1
    return <str>suffixes[k]


@cython.boundscheck(True)
@cython.wraparound(False)
def node_names(page, tuple nums, tuple edges, tuple suffixes):
    """``features._node_names(page, nums)``: the names of the recipe's features on the
    node list ``nums`` (numbers of ``page``, a ``PageIndex``), then its holes and its page
    coverage; ``edges`` and ``suffixes`` are ``features``' unit bins."""
    cdef Py_ssize_t n = len(nums), j, k, i, p, f, count
    if n == 0:
        raise ValueError("no nodes")
    cdef dict cache = page.recipes
    cdef list out = []
    cdef list values
    cdef tuple tokens
    for name, attr, finite, real, majority in _STRUCTURAL:
        values = getattr(page, attr)
        tokens = tuple([values[<Py_ssize_t>nums[j]] for j in range(n)])
        out.extend(_cached(cache, name, finite, real, majority, tokens, edges, suffixes))
    # holes: per parent, the selected children with the tag of its first selected child
    cdef list parent = page.parent
    cdef list raw = page.raw_tags
    cdef list rank = page.same_rank
    cdef list total = page.same_total
    cdef dict first = {}
    cdef dict chosen = {}
    for j in range(n):
        i = nums[j]
        p = parent[i]
        if p < 0:
            continue
        f = first.setdefault(p, i)
        if raw[i] == raw[f]:
            ranks = chosen.get(p)
            if ranks is None:
                ranks = chosen[p] = []
            (<list>ranks).append(rank[i])
    cdef bint no_hole = True, head = False, tail = False
    for p_obj, ranks in chosen.items():
        count = total[<Py_ssize_t>first[p_obj]]
        if len(<list>ranks) < count:
            no_hole = False
        if min(<list>ranks) > 0:
            head = True
        if max(<list>ranks) < count - 1:
            tail = True
    if no_hole:
        out.append("NOHOLE")
    if head:
        out.append("HEADHOLE")
    if tail:
        out.append("TAILHOLE")
    cdef list end = page.end
    cdef Py_ssize_t covered = 0
    for j in range(n):
        i = nums[j]
        covered += <Py_ssize_t>end[i] - i
    coverage = covered / page.total
    out.append("PAGECOVERAGE" + _unit_suffix(min(coverage, 1.0), edges, suffixes))
    return tuple(out)


@cython.boundscheck(True)
@cython.wraparound(False)
def denotation_names(tuple entities, cache, entity_tokens, tuple edges, tuple suffixes):
    """``features._denotation_names(entities, cache)`` (at least one entity; ``cache``
    None: none kept): ``entity_tokens`` is ``features._entity_tokens``, each entity's
    tokens (cached per string there)."""
    if cache is None:
        cache = {}
    cdef Py_ssize_t n = len(entities), j
    if n == 0:
        raise ValueError("no entities")
    cdef list counts = [], phrases = [], shapes = [], firsts = [], lasts = []
    cdef list phrase_tags = [], tags = []
    cdef tuple t
    for j in range(n):
        t = <tuple>entity_tokens(entities[j])
        counts.append(t[0])
        phrases.append(t[1])
        shapes.extend(<tuple>t[2])
        firsts.append(t[3])
        lasts.append(t[4])
        phrase_tags.append(t[5])
        tags.extend(<tuple>t[6])
    return (
        _cached(cache, "WORDSCOUNT", False, True, True, tuple(counts), edges, suffixes)
        + _cached(cache, "PHRASESHAPE", False, False, True, tuple(phrases), edges, suffixes)
        + _recipe_or_empty(cache, "WORDSHAPE", True, tuple(shapes), edges, suffixes)
        + _cached(cache, "FIRSTWORD", False, False, True, tuple(firsts), edges, suffixes)
        + _cached(cache, "LASTWORD", False, False, True, tuple(lasts), edges, suffixes)
        + _cached(cache, "PHRASEPOS", False, False, True, tuple(phrase_tags), edges, suffixes)
        + _recipe_or_empty(cache, "WORDPOS", True, tuple(tags), edges, suffixes)
    )


cdef tuple _recipe_or_empty(dict cache, str name, bint finite, tuple tokens, tuple edges,
                            tuple suffixes):
    """``recipe_names`` of a list that may be empty (entities without words): none."""
    if not tokens:
        return ()
    return _cached(cache, name, finite, False, True, tokens, edges, suffixes)
