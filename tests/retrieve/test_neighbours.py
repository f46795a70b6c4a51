"""Scores borrowed from neighbouring chunks and from the rest of the document."""

from __future__ import annotations

from shu.retrieve.neighbours import with_adjacent, with_document

FUSED = [("t2", 1.0), ("x0", 0.8), ("t4", 0.3)]
ADJACENT = {"t2": ["t1", "t3"], "t4": ["t3", "t5"], "x0": ["x1"]}


def test_a_zero_weight_changes_nothing() -> None:
    assert with_adjacent(FUSED, ADJACENT, 0.0) == FUSED
    assert with_document(FUSED, {"t2": "t", "x0": "x", "t4": "t"}, 0.0) == FUSED


def test_a_neighbour_of_a_strong_chunk_joins_and_a_chunk_gains_from_its_best_neighbour() -> None:
    ranked = dict(with_adjacent(FUSED, ADJACENT, 0.5))
    assert ranked["t3"] == 0.5, "between t2 (1.0) and t4 (0.3): half of the best"
    assert ranked["t1"] == 0.5 and ranked["x1"] == 0.4
    assert ranked["t2"] == 1.0 and ranked["t4"] == 0.3, "t4's neighbours were not scored"
    order = [c for c, _ in with_adjacent(FUSED, ADJACENT, 0.5)]
    assert order[:2] == ["t2", "x0"] and order.index("t3") < order.index("t4")


def test_chunks_of_a_document_with_many_matches_rise_together() -> None:
    owners = {"t2": "t", "x0": "x", "t4": "t"}
    ranked = with_document(FUSED, owners, 0.5)
    assert [c for c, _ in ranked] == ["t2", "x0", "t4"]
    assert dict(ranked)["t4"] == 0.3 + 0.5 * 1.0 and dict(ranked)["x0"] == 0.8
    assert with_document([("a", 1.0), ("unknown", 0.5)], {"a": "d"}, 1.0) == [("a", 1.0), ("unknown", 0.5)]


def test_a_listed_neighbour_keeps_its_own_score_and_gains() -> None:
    ranked = dict(with_adjacent([("a", 1.0), ("b", 0.9), ("c", 0.8)], {"a": ["c"]}, 0.2))
    assert ranked["c"] == 0.8 + 0.2 * 1.0 and ranked["b"] == 0.9
