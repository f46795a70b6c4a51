"""`shu bench-formats`: each format's conversion and ingestion time on the generated samples
(`shu_eval.samples`), plus the Enron e-mails as `.eml` when the data folder is given: documents
and sections made, conversion time (median of 5), and the whole ingestion (conversion,
chunking, enrichment, embedding, storing) per file."""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shu.config.settings import load_settings
from shu.ingest.convert.base import convert_documents
from shu.kb import KnowledgeBase
from shu.models.embed import Embedder, create_embedder
from shu_eval.bench import machine


@dataclass
class FormatResult:
    label: str
    files: int
    kilobytes: float
    documents: int
    sections: int
    convert_ms: float
    ingest_s: float
    chunks: int
    note: str = ""


def samples() -> list[tuple[str, str, Callable[[], bytes]]]:
    from shu_eval.samples import calendar_chat, mail, office

    return [
        ("E-mail thread (.mbox, 3 messages)", "thread.mbox", mail.make_mbox),
        ("E-mail with attachments (.eml)", "minutes.eml", mail.make_eml_with_attachments),
        ("HTML e-mail (.eml)", "regatta.eml", mail.make_html_eml),
        ("Calendar (.ics, 3 events)", "club.ics", calendar_chat.make_ics),
        ("Slack export (.json)", "slack.json", calendar_chat.make_chat_json),
        ("ChatGPT export (.json)", "chatgpt.json", calendar_chat.make_chatgpt_json),
        ("Chat lines (.jsonl)", "chat.jsonl", calendar_chat.make_chat_jsonl),
        ("Slides (.pptx)", "deck.pptx", office.make_pptx),
        ("Spreadsheet (.xlsx)", "plots.xlsx", office.make_xlsx),
        ("Table (.csv)", "plots.csv", office.make_csv),
        ("E-book (.epub)", "book.epub", office.make_epub),
        ("Scanned page (.png, OCR)", "scan.png", mail.make_scan_png),
        ("Scanned PDF (OCR)", "scan.pdf", mail.make_scanned_pdf),
    ]


def run(enron: Path | None = None) -> list[FormatResult]:
    embedder = create_embedder(load_settings(Path(tempfile.mkdtemp()), []).embedder)
    embedder.embed_documents(["warm up"])
    results = []
    for label, name, make in samples():
        try:
            data = make()
        except ImportError as exc:  # fpdf2 / Pillow are test dependencies
            results.append(FormatResult(label, 0, 0, 0, 0, 0, 0, 0, f"needs {exc.name}"))
            continue
        results.append(_measure(label, {name: data}, embedder))
    if enron is not None:
        paragraphs = [p for a in json.loads(enron.read_text())["data"] for p in a["paragraphs"]]
        files = {f"enron-{n}.eml": p["context"].encode() for n, p in enumerate(paragraphs)}
        results.append(_measure(f"Enron e-mails (.eml, {len(files)} files)", files, embedder))
    return results


def _measure(label: str, files: dict[str, bytes], embedder: Embedder) -> FormatResult:
    timings, documents = [], []
    for _ in range(5):
        began = time.perf_counter()
        documents = [d for name, data in files.items() for d in convert_documents(Path(name), data)]
        timings.append((time.perf_counter() - began) * 1000)
    sections = sum(line.startswith("#") for d in documents for line in d.markdown.splitlines())
    work = Path(tempfile.mkdtemp(prefix="shu-bench-formats-"))
    try:
        raw = work / "personas" / "bench" / "RAW-DOCS"
        raw.mkdir(parents=True)
        (raw.parent / "persona.config.json").write_text('{"slug": "bench", "display_name": "Bench"}')
        for name, data in files.items():
            (raw / name).write_bytes(data)
        with KnowledgeBase(load_settings(work / "home", []), embedder=embedder) as kb:
            began = time.perf_counter()
            report = kb.ingest(work / "personas")
            seconds = time.perf_counter() - began
        note = f"{len(report.failed)} failed" if report.failed else ""
        return FormatResult(
            label,
            len(files),
            sum(len(d) for d in files.values()) / 1000,
            len(documents),
            sections,
            statistics.median(timings),
            seconds,
            report.chunks_written,
            note,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def markdown(results: list[FormatResult]) -> str:
    lines = [
        f"Machine: {machine()}. Conversion: median of 5; ingestion: conversion, chunking, "
        "enrichment (no LLM), embedding (MiniLM) and storing, in a fresh knowledge base.",
        "",
        "| format | files | KB | documents | headings | convert ms | ingest s | chunks | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.label} | {r.files} | {r.kilobytes:.1f} | {r.documents} | {r.sections} | "
            f"{r.convert_ms:.1f} | {r.ingest_s:.2f} | {r.chunks} | {r.note} |"
        )
    return "\n".join(lines)
