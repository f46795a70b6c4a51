"""`shu eval --suite`: every configuration over every dataset Shu can find, and one table per
metric across them with the mean, so a default is chosen by what holds everywhere."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

from shu.errors import ShuError
from shu_eval.enron import SOURCE_FILE as ENRON_SOURCE
from shu_eval.enron import converted_folder

BUILTIN = Path(__file__).parent / "data"
"""Datasets shipped with Shu (the hand-written relations set)."""
SUITE_METRICS = ("nDCG@10", "Recall@5", "Recall@10", "latency_p50_ms")
NOISE_R10 = 0.005
"""How far below the best Recall@10 `default` may sit before the report flags it."""


@dataclass(frozen=True)
class SuiteDataset:
    name: str
    path: Path


def discover(data_dirs: list[Path], cache: Path) -> list[SuiteDataset]:
    """The shipped datasets, then every dataset folder directly inside `data_dirs`: a BEIR
    layout as it is, the Enron QA file converted once into `cache`."""
    found: dict[str, SuiteDataset] = {}
    for folder in [BUILTIN, *data_dirs]:
        if not folder.is_dir():
            raise ShuError(f"{folder}: no such folder of datasets")
        for child in sorted(p for p in folder.iterdir() if p.is_dir()):
            if (child / "corpus.jsonl").is_file() and (child / "qrels" / "test.tsv").is_file():
                found.setdefault(child.name, SuiteDataset(child.name, child))
            elif (child / ENRON_SOURCE).is_file():
                found.setdefault(child.name, SuiteDataset(child.name, converted_folder(child, cache)))
    return list(found.values())


def select(datasets: list[SuiteDataset], suite: str) -> list[SuiteDataset]:
    """`all`, or dataset names separated by commas."""
    if suite == "all":
        return datasets
    known = {d.name: d for d in datasets}
    wanted = [name.strip() for name in suite.split(",") if name.strip()]
    missing = [name for name in wanted if name not in known]
    if missing:
        raise ShuError(f"unknown dataset(s) {', '.join(missing)} (found: {', '.join(known) or 'none'})")
    return [known[name] for name in wanted]


def suite_json(per_dataset: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """dataset name → its `results_json` → one record: metric → config → dataset → value, with
    the mean over datasets."""
    datasets = list(per_dataset)
    configs = list(dict.fromkeys(c for data in per_dataset.values() for c in data["configs"]))
    table: dict[str, dict[str, dict[str, float]]] = {}
    for metric in SUITE_METRICS:
        table[metric] = {}
        for config in configs:
            values = {
                name: float(per_dataset[name]["configs"][config][metric])
                for name in datasets
                if config in per_dataset[name]["configs"]
            }
            if len(values) == len(datasets):
                values["mean"] = fmean(values.values())
            table[metric][config] = values
    return {
        "datasets": {
            name: {"queries": d["queries"], "rows": d["corpus_chunks"]} for name, d in per_dataset.items()
        },
        "metrics": table,
        "default_gap_r10": default_gaps(table["Recall@10"], datasets),
    }


def default_gaps(recall: dict[str, dict[str, float]], datasets: list[str]) -> dict[str, dict[str, Any]]:
    """Per dataset: the best config by Recall@10 and how far `default` is below it."""
    gaps: dict[str, dict[str, Any]] = {}
    for name in datasets:
        scored = {config: values[name] for config, values in recall.items() if name in values}
        if "default" not in scored:
            continue
        best = max(scored, key=lambda config: scored[config])
        gaps[name] = {"best": best, "gap": round(scored[best] - scored["default"], 4)}
    return gaps


def suite_markdown(data: dict[str, Any]) -> str:
    datasets = list(data["datasets"])
    lines = [
        "Datasets: "
        + ", ".join(f"`{n}` ({d['queries']} queries, {d['rows']} rows)" for n, d in data["datasets"].items())
        + ".",
        "",
    ]
    for metric, rows in data["metrics"].items():
        lower_is_better = metric.startswith("latency")
        header = [f"{metric}" + (" (ms)" if lower_is_better else ""), *datasets, "mean"]
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        best = {
            name: (min if lower_is_better else max)(v[name] for v in rows.values() if name in v)
            for name in [*datasets, "mean"]
            if any(name in v for v in rows.values())
        }
        for config, values in rows.items():
            cells = [config]
            for name in [*datasets, "mean"]:
                value = values.get(name)
                text = "—" if value is None else f"{value:.1f}" if lower_is_better else f"{value:.4f}"
                cells.append(f"**{text}**" if value is not None and value == best.get(name) else text)
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    flagged = [
        f"`{name}`: best `{gap['best']}`, default {gap['gap']:+.4f} below"
        for name, gap in data["default_gap_r10"].items()
        if gap["gap"] > NOISE_R10
    ]
    lines.append(
        "Default within 0.005 Recall@10 of the best config on every dataset."
        if not flagged
        else "Default more than 0.005 Recall@10 below the best: " + "; ".join(flagged) + "."
    )
    return "\n".join(lines) + "\n"


def write_suite(data: dict[str, Any], output: Path) -> None:
    output.mkdir(parents=True, exist_ok=True)
    (output / "suite.json").write_text(json.dumps(data, indent=2) + "\n")
    (output / "suite.md").write_text(suite_markdown(data))
