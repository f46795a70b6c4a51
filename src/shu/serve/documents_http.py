"""A persona's documents changed over HTTP: upload files (multipart) into its folder's
`RAW-DOCS/`, converted and indexed by a background job; delete a document (its RAG file, its raw
file and what is indexed); index one again; download its original.

Uploading, deleting and re-ingesting need the write right on the persona (an admin key, or a key
made with `--write PERSONA`; on a server without keys everything is open); downloading needs the
read right. Every file is checked — its name made safe, its suffix one Shu reads, its size, its
first bytes — before anything is written; a name already taken gets `-2`, `-3`…, never replacing
a file. Another persona's document is "not found"; no path outside the persona's folder is ever
read or written."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import unquote

import anyio
from fastapi import Depends, FastAPI, File, Query, UploadFile
from fastapi.responses import FileResponse, JSONResponse
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Scope

from shu.accounts.keys import authorize, authorize_write
from shu.errors import ForbiddenError, NotFoundError, UnauthorizedError
from shu.ingest.uploads import TooLarge, UploadRefused, check_content, safe_name, store_file
from shu.jobs import progress_view
from shu.kb import KnowledgeBase
from shu.serve.callers import Caller, key_of
from shu.serve.limits import Wider
from shu.types import ApiKey, Job

MAX_FILES = 100
FRAMING_BYTES = 64 * 1024
"""What multipart adds around the files (boundaries, part headers), allowed on top of the files."""
_UPLOAD_PATH = re.compile(r"^/v1/personas/[^/]+/documents/?$")


def is_upload(scope: Scope) -> bool:
    return scope.get("method") == "POST" and bool(_UPLOAD_PATH.match(scope.get("path", "")))


def upload_limit(kb: KnowledgeBase, max_upload_bytes: int, keys_required: Callable[[], bool]) -> Wider:
    """For `BodyLimit`: the larger limit of an upload whose key or session is good and may write
    the persona (checked in a thread: the store may block), None for every other request. An
    upload without them gets its 401 or 403 for a body past the small limit, unread — a junk
    cookie or a forged key lifts nothing."""
    threads = anyio.CapacityLimiter(4)

    def allowed(scope: Scope) -> int | Response:
        if not keys_required():
            return max_upload_bytes + FRAMING_BYTES
        slug = unquote(scope.get("path", "").split("/")[3])
        try:
            authorize_write(key_of(kb, "POST", Headers(scope=scope)), slug)
        except UnauthorizedError as exc:
            return JSONResponse(
                {"detail": str(exc)}, 401, headers={"WWW-Authenticate": "Bearer", "Connection": "close"}
            )
        except (ForbiddenError, NotFoundError) as exc:
            return JSONResponse({"detail": str(exc)}, 403, headers={"Connection": "close"})
        return max_upload_bytes + FRAMING_BYTES

    async def wider(scope: Scope) -> int | Response | None:
        if not is_upload(scope):
            return None
        return await anyio.to_thread.run_sync(allowed, scope, limiter=threads)

    return wider


def own_upload_job(key: ApiKey | None, job: Job) -> bool:
    """Whether a key that is not an admin's may follow a job: an ingest it started over a
    persona it may change."""
    return (
        key is not None
        and job.user == key.user
        and job.kind == "ingest"
        and key.may_write(Path(job.path).name)
    )


def upload_job_view(job: Job, key: ApiKey | None) -> dict[str, Any]:
    """A job as the one who uploaded sees it: its progress, and each file of its persona folder
    that was indexed or not, with its one-line reason — files named inside the knowledge base,
    never by a server path, and another persona's file never named (`key` reads which)."""
    view = progress_view(job)
    view.pop("report", None)
    reads = key.reaches if key is not None and not key.admin else None
    return view | {"path": Path(job.path).name, "files": job_files(job, reads)}


def admin_job_view(job: Job, files: bool = False) -> dict[str, Any]:
    """A job as an admin sees it: its progress and its report, every server path in them named
    inside the knowledge base (the job's folder onward); with `files`, each file's outcome."""
    view = progress_view(job)
    root = Path(job.path).parent
    view["path"] = Path(job.path).name
    view["report"] = _inside(job.report, root)
    view["error"] = _inside(job.error, root)
    return view | ({"files": job_files(job, lambda _: True)} if files else {})


def _inside(value: Any, root: Path) -> Any:
    """`value` (a report: text, lists, mappings) with each absolute path named inside `root`."""
    if isinstance(value, str):
        return _told(value, root, lambda _: True)
    if isinstance(value, list):
        return [_inside(v, root) for v in value]
    if isinstance(value, dict):
        return {k: _inside(v, root) for k, v in value.items()}
    return value


def job_files(job: Job, reads: Callable[[str], bool] | None = None) -> list[dict[str, Any]]:
    """The files a job indexed, skipped or failed on, each named inside its persona folder,
    with its one-line reason; with `reads` (which personas the caller may read), only files of
    the job's folder, and the paths in the reasons shown inside the knowledge base."""
    report = job.report or {}
    folder = Path(job.path)
    shown = []
    for outcome in report.get("outcomes", []):
        path, message = outcome.get("path", ""), outcome.get("message", "")
        if outcome.get("status") not in ("failed", "skipped", "ingested"):
            continue
        if reads is not None:
            if not Path(path).is_relative_to(folder):
                continue
            message = _told(message, folder.parent, reads)
        shown.append(
            {"file": _shown(path, job.path), "status": outcome.get("status"), "message": message}
            | {"doc_id": outcome.get("doc_id")}
        )
    return shown


_ABSOLUTE = re.compile(r"(?<![\w.~-])/[^\s'\"(),;]+")


def _told(message: str, root: Path, reads: Callable[[str], bool]) -> str:
    """`message` with each server path in it named inside the knowledge base `root` (persona
    folder first), or as another persona's file, or as outside the knowledge base."""

    def inside(match: re.Match[str]) -> str:
        path = Path(match.group(0))
        if not path.is_relative_to(root):
            return "(a path outside the knowledge base)"
        relative = path.relative_to(root)
        if not relative.parts or not reads(relative.parts[0]):
            return "(a file of another persona)"
        return relative.as_posix()

    return _ABSOLUTE.sub(inside, message)


def _writer(slug: str, key: Caller) -> ApiKey | None:
    """The caller, once allowed to change persona `slug` (before any file is looked at)."""
    authorize_write(key, slug)
    return key


Writer = Annotated[ApiKey | None, Depends(_writer)]


def add_document_routes(app: FastAPI, kb: KnowledgeBase) -> None:
    settings = kb.settings

    @app.post("/v1/personas/{slug}/documents", status_code=202, response_model=None)
    def upload(
        slug: str,
        key: Writer,
        files: Annotated[list[UploadFile], File(description="one or more files in a format Shu reads")],
    ) -> dict[str, Any] | JSONResponse:
        """Upload files to the persona (write right): each checked (name, format, size, first
        bytes) before anything is written, stored in its folder's `RAW-DOCS/` (a taken name gets
        `-2`, `-3`…), then converted and indexed by an ingest job (follow `GET /v1/jobs/{id}`).
        A refused file has its reason in `refused`; all refused is a 413 (one too large) or 415."""
        kb.persona(slug)
        folder = kb.persona_folder(slug)
        if len(files) > MAX_FILES:
            return JSONResponse({"detail": f"{len(files)} files: at most {MAX_FILES} at once"}, 400)
        per_file = min(settings.server.max_upload_bytes, int(settings.ingest.max_file_mb * 1_000_000))
        accepted: list[tuple[UploadFile, str]] = []
        refused: list[dict[str, str]] = []
        too_large = False
        for upload in files:
            sent = upload.filename or ""
            try:
                name = safe_name(sent)
                head = upload.file.read(8192)
                upload.file.seek(0, 2)
                size = upload.file.tell()
                upload.file.seek(0)
                check_content(name, head, size, per_file)
            except UploadRefused as exc:
                too_large = too_large or isinstance(exc, TooLarge)
                refused.append({"name": sent[:300], "reason": str(exc)})
                continue
            accepted.append((upload, name))
        if not accepted:
            reasons = "; ".join(f"{r['name'] or '(no name)'}: {r['reason']}" for r in refused[:5])
            status = 413 if too_large else 415
            return JSONResponse({"detail": reasons or "no file", "refused": refused}, status)
        stored = []
        for upload, name in accepted:
            target = store_file(folder / "RAW-DOCS", name, upload.file)
            stored.append({"name": (upload.filename or "")[:300], "stored_as": target.name})
        job = kb.jobs.submit("ingest", str(folder), False, key.user if key else "")
        return {"job": upload_job_view(job, key), "stored": stored, "refused": refused}

    @app.delete("/v1/documents/{doc_id}")
    def delete_document(
        doc_id: str, key: Caller, persona: Annotated[str, Query(min_length=1, max_length=200)]
    ) -> dict[str, Any]:
        """Delete a document of the persona's folder (write right): its RAG file, its raw file
        (kept when other documents came from it too: a mailbox) and what is indexed of it."""
        authorize_write(key, persona)
        files = kb.delete_document(doc_id, persona)
        return {
            "deleted": doc_id,
            "rag_file": files.rag.name,
            "raw_file": files.raw.name if files.raw and not files.shared_with else None,
            "raw_kept_for": files.shared_with,
        }

    @app.post("/v1/documents/{doc_id}/reingest", status_code=202)
    def reingest_document(
        doc_id: str, key: Caller, persona: Annotated[str, Query(min_length=1, max_length=200)]
    ) -> dict[str, Any]:
        """Index a document again from its file (write right): a background ingest job."""
        authorize_write(key, persona)
        job = kb.reingest_document(doc_id, persona, key.user if key else "")
        return {"job": upload_job_view(job, key)}

    @app.get("/v1/documents/{doc_id}/original", response_class=FileResponse)
    def original(
        doc_id: str, key: Caller, persona: Annotated[str, Query(min_length=1, max_length=200)]
    ) -> FileResponse:
        """Download the file the document was made from (read right), or its RAG Markdown when
        it was written as Markdown; always as an attachment."""
        authorize(key, persona)
        files = kb.document_files(doc_id, persona)
        path = files.raw or files.rag
        media = "text/markdown; charset=utf-8" if path == files.rag else "application/octet-stream"
        return FileResponse(path, media_type=media, filename=path.name, content_disposition_type="attachment")


def _shown(path: str, folder: str) -> str:
    try:
        return Path(path).relative_to(folder).as_posix()
    except ValueError:
        return Path(path).name
