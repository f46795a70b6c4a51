import sqlite3
from pathlib import Path

import pytest

from shu.errors import StoreError
from shu.store.sqlite import SQLiteStore
from tests.store.conformance import chunks, document, persona, unit, vectors


def test_data_survives_reopening(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "shu.db")
    store.upsert_persona(persona("alpha"))
    store.replace_document(document("d", ["alpha"]), chunks("d", ["kept text"]), vectors(unit(1)), "e")
    store.close()
    reopened = SQLiteStore(tmp_path / "shu.db")
    assert reopened.search_keyword("kept", "alpha", 1)[0].chunk_id == "d#0"
    assert reopened.stats().embedder == "e"


def test_a_second_connection_sees_new_vectors(tmp_path: Path) -> None:
    reader = SQLiteStore(tmp_path / "shu.db")
    writer = SQLiteStore(tmp_path / "shu.db")
    writer.upsert_persona(persona("alpha"))
    writer.replace_document(document("d", ["alpha"]), chunks("d", ["one"]), vectors(unit(1)), "e")
    assert reader.search_vector(unit(1), "alpha", 1)[0].chunk_id == "d#0"
    writer.replace_document(document("e", ["alpha"]), chunks("e", ["two"]), vectors(unit(0, 1)), "e")
    assert reader.search_vector(unit(0, 1), "alpha", 1)[0].chunk_id == "e#0"


def test_wal_mode_and_schema_version(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "shu.db").close()
    db = sqlite3.connect(tmp_path / "shu.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] >= 1


def test_a_file_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "shu.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable Shu store"):
        SQLiteStore(path)


def test_many_connections_opening_a_new_store_at_once(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def open_and_close(_: int) -> int:
        store = SQLiteStore(tmp_path / "shu.db")
        count = store.stats().documents
        store.close()
        return count

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(open_and_close, range(32))) == [0] * 32


def test_a_locked_store_is_a_clear_error_and_nothing_is_half_written(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "shu.db")
    store.upsert_persona(persona("alpha"))
    store.replace_document(document("d", ["alpha"]), chunks("d", ["old"]), vectors(unit(1)), "e")
    blocker = sqlite3.connect(tmp_path / "shu.db", isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    store._db.execute("PRAGMA busy_timeout=100")
    with pytest.raises(StoreError, match="database is locked"):
        store.replace_document(document("d", ["alpha"]), chunks("d", ["new"]), vectors(unit(1)), "e")
    blocker.execute("ROLLBACK")
    assert [c.text for c in store.list_chunks("d")] == ["old"]
