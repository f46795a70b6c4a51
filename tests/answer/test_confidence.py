"""The answer's confidence: what it reads from the answer and the retrieval."""

from __future__ import annotations

from shu.answer.confidence import confidence, confidence_features
from shu.types import Answer, ClaimVerdict, Verification

SUPPORTED = Verification(
    method="llm:m", verdicts=[ClaimVerdict(claim="No.", verdict="supported", reason="r")]
)


def test_a_yes_no_question_weighs_against_a_quoted_answer_only() -> None:
    """A quoted answer cannot say yes or no; a written one can. Once a right, fully supported
    model answer to a yes/no question read 0.12–0.14."""
    question = "Do I need to be a member to join the waiting list?"
    written = Answer(question=question, persona="p", text="No.", method="llm:m", verification=SUPPORTED)
    quoted = written.model_copy(update={"method": "extractive", "verification": None})
    assert confidence_features(quoted, None)["yes_no"] == 1.0
    assert confidence_features(written, None)["yes_no"] == 0.0
    asked_what = written.model_copy(update={"question": "What does joining the waiting list need?"})
    assert confidence(confidence_features(written, None)) == confidence(confidence_features(asked_what, None))
