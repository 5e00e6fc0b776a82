"""Web2Text as an extractor: the shipped model, parameters, bad input, model errors, Scrapy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

from scrapy_boilerplate import CONTENT, extract
from scrapy_boilerplate.core.errors import BoilerplateError, InvalidParameter
from scrapy_boilerplate.core.registry import available
from scrapy_boilerplate.extractors.web2text import Web2TextExtractor
from scrapy_boilerplate.extractors.web2text.extractor import join_leaves
from scrapy_boilerplate.extractors.web2text.features import N_BLOCK, N_EDGE
from scrapy_boilerplate.extractors.web2text.model import (
    CHUNK,
    DEFAULT_MODEL,
    FEATURE_VERSION,
    ModelError,
    load_model,
)
from scrapy_helpers import ARTICLE, PAGES, PagesSpider, boilerplate_stats, crawl

PARAGRAPH = (
    "The committee met on Tuesday to discuss the new budget for the public library, which "
    "has seen a sharp rise in visitors since the renovation of its reading rooms last year."
)
PAGE = f"""<html><head><title>Library budget</title></head><body>
<div class="nav"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li>
<li><a href="/sport">Sport</a></li><li><a href="/about">About us</a></li></ul></div>
<div class="article"><h1>Library budget approved</h1>
<p>{PARAGRAPH}</p>
<p>Members said the <a href="/reading">reading programme</a> for children would get more
money. {PARAGRAPH}</p>
<p>{PARAGRAPH} The vote was unanimous, and the new hours start in March.</p></div>
<div class="footer"><a href="/privacy">Privacy</a> | <a href="/terms">Terms</a> |
Copyright &copy; 2024 Example News</div>
</body></html>"""


def test_web2text_is_registered_and_the_model_ships_in_the_package():
    assert "web2text" in available()
    assert DEFAULT_MODEL.is_file()
    assert DEFAULT_MODEL.with_suffix(".json").is_file()
    assert (DEFAULT_MODEL.parent / "MODEL_CARD.md").is_file()
    meta = load_model().metadata
    assert str(meta["feature_version"]) == FEATURE_VERSION
    assert meta["train_pages"] > 100
    assert load_model("cleaneval").metadata["model"] == "cleaneval"


def test_article_paragraphs_are_content_and_navigation_is_not():
    r = extract(PAGE, "web2text")
    assert r.extractor == "web2text" and r.ok
    by_text = {b.text: b for b in r.blocks}
    assert by_text[PARAGRAPH].label == CONTENT
    for nav in ("Home", "News", "Sport", "Privacy"):
        assert by_text[nav].label != CONTENT
    assert PARAGRAPH in r.main_text
    assert "Sport" not in r.main_text
    for b in r.blocks:
        p = b.fields["p_content"]
        assert isinstance(p, float) and 0.0 <= p <= 1.0


def test_main_text_keeps_a_paragraph_with_a_link_on_one_line():
    r = extract(PAGE, "web2text", unary_only=True, threshold=0.0)  # every block content
    assert "Members said the reading programme for children would get more money." in (r.main_text)
    assert "\n\nLibrary budget approved\n\n" in f"\n\n{r.main_text}"


def test_join_leaves_spaces_and_paragraphs():
    texts = ["Hello", "world", ".", "(", "aside", ")", "Next"]
    labels = [True, True, True, True, True, True, True]
    breaks = [0, 0, 1, 0, 0, 1]
    assert join_leaves(texts, labels, breaks) == "Hello world.\n\n(aside)\n\nNext"
    # A boilerplate leaf between two content leaves ends the paragraph.
    assert join_leaves(["a", "b", "c"], [True, False, True], [0, 0]) == "a\n\nc"
    assert join_leaves([], [], []) == ""


def test_unary_only_follows_the_threshold_and_viterbi_differs_from_it():
    everything = extract(PAGE, "web2text", unary_only=True, threshold=0.0)
    assert all(b.label == CONTENT for b in everything.blocks)
    nothing = extract(PAGE, "web2text", unary_only=True, threshold=1.0)
    assert all(b.label != CONTENT or b.fields["p_content"] >= 1.0 for b in nothing.blocks)
    structured = extract(PAGE, "web2text")
    unary = extract(PAGE, "web2text", unary_only=True)
    # Same probabilities; labels come from different decisions.
    assert [b.fields["p_content"] for b in structured.blocks] == [
        b.fields["p_content"] for b in unary.blocks
    ]


def test_lambda_zero_is_the_unary_argmax():
    a = extract(PAGE, "web2text", lambda_=0.0)
    b = extract(PAGE, "web2text", unary_only=True, threshold=0.5)
    assert [x.label for x in a.blocks] == [
        CONTENT if x.fields["p_content"] > 0.5 else "boilerplate" for x in b.blocks
    ]


@pytest.mark.parametrize(
    "params",
    [{"lambda_": -0.1}, {"threshold": 1.5}, {"unary_only": "maybe"}, {"model": 3}],
)
def test_bad_parameters_are_refused(params):
    with pytest.raises(InvalidParameter):
        extract(PAGE, "web2text", **params)


@pytest.mark.parametrize("html", ["", "<html><body></body></html>", "<p> </p>"])
def test_a_page_without_text_gives_an_empty_result(html):
    r = extract(html, "web2text")
    assert r.blocks == [] and r.main_text == ""
    assert r.reason is not None


def test_one_block():
    r = extract("<html><body><p>Just one sentence here.</p></body></html>", "web2text")
    assert [b.text for b in r.blocks] == ["Just one sentence here."]
    assert r.blocks[0].label in (CONTENT, "boilerplate")


def test_a_page_of_100000_blocks_runs_in_chunks_like_one_pass():
    n = 100_000
    html = "<html><body>" + "".join(f"<p>Item {i} of the list.</p>" for i in range(n))
    r = extract(html + "</body></html>", "web2text")
    assert len(r.blocks) == n
    # Chunked inference equals one pass over a page that spans several chunks.
    model = load_model()
    rng = np.random.default_rng(1)
    m = CHUNK * 2 + 17
    blocks = rng.normal(size=(m, N_BLOCK)).astype(np.float32)
    edges = rng.normal(size=(m - 1, N_EDGE)).astype(np.float32)
    u, p = model.potentials(blocks, edges)
    u1, p1 = model._run(blocks, edges)
    np.testing.assert_allclose(u, u1, atol=1e-5)
    np.testing.assert_allclose(p, p1, atol=1e-5)


def test_results_are_plain_json():
    d = extract(PAGE, "web2text").to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert isinstance(d["blocks"][0]["p_content"], float)


def test_a_missing_model_file_is_named(tmp_path):
    missing = tmp_path / "nowhere.onnx"
    with pytest.raises(BoilerplateError) as err:
        extract(PAGE, "web2text", model=str(missing))
    assert str(missing) in str(err.value)


def test_a_mistyped_model_name_lists_the_shipped_models():
    with pytest.raises(ModelError) as err:
        extract(PAGE, "web2text", model="cleanevl")
    assert "cleanevl" in str(err.value)
    assert "cleaneval" in str(err.value) and "web2text" in str(err.value).split("cleanevl")[1]


def test_a_corrupt_model_file_is_named(tmp_path):
    bad = tmp_path / "corrupt.onnx"
    bad.write_bytes(b"this is not an onnx model" * 10)
    with pytest.raises(ModelError) as err:
        load_model(bad)
    assert str(bad) in str(err.value)
    with pytest.raises(BoilerplateError):
        extract(PAGE, "web2text", model=str(bad))


def test_the_model_loads_once_per_process_and_path():
    assert load_model() is load_model(None) is load_model(DEFAULT_MODEL)


def test_another_model_file_is_loaded_by_path(tmp_path):
    copy = tmp_path / "mine.onnx"
    copy.write_bytes(DEFAULT_MODEL.read_bytes())
    r = extract(PAGE, "web2text", model=str(copy))
    assert r.extra["model"] == "mine.onnx"
    assert [b.label for b in r.blocks] == [b.label for b in extract(PAGE, "web2text").blocks]


def test_validate_loads_the_model_so_a_crawl_fails_at_start(tmp_path):
    with pytest.raises(BoilerplateError):
        Web2TextExtractor().validate({"model": str(tmp_path / "absent.onnx")})


@pytest.mark.parametrize("mode", ["inline", "process"])
@deferred_f_from_coro_f
async def test_crawl_with_web2text(mode):
    class Web2TextSpider(PagesSpider):
        name = "web2text-pages"
        custom_settings: ClassVar[dict] = {
            "BOILERPLATE_EXTRACTOR": "web2text",
            "BOILERPLATE_PARAMS": {"lambda_": 0.2},
            "BOILERPLATE_EXECUTION": mode,
            "BOILERPLATE_WORKERS": 1,
        }

    items, stats, _ = await crawl(
        spider=Web2TextSpider, urls=[(PAGES / "news_article.html").as_uri()]
    )
    (item,) = items
    assert item["extractor"] == "web2text"
    assert item["main_text"] == extract(ARTICLE, "web2text", lambda_=0.2).main_text
    assert item["main_text"]
    assert boilerplate_stats(stats)["extractor/web2text"] == 1


def test_model_card_states_data_metrics_and_command():
    card = (Path(DEFAULT_MODEL).parent / "MODEL_CARD.md").read_text(encoding="utf-8")
    for needle in ("web2text_train", "python benchmarks/train_web2text.py", "F1"):
        assert needle in card


def test_shipped_models_are_chosen_by_name():
    from scrapy_boilerplate.extractors.web2text import shipped_models

    assert {"web2text", "cleaneval"} <= set(shipped_models())
    r = extract(PAGE, "web2text", model="cleaneval")
    assert r.extra["model"] == "cleaneval.onnx"
    assert extract(PAGE, "web2text", model="web2text").extra["model"] == "web2text.onnx"
    with pytest.raises(BoilerplateError) as err:
        extract(PAGE, "web2text", model="nosuchmodel")
    assert "nosuchmodel" in str(err.value)
