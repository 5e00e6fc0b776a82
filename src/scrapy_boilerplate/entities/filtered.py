"""Lists cut down to the items a question names: candidates for the question's constraints.

The paper's candidates (and the derived ones, :mod:`.derive`) do not depend on the query,
so a question that asks for part of a list has no candidate of its own: "What conference
papers have been published in 2012?" on a page that lists every paper of a career, "What
is the title of the paper that received the Best Paper Award?", "What are the conference
publications at PLDI?". The answer is the list's items whose *record* (the item with the
text around it: a publication's authors, venue and year, a row of a table) names the
constraint.

For a query, :func:`filtered` makes such lists. Each content word of the query (its
stem, as the query features read it; question words and auxiliaries left out, and the
words of the page's ``<title>`` and first ``<h1>``, which name what the whole page is
about: "tallest buildings in Boise" asked of the "List of tallest buildings in Boise")
is looked up in the page's text. For every candidate of at least :data:`MIN_ITEMS`
items, one entity per element, whose elements hold the word in the records of some of
them but not of all, the items whose record holds it are a new candidate with the
transform ``filter`` and notes (the kind of word that cut it, whether the list's context
holds it, the share kept) that the model reads as features. An item's record is the
largest element above it (or itself) that holds no other item of its list and at most
:data:`MAX_RECORD_ELEMENTS` elements; its text is read as a browser shows it (no script
or style sheet). :func:`~.extract.promote_cut` puts a cut by a number or a name of the
question (:data:`PROMOTED`) in the place of the best list it was cut from.

The work is bounded: an element's own text is read once a page, records only for
candidates near an element holding the word, and at most :data:`MAX_FILTERED` lists are
made per query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate, pairwise
from typing import Any

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.entities.features import (
    bin_value,
    query_words,
    text_stem_words,
    word_stem,
)
from scrapy_boilerplate.entities.pageindex import PageIndex, text_of
from scrapy_boilerplate.entities.predicates import Candidate

#: The transform of a filtered list (:attr:`~.predicates.Candidate.transform`).
TRANSFORM = "filter"
#: A list must hold at least this many items to be filtered, and a filtered list two.
MIN_ITEMS = 3
#: Lists of more items than this are not filtered (a page's whole link list).
MAX_ITEMS = 1000
#: An item's record holds at most this many elements (its own subtree included).
MAX_RECORD_ELEMENTS = 64
#: At most this many filtered lists per query.
MAX_FILTERED = 300
#: The notes of a cut that :func:`~.extract.promote_cut` puts in the best list's place: a
#: number or a name of the question ("in 2012", "at PLDI", "the Best Paper Award")
#: narrows the list it cuts; a plain word ("students", "current") may just describe it.
PROMOTED = frozenset(("FILTER=number", "FILTER=name"))
#: Words of a question that name no constraint on its answer (beside the query
#: features' stop words): auxiliaries, pronouns and question words.
QUESTION_WORDS = frozenset(
    ("have", "has", "had", "been", "being", "do", "does", "did", "this", "that", "these",
     "those", "they", "their", "them", "there", "he", "she", "his", "her", "we", "our",
     "you", "your", "i", "my", "was", "were", "when", "where", "why", "can", "could",
     "will", "would", "should", "may", "any", "some", "person", "people", "one", "ones")
)  # fmt: skip
_WORD = re.compile(r"\w+", re.UNICODE)


def term_kinds(query: str) -> dict[str, str]:
    """The stems of the words of ``query`` that may name a constraint on its answer, in
    their order, each once (two characters or more; no stop or question word), with the
    kind of the word each came from (its first occurrence): ``number`` (digits: a year, a
    course number), ``name`` (a capital after the query's first word: an acronym such as
    "PLDI" or "PhD", a title such as "Best Paper Award") or ``word``."""
    kept = set(query_words(query))
    out: dict[str, str] = {}
    for k, match in enumerate(_WORD.finditer(query)):
        word = match.group(0)
        lower = word.lower()
        if lower not in kept or len(lower) < 2 or lower in QUESTION_WORDS:
            continue
        stem = word_stem(lower)
        if stem in out:
            continue
        if word.isdigit():
            out[stem] = "number"
        elif k > 0 and any(ch.isupper() for ch in word):
            out[stem] = "name"
        else:
            out[stem] = "word"
    return out


class Records:
    """What the filters read of one page, kept across its queries: each element's own
    text (its text and its children's tails, lower-cased; none inside a hidden element)
    and each item's record, by the item and its neighbours in its list."""

    def __init__(self, page: PageIndex) -> None:
        self.page = page
        self._own: list[str] | None = None
        self._records: dict[tuple[int, int, int], int] = {}
        self._subject: frozenset[str] | None = None

    def subject(self) -> frozenset[str]:
        """The stems of the words of the page's first ``<title>`` and first ``<h1>``."""
        if self._subject is None:
            found: dict[str, tuple[str, ...]] = {}
            for i, tag in enumerate(self.page.tags):
                if tag in ("title", "h1") and tag not in found:
                    found[tag] = text_stem_words(text_of(self.page.elements[i]).lower())
                    if len(found) == 2:
                        break
            self._subject = frozenset().union(*found.values())
        return self._subject

    def terms(self, query: str) -> dict[str, str]:
        """:func:`term_kinds` of ``query`` that do not name the page's subject."""
        subject = self.subject()
        return {t: kind for t, kind in term_kinds(query).items() if t not in subject}

    def own_texts(self) -> list[str]:
        if self._own is None:
            hidden, _ = self.page.hidden_marks()
            own = []
            for i, el in enumerate(self.page.elements):
                if hidden[i]:  # (a hidden element itself, or inside one)
                    own.append("")
                    continue
                parts = [el.text or ""]
                parts.extend(child.tail or "" for child in el)
                own.append(" ".join(parts).lower())
            self._own = own
        return self._own

    def hits(self, term: str) -> list[int]:
        """The elements whose own text holds a word of stem ``term``, in document order."""
        probe = term[: max(len(term) - 1, 2)]  # (its word's head, nearly always)
        return [
            i
            for i, text in enumerate(self.own_texts())
            if probe in text and term in text_stem_words(text)
        ]

    def counts(self, hits: list[int]) -> list[int]:
        """For each element number ``x`` (and the page's size), how many of ``hits`` come
        before it: element ``a``'s subtree holds one when ``counts[end[a]] > counts[a]``."""
        marks = bytearray(len(self.page.elements))
        for i in hits:
            marks[i] = 1
        return [0, *accumulate(marks)]

    def record(self, item: int, before: int, after: int) -> int:
        """The record of element ``item`` between its list's neighbours ``before`` and
        ``after`` (element numbers; -1 and the page's size where there is none)."""
        key = (item, before, after)
        found = self._records.get(key)
        if found is None:
            parent, end = self.page.parent, self.page.end
            found = item
            up = parent[item]
            while up > before and end[up] <= after:  # (before >= -1: up is no root's parent)
                if end[up] - up > MAX_RECORD_ELEMENTS:
                    break
                found = up
                up = parent[up]
            self._records[key] = found
        return found


def filtered(
    candidates: Sequence[Candidate],
    page: PageIndex,
    records: Records,
    terms: dict[str, str],
    group_pattern: Any,
    max_filtered: int = MAX_FILTERED,
    contexts: Sequence[frozenset[str]] | None = None,
) -> list[Candidate]:
    """The filtered lists of ``candidates`` for the query ``terms`` (:func:`term_kinds`:
    stem -> kind), none with the entities and first element of a candidate already made.
    ``group_pattern(numbers)`` gives the predicate pattern of a filtered list's elements.
    Each list's ``notes`` name the kind of each word that cut it (``FILTER=number``,
    ``FILTER=name``, ``FILTER=word``), the share of the items it kept (``FILTER-SHARE``,
    binned) and, with ``contexts`` (the stems of each candidate's context,
    :class:`~.features.ListText`), whether the list's context holds such a word already
    (``FILTER-INCONTEXT``: "papers" cuts little out of a list headed "Papers")."""
    out: list[Candidate] = []
    if not terms or not candidates:
        return out
    hits = {t: records.counts(h) for t in terms if (h := records.hits(t))}
    if not hits:
        return out
    seen = {(tuple(c.entities), c.first) for c in candidates}
    made: dict[tuple[tuple[str, ...], int], Candidate] = {}
    number, end = page.number, page.end
    size = len(page.elements)
    for c, cand in enumerate(candidates):
        n = len(cand.nodes)
        if n < MIN_ITEMS or n > MAX_ITEMS or n != len(cand.entities):
            continue
        check()  # the page's deadline (a crawl's BOILERPLATE_TIMEOUT)
        nums = [number[node] for node in cand.nodes]
        if any(b <= a for a, b in pairwise(nums)):
            continue  # (not in document order, or an element twice)
        low = max(nums[0] - MAX_RECORD_ELEMENTS, 0)
        high = min(nums[-1] + MAX_RECORD_ELEMENTS + 1, size)
        bounds: list[tuple[int, int]] | None = None
        for term, counts in hits.items():
            if counts[high] == counts[low]:
                continue  # no element holding the word near the list
            if bounds is None:
                bounds = []
                for j, item in enumerate(nums):
                    before = nums[j - 1] if j else -1
                    after = nums[j + 1] if j + 1 < n else size
                    rec = records.record(item, before, after)
                    bounds.append((rec, end[rec]))
            keep = [j for j, (start, stop) in enumerate(bounds) if counts[stop] > counts[start]]
            if len(keep) < 2 or len(keep) == n:
                continue
            entities = [cand.entities[j] for j in keep]
            kept = [nums[j] for j in keep]
            first = cand.first + (kept[0] - nums[0])
            key = (tuple(entities), first)
            notes = ["FILTER=" + terms[term]]
            if contexts is not None and term in contexts[c]:
                notes.append("FILTER-INCONTEXT")
            again = made.get(key)
            if again is not None:  # (one list cut by two words: both say so)
                again.notes = tuple(sorted({*again.notes, *notes}))
                continue
            if key in seen:
                continue
            seen.add(key)
            pattern = group_pattern(kept)
            nodes = [cand.nodes[j] for j in keep]
            notes.append(bin_value("FILTER-SHARE", len(keep) / n))
            made[key] = Candidate(
                nodes, entities, [pattern], 1, first, TRANSFORM, tuple(sorted(notes))
            )
            out.append(made[key])
            if len(out) >= max_filtered:
                return out
    return out


__all__ = [
    "MAX_FILTERED",
    "PROMOTED",
    "QUESTION_WORDS",
    "TRANSFORM",
    "Records",
    "filtered",
    "term_kinds",
]
