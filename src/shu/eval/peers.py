"""`shu bench-peers`: Shu's search beside a widely used peer stack — bm25s (BM25) + Chroma
(HNSW vector store), fused with the same RRF — in one process, on the same corpus, the same
vectors (Shu's MiniLM embeddings, read from the eval store) and the same queries."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from shu.errors import ShuError
from shu.eval.build import BuiltStore
from shu.eval.configs import PRESETS
from shu.eval.dataset import Dataset, EvalQuery
from shu.eval.metrics import evaluate
from shu.eval.runner import run_config
from shu.models.embed.base import Embedder
from shu.retrieve.fusion import reciprocal_rank_fusion

DEPTH = 100


@dataclass
class SystemResult:
    name: str
    metrics: dict[str, float]
    latencies_ms: list[float]
    build_seconds: float

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.latencies_ms, q))


def run_peers(
    dataset: Dataset, built: BuiltStore, embedder: Embedder, limit: int | None = None
) -> list[SystemResult]:
    try:
        import bm25s
        import chromadb
        import Stemmer
    except ImportError as exc:
        raise ShuError(
            "the peer benchmark needs: pip install 'shu[bench]' (bm25s, PyStemmer, chromadb)"
        ) from exc
    queries = dataset.queries[:limit] if limit else dataset.queries
    qrels = {q.id: dataset.qrels[q.id] for q in queries}
    ids, texts, vectors = _corpus(built)
    embedder.embed_query("warm up")
    results = [
        _shu(name, dataset, queries, built, embedder) for name in ("bm25", "dense", "hybrid", "hybrid-convex")
    ]

    stemmer = Stemmer.Stemmer("english")
    started = time.perf_counter()
    bm25 = bm25s.BM25()  # defaults: Lucene variant, k1 1.5, b 0.75
    bm25.index(
        bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False
    )
    bm25_build = time.perf_counter() - started

    def bm25_search(query: EvalQuery) -> list[str]:
        tokens = bm25s.tokenize([query.text], stopwords="en", stemmer=stemmer, show_progress=False)
        found, _ = bm25.retrieve(tokens, k=min(DEPTH, len(ids)), show_progress=False)
        return [ids[i] for i in found[0]]

    client = chromadb.EphemeralClient(settings=chromadb.Settings(anonymized_telemetry=False))
    started = time.perf_counter()
    collection = client.create_collection("peer", embedding_function=None, metadata={"hnsw:space": "cosine"})
    for start in range(0, len(ids), 4000):
        collection.add(ids=ids[start : start + 4000], embeddings=vectors[start : start + 4000])
    chroma_build = time.perf_counter() - started

    def chroma_search(query: EvalQuery) -> list[str]:
        found = collection.query(query_embeddings=[embedder.embed_query(query.text)], n_results=DEPTH)
        return list(found["ids"][0])

    def peer_hybrid(query: EvalQuery) -> list[str]:
        fused = reciprocal_rank_fusion([bm25_search(query), chroma_search(query)], k=60)
        return [item for item, _ in fused[:DEPTH]]

    for name, search, build in (
        ("peer: bm25s", bm25_search, bm25_build),
        ("peer: Chroma (HNSW)", chroma_search, chroma_build),
        ("peer: bm25s + Chroma, RRF k=60", peer_hybrid, bm25_build + chroma_build),
    ):
        results.append(_measure(name, search, queries, qrels, build))
    return results


def _shu(
    name: str, dataset: Dataset, queries: list[EvalQuery], built: BuiltStore, embedder: Embedder
) -> SystemResult:
    result = run_config(PRESETS[name], dataset, queries, built, embedder, lambda *_: None)
    return SystemResult(f"Shu: {name}", result.metrics, result.latencies_ms, built.seconds)


def _measure(
    name: str,
    search: Callable[[EvalQuery], list[str]],
    queries: list[EvalQuery],
    qrels: dict[str, dict[str, int]],
    build_seconds: float,
) -> SystemResult:
    rankings: dict[str, list[str]] = {}
    latencies: list[float] = []
    for query in queries:
        started = time.perf_counter()
        rankings[query.id] = search(query)
        latencies.append((time.perf_counter() - started) * 1000)
    metrics, _ = evaluate(qrels, rankings)
    return SystemResult(name, metrics, latencies, build_seconds)


def _corpus(built: BuiltStore) -> tuple[list[str], list[str], np.ndarray]:
    rows = built.store._db.execute(  # the exact texts and vectors Shu indexed
        "SELECT c.id, c.index_text, v.vector FROM chunks c "
        "JOIN chunk_vectors v ON v.chunk_rowid = c.rowid ORDER BY c.rowid"
    ).fetchall()
    vectors = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return [r[0] for r in rows], [r[1] for r in rows], vectors


def markdown(results: list[SystemResult], dataset: Dataset, queries: int) -> str:
    lines = [
        f"Dataset `{dataset.name}` ({dataset.split} split, {queries} queries, {dataset.chunk_count} rows); "
        "every system gets the same MiniLM vectors and the same texts. Build: Shu's time includes "
        "embedding the corpus; the peers reuse those vectors, so theirs does not.",
        "",
        "| system | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | p50 ms | p95 ms | index build s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.name} | {r.metrics['nDCG@10']:.4f} | {r.metrics['Recall@10']:.4f} | "
            f"{r.metrics['Recall@100']:.4f} | {r.metrics['MRR@10']:.4f} | {r.percentile(50):.1f} | "
            f"{r.percentile(95):.1f} | {r.build_seconds:.1f} |"
        )
    return "\n".join(lines) + "\n"
