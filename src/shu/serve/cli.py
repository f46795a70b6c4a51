"""`shu`: ingest persona folders, search and ask with citations, offline."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from shu import __version__
from shu.answer.render import render_answer, source_line
from shu.config.presets import preset_names, read_preset
from shu.errors import ConflictError, NotFoundError, ShuError
from shu.ingest.report import IngestReport
from shu.serve.answer_view import show_streamed
from shu.serve.chat_cli import chat, conversations_app
from shu.serve.console import emit_json as _emit_json
from shu.serve.console import err, out, show_whole, state
from shu.serve.console import fail as _fail
from shu.serve.console import open_from_state as _kb
from shu.serve.console import progress as _progress
from shu.serve.console import row as _row
from shu.serve.filter_options import DocIds, People, Since, Sources, Tags, Types, Until, document_filter
from shu.serve.keys import keys_app
from shu.serve.models_cli import models_app
from shu.serve.personas_cli import personas_app
from shu.serve.plugins import mount_command_plugins
from shu.serve.trace import trace_tree
from shu.serve.users_cli import users_app
from shu.serve.watch_cli import start_watching, watch, watched_folders
from shu.types import http_url

if TYPE_CHECKING:
    from shu.ingest.job import Redo
    from shu.types import Document

app = typer.Typer(
    help="Shu: cited answers from your own documents, offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _show_version(shown: bool) -> None:
    if shown:
        sys.stdout.write(f"shu {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _global(
    home: Annotated[
        Path | None, typer.Option("--home", envvar="SHU_HOME", help="Store folder (default .shu/).")
    ] = None,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Override a setting: dotted.key=value (repeatable).")
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option("--preset", help="A named preset under the settings (`shu presets` lists them)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", help="Debug logs on stderr: the traces behind one-line reasons.")
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_show_version, help="Print the version and exit."),
    ] = False,
) -> None:
    state.home = home
    state.overrides = [*([f"preset={preset}"] if preset else []), *(set_ or [])]
    state.as_json = as_json
    if verbose:
        _log_debug()


def _log_requests() -> None:
    """`shu serve`'s access log on stderr: a line a request (`shu.serve.access_log`)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    access = logging.getLogger("shu.access")
    access.addHandler(handler)
    access.setLevel(logging.INFO)
    access.propagate = False


def _log_debug() -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("shu")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)


@app.command()
def ingest(
    path: Annotated[Path, typer.Argument(help="A persona folder, or a folder of persona folders.")],
    prune: Annotated[bool, typer.Option("--prune", help="Remove documents whose files are gone.")] = False,
) -> None:
    """Convert RAW-DOCS to RAG Markdown and index RAG documents (incremental)."""
    with _kb() as kb, _progress() as advance:
        report = kb.ingest(path, prune=prune, progress=advance)
    _finish(report)


@app.command()
def enrich(
    path: Annotated[Path, typer.Argument(help="A persona folder, or a folder of persona folders.")],
    force: Annotated[bool, typer.Option("--force", help="Enrich every document again.")] = False,
    only_missing: Annotated[
        bool,
        typer.Option("--only-missing", help="Only documents whose LLM artifacts fell back or are missing."),
    ] = False,
) -> None:
    """Run ingestion-time intelligence (profiles, questions, chunk profiles, context) again.
    Each document is committed on its own: an interrupted run resumes where it stopped."""
    redo: Redo = "all" if force else "fallbacks" if only_missing else "changed"
    with _kb() as kb, _progress() as advance:
        report = kb.ingest(path, progress=advance, redo=redo)
    _finish(report)


@app.command()
def reindex(
    path: Annotated[Path, typer.Argument(help="A persona folder, or a folder of persona folders.")],
    context: Annotated[
        bool, typer.Option("--context/--no-context", help="Index chunks with context prefixes.")
    ] = True,
    force: Annotated[
        bool, typer.Option("--force", help="Redo every document, also those already indexed so.")
    ] = False,
    embedder: Annotated[
        bool,
        typer.Option(
            "--embedder",
            help="Switch to the configured embedder (embedder.model): every document is embedded "
            "again, the store keeps the new one.",
        ),
    ] = False,
) -> None:
    """Index every document with context prefixes switched on (or off), a choice later runs
    keep. Only documents not yet indexed that way are done again: a stopped reindex resumes
    where it stopped; --force redoes every one. With --embedder, a store filled by another
    embedder is emptied first (the files stay) and ingested again with the configured one; a
    stopped switch resumes with the same command."""
    with _kb() as kb, _progress() as advance:
        forgot = kb.switch_embedder(progress=advance) if embedder else 0
        report = kb.ingest(path, progress=advance, redo="all" if force else "changed", context=context)
        if forgot:
            report.notes.insert(
                0, f"embedder switched to {kb.embedder_name}: {forgot} documents embedded again"
            )
    _finish(report)


def _finish(report: IngestReport) -> None:
    if state.as_json:
        _emit_json(report.model_dump())
    else:
        _print_report(report)
    if report.failed:
        raise typer.Exit(1)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    persona: Annotated[str, typer.Option("--persona", "-p", help="Persona slug.")],
    limit: Annotated[
        int | None, typer.Option("--limit", "-k", min=1, max=200, help="Chunks to return.")
    ] = None,
    trace: Annotated[
        bool, typer.Option("--trace", help="Show the plan, every surface, fusion, expansion and context.")
    ] = False,
    as_user: Annotated[
        str | None, typer.Option("--as", help="Rank for this user (their profile: `shu users`).")
    ] = None,
    since: Since = None,
    until: Until = None,
    types: Types = None,
    tags: Tags = None,
    people: People = None,
    sources: Sources = None,
    doc_ids: DocIds = None,
) -> None:
    """Search one persona through the query pipeline (plan, surfaces, fusion, expansion); with
    --as, ranked for that user (each boost and its reason in --trace); with filters, among the
    documents they keep (--since 2026-01-01 --type email --tag billing)."""
    where = document_filter(since, until, types, tags, people, sources, doc_ids)
    with _kb() as kb:
        result = kb.retrieve(query, persona=persona, limit=limit, user=as_user, where=where)
    hits = result.hits
    if state.as_json:
        if trace:
            _emit_json(result.model_dump())
        else:
            _emit_json([hit.model_dump() | {"citation": hit.citation_key} for hit in hits])
        return
    if trace:
        show_whole(trace_tree(result))
        return
    if not hits:
        out.print("No matching chunks.")
        return
    table = Table(show_lines=False)
    for column in ("#", "score", "doc id", "section", "text"):
        table.add_column(column, overflow="fold")
    for rank, hit in enumerate(hits, start=1):
        snippet = " ".join(hit.chunk.text.split())[:160]
        _row(table, str(rank), f"{hit.score:.4f}", hit.chunk.doc_id, hit.chunk.section_path, snippet)
    out.print(table)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    persona: Annotated[str, typer.Option("--persona", "-p", help="Persona slug.")],
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Answer afresh, even if this question was answered before.")
    ] = False,
    agent: Annotated[
        bool | None,
        typer.Option(
            "--agent/--no-agent",
            help="Send the question to the agent (tools over every surface, within budgets), or never; "
            'by default agent.mode decides (multi-step questions, low confidence, "dig deeper").',
        ),
    ] = None,
    as_user: Annotated[
        str | None, typer.Option("--as", help="Rank for this user (their profile: `shu users`).")
    ] = None,
    conversation: Annotated[
        str | None,
        typer.Option("--conversation", "-c", help="A turn of this conversation (`shu conversations list`)."),
    ] = None,
    since: Since = None,
    until: Until = None,
    types: Types = None,
    tags: Tags = None,
    people: People = None,
    sources: Sources = None,
    doc_ids: DocIds = None,
) -> None:
    """Answer from the persona's documents, every claim cited. With an LLM configured
    (llm.provider) the answer is written by the model and streamed, each citation checked against
    the context; without one, the sentences that answer it are quoted. A question the documents do
    not answer is declined, saying what is missing; one outside the persona's expertise is deferred
    (answer.out_of_scope=general lets the LLM answer it, labelled). Each claim is then checked
    against what it cites; unsupported ones are marked (verify.on_unsupported=remove drops them).
    answer.method picks the answerer: auto, extractive, llm, or your own as package.module:Class.
    A weak answer is corrected by searching again for what is missing (verify.max_rounds); every
    answer says how confident it is. Filters keep the answer to the documents they keep."""
    where = document_filter(since, until, types, tags, people, sources, doc_ids)
    with _kb() as kb:
        style = kb.settings.answer.citation_style
        if state.as_json:
            answer = kb.ask(
                question, persona, not no_cache, agent, as_user, conversation=conversation, where=where
            )
            _emit_json(
                answer.model_dump(exclude={"hits", "retrieval"})
                | {"sources": [source_line(c) for c in answer.citations]}
                | {"markdown": render_answer(answer, style)}
            )
            return
        show_streamed(
            kb.ask_stream(
                question, persona, not no_cache, agent, as_user, conversation=conversation, where=where
            ),
            out,
            style,
        )


_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@app.command()
def serve(
    host: Annotated[
        str, typer.Option(help="Address to bind (another than loopback only once keys exist).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port.")] = 8000,
    watch_: Annotated[
        bool,
        typer.Option("--watch", help="Keep the knowledge base in step with its folders, as `shu watch`."),
    ] = False,
    watch_folders: Annotated[
        list[Path] | None,
        typer.Option("--watch-folder", help="A folder to watch (repeatable; implies --watch)."),
    ] = None,
) -> None:
    """Serve the web page (/), the HTTP API (OpenAPI at /docs) and MCP (/mcp) over this knowledge
    base, same settings and home as every other command. Jobs a stopped server left resume. With
    --watch, files that appear, change or go in the watched folders are ingested as `shu watch`
    does, in this process (default folders: those the knowledge base was ingested from)."""
    import uvicorn

    from shu.serve.connection import bind_sockets, cannot_bind, uvicorn_config
    from shu.serve.http import create_app

    with _kb() as kb:
        keyed = kb.accounts.auth_required()
        if host not in _LOOPBACK and not keyed:
            _fail(
                f"refusing to bind {host}: without API keys Shu serves loopback (127.0.0.1) only; "
                "make one with `shu keys create --user NAME`"
            )
        try:  # bound before the banner: a busy port is one line, not a banner and a traceback
            sockets = bind_sockets(host, port)
        except OSError as exc:
            _fail(cannot_bind(host, port, exc), code=1)
        access = "keys required" if keyed else "loopback only, no keys (`shu keys create` adds them)"
        where = f"http://{host}:{port}"
        err.print(f"Shu on {where} — web page /, API docs /docs, MCP /mcp; {access}", highlight=False)
        names = ", ".join(kb.settings.server.allowed_hosts) or "none (`--set server.allowed_hosts=NAME`)"
        if host not in _LOOPBACK:
            err.print(f"Answers Host names: loopback, the address reached, and {names}", highlight=False)
        config = uvicorn_config(create_app(kb, host), host, port, kb.settings.server.read_timeout_s)
        _log_requests()
        watcher = None
        if watch_ or watch_folders:
            folders = watched_folders(kb, watch_folders)
            watcher = start_watching(kb, folders, err)
            err.print(f"Watching {escape(', '.join(str(f) for f in folders))}", highlight=False)
        try:
            uvicorn.Server(config).run(sockets=sockets)
        finally:
            if watcher is not None:
                watcher.stop()
                err.print(f"Stopped watching after {watcher.run_count} runs", highlight=False)


@app.command()
def mcp() -> None:
    """Serve the MCP tools over stdio, for an AI client (configure it to run `shu --home <home>
    mcp`): list_personas, search, ask, read_document, and contextual retrieval's
    generate_context_for_chunk, reindex_with_context, get_reindexing_progress,
    get_contextual_retrieval_stats."""
    from shu.serve.mcp import create_mcp

    with _kb() as kb:
        create_mcp(kb).run("stdio")


@app.command()
def presets() -> None:
    """List the named presets `--preset` lays under the settings (a setting you give wins)."""
    try:
        found = [read_preset(name) for name in preset_names()]
    except ShuError as exc:
        _fail(str(exc))
    if state.as_json:
        _emit_json([p.model_dump() for p in found])
        return
    table = Table("preset", "what", "settings")
    for p in found:
        _row(table, p.name, p.description, json.dumps(p.settings))
    out.print(table)


@app.command()
def docs(
    persona: Annotated[str | None, typer.Option("--persona", "-p", help="Persona slug.")] = None,
) -> None:
    """List documents (of one persona, or all)."""
    with _kb() as kb:
        found = kb.documents(persona)
    shown = [_listed(d, persona) for d in found]
    if state.as_json:
        _emit_json(shown)
        return
    table = Table("id", "title", "date", "type", "personas")
    for d in shown:
        _row(table, d["id"], d["title"], d["date"] or "", d["type"] or "", ", ".join(d["personas"]))
    out.print(table)


def _listed(doc: Document, persona: str | None) -> dict[str, Any]:
    """What a listing shows of a document: its file by name (not where the disk keeps it) and,
    for one persona's listing, no other persona's name."""
    return {
        "id": doc.id,
        "title": doc.title,
        "date": doc.date,
        "type": doc.type,
        "tags": doc.tags,
        "summary": doc.summary,
        "source_url": http_url(doc.source_url),
        "license": doc.license,
        "file": Path(doc.path).name,
        "personas": [persona] if persona else doc.personas,
    }


@app.command()
def stats() -> None:
    """Counts and size of the store."""
    with _kb() as kb:
        found = kb.stats()
    if state.as_json:
        _emit_json(found.model_dump())
        return
    data = found.model_dump(exclude={"enrichment", "llm", "answer_cache", "findings"})
    enrichment, llm, answers, findings = found.enrichment, found.llm, found.answer_cache, found.findings
    table = Table("what", "value")
    for key, value in data.items():
        _row(table, key, str(value))
    if answers is not None:
        _row(
            table,
            "answer cache",
            f"{answers['entries']} answers, {answers['hits']} hits, {answers['misses']} misses",
        )
    out.print(table)
    methods = Table("artifact", "made by", "count")
    for artifact, counts in enrichment.items():
        for method, count in counts.items():
            _row(methods, artifact, method, str(count))
    out.print(methods)
    out.print(
        f"agent findings: {findings['active']} active ({findings['relationships']} relationships, "
        f"{findings['stale_manifests']} stale manifests, {findings['document_types']} document types, "
        f"{findings['participants']} people, {findings['projects']} projects), "
        f"{findings['undone']} undone",
        highlight=False,
    )
    if llm["runs"]:
        out.print(f"LLM use over {llm['runs']} runs: {escape(json.dumps(llm))}", highlight=False)


findings_app = typer.Typer(
    help="What the agent found and wrote back (relationships, stale manifests, document types, "
    "people and projects).",
    invoke_without_command=True,
)
app.add_typer(findings_app, name="findings")


@findings_app.callback()
def findings(
    ctx: typer.Context,
    persona: Annotated[str | None, typer.Option("--persona", "-p", help="Persona slug.")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Undone findings too.")] = False,
) -> None:
    """List the agent's active findings, newest first (of one persona, or all); `shu findings
    undo ID` takes one back."""
    if ctx.invoked_subcommand is not None:
        return
    with _kb() as kb:
        found = kb.findings(persona, include_undone=all_)
    if state.as_json:
        _emit_json([f.model_dump() for f in found])
        return
    if not found:
        out.print("No agent findings.")
        return
    table = Table()
    for column in ("id", "kind", "document", "target/value", "evidence", "method", "question", "created"):
        table.add_column(column, overflow="fold")
    for f in found:
        shown = f.value or ""
        if f.kind == "relationship":
            shown = f"→ {f.target} ({f.value or ''})"
        elif f.kind == "participant":
            shown = f"{f.value} ({f.target})"
        kind = f"{f.kind} (undone)" if f.undone else f.kind
        _row(table, str(f.id), kind, f.doc_id, shown, _cut(f.evidence), f.method, _cut(f.question), f.created)
    out.print(table)


@findings_app.command("undo")
def findings_undo(
    finding_id: Annotated[int, typer.Argument(help="The finding's id (`shu findings` lists them).")],
) -> None:
    """Take a finding back: its effects stop; it is kept, marked undone (`shu findings --all`)."""
    with _kb() as kb:
        try:
            undone = kb.undo_finding(finding_id)
        except (NotFoundError, ConflictError) as exc:
            _fail(str(exc), code=1)
    if state.as_json:
        _emit_json(undone.model_dump())
        return
    out.print(f"undone: finding {finding_id} ({undone.kind} of {escape(undone.doc_id)})", highlight=False)


def _cut(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@app.command()
def migrate(
    source: Annotated[str, typer.Option("--from", help="sqlite:///path/to/shu.db or postgresql://…")],
    target: Annotated[str, typer.Option("--to", help="postgresql://user@host:port/db or sqlite:///…")],
    force: Annotated[
        bool, typer.Option("--force", help="Copy every document again, even those already there.")
    ] = False,
) -> None:
    """Copy a knowledge base between stores with its embeddings and enrichment (resumable)."""
    from shu.config.settings import load_settings
    from shu.kb import migrate as copy_store

    try:
        with _progress() as advance:
            report = copy_store(source, target, load_settings(state.home, state.overrides), advance, force)
    except ShuError as exc:
        _fail(str(exc))
    if state.as_json:
        _emit_json(report.__dict__)
        return
    out.print(
        f"{report.personas} personas; {report.copied} documents copied ({report.chunks} chunks), "
        f"{report.unchanged} already there; {report.findings} agent findings; "
        f"{report.users} user records (profiles, keys, signals); {report.seconds:.1f} s",
        highlight=False,
    )
    if report.only_in_target:
        out.print(f"{len(report.only_in_target)} documents exist only in the target (left as they are)")
    for doc_id, why in report.failed.items():
        err.print(f"[bold red]not copied:[/] {escape(doc_id)}: {escape(why)}")
    if report.failed:
        raise typer.Exit(1)


def _print_report(report: IngestReport) -> None:
    styles = {
        "failed": "red",
        "skipped": "yellow",
        "pruned": "magenta",
        "converted": "cyan",
        "ingested": "green",
    }
    for outcome in report.outcomes:
        if outcome.status in styles and (outcome.status != "ingested" or outcome.warnings):
            out.print(f"[{styles[outcome.status]}]{escape(outcome.line())}[/]", highlight=False)
        for warning in outcome.warnings:
            out.print(f"  [yellow]warning:[/] {escape(warning)}", highlight=False)
    rate = (
        f", {report.chunks_written / report.seconds:.0f} chunks/s"
        if report.chunks_written and report.seconds
        else ""
    )
    if report.llm:
        out.print(f"LLM: {escape(json.dumps(report.llm))}", highlight=False)
    for note in report.notes:
        out.print(f"[cyan]note:[/] {escape(note)}", highlight=False)
    kept = f" ({report.vectors_kept} unchanged texts kept their vectors)" if report.vectors_kept else ""
    out.print(
        f"[bold]{escape(report.summary())}[/] — personas: {', '.join(report.personas) or 'none'}; "
        f"{report.chunks_written} chunks written in {report.seconds:.1f}s{rate}{kept}",
        highlight=False,
    )


app.add_typer(keys_app, name="keys")
app.add_typer(models_app, name="models")
app.add_typer(personas_app, name="personas")
app.add_typer(users_app, name="users")
app.add_typer(conversations_app, name="conversations")
app.command()(chat)
app.command()(watch)
mount_command_plugins(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
