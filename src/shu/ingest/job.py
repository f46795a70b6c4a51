"""The ingestion run: persona folders → RAW-DOCS converted → RAG documents chunked, embedded in
batches across documents, and stored one document per transaction. Unchanged documents cost a
hash; a bad file is reported and skipped; `prune` removes documents whose files are gone."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Literal

import numpy as np

from shu.config.settings import Settings
from shu.enrich.enricher import ENRICH_VERSION, enrich_document
from shu.enrich.llm import LLMEnricher
from shu.enrich.relationships import document_relationships
from shu.enrich.tiers import Tier, tier
from shu.errors import ConfigError, ShuError, SkipDocument
from shu.ingest.budget import Limits, OverBudget
from shu.ingest.chunking import chunk_document
from shu.ingest.claims import Claim, Holder, Ruling, folder_of, holder_of, qualified, rule, to_qualify
from shu.ingest.documents import ParsedDocument, content_hash, parse_rag_file
from shu.ingest.files import list_files, read_inside, resolved
from shu.ingest.index_settings import BUILT_WITH, changes, chosen, context_choice, with_context
from shu.ingest.key_terms import indexed
from shu.ingest.personas import PersonaFolder, check_inside, find_persona_folders, load_persona
from shu.ingest.raw import convert_raw_folder, prune_orphans
from shu.ingest.report import FileOutcome, IngestReport
from shu.ingest.urls import fetch_url_lists, prune_unlisted
from shu.ingest.vectors import BatchItem, embed_batch, kept_vectors
from shu.models.embed.base import Embedder
from shu.prompts import load_prompt
from shu.store.base import KnowledgeStore
from shu.types import Chunk, ChunkProfile, Document, DocumentRef, Enrichment

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
Redo = Literal["changed", "all", "fallbacks"]
"""progress(stage, done, total)"""


@dataclass
class _Pending:
    parsed: ParsedDocument
    chunks: list[Chunk]
    outcome: FileOutcome
    enrichment: Enrichment
    stored: bool
    """an earlier version is stored (its unchanged texts keep their vectors)"""


@dataclass
class _Run:
    """What one run knows while it reads the RAG folders."""

    stored_by_path: dict[str, Document]
    run_paths: set[str]
    known: set[str]
    configs: dict[str, list[str]]
    """persona → the personas whose folders it accepts documents from"""
    claims: dict[str, list[Claim]] = field(default_factory=dict)
    reached: dict[str, frozenset[str]] = field(default_factory=dict)
    """file path → the personas it lists that do not accept documents from its folder"""
    claimed: dict[str, Claim] = field(default_factory=dict)
    failed_paths: set[str] = field(default_factory=set)


@dataclass
class _Batch:
    items: list[_Pending] = field(default_factory=list)

    @property
    def chunk_count(self) -> int:
        return sum(len(p.chunks) + len(p.enrichment.questions) + 2 for p in self.items)


class IngestJob:
    def __init__(
        self,
        settings: Settings,
        store: KnowledgeStore,
        embedder: Embedder,
        progress: Progress | None = None,
        llm: LLMEnricher | None = None,
        context: bool | None = None,
        after: Callable[[IngestReport], None] | None = None,
        deferred: LLMEnricher | None = None,
    ) -> None:
        """`context`: index chunks with (True) or without (False) context prefixes, a choice kept
        for later runs (`shu.ingest.index_settings`); None follows the kept choice or the settings.
        `after`: called once a run that changed the knowledge base is done (users' profiles follow
        it); what it raises is logged, never the run's failure."""
        self.after = after
        self.deferred = deferred
        """the model whose artifacts fill in after this run (`enrich.defer`): this run writes the
        non-LLM ones, and is fingerprinted as the model's (a later run finds nothing changed)"""
        self.settings = settings
        self.context = context
        self.store = store
        self.embedder = embedder
        self.llm = llm
        self.catalogue: list[DocumentRef] = []
        self.projects: list[str] = []
        self.progress = progress or (lambda stage, done, total: None)
        self.max_bytes = int(settings.ingest.max_file_mb * 1_000_000)
        self.report = IngestReport()
        """The report of the run under way (complete once `run` returns)."""
        self.tiers: Counter[str] = Counter()
        """How many documents of the run got each tier (`enrich.tiers`)."""
        self.linked: Counter[str] = Counter()
        self._counting = threading.Lock()  # documents are enriched by parallel workers

    def run(self, root: Path, prune: bool = False, redo: Redo = "changed") -> IngestReport:
        """`redo`: "changed" (default) processes new and changed documents; "all" every document;
        "fallbacks" also those whose profile was made extractively while an LLM is configured."""
        started = time.perf_counter()
        self.redo = redo
        llm_before = self.llm.summary() if self.llm else {}
        report = self.report = IngestReport()
        self.tiers = Counter()
        with self.store.writer():  # a concurrent run over the same store waits, then finds it done
            built_with = self._settle_settings(report)
            self._run(root, prune, report)
            self.store.save_index_settings({**self.store.index_settings(), BUILT_WITH: built_with})
        report.seconds = time.perf_counter() - started
        if self.llm is not None:
            report.llm = self.llm.summary_since(llm_before)
            if self.tiers:
                report.llm["tiers"] = dict(self.tiers)
            if report.llm["calls"] or report.llm["cached"]:
                self.store.record_llm_run(report.llm)
        counts = report.counts()
        if self.after is not None and (counts["ingested"] or counts["pruned"]):
            try:
                self.after(report)
            except Exception:  # the documents are in: what follows them must not fail the run
                log.exception("what follows an ingestion run failed")
        return report

    def _settle_settings(self, report: IngestReport) -> dict[str, object]:
        """Follow (or record) the context-prefix choice, and note the settings that changed since
        the last complete run; what this run builds the index with."""
        kept = self.store.index_settings()
        configured = self.settings.enrich.context
        self.settings = with_context(self.settings, context_choice(self.settings, kept, self.context))
        if self.context is not None:
            choice = chosen(kept, configured, self.context)
            if choice != kept:
                self.store.save_index_settings(choice)
        built_with = self._built_with()
        before = kept.get(BUILT_WITH)
        changed = changes(before, built_with) if isinstance(before, dict) else []
        if changed:
            report.notes.append(
                f"settings changed since the last run ({'; '.join(changed)}): documents indexed "
                "with the earlier settings are indexed again; texts that stay the same keep their vectors"
            )
        return built_with

    def _run(self, root: Path, prune: bool, report: IngestReport) -> None:
        folders = self._load_personas(root, report)
        converted = 0
        for folder in folders:
            limits = Limits.from_settings(self.settings.ingest)
            for outcome in convert_raw_folder(folder, self.max_bytes, limits):
                report.add(outcome)
                converted += 1
                self.progress("convert", converted, 0)  # (a job may stop here: the next run goes on)
            if prune:
                for outcome in [*prune_orphans(folder), *prune_unlisted(folder)]:
                    report.add(outcome)
            for outcome in fetch_url_lists(folder, self.settings.ingest):
                report.add(outcome)
        self._ingest_rag(folders, report, prune)

    def _load_personas(self, root: Path, report: IngestReport) -> list[PersonaFolder]:
        if not root.is_dir():
            raise ConfigError(f"{root}: not a folder (expected a persona folder or a folder of personas)")
        paths = find_persona_folders(root)
        if not paths:
            raise ConfigError(
                f"{root}: no persona folders found (each needs persona.md or persona.config.json)"
            )
        folders: list[PersonaFolder] = []
        for path in paths:
            try:
                check_inside(path, root)
                folder = load_persona(path)
            except ConfigError as exc:
                report.add(FileOutcome(path=str(path), status="failed", message=str(exc)))
                continue
            for refused, why in folder.refused:
                report.add(FileOutcome(path=str(refused), status="failed", message=why))
            self.store.upsert_persona(folder.persona)
            report.personas.append(folder.slug)
            folders.append(folder)
        return folders

    def _ingest_rag(self, folders: list[PersonaFolder], report: IngestReport, prune: bool) -> None:
        files = [
            (folder, path)
            for folder in folders
            for path in list_files(folder.rag_dir)
            if path.suffix.lower() == ".md"
        ]
        run = _Run(
            stored_by_path={d.path: d for d in self.store.list_documents()},
            run_paths={str(resolved(path)) for _, path in files},
            known={p.slug for p in self.store.list_personas()},
            configs={f.slug: f.persona.config.accept_from for f in folders},
        )
        for folder, path in files:
            self._parse(folder, path, run, report)
        self._resolve_claims(run, report)
        self.catalogue = self._catalogue(run) if self.llm is not None else []
        self.projects = self._projects(run)
        self.linked = self._linked(run) if self.llm is not None and self.settings.enrich.tiers else Counter()
        batch = _Batch()
        self.progress("ingest", 0, len(run.claimed))  # the stage begins: its rate is measured from here
        for done, pending in enumerate(self._prepared(list(run.claimed.values())), start=1):
            if pending is not None:
                batch.items.append(pending)
            if batch.chunk_count >= self.settings.ingest.embed_batch_chunks:
                self._flush(batch)
            self.progress("ingest", done, len(run.claimed))
        self._flush(batch)
        self._drop_replaced(run, report)
        if prune:
            self._prune(folders, run, report)

    def _parse(self, folder: PersonaFolder, path: Path, run: _Run, report: IngestReport) -> None:
        """First pass: read and parse one file, and put in its claim on its id."""
        outcome = report.add(FileOutcome(path=str(path), status="failed"))
        resolved_path = str(resolved(path))
        try:
            data = read_inside(path, folder.path, self.max_bytes)
            parsed = parse_rag_file(path, data, folder.slug)
        except SkipDocument as exc:
            outcome.status, outcome.message = "skipped", str(exc)
            self._forget_emptied(resolved_path, run, outcome)
            return
        except ShuError as exc:
            outcome.message = str(exc)
            run.failed_paths.add(resolved_path)
            return
        except Exception as exc:  # a parser bug must not stop the run: report it and go on
            log.exception("parsing %s failed unexpectedly", path)
            outcome.message = f"unexpected {exc.__class__.__name__}: {exc}"
            run.failed_paths.add(resolved_path)
            return
        doc = parsed.doc
        outcome.doc_id = doc.id
        listed = doc.personas
        doc.personas, refused = self._admitted(listed, folder.slug, run)
        outcome.warnings = parsed.warnings + refused
        run.reached[doc.path] = frozenset(p for p in listed if p in run.known and p not in doc.personas)
        run.claims.setdefault(doc.id, []).append((parsed, outcome))

    def _admitted(self, personas: list[str], source: str, run: _Run) -> tuple[list[str], list[str]]:
        """The folder's own persona, and each other persona the file lists that accepts documents
        from it (`accept_from` in its persona.config.json); a warning for each one left out."""
        kept, refused = [source], []
        for slug in personas:
            if slug == source:
                continue
            if slug not in run.known:
                refused.append(f"lists persona {slug!r}, which has no persona folder (left out)")
            elif not self._accepts(slug, source, run):
                refused.append(
                    f"lists persona {slug!r}, which does not accept documents from {source!r} "
                    f"(its persona.config.json accept_from; left out)"
                )
            else:
                kept.append(slug)
        return kept, refused

    def _accepts(self, target: str, source: str, run: _Run) -> bool:
        if target not in run.known:
            return False
        if target not in run.configs:
            stored = self.store.get_persona(target)
            run.configs[target] = stored.config.accept_from if stored else []
        accepted = run.configs[target]
        return "*" in accepted or source in accepted

    def _resolve_claims(self, run: _Run, report: IngestReport) -> None:
        """One file per id, by the rules of `shu.ingest.claims`; a byte-identical copy joins the
        winner, a file that lost only to another persona's file claims its qualified id in a
        second round, every other claim fails naming why."""
        second: dict[str, list[Claim]] = {}
        self._rule_on(run.claims, run, report, second)
        for doc_id in second:
            if (first := run.claimed.pop(doc_id, None)) is not None:
                second[doc_id].insert(0, first)
        self._rule_on(second, run, report, None)

    def _rule_on(
        self,
        claims_by_id: dict[str, list[Claim]],
        run: _Run,
        report: IngestReport,
        second: dict[str, list[Claim]] | None,
    ) -> None:
        for doc_id, claims in claims_by_id.items():
            stored = self.store.get_document(doc_id)
            holder = None
            if stored is not None and Path(stored.path).exists():
                accepts = partial(self._accepts, run=run)
                holder = holder_of(stored, run.run_paths, run.failed_paths, accepts)
            ruling = rule(claims, holder, run.reached)
            winner = ruling.winner
            movable = {id(c) for c in to_qualify(claims, ruling, holder)} if second is not None else set()
            for claim in claims:
                parsed, outcome = claim
                if winner is not None and parsed is winner[0]:
                    continue
                if winner is not None and parsed.raw == winner[0].raw:
                    first = winner[0].doc
                    first.personas = list(dict.fromkeys([*first.personas, *parsed.doc.personas]))
                    outcome.status = "unchanged"
                    joined = parsed.doc.personas[0]
                    outcome.message = f"same file as {first.path}; it now belongs to {joined} too"
                    continue
                new_id = qualified(doc_id, folder_of(claim)) if id(claim) in movable else None
                if second is not None and new_id is not None:
                    parsed.doc.id = outcome.doc_id = new_id
                    outcome.warnings.append(f"id {doc_id!r} is another persona's: stored as {new_id!r}")
                    second.setdefault(new_id, []).append(claim)
                    continue
                outcome.message = _refusal(doc_id, claim, claims, ruling)
                run.failed_paths.add(parsed.doc.path)
            if ruling.evicted is not None:
                self._evict(doc_id, ruling.evicted, winner, report)
            if winner is not None:
                run.claimed[doc_id] = winner

    def _evict(self, doc_id: str, holder: Holder, winner: Claim | None, report: IngestReport) -> None:
        """A stored document that reached into a persona whose own file names its id: it goes
        (replaced by the winner, or deleted when nobody may take the id)."""
        owner = f"{winner[0].doc.path} of {folder_of(winner)}" if winner else "files of personas it lists"
        reached = ", ".join(sorted(holder.reached_into)) or "another persona"
        if not holder.in_run:
            report.add(
                FileOutcome(
                    path=holder.document.path,
                    status="pruned",
                    doc_id=doc_id,
                    message=f"removed from the index: it lists {reached}, which does not accept documents "
                    f"from {holder.folder!r}, and id {doc_id!r} is named by {owner}",
                )
            )
        if winner is None:
            self.store.delete_document(doc_id)

    def _prepared(self, claimed: list[Claim]) -> Iterator[_Pending | None]:
        """Chunk and enrich each document, in order. With an LLM, documents are enriched by
        parallel workers (the calls wait on the network; the client bounds them)."""
        if self.llm is None or len(claimed) < 2:
            yield from (self._prepare(parsed, outcome) for parsed, outcome in claimed)
            return
        with ThreadPoolExecutor(self.settings.llm.concurrency, thread_name_prefix="shu-enrich") as pool:
            yield from pool.map(lambda item: self._prepare(*item), claimed)

    def _prepare(self, parsed: ParsedDocument, outcome: FileOutcome) -> _Pending | None:
        """Second pass: skip what is unchanged, chunk what is new or changed."""
        doc = parsed.doc
        doc.content_hash = content_hash(parsed, self._fingerprint())
        stored = self.store.get_document(doc.id)
        if stored is not None and stored.content_hash == doc.content_hash and not self._redo(doc.id):
            outcome.status = "unchanged"
            return None
        chunking = self.settings.chunking
        try:
            chunks = chunk_document(
                doc.id,
                doc.title,
                parsed.body,
                chunking.max_tokens,
                chunking.overlap_tokens,
                doc.date,
                max_chunks=self.settings.ingest.max_chunks_per_file,
            )
        except OverBudget as exc:  # fails before a chunk is enriched or embedded; the run goes on
            outcome.message = str(exc)
            return None
        except Exception as exc:  # a chunker bug must not stop the run
            log.exception("chunking %s failed unexpectedly", doc.id)
            outcome.message = f"unexpected {exc.__class__.__name__} while chunking: {exc}"
            return None
        if not chunks:
            outcome.status, outcome.message = "skipped", "no text to index"
            if stored is not None:
                self.store.delete_document(doc.id)
                outcome.message += "; its earlier version was removed from the index"
            return None
        try:
            enrichment, chunks = enrich_document(
                doc,
                parsed.body,
                chunks,
                self.settings.enrich,
                self.llm,
                self.catalogue,
                self.projects,
                kept=self._kept_chunk_profiles(chunks) if stored is not None else None,
                worth=self._worth(doc, chunks),
            )
        except Exception as exc:  # enrichment is an extra: the document is still indexed without it
            log.exception("enriching %s failed; indexed without it", doc.id)
            enrichment = Enrichment()
            outcome.warnings.append(
                f"enrichment failed ({exc.__class__.__name__}: {exc}); indexed without it"
            )
        if chunking.key_terms:  # after enrichment: a context prefix rewrites what is indexed
            chunks = indexed(chunks, parsed.body, parsed.key_terms)
        return _Pending(parsed, chunks, outcome, enrichment, stored is not None)

    def _worth(self, doc: Document, chunks: list[Chunk]) -> Tier:
        """What the model writes for the document (`enrich.tiers`; everything when off, or when
        everything is asked for again): the documents linking to it are those stored and those of
        this run (a first ingestion has none stored yet)."""
        if self.llm is None or not self.settings.enrich.tiers or self.redo == "all":
            return "full"
        linked = len(set(self.store.linking_to(doc.id))) + self.linked.get(doc.id, 0)
        worth = tier(doc, chunks, linked, datetime.now(UTC).date())
        with self._counting:
            self.tiers[worth] += 1
        return worth

    def _linked(self, run: _Run) -> Counter[str]:
        """How many documents of this run link to each document (frontmatter, links, threads)."""
        linked: Counter[str] = Counter()
        for parsed, _ in run.claimed.values():
            targets = {r.target for r in document_relationships(parsed.doc, parsed.body)}
            linked.update(t for t in targets if t != parsed.doc.id)
        return linked

    def _kept_chunk_profiles(self, chunks: list[Chunk]) -> dict[str, ChunkProfile]:
        """The chunk profiles this model wrote for passages of the stored version whose text did
        not change (a chunk's id is its section and text): a changed document re-profiles only
        its changed passages (a deferred run keeps them too, for the model's pass after it). None
        are kept when everything is asked for again, nor any written with another prompt."""
        model = self.llm or self.deferred
        if model is None or self.redo == "all":
            return {}
        method = f"llm:{model.client.name}"
        prompts = {load_prompt("chunk_profile").version, load_prompt("chunk_profiles").version}
        found = self.store.get_chunk_profiles([c.id for c in chunks])
        return {
            chunk_id: p
            for chunk_id, p in found.items()
            if p.provenance.method == method and p.provenance.prompt_version in prompts
        }

    def _catalogue(self, run: _Run) -> list[DocumentRef]:
        """Every document this run and the store know: what LLM-proposed relationships may target."""
        refs = {
            d.id: DocumentRef(id=d.id, title=d.title, personas=d.personas)
            for d in self.store.list_documents()
        }
        for parsed, _ in run.claimed.values():
            doc = parsed.doc
            refs[doc.id] = DocumentRef(id=doc.id, title=doc.title, personas=doc.personas)
        return list(refs.values())

    def _projects(self, run: _Run) -> list[str]:
        """The projects documents declare (frontmatter `project`, `projects`), stored or in this run."""
        documents = [*self.store.list_documents(), *(parsed.doc for parsed, _ in run.claimed.values())]
        names: dict[str, str] = {}
        for doc in documents:
            for key in ("project", "projects"):
                value = doc.meta.get(key)
                for name in value if isinstance(value, list) else [value]:
                    if isinstance(name, str) and name.strip():
                        names.setdefault(name.strip().casefold(), name.strip())
        return sorted(names.values())

    def _redo(self, doc_id: str) -> bool:
        if self.redo == "all":
            return True
        if self.redo == "fallbacks" and self.llm is not None:
            profile = self.store.get_profile(doc_id)
            if profile is not None and profile.provenance.method.startswith("llm:"):
                return False
            stored = self.store.get_document(doc_id)
            if stored is not None and self.settings.enrich.tiers:  # extractive by its worth: not a fallback
                chunks = self.store.list_chunks(doc_id)
                linked = len(set(self.store.linking_to(doc_id)))
                return tier(stored, chunks, linked, datetime.now(UTC).date()) != "extractive"
            return True
        return False

    def _flush(self, batch: _Batch) -> None:
        if not batch.items:
            return
        items = [BatchItem(item.chunks, item.enrichment, self._kept(item)) for item in batch.items]
        try:
            vectors = embed_batch(self.embedder, items)
        except ShuError as exc:
            for item in batch.items:
                item.outcome.message = f"embedding failed: {exc}"
            batch.items.clear()
            return
        self.report.texts_embedded += vectors.embedded
        self.report.vectors_kept += vectors.kept
        for item, found in zip(batch.items, vectors.documents, strict=True):
            try:
                self.store.replace_document(
                    item.parsed.doc,
                    item.chunks,
                    found.chunks,
                    self.embedder.name,
                    item.enrichment,
                    found.questions,
                    found.profile,
                )
                item.outcome.status, item.outcome.chunks = "ingested", len(item.chunks)
            except ShuError as exc:
                item.outcome.message = str(exc)
        batch.items.clear()

    def _kept(self, item: _Pending) -> dict[str, np.ndarray]:
        if not item.stored:
            return {}
        return kept_vectors(self.store.export_document(item.parsed.doc.id), self.embedder.name)

    def _forget_emptied(self, path: str, run: _Run, outcome: FileOutcome) -> None:
        """A file that is now empty no longer answers anything: its earlier version goes."""
        stored = run.stored_by_path.get(path)
        if stored is not None and self.store.delete_document(stored.id):
            outcome.doc_id = stored.id
            outcome.message += "; its earlier version was removed from the index"

    def _drop_replaced(self, run: _Run, report: IngestReport) -> None:
        """A file whose `id:` changed: the document stored under its old id goes."""
        for path, stored in run.stored_by_path.items():
            if path in run.run_paths and stored.id not in run.claimed and path not in run.failed_paths:
                new_id = next((i for i, (p, _) in run.claimed.items() if p.doc.path == path), None)
                if new_id is not None and self.store.delete_document(stored.id):
                    report.add(
                        FileOutcome(
                            path=path,
                            status="pruned",
                            doc_id=stored.id,
                            message=f"its file now has id {new_id!r}",
                        )
                    )

    def _prune(self, folders: list[PersonaFolder], run: _Run, report: IngestReport) -> None:
        roots = [folder.path.resolve() for folder in folders]
        # a generated RAG file pruned in this run (its raw file or URL is gone) and its indexed
        # document are one document: one outcome, counted once
        files_pruned = {str(resolved(Path(o.path))): o for o in report.outcomes if o.status == "pruned"}
        for doc in self.store.list_documents():
            inside = any(Path(doc.path).is_relative_to(root) for root in roots)
            if not inside or doc.id in run.claimed or doc.path in run.failed_paths:
                continue
            if not self.store.delete_document(doc.id):
                continue
            file_pruned = files_pruned.get(doc.path)
            if file_pruned is not None:
                file_pruned.doc_id = doc.id
                file_pruned.message += "; its document left the index"
            else:
                report.add(FileOutcome(path=doc.path, status="pruned", doc_id=doc.id, message="file is gone"))

    def _fingerprint(self) -> str:
        return json.dumps(self._built_with(), sort_keys=True)

    def _built_with(self) -> dict[str, object]:
        """The settings that change what is indexed of a document."""
        model = self.llm or self.deferred
        return {
            "chunking": self.settings.chunking.model_dump(),
            "embedder": self.embedder.name,
            "index_text": 3,  # 2: relative dates indexed with the dates they mean; 3: key terms
            "enrich": self.settings.enrich.model_dump(),
            "enrich_methods": ENRICH_VERSION,
            "llm": model.fingerprint if model else None,
        }


def _refusal(doc_id: str, claim: Claim, claims: list[Claim], ruling: Ruling) -> str:
    """Why `claim` did not get `doc_id`, naming the file or persona that did."""
    reached = ruling.trespassers.get(id(claim))
    if reached is not None:
        return (
            f"document id {doc_id!r} is named by a file of persona {reached!r}, which this file lists "
            f"but which does not accept documents from {folder_of(claim)!r}: its own file keeps the id"
        )
    others = ruling.holder or ", ".join(p.doc.path for p, _ in claims if p is not claim[0])
    return f"document id {doc_id!r} is already used by {others}; give one of the files another id"
