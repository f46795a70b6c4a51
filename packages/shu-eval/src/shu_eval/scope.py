"""`shu eval-scope`: does `ask` answer, decline or defer when it should?

A labelled set of questions over the shipped example knowledge base
(`shu_eval/data/scope/questions.jsonl`: answerable — with the strings a right answer contains —,
unanswerable on the persona's subject, and out of scope), each asked through the configured
answerer. Reported: the confusion matrix (label × decision), per split, and — for the rules
(no LLM) — the `answer.scope_threshold` (subject closeness, below it: defer) that would have
decided best on the `dev` split, measured on `test` (`answer.min_evidence`, below which an answer
is declined, is calibrated on the public datasets by `shu eval --suite all --answers`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.scope import SubjectScope
from shu.kb import KnowledgeBase
from shu.models.embed.factory import sentence_embedder
from shu.types import Answer

Label = Literal["answerable", "unanswerable", "out_of_scope"]
Decision = Literal["answered", "declined", "deferred"]
LABELS: tuple[Label, ...] = ("answerable", "unanswerable", "out_of_scope")
DECISIONS: tuple[Decision, ...] = ("answered", "declined", "deferred")
RIGHT: dict[Label, Decision] = {
    "answerable": "answered",
    "unanswerable": "declined",
    "out_of_scope": "deferred",
}
Progress = Callable[[str, int, int], None]


class LabelledQuestion(BaseModel):
    persona: str
    question: str
    label: Label
    answers: list[str] = Field(default_factory=list)
    doc_id: str | None = None
    split: Literal["dev", "test"] = "test"


@dataclass
class Asked:
    persona: str
    question: str
    label: Label
    split: str
    decision: Decision
    correct_answer: bool | None
    """For an answerable question answered: does the answer contain a gold string?"""
    closeness: float
    evidence: float
    method: str
    ruled: bool = False
    """Declined by a rule (a lookup with no such document, today's information, no sentence
    close enough in meaning), not by the evidence threshold."""


def labelled_questions(path: Path | None = None) -> list[LabelledQuestion]:
    text = (
        path.read_text(encoding="utf-8")
        if path
        else (resources.files("shu_eval") / "data" / "scope" / "questions.jsonl").read_text(encoding="utf-8")
    )
    return [LabelledQuestion.model_validate_json(line) for line in text.splitlines() if line.strip()]


def decision_of(answer: Answer) -> Decision:
    if answer.out_of_scope:
        return "deferred" if answer.from_knowledge_base else "answered"
    return "declined" if answer.insufficient else "answered"


def ask_all(
    kb: KnowledgeBase, questions: list[LabelledQuestion], progress: Progress | None = None
) -> list[Asked]:
    """Every question through `kb.ask` (no cache), with the two scores the rules decide on."""
    settings = kb.settings.answer
    closeness = SubjectScope(kb.store, kb.parts.embedder, settings.scope_threshold)
    evidence = ExtractiveAnswerer(
        sentence_embedder(kb.parts.embedder, settings.sentence_embedder),
        settings.max_sentences,
        settings.chunks_considered,
    )
    asked: list[Asked] = []
    for done, item in enumerate(questions, start=1):
        persona = kb.persona(item.persona)
        result = kb.parts.pipeline.run(item.question, persona)
        answer = kb.parts.answerer.answer(result, persona)
        decision = decision_of(answer)
        said = answer.text.casefold()
        correct = (
            any(a.casefold() in said for a in item.answers)
            if decision == "answered" and item.answers
            else None
        )
        asked.append(
            Asked(
                item.persona,
                item.question,
                item.label,
                item.split,
                decision,
                correct,
                round(closeness.closeness(result, persona)[0], 4),
                round(evidence.evidence(result), 4),
                answer.method,
                ruled=decision == "declined"
                and (answer.evidence is None or answer.evidence >= settings.min_evidence),
            )
        )
        if progress:
            progress("questions", done, len(questions))
    return asked


def confusion(asked: list[Asked]) -> dict[Label, dict[Decision, int]]:
    counts = Counter((a.label, a.decision) for a in asked)
    return {label: {d: counts[(label, d)] for d in DECISIONS} for label in LABELS}


def accuracy(asked: list[Asked]) -> float:
    """Macro average over the three labels of the share decided right."""
    shares = []
    for label in LABELS:
        of_label = [a for a in asked if a.label == label]
        if of_label:
            shares.append(sum(a.decision == RIGHT[label] for a in of_label) / len(of_label))
    return sum(shares) / len(shares) if shares else 0.0


def rules_decision(item: Asked, scope_threshold: float, min_evidence: float) -> Decision:
    if item.method.startswith("full_document"):
        return item.decision
    if item.closeness < scope_threshold:
        return "deferred"
    if item.ruled:
        return "declined"
    return "declined" if item.evidence < min_evidence else "answered"


def calibrate(asked: list[Asked], min_evidence: float, split: str = "dev") -> tuple[float, float]:
    """(scope_threshold, macro accuracy on `split`) of the best threshold on a grid, with
    `min_evidence` as configured (it is calibrated on the public datasets); ties go to the lower
    threshold (fewer questions deferred)."""
    fitted = [a for a in asked if a.split == split]
    best = (0.0, -1.0)
    for scope in [x / 100 for x in range(0, 61)]:
        score = accuracy(redecide(fitted, scope, min_evidence))
        if score > best[1] + 1e-9:
            best = (scope, score)
    return best


def redecide(asked: list[Asked], scope_threshold: float, min_evidence: float) -> list[Asked]:
    return [_with(a, rules_decision(a, scope_threshold, min_evidence)) for a in asked]


def _with(item: Asked, decision: Decision) -> Asked:
    return Asked(**(asdict(item) | {"decision": decision}))


def confusion_markdown(asked: list[Asked], title: str) -> str:
    matrix = confusion(asked)
    lines = [f"| {title} | " + " | ".join(DECISIONS) + " |", "|---|" + "---|" * len(DECISIONS)]
    for label in LABELS:
        lines.append(f"| {label} | " + " | ".join(str(matrix[label][d]) for d in DECISIONS) + " |")
    answered = [a for a in asked if a.label == "answerable" and a.decision == "answered"]
    right = sum(bool(a.correct_answer) for a in answered)
    lines.append(
        f"\nmacro accuracy {accuracy(asked):.3f}; answerable answered with a gold string: "
        f"{right}/{len(answered)}"
    )
    return "\n".join(lines) + "\n"


def write_rows(asked: list[Asked], folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "scope.jsonl"
    path.write_text("".join(json.dumps(asdict(a)) + "\n" for a in asked), encoding="utf-8")
    return path
