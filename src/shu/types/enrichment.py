"""What enrichment writes about a document when it arrives: its profile (synopsis, type,
entities, time span, capability manifest), synthesized questions, chunk profiles and typed
relationships to other documents."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field


class Provenance(BaseModel):
    """Who made an artifact and how: `extractive` (no LLM) or `llm:<provider:model>`."""

    method: str
    prompt_version: str | None = None
    quality: float | None = None
    seconds: float = 0.0
    tokens: int = 0


EntityKind = Literal["person", "organization", "email", "date", "amount", "concept", "place", "other"]
ParticipantRole = Literal["author", "recipient", "subject", "mentioned", "decision_maker"]
PARTICIPANT_ROLES: tuple[ParticipantRole, ...] = get_args(ParticipantRole)
AuthorityLevel = Literal["authoritative", "informative", "informal", "unknown"]
Completeness = Literal["complete", "partial", "fragment"]


class Entity(BaseModel):
    name: str
    kind: EntityKind


class Participant(BaseModel):
    name: str
    role: ParticipantRole
    email: str | None = None


class TemporalScope(BaseModel):
    start: str | None = None
    end: str | None = None


class CapabilityManifest(BaseModel):
    answers_questions_about: list[str] = Field(default_factory=list)
    provides_information_type: list[str] = Field(default_factory=list)
    authority_level: AuthorityLevel = "unknown"
    completeness: Completeness = "partial"
    question_domains: list[str] = Field(default_factory=list)
    stale: bool = False
    """Flagged by the agent: the document lacks what it promised (an active `stale_manifest`
    finding; `Store.get_profile` sets it)."""


DocumentType = Literal["narrative", "transactional", "technical", "conversational", "reference", "other"]


DOCUMENT_TYPES: tuple[str, ...] = (
    "narrative",
    "transactional",
    "technical",
    "conversational",
    "reference",
    "other",
)


class RoleRelevance(BaseModel):
    """Why a document matters to people in one role (docs/design/enrichment.md#role-relevance)."""

    role: str = Field(max_length=40)
    """a role family of `shu.roles` ("finance", "engineering", …)"""
    score: float = Field(ge=0.0, le=1.0)
    reason: str = Field("", max_length=200)


class ProjectLink(BaseModel):
    """A project the document belongs to or touches (docs/design/enrichment.md#project-links)."""

    project: str = Field(max_length=120)
    strength: float = Field(ge=0.0, le=1.0)
    kind: Literal["primary", "related", "tangential"]


Cadence = Literal["daily", "weekly", "monthly", "quarterly", "yearly"]


class TemporalRelevance(BaseModel):
    """How the document ages (docs/design/enrichment.md#temporal-relevance)."""

    half_life_days: float | None = Field(None, gt=0.0)
    """after this many days the document counts half as fresh; None: it does not go stale"""
    deadlines: list[str] = Field(default_factory=list, max_length=12)
    """ISO dates the document sets as due dates or milestones, in order"""
    recurrence: Cadence | None = None


class RelationalContext(BaseModel):
    """Who and what a document matters to: the roles it is relevant to, the projects
    it belongs to, how it ages. Its participants are `DocumentProfile.participants`."""

    roles: list[RoleRelevance] = Field(default_factory=list, max_length=8)
    projects: list[ProjectLink] = Field(default_factory=list, max_length=8)
    temporal: TemporalRelevance = Field(default_factory=TemporalRelevance)
    method: str = ""


class DocumentProfile(BaseModel):
    doc_id: str
    synopsis: str
    document_type: DocumentType
    entities: list[Entity] = Field(default_factory=list)
    temporal_scope: TemporalScope = Field(default_factory=TemporalScope)
    manifest: CapabilityManifest = Field(default_factory=CapabilityManifest)
    participants: list[Participant] = Field(default_factory=list)
    projects: list[str] = Field(default_factory=list)
    provenance: Provenance
    relational: RelationalContext = Field(default_factory=RelationalContext)


class SynthesizedQuestion(BaseModel):
    id: str
    doc_id: str
    text: str
    provenance: Provenance


class ChunkProfile(BaseModel):
    chunk_id: str
    summary: str
    keywords: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)
    provenance: Provenance


RELATIONSHIP_TYPES = (
    "explains",
    "decision_for",
    "derived_from",
    "supersedes",
    "replies_to",
    "references",
    "part_of",
    "attached_to",
    "related_to",
)


class DocumentRef(BaseModel):
    """A document as another document's enrichment sees it: a possible relationship target."""

    id: str
    title: str
    personas: list[str] = Field(default_factory=list)


class Relationship(BaseModel):
    """A typed, directed link between documents; the target may not be ingested (yet)."""

    source: str
    target: str
    type: str
    origin: Literal["frontmatter", "link", "thread", "llm", "agent"]
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: str = ""
    """The source's own words the relationship rests on (LLM proposals quote them)."""


class Enrichment(BaseModel):
    """Everything ingestion-time intelligence wrote about one document, stored with it."""

    relationships: list[Relationship] = Field(default_factory=list)
    profile: DocumentProfile | None = None
    questions: list[SynthesizedQuestion] = Field(default_factory=list)
    chunk_profiles: list[ChunkProfile] = Field(default_factory=list)
