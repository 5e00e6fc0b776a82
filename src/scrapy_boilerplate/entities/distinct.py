"""A list's distinct values: the answer to a question about what its items share.

"What institutions are the program committee members from?" asks for the values of a
field that many items repeat: the affiliations of a committee's members, each written
once per member. The paper's candidates hold that field's list in page order, with every
repeat ("MIT, Stanford, MIT, ETH, Stanford, ..."), and the answer is each value once.
WebQA's annotators mostly wrote such answers as the distinct values in sorted order
(Python's order of strings: capitals before lower case), and so do the lists made here.

For a question (:func:`~.features.query_style`: a title names a page's main list, whose
items rarely repeat), :func:`distinct_lists` makes, for every candidate whose entities
repeat (at most :data:`MAX_SHARE` of them distinct) and hold at least
:data:`MIN_DISTINCT` distinct values, the list of those values, sorted: a candidate with
the transform ``distinct`` over the same nodes and predicates (its ``xpath`` still
selects where the values were read). Its notes say how its source list was read (the
paper's whole texts, or a derivation of :mod:`.derive` or :mod:`.filtered`) and the
share of its items that are distinct, which the model reads as features. At most
:data:`MAX_DISTINCT` lists are made per question, none twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.entities.features import bin_value
from scrapy_boilerplate.entities.predicates import Candidate

#: The transform of a list of distinct values (:attr:`~.predicates.Candidate.transform`).
TRANSFORM = "distinct"
#: A list is read for its distinct values when at most this share of its items are
#: distinct (its values repeat).
MAX_SHARE = 0.9
#: ... and it holds at least this many distinct values.
MIN_DISTINCT = 3
#: Lists of more items than this are not read (a page's whole link list).
MAX_ITEMS = 1000
#: At most this many lists of distinct values per question.
MAX_DISTINCT = 150


def distinct_lists(
    candidates: Sequence[Candidate], max_lists: int = MAX_DISTINCT
) -> list[Candidate]:
    """The lists of distinct values of ``candidates`` (in their order), each made once and
    none equal to a candidate's own entities. A list's notes: ``DISTINCT-FROM=`` how its
    source was read (``paper`` or the source's transform, without its ``+section``) and
    ``DISTINCT-SHARE``, the binned share of distinct items."""
    out: list[Candidate] = []
    seen = {tuple(c.entities) for c in candidates}
    for cand in candidates:
        n = len(cand.entities)
        if n < MIN_DISTINCT + 1 or n > MAX_ITEMS:
            continue
        check()  # the page's deadline (a crawl's BOILERPLATE_TIMEOUT)
        values = set(cand.entities)
        if len(values) < MIN_DISTINCT or len(values) > MAX_SHARE * n:
            continue
        entities = sorted(values)
        key = tuple(entities)
        if key in seen:
            continue
        seen.add(key)
        source = cand.transform.replace("+section", "") or "paper"
        notes = ("DISTINCT-FROM=" + source, bin_value("DISTINCT-SHARE", len(values) / n))
        out.append(
            Candidate(cand.nodes, entities, cand.patterns, cand.count, cand.first, TRANSFORM, notes)
        )
        if len(out) >= max_lists:
            break
    return out


__all__ = ["MAX_DISTINCT", "MAX_ITEMS", "MAX_SHARE", "MIN_DISTINCT", "TRANSFORM", "distinct_lists"]
