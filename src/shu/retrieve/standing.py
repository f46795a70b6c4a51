"""What a passage's document says of its standing, without an asker: how fresh it is (a
persona's time decay) and how authoritative its source (the capability manifest's
`authority_level`) — each a bounded share of the score — and the quality floor below which a
passage is dropped (a share of the best score). Each is off until a persona turns it on:
docs/design/query-pipeline.md#standing has the measurements."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from shu.text import iso_date
from shu.types import Document, DocumentProfile, RetrievalParams

_AUTHORITY_SIGN = {"authoritative": 1.0, "informative": 0.0, "informal": -1.0, "unknown": 0.0}


def freshness(doc: Document, params: RetrievalParams, today: date) -> float:
    """The score's factor for the document's age: 1 when new, down to 1 − `freshness_weight`
    when very old (half way at the half-life); 1 for an undated document or with decay off."""
    half_life = params.freshness_half_life_days
    written = iso_date(doc.date)
    if half_life is None or written is None or not params.freshness_weight:
        return 1.0
    age = max((today - written).days, 0)
    decayed = float(0.5 ** (age / half_life))
    return 1.0 - params.freshness_weight * (1.0 - decayed)


def authority(profile: DocumentProfile | None, params: RetrievalParams) -> float:
    """The score's factor for the source's authority: 1 ± `authority_boost`."""
    if profile is None or not params.authority_boost:
        return 1.0
    return 1.0 + params.authority_boost * _AUTHORITY_SIGN.get(profile.manifest.authority_level, 0.0)


def standing(
    scored: list[tuple[str, float]],
    owners: Mapping[str, str],
    docs: Mapping[str, Document],
    profiles: Mapping[str, DocumentProfile],
    params: RetrievalParams,
    today: date,
) -> list[tuple[str, float]]:
    """(chunk id, score) pairs with freshness and authority applied, best first, those below the
    quality floor dropped."""
    factors: dict[str, float] = {}
    for doc_id, doc in docs.items():
        factors[doc_id] = freshness(doc, params, today) * authority(profiles.get(doc_id), params)
    rescored = sorted(
        ((chunk_id, score * factors.get(owners[chunk_id], 1.0)) for chunk_id, score in scored),
        key=lambda pair: pair[1],
        reverse=True,
    )
    if params.min_relative_score and rescored:
        floor = params.min_relative_score * rescored[0][1]
        rescored = [pair for pair in rescored if pair[1] >= floor]
    return rescored


def active(params: RetrievalParams) -> bool:
    """Whether any of it is on (profiles are read only then)."""
    return bool(
        params.freshness_half_life_days is not None or params.authority_boost or params.min_relative_score
    )
