"""Process-wide server state created once in the lifespan: settings, worker threads, slots, caches."""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from celltrace.server import __version__
from celltrace.server.api.limits import InflightSlots
from celltrace.server.server_settings import ServerSettings
from celltrace.server.settings import STAGES, Settings

log = logging.getLogger("celltrace.server")
K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A thread-safe least-recently-used map holding at most `size` entries (0: caches nothing)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)


def available_engines(settings: Settings) -> list[str]:
    """Engines that can run: offline always, llm and longform when an LLM is configured."""
    return ["offline", "llm", "longform"] if settings.llm_configured else ["offline"]


def stage_models(settings: Settings) -> dict[str, str]:
    """Model name per LLM stage (lower-case stage), empty when no LLM is configured. No secrets."""
    if not settings.llm_configured:
        return {}
    return {stage.lower(): settings.model_for(stage) for stage in STAGES}


def warm_up(engine: Settings) -> str:
    """Load the embedding model (when dense retrieval is on) and probe the sandbox; the sandbox string."""
    from celltrace.server.sandbox import isolation_info

    if engine.dense_retrieval:
        from celltrace.server.embedding import get_embedder

        get_embedder().encode(["warm-up"])
    return isolation_info()


@dataclass
class Runtime:
    """Everything a request needs beyond its body; one per app, built at start-up."""

    server: ServerSettings
    engine: Settings
    sandbox: str = "not probed"
    version: str = __version__
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the server begins to shut down: in-flight questions answer 503 at once."""
    executor: ThreadPoolExecutor = field(init=False)
    llm_slots: InflightSlots = field(init=False)
    graph_cache: LRU = field(init=False)

    def __post_init__(self) -> None:
        # LLM questions hold at most `max_llm_inflight` threads (their slots), so they never starve
        # offline questions and graphs of the `engine_threads` others.
        threads = self.server.engine_threads + self.server.max_llm_inflight
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix="celltrace-engine")
        self.llm_slots = InflightSlots(self.server.max_llm_inflight)
        self.graph_cache = LRU(self.server.graph_cache_size)
        _ACTIVE.append(weakref.ref(self))

    def engines(self) -> list[str]:
        return available_engines(self.engine)

    def close(self) -> None:
        """Stop taking engine work; running engines finish in their threads (not awaited)."""
        self.executor.shutdown(wait=False, cancel_futures=True)


_ACTIVE: list[weakref.ref[Runtime]] = []


def begin_shutdown() -> None:
    """Tell every runtime of this process that the server is stopping (called on the event loop)."""
    for ref in _ACTIVE:
        runtime = ref()
        if runtime is not None:
            runtime.stopping.set()
