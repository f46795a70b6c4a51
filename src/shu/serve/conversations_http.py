"""`/v1/conversations`: a caller's own conversations with a persona — start, list, read, rename,
delete, export as Markdown. A turn is added by `POST /v1/ask` with `conversation_id`. Another
user's conversation is "not found" (its existence is not told); one of a persona the key no
longer reaches is forbidden like the persona itself."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query, Response
from fastapi.responses import PlainTextResponse
from pydantic import Field

from shu.accounts.keys import authorize
from shu.conversations import LOCAL_USER, MAX_TITLE_CHARS, export_markdown
from shu.kb import KnowledgeBase
from shu.serve.callers import Caller
from shu.serve.validation import Body
from shu.types import ApiKey, Conversation


class ConversationRequest(Body):
    persona: str = Field(min_length=1, max_length=200)
    title: str = Field("", max_length=MAX_TITLE_CHARS)


class RenameRequest(Body):
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)


def add_conversation_routes(app: FastAPI, kb: KnowledgeBase) -> None:
    conversations = kb.conversations

    @app.post("/v1/conversations", status_code=201)
    def start_conversation(request: ConversationRequest, key: Caller) -> Conversation:
        """Start a conversation with a persona (the first question names an untitled one)."""
        authorize(key, request.persona)
        kb.persona(request.persona)
        return conversations.start(_user(key), request.persona, request.title)

    @app.get("/v1/conversations")
    def list_conversations(
        key: Caller, persona: Annotated[str | None, Query(min_length=1, max_length=200)] = None
    ) -> list[dict[str, Any]]:
        """The caller's conversations (with a persona, or with every persona the key reaches),
        most recently continued first, without their turns."""
        if persona is not None:
            authorize(key, persona)
        found = conversations.of(_user(key), persona)
        return [_summary(c) for c in found if key is None or key.reaches(c.persona)]

    @app.get("/v1/conversations/{conversation_id}")
    def read_conversation(conversation_id: str, key: Caller) -> Conversation:
        """One of the caller's conversations with every turn and its citations."""
        return _own(conversation_id, key)

    @app.patch("/v1/conversations/{conversation_id}")
    def rename_conversation(conversation_id: str, request: RenameRequest, key: Caller) -> dict[str, Any]:
        _own(conversation_id, key)
        return _summary(conversations.rename(conversation_id, _user(key), request.title))

    @app.delete("/v1/conversations/{conversation_id}", status_code=204)
    def delete_conversation(conversation_id: str, key: Caller) -> Response:
        _own(conversation_id, key)
        conversations.delete(conversation_id, _user(key))
        return Response(status_code=204)

    @app.get("/v1/conversations/{conversation_id}/export", response_class=PlainTextResponse)
    def export_conversation(conversation_id: str, key: Caller) -> PlainTextResponse:
        """The conversation as Markdown, each answer's sources as footnotes."""
        markdown = export_markdown(_own(conversation_id, key))
        return PlainTextResponse(markdown, media_type="text/markdown; charset=utf-8")

    def _own(conversation_id: str, key: ApiKey | None) -> Conversation:
        found = conversations.get(conversation_id, _user(key))
        authorize(key, found.persona)
        return found


def _user(key: ApiKey | None) -> str:
    """Whose conversations: the key's user; on a server without keys, the one local user."""
    return key.user if key is not None else LOCAL_USER


def _summary(conversation: Conversation) -> dict[str, Any]:
    return conversation.model_dump(exclude={"turns"}) | {"turns": len(conversation.turns)}
