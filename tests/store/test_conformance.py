"""Every store passes the same conformance suite: SQLite always, PostgreSQL against the real
server `scripts/with-postgres.sh` starts (skipped, with the reason, when there is none)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shu.config.settings import StoreSettings
from shu.store.base import Store
from shu.store.sqlite import SQLiteStore
from tests.store.conformance import (
    AccountsConformance,
    ConcurrencyConformance,
    ConversationsConformance,
    FindingsConformance,
    JobsConformance,
    KnowledgeConformance,
    LoginsConformance,
)
from tests.store.postgres_server import fresh_database


@pytest.fixture(
    params=[
        "sqlite",
        "sqlite-fts5",
        "sqlite-compact",
        pytest.param("postgres", marks=pytest.mark.service),
        pytest.param("postgres-sql", marks=pytest.mark.service),
    ]
)
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where the store lives: a SQLite file (keyword search in memory, or in FTS5: `fts5:`; vectors
    in float32, or in the compact int8 index of large personas: `compact:`), or a fresh PostgreSQL
    database."""
    if request.param.startswith("sqlite"):
        prefix = {"sqlite-fts5": "fts5:", "sqlite-compact": "compact:"}.get(request.param, "")
        yield f"{prefix}{tmp_path / 'shu.db'}"
        return
    with fresh_database() as url:
        yield url + ("#sql" if request.param == "postgres-sql" else "")


def open_at(location: str) -> Store:
    if location.startswith("postgresql://"):
        from shu.store.postgres import PostgresStore

        url, _, mode = location.partition("#")
        return PostgresStore(url, StoreSettings(keyword="sql" if mode == "sql" else "memory"))
    if location.startswith("fts5:"):
        return SQLiteStore(location.removeprefix("fts5:"), keyword="fts5")
    if location.startswith("compact:"):
        return SQLiteStore(location.removeprefix("compact:"), exact_vector_limit=0)
    return SQLiteStore(location)


@pytest.fixture
def store(location: str) -> Iterator[Store]:
    opened = open_at(location)
    yield opened
    opened.close()


@pytest.fixture
def reopened(store: Store, location: str) -> Iterator[Store]:
    """A second store object on the same data (its own connections), opened after the first."""
    opened = open_at(location)
    yield opened
    opened.close()


class TestStoreConformance(
    KnowledgeConformance,
    ConcurrencyConformance,
    FindingsConformance,
    AccountsConformance,
    JobsConformance,
    ConversationsConformance,
    LoginsConformance,
):
    pass
