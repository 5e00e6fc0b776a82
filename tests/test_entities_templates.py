"""The question-template normaliser and the stable split key of the entity benchmark
(``benchmarks/harness/entities_data.py``), and the causes of oracle misses."""

from __future__ import annotations

from pathlib import Path

from harness.entities_data import (
    Example,
    miss_cause,
    question_template,
    stable_share,
    template_groups,
    title_names,
)


def _ex(id_: str, query: str, title: str = "", items: tuple[str, ...] = ("a", "b", "c")) -> Example:
    crit = ((items[0],), (items[1],), (items[-1],))
    return Example(id_, query, Path(f"{id_}.html"), crit, list(items), "t", title)


def test_template_takes_out_names_numbers_and_quotes():
    assert question_template("What conference papers have been published in 2012?") == (
        "what conference papers have been published in <N> ?"
    )
    tas = "Who are the Teaching Assistants (TAs)?"
    assert question_template(tas) == "who are the <E> ( <E> ) ?"
    assert question_template('Which papers cite "Deep Learning" most?') == (
        "which papers cite <E> most ?"
    )
    # the first word stays even when capitalised; lower-case words stay
    assert question_template("Where are the clinics located?") == "where are the clinics located ?"


def test_template_takes_out_the_words_of_the_page_title():
    assert title_names("List of tallest buildings in Minneapolis") == {"minneapolis"}
    assert title_names("The Home Page of ICSE") == {"icse"}
    assert question_template("tallest buildings in minneapolis", "List of tallest buildings "
                             "in Minneapolis") == "tallest buildings in <E>"  # fmt: skip
    assert question_template("tallest buildings in tokyo", "List of tallest buildings in "
                             "Tokyo") == "tallest buildings in <E>"  # fmt: skip


def test_template_groups_join_one_question_whatever_the_title():
    a = _ex("1", "Who are the program committee members?", "Program Committee - PLDI")
    b = _ex("2", "Who are the program committee members?", "PLDI 2020")
    c = _ex("3", "Who are the instructors?")
    groups = template_groups([a, b, c])
    assert groups["1"] == groups["2"] != groups["3"]
    assert groups["3"] == "who are the instructors ?"


def test_stable_share_is_a_fixed_percentile():
    assert stable_share("fac_1") == stable_share("fac_1")
    assert 0 <= stable_share("who are the instructors ?") < 100


def test_miss_cause_tells_the_causes_apart():
    ex = _ex("1", "q", items=("Ann Lee", "Bob Ray", "Cy Dee"))
    texts = ["Ann Lee", "Bob Ray", "Cy Dee", "Dr. Zed", "Ann Lee Bob Ray Cy Dee Dr. Zed"]
    page = texts[-1]
    assert miss_cause(ex, [["Ann Lee", "Bob Ray", "Cy Dee"]], texts, page) == "found"
    assert miss_cause(ex, [["Ann Lee", "Bob Ray", "Cy Dee", "Dr. Zed"]], texts, page) == "subset"
    assert miss_cause(ex, [["Ann Lee", "Bob Ray"], ["Cy Dee", "Dr. Zed"]], texts, page) == "split"
    assert miss_cause(ex, [], ["Ann Lee, Bob Ray and Cy Dee"], "Ann Lee, Bob Ray and Cy Dee") == (
        "inside-text"
    )
    assert miss_cause(ex, [], ["Ann-Lee", "Bob Ray", "Cy Dee"], "Ann-Lee Bob Ray Cy Dee") == (
        "normalisation"
    )
    assert miss_cause(ex, [], ["Ann Lee"], "Ann Lee") == "absent"


def test_heading_questions_ask_for_the_lists_under_a_heading():
    import scrapy_boilerplate as sb
    from harness.entities_data import heading_questions
    from scrapy_boilerplate.entities.extract import PageCandidates

    html = (
        "<html><body><h2>Topics of Interest</h2><ul><li>Program analysis</li>"
        "<li>Type systems</li><li>Compilers</li></ul>"
        "<h2>Program Chairs</h2><ul><li>Ann Lee</li><li>Bo Chen</li></ul>"
        "<h2>Sponsors</h2><table><tr><td>Acme</td><td>gold</td></tr>"
        "<tr><td>Initech</td><td>silver</td></tr></table></body></html>"
    )
    pc = PageCandidates(sb.parse(html))
    pairs = heading_questions(pc.candidates)
    assert pairs and len(pairs) <= 5
    by_query = dict(pairs)
    topics = by_query["what are the topics of interest ?"]
    marked = [c.entities for c, ok in zip(pc.candidates, topics, strict=True) if ok]
    assert ["Program analysis", "Type systems", "Compilers"] in marked
    # (a list's heading is read where its first two items are: every marked list starts
    # under "Topics of Interest")
    assert all(e[0] == "Program analysis" for e in marked)
    sponsors = by_query["what are the sponsors ?"]
    assert not any(ok for ok, t in zip(sponsors, topics, strict=True) if t)
    assert heading_questions(pc.candidates) == pairs  # the same pairs from run to run
    assert len(heading_questions(pc.candidates, k=1)) == 1
    assert heading_questions([]) == []
