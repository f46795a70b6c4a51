"""The agent with an LLM: the model chooses each action as one validated `Action` (structured
output, so JSON-mode servers without native tool calling work). It sees the state — queries
tried, documents found and loaded, evidence gathered, steps left — and the last results, quoted
as data. When the model fails, the rules agent chooses the remaining steps."""

from __future__ import annotations

import logging

from shu.answer.agent.loop import Action, AgentState, Choice
from shu.answer.agent.rules import RulesAgent
from shu.answer.agent.tools import TOOLS, Workspace, description
from shu.answer.quote import quoted
from shu.models.llm.base import LLMError
from shu.models.llm.client import LLMClient, StructuredOutputError
from shu.prompts import load_prompt

log = logging.getLogger(__name__)

_RESULT_CHARS = 1500
_SHOWN_RESULTS = 2


class LLMAgent:
    def __init__(self, client: LLMClient, rules: RulesAgent, max_steps: int, persona_name: str) -> None:
        self.client = client
        self.rules = rules
        self.max_steps = max_steps
        self.persona_name = persona_name
        self.failed: str | None = None

    @property
    def method(self) -> str:
        name = f"llm:{self.client.name}"
        return f"{name} (then rules: {self.failed})" if self.failed else name

    def next(self, state: AgentState, ws: Workspace) -> Choice:
        if self.failed:
            return self.rules.next(state, ws)
        prompt = load_prompt("agent")
        messages = prompt.messages(
            persona_name=self.persona_name,
            tools="\n".join(f"- {description(tool)}" for tool in TOOLS.values()),
            question=quoted(state.question),
            state=self._state(state),
            results=self._results(state),
        )
        try:
            chosen = self.client.structured(messages, Action, max_tokens=200, check=_known_tool)
        except (LLMError, StructuredOutputError) as exc:
            log.warning("the agent's model failed, the rules take the remaining steps: %s", exc)
            self.failed = str(exc)[:200]
            spent = 0
            if isinstance(exc, StructuredOutputError):  # two replies came back, unusable: estimated
                spent = 2 * (sum(len(m.content) for m in messages) // 4 + 200)
            fallback = self.rules.next(state, ws)
            return Choice(fallback.action, fallback.stop, fallback.tokens + spent)
        usage = chosen.result.usage
        tokens = (usage.prompt_tokens + usage.completion_tokens) * chosen.attempts
        if chosen.value.tool == "finish":
            return Choice(None, stop="finished", tokens=tokens)
        return Choice(chosen.value, tokens=tokens)

    def _state(self, state: AgentState) -> str:
        found = [f"{f.doc_id} ({quoted(f.title)}, by {f.surface})" for f in list(state.found.values())[:12]]
        return "\n".join(
            [
                f"Queries tried: {'; '.join(quoted(q) for q in state.queries) or 'none'}",
                f"Documents found: {', '.join(found) or 'none'}",
                f"Loaded whole: {', '.join(state.whole) or 'none'}",
                f"Evidence passages: {len(state.hits)}",
                f"Steps left: {max(0, self.max_steps - len(state.steps))}",
            ]
        )

    def _results(self, state: AgentState) -> str:
        shown = []
        for step, result in list(zip(state.steps, state.results, strict=False))[-_SHOWN_RESULTS:]:
            body = result.text[:_RESULT_CHARS].replace("</result>", "</ result>")
            shown.append(f'<result tool="{step.tool}">\n{body}\n</result>')
        return "\n".join(shown) or "none yet"


def _known_tool(action: Action) -> list[str]:
    if action.tool == "finish" or action.tool in TOOLS:
        return []
    return [f"tool must be one of {', '.join([*TOOLS, 'finish'])}"]
