"""Shu as a model: the OpenAI chat-completions API (`POST /v1/chat/completions`, `GET
/v1/models`), so any OpenAI client — the `openai` SDK, Open WebUI, LibreChat, an editor's
assistant — talks to a persona as if it were a model.

- `model` names the persona; the models are the personas the caller's key reaches (another is
  a 404, as everywhere: its name is not confirmed).
- `messages`: the last is the user's question; earlier user and assistant turns are the
  conversation it follows (a follow-up is made to stand alone, nothing is stored); system
  messages are the client's, not Shu's (the persona is the system), and are left out.
- The reply's content is the answer as Markdown with its citations as footnotes; the structured
  answer (citations, confidence, verification, the retrieval trace with `"trace": true`) travels
  in the extra field `shu`, which the SDK passes through (`completion.shu` /
  `completion.model_extra["shu"]`).
- `stream: true` sends `chat.completion.chunk` events as the answer is written, each citation key
  as its footnote number; when what was shown is withdrawn, a line says so and the answer goes
  on; the last chunk carries the footnotes and `shu`; then `[DONE]`.
- Unknown request fields are ignored, as OpenAI clients send many (temperature, n, top_p …):
  Shu's answer does not depend on them."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal

from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from shu.answer.render import render_answer
from shu.answer.stream import StreamReset
from shu.errors import InvalidRequestError, NotFoundError, ShuError
from shu.kb import MAX_QUERY_CHARS, KnowledgeBase
from shu.serve.callers import Caller
from shu.serve.validation import Body
from shu.types import Answer, DocumentFilter, Turn

MAX_MESSAGES = 200
MAX_MESSAGE_CHARS = 40_000
KEPT_TURNS = 4
"""Earlier turns read (the rewrite reads the last, an LLM answer the last two): a long chat's
older turns are passed over."""
CHAT_BODY_BYTES = 1024 * 1024
"""A chat request's body at most: a client sends the whole conversation each time."""
"""A message's text at most (an earlier answer may be long; the question is held to the ask limit)."""
OWNER = "shu"
_KEY = re.compile(r"\[\^[^\]\n]+\]")
_LINE_BREAKS = re.compile("[\u0085\u2028\u2029]")
"""Characters some event-stream readers take for a line's end: escaped inside a chunk's JSON."""


class TextPart(BaseModel):
    """A part of a message's content: only text is read."""

    model_config = ConfigDict(extra="ignore")

    type: str = Field(min_length=1, max_length=50)
    text: str = Field("", max_length=MAX_MESSAGE_CHARS)


MessageText = Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: MessageText | Annotated[list[TextPart], Field(max_length=100)] | None = None

    def text(self, strict: bool = False) -> str:
        """The message's text (its text parts joined); `strict` (the question): an image or
        audio part is refused, not passed over."""
        if self.content is None or isinstance(self.content, str):
            return self.content or ""
        others = sorted({p.type for p in self.content if p.type != "text"})
        if others and strict:
            raise InvalidRequestError(f"only text is read: the question holds {', '.join(others)}")
        return "\n".join(p.text for p in self.content if p.type == "text")


class StreamOptions(Body):
    model_config = ConfigDict(extra="ignore")

    include_usage: bool = Field(False, description="a last chunk with `usage` and no choices")


class ChatRequest(Body):
    """An OpenAI chat-completions request; fields Shu does not use are ignored."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)

    model: str = Field(min_length=1, max_length=200, description="the persona's slug (GET /v1/models)")
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = False
    stream_options: StreamOptions | None = None
    trace: bool = Field(False, description="Shu's own: the retrieval trace in `shu`")
    agent: bool | None = Field(None, description="Shu's own: true the agent, false never, null the policy")
    filter: DocumentFilter | None = Field(None, description="Shu's own: the documents searched (as /v1/ask)")


AnswerJson = Callable[[Answer, bool], dict[str, Any]]
"""How the API shows an answer (what `/v1/ask` returns), given whether to include the trace."""


def add_openai_routes(app: FastAPI, kb: KnowledgeBase, answer_json: AnswerJson) -> None:
    """`/v1/models` and `/v1/chat/completions` on `app`; `answer_json` is how the API shows an
    answer (what `/v1/ask` returns), sent as `shu`."""

    @app.get("/v1/models")
    def models(key: Caller) -> dict[str, Any]:
        """The personas the key reaches, as models."""
        reached = [p for p in kb.personas() if key is None or key.reaches(p.slug)]
        return {
            "object": "list",
            "data": [{"id": p.slug, "object": "model", "created": 0, "owned_by": OWNER} for p in reached],
        }

    @app.post("/v1/chat/completions", response_model=None)
    def chat_completions(request: ChatRequest, key: Caller) -> dict[str, Any] | StreamingResponse:
        """The persona's cited answer to the last user message, as an OpenAI chat completion
        (streamed as chunks with `stream`)."""
        if key is not None and not key.reaches(request.model):
            raise NotFoundError(_no_model(request.model))
        try:
            persona = kb.persona(request.model)  # before any stream starts
        except NotFoundError:
            raise NotFoundError(_no_model(request.model)) from None
        question, earlier = _asked(request.messages)
        user = kb.with_profile(key.user if key else None)
        events = kb.ask_following(question, persona.slug, earlier, request.agent, user, request.filter)
        completion = Completion(f"chatcmpl-{uuid.uuid4().hex}", int(time.time()), persona.slug)
        style = kb.settings.answer.citation_style
        if not request.stream:
            final = [e for e in events if isinstance(e, Answer)][-1]
            return completion.whole(final, answer_json(final, request.trace), style)
        shown = Footnoted(style)
        usage = request.stream_options is not None and request.stream_options.include_usage
        chunks = completion.chunks(events, shown, lambda answer: answer_json(answer, request.trace), usage)
        return StreamingResponse(chunks, media_type="text/event-stream")


def _no_model(name: str) -> str:
    """The same words for a persona that does not exist and one the key does not reach."""
    return f"no model {name!r} (GET /v1/models lists the ones the key reaches)"


def _asked(messages: list[ChatMessage]) -> tuple[str, list[Turn]]:
    """The question (the last message, the user's) and the turns before it: each user message
    with the assistant's reply after it."""
    last = messages[-1]
    if last.role != "user":
        raise InvalidRequestError(f"the last message must be the user's question (it is the {last.role}'s)")
    question = " ".join(last.text(strict=True).replace("\x00", " ").split())
    if not question:
        raise InvalidRequestError("the question is empty")
    if len(question) > MAX_QUERY_CHARS:  # here, not in the stream: a 400 before any chunk is sent
        raise InvalidRequestError(
            f"the question is {len(question)} characters long; the limit is {MAX_QUERY_CHARS}"
        )
    turns: list[Turn] = []
    asked: str | None = None
    for message in messages[:-1]:
        if message.role == "user":
            asked = message.text()
        elif message.role == "assistant" and asked is not None and asked.split():
            said = message.text()
            question_asked = " ".join(asked.split())[:MAX_QUERY_CHARS]
            turns.append(Turn(question=question_asked, answer=said, cited_titles=_cited_titles(said)))
            asked = None
    return question, turns[-KEPT_TURNS:]


_FOOTNOTE_TITLE = re.compile(r"^\[\^\d{1,4}\]:\s*(.{1,300}?)(?:\s\(\d{4}(?:-\d{2}){0,2}\))?,\s§", re.M)
"""A footnote Shu wrote under an answer: `[^1]: Pricing (2026-04-21), §Pricing > Pro — <…>`."""


def _cited_titles(answer: str) -> list[str]:
    """The titles an earlier answer's footnotes cite, in order (each once)."""
    return list(dict.fromkeys(m.group(1).strip() for m in _FOOTNOTE_TITLE.finditer(answer)))[:10]


class Footnoted:
    """Streamed text with each citation key as its footnote number, in the order keys first
    appear; what has been shown, so the end can tell whether the checked answer says the same."""

    def __init__(self, style: str) -> None:
        self.style = style
        self.numbers: dict[str, int] = {}
        self.text = ""

    def piece(self, piece: str) -> str:
        for key in _KEY.findall(piece):
            number = self.numbers.setdefault(key, len(self.numbers) + 1)
            if self.style == "footnotes":
                piece = piece.replace(key, f"[^{number}]")
        self.text += piece
        return piece

    def rest(self, answer: Answer) -> str:
        """What is left to send of the checked answer: its sources after the streamed text when
        that is what it says (numbered alike; white space aside), else the whole answer after a
        line saying so."""
        rendered = render_answer(answer, self.style)
        body, sources = _parted(rendered)
        same_keys = [c.key for c in answer.citations] == list(self.numbers)
        if self.text and same_keys and body.split() == self.text.split():
            return f"\n\n{sources}" if sources else ""
        if not self.text:
            return rendered
        return f"\n\n---\n\n*The checked answer:*\n\n{rendered}"


def _parted(rendered: str) -> tuple[str, str]:
    """A rendered answer's body and its sources (footnotes, or the `Sources:` list)."""
    for mark in ("\n\n[^1]: ", "\n\nSources:\n"):
        body, found, sources = rendered.partition(mark)
        if found:
            return body, found.lstrip("\n") + sources
    return rendered, ""


WITHDRAWN = "\n\n*(The draft above was withdrawn; the answer follows.)*\n\n"
"""What a client is shown when a draft is withdrawn (it cannot take text back): the reason is
the model's or a check's words, kept out of the Markdown."""


class Completion:
    """One chat completion's identity, and its shapes: whole, or as chunks."""

    def __init__(self, completion_id: str, created: int, model: str) -> None:
        self.id, self.created, self.model = completion_id, created, model

    def whole(self, answer: Answer, shu: dict[str, Any], style: str) -> dict[str, Any]:
        message = {"role": "assistant", "content": render_answer(answer, style)}
        choice = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
        return self._head("chat.completion") | {"choices": [choice], "usage": usage_of(answer), "shu": shu}

    def chunks(
        self,
        events: Iterator[object],
        shown: Footnoted,
        shu: Callable[[Answer], dict[str, Any]],
        usage: bool = False,
    ) -> Iterator[str]:
        """Server-sent chunks: the role, the text as it is written, the rest of the checked answer
        with `finish_reason` and `shu`, with `usage` a last chunk of no choices and the tokens
        spent (as OpenAI's `stream_options.include_usage`), then `[DONE]`. An error after the
        stream began is its last chunk's content (the status line is sent)."""
        yield self._chunk({"role": "assistant", "content": ""})
        try:
            for event in events:
                if isinstance(event, Answer):
                    yield self._chunk({"content": shown.rest(event)}, "stop", {"shu": shu(event)})
                    if usage:
                        yield self._usage_chunk(usage_of(event))
                elif isinstance(event, StreamReset):
                    shown.text = ""  # what follows is compared with the checked answer afresh
                    yield self._chunk({"content": WITHDRAWN})
                elif isinstance(event, str) and event:
                    yield self._chunk({"content": shown.piece(event)})
        except ShuError as exc:  # the status line is sent: the error is the last chunk's
            ended = {"content": "\n\n*(The answer could not be finished.)*"}
            yield self._chunk(ended, "stop", {"shu": {"error": str(exc)}})
        yield "data: [DONE]\n\n"

    def _usage_chunk(self, usage: dict[str, int]) -> str:
        body = self._head("chat.completion.chunk") | {"choices": [], "usage": usage}
        return f"data: {json.dumps(body)}\n\n"

    def _head(self, kind: str) -> dict[str, Any]:
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model}

    def _chunk(
        self, delta: dict[str, Any], finish: str | None = None, extra: dict[str, Any] | None = None
    ) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        body = self._head("chat.completion.chunk") | {"choices": [choice]} | (extra or {})
        text = _LINE_BREAKS.sub(_escaped, json.dumps(body, ensure_ascii=False, default=str))
        return f"data: {text}\n\n"


def usage_of(answer: Answer) -> dict[str, int]:
    """The tokens the question's model calls took, as OpenAI counts them (0 for an answer no
    model wrote: quoted, or from the cache)."""
    none = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    return none if answer.cached or answer.llm_usage is None else answer.llm_usage


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\u{code:04x}"
