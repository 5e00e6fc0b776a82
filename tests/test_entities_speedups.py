"""The entity features' compiled twins (``entities/_speedups.pyx``) give their Python
functions' names, in the same order, on whole pages and on lists made up to reach the
edges (one node, nodes of several parents, holes, the root, comments among siblings,
entities without words)."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scrapy_boilerplate as sb
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.entities import features as F
from scrapy_boilerplate.entities.extract import PageCandidates, extract_entities
from scrapy_boilerplate.entities.pageindex import PageIndex
from test_entities_filtered import PAGE
from test_entities_predicates import TRAILS

TWINS = (F._node_names, F._denotation_names)

TABLE = """<html><body><h1>Peaks</h1>
<table><tr><th>Name</th><th>Height</th></tr>
<tr><td>Mont Blanc</td><td>4808</td></tr><!-- a comment among the rows -->
<tr><td>Monte Rosa</td><td>4634</td></tr><tr><td colspan="2">Dom</td></tr>
<tr><td>Weisshorn</td><td>4506 m</td></tr></table>
<ul><li>A</li><li class="x">B</li><li>C</li><p>not an item</p><li>D</li></ul>
<div><span>one</span> <b>two</b><br/>three, four &amp; five</div></body></html>"""


def _compiled_or_skip(twin):
    if twin.compiled is None:
        pytest.skip("the entities' compiled module is not built")
    return twin.compiled


def test_every_twin_is_this_packages():
    for twin in TWINS:
        module = importlib.import_module(twin.compiled_module)
        assert twin.compiled_module == F.COMPILED
        if twin.compiled is not None:
            assert twin.compiled is getattr(module, twin.compiled_name)


@pytest.mark.parametrize("html", [TABLE, PAGE, TRAILS], ids=["table", "publications", "trails"])
def test_node_names_of_every_candidate_and_ancestor_level(html):
    compiled = _compiled_or_skip(F._node_names)
    pc = PageCandidates(sb.parse(html))
    lists = {nums for parts in pc.parts for _, nums in parts}
    assert len(lists) > 5
    for nums in sorted(lists):
        page = PageIndex(pc.page.elements[0])  # (a fresh recipe cache for each side)
        python = F._node_names.python(page, nums)
        assert compiled(page, nums, F._EDGES, F._UNIT_SUFFIXES) == python
        # the cache filled by one side gives the other the same names
        assert compiled(page, nums, F._EDGES, F._UNIT_SUFFIXES) == python
        assert F._node_names.python(page, nums) == python


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_node_names_of_any_node_list(data):
    compiled = _compiled_or_skip(F._node_names)
    page = PageIndex(sb.parse(TABLE).root)
    n = len(page.tags)
    nums = tuple(
        sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n), label="nums"))
    )
    python = F._node_names.python(page, nums)
    assert compiled(PageIndex(sb.parse(TABLE).root), nums, F._EDGES, F._UNIT_SUFFIXES) == python


ENTITY = st.one_of(
    st.sampled_from(["Mont Blanc", "4808", "3.1 km", "Dr. Ann Lee, MD", "   ", "x", "Ann's"]),
    st.text(min_size=0, max_size=20),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(ENTITY, min_size=1, max_size=12))
def test_denotation_names_of_any_entities(entities):
    compiled = _compiled_or_skip(F._denotation_names)
    entities = tuple(entities)
    python = F._denotation_names.python(entities, {})
    args = (F._entity_tokens, F._EDGES, F._UNIT_SUFFIXES)
    assert compiled(entities, {}, *args) == python
    assert compiled(entities, None, *args) == python  # no cache kept
    shared: dict = {}
    assert compiled(entities, shared, *args) == python
    assert F._denotation_names.python(entities, shared) == python


def test_whole_extractions_are_the_same_both_ways():
    queries = [(TRAILS, "hiking trails near Baltimore"), (PAGE, "What was published in 2012?")]
    compiled = [extract_entities(html, query).to_dict() for html, query in queries]
    with _compiled.disabled():
        assert [extract_entities(html, query).to_dict() for html, query in queries] == compiled
