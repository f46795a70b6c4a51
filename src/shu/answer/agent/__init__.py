"""Agentic retrieval (docs/design/agent.md): the store's surfaces as tools, chosen by an LLM through one
validated `Action` or by rules, within step, time and token budgets; every step traced; what it
learns written back as undoable findings."""

from shu.answer.agent.investigate import Agent
from shu.answer.agent.policy import after, upfront

__all__ = ["Agent", "after", "upfront"]
