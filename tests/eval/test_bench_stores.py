"""The store benchmark runs end to end on a small knowledge base (numbers are for docs, not here)."""

from __future__ import annotations

import numpy as np
import pytest

from shu_eval.bench_stores import markdown, run, run_spread, spread_markdown, synthetic_corpus
from tests.store.postgres_server import fresh_database


@pytest.mark.service
def test_both_stores_are_measured_on_the_same_corpus() -> None:
    with fresh_database() as url:  # skips, saying why, when no PostgreSQL server runs
        results = run(url, chunks=1000, queries=10)
    assert [r.name for r in results] == [
        "SQLite",
        "SQLite, keywords by FTS5 in SQL",
        "PostgreSQL + pgvector",
        "PostgreSQL, keywords by postings in SQL",
    ]
    full, keyword_only = results[0::2], results[1::2]
    for result in full:
        assert result.chunks == 1000 and result.load_seconds > 0 and len(result.hybrid_ms) == 10
        assert 0.9 <= result.recall_at_10 <= 1.0, "1,000 vectors: exact in SQLite, HNSW near-exact"
        assert 0.9 <= result.small_recall_at_10 <= 1.0
        assert result.keyword_index_seconds is not None and result.keyword_index_seconds > 0
    for result in results:
        assert len(result.keyword_ms) == len(result.frequent_ms) == 10
    assert all(not r.hybrid_ms for r in keyword_only)
    fresh = results[0].fresh
    assert fresh["first_answer_s"] > 0 and fresh["hybrid_p50_ms"] > 0 and fresh["rss_mib"] > 50
    table = markdown(results, 10)
    assert (
        "| PostgreSQL + pgvector | 1,000 |" in table
        and "| SQLite, keywords by FTS5 in SQL | 1,000 | – |" in table
    )


@pytest.mark.service
def test_a_knowledge_base_spread_over_personas_is_asked_persona_by_persona() -> None:
    with fresh_database() as url:
        results = run_spread(url, chunks=2000, queries=12, personas=4)
    assert [(r.name, r.chunks, r.personas) for r in results] == [
        ("SQLite", 2000, 4),
        ("PostgreSQL + pgvector", 2000, 4),
    ]
    for result in results:
        fresh = result.fresh
        assert result.load_seconds > 0 and 0 < fresh["first_answer_s"] <= fresh["warm_s"]
        assert fresh["hybrid_p50_ms"] > 0 and fresh["hybrid_p95_ms"] >= fresh["hybrid_p50_ms"]
    table = spread_markdown(results, 12)
    assert "| SQLite | 2,000 | 4 |" in table and "| PostgreSQL + pgvector | 2,000 | 4 |" in table


def test_each_document_of_a_spread_corpus_belongs_to_one_persona() -> None:
    corpus = synthetic_corpus(500, 3, personas=5)
    assert [doc.personas for doc, _ in corpus.documents] == [[f"bench-{i % 5}"] for i in range(10)]


def test_a_new_process_reports_its_own_peak_memory_not_its_parents() -> None:
    """`ru_maxrss` of a process started by fork and exec starts at its parent's peak: with 400 MB
    held here, a new interpreter would report over 400 MB. VmHWM is its own."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from shu_eval.bench import peak_rss_mib

    held = np.ones(400 * 2**20 // 8)  # touched: resident
    assert peak_rss_mib() > 400
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        child = pool.submit(peak_rss_mib).result()
    assert 5 < child < 300, child
    del held
