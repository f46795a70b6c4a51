"""`shu bench-peers`: Shu's search beside a widely used peer stack — bm25s (BM25) + Chroma
(HNSW vector store), fused with the same RRF — in one process, on the same corpus, the same
vectors (Shu's MiniLM embeddings, read from the eval store) and the same queries. Every query is
embedded once before anything is timed and every system is handed that vector, so the latencies
are search time alone (the embedding time is reported beside them)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from shu.errors import ShuError
from shu.models.embed.base import Embedder
from shu.retrieve.fusion import reciprocal_rank_fusion
from shu.retrieve.hybrid import HybridSearcher, fuse
from shu_eval.build import BuiltStore
from shu_eval.configs import PRESETS
from shu_eval.dataset import Dataset, EvalQuery
from shu_eval.metrics import evaluate
from shu_eval.runner import run_config

if TYPE_CHECKING:
    from shu.store.sqlite import SQLiteStore

DEPTH = 100
WARM_UP = 20
"""Queries each system answers untimed before its timed run (caches, first-call set-up)."""


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
) -> tuple[list[SystemResult], float]:
    """Every system's figures, and the milliseconds one query embedding takes (left out of them)."""
    try:
        import bm25s
        import chromadb
        import Stemmer
        import tantivy  # noqa: F401
    except ImportError as exc:
        raise ShuError(
            "the peer benchmark needs: pip install 'shu[bench]' (bm25s, chromadb, tantivy)"
        ) from exc
    queries = dataset.queries[:limit] if limit else dataset.queries
    qrels = {q.id: dataset.qrels[q.id] for q in queries}
    ids, texts, vectors = _corpus(built)
    embedder = PreEmbedded(embedder, [q.text for q in queries])
    results = [
        _shu(name, dataset, queries, built, embedder) for name in ("bm25", "dense", "hybrid", "hybrid-convex")
    ]
    results.append(_shu_ranked(queries, qrels, built, embedder))

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

    from chromadb.config import Settings as ChromaSettings

    client = chromadb.EphemeralClient(settings=ChromaSettings(anonymized_telemetry=False))
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

    tantivy_search, tantivy_build = _tantivy(ids, texts)
    for name, search, build in (
        ("peer: tantivy (BM25)", tantivy_search, tantivy_build),
        ("peer: bm25s", bm25_search, bm25_build),
        ("peer: Chroma (HNSW)", chroma_search, chroma_build),
        ("peer: bm25s + Chroma, RRF k=60", peer_hybrid, bm25_build + chroma_build),
    ):
        results.append(_measure(name, search, queries, qrels, build))
    return results, embedder.ms_per_query


def _tantivy(ids: list[str], texts: list[str]) -> tuple[Callable[[EvalQuery], list[str]], float]:
    """tantivy (Rust, Lucene-style) in memory: its `en_stem` tokenizer, its BM25; each query's
    words ORed (no query syntax reaches its parser)."""
    import tantivy

    started = time.perf_counter()
    schema = tantivy.SchemaBuilder()
    schema.add_text_field("id", stored=True, tokenizer_name="raw")
    schema.add_text_field("body", stored=False, tokenizer_name="en_stem")
    index = tantivy.Index(schema.build())
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for chunk_id, text in zip(ids, texts, strict=True):
        writer.add_document(tantivy.Document(id=chunk_id, body=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    build = time.perf_counter() - started

    def search(query: EvalQuery) -> list[str]:
        words = " OR ".join(re.findall(r"[^\W_]+", query.text.lower()))
        if not words:
            return []
        found = searcher.search(index.parse_query(words, ["body"]), DEPTH)
        return [searcher.doc(address)["id"][0] for _, address in found.hits]

    return search, build


class PreEmbedded:
    """An embedder whose query vectors were computed up front (how long that took is kept):
    search latencies then leave the shared query embedding out."""

    def __init__(self, embedder: Embedder, queries: list[str]) -> None:
        self.inner = embedder
        self.name, self.dim = embedder.name, embedder.dim
        embedder.embed_query("warm up")
        started = time.perf_counter()
        self.vectors = {text: embedder.embed_query(text) for text in dict.fromkeys(queries)}
        self.ms_per_query = (time.perf_counter() - started) * 1000 / max(len(self.vectors), 1)

    def embed_query(self, text: str) -> np.ndarray:
        found = self.vectors.get(text)
        return found if found is not None else self.inner.embed_query(text)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)


def _shu(
    name: str, dataset: Dataset, queries: list[EvalQuery], built: BuiltStore, embedder: Embedder
) -> SystemResult:
    result = run_config(PRESETS[name], dataset, queries, built, embedder, lambda *_: None)
    return SystemResult(f"Shu: {name}", result.metrics, result.latencies_ms, built.seconds)


def _shu_ranked(
    queries: list[EvalQuery], qrels: dict[str, dict[str, int]], built: BuiltStore, embedder: Embedder
) -> SystemResult:
    """Shu's convex hybrid up to what the peers return: the ranked, capped chunk ids (no texts
    loaded into hits)."""
    params = PRESETS["hybrid-convex"].retrieval
    searcher = HybridSearcher(built.store, embedder)
    personas = {p.slug: p for p in built.store.list_personas()}

    def search(query: EvalQuery) -> list[str]:
        persona = personas[query.persona]
        found = searcher.surfaces(query.text, persona.slug, params, embedder.embed_query(query.text))
        kept, _, _, _ = searcher.ranked(fuse(found, params), persona, params, params.max_chunks)
        return [chunk_id for chunk_id, _ in kept]

    return _measure(
        "Shu: hybrid-convex, ranked ids (what the peers return)", search, queries, qrels, built.seconds
    )


def _measure(
    name: str,
    search: Callable[[EvalQuery], list[str]],
    queries: list[EvalQuery],
    qrels: dict[str, dict[str, int]],
    build_seconds: float,
) -> SystemResult:
    rankings: dict[str, list[str]] = {}
    latencies: list[float] = []
    for query in queries[:WARM_UP]:
        search(query)
    for query in queries:
        started = time.perf_counter()
        rankings[query.id] = search(query)
        latencies.append((time.perf_counter() - started) * 1000)
    metrics, _ = evaluate(qrels, rankings)
    return SystemResult(name, metrics, latencies, build_seconds)


def _corpus(built: BuiltStore) -> tuple[list[str], list[str], np.ndarray]:
    store = cast("SQLiteStore", built.store)  # open_eval_store's: the cached SQLite file
    rows = store._db.execute(  # the exact texts and vectors Shu indexed
        "SELECT c.id, c.index_text, v.vector FROM chunks c "
        "JOIN chunk_vectors v ON v.chunk_rowid = c.rowid ORDER BY c.rowid"
    ).fetchall()
    vectors = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return [r[0] for r in rows], [r[1] for r in rows], vectors


def conditions() -> str:
    """What a second run needs to be compared with this one: the machine, the thread pools, the
    load on it, the warm-up."""
    import os

    from threadpoolctl import threadpool_info

    from shu_eval.bench import machine

    pools = ", ".join(
        f"{pool.get('internal_api')} {pool.get('num_threads')} threads" for pool in threadpool_info()
    )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"Machine: {machine()}; load average (1, 5, 15 min) {load}; thread pools: {pools or 'none'} "
        f"(Shu's vector search limits BLAS to 1 thread per search); each system answers "
        f"{WARM_UP} queries untimed first."
    )


def markdown(results: list[SystemResult], dataset: Dataset, queries: int, embed_ms: float = 0.0) -> str:
    lines = [
        conditions(),
        "",
        f"Dataset `{dataset.name}` ({dataset.split} split, {queries} queries, {dataset.chunk_count} rows); "
        "every system gets the same MiniLM vectors and the same texts. Latency is search alone: each "
        f"query was embedded once beforehand ({embed_ms:.1f} ms a query, the same for every system) "
        "and handed to all. Build: Shu's time includes embedding the corpus; the peers reuse those "
        "vectors, so theirs does not.",
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
