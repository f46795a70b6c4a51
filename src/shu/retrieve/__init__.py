"""Question-time retrieval: hybrid search today; planning, surfaces and reranking later."""

from shu.retrieve.fusion import reciprocal_rank_fusion
from shu.retrieve.hybrid import HybridSearcher

__all__ = ["HybridSearcher", "reciprocal_rank_fusion"]
