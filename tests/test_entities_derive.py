"""Candidates read inside elements' text (``scrapy_boilerplate.entities.derive``): lists in
one element's text, heads of entities, first lines of long list items."""

from __future__ import annotations

import pytest

import scrapy_boilerplate as sb
from scrapy_boilerplate.entities.derive import (
    addresses_in,
    clean_entity,
    dates_in,
    derive,
    head_of,
    labelled_segments,
    leading_lines,
    lines_of,
)
from scrapy_boilerplate.entities.extract import DERIVED_EVERY, DERIVED_FOR, PageCandidates
from scrapy_boilerplate.entities.pageindex import PageIndex
from scrapy_boilerplate.entities.predicates import generate

PAGE = """<html><body><div>
<h2>People</h2>
<p>Current students: <a href="/ann">Ann Lee</a>, Bob Ray and Cy Dee</p>
<p>Zed Zu<br>Acme Labs<br>Utopia</p>
<ul><li>Dr. Ann Lee, MD</li><li>Prof. Bob Ray (chair)</li><li>Cy Dee, PhD</li></ul>
</div></body></html>"""

LONG = "<html><body><div>" + "".join(
    f"<ul><li>Paper {i} title<br><em>{'A. Writer, ' * 20}</em></li>"
    f"<li>Paper {i}b title<br><em>B. Writer</em></li></ul>"
    for i in range(3)
) + "</div></body></html>"  # fmt: skip


def _derived(html: str) -> list[tuple[str, list[str], str]]:
    doc = sb.parse(html)
    page = PageIndex(doc.root)
    base, _ = generate(doc.body, index=page)
    return [(c.transform, c.entities, c.predicate.xpath()) for c in derive(base, page, doc.body)]


def test_clean_entity_and_head():
    assert clean_entity("12. Dr. Ann Lee") == "Ann Lee"
    assert clean_entity("Current students: Ann Lee") == "Ann Lee"
    assert clean_entity("Current students: Ann Lee", label=False) == "Current students: Ann Lee"
    assert clean_entity("and Cy Dee,") == "Cy Dee"
    assert clean_entity("Ann Lee Inc.") == "Ann Lee Inc."  # (a full stop may end a name)
    assert head_of("Dr. Ann Lee, MD") == "Ann Lee"
    assert head_of("Prof. Bob Ray (chair)") == "Bob Ray"
    assert head_of("Jo Kim: parsing (PhD 2010), Acme") == "Jo Kim"
    assert head_of("Plain") == "Plain"


def test_lines_of_splits_at_br_and_skips_long_text():
    doc = sb.parse("<p>One<br>Two <b>bold</b><br/>Three</p>")
    p = doc.body.find(".//p")
    assert lines_of(p) == ["One", "Two bold", "Three"]
    assert lines_of(p, max_text=5) is None


def test_split_lines_and_head_candidates():
    got = _derived(PAGE)
    assert ("split", ["Ann Lee", "Bob Ray", "Cy Dee"], "/html[1]/body[1]/div[1]/p[1]") in got
    assert ("lines", ["Zed Zu", "Acme Labs", "Utopia"], "/html[1]/body[1]/div[1]/p[2]") in got
    heads = [e for t, e, x in got if t == "head" and x.endswith("ul[1]/li")]
    assert heads == [["Ann Lee", "Bob Ray", "Cy Dee"]]


def test_first_lines_of_long_items_across_lists():
    got = _derived(LONG)
    firsts = [e for t, e, x in got if t == "first-line" and x.endswith("div[1]/ul/li")]
    assert firsts == [[f"Paper {i}{s} title" for i in range(3) for s in ("", "b")]]


def test_page_candidates_carry_the_derived_lists_and_their_feature():
    page = PageCandidates(sb.parse(PAGE))
    assert not any(c.transform for c in page.candidates)  # (the paper's alone)
    pc = page.with_derived()
    assert pc.info["derived"] >= 3 and pc.page_count == len(pc.candidates)
    assert pc.candidates[: page.page_count] == page.candidates and pc.origin is page
    assert page.with_derived() is pc and pc.with_derived() is pc  # (made once, kept)
    i = next(i for i, c in enumerate(pc.candidates) if c.transform == "split")
    assert pc.candidates[i].entities == ["Ann Lee", "Bob Ray", "Cy Dee"]
    feats = pc.features("Who are the students?")[i]
    assert feats["XFORM=split"] == 1.0 and feats["QD:WHO|XFORM=split"] == 1.0
    plain = PageCandidates(sb.parse(PAGE), derived=False)
    assert plain.with_derived() is plain


def test_derived_lists_are_for_questions_under_the_models_rule():
    page = PageCandidates(sb.parse(PAGE))
    question, title = "Who are the students?", "students of the lab"
    derived = page.with_derived()
    assert page.candidates_for(title, derived=DERIVED_FOR) is page
    assert page.candidates_for(title, derived=DERIVED_EVERY) is derived
    assert page.candidates_for(question, filtered=False) is derived
    asked = page.candidates_for(question)
    assert asked.candidates[: derived.page_count] == derived.candidates
    assert asked.page_count == derived.page_count
    # a view answers for its page: the same rule from any of them
    assert derived.candidates_for(title) is page and asked.candidates_for(title) is page
    with pytest.raises(ValueError, match="derived"):
        page.candidates_for(title, derived="sometimes")

    class Meta:
        def __init__(self, **meta: object) -> None:
            self.meta = meta

    # a model file without the rule (an older one) ranks among the derived lists always
    assert page.for_query(title, Meta(filtered=True)) is derived  # type: ignore[arg-type]
    rule = Meta(filtered=True, derived=DERIVED_FOR)
    assert page.for_query(title, rule) is page  # type: ignore[arg-type]
    assert page.for_query(question, rule) is asked  # type: ignore[arg-type]


def test_derived_candidates_are_bounded():
    html = "<html><body>" + "<p>a, b</p>" * 50 + "</body></html>"
    doc = sb.parse(html)
    page = PageIndex(doc.root)
    base, _ = generate(doc.body, index=page)
    assert len(derive(base, page, doc.body, max_derived=7)) == 7


def test_lines_drop_separators_alone_and_give_their_heads():
    html = (
        "<html><body><table><tr><td>Christian Kay\n&amp;nbsp\nShu Liu\n&amp;nbsp\nAk Utt</td>"
        "</tr></table><p>TA: Lu Lu, lu@x.edu<br>TA: Co Nied, co@x.edu</p></body></html>"
    )
    got = _derived(html)
    assert ("lines", ["Christian Kay", "Shu Liu", "Ak Utt"]) in [(t, e) for t, e, _ in got]
    assert ("lines-head", ["Lu Lu", "Co Nied"]) in [(t, e) for t, e, _ in got]


def test_tails_read_what_follows_the_first_comma():
    from scrapy_boilerplate.entities.derive import tail_of

    assert tail_of("Ann Lee, Acme University, Utopia") == "Acme University, Utopia"
    assert tail_of("No comma") == ""
    html = (
        "<html><body><p><a href='/a'>Jo Chai</a>, Acme University<br>Na Sch, IT University"
        "</p><ul><li>Al Bo, Big Labs</li><li>Cy Do, Small Labs</li></ul></body></html>"
    )
    got = [(t, e) for t, e, _ in _derived(html)]
    assert ("lines-tail", ["Acme University", "IT University"]) in got
    assert ("tail", ["Big Labs", "Small Labs"]) in got


def test_a_label_line_is_not_one_of_the_lines():
    html = (
        "<html><body><div>"
        "<p><span><b>PC Members</b><br>Ann Lee (Acme)<br>Bob Ray (Initech)<br>"
        "Cy Dee (Umbrella)</span></p>"
        "<ul><li><b>PhD:</b>\n<a href='/a'>Runa Tao</a>,\n  Jo Yao, Xu Li.</li>"
        "<li><b>BS:</b>\nJustin Wong, River Keefer</li></ul>"
        "<p><b>Note</b> that<br>this is<br>prose</p>"
        "</div></body></html>"
    )
    got = _derived(html)
    heads = [e for t, e, x in got if t == "lines-head" and x.endswith("p[1]")]
    assert heads == [["Ann Lee", "Bob Ray", "Cy Dee"]]
    assert ("split", ["Runa Tao", "Jo Yao", "Xu Li."]) in [(t, e) for t, e, _ in got]
    # (a bold word that starts a sentence is no label: "Note that" stays a line)
    assert ["Note that", "this is", "prose"] in [e for t, e, _ in got if t == "lines"]


def test_labelled_segments_cut_a_text_at_its_inline_labels():
    lines = ["Program Committee: HPCA 2015, PLDI 2015 (ERC), ASPLOS 2014,",
             "CATARS 2009 Publications Chair: PPoPP 2010, CGO 2011"]  # fmt: skip
    assert labelled_segments(lines) == [
        ["HPCA 2015", "PLDI 2015 (ERC)", "ASPLOS 2014", "CATARS 2009"],
        ["PPoPP 2010", "CGO 2011"],
    ]
    # one label that opens the text is the whole text's split list: nothing more
    assert labelled_segments(["Students: Ann Lee, Bob Ray"]) == []
    # a segment of one item is no list; a lower-case word before a colon is no label
    assert labelled_segments(["Ann Lee, Bob Ray (ERC) Chair: Cy Dee"]) == [
        ["Ann Lee", "Bob Ray (ERC)"]
    ]
    assert labelled_segments(["Ann Lee, Bob Ray at 10: Cy Dee"]) == []


def test_a_first_line_that_names_separated_items_is_not_one_of_them():
    html = (
        "<html><body><div>"
        "<p>Program Committee<br>PPoPP 2021, MICRO 2020, HPDC 2020<br>CGO 2019</p>"
        "<p>Main Street 4<br>Utopia, 12345</p>"  # (an address: no list of items)
        "</div></body></html>"
    )
    got = [(t, e, x) for t, e, x in _derived(html) if t == "split"]
    first = [e for _, e, x in got if x.endswith("p[1]")]
    assert ["PPoPP 2021", "MICRO 2020", "HPDC 2020", "CGO 2019"] in first
    assert ["Program Committee", "PPoPP 2021", "MICRO 2020", "HPDC 2020", "CGO 2019"] in first
    assert [e for _, e, x in got if x.endswith("p[2]")] == [["Main Street 4", "Utopia", "12345"]]


def test_the_inline_content_before_a_block_child_is_read_as_lines():
    # a list of names and a paragraph after it; an item whose </li> the page left out
    html = (
        "<html><body><ul>"
        "<li><b>Current Students:</b> <a href='/a'>Ann Lee</a>, <a href='/b'>Bob Ray</a>,"
        " Cy Dee<p>Alumni are listed elsewhere.</p></li>"
        "<li><span>Program Committee:<br>HPCA 2015, MICRO 2013, ISCA 2012<br>"
        "<li>Publications Chair: PPoPP 2010</li></span></li>"
        "</ul></body></html>"
    )
    doc = sb.parse(html)
    page = PageIndex(doc.root)
    from scrapy_boilerplate.entities.derive import _inline_only

    inline = _inline_only(page)
    li = doc.body.find(".//li")
    assert leading_lines(li, page, inline) == ["Current Students: Ann Lee, Bob Ray, Cy Dee"]
    assert leading_lines(doc.body.find(".//p"), page, inline) is None  # (no block child)
    got = [(t, e) for t, e, _ in _derived(html)]
    assert ("split", ["Ann Lee", "Bob Ray", "Cy Dee"]) in got
    assert ("split", ["HPCA 2015", "MICRO 2013", "ISCA 2012"]) in got
    # the block below is not read into the element's lists
    assert not any("Alumni" in " ".join(e) for t, e in got if t == "split")


def test_leading_lines_are_bounded():
    doc = sb.parse("<div>" + "word, " * 300 + "<p>after</p></div>")
    page = PageIndex(doc.root)
    from scrapy_boilerplate.entities.derive import _inline_only

    assert leading_lines(doc.body.find(".//div"), page, _inline_only(page)) is None


def test_a_long_list_written_with_br_is_read_but_not_long_prose():
    names = "".join(f"Member {i:03d}, University {i}<br>" for i in range(120))
    prose = "<p>" + "A long sentence, with commas, and more words. " * 60 + "</p>"
    html = f"<html><body><div><h2>PC</h2><p>{names}</p>{prose}</div></body></html>"
    assert len(names) > 1000
    got = _derived(html)
    heads = [e for t, e, x in got if t == "lines-head"]
    assert [f"Member {i:03d}" for i in range(120)] in heads
    assert not any(x.endswith("p[2]") for _, _, x in got)  # the prose is not cut up


def test_lines_of_bounds_an_element_whose_text_has_no_children():
    doc = sb.parse("<p>" + "word " * 300 + "</p>")
    assert lines_of(doc.body.find(".//p")) is None
    got = lines_of(doc.body.find(".//p"), max_text=2000)
    assert got is not None and [x.strip() for x in got] == [("word " * 300).strip()]


SECTIONS = """<html><body><div class="people">
<h3>Current students</h3>
<p class="person">Ann Lee</p><p class="person">Bob Ray</p><p class="person">Cy Dee</p>
<p><strong>Alumni</strong></p>
<p class="person">Di Fox</p><p class="person">Ed Gu</p>
<b>Visitors</b>
<p class="person">Fay Ho</p>
</div></body></html>"""


def test_sections_number_each_element_by_the_heading_it_follows():
    from scrapy_boilerplate.entities.derive import sections

    doc = sb.parse(SECTIONS)
    page = PageIndex(doc.root)
    start = page.number[doc.body]
    section, headings = sections(page, start)
    assert len(section) == page.end[start] - start
    h3, alumni, visitors = (page.number[doc.body.find(f".//{t}")] for t in ("h3", "p/strong", "b"))
    by_text = {page.elements[i].text: section[i - start] for i in range(start, page.end[start])}
    assert by_text["Current students"] == -1  # (a heading is in the section before it)
    assert by_text["Ann Lee"] == by_text["Cy Dee"] == h3
    # the <p> holding only <strong>Alumni</strong> is the heading; its <strong> is inside it
    assert by_text["Di Fox"] == by_text["Ed Gu"] == page.parent[alumni]
    assert by_text["Fay Ho"] == visitors
    assert headings == {h3, page.parent[alumni], alumni, visitors}


def test_a_list_across_headings_is_cut_into_its_sections():
    got = [(t, e, x) for t, e, x in _derived(SECTIONS) if t.endswith("section")]
    runs = [(t, e) for t, e, _ in got]
    assert ("section", ["Ann Lee", "Bob Ray", "Cy Dee"]) in runs
    assert ("section", ["Di Fox", "Ed Gu"]) in runs
    assert not any(e == ["Fay Ho"] for _, e in runs)  # (a run of one is no list)
    # each run keeps a path pattern of its own elements
    assert all(x.startswith("/html[1]/body[1]/div[1]/p") for _, _, x in got)
    # a list within one section is not cut
    one = "<html><body><h3>Students</h3><ul><li>A a</li><li>B b</li><li>C c</li></ul></body></html>"
    assert not [t for t, _, _ in _derived(one) if t.endswith("section")]


def test_a_heading_needs_short_text_and_nothing_beside_the_bold():
    from scrapy_boilerplate.entities.derive import MAX_HEADING, sections

    html = (
        "<html><body><div><p><b>Note</b> the list below</p><p>Ann</p><p>Bob</p>"
        f"<p><b>{'x' * MAX_HEADING}</b></p><p>Cy</p></div></body></html>"
    )
    doc = sb.parse(html)
    page = PageIndex(doc.root)
    start = page.number[doc.body]
    section, _ = sections(page, start)
    ps = doc.body.findall(".//div/p")
    bold = page.number[ps[0][0]]  # the <b> itself is a heading; its <p> is not
    assert [section[page.number[p] - start] for p in ps[1:]] == [bold] * 4


def test_long_entities_up_to_max_chars():
    from scrapy_boilerplate.entities.extract import MAX_ENTITY_CHARS

    items = [f"Course {i}: " + "Fall 2019 " * 20 for i in range(3)]  # 200-odd characters
    html = "<html><body><ul>" + "".join(f"<li>{t}</li>" for t in items) + "</ul></body></html>"
    doc = sb.parse(html)
    want = [" ".join(t.split()) for t in items]
    assert 140 < len(want[0]) < MAX_ENTITY_CHARS
    paper = PageCandidates(doc, max_chars=140)
    assert want not in [c.entities for c in paper.candidates]
    ours = PageCandidates(doc).with_derived()
    assert want in [c.entities for c in ours.candidates]


def test_a_heading_has_few_elements_so_nested_bold_stays_linear():
    from scrapy_boilerplate.entities.derive import MAX_HEADING_ELEMENTS, _is_heading, sections

    many = "<i>a</i>" * MAX_HEADING_ELEMENTS
    html = f"<html><body><b>{many}</b><b>{many[8:]}</b></body></html>"
    doc = sb.parse(html)
    page = PageIndex(doc.root)
    first, second = (page.number[b] for b in doc.body.findall("b"))
    assert not _is_heading(page, first) and _is_heading(page, second)
    # 2,000 nested <b>: only the innermost few are read as headings
    deep = "<html><body>" + "<b>x " * 2000 + "</b>" * 2000 + "</body></html>"
    doc = sb.parse(deep)
    page = PageIndex(doc.root)
    _, headings = sections(page, page.number[doc.body])
    assert 0 < len(headings) <= MAX_HEADING_ELEMENTS


UNBROKEN = [
    "<p>Ann Lee</p>",
    "<p>a<!--not text-->b<?pi no?>c<span>d<!--z-->e</span>f <b>g</b></p>",
    "<td>\n  Ann Lee\n  <a href='/x'>Bob\nRay</a>  \n\n tail </td>",
    "<li>Ann Lee, Bob Ray and Cy Dee</li>",
    "<p>   </p>",
    "<p>" + "x" * 999 + "</p>",
    "<p>" + "x" * 1001 + "</p>",
    "<p><i>" + "y" * 600 + "</i>" + "z" * 500 + "</p>",
]


def test_unbroken_lines_read_what_lines_of_reads():
    from scrapy_boilerplate.entities.derive import MAX_TEXT, _unbroken_lines

    for html in UNBROKEN:
        el = sb.parse(f"<html><body>{html}</body></html>").body[0]
        assert el.find(".//br") is None
        assert _unbroken_lines(el, MAX_TEXT) == lines_of(el, MAX_TEXT), html
        assert _unbroken_lines(el, 5) == lines_of(el, 5), html


def test_unbroken_tells_the_subtrees_without_a_break():
    from scrapy_boilerplate.entities.derive import _unbroken

    doc = sb.parse("<html><body><div><p>a<br>b</p><p>c<span>d</span></p><hr></div></body></html>")
    page = PageIndex(doc.root)
    unbroken = _unbroken(page)

    def has_break(tag_path: str) -> bool:
        return not unbroken[page.number[doc.root.xpath(tag_path)[0]]]

    assert has_break("//div") and has_break("//p[1]")
    assert not has_break("//p[2]") and not has_break("//span")


def test_dates_are_read_inside_text():
    assert dates_in("Paper deadline: Tue July 16 (Round 1), Tue Oct 22 (Round 2)") == (
        "July 16",
        "Oct 22",
    )
    assert dates_in("the first on June 14, 2019, the second on September  13, 2019.") == (
        "June 14, 2019",
        "September 13, 2019",
    )
    assert dates_in("from the 1st of May 2020 to 31 December") == ("1st of May 2020", "31 December")
    assert dates_in("midterm 10/29, final 12/10 10:30") == ("10/29", "12/10")
    # not a date: a day past 31, a month past 12, a number alone, "may" the verb
    assert dates_in("open 24/7, on 13/40, in May we may see 3 to 5") == ()
    assert dates_in("no digit in May") == ()
    got = _derived(
        "<html><body><p>Submissions are due on June 14, 2019 for the summer cycle and on "
        "September 13, 2019 for the fall cycle.</p>"
        "<ul><li>Midterm: Friday October 18 in class</li><li>Final: Tuesday December 10, "
        "8am</li></ul></body></html>"
    )
    assert ("dates", ["June 14, 2019", "September 13, 2019"], "/html[1]/body[1]/p[1]") in got
    assert ("dates", ["October 18", "December 10"], "/html[1]/body[1]/ul[1]/li") in got


def test_dates_are_read_with_their_weekday_too():
    assert dates_in("Exam 1: Monday, February 10, 6pm; Exam 2: Wed April 1", weekday=True) == (
        "Monday, February 10",
        "Wed April 1",
    )
    assert dates_in("due Friday October 4 or Oct 11", weekday=True) == (
        "Friday October 4",
        "Oct 11",
    )
    assert dates_in("a Sunday picnic on June 14", weekday=True) == ("June 14",)  # (not just before)
    got = _derived(
        "<html><body><ul><li>Midterm: Friday October 18 in class</li><li>Final: Tuesday "
        "December 10, 8am</li></ul><p>Exams on Mon Feb 10 and Wed Apr 1.</p></body></html>"
    )
    assert ("dates", ["October 18", "December 10"], "/html[1]/body[1]/ul[1]/li") in got
    days = ["Friday October 18", "Tuesday December 10"]
    assert ("dates", days, "/html[1]/body[1]/ul[1]/li") in got
    assert ("dates", ["Mon Feb 10", "Wed Apr 1"], "/html[1]/body[1]/p[1]") in got


def test_an_element_with_one_date_gives_no_dates_list():
    got = _derived("<html><body><p>Due on June 14, 2019, no later.</p></body></html>")
    assert not [e for t, e, _ in got if t == "dates"]


def test_postal_addresses_are_read_inside_text():
    assert addresses_in(
        "Primary Care 9675 Brighton Way, Suite 100\n Beverly Hills, CA 90210 (310) 205-7310"
    ) == ("9675 Brighton Way, Suite 100 Beverly Hills, CA 90210",)
    assert addresses_in("825 NE 10th, 4E Oklahoma City, OK 73104 and 1501 E. 19th St. "
                        "Edmond, OK 73013-1234") == (
        "825 NE 10th, 4E Oklahoma City, OK 73104",
        "1501 E. 19th St. Edmond, OK 73013-1234",
    )  # fmt: skip
    # a phone number's digits start no street; no city, state and code: no address
    assert addresses_in("Call (310) 205-7310 Phone 8641 Wilshire Blvd., Beverly Hills, CA "
                        "90211") == ("8641 Wilshire Blvd., Beverly Hills, CA 90211",)  # fmt: skip
    assert addresses_in("1500 San Pablo Street, Los Angeles, 90033") == ()
    assert addresses_in("Open 24 hours, 7 days") == ()


def test_a_list_of_locations_gives_its_addresses_and_a_list_of_names_their_brackets():
    got = _derived(
        "<html><body><table>"
        "<tr><td>Doctor</td><td>Location</td></tr>"
        "<tr><td>Ann Lee</td><td>12701 W. 143rd Street, Suite 250<br>Homer Glen, IL 60491</td></tr>"
        "<tr><td>Bob Ray</td><td>16527 S. 106th Court<br>Orland Park, IL 60467</td></tr>"
        "<tr><td>Cy Dee</td><td>16512 S. 106th Court<br>Orland Park, IL 60467</td></tr>"
        "</table><ul><li>Ann Lee (Acme University)</li><li>Bob Ray</li>"
        "<li>Cy Dee (Utopia Labs, USA).</li><li>Di Fox (Acme University)</li></ul></body></html>"
    )
    addresses = [e for t, e, _ in got if t == "address"]
    # the header row, which holds no address, is left out of the list
    assert [
        "12701 W. 143rd Street, Suite 250 Homer Glen, IL 60491",
        "16527 S. 106th Court Orland Park, IL 60467",
        "16512 S. 106th Court Orland Park, IL 60467",
    ] in addresses
    brackets = [e for t, e, _ in got if t == "bracket"]
    assert ["Acme University", "Utopia Labs, USA", "Acme University"] in brackets


def test_too_few_readings_make_no_list():
    # one bracket of three names, one address of three cells: no list of either
    got = _derived(
        "<html><body><ul><li>Ann Lee (Acme)</li><li>Bob Ray</li><li>Cy Dee</li></ul>"
        "<p>1 Main St. Springfield, IL 62701</p><p>Hours</p><p>Phone</p></body></html>"
    )
    assert not [e for t, e, _ in got if t in ("address", "bracket")]
