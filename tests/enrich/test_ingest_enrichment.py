"""Enrichment during ingestion: stored with provenance, never redone for unchanged documents."""

from __future__ import annotations

from pathlib import Path

from shu.kb import open_kb
from tests.conftest import CountingEmbedder, PersonaMaker, doc

GUIDE = doc(
    "guide",
    "SSO Setup Guide",
    "# SSO Setup Guide\n\nSingle sign-on lets your team log in with your identity provider.\n\n"
    "## Configure Okta\n\nCreate an app integration in Okta and paste the Lumen ACS URL.\n\n"
    "## SAML error codes\n\nSAML-002 means the audience does not match the entity ID.",
    type="guide",
)


def test_ingest_stores_profiles_questions_and_chunk_profiles(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    kb = open_kb(tmp_path / "home", embedder=embedder)
    folder = make_persona("lumen", rag={"guide.md": GUIDE})
    kb.ingest(folder)
    profile = kb.store.get_profile("guide")
    assert profile is not None and profile.provenance.method == "extractive"
    assert profile.manifest.authority_level == "authoritative"
    questions = kb.store.list_questions("guide")
    assert "How do I configure Okta?" in [q.text for q in questions]
    chunk_ids = [c.id for c in kb.store.list_chunks("guide")]
    assert set(kb.store.get_chunk_profiles(chunk_ids)) == set(chunk_ids)
    best = kb.store.search_questions(embedder.embed_query("how to set up okta"), "lumen", 1)[0]
    assert best.text == "How do I configure Okta?" and best.doc_id == "guide"
    embedded = embedder.embedded
    assert kb.ingest(folder).counts()["unchanged"] == 1
    assert embedder.embedded == embedded, "an unchanged document is never enriched again"
    stats = kb.store.enrichment_stats()
    assert stats["profiles"] == {"extractive": 1} and stats["questions"]["extractive"] == len(questions)
    kb.close()


def test_context_prefixes_change_what_is_indexed_not_the_text(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    folder = make_persona("lumen", rag={"guide.md": GUIDE})
    plain = open_kb(tmp_path / "home", embedder=embedder)
    plain.ingest(folder)
    before = {c.id: c for c in plain.store.list_chunks("guide")}
    plain.close()
    prefixed = open_kb(tmp_path / "home", ["enrich.context=true"], embedder=embedder)
    assert prefixed.ingest(folder).counts()["ingested"] == 1, "switching context on re-indexes"
    for chunk in prefixed.store.list_chunks("guide"):
        assert chunk.text == before[chunk.id].text
        assert chunk.context.startswith("From “SSO Setup Guide” (guide), section “")
        assert chunk.index_text == f"{chunk.context}\n{chunk.text}"
    prefixed.close()


def test_enrichment_can_be_switched_off(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    kb = open_kb(tmp_path / "home", ["enrich.enabled=false"], embedder=embedder)
    kb.ingest(make_persona("lumen", rag={"guide.md": GUIDE}))
    assert kb.store.get_profile("guide") is None and kb.store.list_questions("guide") == []
    assert kb.store.list_chunks("guide")
    kb.close()


def test_relationships_are_stored_from_frontmatter_and_links(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    decision = doc(
        "decision",
        "Decision",
        "# Decision\n\nWe chose Okta; see [the guide](guide.md).",
        relations={"decision_for": ["guide"]},
    )
    kb = open_kb(tmp_path / "home", embedder=embedder)
    kb.ingest(make_persona("lumen", rag={"guide.md": GUIDE, "decision.md": decision}))
    found = [(r.source, r.target, r.type, r.origin) for r in kb.store.list_relationships(["decision"])]
    assert found == [
        ("decision", "guide", "decision_for", "frontmatter"),
        ("decision", "guide", "references", "link"),
    ]
    assert kb.store.enrichment_stats()["relationships"] == {"frontmatter": 1, "link": 1}
    kb.close()
