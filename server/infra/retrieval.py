"""Hybrid node retrieval (GraphOTTER VisitNode, methods.md §1.3 row 5 and Part 4 lesson 9).

One ranked pipeline over the non-empty nodes of a `CellGraph`, each tier scored in its own band so
that a better kind of match always outranks a weaker one:

| tier        | score band   | rule                                                                |
|-------------|--------------|---------------------------------------------------------------------|
| `exact`     | 1.0          | normalised text equal (NFKC, case-folded, whitespace collapsed)     |
| `number`    | 0.95         | the query is a number equal to the cell's number (`1,234` = `1234`) |
| `keyword`   | 0.55 – 0.94  | stemmed (Snowball) token overlap, F1 of query and cell tokens       |
| `embedding` | 0.0 – 0.5    | all-MiniLM-L6-v2 cosine ≥ `EMBED_THRESHOLD`, scaled by 0.5          |

Numbers are never embedded; they match lexically (tokens are canonicalised, so `2,017` ≠ `2017`
but `1,234` = `1234` and `12.0` = `12`). Results are ordered by score desc, node id asc; nodes tied
with the k-th result are all returned (up to `MAX_TIES` extra) so the caller can choose.
"""

from __future__ import annotations

import copy
import math
import re
import threading
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

import numpy as np

from celltrace.server.infra.embedding import Embedder, get_cache, get_embedder, query_vectors
from celltrace.shared.bulk import gc_paused
from celltrace.shared.graph import CellGraph, Node, normalise_text
from celltrace.shared.numbers import parse_number_info
from celltrace.shared.stemming import stem

EMBED_THRESHOLD = 0.55
"""Cosine cut-off for embedding hits with all-MiniLM-L6-v2 (paper's 0.9 was for gte-base).

Set by inspecting dev-table queries (paraphrases and abbreviations such as `nasa` score about
0.6-0.7 against their label, unrelated labels mostly below 0.5); not yet tuned systematically on
annotated header links: that sweep is still to do.
"""
MAX_TIES = 24
"""How many extra nodes tied with the k-th score `search` may return."""

HowMatched = Literal["exact", "keyword", "number", "embedding"]

_STOPWORD_TEXT = """
    a an the of in on at to for from by with and or as is are was were be been being do does did
    what which who whom whose how many much when where why that this these those it its there their
    than then into over under per about all any each same such only so very can will
    would should could may might has have had not no nor"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""General English function words ignored by keyword matching (never table- or dataset-specific)."""

_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[^\W\d_]+", re.UNICODE)
_PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved node, its score (bands above) and the tier that produced it."""

    node: Node
    score: float
    how: HowMatched


def canonical_number(token: str) -> str | None:
    """`1,234` → `1234`, `12.50` → `12.5`, `3.0` → `3`; None when `token` is not a plain number.

    A comma is a thousands separator only in groups of three digits (`1,234,567`); otherwise the
    token is not a number (so list-like `1,2` never collapses to `12`).
    """
    t = token.strip()
    if t.isdecimal():  # the common case: plain digits
        return t.lstrip("0") or "0"
    if not t or not t[0].isdigit():
        return None
    if "," in t:
        head, _, tail = t.partition(".")
        groups = head.split(",")
        if not (1 <= len(groups[0]) <= 3 and all(len(g) == 3 and g.isdigit() for g in groups[1:])):
            return None
        t = "".join(groups) + ("." + tail if tail else "")
    if not _PLAIN_NUMBER.fullmatch(t):
        return None
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return t.lstrip("0") or "0"


def tokens(text: str, drop_stopwords: bool = True) -> list[str]:
    """Matching tokens: lower-cased words stemmed with Snowball, numbers canonicalised."""
    return _tokens_of(normalise_text(text), drop_stopwords)


def _tokens_of(norm: str, drop_stopwords: bool = True) -> list[str]:
    """`tokens` of text already passed through `normalise_text`."""
    out: list[str] = []
    for raw in _TOKEN.findall(norm):
        if raw[0].isdigit():
            num = canonical_number(raw)
            if num is not None:
                out.append(num)
            else:
                out.extend(canonical_number(p) or p for p in raw.split(",") if p)
        elif not (drop_stopwords and raw in STOPWORDS):
            out.append(stem(raw))
    return out


class Retriever:
    """Hybrid retrieval over one graph's non-empty nodes.

    `embedder=None` uses the process-wide `get_embedder()`; `dense=False` turns the embedding tier
    off (lexical only, no model load). Cell vectors are computed lazily on the first dense query.
    """

    def __init__(self, graph: CellGraph, embedder: Embedder | None = None, dense: bool = True) -> None:
        self.graph = graph
        self.dense = dense
        self._embedder = embedder
        self.nodes = [n for n in graph.nodes if not n.empty]
        self.norm: dict[int, str] = {}
        self.toks: dict[int, list[str]] = {}
        self.number: dict[int, str | None] = {}
        self._by_token: dict[str, list[int]] = {}
        self._by_norm: dict[str, list[int]] = {}
        norms, toks_of, numbers = self.norm, self.toks, self.number
        by_token, by_norm = self._by_token, self._by_norm
        seen: dict[str, tuple[str, list[str], str | None, set[str]]] = {}
        with gc_paused():  # one entry per cell, none freed (see `celltrace.shared.bulk`)
            for n in self.nodes:  # one normalisation per distinct cell text feeds every index
                known = seen.get(n.text)
                if known is None:
                    digits = _integer_digits(n.text)
                    if digits is not None:  # its own normal form, one number token
                        token = digits.lstrip("0") or "0"
                        known = seen[n.text] = (n.text, [token], str(int(n.text)), {token})
                    else:
                        norm = normalise_text(n.text)
                        toks = _tokens_of(norm)
                        known = seen[n.text] = (norm, toks, _cell_number(n.text), set(toks))
                nid = n.id
                norm, toks_of[nid], numbers[nid], distinct = known
                norms[nid] = norm
                for t in distinct:
                    ids = by_token.get(t)
                    if ids is None:
                        by_token[t] = [nid]
                    else:
                        ids.append(nid)
                ids = by_norm.get(norm)
                if ids is None:
                    by_norm[norm] = [nid]
                else:
                    ids.append(nid)
        self._dense_ids: list[int] | None = None
        self._dense_matrix: np.ndarray | None = None
        self._dense_lock = threading.Lock()

    # ---- public API ---------------------------------------------------------------------------
    def search(self, query: str, k: int = 8) -> list[Hit]:
        """Ranked hybrid hits for `query` (exact → number → keyword → embedding), ties kept."""
        best: dict[int, Hit] = {}

        def offer(nid: int, score: float, how: HowMatched) -> None:
            old = best.get(nid)
            if old is None or score > old.score:
                best[nid] = Hit(self.graph.nodes[nid], score, how)

        q_norm = normalise_text(query)
        if not q_norm:
            return []
        for nid in self._by_norm.get(q_norm, []):
            offer(nid, 1.0, "exact")
        q_num = _cell_number(query)
        if q_num is not None:
            for nid, num in self.number.items():
                if num == q_num:
                    offer(nid, 0.95, "number")
        for nid, f1 in self.keyword_scores(query).items():
            offer(nid, 0.55 + 0.39 * f1, "keyword")
        if self.dense and q_num is None:
            for nid, cos in self._dense_scores(query).items():
                if cos >= EMBED_THRESHOLD:
                    offer(nid, round(0.5 * cos, 6), "embedding")
        return _top(list(best.values()), k, len(self.nodes))

    def top_dense(self, query: str, k: int = 8) -> list[Hit]:
        """The k nodes most similar to `query` by embedding alone (no threshold), for trace init."""
        if not normalise_text(query):
            return []
        hits = [
            Hit(self.graph.nodes[nid], round(cos, 6), "embedding")
            for nid, cos in self._dense_scores(query).items()
        ]
        return _top(hits, k, len(hits), ties=False)

    def keyword_scores(self, query: str) -> dict[int, float]:
        """Token-overlap F1 in (0, 1] between `query` and each node sharing a token with it."""
        q = tokens(query)
        if not q:
            return {}
        qset = set(q)
        cands: set[int] = set()
        for t in qset:
            cands.update(self._by_token.get(t, ()))
        out: dict[int, float] = {}
        for nid in cands:
            cset = set(self.toks[nid])
            common = len(qset & cset)
            if common:
                p, r = common / len(cset), common / len(qset)
                out[nid] = 2 * p * r / (p + r)
        return out

    def dense_scores(self, query: str) -> dict[int, float]:
        """Cosine of `query` with every non-numeric node (empty if dense retrieval is off)."""
        return self._dense_scores(query) if self.dense else {}

    def node_vectors(self, node_ids: list[int]) -> np.ndarray | None:
        """Embeddings of the given non-numeric nodes (None if dense is off or one is numeric).

        Only these texts are embedded (through the per-table cache), not the whole table.
        """
        if not self.dense or any(self.number.get(nid, "") is not None for nid in node_ids):
            return None
        texts = [self.norm[nid] for nid in node_ids]
        index, matrix = get_cache().vectors(self.embedder, self.graph.table.content_hash(), texts)
        return matrix[[index[t] for t in texts]]

    def lexical(self) -> Retriever:
        """This retriever with the embedding tier off: the same lexical indexes, never a model load."""
        if not self.dense:
            return self
        view = copy.copy(self)
        view.dense = False
        return view

    # ---- dense --------------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder()
        return self._embedder

    def _ensure_dense(self) -> tuple[list[int], np.ndarray]:
        if self._dense_ids is None or self._dense_matrix is None:
            with self._dense_lock:
                if self._dense_ids is None:
                    ids = [n.id for n in self.nodes if self.number[n.id] is None]
                    texts = [self.norm[i] for i in ids]
                    index, matrix = get_cache().vectors(self.embedder, self.graph.table.content_hash(), texts)
                    rows = np.array([index[t] for t in texts], dtype=np.int64)
                    self._dense_matrix = matrix[rows] if len(rows) else matrix[:0]
                    self._dense_ids = ids
        return self._dense_ids, self._dense_matrix  # type: ignore[return-value]

    def _dense_scores(self, query: str) -> dict[int, float]:
        ids, matrix = self._ensure_dense()
        if not ids:
            return {}
        qv = query_vectors(self.embedder, [normalise_text(query)])[0]
        sims = matrix @ qv
        return {nid: float(s) for nid, s in zip(ids, sims, strict=True)}


def _cell_number(text: str) -> str | None:
    """Canonical magnitude of a displayed number (`is_number_text`), signed: `(7.8)` → `-7.8`,
    `$1,234` → `1234`, `1.2E+05` → `120000`, `24.5%` → `24.5`; None for any other text."""
    if _integer_digits(text) is not None:
        return str(int(text))
    info = parse_number_info(text)
    if info is None or not math.isfinite(info.value):
        return None
    return "0" if info.value == 0 else format(Decimal(repr(info.value)).normalize(), "f")


def _integer_digits(text: str) -> str | None:
    """The digits of a plain integer cell (ASCII digits after an optional minus, at most 15 of them,
    so exact as a float), else None: its normal form, tokens and number need no parsing."""
    digits = text[1:] if text[:1] == "-" else text
    return digits if digits.isascii() and digits.isdigit() and len(digits) <= 15 else None


def _top(hits: list[Hit], k: int, n_total: int, ties: bool = True) -> list[Hit]:
    hits.sort(key=lambda h: (-h.score, h.node.id))
    k = max(1, min(int(k), max(n_total, 1)))
    if len(hits) <= k:
        return hits
    cut = k
    if ties:
        last = hits[k - 1].score
        while cut < len(hits) and cut < k + MAX_TIES and hits[cut].score == last:
            cut += 1
    return hits[:cut]
