"""Viterbi over equation (3) of the Web2Text paper, checked against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from scrapy_boilerplate.extractors.web2text.model import ModelError, Web2TextModel
from scrapy_boilerplate.extractors.web2text.viterbi import sequence_log_score, viterbi


def _random_potentials(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    unary = rng.dirichlet([1.0, 1.0], size=n)
    pairwise = rng.dirichlet([1.0] * 4, size=max(n - 1, 0)).reshape(max(n - 1, 0), 4)
    return unary, pairwise


@pytest.mark.parametrize("lam", [0.0, 0.1, 1.0, 5.0])
def test_viterbi_finds_the_best_sequence_of_equation_3(lam):
    rng = np.random.default_rng(7)
    for n in range(1, 9):
        for _ in range(20):
            unary, pairwise = _random_potentials(rng, n)
            best = max(
                itertools.product((0, 1), repeat=n),
                key=lambda labels: sequence_log_score(unary, pairwise, list(labels), lam),
            )
            got = viterbi(unary, pairwise, lam)
            assert sequence_log_score(unary, pairwise, got, lam) == pytest.approx(
                sequence_log_score(unary, pairwise, list(best), lam)
            )


def test_lambda_zero_is_the_unary_argmax():
    rng = np.random.default_rng(1)
    unary, pairwise = _random_potentials(rng, 50)
    assert viterbi(unary, pairwise, 0.0) == [int(p[1] > p[0]) for p in unary]


def test_a_strong_pairwise_term_smooths_an_isolated_label():
    unary = np.array([[0.1, 0.9], [0.6, 0.4], [0.1, 0.9]])
    stay = np.array([[0.45, 0.05, 0.05, 0.45]] * 2)  # neighbours tend to share a label
    assert viterbi(unary, stay, 0.0) == [1, 0, 1]
    assert viterbi(unary, stay, 1.0) == [1, 1, 1]


def test_empty_and_single_block_pages():
    assert viterbi(np.zeros((0, 2)), np.zeros((0, 4))) == []
    assert viterbi(np.array([[0.3, 0.7]]), np.zeros((0, 4))) == [1]
    with pytest.raises(ValueError, match="pairwise rows"):
        viterbi(np.array([[0.3, 0.7]] * 3), np.zeros((1, 4)))


def test_long_pages_are_linear_and_exact_probabilities_of_zero_are_safe():
    n = 100_000
    unary = np.tile([[0.0, 1.0]], (n, 1))
    pairwise = np.tile([[0.25, 0.25, 0.25, 0.25]], (n - 1, 1))
    assert viterbi(unary, pairwise) == [1] * n


def test_a_missing_or_corrupt_model_names_the_file(tmp_path):
    missing = tmp_path / "nope.onnx"
    with pytest.raises(ModelError, match=str(missing)):
        Web2TextModel(missing)
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(b"this is not an onnx file")
    with pytest.raises(ModelError, match=r"corrupt\.onnx"):
        Web2TextModel(corrupt)
