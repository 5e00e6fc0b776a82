"""Extraction predicates (Pasupat and Liang, section 3.1) on small hand-written pages."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

import scrapy_boilerplate as sb
from scrapy_boilerplate.entities.predicates import (
    ALL_BUT_FIRST,
    ALL_BUT_LAST,
    ANY,
    Predicate,
    generate,
    page_nodes,
)

# a page written for these tests (also used by the pipeline tests)
TRAILS = (Path(__file__).parent / "pages" / "trails.html").read_text(encoding="utf-8")


def candidates(html, **kw):
    return generate(sb.parse(html).root, **kw)


def generalisations(path, k, extended=False, is_last=True):
    """Section 3.1 by the letter: the node's own predicate with any subset of the indices
    of its last k entries dropped (with ``extended``, also [1:] and, on the last entry,
    [:-1]). ``generate`` must give exactly the groups this enumeration gives."""
    m = min(k, len(path))
    head, tail = path[: len(path) - m], path[len(path) - m :]
    options = []
    for j, (tag, index) in enumerate(tail):
        opts = [(tag, index), (tag, ANY)]
        if extended and index > 1:
            opts.append((tag, ALL_BUT_FIRST))
        if extended and j == m - 1 and not is_last:
            opts.append((tag, ALL_BUT_LAST))
        options.append(opts)
    for combo in product(*options):
        yield head + combo


def test_generalisation_drops_any_subset_of_the_last_k_indices():
    """The paper's example with k = 2: .../tr[5]/td[2] gives .../tr[5]/td[2], .../tr/td[2],
    .../tr[5]/td and .../tr/td."""
    path = (("html", 1), ("body", 1), ("table", 2), ("tr", 5), ("td", 2))
    got = {str(Predicate(p)) for p in generalisations(path, 2)}
    assert got == {
        "/html[1]/body[1]/table[2]/tr[5]/td[2]",
        "/html[1]/body[1]/table[2]/tr/td[2]",
        "/html[1]/body[1]/table[2]/tr[5]/td",
        "/html[1]/body[1]/table[2]/tr/td",
    }
    assert len(list(generalisations(path, 8))) == 2**5  # k beyond the depth


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


@pytest.mark.parametrize("extended", [False, True])
@pytest.mark.parametrize("k", [2, 8])
def test_generate_gives_exactly_the_groups_of_the_enumeration(k, extended):
    html = TRAILS.replace("</body>", "<ul><li>a</li><li>b</li><li><b>c</b></li></ul></body>")
    root = sb.parse(html).root
    nodes = page_nodes(root)
    groups: dict = {}
    for i, (path, text) in enumerate(zip(nodes.paths, nodes.texts, strict=True)):
        if text is not None:
            for key in generalisations(path, k, extended, nodes.last_of_tag[i]):
                groups.setdefault(key, []).append(i)
    expected = {key: tuple(m) for key, m in groups.items() if len(m) >= 2}
    cands, info = generate(root, k=k, extended=extended)
    got = {p.entries: tuple(nodes.elements.index(n) for n in c.nodes)
           for c in cands for p in c.predicates}  # fmt: skip
    assert got == expected and info["predicates"] == len(expected)


@pytest.mark.parametrize("extended", [False, True])
def test_patterns_stand_for_their_predicates(extended):
    """A candidate keeps compressed patterns: ``count`` is the number of predicates they
    expand to, and the representative is the most specific of them (ties: greatest string)."""
    html = TRAILS.replace("</body>", "<ul><li>a</li><li>b</li><li><b>c</b></li></ul></body>")
    cands, info = candidates(html, extended=extended)
    assert any(c.count > len(c.patterns) for c in cands)  # some entries were merged
    total = 0
    for c in cands:
        expanded = c.predicates
        assert len(expanded) == len({p.entries for p in expanded}) == c.count
        best = max(expanded, key=lambda p: (sum(i is not ANY for _, i in p.entries), str(p)))
        assert c.predicate == best
        total += c.count
    assert info["predicates"] == total


def test_predicate_cap_counts_expanded_predicates():
    html = "<html><body><ul>" + "<li>item</li>" * 50 + "</ul></body></html>"
    _, full = candidates(html)
    _, capped = candidates(html, max_predicates=full["predicates"] - 1)
    assert not full["truncated"] and capped["truncated"]
    assert capped["predicates"] < full["predicates"]
