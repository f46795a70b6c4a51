"""`shu bench-stores`: SQLite and PostgreSQL side by side on the same synthetic knowledge base —
bulk load rate, vector and keyword index build, hybrid query latency, keyword latency for plain
queries and for queries of the corpus's most frequent words (the in-memory BM25 index, and each
store's own SQL search beside it: FTS5, PostgreSQL postings), and recall@10 of each store's
vector search against exact search.

Vectors are clustered (unit vectors scattered around 1,000 random centres), which is closer to
real embeddings than uniform noise: uniform random 384-d vectors have no neighbourhoods and are
the worst case for any approximate index. Query vectors come from the same clusters."""

from __future__ import annotations

import math
import multiprocessing
import shutil
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import numpy as np

from shu.retrieve.hybrid import HybridSearcher, fuse
from shu.store.base import Store
from shu.store.graph import persona_graph
from shu.store.sqlite import SQLiteStore
from shu.text import content_words
from shu.types import Chunk, Document, DocumentFilter, Persona, PersonaConfig
from shu_eval.bench import machine, peak_rss_mib, percentile
from shu_eval.synthetic import TextGenerator, synthetic_document

PER_DOC = 50
SMALL_EVERY = 50
FILTER_TYPES = 50
FILTERS = {
    "one type (2 %)": DocumentFilter(types=("type-7",)),
    "first half-year (50 %)": DocumentFilter(since=date(2025, 1, 1), until=date(2025, 7, 2)),
}
DIM = 384
EMBEDDER = "bench-clustered"


@dataclass
class StoreResult:
    name: str
    chunks: int
    load_seconds: float
    index_seconds: float
    recall_at_10: float
    small_recall_at_10: float
    hybrid_ms: list[float] = field(default_factory=list)
    keyword_ms: list[float] = field(default_factory=list)
    frequent_ms: list[float] = field(default_factory=list)
    dense_ms: list[float] = field(default_factory=list)
    keyword_index_seconds: float | None = None
    filtered: dict[str, dict[str, float]] = field(default_factory=dict)
    graph: dict[str, float] = field(default_factory=dict)
    """seconds to build the persona's graph at 300 and 2,000 documents, and its JSON in KiB"""
    """filter name → kept documents, hybrid p50 / p95 ms (the filter's documents found from the
    document index, then every surface searched among them), the share of queries whose hits
    filled the limit, and dense recall@10 among the kept documents vs exact search among them."""
    fresh: dict[str, float] = field(default_factory=dict)
    """A new process opening the loaded store: seconds to its first hybrid answer (both indexes
    loaded), hybrid p50 / p95 ms after that, peak RSS in MiB."""

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.load_seconds if self.load_seconds else 0.0


@dataclass
class Corpus:
    documents: list[tuple[Document, list[Chunk]]]
    vectors: np.ndarray
    query_texts: list[str]
    query_vectors: np.ndarray
    frequent_texts: list[str] = field(default_factory=list)
    """Three of the corpus's 30 most frequent content words each: the longest posting lists."""


def clustered_unit_vectors(
    count: int, rng: np.random.Generator, centres: np.ndarray, spread: float
) -> np.ndarray:
    picks = rng.integers(0, len(centres), count)
    vectors = centres[picks] + spread * rng.standard_normal((count, centres.shape[1])).astype(np.float32)
    unit: np.ndarray = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    return unit


def synthetic_corpus(chunks: int, queries: int, seed: int = 5, personas: int = 1) -> Corpus:
    """`personas` 1: persona `bench` holds every chunk and `small` 2 % of them; more: document i
    belongs to `bench-{i mod personas}` alone (a knowledge base shared by many people)."""
    rng = np.random.default_rng(seed)
    generator, asker = TextGenerator(seed=seed), TextGenerator(seed=seed + 6)
    centres = rng.standard_normal((1000, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    spread = 1.0 / np.sqrt(DIM)  # noise about as long as the centre
    vectors = clustered_unit_vectors(chunks, rng, centres, spread)
    documents = [synthetic_document(generator, index, PER_DOC) for index in range(chunks // PER_DOC)]
    if personas > 1:
        for index, (doc, _) in enumerate(documents):
            doc.personas = [f"bench-{index % personas}"]
    else:
        for doc, _ in documents[::SMALL_EVERY]:  # a small persona (2 %) inside the big one
            doc.personas.append("small")
    for index, (doc, _) in enumerate(documents):  # what the filters select by
        doc.type = f"type-{index % FILTER_TYPES}"
        doc.date = (date(2025, 1, 1) + timedelta(days=index % 365)).isoformat()
    return Corpus(
        documents=documents,
        vectors=vectors,
        # Query words from another generator, as in `shu bench`: its frequent words are not the
        # corpus's. Queries of the corpus's own most frequent words hit posting lists of tens of
        # thousands of chunks (measured at 100k: BM25 p50 287 ms SQLite, 512 ms PostgreSQL).
        query_texts=[asker.query() for _ in range(queries)],
        query_vectors=clustered_unit_vectors(queries, rng, centres, spread),
        frequent_texts=_frequent_queries(documents, queries, rng),
    )


def _frequent_queries(
    documents: list[tuple[Document, list[Chunk]]], count: int, rng: np.random.Generator
) -> list[str]:
    counts = Counter(w for _, items in documents[:200] for chunk in items for w in content_words(chunk.text))
    top = [word for word, _ in counts.most_common(30)]
    return [" ".join(rng.choice(top, 3, replace=False)) for _ in range(count)]


def index_memory(chunks: int) -> str:
    """PostgreSQL's memory for building the HNSW graph of this many 384-d vectors in one piece
    (about 3 KB a vector with its links): at least the 1GB default."""
    return f"{max(1, math.ceil(chunks * 3 / 1_000_000))}GB"


def load(store: Store, corpus: Corpus, personas: tuple[str, ...], threads: int = 2) -> tuple[float, float]:
    """The corpus loaded into the store: (load seconds, seconds building indexes afterwards).
    PostgreSQL loads in bulk (indexes and statistics once at the end) from `threads` threads,
    each its own connection and COPY; SQLite has one writer."""
    for slug in personas:
        store.upsert_persona(
            Persona(slug=slug, display_name=slug, config=PersonaConfig(slug=slug, display_name=slug))
        )

    def put(index: int) -> None:
        doc, items = corpus.documents[index]
        store.replace_document(doc, items, corpus.vectors[index * PER_DOC : (index + 1) * PER_DOC], EMBEDDER)

    bulk = getattr(store, "bulk", None)
    started = time.perf_counter()
    with bulk() if bulk else nullcontext():
        if bulk is not None and threads > 1:
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(put, range(len(corpus.documents))))
        else:
            for index in range(len(corpus.documents)):
                put(index)
        loaded = time.perf_counter()
    return loaded - started, time.perf_counter() - loaded


def bench_store(name: str, store: Store, corpus: Corpus) -> StoreResult:
    load_seconds, index_seconds = load(store, corpus, ("bench", "small"))
    persona = store.get_persona("bench")
    assert persona is not None
    if getattr(store, "bulk", None) is None:  # SQLite builds its in-memory vector index on the first search
        started = time.perf_counter()
        store.search_vector(corpus.query_vectors[0], "bench", 10)
        index_seconds = time.perf_counter() - started
    recall = _recall(store, corpus, "bench"), _recall(store, corpus, "small")
    result = StoreResult(name, len(corpus.vectors), load_seconds, index_seconds, *recall)
    started = time.perf_counter()
    store.search_keyword(corpus.query_texts[0], "bench", 1)  # builds an in-memory index
    result.keyword_index_seconds = time.perf_counter() - started
    searcher = HybridSearcher(store, _NoEmbedder())
    params = persona.config.retrieval
    for text, vector in zip(corpus.query_texts, corpus.query_vectors, strict=True):
        t0 = time.perf_counter()
        found = searcher.surfaces(text, "bench", params, vector)
        searcher.hits(fuse(found, params), found, persona, params, params.max_chunks)
        t1 = time.perf_counter()
        store.search_keyword(text, "bench", params.candidates)
        t2 = time.perf_counter()
        store.search_vector(vector, "bench", params.candidates)
        t3 = time.perf_counter()
        result.hybrid_ms.append((t1 - t0) * 1000)
        result.keyword_ms.append((t2 - t1) * 1000)
        result.dense_ms.append((t3 - t2) * 1000)
    result.frequent_ms = _keyword_times(store, corpus.frequent_texts, params.candidates)
    result.filtered = {name: _filtered(store, corpus, where) for name, where in FILTERS.items()}
    result.graph = _graph_times(store)
    return result


def _graph_times(store: Store) -> dict[str, float]:
    """Seconds to build persona `bench`'s graph (the page's default of 300 documents, and the
    API's most, 2,000) and the size of its JSON."""
    figures: dict[str, float] = {}
    for most in (300, 2000):
        started = time.perf_counter()
        graph = persona_graph(store, "bench", max_documents=most)
        figures[f"seconds_{most}"] = time.perf_counter() - started
        figures[f"kib_{most}"] = len(graph.model_dump_json()) / 1024
    return figures


def _filtered(store: Store, corpus: Corpus, where: DocumentFilter) -> dict[str, float]:
    """Hybrid search of persona `bench` kept to the filter's documents (see `StoreResult.filtered`)."""
    persona = store.get_persona("bench")
    assert persona is not None
    params = persona.config.retrieval
    searcher = HybridSearcher(store, _NoEmbedder())
    kept = store.document_index("bench").kept(where)
    assert kept is not None
    rows = [
        (chunk.id, index * PER_DOC + ord_)
        for index, (doc, items) in enumerate(corpus.documents)
        if doc.id in kept
        for ord_, chunk in enumerate(items)
    ]
    matrix = corpus.vectors[[row for _, row in rows]]
    times, filled, found = [], 0, 0
    for text, vector in zip(corpus.query_texts, corpus.query_vectors, strict=True):
        started = time.perf_counter()
        within = store.document_index("bench").kept(where)
        surfaces = searcher.surfaces(text, "bench", params, vector, within)
        hits = searcher.hits(
            fuse(surfaces, params), surfaces, persona, params, params.max_chunks, within=within
        )
        times.append((time.perf_counter() - started) * 1000)
        assert all(h.chunk.doc_id in kept for h in hits), "a hit outside the filter"
        filled += len(hits) == params.max_chunks
        truth = {rows[i][0] for i in np.argpartition(-(matrix @ vector), 10)[:10]}
        found += len(truth & {s.chunk_id for s in store.search_vector(vector, "bench", 10, within)})
    return {
        "documents": float(len(kept)),
        "p50": percentile(times, 50),
        "p95": percentile(times, 95),
        "filled": filled / len(times),
        "recall": found / (10 * len(times)),
    }


def in_fresh_process(
    location: Path | str, corpus: Corpus, personas: tuple[str, ...] = ("bench",)
) -> dict[str, float]:
    """`fresh_process_figures` run in a new interpreter (nothing of the load in its memory)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(
            fresh_process_figures,
            str(location),
            corpus.query_texts,
            np.asarray(corpus.query_vectors),
            personas,
        ).result()


def fresh_process_figures(
    location: str, texts: list[str], vectors: np.ndarray, personas: tuple[str, ...] = ("bench",)
) -> dict[str, float]:
    """Query i goes to persona i mod len(personas); the first round builds every persona's
    indexes (`first_answer_s`: the first answer; `warm_s`: the whole round), the rest is timed."""
    started = time.perf_counter()
    store = _open(location)
    searcher = HybridSearcher(store, _NoEmbedder())
    times, first = [], 0.0
    for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        persona = store.get_persona(personas[i % len(personas)])
        assert persona is not None
        params = persona.config.retrieval
        t0 = time.perf_counter()
        found = searcher.surfaces(text, persona.slug, params, vector)
        searcher.hits(fuse(found, params), found, persona, params, params.max_chunks)
        times.append((time.perf_counter() - t0) * 1000)
        if i == 0:
            first = time.perf_counter() - started
        if i == len(personas) - 1:
            warm = time.perf_counter() - started
    store.close()
    timed = times[len(personas) :]
    return {
        "first_answer_s": first,
        "warm_s": warm,
        "hybrid_p50_ms": percentile(timed, 50),
        "hybrid_p95_ms": percentile(timed, 95),
        "rss_mib": peak_rss_mib(),
    }


def _open(location: str) -> Store:
    if location.startswith("postgresql://"):
        from shu.store.postgres import PostgresStore

        return PostgresStore(location)
    return SQLiteStore(location)


def keyword_only(name: str, store: Store, corpus: Corpus, chunks: int) -> StoreResult:
    """Keyword latency alone, of a store opened on data already loaded (another search mode)."""
    result = StoreResult(name, chunks, 0.0, 0.0, float("nan"), float("nan"))
    result.keyword_ms = _keyword_times(store, corpus.query_texts, 20)
    result.frequent_ms = _keyword_times(store, corpus.frequent_texts, 20)
    return result


def _keyword_times(store: Store, texts: list[str], limit: int) -> list[float]:
    times = []
    for text in texts:
        started = time.perf_counter()
        store.search_keyword(text, "bench", limit)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _recall(store: Store, corpus: Corpus, persona: str) -> float:
    """Share of the persona's exact top 10 (brute force over its vectors) that the store returns."""
    rows = [
        (chunk.id, index * PER_DOC + ord_)
        for index, (doc, items) in enumerate(corpus.documents)
        if persona in doc.personas
        for ord_, chunk in enumerate(items)
    ]
    ids = [chunk_id for chunk_id, _ in rows]
    matrix = corpus.vectors[[row for _, row in rows]]
    found = 0
    for vector in corpus.query_vectors:
        exact = np.argpartition(-(matrix @ vector), 10)[:10]
        truth = {ids[i] for i in exact}
        found += len(truth & {s.chunk_id for s in store.search_vector(vector, persona, 10)})
    return found / (10 * len(corpus.query_vectors))


class _NoEmbedder:
    """Queries arrive with their vectors; nothing is embedded here."""

    name = EMBEDDER
    dim = DIM

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("the store benchmark embeds nothing")

    def embed_query(self, text: str) -> np.ndarray:
        raise AssertionError("the store benchmark embeds nothing")


def run(url: str | None, chunks: int, queries: int, workdir: Path | None = None) -> list[StoreResult]:
    corpus = synthetic_corpus(chunks, queries)
    root = Path(tempfile.mkdtemp(prefix="shu-bench-stores-", dir=workdir))
    results = []
    try:
        sqlite = SQLiteStore(root / "shu.db")
        results.append(bench_store("SQLite", sqlite, corpus))
        sqlite.close()
        results[-1].fresh = in_fresh_process(root / "shu.db", corpus)
        fts5 = SQLiteStore(root / "shu.db", keyword="fts5")
        results.append(keyword_only("SQLite, keywords by FTS5 in SQL", fts5, corpus, chunks))
        fts5.close()
        if url:
            from shu.config.settings import StoreSettings
            from shu.store.postgres import PostgresStore

            postgres = PostgresStore(url, StoreSettings(index_build_memory=index_memory(chunks)))
            results.append(bench_store("PostgreSQL + pgvector", postgres, corpus))
            postgres.close()
            results[-1].fresh = in_fresh_process(url, corpus)
            in_sql = PostgresStore(url, StoreSettings(keyword="sql"))
            results.append(keyword_only("PostgreSQL, keywords by postings in SQL", in_sql, corpus, chunks))
            in_sql.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


@dataclass
class SpreadResult:
    """A knowledge base spread over many personas, opened by a new process that asks each in turn."""

    name: str
    chunks: int
    personas: int
    load_seconds: float
    index_seconds: float
    fresh: dict[str, float]


def run_spread(
    url: str | None, chunks: int, queries: int, personas: int, workdir: Path | None = None
) -> list[SpreadResult]:
    corpus = synthetic_corpus(chunks, queries, personas=personas)
    slugs = tuple(f"bench-{i}" for i in range(personas))
    root = Path(tempfile.mkdtemp(prefix="shu-bench-stores-", dir=workdir))
    results = []
    try:
        sqlite = SQLiteStore(root / "shu.db")
        timing = load(sqlite, corpus, slugs)
        sqlite.close()
        fresh = in_fresh_process(root / "shu.db", corpus, slugs)
        results.append(SpreadResult("SQLite", chunks, personas, *timing, fresh))
        if url:
            from shu.config.settings import StoreSettings
            from shu.store.postgres import PostgresStore

            postgres = PostgresStore(url, StoreSettings(index_build_memory=index_memory(chunks)))
            timing = load(postgres, corpus, slugs)
            postgres.close()
            fresh = in_fresh_process(url, corpus, slugs)
            results.append(SpreadResult("PostgreSQL + pgvector", chunks, personas, *timing, fresh))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


def spread_markdown(results: list[SpreadResult], queries: int) -> str:
    lines = [
        f"Machine: {machine()}. Document i belongs to persona `bench-{{i mod N}}` alone; a new process "
        f"asks {queries} questions in turn across the personas (the first round builds each persona's "
        "indexes; the rest are timed).",
        "",
        "| store | chunks | personas | load s | chunks/s | index build s | first answer s "
        "| every persona answered s | hybrid p50 ms | hybrid p95 ms | peak RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.name} | {r.chunks:,} | {r.personas} | {r.load_seconds:.1f} | "
        f"{r.chunks / r.load_seconds:,.0f} | {r.index_seconds:.1f} | "
        f"{r.fresh['first_answer_s']:.1f} | {r.fresh['warm_s']:.1f} | "
        f"{r.fresh['hybrid_p50_ms']:.2f} | {r.fresh['hybrid_p95_ms']:.2f} | {r.fresh['rss_mib']:,.0f} |"
        for r in results
    ]
    return "\n".join(lines) + "\n"


def markdown(results: list[StoreResult], queries: int) -> str:
    lines = [
        f"Machine: {machine()}. {queries} queries of each kind; clustered 384-d vectors; persona `bench` "
        "holds every chunk, `small` 2 % of them. Keyword search: the in-memory BM25 index unless the "
        "row says SQL (same data, reopened in that mode).",
        "",
        "| store | chunks | load s | chunks/s | vector index build s | keyword index build s "
        "| recall@10 vs exact | recall@10, 2 % persona | BM25 p50 ms | BM25 frequent words p50 / p95 ms "
        "| dense p50 ms | hybrid p50 ms | hybrid p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        full = bool(r.hybrid_ms)
        lines.append(
            f"| {r.name} | {r.chunks:,} | "
            + (
                f"{r.load_seconds:.1f} | {r.chunks_per_s:,.0f} | {r.index_seconds:.1f} | "
                if full
                else "– | – | – | "
            )
            + (f"{r.keyword_index_seconds:.1f} | " if r.keyword_index_seconds is not None else "– | ")
            + (f"{r.recall_at_10:.3f} | {r.small_recall_at_10:.3f} | " if full else "– | – | ")
            + f"{percentile(r.keyword_ms, 50):.2f} | "
            f"{percentile(r.frequent_ms, 50):.2f} / {percentile(r.frequent_ms, 95):.2f} | "
            + (
                f"{percentile(r.dense_ms, 50):.2f} | {percentile(r.hybrid_ms, 50):.2f} | "
                f"{percentile(r.hybrid_ms, 95):.2f} |"
                if full
                else "– | – | – |"
            )
        )
    filtered = [r for r in results if r.filtered]
    if filtered:
        lines += [
            "",
            "Hybrid search kept to a filter (`DocumentFilter`: the kept documents read from the document "
            "index, then every surface searched among them inside the store's query):",
            "",
            "| store | chunks | filter | documents kept | hybrid p50 ms | hybrid p95 ms | limit filled "
            "| dense recall@10 among the kept |",
            "|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.name} | {r.chunks:,} | {name} | {f['documents']:,.0f} | {f['p50']:.2f} | {f['p95']:.2f} "
            f"| {f['filled']:.0%} | {f['recall']:.3f} |"
            for r in filtered
            for name, f in r.filtered.items()
        ]
    graphs = [r for r in results if r.graph]
    if graphs:
        lines += [
            "",
            "The persona's graph (`GET /v1/personas/{p}/graph`), built from the store:",
            "",
            "| store | chunks | 300 documents: s | JSON KiB | 2,000 documents: s | JSON KiB |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.name} | {r.chunks:,} | {r.graph['seconds_300']:.2f} | {r.graph['kib_300']:,.0f} "
            f"| {r.graph['seconds_2000']:.2f} | {r.graph['kib_2000']:,.0f} |"
            for r in graphs
        ]
    fresh = [r for r in results if r.fresh]
    if fresh:
        lines += [
            "",
            "A new process opening the loaded store (nothing of the load in its memory):",
            "",
            "| store | chunks | first hybrid answer s (indexes loaded) | hybrid p50 ms | hybrid p95 ms "
            "| peak RSS MiB |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.name} | {r.chunks:,} | {r.fresh['first_answer_s']:.1f} | {r.fresh['hybrid_p50_ms']:.2f} | "
            f"{r.fresh['hybrid_p95_ms']:.2f} | {r.fresh['rss_mib']:,.0f} |"
            for r in fresh
        ]
    return "\n".join(lines) + "\n"
