"""Corrective retrieval and confidence: when an answer is corrected, what is searched for, that
the rounds are bounded, that a correction replaces the answer only when it is better (and the
stream says so), and that every answer carries a confidence in [0, 1]."""

from __future__ import annotations

import pytest

from shu.answer.ask import Responder
from shu.answer.confidence import confidence, confidence_features, with_confidence
from shu.answer.correct import better, correction_needed, missing_terms
from shu.answer.factory import create_responder
from shu.answer.render import shown_body
from shu.answer.stream import StreamReset
from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.types import Answer, ClaimVerdict, SearchHit, Verification
from tests.conftest import PersonaMaker, doc

DOCS = {
    "acme.md": doc(
        "acme-renewal",
        "Acme Corp renewal",
        "# Acme Corp renewal\n\n## Terms\n\nAcme Corp renewed its contract in March 2026 for 240 seats.",
    ),
    "globex.md": doc(
        "globex-renewal",
        "Globex Industries renewal",
        "# Globex Industries renewal\n\n## Terms\n\nGlobex Industries renewed in May 2026 for 80 seats.",
    ),
    "garden.md": doc(
        "garden", "Garden notes", "# Garden notes\n\n## Beds\n\nThe tomato beds are watered at dawn."
    ),
}
QUESTION = "How many seats did Acme Corp and Globex Industries each renew for?"


@pytest.fixture
def narrow(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    """A persona whose retrieval returns one chunk: the first context can miss what is asked."""
    folder = make_persona("sales", rag=DOCS, retrieval={"max_chunks": 1})
    assert not kb.ingest(folder.parent).failed
    return kb


def responder(kb: KnowledgeBase, *overrides: str) -> Responder:
    settings = load_settings(kb.settings.home, ["agent.mode=never", *overrides])
    return create_responder(settings, kb.store, kb.parts.embedder, kb.parts.pipeline, None)


def answer(**fields: object) -> Answer:
    return Answer(question="q", persona="p", text="t", method="llm:m", **fields)  # type: ignore[arg-type]


def test_a_weak_declined_or_unsupported_answer_needs_correction_a_good_one_does_not(
    narrow: KnowledgeBase,
) -> None:
    result = narrow.retrieve("How many seats did Acme Corp and Globex Industries renew?", persona="sales")
    assert correction_needed(answer(evidence=0.9), result, 0.4) is None
    assert "weak evidence" in correction_needed(answer(evidence=0.2), result, 0.4).reason  # type: ignore[union-attr]
    declined = answer(evidence=0.1, insufficient=True)
    assert "declined" in correction_needed(declined, result, 0.4).reason  # type: ignore[union-attr]
    flagged = Verification(
        method="rules", verdicts=[ClaimVerdict(claim="c", verdict="unsupported", reason="r")]
    )
    assert (
        "not supported" in correction_needed(answer(evidence=0.9, verification=flagged), result, 0.4).reason
    )  # type: ignore[union-attr]
    assert correction_needed(answer(evidence=0.1, out_of_scope=True), result, 0.4) is None
    assert correction_needed(answer(evidence=0.1, cached=True), result, 0.4) is None


def test_what_is_searched_again_is_what_no_retrieved_document_holds(narrow: KnowledgeBase) -> None:
    result = narrow.retrieve("How many seats did Acme Corp and Globex Industries renew?", persona="sales")
    held = {d.doc_id for d in result.context.documents}
    missing = missing_terms(answer(evidence=0.2), result).split()
    if held == {"acme-renewal"}:
        assert "globex" in missing and "acme" not in missing
    else:
        assert "acme" in missing and "globex" not in missing
    claim = ClaimVerdict(claim="The tomato beds need 40 litres", verdict="unsupported", reason="r")
    flagged = answer(evidence=0.2, verification=Verification(method="rules", verdicts=[claim]))
    assert {"tomato", "litres"} <= set(missing_terms(flagged, result).split())


def test_a_correction_replaces_the_first_answer_only_when_it_is_better() -> None:
    declined = answer(insufficient=True, evidence=0.1)
    answered = answer(evidence=0.5)
    assert better(declined, answered) and not better(answered, declined)
    supported = Verification(
        method="rules", verdicts=[ClaimVerdict(claim="c", verdict="supported", reason="r")]
    )
    unsupported = Verification(
        method="rules", verdicts=[ClaimVerdict(claim="c", verdict="unsupported", reason="r")]
    )
    assert better(
        answer(evidence=0.5, verification=unsupported), answer(evidence=0.4, verification=supported)
    )
    assert not better(answer(evidence=0.5), answer(evidence=0.51))
    assert better(answer(evidence=0.5), answer(evidence=0.6))


def test_corrective_retrieval_finds_the_missing_document_and_is_bounded(narrow: KnowledgeBase) -> None:
    question = "How many seats did Acme Corp and Globex Industries each renew for?"
    first = {d.doc_id for d in narrow.retrieve(question, persona="sales").context.documents}
    assert len(first) == 1  # one chunk: one of the two companies is missing
    other = ({"acme-renewal", "globex-renewal"} - first).pop()
    asked = responder(narrow, "verify.max_rounds=1", "verify.weak_evidence=2.0").answer(
        question, narrow.persona("sales")
    )
    assert len(asked.corrections) == 1
    correction = asked.corrections[0]
    assert other.split("-")[0] in correction.query
    assert correction.new_documents == [other]
    never = responder(narrow, "verify.max_rounds=0", "verify.weak_evidence=2.0").answer(
        question, narrow.persona("sales")
    )
    assert never.corrections == []


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_corrective_rounds_never_exceed_max_rounds(narrow: KnowledgeBase, rounds: int) -> None:
    asked = responder(narrow, f"verify.max_rounds={rounds}", "verify.weak_evidence=2.0").answer(
        "How many seats did Acme Corp, Globex Industries and Initech renew in total?", narrow.persona("sales")
    )
    assert len(asked.corrections) <= rounds


def test_a_quoted_answer_is_sent_once_its_correction_is_settled(narrow: KnowledgeBase) -> None:
    """A quoted answer is chosen whole: its text is sent after corrective retrieval, so a kept
    correction shows no draft to withdraw — the pieces are the final answer's."""
    events = list(
        responder(narrow, "verify.max_rounds=1", "verify.weak_evidence=2.0").stream(
            QUESTION, narrow.persona("sales")
        )
    )
    final = events[-1]
    assert isinstance(final, Answer) and final.quoted
    assert any(c.kept for c in final.corrections), "the second search was better: the case under test"
    assert not [e for e in events if isinstance(e, StreamReset)]
    pieces = [e for e in events if isinstance(e, str)]
    assert pieces and "".join(pieces) == shown_body(final)


def test_every_answer_carries_a_confidence_that_follows_the_evidence(narrow: KnowledgeBase) -> None:
    asked = narrow.ask("How many seats did Acme Corp renew for?", persona="sales", use_cache=False)
    assert asked.confidence is not None and 0.0 <= asked.confidence <= 1.0
    hit = asked.hits[0]

    def quoted(**fields: object) -> Answer:  # the quoted reader's model reads the retrieval
        return answer(**fields).model_copy(update={"method": "extractive"})

    strong = with_confidence(quoted(evidence=0.5, hits=[hit.model_copy(update={"score": 0.9})]), None)
    weak = with_confidence(quoted(evidence=0.5, hits=[hit.model_copy(update={"score": 0.2})]), None)
    assert strong.confidence > weak.confidence  # type: ignore[operator]
    yes_no = with_confidence(
        quoted(evidence=0.5, hits=[hit]).model_copy(update={"question": "Did it?"}), None
    )
    assert yes_no.confidence < with_confidence(quoted(evidence=0.5, hits=[hit]), None).confidence  # type: ignore[operator]
    sure_decline = with_confidence(quoted(insufficient=True, evidence=0.05, hits=[hit]), None)
    doubtful_decline = with_confidence(quoted(insufficient=True, evidence=0.3, hits=[hit]), None)
    assert sure_decline.confidence > doubtful_decline.confidence  # type: ignore[operator]
    flagged = Verification(
        method="rules", verdicts=[ClaimVerdict(claim="c", verdict="unsupported", reason="r")]
    )
    supported = Verification(
        method="rules", verdicts=[ClaimVerdict(claim="c", verdict="supported", reason="r")]
    )
    for make in (answer, quoted):  # a written answer's model reads what its verifier found
        unsupported = with_confidence(make(evidence=0.5, hits=[hit], verification=flagged), None)
        held = with_confidence(make(evidence=0.5, hits=[hit], verification=supported), None)
        assert unsupported.confidence < held.confidence  # type: ignore[operator]
    assert with_confidence(answer(out_of_scope=True), None).confidence is None


def test_confidence_features_read_scores_agreement_and_support(narrow: KnowledgeBase) -> None:
    hits: list[SearchHit] = narrow.search("Acme Corp seats", persona="sales")
    agreeing = hits[0].model_copy(update={"surfaces": {"keyword": 1, "dense": 1}, "score": 0.7})
    alone = hits[0].model_copy(update={"surfaces": {"dense": 1}, "score": 0.7})
    flagged = Verification(
        method="rules",
        verdicts=[
            ClaimVerdict(claim="a", verdict="supported", reason="r"),
            ClaimVerdict(claim="b", verdict="unsupported", reason="r"),
        ],
    )
    features = confidence_features(answer(evidence=0.5, hits=[agreeing], verification=flagged), None)
    assert features["agreement"] == 1.0 and features["unsupported"] == 0.5 and features["top_score"] == 0.7
    assert confidence_features(answer(evidence=0.5, hits=[alone]), None)["agreement"] == 0.0
    assert 0.0 <= confidence(features) <= 1.0
