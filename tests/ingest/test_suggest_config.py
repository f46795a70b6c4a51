"""A suggested persona config: the curated values kept, frontmatter tags enough documents carry and
the abbreviations the documents define added, each with why; at most 30 tags; a valid config."""

from __future__ import annotations

import json
from typing import Any

from shu.ingest.suggest_config import MAX_TAGS, suggest_config
from shu.types import Document, Persona, PersonaConfig


def persona(**config: object) -> Persona:
    made = PersonaConfig.model_validate({"slug": "lumen", "display_name": "Lumen"} | config)
    return Persona(slug="lumen", display_name="Lumen", config=made)


def document(doc_id: str, tags: list[str] | None = None, title: str = "A note") -> Document:
    return Document(id=doc_id, title=title, personas=["lumen"], content_hash=doc_id, tags=tags or [])


def suggested(
    who: Persona, documents: list[Document], text: dict[str, str] | None = None
) -> tuple[PersonaConfig, dict[str, Any]]:
    given = text or {}
    suggestion = suggest_config(who, documents, lambda d: given.get(d.id, "Nothing defined here."))
    return suggestion.config, suggestion.as_json()


def test_curated_tags_are_kept_and_a_tag_two_documents_carry_is_added_one_is_not() -> None:
    docs = [
        document("a", ["billing", "Refunds"]),
        document("b", ["refunds", "Billing"]),
        document("c", ["onboarding"]),
    ]
    config, shown = suggested(persona(tags=["SAML", "billing"]), docs)
    assert config.tags == ["SAML", "billing", "Refunds"], "curated first, as curated; 'Billing' is 'billing'"
    reasons = shown["reasons"]["tags"]
    assert reasons["SAML"] == {"source": "curated", "added": False, "documents": 0, "examples": []}
    assert reasons["billing"]["documents"] == 2 and not reasons["billing"]["added"]
    assert reasons["Refunds"] == {
        "source": "frontmatter",
        "added": True,
        "documents": 2,
        "examples": ["a", "b"],
    }
    assert "onboarding" not in reasons


def test_in_a_large_persona_a_tag_needs_a_tenth_of_the_documents() -> None:
    docs = [document(f"d{n:02d}", ["common"] if n < 3 else ["rare"] if n < 5 else []) for n in range(30)]
    config, _ = suggested(persona(), docs)
    assert config.tags == ["common"], "3 of 30 carry 'common' (10 %), 2 of 30 'rare'"


def test_an_abbreviation_a_document_defines_is_an_alias_and_two_tags() -> None:
    docs = [document("sso-setup"), document("pricing")]
    text = {"sso-setup": "Turn on single sign-on (SSO) for your team; SSO uses SAML."}
    config, shown = suggested(persona(), docs, text)
    assert config.aliases == {"SSO": "single sign-on"}
    assert config.tags == ["SSO", "single sign-on"]
    reasons = shown["reasons"]
    assert reasons["aliases"]["SSO"] == {
        "long": "single sign-on",
        "source": "abbreviation",
        "added": True,
        "documents": 1,
        "examples": ["sso-setup"],
    }
    assert reasons["tags"]["single sign-on"]["source"] == "abbreviation"


def test_a_curated_alias_wins_over_the_documents_definition() -> None:
    docs = [document("sso-setup"), document("rpo")]
    text = {
        "sso-setup": "Turn on single sign-on (SSO) for your team.",
        "rpo": "The recovery point objective (RPO) is one hour.",
    }
    curated = {"SSO": "single sign-on with SAML"}
    config, shown = suggested(persona(aliases=curated), docs, text)
    assert config.aliases == {"SSO": "single sign-on with SAML", "RPO": "recovery point objective"}
    assert shown["reasons"]["aliases"]["SSO"]["source"] == "curated"
    assert shown["reasons"]["aliases"]["SSO"]["documents"] == 1
    assert "single sign-on with SAML" in config.tags and "single sign-on" not in config.tags


def test_never_more_than_30_tags_the_most_carried_first() -> None:
    # tag tN is carried by N + 5 documents of 50 (all at least 10 %: 5 documents)
    docs = [document(f"d{n:02d}", [f"t{t:02d}" for t in range(40) if n < t + 5]) for n in range(50)]
    config, _ = suggested(persona(tags=["curated"]), docs)
    assert len(config.tags) == MAX_TAGS
    assert config.tags[:3] == ["curated", "t39", "t38"] and config.tags[-1] == "t11"


def test_the_curated_tags_stay_even_beyond_30() -> None:
    curated = [f"c{n}" for n in range(35)]
    config, _ = suggested(persona(tags=curated), [document("a", ["x"]), document("b", ["x"])])
    assert config.tags == curated


def test_curated_retrieval_is_kept_and_the_config_round_trips() -> None:
    curated = persona(
        tags=["billing"],
        retrieval={"vector_threshold": 0.35, "bm25_min_score": 0.1, "max_chunks": 8},
        accept_from=["sales"],
        owner="support team",
    )
    docs = [document("a", ["refunds"]), document("b", ["refunds"])]
    config, shown = suggested(curated, docs, {"a": "Our Service Level Agreement (SLA) is 99.9 %."})
    written = shown["config"]
    assert written == {
        "slug": "lumen",
        "display_name": "Lumen",
        "tags": ["billing", "refunds", "SLA", "Service Level Agreement"],
        "aliases": {"SLA": "Service Level Agreement"},
        "retrieval": {"vector_threshold": 0.35, "bm25_min_score": 0.1, "max_chunks": 8},
        "accept_from": ["sales"],
        "owner": "support team",
    }, "the curated keys as they were, no thresholds or defaults added"
    assert PersonaConfig.model_validate(json.loads(json.dumps(written))) == config
    assert config.retrieval == curated.config.retrieval


def test_no_documents_gives_the_curated_config_back() -> None:
    curated = persona(tags=["billing"], aliases={"SSO": "single sign-on"})
    suggestion = suggest_config(curated, [], lambda d: "")
    assert suggestion.config == curated.config and suggestion.documents == 0
    assert suggestion.added_tags == [] and suggestion.added_aliases == {}
