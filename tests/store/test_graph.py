"""The graph of a persona's knowledge over a real store: documents, people with their roles,
projects and entities two documents name, typed links between documents (another persona's never
drawn), one document's neighbourhood, and the limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from shu.store.graph import persona_graph
from shu.store.sqlite import SQLiteStore
from shu.store.testing import chunks, document, persona, unit, vectors
from shu.types import DocumentProfile, Enrichment, Entity, Participant, Provenance, Relationship

PROVENANCE = Provenance(method="extractive")


def _put(
    store: SQLiteStore,
    doc_id: str,
    personas: list[str],
    links: dict[str, str] | None = None,
    **fields: object,
) -> None:
    profile = DocumentProfile(
        doc_id=doc_id,
        synopsis="s",
        document_type="reference",
        entities=[
            Entity(name="Riverton Pantry", kind="organization"),
            Entity(name=f"Only {doc_id}", kind="place"),
        ],
        participants=[Participant(name="Ana Lima", role="recipient")],
        projects=["Harvest dashboard"] if doc_id == "a" else [],
        provenance=PROVENANCE,
    )
    relationships = [
        Relationship(source=doc_id, target=target, type=kind, origin="frontmatter", confidence=0.9)
        for target, kind in (links or {}).items()
    ]
    store.replace_document(
        document(doc_id, personas, **fields),
        chunks(doc_id, [f"text of {doc_id}"]),
        vectors(unit(1)),
        "e",
        Enrichment(profile=profile, relationships=relationships),
    )


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    opened = SQLiteStore(tmp_path / "shu.db")
    for slug in ("alpha", "beta"):
        opened.upsert_persona(persona(slug))
    _put(
        opened,
        "a",
        ["alpha"],
        {"b": "references", "secret": "references"},
        meta={"from": "Ana Lima <ana@x.example>", "to": ["Ben <ben@x.example>"]},
    )
    _put(opened, "b", ["alpha"], {"a": "replies_to"}, type="email", date="2026-02-01")
    _put(opened, "c", ["alpha"])
    _put(opened, "secret", ["beta"], {"a": "references"})
    return opened


def test_documents_people_projects_entities_and_links(store: SQLiteStore) -> None:
    graph = persona_graph(store, "alpha")
    kinds = {n.id: n.kind for n in graph.nodes}
    assert {k for k, v in kinds.items() if v == "document"} == {"document:a", "document:b", "document:c"}
    # Ana is one person (her address from a's sender line names her in every document)
    assert kinds["person:ana@x.example"] == "person" and "person:ana lima" not in kinds
    assert kinds["person:ben@x.example"] == "person" and kinds["project:harvest dashboard"] == "project"
    assert kinds["entity:riverton pantry"] == "entity"  # named by three documents
    assert not any(k.startswith("entity:only ") for k in kinds), "one document's entity links nothing"
    edges = {(e.source, e.target, e.kind) for e in graph.edges}
    assert ("document:a", "document:b", "references") in edges and (
        "document:b",
        "document:a",
        "replies_to",
    ) in edges
    assert ("document:a", "person:ana@x.example", "author") in edges
    assert ("document:b", "person:ana@x.example", "recipient") in edges
    assert not any("secret" in e.source or "secret" in e.target for e in graph.edges), (
        "another persona's document"
    )
    ana = next(n for n in graph.nodes if n.id == "person:ana@x.example")
    assert (ana.label, ana.documents) == ("Ana Lima", 3) and graph.documents == 3 and not graph.truncated


def test_one_documents_neighbourhood(store: SQLiteStore) -> None:
    graph = persona_graph(store, "alpha", around="b")
    assert {n.id for n in graph.nodes if n.kind == "document"} == {"document:a", "document:b"}
    assert all("document:b" in (e.source, e.target) for e in graph.edges)
    assert graph.around == "b"
    with pytest.raises(KeyError):
        persona_graph(store, "alpha", around="secret")
    with pytest.raises(KeyError):
        persona_graph(store, "alpha", kept=frozenset({"a"}), around="b")


def test_a_filter_and_the_limits(store: SQLiteStore) -> None:
    graph = persona_graph(store, "alpha", kept=frozenset({"a", "c"}))
    assert {n.doc_id for n in graph.nodes if n.kind == "document"} == {"a", "c"}
    assert not any(e.kind == "references" for e in graph.edges), "b is not kept: no link to it"
    small = persona_graph(store, "alpha", max_documents=1, max_names=1)
    assert small.truncated and [n.doc_id for n in small.nodes if n.kind == "document"] == ["a"]
    assert len([n for n in small.nodes if n.kind != "document"]) == 1
