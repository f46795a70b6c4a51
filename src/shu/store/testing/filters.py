"""Filters' conformance: which documents a `DocumentFilter` keeps (read from the persona's
document index), and every search taking those documents inside its own query — a filter that
keeps documents ranked below many others still fills the limit with them."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from shu.store.base import Store
from shu.store.testing.records import chunks, document, persona, unit, vectors
from shu.types import (
    DocumentFilter,
    DocumentProfile,
    Enrichment,
    Participant,
    Provenance,
    SynthesizedQuestion,
)

LOUD = [f"loud{i:02d}" for i in range(12)]
"""documents that beat the quiet ones on every surface"""
QUIET = ["quiet-mail", "quiet-event", "quiet-note"]
QUERY = unit(1, 0)


def _near(weight: float) -> np.ndarray:
    """A unit vector whose cosine with QUERY falls as `weight` falls."""
    return unit(weight, 1 - weight, 0.1)


class FilterConformance:
    """Filters by date, type, tag, person, source and id; searches restricted inside the store."""

    @pytest.fixture
    def crowded(self, store: Store) -> Store:
        for slug in ("alpha", "beta"):
            store.upsert_persona(persona(slug))
        provenance = Provenance(method="extractive")
        rows: list[tuple[str, dict[str, object], str, float]] = [
            (doc_id, {"type": "report", "date": "2025-06-01"}, "invoice invoice invoice overdue", 0.99)
            for doc_id in LOUD
        ]
        rows += [
            (
                "quiet-mail",
                {
                    "type": "email",
                    "date": "2026-02-10",
                    "tags": ["billing"],
                    "path": "/kb/alpha/RAG/emails/quiet-mail.md",
                    "meta": {"from": "Sofia Marquez <sofia@lumen.io>", "to": ["ops@lumen.io"]},
                },
                "an invoice question from a customer",
                0.5,
            ),
            (
                "quiet-event",
                {
                    "type": "event",
                    "date": "2026-03-01",
                    "path": "/kb/alpha/RAG/calendar/quiet-event.md",
                    "meta": {"start": "2026-03-01T09:00", "end": "2026-03-03T17:00"},
                },
                "invoice review meeting",
                0.45,
            ),
            (
                "quiet-note",
                {
                    "type": "note",
                    "tags": ["Billing", "draft"],
                    "path": "/kb/alpha/RAG/notes/quiet-note.md",
                    "meta": {"source_file": "RAW-DOCS/scans/note.pdf"},
                },
                "a note on one invoice",
                0.4,
            ),
        ]
        for doc_id, fields, text, weight in rows:
            participants = (
                [Participant(name="Ana Lima", role="recipient", email="ana@lumen.io")]
                if doc_id == "quiet-note"
                else []
            )
            enrichment = Enrichment(
                profile=DocumentProfile(
                    doc_id=doc_id,
                    synopsis=text,
                    document_type="reference",
                    participants=participants,
                    provenance=provenance,
                ),
                questions=[
                    SynthesizedQuestion(id=f"{doc_id}?0", doc_id=doc_id, text=text, provenance=provenance)
                ],
            )
            store.replace_document(
                document(doc_id, ["alpha"], **fields),
                chunks(doc_id, [text]),
                vectors(_near(weight)),
                "test-embedder",
                enrichment,
                vectors(_near(weight)),
                {"synopsis": _near(weight), "manifest": _near(weight)},
            )
        store.replace_document(  # dated by its month only, its sender's name accented
            document(
                "month-memo", ["alpha"], type="memo", date="2026-04", meta={"from": "Sofía Ng <ng@lumen.io>"}
            ),
            chunks("month-memo", ["a memo of April"]),
            vectors(_near(0.1)),
            "test-embedder",
        )
        store.replace_document(
            document("beta-mail", ["beta"], type="email", date="2026-02-11"),
            chunks("beta-mail", ["an invoice of beta"]),
            vectors(_near(0.5)),
            "test-embedder",
        )
        return store

    def kept(self, store: Store, **fields: object) -> set[str]:
        found = store.document_index("alpha").kept(DocumentFilter.model_validate(fields))
        assert found is not None
        return set(found)

    def test_an_empty_filter_restricts_nothing(self, crowded: Store) -> None:
        assert crowded.document_index("alpha").kept(DocumentFilter()) is None
        assert crowded.document_index("alpha").kept(None) is None

    def test_dates_hold_against_the_documents_own_dates(self, crowded: Store) -> None:
        assert self.kept(crowded, since="2026-01-01") == {"quiet-mail", "quiet-event", "month-memo"}
        assert self.kept(crowded, until="2026-02-10") == set(LOUD) | {"quiet-mail"}
        # a date of a month covers its days: April is within a range of one day of it
        assert self.kept(crowded, since="2026-04-30", until="2026-04-30") == {"month-memo"}
        assert self.kept(crowded, until="2026-04-01", since="2026-03-04") == {"month-memo"}
        # an event from March 1 to March 3 is within a range that holds only its last day
        assert self.kept(crowded, since="2026-03-03", until="2026-03-31") == {"quiet-event"}
        assert self.kept(crowded, since="2026-03-04") == {"month-memo"}
        # a document with no date is outside every date range
        assert "quiet-note" not in self.kept(crowded, since="1900-01-01")

    def test_type_tag_person_source_and_ids(self, crowded: Store) -> None:
        assert self.kept(crowded, types=["Email", "event"]) == {"quiet-mail", "quiet-event"}
        assert self.kept(crowded, tags=["billing"]) == {"quiet-mail", "quiet-note"}
        assert self.kept(crowded, people=["Marquez Sofia"]) == {"quiet-mail"}
        assert self.kept(crowded, people=["sofia@lumen.io"]) == {"quiet-mail"}
        assert self.kept(crowded, people=["ana lima"]) == {"quiet-note"}  # a profile's participant
        assert self.kept(crowded, people=["sof"]) == set()  # whole words only
        assert self.kept(crowded, people=["sofia"]) == {"quiet-mail", "month-memo"}  # Sofía too
        assert self.kept(crowded, people=["ng@lumen.io"]) == {"month-memo"}  # an address exactly
        assert self.kept(crowded, people=["sofia@lumen.io"]) == {"quiet-mail"}  # not Sofía Ng's
        assert self.kept(crowded, people=["sofia lima"]) == set()  # one person holds every word
        assert self.kept(crowded, sources=["alpha/RAG/emails"]) == {"quiet-mail"}
        assert self.kept(crowded, sources=["calendar"]) == {"quiet-event"}
        assert self.kept(crowded, sources=["quiet-note.md"]) == {"quiet-note"}
        assert self.kept(crowded, sources=["RAW-DOCS/scans"]) == {"quiet-note"}  # converted from
        assert self.kept(crowded, doc_ids=["quiet-note", "loud01", "beta-mail"]) == {"quiet-note", "loud01"}

    def test_fields_combine_and_values_within_a_field_widen(self, crowded: Store) -> None:
        assert self.kept(crowded, tags=["billing"], types=["email"]) == {"quiet-mail"}
        assert self.kept(crowded, tags=["billing"], since="2026-01-01", types=["note"]) == set()

    def test_another_personas_documents_are_never_kept(self, crowded: Store) -> None:
        assert "beta-mail" not in self.kept(crowded, types=["email"])
        assert self.kept(crowded, doc_ids=["beta-mail"]) == set()

    def test_keyword_search_fills_the_limit_from_the_kept_documents(self, crowded: Store) -> None:
        assert {
            crowded.chunk_documents([s.chunk_id])[s.chunk_id]
            for s in crowded.search_keyword("invoice", "alpha", 3)
        } <= set(LOUD)
        found = crowded.search_keyword("invoice", "alpha", 3, within=frozenset(QUIET))
        assert sorted(s.chunk_id for s in found) == sorted(f"{d}#0" for d in QUIET)
        assert crowded.search_keyword("invoice", "alpha", 3, within=frozenset()) == []
        assert crowded.search_keyword("invoice", "alpha", 3, within=frozenset({"beta-mail"})) == []

    def test_vector_search_fills_the_limit_from_the_kept_documents(self, crowded: Store) -> None:
        assert {s.chunk_id for s in crowded.search_vector(QUERY, "alpha", 3)} <= {f"{d}#0" for d in LOUD}
        found = crowded.search_vector(QUERY, "alpha", 2, within=frozenset(QUIET))
        assert [s.chunk_id for s in found] == ["quiet-mail#0", "quiet-event#0"]
        assert crowded.search_vector(QUERY, "alpha", 3, within=frozenset({"beta-mail"})) == []

    def test_questions_and_profiles_are_searched_among_the_kept_documents(self, crowded: Store) -> None:
        kept = frozenset({"quiet-event", "quiet-note"})
        found = crowded.search_questions(QUERY, "alpha", 2, within=kept)
        assert [q.doc_id for q in found] == ["quiet-event", "quiet-note"]
        for surface in ("synopsis", "manifest"):
            listed = crowded.search_profiles(QUERY, "alpha", surface, 2, within=kept)
            assert [d.doc_id for d in listed] == ["quiet-event", "quiet-note"]

    def test_a_filter_follows_writes(self, crowded: Store) -> None:
        assert self.kept(crowded, types=["email"]) == {"quiet-mail"}  # remembered until a write
        crowded.replace_document(
            document("late-mail", ["alpha"], type="email", date=date(2026, 5, 1).isoformat()),
            chunks("late-mail", ["invoice paid"]),
            vectors(_near(0.1)),
            "test-embedder",
        )
        assert self.kept(crowded, types=["email"]) == {"quiet-mail", "late-mail"}
        found = crowded.search_vector(QUERY, "alpha", 5, within=frozenset({"late-mail"}))
        assert [s.chunk_id for s in found] == ["late-mail#0"]
        crowded.delete_document("quiet-mail")
        assert self.kept(crowded, types=["email"]) == {"late-mail"}
