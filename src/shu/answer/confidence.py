"""How likely an answer is right, in [0, 1]: a logistic model over what the pipeline measured —
the best evidence sentence, the best retrieval score, whether several surfaces agree on the top
results, the share of claims the verifier did not find supported, and, for a quoted answer,
whether the question asks for a yes or a no (which a quoted answer cannot say; a written answer
can, so the weight fitted on the quoted reader's yes/no mistakes is not held against it). For a
declined question it is how likely nothing in the knowledge base answers it.

A written answer (a model's prose, `llm:…`) is scored by its own model, over what that path has:
the share of its claims the verifier supported and the share it found contradicted, the share
of its sentences that cite, the evidence and retrieval scores, declined or not (`WRITTEN_*`; the
quoted reader's weights misread it: its yes/no weight drove right, verified yes/no answers to 0.14).

The weights are fitted on the answer eval (`shu eval --suite all --answers` prints the fit, its
expected calibration error on held-out questions, and a reliability diagram); `WEIGHTS` below is
that fit. A user can pass their own.
"""

from __future__ import annotations

import math
import re

from shu.types import Answer, RetrievalResult
from shu.types.answers import COLLECTION_METHODS

FEATURES = (
    "bias",
    "declined",
    "evidence",
    "declined_evidence",
    "top_score",
    "agreement",
    "unsupported",
    "yes_no",
)

WEIGHTS: dict[str, float] = {
    "bias": -2.204,
    "declined": 4.575,
    "evidence": 0.0,
    "declined_evidence": -9.215,
    "top_score": 2.297,
    "agreement": 0.615,
    "unsupported": -3.0,
    "yes_no": -2.526,
}
"""Fitted on the dev half of the 1,677 answers of `shu eval --suite all --answers` (run of
2026-11-22; docs/benchmarks.md, "Confidence"), except `unsupported`: every offline answer is
quoted, so none has an unsupported claim and the data cannot fit it; −3 (all claims unsupported
takes most of the confidence) is a prior. `evidence` came out against its direction when the
datasets are pooled (LoCoMo: high evidence, few gold answers quoted) and was left out."""

MONOTONE: dict[str, int] = {
    "evidence": 1,
    "top_score": 1,
    "agreement": 1,
    "declined_evidence": -1,
    "unsupported": -1,
}
"""The direction a feature may move the confidence in (a fit may not invert it)."""

_AGREEMENT_DEPTH = 3
_YES_NO = re.compile(r"^\W*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b", re.I)


def confidence_features(answer: Answer, result: RetrievalResult | None) -> dict[str, float]:
    """The measured signals the confidence is computed from (each in about [0, 1])."""
    declined = 1.0 if answer.insufficient else 0.0
    evidence = answer.evidence if answer.evidence is not None else (0.0 if declined else 0.6)
    hits = result.hits if result is not None else answer.hits
    top = max(0.0, min(1.0, hits[0].score)) if hits else 0.0
    head = hits[:_AGREEMENT_DEPTH]
    agreement = sum(len(h.surfaces) >= 2 for h in head) / len(head) if head else 0.0
    unsupported = 1.0 - answer.verification.support_ratio if answer.verification else 0.0
    about_documents = answer.method in COLLECTION_METHODS  # "is X covered anywhere": a list, not a yes
    return {
        "bias": 1.0,
        "declined": declined,
        "evidence": evidence,
        "declined_evidence": declined * evidence,
        "top_score": top,
        "agreement": agreement,
        "unsupported": 0.0 if declined else unsupported,
        "yes_no": 1.0 if answer.quoted and not about_documents and _YES_NO.match(answer.question) else 0.0,
    }


WRITTEN_FEATURES = (
    "bias",
    "declined",
    "declined_evidence",
    "top_score",
    "supported",
    "contradicted",
    "cited",
)

WRITTEN_WEIGHTS: dict[str, float] = {
    "bias": -0.172,
    "declined": 3.491,
    "declined_evidence": 0.0,
    "top_score": 0.0,
    "supported": 1.482,
    "contradicted": -1.459,
    "cited": 0.0,
}
"""Fitted by `shu eval-confidence` on the 63 written answers Qwen2.5-Coder-1.5B (local, in process)
gave to the labelled dev half (run of 2026-11-27, docs/benchmarks.md). Held apart: its 87 written
answers to the test half, ECE 0.074 (a prior of hand-set weights: 0.188); a capable model's 38
recorded answers to the test half, ECE 0.220 (prior 0.083): calibrated for the local model, it
under-states a capable model (right, fully supported answers read 0.79, not 0.97). `top_score`,
`cited` and `declined_evidence` fitted against their direction or to nothing and are left out."""

WRITTEN_MONOTONE: dict[str, int] = {
    "declined_evidence": -1,
    "top_score": 1,
    "supported": 1,
    "contradicted": -1,
    "cited": 1,
}


def written_features(answer: Answer, result: RetrievalResult | None) -> dict[str, float]:
    """The signals a written answer's confidence is computed from (each in [0, 1]). Unverified
    claims count half supported. A corrected premise is a decline of the question as asked."""
    declined = 1.0 if answer.insufficient or answer.premise else 0.0
    evidence = answer.evidence if answer.evidence is not None else 0.0
    hits = result.hits if result is not None else answer.hits
    verdicts = answer.verification.verdicts if answer.verification else []
    supported = sum(v.verdict == "supported" for v in verdicts) / len(verdicts) if verdicts else 0.5
    contradicted = sum(v.verdict == "contradicted" for v in verdicts) / len(verdicts) if verdicts else 0.0
    factual = [s for s in answer.sentences if len(s.text.split()) >= 4]
    cited = sum(bool(s.citations) for s in factual) / len(factual) if factual else 0.0
    answered = 1.0 - declined
    return {
        "bias": 1.0,
        "declined": declined,
        "declined_evidence": declined * evidence,
        "top_score": max(0.0, min(1.0, hits[0].score)) if hits else 0.0,
        "supported": answered * supported,
        "contradicted": answered * contradicted,
        "cited": answered * cited,
    }


def written(answer: Answer) -> bool:
    """A model wrote the answer's prose (not quoted sentences, not a general-knowledge answer)."""
    return answer.method.startswith("llm:")


def confidence(features: dict[str, float], weights: dict[str, float] | None = None) -> float:
    weights = weights or WEIGHTS
    z = sum(weights.get(name, 0.0) * value for name, value in features.items())
    return round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 4)


def with_confidence(answer: Answer, result: RetrievalResult | None) -> Answer:
    """The answer with its confidence (a deferral out of scope is left without one)."""
    if answer.out_of_scope:
        return answer
    if written(answer):
        score = confidence(written_features(answer, result), WRITTEN_WEIGHTS)
    else:
        score = confidence(confidence_features(answer, result))
    return answer.model_copy(update={"confidence": score})
