"""What a knowledge base holds, in a form two runs can be compared by: every document with its
chunks, vectors and enrichment, the RAG files on disk, and the rows no document owns any more."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from shu.store.base import Store

if TYPE_CHECKING:
    from shu.store.postgres import PostgresStore

VECTOR_TOLERANCE = 1e-4
"""Largest difference between two runs' vectors of the same text (batching may reorder sums)."""


@dataclass
class State:
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    rag_files: dict[str, str] = field(default_factory=dict)
    orphans: dict[str, int] = field(default_factory=dict)


def capture(store: Store, root: Path | None = None) -> State:
    """Everything `store` holds (and the RAG files under `root`, by path relative to it)."""
    state = State()
    for doc in store.list_documents():
        stored = store.export_document(doc.id)
        if stored is None:
            continue
        enrichment = stored.enrichment
        state.documents[doc.id] = {
            "title": doc.title,
            "personas": sorted(doc.personas),
            "path": Path(doc.path).name,
            "chunks": [
                (c.id, c.ord, c.section_path, _digest(c.text), _digest(c.index_text)) for c in stored.chunks
            ],
            "questions": sorted(q.text for q in enrichment.questions),
            "profile": enrichment.profile.synopsis if enrichment.profile else None,
            "chunk_profiles": len(enrichment.chunk_profiles),
            "relationships": sorted((r.target, r.type, r.origin) for r in enrichment.relationships),
            "profile_surfaces": sorted(stored.profile_vectors),
        }
        state.vectors[doc.id] = stored.vectors
    if root is not None:
        for path in sorted(root.rglob("RAG/*.md")):
            state.rag_files[path.relative_to(root).as_posix()] = _digest(path.read_text(encoding="utf-8"))
    state.orphans = orphans(store)
    return state


def differences(expected: State, found: State) -> list[str]:
    """What `found` lacks, has extra, or holds differently from `expected` (empty: equal)."""
    problems = [f"orphaned {table}: {count}" for table, count in found.orphans.items() if count]
    for doc_id in sorted(expected.documents.keys() | found.documents.keys()):
        want, got = expected.documents.get(doc_id), found.documents.get(doc_id)
        if want is None:
            problems.append(f"extra document {doc_id}")
        elif got is None:
            problems.append(f"lost document {doc_id}")
        elif want != got:
            fields = [k for k in want if want[k] != got.get(k)]
            problems.append(f"document {doc_id} differs in {', '.join(fields)}")
        elif not _close(expected.vectors[doc_id], found.vectors[doc_id]):
            problems.append(f"document {doc_id} has other vectors")
    if expected.rag_files != found.rag_files:
        changed = sorted(set(expected.rag_files.items()) ^ set(found.rag_files.items()))
        problems.append(f"RAG files differ: {', '.join(sorted({name for name, _ in changed}))}")
    return problems


def orphans(store: Store) -> dict[str, int]:
    """Rows that belong to no document or chunk, by table (all 0 in a sound store)."""
    from shu.store.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        queries = _SQLITE_ORPHANS

        def run(sql: str) -> int:
            return int(store._db.execute(sql).fetchone()[0])

    else:
        queries = _POSTGRES_ORPHANS
        postgres = cast("PostgresStore", store)  # open_store_url makes one of the two

        def run(sql: str) -> int:
            with postgres._connection() as conn:
                return int(conn.execute(sql).fetchone()[0])

    return {table: int(run(sql)) for table, sql in queries.items()}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(np.abs(a.astype(np.float64) - b) <= VECTOR_TOLERANCE))


def _dangling(child: str, column: str, parent: str, key: str) -> str:
    return f"SELECT count(*) FROM {child} WHERE {column} NOT IN (SELECT {key} FROM {parent})"


_SQLITE_ORPHANS = {
    "chunks": _dangling("chunks", "doc_id", "documents", "id"),
    "chunks without vectors": _dangling("chunks", "rowid", "chunk_vectors", "chunk_rowid"),
    "chunk_vectors": _dangling("chunk_vectors", "chunk_rowid", "chunks", "rowid"),
    "chunks_fts": _dangling("chunks_fts", "rowid", "chunks", "rowid"),
    "chunks not in chunks_fts": _dangling("chunks", "rowid", "chunks_fts", "rowid"),
    "questions": _dangling("questions", "doc_id", "documents", "id"),
    "question_vectors": _dangling("question_vectors", "question_rowid", "questions", "rowid"),
    "document_profiles": _dangling("document_profiles", "doc_id", "documents", "id"),
    "chunk_profiles": _dangling("chunk_profiles", "chunk_id", "chunks", "id"),
    "relationships": _dangling("relationships", "source_doc", "documents", "id"),
    "profile_vectors": _dangling("profile_vectors", "doc_id", "documents", "id"),
    "document_personas": _dangling("document_personas", "doc_id", "documents", "id"),
}
_POSTGRES_ORPHANS = {
    "chunks": _dangling("chunks", "doc_id", "documents", "id"),
    "bm25_postings": _dangling("bm25_postings", "chunk_id", "chunks", "id"),
    "questions": _dangling("questions", "doc_id", "documents", "id"),
    "document_profiles": _dangling("document_profiles", "doc_id", "documents", "id"),
    "chunk_profiles": _dangling("chunk_profiles", "chunk_id", "chunks", "id"),
    "relationships": _dangling("relationships", "source_doc", "documents", "id"),
    "profile_vectors": _dangling("profile_vectors", "doc_id", "documents", "id"),
    "bm25_terms with a wrong df": "SELECT count(*) FROM bm25_terms t WHERE t.df <> "
    "(SELECT count(*) FROM bm25_postings p WHERE p.lexeme = t.lexeme)",
}
