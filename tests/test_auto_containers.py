"""``auto``'s main-container features (Readability's content score, per block).

:func:`containers.container_features` counts with arrays; here it is held to a plain
reference that walks each block's ancestors one by one, on the test pages, on edge pages
and on generated pages, and its decisions are checked on pages where the answer is known.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings

from scrapy_boilerplate import parse
from scrapy_boilerplate.auto import containers, features, pagetype
from scrapy_boilerplate.core.errors import UnsupportedInput
from test_properties import pages as generated_pages

PAGES = Path(__file__).parent / "pages"
NAME = {n: i for i, n in enumerate(containers.NAMES)}


def _reference(blocks: list[Any]) -> np.ndarray:
    """Readability's scoring written out per block and per ancestor, with dicts keyed by
    XPath."""
    out = np.zeros((len(blocks), len(containers.NAMES)))
    if not blocks:
        return out
    order: list[str] = []  # containers in order of first appearance
    weight: dict[str, float] = {}
    score: dict[str, float] = {}
    text: dict[str, float] = {}
    link: dict[str, float] = {}
    chains: list[list[str]] = []
    for b in blocks:
        chain, key, element = [], b.xpath.rsplit("/", 1)[0], b.element.getparent()
        while len(chain) < containers.LEVELS and element is not None and key.count("/") > 1:
            chain.append(key)
            if key not in weight:
                order.append(key)
                weight[key] = containers.element_weight(element)
            key, element = key.rsplit("/", 1)[0], element.getparent()
        chains.append(chain)
        for key in chain:
            text[key] = text.get(key, 0.0) + len(b.text)
            link[key] = link.get(key, 0.0) + b.link_chars
        if len(b.text) >= containers.MIN_CHARS:
            points = 1 + b.text.count(",") + min(len(b.text) / 100, 3)
            for key, share in zip(chain, (1.0, 0.5, 1 / 6), strict=False):
                score[key] = score.get(key, 0.0) + points * share
    if not score:
        return out
    final = {k: (weight[k] + score[k]) * (1 - min(1.0, link[k] / max(text[k], 1.0))) for k in score}
    top = max((k for k in order if k in final), key=lambda k: final[k])  # first of equals
    top_score = final[top] if final[top] > 0 else 1.0
    parent_of_top = top.rsplit("/", 1)[0]
    siblings = [
        k
        for k in final
        if k != top
        and k.rsplit("/", 1)[0] == parent_of_top
        and final[k] >= max(10.0, 0.2 * top_score)
    ]
    total = sum(len(b.text) for b in blocks) or 1
    inside = [b.xpath.startswith(top + "/") for b in blocks]
    for i, b in enumerate(blocks):
        out[i, NAME["rd_in_top"]] = inside[i]
        out[i, NAME["rd_below_top"]] = b.xpath.count("/") - top.count("/") if inside[i] else -1
        out[i, NAME["rd_in_sibling"]] = any(b.xpath.startswith(k + "/") for k in siblings)
        out[i, NAME["rd_best_ancestor"]] = max([0.0, *(final.get(k, 0.0) for k in chains[i])])
        out[i, NAME["rd_best_ancestor"]] /= top_score
        parent = b.xpath.rsplit("/", 1)[0]
        out[i, NAME["rd_parent_score"]] = final.get(parent, 0.0) / top_score
        out[i, NAME["rd_top_share"]] = (
            sum(len(c.text) for c, x in zip(blocks, inside, strict=True) if x) / total
        )
    return out


def _features(doc: Any) -> tuple[list[Any], np.ndarray]:
    blocks = doc.section_blocks()
    texts = [b.text for b in blocks]
    chars = np.array([len(t) for t in texts], dtype=np.float64)
    links = np.array([b.link_chars for b in blocks], dtype=np.float64)
    return blocks, containers.container_features(blocks, texts, chars, links)


PARAGRAPH = (
    "Readers of the story found, as the reporter wrote, that the river had risen, the "
    "bridge had closed, and the town had waited for news through the night."
)
SIDE = "Trending now on our site and elsewhere across the whole wide web today"


def _page(article_class: str = "article-body", sibling: str = "") -> str:
    side = "".join(f"<p>{SIDE} {i}</p>" for i in range(4))
    body = "".join(f"<p>{PARAGRAPH} {i}</p>" for i in range(5))
    return (
        "<html><head><title>t</title></head><body><div id='page'>"
        f"<div class='sidebar'>{side}</div>"
        f"<div class='{article_class}'>{body}</div>{sibling}"
        "<div class='footer'><p>About us, contact, careers, imprint and privacy</p></div>"
        "</div></body></html>"
    )


def test_the_article_is_the_top_container() -> None:
    blocks, x = _features(parse(_page()))
    story = [i for i, b in enumerate(blocks) if b.text.startswith("Readers")]
    others = [i for i in range(len(blocks)) if i not in story]
    assert len(story) == 5 and others
    assert x[story, NAME["rd_in_top"]].tolist() == [1.0] * 5
    assert x[others, NAME["rd_in_top"]].tolist() == [0.0] * len(others)
    assert x[story, NAME["rd_best_ancestor"]].tolist() == [1.0] * 5
    assert x[story, NAME["rd_parent_score"]].tolist() == [1.0] * 5
    assert (x[others, NAME["rd_best_ancestor"]] < 1.0).all()
    assert x[story, NAME["rd_below_top"]].tolist() == [1.0] * 5
    assert x[others, NAME["rd_below_top"]].tolist() == [-1.0] * len(others)
    share = sum(len(blocks[i].text) for i in story) / sum(len(b.text) for b in blocks)
    assert x[:, NAME["rd_top_share"]] == pytest.approx(np.full(len(blocks), share))


def test_class_words_move_the_choice() -> None:
    """The same paragraphs under a ``comment`` class lose to a plain sidebar's only when
    the class costs more than their score; under ``story`` they win by more."""
    plain = _features(parse(_page("x")))[1]
    story = _features(parse(_page("story")))[1]
    comment = _features(parse(_page("comment-list")))[1]
    # scores are over the top's: the sidebar's share shrinks as the article's score grows
    side = 0  # the sidebar's first paragraph comes first
    assert story[side, NAME["rd_best_ancestor"]] < plain[side, NAME["rd_best_ancestor"]]
    assert comment[side, NAME["rd_in_top"]] == 1.0  # -25 sinks the article below the sidebar


def test_a_sibling_that_scores_well_joins() -> None:
    paragraphs = "".join(f"<p>{PARAGRAPH} more {i}</p>" for i in range(3))
    more = f"<div class='more'>{paragraphs}</div>"
    blocks, x = _features(parse(_page(sibling=more)))
    extra = [i for i, b in enumerate(blocks) if " more " in b.text]
    assert len(extra) == 3
    assert x[extra, NAME["rd_in_top"]].tolist() == [0.0] * 3
    assert x[extra, NAME["rd_in_sibling"]].tolist() == [1.0] * 3
    rest = [i for i in range(len(blocks)) if i not in extra]
    assert x[rest, NAME["rd_in_sibling"]].tolist() == [0.0] * len(rest)


def test_ties_go_to_the_first_container() -> None:
    half = "".join(f"<p>{PARAGRAPH}</p>" for _ in range(3))
    html = f"<html><body><div><div>{half}</div><div>{half}</div></div></body></html>"
    _, x = _features(parse(html))
    assert x[:, NAME["rd_in_top"]].tolist() == [1.0] * 3 + [0.0] * 3
    assert x[:, NAME["rd_in_sibling"]].tolist() == [0.0] * 3 + [1.0] * 3


def test_no_scored_container_gives_zeros() -> None:
    blocks, x = _features(parse("<html><body><p>short</p><p>also short</p></body></html>"))
    assert blocks and not x.any()


def test_the_body_is_a_container() -> None:
    html = f"<html><body><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p><div><p>x</p></div></body></html>"
    _, x = _features(parse(html))
    assert x[:, NAME["rd_in_top"]].tolist() == [1.0, 1.0, 1.0]
    assert x[:, NAME["rd_below_top"]].tolist() == [1.0, 1.0, 2.0]


def test_no_blocks() -> None:
    x = containers.container_features([], [], np.zeros(0), np.zeros(0))
    assert x.shape == (0, len(containers.NAMES)) and x.dtype == np.float32


@pytest.mark.parametrize(
    ("value", "weight"),
    [
        ("comment-list", -25.0),
        ("post-content", 25.0),
        ("Main-Content", 25.0),
        ("SIDEBAR", -25.0),
        ("post-comments", 0.0),  # both patterns
        ("hid", -25.0),
        ("hidden-xs", -25.0),
        ("grid", 0.0),
    ],
)
def test_value_weights(value: str, weight: float) -> None:
    assert containers.value_weight(value) == weight


def test_block_features_carry_the_columns() -> None:
    doc = parse(_page())
    blocks, x = _features(doc)
    matrix = features.block_features(doc, blocks)
    first = features.NAMES.index(containers.NAMES[0])
    assert np.array_equal(matrix[:, first : first + len(containers.NAMES)], x)


@pytest.mark.parametrize("path", sorted(PAGES.glob("*.html")), ids=lambda p: p.name)
def test_matches_the_reference_on_test_pages(path: Path) -> None:
    blocks, x = _features(parse(path.read_text(encoding="utf-8")))
    assert np.allclose(x, _reference(blocks), atol=1e-5)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_pages)
def test_matches_the_reference_on_generated_pages(html: str) -> None:
    assume(html and not html.isspace())
    try:
        doc = parse(html)
    except UnsupportedInput:  # (a page of comments only, which the generator can make)
        assume(False)
    blocks, x = _features(doc)
    assert np.allclose(x, _reference(blocks), atol=1e-5)


def test_page_features_read_the_best_container() -> None:
    doc = parse(_page())
    blocks = doc.section_blocks()
    matrix = features.block_features(doc, blocks)
    page = pagetype.page_features(doc, blocks, matrix)
    at = {n: page[i] for i, n in enumerate(pagetype.NAMES)}
    lengths = np.array([len(b.text) for b in blocks], dtype=np.float64)
    story = np.array([b.text.startswith("Readers") for b in blocks])
    assert at["top_share"] == pytest.approx(lengths[story].sum() / lengths.sum())
    assert at["top_with_siblings_share"] == at["top_share"]  # no sibling joins here
    assert at["top_blocks_share"] == pytest.approx(5 / len(blocks))
    assert at["log_blocks_in_top"] == pytest.approx(np.log1p(5))
    assert at["log_long_blocks_in_top"] == pytest.approx(np.log1p(5))
    long = lengths >= pagetype.LONG_BLOCK_CHARS
    assert at["long_blocks_in_top_share"] == pytest.approx(5 / long.sum())
    assert at["top_long_text_share"] == pytest.approx(lengths[story].sum() / lengths.sum())
