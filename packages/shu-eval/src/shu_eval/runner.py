"""`shu eval`: run every configuration over a dataset's queries and measure them."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from shu.config.settings import EnrichSettings
from shu.errors import ShuError
from shu.models.embed.base import Embedder
from shu.models.rerank.base import Reranker
from shu.models.rerank.factory import create_reranker
from shu.retrieve.hybrid import HybridSearcher
from shu.retrieve.pipeline import RetrievalPipeline
from shu.store.base import Store
from shu_eval.build import BuiltStore
from shu_eval.configs import DEPTH, EvalConfig
from shu_eval.dataset import Dataset, EvalQuery
from shu_eval.metrics import LatencyFigures, evaluate

Progress = Callable[[str, int, int], None]


@dataclass
class ConfigResult(LatencyFigures):
    config: EvalConfig
    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]]
    rankings: dict[str, list[str]]
    latencies_ms: list[float] = field(default_factory=list)
    ingest_seconds: float = 0.0
    ingest_reused: bool = False


def run_config(
    config: EvalConfig,
    dataset: Dataset,
    queries: list[EvalQuery],
    built: BuiltStore,
    embedder: Embedder,
    progress: Progress,
) -> ConfigResult:
    retrieve = _retriever(config, built.store, embedder)
    rankings: dict[str, list[str]] = {}
    latencies: list[float] = []
    for done, query in enumerate(queries, start=1):
        started = time.perf_counter()
        rankings[query.id] = retrieve(query)
        latencies.append((time.perf_counter() - started) * 1000)
        progress(f"queries: {config.name}", done, len(queries))
    qrels = {q.id: dataset.qrels[q.id] for q in queries}
    metrics, per_query = evaluate(qrels, rankings)
    return ConfigResult(config, metrics, per_query, rankings, latencies, built.seconds, built.reused)


def _retriever(config: EvalConfig, store: Store, embedder: Embedder) -> Callable[[EvalQuery], list[str]]:
    depth = config.retrieval.max_chunks if config.retriever in ("hybrid", "pipeline") else DEPTH
    if config.retriever == "bm25":
        feedback = config.retrieval.keyword_feedback()
        return lambda q: [s.chunk_id for s in store.search_keyword(q.text, q.persona, depth, feedback)]
    if config.retriever == "dense":
        return lambda q: [
            s.chunk_id for s in store.search_vector(embedder.embed_query(q.text), q.persona, depth)
        ]
    personas = {p.slug: p for p in store.list_personas()}
    if config.retriever == "pipeline":
        pipeline = RetrievalPipeline(store, embedder, config.pipeline, reranker=_reranker(config))

        def planned(query: EvalQuery) -> list[str]:
            result = pipeline.run(query.text, personas[query.persona], params=config.retrieval)
            return [h.chunk.id for h in result.hits]

        return planned
    searcher = HybridSearcher(store, embedder)

    def hybrid(query: EvalQuery) -> list[str]:
        persona = personas[query.persona]
        return [h.chunk.id for h in searcher.search(query.text, persona, params=config.retrieval)]

    return hybrid


def run_eval(
    dataset: Dataset,
    configs: list[EvalConfig],
    open_store: Callable[[EnrichSettings], BuiltStore],
    embedder: Embedder,
    limit: int | None = None,
    progress: Progress | None = None,
) -> list[ConfigResult]:
    """Every configuration over the same queries (the first `limit` of the split). Configs
    that index the corpus the same way share one (cached) store."""
    progress = progress or (lambda stage, done, total: None)
    queries = dataset.queries[:limit] if limit else dataset.queries
    embedder.embed_query("warm up")  # load the model outside the latency figures
    stores: dict[str, BuiltStore] = {}
    results = []
    try:
        for config in configs:
            key = config.enrich.model_dump_json()
            if key not in stores:
                stores[key] = open_store(config.enrich)
            results.append(run_config(config, dataset, queries, stores[key], embedder, progress))
    finally:
        for built in stores.values():
            built.store.close()
    return results


def _reranker(config: EvalConfig) -> Reranker | None:
    """A cross-encoder config reads its model folder from SHU_RERANK_MODEL (none ships offline)."""
    settings = config.pipeline.rerank
    if settings.method == "none":
        return None
    if settings.method == "cross-encoder" and settings.model_path is None:
        folder = os.environ.get("SHU_RERANK_MODEL")
        if not folder:
            raise ShuError(
                f"eval config {config.name!r} needs a cross-encoder: set SHU_RERANK_MODEL to a folder "
                "with model.onnx and tokenizer.json (no reranker weights ship on PyPI)"
            )
        settings = settings.model_copy(update={"model_path": Path(folder)})
    return create_reranker(settings, None)
