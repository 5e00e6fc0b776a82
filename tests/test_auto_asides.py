"""`auto`'s aside rule: content inside an element whose class or id names comments,
related stories, sharing and the like is boilerplate on an article page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.auto import asides, model
from scrapy_boilerplate.auto import extractor as auto_extractor
from scrapy_boilerplate.core.document import parse

STORY = "".join(
    f"<p>Paragraph {i} of the story tells what happened in the valley, and why it "
    f"matters to the people who live there, in some detail.</p>"
    for i in range(8)
)


def _page(aside: str, article_class: str = "post type-post tag-news comments-open") -> str:
    return (
        "<html><head><title>A story</title></head><body>"
        f"<main><article class='{article_class}'><h1>A story</h1>"
        f"<div class='entry-content'>{STORY}{aside}</div></article></main></body></html>"
    )


RELATED = (
    "<div class='jp-relatedposts' id='jp-relatedposts'><h3>Ähnliche Beiträge</h3>"
    "<p>Ein anderer Beitrag über das Tal und seine Leute, mit einem langen Titel</p></div>"
)


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("jp-relatedposts", True),
        ("yarpp-related", True),
        ("comment-list", True),
        ("sharedaddy sd-sharing-enabled", True),
        ("author-bio", True),
        ("entry-meta", True),
        ("meta", True),
        ("tags", True),
        ("entry-content", False),
        ("post type-post tag-bilder category-news", False),  # WordPress's article classes
        ("metadata", False),
        ("widget", False),  # left out: it cost on article pages
        ("", False),
    ],
)
def test_class_words_that_name_an_aside(value: str, named: bool) -> None:
    assert asides.names_aside(value) is named


def _marks(html: str, labels: Any = None) -> tuple[list[str], list[bool]]:
    blocks = parse(html).section_blocks()
    chars = np.array([len(b.text) for b in blocks], dtype=np.float64)
    keep = np.ones(len(blocks), bool) if labels is None else np.asarray(labels)
    marked = asides.aside_blocks(blocks, chars, keep)
    return [b.text for b in blocks], marked.tolist()


def test_blocks_in_a_named_element_are_marked_and_the_article_is_not() -> None:
    texts, marked = _marks(_page(RELATED))
    flagged = {t for t, m in zip(texts, marked, strict=True) if m}
    assert flagged == {"Ähnliche Beiträge", texts[-1]} and texts[-1].startswith("Ein anderer")
    # the article element's own words ("comments-open") do not count: it holds the page
    assert not any(m for t, m in zip(texts, marked, strict=True) if t.startswith("Paragraph"))


def test_a_named_element_holding_more_than_the_share_is_not_an_aside() -> None:
    # the whole story in a "comment" wrapper (a forum-like template): above the share
    html = _page("", article_class="comment-body")
    texts, marked = _marks(html)
    assert texts and not any(marked)
    # a smaller share than the related box holds: not marked either
    blocks = parse(_page(RELATED)).section_blocks()
    chars = np.array([len(b.text) for b in blocks], dtype=np.float64)
    small = asides.aside_blocks(blocks, chars, np.ones(len(blocks), bool), max_share=0.001)
    assert not small.any()


def test_only_kept_blocks_are_marked() -> None:
    texts, _ = _marks(_page(RELATED))
    labels = [not t.startswith("Ein anderer") for t in texts]
    _, marked = _marks(_page(RELATED), labels)
    assert [t for t, m in zip(texts, marked, strict=True) if m] == ["Ähnliche Beiträge"]
    _, none = _marks(_page(RELATED), [False] * len(texts))
    assert not any(none)


def test_same_marks_block_by_block_or_all_at_once() -> None:
    # training marks every block once; the extractor marks the kept ones: the same rule
    html = _page(RELATED + "<footer class='entry-footer'><p>Filed under news</p></footer>")
    texts, every = _marks(html)
    for i in range(len(texts)):
        labels = [j == i for j in range(len(texts))]
        assert _marks(html, labels)[1][i] is every[i]


def test_without_asides_never_empties_the_content() -> None:
    labels = np.array([True, True, False])
    assert auto_extractor.without_asides(labels, np.array([False, True, False])).tolist() == [
        True, False, False
    ]  # fmt: skip
    assert auto_extractor.without_asides(labels, np.array([True, True, False])).tolist() == [
        True, True, False
    ]  # fmt: skip


def test_the_extractor_drops_asides_on_article_pages_only() -> None:
    html = _page(RELATED)
    on = extract(html, "auto", page_type="article", asides=True)
    off = extract(html, "auto", page_type="article", asides=False)
    assert "Paragraph 3" in on.main_text and "Paragraph 3" in off.main_text
    assert "Ähnliche Beiträge" not in on.main_text
    dropped = {b.text for b in off.blocks if b.label == "content"} - {
        b.text for b in on.blocks if b.label == "content"
    }
    assert dropped and all(not t.startswith("Paragraph") for t in dropped)
    # on another page type the words do not decide
    forum = extract(html, "auto", page_type="forum", asides=True)
    assert forum.main_text == extract(html, "auto", page_type="forum", asides=False).main_text
    with pytest.raises(auto_extractor.InvalidParameter):
        extract(html, "auto", asides="sometimes")


def test_the_rule_follows_the_model_unless_a_parameter_says_otherwise() -> None:
    shipped = model.load_model()
    assert shipped.aside_types == frozenset(asides.ASIDE_TYPES)
    assert shipped.aside_share == asides.MAX_SHARE
    html = _page(RELATED)
    default = extract(html, "auto", page_type="article")
    assert default.params["asides"] is None
    assert default.main_text == extract(html, "auto", page_type="article", asides=True).main_text


@pytest.mark.parametrize(
    ("rule", "error"),
    [
        ({"version": 99, "types": ["article"], "share": 0.25}, "unknown aside rule"),
        ("article", "unknown aside rule"),
        ({"version": 1, "types": "article", "share": 0.25}, "not a list"),
        ({"version": 1, "types": ["article"], "share": 2}, "not a fraction"),
        ({"version": 1, "types": ["article"], "share": True}, "not a fraction"),
        ({"version": 1, "types": ["article", "forum"], "share": 0.5}, None),
        (None, None),
    ],
)
def test_a_model_s_aside_rule_is_read_or_refused(
    auto_model_with: Callable[..., Any], rule: Any, error: str | None
) -> None:
    loaded = auto_model_with("asides", rule, error)
    if loaded is None:
        return
    if rule is None:
        assert loaded.aside_types == frozenset()
        # a model chosen without the rule does not apply it unless asked
        html = _page(RELATED)
        path = str(loaded.path)
        plain = extract(html, "auto", page_type="article", model=path)
        without = extract(html, "auto", page_type="article", model=path, asides=False)
        assert plain.main_text == without.main_text
        asked = extract(html, "auto", page_type="article", model=path, asides=True)
        assert "Ähnliche Beiträge" not in asked.main_text
    else:
        assert loaded.aside_types == frozenset(rule["types"]) and loaded.aside_share == 0.5


def test_the_compiled_twin_marks_what_the_python_function_marks() -> None:
    from scrapy_boilerplate.core import compiled

    twin = asides.aside_blocks
    if twin.compiled is None:
        pytest.skip("auto's compiled module is not built")
    pages = [
        _page(RELATED),
        _page(RELATED + "<footer class='entry-footer'><p>Filed under news</p></footer>"),
        _page("", article_class="comment-body"),
        _page("<div id='comments'><!-- a comment node --><p>First!</p><p>Nice.</p></div>"),
        "<html><body><div class='share'>" + STORY + "</div><p class='meta'>x</p></body></html>",
    ]
    for html in pages:
        blocks = parse(html).section_blocks()
        chars = np.array([len(b.text) for b in blocks], dtype=np.float64)
        rng = np.random.default_rng(len(html))
        for labels in (np.ones(len(blocks), bool), rng.random(len(blocks)) < 0.5):
            for share in (0.05, asides.MAX_SHARE, 1.0):
                expected = twin.python(blocks, chars, labels, share)
                assert twin(blocks, chars, labels, share).tolist() == expected.tolist()
                with compiled.disabled():
                    assert twin(blocks, chars, labels, share).tolist() == expected.tolist()
