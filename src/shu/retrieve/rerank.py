"""The rerank stage: a cross-encoder (or the LLM) scores every hit up to its depth, in batches;
they are sorted by that score and the rest follow. A reranker that fails leaves the fused order,
and says so in the trace."""

from __future__ import annotations

import logging

from shu.errors import ShuError
from shu.models.rerank.base import Reranker
from shu.retrieve.candidates import Candidates, StageContext

log = logging.getLogger(__name__)


class Rerank:
    name = "rerank"

    def __init__(self, reranker: Reranker, depth: int) -> None:
        self.reranker = reranker
        self.depth = depth

    def applies(self, context: StageContext) -> bool:
        return True

    def __call__(self, candidates: Candidates, context: StageContext) -> Candidates:
        hits = candidates.hits
        if not hits:
            return candidates
        head, tail = hits[: self.depth], hits[self.depth :]
        try:
            scores = self.reranker.score(context.query, [f"{h.doc_title}\n{h.chunk.text}" for h in head])
        except ShuError as exc:
            log.warning("rerank failed, fused order kept: %s", exc)
            return candidates.noted(f"rerank failed ({exc.__class__.__name__}): fused order kept")
        ranked = sorted(zip(head, scores, strict=True), key=lambda pair: -pair[1])
        reranked = [hit.model_copy(update={"rerank_score": score}) for hit, score in ranked] + tail
        return candidates.but(hits=reranked)
