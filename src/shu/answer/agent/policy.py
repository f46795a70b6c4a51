"""When a question goes to the agent (docs/design/agent.md#invocation): asked for (`--agent`, `agent.mode =
always`), an explicit request in the question ("dig deeper", "find everything about"), a question
the planner found multi-step or both relational and temporal; or, after the static answer, its
confidence below `agent.low_confidence`."""

from __future__ import annotations

import re

from shu.config.settings import AgentSettings
from shu.types import Answer, QueryPlan

_EXPLICIT = re.compile(
    r"\b(?:dig deeper|find everything|everything (?:about|on)|look (?:harder|deeper)|search thoroughly|"
    r"investigate|all (?:the )?(?:documents|sources) (?:about|on))\b",
    re.I,
)


def upfront(question: str, plan: QueryPlan, settings: AgentSettings, forced: bool | None) -> str | None:
    """Why this question goes straight to the agent, or None. `forced` True/False overrides."""
    if forced is not None:
        return "asked for (--agent)" if forced else None
    if settings.mode == "never":
        return None
    if settings.mode == "always":
        return "agent.mode = always"
    if _EXPLICIT.search(question):
        return "asked to dig deeper"
    if plan.query_type == "multi_step":
        return "multi-step question"
    if plan.query_type == "relational" and (plan.temporal_scope.start or plan.temporal_scope.end):
        return "relational and temporal question"
    return None


def after(answer: Answer, settings: AgentSettings, forced: bool | None) -> str | None:
    """Why the static answer goes to the agent after all (low confidence), or None."""
    if forced is False or settings.mode != "auto" or answer.out_of_scope or answer.confidence is None:
        return None
    if answer.confidence < settings.low_confidence:
        return f"low confidence ({answer.confidence:.2f} < {settings.low_confidence:.2f})"
    return None
