"""Hybrid retrieval: tiers, ordering, ties, numbers, embedding cache (real MiniLM, loaded once)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from celltrace.server.infra.embedding import EmbeddingCache, get_embedder, query_vectors
from celltrace.server.infra.retrieval import Retriever, canonical_number, tokens
from celltrace.shared.graph import CellGraph
from celltrace.shared.table import Table

os.environ.setdefault("HF_HUB_OFFLINE", "1")

GRID = [
    ["", "year ended december 31", ""],
    ["", "2017", "2016"],
    ["operating revenue", "", ""],
    ["  passenger", "$31,000", "29,000"],
    ["  cargo", "1,234", "(7.8)"],
    ["total operating revenue", "32,234", "30,000"],
    ["national aeronautics and space administration", "10", "12"],
    ["total", "1", "2"],
    ["total", "3", "4"],
]


@pytest.fixture(scope="module")
def graph() -> CellGraph:
    return CellGraph(Table(text=GRID, merges=[(0, 1, 0, 2)]))


@pytest.fixture(scope="module")
def retriever(graph: CellGraph) -> Retriever:
    return Retriever(graph, get_embedder())


def test_exact_match_ranks_first(retriever: Retriever) -> None:
    hits = retriever.search("Total Operating  Revenue", k=3)
    assert hits[0].node.text == "total operating revenue"
    assert hits[0].how == "exact" and hits[0].score == 1.0
    assert all(h.score < 1.0 for h in hits[1:])


def test_numbers_match_lexically(retriever: Retriever) -> None:
    hit = retriever.search("1234", k=1)[0]
    assert (hit.node.text, hit.how) == ("1,234", "number")
    assert retriever.search("-7.8", k=1)[0].node.text == "(7.8)"
    assert retriever.search("31000", k=1)[0].node.text == "$31,000"
    assert [h.node.text for h in retriever.search("2017", k=1)] == ["2017"]


def test_stemmed_keyword(retriever: Retriever) -> None:
    hits = retriever.search("revenues from cargo", k=2)
    assert hits[0].node.text.strip() == "cargo" or "revenue" in hits[0].node.text
    assert all(h.how == "keyword" for h in hits)


def test_ties_keep_all_candidates_in_id_order(retriever: Retriever, graph: CellGraph) -> None:
    hits = retriever.search("total", k=1)
    totals = [n.id for n in graph.nodes if n.text == "total"]
    assert [h.node.id for h in hits] == totals


def test_embedding_tier_and_threshold(retriever: Retriever) -> None:
    hits = retriever.search("nasa", k=3)
    assert hits and hits[0].node.text.startswith("national aeronautics")
    assert hits[0].how == "embedding" and 0 < hits[0].score <= 0.5
    assert retriever.search("zebra migration patterns", k=3) == []


def test_empty_cells_never_returned_and_k_clamped(retriever: Retriever, graph: CellGraph) -> None:
    dense = retriever.top_dense("revenue", k=10_000)
    assert dense and all(not h.node.empty for h in dense)
    assert len(dense) == len({h.node.id for h in dense})
    assert all(retriever.number[h.node.id] is None for h in dense)
    assert retriever.search("", k=5) == []
    assert len(retriever.search("revenue", k=0)) >= 1
    scores = [h.score for h in dense]
    assert scores == sorted(scores, reverse=True)


def test_search_after_cache_embeds_only_the_query(retriever: Retriever, monkeypatch) -> None:
    """Once a table's vectors are cached, a search encodes just its query (what keeps it fast)."""
    retriever.search("cargo revenue")
    embedder = retriever.embedder
    batches: list[list[str]] = []
    original = embedder.encode

    def counting(texts: list[str]):
        batches.append(list(texts))
        return original(texts)

    monkeypatch.setattr(embedder, "encode", counting)
    for _ in range(3):
        retriever.search("passenger revenue in 2016")
    assert batches and all(len(batch) == 1 for batch in batches)


def test_cache_embeds_each_distinct_text_once(tmp_path) -> None:
    calls: list[list[str]] = []
    emb = get_embedder()

    class Counting:
        model_id = emb.model_id

        def encode(self, texts: list[str]) -> np.ndarray:
            calls.append(list(texts))
            return emb.encode(texts)

    cache = EmbeddingCache(max_tables=1, cache_dir=tmp_path)
    idx, mat = cache.vectors(Counting(), "h1", ["a", "b", "a"])  # type: ignore[arg-type]
    assert calls == [["a", "b"]] and mat.shape[0] == 2 and set(idx) == {"a", "b"}
    cache.vectors(Counting(), "h1", ["b"])  # type: ignore[arg-type]
    assert len(calls) == 1
    cache.vectors(Counting(), "h2", ["c"])  # type: ignore[arg-type]  # evicts h1 from memory
    fresh = EmbeddingCache(cache_dir=tmp_path)
    fresh.vectors(Counting(), "h1", ["a", "b"])  # type: ignore[arg-type]  # served from disk
    assert calls == [["a", "b"], ["c"]]
    np.testing.assert_allclose(np.linalg.norm(mat, axis=1), 1.0, atol=1e-5)


def test_tokens_and_numbers() -> None:
    assert canonical_number("1,234") == "1234" and canonical_number("12.50") == "12.5"
    assert canonical_number("1,2") is None
    assert tokens("The Revenues of 2,017 flights") == ["revenu", "2017", "flight"]


def test_node_vectors_embed_only_the_requested_labels() -> None:
    calls: list[list[str]] = []
    emb = get_embedder()

    class Counting:
        model_id = emb.model_id

        def encode(self, texts: list[str]) -> np.ndarray:
            calls.append(list(texts))
            return emb.encode(texts)

    graph = CellGraph(Table(text=[["fleet", "seats"], ["airbus a319 node test", "128"],
                                  ["boeing 737", "160"]]))
    retriever = Retriever(graph, embedder=Counting())  # type: ignore[arg-type]
    label = graph.node_at(1, 0)
    vecs = retriever.node_vectors([label.id])
    assert calls == [["airbus a319 node test"]] and vecs is not None and vecs.shape[0] == 1
    assert retriever.node_vectors([graph.node_at(1, 1).id]) is None  # numbers are never embedded


def test_query_vectors_encode_each_recent_text_once() -> None:
    calls: list[list[str]] = []
    emb = get_embedder()

    class Counting:
        model_id = "counting-" + emb.model_id  # its own cache keys

        def encode(self, texts: list[str]) -> np.ndarray:
            calls.append(list(texts))
            return emb.encode(texts)

    first = query_vectors(Counting(), ["cargo revenue", "fleet", "cargo revenue"])  # type: ignore[arg-type]
    again = query_vectors(Counting(), ["fleet", "seats"])  # type: ignore[arg-type]
    assert calls == [["cargo revenue", "fleet"], ["seats"]]
    assert first.shape == (3, again.shape[1]) and np.allclose(first[1], again[0])
    np.testing.assert_allclose(first[0], emb.encode(["cargo revenue"])[0], atol=1e-5)


def test_the_numpy_model_gives_the_sentence_transformers_vectors() -> None:
    # leading components of sentence-transformers' all-MiniLM-L6-v2 vectors (normalised); the second
    # text is longer than the model's 256 word pieces, so truncation is checked too
    reference = {
        "Operating revenue, cargo": [-0.01029, 0.01569, -0.004, -0.03172],
        "x " * 300: [-0.00206, -0.03747, -0.03149, -0.04256],
    }
    vectors = get_embedder().encode(list(reference))
    for vector, expected in zip(vectors, reference.values(), strict=True):
        assert vector.dtype == np.float32 and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
        assert np.allclose(vector[:4], expected, atol=2e-5)


def test_a_text_gets_the_same_vector_alone_and_in_any_batch() -> None:
    texts = ["total operating revenue", "x " * 300, "2017", "", "national aeronautics"] * 20
    together = get_embedder().encode(texts)
    alone = get_embedder().encode([texts[0]])[0]
    assert np.abs(together[0] - alone).max() < 1e-5
    assert np.abs(together[0] - together[5]).max() < 1e-6  # the same text in another batch
