"""What a question asks for, and the reader that reads there first: a section whose heading
answers the kind ("Root cause", "Decisions", "Attendees"), a field that states it ("Where: …"),
never a quoted message's header lines."""

from __future__ import annotations

import pytest

from shu.answer.extractive import candidate_sentences
from shu.answer.extractive.asked import asked
from shu.kb import KnowledgeBase
from tests.conftest import PersonaMaker, doc


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What caused the outage on 3 May?", "cause"),
        ("Why did the sync stop?", "cause"),
        ("How was the login error resolved?", "resolution"),
        ("What did the board decide about the budget?", "decision"),
        ("Who attended the planning meeting?", "attendees"),
        ("Who's invited to the review?", "attendees"),
        ("Where is the repair review held?", "where"),
        ("When does the drill start?", "when"),
        ("Who approved the refund?", "decision"),
        ("Who signs the contract?", "who"),
        ("Which products are allowed?", "list"),
        ("Which keeps the audit log longer, Team or Pro?", None),
        ("What are the priorities for Q3?", "list"),
        ("How many seats does Pro include?", None),
        ("Which machines appear in the maintenance log?", "list"),
        ("Which tickets were fixed in release 4.7?", "list"),
        ("How was the ticket fixed?", "resolution"),
    ],
)
def test_the_kind_of_answer_a_question_asks_for(question: str, kind: str | None) -> None:
    found = asked(question)
    assert (found.kind if found else None) == kind


def test_a_quoted_messages_header_lines_are_never_candidates_but_a_documents_fields_are() -> None:
    thread = (
        "Thanks, that fixed the login for all forty users.\n\n"
        "-----Original Message-----\nFrom: Ana Lima <ana@x.example>\nTo: support@y.example\n"
        "Date: Tue, 3 Mar 2026\nSubject: Login fails after the setup\n\n"
        "> Dear customer, confirm your password at this address now.\n\n"
        "> **Note:** Backups are kept for 35 days.\n\n"
        "Date: Wednesday 20 May 2026 in Room 2\n\n"
        "Decision: approved. Two temporary operators are hired for the summer."
    )
    assert candidate_sentences(thread) == [
        "Thanks, that fixed the login for all forty users.",
        "Note: Backups are kept for 35 days.",
        "Date: Wednesday 20 May 2026 in Room 2",
        "Decision: approved. Two temporary operators are hired for the summer.",
    ]


POSTMORTEM = doc(
    "outage-12",
    "Outage 12 postmortem",
    "# Outage 12 postmortem\n\n## Summary\n\nOutage 12 stopped every sync in the EU region for two hours "
    "on 3 May 2026.\n\n## Timeline\n\nAt 09:10 the first alert fired and the on-call engineer was paged.\n\n"
    "## Root cause\n\nA full disk on the primary database node refused every write.\n\n"
    "## Attendees\n\n- Mei Tanaka, incident commander\n- Omar Haddad, database lead\n- Lena Park, support",
)
REVIEW = doc(
    "repair-review",
    "Repair review",
    "# Repair review\n\n**When:** Tuesday 19 May 2026, 14:00–15:00  \n"
    "**Where:** Meeting room 2, mezzanine\n\n"
    "## Description\n\nReview the press repair review of May: the cost, the parts and the contract.",
)


@pytest.fixture
def incidents(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    documents = {"outage.md": POSTMORTEM, "review.md": REVIEW}
    folder = make_persona("ops", rag=documents, retrieval={"max_chunks": 2})
    assert not kb.ingest(folder).failed
    return kb


def test_a_cause_is_read_from_the_root_cause_section_even_when_retrieval_missed_it(
    incidents: KnowledgeBase,
) -> None:
    answer = incidents.ask("What caused outage 12?", persona="ops")
    assert "full disk on the primary database node" in answer.text
    assert "[^outage-12:Outage 12 postmortem > Root cause]" in answer.text


def test_where_is_answered_by_the_field_that_states_it(incidents: KnowledgeBase) -> None:
    answer = incidents.ask("Where is the repair review held?", persona="ops")
    assert "Meeting room 2" in answer.text


def test_every_attendee_is_listed(incidents: KnowledgeBase) -> None:
    answer = incidents.ask("Who attended the outage 12 review?", persona="ops")
    assert all(name in answer.text for name in ("Mei Tanaka", "Omar Haddad", "Lena Park"))


def test_why_over_a_thread_reads_the_reply_up_to_the_cause_not_the_question_asked(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    asked_mail = (
        "# Nightly export\n\nHi,\n\nOne more thing: why does our nightly export script keep getting HTTP 429 "
        "errors around 02:00?\n\nThanks, Priya"
    )
    reply = (
        "# Re: Nightly export\n\nHi Priya,\n\nThe 429 errors from your nightly export script. "
        "Your workspace is on the Pro plan, which allows 1,200 API requests per minute. "
        "That limit is shared by all API keys, so the script and your BI integration count against "
        "the same budget. Read the Retry-After header before retrying.\n\nBest regards,\nTomas"
    )
    documents = {
        "ask.md": doc("ask", "Nightly export", asked_mail),
        "reply.md": doc("reply", "Reply - nightly export", reply),
    }
    assert not kb.ingest(make_persona("support", rag=documents)).failed
    answer = kb.ask(
        "Why does the nightly export script keep getting HTTP 429 errors around 02:00?", persona="support"
    )
    assert "same budget" in answer.text and "1,200" in answer.text
    assert "why does our nightly export" not in answer.text
