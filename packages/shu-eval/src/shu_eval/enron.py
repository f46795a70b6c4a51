"""Enron e-mail QA (SQuAD 2.0 over 48 raw e-mails) → the `shu eval` layout.

Each e-mail goes through Shu's own text converter and chunker, so the rows are what ingestion
would index. Questions that only make sense with one e-mail in hand ("Who sent the email?") are
left out; the rest name someone or something ("What is the email address of Sally Beck?") and
are asked of the whole mailbox. A question's relevant rows are the chunks of its e-mail that hold the
gold answer (else the chunk it was marked in), and every chunk of any e-mail holding a specific
answer (an address, a number, a phrase of two words or more: "Supervisor" is not specific).
Unanswerable questions are kept in `queries.jsonl` with `answerable: false` and no qrels.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shu.ingest.chunking import chunk_document
from shu.ingest.convert.text import convert as convert_text
from shu.types import Chunk
from shu_eval.dataset import DatasetError

PERSONA = "enron"
SOURCE_FILE = "enron_annotated.json"
CONVERTER_VERSION = 3
_DEICTIC = re.compile(
    r"\bthe (?:e-?mail|message|sender|recipient|main recipient|attachment)\b(?! address)", re.I
)
_PROPER = re.compile(r"(?<!^)\b[A-Z][a-zA-Z]+")


@dataclass
class _Question:
    id: str
    text: str
    answers: list[str]
    answerable: bool
    relevant: set[str] = field(default_factory=set)


def self_contained(question: str) -> bool:
    """A question that names someone or something and does not point at "the e-mail" in hand."""
    return bool(_PROPER.search(question.strip())) and not _DEICTIC.search(question)


def convert_enron(source: Path, target: Path) -> Path:
    """Write corpus.jsonl, queries.jsonl and qrels/test.tsv for `source` (the SQuAD JSON file
    or its folder) into `target`; returns `target`."""
    source_file = source / SOURCE_FILE if source.is_dir() else source
    try:
        data = json.loads(source_file.read_text(encoding="utf-8"))
        paragraphs = [p for article in data["data"] for p in article["paragraphs"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"{source_file}: not the Enron SQuAD file ({exc})") from exc
    rows: list[dict[str, Any]] = []
    questions: dict[str, _Question] = {}
    every_chunk: list[Chunk] = []
    for number, paragraph in enumerate(paragraphs):
        doc_id = f"email-{paragraph.get('document_id', number)}"
        chunks, meta = _email_chunks(doc_id, str(paragraph["context"]))
        rows += [_row(chunk, meta) for chunk in chunks]
        every_chunk += chunks
        for qa in paragraph.get("qas", []):
            _add_question(questions, qa, chunks, str(paragraph["context"]))
    for question in questions.values():
        for answer in question.answers if question.answerable else []:
            if _specific(answer):  # an address or a phrase found in another e-mail answers it too
                question.relevant |= _chunks_holding(every_chunk, answer, 0, "", fallback=False)
    target.mkdir(parents=True, exist_ok=True)
    _write_jsonl(target / "corpus.jsonl", rows)
    _write_jsonl(
        target / "queries.jsonl",
        [
            {
                "_id": q.id,
                "text": q.text,
                "metadata": {"persona": PERSONA, "answerable": q.answerable, "answers": q.answers},
            }
            for q in questions.values()
        ],
    )
    (target / "qrels").mkdir(exist_ok=True)
    lines = ["query-id\tcorpus-id\tscore"]
    lines += [f"{q.id}\t{c}\t1" for q in questions.values() if q.answerable for c in sorted(q.relevant)]
    (target / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def converted_folder(source: Path, cache: Path) -> Path:
    """The converted copy of `source` under `cache`, made once per source file and converter."""
    source_file = source / SOURCE_FILE if source.is_dir() else source
    digest = hashlib.sha256(source_file.read_bytes()).hexdigest()[:12]
    folder = cache / f"enron-email-qa-{digest}-v{CONVERTER_VERSION}"
    if not (folder / "qrels" / "test.tsv").is_file():
        convert_enron(source_file, folder)
    return folder


def _email_chunks(doc_id: str, raw: str) -> tuple[list[Chunk], dict[str, Any]]:
    converted = convert_text(raw.encode("utf-8"), Path(f"{doc_id}.txt"))
    title = converted.title or f"E-mail {doc_id}"
    meta: dict[str, Any] = {"doc_id": doc_id, "persona": PERSONA, "title": title}
    if converted.meta.get("date"):
        meta["date"] = converted.meta["date"]
    sender = converted.meta.get("from")
    if sender:
        meta["author"] = str(sender)
    people = [str(converted.meta[k]) for k in ("from", "to", "cc") if converted.meta.get(k)]
    names = [n.strip() for field_value in people for n in field_value.split(",") if n.strip()]
    if names:
        meta["participants"] = list(dict.fromkeys(names))
    return chunk_document(doc_id, title, converted.markdown, max_tokens=180, overlap=30), meta


def _row(chunk: Chunk, meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "_id": chunk.id,
        "title": meta["title"],
        "text": chunk.text,
        "metadata": meta | {"section": chunk.section_path},
    }


def _add_question(
    questions: dict[str, _Question], qa: dict[str, Any], chunks: list[Chunk], context: str
) -> None:
    text = " ".join(str(qa.get("question", "")).split())
    if not text or not self_contained(text):
        return
    answers = [str(a["text"]) for a in qa.get("answers", []) if str(a.get("text", "")).strip()]
    answerable = not qa.get("is_impossible") and bool(answers)
    key = text.casefold()
    question = questions.setdefault(key, _Question(f"enron-q{len(questions)}", text, [], answerable))
    question.answers = list(dict.fromkeys(question.answers + answers))
    question.answerable = question.answerable or answerable
    for answer in qa.get("answers", []) if answerable else []:
        question.relevant |= _chunks_holding(
            chunks, str(answer["text"]), int(answer.get("answer_start", 0)), context
        )


def _specific(answer: str) -> bool:
    """An answer that names one thing wherever it appears (an address, a number, a phrase), not
    a common word ("Supervisor") that other e-mails use about other people."""
    return "@" in answer or any(c.isdigit() for c in answer) or len(answer.split()) >= 2


def _chunks_holding(
    chunks: list[Chunk], answer: str, start: int, context: str, fallback: bool = True
) -> set[str]:
    wanted = _folded(answer)
    holding = {c.id for c in chunks if wanted and wanted in _folded(c.text)}
    if holding or not chunks or not fallback:
        return holding
    # the answer sits in a header line the converter keeps as metadata, or straddles two
    # chunks: the chunk holding the words around it (else the first) stands for it
    around = _folded(context[max(0, start - 60) : start])
    near = [c.id for c in chunks if around and around[-20:] in _folded(c.text)]
    return {near[0] if near else chunks[0].id}


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
