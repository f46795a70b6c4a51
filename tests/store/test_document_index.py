"""Title, name and date lookups shared by every store."""

from __future__ import annotations

from shu.store.document_index import DocumentIndex
from shu.types import Document


def index(*titles: str) -> DocumentIndex:
    docs = [Document(id=f"d{i}", title=t, personas=["p"], content_hash="h") for i, t in enumerate(titles)]
    return DocumentIndex.build([(doc, None) for doc in docs])


def test_a_title_is_found_by_all_of_its_hint_or_by_most_of_its_words() -> None:
    titles = index("Pricing and Plans", "API Rate Limits and Error Codes", "Biography of Ada Byron", "Plans")
    assert [h.doc_id for h in titles.search_titles("pricing", 5)] == ["d0"]
    assert [h.doc_id for h in titles.search_titles("rate limits", 5)] == ["d1"]
    assert [h.doc_id for h in titles.search_titles("biography ada", 5)] == ["d2"]
    assert [h.doc_id for h in titles.search_titles("plans", 5)] == ["d3", "d0"], "the fuller match first"
    assert titles.search_titles("error budget", 5) == [], "one word of a long title is not enough"


def people(*holders: list[str]) -> DocumentIndex:
    docs = [
        Document(
            id=f"d{i}", title=f"Session {i}", personas=["p"], content_hash="h", meta={"participants": names}
        )
        for i, names in enumerate(holders)
    ]
    return DocumentIndex.build([(doc, None) for doc in docs])


def test_names_every_document_shares_carry_no_weight() -> None:
    sessions = people(["Caroline", "Melanie"], ["Caroline", "Melanie"], ["Caroline", "Melanie", "Jon"])
    hits, selectivity = sessions.search_names(["Caroline", "Melanie"], 10)
    assert (hits, selectivity) == ([], 0.0), "both speakers take part in every session"
    hits, selectivity = sessions.search_names(["Caroline", "Jon"], 10)
    assert [h.doc_id for h in hits] == ["d2"] and selectivity == 1.0, "only Jon tells the sessions apart"


def test_selectivity_is_idf_scaled_to_one() -> None:
    sessions = people(*[["Ann"]] * 100)
    assert sessions.selectivity(1) == 1.0
    assert sessions.selectivity(100) == 0.0
    assert sessions.selectivity(0) == 0.0
    assert 0.14 < sessions.selectivity(50) < 0.16, "log(2) / log(100)"
    assert people(["Ann"]).selectivity(1) == 0.0, "one document: nothing to tell apart"


def test_a_time_span_covering_every_document_filters_nothing() -> None:
    docs = [
        Document(id=f"d{i}", title=f"Note {i}", personas=["p"], content_hash="h", date=f"2024-0{i + 1}-15")
        for i in range(4)
    ]
    dated = DocumentIndex.build([(doc, None) for doc in docs])
    hits, selectivity = dated.search_dates("2024", "2024", 10)
    assert len(hits) == 4 and selectivity == 0.0
    hits, selectivity = dated.search_dates("2024-02", "2024-02", 10)
    assert [h.doc_id for h in hits] == ["d1"] and selectivity == 1.0


def test_a_documents_id_and_file_name_are_lookup_targets_too() -> None:
    docs = [
        Document(
            id="lumen-faq",
            title="Frequently Asked Questions",
            personas=["p"],
            content_hash="h",
            path="/kb/p/RAG/lumen-faq.md",
        ),
        Document(
            id="q1",
            title="Quarterly numbers",
            personas=["p"],
            content_hash="h",
            path="/kb/p/RAG/q1-report.md",
        ),
    ]
    found = DocumentIndex.build([(d, None) for d in docs])
    assert [h.doc_id for h in found.search_titles("faq", 5)] == ["lumen-faq"]
    assert [h.doc_id for h in found.search_titles("q1 report", 5)] == ["q1"]
    assert found.search_titles("lumen pricing", 5) == []
