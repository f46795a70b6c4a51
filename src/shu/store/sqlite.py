"""The embedded store: one SQLite file (WAL) with FTS5 for BM25 and float32 vector blobs.

The reads and writes every SQL store shares are `shu.store.sql`; this module keeps the
connections (one per reading thread, one writer, one for keyword search), the locks, the
migrations, the writes of chunks, vectors and questions, and the keyword index's wiring; the
in-memory vector indexes are `shu.store.sqlite_vectors`.
"""

from __future__ import annotations

import fcntl
import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np

from shu.analysis import identifier_terms, joined_names, keyword_text
from shu.errors import StoreError
from shu.store.base import (
    ScoredChunk,
    StoredDocument,
    StoreStats,
    Within,
)
from shu.store.document_index import DocumentIndex
from shu.store.keyword_index import KeywordIndexes
from shu.store.rows import (
    DOCUMENT_FIELDS,
    batches,
    check_replacement,
    document_from,
    document_values,
    exported,
    now,
)
from shu.store.sql import Row, SQLDialect, SQLKnowledge
from shu.store.sql_logins import SQLLoginTables
from shu.store.sql_service import SQLServiceTables
from shu.store.sqlite_schema import MIGRATIONS
from shu.store.sqlite_vectors import SQLiteVectorIndexes
from shu.store.vectors import VectorIndex
from shu.text import content_words
from shu.types import (
    Chunk,
    Document,
    Enrichment,
    KeywordFeedback,
    Persona,
)

KeywordMode = Literal["memory", "fts5"]
_JSON_FIELDS = tuple(i for i, name in enumerate(DOCUMENT_FIELDS) if name in ("personas", "tags", "meta"))
"""The document fields kept as JSON text (its lists and mappings), by position."""
_DOCUMENT_COLUMNS = tuple(
    f"{name}_json" if i in _JSON_FIELDS else name for i, name in enumerate(DOCUMENT_FIELDS)
)
"""The documents table's columns in `DOCUMENT_FIELDS` order."""


class SQLiteStore(SQLKnowledge, SQLiteVectorIndexes, SQLServiceTables, SQLLoginTables):
    dialect = SQLDialect(
        meta="meta",
        document_columns=", ".join(f"d.{column}" for column in _DOCUMENT_COLUMNS),
        active="undone = 0",
        newest_first="ORDER BY created DESC, id DESC",
        question_order="rowid",
        chunk_profiles_of_persona=(
            "SELECT cp.profile_json FROM document_personas dp JOIN chunks c ON c.doc_id = dp.doc_id "
            "JOIN chunk_profiles cp ON cp.chunk_id = c.id WHERE dp.persona = ? ORDER BY c.rowid"
        ),
        persona_documents="d.id IN (SELECT doc_id FROM document_personas WHERE persona = ?)",
        context_words="length(context) - length(replace(context, ' ', '')) + 1",
        other_embedder="use a new --home or re-ingest everything with the original embedder",
        binary="COLLATE BINARY",
    )

    def __init__(
        self, path: Path | str, exact_vector_limit: int = 20_000, keyword: KeywordMode = "memory"
    ) -> None:
        """`keyword`: search an in-memory BM25 index kept in step with the chunks (`memory`) or
        the FTS5 table directly (`fts5`)."""
        self.path = Path(path)
        self.exact_vector_limit = exact_vector_limit
        try:
            self._db = self._connect()
            self._migrate()
            self._index_identifier_terms()
            # Keyword search has its own connection so it can run beside dense search (WAL lets
            # readers proceed concurrently); each connection is used under its own lock.
            self._keyword_db = self._connect()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable Shu store ({exc})") from exc
        self._lock = threading.RLock()
        self._keyword_lock = threading.Lock()
        self._readers = threading.local()
        self._reader_connections: list[sqlite3.Connection] = []
        self._writing: int | None = None
        """The thread inside a write transaction (its own reads go through the write connection)."""
        self._indexes: dict[str, VectorIndex] = {}
        self._question_indexes: dict[str, tuple[VectorIndex, dict[str, str], dict[str, str]]] = {}
        self._profile_indexes: dict[tuple[str, str], VectorIndex] = {}
        self._document_indexes: dict[str, DocumentIndex] = {}
        self._documents: dict[str, Document] = {}
        self._owners: dict[str, str] = {}
        """chunk id → document id, cached like `_documents`"""
        self._seen_version = self._data_version()
        self._keyword_seen: tuple[int, int] | None = None
        """(data version, newest change) when the change log was last read"""
        self._keywords = (
            KeywordIndexes(self._keyword_chunks, self._keyword_changes, self._index_texts)
            if keyword == "memory"
            else None
        )
        self.keyword_in_sql = self._keywords is None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10.0, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA busy_timeout=10000")
        _use_wal(db)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    # -- lifecycle -------------------------------------------------------------------------

    def _migrate(self) -> None:
        """Apply missing migrations, one transaction each; a second process opening the same new
        store waits for the first instead of creating the tables twice."""
        while True:
            self._db.execute("BEGIN IMMEDIATE")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                self._db.execute("ROLLBACK")
                raise StoreError(f"{self.path} was written by a newer Shu (schema {version})")
            if version == len(MIGRATIONS):
                self._db.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('store_id', ?)", (uuid.uuid4().hex,)
                )
                self._db.execute("COMMIT")
                return
            try:
                for statement in _statements(MIGRATIONS[version]):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {version + 1}")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _index_identifier_terms(self) -> None:
        """Index the identifier terms of the chunks an older store had (once, when opened)."""
        pending = "SELECT 1 FROM meta WHERE key = 'identifier_terms'"
        if self._db.execute(pending).fetchone() is None:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if self._db.execute(pending).fetchone() is not None:  # not done by another process meanwhile
                rows = self._db.execute("SELECT rowid, index_text FROM chunks").fetchall()
                changed = [(rowid, keyword_text(text)) for rowid, text in rows if identifier_terms(text)]
                self._db.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(r,) for r, _ in changed])
                self._db.executemany("INSERT INTO chunks_fts(rowid, index_text) VALUES (?, ?)", changed)
                self._db.execute("DELETE FROM meta WHERE key = 'identifier_terms'")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        with self._lock:
            for reader in self._reader_connections:
                reader.close()
            self._reader_connections.clear()
        self._keyword_db.close()
        self._db.close()

    def _read(self) -> sqlite3.Connection:
        """The connection a read goes through: this thread's own (WAL gives it the last committed
        state, never half of a document being replaced by another thread), or the write
        connection for the thread inside a write transaction (it reads what it wrote)."""
        if self._writing == threading.get_ident():
            return self._db
        reader = getattr(self._readers, "db", None)
        if reader is None:
            reader = self._connect()
            self._readers.db = reader
            with self._lock:
                self._reader_connections.append(reader)
        return reader

    # -- the SQL core's primitives ---------------------------------------------------------

    def _all(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return self._read().execute(sql, params).fetchall()

    def _rows_in(self, sql: str, ids: Sequence[str], *after: object) -> list[Row]:
        """A statement per batch of ids (SQLite caps a statement's parameters)."""
        rows: list[Row] = []
        for batch in batches(list(dict.fromkeys(ids))):
            marked = sql.replace("{in}", f"IN ({','.join('?' * len(batch))})")
            rows += self._read().execute(marked, (*batch, *after)).fetchall()
        return rows

    def _exec(self, conn: Any, sql: str, params: Sequence[object] = ()) -> Any:
        return conn.execute(sql, params)

    @contextmanager
    def _service(self) -> Iterator[sqlite3.Connection]:
        """The write connection in autocommit, under the store's lock: one statement."""
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: {exc}") from exc

    def _many(self, conn: Any, sql: str, rows: Sequence[Sequence[object]]) -> None:
        conn.executemany(sql, rows)

    def _document_from(self, row: Row) -> Document:
        return _document(row)

    def _first_vectors(self, conn: Any, dim: int) -> None:
        """Nothing to prepare: the vector indexes are built in memory when a persona is searched."""

    def _vectors_forgotten(self, conn: Any) -> None:
        """Nothing to undo (the in-memory indexes follow the generation a write moves)."""

    # -- personas --------------------------------------------------------------------------

    def upsert_persona(self, persona: Persona) -> None:
        with self._write() as db:
            db.execute(
                "INSERT INTO personas(slug, display_name, description, config_json, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT(slug) DO UPDATE SET "
                "display_name=excluded.display_name, description=excluded.description, "
                "config_json=excluded.config_json, updated_at=excluded.updated_at",
                (
                    persona.slug,
                    persona.display_name,
                    persona.description,
                    persona.config.model_dump_json(),
                    now(),
                ),
            )

    # -- documents -------------------------------------------------------------------------

    def chunk_documents(self, chunk_ids: list[str]) -> dict[str, str]:
        """From a cache with the documents' (a chunk's document changes only with a write)."""
        with self._lock:
            self._check_version()
            found = {i: self._owners[i] for i in chunk_ids if i in self._owners}
            missing = [i for i in dict.fromkeys(chunk_ids) if i not in found]
            if missing:
                fetched = super().chunk_documents(missing)
                self._owners.update(fetched)
                found.update(fetched)
            return found

    def get_documents(self, doc_ids: list[str]) -> dict[str, Document]:
        """Documents by id, from a cache that lives as long as the vector indexes (same
        invalidation: any write here or elsewhere empties both)."""
        with self._lock:
            self._check_version()
            found = {i: self._documents[i] for i in doc_ids if i in self._documents}
            missing = [i for i in dict.fromkeys(doc_ids) if i not in found]
            for doc_id, doc in super().get_documents(missing).items():
                found[doc_id] = self._documents[doc_id] = doc
            return found  # shared, read-only records

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
        check_replacement(doc, chunks, vectors, enrichment, question_vectors, profile_vectors)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._write() as db:
            self._check_embedder(db, embedder, vectors.shape[1] if len(vectors) else None)
            self._delete(db, doc.id)
            db.execute(
                f"INSERT INTO documents({', '.join(_DOCUMENT_COLUMNS)}, updated_at) "
                f"VALUES ({','.join('?' * (len(_DOCUMENT_COLUMNS) + 1))})",
                (*_document_row(doc), now()),
            )
            db.executemany(
                "INSERT INTO document_personas(persona, doc_id) VALUES (?, ?)",
                [(slug, doc.id) for slug in dict.fromkeys(doc.personas)],
            )
            for chunk, vector in zip(chunks, vectors, strict=True):
                cursor = db.execute(
                    "INSERT INTO chunks(id, doc_id, ord, section_path, text, index_text, token_count, "
                    "context) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        chunk.id,
                        doc.id,
                        chunk.ord,
                        chunk.section_path,
                        chunk.text,
                        chunk.index_text,
                        chunk.token_count,
                        chunk.context,
                    ),
                )
                rowid = cursor.lastrowid
                db.execute(
                    "INSERT INTO chunks_fts(rowid, index_text) VALUES (?, ?)",
                    (rowid, keyword_text(chunk.index_text)),
                )
                db.execute(
                    "INSERT INTO chunk_vectors(chunk_rowid, vector) VALUES (?, ?)", (rowid, vector.tobytes())
                )
            if enrichment is not None:
                self._write_profiles_and_links(db, doc.id, enrichment)
                self._write_questions(db, doc.id, enrichment, question_vectors)
            db.executemany(
                "INSERT INTO profile_vectors(doc_id, surface, vector) VALUES (?, ?, ?)",
                [
                    (doc.id, surface, np.ascontiguousarray(vector, dtype=np.float32).tobytes())
                    for surface, vector in (profile_vectors or {}).items()
                ],
            )

    def _write_questions(
        self, db: sqlite3.Connection, doc_id: str, enrichment: Enrichment, vectors: np.ndarray | None
    ) -> None:
        if vectors is None:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        for question, vector in zip(enrichment.questions, vectors, strict=True):
            provenance = question.provenance
            cursor = db.execute(
                "INSERT INTO questions(id, doc_id, text, method, prompt_version) VALUES (?, ?, ?, ?, ?)",
                (question.id, doc_id, question.text, provenance.method, provenance.prompt_version),
            )
            db.execute(
                "INSERT INTO question_vectors(question_rowid, vector) VALUES (?, ?)",
                (cursor.lastrowid, vector.tobytes()),
            )

    def export_document(self, doc_id: str) -> StoredDocument | None:
        """Read in one transaction: a writer in another process cannot pair this document's new
        chunks with its old vectors."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                return self._export(doc_id)
            finally:
                self._db.execute("COMMIT")

    def _export(self, doc_id: str) -> StoredDocument | None:
        columns = self.dialect.document_columns
        row = self._db.execute(f"SELECT {columns} FROM documents d WHERE d.id = ?", (doc_id,)).fetchone()
        if row is None:
            return None
        chunk_rows = self._db.execute(
            "SELECT v.vector FROM chunks c JOIN chunk_vectors v ON v.chunk_rowid = c.rowid "
            "WHERE c.doc_id = ? ORDER BY c.ord",
            (doc_id,),
        ).fetchall()
        question_rows = self._db.execute(
            "SELECT v.vector FROM questions q JOIN question_vectors v ON v.question_rowid = q.rowid "
            "WHERE q.doc_id = ? ORDER BY q.rowid",
            (doc_id,),
        ).fetchall()
        profile_rows = self._db.execute(
            "SELECT surface, vector FROM profile_vectors WHERE doc_id = ?", (doc_id,)
        )
        meta = self._db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()

        def vector(blob: bytes) -> np.ndarray:
            return np.frombuffer(blob, dtype=np.float32)

        return exported(
            self,
            _document(row),
            json.loads(meta[0])["name"] if meta else "",
            [vector(r[0]) for r in chunk_rows],
            [vector(r[0]) for r in question_rows],
            {surface: vector(blob) for surface, blob in profile_rows.fetchall()},
            self._stored_profile(doc_id),
            self._stored_relationships([doc_id]),
        )

    def record_llm_run(self, summary: dict[str, object]) -> None:
        with self._write() as db:
            db.execute("INSERT INTO llm_runs(summary_json) VALUES (?)", (json.dumps(summary),))

    def delete_document(self, doc_id: str) -> bool:
        with self._write() as db:
            db.execute("DELETE FROM findings WHERE doc_id = ?", (doc_id,))
            return self._delete(db, doc_id)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction under the store's lock: committed whole or rolled back whole;
        SQLite errors (a locked or full disk, a constraint) become StoreError naming the store."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._writing = threading.get_ident()
                yield self._db
                self._bump_generation()
                self._db.execute("COMMIT")
            except BaseException as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"{self.path}: {exc}") from exc
                raise
            finally:
                self._writing = None
                self._forget()

    def _delete(self, db: sqlite3.Connection, doc_id: str) -> bool:
        """Everything of the document, and a line in the keyword indexes' change log."""
        self._log_change(db, doc_id)
        db.execute(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE doc_id = ?)", (doc_id,)
        )
        return db.execute("DELETE FROM documents WHERE id = ?", (doc_id,)).rowcount > 0

    # -- chunks and search -----------------------------------------------------------------

    @contextmanager
    def writer(self) -> Iterator[None]:
        """An exclusive lock on `<store>.writer.lock` beside the database file (released by the
        kernel if the process dies)."""
        lock_path = self.path.with_name(self.path.name + ".writer.lock")
        with lock_path.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def search_keyword(
        self,
        query: str,
        persona: str,
        limit: int,
        feedback: KeywordFeedback | None = None,
        within: Within = None,
    ) -> list[ScoredChunk]:
        terms = list(dict.fromkeys([*content_words(query), *joined_names(query)]))
        if not terms or limit <= 0 or (within is not None and not within):
            return []
        if self._keywords is not None:
            found = self._keywords.search(" ".join(terms), persona, limit, feedback, within)
            return [ScoredChunk(chunk_id=chunk_id, score=score) for chunk_id, score in found]
        expression = " OR ".join(f'"{term}"' for term in terms)
        # The persona filter is a join, not a MATCH term: intersecting with a persona's whole
        # posting list costs more than checking each match (measured: 4 ms vs 18 ms at 100k chunks).
        # A filter's documents are one JSON array, read by json_each (no statement per size).
        kept = "" if within is None else "AND c.doc_id IN (SELECT value FROM json_each(?)) "
        with self._keyword_lock:
            rows = self._keyword_db.execute(
                "SELECT c.id, -f.rank FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid "
                "JOIN document_personas dp ON dp.doc_id = c.doc_id AND dp.persona = ? "
                f"WHERE chunks_fts MATCH ? {kept}ORDER BY f.rank LIMIT ?",
                (persona, expression, *([] if within is None else [json.dumps(sorted(within))]), limit),
            ).fetchall()
        return [ScoredChunk(chunk_id=row[0], score=float(row[1])) for row in rows]

    def _keyword_chunks(
        self, persona: str | None, doc_ids: list[str] | None
    ) -> Iterable[tuple[str, str, str, str]]:
        """A persona's chunks (streamed: a million texts are never in memory at once), or the
        chunks of some documents in every persona they belong to."""
        if persona is not None:
            return self._persona_chunks(persona)
        with self._keyword_lock:
            rows: list[tuple[str, str, str, str]] = []
            for batch in batches(doc_ids or []):
                marks = ",".join("?" * len(batch))
                rows += self._keyword_db.execute(
                    "SELECT c.id, c.doc_id, c.index_text, dp.persona FROM document_personas dp "
                    f"JOIN chunks c ON c.doc_id = dp.doc_id WHERE dp.doc_id IN ({marks}) ORDER BY c.rowid",
                    batch,
                ).fetchall()
            return rows

    def _persona_chunks(self, persona: str, batch: int = 5_000) -> Iterator[tuple[str, str, str, str]]:
        with self._keyword_lock:
            cursor = self._keyword_db.execute(
                "SELECT c.id, c.doc_id, c.index_text, dp.persona FROM document_personas dp "
                "JOIN chunks c ON c.doc_id = dp.doc_id WHERE dp.persona = ? ORDER BY c.rowid",
                (persona,),
            )
            while rows := cursor.fetchmany(batch):
                yield from rows

    def _keyword_changes(self, seen: int | None) -> tuple[int, int, list[str]]:
        """The change log read only when the file changed since the last read (`PRAGMA
        data_version` of this connection moves with every commit of another one)."""
        with self._keyword_lock:
            version = int(self._keyword_db.execute("PRAGMA data_version").fetchone()[0])
            if seen is not None and (version, seen) == self._keyword_seen:
                return 0, seen, []
            found = self._keyword_changes_on(
                lambda sql, params: self._keyword_db.execute(sql, params).fetchall(), seen
            )
            self._keyword_seen = (version, found[1])
            return found

    def _check_version(self) -> None:
        version = self._data_version()
        if version != self._seen_version:
            self._forget()
            self._seen_version = version

    def _forget(self) -> None:
        self._indexes.clear()
        self._question_indexes.clear()
        self._profile_indexes.clear()
        self._document_indexes.clear()
        self._documents.clear()
        self._owners.clear()

    def generation(self) -> str:
        """`<store id>:<writes>`; read under the writers' lock, so a write still in progress on
        this connection is never seen (a cached answer never outlives the data it came from)."""
        with self._lock:
            rows = dict(
                self._db.execute("SELECT key, value FROM meta WHERE key IN ('store_id', 'generation')")
            )
        return f"{rows.get('store_id', '')}:{rows.get('generation', '0')}"

    def _bump_generation(self) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    def _data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    # -- stats -----------------------------------------------------------------------------

    def stats(self) -> StoreStats:
        def count(table: str) -> int:
            return int(self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

        row = self._db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return StoreStats(
            personas=count("personas"),
            documents=count("documents"),
            chunks=count("chunks"),
            vectors=count("chunk_vectors"),
            embedder=json.loads(row[0])["name"] if row else None,
            size_bytes=size,
        )


def _document_row(doc: Document) -> tuple[object, ...]:
    values = list(document_values(doc))
    for i in _JSON_FIELDS:
        values[i] = json.dumps(values[i], default=str)
    return tuple(values)


def _document(row: Row) -> Document:
    return document_from(json.loads(v) if i in _JSON_FIELDS else v for i, v in enumerate(row))


def _use_wal(db: sqlite3.Connection, attempts: int = 100) -> None:
    """WAL mode is kept in the file: only a new store switches. The switch needs the file to
    itself and SQLite answers "locked" at once (no busy wait) while other connections open the
    same new file, so it is tried again for up to ~5 s."""
    for attempt in range(attempts):
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                return
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.05)


def _statements(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]
