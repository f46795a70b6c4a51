"""Follow-ups made to stand alone by rules over the turn before (no LLM)."""

from __future__ import annotations

import pytest

from shu.retrieve.followup import Previous, standalone


@pytest.mark.parametrize(
    ("question", "before", "expected"),
    [
        (
            "and the Team plan?",
            "What does the Pro plan cost per seat?",
            "What does the Team plan cost per seat?",
        ),
        (
            "what about last year?",
            "How many incidents were there this year?",
            "How many incidents were there last year?",
        ),
        ("and in 2025?", "Who won the award?", "Who won the award in 2025?"),
        ("What are its limits?", "What is the Starter plan?", "What are the Starter plan's limits?"),
        ("how do I cancel it?", "How do I start a free trial?", "how do I cancel a free trial?"),
    ],
)
def test_a_follow_up_is_searched_standing_alone(question: str, before: str, expected: str) -> None:
    assert standalone(question, Previous(before)) == expected


def test_a_question_that_names_its_subject_stands_as_it_is() -> None:
    before = Previous("What does the Pro plan cost?")
    assert standalone("What is the SLA of the Enterprise plan?", before) is None
    assert standalone("Does the Enterprise plan include single sign-on for every team?", before) is None


def test_nothing_before_means_nothing_to_rewrite() -> None:
    assert standalone("and the Team plan?", None) is None
    assert standalone("and the Team plan?", Previous("  ")) is None


def test_a_pronoun_with_no_phrase_to_take_gets_the_cited_title() -> None:
    assert (
        standalone("who wrote it?", Previous("Why?", ("Refund policy",))) == "who wrote it (Refund policy)?"
    )
