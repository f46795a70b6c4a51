"""`answer.method` → an answerer, wrapped in the scope judge:

- `auto`: the LLM answer when an LLM is configured, else the extractive one;
- `extractive`: the best sentences of the context, each cited (no model);
- `llm`: the LLM answer (an error when no LLM is configured);
- anything else: an import path `package.module:Class` to a class of yours, built as
  `Class(settings, embedder)`, that answers like the `Answerer` protocol says.
"""

from __future__ import annotations

import importlib

from shu.answer.absent import StoreTerms
from shu.answer.agent import Agent
from shu.answer.ask import Responder
from shu.answer.base import Answerer
from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.generate import LLMAnswerer
from shu.answer.respond import ScopedAnswerer
from shu.answer.scope import LLMScope, ScopeJudge, SubjectScope
from shu.answer.verify.factory import create_verifier
from shu.config.settings import AnswerSettings, Settings, VerifySettings
from shu.errors import ConfigError
from shu.models.embed.base import Embedder
from shu.models.embed.factory import sentence_embedder
from shu.models.llm.client import LLMClient
from shu.retrieve.pipeline import RetrievalPipeline
from shu.store.base import AnsweringStore, KnowledgeReader


def create_answerer(
    settings: AnswerSettings,
    embedder: Embedder,
    store: KnowledgeReader | None = None,
    llm: LLMClient | None = None,
    verify: VerifySettings | None = None,
    scope: LLMClient | None = None,
    verifier: LLMClient | None = None,
) -> ScopedAnswerer:
    """`llm` writes the answer; `scope` judges whether a question is in scope and `verifier`
    checks the answer's claims (each `llm` when not given: `llm.fast` may run them)."""
    inner = _inner(settings, embedder, llm, store)
    judging = scope or llm
    judge: ScopeJudge | None = None
    if settings.scope and store is not None:
        rules = SubjectScope(store, embedder, settings.scope_threshold)
        judge = LLMScope(judging, store, rules, settings.scope_sure) if judging is not None else rules
    general = llm if settings.out_of_scope == "general" else None
    if settings.out_of_scope == "general" and llm is None:
        raise ConfigError('answer.out_of_scope = "general" needs an LLM (llm.provider)')
    verify = verify or VerifySettings(enabled=False)
    checker = create_verifier(verify, embedder, verifier or llm)
    terms = StoreTerms(store) if store is not None else None
    return ScopedAnswerer(
        inner,
        judge,
        general,
        settings.max_tokens,
        checker,
        verify.on_unsupported,
        settings.absent_terms,
        terms,
    )


def create_responder(
    settings: Settings,
    store: AnsweringStore,
    embedder: Embedder,
    pipeline: RetrievalPipeline,
    llm: LLMClient | None,
    answerer: ScopedAnswerer | None = None,
    agent_llm: LLMClient | None = None,
) -> Responder:
    """Everything `ask` does after the question arrives, from `settings`: the answerer (with
    its scope judge and verifier; or the one given), corrective retrieval, the agent with its
    policy (`agent_llm` choosing its steps, else `llm`), and the LLM budget of each question."""
    answerer = answerer or create_answerer(settings.answer, embedder, store, llm, settings.verify)
    agent = Agent(settings.agent, store, embedder, pipeline, agent_llm or llm)
    fast = settings.llm.fast.budget if settings.llm.fast is not None else None
    return Responder(pipeline, answerer, settings.verify, agent, settings.agent, settings.llm.budget, fast)


def _inner(
    settings: AnswerSettings, embedder: Embedder, llm: LLMClient | None, store: KnowledgeReader | None = None
) -> Answerer:
    extractive = ExtractiveAnswerer(
        sentence_embedder(embedder, settings.sentence_embedder),
        settings.max_sentences,
        settings.chunks_considered,
        settings.min_meaning,
        settings.min_evidence,
        sections=store.list_chunks if store is not None else None,
        library=store if settings.collection else None,
    )
    if settings.method == "extractive" or (settings.method == "auto" and llm is None):
        return extractive
    if settings.method in ("auto", "llm"):
        if llm is None:
            raise ConfigError("answer.method = llm needs an LLM (llm.provider, llm.model)")
        return LLMAnswerer(
            llm,
            extractive,
            settings.context_tokens,
            settings.max_tokens,
            numbered=settings.numbered_citations,
            max_sections=settings.max_sections,
            model_context=settings.model_context,
            keep_decisions=settings.keep_decisions,
        )
    module_name, _, class_name = settings.method.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(
            f"answer.method {settings.method!r}: expected auto, extractive, llm "
            f"or package.module:Class ({exc})"
        ) from exc
    try:
        answerer: Answerer = found(settings, embedder)  # a class named in settings: checked below
    except Exception as exc:  # a user's class: whatever it raises, say which setting built it
        raise ConfigError(f"answer.method {settings.method!r}: could not be built ({exc})") from exc
    if not callable(getattr(answerer, "answer", None)):
        raise ConfigError(f"answer.method {settings.method!r}: {class_name} has no answer(result, persona)")
    return answerer
