"""The entity extractor's per-string caches (``features.string_cache``)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from scrapy_boilerplate.entities import derive, features, rerank


def test_a_string_is_read_once() -> None:
    calls: list[str] = []

    @features.string_cache
    def upper(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert [upper("ab"), upper("cd"), upper("ab")] == ["AB", "CD", "AB"]
    assert calls == ["ab", "cd"]
    assert upper.__name__ == "upper"
    upper.cache_clear()  # type: ignore[attr-defined]
    assert upper("ab") == "AB"
    assert calls == ["ab", "cd", "ab"]


def test_a_falsy_result_is_cached_too() -> None:
    calls: list[str] = []

    @features.string_cache
    def nothing(text: str) -> str:
        calls.append(text)
        return ""

    assert nothing("x") == nothing("x") == ""
    assert calls == ["x"]


def test_a_full_cache_is_emptied(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(features, "STRING_CACHE_SIZE", 3)

    @features.string_cache
    def same(text: str) -> str:
        return text

    for text in "abc":
        same(text)
    assert len(same.cache) == 3  # type: ignore[attr-defined]
    assert same("d") == "d"
    assert list(same.cache) == ["d"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("function", "cached", "text"),
    [
        (features.word_shape, features.word_shape, "Barack"),
        (features.word_stem, features._stem, "teaching"),
        (derive.head_of, derive.head_of, "Dr. Ann Lee, MD"),
        (derive.tail_of, derive.tail_of, "Ann Lee, Acme University"),
        (derive.clean_entity, derive._clean_labelled, "1. Students: Ann Lee"),
    ],
)
def test_a_cache_of_strings_is_left_alone_by_the_garbage_collector(
    function: Any, cached: Any, text: str
) -> None:
    """The point of the caches being plain dicts: the cyclic collector never walks a dict
    of strings, where it walks every entry of an ``lru_cache`` at each full collection."""
    function(text)
    assert text in cached.cache
    assert type(cached.cache) is dict
    assert not gc.is_tracked(cached.cache)


def test_the_caches_give_what_the_functions_give() -> None:
    for text in ("Dr. Ann Lee, MD", "• Bob Ray (PhD 2010)", "June 14, 2019 and July 2"):
        assert derive.head_of(text) == derive.head_of.__wrapped__(text)  # type: ignore[attr-defined]
        assert derive.clean_entity(text) == derive._clean(text, True)
        assert derive.clean_entity(text, label=False) == derive._clean(text, False)
        assert features._pos(text) == features._pos.__wrapped__(text)  # type: ignore[attr-defined]
        assert rerank._entity_stats(text) == rerank._entity_stats.__wrapped__(text)  # type: ignore[attr-defined]
