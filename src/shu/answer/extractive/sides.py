"""A comparison answered from the extractive reader's sentences: both sides' values from one
table row with a column for each, else the best sentence about each side, side by side."""

from __future__ import annotations

from shu.answer.extractive.candidate import Candidate, citations_of
from shu.answer.extractive.compare import Side
from shu.answer.extractive.replies import quoted_answer
from shu.answer.quote import quoted
from shu.types import Answer, AnswerSentence, Persona, RetrievalResult


def row_of_both(sides: tuple[Side, Side], candidates: list[Candidate]) -> Candidate | None:
    """The best table row with a column for each side ("Uptime SLA; Pro: 99.9%; Enterprise:
    99.95%" for Pro against Enterprise)."""
    rows = [c for c in candidates if all(_field_of(side, c.text) is not None for side in sides)]
    return max(rows, key=lambda c: c.score, default=None)


def _field_of(side: Side, row: str) -> str | None:
    """The value of the row's column that names `side`, if the row is a table row."""
    for field in row.split("; "):
        label, colon, value = field.partition(": ")
        if colon and value and side.named_in(label) and not side.named_in(value):
            return value
    return None


def row_answer(
    result: RetrievalResult, persona: Persona, sides: tuple[Side, Side], row: Candidate, evidence: float
) -> Answer:
    """Each side's value from one row, as a small table under the row's subject."""
    subject = _cell(row.text.split("; ")[0].partition(": ")[2] or row.text.split("; ")[0])
    values = [_cell(_field_of(side, row.text) or "") for side in sides]
    key = row.section.citation_key
    lines = [f"| {subject} | {_cell(sides[0].name)} | {_cell(sides[1].name)} |", "|---|---|---|"]
    lines.append(f"| {key} | {values[0]} | {values[1]} |")
    sentence = AnswerSentence(
        text=f"{subject}: {quoted(sides[0].name)} {values[0]}, {quoted(sides[1].name)} {values[1]}.",
        citations=[key],
    )
    return quoted_answer(result, persona, "\n".join(lines), [sentence], citations_of([row]), evidence)


def side_by_side(sides: tuple[Side, Side], candidates: list[Candidate]) -> list[Candidate] | None:
    """The best sentence about each side (naming most of its words, in the sentence, its
    heading or its document's title), when both are found and differ."""
    picked: list[Candidate] = []
    for side in sides:
        where = [(c, f"{c.text} {c.section.section_path} {c.document.title}") for c in candidates]
        named = [(side.named_in(text), c) for c, text in where]
        best = max(((n, c.score, c) for n, c in named if n > 0), key=lambda t: t[1], default=None)
        if best is None:
            return None
        picked.append(best[2])
    return picked if picked[0] is not picked[1] else None


def comparison_answer(
    result: RetrievalResult,
    persona: Persona,
    sides: tuple[Side, Side],
    both: list[Candidate],
    evidence: float,
) -> Answer:
    """A small table: each side, and what the documents say of it."""
    sentences = [
        AnswerSentence(text=f"{quoted(side.name)}: {quoted(c.text)}", citations=[c.section.citation_key])
        for side, c in zip(sides, both, strict=True)
    ]
    rows = [
        f"| {_cell(side.name)} | {_cell(c.text)} {c.section.citation_key} |"
        for side, c in zip(sides, both, strict=True)
    ]
    text = "\n".join(["| | What the documents say |", "|---|---|", *rows])
    return quoted_answer(result, persona, text, sentences, citations_of(both), evidence)


def _cell(text: str) -> str:
    return quoted(text).replace("|", "\\|")
