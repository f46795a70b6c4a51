"""`shu eval --answers`: how good the answers are, beside how good retrieval is.

Each query with gold answers (`metadata.answers`) or marked unanswerable
(`metadata.answerable: false`) is asked through the default pipeline and the configured
answerer. Per dataset:

- `answer_contains`: a gold answer appears in the answer text (SQuAD normalisation: lower case,
  no punctuation or articles), over answerable queries;
- `answer_f1`: best token F1 against the gold answers, over answerable queries;
- `citation_precision` / `citation_recall`: cited corpus rows that are relevant / relevant rows
  cited, over answerable queries with evidence rows (qrels);
- `abstain_precision` / `abstain_recall`: of the abstentions, how many were on unanswerable
  queries / of the unanswerable queries, how many were declined;
- `false_abstain`: answerable queries declined;
- `unsupported_claims`: the share of an answer's claims the verifier did not find supported by
  what they cite (mean over verified answers);
- ask latency p50 / p95 (retrieval and answer), LLM calls and tokens;
- each answer's evidence score, for calibrating abstention (`shu_eval.calibrate`);
- each answer's confidence features and whether it was right, for calibrating confidence
  (`shu_eval.confidence`): right = contains a gold answer (or cites a relevant row when the
  query has no gold answer); for an unanswerable query, declined;
- corrective retrieval rounds run and kept, agent runs and steps.
"""

from __future__ import annotations

import re
import string
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from shu.answer.ask import Responder
from shu.answer.confidence import confidence_features
from shu.store.base import Store
from shu.types import Answer
from shu_eval.dataset import Dataset, EvalQuery
from shu_eval.metrics import LatencyFigures

ANSWER_METRICS = (
    "answer_contains",
    "answer_f1",
    "citation_precision",
    "citation_recall",
    "abstain_precision",
    "abstain_recall",
    "false_abstain",
    "unsupported_claims",
)
_KEYS = re.compile(r"\[\^[^\]\n]*\]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)

Progress = Callable[[str, int, int], None]


@dataclass
class AnswerResult(LatencyFigures):
    metrics: dict[str, float | None]
    counts: dict[str, int]
    latencies_ms: list[float] = field(default_factory=list)
    evidence: list[tuple[bool, float | None]] = field(default_factory=list)
    """(answerable, the answer's evidence score) per query: what `answer.min_evidence` is
    calibrated on (`shu_eval.calibrate`)."""
    llm_calls: int = 0
    llm_tokens: int = 0
    confidence: list[tuple[str, dict[str, float], bool, float | None]] = field(default_factory=list)
    """(query id, confidence features, right, confidence) per answered query."""


def normalise(text: str) -> str:
    """SQuAD's answer normalisation."""
    text = _ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION))
    return " ".join(text.split())


def contains(prediction: str, answers: list[str]) -> bool:
    said = f" {normalise(prediction)} "
    return any(f" {normalise(a)} " in said for a in answers if normalise(a))


def token_f1(prediction: str, answers: list[str]) -> float:
    said = normalise(prediction).split()
    best = 0.0
    for answer in answers:
        gold = normalise(answer).split()
        common = sum((Counter(said) & Counter(gold)).values())
        if common:
            precision, recall = common / len(said), common / len(gold)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def run_answers(
    dataset: Dataset,
    store: Store,
    responder: Responder,
    limit: int | None = None,
    progress: Progress | None = None,
) -> AnswerResult:
    queries = dataset.answer_queries[:limit] if limit else dataset.answer_queries
    personas = {p.slug: p for p in store.list_personas()}
    answered: list[tuple[EvalQuery, Answer]] = []
    latencies: list[float] = []
    for done, query in enumerate(queries, start=1):
        started = time.perf_counter()
        answer = responder.answer(query.text, personas[query.persona])
        latencies.append((time.perf_counter() - started) * 1000)
        answered.append((query, answer))
        if progress:
            progress("answers", done, len(queries))
    metrics, counts = score(answered, dataset.qrels)
    evidence = [(q.answerable is not False, a.evidence) for q, a in answered]
    calls, tokens = sum(a.llm_calls for _, a in answered), sum(a.llm_tokens for _, a in answered)
    confidence = [
        (q.id, confidence_features(a, None), right(q, a, dataset.qrels), a.confidence)
        for q, a in answered
        if not a.out_of_scope
    ]
    return AnswerResult(metrics, counts, latencies, evidence, calls, tokens, confidence)


def right(query: EvalQuery, answer: Answer, qrels: dict[str, dict[str, int]]) -> bool:
    """Whether the answer is right: declined exactly when the query is unanswerable, and when it
    answers, it contains a gold answer (or, with no gold answer, cites a relevant row)."""
    if query.answerable is False or answer.insufficient:
        return query.answerable is False and answer.insufficient
    if query.answers:
        return contains(_said(answer), query.answers)
    relevant = {row for row, grade in qrels.get(query.id, {}).items() if grade > 0}
    return bool(relevant & {c.chunk_id for c in answer.citations})


def score(
    answered: list[tuple[EvalQuery, Answer]], qrels: dict[str, dict[str, int]]
) -> tuple[dict[str, float | None], dict[str, int]]:
    """The metrics above over (query, answer) pairs; None where no query counts."""
    answerable = [(q, a) for q, a in answered if q.answerable is not False]
    unanswerable = [(q, a) for q, a in answered if q.answerable is False]
    with_answers = [(q, a) for q, a in answerable if q.answers]
    with_evidence = [(q, a) for q, a in answerable if qrels.get(q.id)]
    abstained = [(q, a) for q, a in answered if a.insufficient]
    precision, recall = [], []
    for query, answer in with_evidence:
        relevant = {row for row, grade in qrels[query.id].items() if grade > 0}
        cited = {c.chunk_id for c in answer.citations}
        if cited:
            precision.append(len(cited & relevant) / len(cited))
        recall.append(len(cited & relevant) / len(relevant))
    metrics: dict[str, float | None] = {
        "answer_contains": _mean([contains(_said(a), q.answers) for q, a in with_answers]),
        "answer_f1": _mean([token_f1(_said(a), q.answers) for q, a in with_answers]),
        "citation_precision": _mean(precision),
        "citation_recall": _mean(recall),
        "abstain_precision": _mean([q.answerable is False for q, _ in abstained]),
        "abstain_recall": _mean([a.insufficient for _, a in unanswerable]),
        "false_abstain": _mean([a.insufficient for _, a in answerable]),
        "unsupported_claims": _mean(
            [
                1.0 - a.verification.support_ratio
                for _, a in answered
                if a.verification and a.verification.verdicts
            ]
        ),
    }
    counts = {
        "asked": len(answered),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "abstained": len(abstained),
        "deferred": sum(a.out_of_scope for _, a in answered),
        "generated": sum(a.method.startswith("llm:") for _, a in answered),
        "fell_back": sum(a.fallback_reason is not None for _, a in answered),
        "keys_removed": sum(len(a.check.removed) for _, a in answered if a.check),
        "uncited_sentences": sum(len(a.check.uncited) for _, a in answered if a.check),
        "corrected": sum(bool(a.corrections) for _, a in answered),
        "corrections_kept": sum(any(c.kept for c in a.corrections) for _, a in answered),
        "agent_runs": sum(a.agent is not None for _, a in answered),
        "agent_steps": sum(len(a.agent.steps) for _, a in answered if a.agent),
    }
    return metrics, counts


def _said(answer: Answer) -> str:
    """What the answer says, without its citation keys (abstentions say nothing)."""
    return "" if answer.insufficient else _KEYS.sub(" ", answer.text)


def _mean(values: list[bool] | list[float]) -> float | None:
    return float(fmean(values)) if values else None


def answers_json(result: AnswerResult, answerer: str) -> dict[str, object]:
    return {
        "answerer": answerer,
        **{name: None if value is None else round(value, 4) for name, value in result.metrics.items()},
        **result.counts,
        "ask_p50_ms": round(result.p50_ms, 1),
        "ask_p95_ms": round(result.p95_ms, 1),
        "llm_calls": result.llm_calls,
        "llm_tokens": result.llm_tokens,
        "evidence": [[answerable, value] for answerable, value in result.evidence],
        "confidence": [[qid, features, ok, value] for qid, features, ok, value in result.confidence],
    }


def answers_record(data: dict[str, Any]) -> dict[str, Any]:
    """The answer metrics of one dataset without the per-query lists (evidence, confidence), and
    so for each answer preset: what a suite's summary keeps."""
    kept = {key: value for key, value in data.items() if key not in ("evidence", "confidence", "configs")}
    if data.get("configs"):
        kept["configs"] = {name: answers_record(found) for name, found in data["configs"].items()}
    return kept


def save_answers(folder: Path, name: str, data: dict[str, Any]) -> None:
    """The answer table appended to the run's results.md (results.json holds the metrics)."""
    tables = answers_markdown({name: data})
    if data.get("configs"):
        tables += "\n" + answers_markdown(data["configs"])
    with (folder / "results.md").open("a", encoding="utf-8") as handle:
        handle.write("\n" + tables)


def answers_markdown(per_dataset: dict[str, dict[str, object]]) -> str:
    """One row per answer metric, one column per dataset that has answers."""
    names = [name for name, data in per_dataset.items() if data]
    if not names:
        return ""
    rows = [
        *ANSWER_METRICS,
        "asked",
        "unanswerable",
        "abstained",
        "deferred",
        "generated",
        "fell_back",
        "keys_removed",
        "uncited_sentences",
        "corrected",
        "corrections_kept",
        "agent_runs",
        "agent_steps",
        "ask_p50_ms",
        "ask_p95_ms",
        "llm_calls",
        "llm_tokens",
    ]
    lines = ["| answers | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for row in rows:
        cells = []
        for name in names:
            value = per_dataset[name].get(row)
            cells.append(
                "—"
                if value is None
                else f"{value:.4f}"
                if isinstance(value, float) and row in ANSWER_METRICS
                else str(value)
            )
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
