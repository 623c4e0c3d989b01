"""Per-table work shared by every question on the same table: graph, retriever, inferred headers.

Built once per table content (plus origin, which decides sheet addresses) and kept in a small LRU,
so a batch, an eval run or the HTTP server answering many questions about one table pays for the
graph, the header inference and the retriever's indexes once. All three are read-only after
construction (the retriever guards its lazy dense index with a lock), so threads may share them.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

from celltrace.server.infra.retrieval import Retriever
from celltrace.shared.graph import CellGraph, graph_of
from celltrace.shared.headers import HeaderModel, infer_headers
from celltrace.shared.lru import WeightedLru
from celltrace.shared.table import Table

CACHE_SIZE = 64
"""Tables whose graph and retriever stay cached (LRU)."""


@dataclass(frozen=True)
class TableContext:
    graph: CellGraph
    retriever: Retriever


_lock = threading.Lock()
_contexts: WeightedLru[TableContext] = WeightedLru(CACHE_SIZE)
_headers: weakref.WeakKeyDictionary[CellGraph, HeaderModel] = weakref.WeakKeyDictionary()


def table_context(table: Table, dense: bool) -> TableContext:
    """The cached graph and retriever of `table` (built on first use)."""

    def build() -> TableContext:
        graph = graph_of(table)
        return TableContext(graph, Retriever(graph, dense=dense))

    return _contexts.get_or_build((table.content_hash(), table.origin, dense), build)


def headers_of(graph: CellGraph) -> HeaderModel:
    """The inferred headers of `graph`, computed once per graph object."""
    with _lock:
        model = _headers.get(graph)
    if model is None:
        model = infer_headers(graph)
        with _lock:
            model = _headers.setdefault(graph, model)
    return model
