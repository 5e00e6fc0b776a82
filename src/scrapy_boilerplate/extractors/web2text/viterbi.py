"""Joint labelling of a page's blocks: Viterbi over the hidden Markov model of equation (3).

    p(l_0..l_n) = prod_i p_i(l_i) * (prod_i p_{i,i+1}(l_i, l_{i+1})) ** lambda

Maximised in log space: sum_i log p_i(l_i) + lambda * sum_i log p_{i,i+1}(l_i, l_{i+1}).
Labels: 0 = boilerplate, 1 = content. Pairwise potentials are indexed ``2 * l_i + l_{i+1}``
(00, 01, 10, 11), the order the pairwise network is trained with.

Two states make the recursion a handful of float operations per block, done in plain
Python floats: per-step numpy calls would cost more than the arithmetic.
"""

from __future__ import annotations

import math

import numpy as np

_TINY = 1e-12


def viterbi(unary: np.ndarray, pairwise: np.ndarray, lam: float = 0.1) -> list[int]:
    """The most likely label sequence.

    ``unary``: (n, 2) probabilities [p(boilerplate), p(content)] per block.
    ``pairwise``: (n - 1, 4) probabilities of (l_i, l_{i+1}) in the order 00, 01, 10, 11.
    ``lam``: the weight of the pairwise term (the paper's lambda, 0.1); 0 gives the unary
    argmax.
    """
    n = len(unary)
    if n == 0:
        return []
    if len(pairwise) != n - 1:
        raise ValueError(f"{n} blocks need {n - 1} pairwise rows, got {len(pairwise)}")
    u = np.log(np.clip(np.asarray(unary, dtype=np.float64), _TINY, 1.0)).tolist()
    p = (lam * np.log(np.clip(np.asarray(pairwise, dtype=np.float64), _TINY, 1.0))).tolist()
    s0, s1 = u[0]
    back: list[tuple[int, int]] = []
    for i in range(1, n):
        p00, p01, p10, p11 = p[i - 1]
        # Best predecessor of state 0 and of state 1.
        a, b = s0 + p00, s1 + p10
        from0 = 0 if a >= b else 1
        best0 = a if a >= b else b
        c, d = s0 + p01, s1 + p11
        from1 = 0 if c >= d else 1
        best1 = c if c >= d else d
        u0, u1 = u[i]
        s0, s1 = best0 + u0, best1 + u1
        back.append((from0, from1))
    state = 1 if s1 > s0 else 0
    labels = [state]
    for from0, from1 in reversed(back):
        state = from1 if state == 1 else from0
        labels.append(state)
    labels.reverse()
    return labels


def sequence_log_score(
    unary: np.ndarray, pairwise: np.ndarray, labels: list[int], lam: float = 0.1
) -> float:
    """The log of equation (3) for one labelling (tests compare Viterbi with brute force)."""
    score = sum(math.log(max(float(unary[i][lab]), _TINY)) for i, lab in enumerate(labels))
    for i in range(len(labels) - 1):
        score += lam * math.log(max(float(pairwise[i][2 * labels[i] + labels[i + 1]]), _TINY))
    return score
