"""Retrieval metrics with pytrec_eval (the trec_eval implementation MTEB and BEIR use).

Every query in the qrels counts: one that retrieved nothing scores 0 (trec_eval alone would
leave it out of the mean). Rankings are passed as strictly decreasing scores so that trec_eval's
tie-breaking never reorders them.
"""

from __future__ import annotations

from statistics import fmean

import numpy as np

from shu.errors import ShuError

METRICS = ("nDCG@10", "Recall@5", "Recall@10", "Recall@20", "Recall@100", "MRR@10", "Hits@10")
_TREC = {
    "nDCG@10": "ndcg_cut_10",
    "Recall@5": "recall_5",
    "Recall@10": "recall_10",
    "Recall@20": "recall_20",
    "Recall@100": "recall_100",
    "Hits@10": "success_10",
}


def evaluate(
    qrels: dict[str, dict[str, int]], rankings: dict[str, list[str]]
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(mean of each metric, metrics per query) over every query in `qrels`."""
    try:
        import pytrec_eval
    except ImportError as exc:
        raise ShuError("evaluation needs pytrec_eval: pip install 'shu[eval]'") from exc
    judged = {q: rel for q, rel in qrels.items() if q in rankings}
    full = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10", "recall.5,10,20,100", "success.10"})
    top10 = pytrec_eval.RelevanceEvaluator(judged, {"recip_rank"})
    scored = full.evaluate({q: _scores(rankings[q]) for q in judged})
    mrr = top10.evaluate({q: _scores(rankings[q][:10]) for q in judged})
    per_query: dict[str, dict[str, float]] = {}
    for query_id in qrels:
        values = scored.get(query_id, {})
        row = {name: float(values.get(key, 0.0)) for name, key in _TREC.items()}
        row["MRR@10"] = float(mrr.get(query_id, {}).get("recip_rank", 0.0))
        per_query[query_id] = {name: row[name] for name in METRICS}
    means = {name: fmean(v[name] for v in per_query.values()) if per_query else 0.0 for name in METRICS}
    return means, per_query


def _scores(ranking: list[str]) -> dict[str, float]:
    scores: dict[str, float] = {}
    for rank, doc_id in enumerate(ranking):
        scores.setdefault(doc_id, float(len(ranking) - rank))
    return scores or {"__none__": 0.0}


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile of `values` (0 when there are none), for latency figures."""
    return float(np.percentile(values, q)) if values else 0.0


class LatencyFigures:
    """p50 / p95 of a result's `latencies_ms`."""

    latencies_ms: list[float]

    @property
    def p50_ms(self) -> float:
        return percentile(self.latencies_ms, 50)

    @property
    def p95_ms(self) -> float:
        return percentile(self.latencies_ms, 95)
