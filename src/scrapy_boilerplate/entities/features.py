"""Features of a candidate list (section 3.3): structural features on the selected nodes and
their ancestors, denotation features on the entity strings, and query features.

Every list feature follows the paper's recipe (3.3.1): each element is mapped to an
abstract token, and the histogram of the tokens gives ENTROPY (normalised to 1), MAJORITY
(the mode, an indicator), MAJORITYRATIO, SINGLE (all equal), the normalised count of every
value for tokens with finitely many values, and MEAN / STD for real-valued tokens. Real
values become indicator features by binning (:func:`bin_value`).

Query features (beyond the paper's, as section 4.6 asks for): the query's content words,
Porter-stemmed, against the text around the list (all of it: table header cells and
captions, then the headings above it; the nearest of those headings alone; the label, the
short text just before it), each as a binned share of the query's words that the page
uses around some list, with a flag for the lists of the page that reach the best share;
the query's words against the entities themselves; conjunctions of the query's last
word with the entities' majority part-of-speech pattern; and section 4.6's
query-denotation features, every denotation feature conjoined with the query's category
(:func:`query_category`). Besides the paper's structural features, the words of the
header cell above a list's table column (:func:`header_names`, query-independent).
"""

from __future__ import annotations

import functools
import importlib.util
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any, TypeVar

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.entities.pageindex import PageIndex, tag_of, text_of
from scrapy_boilerplate.entities.predicates import Candidate

Features = dict[str, float]

MAX_ANCESTOR_LEVELS = 5
#: Entries of each per-string cache (tags, shapes, stems, entity tokens; the derivation's
#: cleaned texts; the re-ranker's entity counts). A page's candidates share their strings,
#: so a page's working set is what a cache must hold; strings rarely recur from site to
#: site. Larger caches are a cost, not a saving, in a long-running process: the caches
#: that hold tuples are walked by Python's cyclic garbage collector at its full
#: collections (:func:`string_cache`), and a process that reads pages runs one every page
#: or two.
STRING_CACHE_SIZE = 16384

_T = TypeVar("_T")


def string_cache(function: Callable[[str], _T]) -> Callable[[str], _T]:
    """``function`` of one string, memoised in a plain dict of at most
    :data:`STRING_CACHE_SIZE` entries, emptied when full (a page's working set is what it
    must hold). Not ``functools.lru_cache``: the cyclic garbage collector walks every
    entry of every ``lru_cache`` at each full collection, and the page's lists and
    features, which live as long as the page, make a process that reads pages run one
    every page or two; a dict of strings is left alone by the collector, and one of
    tuples of strings costs it two visits an entry instead of three. The function must
    never return None (None marks a miss). ``cache`` is the dict; ``cache_clear()``
    empties it."""
    cache: dict[str, _T] = {}
    get = cache.get

    def cached(text: str) -> _T:
        value = get(text)
        if value is None:
            if len(cache) >= STRING_CACHE_SIZE:
                cache.clear()
            value = cache[text] = function(text)
        return value

    functools.update_wrapper(cached, function)
    cached.cache = cache  # type: ignore[attr-defined]
    cached.cache_clear = cache.clear  # type: ignore[attr-defined]
    return cached


_BINS = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
_STOP = frozenset(
    (
        "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "is", "it",
        "list", "of", "on", "or", "the", "to", "what", "which", "who", "whom", "whose", "with",
        "all", "name", "names", "me", "give", "find", "show",
    )
)  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "caption", "th", "dt", "legend"})
_WORD = re.compile(r"\w+", re.UNICODE)
_PLAIN_WORDS = re.compile(r"[^\W_]+(?: [^\W_]+)*")


#: ``value <= edge`` (within 1e-9) for the first of :data:`_BINS`: a bisection on these.
_EDGES = tuple(edge + 1e-9 for edge in _BINS)
_UNIT_SUFFIXES = (*(f":<={edge}" for edge in _BINS), ":>1")


def bin_value(name: str, value: float, scale: str = "unit") -> str:
    """An indicator name for a real value: unit-interval bins, or log2 bins for counts."""
    if scale == "log":
        b = 0 if value <= 0 else int(math.log2(value + 1))
        return f"{name}:log{b}"
    if value != value:  # NaN: above every bin, as the comparisons say
        return f"{name}:>1"
    return name + _UNIT_SUFFIXES[bisect_left(_EDGES, value)]


def recipe(
    out: Features,
    name: str,
    tokens: Sequence[Any],
    finite: bool = False,
    real: bool = False,
    majority_value: bool = True,
    cache: dict[Any, tuple[str, ...]] | None = None,
) -> None:
    """Section 3.3.1's aggregation of ``tokens`` into ``out`` under the prefix ``name``
    (every feature an indicator: value 1). ``cache``: see :func:`recipe_names`."""
    for feature in recipe_names(name, tuple(tokens), finite, real, majority_value, cache):
        out[feature] = 1.0


def recipe_names(
    name: str,
    tokens: tuple[Any, ...],
    finite: bool = False,
    real: bool = False,
    majority_value: bool = True,
    cache: dict[Any, tuple[str, ...]] | None = None,
) -> tuple[str, ...]:
    """The names of :func:`recipe`'s features. They depend on the tokens alone, so
    ``cache`` (one per page) keeps them by name and token list: the same lists recur
    across a page's candidates and their ancestors."""
    if not tokens:
        return ()
    if cache is None:
        return _recipe(name, tokens, finite, real, majority_value)
    key = (name, finite, real, majority_value, tokens)
    names = cache.get(key)
    if names is None:
        names = cache[key] = _recipe(name, tokens, finite, real, majority_value)
    return names


@_compiled.twin(
    "recipe_names",
    arguments=lambda name, tokens, finite, real, majority_value: (
        name,
        tuple(tokens),
        finite,
        real,
        majority_value,
        _EDGES,
        _UNIT_SUFFIXES,
    ),
)
def _recipe(
    name: str, tokens: tuple[Any, ...], finite: bool, real: bool, majority_value: bool
) -> tuple[str, ...]:
    """The recipe's feature names over ``tokens`` (at least one), each under the list's
    ``name``; compiled where the core's ``_speedups`` is built (the histogram in a dict,
    the bins found in C, without a ``Counter``, a generator or a call per bin)."""
    n = len(tokens)
    out: list[str] = []
    value = tokens[0]
    single = tokens.count(value) == n  # (counted in C, no histogram needed)
    hist = None if single else Counter(tokens)
    if hist is None:  # the common case (every node a <td>): one value, no arithmetic
        if n > 1:
            out.append("-ENTROPY:<=0.0")
        if majority_value:
            out.append(f"-MAJORITY={value}")
        out.append("-MAJORITYRATIO:<=1.0")
        out.append("-SINGLE")
        if finite:
            out.append(f"={value}:<=1.0")
    else:
        entropy = -sum(c / n * math.log(c / n) for c in hist.values()) / math.log(n)
        out.append(bin_value("-ENTROPY", entropy))
        value, count = max(hist.items(), key=itemgetter(1))  # the first of the most frequent
        if majority_value:
            out.append(f"-MAJORITY={value}")
        out.append(bin_value("-MAJORITYRATIO", count / n))
        if finite:
            out.extend(bin_value(f"={v}", c / n) for v, c in hist.items())
    if real:
        mean = sum(tokens) / n
        std = math.sqrt(sum((t - mean) ** 2 for t in tokens) / n)
        out.append(bin_value("-MEAN", mean, "log"))
        out.append(bin_value("-STD", std, "log"))
    return tuple(name + suffix for suffix in out)


# ---------------------------------------------------------------------------------------------
# Structural features


def _holes(page: PageIndex, nums: Sequence[int]) -> tuple[bool, bool, bool]:
    """(no hole, head hole, tail hole) of the selected nodes among their same-tag siblings:
    per parent, the siblings with the tag of its first selected child."""
    parent, raw, rank, total = page.parent, page.raw_tags, page.same_rank, page.same_total
    first: dict[int, int] = {}  # parent -> its first selected child
    chosen: dict[int, list[int]] = {}  # parent -> ranks of its selected children of that tag
    for i in nums:
        p = parent[i]
        if p < 0:
            continue
        f = first.setdefault(p, i)
        if raw[i] == raw[f]:
            chosen.setdefault(p, []).append(rank[i])
    no_hole, head, tail = True, False, False
    for p, ranks in chosen.items():
        n = total[first[p]]
        if len(ranks) < n:
            no_hole = False
        if min(ranks) > 0:
            head = True
        if max(ranks) < n - 1:
            tail = True
    return no_hole, head, tail


def node_names(page: PageIndex, nums: tuple[int, ...]) -> tuple[str, ...]:
    """The names of the recipe's features on a list of nodes (their numbers in ``page``),
    without the level's prefix: tag, id, class, children and sibling counts, index,
    parent; holes; page coverage. Memoised per page and node list, whatever the level:
    candidates share their ancestors (every column of a table has the same grandparent
    list), and one list is a candidate's parents and another's grandparents."""
    names = page.memo.get(nums)
    if names is None:
        names = page.memo[nums] = _node_names(page, nums)
    return names


def _node_names(page: PageIndex, nums: tuple[int, ...]) -> tuple[str, ...]:
    cache = page.recipes
    pick: Callable[[list[Any]], tuple[Any, ...]]
    if len(nums) == 1:
        only = nums[0]

        def pick(values: list[Any]) -> tuple[Any, ...]:
            return (values[only],)

    else:
        pick = itemgetter(*nums)  # (a tuple of the values, gathered in C)
    out = (
        recipe_names("TAG", pick(page.tags), finite=True, cache=cache)
        + recipe_names("ID", pick(page.ids), majority_value=False, cache=cache)
        + recipe_names("CLASS", pick(page.classes), cache=cache)
        + recipe_names("CHILDRENCOUNT", pick(page.children), real=True, cache=cache)
        + recipe_names("SIBLINGSCOUNT", pick(page.siblings), real=True, cache=cache)
        + recipe_names("INDEX", pick(page.position), real=True, cache=cache)
        + recipe_names("PARENT", pick(page.parent), majority_value=False, cache=cache)
    )
    no_hole, head, tail = _holes(page, nums)
    extra = []
    if no_hole:
        extra.append("NOHOLE")
    if head:
        extra.append("HEADHOLE")
    if tail:
        extra.append("TAILHOLE")
    covered = sum(pick(page.end)) - sum(nums)  # the elements below the nodes, themselves in
    extra.append(bin_value("PAGECOVERAGE", min(covered / page.total, 1.0)))
    return out + tuple(extra)


#: A candidate's structural features in parts: (level prefix, node list); the features of
#: a part are ``prefix + name`` for every name of :func:`node_names` (each value 1).
Part = tuple[str, tuple[int, ...]]


def structural_parts(cand: Candidate, page: PageIndex) -> list[Part]:
    """The node lists of ``cand`` and of up to :data:`MAX_ANCESTOR_LEVELS` levels of its
    ancestors (each list without repeats, in order)."""
    level = tuple(page.numbers(cand.nodes))
    parts = [("", level)]
    parent = page.parent
    ups = page.ups
    for prefix in LEVELS:
        up = ups.get(level)
        if up is None:
            seen: set[int] = set()
            found = []
            for i in level:
                p = parent[i]
                if p >= 0 and p not in seen:
                    seen.add(p)
                    found.append(p)
            up = ups[level] = tuple(found)
        if not up:
            break
        level = up
        parts.append((prefix, level))
    return parts


#: The prefixes of the ancestor levels' structural features (``A1:`` the parents' node list,
#: ``A2:`` the grandparents', ...).
LEVELS = tuple(f"A{k}:" for k in range(1, MAX_ANCESTOR_LEVELS + 1))


# ---------------------------------------------------------------------------------------------
# Denotation features


def _pattern_text() -> tuple[Any, Path] | None:
    """textblob's ``_text`` module (Pattern's tokenizer and lexicon, which import the
    standard library only) and the folder of its English data files, or None without
    textblob. The module is loaded from its file, without running the ``textblob``
    package: that package imports NLTK, whose 1,200 modules add about a second to a
    process's start, about 110 MB to its memory and their objects to every full pass of
    the garbage collector (docs/entities.md, "How it stays fast")."""
    spec = importlib.util.find_spec("textblob")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    source = importlib.util.spec_from_file_location(
        "scrapy_boilerplate.entities._pattern_text", folder / "_text.py"
    )
    if source is None or source.loader is None:  # pragma: no cover
        return None
    module = importlib.util.module_from_spec(source)
    source.loader.exec_module(module)
    return module, folder / "en"


@lru_cache(maxsize=1)
def _tagger() -> Callable[[str], tuple[str, ...]]:
    """The tags of textblob's PatternTagger (Brill tagger of Pattern; its lexicon ships in
    the wheel, nothing is downloaded). Falls back to a shape-based guess if textblob is
    missing.

    What textblob runs (``parse(text, True, True, False, False, False)``) applies no
    contextual rules: a token's tag is its lexicon entry (for the first token of a
    sentence, else its lower-case form's), or else NNP for a capitalised word, CD for
    digits and number punctuation, or the English suffix rules. A token's tag depends on
    the token and on whether it starts its sentence, so it is kept per token
    (``_token_tag``); the sentences and tokens are textblob's tokenizer's, which
    words of letters and digits skip, and which is given no contractions to split in a
    text without an apostrophe (every contraction it splits starts with one). The same
    tags as textblob's on the 317,624 entity strings of the entity datasets' pages."""
    loaded = _pattern_text()
    if loaded is None:  # pragma: no cover - textblob is a dependency
        return lambda text: tuple("NNP" if w[:1].isupper() else "NN" for w in text.split())
    _text, folder = loaded
    # textblob.en's lexicon and the arguments its English parser's find_tokens passes
    lexicon = _text.Lexicon(
        path=str(folder / "en-lexicon.txt"),
        morphology=str(folder / "en-morphology.txt"),
        context=str(folder / "en-context.txt"),
        entities=str(folder / "en-entities.txt"),
        language="en",
    )
    find_tokens = partial(
        _text.find_tokens,
        punctuation=_text.PUNCTUATION,
        abbreviations=_text.ABBREVIATIONS,
        linebreak=r"\n{2,}",
    )
    contractions = _text.replacements
    no_contractions: dict[str, str] = {}
    # (a plain dict of strings, which the garbage collector never walks, where textblob's
    # lazily loaded dict subclass is walked, 94,000 entries, at every full collection)
    words: dict[str, str] = dict(lexicon.items())

    def _token_tag(token: str, first: bool) -> str:
        """Pattern's ``find_tags`` for one token (``first``: the first of its sentence),
        with textblob's English lexicon and its defaults (NN, NNP, CD) and no contextual
        rules, as textblob's English parser calls it."""
        tag = words.get(token)
        if tag is None and first:
            tag = words.get(token.lower())
        if tag is not None:
            return str(tag)
        if token.istitle():
            return "NNP"
        if _text.CD.match(token) is not None:
            return "CD"
        return str(_text._suffix_rules([token, "NN"])[1])

    first_tag = string_cache(partial(_token_tag, first=True))
    inner_tag = string_cache(partial(_token_tag, first=False))

    def tags(text: str) -> tuple[str, ...]:
        if _PLAIN_WORDS.fullmatch(text):
            # Letters and digits (any script) between single spaces: Pattern's tokenizer
            # (contractions, quotes, punctuation, abbreviations, emoticons) gives one
            # sentence of these very words, so it is skipped.
            plain = text.split(" ")
            return (first_tag(plain[0]), *map(inner_tag, plain[1:]))
        if "'" in text:
            sentences = find_tokens(text, replace=contractions)
        else:
            sentences = find_tokens(text, replace=no_contractions)
        out: list[str] = []
        for sentence in sentences:
            tokens = sentence.split(" ")
            out.append(first_tag(tokens[0]))
            out.extend(map(inner_tag, tokens[1:]))
        return tuple(out)

    return tags


@string_cache
def _pos(text: str) -> tuple[str, ...]:
    return _tagger()(text) if text.strip() else ()


@string_cache
def _pos_pair(text: str) -> str:
    """The first two part-of-speech tags of ``text``, joined by a space (a list's majority
    pattern is counted over these)."""
    return " ".join(_pos(text)[:2])


@string_cache
def word_shape(word: str) -> str:
    """Aa, a, A, 0, or the character classes collapsed (``Barack`` -> Aa, ``3.1`` -> 0.0)."""
    out: list[str] = []
    for ch in word:
        c = "A" if ch.isupper() else "a" if ch.isalpha() else "0" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)[:6]


@string_cache
def _entity_tokens(entity: str) -> tuple[int, str, tuple[str, ...], str, str, str, tuple[str, ...]]:
    """Every abstract token of one entity string, computed once per string."""
    words = entity.split()
    shapes = tuple(word_shape(x) for x in words)
    tags = _pos(entity)
    return (
        len(words),
        " ".join(shapes[:4]),
        shapes,
        words[0].lower() if words else "",
        words[-1].lower() if words else "",
        " ".join(tags[:4]),
        tags,
    )


def denotation_names(
    entities: Sequence[str], cache: dict[Any, tuple[str, ...]] | None = None
) -> tuple[str, ...]:
    """The names of the denotation features (each value 1)."""
    if not entities:
        return ()
    # each kind of token over the entities, in their order (columns gathered in C)
    counts, phrases, shapes, firsts, lasts, phrase_tags, tags = zip(
        *map(_entity_tokens, entities), strict=True
    )
    return (
        recipe_names("WORDSCOUNT", counts, real=True, cache=cache)
        + recipe_names("PHRASESHAPE", phrases, cache=cache)
        + recipe_names("WORDSHAPE", tuple(chain.from_iterable(shapes)), finite=True, cache=cache)
        + recipe_names("FIRSTWORD", firsts, cache=cache)
        + recipe_names("LASTWORD", lasts, cache=cache)
        + recipe_names("PHRASEPOS", phrase_tags, cache=cache)
        + recipe_names("WORDPOS", tuple(chain.from_iterable(tags)), finite=True, cache=cache)
    )


# ---------------------------------------------------------------------------------------------
# Query features


def query_words(query: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(query)) if w not in _STOP]


@lru_cache(maxsize=1)
def _stemmer() -> Callable[[str], str]:
    """Porter's stemmer (NLTK's, copied into :mod:`.porter` so that NLTK is not imported), so
    that "teach" meets "Teaching" and "located" meets "Locations"."""
    from scrapy_boilerplate.entities.porter import PorterStemmer

    return PorterStemmer().stem


@string_cache
def _stem(word: str) -> str:
    return _stemmer()(word)


@string_cache
def _stem_words(text: str) -> tuple[str, ...]:
    """The distinct stemmed lower-case words of ``text``, in order (contexts and entities
    recur: cached, as a tuple of strings, which the garbage collector stops walking, where
    it walks a cached frozenset and its words at every full collection)."""
    return tuple(dict.fromkeys(_stem(m.group(0).lower()) for m in _WORD.finditer(text)))


def _stems(text: str) -> frozenset[str]:
    """The stemmed lower-case words of ``text`` (each text's words stemmed once)."""
    return frozenset(_stem_words(text))


def _shared_stems(text: str, memo: dict[Any, Any] | None) -> frozenset[str]:
    """:func:`_stems` of ``text``, one frozenset per text of a page (``memo``): the query
    features read each word set of a page once, by identity (:func:`query_overlaps`)."""
    if memo is None:
        return _stems(text)
    found = memo.get(text)
    if found is None:
        found = memo[text] = _stems(text)
    return found


def word_stem(word: str) -> str:
    """Porter's stem of a lower-case word, as the query features stem it (cached)."""
    return _stem(word)


def text_stems(text: str) -> frozenset[str]:
    """The stemmed lower-case words of ``text``, as the query features read a text (its
    words stemmed once: cached)."""
    return _stems(text)


def text_stem_words(text: str) -> tuple[str, ...]:
    """:func:`text_stems` as the cached tuple of distinct stems, in order: for a
    membership test or a union, without a frozenset made at each call."""
    return _stem_words(text)


@dataclass(frozen=True)
class Context:
    """The text around a list: ``text`` the header cells and captions of a table around
    it and the headings above it (nearest first, up the tree), ``near`` the nearest of
    those headings, ``label`` the text of the nearest preceding element with text when
    shorter than 100 characters (a bold line or a paragraph used as a heading)."""

    text: str
    near: str
    label: str


def context_of(
    cand: Candidate, memo: dict[Any, Context] | None = None, page: PageIndex | None = None
) -> Context:
    """The :class:`Context` of ``cand``. It depends only on the lowest common ancestor of
    the first two nodes (the node itself for a list read inside one node's text:
    :mod:`.derive`): ``memo`` (one per page) keeps it by that ancestor, which the columns
    of a table share. ``page``: the page's :class:`PageIndex`, where the ancestor, the
    table's header cells and the headings inside earlier siblings are found by number
    instead of by walking the tree (the same context)."""
    first = cand.nodes[0]
    if len(cand.nodes) == 1:
        lca = first
    elif page is not None and first in page.number and cand.nodes[1] in page.number:
        parent = page.parent
        ancestors: set[int] = set()
        k = parent[page.number[first]]
        while k >= 0:
            ancestors.add(k)
            k = parent[k]
        k = parent[page.number[cand.nodes[1]]]
        while k >= 0 and k not in ancestors:
            k = parent[k]
        lca = page.elements[k] if k >= 0 else _common_ancestor(first, cand.nodes[1])
    else:
        lca = _common_ancestor(first, cand.nodes[1])
    key = lca if lca is not None else first
    if memo is not None:
        ctx = memo.get(key)
        if ctx is None:
            ctx = memo[key] = _context_of(first, lca, page)
        return ctx
    return _context_of(first, lca, page)


def _common_ancestor(a: Any, b: Any) -> Any:
    """The lowest element above both ``a`` and ``b`` (None if none), read off the tree."""
    above = set(a.iterancestors())
    return next((x for x in b.iterancestors() if x in above), None)


def context_text(cand: Candidate, memo: dict[Any, Context] | None = None) -> str:
    """The headings and text just before the list (:attr:`Context.text`)."""
    return context_of(cand, memo).text


#: Longest column header (in words) whose words become features.
MAX_HEADER_WORDS = 4
_CELLS = frozenset({"td", "th"})


def _span(cell: Any) -> int:
    try:
        return max(int(cell.get("colspan") or 1), 1)
    except ValueError:
        return 1


def column_header(cand: Candidate, page: PageIndex | None = None) -> str | None:
    """The text of the header cell above the column of ``cand``'s first node (the cell of
    the table's first row with a ``th``, at the same column, spans counted); ``""`` for a
    column without one; ``None`` when the nodes are not in a table's cells.

    ``page``: the :class:`PageIndex` of the page (else one is made for this call). Each
    row's columns, each table's header row and each header row's cells are found once a
    page, kept in it: a table's candidates (a list per row, per column) then cost no more
    than their own cells, whatever the table's size."""
    check()  # the page's deadline (a crawl's BOILERPLATE_TIMEOUT)
    if len(cand.nodes) < 2:  # (a list inside one node's text: no column)
        return None
    first = cand.nodes[0]
    anc = set(first.iterancestors())
    lca = next((a for a in cand.nodes[1].iterancestors() if a in anc), None)
    cell = first if tag_of(first) in _CELLS else None
    for a in first.iterancestors():
        if a is lca:
            break
        if tag_of(a) in _CELLS:
            cell = a
    row = cell.getparent() if cell is not None else None
    if row is None or row.getparent() is None:
        return None
    if page is None:
        page = PageIndex(row.getroottree().getroot())
    columns = page.cell_columns.get(row)
    if columns is None:
        columns = page.cell_columns[row] = _columns(row)
    col = columns[cell]
    header = page.header_row(row.getparent())
    if header is None or header is row:
        return ""
    cells = page.header_cells.get(header)
    if cells is None:
        cells = page.header_cells[header] = _header_cells(header)
    starts, ends, texts = cells
    i = bisect_right(starts, col) - 1  # (the cells' column ranges follow each other)
    return texts[i] if i >= 0 and col < ends[i] else ""


def _columns(row: Any) -> dict[Any, int]:
    """The first column of each cell of ``row``, spans counted."""
    out = {}
    col = 0
    for sib in row:
        if tag_of(sib) in _CELLS:
            out[sib] = col
            col += _span(sib)
    return out


def _header_cells(row: Any) -> tuple[list[int], list[int], list[str]]:
    """The first column, the column after the last and the text of each cell of ``row``."""
    starts: list[int] = []
    ends: list[int] = []
    texts: list[str] = []
    col = 0
    for c in row:
        if tag_of(c) not in _CELLS:
            continue
        span = _span(c)
        starts.append(col)
        ends.append(col + span)
        texts.append(text_of(c))
        col += span
    return starts, ends, texts


def header_names(cand: Candidate, page: PageIndex | None = None) -> tuple[str, ...]:
    """Features of the header cell of ``cand``'s column (:func:`column_header`, ``page``
    as there), query-independent: the stemmed words of a short header (``HDR-WORD=name``:
    a "Name" or "Title" column holds a table's entities more often than "Date" or
    "Notes"), ``HDR-LONG`` for a longer one, ``HDR-EMPTY`` for a column without one;
    nothing outside tables. Chosen by 5-fold cross-validation on the training examples
    (docs/entities.md)."""
    text = column_header(cand, page)
    if text is None:
        return ()
    if not text:
        return ("HDR-EMPTY",)
    if len(text.split()) > MAX_HEADER_WORDS:
        return ("HDR-LONG",)
    return tuple(sorted(f"HDR-WORD={w}" for w in _stems(text)))


#: A label is the text of an element shorter than this (collapsed), else none.
MAX_LABEL = 100
_TABLE_TAGS = ("th", "caption")
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _label_of(el: Any) -> str | None:
    """The label ``el`` gives a list after it: its text (whitespace collapsed) when
    shorter than :data:`MAX_LABEL`, ``""`` when longer (a text that long is no label),
    None when it has no text (the next element back is read). Reading stops once the
    characters other than spaces reach the bound, so a long element costs little."""
    parts: list[str] = []
    seen = 0
    for chunk in el.itertext():
        parts.append(chunk)
        seen += sum(map(len, chunk.split()))  # (a lower bound of the collapsed length)
        if seen >= MAX_LABEL:
            return ""
    text = " ".join(" ".join(parts).split())
    if not text:
        return None
    return text if len(text) < MAX_LABEL else ""


def _numbers_of(page: PageIndex, tags: tuple[str, ...]) -> list[int]:
    """The numbers of the page's elements whose tag (as lxml gives it) is one of
    ``tags``, in document order; listed once a page."""
    found = page.tagged.get(tags)
    if found is None:
        wanted = frozenset(tags)
        found = page.tagged[tags] = [k for k, t in enumerate(page.raw_tags) if t in wanted]
    return found


def _context_of(first: Any, lca: Any, page: PageIndex | None = None) -> Context:
    table: list[str] = []
    if lca is not None:
        for h in _table_cells(lca, page):
            table.append(text_of(h))
            if sum(map(len, table)) > 300:
                break
    heads: list[str] = []
    label = None
    n = lca if lca is not None else first
    steps = 0
    while n is not None and steps < 50 and len(heads) < 8:
        for sib in n.itersiblings(preceding=True):
            steps += 1
            if not isinstance(sib.tag, str):
                continue
            if label is None:
                label = _label_of(sib)
            if tag_of(sib) in _HEADINGS:
                heads.append(text_of(sib))
                break
            heading = _last_heading(sib, page)
            if heading is not None:
                heads.append(text_of(heading))
                break
            if steps > 20:
                break
        n = n.getparent()
    return Context(" ".join(table + heads), heads[0] if heads else "", label or "")


def _table_cells(el: Any, page: PageIndex | None) -> Iterator[Any]:
    """The ``<th>`` and ``<caption>`` elements inside ``el`` (itself included), in
    document order, as ``el.iter`` gives them; by number where ``page`` has ``el`` (most
    subtrees hold none, and walking them is what this saves)."""
    i = page.number.get(el) if page is not None else None
    if page is None or i is None:
        yield from el.iter(*_TABLE_TAGS)
        return
    cells = _numbers_of(page, _TABLE_TAGS)
    for j in range(bisect_left(cells, i), bisect_left(cells, page.end[i])):
        yield page.elements[cells[j]]


def _last_heading(el: Any, page: PageIndex | None) -> Any:
    """The last ``<h1>``-``<h6>`` in document order inside ``el`` (``el`` itself
    included, as ``el.iter`` has it), None if there is none."""
    i = page.number.get(el) if page is not None else None
    if page is None or i is None:
        found = list(el.iter(*_HEADING_TAGS))
        return found[-1] if found else None
    heads = _numbers_of(page, _HEADING_TAGS)
    j = bisect_left(heads, page.end[i]) - 1
    return page.elements[heads[j]] if j >= 0 and heads[j] >= i else None


@dataclass(frozen=True)
class ListText:
    """What the query features read of a candidate, query-independent (computed once a
    page): the stemmed words of its context, of its nearest heading, of its label and of
    its first 50 entities, and the entities' majority part-of-speech pattern (first two
    tags)."""

    context: frozenset[str]
    words: frozenset[str]
    majority_pos: str | None
    near: frozenset[str] = frozenset()
    label: frozenset[str] = frozenset()


def list_text(
    cand: Candidate, context: Context | str, memo: dict[Any, Any] | None = None
) -> ListText:
    """``memo`` (one per page) keeps the entities' part by the first 50 entities: lists of
    one page often repeat (a cell's text and its link's); and each context text's words
    by the text. ``context``: the candidate's :class:`Context` (a string: its text
    alone)."""
    head = tuple(cand.entities[:50])
    part: tuple[frozenset[str], str | None] | None = memo.get(head) if memo is not None else None
    if part is None:
        # (the words of the entities joined by spaces: the union of each entity's words)
        words = frozenset().union(*map(_stem_words, head))
        counts: dict[str, int] = {}
        for pair in map(_pos_pair, head):
            counts[pair] = counts.get(pair, 0) + 1
        # (the first of the most frequent, as ``Counter.most_common(1)`` takes it)
        part = (words, max(counts.items(), key=itemgetter(1))[0] if counts else None)
        if memo is not None:
            memo[head] = part
    if isinstance(context, str):
        return ListText(_shared_stems(context, memo), *part)
    return ListText(
        _shared_stems(context.text, memo),
        *part,
        _shared_stems(context.near, memo),
        _shared_stems(context.label, memo),
    )


_WH = {"who": "WHO", "whom": "WHO", "whose": "WHO", "when": "WHEN", "where": "WHERE"}
_WH_SKIP = frozenset(("what", "which", "how"))


def query_category(query: str) -> str:
    """The query's category ``g(x)`` for the query-denotation features (section 4.6, where
    it was classified by hand into 7 categories): the question word for "who", "when" and
    "where" questions (a person, a time, a place), else the head noun, stemmed: the last
    noun of the first noun phrase ("tallest buildings in minneapolis" -> "build", "What
    courses does this person teach?" -> "cours"); ``NONE`` when there is none."""
    words = [m.group(0).lower() for m in _WORD.finditer(query)]
    if not words:
        return "NONE"
    if words[0] in _WH:
        return _WH[words[0]]
    tags = _pos(" ".join(words))
    if len(tags) != len(words):  # (the tagger split a word: no alignment, no head)
        return "NONE"
    head = None
    for i, (word, tag) in enumerate(zip(words, tags, strict=True)):
        if head is not None and tag.startswith(("IN", "VB", "W")):
            break  # the end of the first noun phrase
        if (i == 0 and word in _WH_SKIP) or word in _STOP:
            continue
        if tag.startswith("NN"):
            head = word
    return _stem(head) if head is not None else "NONE"


#: What every query-denotation feature's name starts with (then the category and ``|``).
QD_MARKER = "QD:"


def query_denotation_names(category: str, names: Sequence[str]) -> tuple[str, ...]:
    """Section 4.6's query-denotation features: every denotation feature ``f(y)`` (its
    name in ``names``) conjoined with the query's category ``g(x)``
    (:func:`query_category`). Kept besides the denotation features themselves; chosen by
    5-fold cross-validation on the training examples (docs/entities.md)."""
    prefix = f"{QD_MARKER}{category}|"
    return tuple(prefix + name for name in names)


class Query:
    """A query's words as the query features use them, computed once a query."""

    def __init__(self, query: str) -> None:
        self.text = query
        self.words = query_words(query)
        self.stems = {_stem(w) for w in self.words}
        self.last = _stem(self.words[-1]) if self.words else ""
        self.last_pos = f"{_pos(query)[-1:] or ('',)}"
        self.weighted = self.stems  # the words that count in the context overlaps
        self.category = query_category(query)

    def overlap(self, words: frozenset[str] | set[str]) -> float:
        return len(self.stems & words) / len(self.stems) if self.stems else 0.0

    def on_page(self, texts: Sequence[ListText]) -> Query:
        """The query for one page: only its words found in some context, heading or label
        of the page count in the context overlaps (a word the page never uses around a
        list says nothing about which list; chosen by 5-fold cross-validation on the
        training examples: docs/entities.md)."""
        q = object.__new__(Query)
        q.__dict__.update(self.__dict__)
        found: set[str] = set()
        stems = self.stems
        seen: set[int] = set()  # (candidates share their word sets: each is read once)
        for t in texts:
            for words in (t.context, t.near, t.label):
                if id(words) not in seen:
                    seen.add(id(words))
                    found |= stems & words
        q.weighted = found
        return q

    def context_overlap(self, words: frozenset[str]) -> float:
        return len(self.weighted & words) / len(self.weighted) if self.weighted else 0.0


#: The context parts the query is matched against, by feature name.
_PARTS = (("CONTEXT", "context"), ("NEAR", "near"), ("LABEL", "label"))
#: The same, in the order of :data:`Overlaps`.
QUERY_PARTS = _PARTS
#: A list's overlaps with a query: its context's, its nearest heading's and its label's
#: (:meth:`Query.context_overlap`, in the order of :data:`QUERY_PARTS`), then its entities'
#: words' (:meth:`Query.overlap`).
Overlaps = tuple[float, float, float, float]


def query_overlaps(query: Query, texts: Sequence[ListText]) -> list[Overlaps]:
    """Each text's :data:`Overlaps` with ``query``, each computed once per distinct word set
    (a page's candidates share their contexts, headings and labels)."""
    parts: dict[int, float] = {}  # by id: every set is alive in ``texts`` meanwhile
    entities: dict[int, float] = {}
    out: list[Overlaps] = []
    for t in texts:
        row = []
        for _, attr in _PARTS:
            words = getattr(t, attr)
            value = parts.get(id(words))
            if value is None:
                value = parts[id(words)] = query.context_overlap(words)
            row.append(value)
        value = entities.get(id(t.words))
        if value is None:
            value = entities[id(t.words)] = query.overlap(t.words)
        out.append((row[0], row[1], row[2], value))
    return out


def query_features(
    out: Features,
    query: str | Query,
    cand: Candidate,
    context: Context | str | None = None,
    text: ListText | None = None,
    best: dict[str, float] | None = None,
) -> None:
    """``context`` is :func:`context_of` of the candidate and ``text`` its
    :func:`list_text`, when already computed. For each part of the context (all of it,
    the nearest heading, the label) the share of the query's words found there, binned,
    and ``Q:<PART>-BEST`` for the candidates that reach ``best[part]``, the highest
    share among the page's candidates (:func:`best_overlaps`): a ratio alone cannot say
    that a list's heading is the one of the page that best matches the query. Chosen by
    5-fold cross-validation on the training examples (docs/entities.md)."""
    q = query if isinstance(query, Query) else Query(query)
    if not q.words:
        return
    if text is None:
        text = list_text(cand, context if context is not None else context_of(cand))
    for name, attr in _PARTS:
        overlap = q.context_overlap(getattr(text, attr))
        out[bin_value(f"Q:{name}-OVERLAP", overlap)] = 1.0
        if best and best.get(name) and overlap == best[name]:
            out[f"Q:{name}-BEST"] = 1.0
    out[bin_value("Q:ENTITY-OVERLAP", q.overlap(text.words))] = 1.0
    if text.majority_pos is not None:
        out[f"Q:LAST={q.last}|PHRASEPOS={text.majority_pos}"] = 1.0
        out[f"Q:LASTPOS={q.last_pos}|PHRASEPOS={text.majority_pos}"] = 1.0


#: The first words of a query written as a question (:func:`query_style`).
_QUESTION_WORDS = frozenset(
    ("what", "who", "whom", "whose", "where", "when", "which", "how", "why", "is", "are",
     "do", "does", "did", "was", "were", "can")
)  # fmt: skip
#: The denotation features (and their conjunctions with the query's category): one
#: weight whatever the query's style (:func:`styled`).
_UNSTYLED = ("QD:", "FIRSTWORD", "LASTWORD", "PHRASE", "WORD")


#: The query styles (:func:`query_style`).
QUERY_STYLES = ("question", "title")


def query_style(query: str) -> str:
    """``question`` for a query written as a question (it starts with a question word or
    ends with ``?``: "Who are the program co-chairs?"), else ``title`` ("tallest buildings
    in minneapolis"). A question asks for one section's list, a title for the page's main
    list: the model keeps a weight per style for the features where that differs
    (:func:`styled`)."""
    text = query.strip()
    first = text.split(maxsplit=1)[0].lower() if text else ""
    return "question" if first in _QUESTION_WORDS or text.endswith("?") else "title"


def styled(name: str) -> bool:
    """Whether the feature ``name`` has a weight per query style besides its shared one:
    every feature but the denotation features (what the entities look like does not
    depend on how the query is written; their conjunctions with the query's category
    already depend on the query). Chosen by cross-validation grouped by template and
    page (docs/entities.md)."""
    return not name.startswith(_UNSTYLED)


def best_overlaps(overlaps: Sequence[Overlaps]) -> dict[str, float]:
    """The highest overlap of each context part among a page's candidates, from their
    :func:`query_overlaps`."""
    return {name: max((o[k] for o in overlaps), default=0.0) for k, (name, _) in enumerate(_PARTS)}
