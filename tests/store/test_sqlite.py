import sqlite3
from pathlib import Path

import pytest

from shu.errors import StoreError
from shu.store.sqlite import SQLiteStore
from shu.store.testing import chunks, document, persona, unit, vectors


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


WORDS = "pricing plan invoice seats discount renewal limit quota region backup audit".split()


def test_the_in_memory_keyword_index_scores_as_fts5_does(tmp_path: Path) -> None:
    import random

    rng = random.Random(11)
    store = SQLiteStore(tmp_path / "shu.db")
    store.upsert_persona(persona("alpha"))
    for n in range(60):
        text = " ".join(rng.choices(WORDS, k=rng.randint(3, 30)))
        store.replace_document(document(f"d{n}", ["alpha"]), chunks(f"d{n}", [text]), vectors(unit(1)), "e")
    in_sql = SQLiteStore(tmp_path / "shu.db", keyword="fts5")
    for query in ("pricing plan", "invoices for seats", "audit backup region quota", "the renewal"):
        mine, theirs = store.search_keyword(query, "alpha", 20), in_sql.search_keyword(query, "alpha", 20)
        assert [h.score for h in mine] == pytest.approx([h.score for h in theirs], rel=1e-5), query
        tied = {round(h.score, 5) for h in theirs}  # equal scores may come in either order
        assert len(mine) == len(theirs) and (
            len(tied) < len(theirs) or [h.chunk_id for h in mine] == [h.chunk_id for h in theirs]
        ), query
    store.close()
    in_sql.close()


def test_another_process_writes_reach_the_keyword_index(tmp_path: Path) -> None:
    import subprocess
    import sys

    store = SQLiteStore(tmp_path / "shu.db")
    store.upsert_persona(persona("alpha"))
    store.replace_document(document("a", ["alpha"]), chunks("a", ["apples"]), vectors(unit(1)), "e")
    assert [h.chunk_id for h in store.search_keyword("apples", "alpha", 5)] == ["a#0"]
    script = (
        "import sys; from shu.store.sqlite import SQLiteStore; "
        "from shu.store.testing import chunks, document, unit, vectors; "
        "s = SQLiteStore(sys.argv[1]); "
        "s.replace_document(document('b', ['alpha']), chunks('b', ['apples and pears']), "
        "vectors(unit(1)), 'e'); "
        "s.delete_document('a'); s.close()"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "shu.db")], check=True, timeout=60)
    assert [h.chunk_id for h in store.search_keyword("apples", "alpha", 5)] == ["b#0"]
    assert [h.chunk_id for h in store.search_keyword("pears", "alpha", 5)] == ["b#0"]
    store.close()


def test_the_exact_limit_setting_reaches_the_sqlite_store(tmp_path: Path) -> None:
    """`store.exact_limit` decides where a persona's vectors go compact (int8 in memory, float32
    read back) in SQLite as it decides where PostgreSQL turns to HNSW."""
    from shu.config.settings import load_settings
    from shu.store.factory import open_store

    store = open_store(load_settings(tmp_path, ["store.exact_limit=1"]))
    assert isinstance(store, SQLiteStore) and store.exact_vector_limit == 1
    store.upsert_persona(persona("alpha"))
    store.replace_document(
        document("d", ["alpha"]),
        chunks("d", ["one", "two", "three"]),
        vectors(unit(1, 0), unit(0, 1), unit(1, 1)),
        "e",
    )
    found = store.search_vector(unit(1, 0), "alpha", 2)
    assert [h.chunk_id for h in found] == ["d#0", "d#2"] and found[0].score == pytest.approx(1.0)
    assert store._persona_index("alpha").codes is not None, "two vectors, above the limit: compact"
    store.close()


def test_an_older_store_gets_its_identifier_terms_when_opened(tmp_path: Path) -> None:
    """A store written before identifier terms: its FTS rows are indexed again, once."""
    path = tmp_path / "shu.db"
    store = SQLiteStore(path, keyword="fts5")
    store.upsert_persona(persona("alpha"))
    texts = {"code": "Call run_target after DiffExecutor.", "decoy": "Run the target; run target."}
    for doc_id, text in texts.items():
        store.replace_document(document(doc_id, ["alpha"]), chunks(doc_id, [text]), vectors(unit(1)), "e")
    store.close()
    db = sqlite3.connect(path)
    with db:  # as an older Shu left it: the FTS row holds the bare text, and the upgrade is pending
        db.execute("UPDATE chunks_fts SET index_text = 'Call run_target after DiffExecutor.' WHERE rowid = 1")
        db.execute("INSERT INTO meta(key, value) VALUES ('identifier_terms', '\"pending\"')")
    assert db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'runtarget'").fetchone() == (0,)
    reopened = SQLiteStore(path, keyword="fts5")
    assert reopened.search_keyword("run_target", "alpha", 2)[0].chunk_id == "code#0"
    assert [h.chunk_id for h in reopened.search_keyword("diff executor", "alpha", 2)] == ["code#0"]
    assert db.execute("SELECT count(*) FROM meta WHERE key = 'identifier_terms'").fetchone() == (0,)
    reopened.close()
