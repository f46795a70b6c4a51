"""The question read once for the reader (`QuestionReading`)."""

from __future__ import annotations

from shu.answer.extractive.reading import read_question


def test_a_comparison_is_read_with_its_two_sides_and_a_yes_no_as_one() -> None:
    compared = read_question("Which is cheaper, the Team plan or the Pro plan?")
    assert compared.sides is not None and not compared.yes_no
    verdict = read_question("Is the Pro plan cheaper than the Team plan?")
    assert verdict.yes_no and verdict.sides is None
    assert not verdict.live and not verdict.when and verdict.kind is None


def test_a_when_question_about_the_past_wants_a_date_and_one_ahead_does_not_date_by_the_message() -> None:
    past = read_question("When did the Lisbon migration finish?")
    assert past.when and past.kind is not None and past.kind.kind == "when"
    assert past.expected is not None and past.expected.search("on 2026-05-01")
    assert not read_question("When will the Lisbon migration finish?").when


def test_what_was_decided_wants_every_decision_and_about_one_thing_only_that_one() -> None:
    every = read_question("What was decided at the 20 May meeting?")
    assert every.many and every.every and not every.yes_no
    about = read_question("What did the meeting decide about drip irrigation?")
    assert about.many and not about.every


def test_live_information_and_an_amount_are_read_as_what_no_document_or_only_a_price_answers() -> None:
    assert read_question("What is the weather forecast for tomorrow?").live
    cost = read_question("How much does the Pro plan cost?")
    assert cost.expected is not None and cost.expected.search("$49 a month") and not cost.live
