"""A SQLite store's vector search: each persona's chunk, question and profile-surface vectors
held in memory as a `VectorIndex` (exact up to `exact_vector_limit` vectors, a sign-bit shortlist
rescored exactly above), read from the store in one snapshot a batch at a time, and rebuilt after
any write by this or another connection (`_check_version` empties the caches)."""

from __future__ import annotations

import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from shu.store.base import ScoredChunk, ScoredDocument, ScoredQuestion, Within
from shu.store.sql import Row
from shu.store.vectors import ExactReader, VectorIndex


class SQLiteVectorIndexes(ABC):
    exact_vector_limit: int
    _db: sqlite3.Connection
    _lock: threading.RLock
    _indexes: dict[str, VectorIndex]
    _question_indexes: dict[str, tuple[VectorIndex, dict[str, str], dict[str, str]]]
    _profile_indexes: dict[tuple[str, str], VectorIndex]

    @abstractmethod
    def _check_version(self) -> None: ...

    @abstractmethod
    def _rows_in(self, sql: str, ids: Sequence[str], *after: object) -> list[Row]: ...

    def search_vector(
        self, vector: np.ndarray, persona: str, limit: int, within: Within = None
    ) -> list[ScoredChunk]:
        index = self._persona_index(persona)
        found = index.search(vector, limit, None if within is None else index.rows_of(within))
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
        owners: list[str] = []
        index = self._streamed(
            f"SELECT count(*) {joined}", f"SELECT c.id, v.vector, c.doc_id {joined} ORDER BY c.rowid",
            (persona,), self._chunk_vectors, lambda rows: owners.extend(r[2] for r in rows),
        )  # fmt: skip
        index.own(owners)
        return index

    def search_questions(
        self, vector: np.ndarray, persona: str, limit: int, within: Within = None
    ) -> list[ScoredQuestion]:
        index, owners, texts = self._question_index(persona)
        rows = None if within is None else index.rows_of(within)
        return [
            ScoredQuestion(question_id=qid, doc_id=owners[qid], text=texts[qid], score=score)
            for qid, score in index.search(vector, limit, rows)
        ]

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
                index.own(owners[qid] for qid in index.ids)
                cached = (index, owners, texts)
                self._question_indexes[persona] = cached
            return cached

    def search_profiles(
        self, vector: np.ndarray, persona: str, surface: str, limit: int, within: Within = None
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
                index.own(index.ids)
                self._profile_indexes[(persona, surface)] = index
        rows = None if within is None else index.rows_of(within)
        return [
            ScoredDocument(doc_id=doc_id, score=score) for doc_id, score in index.search(vector, limit, rows)
        ]

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
            "WHERE c.id {in}",
            chunk_ids,
        )

    def _question_vectors(self, question_ids: list[str]) -> dict[str, np.ndarray]:
        return self._vectors_in(
            "SELECT q.id, v.vector FROM questions q JOIN question_vectors v ON v.question_rowid = q.rowid "
            "WHERE q.id {in}",
            question_ids,
        )

    def _profile_vectors(self, surface: str) -> ExactReader:
        sql = "SELECT doc_id, vector FROM profile_vectors WHERE doc_id {in} AND surface = ?"
        return lambda doc_ids: self._vectors_in(sql, doc_ids, surface)

    def _vectors_in(self, sql: str, ids: list[str], *after: object) -> dict[str, np.ndarray]:
        """id → float32 vector, from `_rows_in` rows of (id, vector blob)."""
        return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in self._rows_in(sql, ids, *after)}
