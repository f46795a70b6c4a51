"""The one door: `KnowledgeBase` reads documents and stats, takes injected parts, and raises
typed errors a server can map to 4xx."""

from __future__ import annotations

import pytest

import shu
from shu.config.settings import load_settings
from shu.errors import InvalidRequestError, NotFoundError, UnknownPersonaError
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.store.sqlite import SQLiteStore
from tests.conftest import CountingEmbedder, PersonaMaker, doc

PRICING = doc(
    "pricing",
    "Pricing",
    "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat. See [limits](limits.md).\n\n"
    "## Team\n\nThe Team plan costs $35.",
)
LIMITS = doc("limits", "Limits", "# Limits\n\n## Pro\n\nThe Pro plan allows 1,200 requests per minute.")
SECRET = doc("secret", "Board secrets", "# Board\n\n## Deal\n\nThe price is 9 million.")


@pytest.fixture
def two(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    folder = make_persona("lumen", rag={"pricing.md": PRICING, "limits.md": LIMITS})
    make_persona("board", rag={"secret.md": SECRET})
    assert not kb.ingest(folder.parent).failed
    return kb


def test_a_document_is_read_with_its_sections_profile_and_relationships(two: KnowledgeBase) -> None:
    view = two.document("pricing", persona="lumen")
    assert view.document.title == "Pricing"
    assert [s.section_path for s in view.sections] == ["Pricing > Pro", "Pricing > Team"]
    assert view.sections[0].citation_key == "[^pricing:Pricing > Pro]"
    assert "The Team plan costs $35." in view.text
    assert view.profile is not None and view.profile.doc_id == "pricing"
    assert [(r.target, r.type) for r in view.relationships] == [("limits", "references")]


def test_another_personas_document_is_not_found_and_unknown_ones_are_typed(two: KnowledgeBase) -> None:
    with pytest.raises(NotFoundError, match="no document 'secret' in persona 'lumen'"):
        two.document("secret", persona="lumen")
    with pytest.raises(NotFoundError, match="no document 'nothing'"):
        two.document("nothing")
    with pytest.raises(UnknownPersonaError):
        two.document("pricing", persona="nobody")
    assert isinstance(UnknownPersonaError("x", []), NotFoundError)
    assert two.document("secret").document.personas == ["board"], "without a persona: any document"


def test_an_empty_or_overlong_question_is_an_invalid_request(two: KnowledgeBase) -> None:
    with pytest.raises(InvalidRequestError, match="empty"):
        two.ask("   ", persona="lumen")
    with pytest.raises(InvalidRequestError, match="limit is 4000"):
        two.search("x" * 4001, persona="lumen")


def test_stats_count_the_store_its_enrichment_and_findings(two: KnowledgeBase) -> None:
    found = two.stats()
    assert (found.personas, found.documents) == (2, 3)
    assert found.chunks >= 4 and found.vectors == found.chunks
    assert found.enrichment["profiles"] == {"extractive": 3}
    assert found.findings == {
        "active": 0,
        "relationships": 0,
        "stale_manifests": 0,
        "document_types": 0,
        "participants": 0,
        "projects": 0,
        "undone": 0,
    }
    assert found.answer_cache is not None and found.answer_cache["entries"] == 0


def test_parts_can_be_given_instead_of_built(
    tmp_path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:  # type: ignore[no-untyped-def]
    store = SQLiteStore(tmp_path / "elsewhere.db")
    model = ScriptedLLM(lambda messages, schema: "The Pro plan costs $65 per seat. [^pricing:Pricing > Pro]")
    # it writes answers, never JSON: asked for the answer all the same
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", "llm.budget.max_json_failures=0"])
    kb = KnowledgeBase(settings, embedder=embedder, store=store, llm=LLMClient(model))
    try:
        assert not kb.ingest(make_persona("lumen", rag={"pricing.md": PRICING})).failed
        answer = kb.ask("What does the Pro plan cost?", persona="lumen", use_cache=False)
        assert answer.method == "llm:scripted:scripted" and model.calls
        assert kb.store is store and store.stats().documents == 1
        assert not (tmp_path / "home" / "shu.db").exists(), "the given store, not one from the settings"
    finally:
        kb.close()


def test_open_is_not_exported_by_star() -> None:
    assert "open" not in shu.__all__ and shu.open is shu.open_kb
