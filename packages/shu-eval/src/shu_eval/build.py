"""An evaluation store built from a dataset, kept in a cache folder and reused while the corpus
and the settings that shape the index are unchanged."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shu.config.settings import EnrichSettings, Settings, StoreSettings
from shu.enrich.enricher import ENRICH_VERSION, enrich_document
from shu.enrich.llm import LLMEnricher
from shu.enrich.relationships import document_relationships
from shu.errors import ShuError
from shu.ingest.chunking import index_text, written_day
from shu.ingest.vectors import BatchItem, embed_batch
from shu.models.embed.base import Embedder
from shu.store.base import Store
from shu.store.factory import open_sqlite, open_store_url
from shu.store.migrate import migrate
from shu.store.sqlite import SQLiteStore
from shu.text import count_tokens
from shu.types import Chunk, Document, Enrichment, Persona, PersonaConfig
from shu_eval.dataset import Dataset, EvalDocument

INDEX_VERSION = 4
"""Raise when what is indexed for a dataset row changes (3: relative dates indexed as dates;
4: a lead-in chunked with what it introduces, code blocks whole)."""

Progress = Callable[[str, int, int], None]


@dataclass
class BuiltStore:
    store: Store
    folder: Path
    seconds: float
    reused: bool


def open_eval_store(
    dataset: Dataset,
    settings: Settings,
    embedder: Embedder,
    progress: Progress | None = None,
    enrich: EnrichSettings | None = None,
    llm: LLMEnricher | None = None,
) -> BuiltStore:
    """`llm`: the model that writes the enrichment artifacts (else the non-LLM methods); its name
    and prompt versions are part of the cache key, so LLM-written and extractive corpora never mix."""
    enrich = enrich or EnrichSettings(enabled=False)
    # the tokens the embedder reads (the setting, else the model's own choice: MiniLM's 256 as before)
    tokens = getattr(embedder, "max_tokens", settings.embedder.max_tokens)
    parts: list[object] = [dataset.corpus_sha256, embedder.name, INDEX_VERSION, tokens]
    if enrich.enabled:
        parts += [enrich.model_dump(), ENRICH_VERSION]
        if llm is not None:
            parts.append(llm.fingerprint)
    key = hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]
    folder = settings.home / "eval-cache" / f"{dataset.name}-{key}"
    marker = folder / "build.json"
    if marker.is_file():
        cached = json.loads(marker.read_text())
        return BuiltStore(
            open_sqlite(folder / "shu.db", settings.store), folder, float(cached["seconds"]), True
        )
    # An interrupted build goes on where it stopped: each document is written whole or not at all
    # (a large corpus on a large embedder takes longer than one sitting: SciFact on EmbeddingGemma).
    folder.mkdir(parents=True, exist_ok=True)
    store = open_sqlite(folder / "shu.db", settings.store)  # `--set store.…` reaches the eval
    kept = {doc.id for doc in store.list_documents()}
    started = time.perf_counter()
    before = llm.summary() if llm else {}
    _ingest(dataset, store, embedder, enrich, progress or (lambda stage, done, total: None), llm, kept)
    seconds = time.perf_counter() - started
    built: dict[str, object] = {
        "seconds": seconds,
        "dataset": dataset.name,
        "chunks": dataset.chunk_count,
        "embedder": embedder.name,
        "documents_kept_from_an_interrupted_build": len(kept),
    }
    if llm and enrich.enabled:
        built["llm"] = llm.summary_since(before)
    marker.write_text(json.dumps(built))
    return BuiltStore(store, folder, seconds, reused=False)


def _ingest(
    dataset: Dataset,
    store: SQLiteStore,
    embedder: Embedder,
    enrich: EnrichSettings,
    progress: Progress,
    llm: LLMEnricher | None = None,
    kept: set[str] | frozenset[str] = frozenset(),
) -> None:
    """Every document not `kept` already (written by an interrupted build)."""
    for slug in dataset.personas:
        config = PersonaConfig(slug=slug, display_name=slug)
        store.upsert_persona(Persona(slug=slug, display_name=slug, config=config))
    batch: list[tuple[Document, list[Chunk], Enrichment]] = []
    done = 0
    for doc in dataset.documents:
        if doc.id in kept:
            done += len(doc.chunks)
            continue
        document, chunks = _document(dataset, doc), _chunks(doc)
        body = "\n\n".join(c.text for c in doc.chunks)
        enrichment, chunks = enrich_document(document, body, chunks, enrich, llm)
        enrichment.relationships = enrichment.relationships or document_relationships(document, body)
        batch.append((document, chunks, enrichment))
        if sum(len(c) + len(e.questions) for _, c, e in batch) >= 256:
            done += _write(batch, store, embedder)
            progress("index corpus", done, dataset.chunk_count)
    done += _write(batch, store, embedder)
    progress("index corpus", done, dataset.chunk_count)


def _write(
    batch: list[tuple[Document, list[Chunk], Enrichment]], store: SQLiteStore, embedder: Embedder
) -> int:
    vectors = embed_batch(embedder, [BatchItem(chunks, enrichment) for _, chunks, enrichment in batch])
    for (doc, chunks, enrichment), found in zip(batch, vectors.documents, strict=True):
        store.replace_document(
            doc, chunks, found.chunks, embedder.name, enrichment, found.questions, found.profile
        )
    written = sum(len(chunks) for _, chunks, _ in batch)
    batch.clear()
    return written


def _document(dataset: Dataset, doc: EvalDocument) -> Document:
    tags = doc.meta.get("tags")
    return Document(
        id=doc.id,
        title=doc.title,
        personas=[doc.persona],
        content_hash=doc.id,
        path=f"{dataset.path}#{doc.id}",
        date=str(doc.meta["date"]) if doc.meta.get("date") else None,
        tags=[str(t) for t in tags] if isinstance(tags, list) else [],
        meta={k: v for k, v in doc.meta.items() if k not in ("date", "tags")},
    )


def _chunks(doc: EvalDocument) -> list[Chunk]:
    written = written_day(str(doc.meta["date"])) if doc.meta.get("date") else None
    return [
        Chunk(
            id=chunk.id,
            doc_id=doc.id,
            ord=ord_,
            section_path=chunk.section,
            text=chunk.text,
            index_text=index_text(doc.title, chunk.section, chunk.text, written),
            token_count=count_tokens(chunk.text),
        )
        for ord_, chunk in enumerate(doc.chunks)
    ]


def copy_to(
    built: BuiltStore, url: str, settings: StoreSettings, progress: Progress | None = None
) -> BuiltStore:
    """The cached evaluation store copied into another store (PostgreSQL), nothing recomputed;
    a second run copies nothing. The target must hold this dataset alone."""
    target = open_store_url(url, settings)
    report = migrate(built.store, target, progress)
    if report.only_in_target:
        target.close()
        raise ShuError(
            f"{url} also holds {len(report.only_in_target)} documents of something else; "
            "evaluate on an empty database"
        )
    built.store.close()
    return BuiltStore(target, built.folder, built.seconds, reused=built.reused and report.copied == 0)
