"""What the agent learned, written back (docs/design/agent.md#findings) as findings with provenance that
`shu findings undo` takes back:

- a relationship: a document the agent read names another document it found by its title; the
  sentence that names it is the evidence, quoted verbatim (checked like an LLM's relationships);
- a stale manifest: a document's capability manifest promises a topic of the question whose words
  appear nowhere in the document's text (read whole by the agent).
"""

from __future__ import annotations

from shu.answer.agent.loop import AgentState
from shu.answer.agent.tools import Workspace
from shu.text import content_words, split_sentences, stem
from shu.types import Finding, FindingKind

_MIN_TITLE_CHARS = 12


def findings(state: AgentState, ws: Workspace, method: str) -> list[Finding]:
    read = {doc_id: _text(ws, doc_id) for doc_id in state.whole}
    for hit in state.hits:
        read.setdefault(hit.chunk.doc_id, "")
        read[hit.chunk.doc_id] += "\n" + hit.chunk.text
    found = [*_relationships(state, ws, read, method), *_stale_manifests(state, ws, read, method)]
    return found


def _relationships(state: AgentState, ws: Workspace, read: dict[str, str], method: str) -> list[Finding]:
    titles = {
        doc_id: ws.documents[doc_id].title
        for doc_id in [*state.found, *read]
        if doc_id in ws.documents
        and len(ws.documents[doc_id].title) >= _MIN_TITLE_CHARS
        and len(ws.documents[doc_id].title.split()) >= 2
    }
    known = {(r.source, r.target) for r in ws.store.list_relationships(list(read))}
    made: list[Finding] = []
    for source, text in read.items():
        lowered = text.casefold()
        for target, title in titles.items():
            if target == source or (source, target) in known or title.casefold() not in lowered:
                continue
            quote = next((s for s in split_sentences(text) if title.casefold() in s.casefold()), "")
            if quote and quote in text:
                made.append(_finding("relationship", source, ws, state, method, target, "references", quote))
    return made


def _stale_manifests(state: AgentState, ws: Workspace, read: dict[str, str], method: str) -> list[Finding]:
    asked = {stem(w) for w in content_words(state.question)}
    made: list[Finding] = []
    for doc_id in state.whole:
        profile = ws.store.get_profile(doc_id)
        if profile is None or profile.provenance.method.startswith("extractive"):
            continue  # a manifest made from the document's own words cannot promise what it lacks
        held = {stem(w) for w in content_words(read.get(doc_id, ""))}
        for promise in profile.manifest.answers_questions_about:
            words = {stem(w) for w in content_words(promise)}
            if words & asked and not words & held:
                made.append(_finding("stale_manifest", doc_id, ws, state, method, None, promise, ""))
                break
    return made


def _finding(
    kind: FindingKind,
    doc_id: str,
    ws: Workspace,
    state: AgentState,
    method: str,
    target: str | None,
    value: str,
    evidence: str,
) -> Finding:
    return Finding(
        kind=kind,
        doc_id=doc_id,
        persona=ws.persona.slug,
        target=target,
        value=value,
        evidence=evidence,
        method=f"agent:{method}",
        question=state.question,
    )


def _text(ws: Workspace, doc_id: str) -> str:
    return "\n".join(c.text for c in ws.store.list_chunks(doc_id))
