"""How likely an answer is right, in [0, 1]: a logistic model over what the pipeline measured —
the best evidence sentence, the best retrieval score, whether several surfaces agree on the top
results, the share of claims the verifier did not find supported, and, for a quoted answer,
whether the question asks for a yes or a no (which a quoted answer cannot say; a written answer
can, so the weight fitted on the quoted reader's yes/no mistakes is not held against it). For a
declined question it is how likely nothing in the knowledge base answers it.

The weights are fitted on the answer eval (`shu eval --suite all --answers` prints the fit, its
expected calibration error on held-out questions, and a reliability diagram); `WEIGHTS` below is
that fit. A user can pass their own.
"""

from __future__ import annotations

import math
import re

from shu.types import Answer, RetrievalResult

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
    return {
        "bias": 1.0,
        "declined": declined,
        "evidence": evidence,
        "declined_evidence": declined * evidence,
        "top_score": top,
        "agreement": agreement,
        "unsupported": 0.0 if declined else unsupported,
        "yes_no": 1.0 if answer.quoted and _YES_NO.match(answer.question) else 0.0,
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
