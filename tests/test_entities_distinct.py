"""A list's distinct values (``entities/distinct.py``): which lists are read for them, what
the lists look like, and how a question's copy of a page's candidates holds them."""

from __future__ import annotations

import numpy as np

import scrapy_boilerplate as sb
from scrapy_boilerplate.entities import distinct as D
from scrapy_boilerplate.entities.extract import PageCandidates
from scrapy_boilerplate.entities.predicates import Candidate
from scrapy_boilerplate.entities.rerank import DENSE, dense

MEMBERS = [
    ("Ann Lee", "MIT"),
    ("Bob Ray", "ETH Zurich"),
    ("Cy Dee", "MIT"),
    ("Dan Fox", "Stanford University"),
    ("Eve Gray", "ETH Zurich"),
    ("Fay Hill", "Aalto University"),
    ("Gus Ives", "MIT"),
]
PAGE = (
    "<html><head><title>Conference 2024</title></head><body><h2>Program Committee</h2><ul>"
    + "".join(
        f'<li><span class="name">{name}</span> <span class="aff">{aff}</span></li>'
        for name, aff in MEMBERS
    )
    + "</ul></body></html>"
)
QUESTION = "What institutions are the program committee members from?"


def _candidate(entities: list[str], transform: str = "") -> Candidate:
    return Candidate(list(range(len(entities))), entities, [], 3, 7, transform)


def test_repeated_values_give_their_distinct_values_sorted():
    source = _candidate(["b", "a", "b", "C", "a", "d"], "tail+section")
    (made,) = D.distinct_lists([source])
    assert made.entities == ["C", "a", "b", "d"]  # Python's order: capitals first
    assert made.transform == D.TRANSFORM
    assert made.notes == ("DISTINCT-FROM=tail", "DISTINCT-SHARE:<=0.75")
    # the same nodes, predicates and position: its xpath selects where the values are
    assert made.nodes is source.nodes and made.patterns is source.patterns
    assert (made.count, made.first) == (3, 7)
    assert D.distinct_lists([_candidate(["x", "y", "x", "z"])])[0].notes[0] == "DISTINCT-FROM=paper"


def test_which_lists_are_read():
    # every value once, or nearly (more than MAX_SHARE distinct): nothing to gather
    assert not D.distinct_lists([_candidate([str(i) for i in range(10)])])
    assert not D.distinct_lists([_candidate([*map(str, range(10)), "0"])])  # 10 of 11
    assert D.distinct_lists([_candidate([*map(str, range(9)), "0"])])  # 9 of 10
    # fewer than MIN_DISTINCT values, or more than MAX_ITEMS items
    assert not D.distinct_lists([_candidate(["a", "b", "a", "b"])])
    assert not D.distinct_lists([_candidate(["a", "b", "c"] * 400)])
    # made once, and never a list some candidate already holds
    twice = [_candidate(["a", "b", "a", "c"]), _candidate(["c", "b", "a", "a"])]
    assert [c.entities for c in D.distinct_lists(twice)] == [["a", "b", "c"]]
    held = [_candidate(["a", "b", "a", "c"]), _candidate(["a", "b", "c"])]
    assert not D.distinct_lists(held)
    many = [_candidate([f"{i}a", f"{i}b", f"{i}a", f"{i}c"]) for i in range(20)]
    assert len(D.distinct_lists(many, max_lists=5)) == 5


def test_a_question_gets_the_distinct_values_of_a_page_list():
    pc = PageCandidates(sb.parse(PAGE))
    view = pc.asked(QUESTION)
    extra = view.candidates[pc.page_count :]
    made = [c for c in extra if c.transform == D.TRANSFORM]
    assert ["Aalto University", "ETH Zurich", "MIT", "Stanford University"] in [
        c.entities for c in made
    ]
    assert view.info["distinct"] == len(made)
    # the model reads how the list was made, and the ranker's input says so too
    n = len(view.candidates) - len(extra)
    for names, cand in zip(view.denotation[n:], extra, strict=True):
        if cand.transform == D.TRANSFORM:
            assert "XFORM=distinct" in names
            assert any(name.startswith("DISTINCT-SHARE") for name in names)
    x = dense(view, QUESTION)
    col = DENSE.index("xform_distinct")
    rows = [i for i, c in enumerate(view.candidates) if c.transform == D.TRANSFORM]
    assert rows and (x[rows, col] == 1).all()
    assert np.count_nonzero(x[:, col]) == len(rows)
    assert (x[rows, DENSE.index("xform_paper")] == 0).all()


def test_a_title_gets_none():
    # a title names the page's main list, whose items rarely repeat: its query adds nothing
    pc = PageCandidates(sb.parse(PAGE))
    assert pc.asked("program committee institutions") is pc
