"""Personas, documents and chunks: what ingestion stores and every later stage reads."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

_HTTP_URL = re.compile(r"^https?://[^/\s]+", re.I)


def http_url(value: str | None) -> str | None:
    """`value` when it is an http(s) URL safe to show as a link, else None (`javascript:`,
    `file:`, `data:` and URLs with markup characters are dropped)."""
    if value is None:
        return None
    cleaned = value.strip()
    return cleaned if _HTTP_URL.match(cleaned) and not any(c in cleaned for c in ' <>"\n') else None


class KeywordFeedback(BaseModel):
    """Pseudo-relevance feedback for keyword search (RM3): the words of the first search's best
    chunks, weighed by how much of each chunk they make up and by the chunk's score, join the
    query (`query_weight` of the mix stays with the question's own terms)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    docs: int = Field(10, ge=1, le=100, description="the first search's best chunks read")
    terms: int = Field(10, ge=1, le=100, description="words added to the query")
    query_weight: float = Field(0.5, ge=0.0, le=1.0, description="share of the question's own terms")
    max_share: float = Field(
        0.1, gt=0.0, le=1.0, description="a word in more than this share of the chunks is never added"
    )


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
    convex_alpha: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="BM25's weight in convex fusion (dense has the rest); unset: the embedder's own "
        "(0.5 for all-MiniLM-L6-v2, 0.3 for EmbeddingGemma, fitted on the suite's dev halves)",
    )
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
    feedback_docs: int = Field(
        0,
        ge=0,
        le=100,
        description="pseudo-relevance feedback: words of BM25's best this-many chunks join the keyword "
        "query (RM3; 0 = off; the in-memory keyword index only)",
    )
    feedback_terms: int = Field(10, ge=1, le=100, description="words feedback adds to the keyword query")
    freshness_half_life_days: float | None = Field(
        None,
        gt=0.0,
        le=36_500.0,
        description="a dated document this many days old scores half its freshness share lower "
        "(None = off: old documents are not pushed down; docs/design/query-pipeline.md#freshness)",
    )
    freshness_weight: float = Field(
        0.2, ge=0.0, le=0.5, description="the largest share of a score freshness takes from an old document"
    )
    authority_boost: float = Field(
        0.0,
        ge=0.0,
        le=0.5,
        description="an authoritative source's passages score this share higher, an informal one's this "
        "share lower (the manifest's authority_level; 0 = off)",
    )
    min_relative_score: float = Field(
        0.0,
        ge=0.0,
        lt=1.0,
        description="passages scoring below this share of the best one are dropped (0 = none)",
    )
    feedback_query_weight: float = Field(
        0.5, ge=0.0, le=1.0, description="with feedback: the question's own terms' share of the query"
    )

    def keyword_feedback(self) -> KeywordFeedback | None:
        """The feedback these parameters ask for (None: off)."""
        if not self.feedback_docs:
            return None
        return KeywordFeedback(
            docs=self.feedback_docs, terms=self.feedback_terms, query_weight=self.feedback_query_weight
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


def citation_key(doc_id: str, section_path: str, part: int = 1) -> str:
    """The inline citation `[^doc_id:section]` for a chunk. Square brackets in
    a heading would end the citation early, so they are written as parentheses. `part`: the n-th
    section of one context with this document and path (chunks of the section that are not
    adjacent) is `[^doc_id:section (part n)]`, so that each section of a context has its own key."""
    section = section_path.replace("[", "(").replace("]", ")")
    return f"[^{doc_id}:{section}{f' (part {part})' if part > 1 else ''}]"
