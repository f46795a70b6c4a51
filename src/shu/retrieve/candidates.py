"""What flows between the query pipeline's stages after fusion: one typed record of the chunks
still in the running (ids and scores, best first) and what the stages learned about them — where
an expanded chunk came from, the asker's boosts, the hits once their text is loaded — and the
context every stage reads. Each stage is `(Candidates, StageContext) -> Candidates`
(`docs/design/query-pipeline.md#stages`); `RetrievalPipeline.run` only orders and times them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from shu.retrieve.asker import Asker
from shu.store.base import ScoredChunk, Within
from shu.types import Persona, PersonalBoost, ProfileMatch, RetrievalParams, RetrievalPlan, SearchHit

Ranked = list[tuple[str, float]]
"""(chunk id, score), best first."""
Surfaces = dict[str, list[ScoredChunk]]
"""What each surface found, by surface name."""


@dataclass(frozen=True)
class StageContext:
    """What every stage reads and none changes: the question, the persona and its parameters,
    what each surface found."""

    question: str
    """as asked"""
    query: str
    """as searched (rewritten)"""
    persona: Persona
    params: RetrievalParams
    surfaces: Surfaces
    decisive: bool = False
    """a synthesized question matched closely: the search stops widening"""
    asker: Asker | None = None
    depth: int = 0
    """how many hits to load (the limit, or the reranker's depth when deeper)"""
    within: Within = None
    """the documents a filter keeps (None: the persona's every document)"""


@dataclass(frozen=True)
class Candidates:
    """The chunks still in the running and what is known of them."""

    ranked: Ranked
    expanded_via: dict[str, str] = field(default_factory=dict)
    """chunk id → "seed-document relation": how expansion reached it"""
    retrieval_plan: RetrievalPlan = field(default_factory=RetrievalPlan)
    boosts: list[PersonalBoost] = field(default_factory=list)
    resolved: list[ProfileMatch] = field(default_factory=list)
    """the question's references to the asker's world, resolved against their profile"""
    hits: list[SearchHit] = field(default_factory=list)
    """the survivors with their text, once loaded (`Hits`), in their final order"""
    notes: list[str] = field(default_factory=list)

    def but(self, **changes: Any) -> Candidates:
        """This record with `changes` (a stage's result)."""
        return replace(self, **changes)

    def noted(self, *notes: str) -> Candidates:
        return replace(self, notes=[*self.notes, *notes])


class Stage(Protocol):
    name: str
    """its name in the trace's timings"""

    def applies(self, context: StageContext) -> bool:
        """False: the stage is skipped (and not timed)."""
        ...

    def __call__(self, candidates: Candidates, context: StageContext) -> Candidates: ...
