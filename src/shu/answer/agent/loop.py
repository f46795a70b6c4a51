"""The agent's loop, the same for every way of choosing actions: check the budgets, ask the
chooser for the next action, let the guard refuse what it must, run the tool, keep the state,
record the step. It stops on the chooser's word (enough evidence, finished), the step budget,
the time budget, the token budget, or steps that bring nothing new."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, Field

from shu.answer.agent.tools import TOOLS, Call, Found, ToolResult, Workspace
from shu.config.settings import AgentSettings
from shu.types import AgentStep, AgentTrace, Finding, SearchHit

_PATIENCE = 2
"""Searches (or refused calls) in a row that bring no new document or passage before the agent gives up."""


class Action(BaseModel):
    """One step the agent takes: a tool and its arguments, or `finish`. One flat model, so a
    JSON-mode server without native tool calling can produce it; its schema names the tools as
    an enum a grammar can constrain to."""

    tool: str = Field(max_length=60, json_schema_extra={"enum": [*TOOLS, "finish"]})
    query: str = Field("", max_length=4000)
    doc_ids: list[str] = Field(default_factory=list, max_length=5)
    reason: str = Field("", max_length=4000)
    kind: str = Field("", max_length=60)
    """a relation type, a domain or a role, for the tools that take one"""

    def call(self) -> Call:
        return Call(self.query, list(self.doc_ids), self.reason, self.kind)


@dataclass
class AgentState:
    """What the agent knows so far: queries tried, documents found (by id, from the store) and
    examined, evidence chunks, documents loaded whole, and the steps taken."""

    question: str
    queries: list[str] = field(default_factory=list)
    found: dict[str, Found] = field(default_factory=dict)
    examined: list[str] = field(default_factory=list)
    hits: list[SearchHit] = field(default_factory=list)
    whole: list[str] = field(default_factory=list)
    sub_questions: list[str] = field(default_factory=list)
    steps: list[AgentStep] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    tokens: int = 0
    idle: int = 0

    def absorb(self, result: ToolResult, searched: bool) -> list[str]:
        """Keep what a tool returned; the ids of documents not seen before. A search (`searched`)
        that brings no new document, passage or whole document counts towards giving up."""
        new = [f.doc_id for f in result.found if f.doc_id not in self.found]
        for item in result.found:
            self.found.setdefault(item.doc_id, item)
        known = {h.chunk.id for h in self.hits}
        fresh_hits = [h for h in result.hits if h.chunk.id not in known]
        self.hits += fresh_hits
        new += [
            h.chunk.doc_id
            for h in fresh_hits
            if h.chunk.doc_id not in self.found and h.chunk.doc_id not in new
        ]
        fresh_whole = [d for d in result.whole if d not in self.whole]
        self.whole += fresh_whole
        self.sub_questions += [q for q in result.sub_questions if q not in self.sub_questions]
        self.findings += result.findings
        self.results.append(result)
        if new or fresh_hits or fresh_whole:
            self.idle = 0
        elif searched:
            self.idle += 1
        return new


@dataclass(frozen=True)
class Choice:
    """The chooser's next action, or why it stops (`action` None), with the tokens it spent."""

    action: Action | None
    stop: str = ""
    tokens: int = 0


class Chooser(Protocol):
    @property
    def method(self) -> str: ...

    def next(self, state: AgentState, ws: Workspace) -> Choice: ...


@dataclass
class Budget:
    steps: int
    seconds: float
    tokens: int

    @classmethod
    def of(cls, settings: AgentSettings) -> Budget:
        return cls(settings.max_steps, settings.max_seconds, settings.max_tokens)


def run_agent(
    chooser: Chooser,
    ws: Workspace,
    state: AgentState,
    budget: Budget,
    reason: str,
    clock: Callable[[], float] = time.perf_counter,
) -> AgentTrace:
    started = clock()
    known = {h.chunk.doc_id for h in state.hits}
    stopped = ""
    while not stopped:
        stopped = _exhausted(state, budget, clock() - started)
        if stopped:
            break
        choice = chooser.next(state, ws)
        state.tokens += choice.tokens
        if choice.action is None:
            stopped = choice.stop or "finished"
            break
        _step(choice, state, ws, clock)
    return AgentTrace(
        method=chooser.method,
        reason=reason,
        steps=state.steps,
        stopped=stopped,
        documents=[
            d for d in dict.fromkeys([*(h.chunk.doc_id for h in state.hits), *state.whole]) if d not in known
        ],
        tokens=state.tokens,
        ms=round((clock() - started) * 1000, 1),
    )


def refusal(action: Action, state: AgentState, ws: Workspace) -> str | None:
    """Why the guard will not make this call, or None. A document id must be one a tool returned
    in this run (from the store's metadata: an id read inside a document's text is data) and a
    document of the asker's persona; the tool must exist and get what it needs."""
    tool = TOOLS.get(action.tool)
    if tool is None:
        return f"no tool named {action.tool!r}"
    if "query" in tool.needs and not tool.needs.endswith("?") and not action.query.strip():
        return f"{tool.name} needs a query"
    if tool.needs.startswith("doc_id") and len(action.doc_ids) != 1:
        return f"{tool.name} takes exactly one document id"
    for doc_id in action.doc_ids:
        if doc_id not in ws.documents:
            return f"{doc_id!r} is not a document this persona can read"
        if doc_id not in state.found and doc_id not in {h.chunk.doc_id for h in state.hits}:
            return f"{doc_id!r} was not returned by a tool in this run (ids inside documents are data)"
    if tool.name in _WRITERS and action.doc_ids[0] not in state.examined:
        return f"{tool.name} needs a document loaded or inspected in this run"
    return None


_WRITERS = ("correct_document_type", "record_relational_context")
"""the tools that write back: only about a document the agent read"""


def _exhausted(state: AgentState, budget: Budget, elapsed: float) -> str:
    if len(state.steps) >= budget.steps:
        return "step budget"
    if elapsed >= budget.seconds:
        return "time budget"
    if state.tokens >= budget.tokens:
        return "token budget"
    if state.idle >= _PATIENCE:
        return "no new documents"
    return ""


def _step(choice: Choice, state: AgentState, ws: Workspace, clock: Callable[[], float]) -> None:
    action = choice.action
    assert action is not None
    arguments: dict[str, object] = {"query": action.query}
    if action.doc_ids:
        arguments["doc_ids"] = action.doc_ids
    if action.kind:
        arguments["kind"] = action.kind
    refused = refusal(action, state, ws)
    if refused is not None:
        state.idle += 1
        state.results.append(ToolResult(f"refused: {refused}", text=f"refused: {refused}"))
        state.steps.append(
            AgentStep(tool=action.tool, arguments=arguments, refused=refused, tokens=choice.tokens)
        )
        return
    began = clock()
    result = TOOLS[action.tool].run(ws, action.call())
    if action.query and "query" in TOOLS[action.tool].needs:
        state.queries.append(action.query)
    if action.tool in ("inspect_manifest", "load_full_document", "get_document_context"):
        state.examined += [d for d in action.doc_ids if d not in state.examined]
    new = state.absorb(result, searched=action.tool.startswith("query_"))
    state.steps.append(
        AgentStep(
            tool=action.tool,
            arguments=arguments,
            summary=result.summary,
            new_documents=new,
            tokens=choice.tokens,
            ms=round((clock() - began) * 1000, 1),
        )
    )
