"""The PostgreSQL + pgvector store: the same `Store` protocol as SQLite, for knowledge bases that
outgrow one file. psycopg 3 with a connection pool; chunks arrive by binary COPY; vectors are
searched through HNSW indexes with pgvector's iterative scans, so a persona filter keeps recall.

Keyword search uses the in-memory BM25 index by default; with `store.keyword = "sql"` it is real
BM25 computed in SQL (`shu.store.postgres_bm25`: PostgreSQL's `ts_rank` has no IDF and no length
saturation, which costs ranking quality). The reads and writes every SQL store shares are
`shu.store.sql`; this module keeps the pool, the locks, migrations, the binary COPY of chunks and
the vector search."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np
from pydantic import BaseModel

from shu.analysis import identifier_terms, joined_names, keyword_query
from shu.config.settings import StoreSettings
from shu.errors import StoreError
from shu.store.base import (
    ScoredChunk,
    ScoredDocument,
    ScoredQuestion,
    StoredDocument,
    StoreStats,
    Within,
)
from shu.store.document_index import DocumentIndex
from shu.store.keyword_index import KeywordIndexes
from shu.store.postgres_bm25 import BM25, PostgresKeywordStatistics, statistics_kept
from shu.store.postgres_schema import MIGRATIONS, VECTOR_TABLES, vector_indexes
from shu.store.rows import (
    CHUNK_FIELDS,
    DOCUMENT_FIELDS,
    check_replacement,
    document_from,
    document_values,
    exported,
)
from shu.store.sql import Row, SQLDialect, SQLKnowledge, placeholders
from shu.store.sql_logins import SQLLoginTables
from shu.store.sql_service import SQLServiceTables
from shu.text import content_words
from shu.types import (
    Chunk,
    Document,
    Enrichment,
    KeywordFeedback,
    Persona,
)

_LOCK_ID = 7_316_001  # advisory lock taken while migrating
_WRITER_LOCK_ID = 7_316_002  # held by an ingestion run
_CHUNK_COLUMNS = ", ".join(CHUNK_FIELDS)


class PostgresStore(SQLKnowledge, PostgresKeywordStatistics, SQLServiceTables, SQLLoginTables):
    dialect = SQLDialect(
        meta="shu_meta",
        document_columns=", ".join(f"d.{name}" for name in DOCUMENT_FIELDS),
        active="NOT undone",
        newest_first='ORDER BY created COLLATE "C" DESC, id DESC',
        question_order="ord",
        chunk_profiles_of_persona=(
            "SELECT cp.profile_json FROM chunks c JOIN chunk_profiles cp ON cp.chunk_id = c.id "
            "WHERE c.personas @> ARRAY[?]::text[] ORDER BY c.doc_id, c.ord"
        ),
        persona_documents="d.personas @> ARRAY[?]::text[]",
        context_words="array_length(regexp_split_to_array(context, ' '), 1)",
        other_embedder="use another database or re-ingest everything with the original embedder",
        binary='COLLATE "C"',
    )

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
        self._lock = threading.RLock()
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
                timeout=self.settings.wait_s,
            )
            self._pool.wait(timeout=max(30.0, self.settings.wait_s))
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
            KeywordIndexes(self._keyword_chunks, self._keyword_changes, self._index_texts)
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
                    self._index_identifier_terms(conn)
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

    # -- the SQL core's primitives ---------------------------------------------------------

    def _all(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        with self._connection() as conn:
            return list(conn.execute(placeholders(sql), params).fetchall())

    def _rows_in(self, sql: str, ids: Sequence[str], *after: object) -> list[Row]:
        """One statement: the column `= ANY` of the distinct ids."""
        distinct = list(dict.fromkeys(ids))
        return self._all(sql.replace("{in}", "= ANY(?)"), (distinct, *after)) if distinct else []

    def _exec(self, conn: Any, sql: str, params: Sequence[object] = ()) -> Any:
        return conn.execute(placeholders(sql), params)

    def _many(self, conn: Any, sql: str, rows: Sequence[Sequence[object]]) -> None:
        with conn.cursor() as cursor:
            cursor.executemany(placeholders(sql), rows)

    def _document_from(self, row: Row) -> Document:
        return document_from(row)

    def _clean(self, value: str) -> str:
        return _text(value)

    def _json(self, model: BaseModel, **dump: Any) -> str:
        """jsonb cannot hold an escaped NUL either."""
        return model.model_dump_json(**dump).replace("\\u0000", "")

    def _service(self) -> AbstractContextManager[Any]:
        return self._connection()  # autocommit: one statement

    def _first_vectors(self, conn: Any, dim: int) -> None:
        """The vector indexes are built (unless a bulk load builds them at its end)."""
        if not self._deferred:
            settings = self.settings
            for statement in vector_indexes(dim, settings.hnsw_m, settings.hnsw_ef_construction):
                conn.execute(statement)
        self._dim = dim

    def _vectors_forgotten(self, conn: Any) -> None:
        """The vector indexes cast to the old width go; `_first_vectors` builds them again."""
        for table in VECTOR_TABLES:
            conn.execute(f"DROP INDEX IF EXISTS {table}_embedding_hnsw")
        self._dim = None

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

    # -- documents -------------------------------------------------------------------------

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
            kept = statistics_kept(conn)
            self._delete(conn, doc.id, kept)
            values = list(document_values(doc))
            values[DOCUMENT_FIELDS.index("personas")] = personas
            values[DOCUMENT_FIELDS.index("meta")] = Jsonb(_json_safe(doc.meta))
            marks = ", ".join(["%s"] * len(values))
            conn.execute(f"INSERT INTO documents({', '.join(DOCUMENT_FIELDS)}) VALUES ({marks})", values)
            with (
                conn.cursor() as cursor,
                cursor.copy(
                    f"COPY chunks ({_CHUNK_COLUMNS}, personas, embedding, keyword_terms) "
                    "FROM STDIN WITH (FORMAT BINARY)"
                ) as copy,
            ):
                copy.set_types(
                    [
                        "text",
                        "text",
                        "int4",
                        "text",
                        "text",
                        "text",
                        "int4",
                        "text",
                        "text[]",
                        "vector",
                        "text",
                    ]
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
                            " ".join(identifier_terms(_text(chunk.index_text))),
                        )
                    )
            if self._deferred:
                self._uncounted.add(doc.id)
            elif kept:
                self._count_terms(conn, [doc.id], +1)
            if enrichment is not None:
                self._write_profiles_and_links(conn, doc.id, enrichment)
                self._write_questions(conn, doc.id, personas, enrichment, question_vectors)
            for surface, vector in (profile_vectors or {}).items():
                conn.execute(
                    "INSERT INTO profile_vectors(doc_id, surface, personas, embedding) "
                    "VALUES (%s, %s, %s, %s)",
                    (doc.id, surface, personas, np.asarray(vector, dtype=np.float32)),
                )

    def _write_questions(
        self, conn: Any, doc_id: str, personas: list[str], enrichment: Enrichment, vectors: np.ndarray | None
    ) -> None:
        if vectors is None:
            return
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
                    for i, (q, v) in enumerate(zip(enrichment.questions, vectors, strict=True))
                ],
            )

    def delete_document(self, doc_id: str) -> bool:
        with self._write() as conn:
            conn.execute("DELETE FROM findings WHERE doc_id = %s", (doc_id,))
            return self._delete(conn, doc_id, statistics_kept(conn))

    def _delete(self, conn: Any, doc_id: str, kept: bool) -> bool:
        """Everything of the document, and a line in the change log (kept to its last
        `CHANGE_LOG` entries) for the keyword indexes; its BM25 statistics taken away if they
        are `kept`."""
        self._log_change(conn, doc_id)
        if kept and doc_id not in self._uncounted:  # (a bulk counts its documents at its end)
            self._count_terms(conn, [doc_id], -1)
        return int(conn.execute("DELETE FROM documents WHERE id = %s", (doc_id,)).rowcount) > 0

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

        def vector(value: Any) -> np.ndarray:  # a pgvector Vector, or an array
            return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)

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

    # -- the agent's findings --------------------------------------------------------------

    def search_questions(
        self, vector: np.ndarray, persona: str, limit: int, within: Within = None
    ) -> list[ScoredQuestion]:
        rows = self._nearest("questions", "id, doc_id, text", vector, persona, limit, within=within)
        return [ScoredQuestion(question_id=r[0], doc_id=r[1], text=r[2], score=r[-1]) for r in rows]

    def search_profiles(
        self, vector: np.ndarray, persona: str, surface: str, limit: int, within: Within = None
    ) -> list[ScoredDocument]:
        rows = self._nearest(
            "profile_vectors", "doc_id", vector, persona, limit, ("surface = %s", surface), within
        )
        return [ScoredDocument(doc_id=r[0], score=r[-1]) for r in rows]

    def _check_version(self) -> None:
        """Drop what this process cached once any process has written."""
        version = self._data_version()
        with self._lock:
            if version != self._seen_version:
                self._document_indexes.clear()
                self._persona_rows.clear()
                self._seen_version = version

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

    # -- chunks and search -----------------------------------------------------------------

    def search_keyword(
        self,
        query: str,
        persona: str,
        limit: int,
        feedback: KeywordFeedback | None = None,
        within: Within = None,
    ) -> list[ScoredChunk]:
        if limit <= 0 or not query.strip() or (within is not None and not within):
            return []
        if self._keywords is not None:
            cleaned = _text(query)  # cleaned as the stored text
            terms = " ".join(dict.fromkeys([*content_words(cleaned), *joined_names(cleaned)]))
            found = self._keywords.search(terms, persona, limit, feedback, within) if terms else []
            return [ScoredChunk(chunk_id=chunk_id, score=score) for chunk_id, score in found]
        query_params = {
            "query": keyword_query(_text(query)),
            "persona": persona,
            "limit": limit,
            "within": None if within is None else sorted(within),
        }
        with self._connection() as conn:
            rows = conn.execute(BM25, query_params).fetchall()
        return [ScoredChunk(chunk_id=r[0], score=float(r[1])) for r in rows]

    def _keyword_changes(self, seen: int | None) -> tuple[int, int, list[str]]:
        with self._connection() as conn:
            return self._keyword_changes_on(
                lambda sql, params: conn.execute(placeholders(sql), params).fetchall(), seen
            )

    def search_vector(
        self, vector: np.ndarray, persona: str, limit: int, within: Within = None
    ) -> list[ScoredChunk]:
        rows = self._nearest("chunks", "id", vector, persona, limit, within=within)
        return [ScoredChunk(chunk_id=r[0], score=r[-1]) for r in rows]

    def _nearest(
        self,
        table: str,
        columns: str,
        vector: np.ndarray,
        persona: str,
        limit: int,
        extra: tuple[str, str] | None = None,
        within: Within = None,
    ) -> list[tuple[Any, ...]]:
        """Cosine nearest rows of one persona, best first. A persona with at most
        `store.exact_limit` rows in the table is searched exactly (the filter first, then every
        distance): measured at 100k chunks, HNSW with iterative scans kept only 0.70 recall@10 for
        a persona holding 2 % of them. Larger personas go through the HNSW index; iterative
        scans keep the filter from starving the result. `within` (a filter's documents) is a
        condition of the same query; when their rows are few enough they too are searched
        exactly (read by the table's doc_id index), so a narrow filter still fills the limit."""
        if self._dim is None:  # another process may have written the first vectors since
            self._dim = self._embedder_dim()
        dim = self._dim
        if dim is None or limit <= 0 or (within is not None and not within):
            return []
        kept = None if within is None else sorted(within)
        exact = self._persona_size(table, persona) <= self.settings.exact_limit or (
            kept is not None and self._rows_of(table, kept) <= self.settings.exact_limit
        )
        # Ordering by the bare column does not match the index expression: an exact scan.
        cast = "embedding" if exact else f"embedding::vector({dim})"
        where = f"personas @> ARRAY[%s]::text[]{' AND ' + extra[0] if extra else ''}"
        where += "" if kept is None else " AND doc_id = ANY(%s)"
        params: list[Any] = [np.asarray(vector, dtype=np.float32), persona]
        params += [extra[1]] if extra else []
        params += [] if kept is None else [kept]
        params += [np.asarray(vector, dtype=np.float32), limit]
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {columns}, 1 - ({cast} <=> %s::vector({dim})) AS score FROM {table} "
                f"WHERE {where} ORDER BY {cast} <=> %s::vector({dim}) LIMIT %s",
                params,
            ).fetchall()
        found = [(*r[:-1], float(r[-1])) for r in rows]
        return sorted(found, key=lambda r: -r[-1])  # relaxed_order scans may return near-ties out of order

    def _rows_of(self, table: str, doc_ids: list[str]) -> int:
        """How many rows of the table these documents have (by the doc_id index)."""
        with self._connection() as conn:
            row = conn.execute(f"SELECT count(*) FROM {table} WHERE doc_id = ANY(%s)", (doc_ids,))
            return int(row.fetchone()[0])

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


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{host}"
