"""Entity extraction: the paper's evaluation rule, the feature recipe, the log-linear model
and extract_entities, on small hand-made data."""

from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scrapy_boilerplate as sb
from harness.entities_data import (
    compatible,
    near_match,
    read_openweb,
    read_webqa,
    read_wtq_questions,
)
from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.entities import features as entity_features
from scrapy_boilerplate.entities.extract import PageCandidates, extract_entities
from scrapy_boilerplate.entities.features import PageIndex, _holes, recipe, word_shape
from scrapy_boilerplate.entities.model import Model, PackedTrainingPage, TrainingPage, train
from test_entities_predicates import TRAILS


def test_near_match_allows_edit_distance_two_after_normalisation():
    assert near_match("Avalon Loop", ["avalon loop"])
    assert near_match("Avalon Lop", ["Avalon Loop"])  # one edit
    assert near_match("Governer Bridge", ["Governor Bridge."])  # one edit, outer punctuation
    assert not near_match("Hilton Area", ["Avalon Loop"])


def test_compatible_checks_first_second_and_last():
    crit = (("Avalon Super Loop",), ("Hilton Area",), ("Wildlands Loop",))
    assert compatible(["Avalon Super Loop", "Hilton Area", "Avalon Loop", "Wildlands Loop"], crit)
    assert not compatible(["Avalon Super Loop", "Hilton Area", "Avalon Loop"], crit)
    assert not compatible(["Avalon Super Loop"], crit)


def test_readers(tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "p1.html").write_text(TRAILS)
    data = {
        "options": {"pageFile": "pages/{page_id}.html"},
        "data": [{"id": "x", "page_id": "p1", "query": "hiking trails near baltimore",
                  "entities": ["Avalon Super Loop", "Hilton Area", "Wildlands Loop"]}],
    }  # fmt: skip
    (tmp_path / "lists.train.json").write_text(json.dumps(data))
    (ex,) = read_openweb(tmp_path / "lists.train.json")
    assert ex.criteria[2] == ("Wildlands Loop",) and "Avalon" in ex.html()
    answers = [["Avalon Super Loop"], ["Hilton Area", "Hilton"], ["Wildlands Loop"]]
    row = {"id": "p1-t1", "question": "Which trails?", "page_id": "p1", "answer_kind": "list",
           "answers": answers}  # fmt: skip
    (tmp_path / "examples.jsonl").write_text(json.dumps(row) + "\n")
    (wq,) = read_webqa(tmp_path)
    assert wq.criteria[1] == ("Hilton Area", "Hilton")


def test_wtq_questions_train_but_never_on_a_test_page(tmp_path):
    from entities_eval import QUESTIONS, load

    folder = tmp_path / "wikitablequestions-lists"
    (folder / "pages").mkdir(parents=True)
    for page in ("p1", "p2"):
        (folder / "pages" / f"{page}.html").write_text(TRAILS)
    for split, page in (("train", "p1"), ("test", "p2")):
        data = {
            "options": {"pageFile": "pages/{page_id}.html"},
            "data": [{"id": f"l-{page}", "page_id": page, "query": "trails",
                      "entities": ["Avalon Super Loop", "Hilton Area", "Wildlands Loop"]}],
        }  # fmt: skip
        (folder / f"lists.{split}.json").write_text(json.dumps(data))
    rows = [
        {"id": "nt-1", "utterance": "which trails are loops?", "page_id": "p1",
         "target_values": ["Avalon Super Loop", "Avalon Loop", "Wildlands Loop"]},
        {"id": "nt-2", "utterance": "which trails are on the test page?", "page_id": "p2",
         "target_values": ["Avalon Super Loop", "Hilton Area", "Wildlands Loop"]},
        {"id": "nt-3", "utterance": "one value only?", "page_id": "p1",
         "target_values": ["Hilton Area"]},
    ]  # fmt: skip
    (folder / "wtq_list_questions.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n")
    (q1, q2) = read_wtq_questions(folder)  # (a one-value answer is no list)
    assert q1.query == "which trails are loops?" and q1.source == "wtq-questions"
    assert q1.criteria == (("Avalon Super Loop",), ("Avalon Loop",), ("Wildlands Loop",))
    assert "Avalon" in q1.html() and q2.page.stem == "p2"
    sets, _ = load(tmp_path)
    wtq = sets["wikitablequestions-lists"]
    # the question asked of the test page p2 trains neither split
    assert [q.id for q in wtq[QUESTIONS]] == ["nt-1"]
    assert {ex.page.stem for ex in wtq["test"]} == {"p2"}
    assert read_wtq_questions(tmp_path) == []  # no file, no questions


def test_recipe_histogram_features():
    out: dict[str, float] = {}
    recipe(out, "TAG", ["td", "td", "td", "th"], finite=True)
    assert out["TAG-MAJORITY=td"] == 1.0
    assert "TAG-MAJORITYRATIO:<=0.75" in out  # 3 of 4
    assert "TAG-SINGLE" not in out
    assert "TAG-ENTROPY:<=0.5" in out  # entropy of (3/4, 1/4) / log 4 = 0.41
    single: dict[str, float] = {}
    recipe(single, "N", [2, 2, 2], real=True)
    assert "N-SINGLE" in single and "N-ENTROPY:<=0.0" in single
    assert "N-MEAN:log1" in single and "N-STD:log0" in single


def _recipes_both(name: str, tokens: tuple, finite: bool, real: bool, majority: bool):
    twin = entity_features._recipe
    python = twin.python(name, tokens, finite, real, majority)
    if twin.compiled is None:
        pytest.skip("the core's compiled module is not built")
    args = (name, tokens, finite, real, majority, entity_features._EDGES,
            entity_features._UNIT_SUFFIXES)  # fmt: skip
    return twin.compiled(*args), python


#: Token lists at the edges of the recipe: one value, ties for the majority (the first
#: met wins), values of mixed types that compare equal, NaN, zeros and negative numbers.
RECIPE_EDGES = [
    ("td",), ("td", "td"), ("td", "th"), ("th", "td", "td", "th"), ("a", "b", "c", "a", "b"),
    (0,), (0, 0, 0), (1, 2, 3, 4, 100), (-3, 5), (1, 1.0, True), (2.5, float("nan")),
    (None, "x", None), ("", ""), ("Aa", "0.0", "Aa", "a"),
]  # fmt: skip


@pytest.mark.parametrize("tokens", RECIPE_EDGES, ids=range(len(RECIPE_EDGES)))
def test_recipe_twins_agree_on_edges(tokens):
    # (the real-valued part reads counts: never NaN, which has no logarithm bin)
    real = all(isinstance(t, (int, float)) and t == t for t in tokens)
    for finite in (False, True):
        for majority in (False, True):
            compiled, python = _recipes_both("TAG", tokens, finite, real, majority)
            assert compiled == python


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.lists(st.sampled_from(["td", "th", "li", "Aa", "a", "0"]), min_size=1, max_size=30),
        st.lists(st.integers(-5, 200), min_size=1, max_size=30),
        st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=12),
    ),
    st.booleans(),
    st.booleans(),
)
def test_recipe_twins_agree_on_any_tokens(tokens, finite, majority):
    real = not isinstance(tokens[0], str)
    compiled, python = _recipes_both("WORDSHAPE", tuple(tokens), finite, real, majority)
    assert compiled == python


def test_recipe_twin_refuses_unhashable_tokens():
    twin = entity_features._recipe
    if twin.compiled is None:
        pytest.skip("the core's compiled module is not built")
    tokens = (["a"], ["b"])
    with pytest.raises(_compiled.Unsupported):
        twin.compiled("X", tokens, False, False, True, entity_features._EDGES,
                      entity_features._UNIT_SUFFIXES)  # fmt: skip
    with pytest.raises(TypeError):  # the Python function's own error, as before
        twin("X", tokens, False, False, True)


def test_word_and_phrase_shapes():
    assert word_shape("Barack") == "Aa" and word_shape("12.7") == "0.0"
    assert word_shape("McKeldin") == "AaAa"


def _textblob_tags(text: str) -> tuple[str, ...]:
    """What textblob's PatternTagger gives (``parse(text, True, True, False, False, False)``)."""
    from textblob.en import parser

    sentences = parser.parse(text, True, True, False, False, False, "utf-8", collapse=False)
    return tuple(token[1] for sentence in sentences for token in sentence)


_TRICKY = (
    "The cat purs.",
    "isn't it",
    "I'm here, we'll go",
    "U.S. Navy",
    "e.g. this",
    "Mr. Smith",
    "T. De Smedt",
    "(1998)",
    "born 1998)",
    "8) and :)",
    "XD <3",
    '“quoted” ‘x’ "a"',
    "Really?! Yes... no.",
    "(!) sarcasm",
    "one\n\ntwo",
    "a\r\nb",
    "tab\there",
    "state-of-the-art running quickly",
    "glasses and Müller in 東京",
    "$5 or 50% at a/b",
    "x:y; [1] {x} #tag @me",
    "o_O :P =) 8-)",
    "Word. word.",
    "Pizza café",
    "don't",
    "Glasses and cats. Running fast",
    "Cats",
    "Jumped over",
    "Quickly. Happily",
)


@pytest.mark.parametrize("text", _TRICKY)
def test_the_tagger_gives_textblobs_tags(text):
    assert entity_features._tagger()(text) == _textblob_tags(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "The",
                "cat",
                "Cats",
                "Glasses",
                "isn't",
                "we'll",
                "U.S.",
                "etc.",
                "3.5",
                "(1998)",
                "8)",
                ":)",
                "XD",
                "n't",
                "'s",
                "“a”",
                "...",
                "!",
                "?",
                "\n\n",
                "\r\n",
                "-",
                "glasses",
                "Müller",
                "$5",
                "a/b",
                "x:y",
                ",",
                "[1]",
                "o_O",
                "Word.",
                "running",
                "  ",
                " ",
            ]
        ),
        min_size=1,
        max_size=8,
    ).map("".join)
)
def test_the_tagger_gives_textblobs_tags_on_any_mix(text):
    if text.strip():
        assert entity_features._tagger()(text) == _textblob_tags(text)


def test_the_copied_porter_stemmer_stems_as_nltks():
    """:mod:`.porter` is NLTK's Porter stemmer copied (so that NLTK is not imported): the
    same stems as NLTK's on every word of textblob's English lexicon, in lower case, in
    title case and in capitals, and on words of every length from one letter."""
    porter = pytest.importorskip("nltk.stem.porter")
    from scrapy_boilerplate.entities.porter import PorterStemmer

    ours, nltks = PorterStemmer(), porter.PorterStemmer()
    loaded = entity_features._pattern_text()
    assert loaded is not None
    lines = (loaded[1] / "en-lexicon.txt").read_text(encoding="utf-8").splitlines()
    words = [line.split()[0] for line in lines if line.strip() and not line.startswith(";")]
    assert len(words) > 90000
    words += ["a", "is", "sky", "skies", "dying", "flies", "dies", "spied", "died", "news",
              "innings", "proceed", "generously", "allied", "analogi", "agreed"]  # fmt: skip
    for word in words:
        for form in (word, word.title(), word.upper()):
            assert ours.stem(form) == nltks.stem(form), form
    assert entity_features.word_stem("teaching") == "teach"
    assert entity_features.text_stems("Locations located") == frozenset({"locat"})


def test_the_entity_features_do_not_import_nltk_or_textblob():
    """The tagger reads textblob's tokenizer and lexicon from their file, and the stemmer
    is copied: a process that extracts entities imports neither package (NLTK's modules
    cost a process a second, memory and every full garbage collection's time)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from scrapy_boilerplate.entities.extract import extract_entities\n"
        "html = '<ul><li>Ann Lee</li><li>Bo Chan</li><li>Cy O\\'Dunn, Jr.</li></ul>'\n"
        "result = extract_entities(html, 'Who are the staff?')\n"
        "assert result.entities, result\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('nltk', 'textblob')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_head_hole_when_the_first_sibling_is_not_selected():
    doc = sb.parse(TRAILS)
    rows = doc.root.xpath("//table[2]//tr")
    page = PageIndex(doc.root)
    assert _holes(page, page.numbers(rows[1:])) == (False, True, False)
    assert _holes(page, page.numbers(rows)) == (True, False, False)
    assert _holes(page, page.numbers(rows[:-1])) == (False, False, True)


def test_training_learns_the_feature_of_compatible_lists():
    feats = [{"good": 1.0, "noise": 1.0}, {"bad": 1.0, "noise": 1.0}]
    pages = [TrainingPage(feats, [1, 3], [True, False]) for _ in range(20)]
    model = train(pages, passes=5)
    assert model.weights["good"] > 0 > model.weights["bad"]
    logp = model.log_probs([{"good": 1.0}, {"bad": 1.0}], [1, 1])
    assert math.isclose(sum(math.exp(x) for x in logp), 1.0)
    assert logp[0] > logp[1]


def test_a_candidate_with_more_predicates_is_more_probable_all_else_equal():
    logp = Model().log_probs([{}, {}], [1, 3])
    assert math.isclose(math.exp(logp[1]), 0.75)


def test_extract_entities_with_a_model(tmp_path):
    doc = sb.parse(TRAILS)
    pc = PageCandidates(doc)
    names = ["Avalon Super Loop", "Hilton Area", "Avalon Loop", "Wildlands Loop"]
    ok = [c.entities == names for c in pc.candidates]
    model = train([TrainingPage(pc.features("hiking trails"), pc.counts(), ok)] * 3)
    path = tmp_path / "m.json"
    model.save(path)
    result = extract_entities(TRAILS, "hiking trails near baltimore", model=str(path))
    assert result.entities == names
    best = result.lists[0]
    assert best["xpath"].endswith("tr/td[1]") and 0 < best["score"] <= 1
    selected = sb.parse(TRAILS).root.xpath(best["xpath"])  # the XPath selects the list
    assert [" ".join(n.itertext()).strip() for n in selected] == names
    json.dumps(result.to_dict())


def test_extract_entities_bad_input():
    with pytest.raises(ValueError, match="query"):
        extract_entities(TRAILS, "  ")
    empty = extract_entities("", "anything")
    assert empty.reason == "empty" and empty.lists == []
    one = extract_entities("<p>just one paragraph</p>", "anything", model=None)
    assert one.reason == "no-list"


def test_cli_entities_prints_json(tmp_path, capsys):
    from scrapy_boilerplate.cli import EXIT_USAGE, main

    page = tmp_path / "trails.html"
    page.write_text(TRAILS)
    doc = sb.parse(TRAILS)
    pc = PageCandidates(doc)
    names = ["Avalon Super Loop", "Hilton Area", "Avalon Loop", "Wildlands Loop"]
    ok = [c.entities == names for c in pc.candidates]
    model = tmp_path / "m.json"
    train([TrainingPage(pc.features("trails"), pc.counts(), ok)] * 3).save(model)
    code = main(["entities", "--query", "hiking trails", "--model", str(model), str(page)])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lists"][0]["entities"] == names and out["query"] == "hiking trails"
    assert main(["entities", "--query", " ", str(page)]) == EXIT_USAGE
    assert sb.extract_entities is extract_entities


def _marked(html, query, flag):
    """The entity lists of ``html``'s candidates with the feature ``flag`` for ``query``,
    and every candidate's features by its entities."""
    pc = PageCandidates(sb.parse(html))
    feats = pc.features(query)
    lists = [c.entities for c, f in zip(pc.candidates, feats, strict=True) if flag in f]
    return lists, {tuple(c.entities): f for c, f in zip(pc.candidates, feats, strict=True)}


def test_context_best_marks_the_lists_whose_context_best_matches_the_query():
    html = (
        "<html><body><h2>Staff</h2><ul><li>Ann Lee</li><li>Bo Chan</li></ul>"
        "<h2>PhD students</h2><ul><li>Cy Dunn</li><li>Di Eck</li></ul></body></html>"
    )
    marked, _ = _marked(html, "who are the current phd students", "Q:CONTEXT-BEST")
    assert marked == [["Cy Dunn", "Di Eck"]]
    # no overlap anywhere: no candidate is marked
    assert _marked(html, "hiking trails", "Q:CONTEXT-BEST")[0] == []


def test_near_best_marks_the_list_under_the_nearest_matching_heading():
    # both lists have "Courses" and "Teaching" somewhere above them; only the first has
    # "Courses" as its own, nearest heading ("teach" meets "Teaching" through the stemmer)
    html = (
        "<html><body><h2>Teaching</h2>"
        "<div><h3>Courses</h3><ul><li>CS 101 Programming</li><li>CS 240 Compilers</li></ul></div>"
        "<div><h3>Students</h3><ul><li>Ann Lee</li><li>Bo Chan</li></ul></div>"
        "</body></html>"
    )
    near, feats = _marked(html, "What courses does this person teach?", "Q:NEAR-BEST")
    # (a context is read from the first two nodes: the list of every item shares it)
    assert ["CS 101 Programming", "CS 240 Compilers"] in near
    assert ["Ann Lee", "Bo Chan"] not in near
    courses = feats["CS 101 Programming", "CS 240 Compilers"]
    students = feats["Ann Lee", "Bo Chan"]
    # "does", "this" and "person" occur around no list of the page: they do not count
    assert "Q:CONTEXT-OVERLAP:<=1.0" in courses and "Q:CONTEXT-BEST" in courses
    assert "Q:CONTEXT-OVERLAP:<=0.5" in students and "Q:CONTEXT-BEST" not in students


def test_label_best_marks_the_list_after_a_matching_bold_line():
    html = (
        "<html><body><div><p><b>Current students:</b></p>"
        "<ul><li>Ann Lee</li><li>Bo Chan</li></ul>"
        "<p><b>Alumni:</b></p><ul><li>Cy Dunn</li><li>Di Eck</li></ul></div></body></html>"
    )
    query = "Who are the alumni or formerly advised people?"
    assert _marked(html, query, "Q:LABEL-BEST")[0] == [["Cy Dunn", "Di Eck"]]
    assert _marked(html, query, "Q:NEAR-BEST")[0] == []  # no heading element on the page


def test_context_of_a_list():
    from scrapy_boilerplate.entities.features import _stems, context_of

    html = (
        "<html><body><h1>Clinic</h1><div><h2>Our Locations</h2><p>Open every day</p>"
        "<ul><li>12 Main St</li><li>3 Elm St</li></ul></div></body></html>"
    )
    pc = PageCandidates(sb.parse(html))
    ctx = context_of(next(c for c in pc.candidates if c.entities == ["12 Main St", "3 Elm St"]))
    assert (ctx.near, ctx.label) == ("Our Locations", "Open every day")
    assert ctx.text == "Our Locations Clinic"
    assert _stems("Locations") == _stems("located")


def test_query_category_is_the_question_word_or_the_head_noun():
    from scrapy_boilerplate.entities.features import query_category

    assert query_category("Who are the current PhD students?") == "WHO"
    assert query_category("When are the midterms or exams?") == "WHEN"
    assert query_category("Where are the clinics located?") == "WHERE"
    # the last noun of the first noun phrase, stemmed
    assert query_category("What courses does this person teach?") == "cours"
    assert query_category("tallest buildings in minneapolis") == "build"
    assert query_category("list of presidents of the united states") == "presid"
    assert query_category("cities in wisconsin") == query_category("Cities in Ohio")
    assert query_category("") == query_category("of the") == "NONE"


def test_query_denotation_features_conjoin_the_category_with_every_denotation_feature():
    html = (
        "<html><body><h2>Mayors</h2><ul><li>Ann Lee</li><li>Bo Chan</li><li>Cy Dunn</li></ul>"
        "</body></html>"
    )
    pc = PageCandidates(sb.parse(html))
    names = ["Ann Lee", "Bo Chan", "Cy Dunn"]
    i = next(i for i, c in enumerate(pc.candidates) if c.entities == names)
    feats = pc.features("mayors of boise")[i]
    assert pc.denotation[i]
    for name in pc.denotation[i]:
        assert feats[name] == 1.0 and feats[f"QD:mayor|{name}"] == 1.0
    assert not any(k.startswith("QD:WHO|") for k in feats)
    assert any(k.startswith("QD:WHO|") for k in pc.features("Who was mayor?")[i])
    # scoring without the feature dicts gives the same scores as the dicts
    model = Model({f"QD:mayor|{pc.denotation[i][0]}": 2.0, "HDR-WORD=name": 1.0})
    for query in ("mayors of boise", "Who was mayor?"):
        expected = [model.score(f) for f in pc.features(query)]
        assert pc.scores(query, model) == pytest.approx(expected)


def test_column_header_features():
    from scrapy_boilerplate.entities.features import column_header

    html = (
        "<html><body><table><tr><th colspan='2'>Name</th><th>Term of office in the city"
        "</th><th></th></tr>"
        "<tr><td>1</td><td>Ann Lee</td><td>1990-1994</td><td>x</td></tr>"
        "<tr><td>2</td><td>Bo Chan</td><td>1994-1998</td><td>y</td></tr>"
        "<tr><td>3</td><td>Cy Dunn</td><td>1998-2002</td><td>z</td></tr></table>"
        "<ul><li>Home</li><li>About</li></ul></body></html>"
    )
    pc = PageCandidates(sb.parse(html))
    by_list = {tuple(c.entities): (c, h) for c, h in zip(pc.candidates, pc.headers, strict=True)}
    # a colspan of 2 covers the first two columns
    assert by_list["Ann Lee", "Bo Chan", "Cy Dunn"][1] == ("HDR-WORD=name",)
    assert column_header(by_list["1", "2", "3"][0]) == "Name"
    assert by_list["1990-1994", "1994-1998", "1998-2002"][1] == ("HDR-LONG",)
    assert by_list["x", "y", "z"][1] == ("HDR-EMPTY",)
    assert by_list["Home", "About"][1] == ()  # not in a table
    names = pc.candidates.index(by_list["Ann Lee", "Bo Chan", "Cy Dunn"][0])
    assert pc.features("mayors")[names]["HDR-WORD=name"] == 1.0


def _table_without_header(rows: int) -> str:
    cells = "".join(
        f"<tr><td>Name {i}</td><td>{i}</td><td><a href='/{i}'>link {i}</a></td></tr>"
        for i in range(rows)
    )
    return f"<html><body><table>{cells}</table></body></html>"


def test_column_headers_cost_grows_with_the_table_not_its_square(monkeypatch):
    # A table has a candidate per row (and per column): looking for the header row among
    # all its rows for each of them made a 10 000-row table without a <th> take minutes,
    # between two deadline checks. Counted: the elements whose tag the features read
    # (the header feature: the rows' cells, the header cells), for n and 2n rows.
    from scrapy_boilerplate.entities import features

    visits = 0
    real = features.tag_of

    def counting(el):
        nonlocal visits
        visits += 1
        return real(el)

    monkeypatch.setattr(features, "tag_of", counting)
    counts = []
    for rows in (150, 300):
        doc = sb.parse(_table_without_header(rows))
        visits = 0
        pc = PageCandidates(doc)
        counts.append((len(pc.candidates), visits))
        assert ("HDR-EMPTY",) in pc.headers  # the cells' columns, no header above them
    (small, small_visits), (large, large_visits) = counts
    assert large >= 2 * small - 10  # a candidate per row
    assert large_visits <= 2.5 * small_visits  # linear: 2x the rows, about 2x the visits


def test_query_style_reads_how_the_query_is_written():
    from scrapy_boilerplate.entities.features import query_style, styled

    assert query_style("Who are the program co-chairs?") == "question"
    assert query_style("what are the textbooks") == "question"
    assert query_style("tallest buildings in minneapolis") == "title"
    assert query_style("hiking trails near baltimore?") == "question"
    assert query_style("   ") == "title"
    assert styled("TAG-MAJORITY=td") and styled("A1:CLASS-SINGLE") and styled("Q:NEAR-BEST")
    assert not styled("QD:who|WORDSCOUNT-MEAN:log1") and not styled("PHRASESHAPE-SINGLE")
    assert not styled("FIRSTWORD-MAJORITY=the") and not styled("WORDPOS=NN:<=1.0")


def test_training_keeps_a_weight_per_query_style():
    # Questions want the list marked "section", titles the one marked "main": the shared
    # weights cannot tell them apart, the style weights can.
    feats = [{"section": 1.0, "PHRASESHAPE-SINGLE": 1.0}, {"main": 1.0}]
    pages = [TrainingPage(feats, [1, 1], [True, False], "question") for _ in range(10)]
    pages += [TrainingPage(feats, [1, 1], [False, True], "title") for _ in range(10)]
    model = train(pages, passes=5)
    assert model.weights["QS:question|section"] > 0 > model.weights["QS:title|section"]
    assert not any(k.startswith("QS:") and "PHRASESHAPE" in k for k in model.weights)
    question, title = model.for_query("which is it?"), model.for_query("the main one")
    assert question.log_probs(feats, [1, 1])[0] > question.log_probs(feats, [1, 1])[1]
    assert title.log_probs(feats, [1, 1])[1] > title.log_probs(feats, [1, 1])[0]
    assert model.for_style("question") is question  # folded once, kept
    assert not any(k.startswith("QS:") for k in question.weights)
    shared = model.weights.get("section", 0.0) + model.weights["QS:question|section"]
    assert math.isclose(question.weights["section"], shared)
    # A model trained without styles scores every query with its own weights.
    plain = train([TrainingPage(feats, [1, 1], [True, False]) for _ in range(5)])
    assert plain.for_query("who?") is plain and plain.for_style(None) is plain


def test_a_weighted_example_moves_the_weights_less():
    feats = [{"good": 1.0}, {"bad": 1.0}]
    full = train([TrainingPage(feats, [1, 1], [True, False])], passes=1)
    light = train([TrainingPage(feats, [1, 1], [True, False], weight=0.3)], passes=1, l2=0.0)
    # (AdaGrad's first step has the same size whatever the gradient's scale: several
    # examples show the weight, one against the other)
    mixed = train([TrainingPage(feats, [1, 1], [True, False], weight=0.3),
                   TrainingPage(feats, [1, 1], [False, True])], passes=3)  # fmt: skip
    assert full.weights["good"] > 0 and light.weights["good"] > 0
    assert mixed.weights["good"] < 0 < mixed.weights["bad"]


def test_a_model_saved_gzip_compressed_loads_the_same_and_is_reproducible(tmp_path):
    model = Model({"good": 0.5, "QS:title|good": -0.25}, {"k": 8})
    plain, packed, again = tmp_path / "m.json", tmp_path / "m.json.gz", tmp_path / "n.json.gz"
    model.save(plain)
    model.save(packed)
    model.save(again)
    assert packed.read_bytes()[:2] == b"\x1f\x8b" and packed.read_bytes() == again.read_bytes()
    for path in (plain, packed):
        loaded = Model.load(path)
        assert loaded.weights == model.weights and loaded.meta == model.meta
    (tmp_path / "m.gz.json").write_bytes(packed.read_bytes())  # (read by content, not name)
    assert Model.load(tmp_path / "m.gz.json").weights == model.weights
    for bad in (packed.read_bytes()[:30], b"\x1f\x8b garbage", b"\xff\xfe", b"null", b"[1]"):
        (tmp_path / "bad").write_bytes(bad)
        with pytest.raises(ValueError, match="bad"):
            Model.load(tmp_path / "bad")


def test_the_shipped_model_is_packed_and_loads():
    from scrapy_boilerplate.entities.extract import DEFAULT_MODEL, load_model

    assert DEFAULT_MODEL.name == "entities.json.gz" and DEFAULT_MODEL.is_file()
    model = load_model()
    assert any(k.startswith("QS:question|") for k in model.weights)
    assert model.meta["split"] == "template"


#: Pages whose lists have contexts of every kind: a table's header cells and caption, a
#: heading as an earlier sibling, a heading inside one, a long element before a list (no
#: label), a short one (a label), comments among the siblings, an XHTML namespace.
CONTEXT_PAGES = [
    "<html><body><h1>Peaks</h1><table><caption>Alps</caption><tr><th>Name</th><th>m</th>"
    "</tr><tr><td>Mont Blanc</td><td>4808</td></tr><!-- x --><tr><td>Dom</td><td>4545</td>"
    "</tr></table><div><section><h3>Rivers</h3><p>" + "long text " * 30 + "</p></section>"
    "<p>Short label</p><ul><li>Rhine</li><li>Rhone</li><li>Inn</li></ul></div>"
    "<ol><li>a</li><li>b</li></ol></body></html>",
    '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><h2>Staff</h2>'
    "<table><tr><th>Who</th></tr><tr><td>Ann Lee</td></tr><tr><td>Bob Ray</td></tr></table>"
    "<div><h4>Students</h4></div><ul><li>Cy Dee</li><li>Di Eck</li></ul></body></html>",
]


def _xhtml_tree(html: str):
    from lxml import etree

    root = etree.fromstring(html.encode())
    assert root.tag.startswith("{")  # (lxml's own tags namespaced: "th" matches none)
    return root


@pytest.mark.parametrize(
    "page",
    [CONTEXT_PAGES[0], CONTEXT_PAGES[1], lambda: _xhtml_tree(CONTEXT_PAGES[1]), TRAILS],
    ids=["table", "xhtml-as-html", "xhtml-namespaced", "trails"],
)
def test_contexts_read_off_the_page_index_are_the_tree_walks(page):
    from scrapy_boilerplate.entities.features import context_of

    pc = PageCandidates(sb.parse(page() if callable(page) else page))
    assert len(pc.candidates) >= 3
    contexts = [context_of(c, {}, pc.page) for c in pc.candidates]
    assert contexts == [context_of(c) for c in pc.candidates]  # (no index: the tree walks)
    assert any(ctx.label for ctx in contexts) and any(ctx.near for ctx in contexts)


def test_scores_read_the_level_and_category_tables_as_the_feature_names():
    """The page's scores look the ancestor levels' names and the query-denotation names up
    in per-level and per-category tables; a weight on every feature a candidate has gives
    the scores the feature dicts give, and a category no table can hold (a ``|`` in it)
    is scored by the conjoined names."""
    from types import SimpleNamespace

    from scrapy_boilerplate.entities.features import LEVELS

    html = (
        "<html><body><div class='main'><h2>Mayors</h2><ul><li>Ann Lee</li><li>Bo Chan</li>"
        "<li>Cy Dunn</li></ul><table><tr><th>Name</th><th>Year</th></tr>"
        "<tr><td>Ann Lee</td><td>1990</td></tr><tr><td>Dee Fox</td><td>2001</td></tr></table>"
        "</div><p>Who: Ann Lee, Bo Chan and Cy Dunn.</p></body></html>"
    )
    pc = PageCandidates(sb.parse(html))
    queries = ("mayors of boise", "Who was mayor?")
    names = sorted({name for q in queries for feats in pc.features(q) for name in feats})
    assert any(name.startswith(LEVELS[1]) for name in names)
    assert any(name.startswith("QD:") for name in names)
    weights = {name: ((i * 7919) % 101 - 50) / 25 for i, name in enumerate(names)}
    weights["A1:no such name"] = 3.0  # (weights no candidate has change nothing)
    model = Model(weights)
    assert model.level_weights["A1:"]["no such name"] == 3.0
    assert set(model.level_weights) == set(LEVELS)
    for query in queries:
        expected = [model.score(f) for f in pc.features(query)]
        assert pc.scores(query, model) == pytest.approx(expected, abs=1e-9)
    i = next(i for i, names in enumerate(pc.denotation) if names)
    first = pc.denotation[i][0]
    odd = Model({f"QD:a|b|{first}": 2.0})
    assert odd.query_denotation_weights == {"a": {f"b|{first}": 2.0}}
    pc.page_query = lambda query: (SimpleNamespace(category="a|b"), {})  # type: ignore[method-assign]
    scores = pc._query_denotation("anything", odd)
    assert scores[i] == 2.0 * pc.denotation[i].count(first)
    for score, names in zip(scores, pc.denotation, strict=True):
        assert score == 2.0 * names.count(first)


def test_training_features_share_their_names():
    """A training set holds every example's features at once: each name is one string,
    shared by every candidate and page that has the feature, and the features are the
    same as the candidates' parts make them, in the same order."""
    pc = PageCandidates(sb.parse(TRAILS))
    first, again = pc.features("hiking trails"), pc.features("hiking trails")
    assert len(first) > 1
    for feats, other in zip(first, again, strict=True):
        assert list(feats.items()) == list(other.items())
        assert all(name is sys.intern(name) for name in feats)
        assert all(a is b for a, b in zip(feats, other, strict=True))
        base = pc.base_features(first.index(feats))
        assert [k for k in feats if k in base] == list(base)
    shared = set.intersection(*(set(f) for f in first))
    name = next(iter(shared))
    assert len({id(k) for f in first for k in f if k == name}) == 1


def test_packed_training_pages_train_the_same_weights():
    """A packed page gives back its features' dicts, names, values and order unchanged,
    and a model trained on packed pages has the same weights, to the bit."""
    pc = PageCandidates(sb.parse(TRAILS))
    names = ["Avalon Super Loop", "Hilton Area", "Avalon Loop", "Wildlands Loop"]
    ok = [c.entities == names for c in pc.candidates]
    pages = []
    for query, style in (("hiking trails", None), ("which trails are near baltimore?", "question")):
        feats = pc.features(query)
        feats[0] = {**feats[0], "REAL": 0.25}  # (a value other than 1 is kept as it is)
        pages.append(TrainingPage(feats, pc.counts(), ok, style, 0.5))
    packed = [
        PackedTrainingPage(p.features, p.counts, p.compatible, p.style, p.weight) for p in pages
    ]
    for page, other in zip(pages, packed, strict=True):
        assert [list(f.items()) for f in other.features] == [list(f.items()) for f in page.features]
        assert (other.counts, other.compatible, other.style, other.weight) == (
            page.counts,
            page.compatible,
            page.style,
            page.weight,
        )
    assert any(values is None for _, values in packed[0]._packed)
    assert packed[0]._packed[0][1] is not None
    plain, again = train(pages * 2, seed=3), train(packed * 2, seed=3)
    assert plain.weights and list(plain.weights.items()) == list(again.weights.items())
    packed[0].features = []
    assert packed[0].features == []
