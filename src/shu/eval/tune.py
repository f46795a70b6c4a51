"""`shu tune PERSONA --queries FILE`: fit the personal-ranking weights (each boost and the cap)
on a labelled query set, with a held-out split. Every candidate is scored by nDCG@10 on the
training half; the best is kept only if it beats the current weights on the held-out half, and
both are printed. Queries are JSONL: `{"id", "text", "user", "relevant": {doc_id: grade}}`
(`user` may be null: a question asked by nobody in particular)."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shu.config.settings import load_settings
from shu.errors import InvalidRequestError
from shu.eval.metrics import evaluate
from shu.kb import KnowledgeBase

GRID: dict[str, list[float]] = {
    "max_boost": [0.2, 0.3, 0.45],
    "contact": [0.1, 0.2, 0.3],
    "project": [0.15, 0.3],
    "own": [0.05, 0.1, 0.2],
}
LIMIT = 30
MIN_GAIN = 0.005


@dataclass(frozen=True)
class Labelled:
    id: str
    text: str
    user: str | None
    relevant: dict[str, int]


@dataclass
class TuneResult:
    current: dict[str, float]
    best: dict[str, float]
    train: tuple[float, float]
    """nDCG@10 on the training half: current, best"""
    held_out: tuple[float, float]
    """nDCG@10 on the held-out half: current, best"""
    train_queries: int
    held_out_queries: int
    candidates: int

    @property
    def better(self) -> bool:
        return self.held_out[1] >= self.held_out[0] + MIN_GAIN and self.best != self.current


def load_queries(path: Path) -> list[Labelled]:
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [
            Labelled(
                str(r["id"]),
                str(r["text"]),
                r.get("user"),
                {str(k): int(v) for k, v in r["relevant"].items()},
            )
            for r in rows
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidRequestError(
            f"{path}: not a labelled query file ({exc.__class__.__name__}: {exc})"
        ) from exc


def split(queries: list[Labelled], held_out: float = 0.5) -> tuple[list[Labelled], list[Labelled]]:
    """Deterministic: a query's half follows the hash of its id."""
    test = [q for q in queries if int(hashlib.sha1(q.id.encode()).hexdigest(), 16) % 1000 < held_out * 1000]
    return [q for q in queries if q not in test], test


def tune(
    kb: KnowledgeBase, persona: str, queries: list[Labelled], grid: dict[str, list[float]] | None = None
) -> TuneResult:
    grid = grid or GRID
    train, test = split(queries)
    if not train or not test:
        raise InvalidRequestError(f"{len(queries)} labelled queries are too few to split in two")
    current = {name: float(getattr(kb.settings.retrieval.personal, name)) for name in grid}
    candidates = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
    scored = [(_score(kb, persona, train, c), c) for c in [current, *candidates]]
    best_train, best = max(scored, key=lambda pair: pair[0])
    return TuneResult(
        current=current,
        best=best,
        train=(scored[0][0], best_train),
        held_out=(_score(kb, persona, test, current), _score(kb, persona, test, best)),
        train_queries=len(train),
        held_out_queries=len(test),
        candidates=len(scored),
    )


def _score(kb: KnowledgeBase, persona: str, queries: list[Labelled], weights: dict[str, float]) -> float:
    overrides = [f"retrieval.personal.{name}={value}" for name, value in weights.items()]
    ranked = KnowledgeBase(load_settings(kb.settings.home, overrides), embedder=kb.embedder, store=kb.store)
    runs = {}
    for query in queries:
        hits = ranked.retrieve(query.text, persona, limit=LIMIT, user=query.user).hits
        runs[query.id] = list(dict.fromkeys(h.chunk.doc_id for h in hits))
    means, _ = evaluate({q.id: q.relevant for q in queries}, runs)
    return float(means["nDCG@10"])


def write(home: Path, weights: dict[str, float]) -> Path:
    """Merge the weights into `<home>/config.json` under `retrieval.personal`."""
    path = home / "config.json"
    config: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    config.setdefault("retrieval", {}).setdefault("personal", {}).update(weights)
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


def markdown(result: TuneResult) -> str:
    names = list(result.current)
    lines = [
        f"{result.candidates} candidates; {result.train_queries} training and {result.held_out_queries} "
        "held-out queries; nDCG@10 of documents over 30 chunks.",
        "",
        "| weights | " + " | ".join(names) + " | train nDCG@10 | held-out nDCG@10 |",
        "|---|" + "---|" * (len(names) + 2),
        "| current | " + " | ".join(f"{result.current[n]:g}" for n in names)
        + f" | {result.train[0]:.4f} | {result.held_out[0]:.4f} |",
        "| best on train | " + " | ".join(f"{result.best[n]:g}" for n in names)
        + f" | {result.train[1]:.4f} | {result.held_out[1]:.4f} |",
    ]  # fmt: skip
    return "\n".join(lines)
