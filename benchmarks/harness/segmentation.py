"""Extended BCubed precision, recall and F1 (Amigó et al. 2009, as Kiesel et al. use it for
web page segmentation): two possibly overlapping clusterings of the same weighted units.

For units ``e, e'``, ``A`` counts the predicted segments holding both and ``G`` the gold
segments holding both. Multiplicity precision is ``min(A, G) / A`` (pairs with ``A > 0``),
multiplicity recall ``min(A, G) / G`` (pairs with ``G > 0``); a unit's precision is the
weight-averaged value over its partners (itself included), BCubed precision the
weight-averaged unit precision over the units in at least one predicted segment, and recall
the same with gold and predicted swapped. Units with the same memberships are merged into
classes first, so the work is quadratic in classes, not in characters.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class BCubed:
    precision: float | None
    recall: float | None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def extended_bcubed(
    weights: Mapping[Hashable, float],
    predicted: Sequence[Iterable[Hashable]],
    gold: Sequence[Iterable[Hashable]],
) -> BCubed:
    """Extended BCubed over the units of ``weights`` (others in the segments are ignored)."""
    member_s: dict[Hashable, list[int]] = {}
    member_g: dict[Hashable, list[int]] = {}
    for k, seg in enumerate(predicted):
        for u in set(seg):
            if u in weights:
                member_s.setdefault(u, []).append(k)
    for k, seg in enumerate(gold):
        for u in set(seg):
            if u in weights:
                member_g.setdefault(u, []).append(k)
    classes: dict[tuple[frozenset[int], frozenset[int]], float] = {}
    for u, w in weights.items():
        if w <= 0:
            continue
        key = (frozenset(member_s.get(u, ())), frozenset(member_g.get(u, ())))
        classes[key] = classes.get(key, 0.0) + w
    items = list(classes.items())
    return BCubed(_side(items, 0), _side(items, 1))


def _side(
    items: list[tuple[tuple[frozenset[int], frozenset[int]], float]], side: int
) -> float | None:
    """Precision (``side`` 0: averaged over predicted segments) or recall (1: gold)."""
    total = 0.0
    weight = 0.0
    for key, w in items:
        own = key[side]
        if not own:
            continue
        num = den = 0.0
        for key2, w2 in items:
            a = len(own & key2[side])
            if not a:
                continue
            b = len(key[1 - side] & key2[1 - side])
            num += w2 * min(a, b) / a
            den += w2
        total += w * num / den
        weight += w
    return total / weight if weight else None
