"""The HTTP API (FastAPI) over the public Python API only: personas, documents, search with its
trace, ask (JSON, or server-sent events that stream the answer and end with the checked answer),
stats, health. Bad input is a 4xx with a message, never a 500: typed errors map to 400/404/403/
409, request bodies over `MAX_BODY_BYTES` to 413, invalid fields to 422."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from shu import __version__
from shu.answer.render import render_answer
from shu.answer.stream import StreamReset
from shu.errors import ConflictError, ForbiddenError, InvalidRequestError, NotFoundError, ShuError
from shu.kb import MAX_QUERY_CHARS, KnowledgeBase
from shu.types import Answer

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
WEB_PAGE = Path(__file__).parent / "web"
_STATUS = ((InvalidRequestError, 400), (NotFoundError, 404), (ForbiddenError, 403), (ConflictError, 409))


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    persona: str = Field(min_length=1, max_length=200)
    limit: int = Field(10, ge=1, le=100)
    trace: bool = Field(False, description="include the whole retrieval trace (plan, surfaces, fusion)")


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    persona: str = Field(min_length=1, max_length=200)
    stream: bool = Field(False, description="server-sent events: text pieces, resets, then the answer")
    agent: bool | None = Field(None, description="true: the agent; false: never; null: the policy")
    use_cache: bool = True
    trace: bool = Field(False, description="include the retrieval trace (plan, surfaces, fusion, context)")


def create_app(kb: KnowledgeBase) -> FastAPI:
    """The API over one knowledge base (its parts are built once, before the first request)."""
    kb.responder  # noqa: B018 — built here, not by two requests at once
    app = FastAPI(title="Shu", version=__version__, description="Cited answers from your own documents.")

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Any) -> Any:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            return JSONResponse({"detail": f"request body over {MAX_BODY_BYTES} bytes"}, status_code=413)
        return await call_next(request)

    @app.exception_handler(ShuError)
    async def shu_error(request: Request, exc: ShuError) -> JSONResponse:
        status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 400)
        return JSONResponse({"detail": str(exc)}, status_code=status)

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.get("/v1/personas")
    def personas() -> list[dict[str, Any]]:
        """Every persona with its document count."""
        return [p.model_dump() | {"documents": len(kb.documents(p.slug))} for p in kb.personas()]

    @app.get("/v1/personas/{slug}/documents")
    def documents(
        slug: str,
        offset: Annotated[int, Query(ge=0)] = 0,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        """One persona's documents, a page at a time."""
        found = kb.documents(slug)
        page = found[offset : offset + limit]
        return {
            "total": len(found),
            "offset": offset,
            "limit": limit,
            "documents": [d.model_dump() for d in page],
        }

    @app.get("/v1/documents/{doc_id}")
    def document(doc_id: str, persona: Annotated[str, Query(min_length=1)]) -> dict[str, Any]:
        """A document of the persona: text by section (with citation keys), profile, relationships."""
        view = kb.document(doc_id, persona=persona)
        return view.model_dump() | {"text": view.text}

    @app.post("/v1/search")
    def search(request: SearchRequest) -> dict[str, Any]:
        """The ranked chunks, each with its citation key; the retrieval trace when asked for."""
        result = kb.retrieve(request.question, persona=request.persona, limit=request.limit)
        hits = [h.model_dump() | {"citation": h.citation_key} for h in result.hits]
        body: dict[str, Any] = {"question": result.question, "persona": result.persona, "hits": hits}
        if request.trace:
            body["trace"] = result.model_dump(exclude={"hits"})
        return body

    @app.post("/v1/ask", response_model=None)
    def ask(request: AskRequest) -> dict[str, Any] | StreamingResponse:
        """The cited answer (JSON), or with `stream` server-sent events: `piece` (text as written,
        each citation key whole), `reset` (what was shown is withdrawn), and last `answer`."""
        kb.persona(request.persona)  # an unknown persona is a 404 before any stream starts
        events = kb.ask_stream(request.question, request.persona, request.use_cache, request.agent)
        if not request.stream:
            final = [e for e in events if isinstance(e, Answer)][-1]
            return _answer_json(final, kb, request.trace)
        return StreamingResponse(_server_events(events, kb, request.trace), media_type="text/event-stream")

    @app.get("/v1/stats")
    def stats() -> dict[str, Any]:
        return kb.stats().model_dump()

    app.mount("/", StaticFiles(directory=WEB_PAGE, html=True), name="web")
    return app


def _answer_json(answer: Answer, kb: KnowledgeBase, trace: bool) -> dict[str, Any]:
    style = kb.settings.answer.citation_style
    left_out = {"hits"} if trace else {"hits", "retrieval"}
    return answer.model_dump(exclude=left_out) | {"markdown": render_answer(answer, style)}


def _server_events(events: Iterator[object], kb: KnowledgeBase, trace: bool) -> Iterator[str]:
    try:
        for event in events:
            if isinstance(event, Answer):
                yield _event("answer", _answer_json(event, kb, trace))
            elif isinstance(event, StreamReset):
                yield _event("reset", {"reason": event.reason})
            elif event:
                yield _event("piece", {"text": event})
    except ShuError as exc:  # the status line is sent: the error is the stream's last event
        log.warning("ask stream failed: %s", exc)
        yield _event("error", {"detail": str(exc)})


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"
