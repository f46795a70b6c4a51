"""`shu tune`: fit the ranking weights — the persona's surface weights, expansion weight, fusion
mode and keyword feedback (RM3: on where it helps a knowledge base, e.g. e-mail), and the
personal boosts with their bound — on labelled questions, by coordinate ascent on a training
part; the best is kept only if it beats the current weights on a held-out part, and both are
printed. Labelled questions come from a JSONL file (`{"id", "text", "user", "relevant": {doc_id:
grade}}`; `user` may be null), from the users' recorded feedback (answers they approved,
documents they starred), or from a BEIR dataset's train and test splits."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shu.config.settings import PersonalSettings, RetrievalSettings
from shu.errors import InvalidRequestError
from shu.kb import KnowledgeBase
from shu.retrieve.pipeline import RetrievalPipeline
from shu.store.base import Store
from shu.types import Persona, RetrievalParams, Signal
from shu_eval.metrics import evaluate

Value = float | str
SPACE: dict[str, list[Value]] = {
    "persona.fusion": ["convex", "rrf"],
    "persona.convex_alpha": [0.3, 0.5, 0.7],
    "persona.question_weight": [0.0, 0.5, 1.0],
    "persona.synopsis_weight": [0.0, 0.5],
    "persona.expansion_weight": [0.5, 0.95],
    "persona.feedback_docs": [0, 5],
    "personal.max_boost": [0.3, 0.5, 0.8],
    "personal.contact": [0.1, 0.2, 0.3],
    "personal.project": [0.15, 0.3, 0.45],
    "personal.own": [0.05, 0.1, 0.2],
    "personal.role": [0.0, 0.15, 0.3],
    "personal.fresh": [0.0, 0.02, 0.05],
}
DATASET_SPACE: dict[str, list[Value]] = {
    "persona.fusion": ["convex", "rrf"],
    "persona.convex_alpha": [0.3, 0.4, 0.5, 0.6, 0.7],
    "persona.candidates": [20, 40],
    "persona.expansion_weight": [0.5, 0.95],
    "persona.title_weight": [0.5, 1.0],
    "persona.feedback_docs": [0, 5],
}
"""A BEIR corpus has no users and is indexed without enrichment: its surfaces and fusion only."""
LIMIT = 30
ROUNDS = 2
MIN_GAIN = 0.005
_GRADES = {"star": 2, "up": 2, "used_in_answer": 1}


@dataclass(frozen=True)
class Labelled:
    id: str
    text: str
    user: str | None
    relevant: dict[str, int]
    persona: str = ""


@dataclass
class TuneResult:
    current: dict[str, Value]
    best: dict[str, Value]
    train: tuple[float, float]
    """nDCG@10 on the training part: current, best"""
    held_out: tuple[float, float]
    """nDCG@10 on the held-out part: current, best"""
    train_queries: int
    held_out_queries: int
    candidates: int

    @property
    def better(self) -> bool:
        return self.held_out[1] >= self.held_out[0] + MIN_GAIN and self.best != self.current

    @property
    def changed(self) -> dict[str, Value]:
        return {k: v for k, v in self.best.items() if self.current[k] != v}


Ranker = Callable[[dict[str, Value], list[Labelled]], dict[str, list[str]]]
"""weights → every question's ranking (document or chunk ids, best first)"""


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


def from_feedback(store: Store, persona: str) -> list[Labelled]:
    """Labelled questions from what users did: the documents an answer they approved cited (2),
    the documents answers cited (1) and the ones they starred while asking (2); a question they
    turned thumbs down on keeps no document. One question per user and wording."""
    grouped: dict[tuple[str, str], list[Signal]] = {}
    for user in store.list_signal_users():
        for signal in store.list_signals(user, persona):
            if signal.question.strip():
                grouped.setdefault((user, signal.question.strip()), []).append(signal)
    labelled: list[Labelled] = []
    for (user, question), signals in sorted(grouped.items()):
        if any(s.kind == "down" for s in signals):
            continue
        approved = any(s.kind == "up" for s in signals)
        relevant: dict[str, int] = {}
        for signal in signals:
            if signal.doc_id and signal.kind in _GRADES:
                grade = 2 if approved else _GRADES[signal.kind]
                relevant[signal.doc_id] = max(relevant.get(signal.doc_id, 0), grade)
        if relevant:
            key = hashlib.sha1(f"{user}\n{question}".encode()).hexdigest()[:12]
            labelled.append(Labelled(f"feedback-{key}", question, user or None, relevant))
    return labelled


def split(queries: list[Labelled], held_out: float = 0.5) -> tuple[list[Labelled], list[Labelled]]:
    """Deterministic: a query's part follows the hash of its id."""
    test = [q for q in queries if int(hashlib.sha1(q.id.encode()).hexdigest(), 16) % 1000 < held_out * 1000]
    return [q for q in queries if q not in test], test


def fit(
    rank: Ranker,
    train: list[Labelled],
    test: list[Labelled],
    current: dict[str, Value],
    space: dict[str, list[Value]],
) -> TuneResult:
    """Coordinate ascent from `current`: each weight in turn set to each of its values (the
    others held), kept when it raises training nDCG@10; `ROUNDS` passes."""
    if not train or not test:
        raise InvalidRequestError(f"{len(train) + len(test)} labelled queries are too few to split in two")
    start = score(rank, current, train)
    best, best_score, candidates = dict(current), start, 1
    for _ in range(ROUNDS):
        moved = False
        for name, values in space.items():
            for value in values:
                if value == best[name]:
                    continue
                trial = {**best, name: value}
                candidates += 1
                trial_score = score(rank, trial, train)
                if trial_score > best_score + 1e-4:
                    best, best_score, moved = trial, trial_score, True
        if not moved:
            break
    return TuneResult(
        current=current,
        best=best,
        train=(start, best_score),
        held_out=(score(rank, current, test), score(rank, best, test)),
        train_queries=len(train),
        held_out_queries=len(test),
        candidates=candidates,
    )


def score(rank: Ranker, weights: dict[str, Value], queries: list[Labelled]) -> float:
    means, _ = evaluate({q.id: q.relevant for q in queries}, rank(weights, queries))
    return float(means["nDCG@10"])


def tune(
    kb: KnowledgeBase, persona: str, queries: list[Labelled], space: dict[str, list[Value]] | None = None
) -> TuneResult:
    """Fit on a knowledge base's persona: half the questions (by id hash) to fit, half to judge."""
    space = space or SPACE
    found = kb.persona(persona)
    train, test = split(queries)
    return fit(kb_ranker(kb, found), train, test, current_weights(kb.settings.retrieval, found, space), space)


def current_weights(
    settings: RetrievalSettings, persona: Persona, space: dict[str, list[Value]]
) -> dict[str, Value]:
    params = RetrievalPipeline.params_for(settings, persona)
    current: dict[str, Value] = {}
    for name in space:
        part, field = name.split(".", 1)
        current[name] = getattr(params if part == "persona" else settings.personal, field)
    return current


def kb_ranker(kb: KnowledgeBase, persona: Persona) -> Ranker:
    """Documents ranked by the query pipeline over `kb` with the weights laid on, for each
    question's user (none when null)."""

    def rank(weights: dict[str, Value], queries: list[Labelled]) -> dict[str, list[str]]:
        params, personal = _split_weights(
            weights, kb.parts.pipeline.params(persona), kb.settings.retrieval.personal
        )
        pipeline = RetrievalPipeline(
            kb.store, kb.parts.embedder, kb.settings.retrieval.model_copy(update={"personal": personal})
        )
        runs = {}
        for query in queries:
            result = pipeline.run(
                query.text,
                persona,
                params=params,
                limit=LIMIT,
                assemble_context=False,
                asker=kb.asker(query.user),
            )
            runs[query.id] = list(dict.fromkeys(h.chunk.doc_id for h in result.hits))
        return runs

    return rank


def store_ranker(store: Store, pipeline: RetrievalPipeline) -> Ranker:
    """Chunks ranked by the query pipeline over an evaluation store (`shu eval`'s), each question
    in its own persona."""
    personas = {p.slug: p for p in store.list_personas()}

    def rank(weights: dict[str, Value], queries: list[Labelled]) -> dict[str, list[str]]:
        runs = {}
        for query in queries:
            persona = personas[query.persona]
            params, _ = _split_weights(weights, pipeline.params(persona), PersonalSettings())
            result = pipeline.run(query.text, persona, params=params, assemble_context=False)
            runs[query.id] = [h.chunk.id for h in result.hits]
        return runs

    return rank


def _split_weights(
    weights: dict[str, Value], params: RetrievalParams, personal: PersonalSettings
) -> tuple[RetrievalParams, PersonalSettings]:
    persona_part = {k.removeprefix("persona."): v for k, v in weights.items() if k.startswith("persona.")}
    personal_part = {k.removeprefix("personal."): v for k, v in weights.items() if k.startswith("personal.")}
    return (
        RetrievalParams.model_validate({**params.model_dump(), **persona_part}),
        PersonalSettings.model_validate({**personal.model_dump(), **personal_part}),
    )


def write(home: Path, persona: str, weights: dict[str, Value]) -> Path:
    """Merge the weights into `<home>/config.json`: personal ones under `retrieval.personal`,
    the persona's under `retrieval.tuned.<persona>`."""
    path = home / "config.json"
    config: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    retrieval = config.setdefault("retrieval", {})
    for name, value in weights.items():
        part, field = name.split(".", 1)
        target = (
            retrieval.setdefault("personal", {})
            if part == "personal"
            else retrieval.setdefault("tuned", {}).setdefault(persona, {})
        )
        target[field] = value
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return path


def markdown(result: TuneResult) -> str:
    names = list(result.changed) or list(result.current)[:4]
    lines = [
        f"{result.candidates} candidates (coordinate ascent); {result.train_queries} training and "
        f"{result.held_out_queries} held-out questions; nDCG@10. Weights that moved:"
        if result.changed
        else f"{result.candidates} candidates; no weight moved on the training part.",
        "",
        "| weights | " + " | ".join(names) + " | train nDCG@10 | held-out nDCG@10 |",
        "|---|" + "---|" * (len(names) + 2),
        "| current | " + " | ".join(f"{result.current[n]:g}" if isinstance(result.current[n], float)
                                    else str(result.current[n]) for n in names)
        + f" | {result.train[0]:.4f} | {result.held_out[0]:.4f} |",
        "| best on train | " + " | ".join(f"{result.best[n]:g}" if isinstance(result.best[n], float)
                                          else str(result.best[n]) for n in names)
        + f" | {result.train[1]:.4f} | {result.held_out[1]:.4f} |",
    ]  # fmt: skip
    return "\n".join(lines)
