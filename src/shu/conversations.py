"""Conversations kept beside the knowledge: each user's own threads with a persona. A follow-up is
made to stand alone before retrieval (`shu.retrieve.followup`); each answered turn is appended.
Another user's conversation, or one of another persona, is "not found" (never "forbidden")."""

from __future__ import annotations

import uuid

from shu.errors import InvalidRequestError, NotFoundError
from shu.models.llm.client import LLMClient
from shu.retrieve.followup import Previous, standalone
from shu.retrieve.followup_model import ModelFollowUps
from shu.store.base import ConversationStore
from shu.store.rows import now
from shu.types import Answer, Conversation, Turn

LOCAL_USER = "local"
"""Whose conversations they are when no key names a user (the terminal, Python)."""
MAX_TITLE_CHARS = 200
_AUTO_TITLE_CHARS = 80


class Conversations:
    """`client`: the LLM that makes follow-ups stand alone (None: the rules do)."""

    def __init__(self, store: ConversationStore, client: LLMClient | None = None) -> None:
        self.store = store
        self.model = ModelFollowUps(client) if client is not None else None

    def start(self, user: str, persona: str, title: str = "") -> Conversation:
        created = now()
        conversation = Conversation(
            id=uuid.uuid4().hex[:16], user=user, persona=persona, title=_title(title), created=created,
            updated=created,
        )  # fmt: skip
        self.store.save_conversation(conversation)
        return conversation

    def of(self, user: str, persona: str | None = None) -> list[Conversation]:
        """A user's conversations, most recently continued first."""
        return self.store.list_conversations(user, persona)

    def get(self, conversation_id: str, user: str, persona: str | None = None) -> Conversation:
        """The user's own conversation (with `persona`, one of that persona's)."""
        found = self.store.get_conversation(conversation_id)
        if found is None or found.user != user or (persona is not None and found.persona != persona):
            raise NotFoundError(f"no conversation {conversation_id!r}")
        return found

    def rename(self, conversation_id: str, user: str, title: str) -> Conversation:
        conversation = self.get(conversation_id, user)
        conversation.title = _title(title)
        conversation.updated = now()
        self.store.save_conversation(conversation)
        return conversation

    def delete(self, conversation_id: str, user: str) -> None:
        self.get(conversation_id, user)
        self.store.delete_conversation(conversation_id)

    def standalone(self, conversation: Conversation, question: str) -> str | None:
        """The question rewritten to stand alone after the conversation's last turn, or None."""
        if not conversation.turns:
            return None
        last = conversation.turns[-1]
        titles = [c.title for c in last.citations] or last.cited_titles
        previous = Previous(last.standalone or last.question, tuple(dict.fromkeys(titles)))
        return self.model.standalone(question, previous) if self.model else standalone(question, previous)

    def record(
        self, conversation: Conversation, question: str, rewritten: str | None, answer: Answer
    ) -> Turn:
        """Append an answered turn (the first names an untitled conversation)."""
        turn = Turn(
            question=question, standalone=rewritten, answer=answer.text, citations=answer.citations,
            insufficient=answer.insufficient, created=now(),
        )  # fmt: skip
        conversation.turns.append(turn)
        conversation.title = conversation.title or " ".join(question.split())[:_AUTO_TITLE_CHARS]
        conversation.updated = turn.created
        self.store.save_conversation(conversation)
        return turn


def export_markdown(conversation: Conversation) -> str:
    """The thread as Markdown: each question, its answer, and the answer's sources as footnotes
    (numbered across the whole conversation, so every turn's citations stay valid)."""
    lines = [f"# {conversation.title or 'Conversation'}", "", f"Persona: {conversation.persona}", ""]
    notes: dict[str, int] = {}
    for turn in conversation.turns:
        lines += [f"**Q:** {turn.question}", ""]
        if turn.standalone:
            lines += [f"*(searched as: {turn.standalone})*", ""]
        text = turn.answer
        for citation in turn.citations:
            number = notes.setdefault(citation.key, len(notes) + 1)
            text = text.replace(citation.key, f"[^{number}]")
        lines += [text, ""]
    sources = {c.key: c for turn in conversation.turns for c in turn.citations}
    for key, number in notes.items():
        citation = sources[key]
        date = f" ({citation.date})" if citation.date else ""
        lines.append(f"[^{number}]: {citation.title}{date}, §{citation.section_path}")
    return "\n".join(lines).rstrip() + "\n"


def _title(text: str) -> str:
    title = " ".join(text.split())
    if len(title) > MAX_TITLE_CHARS:
        raise InvalidRequestError(f"a conversation title holds at most {MAX_TITLE_CHARS} characters")
    return title
