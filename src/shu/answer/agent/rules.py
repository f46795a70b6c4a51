"""The agent without an LLM: a fixed plan, decided by what each step returned.

1. decompose the question (comparisons, several questions, clauses);
2. search passages for each part the first retrieval did not already cover;
3. ask the synopses which documents are about the question;
4. where a document's synopsis ranks high but none of its passages were found (the chunk and
   synopsis scores disagree), inspect its manifest, then load it whole.

It stops when every part has evidence and nothing disagrees, or when a budget runs out."""

from __future__ import annotations

from shu.answer.agent.loop import Action, AgentState, Choice
from shu.answer.agent.tools import Workspace
from shu.text import content_words, stem

_COVERED = 0.45
"""A part counts as covered when a passage holding its own names is this close to it (cosine)…"""
_COVERED_WORDS = 0.75
"""…or holds this share of its content words."""
_DISAGREE = 0.35
"""A synopsis at least this close to the question, whose document no passage came from."""


class RulesAgent:
    method = "rules"

    def __init__(self, max_steps: int = 5) -> None:
        self.max_steps = max_steps

    def next(self, state: AgentState, ws: Workspace) -> Choice:
        tried = [s.tool for s in state.steps]
        if "decompose" not in tried:
            return Choice(Action(tool="decompose", query=state.question, reason="split into parts"))
        parts = state.sub_questions if len(state.sub_questions) > 1 else []
        for part in parts:
            if part not in state.queries and not _covered(part, parts, state):
                return Choice(Action(tool="query_chunks", query=part, reason="a part with no evidence yet"))
        if "query_synopses" not in tried:
            return Choice(
                Action(tool="query_synopses", query=state.question, reason="which documents are about it")
            )
        target = _disagreeing(state)
        if target is None:
            return Choice(None, stop="enough evidence")
        if target not in state.examined and self.max_steps - len(state.steps) >= 2:
            return Choice(
                Action(tool="inspect_manifest", doc_ids=[target], reason="synopsis matches, passages do not")
            )
        return Choice(
            Action(tool="load_full_document", doc_ids=[target], reason="synopsis matches, passages do not")
        )


def _covered(part: str, parts: list[str], state: AgentState) -> bool:
    """A passage found so far holds what sets this part apart from the others (its own names and
    words) and is close to it in meaning or words."""
    wanted = _stems(part)
    others = [_stems(p) for p in parts if p != part]
    shared = set.intersection(*others) if others else set()
    distinct = wanted - shared
    for hit in state.hits:
        held = _stems(hit.chunk.text)
        if distinct and len(distinct & held) / len(distinct) < _COVERED_WORDS:
            continue
        close = hit.dense_score is not None and hit.dense_score >= _COVERED
        if close or (wanted and len(wanted & held) / len(wanted) >= _COVERED_WORDS):
            return True
    return False


def _stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def _disagreeing(state: AgentState) -> str | None:
    """The best document by synopsis that no passage came from and that is not loaded yet."""
    with_passages = {h.chunk.doc_id for h in state.hits}
    for result in state.results:
        for found in result.found:
            if (
                found.surface == "synopsis"
                and found.score >= _DISAGREE
                and found.doc_id not in with_passages
                and found.doc_id not in state.whole
            ):
                return found.doc_id
    return None
