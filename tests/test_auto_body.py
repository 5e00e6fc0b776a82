"""`auto`'s named-body rule: where a template names the post's text (``entry-content``,
``article-body``, ...) and that element holds most of what the trees kept, the kept text
outside it is boilerplate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.auto import body
from scrapy_boilerplate.core.document import parse

POST = "".join(
    f"<p>Paragraph {i} of the post tells what happened in the valley, and why it "
    f"matters to the people who live there, in some detail.</p>"
    for i in range(6)
)
SIDEBAR = (
    "<div class='widget-area'><p>Our team writes about the valley every week, with long "
    "stories about its people, its rivers, its history and its future plans.</p></div>"
)
LEAD = (
    "<p class='lead'>A short lead before the post tells the reader, in a long sentence or "
    "two, what the post below is about and why they should read it.</p>"
)
FOOTER = (
    "<div class='site-info'><p>This blog is written by people who live in the valley and "
    "care about it, and it has been going for many years now, week after week.</p></div>"
)


def _page(body_class: str = "entry-content", parts: int = 1) -> str:
    half = len(POST) // 2
    cut = POST.index("<p>", half)
    if parts == 2:
        inner = (
            f"<div class='{body_class}'>{POST[:cut]}</div>"
            f"<div class='{body_class}'>{POST[cut:]}</div>"
        )
    else:
        inner = f"<div class='{body_class}'>{POST}</div>"
    return (
        "<html><head><title>A post</title></head><body>"
        f"<div class='wrap'><header><h1>A post about the valley</h1>{LEAD}</header>"
        f"{inner}{SIDEBAR}{FOOTER}</div></body></html>"
    )


@pytest.mark.parametrize(
    ("attrs", "named"),
    [
        ({"class": "entry-content clearfix"}, True),
        ({"class": "td-post-content tagdiv-type"}, True),
        ({"class": "c-article-body"}, True),
        ({"class": "articleBody"}, True),
        ({"class": "post"}, True),  # a whole value only
        ({"class": "post hentry"}, False),
        ({"id": "articleContent"}, True),
        ({"id": "main-article-body"}, True),
        ({"itemprop": "articleBody"}, True),
        ({"class": "Entry-Content"}, False),  # case is kept, as trafilatura matches
        ({"class": "sidebar widget"}, False),
        ({}, False),
    ],
)
def test_names_body_reads_class_id_and_itemprop(attrs: dict[str, str], named: bool) -> None:
    el = parse("<html><body><div>x</div></body></html>").root.find(".//div")
    for key, value in attrs.items():
        el.set(key, value)
    assert body.names_body(el) is named


def test_named_bodies_are_found_above_the_kept_blocks_only() -> None:
    doc = parse(_page())
    blocks = doc.section_blocks()
    texts = [b.text for b in blocks]
    post = [i for i, t in enumerate(texts) if t.startswith("Paragraph")]
    found = body.named_bodies(blocks)
    assert len(found) == 1
    path, inside = found[0]
    assert doc.root.getroottree().xpath(path)[0].get("class") == "entry-content"
    assert np.flatnonzero(inside).tolist() == post
    # only the sidebar kept: no named body above it
    labels = np.zeros(len(blocks), bool)
    labels[0] = True
    assert body.named_bodies(blocks, labels) == []
    labels[post[2]] = True
    assert [p for p, _ in body.named_bodies(blocks, labels)] == [path]


def test_choose_body_needs_the_share_and_joins_the_parts() -> None:
    chars = np.array([100.0, 50.0, 50.0, 100.0])
    labels = np.array([True, True, True, True])
    first = np.array([False, True, False, False])
    second = np.array([False, False, True, False])
    # the two parts hold 100 of 300 kept characters: below half
    assert body.choose_body(labels, chars, [first, second]) is None
    assert body.choose_body(labels, chars, [first, second], min_share=0.3) == [0, 1]
    labels = np.array([False, True, True, True])
    assert body.choose_body(labels, chars, [first, second]) == [0, 1]  # 100 of 200
    # a body holding no kept block is not followed
    other = np.array([True, False, False, False])
    assert body.choose_body(labels, chars, [first, other], min_share=0.25) == [0]
    assert body.choose_body(np.zeros(4, bool), chars, [first]) is None
    assert body.choose_body(labels, chars, []) is None


def test_outside_body_takes_out_what_follows_the_body_s_start() -> None:
    labels = np.array([True, True, True, False, True, True, True])
    inside = np.array([False, False, True, False, True, False, False])
    # before the body: kept; between its parts and after it: taken out
    assert body.outside_body(labels, inside).tolist() == [
        False,
        False,
        False,
        False,
        False,
        True,
        True,
    ]
    labels[3] = True
    assert body.outside_body(labels, inside).tolist()[3] is True


@pytest.mark.parametrize("parts", [1, 2])
def test_auto_leaves_out_what_lies_outside_the_named_body(parts: int) -> None:
    html = _page(parts=parts)
    asked = extract(html, "auto", page_type="service", body=True, best_run=False, threshold=0.0)
    assert "Paragraph 5" in asked.main_text and "Paragraph 0" in asked.main_text
    assert "A post about the valley" in asked.main_text  # the header before the body
    assert "A short lead" in asked.main_text
    assert "Our team writes" not in asked.main_text
    assert "This blog is written" not in asked.main_text
    assert len(asked.extra["body"]) == parts
    assert all(x.startswith("/html[1]/body[1]/div[1]/div[") for x in asked.extra["body"])
    plain = extract(html, "auto", page_type="service", body=False, best_run=False, threshold=0.0)
    assert "Our team writes" in plain.main_text and "body" not in plain.extra


def test_the_rule_leaves_forums_and_small_bodies_alone() -> None:
    # a forum's posts each have a body of their own
    html = _page()
    forum = extract(html, "auto", page_type="forum", body=True, best_run=False, threshold=0.0)
    assert "Our team writes" in forum.main_text and "body" not in forum.extra
    # a named teaser holding less than half of the kept text decides nothing
    teaser = "<div class='post-content'><p>A teaser of another post.</p></div>"
    small = _page(body_class="content").replace(FOOTER, FOOTER + teaser)
    kept = extract(small, "auto", page_type="service", body=True, best_run=False, threshold=0.0)
    assert "Paragraph 3" in kept.main_text and "body" not in kept.extra


@pytest.mark.parametrize(
    ("rule", "error"),
    [
        ({"version": 99, "types": ["article"], "share": 0.5}, "unknown body rule"),
        ("article", "unknown body rule"),
        ({"version": 1, "types": "article", "share": 0.5}, "not a list"),
        ({"version": 1, "types": ["article"], "share": 0}, "not a fraction"),
        ({"version": 1, "types": ["article"], "share": False}, "not a fraction"),
        ({"version": 1, "types": ["article", "service"], "share": 0.5}, None),
        (None, None),
    ],
)
def test_a_model_s_body_rule_is_read_or_refused(
    auto_model_with: Callable[..., Any], rule: Any, error: str | None
) -> None:
    loaded = auto_model_with("body", rule, error)
    if loaded is None:
        return
    html = _page()
    path = str(loaded.path)
    if rule is None:
        assert loaded.body_types == frozenset()
        # a model chosen without the rule does not apply it unless asked
        plain = extract(html, "auto", page_type="service", model=path, threshold=0.0)
        assert "body" not in plain.extra
    else:
        assert loaded.body_types == frozenset(rule["types"]) and loaded.body_share == 0.5
        ruled = extract(
            html, "auto", page_type="service", model=path, threshold=0.0, best_run=False
        )
        assert "Our team writes" not in ruled.main_text and ruled.extra["body"]


def test_nested_and_repeated_bodies_are_bounded() -> None:
    # a page of many nested post boxes: at most MAX_BODIES are looked at, and the
    # result names the outermost one only
    depth = 300
    html = (
        "<html><body>"
        + "<div class='post-content'>" * depth
        + POST
        + "</div>" * depth
        + SIDEBAR
        + "</body></html>"
    )
    doc = parse(html)
    blocks = doc.section_blocks()
    found = body.named_bodies(blocks)
    assert len(found) == body.MAX_BODIES
    paths = [path for path, _ in found]
    assert body.outermost(paths) == [paths[-1]]  # met from the inside out
    result = extract(html, "auto", page_type="service", body=True, threshold=0.0)
    assert "Our team writes" not in result.main_text
    assert len(result.extra["body"]) == 1
    # many sibling teasers, each named alike: the bodies stop at MAX_BODIES too
    teasers = "".join(
        f"<div class='post-content'><p>Teaser {i} of a post about the valley, with a few "
        "words more.</p></div>"
        for i in range(3 * body.MAX_BODIES)
    )
    blocks = parse(f"<html><body>{teasers}</body></html>").section_blocks()
    assert len(body.named_bodies(blocks)) == body.MAX_BODIES


def test_the_compiled_walk_finds_what_the_python_walk_finds() -> None:
    from scrapy_boilerplate.core import compiled

    twin = body._body_walk
    if twin.compiled is None:
        pytest.skip("auto's compiled module is not built")
    pages = [
        _page(),
        _page(parts=2),
        _page(body_class="content"),
        "<html><body><main itemprop='articleBody'><section class='post'>"
        + POST
        + "</section></main><div id='article-body-2'><!-- a comment --><p>Tail text.</p>"
        "</div><article class='entry'><p>One more entry.</p></article></body></html>",
        "<html><body>"
        + "<div class='post-content'>" * 40
        + POST
        + "</div>" * 40
        + "</body></html>",
    ]
    for html in pages:
        blocks = parse(html).section_blocks()
        elements = [b.element for b in blocks]
        rng = np.random.default_rng(len(html))
        for chosen in (elements, [e for e in elements if rng.random() < 0.5], elements[::-1]):
            for limit in (1, 3, body.MAX_BODIES):
                expected = twin.python(chosen, limit)
                assert twin(chosen, limit) == expected
                with compiled.disabled():
                    assert twin(chosen, limit) == expected
    # the pages above do name bodies: the walks compared found some
    assert twin.python([b.element for b in parse(_page(parts=2)).section_blocks()], 5)
