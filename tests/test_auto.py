"""``auto``: the default extractor (page type, block probabilities, quality, never empty
without a reason), its model file's errors, and its training pipeline end to end."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scrapy_boilerplate import extract
from scrapy_boilerplate.auto import extractor as auto_extractor
from scrapy_boilerplate.auto import features, model, pagetype
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.core.errors import InvalidParameter
from scrapy_boilerplate.core.registry import DEFAULT_EXTRACTOR

PAGES = Path(__file__).parent / "pages"
FIXTURES = sorted(PAGES.glob("*.html"))


def test_auto_is_the_default() -> None:
    assert DEFAULT_EXTRACTOR == "auto"
    assert extract("<html><body><p>Some text here.</p></body></html>").extractor == "auto"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_pages_get_main_text_type_and_quality(path: Path) -> None:
    result = extract(path.read_bytes(), "auto", url=f"https://example.com/{path.stem}")
    assert result.reason is None and result.main_text.strip()
    assert result.page_type in pagetype.PAGE_TYPES
    assert 0.0 < result.page_type_probability <= 1.0
    assert 0.0 <= result.quality <= 1.0
    assert all(0.0 <= b.fields["p_content"] <= 1.0 for b in result.blocks)
    content = {b.text for b in result.content_blocks}
    assert all(t in result.main_text for t in content)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["page_type"] == result.page_type and data["quality"] == result.quality
    assert type(data["blocks"][0]["p_content"]) is float


def test_the_article_of_a_news_page_is_kept_and_its_chrome_dropped() -> None:
    url = "https://news.example.com/2024/05/17/council-votes-on-budget.html"
    result = extract((PAGES / "news_article.html").read_bytes(), "auto", url=url)
    labels = {b.text: b.label for b in result.blocks}
    longest = max(labels, key=len)
    assert labels[longest] == "content"
    assert result.page_type == "article"


def test_other_methods_dicts_keep_their_shape() -> None:
    data = extract((PAGES / "news_article.html").read_bytes(), "justext").to_dict()
    assert not {"page_type", "page_type_probability", "quality"} & set(data)


def test_the_language_auto_reads_the_page_in_is_reported() -> None:
    """auto weighs stopwords on the page's stoplist: the result names that language, as
    jusText's does, also on a page that declares none (items' ``language`` output)."""
    html = (PAGES / "news_article.html").read_bytes()
    assert b"lang=" not in html
    assert extract(html, "auto").language == extract(html, "justext").language == "en"
    german = (
        "<html><body><p>Der Gemeinderat hat am Dienstag beschlossen, den alten Leuchtturm am "
        "Ende der Mole zu renovieren, weil er für die Fischer und für die Besucher der Stadt "
        "sehr wichtig ist.</p></body></html>"
    )
    assert extract(german, "auto").language == "de"
    declared = "<html lang='fr-CA'><body><p>Some text here, in English.</p></body></html>"
    assert extract(declared, "auto").language == "fr"


def test_a_page_with_a_little_text_is_never_empty() -> None:
    """Where no block reaches the threshold, the best blocks are kept (and said so by a
    low quality), never an empty main text without a reason."""
    html = "<html><body><nav><a href='/'>Home</a></nav><div>Opening hours</div></body></html>"
    result = extract(html, "auto", threshold=1.0)
    assert result.reason is None and result.main_text


def test_a_page_without_text_says_why() -> None:
    result = extract("<html><body><div> </div><img src=x></body></html>", "auto")
    assert result.main_text == "" and result.reason == "no-text"


def test_decide_keeps_the_best_blocks_only_when_nothing_passes() -> None:
    p = np.array([0.1, 0.35, 0.3, 0.05])
    labels, rescued = auto_extractor.decide(p, 0.5, True)
    assert rescued and labels.tolist() == [False, True, True, False]
    labels, rescued = auto_extractor.decide(p, 0.3, True)
    assert not rescued and labels.tolist() == [False, True, True, False]
    labels, rescued = auto_extractor.decide(p, 0.5, False)
    assert not rescued and not labels.any()


@pytest.mark.parametrize("seed", range(40))
def test_best_run_is_the_run_of_largest_sum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    weights = rng.normal(size=int(rng.integers(1, 14))).round(1)
    start, end = auto_extractor.best_run(weights)
    best = max(
        weights[a : b + 1].sum() for a in range(len(weights)) for b in range(a, len(weights))
    )
    assert 0 <= start <= end < len(weights)
    assert weights[start : end + 1].sum() == pytest.approx(best)
    assert auto_extractor.best_run(np.zeros(0)) == (0, -1)


def test_the_best_run_rule_drops_likely_blocks_cut_off_from_the_article() -> None:
    # an article of three blocks, a long boilerplate gap, then a short reply box that
    # the model finds somewhat likely and a block it is sure of
    p = np.array([0.9, 0.8, 0.85, 0.1, 0.05, 0.6, 0.1, 0.95])
    chars = np.array([300.0, 250.0, 400.0, 500.0, 300.0, 80.0, 200.0, 40.0])
    assert auto_extractor.decide(p, 0.5, True)[0].tolist() == [
        True, True, True, False, False, True, False, True
    ]  # fmt: skip
    labels, rescued = auto_extractor.decide(p, 0.5, True, chars)
    assert not rescued and labels.tolist() == [True] * 3 + [False] * 5
    labels, _ = auto_extractor.decide(p, 0.5, True, chars, keep=0.9)
    assert labels.tolist() == [True] * 3 + [False] * 4 + [True]
    # nothing at the threshold: the rescue applies as before
    labels, rescued = auto_extractor.decide(p * 0.5, 0.5, True, chars)
    assert rescued and labels.tolist() == (p * 0.5 >= 0.475 - 0.15).tolist()


def test_the_best_run_rule_follows_the_model_unless_a_parameter_says_otherwise() -> None:
    shipped = model.load_model()
    assert shipped.best_run and shipped.run_keep is not None
    html = (PAGES / "news_article.html").read_bytes()
    default = extract(html, "auto")
    assert default.params["best_run"] is None
    alone = extract(html, "auto", best_run=False)
    # the rule only ever takes blocks out
    kept = {b.index for b in default.blocks if b.label == "content"}
    assert kept <= {b.index for b in alone.blocks if b.label == "content"}
    with pytest.raises(InvalidParameter):
        extract(html, "auto", best_run="sometimes")


def test_a_forced_page_type_is_used_and_a_wrong_one_refused() -> None:
    html = (PAGES / "forum_thread.html").read_bytes()
    assert extract(html, "auto", page_type="forum").page_type == "forum"
    assert extract(html, "auto", page_type="forum").page_type_probability == 1.0
    with pytest.raises(InvalidParameter, match="page_type"):
        extract(html, "auto", page_type="blog")


def test_a_missing_or_corrupt_model_is_an_error_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "none.onnx"
    with pytest.raises(model.ModelError, match=re.escape(str(missing))):
        extract("<p>text</p>", "auto", model=str(missing))
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(b"not a model at all")
    for _ in range(2):  # the failure is remembered, and raised the same way again
        with pytest.raises(model.ModelError, match=r"corrupt\.onnx.*not a readable ONNX"):
            extract("<p>text</p>", "auto", model=str(corrupt))


def test_a_model_of_another_feature_version_is_refused(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    proto = onnx.load(str(model.DEFAULT_MODEL))
    for prop in proto.metadata_props:
        if prop.key == "feature_version":
            prop.value = json.dumps("0")
    path = tmp_path / "old.onnx"
    onnx.save(proto, str(path))
    with pytest.raises(model.ModelError, match="feature version 0"):
        extract("<p>text</p>", "auto", model=str(path))


@pytest.mark.parametrize(
    ("decoding", "error"),
    [
        ({"rule": "two-runs"}, "unknown decision rule"),
        ("best-run", "unknown decision rule"),
        ({"rule": "best-run", "keep": 1.5}, "not a probability"),
        ({"rule": "best-run", "keep": "high"}, "not a probability"),
        ({"rule": "best-run", "keep": None}, None),
        (None, None),
    ],
)
def test_a_model_s_decision_rule_is_read_or_refused(
    auto_model_with: Callable[..., Any], decoding: Any, error: str | None
) -> None:
    loaded = auto_model_with("decoding", decoding, error)
    if loaded is not None:
        assert loaded.best_run is (decoding is not None) and loaded.run_keep is None


def test_the_shipped_model_matches_the_features() -> None:
    loaded = model.load_model()
    assert loaded.page_types == list(pagetype.PAGE_TYPES)
    meta = loaded.metadata
    assert meta["block_features"] == list(features.NAMES)
    assert meta["page_features"] == list(pagetype.NAMES)
    assert meta["quality_features"] == list(auto_extractor.QUALITY_NAMES)
    assert model.DEFAULT_MODEL.stat().st_size < 5 * 1024 * 1024


def test_block_features_are_finite_and_of_the_declared_width() -> None:
    for path in FIXTURES:
        doc = parse(path.read_bytes())
        blocks = doc.section_blocks()
        x = features.block_features(doc, blocks)
        assert x.shape == (len(blocks), features.WIDTH) and x.dtype == np.float32
        assert np.isfinite(x).all()
        px = pagetype.page_features(doc, blocks, x)
        assert px.shape == (pagetype.WIDTH,) and np.isfinite(px).all()


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/blog/2024/05/01/a-story.html",
        "https://shop.example.com/products/p/12345678",
        "https://example.com/",
    ],
)
def test_a_page_without_its_url_is_the_page_with_its_url_columns_zeroed(url: str) -> None:
    """What the page-type trees learn a page without a URL from (``without_url`` of a page
    that has one) is what ``page_features`` gives that page when no URL comes with it."""
    html = (PAGES / "news_article.html").read_bytes()
    with_url = parse(html, url=url)
    blocks = with_url.section_blocks()
    bx = features.block_features(with_url, blocks)
    px = pagetype.page_features(with_url, blocks, bx)
    assert px[list(pagetype.URL_COLUMNS)].any()  # the URL says something here
    bare = parse(html)
    bare_blocks = bare.section_blocks()
    expected = pagetype.page_features(bare, bare_blocks, features.block_features(bare, bare_blocks))
    np.testing.assert_array_equal(pagetype.without_url(px), expected)
    assert px[list(pagetype.URL_COLUMNS)].any()  # (a copy: the page's own vector is kept)


def test_url_columns_are_the_url_features() -> None:
    names = [pagetype.NAMES[i] for i in pagetype.URL_COLUMNS]
    assert names == [n for n in pagetype.NAMES if n.startswith("url_")]
    assert {"url_depth", "url_date", "url_root", "url_article"} <= set(names)


def test_class_and_id_words_reach_the_blocks_below_them() -> None:
    html = (
        "<html><body><div id='comments'><div><div><p>A reader wrote this comment about the"
        " story.</p></div></div></div><div class='entry-content'><p>Body.</p></div></body></html>"
    )
    doc = parse(html)
    x = features.block_features(doc)
    col = features.NAMES.index
    assert x[0, col("above_comment")] == 1 and x[0, col("above_content")] == 0
    assert x[1, col("own_content")] == 1 and x[1, col("above_comment")] == 0


def _tiny_datasets(root: Path) -> None:
    """Three folders laid out as the datasets are, with pages written here."""
    article = (PAGES / "news_article.html").read_bytes().decode()
    gold = extract(article, "justext").main_text
    forum = (PAGES / "forum_thread.html").read_bytes().decode()
    forum_gold = extract(forum, "justext").main_text
    for name in ("wcxb-dev", "google-trends-2017", "cleaneval"):
        folder = root / name
        folder.mkdir(parents=True)
        rows, ids = [], []
        for i in range(12):
            pid = f"{name[:2]}{i}"
            html, text = (article, gold) if i % 2 else (forum, forum_gold)
            (folder / f"{pid}.html").write_text(html, encoding="utf-8")
            (folder / f"{pid}.txt").write_text(text, encoding="utf-8")
            rows.append(
                {
                    "id": pid,
                    "url": f"https://site{i % 6}.example/{'news' if i % 2 else 'forum'}/{i}",
                    "page_type": "article" if i % 2 else "forum",
                    "domain": f"site{i % 6}.example",
                }
            )
            ids.append(pid)
        (folder / "index.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
        )
        splits = {"train": ids[:6], "dev": ids[6:], "web2text_train": ids}
        (folder / "splits.json").write_text(json.dumps(splits), encoding="utf-8")


def test_training_writes_a_model_the_extractor_loads(tmp_path: Path) -> None:
    pytest.importorskip("lightgbm")
    pytest.importorskip("onnxmltools")
    from scrapy_boilerplate.auto import train

    _tiny_datasets(tmp_path / "data")
    out = tmp_path / "models" / "mine.onnx"
    report = train.train(tmp_path / "data", out, log=lambda _: None, trees=(5, 10))
    assert out.is_file() and out.with_suffix(".json").is_file()
    assert report["trained_on"]["cleaneval"] == 12
    assert set(report["thresholds"]) <= set(pagetype.PAGE_TYPES)
    assert report["decoding"] == {"rule": "best-run", "keep": train.RUN_KEEP}
    assert report["asides"] == train.ASIDES
    assert 0.0 <= report["cv_text_f1_threshold_alone"]["all"] <= 1.0
    # the same pages without their URLs: types and text F1 out of fold, reported
    assert 0.0 <= report["page_type_accuracy_without_url"] <= 1.0
    assert 0.0 <= report["cv_text_f1_without_url"] <= 1.0
    result = extract((PAGES / "news_article.html").read_bytes(), "auto", model=str(out))
    assert result.reason is None and result.quality is not None
    assert result.extra["model"] == "mine.onnx"
    loaded = model.load_model(out)
    assert loaded.best_run and loaded.run_keep == train.RUN_KEEP
    assert loaded.aside_types == frozenset(train.ASIDES["types"])
    # the same training writes the same bytes (the shipped model is reproducible)
    again = tmp_path / "models" / "again.onnx"
    train.train(tmp_path / "data", again, log=lambda _: None, trees=(5, 10))
    assert again.read_bytes() == out.read_bytes()
    assert report["seed"] == train.SEED
    # another seed: the same recipe, other trees (their sampling of rows and features)
    other = tmp_path / "models" / "seed14.onnx"
    other_report = train.train(tmp_path / "data", other, log=lambda _: None, trees=(5, 10), seed=14)
    assert other_report["seed"] == 14
    assert other.read_bytes() != out.read_bytes()


def test_train_auto_from_the_command_line_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    from scrapy_boilerplate.cli import main

    assert main(["train", "auto"]) == 2  # no --data
    assert main(["train", "auto", "--data", str(tmp_path / "nowhere")]) == 3
    (tmp_path / "empty").mkdir()
    assert main(["train", "auto", "--data", str(tmp_path / "empty")]) == 3
    partial = tmp_path / "partial"  # the first set there, a later one missing
    _tiny_datasets(partial)
    shutil.rmtree(partial / "cleaneval")
    assert main(["train", "auto", "--data", str(partial), "--out", str(tmp_path / "p.onnx")]) == 3
    assert not (tmp_path / "p.onnx").exists()
    existing = tmp_path / "auto.onnx"
    shutil.copy(model.DEFAULT_MODEL, existing)
    data = tmp_path / "data"
    _tiny_datasets(data)
    assert main(["train", "auto", "--data", str(data), "--out", str(existing)]) == 2


def test_train_auto_from_the_command_line_takes_a_seed(tmp_path: Path) -> None:
    pytest.importorskip("lightgbm")
    pytest.importorskip("onnxmltools")
    from scrapy_boilerplate.cli import main

    data = tmp_path / "data"
    _tiny_datasets(data)
    out = tmp_path / "seed7.onnx"
    assert main(["train", "auto", "--data", str(data), "--out", str(out), "--seed", "7"]) == 0
    report = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert report["seed"] == 7


def test_probabilities_rounded_at_once_as_round_does() -> None:
    """``rounded`` gives exactly ``round(v, 4)`` for float32 probabilities: random ones,
    the ties of the fourth decimal that float32 can hold (1/32 is 0.03125), the floats
    on either side of every multiple of 1/20,000, and values outside [0, 1]; a float64
    array is rounded one by one."""
    rng = np.random.default_rng(7)
    halves = (np.arange(20001, dtype=np.float64) / 20000).astype(np.float32)
    values = np.concatenate(
        (
            rng.random(50_000, dtype=np.float32),
            halves,
            np.nextafter(halves, np.float32(2)),
            np.nextafter(halves, np.float32(-1)),
            np.array([0.0, 1.0, 0.03125, 0.09375, 2**-126, -0.0, 3.5e4, -0.00005], np.float32),
        )
    )
    assert auto_extractor.rounded(values) == [round(v, 4) for v in values.tolist()]
    wide = rng.random(1000)
    assert auto_extractor.rounded(wide) == [round(v, 4) for v in wide.tolist()]
    assert auto_extractor.rounded(np.zeros(0, np.float32)) == []


def test_block_input_joins_the_page_type_to_every_row() -> None:
    """The block trees read each block's features, then the page type's probabilities."""
    bx = np.arange(12, dtype=np.float32).reshape(3, 4)
    p_type = np.array([0.25, 0.75], dtype=np.float32)
    joined = auto_extractor.with_page_type(bx, p_type)
    assert joined.dtype == np.float32 and joined.flags.c_contiguous
    assert np.array_equal(joined, np.hstack((bx, np.tile(p_type, (3, 1)))))
    assert auto_extractor.with_page_type(np.zeros((0, 4), np.float32), p_type).shape == (0, 6)
