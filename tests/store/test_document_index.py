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
