"""The query pipeline's settings: its stages, the reranker, and the boosts for the person asking."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from shu.types import QueryType, RetrievalParams


class RerankSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    method: Literal["none", "cross-encoder", "llm"] = "none"
    model_path: Path | None = Field(None, description="folder with model.onnx + tokenizer.json")
    depth: int = Field(30, ge=1, le=500, description="how many fused candidates are reranked")
    batch_size: int = Field(16, ge=1, le=256)


class PersonalSettings(BaseModel):
    """RELATIONAL-BOOST for the person asking (`--as USER`, the key's user): each boost bounded,
    the total capped, a share of the places kept for the unboosted ranking."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    enabled: bool = True
    contact: float = Field(0.2, ge=0.0, le=1.0, description="× the affinity of the closest contact involved")
    project: float = Field(0.3, ge=0.0, le=1.0, description="a document of one of the asker's projects")
    interest: float = Field(0.15, ge=0.0, le=1.0, description="a document matching an interest")
    own: float = Field(0.1, ge=0.0, le=1.0, description="a document the asker wrote or received")
    familiar: float = Field(0.1, ge=0.0, le=1.0, description="× how much the asker used the document before")
    role: float = Field(
        0.15, ge=0.0, le=1.0, description="× how much the document matters to the asker's role"
    )
    fresh: float = Field(0.02, ge=0.0, le=1.0, description="× how fresh the document is for its kind")
    deadline: float = Field(0.1, ge=0.0, le=1.0, description="a due date of the document coming up soon")
    away: float = Field(
        0.15,
        ge=0.0,
        le=1.0,
        description="a meeting held while the asker was away (leave, out of office) is lowered by this",
    )
    off_hours: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="the share of the `own` boost a message sent outside the asker's working hours keeps",
    )
    deadline_days: int = Field(21, ge=1, le=365, description="how far ahead a due date counts as coming up")
    now: str | None = Field(
        None,
        pattern=r"^\d{4}-\d{2}-\d{2}$",
        description='the day freshness and due dates count from, and questions\' "last week" is read '
        "against (default: today)",
    )

    @field_validator("now")
    @classmethod
    def _a_real_day(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a day of the calendar (YYYY-MM-DD)") from None
        return value

    ambiguous_at: float = Field(
        0.9, ge=0.0, le=1.0, description="second document's score ÷ first's from which boosts count fully"
    )
    clear_at: float = Field(
        0.6, ge=0.0, le=1.0, description="second ÷ first at or below which the question needs no asker"
    )
    max_boost: float = Field(
        0.8,
        ge=0.0,
        le=2.0,
        description="the most a score is raised (relative; boosts add up and are squashed below it)",
    )
    unboosted_share: float = Field(
        0.3, ge=0.0, le=1.0, description="share of the first `guard_places` unboosted results kept there"
    )
    guard_places: int = Field(10, ge=1, le=100)
    depth: int = Field(50, ge=1, le=1000, description="fused results considered for boosting")


class Route(BaseModel):
    """What one kind of question searches besides the chunks: the document-level surfaces' weights
    for it. A route only turns a surface up: a persona that weighs one more keeps its weight."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    question_weight: float = Field(0.0, ge=0.0, le=5.0, description="the synthesized-question surface")
    synopsis_weight: float = Field(0.0, ge=0.0, le=5.0, description="the document-synopsis surface")
    manifest_weight: float = Field(0.0, ge=0.0, le=5.0, description="the capability-manifest surface")

    def over(self, params: RetrievalParams) -> dict[str, float]:
        """The weights this route raises in `params` (none: nothing to change)."""
        return {
            name: value for name, value in self.model_dump().items() if value > float(getattr(params, name))
        }


TEMPORAL_ROUTE: dict[QueryType, Route] = {"temporal": Route(question_weight=1.0)}
"""The route measured best (`retrieval.routes={"temporal": {"question_weight": 1}}`); not on by
default: below."""
DEFAULT_ROUTES: dict[QueryType, Route] = {}
"""None by default: no route won on the test half of the beyond-chunks set (issue 44). Measured:
on the dev half the synthesized-question surface found the documents of temporal questions
better than the chunks alone (document Recall@5 0.833 → 1.000, 6 questions) and of several-part
questions (0.903 → 0.970, 20); relational ones lost (0.812 → 0.688, 4). On the test half no
kind's document recall moved. On the five factual sets (enriched corpora) routing temporal
questions kept mean Recall@10 (0.8664 vs 0.8666), routing several-part ones too cost 0.0020
(MultiHop 0.010), and routing temporal questions moved the personal-retrieval eval's general
questions by 0.039 nDCG@10 between asking with and without a user (its bar: 0.02)."""


class RetrievalSettings(BaseModel):
    """The query pipeline's stages; each can be switched off. Surface weights live in each
    persona's `retrieval` config."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    plan: bool = Field(True, description="classify the question (rules; an LLM when configured)")
    plan_method: Literal["auto", "rules"] = Field(
        "auto", description="auto: the LLM classifies when one is configured; rules: never (local: rules)"
    )
    transform: bool = Field(
        False, description="spell out contractions before searching (measured neutral; aliases always apply)"
    )
    multiquery: bool = Field(False, description="search rule/LLM variations of the question too")
    hyde: bool = Field(True, description="with an LLM: embed a hypothetical answer too")
    expand: bool = Field(True, description="one hop along outgoing relationships from the seeds")
    named_sections: Literal["auto", "on", "off"] = Field(
        "auto",
        description="a section of a top document whose heading the question names joins the hits "
        "(auto: when a model writes the answer; the quoted reader measured no gain)",
    )
    relation_types: list[str] | None = Field(None, description="only expand along these types")
    expand_seeds: int = Field(5, ge=1, le=50, description="top documents whose relationships are followed")
    max_expansions: int = Field(10, ge=0, le=100)
    decisive_question: float = Field(
        0.9, ge=0.0, le=1.0, description="a question match this close ends the search early"
    )
    rerank: RerankSettings = Field(default_factory=RerankSettings)
    context_tokens: int = Field(16_000, ge=256, le=1_000_000, description="assembled context budget")
    compress: bool = Field(
        True,
        description="a section over the context budget is summarised for the question (its sentences "
        "sharing most words with it, in order, gaps marked …), not cut at a word",
    )
    full_document: bool = Field(True, description="document lookups return the whole document")
    escalate: bool = Field(True, description="load a whole document its summary matches but chunks do not")
    personal: PersonalSettings = Field(default_factory=PersonalSettings)
    routes: dict[QueryType, Route] = Field(
        default_factory=lambda: dict(DEFAULT_ROUTES),
        description="per kind of question (the plan's query type): the document-level surfaces it "
        "searches besides the chunks (`{}`: the chunks alone for every kind)",
    )
    tuned: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="persona → retrieval parameters fitted by `shu tune`, laid over persona.config.json's",
    )

    @field_validator("tuned")
    @classmethod
    def _tuned_are_parameters(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for persona, fields in value.items():
            unknown = set(fields) - set(RetrievalParams.model_fields)
            if unknown:
                raise ValueError(f"tuned.{persona}: not retrieval parameters: {', '.join(sorted(unknown))}")
            RetrievalParams.model_validate(fields)
        return value
