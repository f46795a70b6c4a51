"""Conversations through the knowledge base: a follow-up searched standing alone, each turn kept
with its citations, each user's own, exported as Markdown with footnotes."""

from __future__ import annotations

from pathlib import Path

import pytest

from shu.config.settings import load_settings
from shu.conversations import LOCAL_USER, export_markdown
from shu.errors import InvalidRequestError, NotFoundError
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.prompts import Message
from tests.conftest import CountingEmbedder, PersonaMaker, doc

PLANS = doc(
    "plans",
    "Plans",
    "# Plans\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.\n\n"
    "## Team\n\nThe Team plan costs $99 per seat per month and includes single sign-on.",
)
SUPPORT = doc("support", "Support", "# Support\n\nSupport answers e-mail within one business day.")


@pytest.fixture
def shop(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    assert not kb.ingest(make_persona("shop", rag={"plans.md": PLANS, "support.md": SUPPORT}).parent).failed
    return kb


def test_a_follow_up_is_answered_from_the_turn_before_and_kept(shop: KnowledgeBase) -> None:
    thread = shop.conversations.start(LOCAL_USER, "shop")
    first = shop.ask("What does the Pro plan cost?", "shop", conversation=thread.id)
    assert "65" in first.text and first.standalone_question is None
    follow = shop.ask("and the Team plan?", "shop", conversation=thread.id)
    assert follow.standalone_question == "What does the Team plan cost?"
    assert follow.question == "and the Team plan?"
    assert "99" in follow.text and follow.citations
    kept = shop.conversations.get(thread.id, LOCAL_USER)
    assert [t.question for t in kept.turns] == ["What does the Pro plan cost?", "and the Team plan?"]
    assert kept.turns[1].standalone == "What does the Team plan cost?"
    assert kept.turns[1].citations == follow.citations
    assert kept.title == "What does the Pro plan cost?"


def test_a_conversation_is_its_users_own_and_its_personas(
    shop: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    shop.ingest(make_persona("other", rag={"support.md": SUPPORT}).parent)
    mine = shop.conversations.start("ana", "shop")
    with pytest.raises(NotFoundError):
        shop.ask("What does the Pro plan cost?", "shop", user="bob", conversation=mine.id)
    with pytest.raises(NotFoundError):
        shop.ask("How fast is support?", "other", user="ana", conversation=mine.id)
    with pytest.raises(NotFoundError):
        shop.conversations.delete(mine.id, "bob")
    assert [c.id for c in shop.conversations.of("ana")] == [mine.id] and shop.conversations.of("bob") == []


def test_renamed_exported_and_deleted(shop: KnowledgeBase) -> None:
    thread = shop.conversations.start(LOCAL_USER, "shop", title="Prices")
    shop.ask("What does the Pro plan cost?", "shop", conversation=thread.id)
    shop.ask("and the Team plan?", "shop", conversation=thread.id)
    renamed = shop.conversations.rename(thread.id, LOCAL_USER, "  Plan   prices ")
    assert renamed.title == "Plan prices"
    with pytest.raises(InvalidRequestError):
        shop.conversations.rename(thread.id, LOCAL_USER, "x" * 201)
    markdown = export_markdown(shop.conversations.get(thread.id, LOCAL_USER))
    assert markdown.startswith("# Plan prices\n") and "**Q:** and the Team plan?" in markdown
    assert "*(searched as: What does the Team plan cost?)*" in markdown
    assert "[^1]" in markdown and "[^1]: Plans" in markdown and "[^plans:" not in markdown
    shop.conversations.delete(thread.id, LOCAL_USER)
    with pytest.raises(NotFoundError):
        shop.conversations.get(thread.id, LOCAL_USER)


def test_an_llm_answer_reads_the_users_words_and_the_turns_before(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    prompts: list[str] = []

    def model(messages: list[Message], schema: object) -> str:
        prompts.append(messages[-1].content)
        if schema is not None:  # the follow-up rewrite asks for JSON: a reply that is not falls back
            return "no"
        return "The Team plan costs $99 per seat per month. [^plans:Plans > Team]"

    prose_only = "llm.budget.max_json_failures=0"  # it never writes JSON: asked all the same
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", "answer.scope=false", prose_only])
    kb = KnowledgeBase(settings, embedder=embedder, llm=LLMClient(ScriptedLLM(model)))
    assert not kb.ingest(make_persona("shop", rag={"plans.md": PLANS}).parent).failed
    thread = kb.conversations.start(LOCAL_USER, "shop")
    kb.ask("What does the Pro plan cost?", "shop", conversation=thread.id)
    assert not any("The user asked it as" in p for p in prompts), "a first question stands alone"
    prompts.clear()
    follow = kb.ask("and the Team plan?", "shop", conversation=thread.id)
    assert follow.standalone_question == "What does the Team plan cost?"
    answering = [p for p in prompts if "Question:" in p][-1]
    assert "What does the Team plan cost?" in answering
    assert 'The user asked it as "and the Team plan?"' in answering
    assert 'Q: "What does the Pro plan cost?"' in answering
    kb.close()
