"""The knowledge store's bodies that do not depend on the database: one SQL text for SQLite and
PostgreSQL, written with `?` placeholders, over a small dialect each backend gives.

A backend provides the dialect (`SQLDialect`: the meta table, the active-finding test, the
newest-first order, how a persona's documents and chunk profiles are selected) and five
primitives: `_all`/`_one` (read), `_rows_in` (a statement over a list of ids: batched
`IN (?, ?)` in SQLite, one `= ANY(?)` in PostgreSQL), `_exec`/`_many` (on a write connection
from `_write()`), and `_document_from` (a row as a `Document`). It keeps its connections, locks,
migrations, the writes of chunks and vectors, and the wiring of its indexes."""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from shu.errors import StoreError
from shu.store.document_index import DocumentIndex
from shu.store.keyword_index import CHANGE_LOG
from shu.store.rows import (
    CHUNK_FIELDS,
    FINDING_FIELDS,
    chunk_from,
    coverage,
    finding_from,
    finding_key,
    finding_values,
    findings_applied,
    now,
    persona_from,
    sum_llm_runs,
    with_agent_relationships,
)
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

Row = tuple[Any, ...]
KeywordRows = Callable[[str, Sequence[object]], list[Row]]
"""Reads a statement's rows on the keyword index's own connection."""

_CHUNK_COLUMNS = ", ".join(f"c.{name}" for name in CHUNK_FIELDS)
_FINDING_COLUMNS = ", ".join(FINDING_FIELDS)
PROFILE_FINDINGS = ("document_type", "stale_manifest", "participant", "project")
"""the findings that correct a document's profile"""
_NEW_FINDING = ", ".join(FINDING_FIELDS[1:])
_PERSONA_COLUMNS = "slug, display_name, description, config_json"
_MADE_BY = (
    ("relationships", "relationships", "origin"),
    ("profiles", "document_profiles", "method"),
    ("questions", "questions", "method"),
    ("chunk_profiles", "chunk_profiles", "method"),
)


@dataclass(frozen=True)
class SQLDialect:
    """What differs in the SQL text between two databases that store the same records."""

    meta: str
    """the key/value table (`store_id`, `embedder`, …)"""
    document_columns: str
    """a document's columns on `documents d`, in `DOCUMENT_FIELDS` order"""
    active: str
    """a finding that is not undone"""
    newest_first: str
    """findings' order, newest first"""
    question_order: str
    """a document's questions in the order they were written"""
    chunk_profiles_of_persona: str
    """the chunk profiles (`cp.profile_json`) of persona `?`, in chunk order"""
    persona_documents: str
    """the condition on `documents d` that a document is in persona `?`"""
    context_words: str
    """a chunk's context prefix in words (an aggregate's argument)"""
    other_embedder: str
    """what to do when vectors of another embedder arrive"""
    binary: str
    """the collation that orders text by its bytes, as Python sorts it"""


class SQLTables(ABC):
    """What every SQL body reads and writes through: the primitives a backend gives."""

    dialect: SQLDialect

    @abstractmethod
    def _all(self, sql: str, params: Sequence[object] = ()) -> list[Row]: ...

    @abstractmethod
    def _exec(self, conn: Any, sql: str, params: Sequence[object] = ()) -> Any:
        """One statement on a write connection; its cursor."""

    def _clean(self, value: str) -> str:
        """Text as the database can hold it."""
        return value

    def _one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        rows = self._all(sql, params)
        return rows[0] if rows else None


class SQLKnowledge(SQLTables):
    """Personas, documents, chunks, profiles, relationships, questions, findings and the shared
    parts of writes, for a backend that gives the dialect and the primitives below."""

    _lock: threading.RLock
    _document_indexes: dict[str, DocumentIndex]

    # -- primitives a backend gives ---------------------------------------------------------

    @abstractmethod
    def _rows_in(self, sql: str, ids: Sequence[str], *after: object) -> list[Row]:
        """`sql`'s `{in}` becomes the test that a column is one of the distinct `ids`; `after`
        fills the placeholders after it; the rows of every statement read."""

    @abstractmethod
    def _many(self, conn: Any, sql: str, rows: Sequence[Sequence[object]]) -> None: ...

    @abstractmethod
    def _write(self) -> AbstractContextManager[Any]:
        """One write transaction (committed whole, the generation moved); the connection."""

    @abstractmethod
    def _document_from(self, row: Row) -> Document: ...

    @abstractmethod
    def _check_version(self) -> None:
        """Forget what is cached once anything was written (here or by another process)."""

    @abstractmethod
    def _first_vectors(self, conn: Any, dim: int) -> None:
        """The first vectors arrive (`dim` wide): what the backend prepares for them."""

    # -- personas ----------------------------------------------------------------------------

    def get_persona(self, slug: str) -> Persona | None:
        row = self._one(f"SELECT {_PERSONA_COLUMNS} FROM personas WHERE slug = ?", (slug,))
        return persona_from(*row) if row else None

    def list_personas(self) -> list[Persona]:
        return [
            persona_from(*row) for row in self._all(f"SELECT {_PERSONA_COLUMNS} FROM personas ORDER BY slug")
        ]

    # -- documents -----------------------------------------------------------------------------

    def get_document(self, doc_id: str) -> Document | None:
        return self.get_documents([doc_id]).get(doc_id)

    def get_documents(self, doc_ids: list[str]) -> dict[str, Document]:
        rows = self._rows_in(
            f"SELECT {self.dialect.document_columns} FROM documents d WHERE d.id {{in}}", doc_ids
        )
        return {row[0]: self._document_from(row) for row in rows}

    def list_documents(self, persona: str | None = None) -> list[Document]:
        if persona is None:
            rows = self._all(f"SELECT {self.dialect.document_columns} FROM documents d ORDER BY d.id")
        else:
            where = self.dialect.persona_documents
            rows = self._all(
                f"SELECT {self.dialect.document_columns} FROM documents d WHERE {where} ORDER BY d.id",
                (persona,),
            )
        return [self._document_from(row) for row in rows]

    def document_index(self, persona: str) -> DocumentIndex:
        with self._lock:
            self._check_version()
            index = self._document_indexes.get(persona)
            if index is None:
                rows = self._all(
                    f"SELECT {self.dialect.document_columns}, p.profile_json FROM documents d "
                    "LEFT JOIN document_profiles p ON p.doc_id = d.id "
                    f"WHERE {self.dialect.persona_documents} ORDER BY d.id",
                    (persona,),
                )
                profiles = self._all(self.dialect.chunk_profiles_of_persona, (persona,))
                stored = {r[0]: DocumentProfile.model_validate_json(r[-1]) for r in rows if r[-1]}
                found = self._active_findings(list(stored), *PROFILE_FINDINGS)
                # a person or project the agent found while answering in another persona stays there
                mine = [f for f in found if f.kind not in ("participant", "project") or f.persona == persona]
                corrected = findings_applied(stored, mine)
                index = DocumentIndex.build(
                    [(self._document_from(r[:-1]), corrected.get(r[0])) for r in rows],
                    [ChunkProfile.model_validate_json(r[0]) for r in profiles],
                )
                self._document_indexes[persona] = index
            return index

    # -- enrichment ----------------------------------------------------------------------------

    def get_profile(self, doc_id: str) -> DocumentProfile | None:
        return self.get_profiles([doc_id]).get(doc_id)

    def get_profiles(self, doc_ids: list[str]) -> dict[str, DocumentProfile]:
        rows = self._rows_in("SELECT doc_id, profile_json FROM document_profiles WHERE doc_id {in}", doc_ids)
        stored = {r[0]: DocumentProfile.model_validate_json(r[1]) for r in rows}
        return findings_applied(stored, self._active_findings(list(stored), *PROFILE_FINDINGS))

    def _stored_profile(self, doc_id: str) -> DocumentProfile | None:
        row = self._one("SELECT profile_json FROM document_profiles WHERE doc_id = ?", (doc_id,))
        return DocumentProfile.model_validate_json(row[0]) if row else None

    def list_relationships(self, doc_ids: list[str]) -> list[Relationship]:
        found = self._stored_relationships(doc_ids)
        return with_agent_relationships(found, self._active_findings(doc_ids, "relationship"))

    def linking_to(self, doc_id: str) -> list[str]:
        stored = self._all("SELECT DISTINCT source_doc FROM relationships WHERE target_doc = ?", (doc_id,))
        found = self._all(
            f"SELECT DISTINCT doc_id FROM findings WHERE kind = 'relationship' AND target = ? "
            f"AND {self.dialect.active}",
            (doc_id,),
        )
        return sorted({r[0] for r in stored} | {r[0] for r in found})

    def _stored_relationships(self, doc_ids: list[str]) -> list[Relationship]:
        rows = self._rows_in(
            "SELECT source_doc, target_doc, type, origin, confidence, evidence FROM relationships "
            "WHERE source_doc {in} ORDER BY source_doc, confidence DESC, target_doc",
            doc_ids,
        )
        return [
            Relationship(source=r[0], target=r[1], type=r[2], origin=r[3], confidence=r[4], evidence=r[5])
            for r in rows
        ]

    def list_questions(self, doc_id: str) -> list[SynthesizedQuestion]:
        rows = self._all(
            "SELECT id, text, method, prompt_version FROM questions WHERE doc_id = ? "
            f"ORDER BY {self.dialect.question_order}",
            (doc_id,),
        )
        return [
            SynthesizedQuestion(
                id=r[0], doc_id=doc_id, text=r[1], provenance=Provenance(method=r[2], prompt_version=r[3])
            )
            for r in rows
        ]

    def get_chunk_profiles(self, chunk_ids: list[str]) -> dict[str, ChunkProfile]:
        rows = self._rows_in(
            "SELECT chunk_id, profile_json FROM chunk_profiles WHERE chunk_id {in}", chunk_ids
        )
        return {chunk_id: ChunkProfile.model_validate_json(blob) for chunk_id, blob in rows}

    def enrichment_stats(self) -> dict[str, dict[str, int]]:
        stats = {
            artifact: {
                str(k): int(v) for k, v in self._all(f"SELECT {by}, count(*) FROM {table} GROUP BY {by}")
            }
            for artifact, table, by in _MADE_BY
        }
        with_context, average_words = self._one(
            f"SELECT count(*), avg({self.dialect.context_words}) FROM chunks WHERE context != ''"
        ) or (0, 0)
        total_chunks, documents, profiled = self._one(
            "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM documents), "
            "(SELECT count(*) FROM document_profiles)"
        ) or (0, 0, 0)
        return coverage(stats, total_chunks, with_context, float(average_words or 0), documents, profiled)

    def llm_totals(self) -> dict[str, object]:
        return sum_llm_runs(json.loads(blob) for (blob,) in self._all("SELECT summary_json FROM llm_runs"))

    # -- the agent's findings ------------------------------------------------------------------

    def add_finding(self, finding: Finding) -> Finding:
        stored = finding.model_copy(update={"id": None, "created": finding.created or now()})
        existing = self._same_finding(stored)
        if existing is not None:  # nothing written: the generation (and cached answers) stay
            return existing
        with self._write() as conn:  # writers queue: the check below sees every earlier finding
            existing = self._same_finding(stored, conn)
            if existing is not None:
                return existing
            values = [self._clean(v) if isinstance(v, str) else v for v in finding_values(stored)]
            marks = ", ".join("?" * len(values))
            cursor = self._exec(
                conn, f"INSERT INTO findings({_NEW_FINDING}) VALUES ({marks}) RETURNING id", values
            )
            stored.id = int(cursor.fetchall()[0][0])
        return stored

    def _same_finding(self, finding: Finding, conn: Any = None) -> Finding | None:
        """The active finding identical to this one (none for one that arrives undone); read on
        `conn` inside a write."""
        if finding.undone:
            return None
        sql = (
            f"SELECT {_FINDING_COLUMNS} FROM findings WHERE kind = ? AND doc_id = ? AND persona = ? "
            f"AND coalesce(target, '') = ? AND coalesce(value, '') = ? AND {self.dialect.active}"
        )
        key = [self._clean(v) for v in finding_key(finding)]
        row = self._one(sql, key) if conn is None else next(iter(self._exec(conn, sql, key).fetchall()), None)
        return finding_from(row) if row else None

    def list_findings(self, persona: str | None = None, include_undone: bool = False) -> list[Finding]:
        where = ["1 = 1"]
        params: list[object] = []
        if persona is not None:
            where.append("persona = ?")
            params.append(persona)
        if not include_undone:
            where.append(self.dialect.active)
        where_all = " AND ".join(where)
        rows = self._all(
            f"SELECT {_FINDING_COLUMNS} FROM findings WHERE {where_all} {self.dialect.newest_first}", params
        )
        return [finding_from(row) for row in rows]

    def undo_finding(self, finding_id: int) -> bool:
        active = f"id = ? AND {self.dialect.active}"
        if self._one(f"SELECT 1 FROM findings WHERE {active}", (finding_id,)) is None:
            return False  # nothing to write: the generation stays
        with self._write() as conn:
            return (
                int(
                    self._exec(
                        conn, f"UPDATE findings SET undone = true WHERE {active}", (finding_id,)
                    ).rowcount
                )
                > 0
            )

    def _active_findings(self, doc_ids: list[str], *kinds: str) -> list[Finding]:
        """Active findings of these kinds about these documents, newest first."""
        rows = self._rows_in(
            f"SELECT {_FINDING_COLUMNS} FROM findings WHERE doc_id {{in}} "
            f"AND kind IN ({', '.join('?' * len(kinds))}) AND {self.dialect.active} "
            f"{self.dialect.newest_first}",
            doc_ids,
            *kinds,
        )
        return [finding_from(row) for row in rows]

    # -- chunks ------------------------------------------------------------------------------

    def get_chunks(self, chunk_ids: list[str]) -> dict[str, Chunk]:
        rows = self._rows_in(f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.id {{in}}", chunk_ids)
        return {row[0]: chunk_from(row) for row in rows}

    def list_chunks(self, doc_id: str) -> list[Chunk]:
        rows = self._all(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.doc_id = ? ORDER BY c.ord", (doc_id,)
        )
        return [chunk_from(row) for row in rows]

    def chunk_documents(self, chunk_ids: list[str]) -> dict[str, str]:
        return dict(self._rows_in("SELECT id, doc_id FROM chunks WHERE id {in}", chunk_ids))

    def _index_texts(self, chunk_ids: list[str]) -> dict[str, str]:
        """chunk id → the text its keywords are indexed from (what keyword feedback reads)."""
        return dict(self._rows_in("SELECT id, index_text FROM chunks WHERE id {in}", chunk_ids))

    def first_chunks(self, doc_ids: list[str]) -> dict[str, str]:
        return dict(self._rows_in("SELECT doc_id, id FROM chunks WHERE doc_id {in} AND ord = 0", doc_ids))

    def adjacent_chunks(self, chunk_ids: list[str]) -> dict[str, list[str]]:
        rows = self._rows_in(
            "SELECT c.id, n.id FROM chunks c JOIN chunks n ON n.doc_id = c.doc_id "
            "AND n.ord IN (c.ord - 1, c.ord + 1) WHERE c.id {in} ORDER BY c.id, n.ord",
            chunk_ids,
        )
        found: dict[str, list[str]] = {}
        for chunk_id, neighbour in rows:
            found.setdefault(chunk_id, []).append(neighbour)
        return found

    # -- what the index was built with ---------------------------------------------------------

    def index_settings(self) -> dict[str, Any]:
        row = self._one(f"SELECT value FROM {self.dialect.meta} WHERE key = 'index_settings'")
        try:
            found = json.loads(row[0]) if row else {}
        except ValueError:  # damaged by hand: the next run writes it again
            return {}
        return found if isinstance(found, dict) else {}

    def save_index_settings(self, settings: dict[str, Any]) -> None:
        with self._write() as conn:
            self._exec(
                conn,
                f"INSERT INTO {self.dialect.meta}(key, value) VALUES ('index_settings', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (json.dumps(settings, sort_keys=True),),
            )

    # -- the shared parts of writes ----------------------------------------------------------

    def stored_embedder(self) -> str | None:
        row = self._one(f"SELECT value FROM {self.dialect.meta} WHERE key = 'embedder'")
        return str(json.loads(row[0])["name"]) if row else None

    def forget_embedder(self) -> None:
        with self._write() as conn:
            (left,) = self._exec(conn, "SELECT count(*) FROM documents").fetchone()
            if left:
                raise StoreError(f"{left} documents still hold vectors of embedder {self.stored_embedder()}")
            self._exec(conn, f"DELETE FROM {self.dialect.meta} WHERE key = 'embedder'")
            self._vectors_forgotten(conn)

    @abstractmethod
    def _vectors_forgotten(self, conn: Any) -> None:
        """No vectors are left and the next may be of another width: what the backend undoes of
        `_first_vectors`."""

    def _check_embedder(self, conn: Any, name: str, dim: int | None) -> None:
        """The first vectors name the store's embedder; vectors of another are refused."""
        meta = self.dialect.meta
        row = next(
            iter(self._exec(conn, f"SELECT value FROM {meta} WHERE key = 'embedder'").fetchall()), None
        )
        if row is None:
            if dim is not None:
                self._exec(
                    conn,
                    f"INSERT INTO {meta}(key, value) VALUES ('embedder', ?) ON CONFLICT (key) DO NOTHING",
                    (json.dumps({"name": name, "dim": dim}),),
                )
                self._first_vectors(conn, dim)
            return
        known = json.loads(row[0])
        if known["name"] != name or (dim is not None and known["dim"] != dim):
            raise StoreError(
                f"this store holds vectors from embedder {known['name']} ({known['dim']}-d), not "
                f"{name}; {self.dialect.other_embedder}"
            )

    def _log_change(self, conn: Any, doc_id: str) -> None:
        """A line in the change log the keyword indexes follow (kept to its last `CHANGE_LOG`)."""
        self._exec(conn, "INSERT INTO chunk_changes(doc_id) VALUES (?)", (doc_id,))
        self._exec(
            conn,
            "DELETE FROM chunk_changes WHERE seq <= (SELECT max(seq) FROM chunk_changes) - ?",
            (CHANGE_LOG,),
        )

    def _write_profiles_and_links(self, conn: Any, doc_id: str, enrichment: Enrichment) -> None:
        """A document's profile, relationships and chunk profiles (its questions carry vectors,
        which each backend writes its own way)."""
        if enrichment.profile is not None:
            provenance = enrichment.profile.provenance
            self._exec(
                conn,
                "INSERT INTO document_profiles(doc_id, profile_json, method, prompt_version) "
                "VALUES (?, ?, ?, ?)",
                (doc_id, enrichment.profile.model_dump_json(), provenance.method, provenance.prompt_version),
            )
        self._many(
            conn,
            "INSERT INTO relationships(source_doc, target_doc, type, origin, confidence, evidence) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (doc_id, r.target, r.type, r.origin, r.confidence, r.evidence)
                for r in enrichment.relationships
            ],
        )
        self._many(
            conn,
            "INSERT INTO chunk_profiles(chunk_id, profile_json, method, prompt_version) VALUES (?, ?, ?, ?)",
            [
                (p.chunk_id, p.model_dump_json(), p.provenance.method, p.provenance.prompt_version)
                for p in enrichment.chunk_profiles
            ],
        )

    def _keyword_changes_on(self, rows: KeywordRows, seen: int | None) -> tuple[int, int, list[str]]:
        """The change log's oldest and newest lines and the documents changed after `seen`."""
        oldest, newest = rows("SELECT min(seq), max(seq) FROM chunk_changes", ())[0]
        newest = int(newest or 0)
        if seen is None or seen >= newest:
            return int(oldest or 0), newest, []
        docs = rows("SELECT DISTINCT doc_id FROM chunk_changes WHERE seq > ? AND seq <= ?", (seen, newest))
        return int(oldest or 0), newest, [row[0] for row in docs]


def placeholders(sql: str) -> str:
    """`?` placeholders as psycopg's `%s` (the shared SQL holds no literal `?` or `%`)."""
    return sql.replace("?", "%s")
