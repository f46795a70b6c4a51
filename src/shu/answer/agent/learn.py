"""What the agent learned, written back (docs/design/agent.md#findings) as findings with provenance that
`shu findings undo` takes back:

- a relationship: a document the agent read names another document it found by its title; the
  sentence that names it is the evidence, quoted verbatim (checked like an LLM's relationships);
- a stale manifest: a document's capability manifest promises a topic of the question whose words
  appear nowhere in the document's text (read whole by the agent);
- relational context: a document the agent read names, in so many words, a person or a project
  that another document it found lists (a participant, a project) and its own profile does not:
  the person is added as mentioned, the project as one it touches; the sentence naming them is the
  evidence.
"""

from __future__ import annotations

import re

from shu.answer.agent.loop import AgentState
from shu.answer.agent.tools import Workspace, listed
from shu.text import content_words, split_sentences, stem
from shu.types import DocumentProfile, Finding, FindingKind

_MIN_TITLE_CHARS = 12
_MIN_PROJECT_CHARS = 6


def findings(state: AgentState, ws: Workspace, method: str) -> list[Finding]:
    read = {doc_id: _text(ws, doc_id) for doc_id in state.whole}
    for hit in state.hits:
        read.setdefault(hit.chunk.doc_id, "")
        read[hit.chunk.doc_id] += "\n" + hit.chunk.text
    return [
        *_relationships(state, ws, read, method),
        *_stale_manifests(state, ws, read, method),
        *_relational_context(state, ws, read, method),
    ]


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


def _relational_context(state: AgentState, ws: Workspace, read: dict[str, str], method: str) -> list[Finding]:
    """People and projects the found documents list, named in a read document that misses them."""
    profiles = ws.store.get_profiles([d for d in dict.fromkeys([*state.found, *read]) if d in ws.documents])
    people = {
        p.name: p.name
        for profile in profiles.values()
        for p in profile.participants
        if len(p.name.split()) >= 2 and "@" not in p.name
    }
    projects = {
        name: name
        for profile in profiles.values()
        for name in [*profile.projects, *(p.project for p in profile.relational.projects)]
        if len(name) >= _MIN_PROJECT_CHARS
    }
    made: list[Finding] = []
    for doc_id, text in read.items():
        profile = profiles.get(doc_id)
        if profile is None or not text.strip():
            continue
        kinds: tuple[tuple[FindingKind, dict[str, str]], ...] = (
            ("participant", people),
            ("project", projects),
        )
        for kind, names in kinds:
            role = "mentioned" if kind == "participant" else "project"
            for name in names:
                if listed(profile, name, role) or (kind == "participant" and _is_listed(profile, name)):
                    continue
                quote = _naming_sentence(text, name)
                if quote:
                    target = role if kind == "participant" else None
                    made.append(_finding(kind, doc_id, ws, state, method, target, name, quote))
    return made


def _is_listed(profile: DocumentProfile, name: str) -> bool:
    return any(p.name.casefold() == name.casefold() for p in profile.participants)


def _naming_sentence(text: str, name: str) -> str:
    """The first sentence of the text naming the name as whole words (verbatim), or ''."""
    pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)
    for sentence in split_sentences(text):
        if pattern.search(sentence) and sentence in text:
            return sentence
    return ""


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
