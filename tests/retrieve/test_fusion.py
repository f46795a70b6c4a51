import pytest

from shu.retrieve.fusion import reciprocal_rank_fusion


def test_rrf_scores_and_order_match_the_formula() -> None:
    bm25 = ["a", "b", "c"]
    dense = ["c", "a", "d"]
    fused = dict(reciprocal_rank_fusion([bm25, dense], k=60))
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["b"] == pytest.approx(1 / 62)
    assert fused["d"] == pytest.approx(1 / 63)
    assert [item for item, _ in reciprocal_rank_fusion([bm25, dense], k=60)] == ["a", "c", "b", "d"]


def test_an_item_in_both_lists_beats_a_top_item_in_one() -> None:
    fused = reciprocal_rank_fusion([["x", "both"], ["y", "both"]], k=60)
    assert fused[0][0] == "both"


def test_small_k_favours_the_top_ranks() -> None:
    lists = [["top", "m1", "m2", "mid"], ["n1", "n2", "n3", "mid"]]
    assert reciprocal_rank_fusion(lists, k=1)[0][0] == "top"
    assert reciprocal_rank_fusion(lists, k=60)[0][0] == "mid"


def test_empty_lists() -> None:
    assert reciprocal_rank_fusion([[], []]) == []


def test_convex_fusion_by_hand() -> None:
    from shu.retrieve.fusion import convex_fusion

    bm25 = [("a", 10.0), ("b", 5.0)]
    dense = [("b", 0.8), ("c", 0.4)]
    fused = dict(convex_fusion([bm25, dense], [0.5, 0.5]))
    # a: 0.5*1.0 + 0.5*(dense floor 0.5) ; b: 0.5*0.5 + 0.5*1.0 ; c: 0.5*(bm25 floor 0.5) + 0.5*0.5
    assert fused == pytest.approx({"a": 0.75, "b": 0.75, "c": 0.5})
    assert [item for item, _ in convex_fusion([bm25, dense], [0.9, 0.1])][:1] == ["a"]
    assert convex_fusion([[], []], [0.5, 0.5]) == []


def test_bm25s_weight_follows_the_embedder_unless_the_persona_sets_it() -> None:
    from shu.models.embed.gemma import GemmaEmbedder
    from shu.models.embed.minilm import MiniLMEmbedder
    from shu.retrieve.hybrid import KEYWORD_WEIGHT, for_embedder, surface_weight
    from shu.types import RetrievalParams

    unset = RetrievalParams()
    gemma = for_embedder(unset, GemmaEmbedder(None))
    assert gemma.convex_alpha == GemmaEmbedder.keyword_weight == 0.3
    assert surface_weight(gemma, "keyword") == pytest.approx(0.3)
    assert surface_weight(gemma, "dense") == pytest.approx(0.7)
    assert for_embedder(unset, MiniLMEmbedder()).convex_alpha == 0.5
    assert for_embedder(unset, object()).convex_alpha == KEYWORD_WEIGHT  # type: ignore[arg-type]
    assert for_embedder(RetrievalParams(convex_alpha=0.7), GemmaEmbedder(None)).convex_alpha == 0.7
    assert surface_weight(unset, "keyword") == KEYWORD_WEIGHT
