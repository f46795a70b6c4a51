"""Stage 2: rewrites for search; the LLM's variations are validated and fall back to rules."""

from __future__ import annotations

import json

from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.retrieve.classify import classify
from shu.retrieve.planner import LLMPlanner
from shu.retrieve.transform import (
    LLMTransformer,
    expand_abbreviations,
    expand_contractions,
    rule_queries,
)


def test_contractions_and_aliases_are_spelled_out() -> None:
    assert expand_contractions("What’s the SLA? It isn't clear") == "What is the SLA? It is not clear"
    assert expand_abbreviations("Does SSO need SCIM?", {"SSO": "single sign-on"}) == (
        "Does SSO (single sign-on) need SCIM?"
    )
    assert (
        expand_abbreviations("single sign-on via SSO", {"SSO": "single sign-on"}) == "single sign-on via SSO"
    )
    assert expand_abbreviations("GLASSO", {"SSO": "single sign-on"}) == "GLASSO", "whole words only"
    for odd in ("what'ſ new", "ı'm here", "İ'm here"):  # case-folds to a contraction under Unicode rules
        assert expand_contractions(odd) == odd


def test_rule_variations_keep_the_original_for_the_answer() -> None:
    question = "What's in my biography?"
    queries = rule_queries(question, classify(question), {})
    assert queries.original == question and queries.rewritten == "What is in my biography?"
    assert "biography" in queries.variations and queries.method == "rules"


def test_llm_variations_and_hypothetical_answer_are_used_when_valid() -> None:
    reply = {
        "variations": ["Pro plan API rate limit", "requests per minute Pro"],
        "hypothetical_answer": "The Pro plan allows 1,200 API requests per minute per workspace.",
    }
    transformer = LLMTransformer(LLMClient(ScriptedLLM([json.dumps(reply)])))
    question = "How many API requests per minute does the Pro plan allow?"
    queries = transformer.queries(question, classify(question), {})
    assert queries.variations == reply["variations"] and queries.method.startswith("llm:")
    assert queries.hypothetical_answer == reply["hypothetical_answer"] and queries.original == question


def test_off_topic_llm_variations_fall_back_to_rules() -> None:
    off_topic = json.dumps({"variations": ["best pizza in Naples"], "hypothetical_answer": ""})
    fake = ScriptedLLM([off_topic, off_topic])
    question = "How many API requests per minute does the Pro plan allow?"
    queries = LLMTransformer(LLMClient(fake)).queries(question, classify(question), {})
    assert queries.method == "rules (llm failed)" and len(fake.calls) == 2
    assert queries.hypothetical_answer is None


def test_llm_plans_are_validated_against_the_question() -> None:
    good = {"query_type": "relational", "entities": ["Maria"], "answer_style": "synthesize"}
    plan = LLMPlanner(LLMClient(ScriptedLLM([json.dumps(good)]))).plan("Who did Maria email?", [])
    assert plan.query_type == "relational" and plan.entities == ["Maria"] and plan.method.startswith("llm:")
    invented = json.dumps({"query_type": "relational", "entities": ["Atlantis Corp"], "start_date": "1999"})
    fallback = LLMPlanner(LLMClient(ScriptedLLM([invented, invented]))).plan(
        "Who did Maria email?", ["maria"]
    )
    assert fallback.method == "rules (llm failed)" and fallback.entities == ["maria"]
