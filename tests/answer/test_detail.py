"""The asker's `preferences.detail` shapes the answer: the main point for a summary, more of
the context's facts for detail — in the extractive reader's sentences and in what the model is
asked for; an asker without the preference gets the default."""

from __future__ import annotations

from typing import Any

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.models.llm.base import Message
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from tests.conftest import CountingEmbedder, PersonaMaker, doc

BACKUPS = doc(
    "backups",
    "Backup policy",
    "# Backup policy\n\n## Database backups\n\nThe database is backed up every night at 02:00. "
    "Database backups are kept for 35 days. Each database backup is copied to a second region. "
    "A database backup restore is tested once a month. Database backup failures page the on-call "
    "engineer.\n\n## Laptops\n\nLaptops are not backed up centrally.",
)
QUESTION = "How are database backups handled?"


def ask(kb: KnowledgeBase, user: str | None) -> Any:
    return kb.ask(QUESTION, persona="ops", user=user, use_cache=False)


def test_a_summary_asker_gets_the_main_point_a_detail_asker_more(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    assert not kb.ingest(make_persona("ops", rag={"backups.md": BACKUPS})).failed
    kb.accounts.set_user("sam", {"preferences": {"detail": "summary"}})
    kb.accounts.set_user("dee", {"preferences": {"detail": "detail"}})
    kb.accounts.set_user("nia", {"name": "Nia"})
    default, summary, detail, unset = ask(kb, None), ask(kb, "sam"), ask(kb, "dee"), ask(kb, "nia")
    counts = {
        name: len(a.sentences) for name, a in (("default", default), ("summary", summary), ("detail", detail))
    }
    assert counts["summary"] == 1 < counts["default"] < counts["detail"], counts
    assert summary.sentences[0].text in default.text, "the main point is the default's first"
    assert len(unset.sentences) == counts["default"], "no preference: the default length"
    assert all(c.doc_id == "backups" for a in (summary, detail) for c in a.citations)
    assert summary.retrieval is not None and summary.retrieval.detail == "summary"


def test_the_model_is_asked_for_the_length_the_asker_prefers(
    tmp_path: Any, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    asked: list[str] = []

    def reply(messages: list[Message], schema: Any) -> str:
        asked.append("\n".join(m.content for m in messages))
        return "The database is backed up every night at 02:00. [^backups:Backup policy > Database backups]"

    settings = load_settings(
        tmp_path / "home", ["answer.scope=false", "llm.budget.max_json_failures=0", "verify.max_rounds=0"]
    )
    kb = KnowledgeBase(settings, embedder=embedder, llm=LLMClient(ScriptedLLM(reply)))
    try:
        assert not kb.ingest(make_persona("ops", rag={"backups.md": BACKUPS})).failed
        kb.accounts.set_user("sam", {"preferences": {"detail": "summary"}})
        kb.accounts.set_user("dee", {"preferences": {"detail": "detail"}})
        for user, wanted, unwanted in (
            ("sam", "the short version", "the detail:"),
            ("dee", "the detail:", "the short version"),
            (None, "", "The reader wants"),
        ):
            asked.clear()
            kb.ask(QUESTION, persona="ops", user=user, use_cache=False)
            answering = [m for m in asked if "Answer directly" in m]  # the answer's style: its prompt
            assert len(answering) == 1, (user, asked)
            assert wanted in answering[0] and unwanted not in answering[0], user
    finally:
        kb.close()
