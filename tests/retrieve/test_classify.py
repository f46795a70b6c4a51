"""The rule-based planner on a labelled set, and the parts of a plan it extracts."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from shu.retrieve.classify import classify, temporal_scope

LABELLED = Path(__file__).parent / "data" / "classify.jsonl"
KNOWN = ["jeff skilling", "maria", "priya", "lumen analytics"]


def test_query_types_on_the_labelled_set() -> None:
    rows = [json.loads(line) for line in LABELLED.read_text().splitlines()]
    wrong = Counter()
    for row in rows:
        found = classify(row["query"], KNOWN).query_type
        if found != row["type"]:
            wrong[f"{row['type']}→{found}"] += 1
    accuracy = 1 - sum(wrong.values()) / len(rows)
    assert len(rows) >= 60 and {json.loads(r)["type"] for r in LABELLED.read_text().splitlines()} == {
        "factual",
        "interpretive",
        "relational",
        "temporal",
        "structural",
        "document_lookup",
        "multi_step",
    }
    assert accuracy >= 0.9, f"accuracy {accuracy:.2f}; mistakes {dict(wrong)}"


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What changed since March 2025?", "2025-03", "2025-03"),
        ("What was decided on 2024-05-14?", "2024-05-14", "2024-05-14"),
        ("Revenue in Q3 2024", "2024-07", "2024-09"),
        ("Compare 2023 and 2025 hiring", "2023", "2025"),
        ("What is the Pro plan price?", None, None),
    ],
)
def test_temporal_scope(question: str, start: str | None, end: str | None) -> None:
    scope = temporal_scope(question)
    assert (scope.start, scope.end) == (start, end)


WEDNESDAY = date(2026, 11, 25)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What movie did Joanna watch on 1 May, 2022?", "2022-05-01", "2022-05-01"),
        ("Who did Maria have dinner with on May 3, 2023?", "2023-05-03", "2023-05-03"),
        ("What happened on the 3rd of May 2023?", "2023-05-03", "2023-05-03"),
        ("Where was Tim in the week before 16 November 2023?", "2023-11-09", "2023-11-16"),
        ("What did Nate do the weekend before 20 October 2023?", "2023-10-12", "2023-10-19"),
        ("When is the talent show in September 2023?", "2023-09", "2023-09"),
        ("What did we decide yesterday?", "2026-11-24", "2026-11-24"),
        ("What did we decide last week?", "2026-11-16", "2026-11-24"),
        ("Which incidents happened last month?", "2026-10", "2026-10"),
        ("What shipped this year?", "2026", "2026"),
        ("What is due next week?", "2026-11-30", "2026-12-06"),
        ("What did Ada send two days ago?", "2026-11-23", "2026-11-23"),
        ("What did Ada say last Friday?", "2026-11-13", "2026-11-20"),
        ("What is the Pro plan price today?", "2026-11-25", "2026-11-25"),
        ("When did Caroline go to the LGBTQ support group?", None, None),
    ],
)
def test_temporal_scope_of_days_weeks_and_words_relative_to_the_day_asked(
    question: str, start: str | None, end: str | None
) -> None:
    scope = temporal_scope(question, WEDNESDAY)
    assert (scope.start, scope.end) == (start, end)


def test_relative_words_need_the_day_asked() -> None:
    assert temporal_scope("What did we decide last week?") == temporal_scope("What did we decide?")
    plan = classify("What did we decide last week?", today=WEDNESDAY)
    assert plan.query_type == "temporal" and plan.temporal_scope.start == "2026-11-16"


def test_a_lookup_names_the_document_and_asks_for_all_of_it() -> None:
    plan = classify("Show me my biography", KNOWN)
    assert plan.query_type == "document_lookup" and plan.answer_style == "full_document"
    assert plan.title_hints == ["biography"]
    assert classify("What's in the onboarding checklist?").title_hints == ["onboarding checklist"]


def test_names_the_store_knows_become_entities() -> None:
    plan = classify("What did Jeff Skilling say about the deal in May 2001?", KNOWN)
    assert plan.query_type == "relational" and plan.entities[0] == "jeff skilling"
    assert plan.temporal_scope.start == "2001-05"
    assert classify("Which documents cover data retention?").answer_style == "list_sources"
    assert classify("any e-mail about the refund?").implied_document_type == "email"


def test_fetching_a_fact_or_a_how_to_is_not_a_document_lookup() -> None:
    assert classify("give me the price of the pro plan").query_type == "factual"
    assert classify("show me how to reset my password").title_hints == []
    assert classify("Give me the full text of the employment contract").title_hints == ["employment contract"]
