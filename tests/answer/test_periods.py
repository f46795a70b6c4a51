"""A month the question names that no retrieved text names and no document's span of time
reaches: the event it asks about is not in the knowledge base."""

from __future__ import annotations

import pytest

from shu.answer.periods import Month, asked_months, uncovered_months

QUESTION = "What was decided at the October 2026 general meeting?"


@pytest.mark.parametrize(
    ("question", "months"),
    [
        (QUESTION, [Month(2026, 10)]),
        ("What did Gina get on May 23, 2023?", [Month(2023, 5)]),
        ("The 12 Oct 2026 meeting and the 1st of May, 2025 one", [Month(2026, 10), Month(2025, 5)]),
        ("What happened in 2026?", []),
        ("What happens at the October meeting?", []),
        ("May 2023 be a good year?", [Month(2023, 5)]),
    ],
)
def test_a_month_counts_only_with_its_year(question: str, months: list[Month]) -> None:
    assert asked_months(question) == months


def test_a_month_no_text_and_no_document_covers_is_uncovered() -> None:
    spans = {"agm-minutes": ("2025-10-18", "2026-04-18"), "april-minutes": ("2026-04-18", "2026-07-18")}
    sections = ["General meetings are held in April, July and October.", "Minutes of October 2025 approved."]
    missing = uncovered_months(QUESTION, sections, spans, ["agm-minutes", "april-minutes"])
    assert missing == [Month(2026, 10)] and str(missing[0]) == "October 2026"


@pytest.mark.parametrize(
    "sections", [["The meeting of 18 October 2026 decided …"], ["Next: October 2026"], ["2026-10-18 vote"]]
)
def test_a_retrieved_section_naming_the_month_covers_it(sections: list[str]) -> None:
    assert uncovered_months(QUESTION, sections, {}, []) == []


def test_a_retrieved_document_spanning_the_month_covers_it_however_long() -> None:
    spans = {"sponsorship": ("2026-04-18", "2027-05-31")}
    assert uncovered_months(QUESTION, [], spans, ["sponsorship"]) == []


def test_a_document_not_retrieved_for_the_question_does_not_cover_it() -> None:
    stand_up = {"stand-up": ("2026-10-05", "2026-10-05")}
    assert uncovered_months(QUESTION, [], stand_up, []) == [Month(2026, 10)], "another event of that month"
    assert uncovered_months(QUESTION, [], stand_up, ["stand-up"]) == []


def test_asked_about_a_month_no_document_covers_the_answer_declines_naming_it(kb, make_persona) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import doc

    minutes = "# Minutes\n\n## Decisions\n\nThe meeting decided to buy two new compost bins for $120."
    rules = "# Bylaws\n\nGeneral meetings are held each quarter, in April, July and October."
    folder = make_persona(
        "garden",
        rag={
            "april.md": doc("april-minutes", "General meeting, 18 April 2026", minutes, date="2026-04-18"),
            "bylaws.md": doc("bylaws", "Bylaws", rules),
        },
    )
    assert not kb.ingest(folder.parent).failed
    declined = kb.ask("What was decided at the October 2026 general meeting?", persona="garden")
    assert declined.insufficient and "“October 2026”" in declined.text and declined.citations == []
    answered = kb.ask("What was decided at the April 2026 general meeting?", persona="garden")
    assert not answered.insufficient and "compost bins" in answered.text
