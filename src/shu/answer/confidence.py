"""How likely an answer is right, in [0, 1]: a logistic model over what the pipeline measured —
the best evidence sentence, the best retrieval score, whether several surfaces agree on the top
results, and the share of claims the verifier found supported. For a declined question it is how
likely nothing in the knowledge base answers it.

The weights are fitted on the answer eval (`shu eval --suite all --answers` prints the fit, its
expected calibration error on held-out questions, and a reliability diagram); `WEIGHTS` below is
that fit. A user can pass their own.
"""

from __future__ import annotations

import math

from shu.types import Answer, RetrievalResult

FEATURES = (
    "bias",
    "declined",
    "evidence",
    "declined_evidence",
    "top_score",
    "agreement",
    "support",
)

WEIGHTS: dict[str, float] = {
    "bias": -2.0,
    "declined": 2.5,
    "evidence": 3.0,
    "declined_evidence": -5.0,
    "top_score": 1.0,
    "agreement": 0.5,
    "support": 1.0,
}
"""Fitted by `shu eval --suite all --answers` (see docs/benchmarks.md, "Confidence")."""

_AGREEMENT_DEPTH = 3


def confidence_features(answer: Answer, result: RetrievalResult | None) -> dict[str, float]:
    """The measured signals the confidence is computed from (each in about [0, 1])."""
    declined = 1.0 if answer.insufficient else 0.0
    evidence = answer.evidence if answer.evidence is not None else (0.0 if declined else 0.6)
    hits = result.hits if result is not None else answer.hits
    top = max(0.0, min(1.0, hits[0].score)) if hits else 0.0
    head = hits[:_AGREEMENT_DEPTH]
    agreement = sum(len(h.surfaces) >= 2 for h in head) / len(head) if head else 0.0
    support = answer.verification.support_ratio if answer.verification else 1.0
    return {
        "bias": 1.0,
        "declined": declined,
        "evidence": evidence,
        "declined_evidence": declined * evidence,
        "top_score": top,
        "agreement": agreement,
        "support": 0.0 if declined else support,
    }


def confidence(features: dict[str, float], weights: dict[str, float] | None = None) -> float:
    weights = weights or WEIGHTS
    z = sum(weights.get(name, 0.0) * value for name, value in features.items())
    return round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 4)


def with_confidence(answer: Answer, result: RetrievalResult | None) -> Answer:
    """The answer with its confidence (a deferral out of scope is left without one)."""
    if answer.out_of_scope:
        return answer
    return answer.model_copy(update={"confidence": confidence(confidence_features(answer, result))})
