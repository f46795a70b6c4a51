"""The store benchmark runs end to end on a small knowledge base (numbers are for docs, not here)."""

from __future__ import annotations

import pytest

from shu.eval.bench_stores import markdown, run
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
