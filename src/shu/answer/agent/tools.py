"""The agent's tools: each surface of the store as a small class whose docstring is the tool's
description (what the model reads) and whose `run` returns documents found (by id, from the
store's metadata, never parsed from text), evidence chunks, and the text the model may read —
quoted, as data. Every tool reaches only the asker's persona (`Workspace`).

Cheap tools (questions, manifests, synopses, the relational index, a manifest, chunk summaries)
read profiles; `query_chunks` searches text; `load_full_document` is the expensive one. Two tools
write back what the model found, each resting on a verbatim quote: a document's type, and its
people and projects."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Protocol

import numpy as np

from shu.answer.agent.decompose import sub_questions
from shu.answer.quote import quoted
from shu.models.embed.base import Embedder
from shu.retrieve.asker import Asker
from shu.retrieve.pipeline import RetrievalPipeline
from shu.store.base import KnowledgeReader, Within
from shu.text import content_words, stem, words
from shu.types import (
    DOCUMENT_TYPES,
    PARTICIPANT_ROLES,
    RELATIONSHIP_TYPES,
    ChunkProfile,
    Document,
    DocumentFilter,
    DocumentProfile,
    Finding,
    FindingKind,
    Persona,
    SearchHit,
)

_FOUND = 5
_CHUNKS = 4
_READ_CHARS = 600
_LOAD_CHARS = 3000


class PersonaDocuments:
    """The persona's documents by id, read from the store as they are asked for (a knowledge base
    of a million chunks is never listed whole); a document of another persona, or one the
    question's filter leaves out (`within`), is not in it."""

    def __init__(self, store: KnowledgeReader, persona: str, within: Within = None) -> None:
        self.store = store
        self.persona = persona
        self.within = within
        self._read: dict[str, Document | None] = {}

    def get(self, doc_id: str) -> Document | None:
        if doc_id not in self._read:
            doc = self.store.get_documents([doc_id]).get(doc_id)
            kept = doc is not None and self.persona in doc.personas
            kept = kept and (self.within is None or doc_id in self.within)
            self._read[doc_id] = doc if kept else None
        return self._read[doc_id]

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and self.get(doc_id) is not None

    def __getitem__(self, doc_id: str) -> Document:
        doc = self.get(doc_id)
        if doc is None:
            raise KeyError(doc_id)
        return doc


@dataclass
class Workspace:
    """What the tools reach: one persona's documents in one store; searches rank for the asker
    (their personal boosts) when there is one."""

    store: KnowledgeReader
    embedder: Embedder
    pipeline: RetrievalPipeline
    persona: Persona
    asker: Asker | None = None
    where: DocumentFilter | None = None
    """the question's filter: every tool keeps to the documents it keeps"""

    @cached_property
    def within(self) -> Within:
        return self.store.document_index(self.persona.slug).kept(self.where)

    @cached_property
    def documents(self) -> PersonaDocuments:
        return PersonaDocuments(self.store, self.persona.slug, self.within)


@dataclass(frozen=True)
class Found:
    """A document a tool surfaced: its id comes from the store, not from any document's text."""

    doc_id: str
    title: str
    score: float
    surface: str


@dataclass(frozen=True)
class Call:
    """A tool's arguments: what the model (or the rules) asked for."""

    query: str = ""
    doc_ids: list[str] = field(default_factory=list)
    reason: str = ""
    kind: str = ""
    """a relation type (query_relational_index), a domain (query_capability_manifests), a role
    (record_relational_context)"""


@dataclass
class ToolResult:
    summary: str
    found: list[Found] = field(default_factory=list)
    hits: list[SearchHit] = field(default_factory=list)
    whole: list[str] = field(default_factory=list)
    text: str = ""
    """What the model reads: document text quoted, as data."""
    sub_questions: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    """doc id → the best score this tool gave it (what the rules agent compares)."""
    findings: list[Finding] = field(default_factory=list)
    """What the call established about the knowledge base, to be written back."""


class Tool(Protocol):
    name: ClassVar[str]
    needs: ClassVar[str]
    """`query`, `doc_id`, `query+doc_ids` (the ids optional), `doc_id+query` or `doc_id+query?`
    (the query optional)."""

    def run(self, ws: Workspace, call: Call) -> ToolResult: ...


def description(tool: Tool) -> str:
    """The tool's description for a model: its docstring, on one line."""
    return " ".join((tool.__doc__ or "").split())


class QuerySynthesizedQuestions:
    """query_synthesized_questions(query): documents whose pre-written questions (what each
    document answers, written at ingestion) match the query, with the matching question. Cheap."""

    name: ClassVar[str] = "query_synthesized_questions"
    needs: ClassVar[str] = "query"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        vector = ws.embedder.embed_query(call.query)
        best: dict[str, tuple[float, str]] = {}
        for match in ws.store.search_questions(vector, ws.persona.slug, _FOUND * 3, ws.within):
            best.setdefault(match.doc_id, (match.score, match.text))
        listed = list(best.items())[:_FOUND]
        found = _found(ws, [(d, s) for d, (s, _) in listed], "questions")
        lines = [f"- {f.doc_id} ({f.title}): {quoted(best[f.doc_id][1])} [{f.score:.2f}]" for f in found]
        return ToolResult(
            _summary(found, "question"), found=found, text="\n".join(lines), scores=_scores(found)
        )


class QueryCapabilityManifests:
    """query_capability_manifests(query, kind=domain?): documents whose capability manifest (the
    kinds of questions and information a document provides) matches the topic in query; a domain
    in kind (who, what, when, where, why, how, or an information type such as decisions, prices,
    procedures) keeps only the documents whose manifest declares it. Cheap: prefer it to loading
    documents."""

    name: ClassVar[str] = "query_capability_manifests"
    needs: ClassVar[str] = "query"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        domain = call.kind.strip()
        if not domain:
            return _profile_search(ws, call.query, "manifest")
        vector = ws.embedder.embed_query(call.query)
        listed = ws.store.search_profiles(vector, ws.persona.slug, "manifest", _FOUND * 4, ws.within)
        profiles = ws.store.get_profiles([d.doc_id for d in listed])
        declared = [d for d in listed if d.doc_id in profiles and declares(profiles[d.doc_id], domain)]
        found = _found(ws, [(d.doc_id, d.score) for d in declared], "manifest")[:_FOUND]
        if not found:
            offered = sorted({x for p in profiles.values() for x in _domains_of(p)})[:12]
            return ToolResult(
                f"no document by manifest declares {domain!r}",
                text=f"the topic's documents declare: {quoted('; '.join(offered))}",
            )
        lines = [
            f"- {f.doc_id} ({f.title}) [{f.score:.2f}]: {quoted('; '.join(_domains_of(profiles[f.doc_id])))}"
            for f in found
        ]
        return ToolResult(
            _summary(found, f"manifest declaring {domain}"),
            found=found,
            text="\n".join(lines),
            scores=_scores(found),
        )


class QuerySynopses:
    """query_synopses(query): documents whose synopsis (a short summary written at ingestion)
    matches the query, with the synopsis. Cheap."""

    name: ClassVar[str] = "query_synopses"
    needs: ClassVar[str] = "query"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        return _profile_search(ws, call.query, "synopsis")


class QueryRelationalIndex:
    """query_relational_index(query=name, kind=relation?): documents that name a person,
    organisation or project (authors, participants, entities), and the documents those link to.
    kind narrows it: a role the name plays (author, recipient, subject, mentioned,
    decision_maker), project (documents of that project), an entity kind (person, organization,
    place) — then no link is followed — or a link type (supersedes, replies_to, references,
    decision_for, derived_from, explains, part_of, attached_to, related_to: only links of that
    type are followed)."""

    name: ClassVar[str] = "query_relational_index"
    needs: ClassVar[str] = "query"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        relation = call.kind.strip().lower().replace(" ", "_").replace("-", "_")
        if relation and relation not in RELATIONS:
            return ToolResult(
                f"not a relation type: {relation!r}", text=f"relation types: {', '.join(RELATIONS)}"
            )
        index = ws.store.document_index(ws.persona.slug)
        names = names_like(index.known_names(), call.query)
        named, _ = index.search_names(names, _FOUND * 4, ws.within)
        ids = [h.doc_id for h in named]
        if relation and relation not in RELATIONSHIP_TYPES:
            profiles = ws.store.get_profiles(ids)
            named = [h for h in named if h.doc_id in profiles and plays(profiles[h.doc_id], names, relation)]
        named = named[:_FOUND]
        found = _found(ws, [(h.doc_id, h.score) for h in named], "relational")
        follows = not relation or relation in RELATIONSHIP_TYPES  # a role asks for the name's documents
        links = [
            r
            for r in (ws.store.list_relationships([f.doc_id for f in found]) if follows else [])
            if r.target in ws.documents and (not relation or r.type == relation)
        ]
        if relation in RELATIONSHIP_TYPES:  # the documents linking to them by that type too
            sources = [s for f in found for s in ws.store.linking_to(f.doc_id)]
            known = {f.doc_id for f in found}
            links += [
                r
                for r in ws.store.list_relationships(list(dict.fromkeys(sources)))
                if r.type == relation and r.target in known and r.source in ws.documents
            ]
        ends = [(r.target, r.confidence) for r in links] + [(r.source, r.confidence) for r in links]
        linked = _found(ws, ends, "relationship")
        known = {f.doc_id for f in found}
        found += [f for f in linked if f.doc_id not in known][:_FOUND]
        said = f" as {relation}" if relation else ""
        lines = [f"- {f.doc_id} ({f.title}) via {f.surface}" for f in found]
        lines += [f"  {r.source} {r.type} {r.target}" for r in links][:_FOUND]
        return ToolResult(
            _summary(found, f"name{said}"), found=found, text="\n".join(lines), scores=_scores(found)
        )


class QueryChunks:
    """query_chunks(query, doc_ids?): the passages that best match the query, from every document
    or only from the given documents. Returns evidence for the answer."""

    name: ClassVar[str] = "query_chunks"
    needs: ClassVar[str] = "query+doc_ids"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        query = call.query
        hits = ws.pipeline.run(
            query,
            ws.persona,
            limit=40 if call.doc_ids else _CHUNKS,
            assemble_context=False,
            asker=ws.asker,
            where=ws.where,
        ).hits
        doc_ids = [d for d in call.doc_ids if d in ws.documents]
        if doc_ids:
            hits = [h for h in hits if h.chunk.doc_id in doc_ids] or _within(ws, query, doc_ids)
        hits = hits[:_CHUNKS]
        best: dict[str, float] = {}
        for hit in hits:
            best.setdefault(hit.chunk.doc_id, hit.dense_score if hit.dense_score is not None else hit.score)
        found = _found(ws, list(best.items()), "chunks")
        lines = [
            f"- {h.chunk.doc_id} § {h.chunk.section_path}: {quoted(h.chunk.text[:_READ_CHARS])}" for h in hits
        ]
        return ToolResult(
            f"{len(hits)} passage(s) from {len(found)} document(s)",
            found=found,
            hits=hits,
            text="\n".join(lines),
            scores=best,
        )


class InspectManifest:
    """inspect_manifest(doc_id): one document's type, synopsis, time span and capability manifest
    (what it answers, how authoritative and complete it is). Cheap: read it before loading a whole
    document."""

    name: ClassVar[str] = "inspect_manifest"
    needs: ClassVar[str] = "doc_id"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        doc = ws.documents[call.doc_ids[0]]
        profile = ws.store.get_profile(doc.id)
        if profile is None:
            return ToolResult(f"{doc.id}: no profile", text=f"{doc.id} ({doc.title}): no profile")
        manifest = profile.manifest
        stale = (
            " (flagged stale: the document lacked what it promised)"
            if getattr(manifest, "stale", False)
            else ""
        )
        text = (
            f"{doc.id} ({doc.title}), type {profile.document_type}{stale}\n"
            f"synopsis: {quoted(profile.synopsis)}\n"
            f"answers questions about: {quoted('; '.join(manifest.answers_questions_about))}\n"
            f"provides: {quoted('; '.join(manifest.provides_information_type))}\n"
            f"authority {manifest.authority_level}, {manifest.completeness}"
        )
        return ToolResult(f"{doc.id}: {profile.document_type}, {manifest.completeness}{stale}", text=text)


class GetDocumentContext:
    """get_document_context(doc_id): one document's title, date, synopsis, sections, its people
    and their roles, the projects and roles it matters to, and the documents it links to (typed
    relationships). Cheap."""

    name: ClassVar[str] = "get_document_context"
    needs: ClassVar[str] = "doc_id"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        doc = ws.documents[call.doc_ids[0]]
        sections = list(dict.fromkeys(c.section_path for c in ws.store.list_chunks(doc.id)))
        links = [r for r in ws.store.list_relationships([doc.id]) if r.target in ws.documents]
        found = _found(ws, [(r.target, r.confidence) for r in links], "relationship")
        lines = [f"{doc.id} ({doc.title}), dated {doc.date or 'undated'}"]
        profile = ws.store.get_profile(doc.id)
        if profile is not None:
            lines += _relational_lines(profile)
        lines.append(f"sections: {quoted('; '.join(sections[:20]))}")
        lines += [f"{r.type} → {r.target}" for r in links[:_FOUND]]
        return ToolResult(
            f"{doc.id}: {len(sections)} section(s), {len(links)} link(s)", found=found, text="\n".join(lines)
        )


class ScanChunkSummaries:
    """scan_chunk_summaries(doc_id, query?): one document's passages as their one-line summaries
    and keywords (no text), the ones matching the query first; the best matches become evidence.
    Cheap: go from a document to its passages without loading it."""

    name: ClassVar[str] = "scan_chunk_summaries"
    needs: ClassVar[str] = "doc_id+query?"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        doc = ws.documents[call.doc_ids[0]]
        chunks = ws.store.list_chunks(doc.id)
        profiles = ws.store.get_chunk_profiles([c.id for c in chunks])
        asked = {stem(w) for w in content_words(call.query)}
        scored = []
        for order, chunk in enumerate(chunks):
            profile = profiles.get(chunk.id)
            said = _scanned(chunk.section_path, profile)
            held = {stem(w) for w in content_words(said)}
            share = len(asked & held) / len(asked) if asked else 0.0
            scored.append((share, order, chunk, said))
        ranked = sorted(scored, key=lambda item: (-item[0], item[1]))
        matched = [item for item in ranked if item[0] > 0][:_CHUNKS]
        hits = [
            SearchHit(
                chunk=chunk,
                doc_title=doc.title,
                doc_source_url=doc.source_url,
                doc_date=doc.date,
                score=round(share, 4),
            )
            for share, _, chunk, _ in matched
        ]
        shown = ranked if asked else scored
        lines = [f"{doc.id} ({doc.title}): {len(chunks)} passage(s)"]
        lines += [f"- {chunk.id} [{share:.2f}]: {quoted(said)}" for share, _, chunk, said in shown[:_SCANNED]]
        return ToolResult(
            f"{doc.id}: {len(chunks)} passage summary(ies), {len(hits)} matching",
            hits=hits,
            text="\n".join(lines),
            scores={doc.id: matched[0][0]} if matched else {},
        )


class LoadFullDocument:
    """load_full_document(doc_id): the whole document goes into the answer's context. Expensive:
    use it when a document's profile matches but its passages do not."""

    name: ClassVar[str] = "load_full_document"
    needs: ClassVar[str] = "doc_id"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        doc = ws.documents[call.doc_ids[0]]
        chunks = ws.store.list_chunks(doc.id)
        text = "\n".join(c.text for c in chunks)
        return ToolResult(
            f"{doc.id}: {len(chunks)} chunk(s) loaded",
            whole=[doc.id],
            text=f"{doc.id} ({doc.title}):\n{quoted(text[:_LOAD_CHARS])}",
        )


class Decompose:
    """decompose(query): the question split into its parts (comparisons, several questions,
    clauses), each to be searched on its own."""

    name: ClassVar[str] = "decompose"
    needs: ClassVar[str] = "query"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        parts = sub_questions(call.query)
        return ToolResult(
            f"{len(parts)} part(s)", text="\n".join(f"- {p}" for p in parts), sub_questions=parts
        )


class CorrectDocumentType:
    """correct_document_type(doc_id, query=type, reason=quote): record that a document you loaded
    or inspected is of another type (narrative, transactional, technical, conversational,
    reference, other) than its profile says; reason must quote the document's own words that show
    it."""

    name: ClassVar[str] = "correct_document_type"
    needs: ClassVar[str] = "doc_id+query"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        doc_id, kind = call.doc_ids[0], call.query.strip().lower()
        profile = ws.store.get_profile(doc_id)
        text = "\n".join(c.text for c in ws.store.list_chunks(doc_id))
        if kind not in DOCUMENT_TYPES:
            return ToolResult(f"not a document type: {kind!r}", text=f"types: {', '.join(DOCUMENT_TYPES)}")
        if profile is not None and profile.document_type == kind:
            return ToolResult(f"{doc_id} is already {kind}")
        quote = _verbatim(call.reason, text)
        if quote is None:
            return ToolResult(_NOT_QUOTED)
        finding = Finding(
            kind="document_type", doc_id=doc_id, persona=ws.persona.slug, value=kind, evidence=quote
        )
        return ToolResult(f"{doc_id}: type {kind} recorded", findings=[finding])


class RecordRelationalContext:
    """record_relational_context(doc_id, query=name, kind=role, reason=quote): record that a
    document you loaded or inspected involves a person (kind: author, recipient, subject,
    mentioned, decision_maker) or belongs to a project (kind: project) its profile does not
    list; reason must quote the document's own words that name them."""

    name: ClassVar[str] = "record_relational_context"
    needs: ClassVar[str] = "doc_id+query"

    def run(self, ws: Workspace, call: Call) -> ToolResult:
        doc_id, name, role = call.doc_ids[0], " ".join(call.query.split()), call.kind.strip().lower()
        if role not in (*PARTICIPANT_ROLES, "project"):
            return ToolResult(
                f"not a role: {role!r}", text=f"roles: {', '.join([*PARTICIPANT_ROLES, 'project'])}"
            )
        text = "\n".join(c.text for c in ws.store.list_chunks(doc_id))
        quote = _verbatim(call.reason, text)
        if quote is None:
            return ToolResult(_NOT_QUOTED)
        if not _NAME.match(name) or len(name.split()) > _NAME_WORDS:
            return ToolResult(f"not recorded: {name[:80]!r} is not a name (a person or a project, 1–6 words)")
        if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", quote, re.IGNORECASE):
            return ToolResult(f"not recorded: the quote does not name {name!r}")
        profile = ws.store.get_profile(doc_id)
        if profile is not None and listed(profile, name, role):
            return ToolResult(f"{doc_id} already lists {name} ({role})")
        kind: FindingKind = "project" if role == "project" else "participant"
        finding = Finding(
            kind=kind,
            doc_id=doc_id,
            persona=ws.persona.slug,
            target=None if role == "project" else role,
            value=name,
            evidence=quote,
        )
        return ToolResult(f"{doc_id}: {name} ({role}) recorded", findings=[finding])


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        QuerySynthesizedQuestions(),
        QueryCapabilityManifests(),
        QuerySynopses(),
        QueryRelationalIndex(),
        QueryChunks(),
        InspectManifest(),
        GetDocumentContext(),
        LoadFullDocument(),
        ScanChunkSummaries(),
        Decompose(),
        CorrectDocumentType(),
        RecordRelationalContext(),
    )
}


RELATIONS: tuple[str, ...] = (
    *PARTICIPANT_ROLES,
    "project",
    "person",
    "organization",
    "place",
    *RELATIONSHIP_TYPES,
)
"""What `query_relational_index` takes as kind."""

_WH_DOMAINS = {
    "who": ("people", "participants", "responsible", "correspondence", "author"),
    "when": ("dates", "timelines", "deadline", "schedule"),
    "where": ("place", "location", "address"),
    "how": ("procedures", "step", "instructions", "guide"),
    "how much": ("prices", "amounts", "limits", "cost", "budget"),
    "why": ("reasons", "decisions", "rationale", "cause"),
    "what": ("facts", "descriptive", "decisions", "definitions"),
}
_NOT_QUOTED = "not recorded: the reason must quote the document verbatim (20 characters or more)"
_NAME = re.compile(r"^[^\W\d_][\w .'’&-]{0,79}$")
_NAME_WORDS = 6
_SCANNED = 24


def names_like(known: list[str], name: str) -> list[str]:
    """The index's names a name asks for: itself when the index holds it, else the names holding
    all its words ("Acme" → "acme corp")."""
    wanted = name.strip().casefold()
    if not wanted:
        return []
    if wanted in known:
        return [wanted]
    asked = set(words(wanted))
    return [n for n in known if asked and asked <= set(words(n))][:_FOUND] or [wanted]


def plays(profile: DocumentProfile, names: list[str], relation: str) -> bool:
    """Whether one of these names plays this part in the document: a participant's role, a
    project it belongs to, an entity of this kind."""
    named = set(names)
    if relation in PARTICIPANT_ROLES:
        return any(p.role == relation and _said(p.name, p.email, named) for p in profile.participants)
    if relation == "project":
        projects = [*profile.projects, *(p.project for p in profile.relational.projects)]
        return any(p.casefold() in named for p in projects)
    if relation == "person" and any(_said(p.name, p.email, named) for p in profile.participants):
        return True
    return any(e.kind == relation and e.name.casefold() in named for e in profile.entities)


def listed(profile: DocumentProfile, name: str, role: str) -> bool:
    """Whether the profile already says this name plays this role (or belongs to this project)."""
    return plays(profile, [name.casefold()], role)


def declares(profile: DocumentProfile, domain: str) -> bool:
    """Whether a manifest declares a question domain or information type: its words in what the
    manifest declares, or for a wh-word (who, when, how much…) the kinds of information that
    answer it."""
    asked = domain.strip().casefold()
    declared = " ".join(_domains_of(profile)).casefold()
    held = {stem(w) for w in content_words(declared)}
    wanted = {stem(w) for w in content_words(asked)}
    if wanted and wanted <= held:
        return True
    cues = _WH_DOMAINS.get(asked, ())
    if asked == "who" and profile.participants:
        return True
    if asked == "when" and (profile.temporal_scope.start or profile.relational.temporal.deadlines):
        return True
    return any(stem(cue) in held for cue in cues)


def _domains_of(profile: DocumentProfile) -> list[str]:
    manifest = profile.manifest
    return [*manifest.question_domains, *manifest.provides_information_type]


def _said(name: str, email: str | None, named: set[str]) -> bool:
    return name.casefold() in named or (email is not None and email.casefold() in named)


def _scanned(section_path: str, profile: ChunkProfile | None) -> str:
    """What a scan shows of a passage: its section, its summary, its keywords and topics."""
    if profile is None:
        return section_path
    terms = "; ".join([*profile.keywords[:6], *profile.topics[:3]])
    return f"{section_path} — {profile.summary[:200]}" + (f" ({terms})" if terms else "")


def _verbatim(reason: str, text: str) -> str | None:
    """The reason as a quote of the text (20 characters or more, verbatim), or None."""
    quote = reason.strip().strip('"')
    return quote if len(quote) >= 20 and quote in text else None


def _relational_lines(profile: DocumentProfile) -> list[str]:
    """What a profile says of a document's place among people and projects, quoted as data."""
    lines = [f"synopsis: {quoted(profile.synopsis[:_READ_CHARS])}"] if profile.synopsis else []
    people = [f"{p.name} ({p.role})" for p in profile.participants[:8]]
    if people:
        lines.append(f"people: {quoted('; '.join(people))}")
    relational = profile.relational
    projects = [f"{p.project} ({p.kind})" for p in relational.projects] or profile.projects[:8]
    if projects:
        lines.append(f"projects: {quoted('; '.join(projects))}")
    roles = [f"{r.role} ({r.reason})" if r.reason else r.role for r in relational.roles]
    if roles:
        lines.append(f"matters to: {quoted('; '.join(roles))}")
    deadlines = relational.temporal.deadlines
    if deadlines:
        lines.append(f"deadlines: {', '.join(deadlines)}")
    return lines


def _profile_search(ws: Workspace, query: str, surface: str) -> ToolResult:
    vector = ws.embedder.embed_query(query)
    listed = ws.store.search_profiles(vector, ws.persona.slug, surface, _FOUND, ws.within)
    found = _found(ws, [(d.doc_id, d.score) for d in listed], surface)
    lines = []
    for f in found:
        profile = ws.store.get_profile(f.doc_id)
        said = ""
        if profile is not None:
            manifest = "; ".join(profile.manifest.answers_questions_about[:4])
            said = profile.synopsis if surface == "synopsis" else manifest
        lines.append(f"- {f.doc_id} ({f.title}) [{f.score:.2f}]: {quoted(said[:_READ_CHARS])}")
    return ToolResult(_summary(found, surface), found=found, text="\n".join(lines), scores=_scores(found))


def _within(ws: Workspace, query: str, doc_ids: list[str]) -> list[SearchHit]:
    """The given documents' chunks by cosine to the query (when search found none of them)."""
    chunks = [c for doc_id in doc_ids for c in ws.store.list_chunks(doc_id)][:200]
    if not chunks:
        return []
    vectors = ws.embedder.embed_documents([c.index_text for c in chunks])
    scores = vectors @ ws.embedder.embed_query(query)
    order = np.argsort(-scores)[:_CHUNKS]
    return [
        SearchHit(
            chunk=chunks[i],
            doc_title=ws.documents[chunks[i].doc_id].title,
            doc_source_url=ws.documents[chunks[i].doc_id].source_url,
            doc_date=ws.documents[chunks[i].doc_id].date,
            score=float(scores[i]),
            dense_score=float(scores[i]),
        )
        for i in order
    ]


def _found(ws: Workspace, scored: list[tuple[str, float]], surface: str) -> list[Found]:
    """Only the persona's documents, each once."""
    seen: set[str] = set()
    found = []
    for doc_id, score in scored:
        doc = ws.documents.get(doc_id)
        if doc is not None and doc_id not in seen:
            seen.add(doc_id)
            found.append(Found(doc_id, doc.title, round(float(score), 4), surface))
    return found


def _scores(found: list[Found]) -> dict[str, float]:
    return {f.doc_id: f.score for f in found}


def _summary(found: list[Found], what: str) -> str:
    if not found:
        return f"no document by {what}"
    return f"{len(found)} document(s) by {what}: " + ", ".join(f.doc_id for f in found[:3])
