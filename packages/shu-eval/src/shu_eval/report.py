"""Eval results → results.json, results.md, a PNG bar chart, and per-query lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shu_eval.dataset import Dataset
from shu_eval.metrics import METRICS
from shu_eval.runner import ConfigResult

CHART_METRICS = ("nDCG@10", "Recall@10", "MRR@10", "Recall@100")


def results_json(dataset: Dataset, queries: int, results: list[ConfigResult]) -> dict[str, Any]:
    return {
        "dataset": dataset.name,
        "split": dataset.split,
        "queries": queries,
        "corpus_chunks": dataset.chunk_count,
        "configs": {
            r.config.name: {
                **{name: round(r.metrics[name], 4) for name in METRICS},
                "latency_p50_ms": round(r.p50_ms, 2),
                "latency_p95_ms": round(r.p95_ms, 2),
                "ingest_seconds": round(r.ingest_seconds, 1),
                "ingest_reused": r.ingest_reused,
                "description": r.config.description,
            }
            for r in results
        },
    }


def markdown_table(data: dict[str, Any]) -> str:
    header = ["config", *METRICS, "p50 ms", "p95 ms", "ingest s"]
    lines = [
        f"Dataset `{data['dataset']}` ({data['split']} split, {data['queries']} queries, "
        f"{data['corpus_chunks']} corpus rows).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for name, values in data["configs"].items():
        cells = [name, *[f"{values[m]:.4f}" for m in METRICS]]
        cells += [
            f"{values['latency_p50_ms']:.1f}",
            f"{values['latency_p95_ms']:.1f}",
            f"{values['ingest_seconds']:.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *[f"- `{name}`: {values['description']}" for name, values in data["configs"].items()]]
    return "\n".join(lines) + "\n"


def bar_chart(data: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    configs = list(data["configs"])
    width = 0.8 / len(CHART_METRICS)
    figure, axis = plt.subplots(figsize=(max(6, 1.6 * len(configs) + 2), 4))
    for index, metric in enumerate(CHART_METRICS):
        values = [data["configs"][c][metric] for c in configs]
        positions = np.arange(len(configs)) + index * width
        bars = axis.bar(positions, values, width, label=metric)
        axis.bar_label(bars, fmt="%.3f", fontsize=7, rotation=90, padding=2)
    axis.set_xticks(np.arange(len(configs)) + width * (len(CHART_METRICS) - 1) / 2, configs)
    axis.set_ylim(0, 1.25)
    axis.set_title(f"{data['dataset']} ({data['split']}, {data['queries']} queries)")
    axis.legend(loc="upper left", ncols=len(CHART_METRICS), fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def write_outputs(
    data: dict[str, Any], results: list[ConfigResult], dataset: Dataset, output: Path, per_query: bool
) -> None:
    output.mkdir(parents=True, exist_ok=True)
    (output / "results.json").write_text(json.dumps(data, indent=2) + "\n")
    (output / "results.md").write_text(markdown_table(data))
    bar_chart(data, output / "results.png")
    if per_query:
        with (output / "per_query.jsonl").open("w") as handle:
            for result in results:
                for query_id, values in result.per_query.items():
                    row = {
                        "config": result.config.name,
                        "query_id": query_id,
                        **{k: round(v, 4) for k, v in values.items()},
                        "top10": result.rankings.get(query_id, [])[:10],
                        "relevant": sorted(k for k, v in dataset.qrels[query_id].items() if v > 0),
                    }
                    handle.write(json.dumps(row) + "\n")
