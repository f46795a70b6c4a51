"""Reciprocal Rank Fusion (Cormack et al., 2009): score(d) = Σ_lists 1 / (k + rank_list(d))."""

from __future__ import annotations


def reciprocal_rank_fusion(
    ranked_lists: list[list[str]], k: int = 60, weights: list[float] | None = None
) -> list[tuple[str, float]]:
    """Fuse ranked id lists (best first, rank 1 = first), each optionally weighted.
    Ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranked, weight in zip(ranked_lists, weights or [1.0] * len(ranked_lists), strict=True):
        for rank, item in enumerate(ranked, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: pair[1], reverse=True)


def convex_fusion(
    scored_lists: list[list[tuple[str, float]]], weights: list[float]
) -> list[tuple[str, float]]:
    """Weighted sum of scores, each list divided by its best score. An item missing from a list
    gets that list's lowest normalised score (it ranked below everything the list returned)."""
    normalised: list[dict[str, float]] = []
    for scored in scored_lists:
        best = max((score for _, score in scored), default=0.0)
        scale = best if best > 0 else 1.0
        normalised.append({item: score / scale for item, score in scored})
    floors = [min(values.values(), default=0.0) for values in normalised]
    # every item starts at every list's floor; each list then adds what its items score above it
    fused = dict.fromkeys(
        (item for scored in scored_lists for item, _ in scored),
        sum(w * floor for w, floor in zip(weights, floors, strict=True)),
    )
    for w, values, floor in zip(weights, normalised, floors, strict=True):
        for item, value in values.items():
            fused[item] += w * (value - floor)
    return sorted(fused.items(), key=lambda pair: pair[1], reverse=True)
