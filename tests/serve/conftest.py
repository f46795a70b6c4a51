"""A small served knowledge base for the server's guards: one persona, settings given per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import Script, ScriptedLLM
from tests.conftest import CountingEmbedder, PersonaMaker, doc

pytest.register_assert_rewrite("tests.serve.web_page")  # its checks fail with the tests' detail

PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
PRO = "[^pricing:Pricing > Pro]"
SmallKB = Callable[..., KnowledgeBase]


@pytest.fixture
def small_kb(tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker) -> Iterator[SmallKB]:
    """small_kb("server.x=1", reply=fn) → a knowledge base with persona `lumen` ingested."""
    opened: list[KnowledgeBase] = []

    def make(*overrides: str, reply: Script | None = None) -> KnowledgeBase:
        # The scripted model writes answers, never JSON: the JSON steps fall back to their rules
        # and it is still asked for the answer (llm.budget.max_json_failures=0).
        prose_only = "llm.budget.max_json_failures=0"
        settings = load_settings(
            tmp_path / f"home{len(opened)}",
            ["enrich.enabled=false", "answer.scope=false", prose_only, *overrides],
        )
        model = ScriptedLLM(reply or (lambda messages, schema: f"The Pro plan costs $65. {PRO}"))
        kb = KnowledgeBase(settings, embedder=embedder, llm=LLMClient(model))
        folder = make_persona("lumen", rag={"pricing.md": PRICING})
        assert not kb.ingest(folder.parent).failed
        opened.append(kb)
        return kb

    yield make
    for kb in opened:
        kb.close()
