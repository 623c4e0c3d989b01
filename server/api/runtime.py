"""Process-wide server state created once in the lifespan: settings, engine workers, slots, caches."""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from celltrace.server import __version__
from celltrace.server.api.limits import InflightSlots
from celltrace.server.api.workers import (
    Engines,
    ProcessEngines,
    ThreadEngines,
    default_processes,
    warm_up_engine,
)
from celltrace.server.infra.server_settings import ServerSettings
from celltrace.server.infra.settings import STAGES, Settings

log = logging.getLogger("celltrace.server")
K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A thread-safe least-recently-used map holding at most `size` entries (0: caches nothing)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value cached under `key` (now the most recent), else None."""
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)

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


@dataclass
class Runtime:
    """Everything a request needs beyond its body; one per app, built at start-up."""

    server: ServerSettings
    engine: Settings
    sandbox: str = "not probed"
    version: str = __version__
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the server begins to shut down: in-flight questions answer 503 at once."""
    workers: Engines = field(init=False)
    llm_slots: InflightSlots = field(init=False)
    cpu_slots: InflightSlots = field(init=False)
    graph_cache: LRU = field(init=False)

    def __post_init__(self) -> None:
        server = self.server
        self.llm_slots = InflightSlots(server.max_llm_inflight, server.max_queued)
        self.cpu_slots = InflightSlots(server.engine_threads, server.max_queued)
        self.graph_cache = LRU(server.graph_cache_size)
        _ACTIVE.append(weakref.ref(self))

    def start(self) -> None:
        """Start the engine workers (blocking: run it off the event loop); with `preload`, each
        loads the embedding model, and the sandbox is probed."""
        server = self.server
        processes = default_processes() if server.engine_processes is None else server.engine_processes
        # every slot may land in one worker: each gets a thread per slot of either kind
        threads = server.engine_threads + server.max_llm_inflight
        warm = self.engine if server.preload else None
        if processes == 0:
            self.workers = ThreadEngines(threads)
            if warm is not None:
                warm_up_engine(warm)
        else:
            self.workers = ProcessEngines(processes, threads, warm)
        if server.preload:
            from celltrace.server.infra.sandbox import isolation_info

            self.sandbox = isolation_info()

    def engines(self) -> list[str]:
        return available_engines(self.engine)

    def close(self) -> None:
        """Stop taking engine work; worker processes exit, threads finish alone (not awaited)."""
        self.workers.close()


_ACTIVE: list[weakref.ref[Runtime]] = []


def begin_shutdown() -> None:
    """Tell every runtime of this process that the server is stopping (called on the event loop)."""
    for ref in _ACTIVE:
        runtime = ref()
        if runtime is not None:
            runtime.stopping.set()
