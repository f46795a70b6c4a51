"""`shu eval-scope`: the labelled set, the confusion matrix and the calibration of the rules."""

from __future__ import annotations

from collections import Counter

from shu.types import Answer
from shu_eval.scope import Asked, accuracy, calibrate, confusion, decision_of, labelled_questions, redecide


def asked(label: str, closeness: float, evidence: float, split: str = "dev") -> Asked:
    return Asked("p", "q", label, split, "answered", None, closeness, evidence, "extractive")  # type: ignore[arg-type]


def test_the_shipped_set_covers_both_personas_every_label_and_both_splits() -> None:
    questions = labelled_questions()
    counts = Counter((q.persona, q.label, q.split) for q in questions)
    assert len(counts) == 2 * 3 * 2 and min(counts.values()) >= 5
    assert all(q.answers and q.doc_id for q in questions if q.label == "answerable")


def test_decisions_are_read_from_the_answer() -> None:
    base = {"question": "q", "persona": "p", "text": "t", "method": "m"}
    assert decision_of(Answer(**base)) == "answered"
    assert decision_of(Answer(**base, insufficient=True)) == "declined"
    assert decision_of(Answer(**base, insufficient=True, out_of_scope=True)) == "deferred"
    assert decision_of(Answer(**base, out_of_scope=True, from_knowledge_base=False)) == "answered"


def test_calibration_finds_thresholds_that_separate_the_dev_split() -> None:
    rows = [asked("answerable", 0.6, 0.7), asked("answerable", 0.5, 0.6)]
    rows += [asked("unanswerable", 0.5, 0.3), asked("out_of_scope", 0.1, 0.2)]
    scope, score = calibrate(rows, min_evidence=0.4)
    assert score == 1.0 and 0.1 < scope <= 0.5
    decided = redecide(rows, scope, 0.4)
    matrix = confusion(decided)
    assert matrix["answerable"]["answered"] == 2 and matrix["unanswerable"]["declined"] == 1
    assert matrix["out_of_scope"]["deferred"] == 1 and accuracy(decided) == 1.0


def test_abstention_is_calibrated_to_lose_at_most_five_percent_of_answers() -> None:
    from shu_eval.calibrate import choose, rates

    answerable = [(True, 0.30 + i / 100) for i in range(40)]  # evidence 0.30 … 0.69
    unanswerable = [(False, 0.20 + i / 100) for i in range(20)]  # 0.20 … 0.39
    chosen = choose({"a": answerable + unanswerable})
    assert chosen == 0.32, "two of forty answerable (5 %) fall below it, a third would not"
    assert rates(answerable + unanswerable, chosen) == (0.05, 0.6)
    assert choose({"weak": [(True, 0.0), (True, 0.0)]}) is None, "no threshold is safe"
