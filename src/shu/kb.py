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
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from shu import __version__
from shu.accounts import Accounts
from shu.answer.ask import Responder
from shu.answer.cache import AnswerCache, answer_key
from shu.answer.factory import create_answerer, create_responder
from shu.answer.respond import ScopedAnswerer
from shu.answer.stream import AskEvent, final_answer
from shu.config.settings import Settings, load_settings
from shu.conversations import LOCAL_USER, Conversations
from shu.enrich.enricher import contextualize, with_context
from shu.enrich.llm import LLMEnricher
from shu.errors import ConflictError, InvalidRequestError, NotFoundError, ShuError
from shu.ingest.job import IngestJob, Progress, Redo
from shu.ingest.report import IngestReport
from shu.ingest.uploads import DocumentFiles, document_files, own_folder, persona_folder, remove_files
from shu.jobs import JobRunner
from shu.models.embed import Embedder, create_embedder
from shu.models.embed.factory import kept_embedder
from shu.models.llm.budget import QuestionBudget, active
from shu.models.llm.cache import ResponseCache
from shu.models.llm.client import LLMClient
from shu.models.llm.factory import create_llm
from shu.models.rerank.base import Reranker
from shu.models.rerank.factory import create_reranker
from shu.prompts import prompt_versions
from shu.retrieve.asker import Asker, asker_of
from shu.retrieve.pipeline import RetrievalPipeline
from shu.store import Store, open_store
from shu.store.factory import open_store_url
from shu.store.known import known_document, known_persona
from shu.store.migrate import MigrationReport
from shu.store.migrate import migrate as copy_store
from shu.text import count_tokens, joined_without_overlap
from shu.types import (
    Answer,
    Chunk,
    Conversation,
    Document,
    DocumentSection,
    DocumentView,
    Finding,
    Job,
    KnowledgeBaseStats,
    Persona,
    RetrievalResult,
    SearchHit,
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
    ) -> None:
        self.settings = settings
        self.store: Store = store if store is not None else open_store(settings)
        given = {"embedder": embedder, "reranker": reranker, "answerer": answerer}
        self.__dict__.update({name: part for name, part in given.items() if part is not None})
        if llm is not None:
            self.__dict__["llm"] = LLMEnricher(llm)

    @cached_property
    def embedder(self) -> Embedder:
        """The embedder the store was filled with (a store keeps it), else the configured one."""
        return kept_embedder(self.settings.embedder, self.store.stored_embedder())

    @cached_property
    def llm(self) -> LLMEnricher | None:
        """The configured LLM for enrichment, or None (then every artifact is made extractively)."""
        llm_settings = self.settings.llm
        if llm_settings.provider == "none":
            return None
        cache = ResponseCache(self.settings.home / "llm-cache.db") if llm_settings.cache else None
        client = create_llm(llm_settings, cache)
        return LLMEnricher(client) if client else None

    @property
    def enrich_llm(self) -> LLMEnricher | None:
        """The LLM that writes enrichment artifacts: the configured one unless `enrich.method` is
        extractive (the default for a local model: on 2 cores Qwen2.5-Coder-1.5B had not finished
        enriching the office example's 14 files after 36 minutes; the non-LLM methods take seconds)."""
        return self.llm if self.settings.enrich.method == "auto" else None

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
        report = self.ingest_job(progress, context).run(Path(path), prune=prune, redo=redo)
        configured = create_embedder(self.settings.embedder).name
        if configured != self.embedder.name:
            report.notes.append(
                f"this store keeps the embedder it was filled with, {self.embedder.name}; the settings "
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
        configured = create_embedder(self.settings.embedder).name
        with self.store.writer():
            if self.store.stored_embedder() in (None, configured):
                return 0
            documents = self.store.list_documents()
            for done, doc in enumerate(documents, 1):
                self.store.delete_document(doc.id)
                if progress is not None:
                    progress("forget", done, len(documents))
            self.store.forget_embedder()
        for made in ("embedder", "pipeline", "answerer", "responder"):  # made with the one forgotten
            self.__dict__.pop(made, None)
        return len(documents)

    def ingest_job(self, progress: Progress | None = None, context: bool | None = None) -> IngestJob:
        """An ingestion run not yet started (its report fills as it goes)."""
        return IngestJob(self.settings, self.store, self.embedder, progress, self.enrich_llm, context)

    @cached_property
    def jobs(self) -> JobRunner:
        """Background ingest / enrich / reindex jobs, kept in the store with their progress."""
        return JobRunner(self.store, self.ingest_job, self.settings.server.job_turn_s)

    def persona(self, slug: str) -> Persona:
        return known_persona(self.store, slug)

    def personas(self) -> list[Persona]:
        return self.store.list_personas()

    def documents(self, persona: str | None = None) -> list[Document]:
        if persona is not None:
            self.persona(persona)
        return self.store.list_documents(persona)

    def persona_folder(self, slug: str) -> Path:
        """The folder of a persona on this machine, known from where its documents are."""
        return persona_folder(slug, self.documents(slug))

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
        prefix, method = contextualize(doc, document, given, self.enrich_llm, max_words)
        return with_context(given, prefix), method

    @cached_property
    def accounts(self) -> Accounts:
        """Keys, users and signals: who asks, kept beside the knowledge."""
        return Accounts(self.store, self.store, self.settings.home)

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
            answer_cache=self.answer_cache.stats() if self.answer_cache is not None else None,
            findings={
                "active": len(active),
                "relationships": sum(f.kind == "relationship" for f in active),
                "stale_manifests": sum(f.kind == "stale_manifest" for f in active),
                "document_types": sum(f.kind == "document_type" for f in active),
                "undone": len(findings) - len(active),
            },
        )

    @cached_property
    def reranker(self) -> Reranker | None:
        return create_reranker(self.settings.retrieval.rerank, self.llm.client if self.llm else None)

    @cached_property
    def pipeline(self) -> RetrievalPipeline:
        client = self.llm.client if self.llm else None
        return RetrievalPipeline(self.store, self.embedder, self.settings.retrieval, client, self.reranker)

    def retrieve(
        self, question: str, persona: str, limit: int | None = None, user: str | None = None
    ) -> RetrievalResult:
        """The query pipeline with its whole trace: plan, surfaces, fusion, expansion, context;
        with `user`, ranked for that person (the boosts and their reasons in `personal`)."""
        found = self.persona(persona)
        with active(self._budget()):
            return self.pipeline.run(_checked_query(question), found, limit=limit, asker=self.asker(user))

    def search(
        self, query: str, persona: str, limit: int | None = None, user: str | None = None
    ) -> list[SearchHit]:
        found = self.persona(persona)
        asker = self.asker(user)
        with active(self._budget()):
            return self.pipeline.run(
                _checked_query(query), found, limit=limit, assemble_context=False, asker=asker
            ).hits

    def _budget(self) -> QuestionBudget:
        """A search's LLM budget (the planner and rewrites ask the model): one question's."""
        limits = self.settings.llm.budget
        return QuestionBudget(limits.max_calls, limits.max_tokens, limits.max_json_failures)

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

    @cached_property
    def answerer(self) -> ScopedAnswerer:
        client = self.llm.client if self.llm else None
        return create_answerer(self.settings.answer, self.embedder, self.store, client, self.settings.verify)

    @cached_property
    def responder(self) -> Responder:
        """Retrieval, the agent when the policy sends a question to it, the answer, corrective
        retrieval and confidence, as one stream."""
        client = self.llm.client if self.llm else None
        return create_responder(
            self.settings, self.store, self.embedder, self.pipeline, client, self.answerer
        )

    @cached_property
    def answer_cache(self) -> AnswerCache | None:
        return AnswerCache(self.settings.home / "answer-cache.db") if self.settings.answer.cache else None

    def ask(
        self,
        question: str,
        persona: str,
        use_cache: bool = True,
        agent: bool | None = None,
        user: str | None = None,
        conversation: str | None = None,
    ) -> Answer:
        return final_answer(self.ask_stream(question, persona, use_cache, agent, user, conversation))

    def ask_stream(
        self,
        question: str,
        persona: str,
        use_cache: bool = True,
        agent: bool | None = None,
        user: str | None = None,
        conversation: str | None = None,
    ) -> Iterator[AskEvent]:
        """The answer as it is written: text pieces (each citation key whole, as its own piece),
        a `StreamReset` when what was shown is withdrawn, and last the checked `Answer`.
        A cached answer arrives as the final `Answer` alone. `agent`: True sends the question to
        the agent, False never, None lets `agent.mode` decide. `conversation`: the id of
        `user`'s conversation with this persona (no user: the local user's); a follow-up is
        searched standing alone (`Answer.standalone_question`) and the answered turn is appended
        to it; the answer is ranked for `user` when they have a profile."""
        found = self.persona(persona)
        question = _checked_query(question)
        if conversation is not None:
            yield from self._ask_in_conversation(question, found, agent, user, conversation)
            return
        asker = self.asker(user)
        cache = self.answer_cache if use_cache and asker is None else None  # a personal answer is not shared
        key, generation = "", ""
        if cache is not None:
            generation = self.store.generation()
            key = answer_key(found.slug, question, generation, f"{self._answer_fingerprint()}|agent={agent}")
            if (hit := cache.get(key)) is not None:
                yield hit
                return
        for event in self.responder.stream(question, found, agent, asker):
            if isinstance(event, Answer) and cache is not None and event.fallback_reason is None:
                cache.put(key, generation, event)
            if isinstance(event, Answer) and user is not None:
                self.accounts.used_in_answer(event, user)
            yield event

    def _ask_in_conversation(
        self, question: str, persona: Persona, agent: bool | None, user: str | None, conversation_id: str
    ) -> Iterator[AskEvent]:
        """A turn of a conversation: never from the answer cache (the same words mean another
        question after another turn)."""
        thread = self.conversations.get(conversation_id, user or LOCAL_USER, persona.slug)
        rewritten = self.conversations.standalone(thread, question)
        profiled = self.with_profile(user)  # ranked for the user only when they have a profile
        asked = rewritten or question
        said = _said_before(thread, question) if rewritten else None
        for event in self.responder.stream(asked, persona, agent, self.asker(profiled), said):
            if isinstance(event, Answer):
                event = event.model_copy(update={"question": question, "standalone_question": rewritten})
                self.conversations.record(thread, question, rewritten, event)
                if profiled is not None:
                    self.accounts.used_in_answer(event, profiled)
            yield event

    @cached_property
    def conversations(self) -> Conversations:
        """Each user's conversations with a persona."""
        return Conversations(self.store, self.llm.client if self.llm else None)

    def _answer_fingerprint(self) -> str:
        """Everything besides the data that shapes an answer: settings, models, Shu and prompts."""
        parts = [
            __version__,
            prompt_versions(),
            self.embedder.name,
            self.settings.answer.model_dump_json(),
            self.settings.verify.model_dump_json(),
            self.settings.agent.model_dump_json(),
            self.settings.retrieval.model_dump_json(),
            self.settings.llm.model_dump_json(),
        ]
        return "|".join(parts)

    def close(self) -> None:
        if "jobs" in self.__dict__:
            self.jobs.close()
        if "answer_cache" in self.__dict__ and self.answer_cache is not None:
            self.answer_cache.close()
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
