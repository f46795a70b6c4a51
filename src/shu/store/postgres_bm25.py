"""BM25 in PostgreSQL's SQL: the statistics writers keep once a store asks for SQL keyword
search (`bm25_postings`: lexeme → chunk, term frequency, chunk length; `bm25_terms`: chunks per
lexeme; `bm25_corpus`: chunks and total length), the query that ranks by them (k1 = 1.2,
b = 0.75, the IDF of SQLite's FTS5; lexemes from the `english` text search configuration over a
chunk's text and its identifier terms), the identifier terms an older store's chunks are given,
the chunks the in-memory keyword index reads, and bulk loads, which count them, and build the
vector indexes, once at their end."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from shu.analysis import identifier_terms
from shu.config.settings import StoreSettings
from shu.store.postgres_schema import POSTINGS_INDEXES, VECTOR_TABLES, vector_indexes

BULK_LOCK_ID = 7_316_003  # shared by bulk loads; SQL keyword statistics are built under it alone
_K1, _B = 1.2, 0.75
_TSV_LENGTH = (
    "(SELECT coalesce(sum(coalesce(array_length(p.positions, 1), 1)), 0) AS length FROM unnest(c.tsv) AS p)"
)
"""A chunk's length in tokens, from its tsvector (counted where it is needed, never stored)."""
BM25 = f"""
WITH q AS (
    SELECT DISTINCT lexeme FROM unnest(tsvector_to_array(to_tsvector('english', %(query)s))) AS lexeme
), idf AS (
    SELECT t.lexeme, greatest(ln((c.chunks - t.df + 0.5)::float8 / (t.df + 0.5)::float8), 1e-6) AS idf
    FROM q JOIN bm25_terms t ON t.lexeme = q.lexeme CROSS JOIN bm25_corpus c
    WHERE t.df > 0
), corpus AS (
    SELECT greatest(total_length::float8 / greatest(chunks, 1), 1.0) AS avgdl FROM bm25_corpus
), scored AS (
    SELECT p.chunk_id,
           sum(idf.idf * p.tf::float8 * {_K1 + 1}
               / (p.tf::float8 + {_K1} * ({1 - _B} + {_B} * p.length::float8 / corpus.avgdl))) AS score
    FROM idf JOIN bm25_postings p ON p.lexeme = idf.lexeme CROSS JOIN corpus
    WHERE p.personas @> ARRAY[%(persona)s]::text[]
      AND (%(within)s::text[] IS NULL
           OR p.chunk_id IN (SELECT id FROM chunks WHERE doc_id = ANY(%(within)s::text[])))
    GROUP BY p.chunk_id
)
SELECT chunk_id, score FROM scored ORDER BY score DESC, chunk_id LIMIT %(limit)s
"""


class PostgresKeywordStatistics(ABC):
    settings: StoreSettings
    _deferred: bool
    _uncounted: set[str]
    _dim: int | None

    @abstractmethod
    def _connection(self) -> AbstractContextManager[Any]: ...

    @abstractmethod
    def _write(self) -> AbstractContextManager[Any]: ...

    def _keyword_chunks(
        self, persona: str | None, doc_ids: list[str] | None
    ) -> Iterator[tuple[str, str, str, str]]:
        """A persona's chunks, or the chunks of some documents in every persona they belong to."""
        if persona is not None:
            yield from self._persona_chunks(persona)
            return
        with self._connection() as conn:
            yield from conn.execute(
                "SELECT id, doc_id, index_text, unnest(personas) FROM chunks WHERE doc_id = ANY(%s) "
                "ORDER BY doc_id, ord",
                (doc_ids or [],),
            ).fetchall()

    def _persona_chunks(self, persona: str, batch: int = 20_000) -> Iterator[tuple[str, str, str, str]]:
        """Streamed through a server-side cursor, a batch at a time (at a million chunks the whole
        result at once is a gigabyte of Python tuples before the index holds any of it)."""
        with self._connection() as conn, conn.transaction(), conn.cursor(name="shu_keyword_chunks") as cursor:
            cursor.execute(
                "SELECT id, doc_id, index_text FROM chunks WHERE personas @> ARRAY[%s]::text[] "
                "ORDER BY doc_id, ord",
                (persona,),
            )
            while rows := cursor.fetchmany(batch):
                yield from ((chunk_id, doc_id, text, persona) for chunk_id, doc_id, text in rows)

    def _count_terms(self, conn: Any, doc_ids: list[str] | None, sign: int) -> None:
        """Keep the SQL keyword search's BM25 statistics: documents' (None: every document's)
        chunk lengths and lexemes are added (+1) once their chunks are in, or taken away (-1)
        before they go."""
        where = "c.doc_id = ANY(%(docs)s)" if doc_ids is not None else "true"
        given = {"docs": doc_ids, "sign": sign}
        if sign > 0:
            conn.execute(
                "INSERT INTO bm25_postings(lexeme, chunk_id, tf, length, personas) "
                "SELECT u.lexeme, c.id, coalesce(array_length(u.positions, 1), 1), l.length, c.personas "
                f"FROM chunks c CROSS JOIN LATERAL {_TSV_LENGTH} AS l, unnest(c.tsv) AS u WHERE {where}",
                given,
            )
        conn.execute(
            "INSERT INTO bm25_terms(lexeme, df) "
            "SELECT lexeme, %(sign)s * count(*) FROM chunks c, unnest(tsvector_to_array(c.tsv)) AS lexeme "
            f"WHERE {where} GROUP BY lexeme ORDER BY lexeme "
            "ON CONFLICT (lexeme) DO UPDATE SET df = bm25_terms.df + excluded.df",
            given,
        )
        conn.execute(
            "UPDATE bm25_corpus SET chunks = chunks + %(sign)s * x.n, "
            "total_length = total_length + %(sign)s * x.length "
            "FROM (SELECT count(*) AS n, coalesce(sum(l.length), 0) AS length "
            f"FROM chunks c CROSS JOIN LATERAL {_TSV_LENGTH} AS l WHERE {where}) x WHERE id = 1",
            given,
        )

    def _index_identifier_terms(self, conn: Any) -> None:
        """Give the chunks an older store had their identifier terms (once, when opened; the SQL
        keyword statistics, when kept, are counted again for their documents)."""
        if conn.execute("SELECT 1 FROM shu_meta WHERE key = 'identifier_terms'").fetchone() is None:
            return
        rows = conn.execute("SELECT id, doc_id, index_text FROM chunks").fetchall()
        changed = [
            (" ".join(terms), chunk_id, doc_id)
            for chunk_id, doc_id, text in rows
            if (terms := identifier_terms(text))
        ]
        doc_ids = sorted({doc_id for _, _, doc_id in changed})
        kept = statistics_kept(conn)
        if kept:
            self._count_terms(conn, doc_ids, -1)
            conn.execute(
                "DELETE FROM bm25_postings WHERE chunk_id IN (SELECT id FROM chunks WHERE doc_id = ANY(%s))",
                (doc_ids,),
            )
        with conn.cursor() as cursor:
            cursor.executemany("UPDATE chunks SET keyword_terms = %s WHERE id = %s", [c[:2] for c in changed])
        if kept:
            self._count_terms(conn, doc_ids, +1)
        conn.execute("DELETE FROM shu_meta WHERE key = 'identifier_terms'")

    def _keep_keyword_statistics(self) -> None:
        """The SQL keyword search reads BM25 statistics (postings, document frequencies, corpus
        length) that writers keep only once some store has asked for them (the in-memory index,
        the default, needs none: PostgreSQL loads without them several times faster). The first
        such store counts them from every chunk, after any bulk load under way (which counts its
        own documents at its end only if the statistics were kept when it ended)."""
        with self._connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (BULK_LOCK_ID,))
            conn.execute("SELECT 1 FROM bm25_corpus WHERE id = 1 FOR UPDATE")
            if statistics_kept(conn):
                return
            conn.execute("TRUNCATE bm25_postings, bm25_terms")
            conn.execute("UPDATE bm25_corpus SET chunks = 0, total_length = 0 WHERE id = 1")
            drop_postings_indexes(conn)  # and built once, sorted, after the rows are in
            self._count_terms(conn, None, +1)
            conn.execute(f"SET LOCAL maintenance_work_mem = '{self.settings.index_build_memory}'")
            for statement in POSTINGS_INDEXES:
                conn.execute(statement)
            conn.execute("INSERT INTO shu_meta(key, value) VALUES ('keyword_statistics', '\"kept\"')")

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Load many documents fast (`shu migrate` and benchmarks use it): the HNSW indexes are
        dropped and built once at the end (far faster than growing the graphs row by row), the
        BM25 statistics are counted at the end a thousand documents a statement, writers do not
        queue on the statistics row (so several threads can load at once), and into an empty
        postings table the postings go without their indexes, built once sorted."""
        with self._connection() as guard:  # held to the end: statistics are not built meanwhile
            guard.execute("SELECT pg_advisory_lock_shared(%s)", (BULK_LOCK_ID,))
            try:
                with self._loading():
                    yield
            finally:
                guard.execute("SELECT pg_advisory_unlock_shared(%s)", (BULK_LOCK_ID,))

    @contextmanager
    def _loading(self) -> Iterator[None]:
        self.drop_vector_indexes()
        with self._connection() as conn:
            empty = conn.execute("SELECT NOT EXISTS (SELECT 1 FROM bm25_postings)").fetchone()[0]
            if empty:
                drop_postings_indexes(conn)
        self._deferred = True
        try:
            yield
        finally:
            self._deferred = False
            self._count_uncounted()
            with self._connection() as conn:
                conn.execute(f"SET maintenance_work_mem = '{self.settings.index_build_memory}'")
                for statement in POSTINGS_INDEXES if empty else ():
                    conn.execute(statement)
                conn.execute("RESET maintenance_work_mem")
            self.create_vector_indexes()
            with self._connection() as conn:
                conn.execute("ANALYZE")  # fresh statistics, or the first plans guess badly

    def _count_uncounted(self, batch: int = 1000) -> None:
        """The BM25 statistics of the documents a bulk load left uncounted, if they are kept."""
        uncounted = sorted(self._uncounted)
        for start in range(0, len(uncounted), batch):
            with self._write() as conn:
                if not statistics_kept(conn):
                    break
                self._count_terms(conn, uncounted[start : start + batch], +1)
        self._uncounted.clear()

    def drop_vector_indexes(self) -> None:
        with self._connection() as conn:
            for table in VECTOR_TABLES:
                conn.execute(f"DROP INDEX IF EXISTS {table}_embedding_hnsw")

    def create_vector_indexes(self) -> None:
        if self._dim is None:
            self._dim = self._embedder_dim()
        if self._dim is None:
            return
        settings = self.settings
        with self._connection() as conn:
            conn.execute(f"SET maintenance_work_mem = '{settings.index_build_memory}'")
            conn.execute("SET max_parallel_maintenance_workers = 2")
            for statement in vector_indexes(self._dim, settings.hnsw_m, settings.hnsw_ef_construction):
                conn.execute(statement)
            conn.execute("RESET maintenance_work_mem")
            conn.execute("RESET max_parallel_maintenance_workers")

    def _embedder_dim(self) -> int | None:
        with self._connection() as conn:
            row = conn.execute("SELECT value FROM shu_meta WHERE key = 'embedder'").fetchone()
        return int(json.loads(row[0])["dim"]) if row else None


def drop_postings_indexes(conn: Any) -> None:
    """Before many postings go in at once (`POSTINGS_INDEXES` builds them again)."""
    conn.execute("ALTER TABLE bm25_postings DROP CONSTRAINT IF EXISTS bm25_postings_pkey")
    conn.execute("DROP INDEX IF EXISTS bm25_postings_chunk")


def statistics_kept(conn: Any) -> bool:
    """Whether writers keep the SQL keyword search's BM25 statistics (`_keep_keyword_statistics`)."""
    return conn.execute("SELECT 1 FROM shu_meta WHERE key = 'keyword_statistics'").fetchone() is not None
