"""The PostgreSQL + pgvector store: the same `Store` protocol as SQLite, for knowledge bases that
outgrow one file. psycopg 3 with a connection pool; chunks arrive by binary COPY; vectors are
searched through HNSW indexes with pgvector's iterative scans, so a persona filter keeps recall.

Keyword ranking is real BM25 (k1 = 1.2, b = 0.75, the IDF of SQLite's FTS5), computed in SQL from
term statistics this store keeps itself: `bm25_postings` (lexeme → chunk, term frequency, chunk
length), `bm25_terms` (chunks per lexeme) and `bm25_corpus` (chunks, total length); lexemes come
from PostgreSQL's `english` text search configuration. PostgreSQL's `ts_rank` has no IDF and no
length saturation, which costs ranking quality (see docs/benchmarks.md)."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np

from shu.config.settings import StoreSettings
from shu.errors import StoreError
from shu.store.base import (
    ScoredChunk,
    ScoredDocument,
    ScoredQuestion,
    StoredDocument,
    StoreStats,
)
from shu.store.document_index import DocumentIndex
from shu.store.keyword_index import CHANGE_LOG, KeywordIndexes
from shu.store.postgres_schema import MIGRATIONS, POSTINGS_INDEXES, VECTOR_TABLES, vector_indexes
from shu.store.postgres_service import PostgresServiceTables
from shu.store.rows import (
    CHUNK_FIELDS,
    DOCUMENT_FIELDS,
    FINDING_FIELDS,
    check_replacement,
    chunk_from,
    coverage,
    document_from,
    document_values,
    exported,
    finding_from,
    finding_key,
    finding_values,
    findings_applied,
    now,
    persona_from,
    sum_llm_runs,
    with_agent_relationships,
)
from shu.text import content_words
from shu.types import (
    Chunk,
    ChunkProfile,
    Document,
    DocumentProfile,
    Enrichment,
    Finding,
    Persona,
    Provenance,
    Relationship,
    SynthesizedQuestion,
)

_LOCK_ID = 7_316_001  # advisory lock taken while migrating
_WRITER_LOCK_ID = 7_316_002  # held by an ingestion run
_BULK_LOCK_ID = 7_316_003  # shared by bulk loads; SQL keyword statistics are built under it alone
_DOC_COLUMNS = ", ".join(DOCUMENT_FIELDS)
_CHUNK_COLUMNS = ", ".join(CHUNK_FIELDS)
_FINDING_COLUMNS = ", ".join(FINDING_FIELDS)
_NEWEST_FIRST = 'ORDER BY created COLLATE "C" DESC, id DESC'
_K1, _B = 1.2, 0.75
_TSV_LENGTH = (
    "(SELECT coalesce(sum(coalesce(array_length(p.positions, 1), 1)), 0) AS length FROM unnest(c.tsv) AS p)"
)
"""A chunk's length in tokens, from its tsvector (counted where it is needed, never stored)."""
_BM25 = f"""
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
    GROUP BY p.chunk_id
)
SELECT chunk_id, score FROM scored ORDER BY score DESC, chunk_id LIMIT %(limit)s
"""


class PostgresStore(PostgresServiceTables):
    def __init__(self, url: str, settings: StoreSettings | None = None) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:  # the optional extra is missing
            raise StoreError('PostgreSQL needs the extra: pip install "shu[postgres]"') from exc
        self.url = url
        self.settings = settings or StoreSettings()
        self._errors = (psycopg.Error,)
        self._pinned = threading.local()
        self._store_id: str | None = None
        try:
            self._migrate()
            self._pool = ConnectionPool(
                url,
                min_size=1,
                max_size=self.settings.pool_size,
                configure=self._configure,
                # No server-side prepared statements: a generic plan cannot know the LIMIT or the
                # query vector and falls back to scanning every row (measured: 2 ms → 45 ms).
                kwargs={"autocommit": True, "prepare_threshold": None},
                open=True,
                timeout=30,
            )
            self._pool.wait(timeout=30)
        except (psycopg.Error, OSError) as exc:
            raise StoreError(f"{_safe(url)}: cannot open the PostgreSQL store ({exc})") from exc
        except Exception as exc:  # psycopg_pool.PoolTimeout and friends
            raise StoreError(f"{_safe(url)}: cannot connect ({exc.__class__.__name__}: {exc})") from exc
        self._dim: int | None = self._embedder_dim()
        self._deferred = False
        self._uncounted: set[str] = set()
        """documents a bulk load wrote whose BM25 statistics are counted when it ends"""
        self._document_indexes: dict[str, DocumentIndex] = {}
        self._persona_rows: dict[tuple[str, str], int] = {}
        self._seen_version = -1
        self._keywords = (
            KeywordIndexes(self._keyword_chunks, self._keyword_changes)
            if self.settings.keyword == "memory"
            else None
        )
        self.keyword_in_sql = self._keywords is None
        if self.keyword_in_sql:
            self._keep_keyword_statistics()

    # -- lifecycle -------------------------------------------------------------------------

    def _migrate(self) -> None:
        """Create the extension, apply missing migrations (one transaction) and make sure the
        vector indexes exist (an interrupted bulk load leaves them dropped), all under a session
        advisory lock: processes opening a new store at once do it once."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_ID,))
            try:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                with conn.transaction():
                    self._apply_migrations(conn)
                    conn.execute(
                        "INSERT INTO shu_meta(key, value) VALUES ('store_id', %s) ON CONFLICT DO NOTHING",
                        (uuid.uuid4().hex,),
                    )
                row = conn.execute("SELECT value FROM shu_meta WHERE key = 'embedder'").fetchone()
                if row is not None:
                    dim = int(json.loads(row[0])["dim"])
                    for statement in vector_indexes(
                        dim, self.settings.hnsw_m, self.settings.hnsw_ef_construction
                    ):
                        conn.execute(statement)
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_ID,))

    def _apply_migrations(self, conn: Any) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS shu_migrations "
            "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT coalesce(max(version), 0) FROM shu_migrations").fetchone()
        applied = int(row[0]) if row else 0
        if applied > len(MIGRATIONS):
            raise StoreError(
                f"{_safe(self.url)} has schema {applied}; this Shu knows {len(MIGRATIONS)}: upgrade Shu"
            )
        for version, script in enumerate(MIGRATIONS[applied:], start=applied + 1):
            conn.execute(script)
            conn.execute("INSERT INTO shu_migrations(version) VALUES (%s)", (version,))

    def _configure(self, conn: Any) -> None:
        from pgvector.psycopg import register_vector

        register_vector(conn)
        conn.execute(f"SET hnsw.ef_search = {int(self.settings.hnsw_ef_search)}")
        conn.execute("SET hnsw.iterative_scan = relaxed_order")

    def close(self) -> None:
        self._pool.close()

    @contextmanager
    def writer(self) -> Iterator[None]:
        """A session advisory lock on its own connection (released by the server if the process
        dies)."""
        import psycopg

        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(f"{_safe(self.url)}: {exc}") from exc
        with conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_WRITER_LOCK_ID,))
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_WRITER_LOCK_ID,))

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        pinned = getattr(self._pinned, "conn", None)
        if pinned is not None:  # inside a snapshot this thread opened (`_snapshot`)
            yield pinned
            return
        try:
            with self._pool.connection() as conn:
                yield conn
        except self._errors as exc:
            raise StoreError(f"{_safe(self.url)}: {exc}") from exc

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Every read of this thread inside sees one REPEATABLE READ snapshot."""
        with self._connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            self._pinned.conn = conn
            try:
                yield
            finally:
                self._pinned.conn = None

    @contextmanager
    def _write(self) -> Iterator[Any]:
        """One write transaction. Writers queue on the BM25 corpus row (taken first, so two
        writers never hold each other's term rows), and the data version moves after commit."""
        with self._connection() as conn:
            with conn.transaction():
                if not self._deferred:  # a bulk load counts its statistics at the end
                    conn.execute("SELECT 1 FROM bm25_corpus WHERE id = 1 FOR UPDATE")
                yield conn
                conn.execute("SELECT nextval('shu_data_version')")  # moves even if we die after commit
            conn.execute("SELECT nextval('shu_data_version')")  # and again once the write is visible

    # -- personas --------------------------------------------------------------------------

    def upsert_persona(self, persona: Persona) -> None:
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO personas(slug, display_name, description, config_json, updated_at) "
                "VALUES (%s, %s, %s, %s, now()) ON CONFLICT (slug) DO UPDATE SET "
                "display_name = excluded.display_name, description = excluded.description, "
                "config_json = excluded.config_json, updated_at = now()",
                (persona.slug, persona.display_name, persona.description, persona.config.model_dump_json()),
            )
            conn.execute("SELECT nextval('shu_data_version')")

    def get_persona(self, slug: str) -> Persona | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT slug, display_name, description, config_json FROM personas WHERE slug = %s", (slug,)
            ).fetchone()
        return persona_from(*row) if row else None

    def list_personas(self) -> list[Persona]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT slug, display_name, description, config_json FROM personas ORDER BY slug"
            ).fetchall()
        return [persona_from(*row) for row in rows]

    # -- documents -------------------------------------------------------------------------

    def get_document(self, doc_id: str) -> Document | None:
        return self.get_documents([doc_id]).get(doc_id)

    def get_documents(self, doc_ids: list[str]) -> dict[str, Document]:
        if not doc_ids:
            return {}
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {_DOC_COLUMNS} FROM documents WHERE id = ANY(%s)", (list(set(doc_ids)),)
            ).fetchall()
        return {row[0]: document_from(row) for row in rows}

    def list_documents(self, persona: str | None = None) -> list[Document]:
        with self._connection() as conn:
            if persona is None:
                rows = conn.execute(f"SELECT {_DOC_COLUMNS} FROM documents ORDER BY id").fetchall()
            else:
                rows = conn.execute(
                    f"SELECT {_DOC_COLUMNS} FROM documents WHERE personas @> ARRAY[%s]::text[] ORDER BY id",
                    (persona,),
                ).fetchall()
        return [document_from(row) for row in rows]

    def replace_document(
        self,
        doc: Document,
        chunks: list[Chunk],
        vectors: np.ndarray,
        embedder: str,
        enrichment: Enrichment | None = None,
        question_vectors: np.ndarray | None = None,
        profile_vectors: dict[str, np.ndarray] | None = None,
    ) -> None:
        from psycopg.types.json import Jsonb

        check_replacement(doc, chunks, vectors, enrichment, question_vectors, profile_vectors)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        personas = list(dict.fromkeys(doc.personas))
        with self._write() as conn:
            self._check_embedder(conn, embedder, vectors.shape[1] if len(vectors) else None)
            kept = _statistics_kept(conn)
            self._delete(conn, doc.id, kept)
            values = list(document_values(doc))
            values[DOCUMENT_FIELDS.index("personas")] = personas
            values[DOCUMENT_FIELDS.index("meta")] = Jsonb(_json_safe(doc.meta))
            conn.execute(
                f"INSERT INTO documents({_DOC_COLUMNS}) VALUES ({', '.join(['%s'] * len(values))})", values
            )
            with (
                conn.cursor() as cursor,
                cursor.copy(
                    f"COPY chunks ({_CHUNK_COLUMNS}, personas, embedding) FROM STDIN WITH (FORMAT BINARY)"
                ) as copy,
            ):
                copy.set_types(
                    ["text", "text", "int4", "text", "text", "text", "int4", "text", "text[]", "vector"]
                )
                for chunk, vector in zip(chunks, vectors, strict=True):
                    copy.write_row(
                        (
                            chunk.id,
                            doc.id,
                            chunk.ord,
                            _text(chunk.section_path),
                            _text(chunk.text),
                            _text(chunk.index_text),
                            chunk.token_count,
                            _text(chunk.context),
                            personas,
                            vector,
                        )
                    )
            if self._deferred:
                self._uncounted.add(doc.id)
            elif kept:
                self._count_terms(conn, [doc.id], +1)
            if enrichment is not None:
                self._write_enrichment(conn, doc.id, personas, enrichment, question_vectors)
            for surface, vector in (profile_vectors or {}).items():
                conn.execute(
                    "INSERT INTO profile_vectors(doc_id, surface, personas, embedding) "
                    "VALUES (%s, %s, %s, %s)",
                    (doc.id, surface, personas, np.asarray(vector, dtype=np.float32)),
                )

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

    def _keep_keyword_statistics(self) -> None:
        """The SQL keyword search reads BM25 statistics (postings, document frequencies, corpus
        length) that writers keep only once some store has asked for them (the in-memory index,
        the default, needs none: PostgreSQL loads without them several times faster). The first
        such store counts them from every chunk, after any bulk load under way (which counts its
        own documents at its end only if the statistics were kept when it ended)."""
        with self._connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_BULK_LOCK_ID,))
            conn.execute("SELECT 1 FROM bm25_corpus WHERE id = 1 FOR UPDATE")
            if _statistics_kept(conn):
                return
            conn.execute("TRUNCATE bm25_postings, bm25_terms")
            conn.execute("UPDATE bm25_corpus SET chunks = 0, total_length = 0 WHERE id = 1")
            _drop_postings_indexes(conn)  # and built once, sorted, after the rows are in
            self._count_terms(conn, None, +1)
            conn.execute(f"SET LOCAL maintenance_work_mem = '{self.settings.index_build_memory}'")
            for statement in POSTINGS_INDEXES:
                conn.execute(statement)
            conn.execute("INSERT INTO shu_meta(key, value) VALUES ('keyword_statistics', '\"kept\"')")

    def _write_enrichment(
        self,
        conn: Any,
        doc_id: str,
        personas: list[str],
        enrichment: Enrichment,
        question_vectors: np.ndarray | None,
    ) -> None:
        if enrichment.profile is not None:
            provenance = enrichment.profile.provenance
            conn.execute(
                "INSERT INTO document_profiles(doc_id, profile_json, method, prompt_version) "
                "VALUES (%s, %s, %s, %s)",
                (doc_id, enrichment.profile.model_dump_json(), provenance.method, provenance.prompt_version),
            )
        if question_vectors is not None:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO questions(id, doc_id, ord, text, method, prompt_version, personas, "
                    "embedding) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    [
                        (
                            q.id,
                            doc_id,
                            i,
                            q.text,
                            q.provenance.method,
                            q.provenance.prompt_version,
                            personas,
                            np.asarray(v, dtype=np.float32),
                        )
                        for i, (q, v) in enumerate(zip(enrichment.questions, question_vectors, strict=True))
                    ],
                )
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO relationships(source_doc, target_doc, type, origin, confidence, evidence) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                [
                    (doc_id, r.target, r.type, r.origin, r.confidence, r.evidence)
                    for r in enrichment.relationships
                ],
            )
            cursor.executemany(
                "INSERT INTO chunk_profiles(chunk_id, profile_json, method, prompt_version) "
                "VALUES (%s, %s, %s, %s)",
                [
                    (p.chunk_id, p.model_dump_json(), p.provenance.method, p.provenance.prompt_version)
                    for p in enrichment.chunk_profiles
                ],
            )

    def delete_document(self, doc_id: str) -> bool:
        with self._write() as conn:
            conn.execute("DELETE FROM findings WHERE doc_id = %s", (doc_id,))
            return self._delete(conn, doc_id, _statistics_kept(conn))

    def _delete(self, conn: Any, doc_id: str, kept: bool) -> bool:
        """Everything of the document, and a line in the change log (kept to its last
        `CHANGE_LOG` entries) for the keyword indexes; its BM25 statistics taken away if they
        are `kept`."""
        conn.execute("INSERT INTO chunk_changes(doc_id) VALUES (%s)", (doc_id,))
        conn.execute(
            "DELETE FROM chunk_changes WHERE seq <= (SELECT max(seq) FROM chunk_changes) - %s", (CHANGE_LOG,)
        )
        if kept and doc_id not in self._uncounted:  # (a bulk counts its documents at its end)
            self._count_terms(conn, [doc_id], -1)
        return conn.execute("DELETE FROM documents WHERE id = %s", (doc_id,)).rowcount > 0

    def _check_embedder(self, conn: Any, name: str, dim: int | None) -> None:
        row = conn.execute("SELECT value FROM shu_meta WHERE key = 'embedder'").fetchone()
        if row is None:
            if dim is not None:
                conn.execute(
                    "INSERT INTO shu_meta(key, value) VALUES ('embedder', %s) ON CONFLICT (key) DO NOTHING",
                    (json.dumps({"name": name, "dim": dim}),),
                )
                if not self._deferred:
                    settings = self.settings
                    for statement in vector_indexes(dim, settings.hnsw_m, settings.hnsw_ef_construction):
                        conn.execute(statement)
                self._dim = dim
            return
        known = json.loads(row[0])
        if known["name"] != name or (dim is not None and known["dim"] != dim):
            raise StoreError(
                f"this store holds vectors from embedder {known['name']} ({known['dim']}-d), not "
                f"{name}; use another database or re-ingest everything with the original embedder"
            )

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Load many documents fast (`shu migrate` and benchmarks use it): the HNSW indexes are
        dropped and built once at the end (far faster than growing the graphs row by row), the
        BM25 statistics are counted at the end a thousand documents a statement, writers do not
        queue on the statistics row (so several threads can load at once), and into an empty
        postings table the postings go without their indexes, built once sorted."""
        with self._connection() as guard:  # held to the end: statistics are not built meanwhile
            guard.execute("SELECT pg_advisory_lock_shared(%s)", (_BULK_LOCK_ID,))
            try:
                with self._loading():
                    yield
            finally:
                guard.execute("SELECT pg_advisory_unlock_shared(%s)", (_BULK_LOCK_ID,))

    @contextmanager
    def _loading(self) -> Iterator[None]:
        self.drop_vector_indexes()
        with self._connection() as conn:
            empty = conn.execute("SELECT NOT EXISTS (SELECT 1 FROM bm25_postings)").fetchone()[0]
            if empty:
                _drop_postings_indexes(conn)
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
                if not _statistics_kept(conn):
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

    # -- enrichment ------------------------------------------------------------------------

    def export_document(self, doc_id: str) -> StoredDocument | None:
        """Read in one snapshot: a concurrent writer cannot pair new chunks with old vectors."""
        with self._snapshot():
            return self._export(doc_id)

    def _export(self, doc_id: str) -> StoredDocument | None:
        doc = self.get_document(doc_id)
        if doc is None:
            return None
        with self._connection() as conn:
            chunk_rows = conn.execute(
                "SELECT embedding FROM chunks WHERE doc_id = %s ORDER BY ord", (doc_id,)
            ).fetchall()
            question_rows = conn.execute(
                "SELECT embedding FROM questions WHERE doc_id = %s ORDER BY ord", (doc_id,)
            ).fetchall()
            profile_rows = conn.execute(
                "SELECT surface, embedding FROM profile_vectors WHERE doc_id = %s", (doc_id,)
            ).fetchall()
            meta = conn.execute("SELECT value FROM shu_meta WHERE key = 'embedder'").fetchone()
        vector = lambda value: np.asarray(getattr(value, "to_numpy", lambda: value)(), dtype=np.float32)  # noqa: E731
        return exported(
            self,
            doc,
            json.loads(meta[0])["name"] if meta else "",
            [vector(r[0]) for r in chunk_rows],
            [vector(r[0]) for r in question_rows],
            {surface: vector(value) for surface, value in profile_rows},
            self._stored_profile(doc_id),
            self._stored_relationships([doc_id]),
        )

    def get_profile(self, doc_id: str) -> DocumentProfile | None:
        return self.get_profiles([doc_id]).get(doc_id)

    def get_profiles(self, doc_ids: list[str]) -> dict[str, DocumentProfile]:
        if not doc_ids:
            return {}
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT doc_id, profile_json FROM document_profiles WHERE doc_id = ANY(%s)",
                (list(dict.fromkeys(doc_ids)),),
            ).fetchall()
        stored = {r[0]: DocumentProfile.model_validate_json(r[1]) for r in rows}
        return findings_applied(
            stored, self._active_findings(list(stored), "document_type", "stale_manifest")
        )

    def _stored_profile(self, doc_id: str) -> DocumentProfile | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT profile_json FROM document_profiles WHERE doc_id = %s", (doc_id,)
            ).fetchone()
        return DocumentProfile.model_validate_json(row[0]) if row else None

    def list_relationships(self, doc_ids: list[str]) -> list[Relationship]:
        found = self._stored_relationships(doc_ids)
        return with_agent_relationships(found, self._active_findings(doc_ids, "relationship"))

    def _stored_relationships(self, doc_ids: list[str]) -> list[Relationship]:
        if not doc_ids:
            return []
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT source_doc, target_doc, type, origin, confidence, evidence FROM relationships "
                "WHERE source_doc = ANY(%s) ORDER BY source_doc, confidence DESC, target_doc",
                (list(dict.fromkeys(doc_ids)),),
            ).fetchall()
        return [
            Relationship(source=r[0], target=r[1], type=r[2], origin=r[3], confidence=r[4], evidence=r[5])
            for r in rows
        ]

    # -- the agent's findings --------------------------------------------------------------

    def add_finding(self, finding: Finding) -> Finding:
        stored = finding.model_copy(update={"id": None, "created": finding.created or now()})
        existing = self._same_finding(stored)
        if existing is not None:  # nothing written: the generation (and cached answers) stay
            return existing
        with self._write() as conn:  # writers queue: the check below sees every earlier finding
            existing = self._same_finding(stored, conn)
            if existing is not None:
                return existing
            values = [_text(v) if isinstance(v, str) else v for v in finding_values(stored)]
            row = conn.execute(
                f"INSERT INTO findings({_FINDING_COLUMNS}) VALUES (DEFAULT, {', '.join(['%s'] * 10)}) "
                "RETURNING id",
                values,
            ).fetchone()
            stored.id = int(row[0])
        return stored

    def _same_finding(self, finding: Finding, conn: Any = None) -> Finding | None:
        """The active finding identical to this one (none for one that arrives undone)."""
        if finding.undone:
            return None
        with self._connection() if conn is None else nullcontext(conn) as used:
            row = used.execute(
                f"SELECT {_FINDING_COLUMNS} FROM findings WHERE kind = %s AND doc_id = %s "
                "AND persona = %s AND coalesce(target, '') = %s AND coalesce(value, '') = %s AND NOT undone",
                [_text(v) for v in finding_key(finding)],
            ).fetchone()
        return finding_from(row) if row else None

    def list_findings(self, persona: str | None = None, include_undone: bool = False) -> list[Finding]:
        where = ["true"]
        params: list[Any] = []
        if persona is not None:
            where.append("persona = %s")
            params.append(persona)
        if not include_undone:
            where.append("NOT undone")
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {_FINDING_COLUMNS} FROM findings WHERE {' AND '.join(where)} {_NEWEST_FIRST}",
                params,
            ).fetchall()
        return [finding_from(row) for row in rows]

    def undo_finding(self, finding_id: int) -> bool:
        with self._connection() as conn:
            active = conn.execute(
                "SELECT 1 FROM findings WHERE id = %s AND NOT undone", (finding_id,)
            ).fetchone()
        if active is None:  # nothing to write: the generation stays
            return False
        with self._write() as conn:
            updated = conn.execute(
                "UPDATE findings SET undone = true WHERE id = %s AND NOT undone", (finding_id,)
            )
            return updated.rowcount > 0

    def _active_findings(self, doc_ids: list[str], *kinds: str) -> list[Finding]:
        """Active findings of these kinds about these documents, newest first."""
        if not doc_ids:
            return []
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {_FINDING_COLUMNS} FROM findings WHERE doc_id = ANY(%s) AND kind = ANY(%s) "
                f"AND NOT undone {_NEWEST_FIRST}",
                (list(dict.fromkeys(doc_ids)), list(kinds)),
            ).fetchall()
        return [finding_from(row) for row in rows]

    def list_questions(self, doc_id: str) -> list[SynthesizedQuestion]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id, text, method, prompt_version FROM questions WHERE doc_id = %s ORDER BY ord",
                (doc_id,),
            ).fetchall()
        return [
            SynthesizedQuestion(
                id=r[0], doc_id=doc_id, text=r[1], provenance=Provenance(method=r[2], prompt_version=r[3])
            )
            for r in rows
        ]

    def get_chunk_profiles(self, chunk_ids: list[str]) -> dict[str, ChunkProfile]:
        if not chunk_ids:
            return {}
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT chunk_id, profile_json FROM chunk_profiles WHERE chunk_id = ANY(%s)",
                (list(set(chunk_ids)),),
            ).fetchall()
        return {chunk_id: ChunkProfile.model_validate_json(blob) for chunk_id, blob in rows}

    def search_questions(self, vector: np.ndarray, persona: str, limit: int) -> list[ScoredQuestion]:
        rows = self._nearest("questions", "id, doc_id, text", vector, persona, limit)
        return [ScoredQuestion(question_id=r[0], doc_id=r[1], text=r[2], score=r[-1]) for r in rows]

    def search_profiles(
        self, vector: np.ndarray, persona: str, surface: str, limit: int
    ) -> list[ScoredDocument]:
        rows = self._nearest("profile_vectors", "doc_id", vector, persona, limit, ("surface = %s", surface))
        return [ScoredDocument(doc_id=r[0], score=r[-1]) for r in rows]

    def _check_version(self) -> None:
        """Drop what this process cached once any process has written."""
        version = self._data_version()
        if version != self._seen_version:
            self._document_indexes.clear()
            self._persona_rows.clear()
            self._seen_version = version

    def document_index(self, persona: str) -> DocumentIndex:
        self._check_version()
        index = self._document_indexes.get(persona)
        if index is None:
            with self._connection() as conn:
                rows = conn.execute(
                    f"SELECT {', '.join('d.' + f for f in DOCUMENT_FIELDS)}, p.profile_json FROM documents d "
                    "LEFT JOIN document_profiles p ON p.doc_id = d.id "
                    "WHERE d.personas @> ARRAY[%s]::text[] ORDER BY d.id",
                    (persona,),
                ).fetchall()
                profiles = conn.execute(
                    "SELECT cp.profile_json FROM chunks c JOIN chunk_profiles cp ON cp.chunk_id = c.id "
                    "WHERE c.personas @> ARRAY[%s]::text[] ORDER BY c.doc_id, c.ord",
                    (persona,),
                ).fetchall()
            index = DocumentIndex.build(
                [
                    (document_from(r[:-1]), DocumentProfile.model_validate_json(r[-1]) if r[-1] else None)
                    for r in rows
                ],
                [ChunkProfile.model_validate_json(r[0]) for r in profiles],
            )
            self._document_indexes[persona] = index
        return index

    def generation(self) -> str:
        """`<store id>:<data version>`: a new database never reuses an old one's numbers."""
        if self._store_id is None:
            with self._connection() as conn:
                row = conn.execute("SELECT value FROM shu_meta WHERE key = 'store_id'").fetchone()
            self._store_id = row[0] if row else ""
        return f"{self._store_id}:{self._data_version()}"

    def _data_version(self) -> int:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END FROM shu_data_version"
            )
            return int(row.fetchone()[0])

    def record_llm_run(self, summary: dict[str, object]) -> None:
        with self._connection() as conn:
            conn.execute("INSERT INTO llm_runs(summary_json) VALUES (%s)", (json.dumps(summary),))

    def llm_totals(self) -> dict[str, object]:
        with self._connection() as conn:
            rows = conn.execute("SELECT summary_json FROM llm_runs ORDER BY id").fetchall()
        return sum_llm_runs(json.loads(blob) for (blob,) in rows)

    def enrichment_stats(self) -> dict[str, dict[str, int]]:
        stats: dict[str, dict[str, int]] = {}
        with self._connection() as conn:
            for artifact, table, made_by in (
                ("relationships", "relationships", "origin"),
                ("profiles", "document_profiles", "method"),
                ("questions", "questions", "method"),
                ("chunk_profiles", "chunk_profiles", "method"),
            ):
                rows = conn.execute(f"SELECT {made_by}, count(*) FROM {table} GROUP BY {made_by}").fetchall()
                stats[artifact] = {str(k): int(v) for k, v in rows}
            with_context, average_words = conn.execute(
                "SELECT count(*), avg(array_length(regexp_split_to_array(context, ' '), 1)) "
                "FROM chunks WHERE context != ''"
            ).fetchone()
            total_chunks, documents, profiled = conn.execute(
                "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM documents), "
                "(SELECT count(*) FROM document_profiles)"
            ).fetchone()
        return coverage(stats, total_chunks, with_context, float(average_words or 0), documents, profiled)

    # -- chunks and search -----------------------------------------------------------------

    def get_chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]:
        if not chunk_ids:
            return {}
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id = ANY(%s)", (list(set(chunk_ids)),)
            ).fetchall()
        return {row[0]: chunk_from(row) for row in rows}

    def chunk_documents(self, chunk_ids: list[str]) -> dict[str, str]:
        if not chunk_ids:
            return {}
        with self._connection() as conn:
            rows = conn.execute("SELECT id, doc_id FROM chunks WHERE id = ANY(%s)", (list(set(chunk_ids)),))
            return dict(rows.fetchall())

    def first_chunks(self, doc_ids: list[str]) -> dict[str, str]:
        if not doc_ids:
            return {}
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT doc_id, id FROM chunks WHERE doc_id = ANY(%s) AND ord = 0", (list(set(doc_ids)),)
            )
            return dict(rows.fetchall())

    def adjacent_chunks(self, chunk_ids: list[str]) -> dict[str, list[str]]:
        if not chunk_ids:
            return {}
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT c.id, n.id FROM chunks c JOIN chunks n ON n.doc_id = c.doc_id "
                "AND n.ord IN (c.ord - 1, c.ord + 1) WHERE c.id = ANY(%s) ORDER BY c.id, n.ord",
                (list(set(chunk_ids)),),
            )
            found: dict[str, list[str]] = {}
            for chunk_id, neighbour in rows.fetchall():
                found.setdefault(chunk_id, []).append(neighbour)
            return found

    def list_chunks(self, doc_id: str) -> list[Chunk]:
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE doc_id = %s ORDER BY ord", (doc_id,)
            ).fetchall()
        return [chunk_from(row) for row in rows]

    def search_keyword(self, query: str, persona: str, limit: int) -> list[ScoredChunk]:
        if limit <= 0 or not query.strip():
            return []
        if self._keywords is not None:
            terms = " ".join(dict.fromkeys(content_words(_text(query))))  # cleaned as the stored text
            found = self._keywords.search(terms, persona, limit) if terms else []
            return [ScoredChunk(chunk_id=chunk_id, score=score) for chunk_id, score in found]
        with self._connection() as conn:
            rows = conn.execute(_BM25, {"query": _text(query), "persona": persona, "limit": limit}).fetchall()
        return [ScoredChunk(chunk_id=r[0], score=float(r[1])) for r in rows]

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

    def _keyword_changes(self, seen: int | None) -> tuple[int, int, list[str]]:
        with self._connection() as conn:
            oldest, newest = conn.execute("SELECT min(seq), max(seq) FROM chunk_changes").fetchone()
            newest = int(newest or 0)
            if seen is None or seen >= newest:
                return int(oldest or 0), newest, []
            docs = conn.execute(
                "SELECT DISTINCT doc_id FROM chunk_changes WHERE seq > %s AND seq <= %s", (seen, newest)
            ).fetchall()
            return int(oldest or 0), newest, [row[0] for row in docs]

    def search_vector(self, vector: np.ndarray, persona: str, limit: int) -> list[ScoredChunk]:
        rows = self._nearest("chunks", "id", vector, persona, limit)
        return [ScoredChunk(chunk_id=r[0], score=r[-1]) for r in rows]

    def _nearest(
        self,
        table: str,
        columns: str,
        vector: np.ndarray,
        persona: str,
        limit: int,
        extra: tuple[str, str] | None = None,
    ) -> list[tuple[Any, ...]]:
        """Cosine nearest rows of one persona, best first. A persona with at most
        `store.exact_limit` rows in the table is searched exactly (the filter first, then every
        distance): measured at 100k chunks, HNSW with iterative scans kept only 0.70 recall@10 for
        a persona holding 2 % of them. Larger personas go through the HNSW index; iterative
        scans keep the filter from starving the result."""
        if self._dim is None:  # another process may have written the first vectors since
            self._dim = self._embedder_dim()
        dim = self._dim
        if dim is None or limit <= 0:
            return []
        exact = self._persona_size(table, persona) <= self.settings.exact_limit
        # Ordering by the bare column does not match the index expression: an exact scan.
        cast = "embedding" if exact else f"embedding::vector({dim})"
        where = f"personas @> ARRAY[%s]::text[]{' AND ' + extra[0] if extra else ''}"
        params: list[Any] = [np.asarray(vector, dtype=np.float32), persona]
        params += [extra[1]] if extra else []
        params += [np.asarray(vector, dtype=np.float32), limit]
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {columns}, 1 - ({cast} <=> %s::vector({dim})) AS score FROM {table} "
                f"WHERE {where} ORDER BY {cast} <=> %s::vector({dim}) LIMIT %s",
                params,
            ).fetchall()
        found = [(*r[:-1], float(r[-1])) for r in rows]
        return sorted(found, key=lambda r: -r[-1])  # relaxed_order scans may return near-ties out of order

    def _persona_size(self, table: str, persona: str) -> int:
        self._check_version()
        key = (table, persona)
        if key not in self._persona_rows:
            with self._connection() as conn:
                row = conn.execute(
                    f"SELECT count(*) FROM {table} WHERE personas @> ARRAY[%s]::text[]", (persona,)
                )
                self._persona_rows[key] = int(row.fetchone()[0])
        return self._persona_rows[key]

    def stats(self) -> StoreStats:
        with self._connection() as conn:
            personas, documents, chunks, size = conn.execute(
                "SELECT (SELECT count(*) FROM personas), (SELECT count(*) FROM documents), "
                "(SELECT count(*) FROM chunks), pg_database_size(current_database())"
            ).fetchone()
            row = conn.execute("SELECT value FROM shu_meta WHERE key = 'embedder'").fetchone()
        return StoreStats(
            personas=personas,
            documents=documents,
            chunks=chunks,
            vectors=chunks,
            embedder=json.loads(row[0])["name"] if row else None,
            size_bytes=int(size),
        )


def _text(value: str) -> str:
    """PostgreSQL text cannot hold NUL characters (SQLite can): they go."""
    return value.replace("\x00", "")


def _json_safe(value: object) -> object:
    """JSON PostgreSQL accepts: no NaN or Infinity (they become null), no NUL characters."""
    dumped = json.dumps(value, default=str).replace("\\u0000", "")
    return json.loads(dumped, parse_constant=lambda _: None)


def _drop_postings_indexes(conn: Any) -> None:
    """Before many postings go in at once (`POSTINGS_INDEXES` builds them again)."""
    conn.execute("ALTER TABLE bm25_postings DROP CONSTRAINT IF EXISTS bm25_postings_pkey")
    conn.execute("DROP INDEX IF EXISTS bm25_postings_chunk")


def _statistics_kept(conn: Any) -> bool:
    """Whether writers keep the SQL keyword search's BM25 statistics (`_keep_keyword_statistics`)."""
    return conn.execute("SELECT 1 FROM shu_meta WHERE key = 'keyword_statistics'").fetchone() is not None


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{host}"
