"""Domain records shared by every part of Shu. This module imports nothing from the rest of Shu."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

_HTTP_URL = re.compile(r"^https?://[^/\s]+", re.I)


def http_url(value: str | None) -> str | None:
    """`value` when it is an http(s) URL safe to show as a link, else None (`javascript:`,
    `file:`, `data:` and URLs with markup characters are dropped)."""
    if value is None:
        return None
    cleaned = value.strip()
    return cleaned if _HTTP_URL.match(cleaned) and not any(c in cleaned for c in ' <>"\n') else None


class RetrievalParams(BaseModel):
    """Per-persona retrieval parameters (`persona.config.json` → `retrieval`)."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    vector_threshold: float = Field(0.0, ge=-1.0, le=1.0, description="min cosine for a dense hit")
    bm25_min_score: float = Field(0.0, ge=0.0, description="min BM25 score for a keyword hit")
    max_chunks: int = Field(12, ge=1, le=200, description="chunks returned by a search")
    max_chunks_per_doc: int = Field(8, ge=1, le=1000, description="at most this many per document")
    candidates: int = Field(20, ge=1, le=1000, description="top-N taken from each of BM25 and dense")
    tag_boost: float = Field(0.075, ge=0.0, le=0.5, description="score boost for tagged documents")
    rrf_k: int = Field(60, ge=1, description="Reciprocal Rank Fusion constant")
    fusion: Literal["rrf", "convex"] = Field(
        "convex", description="how the lists are fused: scores divided by each list's best (convex), or RRF"
    )
    convex_alpha: float = Field(0.5, ge=0.0, le=1.0, description="BM25's weight in convex fusion")
    question_weight: float = Field(
        0.0, ge=0.0, le=5.0, description="weight of the synthesized-question surface (0 = not searched)"
    )
    synopsis_weight: float = Field(
        0.0, ge=0.0, le=5.0, description="weight of the document-synopsis surface (0 = not searched)"
    )
    manifest_weight: float = Field(
        0.0, ge=0.0, le=5.0, description="weight of the capability-manifest surface (0 = not searched)"
    )
    title_weight: float = Field(1.0, ge=0.0, le=5.0, description="weight of title matches")
    keyword_weight: float = Field(
        0.0, ge=0.0, le=5.0, description="weight of chunks whose profile keywords/topics the question names"
    )
    relational_weight: float = Field(
        1.0, ge=0.0, le=5.0, description="weight of documents naming the people/projects asked about"
    )
    temporal_weight: float = Field(
        0.5, ge=0.0, le=5.0, description="weight of documents dated within the time asked about"
    )
    expansion_weight: float = Field(
        0.95, ge=0.0, le=2.0, description="a related document's score as a share of its seed's"
    )
    adjacent_weight: float = Field(
        0.0, ge=0.0, le=2.0, description="share of its best neighbouring chunk's score a chunk gains"
    )
    document_weight: float = Field(
        0.0, ge=0.0, le=2.0, description="share of its document's other chunks' scores a chunk gains"
    )


class PersonaConfig(BaseModel):
    """`persona.config.json`: a persona's curated configuration."""

    model_config = ConfigDict(extra="allow")

    slug: str
    display_name: str
    tags: list[str] = Field(default_factory=list)
    aliases: dict[str, str] = Field(
        default_factory=dict, description="abbreviations spelled out in searches, e.g. SSO → single sign-on"
    )
    retrieval: RetrievalParams = Field(default_factory=RetrievalParams)
    accept_from: list[str] = Field(
        default_factory=list,
        description="personas whose folders may add documents to this one through `personas:` "
        "(['*'] = any); none by default: personas are walls",
    )


class Persona(BaseModel):
    slug: str
    display_name: str
    description: str = ""
    config: PersonaConfig


class Document(BaseModel):
    """A processed Markdown document (one file in a persona's `RAG/`)."""

    id: str
    title: str
    personas: list[str]
    content_hash: str
    path: str = ""
    date: str | None = None
    source_url: str | None = None
    type: str | None = None
    tags: list[str] = Field(default_factory=list)
    summary: str | None = None
    license: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class Chunk(BaseModel):
    """A heading-bounded piece of a document. `text` is kept verbatim; `index_text` is what is
    embedded and keyword-indexed (today: a heading line + text; later: a context prefix + text)."""

    id: str
    doc_id: str
    ord: int
    section_path: str
    text: str
    index_text: str
    token_count: int
    context: str = ""


class SearchHit(BaseModel):
    """One ranked chunk with the scores that placed it."""

    chunk: Chunk
    doc_title: str
    doc_source_url: str | None = None
    doc_date: str | None = None
    score: float
    bm25_rank: int | None = None
    dense_rank: int | None = None
    bm25_score: float | None = None
    dense_score: float | None = None
    tag_boosted: bool = False
    surfaces: dict[str, int] = Field(default_factory=dict)
    """Rank of this chunk (or its document) in each surface that found it."""
    expanded_via: str | None = None
    """`seed-doc relation` when relationship expansion added this document."""
    rerank_score: float | None = None

    @field_validator("doc_source_url")
    @classmethod
    def _http_only(cls, value: str | None) -> str | None:
        return http_url(value)

    @property
    def citation_key(self) -> str:
        return citation_key(self.chunk.doc_id, self.chunk.section_path)


class Citation(BaseModel):
    key: str
    doc_id: str
    section_path: str
    chunk_id: str
    title: str
    source_url: str | None = None
    """Shown as a link only when it is an http(s) URL: `javascript:` or `file:` from a
    document's frontmatter is dropped here, for every front end."""
    date: str | None = None
    path: str | None = None
    """The document's file relative to the knowledge base (`lumen-support/RAG/pricing.md`),
    never a path of the machine."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def anchor(self) -> str:
        """The GitHub-style anchor of the section's heading (`Plan overview` → `plan-overview`)."""
        return heading_anchor(self.section_path.rsplit(" > ", 1)[-1])

    @property
    def link(self) -> str | None:
        """Where a reader can follow the citation: the source URL, else the file, at the heading."""
        base = self.source_url or self.path
        return f"{base}#{self.anchor}" if base and self.anchor else base

    @field_validator("source_url")
    @classmethod
    def _http_only(cls, value: str | None) -> str | None:
        return http_url(value)


class AnswerSentence(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list)
    """The keys `[^doc_id:section]` the sentence cites, in the order written."""

    @property
    def citation(self) -> str:
        return self.citations[0] if self.citations else ""


class CitationCheck(BaseModel):
    """What the check after generation found (spec 004 §7.3): every key shown resolves to a
    section of the context; the rest is counted here, never shown."""

    kept: int = 0
    repaired: list[str] = Field(default_factory=list)
    """`written → resolved`: the right document, its section misspelled."""
    removed: list[str] = Field(default_factory=list)
    """Keys that resolved to nothing in the context: taken out of the answer."""
    uncited: list[str] = Field(default_factory=list)
    """Factual sentences that cite nothing: flagged."""


class ClaimVerdict(BaseModel):
    """One claim of an answer checked against the sections it cites."""

    claim: str
    citations: list[str] = Field(default_factory=list)
    verdict: Literal["supported", "unsupported", "contradicted"]
    reason: str
    quote: str | None = None
    """The cited text's sentence that bears on the claim (verbatim)."""
    similarity: float | None = None
    method: str = "rules"


class Verification(BaseModel):
    method: str
    verdicts: list[ClaimVerdict] = Field(default_factory=list)
    llm_calls: int = 0
    llm_tokens: int = 0

    @property
    def support_ratio(self) -> float:
        if not self.verdicts:
            return 1.0
        return sum(v.verdict == "supported" for v in self.verdicts) / len(self.verdicts)

    @property
    def flagged(self) -> list[ClaimVerdict]:
        return [v for v in self.verdicts if v.verdict != "supported"]


class Correction(BaseModel):
    """One round of corrective retrieval (CRAG): why it ran, what it searched, what it found."""

    reason: str
    query: str
    new_documents: list[str] = Field(default_factory=list)
    kept: bool = False
    """The answer from the corrected context replaced the first one."""
    ms: float = 0.0


class AgentStep(BaseModel):
    """One tool call of the agent (or one the guard refused)."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    summary: str = ""
    new_documents: list[str] = Field(default_factory=list)
    tokens: int = 0
    ms: float = 0.0
    refused: str | None = None
    """Why the guard did not make the call (another persona's document, an id the agent only
    read inside a document, an unknown tool)."""


class AgentTrace(BaseModel):
    """What the agent did for one question: why it ran, each step, and why it stopped."""

    method: str
    reason: str
    steps: list[AgentStep] = Field(default_factory=list)
    stopped: str = ""
    """enough evidence | step budget | time budget | token budget | no new documents | finished"""
    documents: list[str] = Field(default_factory=list)
    """Documents the agent added to what the first retrieval found, in the order found."""
    tokens: int = 0
    ms: float = 0.0


class Finding(BaseModel):
    """What the agent discovered about the knowledge base, written back with provenance (spec
    §5.7) and undoable: a relationship (quote-checked), a capability manifest that promised what
    its document lacks (stale), a corrected document type."""

    id: int | None = None
    kind: Literal["relationship", "stale_manifest", "document_type"]
    doc_id: str
    persona: str
    target: str | None = None
    """relationship: the document it points to."""
    value: str | None = None
    """relationship: its type; stale_manifest: what the manifest promised; document_type: the type."""
    evidence: str = ""
    """The document's own words the finding rests on (verbatim)."""
    method: str = "rules"
    question: str = ""
    """The question during which it was found."""
    created: str = ""
    undone: bool = False


class Answer(BaseModel):
    question: str
    persona: str
    text: str
    method: str
    """`extractive`, `full_document`, `llm:<provider:model>`, `deferred` (out of scope),
    `general:<provider:model>` (out of scope, answered from the model's own knowledge)."""
    sentences: list[AnswerSentence] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    hits: list[SearchHit] = Field(default_factory=list)
    insufficient: bool = False
    """Declined: the knowledge base does not answer it (the text says what is missing)."""
    out_of_scope: bool = False
    """The question is outside the persona's expertise (deferred, or answered as general)."""
    from_knowledge_base: bool = True
    """False for a general answer: the model's own knowledge, not the persona's documents."""
    fallback_reason: str | None = None
    """Set when the configured LLM failed and another method answered instead."""
    check: CitationCheck | None = None
    verification: Verification | None = None
    """Each claim checked against the sections it cites (`verify.*` settings)."""
    evidence: float | None = None
    """How well the best sentence of the context answers the question (what `answer.min_evidence`
    is compared with); None when it was not measured (a lookup, a deferral)."""
    scope_closeness: float | None = None
    """The question's closeness to the persona's subject (what `answer.scope_threshold` is
    compared with), when the rules judged the scope."""
    prompt_version: str | None = None
    llm_calls: int = 0
    llm_tokens: int = 0
    llm_stopped: str | None = None
    """Why the LLM was not asked again while this question was answered (its budget,
    `llm.budget.*`, was spent, or its replies were not valid JSON twice); the steps after that
    used their non-LLM methods."""
    cached: bool = False
    confidence: float | None = None
    """How likely the answer is right, in [0, 1] (for a declined question: that nothing in the
    knowledge base answers it), from retrieval scores, surface agreement and the support ratio,
    calibrated on the answer eval (`shu.answer.confidence`)."""
    corrections: list[Correction] = Field(default_factory=list)
    agent: AgentTrace | None = None
    retrieval: RetrievalResult | None = None
    """The retrieval the answer rests on (plan, surfaces, fusion, context; hits are in `hits`)."""

    @property
    def quoted(self) -> bool:
        """The answer is quoted sentences of documents (one line each), not written prose."""
        return self.method in ("extractive", "full_document")


def heading_anchor(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens."""
    kept = "".join(c for c in heading.strip().lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def knowledge_base_path(path: str | None) -> str | None:
    """`/home/ana/kb/lumen-support/RAG/pricing.md` → `lumen-support/RAG/pricing.md` (the persona
    folder on); a path with no RAG folder in it → its file name."""
    if not path:
        return None
    parts = path.replace("\\", "/").split("/")
    if "RAG" in parts[1:]:
        at = len(parts) - 1 - parts[::-1].index("RAG")
        return "/".join(parts[at - 1 :])
    return parts[-1]


def citation_key(doc_id: str, section_path: str) -> str:
    """The inline citation `[^doc_id:section]` (spec 004 §7.3) for a chunk. Square brackets in
    a heading would end the citation early, so they are written as parentheses."""
    section = section_path.replace("[", "(").replace("]", ")")
    return f"[^{doc_id}:{section}]"


# -- ingestion-time intelligence (issue 4) ------------------------------------------------------


class Provenance(BaseModel):
    """Who made an artifact and how: `extractive` (no LLM) or `llm:<provider:model>`."""

    method: str
    prompt_version: str | None = None
    quality: float | None = None
    seconds: float = 0.0
    tokens: int = 0


class Entity(BaseModel):
    name: str
    kind: Literal["person", "organization", "email", "date", "amount", "concept", "place", "other"]


class Participant(BaseModel):
    name: str
    role: Literal["author", "recipient", "subject", "mentioned", "decision_maker"]
    email: str | None = None


class TemporalScope(BaseModel):
    start: str | None = None
    end: str | None = None


class CapabilityManifest(BaseModel):
    answers_questions_about: list[str] = Field(default_factory=list)
    provides_information_type: list[str] = Field(default_factory=list)
    authority_level: Literal["authoritative", "informative", "informal", "unknown"] = "unknown"
    completeness: Literal["complete", "partial", "fragment"] = "partial"
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
    """Why a document matters to people in one role (spec §3.2 RoleRelevance)."""

    role: str = Field(max_length=40)
    """a role family of `shu.roles` ("finance", "engineering", …)"""
    score: float = Field(ge=0.0, le=1.0)
    reason: str = Field("", max_length=200)


class ProjectLink(BaseModel):
    """A project the document belongs to or touches (spec §3.2 ProjectLink)."""

    project: str = Field(max_length=120)
    strength: float = Field(ge=0.0, le=1.0)
    kind: Literal["primary", "related", "tangential"]


Cadence = Literal["daily", "weekly", "monthly", "quarterly", "yearly"]


class TemporalRelevance(BaseModel):
    """How the document ages (spec §3.2 TemporalRelevance)."""

    half_life_days: float | None = Field(None, gt=0.0)
    """after this many days the document counts half as fresh; None: it does not go stale"""
    deadlines: list[str] = Field(default_factory=list, max_length=12)
    """ISO dates the document sets as due dates or milestones, in order"""
    recurrence: Cadence | None = None


class RelationalContext(BaseModel):
    """Who and what a document matters to (spec §3.2): the roles it is relevant to, the projects
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


QUERY_TYPES = (
    "factual",
    "interpretive",
    "relational",
    "temporal",
    "structural",
    "document_lookup",
    "multi_step",
)
QueryType = Literal[
    "factual", "interpretive", "relational", "temporal", "structural", "document_lookup", "multi_step"
]
AnswerStyle = Literal["full_document", "synthesize", "list_sources"]


class QueryPlan(BaseModel):
    """What the planner understood of a question (stage 1)."""

    query_type: QueryType = "factual"
    entities: list[str] = Field(default_factory=list)
    temporal_scope: TemporalScope = Field(default_factory=TemporalScope)
    implied_document_type: str | None = None
    answer_style: AnswerStyle = "synthesize"
    complexity: Literal["simple", "moderate", "complex"] = "simple"
    title_hints: list[str] = Field(default_factory=list)
    """Words naming a document the question asks for ("show me my biography" → biography)."""
    confidence: float = Field(0.5, ge=0.0, le=1.0)
    method: str = "rules"


class SearchQueries(BaseModel):
    """The question rewritten for search (stage 2); generation always sees `original`."""

    original: str
    rewritten: str
    variations: list[str] = Field(default_factory=list)
    hypothetical_answer: str | None = None
    method: str = "rules"


class Expansion(BaseModel):
    doc_id: str
    via: str
    """The seed document whose outgoing relationship added this one."""
    relation: str
    confidence: float


class RetrievalPlan(BaseModel):
    """ADR-005: seed documents, the documents one outgoing relationship away, the limits."""

    seeds: list[str] = Field(default_factory=list)
    expanded: list[Expansion] = Field(default_factory=list)
    relation_types: list[str] | None = None
    max_depth: Literal[1] = 1


class DocumentSection(BaseModel):
    section_path: str
    text: str
    citation_key: str


class DocumentView(BaseModel):
    """One document as a reader sees it: its record, its text by section, what enrichment wrote
    about it, and its outgoing relationships."""

    document: Document
    sections: list[DocumentSection] = Field(default_factory=list)
    profile: DocumentProfile | None = None
    relationships: list[Relationship] = Field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections)


class KnowledgeBaseStats(BaseModel):
    """`kb.stats()`: the store's counts and size, what made the enrichment, LLM use, the answer
    cache and the agent's findings."""

    personas: int
    documents: int
    chunks: int
    vectors: int
    embedder: str | None
    size_bytes: int
    enrichment: dict[str, dict[str, int]] = Field(default_factory=dict)
    llm: dict[str, Any] = Field(default_factory=dict)
    answer_cache: dict[str, int] | None = None
    findings: dict[str, int] = Field(default_factory=dict)


class ContextSection(BaseModel):
    section_path: str
    text: str
    chunk_ids: list[str]

    @property
    def citation_key(self) -> str:
        return citation_key(self.chunk_ids[0].split("#", 1)[0], self.section_path) if self.chunk_ids else ""


class ContextDocument(BaseModel):
    doc_id: str
    title: str
    date: str | None = None
    source: str | None = None
    path: str | None = None
    """The document's file relative to the knowledge base."""
    score: float
    full: bool = False
    """The whole document (a lookup, or escalated), not only its best chunks."""
    sections: list[ContextSection] = Field(default_factory=list)

    def citation(self, section: ContextSection) -> Citation:
        """The citation of one of this document's sections."""
        return Citation(
            key=section.citation_key,
            doc_id=self.doc_id,
            section_path=section.section_path,
            chunk_id=section.chunk_ids[0],
            title=self.title,
            source_url=self.source,
            date=self.date,
            path=self.path,
        )


class AssembledContext(BaseModel):
    """What the answer step reads (stage 5): documents in score order, each with metadata."""

    documents: list[ContextDocument] = Field(default_factory=list)
    tokens: int = 0
    budget: int = 16_000
    mode: Literal["chunks", "full_document"] = "chunks"
    lookup: str | None = None
    """The document a lookup returned whole (first in `documents`), if it is there."""
    escalated: list[str] = Field(default_factory=list)

    def render(self) -> str:
        parts = []
        for doc in self.documents:
            header = [f"## {doc.title} [{doc.doc_id}]", f"score: {doc.score:.4f}"]
            header += [f"date: {doc.date}"] if doc.date else []
            header += [f"source: {doc.source}"] if doc.source else []
            header += ["whole document"] if doc.full else []
            body = "\n\n".join(f"### {s.section_path} {s.citation_key}\n{s.text}" for s in doc.sections)
            parts.append(" · ".join(header[:1]) + "\n" + " · ".join(header[1:]) + "\n\n" + body)
        return "\n\n".join(parts)


class SurfaceHit(BaseModel):
    chunk_id: str
    score: float


class PersonalBoost(BaseModel):
    """How much a document was raised for the person asking, and why."""

    doc_id: str
    boost: float
    reasons: list[str] = Field(default_factory=list)


class ProfileMatch(BaseModel):
    """PROFILE-MATCH (spec §4.3 step 2): a reference in the question resolved against the asker's
    profile ("my" → the asker, "John" → John Smith, "the proposal" → their project's proposal)."""

    phrase: str
    means: str
    kind: Literal["asker", "contact", "project", "document"]
    doc_id: str | None = None


class RetrievalResult(BaseModel):
    """Everything the query pipeline did for one question: the trace and the result."""

    question: str
    persona: str
    plan: QueryPlan
    queries: SearchQueries
    retrieval_plan: RetrievalPlan
    surfaces: dict[str, list[SurfaceHit]] = Field(default_factory=dict)
    """Each surface's hits with raw scores (top 20 kept in the trace)."""
    fused: list[SurfaceHit] = Field(default_factory=list)
    hits: list[SearchHit] = Field(default_factory=list)
    context: AssembledContext = Field(default_factory=AssembledContext)
    reranker: str | None = None
    notes: list[str] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    sub_questions: list[str] = Field(default_factory=list)
    """The parts the agent split the question into (an answer should cover each)."""
    asker: str | None = None
    """The user the ranking was personalized for."""
    personal: list[PersonalBoost] = Field(default_factory=list)
    resolved: list[ProfileMatch] = Field(default_factory=list)
    """the question's references resolved against the asker's profile"""


class ApiKey(BaseModel):
    """A key of the server: whose it is and which personas it reaches (none listed: all). The
    secret is shown once when the key is made and stored only as a hash."""

    id: str
    user: str
    personas: list[str] = Field(default_factory=list)
    admin: bool = False
    created: str = ""
    revoked: bool = False

    def reaches(self, persona: str) -> bool:
        return not self.personas or persona in self.personas


SignalKind = Literal["up", "down", "star", "unstar", "opened", "used_in_answer", "escalated"]


class Signal(BaseModel):
    """Something a user did with an answer or a document (thumbs, star, opened…), kept with its
    time for the personalization of retrieval; a user's signals are seen by that user only."""

    id: int | None = None
    user: str = ""
    """Who (the key's user; "" on a server without keys, or from the local CLI)."""
    persona: str
    kind: SignalKind
    doc_id: str | None = None
    question: str = ""
    answer: str = ""
    created: str = ""


JobKind = Literal["ingest", "enrich", "reindex"]
JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]


class Job(BaseModel):
    """A background run of ingestion (`ingest`), enrichment again (`enrich`: documents whose LLM
    artifacts fell back, or all with `force`) or re-indexing with context prefixes (`reindex`)."""

    id: str
    kind: JobKind
    path: str
    force: bool = False
    user: str = ""
    status: JobStatus = "queued"
    stage: str = ""
    processed: int = 0
    total: int = 0
    failed: int = 0
    created: str = ""
    started: str | None = None
    finished: str | None = None
    error: str | None = None
    report: dict[str, Any] | None = None
    cancel_requested: bool = False
    attempts: int = 0
    """Runs begun (a job interrupted by a restart runs again and resumes where it stopped)."""


class ProfileItem(BaseModel):
    """A project or interest of a user, with where it came from (set by hand, or learned from
    e-mail, meetings, frontmatter, entities or the user's signals) and when."""

    value: str
    weight: float = Field(1.0, ge=0.0, le=1.0)
    source: str = "set"
    updated: str = ""


class Contact(BaseModel):
    """Someone the user works with: how close (affinity in [0, 1]), how recently, how mutual."""

    name: str = ""
    email: str | None = None
    affinity: float = Field(0.5, ge=0.0, le=1.0)
    recency: str | None = None
    """The day of the last message or meeting between them (ISO)."""
    reciprocity: float | None = Field(None, ge=0.0, le=1.0)
    """1 when both write to each other as often, 0 when only one does."""
    interactions: int = 0
    source: str = "set"
    updated: str = ""


class UserProfile(BaseModel):
    """Who is asking (spec §3.3): kept in the user's store only, seen by that user only."""

    id: str = Field(min_length=1, max_length=100, pattern=r"^[\w.@+-]+$")
    name: str = ""
    emails: list[str] = Field(default_factory=list)
    roles: list[str] = Field(default_factory=list)
    contacts: list[Contact] = Field(default_factory=list)
    projects: list[ProfileItem] = Field(default_factory=list)
    interests: list[ProfileItem] = Field(default_factory=list)
    preferences: dict[str, str] = Field(default_factory=dict)
    """`detail`: "detail" or "summary"."""
    updated: str = ""


Answer.model_rebuild()
