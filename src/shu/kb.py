"""The public Python API: a knowledge base opened from a home folder.

import shu
kb = shu.open(".shu")
kb.ingest("examples/personas")
hits = kb.search("What does the Pro plan cost?", persona="lumen-support")
answer = kb.ask("What does the Pro plan cost?", persona="lumen-support")
for piece in kb.ask_stream("What does the Pro plan cost?", persona="lumen-support"):
    ...  # text as it is generated (citation keys whole), then the final Answer
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import suppress
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from shu.accounts import Accounts
from shu.accounts.logins import Logins
from shu.answer.cache import answer_key
from shu.answer.respond import ScopedAnswerer
from shu.answer.stream import AskEvent, final_answer
from shu.config.settings import Settings, load_settings
from shu.conversations import LOCAL_USER, Conversations
from shu.enrich.enricher import contextualize, with_context
from shu.errors import ConflictError, InvalidRequestError, NotFoundError, ShuError
from shu.ingest.job import Progress, Redo
from shu.ingest.personas import load_persona
from shu.ingest.report import IngestReport
from shu.ingest.suggest_config import ConfigSuggestion, suggest_config
from shu.ingest.uploads import DocumentFiles, document_files, own_folder, persona_folder, remove_files
from shu.jobs import JobRunner
from shu.models.embed import Embedder
from shu.models.llm.budget import active
from shu.models.llm.client import LLMClient
from shu.models.rerank.base import Reranker
from shu.parts import Parts
from shu.retrieve.asker import Asker, asker_of
from shu.store import Store, open_store
from shu.store.facets import filter_choices
from shu.store.factory import open_store_url
from shu.store.graph import MAX_DOCUMENTS as MAX_GRAPH_DOCUMENTS
from shu.store.graph import persona_graph
from shu.store.known import known_document, known_persona
from shu.store.migrate import MigrationReport
from shu.store.migrate import migrate as copy_store
from shu.text import count_tokens, joined_without_overlap
from shu.types import (
    Answer,
    Chunk,
    Conversation,
    Document,
    DocumentFilter,
    DocumentSection,
    DocumentView,
    FilterChoices,
    Finding,
    Job,
    KnowledgeBaseStats,
    KnowledgeGraph,
    Persona,
    RetrievalResult,
    SearchHit,
    Turn,
    citation_key,
)

MAX_QUERY_CHARS = 4000

log = logging.getLogger(__name__)


class KnowledgeBase:
    """The one door to Shu: everything the CLI, the server and your code do goes through here.
    Parts can be given instead of built from the settings (a store, an embedder, an LLM client,
    a reranker, an answerer): for tests, and for your own implementations."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        store: Store | None = None,
        llm: LLMClient | None = None,
        reranker: Reranker | None = None,
        answerer: ScopedAnswerer | None = None,
        fast_llm: LLMClient | None = None,
    ) -> None:
        """`fast_llm`: the model of the fast stages (else `llm.fast` from the settings)."""
        self.settings = settings
        self.store: Store = store if store is not None else open_store(settings)
        self.parts = Parts(settings, self.store, embedder, llm, reranker, answerer, fast_llm)
        """What the verbs are made of (`shu.parts`): built from the settings when first used."""
        self.parts.after_ingest.append(self._profiles_follow)

    def _profiles_follow(self, report: IngestReport) -> None:
        """Users' profiles that are learning follow the documents an ingestion run changed."""
        changed = self.accounts.follow()
        if changed:
            report.notes.append(f"profiles learned again: {', '.join(changed)}")

    @property
    def embedder_name(self) -> str:
        """The embedder the store was filled with (else the configured one)."""
        return self.parts.embedder.name

    def ingest(
        self,
        path: Path | str,
        prune: bool = False,
        progress: Progress | None = None,
        redo: Redo = "changed",
        context: bool | None = None,
    ) -> IngestReport:
        """Ingest persona folders (each document committed on its own: an interrupted run resumes
        where it stopped). `redo`: "changed", "all" or "fallbacks" (LLM artifacts that fell back);
        `context`: index chunks with (True) or without (False) context prefixes from now on (a
        reindex's choice, which later runs follow); None: as chosen before, else as configured."""
        deferring = self.parts.defers and redo == "changed"
        report = self.parts.ingest_job(progress, context, deferring).run(Path(path), prune=prune, redo=redo)
        if deferring and (report.counts()["ingested"] or report.counts()["converted"]):
            searchable = report.seconds  # every document is searchable from here; the model's part follows
            filled = self.parts.ingest_job(progress, context).run(Path(path), redo="fallbacks")
            report.llm = filled.llm
            report.outcomes += [o for o in filled.outcomes if o.status == "failed" or o.warnings]
            report.notes += filled.notes
            report.notes.append(
                f"searchable after {searchable:.1f} s; the model's artifacts filled in after "
                f"{filled.seconds:.1f} s more ({filled.counts()['ingested']} documents, enrich.defer)"
            )
        configured = self.parts.configured_embedder
        if configured != self.embedder_name:
            report.notes.append(
                f"this store keeps the embedder it was filled with, {self.embedder_name}; the settings "
                f"name {configured}: `shu reindex PATH --embedder` embeds every document again with it"
            )
        return report

    def switch_embedder(self, progress: Progress | None = None) -> int:
        """When the store holds vectors of another embedder than the configured one, take every
        document out of the index (their files stay) and forget that embedder, so that the next
        ingestion embeds with the configured one: how `shu reindex --embedder` switches. Each
        document goes in its own transaction (a stopped switch deletes the rest next time); what
        was written about them is written again when they are ingested. Returns how many
        documents went (0: nothing to switch)."""
        configured = self.parts.configured_embedder
        with self.store.writer():
            if self.store.stored_embedder() in (None, configured):
                return 0
            documents = self.store.list_documents()
            for done, doc in enumerate(documents, 1):
                self.store.delete_document(doc.id)
                if progress is not None:
                    progress("forget", done, len(documents))
            self.store.forget_embedder()
        self.parts.forget_embedder()
        return len(documents)

    @property
    def jobs(self) -> JobRunner:
        """Background ingest / enrich / reindex jobs, kept in the store with their progress."""
        return self.parts.jobs

    @property
    def conversations(self) -> Conversations:
        """Each user's conversations with a persona."""
        return self.parts.conversations

    def persona(self, slug: str) -> Persona:
        return known_persona(self.store, slug)

    def personas(self) -> list[Persona]:
        return self.store.list_personas()

    def documents(self, persona: str | None = None, where: DocumentFilter | None = None) -> list[Document]:
        """Every document, or a persona's; with `where` (a persona's only), those it keeps."""
        if persona is not None:
            self.persona(persona)
        found = self.store.list_documents(persona)
        if persona is None or where is None:
            return found
        kept = self.store.document_index(persona).kept(where)
        return found if kept is None else [d for d in found if d.id in kept]

    def graph(
        self,
        persona: str,
        where: DocumentFilter | None = None,
        around: str | None = None,
        max_documents: int = MAX_GRAPH_DOCUMENTS,
    ) -> KnowledgeGraph:
        """The persona's documents and the people, projects and entities they connect, with the
        typed links between them (of the documents `where` keeps); `around`: one document's
        one-hop neighbourhood (not found: no such document in the persona, or outside the filter)."""
        self.persona(persona)
        kept = self.store.document_index(persona).kept(where)
        try:
            return persona_graph(self.store, persona, kept, around, max_documents)
        except KeyError:
            raise NotFoundError(f"no document {around!r} in persona {persona!r}") from None

    def filter_choices(self, persona: str) -> FilterChoices:
        """What the persona's documents offer a filter: types, tags, folders, the span of dates."""
        documents = self.documents(persona)
        return filter_choices(documents, self.store.document_index(persona).facets)

    def persona_folder(self, slug: str) -> Path:
        """The folder of a persona on this machine, known from where its documents are."""
        return persona_folder(slug, self.documents(slug))

    def suggest_persona_config(self, slug: str) -> ConfigSuggestion:
        """A `persona.config.json` suggested from the persona's documents, each addition with why
        (`shu.ingest.suggest_config`), built on the config file as it is now (as last ingested when
        the persona's folder is not known)."""
        persona, documents = self.persona(slug), self.documents(slug)
        with suppress(InvalidRequestError):
            persona = load_persona(self.persona_folder(slug)).persona
        return suggest_config(
            persona, documents, lambda d: "\n\n".join(c.text for c in self.store.list_chunks(d.id))
        )

    def document_files(self, doc_id: str, persona: str) -> DocumentFiles:
        """The RAG file and the raw file of a document in `persona`'s own folder (another
        persona's document is "not found"; one another persona's folder holds is forbidden)."""
        found = known_document(self.store, doc_id, persona)
        return document_files(own_folder(found, persona), found)

    def delete_document(self, doc_id: str, persona: str) -> DocumentFiles:
        """Delete a document of `persona`'s folder: its RAG file, its raw file (unless other
        documents came from it too) and what is indexed of it."""
        with self.store.writer():
            files = self.document_files(doc_id, persona)
            remove_files(files)
            self.store.delete_document(doc_id)
        return files

    def reingest_document(self, doc_id: str, persona: str, user: str = "") -> Job:
        """Index a document of `persona`'s folder again from its file, in a background job."""
        files = self.document_files(doc_id, persona)
        with self.store.writer():
            self.store.delete_document(doc_id)
        return self.jobs.submit("ingest", str(files.rag.parent.parent), False, user)

    def document(self, doc_id: str, persona: str | None = None) -> DocumentView:
        """A document with its text by section, its profile and its relationships. With
        `persona`, only a document of that persona (another's is "not found", never "forbidden":
        its existence is not told)."""
        found = known_document(self.store, doc_id, persona)
        sections: list[DocumentSection] = []
        for chunk in self.store.list_chunks(doc_id):
            if sections and sections[-1].section_path == chunk.section_path:
                sections[-1].text = joined_without_overlap(sections[-1].text, chunk.text)
            else:
                key = citation_key(doc_id, chunk.section_path)
                sections.append(
                    DocumentSection(section_path=chunk.section_path, text=chunk.text, citation_key=key)
                )
        relationships = self.store.list_relationships([doc_id])
        if persona is not None:  # a link into another persona's document is not shown
            targets = self.store.get_documents([r.target for r in relationships])
            relationships = [
                r for r in relationships if r.target in targets and persona in targets[r.target].personas
            ]
        return DocumentView(
            document=found,
            sections=sections,
            profile=self.store.get_profile(doc_id),
            relationships=relationships,
        )

    def findings(self, persona: str | None = None, include_undone: bool = False) -> list[Finding]:
        """What the agent wrote back, newest first (of one persona, or all)."""
        if persona is not None:
            self.persona(persona)
        return self.store.list_findings(persona, include_undone=include_undone)

    def undo_finding(self, finding_id: int) -> Finding:
        """Take a finding back (its effects stop; it is kept, marked undone); the finding."""
        known = {f.id: f for f in self.store.list_findings(include_undone=True)}
        if finding_id not in known:
            raise NotFoundError(f"unknown finding {finding_id} (`shu findings --all` lists them)")
        if not self.store.undo_finding(finding_id):
            raise ConflictError(f"finding {finding_id} is already undone")
        return known[finding_id].model_copy(update={"undone": True})

    def contextualize(
        self, chunk: str, document: str, title: str = "document", max_words: int = 100
    ) -> tuple[Chunk, str]:
        """The context prefix contextual retrieval would index a passage of a document with
        (docs/design/enrichment.md#context-tools): the chunk with `context` and `index_text` set, and
        the method that made the prefix ("llm" or "extractive")."""
        if not chunk.strip() or not document.strip():
            raise InvalidRequestError("both the chunk and its document are needed")
        doc = Document(id="given", title=title, personas=[], content_hash="")
        given = Chunk(
            id="given:0",
            doc_id="given",
            ord=0,
            section_path=title,
            text=chunk,
            index_text=chunk,
            token_count=count_tokens(chunk),
        )
        prefix, method = contextualize(doc, document, given, self.parts.ingest_enricher, max_words)
        return with_context(given, prefix), method

    @cached_property
    def accounts(self) -> Accounts:
        """Keys, users and signals: who asks, kept beside the knowledge."""
        return Accounts(self.store, self.store, self.settings.home, logins=self.store)

    @cached_property
    def logins(self) -> Logins:
        """People who sign in with a password, and their sessions (passwords hashed
        `server.sign_in_hashes` at once)."""
        return Logins(self.store, self.store, self.settings.server.sign_in_hashes)

    def stats(self) -> KnowledgeBaseStats:
        """Counts and size of the store, what made the enrichment, LLM use, the answer cache, the
        agent's findings."""
        found = self.store.stats()
        findings = self.store.list_findings(include_undone=True)
        active = [f for f in findings if not f.undone]
        return KnowledgeBaseStats(
            **found.__dict__,
            enrichment=self.store.enrichment_stats(),
            llm=self.store.llm_totals(),
            answer_cache=cache.stats() if (cache := self.parts.answer_cache) is not None else None,
            findings={
                "active": len(active),
                "relationships": sum(f.kind == "relationship" for f in active),
                "stale_manifests": sum(f.kind == "stale_manifest" for f in active),
                "document_types": sum(f.kind == "document_type" for f in active),
                "participants": sum(f.kind == "participant" for f in active),
                "projects": sum(f.kind == "project" for f in active),
                "undone": len(findings) - len(active),
            },
        )

    def retrieve(
        self,
        question: str,
        persona: str,
        limit: int | None = None,
        user: str | None = None,
        where: DocumentFilter | None = None,
    ) -> RetrievalResult:
        """The query pipeline with its whole trace: plan, surfaces, fusion, expansion, context;
        with `user`, ranked for that person (the boosts and their reasons in `personal`);
        `where`: among the documents the filter keeps."""
        found = self.persona(persona)
        with active(self.parts.budget()):
            pipeline = self.parts.pipeline
            return pipeline.run(
                _checked_query(question), found, limit=limit, asker=self.asker(user), where=where
            )

    def search(
        self,
        query: str,
        persona: str,
        limit: int | None = None,
        user: str | None = None,
        where: DocumentFilter | None = None,
    ) -> list[SearchHit]:
        found = self.persona(persona)
        asker = self.asker(user)
        with active(self.parts.budget()):
            return self.parts.pipeline.run(
                _checked_query(query), found, limit=limit, assemble_context=False, asker=asker, where=where
            ).hits

    def with_profile(self, user: str | None) -> str | None:
        """`user` when they have a profile (a server ranks such a caller for them), else None."""
        if user is None:
            return None
        try:
            self.accounts.user(user)
        except NotFoundError:
            return None
        return user

    def asker(self, user: str | None) -> Asker | None:
        """What retrieval knows of `user` (their profile and signals); None for no user."""
        if user is None:
            return None
        pinned = self.settings.retrieval.personal.now
        now = datetime.fromisoformat(pinned).replace(tzinfo=UTC) if pinned else None
        return asker_of(self.accounts.user(user), self.store.list_signals(user), now)

    def warm(self) -> None:
        """Build what answering needs now (a server does, before two requests would at once)."""
        self.parts.responder  # noqa: B018 — a cached property, built here

    def ask(
        self,
        question: str,
        persona: str,
        use_cache: bool = True,
        agent: bool | None = None,
        user: str | None = None,
        conversation: str | None = None,
        where: DocumentFilter | None = None,
    ) -> Answer:
        return final_answer(self.ask_stream(question, persona, use_cache, agent, user, conversation, where))

    def ask_stream(
        self,
        question: str,
        persona: str,
        use_cache: bool = True,
        agent: bool | None = None,
        user: str | None = None,
        conversation: str | None = None,
        where: DocumentFilter | None = None,
    ) -> Iterator[AskEvent]:
        """The answer as it is written: text pieces (each citation key whole, as its own piece),
        a `StreamReset` when what was shown is withdrawn, and last the checked `Answer`.
        A cached answer arrives as the final `Answer` alone. `agent`: True sends the question to
        the agent, False never, None lets `agent.mode` decide. `conversation`: the id of
        `user`'s conversation with this persona (no user: the local user's); a follow-up is
        searched standing alone (`Answer.standalone_question`) and the answered turn is appended
        to it; the answer is ranked for `user` when they have a profile. `where`: the answer keeps
        to the documents the filter keeps (this question only, in a conversation too)."""
        found = self.persona(persona)
        question = _checked_query(question)
        where = None if where is None or where.empty else where
        if conversation is not None:
            yield from self._ask_in_conversation(question, found, agent, user, conversation, where)
            return
        asker = self.asker(user)
        # a personal answer is not shared
        cache = self.parts.answer_cache if use_cache and asker is None else None
        key, generation = "", ""
        if cache is not None:
            generation = self.store.generation()
            fingerprint = f"{self.parts.answer_fingerprint()}|agent={agent}"
            fingerprint += f"|filter={where.model_dump_json()}" if where is not None else ""
            key = answer_key(found.slug, question, generation, fingerprint)
            if (hit := cache.get(key)) is not None:
                yield hit
                return
        for event in self.parts.responder.stream(question, found, agent, asker, where=where):
            if isinstance(event, Answer) and cache is not None and event.fallback_reason is None:
                cache.put(key, generation, event)
            if isinstance(event, Answer) and user is not None:
                self.accounts.used_in_answer(event, user)
            yield event

    def ask_following(
        self,
        question: str,
        persona: str,
        earlier: list[Turn],
        agent: bool | None = None,
        user: str | None = None,
        where: DocumentFilter | None = None,
    ) -> Iterator[AskEvent]:
        """`ask_stream` of a question that follows the turns given (a chat client's own history,
        oldest first): made to stand alone after the last of them and answered like a
        conversation's turn (not from the answer cache), the turns kept nowhere. Without earlier
        turns it is `ask_stream`'s question, cache and all."""
        found = self.persona(persona)
        question = _checked_query(question)
        if not earlier:
            yield from self.ask_stream(question, found.slug, agent=agent, user=user, where=where)
            return
        thread = Conversation(id="", user=user or LOCAL_USER, persona=found.slug, turns=earlier)
        yield from self._turn(question, found, agent, user, thread, keep=False, where=where)

    def _ask_in_conversation(
        self,
        question: str,
        persona: Persona,
        agent: bool | None,
        user: str | None,
        conversation_id: str,
        where: DocumentFilter | None,
    ) -> Iterator[AskEvent]:
        """A turn of a conversation: never from the answer cache (the same words mean another
        question after another turn)."""
        thread = self.conversations.get(conversation_id, user or LOCAL_USER, persona.slug)
        yield from self._turn(question, persona, agent, user, thread, keep=True, where=where)

    def _turn(
        self,
        question: str,
        persona: Persona,
        agent: bool | None,
        user: str | None,
        thread: Conversation,
        keep: bool,
        where: DocumentFilter | None = None,
    ) -> Iterator[AskEvent]:
        """A question after the thread's turns, made to stand alone; `keep`: the answered turn is
        appended to the stored conversation."""
        rewritten = self.conversations.standalone(thread, question)
        profiled = self.with_profile(user)  # ranked for the user only when they have a profile
        asked = rewritten or question
        said = _said_before(thread, question) if rewritten else None
        asker = self.asker(profiled)
        for event in self.parts.responder.stream(asked, persona, agent, asker, said, where):
            if isinstance(event, Answer):
                event = event.model_copy(update={"question": question, "standalone_question": rewritten})
                if keep:
                    self.conversations.record(thread, question, rewritten, event)
                if profiled is not None:
                    self.accounts.used_in_answer(event, profiled)
            yield event

    def close(self) -> None:
        self.parts.close()
        self.store.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_kb(
    home: Path | str | None = None, overrides: list[str] | None = None, embedder: Embedder | None = None
) -> KnowledgeBase:
    """The knowledge base in `home` (default `.shu`, or `SHU_HOME`) with its settings,
    `overrides` (`dotted.key=value`) laid on top."""
    return KnowledgeBase(load_settings(home, overrides), embedder=embedder)


def _checked_query(query: str) -> str:
    query = " ".join(query.replace("\x00", " ").split())
    if not query:
        raise InvalidRequestError("the question is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidRequestError(
            f"the question is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}"
        )
    return query


def migrate(
    source: str, target: str, settings: Settings, progress: Progress | None = None, force: bool = False
) -> MigrationReport:
    """Copy a knowledge base from one store to another (`sqlite:///…` or `postgresql://…`) with
    its embeddings, enrichment and the agent's findings; resumable (documents already there are
    skipped unless `force`)."""
    origin = open_store_url(source, settings.store)
    try:
        destination = open_store_url(target, settings.store)
    except ShuError:
        origin.close()
        raise
    try:
        return copy_store(origin, destination, progress, force)
    finally:
        origin.close()
        destination.close()


def _said_before(thread: Conversation, question: str, turns: int = 2, answer_chars: int = 400) -> str:
    """What an LLM answer reads of a conversation beside the standalone question: the user's own
    words and the last turns (their answers cut short; all of it data, like the context)."""
    lines = [f'(The user asked it as "{question}", after:']
    for turn in thread.turns[-turns:]:
        answer = " ".join(turn.answer.split())
        cut = answer if len(answer) <= answer_chars else f"{answer[:answer_chars].rstrip()}…"
        lines.append(f'Q: "{turn.question}" A: "{cut}"')
    return "\n".join(lines) + ")"
