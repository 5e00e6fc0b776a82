"""``auto`` on product pages whose description only the page's JSON-LD holds
(:mod:`scrapy_boilerplate.auto.structured`)."""

from __future__ import annotations

import json

import lxml.html
import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.auto import structured

DESCRIPTION = (
    "A dark roast of arabica and robusta beans, ground for drip machines and French "
    "presses, packed in a resealable bag of one pound."
)


def _page(jsonld: object, body: str = "", raw: str | None = None) -> str:
    script = raw if raw is not None else json.dumps(jsonld)
    return (
        "<html><head><title>Dark Roast</title>"
        f'<script type="application/ld+json">{script}</script></head><body>'
        "<nav><a href='/'>Home</a> <a href='/shop'>Shop</a></nav>"
        "<h1>Dark Roast Coffee</h1><p>$19.99</p><button>Add to cart</button>"
        f"{body}<footer>Copyright 2026 The Roastery. All rights reserved.</footer>"
        "</body></html>"
    )


def _root(page: str) -> object:
    return lxml.html.fromstring(page)


@pytest.mark.parametrize(
    "jsonld",
    [
        {"@context": "https://schema.org", "@type": "Product", "description": DESCRIPTION},
        {"@type": ["Thing", "schema:Product"], "description": DESCRIPTION},
        {"@type": "https://schema.org/ProductGroup", "description": DESCRIPTION},
        {
            "@graph": [
                {"@type": "Organization", "description": "Roasters since 1990, in a barn."},
                {"@type": "Product", "description": DESCRIPTION},
            ]
        },
        [{"@type": "BreadcrumbList"}, {"@type": "Product", "description": DESCRIPTION}],
        {"@type": "WebPage", "mainEntity": {"@type": "Product", "description": DESCRIPTION}},
    ],
)
def test_product_description_found_in_every_json_ld_shape(jsonld: object) -> None:
    found = structured.product_description(_root(_page(jsonld)))
    assert found is not None
    text, script = found
    assert text == DESCRIPTION and script.tag == "script"


def test_description_markup_and_references_become_plain_lines() -> None:
    raw = json.dumps(
        {
            "@type": "Product",
            "description": "<h4>BOLD &amp; DARK</h4><p>Meet the roast that "
            "keeps you going all day long.</p><ul><li>Fair Trade</li><li>Organic</li></ul>",
        }
    )
    text, _ = structured.product_description(_root(_page(None, raw=raw)))
    assert text.splitlines() == [
        "BOLD & DARK",
        "Meet the roast that keeps you going all day long.",
        "Fair Trade",
        "Organic",
    ]


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        json.dumps({"@type": "Article", "description": DESCRIPTION}),
        json.dumps({"@type": "Product", "description": "Dark roast."}),  # too short
        json.dumps({"@type": "Product", "description": ["a", "list"]}),
        json.dumps({"@type": "Product"}),
        "[" * 100_000 + "]" * 100_000,  # nested past any recursion limit
    ],
)
def test_no_description_where_none_is_usable(raw: str) -> None:
    assert structured.product_description(_root(_page(None, raw=raw))) is None


def test_long_scripts_and_descriptions_are_bounded() -> None:
    huge = json.dumps({"@type": "Product", "description": "word " * 300_000})
    assert structured.product_description(_root(_page(None, raw=huge))) is None
    long = json.dumps({"@type": "Product", "description": "word " * 10_000})
    text, _ = structured.product_description(_root(_page(None, raw=long)))
    assert len(text) <= structured.MAX_DESCRIPTION_CHARS and text.endswith("word")


def test_covered_share() -> None:
    assert structured.covered_share("one two three four", "Four, three and two") == 0.75
    assert structured.covered_share("", "anything") == 1.0


def test_auto_adds_the_description_on_a_product_page_that_lacks_it() -> None:
    page = _page({"@type": "Product", "description": DESCRIPTION})
    result = extract(page, "auto", page_type="product", url="https://shop.example/p/1")
    assert result.main_text.endswith(DESCRIPTION)
    added = result.blocks[-1]
    assert added.is_content and added.tag == "script" and added.text == DESCRIPTION
    # written as the segmentation writes xpaths (every step indexed), and it names the script
    assert added.xpath == "/html[1]/head[1]/script[1]"
    assert added.tag_path == "html.head.script"
    assert result.blocks[-2].xpath.startswith("/html[1]/body[1]/")
    assert lxml.html.fromstring(page).xpath(added.xpath)[0].tag == "script"
    assert added.fields == {"p_content": None, "source": "json-ld"}
    assert added.index == result.blocks[-2].index + 1
    assert result.extra["structured_data"] == "json-ld product description"
    assert json.loads(json.dumps(result.to_dict()))["blocks"][-1]["source"] == "json-ld"
    html = extract(page, "auto", page_type="product", main_html=True).main_html
    assert "resealable bag of one pound" in html


def test_auto_leaves_the_description_out_when_not_asked_or_not_needed() -> None:
    page = _page({"@type": "Product", "description": DESCRIPTION})
    for params in ({"page_type": "article"}, {"page_type": "product", "structured_data": False}):
        result = extract(page, "auto", **params)
        assert DESCRIPTION not in result.main_text
        assert "structured_data" not in result.extra
        assert all(b.tag != "script" for b in result.blocks)
    # the page's own blocks already say it: nothing is added twice
    shown = _page({"@type": "Product", "description": DESCRIPTION}, f"<p>{DESCRIPTION}</p>")
    result = extract(shown, "auto", page_type="product", threshold=0.0)
    assert result.main_text.count("resealable bag") == 1
    assert "structured_data" not in result.extra


@pytest.mark.parametrize(
    "value",
    [
        '<?xml version="1.0" encoding="utf-8"?><p>one two three four five</p>',
        "<p>one\x00 two three four five</p>",
        "<p>one two <b>three four five",  # unclosed
        "one &amp; two &lt;three&gt; four five",  # references, no markup
    ],
)
def test_odd_descriptions_read_as_text(value: str) -> None:
    text = structured.plain_text(value)
    assert "one" in text and "five" in text and "<" not in text.replace("<three>", "")


def test_training_scores_the_text_that_auto_gives() -> None:
    """The thresholds and the quality model are fit on the text ``auto`` returns: on a page
    taken for a product, the kept blocks and the description they miss."""
    import numpy as np

    from scrapy_boilerplate.auto import pagetype, train

    def one_hot(kind: str) -> np.ndarray:
        return np.asarray([t == kind for t in pagetype.PAGE_TYPES], np.float32)

    example = train.Example("wcxb-dev", "1", "<html></html>", DESCRIPTION, "shop.example")
    page = train.Featurized(
        example,
        ["Dark Roast Coffee", "Add to cart"],
        np.zeros((2, 1), np.float32),
        np.zeros(1, np.float32),
        np.array([True, False]),
        np.array([17.0, 11.0]),
        p_type=one_hot("product"),
        description=DESCRIPTION,
    )
    kept = np.array([True, False])
    assert train._main_text(page, kept) == f"Dark Roast Coffee\n\n{DESCRIPTION}"
    assert train._main_text(page, np.array([False, False])) == DESCRIPTION
    page.p_type = one_hot("article")
    assert train._main_text(page, kept) == "Dark Roast Coffee"
    page.p_type, page.texts = one_hot("product"), [DESCRIPTION, "Add to cart"]
    assert train._main_text(page, kept) == DESCRIPTION  # already kept: not twice


def test_only_the_first_scripts_are_read() -> None:
    other = '<script type="application/ld+json">{"@type": "Organization"}</script>'
    product = json.dumps({"@type": "Product", "description": DESCRIPTION})
    late = f'<script type="application/ld+json">{product}</script>'
    head = other * structured.MAX_SCRIPTS
    assert structured.product_description(_root(f"<html><head>{head}{late}</head></html>")) is None
    head = other * (structured.MAX_SCRIPTS - 1)
    found = structured.product_description(_root(f"<html><head>{head}{late}</head></html>"))
    assert found is not None and found[0] == DESCRIPTION
