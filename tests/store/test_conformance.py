"""Every store passes the same conformance suite: SQLite always, PostgreSQL against the real
server `scripts/with-postgres.sh` starts (skipped, with the reason, when there is none)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shu.store.base import Store
from shu.store.sqlite import SQLiteStore
from tests.store.conformance import FindingsConformance, ServiceConformance, StoreConformance
from tests.store.postgres_server import fresh_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.service)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        opened: Store = SQLiteStore(tmp_path / "shu.db")
        yield opened
        opened.close()
        return
    from shu.store.postgres import PostgresStore

    with fresh_database() as url:
        opened = PostgresStore(url)
        yield opened
        opened.close()


class TestStoreConformance(StoreConformance, FindingsConformance, ServiceConformance):
    pass
