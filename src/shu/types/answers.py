"""Answers and what checks them: quoted or written sentences with their citations, the
verifier's verdicts, corrective retrieval, the agent's steps and what it wrote back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from shu.types.retrieval import Citation, RetrievalResult, SearchHit

QUOTED_METHODS = ("extractive", "full_document", "collection", "summary")
"""The answers made of the documents' own sentences, one a line: the reader's quotes, a document
given whole, a list or count of documents or a document's headings (`collection`), a document's
sections each with its sentence (`summary`)."""
COLLECTION_METHODS = ("collection", "summary")
"""The answers about documents as a whole: which, how many, a document's headings, its summary."""


class AnswerSentence(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list)
    """The keys `[^doc_id:section]` the sentence cites, in the order written."""

    @property
    def citation(self) -> str:
        return self.citations[0] if self.citations else ""


class CitationCheck(BaseModel):
    """What the check after generation found: every key shown resolves to a
    section of the context; the rest is counted here, never shown."""

    kept: int = 0
    repaired: list[str] = Field(default_factory=list)
    """`written → resolved`: the right document, its section misspelled."""
    removed: list[str] = Field(default_factory=list)
    """Keys that resolved to nothing in the context: taken out of the answer."""
    uncited: list[str] = Field(default_factory=list)
    """Factual sentences that cite nothing: flagged."""


VerdictKind = Literal["supported", "unsupported", "contradicted"]


class ClaimVerdict(BaseModel):
    """One claim of an answer checked against the sections it cites."""

    claim: str
    citations: list[str] = Field(default_factory=list)
    verdict: VerdictKind
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


FindingKind = Literal["relationship", "stale_manifest", "document_type", "participant", "project"]


class Finding(BaseModel):
    """What the agent discovered about the knowledge base, written back with provenance
    and undoable: a relationship (quote-checked), a capability manifest that promised what
    its document lacks (stale), a corrected document type, a person or project the document's
    profile missed (its relational context)."""

    id: int | None = None
    kind: FindingKind
    doc_id: str
    persona: str
    target: str | None = None
    """relationship: the document it points to; participant: the role the person plays."""
    value: str | None = None
    """relationship: its type; stale_manifest: what the manifest promised; document_type: the type;
    participant: the person's name; project: the project's name."""
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
    """`extractive`, `full_document`, `collection` (which documents, how many, a document's
    headings), `summary` (a document section by section), `llm:<provider:model>`, `deferred` (out of scope),
    `general:<provider:model>` (out of scope, answered from the model's own knowledge)."""
    sentences: list[AnswerSentence] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    hits: list[SearchHit] = Field(default_factory=list)
    insufficient: bool = False
    """Declined: the knowledge base does not answer it (the text says what is missing)."""
    premise: bool = False
    """The question takes for granted what the documents show is not so (a plan that does not
    exist): the text corrects it, cited, rather than answering as asked."""
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
    llm_usage: dict[str, int] | None = None
    """Every model call of the question (planning, rewriting, answering, checking, the agent)
    as OpenAI counts it: `prompt_tokens`, `completion_tokens`, `total_tokens`, when it was
    written (an answer from the cache took none again: `cached`); None when made outside `ask`."""
    llm_stopped: str | None = None
    """Why the LLM was not asked again while this question was answered (its budget,
    `llm.budget.*`, was spent, or its replies were not valid JSON twice); the steps after that
    used their non-LLM methods."""
    cached: bool = False
    standalone_question: str | None = None
    """In a conversation: the follow-up as retrieval searched it, made to stand alone from the
    turn before ("and the Team plan?" → "What does the Team plan cost?"); None when it was
    searched as asked."""
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
        return self.method in QUOTED_METHODS
