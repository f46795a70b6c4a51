"""The answer's confidence: what it reads from the answer and the retrieval."""

from __future__ import annotations

from shu.answer.confidence import confidence, confidence_features, with_confidence, written_features
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


def _written(verdicts: list[str], **fields: object) -> Answer:
    verification = Verification(
        method="rules",
        verdicts=[ClaimVerdict(claim=f"claim {i}", verdict=v, reason="r") for i, v in enumerate(verdicts)],
    )
    return Answer(question="q", persona="p", text="t", method="llm:m", verification=verification, **fields)


def test_a_written_answer_is_scored_by_its_own_model() -> None:
    """Issue 41.3: a model's right, fully supported answer read 0.67 at best under the quoted
    reader's weights. Now: what its verifier found decides, in order."""
    supported = with_confidence(_written(["supported"] * 4), None).confidence
    half = with_confidence(
        _written(["supported", "supported", "unsupported", "unsupported"]), None
    ).confidence
    contradicted = with_confidence(
        _written(["supported", "supported", "contradicted", "contradicted"]), None
    ).confidence
    assert supported is not None and half is not None and contradicted is not None
    assert supported >= 0.6 and supported > half > contradicted
    features = written_features(_written(["supported"] * 4), None)
    assert features["supported"] == 1.0 and features["declined"] == 0.0
    declined = _written([], insufficient=True)
    assert (
        written_features(declined, None)["supported"] == 0.0
        and written_features(declined, None)["declined"] == 1.0
    )
    corrected = _written(["supported"], premise=True)
    assert written_features(corrected, None)["declined"] == 1.0, (
        "a corrected premise declines the question as asked"
    )
    quoted = _written(["supported"] * 4).model_copy(update={"method": "extractive"})
    assert with_confidence(quoted, None).confidence == confidence(confidence_features(quoted, None))
