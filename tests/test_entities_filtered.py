"""Lists cut down to the items a question names (``entities/filtered.py``): which words
cut, what an item's record is, what the cut lists look like, and how the query's copy of
a page's candidates shares the page's work."""

from __future__ import annotations

import numpy as np
import pytest

import scrapy_boilerplate as sb
from scrapy_boilerplate.entities import filtered as F
from scrapy_boilerplate.entities.derive import group_pattern
from scrapy_boilerplate.entities.extract import PageCandidates, load_model, rank
from scrapy_boilerplate.entities.model import Model
from scrapy_boilerplate.entities.pageindex import PageIndex
from scrapy_boilerplate.entities.rerank import DENSE, dense

PAGE = """<html><head><title>Ann Lee's home page</title></head><body>
<h2>Publications</h2>
<ul>
<li><b>Fast things</b>, A. Lee and B. Ray. <i>PLDI 2012</i>. Best Paper Award.</li>
<li><b>Slow things</b>, A. Lee. <i>POPL 2011</i>.</li>
<li><b>Other things</b>, A. Lee and C. Dee. <i>PLDI 2010</i>.</li>
<li><b>More things</b>, D. Fox. <i>OOPSLA 2012</i>.<script>var pldi = 1;</script></li>
</ul>
<h2>Students</h2>
<ul><li>Eve Gray (PhD)</li><li>Fay Hill (MS)</li><li>Gus Ives (PhD)</li>
<li>Hal Jones (PhD)</li></ul>
</body></html>"""


def own(html: str = PAGE) -> PageCandidates:
    """The page's own candidates, a question's base: the paper's and the derived lists."""
    return PageCandidates(sb.parse(html)).with_derived()


def cut(query: str, html: str = PAGE) -> list[list[str]]:
    pc = own(html)
    view = pc.asked(query)
    return [list(c.entities) for c in view.candidates[pc.page_count :]]


def test_query_terms_are_the_stems_of_the_words_that_may_constrain():
    assert tuple(F.term_kinds("What conference papers have been published in 2012?")) == (
        "confer",
        "paper",
        "publish",
        "2012",
    )
    assert tuple(F.term_kinds("Who are the current PhD students?")) == (
        "current",
        "phd",
        "student",
    )
    assert tuple(F.term_kinds("What is it?")) == ()
    assert tuple(F.term_kinds("papers and more papers")) == ("paper", "more")


def test_term_kinds():
    assert F.term_kinds("What conference papers have been published in 2012?") == {
        "confer": "word",
        "paper": "word",
        "publish": "word",
        "2012": "number",
    }
    assert F.term_kinds("Who are the current PhD students?")["phd"] == "name"
    assert F.term_kinds("PLDI papers") == {"pldi": "word", "paper": "word"}  # (first word)
    kinds = F.term_kinds("the paper that received the Best Paper Award")
    assert kinds["paper"] == "word" and kinds["best"] == kinds["award"] == "name"


def test_notes_say_how_a_list_was_cut():
    extra = _extra("What conference papers have been published in 2012?")
    assert extra
    for cand in extra:
        assert "FILTER=number" in cand.notes
        assert sum(n.startswith("FILTER-SHARE") for n in cand.notes) == 1
        assert "FILTER-INCONTEXT" not in cand.notes  # "2012" is not in "Publications"
    students = _extra("Who are the current PhD students?")
    assert students and all("FILTER=name" in c.notes for c in students)
    # "students" heads the list: a cut by it is one its context already names
    page = PAGE.replace("(MS)", "(MS student)")
    pc = own(page)
    assert pc.asked("Who are the students?") is pc  # one item alone is no list
    page = PAGE.replace("(MS)", "(MS student)").replace("(PhD)", "(PhD student)", 2)
    pc = own(page)
    asked = pc.asked("Who are the students?").candidates[pc.page_count :]
    # (the distinct values of the lists whose values repeat are asked for too: not cuts)
    notes = [c.notes for c in asked if c.transform == F.TRANSFORM]
    assert notes and all("FILTER-INCONTEXT" in n for n in notes)


def test_a_year_cuts_a_publication_list():
    lists = cut("What conference papers have been published in 2012?")
    assert ["Fast things", "More things"] in lists
    extra = _extra("What was published in 2012?")
    assert extra and all(c.transform == F.TRANSFORM for c in extra)


def test_a_venue_and_an_award_cut_it_too():
    assert ["Fast things", "Other things"] in cut("What are the conference publications at PLDI?")
    assert ["Fast things", "More things"] not in cut("What are the publications at PLDI?")
    award = cut("What is the title of the paper that received the Best Paper Award?")
    assert all(len(entities) >= 2 for entities in award)  # (one item alone is no list)
    students = cut("Who are the current PhD students?")
    assert ["Eve Gray (PhD)", "Gus Ives (PhD)", "Hal Jones (PhD)"] in students


def _filtered(terms: dict[str, str], html: str = PAGE) -> list[list[str]]:
    pc = own(html)
    memo: dict = {}
    found = F.filtered(
        pc.candidates,
        pc.page,
        F.Records(pc.page),
        terms,
        lambda nums: group_pattern(pc.page, nums, pc._root, memo),
    )
    return [list(c.entities) for c in found]


def test_a_word_in_every_record_or_in_none_cuts_nothing():
    assert _filtered({"thing": "word"}) == []  # every publication's record holds it
    assert _filtered({"zebra": "word"}) == []  # no record holds it
    assert _filtered({"2012": "word"})  # some do
    assert cut("Who wrote about zebras?") == []


def test_the_page_title_and_h1_name_no_constraint():
    records = F.Records(PageCandidates(sb.parse(PAGE)).page)
    assert records.subject() == frozenset({"ann", "lee", "s", "home", "page"})
    assert records.terms("Which papers has Lee written?") == {"paper": "word", "written": "word"}
    page = PAGE.replace("Ann Lee's home page", "Papers of 2012")
    assert ["Fast things", "More things"] in cut("Which papers were published in 2012?")
    assert ["Fast things", "More things"] not in cut("Which papers were published in 2012?", page)
    assert ["Fast things", "Other things"] in cut("What are the publications at PLDI?")
    page = PAGE.replace("<h2>Publications</h2>", "<h1>PLDI papers</h1>")
    assert ["Fast things", "Other things"] not in cut("What are the publications at PLDI?", page)


def test_only_a_question_cuts_lists():
    # a title names the page's main list: its words cut nothing
    assert cut("Which papers were published in 2012?")
    pc = PageCandidates(sb.parse(PAGE))
    assert pc.asked("papers published in 2012") is pc
    assert pc.asked("publications at PLDI") is pc


def test_hidden_text_is_no_hit():
    # "pldi" in the last item's script does not put that item in the PLDI list
    for entities in cut("What are the conference publications at PLDI?"):
        assert "More things" not in entities


def _extra(query: str) -> list:
    pc = own()
    return pc.asked(query).candidates[pc.page_count :]


def test_a_filtered_list_keeps_its_nodes_predicate_and_first_position():
    pc = own()
    view = pc.asked("What was published in 2012?")
    extra = view.candidates[pc.page_count :]
    assert extra
    for cand in extra:
        assert len(cand.nodes) == len(cand.entities) >= 2
        assert cand.count == 1
        nums = pc.page.numbers(cand.nodes)
        assert nums == sorted(nums)
        start = pc.page.number[pc._root]
        assert cand.first == nums[0] - start
        selected = pc._root.getroottree().xpath(cand.predicate.xpath())
        assert all(node in selected for node in cand.nodes)  # the list they were cut from
    keys = [(tuple(c.entities), c.first) for c in view.candidates]
    assert len(keys) == len(set(keys)), "no list twice"


def test_records_stop_at_the_neighbours_and_at_their_size():
    doc = sb.parse(PAGE)
    index = PageIndex(doc.root)
    records = F.Records(index)
    bolds = [i for i, t in enumerate(index.tags) if t == "b"]
    lis = [index.parent[i] for i in bolds]
    for j, item in enumerate(bolds):
        before = bolds[j - 1] if j else -1
        after = bolds[j + 1] if j + 1 < len(bolds) else len(index.elements)
        assert records.record(item, before, after) == lis[j]  # the <li>, not the <ul>
    big = "<ul>" + "".join(f"<li><span><i>x{k}</i></span></li>" for k in range(80)) + "</ul>"
    doc = sb.parse(f"<html><body><div><p><b>Only</b></p>{big}</div></body></html>")
    index = PageIndex(doc.root)
    b = index.tags.index("b")
    rec = F.Records(index).record(b, -1, len(index.elements))
    assert index.end[rec] - rec <= F.MAX_RECORD_ELEMENTS
    assert index.tags[rec] == "p"


def test_at_most_max_filtered_lists(monkeypatch: pytest.MonkeyPatch):
    rows = "".join(
        f"<tr><td>Name {k}</td><td>Team {k % 7}</td>"
        f"<td>{'gold' if k % 3 else 'silver'}</td>"
        f"<td>{2000 + k % 5}</td></tr>"
        for k in range(60)
    )
    page = f"<html><body><table>{rows}</table></body></html>"
    doc = sb.parse(page)
    pc = PageCandidates(doc)
    records = F.Records(pc.page)
    terms = F.term_kinds("gold medal winners of 2001 and 2003")
    memo: dict = {}

    def pattern(nums: list[int]) -> object:
        return group_pattern(pc.page, nums, pc._root, memo)

    every = F.filtered(pc.candidates, pc.page, records, terms, pattern)
    few = F.filtered(pc.candidates, pc.page, records, terms, pattern, 3)
    assert len(every) > 3
    assert len(few) == 3
    assert [c.entities for c in few] == [c.entities for c in every[:3]]


def test_the_query_copy_shares_the_page_work():
    pc = own()
    assert pc.asked("Who wrote about zebras?") is pc  # nothing cut: the page's own lists
    view = pc.asked("What was published in 2012?")
    assert view is not pc and view.origin is pc.origin
    assert pc.asked("What was published in 2012?") is view  # the last query's, kept
    assert view.asked("What was published in 2012?") is view
    n = pc.page_count
    assert view.page_count == n == len(pc.candidates)
    assert view.candidates[:n] == pc.candidates
    assert view.parts[:n] == pc.parts and view.denotation[:n] == pc.denotation
    assert [t for t in view.texts[:n]] == pc.texts
    assert all("XFORM=filter" in names for names in view.denotation[n:])
    # the page's rows of the ranker's input are the page's whatever the query
    q = "What was published in 2012?"
    base = dense(pc, q)
    both = dense(view, q)
    assert both.shape == (len(view.candidates), base.shape[1])
    page_cols = pc.ranker_columns.shape[1]
    np.testing.assert_array_equal(both[:n, :page_cols], base[:, :page_cols])
    # the filtered lists' rows say how they were cut (a year: a number)
    col = {name: k for k, name in enumerate(DENSE)}
    assert (both[n:, col["xform_filter"]] == 1).all()
    assert (both[n:, col["filter_number"]] == 1).all()
    assert (both[n:, col["filter_name"]] == 0).all()
    assert ((both[n:, col["filter_share"]] > 0) & (both[n:, col["filter_share"]] < 1)).all()
    assert (both[:n, col["xform_filter"]] == 0).all() and (both[:n, col["filter_share"]] == 0).all()
    # the query-independent score of the page's candidates is the page's own
    model = Model({"A1:TAG-SINGLE": 0.5, "XFORM=filter": 1.0, "WORDSCOUNT-SINGLE": 0.25})
    assert view._base(model)[:n] == pc._base(model)


def test_rank_cuts_lists_only_with_a_model_trained_so():
    pc = own()
    query = "What conference papers have been published in 2012?"
    plain = Model({}, {})
    assert len(rank(pc, query, plain)) == pc.page_count
    shipped = load_model()
    ranked = rank(pc, query, shipped)
    assert shipped.meta.get("filtered") is True
    assert len(ranked) > pc.page_count
    assert any(c.transform == F.TRANSFORM for _, c in ranked)
    assert abs(sum(p for p, _ in ranked) - 1.0) < 1e-6


def test_promote_cut_puts_the_named_cut_in_the_best_lists_place():
    from scrapy_boilerplate.entities.extract import cuts_of, promote_cut

    pc = PageCandidates(sb.parse(PAGE))
    view = pc.asked("What are the conference publications at PLDI?")
    n = view.page_count
    titles = next(i for i, c in enumerate(view.candidates[:n]) if c.entities[0] == "Fast things")
    cut = next(
        i
        for i in range(n, len(view.candidates))
        if view.candidates[i].entities == ["Fast things", "Other things"]
    )
    assert "FILTER=name" in view.candidates[cut].notes
    # the cuts the rule may promote: of the titles' list, not of another list or of a cut
    assert cut in cuts_of(view, titles)
    whole = {id(node) for node in view.candidates[titles].nodes}
    for f in cuts_of(view, titles):
        assert f >= n and {id(node) for node in view.candidates[f].nodes} < whole
    assert cuts_of(view, cut) == []
    logp = [-5.0] * len(view.candidates)
    logp[titles] = -0.5
    logp[cut] = -4.0
    out = promote_cut(view, logp)
    assert out[cut] == -0.5 and out[titles] == -4.0  # exchanged
    assert sorted(out) == sorted(logp)
    # a best list that is itself a cut, or one with no named cut, stays
    logp2 = list(logp)
    logp2[cut] = 0.0
    assert promote_cut(view, logp2) == logp2
    words = pc.asked("What are the conference publications?")  # no number, no name
    assert words is pc or all(
        not (set(c.notes) & F.PROMOTED) for c in words.candidates[words.page_count :]
    )
    logp3 = [-5.0] * len(words.candidates)
    logp3[titles] = -0.5
    assert promote_cut(words, logp3) == logp3


def test_a_page_and_its_query_copy_are_freed_without_the_garbage_collector():
    """No reference cycle holds a page's candidates: a cycle would leave the whole page
    (its lxml proxies, candidates and features) to Python's cyclic collector, whose full
    collections then walk it. Freed by reference counting alone, with the collector off."""
    import gc
    import weakref

    model = load_model()
    gc.collect()
    gc.disable()
    try:
        pc = PageCandidates(sb.parse(PAGE))
        view = pc.asked("What was published in 2012?")
        assert view is not pc and pc.asked("What was published in 2012?") is view
        rank(pc, "What was published in 2012?", model)
        rank(pc, "Who are the students?", model)
        page, copy, index = weakref.ref(pc), weakref.ref(view), weakref.ref(pc.page)
        candidate = weakref.ref(pc.candidates[0])
        del view
        assert copy() is None  # the page keeps its last query's copy weakly
        assert pc.asked("What was published in 2012?").origin is pc  # made again
        del pc
        assert page() is None and index() is None and candidate() is None
    finally:
        gc.enable()
