"""Extraction predicates (Pasupat and Liang, section 3.1) on small hand-written pages."""

from __future__ import annotations

from pathlib import Path

import scrapy_boilerplate as sb
from scrapy_boilerplate.entities.predicates import ANY, Predicate, _generalisations, generate

# a page written for these tests (also used by the pipeline tests)
TRAILS = (Path(__file__).parent / "pages" / "trails.html").read_text(encoding="utf-8")


def candidates(html, **kw):
    return generate(sb.parse(html).root, **kw)


def test_generalisation_drops_any_subset_of_the_last_k_indices():
    """The paper's example with k = 2: .../tr[5]/td[2] gives .../tr[5]/td[2], .../tr/td[2],
    .../tr[5]/td and .../tr/td."""
    path = (("html", 1), ("body", 1), ("table", 2), ("tr", 5), ("td", 2))
    got = {str(Predicate(p)) for p in _generalisations(path, 2, False, True)}
    assert got == {
        "/html[1]/body[1]/table[2]/tr[5]/td[2]",
        "/html[1]/body[1]/table[2]/tr/td[2]",
        "/html[1]/body[1]/table[2]/tr[5]/td",
        "/html[1]/body[1]/table[2]/tr/td",
    }
    assert len(list(_generalisations(path, 8, False, True))) == 2**5  # k beyond the depth


def test_the_column_predicate_selects_the_trail_names():
    cands, info = candidates(TRAILS)
    by_entities = {tuple(c.entities): c for c in cands}
    names = ("Avalon Super Loop", "Hilton Area", "Avalon Loop", "Wildlands Loop")
    cand = by_entities[names]
    assert "/html[1]/body[1]/table[2]/tr/td[1]" in {str(p) for p in cand.predicates}
    assert all(len(c.nodes) >= 2 for c in cands)  # predicates selecting one node are dropped
    assert info["candidates"] == len(cands) and info["predicates"] >= len(cands)


def test_predicates_with_one_denotation_are_grouped():
    cands, _ = candidates(TRAILS)
    denotations = [tuple(id(n) for n in c.nodes) for c in cands]
    assert len(denotations) == len(set(denotations))
    # table[1]'s row has a td[1] too, so /table/tr/td[1] is another, larger denotation
    col = next(c for c in cands if c.entities[0] == "Avalon Super Loop" and len(c.nodes) == 4)
    assert not any(p.entries[2] == ("table", ANY) for p in col.predicates)


def test_long_texts_are_no_candidate_entities():
    cands, _ = candidates(TRAILS)
    assert not any(any(len(e) >= 140 for e in c.entities) for c in cands)
    assert not any("long paragraph" in e for c in cands for e in c.entities)


def test_extended_indices_select_all_but_the_first_or_last():
    doc = sb.parse(TRAILS)
    cands, _ = generate(doc.root, extended=True)
    rows = [c for c in cands if c.entities and c.entities[0].startswith("Avalon Super Loop")]
    xpaths = {p.xpath() for c in rows for p in c.predicates}
    assert any("tr[position()>1]" in x for x in xpaths)  # the rows without the header
    for c in rows:
        for p in c.predicates:
            assert doc.root.xpath(p.xpath()) == c.nodes  # the XPath selects the denotation


def test_caps_bound_the_work_and_say_so():
    html = "<html><body><ul>" + "<li>item</li>" * 3000 + "</ul></body></html>"
    _, info = candidates(html, max_nodes=500)
    assert info["truncated"] and info["nodes"] == 500
