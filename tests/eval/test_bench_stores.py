"""The store benchmark runs end to end on a small knowledge base (numbers are for docs, not here)."""

from __future__ import annotations

import pytest

from shu.eval.bench_stores import markdown, run
from tests.store.postgres_server import fresh_database


@pytest.mark.service
def test_both_stores_are_measured_on_the_same_corpus() -> None:
    with fresh_database() as url:  # skips, saying why, when no PostgreSQL server runs
        results = run(url, chunks=1000, queries=10)
    assert [r.name for r in results] == ["SQLite", "PostgreSQL + pgvector"]
    for result in results:
        assert result.chunks == 1000 and result.load_seconds > 0 and len(result.hybrid_ms) == 10
        assert 0.9 <= result.recall_at_10 <= 1.0, "1,000 vectors: exact in SQLite, HNSW near-exact"
        assert 0.9 <= result.small_recall_at_10 <= 1.0
    assert "| PostgreSQL + pgvector | 1,000 |" in markdown(results, 10)
