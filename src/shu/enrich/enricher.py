"""Enrich one document: the artifacts the settings switch on, by the non-LLM methods.
Chunks come back with their context prefix when `context` is on (then the prefix is part of the
text that is embedded and keyword-indexed; the chunk's own text is unchanged)."""

from __future__ import annotations

from shu.config.settings import EnrichSettings
from shu.enrich.extractive import chunk_profile, context_prefix, profile_document
from shu.enrich.relationships import document_relationships
from shu.types import Chunk, Document, Enrichment

ENRICH_VERSION = 1
"""Raise when a method's output changes, so that documents are enriched again."""


def enrich_document(
    doc: Document, body: str, chunks: list[Chunk], settings: EnrichSettings
) -> tuple[Enrichment, list[Chunk]]:
    if not settings.enabled:
        return Enrichment(), chunks
    extracted = profile_document(doc, body)
    phrases = extracted.profile.manifest.answers_questions_about
    enrichment = Enrichment(
        relationships=document_relationships(doc, body),
        profile=extracted.profile if settings.profiles else None,
        questions=extracted.questions if settings.questions else [],
        chunk_profiles=[chunk_profile(c, phrases) for c in chunks] if settings.chunk_profiles else [],
    )
    if settings.context:
        chunks = [with_context(c, context_prefix(doc, extracted.profile, c)) for c in chunks]
    return enrichment, chunks


def with_context(chunk: Chunk, context: str) -> Chunk:
    return chunk.model_copy(update={"context": context, "index_text": f"{context}\n{chunk.text}"})
