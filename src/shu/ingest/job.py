"""The ingestion run: persona folders → RAW-DOCS converted → RAG documents chunked, embedded in
batches across documents, and stored one document per transaction. Unchanged documents cost a
hash; a bad file is reported and skipped; `prune` removes documents whose files are gone."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from shu.config.settings import Settings
from shu.errors import ConfigError, ShuError, SkipDocument
from shu.ingest.chunking import chunk_document
from shu.ingest.documents import ParsedDocument, parse_rag_file
from shu.ingest.files import list_files, read_inside
from shu.ingest.personas import PersonaFolder, find_persona_folders, load_persona
from shu.ingest.raw import convert_raw_folder, prune_orphans
from shu.ingest.report import FileOutcome, IngestReport
from shu.ingest.urls import fetch_url_lists
from shu.models.embed.base import Embedder
from shu.store.base import Store
from shu.types import Chunk

Progress = Callable[[str, int, int], None]
"""progress(stage, done, total)"""


@dataclass
class _Pending:
    parsed: ParsedDocument
    chunks: list[Chunk]
    outcome: FileOutcome


@dataclass
class _Batch:
    items: list[_Pending] = field(default_factory=list)

    @property
    def chunk_count(self) -> int:
        return sum(len(p.chunks) for p in self.items)


class IngestJob:
    def __init__(
        self, settings: Settings, store: Store, embedder: Embedder, progress: Progress | None = None
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.progress = progress or (lambda stage, done, total: None)
        self.max_bytes = int(settings.ingest.max_file_mb * 1_000_000)

    def run(self, root: Path, prune: bool = False) -> IngestReport:
        started = time.perf_counter()
        report = IngestReport()
        folders = self._load_personas(root, report)
        for folder in folders:
            for outcome in convert_raw_folder(folder, self.max_bytes):
                report.add(outcome)
            if prune:
                for outcome in prune_orphans(folder):
                    report.add(outcome)
            for outcome in fetch_url_lists(folder, self.max_bytes, self.settings.ingest.url_timeout_s):
                report.add(outcome)
        seen_paths = self._ingest_rag(folders, report)
        if prune:
            self._prune(folders, seen_paths, report)
        report.seconds = time.perf_counter() - started
        return report

    def _load_personas(self, root: Path, report: IngestReport) -> list[PersonaFolder]:
        if not root.is_dir():
            raise ConfigError(f"{root}: not a folder (expected a persona folder or a folder of personas)")
        paths = find_persona_folders(root)
        if not paths:
            raise ConfigError(
                f"{root}: no persona folders found (each needs persona.md or persona.config.json)"
            )
        folders: list[PersonaFolder] = []
        for path in paths:
            try:
                folder = load_persona(path)
            except ConfigError as exc:
                report.add(FileOutcome(path=str(path), status="failed", message=str(exc)))
                continue
            self.store.upsert_persona(folder.persona)
            report.personas.append(folder.slug)
            folders.append(folder)
        return folders

    def _ingest_rag(self, folders: list[PersonaFolder], report: IngestReport) -> set[str]:
        files = [
            (folder, path)
            for folder in folders
            for path in list_files(folder.rag_dir)
            if path.suffix.lower() == ".md"
        ]
        known = {p.slug for p in self.store.list_personas()}
        claimed: dict[str, ParsedDocument] = {}
        seen_paths: set[str] = set()
        batch = _Batch()
        for done, (folder, path) in enumerate(files, start=1):
            seen_paths.add(str(path.resolve()))
            pending = self._prepare(folder, path, known, claimed, report)
            if pending is not None:
                batch.items.append(pending)
            if batch.chunk_count >= self.settings.ingest.embed_batch_chunks:
                self._flush(batch)
            self.progress("ingest", done, len(files))
        self._flush(batch)
        return seen_paths

    def _prepare(
        self,
        folder: PersonaFolder,
        path: Path,
        known: set[str],
        claimed: dict[str, ParsedDocument],
        report: IngestReport,
    ) -> _Pending | None:
        outcome = report.add(FileOutcome(path=str(path), status="failed"))
        try:
            data = read_inside(path, folder.path, self.max_bytes)
            parsed = parse_rag_file(path, data, folder.slug, self._fingerprint())
        except SkipDocument as exc:
            outcome.status, outcome.message = "skipped", str(exc)
            return None
        except ShuError as exc:
            outcome.message = str(exc)
            return None
        except Exception as exc:  # a parser bug must not stop the run: report it and go on
            outcome.message = f"unexpected {exc.__class__.__name__}: {exc}"
            return None
        doc = parsed.doc
        outcome.doc_id = doc.id
        outcome.warnings = parsed.warnings + [
            f"lists persona {slug!r}, which has no persona folder"
            for slug in doc.personas
            if slug not in known
        ]
        first = claimed.get(doc.id)
        if first is not None:
            if first.raw != parsed.raw:
                outcome.message = (
                    f"document id {doc.id!r} is already used by {first.doc.path}; give one another id"
                )
                return None
            outcome.status, outcome.message = "unchanged", f"same document as {first.doc.path}"
            return None
        claimed[doc.id] = parsed
        stored = self.store.get_document(doc.id)
        if stored is not None and stored.content_hash == doc.content_hash:
            outcome.status = "unchanged"
            return None
        chunking = self.settings.chunking
        chunks = chunk_document(doc.id, doc.title, parsed.body, chunking.max_tokens, chunking.overlap_tokens)
        if not chunks:
            outcome.status, outcome.message = "skipped", "no text to index"
            return None
        return _Pending(parsed=parsed, chunks=chunks, outcome=outcome)

    def _flush(self, batch: _Batch) -> None:
        if not batch.items:
            return
        texts = [chunk.index_text for item in batch.items for chunk in item.chunks]
        try:
            vectors = self.embedder.embed_documents(texts)
        except ShuError as exc:
            for item in batch.items:
                item.outcome.message = f"embedding failed: {exc}"
            batch.items.clear()
            return
        offset = 0
        for item in batch.items:
            count = len(item.chunks)
            try:
                self.store.replace_document(
                    item.parsed.doc, item.chunks, vectors[offset : offset + count], self.embedder.name
                )
                item.outcome.status, item.outcome.chunks = "ingested", count
            except ShuError as exc:
                item.outcome.message = str(exc)
            offset += count
        batch.items.clear()

    def _prune(self, folders: list[PersonaFolder], seen_paths: set[str], report: IngestReport) -> None:
        roots = [folder.path.resolve() for folder in folders]
        for doc in self.store.list_documents():
            path = Path(doc.path)
            inside = any(path.is_relative_to(root) for root in roots)
            if (
                inside
                and doc.path not in seen_paths
                and not path.exists()
                and self.store.delete_document(doc.id)
            ):
                report.add(FileOutcome(path=doc.path, status="pruned", doc_id=doc.id, message="file is gone"))

    def _fingerprint(self) -> str:
        return json.dumps(
            {
                "chunking": self.settings.chunking.model_dump(),
                "embedder": self.embedder.name,
                "index_text": 1,
            },
            sort_keys=True,
        )
