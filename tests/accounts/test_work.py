"""When a user works: hours and weekdays from their own messages' and meetings' times, absences
from their calendar and automatic replies — and a meeting held while they were away ranked
lower for them, with the reason in the trace."""

from __future__ import annotations

from shu.accounts.work import work_pattern
from shu.kb import KnowledgeBase
from shu.retrieve.personal import personal_boost
from shu.types import Document
from tests.conftest import PersonaMaker, doc

ME = "ana@acme.example"


def document(doc_id: str, title: str, kind: str, day: str, role: str = "author", **meta: object) -> Document:
    people = [
        {"name": "Ana Lima", "email": ME, "role": role},
        {"name": "Ben", "email": "ben@acme.example", "role": "recipient"},
    ]
    return Document(
        id=doc_id, title=title, personas=["p"], content_hash="", path=f"/{doc_id}.md", date=day, type=kind,
        meta={"participants": people, **meta},
    )  # fmt: skip


TEXT = {
    "auto": "Thank you for your message. I am out of the office until 5 December 2025 with limited access."
}


def test_hours_and_weekdays_come_from_the_users_own_timed_messages() -> None:
    weekdays = ["2025-11-10", "2025-11-11", "2025-11-12", "2025-11-13", "2025-11-14", "2025-11-17",
                "2025-11-18", "2025-11-19", "2025-11-20", "2025-11-21"]  # fmt: skip
    hours = [8, 9, 9, 10, 11, 13, 14, 15, 16, 17]
    sent = [document(f"m{i}", f"Mail {i}", "email", day, sent=f"{day}T{hour:02d}:15+01:00")
            for i, (day, hour) in enumerate(zip(weekdays, hours, strict=True))]  # fmt: skip
    late = document("late", "Late mail", "email", "2025-11-15", sent="2025-11-15T23:40+01:00")
    received = document(
        "r1", "To Ana", "email", "2025-11-16", role="recipient", sent="2025-11-16T03:00+01:00"
    )
    learned = work_pattern([*sent, late, received], {ME}, lambda d: "")
    assert learned.hours == (9, 17), "the middle 80 % of her own messages; a received one says nothing"
    assert learned.weekdays == [0, 1, 2, 3, 4], "one Saturday message is no working day"
    assert work_pattern(sent[:4], {ME}, lambda d: "").hours is None, "four timed messages say nothing yet"


def test_absences_come_from_calendar_events_and_automatic_replies() -> None:
    own = [
        document("leave", "Out of office", "meeting", "2025-11-10", start="2025-11-10", end="2025-11-14"),
        document(
            "trip",
            "Business trip to Lisbon",
            "meeting",
            "2026-02-02",
            start="2026-02-02T08:00+00:00",
            end="2026-02-04T18:00+00:00",
        ),
        document("auto", "Automatic reply: Budget", "email", "2025-12-01"),
        document("review", "Quarterly review", "meeting", "2025-11-12"),
        document(
            "invited",
            "Vacation",
            "meeting",
            "2025-08-01",
            role="recipient",
            start="2025-08-01",
            end="2025-08-10",
        ),
        document("sabbatical", "On leave", "meeting", "2025-01-01", start="2025-01-01", end="2025-12-31"),
        document(
            "party",
            "Holiday party",
            "meeting",
            "2025-12-19",
            start="2025-12-19T17:00+01:00",
            end="2025-12-19T21:00+01:00",
        ),
        document("budget", "Travel budget review", "meeting", "2025-10-02", start="2025-10-02T10:00+01:00"),
    ]
    absences = work_pattern(own, {ME}, lambda d: TEXT.get(d.id, "")).absences
    assert [(a.start, a.end, a.reason, a.doc_id) for a in absences] == [
        ("2025-11-10", "2025-11-14", "Out of office", "leave"),
        ("2025-12-01", "2025-12-05", "automatic reply", "auto"),
        ("2026-02-02", "2026-02-04", "Business trip to Lisbon", "trip"),
    ], (
        "a meeting is no absence (a party, a travel budget); someone else's vacation is not hers; "
        "a year away is not believed"
    )


MISSED = (
    "# Pricing meeting\n\n## Decisions\n\nThe pricing meeting decided the pilot price: 42 euros per seat."
)
ATTENDED = (
    "# Pricing review\n\n## Outcome\n\nThe pilot is priced at 40 euros per seat; invoicing is quarterly."
)


def test_a_meeting_held_while_the_asker_was_away_ranks_below_the_one_they_attended(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    people = [
        {"name": "Ana Lima", "email": ME, "role": "attendee"},
        {"name": "Ben Ode", "email": "ben@acme.example", "role": "organizer"},
    ]
    rag = {
        "leave.md": doc("ana-leave", "Out of office", "# Out of office\n\nAna is on leave.", type="meeting",
                        date="2025-11-10", start="2025-11-10", end="2025-11-14",
                        participants=[{"name": "Ana Lima", "email": ME, "role": "author"}]),
        "missed.md": doc("pricing-call", "Pricing meeting", MISSED, type="meeting", date="2025-11-12",
                         participants=people),
        "attended.md": doc("pricing-review", "Pricing meeting", ATTENDED, type="meeting", date="2025-11-20",
                           participants=people),
    }  # fmt: skip
    assert not kb.ingest(make_persona("sales", rag=rag)).failed
    kb.accounts.set_user("ana", {"name": "Ana Lima", "emails": [ME]})
    learned = kb.accounts.learn_user("ana")
    assert [(a.start, a.end) for a in learned.work.absences] == [("2025-11-10", "2025-11-14")]
    from tests.serve.test_cli import shu

    code, shown = shu(kb.settings.home, "users", "show", "ana")
    away = next(line for line in shown.splitlines() if "away" in line)
    assert code == 0 and "2025-11-10" in away and "ana-leave" in away, shown
    result = kb.retrieve("What was decided in the pricing meeting?", persona="sales", user="ana")
    reasons = {b.doc_id: b.reasons for b in result.personal}
    assert any(
        "held while you were away (Out of office, 2025-11-10 – 2025-11-14)" in r
        for r in reasons["pricing-call"]
    )
    assert not any("away" in r for r in reasons["pricing-review"])
    # two meetings retrieval cannot tell apart (equal scores): the one she attended goes first
    first = {
        c.doc_id: c.id
        for c in [*kb.store.list_chunks("pricing-call"), *kb.store.list_chunks("pricing-review")]
    }
    tied = [(first["pricing-call"], 1.0), (first["pricing-review"], 1.0)]
    asker = kb.asker("ana")
    assert asker is not None
    settings = kb.settings.retrieval.personal
    ranked, _, _ = personal_boost(tied, asker, kb.store, settings, "What was decided in the pricing meeting?")
    assert [c for c, _ in ranked] == [first["pricing-review"], first["pricing-call"]]
    paused = settings.model_copy(update={"away": 0.0})
    ranked, _, _ = personal_boost(tied, asker, kb.store, paused, "What was decided in the pricing meeting?")
    assert [c for c, _ in ranked] == [first["pricing-call"], first["pricing-review"]], "away = 0: a tie stays"
