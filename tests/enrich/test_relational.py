"""A document's relational context: the roles it matters to, its projects with their
strength, how it ages (half-life, due dates, recurrence) — by rules, and by a scripted LLM whose
answer is kept only when it rests on the text."""

from __future__ import annotations

from shu.config.settings import EnrichSettings
from shu.enrich.enricher import enrich_document
from shu.enrich.extractive import profile_document
from shu.enrich.llm import LLMEnricher
from shu.enrich.relational import deadlines, project_links, recurrence_of, relational_context, role_relevance
from shu.ingest.chunking import chunk_document
from shu.models.llm.client import LLMClient
from shu.roles import families_of
from shu.types import Document
from tests.enrich.test_llm_enrichment import GOOD, kind_of, scripted

MOVE = (
    "# Harbour Street move\n\nThe new lease costs €41,000 a month; the deposit is paid on 1 December. "
    "The movers' invoice is capped at €23,500 and comes out of the facilities budget.\n\n"
    "Pack your desk by Friday\n28 November; the movers label every crate."
)


def document(title: str = "Harbour Street move", **fields: object) -> Document:
    return Document(id="d", title=title, personas=["p"], content_hash="h", date="2025-11-06", **fields)  # type: ignore[arg-type]


def test_job_titles_fall_into_role_families() -> None:
    assert families_of("VP Sales") == ["sales", "leadership"]
    assert families_of("CFO") == ["finance", "leadership"]
    assert families_of("Head of People") == ["people", "leadership"]
    assert families_of("data engineer") == ["engineering"]
    assert families_of("gardener") == []


def test_a_document_matters_to_the_roles_whose_words_it_uses() -> None:
    roles = role_relevance(MOVE)
    assert roles[0].role == "finance" and roles[0].score == 1.0
    assert (
        roles[0].reason == "mentions lease, costs, deposit, invoice"
    )  # most mentioned first, then in text order
    assert role_relevance("The budget is fine.") == [], "one cue word is not enough"


def test_projects_are_primary_when_declared_and_related_or_tangential_when_named() -> None:
    body = "Acme Deal, Acme Deal and the Acme Deal again. Q4 Planning once."
    doc = document("Notes", meta={"project": "Hiring 2026"})
    links = project_links(doc, body, [], ["Acme Deal", "Q4 Planning", "Brand Refresh", "Hiring 2026"])
    assert [(link.project, link.strength, link.kind) for link in links] == [
        ("Hiring 2026", 1.0, "primary"),
        ("Acme Deal", 0.6, "related"),
        ("Q4 Planning", 0.3, "tangential"),
    ]
    titled = project_links(document("Brand Refresh notes"), "", [], ["Brand Refresh"])
    assert [(link.project, link.kind) for link in titled] == [("Brand Refresh", "related")]


def test_due_dates_come_from_deadline_sentences_and_schedules_not_from_history() -> None:
    assert deadlines(MOVE, "2025-11-06") == ["2025-11-28"], "a sentence wrapped over two lines is one"
    timeline = (
        "# Timeline\n\n## Milestones\n\n- 3 October: proposal sent.\n- 18 November: review.\n"
        "- 12 January 2026: the pilot starts.\n\n## Notes\n\nWe met on 20 November."
    )
    assert deadlines(timeline, "2025-10-10") == ["2025-11-18", "2026-01-12"]
    assert deadlines("Submit it by 5 January.", "2025-12-20") == ["2026-01-05"], "the next year"


def test_recurrence_comes_from_the_title_or_a_repeats_field_and_sets_the_half_life() -> None:
    weekly = document("Weekly status report", type="report")
    context = relational_context(weekly, "Nothing new.", profile_document(weekly, "Nothing new.").profile)
    assert context.temporal.recurrence == "weekly" and context.temporal.half_life_days == 7
    assert recurrence_of(document("Budget"), "We invoice quarterly from now on.") is None
    assert recurrence_of(document("Sync"), "**Repeats:** every month on the 1st") == "monthly"
    policy = document("Expense policy", type="policy")
    assert (
        relational_context(
            policy, "Rules.", profile_document(policy, "Rules.").profile
        ).temporal.half_life_days
        is None
    )
    mail = document("Re: lunch", type="email")
    assert (
        relational_context(mail, "Hi.", profile_document(mail, "Hi.").profile).temporal.half_life_days == 30
    )


def test_enrichment_stores_the_relational_context_with_the_known_projects() -> None:
    doc = document(meta={"project": "Office"})
    chunks = chunk_document("d", doc.title, MOVE, 180, 0)
    enrichment, _ = enrich_document(doc, MOVE, chunks, EnrichSettings(), projects=["Office", "Facilities"])
    assert enrichment.profile is not None
    relational = enrichment.profile.relational
    assert relational.method == "rules" and relational.roles[0].role == "finance"
    assert [(p.project, p.kind) for p in relational.projects] == [
        ("Office", "primary"),
        ("Facilities", "tangential"),
    ]
    assert relational.temporal.deadlines == ["2025-11-28"] and relational.temporal.half_life_days == 365


BODY = (
    "# API Limits\n\nThe Pro plan of Lumen Analytics allows 1,200 API requests per minute per workspace. "
    "Requests over the limit receive HTTP 429 with a Retry-After header.\n\n## Raising the limit\n\n"
    "Enterprise customers can ask their Customer Success Manager to raise the limit by 1 March 2026."
)
API = Document(
    id="limits", title="API Limits", personas=["x"], content_hash="h", type="guide", date="2026-01-10"
)


def with_relational(**fields: object) -> dict[str, object]:
    replies = dict(GOOD)
    replies["profile"] = {**GOOD["profile"], **fields}  # type: ignore[dict-item]
    return replies


def test_the_llms_relational_context_is_kept_when_it_rests_on_the_text() -> None:
    said = {
        "relevant_to_roles": [
            {"role": "engineering", "score": 0.9, "reason": "API requests per minute limit"}
        ],
        "deadlines": ["2026-03-01"],
        "goes_stale_in": "years",
    }
    llm = LLMEnricher(LLMClient(scripted(with_relational(**said))))
    chunks = chunk_document("limits", API.title, BODY, 180, 0)
    enrichment, _ = enrich_document(API, BODY, chunks, EnrichSettings(), llm)
    assert enrichment.profile is not None
    relational = enrichment.profile.relational
    assert relational.method == "llm:scripted:scripted"
    assert [(r.role, r.score) for r in relational.roles] == [("engineering", 0.9)]
    assert relational.temporal.deadlines == ["2026-03-01"] and relational.temporal.half_life_days == 730


def test_an_invented_deadline_or_unknown_role_is_left_out_and_the_rules_fill_in() -> None:
    """A model's profile keeps what rests on the text: one invented deadline or role no longer
    costs the whole profile (a small model's profiles were refused for it)."""
    for said in (
        {"deadlines": ["2027-07-07"]},
        {"relevant_to_roles": [{"role": "astronaut", "score": 1.0, "reason": "API requests per minute"}]},
        {"relevant_to_roles": [{"role": "sales", "score": 1.0, "reason": "quarterly revenue targets"}]},
    ):
        fake = scripted(with_relational(**said))
        llm = LLMEnricher(LLMClient(fake))
        chunks = chunk_document("limits", API.title, BODY, 180, 0)
        enrichment, _ = enrich_document(API, BODY, chunks, EnrichSettings(), llm)
        assert enrichment.profile is not None and enrichment.profile.provenance.method.startswith("llm:"), (
            said
        )
        relational = enrichment.profile.relational
        assert "2027-07-07" not in relational.temporal.deadlines, said
        assert all(
            r.role != "astronaut" and r.reason != "quarterly revenue targets" for r in relational.roles
        )
        assert relational.roles == role_relevance(BODY), "the rules' roles"
        assert sum(kind_of(m) == "profile" for m in fake.calls) == 1, "kept without asking again"
