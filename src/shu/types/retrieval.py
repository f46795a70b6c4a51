"""A question's walk through retrieval: its plan, the search queries, the hits of every
surface, the assembled context, and the citations a hit becomes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, computed_field, field_validator

from shu.types.documents import Chunk, citation_key, heading_anchor, http_url
from shu.types.enrichment import TemporalScope
from shu.types.filters import DocumentFilter


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
    license: str | None = None
    """The document's licence as its frontmatter states it (`CC-BY-4.0`): a reader reusing the
    cited words sees under what terms."""

    @computed_field  # type: ignore[prop-decorator]  # mypy: decorated property; pydantic's documented form
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
Detail = Literal["summary", "detail"]
"""How much of an answer the asker prefers (`preferences.detail`): the main point, or every fact."""
Complexity = Literal["simple", "moderate", "complex"]


class QueryPlan(BaseModel):
    """What the planner understood of a question (stage 1)."""

    query_type: QueryType = "factual"
    entities: list[str] = Field(default_factory=list)
    temporal_scope: TemporalScope = Field(default_factory=TemporalScope)
    implied_document_type: str | None = None
    answer_style: AnswerStyle = "synthesize"
    complexity: Complexity = "simple"
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
    """The one-hop plan: seed documents, the documents one outgoing relationship away, the limits."""

    seeds: list[str] = Field(default_factory=list)
    expanded: list[Expansion] = Field(default_factory=list)
    relation_types: list[str] | None = None
    max_depth: Literal[1] = 1


class ContextSection(BaseModel):
    section_path: str
    text: str
    chunk_ids: list[str]
    part: int = Field(1, ge=1)
    """The n-th section of its context with this document and path (its chunks are not adjacent
    to the first's): its key says `(part n)`, so that a citation names this section and no other."""

    @property
    def citation_key(self) -> str:
        if not self.chunk_ids:
            return ""
        return citation_key(self.chunk_ids[0].split("#", 1)[0], self.section_path, self.part)


class ContextDocument(BaseModel):
    doc_id: str
    title: str
    date: str | None = None
    source: str | None = None
    """The document's source URL, else its file relative to the knowledge base (as `path`)."""
    path: str | None = None
    """The document's file relative to the knowledge base."""
    license: str | None = None
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
            license=self.license,
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

    def number_parts(self) -> None:
        """Gives each section a key no other section of the context has: the 2nd, 3rd… section
        of one document and path are its parts 2, 3… (the first keeps the plain key)."""
        taken: set[str] = set()
        for document in self.documents:
            for section in document.sections:
                section.part = 1
                while section.chunk_ids and section.citation_key in taken:
                    section.part += 1
                taken.add(section.citation_key)

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
    """PROFILE-MATCH: a reference in the question resolved against the asker's
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
    conversation: str | None = None
    """In a conversation: the user's own words for the question and the turns before it, as an
    LLM answer reads them beside the question retrieval searched."""
    personal: list[PersonalBoost] = Field(default_factory=list)
    resolved: list[ProfileMatch] = Field(default_factory=list)
    """the question's references resolved against the asker's profile"""
    filter: DocumentFilter | None = None
    """what the question was restricted to (every search, the expansion, the agent's tools and
    the answer's lists keep to it)"""
    filtered: int | None = None
    """how many of the persona's documents the filter kept (None: no filter)"""
    detail: Detail | None = None
    """the asker's preference: a short answer or a detailed one (None: the default length)"""
