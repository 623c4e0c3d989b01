"""A thread-safe LRU cache bounded by the total weight of its values (one home for celltrace's
per-table caches: graphs, engine contexts)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


def _one(_: object) -> int:
    return 1


class WeightedLru(Generic[V]):
    """At most `limit` total weight (`weigh(value)`, 1 each by default), least recently used
    dropped first; a value heavier than `limit` alone is returned but not kept."""

    def __init__(self, limit: int, weigh: Callable[[V], int] = _one) -> None:
        self.limit, self.weigh = limit, weigh
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._total = 0

    def get_or_build(self, key: Hashable, build: Callable[[], V]) -> V:
        """The cached value of `key`, else `build()` (outside the lock; a concurrent build of the
        same key keeps the first value stored)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = build()
        weight = self.weigh(value)
        if weight > self.limit:
            return value
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            self._items[key] = value
            self._total += weight
            while self._total > self.limit:
                _, dropped = self._items.popitem(last=False)
                self._total -= self.weigh(dropped)
        return value
