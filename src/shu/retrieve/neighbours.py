"""Scores that borrow from a chunk's surroundings after fusion, for documents whose chunks are
short parts of one whole (conversation turns, e-mail paragraphs, facts of one article):

- adjacent: a chunk gains a share of its best neighbour's score (a turn alone is short; the turn
  before or after says what it is about), and a neighbour of a strong chunk can join the list;
- document: a chunk gains a share of what the other chunks of its document scored (a document
  with many matching parts is about the question).

Both work on fused (chunk id, score) lists and leave the order alone when their weight is 0;
`with_surroundings` applies both as the persona's parameters weigh them.
"""

from __future__ import annotations

from collections import defaultdict

from shu.retrieve.candidates import Candidates, StageContext
from shu.store.base import KnowledgeReader
from shu.types import RetrievalParams

Fused = list[tuple[str, float]]


def with_surroundings(store: KnowledgeReader, fused: Fused, params: RetrievalParams) -> Fused:
    """Neighbouring chunks and the rest of the document lend a share of their scores (the
    neighbours of the best `2 × candidates` chunks; every chunk keeps its own score)."""
    head = [chunk_id for chunk_id, _ in fused[: params.candidates * 2]]
    if params.adjacent_weight:
        fused = with_adjacent(fused, store.adjacent_chunks(head), params.adjacent_weight)
    if params.document_weight:
        fused = with_document(fused, store.chunk_documents(head), params.document_weight)
    return fused


def with_adjacent(fused: Fused, adjacent: dict[str, list[str]], weight: float) -> Fused:
    """score(c) + weight × max(score of c's neighbours); unscored neighbours count 0."""
    if not weight or not fused:
        return fused
    scores = dict(fused)
    borrowed: dict[str, float] = {}
    for chunk_id, score in fused:
        for neighbour in adjacent.get(chunk_id, []):
            borrowed[neighbour] = max(borrowed.get(neighbour, 0.0), score)
    combined = {
        c: scores.get(c, 0.0) + weight * borrowed.get(c, 0.0) for c in scores.keys() | borrowed.keys()
    }
    return _ranked(combined, fused)


def with_document(fused: Fused, owners: dict[str, str], weight: float) -> Fused:
    """score(c) + weight × (sum of the scores of the other listed chunks of c's document)."""
    if not weight or not fused:
        return fused
    totals: dict[str, float] = defaultdict(float)
    for chunk_id, score in fused:
        if chunk_id in owners:
            totals[owners[chunk_id]] += score
    combined = {
        chunk_id: score + weight * (totals[owners[chunk_id]] - score) if chunk_id in owners else score
        for chunk_id, score in fused
    }
    return _ranked(combined, fused)


def _ranked(scores: dict[str, float], fused: Fused) -> Fused:
    """Best first; ties keep the fused order, newcomers after."""
    order = {chunk_id: rank for rank, (chunk_id, _) in enumerate(fused)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order.get(pair[0], len(order)), pair[0]))


class Surroundings:
    """The stage: neighbours and the rest of the document lend their shares."""

    name = "surroundings"

    def __init__(self, store: KnowledgeReader) -> None:
        self.store = store

    def applies(self, context: StageContext) -> bool:
        return bool(context.params.adjacent_weight or context.params.document_weight)

    def __call__(self, candidates: Candidates, context: StageContext) -> Candidates:
        return candidates.but(ranked=with_surroundings(self.store, candidates.ranked, context.params))
