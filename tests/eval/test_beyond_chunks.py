"""The shipped set of questions chunk retrieval answers badly (`shu_eval/data/beyond-chunks`):
every question reads, both halves ask every kind, and its gold holds — each document named
exists, and each fact of a `facts` or `complete_list` question is in one of its documents."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from shu_eval import labelled
from shu_eval.dataset import DEFAULT_PERSONA
from shu_eval.labelled import LabelledQuestion, load_questions, normalise

FOLDER = Path(str(labelled.shipped_folder())).parent / "beyond-chunks"
ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT.parent / "shared" / "data"
"""The public sets beside the repository (`../shared/data`)."""
RAG = {
    "lumen-support": ROOT / "examples" / "personas" / "lumen-support" / "RAG",
    "city-garden": ROOT / "examples" / "personas" / "city-garden" / "RAG",
}
"""The personas whose converted documents are in the repository (fernhill-ops' are written when
its formats are ingested)."""


def _all() -> list[LabelledQuestion]:
    return load_questions(FOLDER / "questions.jsonl") + load_questions(FOLDER / "public-questions.jsonl")


def _stated(fact: list[str], texts: list[str]) -> bool:
    return any(
        re.search(rf"(?<!\w){re.escape(normalise(spelling))}(?!\w)", text)
        for spelling in fact
        for text in texts
    )


def _check(question: LabelledQuestion, documents: dict[str, str]) -> list[str]:
    problems = [f"{question.id}: no document {d}" for d in question.doc_ids if d not in documents]
    if question.answer_type != "count" and not problems:
        texts = [documents[d] for d in question.doc_ids]
        problems += [
            f"{question.id}: {fact} in none of its documents"
            for fact in question.facts
            if not _stated(fact, texts)
        ]
    return problems


def test_over_two_hundred_questions_of_every_kind_in_both_halves() -> None:
    questions = _all()
    assert len(questions) >= 200 and len({q.id for q in questions}) == len(questions)
    halves = Counter((q.kind, q.split) for q in questions)
    assert all(
        halves[(kind, split)] >= 8 for kind in labelled.BEYOND_CHUNKS_KINDS for split in labelled.SPLITS
    )
    assert all(q.expect == "answer" and q.doc_ids for q in questions)


def test_the_example_personas_gold_is_in_their_documents() -> None:
    documents: dict[str, dict[str, str]] = {}
    for persona, folder in RAG.items():
        for path in folder.glob("*.md"):
            text = path.read_text(encoding="utf-8")
            found = re.search(r"^id:\s*(\S+)", text, re.M)
            documents.setdefault(persona, {})[found.group(1) if found else path.stem] = normalise(text)
    written = [
        *load_questions(FOLDER / "questions.jsonl"),
        *load_questions(FOLDER / "which-documents-questions.jsonl"),
    ]
    asked = [q for q in written if q.persona in RAG]
    assert len(asked) >= 100
    assert [p for q in asked for p in _check(q, documents[q.persona])] == []


@pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"no public sets at {PUBLIC}")
def test_the_public_sets_gold_is_in_their_documents() -> None:
    questions = load_questions(FOLDER / "public-questions.jsonl")
    problems = []
    for kb in sorted({q.kb for q in questions}):
        chunks: dict[str, list[str]] = defaultdict(list)
        persona_of: dict[str, str] = {}
        for line in (PUBLIC / kb / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            meta = row.get("metadata", {})
            doc_id = meta.get("doc_id", row["_id"])
            chunks[doc_id] += [row.get("title", "")] if not chunks[doc_id] else []
            chunks[doc_id].append(row["text"])
            persona_of[doc_id] = meta.get("persona", DEFAULT_PERSONA)  # as `shu eval` builds it
        documents = {doc_id: normalise(" ".join(texts)) for doc_id, texts in chunks.items()}
        for question in (q for q in questions if q.kb == kb):
            problems += _check(question, documents)
            if not problems and {persona_of[d] for d in question.doc_ids} != {question.persona}:
                problems.append(f"{question.id}: documents of another persona")
    assert problems == []
