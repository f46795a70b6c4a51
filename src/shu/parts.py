"""The workshop behind `KnowledgeBase`: the parts Shu is made of, each built once from the settings
and the store when first needed — the embedder, the LLM (as an enricher and as a client), the
reranker, the query pipeline, the answerer, the responder, the answer cache, background jobs and
conversations. A part can be given instead (a test's scripted model, your own answerer)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from shu import __version__
from shu.answer.ask import Responder
from shu.answer.cache import AnswerCache
from shu.answer.factory import create_answerer, create_responder
from shu.answer.respond import ScopedAnswerer
from shu.config.models import LLMStage
from shu.config.settings import Settings
from shu.conversations import Conversations
from shu.enrich.llm import LLMEnricher
from shu.ingest.job import IngestJob, Progress
from shu.ingest.report import IngestReport
from shu.jobs import JobRunner
from shu.models.embed import Embedder, create_embedder
from shu.models.embed.factory import kept_embedder
from shu.models.llm.budget import QuestionBudget
from shu.models.llm.cache import ResponseCache
from shu.models.llm.client import LLMClient
from shu.models.llm.factory import create_llm
from shu.models.rerank.base import Reranker
from shu.models.rerank.factory import create_reranker
from shu.prompts import prompt_versions
from shu.retrieve.pipeline import RetrievalPipeline
from shu.store import Store

_MADE_WITH_THE_EMBEDDER = ("embedder", "pipeline", "answerer", "responder")


class Parts:
    """Each part built from `settings` on first use (or the one given), then kept."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder | None = None,
        llm: LLMClient | None = None,
        reranker: Reranker | None = None,
        answerer: ScopedAnswerer | None = None,
        fast_llm: LLMClient | None = None,
    ) -> None:
        self.settings = settings
        self._given_fast = fast_llm
        self.store = store
        self._given_embedder = embedder
        self._given_llm = llm
        self._given_reranker = reranker
        self._given_answerer = answerer
        self.after_ingest: list[Callable[[IngestReport], None]] = []
        """What follows each ingestion run that changed the knowledge base (users' profiles)."""

    @cached_property
    def embedder(self) -> Embedder:
        """The embedder the store was filled with (a store keeps it), else the configured one."""
        if self._given_embedder is not None:
            return self._given_embedder
        return kept_embedder(self.settings.embedder, self.store.stored_embedder())

    @property
    def configured_embedder(self) -> str:
        """The name of the embedder the settings name (the store may keep another)."""
        return create_embedder(self.settings.embedder).name

    def forget_embedder(self) -> None:
        """The store forgot its embedder: the parts made with it are made again when next used."""
        self._given_embedder = None
        for made in _MADE_WITH_THE_EMBEDDER:
            self.__dict__.pop(made, None)  # functools.cached_property keeps its value there

    @cached_property
    def enricher(self) -> LLMEnricher | None:
        """The configured LLM, as what writes enrichment artifacts; None without one (then every
        artifact is made extractively)."""
        if self._given_llm is not None:
            return LLMEnricher(self._given_llm)
        if self.settings.llm.provider == "none":
            return None
        cache = ResponseCache(self.settings.home / "llm-cache.db") if self.settings.llm.cache else None
        client = create_llm(self.settings.llm, cache)
        return LLMEnricher(client) if client else None

    @property
    def client(self) -> LLMClient | None:
        """The configured LLM, as what answers (and runs every stage `llm.fast` does not); None
        without one."""
        return self.enricher.client if self.enricher else None

    @cached_property
    def fast_client(self) -> LLMClient | None:
        """`llm.fast`, the model the fast stages run (spending the question's "fast" budget);
        None when there is none."""
        if self._given_fast is not None:
            return self._given_fast
        fast = self.settings.llm.fast
        if fast is None:
            return None
        cache = ResponseCache(self.settings.home / "llm-cache.db") if fast.cache else None
        return create_llm(fast, cache, budget_name="fast")

    def client_for(self, stage: LLMStage) -> LLMClient | None:
        """The model a stage asks: the fast one for the stages given to it, else the main one."""
        fast = self.fast_client
        if fast is not None and stage in self.settings.llm.fast_stages:
            return fast
        return self.client

    @property
    def ingest_enricher(self) -> LLMEnricher | None:
        """The LLM ingestion writes artifacts with: the configured one unless `enrich.method` is
        extractive (the default for a local model: on 2 cores Qwen2.5-Coder-1.5B had not finished
        enriching the office example's 14 files after 36 minutes; the non-LLM methods take seconds)."""
        if self.settings.enrich.method != "auto":
            return None
        fast = self.fast_client
        if fast is not None and "enrich" in self.settings.llm.fast_stages:
            return LLMEnricher(fast)
        return self.enricher

    def ingest_job(
        self, progress: Progress | None = None, context: bool | None = None, deferring: bool = False
    ) -> IngestJob:
        """An ingestion run not yet started (its report fills as it goes); `deferring`: without
        the model (its artifacts fill in later: `enrich.defer`)."""
        enricher = self.ingest_enricher
        if deferring:
            return IngestJob(
                self.settings, self.store, self.embedder, progress, None, context, self._after, enricher
            )
        return IngestJob(self.settings, self.store, self.embedder, progress, enricher, context, self._after)

    @property
    def defers(self) -> bool:
        """Whether ingestion indexes first and lets the model's artifacts fill in after."""
        return self.settings.enrich.defer and self.ingest_enricher is not None

    def _after(self, report: IngestReport) -> None:
        for follow in self.after_ingest:
            follow(report)

    @cached_property
    def reranker(self) -> Reranker | None:
        if self._given_reranker is not None:
            return self._given_reranker
        return create_reranker(self.settings.retrieval.rerank, self.client_for("rerank"))

    @cached_property
    def pipeline(self) -> RetrievalPipeline:
        return RetrievalPipeline(
            self.store, self.embedder, self.settings.retrieval, self.client_for("plan"), self.reranker
        )

    @cached_property
    def answerer(self) -> ScopedAnswerer:
        if self._given_answerer is not None:
            return self._given_answerer
        return create_answerer(
            self.settings.answer,
            self.embedder,
            self.store,
            self.client,
            self.settings.verify,
            scope=self.client_for("scope"),
            verifier=self.client_for("verify"),
        )

    @cached_property
    def responder(self) -> Responder:
        """Retrieval, the agent when the policy sends a question to it, the answer, corrective
        retrieval and confidence, as one stream."""
        return create_responder(
            self.settings,
            self.store,
            self.embedder,
            self.pipeline,
            self.client,
            self.answerer,
            agent_llm=self.client_for("agent"),
        )

    @cached_property
    def answer_cache(self) -> AnswerCache | None:
        return AnswerCache(self.settings.home / "answer-cache.db") if self.settings.answer.cache else None

    @cached_property
    def jobs(self) -> JobRunner:
        """Background ingest / enrich / reindex jobs, kept in the store with their progress."""
        return JobRunner(self.store, self.ingest_job, self.settings.server.job_turn_s, defer=self.defers)

    @cached_property
    def conversations(self) -> Conversations:
        """Each user's conversations with a persona."""
        return Conversations(self.store, self.client_for("followup"))

    def budget(self) -> QuestionBudget:
        """A question's LLM budget (the planner, rewrites and the answer ask the model)."""
        limits = self.settings.llm.budget
        fast = self.settings.llm.fast
        models = {}
        if fast is not None:
            own = fast.budget
            models["fast"] = QuestionBudget(own.max_calls, own.max_tokens, own.max_json_failures)
        return QuestionBudget(limits.max_calls, limits.max_tokens, limits.max_json_failures, models)

    def answer_fingerprint(self) -> str:
        """Everything besides the data that shapes an answer: settings, models, Shu and prompts."""
        settings = self.settings
        parts = [
            __version__,
            prompt_versions(),
            self.embedder.name,
            *(s.model_dump_json() for s in (settings.answer, settings.verify, settings.agent)),
            settings.retrieval.model_dump_json(),
            settings.llm.model_dump_json(),
        ]
        return "|".join(parts)

    def close(self) -> None:
        """Close what was built (the store is its owner's to close)."""
        if "jobs" in self.__dict__:
            self.jobs.close()
        if "answer_cache" in self.__dict__ and self.answer_cache is not None:
            self.answer_cache.close()
