"""The embedded store: one SQLite file (WAL) with FTS5 for BM25 and float32 vector blobs.

Each persona's vectors are held in memory as a `VectorIndex` (exact up to 20k vectors, a
sign-bit shortlist rescored exactly above), rebuilt after any write by this or another
connection.
"""

from __future__ import annotations

import fcntl
import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np

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
from shu.store.rows import (
    FINDING_FIELDS,
    batches,
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
from shu.store.sqlite_schema import MIGRATIONS
from shu.store.sqlite_service import SQLiteServiceTables
from shu.store.vectors import ExactReader, VectorIndex
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

KeywordMode = Literal["memory", "fts5"]
_CHUNK_COLUMNS = "c.id, c.doc_id, c.ord, c.section_path, c.text, c.index_text, c.token_count, c.context"


class SQLiteStore(SQLiteServiceTables):
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
        self._seen_version = self._data_version()
        self._keywords = (
            KeywordIndexes(self._keyword_chunks, self._keyword_changes) if keyword == "memory" else None
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

    # -- personas --------------------------------------------------------------------------

    def upsert_persona(self, persona: Persona) -> None:
        with self._lock, self._write():
            self._db.execute(
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

    def get_persona(self, slug: str) -> Persona | None:
        row = (
            self._read()
            .execute(
                "SELECT slug, display_name, description, config_json FROM personas WHERE slug = ?", (slug,)
            )
            .fetchone()
        )
        return _persona(row) if row else None

    def list_personas(self) -> list[Persona]:
        rows = (
            self._read()
            .execute("SELECT slug, display_name, description, config_json FROM personas ORDER BY slug")
            .fetchall()
        )
        return [_persona(row) for row in rows]

    # -- documents -------------------------------------------------------------------------

    def get_document(self, doc_id: str) -> Document | None:
        return self.get_documents([doc_id]).get(doc_id)

    def get_documents(self, doc_ids: list[str]) -> dict[str, Document]:
        """Documents by id, from a cache that lives as long as the vector indexes (same
        invalidation: any write here or elsewhere empties both)."""
        with self._lock:
            self._check_version()
            found = {i: self._documents[i] for i in doc_ids if i in self._documents}
            missing = [i for i in dict.fromkeys(doc_ids) if i not in found]
            for batch in batches(missing):
                marks = ",".join("?" * len(batch))
                for row in self._db.execute(
                    f"SELECT {_DOC_COLUMNS} FROM documents WHERE id IN ({marks})", batch
                ):
                    doc = _document(row)
                    found[doc.id] = self._documents[doc.id] = doc
            return found  # shared, read-only records

    def list_documents(self, persona: str | None = None) -> list[Document]:
        if persona is None:
            rows = self._read().execute(f"SELECT {_DOC_COLUMNS} FROM documents ORDER BY id")
        else:
            rows = self._read().execute(
                f"SELECT {_DOC_COLUMNS} FROM documents WHERE id IN "
                "(SELECT doc_id FROM document_personas WHERE persona = ?) ORDER BY id",
                (persona,),
            )
        return [_document(row) for row in rows]

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
        with self._lock, self._write():
            self._check_embedder(embedder, vectors.shape[1] if len(vectors) else None)
            self._delete(doc.id)
            self._db.execute(
                f"INSERT INTO documents({_DOC_COLUMNS}, updated_at) VALUES ({','.join('?' * 13)})",
                (*_document_row(doc), now()),
            )
            self._db.executemany(
                "INSERT INTO document_personas(persona, doc_id) VALUES (?, ?)",
                [(slug, doc.id) for slug in dict.fromkeys(doc.personas)],
            )
            for chunk, vector in zip(chunks, vectors, strict=True):
                cursor = self._db.execute(
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
                self._db.execute(
                    "INSERT INTO chunks_fts(rowid, index_text) VALUES (?, ?)", (rowid, chunk.index_text)
                )
                self._db.execute(
                    "INSERT INTO chunk_vectors(chunk_rowid, vector) VALUES (?, ?)", (rowid, vector.tobytes())
                )
            if enrichment is not None:
                self._write_enrichment(doc.id, enrichment, question_vectors)
            self._db.executemany(
                "INSERT INTO profile_vectors(doc_id, surface, vector) VALUES (?, ?, ?)",
                [
                    (doc.id, surface, np.ascontiguousarray(vector, dtype=np.float32).tobytes())
                    for surface, vector in (profile_vectors or {}).items()
                ],
            )

    def _write_enrichment(
        self, doc_id: str, enrichment: Enrichment, question_vectors: np.ndarray | None
    ) -> None:
        if enrichment.profile is not None:
            provenance = enrichment.profile.provenance
            self._db.execute(
                "INSERT INTO document_profiles(doc_id, profile_json, method, prompt_version) "
                "VALUES (?, ?, ?, ?)",
                (doc_id, enrichment.profile.model_dump_json(), provenance.method, provenance.prompt_version),
            )
        if question_vectors is not None:
            question_vectors = np.ascontiguousarray(question_vectors, dtype=np.float32)
            for question, vector in zip(enrichment.questions, question_vectors, strict=True):
                cursor = self._db.execute(
                    "INSERT INTO questions(id, doc_id, text, method, prompt_version) VALUES (?, ?, ?, ?, ?)",
                    (
                        question.id,
                        doc_id,
                        question.text,
                        question.provenance.method,
                        question.provenance.prompt_version,
                    ),
                )
                self._db.execute(
                    "INSERT INTO question_vectors(question_rowid, vector) VALUES (?, ?)",
                    (cursor.lastrowid, vector.tobytes()),
                )
        self._db.executemany(
            "INSERT INTO relationships(source_doc, target_doc, type, origin, confidence, evidence) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (doc_id, r.target, r.type, r.origin, r.confidence, r.evidence)
                for r in enrichment.relationships
            ],
        )
        self._db.executemany(
            "INSERT INTO chunk_profiles(chunk_id, profile_json, method, prompt_version) VALUES (?, ?, ?, ?)",
            [
                (p.chunk_id, p.model_dump_json(), p.provenance.method, p.provenance.prompt_version)
                for p in enrichment.chunk_profiles
            ],
        )

    def list_relationships(self, doc_ids: list[str]) -> list[Relationship]:
        found = self._stored_relationships(doc_ids)
        return with_agent_relationships(found, self._active_findings(doc_ids, "relationship"))

    def _stored_relationships(self, doc_ids: list[str]) -> list[Relationship]:
        rows = self._rows_in(
            "SELECT source_doc, target_doc, type, origin, confidence, evidence FROM relationships "
            "WHERE source_doc IN ({marks}) ORDER BY source_doc, confidence DESC, target_doc",
            doc_ids,
        )
        return [
            Relationship(source=r[0], target=r[1], type=r[2], origin=r[3], confidence=r[4], evidence=r[5])
            for r in rows
        ]

    def _rows_in(self, sql: str, ids: list[str], *after: object) -> list[tuple[Any, ...]]:
        """`sql` read once per batch of the distinct ids (its `{marks}` becomes the batch's
        placeholders, `after` fills the ones after them; SQLite caps a statement's parameters),
        the rows of every batch."""
        rows: list[tuple[Any, ...]] = []
        for batch in batches(list(dict.fromkeys(ids))):
            marked = sql.replace("{marks}", ",".join("?" * len(batch)))
            rows += self._read().execute(marked, (*batch, *after)).fetchall()
        return rows

    def get_profile(self, doc_id: str) -> DocumentProfile | None:
        return self.get_profiles([doc_id]).get(doc_id)

    def get_profiles(self, doc_ids: list[str]) -> dict[str, DocumentProfile]:
        rows = self._rows_in(
            "SELECT doc_id, profile_json FROM document_profiles WHERE doc_id IN ({marks})", doc_ids
        )
        stored = {r[0]: DocumentProfile.model_validate_json(r[1]) for r in rows}
        return findings_applied(
            stored, self._active_findings(list(stored), "document_type", "stale_manifest")
        )

    def _stored_profile(self, doc_id: str) -> DocumentProfile | None:
        row = (
            self._read()
            .execute("SELECT profile_json FROM document_profiles WHERE doc_id = ?", (doc_id,))
            .fetchone()
        )
        return DocumentProfile.model_validate_json(row[0]) if row else None

    def list_questions(self, doc_id: str) -> list[SynthesizedQuestion]:
        rows = (
            self._read()
            .execute(
                "SELECT id, text, method, prompt_version FROM questions WHERE doc_id = ? ORDER BY rowid",
                (doc_id,),
            )
            .fetchall()
        )
        return [
            SynthesizedQuestion(
                id=r[0], doc_id=doc_id, text=r[1], provenance=Provenance(method=r[2], prompt_version=r[3])
            )
            for r in rows
        ]

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
        row = self._db.execute(f"SELECT {_DOC_COLUMNS} FROM documents WHERE id = ?", (doc_id,)).fetchone()
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
        vector = lambda blob: np.frombuffer(blob, dtype=np.float32)  # noqa: E731
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

    # -- the agent's findings --------------------------------------------------------------

    def add_finding(self, finding: Finding) -> Finding:
        stored = finding.model_copy(update={"id": None, "created": finding.created or now()})
        with self._lock:
            existing = self._same_finding(stored)
            if existing is not None:  # nothing written: the generation (and cached answers) stay
                return existing
            with self._write():
                existing = self._same_finding(stored)
                if existing is not None:
                    return existing
                cursor = self._db.execute(
                    f"INSERT INTO findings({_FINDING_COLUMNS}) VALUES ({','.join('?' * 11)})",
                    (None, *finding_values(stored)),
                )
                stored.id = cursor.lastrowid
        return stored

    def _same_finding(self, finding: Finding) -> Finding | None:
        """The active finding identical to this one (none for one that arrives undone)."""
        if finding.undone:
            return None
        kind, doc_id, persona, target, value = finding_key(finding)
        row = (
            self._read()
            .execute(
                f"SELECT {_FINDING_COLUMNS} FROM findings WHERE kind = ? AND doc_id = ? AND persona = ? "
                "AND coalesce(target, '') = ? AND coalesce(value, '') = ? AND undone = 0",
                (kind, doc_id, persona, target, value),
            )
            .fetchone()
        )
        return finding_from(row) if row else None

    def list_findings(self, persona: str | None = None, include_undone: bool = False) -> list[Finding]:
        where = ["1 = 1"]
        params: list[object] = []
        if persona is not None:
            where.append("persona = ?")
            params.append(persona)
        if not include_undone:
            where.append("undone = 0")
        rows = (
            self._read()
            .execute(
                f"SELECT {_FINDING_COLUMNS} FROM findings WHERE {' AND '.join(where)} "
                "ORDER BY created DESC, id DESC",
                params,
            )
            .fetchall()
        )
        return [finding_from(row) for row in rows]

    def undo_finding(self, finding_id: int) -> bool:
        with self._lock:
            active = "SELECT 1 FROM findings WHERE id = ? AND undone = 0"
            if self._db.execute(active, (finding_id,)).fetchone() is None:
                return False
            with self._write():
                return (
                    self._db.execute(
                        "UPDATE findings SET undone = 1 WHERE id = ? AND undone = 0", (finding_id,)
                    ).rowcount
                    > 0
                )

    def _active_findings(self, doc_ids: list[str], *kinds: str) -> list[Finding]:
        """Active findings of these kinds about these documents, newest first."""
        found: list[Finding] = []
        kind_marks = ",".join("?" * len(kinds))
        for batch in batches(list(dict.fromkeys(doc_ids))):
            marks = ",".join("?" * len(batch))
            rows = (
                self._read()
                .execute(
                    f"SELECT {_FINDING_COLUMNS} FROM findings WHERE doc_id IN ({marks}) "
                    f"AND kind IN ({kind_marks}) AND undone = 0 ORDER BY created DESC, id DESC",
                    (*batch, *kinds),
                )
                .fetchall()
            )
            found += [finding_from(row) for row in rows]
        return found

    def get_chunk_profiles(self, chunk_ids: list[str]) -> dict[str, ChunkProfile]:
        found: dict[str, ChunkProfile] = {}
        for batch in batches(list(dict.fromkeys(chunk_ids))):
            marks = ",".join("?" * len(batch))
            for chunk_id, blob in self._read().execute(
                f"SELECT chunk_id, profile_json FROM chunk_profiles WHERE chunk_id IN ({marks})", batch
            ):
                found[chunk_id] = ChunkProfile.model_validate_json(blob)
        return found

    def search_questions(self, vector: np.ndarray, persona: str, limit: int) -> list[ScoredQuestion]:
        index, owners, texts = self._question_index(persona)
        return [
            ScoredQuestion(question_id=qid, doc_id=owners[qid], text=texts[qid], score=score)
            for qid, score in index.search(vector, limit)
        ]

    def search_profiles(
        self, vector: np.ndarray, persona: str, surface: str, limit: int
    ) -> list[ScoredDocument]:
        with self._lock:
            self._check_version()
            index = self._profile_indexes.get((persona, surface))
            if index is None:
                joined = (
                    "FROM document_personas dp JOIN profile_vectors p ON p.doc_id = dp.doc_id "
                    "WHERE dp.persona = ? AND p.surface = ?"
                )
                index = self._streamed(
                    f"SELECT count(*) {joined}", f"SELECT p.doc_id, p.vector {joined} ORDER BY p.rowid",
                    (persona, surface), self._profile_vectors(surface),
                )  # fmt: skip
                self._profile_indexes[(persona, surface)] = index
        return [ScoredDocument(doc_id=doc_id, score=score) for doc_id, score in index.search(vector, limit)]

    def document_index(self, persona: str) -> DocumentIndex:
        with self._lock:
            self._check_version()
            index = self._document_indexes.get(persona)
            if index is None:
                rows = self._db.execute(
                    f"SELECT {_DOC_COLUMNS}, p.profile_json FROM documents d "
                    "JOIN document_personas dp ON dp.doc_id = d.id AND dp.persona = ? "
                    "LEFT JOIN document_profiles p ON p.doc_id = d.id ORDER BY d.id",
                    (persona,),
                ).fetchall()
                profiles = self._db.execute(
                    "SELECT cp.profile_json FROM document_personas dp JOIN chunks c ON c.doc_id = dp.doc_id "
                    "JOIN chunk_profiles cp ON cp.chunk_id = c.id WHERE dp.persona = ? ORDER BY c.rowid",
                    (persona,),
                ).fetchall()
                index = DocumentIndex.build(
                    [
                        (
                            _document(row[:-1]),
                            DocumentProfile.model_validate_json(row[-1]) if row[-1] else None,
                        )
                        for row in rows
                    ],
                    [ChunkProfile.model_validate_json(r[0]) for r in profiles],
                )
                self._document_indexes[persona] = index
            return index

    def _question_index(self, persona: str) -> tuple[VectorIndex, dict[str, str], dict[str, str]]:
        with self._lock:
            self._check_version()
            cached = self._question_indexes.get(persona)
            if cached is None:
                owners: dict[str, str] = {}
                texts: dict[str, str] = {}

                def keep(rows: list[Any]) -> None:
                    owners.update((r[0], r[2]) for r in rows)
                    texts.update((r[0], r[3]) for r in rows)

                joined = (
                    "FROM document_personas dp JOIN questions q ON q.doc_id = dp.doc_id "
                    "JOIN question_vectors v ON v.question_rowid = q.rowid WHERE dp.persona = ?"
                )
                rows_sql = f"SELECT q.id, v.vector, q.doc_id, q.text {joined} ORDER BY q.rowid"
                index = self._streamed(
                    f"SELECT count(*) {joined}", rows_sql, (persona,), self._question_vectors, keep
                )
                cached = (index, owners, texts)
                self._question_indexes[persona] = cached
            return cached

    def record_llm_run(self, summary: dict[str, object]) -> None:
        with self._lock, self._write():
            self._db.execute("INSERT INTO llm_runs(summary_json) VALUES (?)", (json.dumps(summary),))

    def llm_totals(self) -> dict[str, object]:
        return sum_llm_runs(
            json.loads(blob) for (blob,) in self._read().execute("SELECT summary_json FROM llm_runs")
        )

    def enrichment_stats(self) -> dict[str, dict[str, int]]:
        stats: dict[str, dict[str, int]] = {}
        for artifact, table, made_by in (
            ("relationships", "relationships", "origin"),
            ("profiles", "document_profiles", "method"),
            ("questions", "questions", "method"),
            ("chunk_profiles", "chunk_profiles", "method"),
        ):
            rows = (
                self._read().execute(f"SELECT {made_by}, count(*) FROM {table} GROUP BY {made_by}").fetchall()
            )
            stats[artifact] = dict(rows)
        with_context, average_words = (
            self._read()
            .execute(
                "SELECT count(*), avg(length(context) - length(replace(context, ' ', '')) + 1) "
                "FROM chunks WHERE context != ''"
            )
            .fetchone()
        )
        total_chunks, documents, profiled = (
            self._read()
            .execute(
                "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM documents), "
                "(SELECT count(*) FROM document_profiles)"
            )
            .fetchone()
        )
        return coverage(stats, total_chunks, with_context, average_words, documents, profiled)

    def delete_document(self, doc_id: str) -> bool:
        with self._lock, self._write():
            self._db.execute("DELETE FROM findings WHERE doc_id = ?", (doc_id,))
            return self._delete(doc_id)

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction: committed whole or rolled back whole; SQLite errors (a locked
        or full disk, a constraint) become StoreError naming the store."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._writing = threading.get_ident()
            yield
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

    def _delete(self, doc_id: str) -> bool:
        """Everything of the document, and a line in the change log (kept to its last
        `CHANGE_LOG` entries) for the keyword indexes."""
        self._db.execute("INSERT INTO chunk_changes(doc_id) VALUES (?)", (doc_id,))
        self._db.execute(
            "DELETE FROM chunk_changes WHERE seq <= (SELECT max(seq) FROM chunk_changes) - ?", (CHANGE_LOG,)
        )
        self._db.execute(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE doc_id = ?)", (doc_id,)
        )
        return self._db.execute("DELETE FROM documents WHERE id = ?", (doc_id,)).rowcount > 0

    def _check_embedder(self, name: str, dim: int | None) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        if row is None:
            if dim is not None:
                self._db.execute(
                    "INSERT INTO meta(key, value) VALUES ('embedder', ?)",
                    (json.dumps({"name": name, "dim": dim}),),
                )
            return
        known = json.loads(row[0])
        if known["name"] != name or (dim is not None and known["dim"] != dim):
            raise StoreError(
                f"this store holds vectors from embedder {known['name']} ({known['dim']}-d), not "
                f"{name}; use a new --home or re-ingest everything with the original embedder"
            )

    # -- chunks and search -----------------------------------------------------------------

    def get_chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]:
        found: dict[str, Chunk] = {}
        for batch in batches(list(dict.fromkeys(chunk_ids))):
            marks = ",".join("?" * len(batch))
            for row in self._read().execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.id IN ({marks})", batch
            ):
                chunk = _chunk(row)
                found[chunk.id] = chunk
        return found

    def chunk_documents(self, chunk_ids: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for batch in batches(list(dict.fromkeys(chunk_ids))):
            marks = ",".join("?" * len(batch))
            found.update(
                self._read().execute(f"SELECT id, doc_id FROM chunks WHERE id IN ({marks})", batch).fetchall()
            )
        return found

    def first_chunks(self, doc_ids: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for batch in batches(list(dict.fromkeys(doc_ids))):
            marks = ",".join("?" * len(batch))
            rows = (
                self._read()
                .execute(f"SELECT doc_id, id FROM chunks WHERE doc_id IN ({marks}) AND ord = 0", batch)
                .fetchall()
            )
            found.update(rows)
        return found

    def adjacent_chunks(self, chunk_ids: list[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for batch in batches(list(dict.fromkeys(chunk_ids))):
            marks = ",".join("?" * len(batch))
            rows = (
                self._read()
                .execute(
                    "SELECT c.id, n.id FROM chunks c JOIN chunks n ON n.doc_id = c.doc_id "
                    f"AND n.ord IN (c.ord - 1, c.ord + 1) WHERE c.id IN ({marks}) ORDER BY c.id, n.ord",
                    batch,
                )
                .fetchall()
            )
            for chunk_id, neighbour in rows:
                found.setdefault(chunk_id, []).append(neighbour)
        return found

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

    def list_chunks(self, doc_id: str) -> list[Chunk]:
        rows = self._read().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.doc_id = ? ORDER BY c.ord", (doc_id,)
        )
        return [_chunk(row) for row in rows]

    def search_keyword(self, query: str, persona: str, limit: int) -> list[ScoredChunk]:
        terms = list(dict.fromkeys(content_words(query)))
        if not terms or limit <= 0:
            return []
        if self._keywords is not None:
            found = self._keywords.search(" ".join(terms), persona, limit)
            return [ScoredChunk(chunk_id=chunk_id, score=score) for chunk_id, score in found]
        expression = " OR ".join(f'"{term}"' for term in terms)
        # The persona filter is a join, not a MATCH term: intersecting with a persona's whole
        # posting list costs more than checking each match (measured: 4 ms vs 18 ms at 100k chunks).
        with self._keyword_lock:
            rows = self._keyword_db.execute(
                "SELECT c.id, -f.rank FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid "
                "JOIN document_personas dp ON dp.doc_id = c.doc_id AND dp.persona = ? "
                "WHERE chunks_fts MATCH ? ORDER BY f.rank LIMIT ?",
                (persona, expression, limit),
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
        with self._keyword_lock:
            oldest, newest = self._keyword_db.execute(
                "SELECT min(seq), max(seq) FROM chunk_changes"
            ).fetchone()
            newest = int(newest or 0)
            if seen is None or seen >= newest:
                return int(oldest or 0), newest, []
            docs = self._keyword_db.execute(
                "SELECT DISTINCT doc_id FROM chunk_changes WHERE seq > ? AND seq <= ?", (seen, newest)
            ).fetchall()
            return int(oldest or 0), newest, [row[0] for row in docs]

    def search_vector(self, vector: np.ndarray, persona: str, limit: int) -> list[ScoredChunk]:
        found = self._persona_index(persona).search(vector, limit)
        return [ScoredChunk(chunk_id=chunk_id, score=score) for chunk_id, score in found]

    def _persona_index(self, persona: str) -> VectorIndex:
        with self._lock:
            self._check_version()
            index = self._indexes.get(persona)
            if index is None:
                index = self._indexes[persona] = self._streamed_vector_index(persona)
            return index

    def _streamed_vector_index(self, persona: str) -> VectorIndex:
        joined = (
            "FROM document_personas dp JOIN chunks c ON c.doc_id = dp.doc_id "
            "JOIN chunk_vectors v ON v.chunk_rowid = c.rowid WHERE dp.persona = ?"
        )
        return self._streamed(
            f"SELECT count(*) {joined}", f"SELECT c.id, v.vector {joined} ORDER BY c.rowid", (persona,),
            self._chunk_vectors,
        )  # fmt: skip

    def _streamed(
        self,
        count_sql: str,
        rows_sql: str,
        params: tuple[str, ...],
        read_exact: ExactReader,
        keep: Callable[[list[Any]], None] | None = None,
        batch: int = 20_000,
    ) -> VectorIndex:
        """A vector index of rows (id, vector blob, …) read a batch at a time in one snapshot
        (never a list of every blob plus their joined copy: at a million chunks those two were
        3 GB on top of the matrix, which a large persona no longer holds either); `keep` sees
        each batch of rows (what else the caller keeps of them)."""
        own = not self._db.in_transaction
        if own:
            self._db.execute("BEGIN")  # one snapshot for the count and the rows
        try:
            (count,) = self._db.execute(count_sql, params).fetchone()
            cursor = self._db.execute(rows_sql, params)

            def blocks() -> Iterator[tuple[list[str], np.ndarray]]:
                while rows := cursor.fetchmany(batch):
                    if keep is not None:
                        keep(rows)
                    blob = b"".join(r[1] for r in rows)
                    yield [r[0] for r in rows], np.frombuffer(blob, dtype=np.float32).reshape(len(rows), -1)

            return VectorIndex.streamed(blocks(), count, read_exact, exact_limit=self.exact_vector_limit)
        finally:
            if own:
                self._db.execute("COMMIT")

    def _chunk_vectors(self, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        """Chunk vectors as stored, read back for exact rescoring (a compact index holds int8)."""
        return self._vectors_in(
            "SELECT c.id, v.vector FROM chunks c JOIN chunk_vectors v ON v.chunk_rowid = c.rowid "
            "WHERE c.id IN ({marks})",
            chunk_ids,
        )

    def _question_vectors(self, question_ids: list[str]) -> dict[str, np.ndarray]:
        return self._vectors_in(
            "SELECT q.id, v.vector FROM questions q JOIN question_vectors v ON v.question_rowid = q.rowid "
            "WHERE q.id IN ({marks})",
            question_ids,
        )

    def _profile_vectors(self, surface: str) -> ExactReader:
        sql = "SELECT doc_id, vector FROM profile_vectors WHERE doc_id IN ({marks}) AND surface = ?"
        return lambda doc_ids: self._vectors_in(sql, doc_ids, surface)

    def _vectors_in(self, sql: str, ids: list[str], *after: object) -> dict[str, np.ndarray]:
        """id → float32 vector, from `_rows_in` rows of (id, vector blob)."""
        return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in self._rows_in(sql, ids, *after)}

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
        count = lambda table: self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
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


_DOC_COLUMNS = (
    "id, title, date, source_url, type, summary, license, personas_json, tags_json, meta_json, "
    "path, content_hash"
)
_JSON_FIELDS = (7, 8, 9)
_FINDING_COLUMNS = ", ".join(FINDING_FIELDS)


def _document_row(doc: Document) -> tuple[object, ...]:
    values = list(document_values(doc))
    for i in _JSON_FIELDS:
        values[i] = json.dumps(values[i], default=str)
    return tuple(values)


def _document(row: tuple) -> Document:  # type: ignore[type-arg]
    return document_from(json.loads(v) if i in _JSON_FIELDS else v for i, v in enumerate(row))


def _chunk(row: tuple) -> Chunk:  # type: ignore[type-arg]
    return chunk_from(row)


def _persona(row: tuple) -> Persona:  # type: ignore[type-arg]
    return persona_from(*row)


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
