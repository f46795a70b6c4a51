"""The PostgreSQL store behind the whole product: one setting (`store.url`), nothing else changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from shu.errors import StoreError, UnknownPersonaError
from shu.kb import open_kb
from shu.store.postgres import PostgresStore
from shu.store.testing import persona
from tests.conftest import CountingEmbedder, PersonaMaker, doc
from tests.store.postgres_server import fresh_database

pytestmark = pytest.mark.service


def test_ingest_search_and_ask_on_postgresql(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    with fresh_database() as url:
        kb = open_kb(tmp_path / "home", [f"store.url={url}"], embedder=embedder)
        assert isinstance(kb.store, PostgresStore)
        make_persona(
            "alpha", rag={"sso.md": doc("sso", "SSO", "# SSO\n\nSAML single sign-on works with Okta.")}
        )
        folder = make_persona(
            "beta", rag={"fees.md": doc("fees", "Fees", "# Fees\n\nA full plot costs $40 per season.")}
        )
        report = kb.ingest(folder.parent)
        assert report.counts()["ingested"] == 2 and not (tmp_path / "home" / "shu.db").exists()
        assert kb.search("Okta SAML", persona="alpha")[0].chunk.doc_id == "sso"
        assert {h.chunk.doc_id for h in kb.search("plot costs", persona="alpha")} <= {"sso"}
        answer = kb.ask("How much does a full plot cost?", persona="beta")
        assert "$40" in answer.text and answer.citations[0].doc_id == "fees"
        assert kb.ingest(folder.parent).counts()["unchanged"] == 2, "incremental on PostgreSQL too"
        with pytest.raises(UnknownPersonaError):
            kb.search("x", persona="gamma")
        kb.close()


def test_opening_twice_applies_migrations_once() -> None:
    with fresh_database() as url:
        first, second = PostgresStore(url), PostgresStore(url)
        first.close()
        second.close()


def test_an_unreachable_server_is_a_clear_error() -> None:
    with pytest.raises(StoreError, match=r"postgresql://shu@127\.0\.0\.1:1/nowhere"):
        PostgresStore("postgresql://shu:secret@127.0.0.1:1/nowhere")


def test_the_hnsw_path_and_the_exact_path_agree_on_a_small_table() -> None:
    import numpy as np

    from shu.config.settings import StoreSettings
    from shu.store.testing import chunks, document, persona

    rng = np.random.default_rng(9)
    rows = rng.standard_normal((200, 16)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    with fresh_database() as url:
        exact = PostgresStore(url)
        exact.upsert_persona(persona("alpha"))
        for n in range(4):
            doc_id = f"d{n}"
            texts = [f"t{i}" for i in range(50)]
            exact.replace_document(
                document(doc_id, ["alpha"]), chunks(doc_id, texts), rows[n * 50 : (n + 1) * 50], "e"
            )
        with exact._connection() as conn:  # so small a table would be scanned: make the planner use HNSW
            database = url.rsplit("/", 1)[1]
            conn.execute(f"ALTER DATABASE {database} SET enable_seqscan = off")
            conn.execute(f"ALTER DATABASE {database} SET enable_bitmapscan = off")
        graph = PostgresStore(url, StoreSettings(exact_limit=0))
        query = rows[7] + 0.1 * rows[8]
        truth = [exact_hit.chunk_id for exact_hit in exact.search_vector(query, "alpha", 10)]
        expected = [f"d{i // 50}#{i % 50}" for i in np.argsort(-(rows @ query))[:10]]
        assert truth == expected
        assert len(set(truth) & {h.chunk_id for h in graph.search_vector(query, "alpha", 10)}) >= 9
        with graph._connection() as conn:  # the HNSW index really answered
            plan = conn.execute(
                "EXPLAIN SELECT id FROM chunks WHERE personas @> ARRAY['alpha']::text[] "
                "ORDER BY embedding::vector(16) <=> %s::vector(16) LIMIT 10",
                (query.astype(np.float32),),
            ).fetchall()
        assert "chunks_embedding_hnsw" in " ".join(r[0] for r in plan)
        # a filter's documents are a condition of the HNSW query: iterative scans fill the limit
        # from them, and the result is the exact order among them
        among = [f"d2#{i}" for i in np.argsort(-(rows[100:150] @ query))[:10]]
        filtered = graph.search_vector(query, "alpha", 10, within=frozenset({"d2"}))
        assert len(filtered) == 10 and {h.chunk_id for h in filtered} <= {f"d2#{i}" for i in range(50)}
        assert len(set(among) & {h.chunk_id for h in filtered}) >= 9
        exact.close()
        graph.close()


def test_many_processes_opening_a_new_database_at_once() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with fresh_database() as url:

        def open_and_close(_: int) -> int:
            store = PostgresStore(url)
            count = store.stats().documents
            store.close()
            return count

        with ThreadPoolExecutor(6) as pool:
            assert list(pool.map(open_and_close, range(12))) == [0] * 12


def test_text_postgresql_cannot_hold_is_cleaned_not_refused() -> None:
    from shu.store.testing import chunks, document, persona, unit, vectors

    with fresh_database() as url:
        store = PostgresStore(url)
        store.upsert_persona(persona("alpha"))
        odd = document("odd", ["alpha"], meta={"score": float("nan"), "note": "a\x00b"})
        store.replace_document(odd, chunks("odd", ["nul\x00inside the text"]), vectors(unit(1)), "e")
        assert store.search_keyword("nul\x00inside", "alpha", 1)[0].chunk_id == "odd#0"
        assert store.get_document("odd").meta == {"score": None, "note": "ab"}  # type: ignore[union-attr]
        store.close()


def test_a_bulk_load_counts_the_same_bm25_statistics_as_loading_one_by_one() -> None:
    """A bulk load defers the statistics and the postings' indexes to its end; a document that
    was there before it, replaced inside it, is taken away once and counted again once."""
    from concurrent.futures import ThreadPoolExecutor

    with fresh_database() as one_by_one, fresh_database() as bulk, fresh_database() as from_empty:
        plain = sql_store(one_by_one)
        fill(plain, list(ORCHARD))
        plain.close()
        loaded = sql_store(bulk)
        fill(loaded, ["d0", "d1"])
        texts = {**ORCHARD, "d1": ["the orchard 1 was sold", "no more honey"]}
        with loaded.bulk(), ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda doc_id: fill(loaded, [doc_id], texts), list(texts)))
            fill(loaded, ["d5"], texts)  # twice in one bulk
        loaded.close()
        plain = sql_store(one_by_one)
        fill(plain, ["d1"], texts)
        plain.close()
        empty = sql_store(from_empty)
        with empty.bulk():  # postings go in without their indexes, built at the end
            fill(empty, list(texts), texts)
        empty.close()
        expected = bm25_statistics(one_by_one)
        assert bm25_statistics(bulk) == expected
        assert bm25_statistics(from_empty) == expected
        assert expected[3] == [("bm25_postings_chunk",), ("bm25_postings_pkey",)]
        assert expected[0] == (60, expected[0][1]) and expected[4], "statistics and a ranking to compare"


def test_bm25_statistics_are_kept_only_once_sql_keyword_search_is_asked_for() -> None:
    """Loaded for the in-memory index (the default), PostgreSQL keeps no postings; the first store
    opened for SQL keyword search counts them from every chunk, and from then on every writer,
    in memory mode too, keeps them."""
    with fresh_database() as url, fresh_database() as reference:
        memory = PostgresStore(url)
        memory.upsert_persona(persona("alpha"))
        fill(memory, list(ORCHARD)[:20])
        with memory._connection() as conn:
            assert conn.execute("SELECT count(*) FROM bm25_postings").fetchone() == (0,)
        in_sql = sql_store(url)
        fill(memory, list(ORCHARD)[20:])  # a memory-mode writer after the switch
        memory.delete_document("d3")
        sql_reference = sql_store(reference)
        fill(sql_reference, [d for d in ORCHARD if d != "d3"])
        assert bm25_statistics(url) == bm25_statistics(reference)
        found = in_sql.search_keyword("orchard honey 7", "alpha", 3)
        assert found and found[0].chunk_id == "d7#1"
        for opened in (memory, in_sql, sql_reference):
            opened.close()


def test_an_older_store_gets_its_identifier_terms_when_opened() -> None:
    """A store written before identifier terms (its chunks' `keyword_terms` empty, the upgrade
    pending) gets them when opened, and its SQL BM25 statistics are counted again to match."""
    texts = {
        "code": ["Call run_target after DiffExecutor.", "Nothing else."],
        "decoy": ["Run the target; run target.", "Nothing more."],
    }
    with fresh_database() as url, fresh_database() as reference:
        store = sql_store(url)
        fill(store, list(texts), texts)
        store.close()
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:  # as an older Shu left it
            store = sql_store(url)
            with store._connection() as inner, inner.transaction():
                store._count_terms(inner, ["code"], -1)
                inner.execute("DELETE FROM bm25_postings WHERE chunk_id LIKE 'code#%'")
                inner.execute("UPDATE chunks SET keyword_terms = ''")
                store._count_terms(inner, ["code"], +1)
            store.close()
            conn.execute("INSERT INTO shu_meta(key, value) VALUES ('identifier_terms', '\"pending\"')")
        reopened = sql_store(url)
        assert reopened.search_keyword("run_target", "alpha", 2)[0].chunk_id == "code#0"
        assert [h.chunk_id for h in reopened.search_keyword("diff executor", "alpha", 2)] == ["code#0"]
        reopened.close()
        fill(sql_store(reference), list(texts), texts)
        assert bm25_statistics(url)[:3] == bm25_statistics(reference)[:3]


ORCHARD = {
    f"d{n}": [f"apples and pears number {n} grow", f"the orchard {n} keeps bees and honey"] for n in range(30)
}


def sql_store(url: str) -> PostgresStore:
    from shu.config.settings import StoreSettings

    store = PostgresStore(url, StoreSettings(keyword="sql"))
    store.upsert_persona(persona("alpha"))
    return store


def fill(store: PostgresStore, docs: list[str], texts: dict[str, list[str]] = ORCHARD) -> None:
    from shu.store.testing import chunks, document, unit, vectors

    for doc_id in docs:
        store.replace_document(
            document(doc_id, ["alpha"]), chunks(doc_id, texts[doc_id]), vectors(unit(1, 0), unit(0, 1)), "e"
        )


def bm25_statistics(url: str) -> tuple[object, ...]:
    """Corpus totals, document frequencies, postings, the postings' indexes, and a ranking."""
    store = sql_store(url)
    with store._connection() as conn:
        corpus = conn.execute("SELECT chunks, total_length FROM bm25_corpus").fetchone()
        terms = conn.execute("SELECT lexeme, df FROM bm25_terms WHERE df > 0 ORDER BY lexeme").fetchall()
        postings = conn.execute(
            "SELECT lexeme, chunk_id, tf, length FROM bm25_postings ORDER BY 1, 2"
        ).fetchall()
        indexes = conn.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'bm25_postings' ORDER BY indexname"
        ).fetchall()
    found = [(h.chunk_id, round(h.score, 6)) for h in store.search_keyword("orchard honey 7", "alpha", 5)]
    store.close()
    return corpus, terms, postings, indexes, found


def test_a_database_that_stops_answering_is_a_503_not_the_callers_fault(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    import httpx
    import psycopg

    from shu.serve.background import running
    from shu.serve.http import create_app

    with fresh_database() as url:
        kb = open_kb(tmp_path / "home", [f"store.url={url}", "store.wait_s=1"], embedder=embedder)
        assert not kb.ingest(make_persona("alpha", rag={"a.md": doc("a", "A", "# A\n\nText.")}).parent).failed
        with running(create_app(kb)) as served:
            assert httpx.get(f"{served}/v1/personas/alpha/documents", timeout=30).status_code == 200
            database = url.rsplit("/", 1)[1]
            with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
                admin.execute(f"ALTER DATABASE {database} CONNECTION LIMIT 0")
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (database,)
                )
            gone = httpx.get(f"{served}/v1/personas/alpha/documents", timeout=60)
            assert gone.status_code == 503, gone.text
            assert gone.headers["retry-after"] == "5" and gone.json()["error"]["type"] == "server_error"
            with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
                admin.execute(f"ALTER DATABASE {database} CONNECTION LIMIT -1")
        kb.close()
