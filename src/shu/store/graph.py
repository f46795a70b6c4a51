"""The graph of a persona's knowledge, read from what the store keeps: its documents, the typed
relationships between them (the agent's findings applied), and the people (authors, senders,
recipients, participants, with their roles), projects and entities (organisations and places
two or more documents name) its documents' metadata and profiles give. Only the persona's own
documents are nodes: a link to a document of another persona is not drawn. `around` gives one
document's one-hop neighbourhood: the documents it links or that link it, and its names."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from shu.store.base import KnowledgeReader
from shu.store.document_index import ENTITY_WEIGHT
from shu.store.facets import people_in
from shu.types import Document, DocumentProfile, Relationship
from shu.types.graph import GraphEdge, GraphNode, KnowledgeGraph, NodeKind

MAX_DOCUMENTS = 300
MAX_NAMES = 300
_ENTITY_KINDS = frozenset({"person", "organization", "place"})
"""named things a profile lists that become entity nodes (when two documents or more name them;
one a document's people also name is that person)"""
_META_ROLES = (
    ("author", "author"),
    ("from", "author"),
    ("publisher", "author"),
    ("to", "recipient"),
    ("cc", "recipient"),
)


@dataclass(frozen=True)
class _Named:
    node: str
    kind: NodeKind
    label: str
    role: str
    type: str | None = None


def persona_graph(
    store: KnowledgeReader,
    persona: str,
    kept: frozenset[str] | None = None,
    around: str | None = None,
    max_documents: int = MAX_DOCUMENTS,
    max_names: int = MAX_NAMES,
) -> KnowledgeGraph:
    """The persona's graph (of the documents `kept`, when a filter keeps some); `around`: one
    document's neighbourhood (a KeyError when the persona has no such document, or the filter
    leaves it out). At most `max_documents` documents and `max_names` other nodes, the
    best-connected first (`truncated` says so)."""
    if around is not None:
        documents, links, total = _neighbourhood(store, persona, kept, around)
    else:
        documents = {d.id: d for d in store.list_documents(persona) if kept is None or d.id in kept}
        total = len(documents)
        links = [
            r
            for r in store.list_relationships(sorted(documents))
            if r.source in documents and r.target in documents and r.source != r.target
        ]
    profiles = store.get_profiles(sorted(documents))
    people = {doc_id: _people_of(doc, profiles.get(doc_id)) for doc_id, doc in documents.items()}
    addresses = {
        name.casefold(): address
        for found in people.values()
        for name, address, _ in found
        if name and address
    }
    known = {
        name: ""
        for name, roles in store.document_index(persona).names.items()
        if max(roles.values()) > ENTITY_WEIGHT
    }
    known |= {n.casefold(): a for found in people.values() for n, a, _ in found if n}
    names = {
        doc_id: [_person(n, a or addresses.get(n.casefold(), ""), r) for n, a, r in people[doc_id]]
        + [_as_person(o, known) for o in _others_of(profiles.get(doc_id))]
        for doc_id in documents
    }
    if around is not None:  # the neighbourhood: the document's own names only
        names = {doc_id: found if doc_id == around else [] for doc_id, found in names.items()}
    holders: Counter[str] = Counter(
        n.node for found in names.values() for n in {x.node: x for x in found}.values()
    )
    for doc_id, found in names.items():  # an entity one document names is not a link between any
        names[doc_id] = [n for n in found if n.kind != "entity" or holders[n.node] > 1 or around is not None]
    degree = Counter({doc_id: len(found) for doc_id, found in names.items()})
    for r in links:
        degree[r.source] += 1
        degree[r.target] += 1
    truncated = False
    if len(documents) > max_documents:
        ranked = sorted(documents, key=lambda d: (-degree[d], -_day(documents[d]), d))
        keep = set(ranked[:max_documents]) | ({around} if around else set())
        documents = {doc_id: doc for doc_id, doc in documents.items() if doc_id in keep}
        links = [r for r in links if r.source in keep and r.target in keep]
        names = {doc_id: found for doc_id, found in names.items() if doc_id in keep}
        truncated = True
    counted: Counter[str] = Counter(
        n.node for found in names.values() for n in {x.node: x for x in found}.values()
    )
    if len(counted) > max_names:
        truncated = True
    shown_names = {node for node, _ in sorted(counted.items(), key=lambda p: (-p[1], p[0]))[:max_names]}
    nodes = [
        GraphNode(
            id=f"document:{doc.id}",
            kind="document",
            label=doc.title,
            doc_id=doc.id,
            type=doc.type,
            date=doc.date,
        )
        for doc in documents.values()
    ]
    firsts: dict[str, _Named] = {}
    strongest = {}
    for r in sorted(links, key=lambda r: r.confidence):  # one edge a link, its surest origin
        strongest[(r.source, r.target, r.type)] = r
    edges = [
        GraphEdge(
            source=f"document:{r.source}",
            target=f"document:{r.target}",
            kind=r.type,
            confidence=round(r.confidence, 3),
            origin=r.origin,
        )
        for r in strongest.values()
    ]
    for doc_id, found in names.items():
        seen: set[tuple[str, str]] = set()
        for named in found:
            if named.node not in shown_names or (named.node, named.role) in seen:
                continue
            seen.add((named.node, named.role))
            firsts.setdefault(named.node, named)
            edges.append(GraphEdge(source=f"document:{doc_id}", target=named.node, kind=named.role))
    nodes += [
        GraphNode(id=node, kind=named.kind, label=named.label, type=named.type, documents=counted[node])
        for node, named in sorted(firsts.items())
    ]
    return KnowledgeGraph(
        persona=persona, nodes=nodes, edges=edges, documents=total, around=around, truncated=truncated
    )


def _neighbourhood(
    store: KnowledgeReader, persona: str, kept: frozenset[str] | None, around: str
) -> tuple[dict[str, Document], list[Relationship], int]:
    """One document, those it links and those linking it (of the persona, kept by the filter),
    and the links between it and them: read by the document, never the whole persona."""

    def visible(doc: Document | None) -> bool:
        return doc is not None and persona in doc.personas and (kept is None or doc.id in kept)

    if not visible(store.get_documents([around]).get(around)):
        raise KeyError(around)
    outgoing = store.list_relationships([around])
    sources = [d for d in store.linking_to(around) if d != around]
    near = sorted({around, *(r.target for r in outgoing), *sources})
    documents = {d.id: d for d in store.get_documents(near).values() if visible(d)}
    incoming = [r for r in store.list_relationships(sources) if r.target == around]
    links = [
        r
        for r in [*outgoing, *incoming]
        if r.source in documents and r.target in documents and r.source != r.target
    ]
    total = len(kept) if kept is not None else len(store.document_index(persona).facets)
    return documents, links, total


def _day(doc: Document) -> int:
    digits = (doc.date or "").replace("-", "")[:8]
    return int(digits) if digits.isdigit() else 0


def _people_of(doc: Document, profile: DocumentProfile | None) -> list[tuple[str, str, str]]:
    """(name, address, role) of each person the document names (its metadata and profile)."""
    people: list[tuple[str, str, str]] = []
    for key, role in _META_ROLES:
        value = doc.meta.get(key)
        for item in value if isinstance(value, list) else [value] if value else []:
            people += [(name, address, role) for name, address in people_in(str(item))]
    participants = doc.meta.get("participants")
    for person in participants if isinstance(participants, list) else []:
        if isinstance(person, dict):
            name, address = str(person.get("name") or ""), str(person.get("email") or "")
            people.append((name, address, str(person.get("role") or "mentioned")))
    if profile is not None:
        people += [(p.name, p.email or "", p.role) for p in profile.participants]
    cleaned = [(n.strip(), a.strip().casefold() if "@" in a else "", r) for n, a, r in people]
    return [(n, a, r) for n, a, r in cleaned if n or a]


def _others_of(profile: DocumentProfile | None) -> list[_Named]:
    """The projects and entities (organisations, places) a document's profile names."""
    if profile is None:
        return []
    projects = [
        _Named(f"project:{p.strip().casefold()}", "project", p.strip(), "project")
        for p in profile.projects
        if p.strip()
    ]
    return projects + [
        _Named(f"entity:{e.name.strip().casefold()}", "entity", e.name.strip(), "mentions", e.kind)
        for e in profile.entities
        if e.kind in _ENTITY_KINDS and e.name.strip()
    ]


def _as_person(named: _Named, people: dict[str, str]) -> _Named:
    """An entity a document's people also name is that person, mentioned."""
    key = named.label.casefold()
    if named.kind != "entity" or key not in people:
        return named
    return _person(named.label, people[key], "mentioned")


def _person(name: str, address: str, role: str) -> _Named:
    """A person, known by their address when there is one, else by their name."""
    return _Named(f"person:{address or name.casefold()}", "person", name or address, role)
