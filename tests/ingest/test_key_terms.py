"""The Key Terms / Also Known As block: read out of a document's text into what search indexes,
written by conversion (a person's edit kept), and an alias's other form found by keyword search
in a passage that names only one."""

from __future__ import annotations

from pathlib import Path

from shu.config.settings import load_settings
from shu.enrich.abbreviations import defined_abbreviations
from shu.ingest.key_terms import KeyTerms, block, read_block, suggested
from shu.kb import KnowledgeBase
from tests.conftest import CountingEmbedder, PersonaMaker, doc

GUIDE = (
    "# Identity guide\n\n## Overview\n\nLumen supports single sign-on (SSO) with any SAML identity "
    "provider.\n\n## Admin console\n\nTurn SSO on in the admin console under Security, then upload "
    "the metadata file.\n\n## Audit\n\nEvery sign-in is written to the audit log for 90 days.\n"
)


def test_the_block_is_read_out_of_the_text() -> None:
    body = (
        "\n**Key Terms**: single sign-on, SAML, Okta\n**Also Known As**: IdP = identity provider; "
        "MFA (multi-factor authentication), Lumen Identity, single sign-on (SSO)\n\n# Guide\n\n"
        "Text about **Key Terms**: here.\n"
    )
    rest, found = read_block(body)
    assert rest == "# Guide\n\nText about **Key Terms**: here.\n"
    assert found.terms == ["single sign-on", "SAML", "Okta", "Lumen Identity"]
    assert found.aliases == {
        "IdP": "identity provider",
        "MFA": "multi-factor authentication",
        "SSO": "single sign-on",
    }
    untouched = "# Guide\n\n**Key Terms**: not at the top, so text.\n"
    assert read_block(untouched) == (untouched, KeyTerms())


def test_abbreviations_a_text_defines_itself() -> None:
    text = (
        "Lumen supports single sign-on (SSO). The Service Level Agreement (SLA) applies. Mean time to "
        "recovery (MTTR) is tracked; see the API (application programming interface). Pick a plan (Pro)."
    )
    assert defined_abbreviations(text) == {
        "SSO": "single sign-on",
        "SLA": "Service Level Agreement",
        "MTTR": "Mean time to recovery",
        "API": "application programming interface",
    }


def test_conversion_writes_the_tags_named_and_the_aliases_defined() -> None:
    made = suggested(GUIDE, ["SAML", "Okta", "audit log", "log"])
    assert made.terms == ["SAML", "audit log", "log"] and made.aliases == {"SSO": "single sign-on"}
    written = block(made)
    assert written == "**Key Terms**: SAML, audit log, log\n**Also Known As**: SSO = single sign-on\n\n"
    assert read_block(written + GUIDE) == (GUIDE, made), "what conversion writes, ingestion reads"
    assert block(KeyTerms()) == ""


def _kb(tmp_path: Path, embedder: CountingEmbedder, *settings: str) -> KnowledgeBase:
    return KnowledgeBase(
        load_settings(tmp_path / "home", ["enrich.enabled=false", *settings]), embedder=embedder
    )


def test_a_passage_naming_only_the_short_form_is_found_by_the_long_one(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", raw={"identity.md": GUIDE})
    found: dict[bool, list[str]] = {}
    for on in (True, False):
        kb = _kb(tmp_path / str(on), embedder, f"chunking.key_terms={str(on).lower()}")
        try:
            assert not kb.ingest(folder).failed
            hits = kb.store.search_keyword("single sign-on", "lumen", 5)
            by_id = kb.store.get_chunks([h.chunk_id for h in hits])
            found[on] = [by_id[h.chunk_id].section_path for h in hits]
            console = next(c for c in kb.store.list_chunks("identity") if "admin console" in c.text)
            assert ("Also known as: single sign-on" in console.index_text) is on
            assert "single sign-on" not in console.text, "the text itself is never changed"
        finally:
            kb.close()
    assert found[True][:2] == ["Identity guide > Overview", "Identity guide > Admin console"], found
    assert "Identity guide > Admin console" not in found[False], found


def test_the_block_is_written_indexed_never_quoted_and_a_persons_edit_is_kept(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", tags=["SAML", "audit log"], raw={"identity.md": GUIDE})
    kb = _kb(tmp_path, embedder)
    try:
        assert not kb.ingest(folder).failed
        generated = folder / "RAG" / "identity.md"
        text = generated.read_text()
        assert (
            "**Key Terms**: SAML, audit log\n**Also Known As**: SSO = single sign-on\n\n# Identity guide"
            in text
        )
        stored = kb.store.get_document("identity")
        assert stored is not None and stored.meta["key_terms"] == ["SAML", "audit log"]
        assert stored.meta["also_known_as"] == {"SSO": "single sign-on"}
        chunks = kb.store.list_chunks("identity")
        assert not any("Key Terms" in c.text for c in chunks)
        assert "Key terms: SAML, audit log" in chunks[0].index_text
        answer = kb.ask("What are the key terms of the identity guide?", persona="lumen", use_cache=False)
        assert "Key Terms" not in answer.text

        # a person edits the block; the source changes and is converted again: the edit stays
        generated.write_text(text.replace("**Key Terms**: SAML, audit log", "**Key Terms**: SAML, Entra ID"))
        (folder / "RAW-DOCS" / "identity.md").write_text(GUIDE.replace("90 days", "120 days"))
        assert not kb.ingest(folder).failed
        again = generated.read_text()
        assert "**Key Terms**: SAML, Entra ID" in again and "120 days" in again
        assert kb.store.get_document("identity").meta["key_terms"] == ["SAML", "Entra ID"]  # type: ignore[union-attr]
        # unedited, a block follows the text
        (folder / "RAW-DOCS" / "identity.md").write_text(GUIDE + "\nThe Pro plan includes SAML.\n")
        assert not kb.ingest(folder).failed
        assert "**Key Terms**: SAML, Entra ID" in generated.read_text(), "still the person's"
        # a person deletes the block: it stays deleted
        edited = generated.read_text()
        start = edited.index("**Key Terms**")
        generated.write_text(edited[:start] + edited[edited.index("# Identity guide") :])
        (folder / "RAW-DOCS" / "identity.md").write_text(GUIDE + "\nThe Team plan includes SAML too.\n")
        assert not kb.ingest(folder).failed
        assert "**Key Terms**" not in generated.read_text() and "Team plan" in generated.read_text()
    finally:
        kb.close()


def test_a_curated_document_with_a_block_is_read_the_same(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    curated = doc(
        "sso", "SSO setup", "**Key Terms**: Okta, Entra ID\n\n# SSO setup\n\n## Steps\n\nUpload the metadata."
    )
    assert not kb.ingest(make_persona("lumen", rag={"sso.md": curated})).failed
    chunks = kb.store.list_chunks("sso")
    assert [c.text for c in chunks] == ["Upload the metadata."]
    assert "Key terms: Okta, Entra ID" in chunks[0].index_text
    hits = kb.store.search_keyword("Entra ID", "lumen", 3)
    assert [h.chunk_id for h in hits] == [chunks[0].id]


def test_key_terms_stay_indexed_with_context_prefixes(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", raw={"identity.md": GUIDE})
    kb = _kb(tmp_path, embedder, "enrich.enabled=true", "enrich.context=true")
    try:
        assert not kb.ingest(folder).failed
        console = next(c for c in kb.store.list_chunks("identity") if "admin console" in c.text)
        assert console.context and console.index_text.startswith(console.context)
        assert "Also known as: single sign-on" in console.index_text
    finally:
        kb.close()
