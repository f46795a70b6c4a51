"""The agent as one call: from the first retrieval's result to a widened result (the evidence
it gathered and the documents it loaded, assembled into the context) and the trace of its steps;
what it learned is written back when `agent.learn` is on."""

from __future__ import annotations

import logging

from shu.answer.agent.learn import findings
from shu.answer.agent.llm import LLMAgent
from shu.answer.agent.loop import AgentState, Budget, Chooser, run_agent
from shu.answer.agent.rules import RulesAgent
from shu.answer.agent.tools import Found, Workspace
from shu.config.settings import AgentSettings
from shu.models.embed.base import Embedder
from shu.models.llm.client import LLMClient
from shu.retrieve.asker import Asker
from shu.retrieve.pipeline import RetrievalPipeline
from shu.store.base import AnsweringStore
from shu.types import AgentTrace, Persona, RetrievalResult

log = logging.getLogger(__name__)


class Agent:
    def __init__(
        self,
        settings: AgentSettings,
        store: AnsweringStore,
        embedder: Embedder,
        pipeline: RetrievalPipeline,
        llm: LLMClient | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.pipeline = pipeline
        self.llm = llm if settings.method != "rules" else None

    def investigate(
        self, result: RetrievalResult, persona: Persona, reason: str, asker: Asker | None = None
    ) -> tuple[RetrievalResult, AgentTrace]:
        """`asker`: the tools' searches rank for this person, as the first retrieval did."""
        ws = Workspace(self.store, self.embedder, self.pipeline, persona, asker, result.filter)
        state = AgentState(question=result.question, hits=list(result.hits))
        for hit in result.hits:
            state.found.setdefault(
                hit.chunk.doc_id, Found(hit.chunk.doc_id, hit.doc_title, hit.score, "retrieval")
            )
        trace = run_agent(self._chooser(persona), ws, state, Budget.of(self.settings), reason)
        if self.settings.learn:
            self._learn(state, ws, trace.method)
        note = f"agent ({trace.method}): {len(trace.steps)} step(s), stopped on {trace.stopped}"
        widened = self.pipeline.merged(result, state.hits, note, whole=tuple(state.whole))
        parts = state.sub_questions if len(state.sub_questions) > 1 else []
        return widened.model_copy(update={"sub_questions": parts}), trace

    def _chooser(self, persona: Persona) -> Chooser:
        rules = RulesAgent(self.settings.max_steps)
        if self.llm is None:
            return rules
        return LLMAgent(self.llm, rules, self.settings.max_steps, persona.display_name)

    def _learn(self, state: AgentState, ws: Workspace, method: str) -> None:
        recorded = [
            f.model_copy(update={"method": f"agent:{method}", "question": state.question})
            for f in state.findings
        ]
        for finding in [*recorded, *findings(state, ws, method)]:
            try:
                self.store.add_finding(finding)
            except Exception as exc:  # a finding is a bonus: never lose the answer over it
                log.warning("agent finding not written (%s): %s", exc.__class__.__name__, exc)
