"""`shu bench`: ingestion throughput beside the embedder's raw rate, and hybrid search latency
at scale. Corpora are synthetic (stated in the output); timings are wall-clock on this machine."""

from __future__ import annotations

import platform
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from shu.config.settings import Settings, load_settings
from shu.ingest.chunking import chunk_document
from shu.ingest.job import IngestJob
from shu.models.embed import Embedder, create_embedder
from shu.retrieve.hybrid import HybridSearcher
from shu.retrieve.pipeline import RetrievalPipeline
from shu.store.sqlite import SQLiteStore
from shu.types import Persona, PersonaConfig
from shu_eval.synthetic import TextGenerator, synthetic_document


@dataclass
class IngestResult:
    documents: int
    chunks: int
    embed_seconds: float
    ingest_seconds: float
    enriched_seconds: float = 0.0
    questions: int = 0

    @property
    def raw_chunks_per_s(self) -> float:
        return self.chunks / self.embed_seconds

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.ingest_seconds

    @property
    def docs_per_s(self) -> float:
        return self.documents / self.ingest_seconds

    @property
    def efficiency(self) -> float:
        return self.chunks_per_s / self.raw_chunks_per_s


@dataclass
class SearchResult:
    chunks: int
    build_seconds: float
    queries: int
    total_ms: list[float] = field(default_factory=list)
    pipeline_ms: list[float] = field(default_factory=list)
    embed_ms: list[float] = field(default_factory=list)
    keyword_ms: list[float] = field(default_factory=list)
    vector_ms: list[float] = field(default_factory=list)
    store_mb: float = 0.0
    """The SQLite file after the build (text, FTS5 index, float32 vectors), in MB."""


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q)) if values else float("nan")


def peak_rss_mib() -> float:
    """This process's peak resident memory. On Linux VmHWM, not `ru_maxrss`: a process started
    by fork and exec carries its parent's peak at the fork into `ru_maxrss` (the kernel keeps the
    old memory map's high-water mark across exec), so a benchmark's new process would report the
    loading process's memory (a million chunks: 7.4 GiB reported, 2.4 GiB its own)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine() -> str:
    import os

    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError):
        pass
    return f"{platform.machine()}, {os.cpu_count()} cores{memory}, Python {platform.python_version()}"


def bench_ingest(
    settings: Settings, embedder: Embedder, documents: int, workdir: Path, repeats: int = 2
) -> IngestResult:
    generator = TextGenerator(seed=1)
    persona_dir = workdir / "personas" / "bench"
    (persona_dir / "RAG").mkdir(parents=True)
    (persona_dir / "persona.md").write_text("# Bench\n")
    bodies = []
    for index in range(documents):
        body = generator.document(f"Document {index}", sections=4, sentences_per_section=6)
        bodies.append(body)
        (persona_dir / "RAG" / f"doc-{index:05d}.md").write_text(body)
    texts = [
        c.index_text
        for i, body in enumerate(bodies)
        for c in chunk_document(
            f"doc-{i:05d}",
            f"Document {i}",
            body,
            settings.chunking.max_tokens,
            settings.chunking.overlap_tokens,
        )
    ]
    embedder.embed_documents(texts[:8])  # load the model outside the timings
    plain = settings.model_copy(update={"enrich": settings.enrich.model_copy(update={"enabled": False})})
    embed_runs: list[float] = []
    ingest_runs: list[float] = []
    for attempt in range(repeats):  # alternate the two, best of each: this machine is shared
        started = time.perf_counter()
        embedder.embed_documents(texts)
        embed_runs.append(time.perf_counter() - started)
        store = SQLiteStore(workdir / f"ingest-{attempt}.db")
        report = IngestJob(plain, store, embedder).run(persona_dir)
        store.close()
        if report.failed or report.chunks_written != len(texts):
            raise RuntimeError(f"benchmark ingestion went wrong: {report.summary()}")
        ingest_runs.append(report.seconds)
    store = SQLiteStore(workdir / "ingest-enriched.db")  # the same job with enrichment (the default)
    enriched = IngestJob(settings, store, embedder).run(persona_dir)
    questions = sum(store.enrichment_stats()["questions"].values())
    store.close()
    return IngestResult(documents, len(texts), min(embed_runs), min(ingest_runs), enriched.seconds, questions)


def build_scale_store(path: Path, chunks: int, dim: int, seed: int = 3) -> float:
    """A store of `chunks` synthetic chunks (50 per document) with random unit vectors."""
    generator = TextGenerator(seed=seed)
    rng = np.random.default_rng(seed)
    store = SQLiteStore(path)
    store.upsert_persona(
        Persona(slug="bench", display_name="Bench", config=PersonaConfig(slug="bench", display_name="Bench"))
    )
    started = time.perf_counter()
    per_doc = 50
    for doc_index in range(chunks // per_doc):
        doc, items = synthetic_document(generator, doc_index, per_doc)
        vectors = rng.standard_normal((per_doc, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.replace_document(doc, items, vectors, "bench-random")
    store.close()
    return time.perf_counter() - started


def bench_search(
    path: Path, embedder: Embedder, chunks: int, build_seconds: float, queries: int
) -> SearchResult:
    store = SQLiteStore(path)
    persona = store.get_persona("bench")
    assert persona is not None
    generator = TextGenerator(seed=11)
    texts = [generator.query() for _ in range(queries)]
    result = SearchResult(chunks=chunks, build_seconds=build_seconds, queries=queries)
    searcher = HybridSearcher(store, _RandomSpace(embedder))
    searcher.search(texts[0], persona)  # warm the vector cache once, as a running service would
    for text in texts:  # end to end first, on its own
        started = time.perf_counter()
        searcher.search(text, persona)
        result.total_ms.append((time.perf_counter() - started) * 1000)
    pipeline = RetrievalPipeline(store, _RandomSpace(embedder))  # default stages, no LLM
    pipeline.run(texts[0], persona)
    for text in texts:
        started = time.perf_counter()
        pipeline.run(text, persona)
        result.pipeline_ms.append((time.perf_counter() - started) * 1000)
    candidates = persona.config.retrieval.candidates
    for text in texts:  # then each part alone
        t0 = time.perf_counter()
        vector = embedder.embed_query(text)
        t1 = time.perf_counter()
        store.search_keyword(text, "bench", candidates)
        t2 = time.perf_counter()
        store.search_vector(vector, "bench", candidates)
        t3 = time.perf_counter()
        result.embed_ms.append((t1 - t0) * 1000)
        result.keyword_ms.append((t2 - t1) * 1000)
        result.vector_ms.append((t3 - t2) * 1000)
    store.close()
    return result


class _RandomSpace:
    """The real embedder's query vector under the name the synthetic store was built with."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    name = "bench-random"

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


def run(
    documents: int,
    sizes: list[int],
    queries: int,
    workdir: Path | None = None,
    overrides: list[str] | None = None,
) -> tuple[IngestResult, list[SearchResult]]:
    root = Path(tempfile.mkdtemp(prefix="shu-bench-", dir=workdir))
    try:
        settings = load_settings(root / "home", overrides)
        embedder = create_embedder(settings.embedder)
        ingest = bench_ingest(settings, embedder, documents, root)
        searches = []
        for size in sizes:
            path = root / f"scale-{size}.db"
            build = build_scale_store(path, size, embedder.dim)
            searched = bench_search(path, embedder, size, build, queries)
            searched.store_mb = path.stat().st_size / 1e6
            searches.append(searched)
        return ingest, searches
    finally:
        shutil.rmtree(root, ignore_errors=True)


def markdown_tables(ingest: IngestResult, searches: list[SearchResult]) -> str:
    lines = [
        f"Machine: {machine()}.",
        "",
        "| ingestion (synthetic Markdown, 4 sections × 6 sentences per document) | value |",
        "|---|---|",
        f"| documents | {ingest.documents} |",
        f"| chunks | {ingest.chunks} |",
        f"| embedder raw rate (same chunk texts, one call, best of 2) | "
        f"{ingest.raw_chunks_per_s:.1f} chunks/s |",
        f"| ingestion without enrichment, end to end (parse, chunk, embed, store; best of 2) | "
        f"{ingest.docs_per_s:.2f} docs/s, "
        f"{ingest.chunks_per_s:.1f} chunks/s |",
        f"| ingestion rate / embedder raw rate | {ingest.efficiency:.1%} |",
        f"| ingestion with extractive enrichment (profiles, {ingest.questions} questions embedded, "
        f"chunk profiles) | {ingest.documents / ingest.enriched_seconds:.2f} docs/s, "
        f"{1000 * (ingest.enriched_seconds - ingest.ingest_seconds) / ingest.documents:.0f} ms per document "
        "over plain ingestion |",
        "",
        "| hybrid search (synthetic chunks, random unit vectors) | chunks | store build s "
        "| query embed p50 ms | BM25 p50 ms | dense p50 ms | hybrid p50 ms | hybrid p95 ms "
        "| pipeline p50 ms | pipeline p95 ms | store MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in searches:
        lines.append(
            f"| {s.queries} queries | {s.chunks:,} | {s.build_seconds:.1f} | "
            f"{statistics.median(s.embed_ms):.2f} | "
            f"{statistics.median(s.keyword_ms):.2f} | {statistics.median(s.vector_ms):.2f} | "
            f"{percentile(s.total_ms, 50):.2f} | {percentile(s.total_ms, 95):.2f} | "
            f"{percentile(s.pipeline_ms, 50):.2f} | {percentile(s.pipeline_ms, 95):.2f} | "
            f"{s.store_mb:.1f} |"
        )
    return "\n".join(lines) + "\n"
