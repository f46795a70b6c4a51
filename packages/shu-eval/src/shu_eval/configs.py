"""Named retrieval configurations compared by `shu eval`. Each later retrieval feature is one
more preset here; `default` is always exactly what a user gets out of the box."""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import BaseModel, Field

from shu.config.settings import EnrichSettings, RerankSettings, RetrievalSettings, Settings
from shu.errors import ShuError
from shu.types import RetrievalParams

DEPTH = 100
"""Results kept per query: enough for Recall@100."""


class EvalConfig(BaseModel):
    name: str
    description: str
    retriever: Literal["bm25", "dense", "hybrid", "pipeline"]
    retrieval: RetrievalParams = Field(default_factory=RetrievalParams)
    pipeline: RetrievalSettings = Field(default_factory=RetrievalSettings)
    """The query pipeline's stages (retriever `pipeline` only)."""
    enrich: EnrichSettings = Field(default_factory=lambda: EnrichSettings(enabled=False))
    """How the corpus is indexed for this configuration (configs that agree share one store)."""


def written_by(config: EvalConfig, model: str) -> EvalConfig:
    """`config` as run with `--enrich-llm`: its enriched surfaces written by `model` (the
    extractive artifact where the model's failed validation), and its description says so."""
    if not config.enrich.enabled:
        return config
    said = f"written by {model}, extractive where it failed validation"
    description = config.description.replace("extractive", said)
    if description == config.description:
        description = f"{config.description} (artifacts {said})"
    return config.model_copy(update={"description": description})


class _Depth(TypedDict):
    candidates: int
    max_chunks: int
    max_chunks_per_doc: int


class _Stages(TypedDict, total=False):
    plan: bool
    transform: bool
    multiquery: bool
    hyde: bool
    expand: bool
    full_document: bool
    escalate: bool


class _Artifacts(TypedDict, total=False):
    enabled: bool
    profiles: bool
    questions: bool
    chunk_profiles: bool
    context: bool


_DEEP: _Depth = {"candidates": DEPTH, "max_chunks": DEPTH, "max_chunks_per_doc": DEPTH}
_STAGES_OFF: _Stages = {
    "plan": False,
    "transform": False,
    "multiquery": False,
    "hyde": False,
    "expand": False,
    "full_document": False,
    "escalate": False,
}
_ONLY: _Artifacts = {
    "enabled": True,
    "profiles": False,
    "questions": False,
    "chunk_profiles": False,
    "context": False,
}

PRESETS: dict[str, EvalConfig] = {
    config.name: config
    for config in (
        EvalConfig(
            name="default",
            description="out of the box: the query pipeline with default stages and persona defaults "
            "(convex fusion, 20 a side, 12 results, 8 a document)",
            retriever="pipeline",
        ),
        EvalConfig(
            name="as-ingested",
            description="out of the box over a corpus indexed as `shu ingest` indexes it by default "
            "(`default` indexes no enrichment): profiles, questions and chunk profiles, extractive",
            retriever="pipeline",
            enrich=EnrichSettings(),
        ),
        EvalConfig(
            name="bm25",
            description="BM25 alone (in-memory index: FTS5's Porter tokens and scores; no stopwords)",
            retriever="bm25",
            retrieval=RetrievalParams(**_DEEP),
        ),
        EvalConfig(
            name="bm25+rm3",
            description="BM25 with pseudo-relevance feedback: RM3 over the first 10 chunks, 10 words, "
            "half the query's weight",
            retriever="bm25",
            retrieval=RetrievalParams(**_DEEP, feedback_docs=10),
        ),
        EvalConfig(
            name="+feedback",
            description="out of the box + RM3 pseudo-relevance feedback on the keyword surface "
            "(10 chunks, 10 words, half the query's weight)",
            retriever="pipeline",
            retrieval=RetrievalParams(feedback_docs=10),
        ),
        EvalConfig(
            name="dense",
            description="all-MiniLM-L6-v2 cosine alone",
            retriever="dense",
            retrieval=RetrievalParams(**_DEEP),
        ),
        EvalConfig(
            name="hybrid",
            description="BM25 top-100 + dense top-100, RRF k=60",
            retriever="hybrid",
            retrieval=RetrievalParams(**_DEEP, fusion="rrf"),
        ),
        EvalConfig(
            name="hybrid-convex",
            description="BM25 top-100 + dense top-100, scores divided by each list's best, 0.5/0.5",
            retriever="hybrid",
            retrieval=RetrievalParams(**_DEEP, fusion="convex", convex_alpha=0.5),
        ),
        EvalConfig(
            name="+questions",
            description="hybrid + the synthesized-question surface (template questions, extractive), RRF",
            retriever="hybrid",
            retrieval=RetrievalParams(**_DEEP, fusion="rrf", question_weight=1.0),
            enrich=EnrichSettings(**_ONLY | {"questions": True}),
        ),
        EvalConfig(
            name="+profiles",
            description="hybrid + synopsis and capability-manifest surfaces (profiles: extractive), RRF",
            retriever="hybrid",
            retrieval=RetrievalParams(**_DEEP, fusion="rrf", synopsis_weight=1.0, manifest_weight=1.0),
            enrich=EnrichSettings(**_ONLY | {"profiles": True}),
        ),
        EvalConfig(
            name="+synopsis",
            description="hybrid + the synopsis surface alone (profiles: extractive), RRF",
            retriever="hybrid",
            retrieval=RetrievalParams(**_DEEP, fusion="rrf", synopsis_weight=1.0),
            enrich=EnrichSettings(**_ONLY | {"profiles": True}),
        ),
        EvalConfig(
            name="+manifest",
            description="hybrid + the capability-manifest surface alone (profiles: extractive), RRF",
            retriever="hybrid",
            retrieval=RetrievalParams(**_DEEP, fusion="rrf", manifest_weight=1.0),
            enrich=EnrichSettings(**_ONLY | {"profiles": True}),
        ),
        EvalConfig(
            name="+keywords",
            description="the pipeline + chunks whose profile keywords/topics the question names (extractive)",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP, keyword_weight=1.0),
            pipeline=RetrievalSettings(**_STAGES_OFF),
            enrich=EnrichSettings(**_ONLY | {"profiles": True, "chunk_profiles": True}),
        ),
        EvalConfig(
            name="+context",
            description="hybrid over chunks indexed with a context prefix (extractive), RRF",
            retriever="hybrid",
            retrieval=RetrievalParams(**_DEEP, fusion="rrf"),
            enrich=EnrichSettings(**_ONLY | {"context": True}),
        ),
        EvalConfig(
            name="pipeline-off",
            description="the query pipeline with every stage off (must equal hybrid-convex)",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP),
            pipeline=RetrievalSettings(**_STAGES_OFF),
        ),
        EvalConfig(
            name="+plan",
            description="hybrid-convex + rule planner: titles, names and dates, weighted by selectivity",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP),
            pipeline=RetrievalSettings(**_STAGES_OFF | {"plan": True}),
        ),
        EvalConfig(
            name="+transform",
            description="hybrid-convex over the question with contractions and persona aliases spelled out",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP),
            pipeline=RetrievalSettings(**_STAGES_OFF | {"transform": True}),
        ),
        EvalConfig(
            name="+multiquery",
            description="hybrid-convex + rule-based query variations (keyword form, selective names)",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP),
            pipeline=RetrievalSettings(**_STAGES_OFF | {"transform": True, "multiquery": True}),
        ),
        EvalConfig(
            name="+expand",
            description="hybrid-convex + one hop along outgoing relationships from the top 5 documents",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP),
            pipeline=RetrievalSettings(**_STAGES_OFF | {"expand": True}),
        ),
        EvalConfig(
            name="+rerank",
            description="hybrid-convex + cross-encoder over the top 30 (model folder from SHU_RERANK_MODEL)",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP),
            pipeline=RetrievalSettings(
                **_STAGES_OFF, rerank=RerankSettings(method="cross-encoder", depth=30)
            ),
        ),
        EvalConfig(
            name="+adjacent",
            description="the pipeline + a fifth of the best neighbouring chunk's score (conversation turns)",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP, adjacent_weight=0.2),
        ),
        EvalConfig(
            name="+document",
            description="the pipeline + a tenth of the other listed chunks of the same document",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP, document_weight=0.1),
        ),
        EvalConfig(
            name="full",
            description="every stage that runs without a model: plan, multi-query, expansion",
            retriever="pipeline",
            retrieval=RetrievalParams(**_DEEP),
            pipeline=RetrievalSettings(
                **_STAGES_OFF | {"plan": True, "transform": True, "multiquery": True, "expand": True}
            ),
        ),
    )
}


def resolve(names: str) -> list[EvalConfig]:
    """`bm25,dense,hybrid` → presets, `default` always included (first)."""
    wanted = ["default", *[n.strip() for n in names.split(",") if n.strip()]]
    unknown = [n for n in wanted if n not in PRESETS]
    if unknown:
        raise ShuError(f"unknown eval config(s) {', '.join(unknown)} (known: {', '.join(PRESETS)})")
    return [PRESETS[n] for n in dict.fromkeys(wanted)]


ANSWER_PRESETS: dict[str, dict[str, dict[str, object]]] = {
    "configured": {},
    "plain": {"verify": {"enabled": False, "max_rounds": 0}, "agent": {"mode": "never"}},
    "+verify": {"verify": {"enabled": True, "max_rounds": 0}, "agent": {"mode": "never"}},
    "+crag": {"verify": {"enabled": True, "max_rounds": 1}, "agent": {"mode": "never"}},
    "+agent": {"verify": {"enabled": True, "max_rounds": 1}, "agent": {"mode": "auto"}},
    "agent-always": {"verify": {"enabled": True, "max_rounds": 1}, "agent": {"mode": "always"}},
}
"""How `shu eval --answers --answer-configs` varies what happens after retrieval: settings laid
over the configured ones (`configured` = as they are). The agent never writes findings into an
eval store (`agent.learn` off)."""


def answer_settings(settings: Settings, name: str) -> Settings:
    if name not in ANSWER_PRESETS:
        raise ShuError(f"unknown answer config {name!r} (known: {', '.join(ANSWER_PRESETS)})")
    update: dict[str, BaseModel] = {}
    for section, values in ANSWER_PRESETS[name].items():
        update[section] = getattr(settings, section).model_copy(update=values)
    agent = update.get("agent", settings.agent)
    update["agent"] = agent.model_copy(update={"learn": False})
    return settings.model_copy(update=update)
