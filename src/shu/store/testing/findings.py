"""The findings store's conformance (`FindingStore`, read back through the knowledge reader)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from shu.store.base import Store
from shu.store.testing.records import chunks, document, finding, persona, unit, vectors
from shu.types import (
    DocumentProfile,
    Enrichment,
    Provenance,
    Relationship,
)


class FindingsConformance:
    """What the agent finds, written back with provenance and undoable: listed per persona,
    shown in relationships and profiles while active, gone from them once undone."""

    @pytest.fixture
    def profiled(self, store: Store) -> Store:
        for slug in ("alpha", "beta"):
            store.upsert_persona(persona(slug))
        provenance = Provenance(method="extractive")
        for doc_id, personas in (("p1", ["alpha", "beta"]), ("p2", ["alpha"])):
            enrichment = Enrichment(
                profile=DocumentProfile(
                    doc_id=doc_id,
                    synopsis=f"About {doc_id}.",
                    document_type="narrative",
                    provenance=provenance,
                ),
                relationships=[
                    Relationship(source=doc_id, target="x", type="references", origin="link", confidence=0.9),
                    Relationship(source=doc_id, target="y", type="related_to", origin="llm", confidence=0.5),
                ],
            )
            store.replace_document(
                document(doc_id, personas),
                chunks(doc_id, [f"text of {doc_id}"]),
                vectors(unit(1)),
                "test-embedder",
                enrichment,
            )
        return store

    def test_a_finding_is_stored_with_an_id_and_the_time_it_was_found(self, profiled: Store) -> None:
        stored = profiled.add_finding(finding())
        assert isinstance(stored.id, int) and not stored.undone
        created = datetime.fromisoformat(stored.created)
        assert created.utcoffset() == timedelta(0) and created.microsecond == 0
        assert abs(datetime.now(created.tzinfo) - created) < timedelta(minutes=5)
        assert profiled.list_findings() == [stored]
        given = profiled.add_finding(
            finding("stale_manifest", value="pricing", created="2026-01-02T03:04:05+00:00")
        )
        assert given.created == "2026-01-02T03:04:05+00:00" and given.id != stored.id
        assert profiled.list_findings("alpha")[1] == given, "kept as given, with its provenance"
        assert (given.evidence, given.question, given.method) == ("words of p1", "what links them?", "rules")

    def test_the_same_active_finding_is_stored_once(self, profiled: Store) -> None:
        first = profiled.add_finding(finding())
        generation = profiled.generation()
        again = profiled.add_finding(finding(evidence="other words"))
        assert again == first and len(profiled.list_findings()) == 1
        assert profiled.generation() == generation, "nothing written"
        assert profiled.add_finding(finding(value="supersedes")).id != first.id
        assert profiled.add_finding(finding(persona="beta")).id != first.id
        assert first.id is not None and profiled.undo_finding(first.id)
        renewed = profiled.add_finding(finding())
        assert renewed.id != first.id and not renewed.undone, "undone, it may be found again"
        assert len(profiled.list_findings()) == 3 and len(profiled.list_findings(include_undone=True)) == 4

    def test_findings_are_listed_per_persona_newest_first(self, profiled: Store) -> None:
        older = profiled.add_finding(finding("document_type", value="reference"))
        newer = profiled.add_finding(finding())
        beta = profiled.add_finding(finding("stale_manifest", persona="beta", value="prices"))
        backdated = profiled.add_finding(
            finding("document_type", doc_id="p2", value="technical", created="2020-01-01T00:00:00+00:00")
        )
        assert [f.id for f in profiled.list_findings("alpha")] == [newer.id, older.id, backdated.id]
        assert profiled.list_findings("beta") == [beta], "beta never sees alpha's findings"
        assert profiled.list_findings("gamma") == []
        assert [f.id for f in profiled.list_findings()] == [beta.id, newer.id, older.id, backdated.id]

    def test_a_finding_is_undone_once_and_kept_for_the_record(self, profiled: Store) -> None:
        stored = profiled.add_finding(finding())
        assert stored.id is not None
        assert profiled.undo_finding(stored.id) is True
        assert profiled.undo_finding(stored.id) is False, "already undone"
        assert profiled.undo_finding(stored.id + 1000) is False, "unknown"
        assert profiled.list_findings() == [] and profiled.list_findings("alpha") == []
        kept = profiled.list_findings("alpha", include_undone=True)
        assert [(f.id, f.undone) for f in kept] == [(stored.id, True)]

    def test_an_active_relationship_finding_is_a_relationship_of_the_agent(self, profiled: Store) -> None:
        stored = profiled.add_finding(finding(evidence="p1 explains what p2 decided"))
        found = profiled.list_relationships(["p1"])
        assert [(r.target, r.type, r.origin) for r in found] == [
            ("x", "references", "link"),
            ("p2", "explains", "agent"),
            ("y", "related_to", "llm"),
        ], "sorted with the others, most confident first"
        assert found[1].source == "p1" and found[1].confidence == pytest.approx(0.6)
        assert found[1].evidence == "p1 explains what p2 decided"
        assert [r.origin for r in profiled.list_relationships(["p2"])] == ["link", "llm"]
        assert stored.id is not None and profiled.undo_finding(stored.id)
        assert [r.origin for r in profiled.list_relationships(["p1"])] == ["link", "llm"]

    def test_profile_findings_correct_the_profile_until_undone(self, profiled: Store) -> None:
        before = profiled.get_profile("p1")
        assert before is not None and before.document_type == "narrative" and not before.manifest.stale
        typed = profiled.add_finding(finding("document_type", value="reference"))
        profiled.add_finding(finding("document_type", value="memo"))  # not a document type: ignored
        profile = profiled.get_profile("p1")
        assert profile is not None and profile.document_type == "reference" and not profile.manifest.stale
        newest = profiled.add_finding(finding("document_type", value="technical", persona="beta"))
        stale = profiled.add_finding(finding("stale_manifest", value="the 2026 prices"))
        profile = profiled.get_profile("p1")
        assert profile is not None and profile.document_type == "technical" and profile.manifest.stale
        assert profile.synopsis == before.synopsis and profile.provenance == before.provenance
        many = profiled.get_profiles(["p2", "nobody", "p1", "p1"])
        assert set(many) == {"p1", "p2"}, "the profiled ones, nobody left out"
        assert many["p1"] == profile and many["p2"] == profiled.get_profile("p2"), "findings applied to each"
        assert profiled.get_profiles([]) == {}
        assert profiled.get_profile("p2") == profiled.export_document("p2").enrichment.profile  # type: ignore[union-attr]
        for done in (newest, stale):
            assert done.id is not None and profiled.undo_finding(done.id)
        profile = profiled.get_profile("p1")
        assert profile is not None and profile.document_type == "reference" and not profile.manifest.stale
        assert typed.id is not None and profiled.undo_finding(typed.id)
        assert profiled.get_profile("p1") == before
        assert profiled.get_profile("nobody") is None

    def test_people_and_projects_found_join_the_profile_and_the_relational_index_until_undone(
        self, profiled: Store
    ) -> None:
        before = profiled.get_profile("p1")
        assert before is not None and before.participants == [] and before.projects == []
        assert profiled.document_index("alpha").search_names(["carla mendes"], 5)[0] == []
        person = profiled.add_finding(
            finding(
                "participant", target="decision_maker", value="Carla Mendes", evidence="Carla Mendes approved"
            )
        )
        profiled.add_finding(finding("participant", target="chair", value="Dan Roe"))  # not a role: ignored
        project = profiled.add_finding(finding("project", value="Harbour Bridge"))
        profile = profiled.get_profile("p1")
        assert profile is not None
        assert [(p.name, p.role) for p in profile.participants] == [("Carla Mendes", "decision_maker")]
        assert profile.projects == ["Harbour Bridge"]
        assert profiled.get_profiles(["p1"])["p1"] == profile
        named, _ = profiled.document_index("alpha").search_names(["carla mendes"], 5)
        assert [h.doc_id for h in named] == ["p1"]
        elsewhere = profiled.add_finding(
            finding("participant", persona="beta", target="subject", value="Dan Roe")
        )
        assert profiled.document_index("alpha").search_names(["dan roe"], 5)[0] == [], "found in beta: beta's"
        assert elsewhere.id is not None and profiled.undo_finding(elsewhere.id)
        assert [
            h.doc_id for h in profiled.document_index("alpha").search_names(["harbour bridge"], 5)[0]
        ] == ["p1"]
        stored = profiled.export_document("p1")
        assert stored is not None and stored.enrichment.profile == before, "kept apart from the enrichment"
        for done in (person, project):
            assert done.id is not None and profiled.undo_finding(done.id)
        assert profiled.get_profile("p1") == before
        assert profiled.document_index("alpha").search_names(["carla mendes"], 5)[0] == []

    def test_an_export_leaves_the_findings_out(self, profiled: Store) -> None:
        """`shu migrate` copies findings apart: they never become part of the enrichment."""
        profiled.add_finding(finding())
        profiled.add_finding(finding("stale_manifest", value="prices"))
        stored = profiled.export_document("p1")
        assert stored is not None and stored.enrichment.profile is not None
        assert not stored.enrichment.profile.manifest.stale
        assert [r.origin for r in stored.enrichment.relationships] == ["link", "llm"]

    def test_the_generation_moves_when_a_finding_is_added_or_undone(self, profiled: Store) -> None:
        seen = [profiled.generation()]
        stored = profiled.add_finding(finding())
        seen.append(profiled.generation())
        profiled.list_findings()
        profiled.list_relationships(["p1"])
        profiled.get_profile("p1")
        assert profiled.generation() == seen[-1], "reads leave it alone"
        assert stored.id is not None and profiled.undo_finding(stored.id)
        seen.append(profiled.generation())
        assert not profiled.undo_finding(stored.id)
        assert profiled.generation() == seen[-1]
        assert len(set(seen)) == 3, seen

    def test_deleting_a_document_deletes_its_findings_replacing_keeps_them(self, profiled: Store) -> None:
        profiled.add_finding(finding())
        profiled.add_finding(finding("stale_manifest", value="prices"))
        other = profiled.add_finding(finding("document_type", doc_id="p2", value="reference"))
        profiled.replace_document(
            document("p1", ["alpha", "beta"]), chunks("p1", ["new text"]), vectors(unit(1)), "test-embedder"
        )
        assert len(profiled.list_findings()) == 3, "a re-ingested document keeps them"
        assert [r.origin for r in profiled.list_relationships(["p1"])] == ["agent"]
        assert profiled.get_profile("p1") is None, "no profile to correct"
        assert profiled.delete_document("p1")
        assert profiled.list_findings(include_undone=True) == [other]
        assert profiled.list_relationships(["p1"]) == []
