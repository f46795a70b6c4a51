"""Pseudo-relevance feedback, RM3 (Lavrenko & Croft's relevance model, mixed back into the query
as Anserini does): the words that make up much of the first search's best chunks, in proportion
to those chunks' scores, join the query's own terms.

Pure arithmetic over term ids: the keyword index supplies the chunks' terms and its statistics,
and says which terms may be added (not stopwords, not in more than a share of the chunks)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable


def relevance_model(
    chunks: list[tuple[list[int], float]], allowed: Callable[[int], bool], terms: int
) -> dict[int, float]:
    """P(t | R) ∝ Σ_d score(d) · tf(t, d) / |d| over the feedback chunks (terms, first-search
    score); the best `terms` allowed terms, their weights summing to 1 (empty: nothing to add)."""
    total = sum(max(score, 0.0) for _, score in chunks)
    if total <= 0:
        return {}
    weights: dict[int, float] = {}
    for found, score in chunks:
        if not found or score <= 0:
            continue
        share = score / total / len(found)
        for term, count in Counter(found).items():
            weights[term] = weights.get(term, 0.0) + share * count
    ranked = sorted(weights.items(), key=lambda pair: (-pair[1], pair[0]))
    best = [(term, weight) for term, weight in ranked if allowed(term)][:terms]
    norm = sum(weight for _, weight in best)
    return {term: weight / norm for term, weight in best} if norm > 0 else {}


def mixed(query: dict[int, float], expansion: dict[int, float], query_weight: float) -> dict[int, float]:
    """`query_weight` × the query's terms (weights summing to 1) + the rest × the expansion's; a
    term in both gets both. Scaled so each of the query's own terms weighs what it did alone
    (1), keeping the scores comparable with an unexpanded search's."""
    if not expansion:
        return dict(query)
    size = sum(query.values())
    mix = {term: query_weight * weight / size for term, weight in query.items()}
    for term, weight in expansion.items():
        mix[term] = mix.get(term, 0.0) + (1.0 - query_weight) * weight
    scale = size / max(query_weight, 1e-9) if query_weight > 0 else size
    return {term: weight * scale for term, weight in mix.items() if weight > 0}
