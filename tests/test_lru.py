"""The per-table caches' LRU: bounded by total weight, least recently used dropped first."""

from __future__ import annotations

from collections.abc import Callable

from celltrace.shared.lru import WeightedLru


def test_eviction_by_weight_keeps_the_recently_used() -> None:
    cache: WeightedLru[str] = WeightedLru(10, len)
    built: list[str] = []

    def build(value: str) -> Callable[[], str]:
        def make() -> str:
            built.append(value)
            return value

        return make

    assert cache.get_or_build("a", build("aaaa")) == "aaaa"
    assert cache.get_or_build("b", build("bbbb")) == "bbbb"
    assert cache.get_or_build("a", build("xxxx")) == "aaaa"  # a hit; `a` is now the newest
    cache.get_or_build("c", build("cccc"))  # 12 > 10: the least recently used (`b`) goes
    assert cache.get_or_build("a", build("yyyy")) == "aaaa"
    assert cache.get_or_build("b", build("BBBB")) == "BBBB"
    assert built == ["aaaa", "bbbb", "cccc", "BBBB"]


def test_a_value_heavier_than_the_limit_is_returned_but_not_kept() -> None:
    cache: WeightedLru[str] = WeightedLru(3, len)
    assert cache.get_or_build("k", lambda: "long") == "long"
    assert cache.get_or_build("k", lambda: "new!") == "new!"
