"""The non-LLM enrichment methods on small, known texts."""

from __future__ import annotations

from shu.enrich.entities import find_dates, find_entities, temporal_scope
from shu.enrich.extractive import chunk_profile, context_prefix, lead_sentences, profile_document
from shu.enrich.keyphrases import keyphrases
from shu.ingest.chunking import chunk_document
from shu.types import Document

EMAIL = Document(
    id="mail",
    title="SAML login fails",
    personas=["x"],
    content_hash="h",
    type="email",
    date="2026-03-05",
    meta={
        "from": "Tomas Ferreira <tomas@lumen.example>",
        "to": "Priya Raman <priya@harbor.example>, ops@harbor.example",
    },
)
EMAIL_BODY = """# SAML login fails

Hi Priya, the Identifier was set to the ACS URL on 4 March 2026. It must be the Entity ID without /acs.
The Pro plan costs $65 per seat; Enterprise starts at $30,000 per year and includes SCIM.

## Next steps

1. Open Microsoft Entra ID.
2. Change the Identifier and save.
"""

GUIDE = Document(id="guide", title="SSO Setup Guide", personas=["x"], content_hash="h", type="guide")
GUIDE_BODY = """# SSO Setup Guide

Single sign-on lets your team log in to Lumen Analytics with your identity provider. Lumen supports SAML 2.0.

## Configure Okta

Create an app integration in the Okta Admin Console and paste the Lumen ACS URL.

## How long does setup take?

Most teams finish SAML setup in under an hour.

## SAML error codes

SAML-002 means the audience does not match the Lumen entity ID.
"""


def test_dates_in_three_spellings_and_invalid_ones_dropped() -> None:
    text = "Released 2026-02-10, patched on 12 March 2026 and on April 3, 2026; not 2026-02-31."
    assert find_dates(text) == ["2026-02-10", "2026-03-12", "2026-04-03"]
    assert temporal_scope(text, "2026-01-01").model_dump() == {"start": "2026-01-01", "end": "2026-04-03"}


def test_entities_of_each_kind() -> None:
    found = {
        (e.name, e.kind)
        for e in find_entities(EMAIL_BODY + " Contact tomas@lumen.example. Harbor Logistics Inc agreed.")
    }
    assert ("tomas@lumen.example", "email") in found
    assert ("2026-03-04", "date") in found
    assert {("$65", "amount"), ("$30,000", "amount")} <= found
    assert ("Harbor Logistics Inc", "organization") in found
    assert not any(name.startswith("Hi ") for name, _ in found)


def test_amounts_named_by_their_currency_word_or_code() -> None:
    found = {
        e.name
        for e in find_entities(
            "It costs 40 euros a seat, EUR 1,200 a year, or 3 million dollars; the euro-zone 1990."
        )
        if e.kind == "amount"
    }
    assert found == {"40 euros", "EUR 1,200", "3 million dollars"}


def test_keyphrases_come_from_the_text() -> None:
    phrases = keyphrases(GUIDE_BODY, top=5)
    assert 1 <= len(phrases) <= 5
    assert all(all(word.lower() in GUIDE_BODY.lower() for word in p.split()) for p in phrases)
    assert keyphrases("too short") == []


def test_lead_sentences_skip_headings_and_lists() -> None:
    assert lead_sentences(GUIDE_BODY).startswith("Single sign-on lets your team log in")
    assert lead_sentences("# T\n\n- a list item only\n") == ""


def test_email_profile_has_participants_dates_and_kind() -> None:
    extracted = profile_document(EMAIL, EMAIL_BODY)
    profile = extracted.profile
    assert profile.document_type == "conversational" and profile.manifest.authority_level == "informal"
    assert [(p.name, p.role, p.email) for p in profile.participants] == [
        ("Tomas Ferreira", "author", "tomas@lumen.example"),
        ("Priya Raman", "recipient", "priya@harbor.example"),
        ("ops@harbor.example", "recipient", "ops@harbor.example"),
    ]
    assert profile.temporal_scope.start == "2026-03-04" and profile.temporal_scope.end == "2026-03-05"
    assert "prices, amounts and limits" in profile.manifest.provides_information_type
    assert "correspondence" in profile.manifest.provides_information_type
    assert profile.provenance.method == "extractive"


def test_template_questions_from_headings_are_5_to_20_and_unique() -> None:
    extracted = profile_document(GUIDE, GUIDE_BODY)
    texts = [q.text for q in extracted.questions]
    assert 5 <= len(texts) <= 20 and len(set(texts)) == len(texts)
    assert "How do I configure Okta?" in texts
    assert "How long does setup take?" in texts
    assert "What does SSO Setup Guide say about SAML error codes?" in texts
    assert all(q.doc_id == "guide" and q.provenance.method == "extractive" for q in extracted.questions)
    assert extracted.profile.manifest.question_domains == [
        "Configure Okta",
        "How long does setup take?",
        "SAML error codes",
    ]


def test_chunk_profile_and_context_prefix() -> None:
    extracted = profile_document(EMAIL, EMAIL_BODY)
    chunks = chunk_document("mail", EMAIL.title, EMAIL_BODY, 200, 0)
    profile = chunk_profile(chunks[0], extracted.profile.manifest.answers_questions_about)
    assert profile.summary.startswith("Hi Priya, the Identifier was set to the ACS URL")
    assert "$30,000" in profile.keywords and "2026-03-04" in profile.keywords
    prefix = context_prefix(EMAIL, extracted.profile, chunks[0])
    assert prefix.startswith("From “SAML login fails” (email, 2026-03-05), section “SAML login fails”.")
    assert len(prefix.split()) <= 80
