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
