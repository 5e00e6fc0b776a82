"""``scrapy-boilerplate train`` and the training data helpers (section 4.1 labels)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from scrapy_boilerplate import CONTENT, extract
from scrapy_boilerplate.cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE, main
from scrapy_boilerplate.extractors.web2text.data import (
    folder_pairs,
    load_folder,
    page_data,
    split_pages,
)
from scrapy_boilerplate.extractors.web2text.features import N_BLOCK, N_EDGE

TOPICS = ("river", "garden", "museum", "bakery", "railway", "harbour", "library", "orchard")


def article(topic: str, n: int) -> tuple[str, str]:
    """A page about ``topic`` with navigation and footer, and its clean text."""
    paragraphs = [
        f"The {topic} in our town was the subject of a long meeting number {n} {k}, where "
        f"residents asked about the plans for the {topic} and the money set aside for it."
        for k in range(3)
    ]
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    html = (
        "<html><body><ul class='nav'><li><a href='/'>Home</a></li><li><a href='/n'>News</a>"
        f"</li><li><a href='/c'>Contact</a></li></ul><div class='main'><h1>The {topic}</h1>"
        f"{body}</div><div class='footer'>Copyright 2024 Town News | <a href='/p'>Privacy</a>"
        "</div></body></html>"
    )
    return html, "\n\n".join([f"The {topic}", *paragraphs])


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    for n, topic in enumerate(TOPICS):
        html, text = article(topic, n)
        (folder / f"{topic}.html").write_text(html, encoding="utf-8")
        (folder / f"{topic}.txt").write_text(text, encoding="utf-8")
    (folder / "lonely.html").write_text("<p>no text file beside me</p>", encoding="utf-8")
    return folder


def test_page_data_labels_blocks_by_aligning_the_clean_text():
    html, text = article("river", 1)
    page = page_data("river", html, text)
    assert page is not None
    assert page.blocks.shape[1] == N_BLOCK and page.edges.shape[1] == N_EDGE
    assert len(page.labels) == len(page.blocks) == len(page.edges) + 1
    # Home, News, Contact | heading, 3 paragraphs | footer, Privacy
    assert page.labels.tolist() == [0, 0, 0, 1, 1, 1, 1, 0, 0]


def test_page_data_takes_given_labels_and_checks_their_count():
    html, _ = article("river", 1)
    page = page_data("x", html, labels=[True] * 9)
    assert page is not None and page.labels.sum() == 9
    with pytest.raises(ValueError, match="9 blocks"):
        page_data("x", html, labels=[True, False])
    with pytest.raises(ValueError):
        page_data("x", html)  # neither labels nor a clean text


def test_page_data_skips_pages_without_blocks():
    assert page_data("empty", "<html><body> </body></html>", "anything") is None
    assert page_data("binary", b"\x00\x01\x02" * 100, "anything") is None


def test_folder_pairs_and_split(pairs: Path):
    names = [name for name, _, _ in folder_pairs(pairs)]
    assert names == sorted(TOPICS)  # lonely.html has no text: left out
    pages = load_folder(pairs)
    train, valid = split_pages(pages, valid_share=0.25, seed=3)
    assert len(valid) == 2 and len(train) == 6
    assert {p.name for p in train} | {p.name for p in valid} == set(TOPICS)
    assert split_pages(pages, 0.25, seed=3)[1][0].name == valid[0].name  # seeded
    with pytest.raises(ValueError):
        split_pages(pages[:1])


def test_train_command_refuses_bad_input(tmp_path: Path, capsys):
    assert main(["train", str(tmp_path / "absent")]) == EXIT_INPUT
    assert "no such folder" in capsys.readouterr().err
    assert main(["train", str(tmp_path)]) == EXIT_INPUT
    assert "at least two" in capsys.readouterr().err
    assert main(["train", str(tmp_path), "--valid-share", "1.5"]) == EXIT_USAGE
    assert main(["train", str(tmp_path), "--iterations", "0"]) == EXIT_USAGE


def test_train_command_without_pytorch_says_how_to_install(pairs: Path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert main(["train", str(pairs), "--out", str(pairs / "m.onnx")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "pip install -e '.[train]'" in err and "torch==2.13.0" in err


def test_train_command_writes_a_model_the_extractor_loads(pairs: Path, tmp_path: Path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    out = tmp_path / "mine.onnx"
    code = main(["train", str(pairs), "--out", str(out), "--iterations", "600", "--seed", "1"])
    captured = capsys.readouterr()
    assert code == EXIT_OK, captured.err
    assert f"--model {out}" in captured.out
    assert out.is_file()
    report = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert report["train_pages"] + report["valid_pages"] == len(TOPICS)
    assert report["trained_on"] == str(pairs)
    assert report["model_file"] == out.name  # (so that a retraining may replace it)
    assert set(report["history"]) == {"unary", "pairwise"}
    # The model learnt these pages: articles are content, navigation is not.
    html, _ = article("windmill", 99)
    r = extract(html, "web2text", model=str(out))
    labels = {b.text: b.label for b in r.blocks}
    assert labels["The windmill"] == CONTENT
    assert labels["Home"] != CONTENT and labels["Privacy"] != CONTENT
    assert sum(b.label == CONTENT for b in r.blocks) == 4
    p = np.array([b.fields["p_content"] for b in r.blocks])
    assert ((p >= 0) & (p <= 1)).all()
    # The same model through the CLI's extract command.
    page = tmp_path / "windmill.html"
    page.write_text(html, encoding="utf-8")
    assert main(["extract", str(page), "-e", "web2text", "--model", str(out)]) == EXIT_OK
    assert "The windmill" in capsys.readouterr().out


def test_authors_recipe_drops_weights_in_training_only_and_exports(tmp_path: Path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from scrapy_boilerplate.extractors.web2text import train as training

    with pytest.raises(ValueError, match="unknown training recipe"):
        training.build_cnn(N_BLOCK, training.UNARY_FILTERS, "nope")
    torch.manual_seed(0)
    net = training.build_cnn(N_BLOCK, training.UNARY_FILTERS, "authors")
    convs = [m for m in net if isinstance(m, torch.nn.Conv1d)]
    assert len(convs) == 5 and not any(isinstance(m, torch.nn.Dropout) for m in net)
    for conv in convs:  # truncated normal, deviation 0.1, biases zero
        assert conv.weight.abs().max() <= 0.2 and not conv.bias.any()
    x = torch.randn(1, N_BLOCK, 12)
    net.eval()
    assert torch.equal(net(x), net(x))  # no dropout at inference
    net.train()
    assert not torch.equal(net(x), net(x))  # dropped weights in training
    pages = [page_data(t, *article(t, n)) for n, t in enumerate(TOPICS)]
    out = tmp_path / "authors.onnx"
    training.train(pages[:6], pages[6:], out, iterations=20, eval_every=10, recipe="authors")
    report = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert report["recipe"] == "authors"
    html, _ = article("windmill", 99)
    assert extract(html, "web2text", model=str(out)).blocks  # the exported model loads


def test_ensemble_and_per_seed_models(tmp_path: Path):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from scrapy_boilerplate import parse
    from scrapy_boilerplate.extractors.web2text import train as training
    from scrapy_boilerplate.extractors.web2text.features import page_features
    from scrapy_boilerplate.extractors.web2text.model import Web2TextModel

    pages = [page_data(t, *article(t, n)) for n, t in enumerate(TOPICS)]
    outs = {}
    for name, seeds, ensemble in (("s0", 0, False), ("s1", 1, False), ("both", [0, 1], True)):
        outs[name] = tmp_path / f"{name}.onnx"
        training.train(
            pages[:6], pages[6:], outs[name], iterations=20, eval_every=10, seed=seeds,
            ensemble=ensemble, per_seed_dir=tmp_path / "seeds" if ensemble else None,
        )  # fmt: skip
    report = json.loads(outs["both"].with_suffix(".json").read_text(encoding="utf-8"))
    assert report["ensemble"] == 2
    assert report["training"]["unary"]["ensemble_seeds"] == [0, 1]
    html, _ = article("windmill", 99)
    blocks, edges = page_features(parse(html))
    (u0, p0), (u1, p1), (u, p) = (
        Web2TextModel(outs[k]).potentials(blocks, edges) for k in ("s0", "s1", "both")
    )
    # each seed trains the same way alone or in the ensemble: the mean of the two models
    np.testing.assert_allclose(u, (u0 + u1) / 2, atol=1e-5)
    np.testing.assert_allclose(p, (p0 + p1) / 2, atol=1e-5)
    # per_seed_dir: every seed's own networks, the same as that seed trained alone
    assert sorted(f.name for f in (tmp_path / "seeds").iterdir()) == ["seed0.onnx", "seed1.onnx"]
    for k, (us, ps) in enumerate(((u0, p0), (u1, p1))):
        uk, pk = Web2TextModel(tmp_path / "seeds" / f"seed{k}.onnx").potentials(blocks, edges)
        np.testing.assert_allclose(uk, us, atol=1e-6)
        np.testing.assert_allclose(pk, ps, atol=1e-6)
    assert not np.allclose(u0, u1)  # the two seeds differ, so the check above can fail
