"""Every store passes the same conformance suite: SQLite always, PostgreSQL against the real
server `scripts/with-postgres.sh` starts (skipped, with the reason, when there is none)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from shu.accounts.logins import MAX_FAILURES, Logins
from shu.config.settings import StoreSettings
from shu.errors import LockedError, UnauthorizedError
from shu.store.base import Store
from shu.store.sqlite import SQLiteStore
from shu.store.testing import (
    AccountsConformance,
    ConcurrencyConformance,
    ConversationsConformance,
    FilterConformance,
    FindingsConformance,
    JobsConformance,
    KnowledgeConformance,
    LoginsConformance,
)
from shu.store.testing.logins import PASSWORD
from shu.store.testing.stateful import ServiceStateMachines
from tests.store.postgres_server import fresh_database

SERVICE_TABLES = (
    "api_keys, signals, user_profiles, jobs, conversations, logins, login_sessions, sign_in_attempts"
)


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


@pytest.fixture
def fresh_store(location: str) -> Iterator[Callable[[], Store]]:
    """A store with empty service tables at each call: a new SQLite file of the same kind, or the
    test's PostgreSQL database emptied (one store object: a pool per example would be slow)."""
    opened: list[Store] = []
    numbers = itertools.count()

    def fresh() -> Store:
        if location.startswith("postgresql://"):
            import psycopg

            if not opened:
                opened.append(open_at(location))
            with psycopg.connect(location.partition("#")[0], autocommit=True) as conn:
                conn.execute(f"TRUNCATE {SERVICE_TABLES}")
            return opened[0]
        path = Path(location.split(":", 1)[-1])
        prefix = location[: len(location) - len(str(path))]
        opened.append(open_at(f"{prefix}{path.with_name(f'fresh{next(numbers)}.db')}"))
        return opened[-1]

    yield fresh
    for store in opened:
        store.close()


class TestStoreConformance(
    KnowledgeConformance,
    FilterConformance,
    ConcurrencyConformance,
    FindingsConformance,
    AccountsConformance,
    JobsConformance,
    ConversationsConformance,
    LoginsConformance,
    ServiceStateMachines,
):
    def test_concurrent_wrong_passwords_are_checked_at_most_the_allowed_times(self, store: Store) -> None:
        """The lockout of `shu.accounts.logins` over each store: 32 wrong passwords at once for
        one name from one address: only the allowed number are checked (401, and the last one
        checked 423), the rest refused unchecked (423); the right password from another address
        still signs in."""
        logins = Logins(store, store)
        logins.add("ana", PASSWORD)

        def guess(number: int) -> int:
            try:
                logins.sign_in("ana", f"wrong guess {number}", address="10.0.0.9")
            except UnauthorizedError:
                return 401
            except LockedError:
                return 423
            return 200

        with ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(guess, range(32)))
        assert statuses.count(401) == MAX_FAILURES - 1 and statuses.count(423) == 32 - MAX_FAILURES + 1
        with pytest.raises(LockedError):
            logins.sign_in("ana", PASSWORD, address="10.0.0.9")
        assert logins.sign_in("ana", PASSWORD, address="10.0.0.8")[0].name == "ana"
