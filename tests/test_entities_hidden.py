"""Text a browser never shows (scripts, style sheets, ``noscript``, ``template``) is no
entity and no part of one, in the paper's candidates and in the derived ones."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

import scrapy_boilerplate as sb
from scrapy_boilerplate.entities.derive import lines_of
from scrapy_boilerplate.entities.extract import PageCandidates
from scrapy_boilerplate.entities.pageindex import HIDDEN, PageIndex, shown_chunks
from scrapy_boilerplate.entities.predicates import page_nodes, short_text

# Each hidden element holds text that would make a list of its own: CSS rules split at
# ";", statements, a noscript list, a template list; a script inside a list item.
PAGE = """<html><head><style>h1 {color: red}</style></head><body>
<style>.main { max-width: 940px; margin: auto; }</style>
<script>var a = 1; var b = 2;</script>
<noscript><ul><li>Enable scripts</li><li>Please</li></ul></noscript>
<template><ul><li>Template one</li><li>Template two</li></ul></template>
<ul><li>Ann Lee<script>track(1)</script> (chair)</li><li>Bob Ray</li><li>Cy Dee</li></ul>
<p>Students: Dan Fox, Eve Gray, Fay Hill</p>
<p>Alumni<br>Gus Ives<style>p {}</style><br>Hal Jones<br>Ida Kent</p>
<ol><li>A first paper, with a title long enough that the paper's candidates skip it as an entity
and a style sheet inside it<style>li {}</style></li><li>A second paper</li></ol>
</body></html>"""

HIDDEN_WORDS = ("940px", "var ", "track", "Enable", "Please", "Template", "color", "{")


def all_entities(html: str) -> list[list[str]]:
    return [list(c.entities) for c in PageCandidates(sb.parse(html)).with_derived().candidates]


def test_no_entity_holds_hidden_text():
    lists = all_entities(PAGE)
    assert lists, "the shown lists are still candidates"
    for entities in lists:
        for entity in entities:
            assert not any(word in entity for word in HIDDEN_WORDS), (entity, entities)


def test_shown_lists_are_still_found_without_the_hidden_text():
    lists = all_entities(PAGE)
    assert ["Ann Lee (chair)", "Bob Ray", "Cy Dee"] in lists  # the script's text left out
    assert ["Dan Fox", "Eve Gray", "Fay Hill"] in lists  # a list read inside text


def test_hidden_marks_flag_the_elements_and_what_lies_inside_them():
    doc = sb.parse(PAGE)
    index = PageIndex(doc.body)
    inside, below = index.hidden_marks()
    for i, el in enumerate(index.elements):
        in_hidden = any(a.tag in HIDDEN for a in el.iterancestors()) or el.tag in HIDDEN
        assert inside[i] == in_hidden, el.tag
        assert below[i] == any(d.tag in HIDDEN for d in el.iterdescendants()), el.tag


def test_a_page_without_hidden_elements_reads_as_before():
    page = "<html><body><ul><li>A <b>one</b> x</li><li>B<!-- c --> two</li></ul></body></html>"
    index = PageIndex(sb.parse(page).body)
    inside, below = index.hidden_marks()
    assert not any(inside) and not any(below)
    nodes = page_nodes(index.elements[0], index=index)
    assert nodes.texts == [short_text(el, 140) for el in nodes.elements]


@pytest.mark.parametrize(
    "fragment",
    [
        "<div>a <b>b</b> c<!-- comment --> d <i>e <u>f</u></i> g</div>",
        "<div><p>one</p>tail<p>two<br>three</p>four</div>",
        "<div>x<?pi data?>y</div>",
    ],
)
def test_shown_chunks_are_itertexts_pieces_where_nothing_is_hidden(fragment):
    el = lxml_html.fragment_fromstring(fragment)
    assert shown_chunks(el) == list(el.itertext())


def test_shown_chunks_leave_out_hidden_text_and_keep_the_tails():
    el = lxml_html.fragment_fromstring(
        "<div>a<script>code()</script>b<style>x{}</style>c<template><i>t</i></template>d</div>"
    )
    assert shown_chunks(el) == ["a", "b", "c", "d"]


def test_shown_chunks_stop_past_the_limit():
    el = lxml_html.fragment_fromstring("<div>" + "<p>word</p>" * 100 + "<script>x</script></div>")
    assert shown_chunks(el, limit=40) is None
    assert shown_chunks(el, limit=400) == ["word"] * 100


def test_lines_leave_out_hidden_text():
    el = lxml_html.fragment_fromstring(
        "<p>Ann<br>Bob<script>track()</script><br>Cy<style>p {}</style></p>"
    )
    assert lines_of(el) == ["Ann", "Bob", "Cy"]
