"""Conversations: a user's thread of questions and answers with one persona, kept so a follow-up
("and the Team plan?") can be asked and the thread read again later."""

from __future__ import annotations

from pydantic import BaseModel, Field

from shu.types.retrieval import Citation


class Turn(BaseModel):
    """One question and its answer. `standalone` is the question as retrieval searched it when
    the follow-up was rewritten to stand alone (None when it was asked as it stands)."""

    question: str
    standalone: str | None = None
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    cited_titles: list[str] = Field(default_factory=list)
    """the titles the answer cited when only its text came back (a chat client's history, read
    from its footnotes): what a follow-up's rewrite reads when `citations` are not known"""
    insufficient: bool = False
    created: str = ""


class Conversation(BaseModel):
    """A user's conversation with one persona; `turns` oldest first."""

    id: str
    user: str
    persona: str
    title: str = ""
    created: str = ""
    updated: str = ""
    turns: list[Turn] = Field(default_factory=list)
