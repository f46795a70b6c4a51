"""The conversation store's conformance (`ConversationStore`)."""

from __future__ import annotations

from shu.store.base import Store
from shu.types import Citation, Conversation, Turn


def conversation(conversation_id: str, user: str, persona: str, updated: str) -> Conversation:
    return Conversation(
        id=conversation_id, user=user, persona=persona, title=f"About {conversation_id}", created=updated,
        updated=updated,
    )  # fmt: skip


class ConversationsConformance:
    """Each user's own conversations, read and written whole, newest first; none of it moves the
    generation (cached answers stay valid)."""

    def test_a_conversation_keeps_its_turns_and_citations(self, store: Store) -> None:
        before = store.generation()
        kept = conversation("c1", "ana", "alpha", "2026-01-01T00:00:00")
        store.save_conversation(kept)
        citation = Citation(key="[^p1:S0]", doc_id="p1", section_path="S0", chunk_id="p1#0", title="Pricing")
        kept.turns.append(
            Turn(question="What does Pro cost?", answer="$65 [^p1:S0]", citations=[citation], created="t1")
        )
        kept.turns.append(
            Turn(question="and Team?", standalone="What does Team cost?", answer="$99", created="t2")
        )
        kept.updated = "2026-01-01T00:05:00"
        store.save_conversation(kept)
        assert store.get_conversation("c1") == kept
        assert store.get_conversation("nope") is None
        assert store.generation() == before

    def test_conversations_are_each_users_own_newest_first(self, store: Store) -> None:
        store.save_conversation(conversation("old", "ana", "alpha", "2026-01-01T00:00:00"))
        store.save_conversation(conversation("new", "ana", "beta", "2026-02-01T00:00:00"))
        hostile = conversation("bobs", "bob", "alpha", "2026-03-01T00:00:00")
        store.save_conversation(hostile.model_copy(update={"title": "nul \x00 in a title"}))
        assert [c.id for c in store.list_conversations("ana")] == ["new", "old"]
        assert [c.id for c in store.list_conversations("ana", "alpha")] == ["old"]
        assert [c.id for c in store.list_conversations("bob")] == ["bobs"]
        assert store.list_conversations("carol") == []
        assert store.list_conversation_users() == ["ana", "bob"]

    def test_a_deleted_conversation_is_gone_once(self, store: Store) -> None:
        store.save_conversation(conversation("c1", "ana", "alpha", "2026-01-01T00:00:00"))
        assert store.delete_conversation("c1") and not store.delete_conversation("c1")
        assert store.get_conversation("c1") is None and store.list_conversations("ana") == []
