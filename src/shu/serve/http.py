"""The HTTP API (FastAPI) over the public Python API only: personas, documents, search with its
trace, ask (JSON, or server-sent events that stream the answer and end with the checked answer),
the OpenAI chat-completions API (`openai_http.py`), feedback, background jobs, stats, health, MCP
at `/mcp` and the web page at `/`.

Once a key exists, every `/v1` route and `/mcp` need `Authorization: Bearer <key>` (401 without
a known, unrevoked key) and reach only the key's personas (403); stats and jobs need an admin
key. Bad input is a 4xx with a message, never a 500: typed errors map to 400/401/403/404/409,
request bodies over `MAX_BODY_BYTES` to 413, invalid fields to 422. Every route answers only
requests naming this server (hosts.py: 421 else), and one caller may run only so many requests at
once and a minute (limits.py: 429 with Retry-After)."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import anyio
import fastapi_offline
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AfterValidator, BaseModel, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError
from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import Response
from starlette.types import Scope

from shu import __version__
from shu.accounts.keys import (
    authorize,
    authorize_write,
    check_own_profile_fields,
    reached_personas,
    require_admin,
)
from shu.answer.render import render_answer, shown_text
from shu.answer.stream import Progress, StreamReset
from shu.errors import (
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    LockedError,
    NotFoundError,
    ShuError,
    StoreError,
    TooManyRequestsError,
    UnauthorizedError,
)
from shu.kb import MAX_QUERY_CHARS, KnowledgeBase
from shu.serve.access_log import AccessLog
from shu.serve.callers import SESSION_COOKIE, Caller
from shu.serve.conversations_http import add_conversation_routes
from shu.serve.documents_http import (
    add_document_routes,
    admin_job_view,
    is_upload,
    own_upload_job,
    upload_job_view,
    upload_limit,
)
from shu.serve.hosts import HostGuard, HostRule
from shu.serve.limits import BodyLimit, WorkLimiter
from shu.serve.mcp import create_mcp
from shu.serve.openai_http import CHAT_BODY_BYTES, add_openai_routes
from shu.serve.sessions_http import add_session_routes, logins_of
from shu.serve.validation import Body, openai_error, validation_error
from shu.types import (
    Answer,
    ApiKey,
    Document,
    DocumentFilter,
    FilterChoices,
    JobKind,
    KnowledgeGraph,
    Signal,
    SignalKind,
    UserProfile,
    http_url,
    knowledge_base_path,
)

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
OWN_NAMES_ONLY = TransportSecuritySettings(enable_dns_rebinding_protection=False)
"""/mcp's Host and Origin are checked by HostGuard, like every other route's."""
WEB_PAGE = Path(__file__).parent / "web"
SWAGGER_UI = Path(fastapi_offline.__file__).parent / "static"
"""Swagger UI 5 (it reads the OpenAPI 3.1 FastAPI writes), shipped by the fastapi-offline package."""
_STATUS = (
    (InvalidRequestError, 400),
    (UnauthorizedError, 401),
    (NotFoundError, 404),
    (ForbiddenError, 403),
    (ConflictError, 409),
    (LockedError, 423),
    (TooManyRequestsError, 429),
    (StoreError, 503),  # the database is unreachable, locked or full: not the caller's doing
)
PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def _not_blank(text: str) -> str:
    if not text.replace("\x00", " ").split():
        raise PydanticCustomError("blank", "the question is empty")
    return text


Question = Annotated[
    str,
    Field(min_length=1, max_length=MAX_QUERY_CHARS, json_schema_extra={"pattern": r"\S"}),
    AfterValidator(_not_blank),
]
"""A question with something to ask: an empty or blank one is an invalid field (422), like any other."""


MAX_GRAPH_DOCUMENTS = 2000
"""the most documents one graph request may ask for (a page draws 300 readably)"""
FILTER_HELP = (
    "only documents of these dates (since/until, inclusive days), types, tags, people (author, "
    "sender, recipients, participants), sources (a file or folder in the knowledge base) and ids"
)


class FilterQuery(BaseModel):
    """A filter in a URL's query (`?type=email&type=event&since=2026-01-01`); checked as a
    `DocumentFilter` is (a bad one is a 422 naming what is wrong)."""

    since: date | None = None
    until: date | None = None
    type: list[str] = Field(default_factory=list, max_length=100)
    tag: list[str] = Field(default_factory=list, max_length=100)
    person: list[str] = Field(default_factory=list, max_length=100)
    source: list[str] = Field(default_factory=list, max_length=100)
    doc: list[str] = Field(default_factory=list, max_length=1000)

    def filter(self) -> DocumentFilter:
        return DocumentFilter(
            since=self.since,
            until=self.until,
            types=tuple(self.type),
            tags=tuple(self.tag),
            people=tuple(self.person),
            sources=tuple(self.source),
            doc_ids=tuple(self.doc),
        )

    @model_validator(mode="after")
    def _valid(self) -> FilterQuery:
        try:
            self.filter()
        except ValidationError as exc:
            raise ValueError(
                "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
            ) from None
        return self


class SearchRequest(Body):
    question: Question
    persona: str = Field(min_length=1, max_length=200)
    limit: int = Field(10, ge=1, le=100)
    trace: bool = Field(False, description="include the whole retrieval trace (plan, surfaces, fusion)")
    filter: DocumentFilter | None = Field(None, description=FILTER_HELP)


class AskRequest(Body):
    question: Question
    persona: str = Field(min_length=1, max_length=200)
    stream: bool = Field(False, description="server-sent events: text pieces, resets, then the answer")
    agent: bool | None = Field(None, description="true: the agent; false: never; null: the policy")
    use_cache: bool = True
    trace: bool = Field(False, description="include the retrieval trace (plan, surfaces, fusion, context)")
    conversation_id: str | None = Field(
        None, min_length=1, max_length=100, description="a turn of one's conversation (/v1/conversations)"
    )
    filter: DocumentFilter | None = Field(None, description=FILTER_HELP)


class FeedbackRequest(Body):
    persona: str = Field(min_length=1, max_length=200)
    kind: SignalKind
    doc_id: str | None = Field(None, min_length=1, max_length=500)
    question: str = Field("", max_length=MAX_QUERY_CHARS)
    answer: str = Field("", max_length=20_000)


class ProfileRequest(Body):
    """Fields of one's own profile set by hand (what is left out stays as it is)."""

    name: str | None = Field(None, max_length=200)
    emails: list[Annotated[str, Field(max_length=320)]] | None = Field(None, max_length=20)
    roles: list[Annotated[str, Field(max_length=100)]] | None = Field(None, max_length=20)
    projects: list[Annotated[str, Field(max_length=200)]] | None = Field(None, max_length=50)
    interests: list[Annotated[str, Field(max_length=200)]] | None = Field(None, max_length=50)
    contacts: list[Annotated[str, Field(max_length=320)]] | None = Field(
        None, max_length=100, description='"Name <email>" or an address'
    )
    preferences: dict[Annotated[str, Field(max_length=50)], Annotated[str, Field(max_length=50)]] | None = (
        Field(None, max_length=20, description='e.g. {"detail": "summary"}')
    )


class LearningRequest(Body):
    on: bool = Field(description="true: the profile follows the knowledge base; false: paused")


class JobRequest(Body):
    kind: JobKind = Field(description="ingest | enrich (LLM artifacts again) | reindex (with context)")
    path: str = Field(min_length=1, max_length=4096, description="a persona folder on the server")
    force: bool = Field(False, description="every document again, changed or not")


def create_app(kb: KnowledgeBase, host: str = "127.0.0.1") -> FastAPI:
    """The API over one knowledge base (its parts are built once, before the first request)."""
    kb.warm()  # built here, not by two requests at once
    mcp = create_mcp(kb)
    mcp_app = mcp.streamable_http_app(
        stateless_http=True, json_response=True, host=host, transport_security=OWN_NAMES_ONLY
    )
    limits = kb.settings.server

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        resumed = kb.jobs.resume()
        if resumed:
            log.info("resuming %d job(s) left by the last run", len(resumed))
        async with mcp.session_manager.run():
            yield
        kb.jobs.close()

    app = FastAPI(
        docs_url=None,
        redoc_url=None,
        title="Shu",
        version=__version__,
        description="Cited answers from your own documents.",
        lifespan=lifespan,
    )

    app.state.kb = kb
    app.state.read_timeout_s = limits.read_timeout_s
    logins = logins_of(kb)
    keyed_at_start = kb.accounts.auth_required() or logins.exist() or host not in LOOPBACK

    def keys_required() -> bool:
        """Once a server has keys it keeps asking for them, even when the last one is revoked
        or forgotten (nothing reopens a server that was closed); so does one bound to a
        public address. Users who sign in close it as keys do."""
        return keyed_at_start or kb.accounts.auth_required() or logins.exist()

    app.state.keys_required = keys_required

    auth_threads = anyio.CapacityLimiter(4)

    def mcp_key(authorization: str) -> ApiKey | None:
        if not keys_required():
            return None
        scheme, _, token = authorization.partition(" ")
        return kb.accounts.authenticate(token if scheme.lower() == "bearer" else None)

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        if request.url.path.startswith("/mcp"):
            header = request.headers.get("authorization", "")
            try:  # in a thread of its own: a store may block, the event loop must not
                key = await anyio.to_thread.run_sync(mcp_key, header, limiter=auth_threads)
            except UnauthorizedError as exc:
                return _error(exc, 401)
            if key is not None:
                request.state.key = key
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        if not request.url.path.startswith("/docs"):  # Swagger UI starts itself with an inline script
            response.headers["Content-Security-Policy"] = PAGE_POLICY
        return response

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        """Swagger UI from the package's own copy (no CDN)."""
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="Shu API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon.png",
        )

    @app.exception_handler(ShuError)
    async def shu_error(request: Request, exc: ShuError) -> JSONResponse:
        response = _error(exc, next((code for kind, code in _STATUS if isinstance(exc, kind)), 400))
        if isinstance(exc, TooManyRequestsError):
            response.headers["Retry-After"] = str(exc.retry_after_s)
        elif isinstance(exc, StoreError):
            response.headers["Retry-After"] = "5"
        return response

    health_threads = anyio.CapacityLimiter(2)

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Alive; whether this server asks for keys (never queued behind the API's work)."""
        auth = keyed_at_start or await anyio.to_thread.run_sync(keys_required, limiter=health_threads)
        sign_in = await anyio.to_thread.run_sync(logins.exist, limiter=health_threads)
        return {"status": "ok", "version": __version__, "auth": auth, "sign_in": sign_in}

    @app.get("/v1/me")
    def me(key: Caller) -> dict[str, Any]:
        """Who the key belongs to and what it reaches (no keys: everyone, everything)."""
        if key is None:
            return {"user": None, "admin": True, "personas": None}
        writes = None if key.admin else key.writes
        return {"user": key.user, "admin": key.admin, "personas": key.personas or None, "key": key.id} | {
            "writes": writes
        }

    @app.get("/v1/personas")
    def personas(key: Caller) -> list[dict[str, Any]]:
        """The personas the key reaches, each with its document count."""
        reached = [p for p in kb.personas() if key is None or key.reaches(p.slug)]
        return [p.model_dump() | {"documents": len(kb.documents(p.slug))} for p in reached]

    @app.get("/v1/personas/{slug}/documents")
    def documents(
        slug: str,
        key: Caller,
        where: Annotated[FilterQuery, Query()],
        offset: Annotated[int, Query(ge=0)] = 0,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        """One persona's documents, a page at a time; with filter parameters (`since`, `until`,
        `type`, `tag`, `person`, `source`, `doc`, each but the dates repeatable), those kept."""
        authorize(key, slug)
        found = kb.documents(slug, where.filter())
        page = found[offset : offset + limit]
        return {
            "total": len(found),
            "offset": offset,
            "limit": limit,
            "documents": [_public(d) for d in page],
        }

    @app.get("/v1/personas/{slug}/suggested-config")
    def suggested_config(slug: str, key: Caller) -> dict[str, Any]:
        """A suggested `persona.config.json` for a person to accept: the curated config with the
        tags and aliases the documents suggest, each tag and alias with why (as `shu --json
        personas suggest`); nothing is written. For who may change the persona (it reads every
        passage, and shows the curated config)."""
        authorize_write(key, slug)
        return kb.suggest_persona_config(slug).as_json()

    @app.get("/v1/personas/{slug}/filters")
    def filters(slug: str, key: Caller) -> FilterChoices:
        """What the persona's documents offer a filter: types and tags with how many documents
        have each, the folders they are in, and the first and last of their dates."""
        authorize(key, slug)
        return kb.filter_choices(slug)

    @app.get("/v1/personas/{slug}/graph")
    def graph(
        slug: str,
        key: Caller,
        where: Annotated[FilterQuery, Query()],
        around: Annotated[str | None, Query(min_length=1, max_length=300)] = None,
        max_documents: Annotated[int, Query(ge=1, le=MAX_GRAPH_DOCUMENTS)] = 300,
    ) -> KnowledgeGraph:
        """The persona's documents and the people, projects and entities they connect, with the
        typed, directed links between them; with filter parameters, of the documents kept;
        `around`: one document's one-hop neighbourhood."""
        authorize(key, slug)
        return kb.graph(slug, where.filter(), around, max_documents)

    @app.get("/v1/documents/{doc_id}")
    def document(doc_id: str, key: Caller, persona: Annotated[str, Query(min_length=1)]) -> dict[str, Any]:
        """A document of the persona: text by section (with citation keys), profile, relationships."""
        authorize(key, persona)
        view = kb.document(doc_id, persona=persona)
        return view.model_dump() | {"document": _public(view.document), "text": view.text}

    @app.post("/v1/search")
    def search(request: SearchRequest, key: Caller) -> dict[str, Any]:
        """The ranked chunks, each with its citation key; the retrieval trace when asked for."""
        authorize(key, request.persona)
        user = kb.with_profile(key.user if key else None)
        result = kb.retrieve(
            request.question, persona=request.persona, limit=request.limit, user=user, where=request.filter
        )
        hits = [h.model_dump() | {"citation": h.citation_key} for h in result.hits]
        body: dict[str, Any] = {"question": result.question, "persona": result.persona, "hits": hits}
        if request.trace:
            body["trace"] = result.model_dump(exclude={"hits"})
        return body

    @app.post("/v1/ask", response_model=None)
    def ask(request: AskRequest, key: Caller) -> dict[str, Any] | StreamingResponse:
        """The cited answer (JSON), or with `stream` server-sent events: `piece` (text as written,
        each citation key whole), `reset` (what was shown is withdrawn), and last `answer`."""
        authorize(key, request.persona)
        kb.persona(request.persona)  # an unknown persona is a 404 before any stream starts
        owner = key.user if key else None
        user = owner if request.conversation_id else kb.with_profile(owner)  # a thread is its owner's
        events = kb.ask_stream(
            request.question,
            request.persona,
            request.use_cache,
            request.agent,
            user,
            conversation=request.conversation_id,
            where=request.filter,
        )
        if not request.stream:
            final = [e for e in events if isinstance(e, Answer)][-1]
            return _answer_json(final, kb, request.trace)
        return StreamingResponse(_server_events(events, kb, request.trace), media_type="text/event-stream")

    add_conversation_routes(app, kb)
    add_openai_routes(app, kb, lambda answer, trace: _answer_json(answer, kb, trace))
    add_document_routes(app, kb)
    add_session_routes(app, kb)

    @app.post("/v1/feedback", status_code=201)
    def feedback(request: FeedbackRequest, key: Caller) -> Signal:
        """Keep a signal on an answer (up, down) or a document (star, unstar, opened…) for the
        caller: used to personalize retrieval, seen by that user only."""
        authorize(key, request.persona)
        return kb.accounts.feedback(Signal(user=key.user if key else "", **request.model_dump()))

    @app.get("/v1/feedback")
    def my_feedback(key: Caller, persona: Annotated[str | None, Query(min_length=1)] = None) -> list[Signal]:
        """The caller's own signals, newest first."""
        if persona is not None:
            authorize(key, persona)
        return kb.accounts.signals(key.user if key else "", persona)

    @app.get("/v1/users/me")
    def my_profile(key: Caller) -> UserProfile:
        """The caller's own profile (a user never sees another's)."""
        return kb.accounts.user(_user_of(key))

    @app.put("/v1/users/me")
    def set_my_profile(request: ProfileRequest, key: Caller) -> UserProfile:
        """Set fields of one's own profile by hand; learned items stay. E-mail addresses decide
        whose mail learning reads: only an admin key sets them (403 otherwise)."""
        fields = request.model_dump(exclude_none=True)
        check_own_profile_fields(key, fields)
        return kb.accounts.set_user(_user_of(key), fields)

    @app.post("/v1/users/me/learn")
    def learn_my_profile(key: Caller) -> UserProfile:
        """Learn one's contacts, projects and interests again from the documents of the personas
        the key reaches and one's signals there."""
        return kb.accounts.learn_user(_user_of(key), reached_personas(key))

    @app.get("/v1/users/me/export")
    def export_me(key: Caller) -> dict[str, Any]:
        """Everything kept about the caller: profile, signals, keys (never a secret)."""
        return kb.accounts.export_user(_user_of(key))

    @app.delete("/v1/users/me")
    def forget_me(key: Caller) -> dict[str, int]:
        """Delete everything about the caller (profile, signals, keys): the key stops working."""
        return kb.accounts.forget_user(_user_of(key))

    @app.post("/v1/jobs", status_code=202)
    def start_job(request: JobRequest, key: Caller) -> dict[str, Any]:
        """Start ingest, enrich or reindex-with-context over a folder on the server, in the
        background (admin); the job with its progress (poll `GET /v1/jobs/{id}`)."""
        require_admin(key)
        job = kb.jobs.submit(request.kind, request.path, request.force, key.user if key else "")
        return admin_job_view(job)

    @app.get("/v1/jobs")
    def jobs(
        key: Caller, active: bool = False, limit: Annotated[int, Query(ge=1, le=500)] = 50
    ) -> dict[str, Any]:
        """Jobs newest first (only queued and running ones with `active`), with status, processed,
        failed, total, percent, elapsed and ETA in seconds."""
        require_admin(key)
        return {"jobs": [admin_job_view(j) for j in kb.jobs.list(active, limit)]}

    @app.get("/v1/jobs/{job_id}")
    def job(job_id: str, key: Caller) -> dict[str, Any]:
        """One job's status and progress (with its ingestion report once done); a key that is
        not an admin's follows the uploads and re-ingests it started (each file's reason, no report)."""
        if key is not None and not key.admin:
            with contextlib.suppress(NotFoundError):
                found = kb.jobs.get(job_id)
                if own_upload_job(key, found):
                    return upload_job_view(found, key)
        require_admin(key)
        found = kb.jobs.get(job_id)
        return admin_job_view(found, files=True)

    @app.post("/v1/jobs/{job_id}/cancel")
    def cancel_job(job_id: str, key: Caller) -> dict[str, Any]:
        """Stop a queued or running job (a running one after the document it is on); 409 when it
        has already finished."""
        require_admin(key)
        return admin_job_view(kb.jobs.cancel(job_id))

    @app.put("/v1/admin/profiles/{user_id}/learning")
    def profile_learning(user_id: str, body: LearningRequest, key: Caller) -> dict[str, Any]:
        """Pause (`{"on": false}`) or resume a user's profile learning from each ingestion run
        and their signals (admin); resuming learns at once. 404 for an unknown user."""
        require_admin(key)
        return kb.accounts.set_learning(user_id, body.on).model_dump()

    @app.post("/v1/admin/profiles/{user_id}/reset")
    def profile_reset(user_id: str, key: Caller) -> dict[str, Any]:
        """Drop what was learned about a user, keeping what was set by hand (admin)."""
        require_admin(key)
        return kb.accounts.reset_learning(user_id).model_dump()

    @app.get("/v1/findings")
    def list_findings(key: Caller, persona: str | None = None, all: bool = False) -> list[dict[str, Any]]:
        """What the agent wrote back (relationships, stale manifests, document types, people and
        projects), newest first, each with the quote it rests on (admin); `all` adds undone ones."""
        require_admin(key)
        return [f.model_dump() for f in kb.findings(persona, include_undone=all)]

    @app.post("/v1/findings/{finding_id}/undo")
    def undo_finding(finding_id: int, key: Caller) -> dict[str, Any]:
        """Take a finding back: its effects stop, it is kept marked undone (admin); 404 for an
        unknown one, 409 for one already undone."""
        require_admin(key)
        return kb.undo_finding(finding_id).model_dump()

    @app.get("/v1/stats")
    def stats(key: Caller) -> dict[str, Any]:
        """Counts and size of the store, enrichment methods, LLM use, answer cache, findings (admin)."""
        require_admin(key)
        return kb.stats().model_dump()

    app.mount("/docs-assets", StaticFiles(directory=SWAGGER_UI), name="docs-assets")
    app.router.routes.extend(mcp_app.routes)  # /mcp: streamable HTTP, sessions run by the lifespan
    app.mount("/", StaticFiles(directory=WEB_PAGE, html=True), name="web")
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]  # starlette: a handler takes any Exception
    app.add_middleware(WorkLimiter, settings=limits, identify=_who(kb, keys_required), streamed=is_upload)
    uploads = upload_limit(kb, limits.max_upload_bytes, keys_required)

    async def wider(scope: Scope) -> int | Response | None:
        """A chat client sends the whole conversation each time: a chat request may send more."""
        if scope.get("method") == "POST" and scope.get("path") == "/v1/chat/completions":
            return CHAT_BODY_BYTES
        return await uploads(scope)

    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES, wider=wider)
    app.add_middleware(HostGuard, rule=HostRule(bound=host, configured=limits.allowed_hosts))
    app.add_middleware(AccessLog)  # outermost: a request a wall refused is logged too
    return app


def _who(kb: KnowledgeBase, keys_required: Callable[[], bool]) -> Callable[[Headers], str | None]:
    """For the limits: `key:<id>` for a good bearer key (it wins over a cookie, as in
    callers.py), `user:<name>` for a good session, "" on a server open to all, None else."""
    logins = logins_of(kb)

    def who(headers: Headers) -> str | None:
        if not keys_required():
            return ""
        authorization = headers.get("authorization")
        session = cookie_parser(headers.get("cookie", "")).get(SESSION_COOKIE)
        try:
            if authorization or not session:
                scheme, _, token = (authorization or "").partition(" ")
                return "key:" + kb.accounts.authenticate(token if scheme.lower() == "bearer" else None).id
            return "user:" + logins.session(session)[0].name
        except UnauthorizedError:
            return None

    return who


def _user_of(key: ApiKey | None) -> str:
    if key is None:
        raise InvalidRequestError(
            "profiles belong to users: this server has no keys (`shu keys create --user …`)"
        )
    return key.user


def _public(document: Document) -> dict[str, Any]:
    """A document as the API shows it: its file relative to the knowledge base (never a path of
    the server), a source link only when it is http(s)."""
    shown = document.model_dump()
    return shown | {"path": knowledge_base_path(document.path), "source_url": http_url(document.source_url)}


def _error(exc: ShuError, status: int) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    kind = {401: "authentication_error", 503: "server_error"}.get(status, "invalid_request_error")
    body = {"detail": str(exc)} | openai_error(str(exc), kind, status)
    return JSONResponse(body, status_code=status, headers=headers)


def _answer_json(answer: Answer, kb: KnowledgeBase, trace: bool) -> dict[str, Any]:
    style = kb.settings.answer.citation_style
    left_out = {"hits"} if trace else {"hits", "retrieval"}
    shown: dict[str, Any] = {"markdown": render_answer(answer, style), "shown_text": shown_text(answer)}
    retrieval = answer.retrieval
    if retrieval is not None and retrieval.filter is not None:  # what the answer was kept to
        shown |= {"filter": retrieval.filter.model_dump(mode="json"), "filtered": retrieval.filtered}
    return answer.model_dump(exclude=left_out) | shown


def _server_events(events: Iterator[object], kb: KnowledgeBase, trace: bool) -> Iterator[str]:
    try:
        for event in events:
            if isinstance(event, Answer):
                yield _event("answer", _answer_json(event, kb, trace))
            elif isinstance(event, StreamReset):
                yield _event("reset", {"reason": event.reason})
            elif isinstance(event, Progress):
                yield _event("progress", {"stage": event.stage, "detail": event.detail})
            elif event:
                yield _event("piece", {"text": event})
    except ShuError as exc:  # the status line is sent: the error is the stream's last event
        log.warning("ask stream failed: %s", exc)
        yield _event("error", {"detail": str(exc)})


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"
