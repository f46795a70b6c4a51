"""`shu migrate`: copy a knowledge base from one store to another (SQLite → PostgreSQL, or back)
with its embeddings, enrichment and the agent's findings, nothing recomputed. Resumable: a document
the target already holds with the same content hash is skipped, and so is a finding it holds, so a
stopped run continues where it was."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field

from shu.errors import ShuError
from shu.store.base import Store, StoredDocument
from shu.types import Document, Finding, Signal

Progress = Callable[[str, int, int], None]


@dataclass
class MigrationReport:
    personas: int = 0
    copied: int = 0
    unchanged: int = 0
    chunks: int = 0
    only_in_target: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    """doc id → why the target refused it (the others are copied; a re-run tries it again)"""
    findings: int = 0
    """the agent's findings copied (undone ones too: they are kept for the record)"""
    users: int = 0
    """users' profiles, keys and logins (hashed), conversations and signals copied: how many, summed"""
    seconds: float = 0.0


def migrate(
    source: Store, target: Store, progress: Progress | None = None, force: bool = False
) -> MigrationReport:
    """`force` copies every document again, also those the target holds with the same content
    hash (their enrichment may have been redone since: `shu ingest --redo`)."""
    with target.writer():  # one writer per store: an ingestion into the target waits
        return _migrate(source, target, progress or (lambda stage, done, total: None), force)


def _migrate(source: Store, target: Store, progress: Progress, force: bool) -> MigrationReport:
    started = time.perf_counter()
    report = MigrationReport()
    for persona in source.list_personas():
        target.upsert_persona(persona)
        report.personas += 1
    documents = source.list_documents()
    held = {doc.id: doc.content_hash for doc in target.list_documents()}
    if force:
        held = {doc_id: "" for doc_id in held}
    missing = sum(held.get(doc.id) != doc.content_hash for doc in documents)
    # Many documents into PostgreSQL: load first, build the HNSW indexes once at the end.
    bulk = getattr(target, "bulk", None) if missing > 200 else None
    with bulk() if bulk else nullcontext():
        _copy(source, target, documents, held, report, progress, threads=2 if bulk else 1)
    report.findings = _copy_findings(source, target)
    report.users = _copy_users(source, target)
    known = {doc.id for doc in documents}
    report.only_in_target = sorted(doc_id for doc_id in held if doc_id not in known)
    report.seconds = time.perf_counter() - started
    return report


def _copy(
    source: Store,
    target: Store,
    documents: list[Document],
    held: dict[str, str],
    report: MigrationReport,
    progress: Progress,
    threads: int = 1,
) -> None:
    """Each document read from the source and written to the target, by `threads` threads at
    once (a bulk load into PostgreSQL takes several writers); the report is kept here, in order."""

    def copy(doc: Document) -> tuple[str, int | str]:
        if held.get(doc.id) == doc.content_hash:
            return "unchanged", 0
        stored = source.export_document(doc.id)
        return _copy_one(target, stored) if stored is not None else ("gone", 0)

    with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as pool:
        outcomes = pool.map(copy, documents) if pool is not None else map(copy, documents)
        for done, (doc, (outcome, detail)) in enumerate(zip(documents, outcomes, strict=True), start=1):
            if outcome == "unchanged":
                report.unchanged += 1
            elif outcome == "copied":
                report.copied += 1
                report.chunks += int(detail)
            elif outcome == "failed":
                report.failed[doc.id] = str(detail)
            progress("migrate", done, len(documents))


def _copy_findings(source: Store, target: Store) -> int:
    """Oldest first, so that the target lists them in the same order; one the target already
    holds (same finding, same time, same state) is not copied again."""
    held = {_same(f) for f in target.list_findings(include_undone=True)}
    copied = 0
    for finding in reversed(source.list_findings(include_undone=True)):
        if _same(finding) not in held:
            target.add_finding(finding.model_copy(update={"id": None}))
            copied += 1
    return copied


def _copy_users(source: Store, target: Store) -> int:
    """Profiles, keys (their hashes: they keep working), logins (their password hashes: the same
    passwords sign in; sessions are not copied: one signs in again), conversations and signals;
    what the target already holds (a key, login or conversation by id or name, a signal by its
    content and time) is not copied again."""
    copied = 0
    for user_id in source.list_users():
        profile = source.get_user(user_id)
        if profile is not None and target.get_user(user_id) is None:
            target.save_user(profile)
            copied += 1
    for key in source.list_keys():
        found = source.get_key(key.id)
        if found is not None and target.get_key(key.id) is None:
            target.add_key(*found)
            copied += 1
    for login in source.list_logins():
        kept = source.get_login(login.name)
        if kept is not None and target.get_login(login.name) is None:
            target.save_login(*kept)
            copied += 1
    for user in source.list_conversation_users():
        for conversation in source.list_conversations(user):
            if target.get_conversation(conversation.id) is None:
                target.save_conversation(conversation)
                copied += 1
    for user in source.list_signal_users():
        held = {_same_signal(s) for s in target.list_signals(user)}
        for signal in reversed(source.list_signals(user)):
            if _same_signal(signal) not in held:
                target.add_signal(signal)
                copied += 1
    return copied


def _same_signal(signal: Signal) -> tuple[object, ...]:
    return (*signal.model_dump(exclude={"id"}).values(),)


def _same(finding: Finding) -> tuple[object, ...]:
    return (*finding.model_dump(exclude={"id"}).values(),)


def _copy_one(target: Store, stored: StoredDocument) -> tuple[str, int | str]:
    """("copied", chunks), or ("failed", why the target refused it)."""
    try:
        target.replace_document(
            stored.doc,
            stored.chunks,
            stored.vectors,
            stored.embedder,
            stored.enrichment,
            stored.question_vectors,
            stored.profile_vectors,
        )
    except ShuError as exc:
        return "failed", str(exc)
    return "copied", len(stored.chunks)
