"""Evaluation datasets in the BEIR layout, with Shu's optional `metadata` extensions.

corpus.jsonl   {"_id", "title", "text", "metadata": {doc_id, persona, title, date, author,
                participants, tags, section, relations: {type: [doc_id, …]}}}
                rows sharing `doc_id` are one document's ordered chunks (ingested as is,
                never re-chunked)
queries.jsonl  {"_id", "text", "metadata": {persona}}
qrels/<split>.tsv   query-id <tab> corpus-id <tab> score   (with a header line)
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shu.enrich.entities import find_dates
from shu.errors import ShuError

DEFAULT_PERSONA = "eval"


class DatasetError(ShuError):
    pass


@dataclass
class EvalChunk:
    id: str
    text: str
    section: str


@dataclass
class EvalDocument:
    id: str
    title: str
    persona: str
    chunks: list[EvalChunk] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class EvalQuery:
    id: str
    text: str
    persona: str
    answers: list[str] = field(default_factory=list)
    """Acceptable short answers (`metadata.answers`), for `shu eval --answers`."""
    answerable: bool | None = None
    """False when the right response is to abstain (`metadata.answerable`)."""


@dataclass
class Dataset:
    name: str
    path: Path
    split: str
    documents: list[EvalDocument]
    queries: list[EvalQuery]
    qrels: dict[str, dict[str, int]]
    corpus_sha256: str
    answer_queries: list[EvalQuery] = field(default_factory=list)
    """Queries with gold answers or marked unanswerable (those need no qrels)."""

    @property
    def personas(self) -> list[str]:
        return sorted({d.persona for d in self.documents} | {q.persona for q in self.queries})

    @property
    def chunk_count(self) -> int:
        return sum(len(d.chunks) for d in self.documents)


def load_dataset(path: Path, split: str = "test") -> Dataset:
    corpus_file, queries_file, qrels_file = (
        path / "corpus.jsonl",
        path / "queries.jsonl",
        path / "qrels" / f"{split}.tsv",
    )
    for required in (corpus_file, queries_file, qrels_file):
        if not required.is_file():
            raise DatasetError(
                f"{required}: missing (BEIR layout: corpus.jsonl, queries.jsonl, qrels/{split}.tsv)"
            )
    qrels = _read_qrels(qrels_file)
    documents = _read_corpus(corpus_file)
    every = _read_queries(queries_file)
    queries = [q for q in every if q.id in qrels]
    if not queries:
        raise DatasetError(f"{qrels_file}: no query in it appears in {queries_file.name}")
    digest = hashlib.sha256(corpus_file.read_bytes()).hexdigest()
    answered = [q for q in every if q.answers or q.answerable is False]
    return Dataset(path.name, path, split, documents, queries, qrels, digest, answered)


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict) or "_id" not in row:
                raise DatasetError(f"{path}:{number}: each line must be an object with an _id")
            rows.append(row)
    return rows


def _read_corpus(path: Path) -> list[EvalDocument]:
    documents: dict[str, EvalDocument] = {}
    for row in _rows(path):
        metadata = row.get("metadata")
        meta: dict[str, Any] = metadata if isinstance(metadata, dict) else {}
        row_id = str(row["_id"])
        doc_id = str(meta.get("doc_id") or row_id)
        title = str(meta.get("title") or row.get("title") or "").strip()
        doc = documents.get(doc_id)
        if doc is None:
            doc = documents[doc_id] = EvalDocument(
                id=doc_id,
                title=title or doc_id,
                persona=str(meta.get("persona") or DEFAULT_PERSONA),
                meta=_document_meta(meta),
            )
        section = str(meta.get("section") or doc.title)
        doc.chunks.append(EvalChunk(id=row_id, text=str(row.get("text") or ""), section=section))
    return list(documents.values())


def _document_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """The metadata Shu keeps for a document: dates as ISO (a session dated "1:56 pm on 8 May,
    2023" → 2023-05-08), a news `source` as its publisher."""
    kept: dict[str, Any] = {
        k: meta[k] for k in ("date", "author", "participants", "tags", "relations") if k in meta
    }
    if kept.get("date"):
        found = find_dates(str(kept["date"]))
        kept["date"] = found[0] if found else str(kept["date"])
    if meta.get("source"):
        kept["publisher"] = str(meta["source"])
    return kept


def _read_queries(path: Path) -> list[EvalQuery]:
    queries = []
    for row in _rows(path):
        metadata = row.get("metadata")
        meta: dict[str, Any] = metadata if isinstance(metadata, dict) else {}
        persona = str(meta.get("persona") or DEFAULT_PERSONA)
        answers = meta.get("answers")
        answerable = meta.get("answerable")
        queries.append(
            EvalQuery(
                id=str(row["_id"]),
                text=str(row.get("text") or ""),
                persona=persona,
                answers=[str(a) for a in answers] if isinstance(answers, list) else [],
                answerable=answerable if isinstance(answerable, bool) else None,
            )
        )
    return queries


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        for number, row in enumerate(reader, start=1):
            if not row or (number == 1 and row[0] == "query-id"):
                continue
            try:
                query_id, corpus_id, score = row[0], row[1], int(row[2])
            except (IndexError, ValueError) as exc:
                raise DatasetError(f"{path}:{number}: expected query-id, corpus-id, integer score") from exc
            qrels.setdefault(query_id, {})[corpus_id] = score
    return qrels
