"""A follow-up made to stand alone by the LLM, checked; the rules of `shu.retrieve.followup`
answer when the model fails, is out of budget or writes something that is not a question about
what was asked."""

from __future__ import annotations

from pydantic import BaseModel, Field

from shu import checks
from shu.errors import ShuError
from shu.models.llm.client import LLMClient
from shu.prompts import load_prompt
from shu.retrieve.followup import Previous, standalone
from shu.text import content_words, stem

_MAX_WORDS = 40


class _Standalone(BaseModel):
    needs_previous: bool
    standalone: str = Field(min_length=1, max_length=400)


class ModelFollowUps:
    """`standalone(question, previous)` written by the model, the rules as the fallback."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client

    def standalone(self, question: str, previous: Previous | None) -> str | None:
        ruled = standalone(question, previous)
        if previous is None or not previous.question.strip():
            return ruled
        messages = load_prompt("followup").messages(
            previous=previous.question,
            sources="\n".join(previous.cited_titles) or "(none)",
            question=question,
        )
        try:
            answer = self.client.structured(
                messages, _Standalone, max_tokens=160, check=lambda out: _problems(out, question, previous)
            )
        except ShuError:
            return ruled
        out: _Standalone = answer.value
        written = " ".join(out.standalone.split())
        if not out.needs_previous or written.casefold() == question.strip().casefold():
            return None
        return written


def _problems(out: _Standalone, question: str, previous: Previous) -> list[str]:
    """A standalone question keeps to the conversation: its words come from the question, the
    previous question or the cited titles (one in three may be new: a synonym), and it is short."""
    written = out.standalone
    known = {
        stem(w) for text in (question, previous.question, *previous.cited_titles) for w in content_words(text)
    }
    terms = {stem(w) for w in content_words(written)}
    problems = checks.no_prompt_echo(written)
    if len(written.split()) > _MAX_WORDS:
        problems.append(f"the standalone question has more than {_MAX_WORDS} words")
    unknown = terms - known
    if len(unknown) > max(1, len(terms) // 3):
        problems.append(f"words the conversation never used: {sorted(unknown)}")
    if out.needs_previous and not terms & {stem(w) for w in content_words(previous.question)}:
        problems.append("a follow-up that needs the previous question must name what that one asked about")
    return problems
