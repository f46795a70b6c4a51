"""Stage 1: classify the question and plan. Rules always work; an LLM, when configured, answers
in a validated structure and falls back to the rules when its answer fails validation."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shu.errors import ShuError
from shu.models.llm.client import LLMClient
from shu.prompts import load_prompt
from shu.retrieve.classify import classify, temporal_scope
from shu.types import QueryPlan, TemporalScope


class _PlanOut(BaseModel):
    query_type: Literal[
        "factual", "interpretive", "relational", "temporal", "structural", "document_lookup", "multi_step"
    ]
    entities: list[str] = Field(default_factory=list, max_length=10)
    title_hints: list[str] = Field(default_factory=list, max_length=5)
    start_date: str | None = Field(None, max_length=10)
    end_date: str | None = Field(None, max_length=10)
    implied_document_type: str | None = Field(None, max_length=40)
    answer_style: Literal["full_document", "synthesize", "list_sources"] = "synthesize"
    complexity: Literal["simple", "moderate", "complex"] = "simple"


class LLMPlanner:
    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def plan(self, question: str, known_names: list[str]) -> QueryPlan:
        prompt = load_prompt("plan")
        messages = prompt.messages(question=question)
        try:
            answer = self.client.structured(
                messages, _PlanOut, max_tokens=300, check=lambda out: _problems(out, question)
            )
        except ShuError:
            return classify(question, known_names).model_copy(update={"method": "rules (llm failed)"})
        out: _PlanOut = answer.value
        return QueryPlan(
            query_type=out.query_type,
            entities=out.entities,
            temporal_scope=TemporalScope(start=out.start_date, end=out.end_date),
            implied_document_type=out.implied_document_type,
            answer_style=out.answer_style,
            complexity=out.complexity,
            title_hints=out.title_hints,
            confidence=0.9 if answer.attempts == 1 else 0.7,
            method=f"llm:{self.client.name} ({prompt.version})",
        )


def _problems(out: _PlanOut, question: str) -> list[str]:
    """Names and hints must be the question's own words; dates must be ones it names."""
    lowered = question.casefold()
    problems = [
        f"{n!r} is not in the question"
        for n in [*out.entities, *out.title_hints]
        if n.casefold() not in lowered
    ]
    named = temporal_scope(question)
    for date in (out.start_date, out.end_date):
        if date and not (named.start and named.end and named.start[:4] <= date[:4] <= named.end[:4]):
            problems.append(f"date {date!r} is not named in the question")
    return problems
