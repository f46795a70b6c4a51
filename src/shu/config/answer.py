"""The settings of answering: the reader, the claims' verification, and the agent."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class AnswerSettings(BaseModel):
    """How `ask` answers from the assembled context."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    method: str = Field(
        "auto",
        min_length=1,
        description="auto (the LLM when one is configured, else extractive), extractive, llm, "
        "or package.module:Class (your own answerer)",
    )
    max_sentences: int = Field(3, ge=1, le=20, description="extractive: sentences quoted at most")
    chunks_considered: int = Field(6, ge=1, le=100, description="extractive: best-ranked sections read")
    collection: bool = Field(
        True,
        description="extractive: a question about the collection or a whole document is answered at "
        "that level (which documents cover X: one line each; what X covers: its headings; a summary "
        "of X: each section's outcome), not with quoted sentences",
    )
    min_meaning: float = Field(0.3, ge=-1.0, le=1.0, description="extractive: least cosine to answer at all")
    sentence_embedder: Literal["auto", "store"] = Field(
        "auto",
        description="extractive: what embeds the candidate sentences — auto: the lighter model the "
        "store's embedder names for it (all-MiniLM-L6-v2 beside EmbeddingGemma: as many labelled answers "
        "right, a quarter of the time; docs/benchmarks.md), else the store's embedder; store: always "
        "the store's embedder",
    )
    min_evidence: float = Field(
        0.31,
        ge=0.0,
        le=2.0,
        description="least score of the best evidence sentence to answer at all, else decline "
        "(both answerers; calibrated by `shu eval --suite all --answers`)",
    )
    citation_style: Literal["footnotes", "keys"] = Field(
        "footnotes", description="footnotes: [^1] with a followable link; keys: [^doc_id:section]"
    )
    context_tokens: int = Field(
        6000,
        ge=200,
        le=1_000_000,
        description="llm: context sent to the model at most (≈4 characters a token)",
    )
    max_tokens: int = Field(600, ge=16, le=32_000, description="llm: longest generated answer")
    numbered_citations: bool = Field(
        False,
        description="llm: the context's sections are numbered [1]…[n] and the numbers the model writes "
        "are mapped back to their keys (small models cite by number); on for llm.provider=local",
    )
    max_sections: int | None = Field(
        None,
        ge=1,
        le=100,
        description="llm: context sections sent at most (none: as many as fit); 4 for llm.provider=local",
    )
    model_context: Literal["sections", "evidence"] = Field(
        "sections",
        description="llm: what the model reads: the best sections of the context, or the sentences "
        "the extractive reader chose, a passage per section (evidence for llm.provider=local)",
    )
    keep_decisions: bool = Field(
        False,
        description="llm: a reader's answer that is a decision it computed (a yes/no verdict, a "
        "comparison, a list) is shown as written; the model only judges whether its evidence answers "
        "the question (on for llm.provider=local: a small model rewriting them lost items, flipped verdicts)",
    )
    absent_terms: bool = Field(
        True,
        description="decline, naming it, when a code, a name, or two things the question asks about "
        "(INC-2026-0402, the Tokyo office, the guest Wi-Fi password) appear nowhere in the knowledge base, "
        "its retrieved sections or their metadata (false abstention 0-4.9 % on the public sets: "
        "docs/benchmarks.md)",
    )
    scope: bool = Field(True, description="defer questions outside the persona's expertise")
    scope_threshold: float = Field(
        0.19,
        ge=-1.0,
        le=1.0,
        description="without an LLM: least cosine between the question and the persona's subject "
        "(persona.md, tags, synopses, manifests, the best chunk) to be in scope (calibrated by "
        "`shu eval-scope`)",
    )
    scope_sure: float = Field(
        0.5,
        ge=-1.0,
        le=1.0,
        description="with an LLM: closeness at or above which the question is in scope without asking "
        "the model (below scope_threshold it is out without asking)",
    )
    out_of_scope: Literal["defer", "general"] = Field(
        "defer",
        description="defer: say it is outside the persona's expertise; general: the configured LLM "
        "answers, labelled as not from the knowledge base",
    )
    cache: bool = Field(True, description="keep answers until the knowledge base or settings change")


class VerifySettings(BaseModel):
    """Checking each claim of an answer against the sections it cites (stage 7)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    enabled: bool = True
    method: Literal["auto", "rules", "llm"] = Field(
        "auto", description="auto: the LLM when one is configured (its verdicts quote-checked), else rules"
    )
    on_unsupported: Literal["mark", "remove"] = Field(
        "mark", description="mark: unsupported claims stay, marked; remove: they are taken out"
    )
    min_similarity: float = Field(
        0.62, ge=-1.0, le=1.0, description="rules: cosine to a cited sentence that supports a claim"
    )
    min_coverage: float = Field(
        0.6, ge=0.0, le=1.0, description="rules: share of a claim's content words the cited text holds"
    )
    max_rounds: int = Field(
        1,
        ge=0,
        le=3,
        description="corrective retrieval (CRAG): rounds of searching again for what is missing when "
        "evidence is weak or claims are unsupported; 0 = never (local: 0)",
    )
    weak_evidence: float = Field(
        0.4,
        ge=0.0,
        le=2.0,
        description="an answer whose best evidence scores below this is corrected (searched again)",
    )


class AgentSettings(BaseModel):
    """Agentic retrieval (docs/design/agent.md): the surfaces as tools, within budgets."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    mode: Literal["auto", "always", "never"] = Field(
        "auto",
        description="auto: multi-step or relational+temporal questions, a low-confidence answer, or "
        'an explicit request ("dig deeper"); always; never (`--agent` forces it)',
    )
    method: Literal["auto", "rules", "llm"] = Field(
        "auto", description="auto: the LLM chooses the tools when one is configured, else rules"
    )
    max_steps: int = Field(5, ge=1, le=50, description="tool calls at most")
    max_seconds: float = Field(30.0, gt=0, le=3600, description="time budget")
    max_tokens: int = Field(8000, ge=100, le=1_000_000, description="LLM tokens at most (prompt + reply)")
    low_confidence: float = Field(
        0.1, ge=0.0, le=1.0, description="auto: a static answer below this confidence goes to the agent"
    )
    learn: bool = Field(
        True, description="write what the agent discovers back (relationships, stale manifests, types)"
    )
