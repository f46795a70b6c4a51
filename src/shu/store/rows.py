"""Records to and from the rows every store keeps: the parts of a backend that do not depend on
its SQL. Rows a store wrote were validated on the way in, so they are read back without
validating again."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, get_args

import numpy as np

from shu.errors import StoreError
from shu.store.base import PROFILE_SURFACES, StoredDocument
from shu.types import (
    PARTICIPANT_ROLES,
    Chunk,
    Document,
    DocumentProfile,
    Enrichment,
    Finding,
    Participant,
    Persona,
    PersonaConfig,
    Relationship,
)

DOCUMENT_FIELDS = (
    "id",
    "title",
    "date",
    "source_url",
    "type",
    "summary",
    "license",
    "personas",
    "tags",
    "meta",
    "path",
    "content_hash",
)
CHUNK_FIELDS = ("id", "doc_id", "ord", "section_path", "text", "index_text", "token_count", "context")
LLM_TOTALS = ("calls", "cached", "invalid_answers", "prompt_tokens", "completion_tokens", "cost_usd")
FINDING_FIELDS = (
    "id",
    "kind",
    "doc_id",
    "persona",
    "target",
    "value",
    "evidence",
    "method",
    "question",
    "created",
    "undone",
)
AGENT_CONFIDENCE = 0.6
"""The confidence of a relationship the agent found (below frontmatter and links, about an LLM's)."""
DOCUMENT_TYPES: tuple[str, ...] = get_args(DocumentProfile.model_fields["document_type"].annotation)


def document_values(doc: Document) -> tuple[Any, ...]:
    return tuple(getattr(doc, name) for name in DOCUMENT_FIELDS)


def document_from(values: Iterable[Any]) -> Document:
    return Document.model_construct(**dict(zip(DOCUMENT_FIELDS, values, strict=True)))


def chunk_from(values: Iterable[Any]) -> Chunk:
    # Validating in pydantic-core is faster than model_construct's Python path (1.3 µs vs 3.2).
    return Chunk.model_validate(dict(zip(CHUNK_FIELDS, values, strict=True)))


def persona_from(slug: str, display_name: str, description: str, config_json: str) -> Persona:
    config = PersonaConfig.model_validate_json(config_json)
    return Persona(slug=slug, display_name=display_name, description=description, config=config)


def sum_llm_runs(summaries: Iterable[dict[str, Any]]) -> dict[str, object]:
    """What `Store.llm_totals` returns: every recorded run's counts added up."""
    totals: dict[str, float] = {}
    fell_back: dict[str, int] = {}
    runs = 0
    for summary in summaries:
        runs += 1
        for key in LLM_TOTALS:
            totals[key] = totals.get(key, 0) + float(summary.get(key, 0))
        for kind, count in summary.get("fell_back", {}).items():
            fell_back[kind] = fell_back.get(kind, 0) + int(count)
    return {"runs": runs, **{k: round(v, 4) for k, v in totals.items()}, "fell_back": fell_back}


def coverage(
    stats: dict[str, dict[str, int]],
    chunks: int,
    with_context: int,
    average_words: float,
    documents: int,
    profiled: int,
) -> dict[str, dict[str, int]]:
    """The context-prefix and coverage part of `Store.enrichment_stats`."""
    stats["context_prefixes"] = {
        "chunks with": with_context,
        "chunks without": chunks - with_context,
        "average words": round(average_words or 0),
    }
    stats["coverage_percent"] = {
        "documents with a profile": round(100 * profiled / documents) if documents else 0,
        "chunks with a context prefix": round(100 * with_context / chunks) if chunks else 0,
    }
    return stats


def batches(items: list[str], size: int = 500) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def finding_from(values: Iterable[Any]) -> Finding:
    return Finding.model_validate(dict(zip(FINDING_FIELDS, values, strict=True)))


def finding_values(finding: Finding) -> tuple[Any, ...]:
    """A finding's columns after its id, in `FINDING_FIELDS` order."""
    return tuple(getattr(finding, name) for name in FINDING_FIELDS[1:])


def finding_key(finding: Finding) -> tuple[str, str, str, str, str]:
    """What makes two findings the same finding (no value and an empty one are alike)."""
    return (finding.kind, finding.doc_id, finding.persona, finding.target or "", finding.value or "")


def with_agent_relationships(stored: list[Relationship], findings: list[Finding]) -> list[Relationship]:
    """The stored relationships plus the active `relationship` findings about the same
    documents (one each; none that ingestion already holds), most confident first."""
    known = {(r.source, r.target, r.type) for r in stored}
    added: list[Relationship] = []
    for finding in findings:
        key = (finding.doc_id, finding.target or "", finding.value or "")
        if finding.kind != "relationship" or not finding.target or not finding.value or key in known:
            continue
        known.add(key)
        added.append(
            Relationship(
                source=finding.doc_id,
                target=finding.target,
                type=finding.value,
                origin="agent",
                confidence=AGENT_CONFIDENCE,
                evidence=finding.evidence,
            )
        )
    if not added:
        return stored
    return sorted([*stored, *added], key=lambda r: (r.source, -r.confidence, r.target))


def with_findings(profile: DocumentProfile | None, findings: list[Finding]) -> DocumentProfile | None:
    """A profile as the agent's active findings about its document (newest first) correct it:
    the newest known `document_type` replaces the type; a `stale_manifest` marks the manifest; a
    `participant` or `project` adds the person (in their role) or the project it names."""
    if profile is None:
        return None
    update: dict[str, Any] = {}
    for finding in findings:
        if finding.kind == "document_type" and finding.value in DOCUMENT_TYPES:
            update["document_type"] = finding.value
            break
    if any(finding.kind == "stale_manifest" for finding in findings):
        update["manifest"] = profile.manifest.model_copy(update={"stale": True})
    people = {(p.name.casefold(), p.role) for p in profile.participants}
    added = [
        Participant(name=f.value, role=f.target)
        for f in reversed(findings)
        if f.kind == "participant"
        and f.value
        and f.target in PARTICIPANT_ROLES
        and (f.value.casefold(), f.target) not in people
    ]
    if added:
        update["participants"] = [*profile.participants, *_unique_people(added)]
    projects = {p.casefold() for p in [*profile.projects, *(p.project for p in profile.relational.projects)]}
    found = [f.value for f in reversed(findings) if f.kind == "project" and f.value]
    new_projects = list(dict.fromkeys(p for p in found if p.casefold() not in projects))
    if new_projects:
        update["projects"] = [*profile.projects, *new_projects]
    return profile.model_copy(update=update) if update else profile


def _unique_people(people: list[Participant]) -> list[Participant]:
    return list({(p.name.casefold(), p.role): p for p in people}.values())


def findings_applied(
    profiles: dict[str, DocumentProfile], findings: list[Finding]
) -> dict[str, DocumentProfile]:
    """`with_findings` for many documents: each profile corrected by the findings about it."""
    by_doc: dict[str, list[Finding]] = {}
    for finding in findings:
        by_doc.setdefault(finding.doc_id, []).append(finding)
    return {doc_id: with_findings(p, by_doc.get(doc_id, [])) or p for doc_id, p in profiles.items()}


def exported(
    store: Any,
    doc: Document,
    embedder: str,
    chunk_vectors: list[np.ndarray],
    question_vectors: list[np.ndarray],
    profile_vectors: dict[str, np.ndarray],
    profile: DocumentProfile | None,
    relationships: list[Relationship],
) -> StoredDocument:
    """A `StoredDocument` from the protocol's readers plus what a backend reads itself: the
    vectors, and the profile and relationships as stored (without the agent's findings, which are
    kept and copied apart)."""
    chunks = store.list_chunks(doc.id)
    profiles = store.get_chunk_profiles([c.id for c in chunks])
    questions = store.list_questions(doc.id)
    enrichment = Enrichment(
        profile=profile,
        questions=questions,
        chunk_profiles=[profiles[c.id] for c in chunks if c.id in profiles],
        relationships=relationships,
    )
    return StoredDocument(
        doc=doc,
        chunks=chunks,
        vectors=np.vstack(chunk_vectors).astype(np.float32)
        if chunk_vectors
        else np.zeros((0, 0), np.float32),
        embedder=embedder,
        enrichment=enrichment,
        question_vectors=np.vstack(question_vectors).astype(np.float32) if questions else None,
        profile_vectors=profile_vectors,
    )


def check_replacement(
    doc: Document,
    chunks: list[Chunk],
    vectors: np.ndarray,
    enrichment: Enrichment | None,
    question_vectors: np.ndarray | None,
    profile_vectors: dict[str, np.ndarray] | None,
) -> None:
    """What `Store.replace_document` refuses before writing anything, the same in every store."""
    unknown = set(profile_vectors or {}) - set(PROFILE_SURFACES)
    if unknown:
        raise StoreError(f"{doc.id}: unknown profile surface(s) {', '.join(sorted(unknown))}")
    if len(chunks) != len(vectors):
        raise StoreError(f"{doc.id}: {len(chunks)} chunks but {len(vectors)} vectors")
    questions = enrichment.questions if enrichment else []
    if len(questions) != (0 if question_vectors is None else len(question_vectors)):
        raise StoreError(f"{doc.id}: {len(questions)} questions but a different number of question vectors")
