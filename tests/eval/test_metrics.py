"""Metric values computed by hand for small rankings."""

import math

import pytest

from shu_eval.metrics import evaluate

QRELS = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}, "q3": {"d4": 1}}


def test_hand_computed_values() -> None:
    rankings = {"q1": ["d9", "d1", "d8", "d2"], "q2": ["d3"], "q3": []}
    means, per_query = evaluate(QRELS, rankings)
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3)
    assert per_query["q1"]["nDCG@10"] == pytest.approx(dcg / ideal)  # 0.65092
    assert per_query["q1"]["MRR@10"] == pytest.approx(0.5)
    assert per_query["q1"]["Recall@5"] == per_query["q1"]["Hits@10"] == 1.0
    assert per_query["q2"] == {k: 1.0 for k in per_query["q2"]}
    assert per_query["q3"] == {k: 0.0 for k in per_query["q3"]}, "an empty result counts as zero"
    assert means["nDCG@10"] == pytest.approx((dcg / ideal + 1) / 3)  # 0.55031
    assert means["MRR@10"] == pytest.approx(0.5)
    assert means["Recall@10"] == pytest.approx(2 / 3)


def test_a_query_missing_from_the_run_counts_as_zero() -> None:
    means, _ = evaluate(QRELS, {"q2": ["d3"]})
    assert means["nDCG@10"] == pytest.approx(1 / 3)


def test_mrr_is_cut_at_ten_and_recall_at_its_depth() -> None:
    ranking = [f"x{i}" for i in range(10)] + ["d1"]  # the relevant one at rank 11
    _, per_query = evaluate({"q": {"d1": 1}}, {"q": ranking})
    assert per_query["q"]["MRR@10"] == 0.0 and per_query["q"]["Hits@10"] == 0.0
    assert per_query["q"]["Recall@20"] == 1.0 and per_query["q"]["Recall@10"] == 0.0


def test_rank_order_is_kept_whatever_the_ids() -> None:
    _, per_query = evaluate({"q": {"a": 1}}, {"q": ["z", "a"]})
    assert per_query["q"]["MRR@10"] == 0.5  # trec_eval would break a score tie by id otherwise
