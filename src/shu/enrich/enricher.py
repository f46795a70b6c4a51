"""Enrich one document: the artifacts the settings switch on, by the LLM when one is configured
and its output passes validation, else by the non-LLM methods. Chunks come back with their
context prefix when `context` is on (then the prefix is part of the text that is embedded and
keyword-indexed; the chunk's own text is unchanged)."""

from __future__ import annotations

from shu.config.settings import EnrichSettings
from shu.enrich.extractive import chunk_profile, context_prefix, profile_document
from shu.enrich.llm import LLMEnricher
from shu.enrich.relational import relational_context
from shu.enrich.relationships import document_relationships, relationship_candidates
from shu.enrich.tiers import Tier
from shu.types import (
    Chunk,
    ChunkProfile,
    Document,
    DocumentProfile,
    DocumentRef,
    Enrichment,
    RelationalContext,
)

ENRICH_VERSION = 3
"""Raise when a method's output changes, so that documents are enriched again."""


def enrich_document(
    doc: Document,
    body: str,
    chunks: list[Chunk],
    settings: EnrichSettings,
    llm: LLMEnricher | None = None,
    catalogue: list[DocumentRef] | None = None,
    projects: list[str] | None = None,
    kept: dict[str, ChunkProfile] | None = None,
    worth: Tier = "full",
) -> tuple[Enrichment, list[Chunk]]:
    """`catalogue`: the knowledge base's documents, which an LLM may relate this one to;
    `projects`: the projects the knowledge base knows (declared in frontmatter); `kept`: chunk
    profiles the same model wrote for passages whose text did not change (by chunk id): not
    asked again. `worth`: what the model writes for the document (`shu.enrich.tiers`): `light`
    its profile only, `extractive` nothing."""
    if not settings.enabled:
        return Enrichment(), chunks
    if worth == "extractive":
        llm = None
    whole = llm  # what writes the profile; the rest is the light tier's to leave to the rules
    if worth == "light":
        llm = None
    extracted = profile_document(doc, body)
    profile = (whole.profile(doc, body) if whole and settings.profiles else None) or extracted.profile
    profile = with_relational(profile, relational_context(doc, body, profile, projects or []))
    enrichment = Enrichment(relationships=document_relationships(doc, body))
    if llm and settings.llm_relationships and catalogue:
        proposed = llm.relationships(doc, body, relationship_candidates(doc, body, catalogue)) or []
        declared = {(r.target, r.type) for r in enrichment.relationships}
        enrichment.relationships += [r for r in proposed if (r.target, r.type) not in declared]
    if settings.profiles:
        enrichment.profile = profile
    if settings.questions:
        enrichment.questions = (llm.questions(doc, body) if llm else None) or extracted.questions
    if settings.chunk_profiles:
        phrases = extracted.profile.manifest.answers_questions_about
        written = _chunk_profiles(doc, chunks, llm, settings.chunk_batch, kept or {})
        enrichment.chunk_profiles = [
            made or chunk_profile(c, phrases) for c, made in zip(chunks, written, strict=True)
        ]
    if settings.context:
        chunks = [
            with_context(c, (llm.context(body, c) if llm else None) or context_prefix(doc, profile, c))
            for c in chunks
        ]
    return enrichment, chunks


def _chunk_profiles(
    doc: Document, chunks: list[Chunk], llm: LLMEnricher | None, batch: int, kept: dict[str, ChunkProfile]
) -> list[ChunkProfile | None]:
    """The model's profile of each passage: the kept one when its text did not change, else
    asked for `batch` passages at a time; None where there is none (the fallback's turn)."""
    made: list[ChunkProfile | None] = [kept.get(c.id) for c in chunks]
    if llm is None:
        return made
    asked = [i for i, profile in enumerate(made) if profile is None]
    for start in range(0, len(asked), batch):
        part = asked[start : start + batch]
        for i, profile in zip(part, llm.chunk_profiles(doc, [chunks[i] for i in part]), strict=True):
            made[i] = profile
    return made


def with_relational(profile: DocumentProfile, rules: RelationalContext) -> DocumentProfile:
    """The relational context: what the LLM said (validated) where it said something, the rules'
    elsewhere; projects always by the rules (from the profile's projects and the known ones)."""
    said = profile.relational
    if not said.method:
        return profile.model_copy(update={"relational": rules})
    temporal = said.temporal.model_copy(
        update={
            "half_life_days": said.temporal.half_life_days
            if said.temporal.half_life_days or said.temporal.recurrence
            else rules.temporal.half_life_days,
            "deadlines": said.temporal.deadlines or rules.temporal.deadlines,
            "recurrence": said.temporal.recurrence or rules.temporal.recurrence,
        }
    )
    merged = RelationalContext(
        roles=said.roles or rules.roles, projects=rules.projects, temporal=temporal, method=said.method
    )
    return profile.model_copy(update={"relational": merged})


def with_context(chunk: Chunk, context: str) -> Chunk:
    return chunk.model_copy(update={"context": context, "index_text": f"{context}\n{chunk.text}"})


def contextualize(
    doc: Document, body: str, chunk: Chunk, llm: LLMEnricher | None = None, max_words: int = 100
) -> tuple[str, str]:
    """One chunk's context prefix and the method that made it: the LLM's when one is configured
    and its prefix passes validation, else the extractive one (title, type, date, section, the
    document's synopsis)."""
    made = llm.context(body, chunk) if llm else None
    if made:
        return " ".join(made.split()[:max_words]), "llm"
    profile = profile_document(doc, body).profile
    return context_prefix(doc, profile, chunk, max_words), "extractive"
