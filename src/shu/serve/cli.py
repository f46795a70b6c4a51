"""`shu`: ingest persona folders, search and ask with citations, offline."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from shu.answer.render import render_answer, source_line
from shu.errors import ShuError, UnknownPersonaError
from shu.ingest.report import IngestReport
from shu.kb import KnowledgeBase, open_kb
from shu.serve.answer_view import show_streamed
from shu.serve.terminal import SafeConsole
from shu.serve.trace import trace_tree
from shu.types import http_url

if TYPE_CHECKING:
    from shu.eval.configs import EvalConfig
    from shu.eval.dataset import Dataset
    from shu.eval.runner import ConfigResult
    from shu.types import Document

app = typer.Typer(
    help="Shu: cited answers from your own documents, offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = SafeConsole(soft_wrap=True)
err = SafeConsole(stderr=True, soft_wrap=True)


class _State:
    def __init__(self) -> None:
        self.home: Path | None = None
        self.overrides: list[str] = []
        self.as_json = False


state = _State()
_RAW_UNSAFE = re.compile(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@app.callback()
def _global(
    home: Annotated[
        Path | None, typer.Option("--home", envvar="SHU_HOME", help="Store folder (default .shu/).")
    ] = None,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Override a setting: dotted.key=value (repeatable).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")] = False,
) -> None:
    state.home = home
    state.overrides = set_ or []
    state.as_json = as_json


@contextmanager
def _kb() -> Iterator[KnowledgeBase]:
    try:
        kb = open_kb(state.home, state.overrides)
    except ShuError as exc:
        _fail(str(exc))
    try:
        yield kb
    except ShuError as exc:
        _fail(str(exc))
    finally:
        kb.close()


def _row(table: Table, *cells: str) -> None:
    """Document text is data: square brackets in it are not rich markup."""
    table.add_row(*(escape(cell) for cell in cells))


def _fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


def _emit_json(data: Any) -> None:
    """JSON escapes C0 controls itself; C1 controls and bidirectional overrides are escaped too,
    so that piping `--json` output to a terminal is as safe as the plain output."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write(_RAW_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


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
    redo = "all" if force else "fallbacks" if only_missing else "changed"
    with _kb() as kb, _progress() as advance:
        report = kb.ingest(path, progress=advance, redo=redo)  # type: ignore[arg-type]
    _finish(report)


@app.command()
def reindex(
    path: Annotated[Path, typer.Argument(help="A persona folder, or a folder of persona folders.")],
    context: Annotated[
        bool, typer.Option("--context/--no-context", help="Index chunks with context prefixes.")
    ] = True,
) -> None:
    """Re-index every document with context prefixes switched on (or off)."""
    state.overrides.append(f"enrich.context={'true' if context else 'false'}")
    with _kb() as kb, _progress() as advance:
        report = kb.ingest(path, progress=advance, redo="all")
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
) -> None:
    """Search one persona through the query pipeline (plan, surfaces, fusion, expansion)."""
    with _kb() as kb:
        result = kb.retrieve(query, persona=persona, limit=limit)
    hits = result.hits
    if state.as_json:
        if trace:
            _emit_json(result.model_dump())
        else:
            _emit_json([hit.model_dump() | {"citation": hit.citation_key} for hit in hits])
        return
    if trace:
        out.print(trace_tree(result))
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
) -> None:
    """Answer from the persona's documents, every claim cited. With an LLM configured
    (llm.provider) the answer is written by the model and streamed, each citation checked against
    the context; without one, the sentences that answer it are quoted. A question the documents do
    not answer is declined, saying what is missing; one outside the persona's expertise is deferred
    (answer.out_of_scope=general lets the LLM answer it, labelled). Each claim is then checked
    against what it cites; unsupported ones are marked (verify.on_unsupported=remove drops them).
    answer.method picks the answerer: auto, extractive, llm, or your own as package.module:Class.
    A weak answer is corrected by searching again for what is missing (verify.max_rounds); every
    answer says how confident it is."""
    with _kb() as kb:
        style = kb.settings.answer.citation_style
        if state.as_json:
            answer = kb.ask(question, persona=persona, use_cache=not no_cache, agent=agent)
            _emit_json(
                answer.model_dump(exclude={"hits"})
                | {"sources": [source_line(c) for c in answer.citations]}
                | {"markdown": render_answer(answer, style)}
            )
            return
        show_streamed(
            kb.ask_stream(question, persona=persona, use_cache=not no_cache, agent=agent), out, style
        )


@app.command()
def personas() -> None:
    """List the personas in the store."""
    with _kb() as kb:
        found = kb.personas()
        counts = {p.slug: len(kb.documents(p.slug)) for p in found}
    if state.as_json:
        _emit_json([p.model_dump() | {"documents": counts[p.slug]} for p in found])
        return
    table = Table("slug", "name", "documents", "tags")
    for p in found:
        _row(table, p.slug, p.display_name, str(counts[p.slug]), ", ".join(p.config.tags))
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
        f"{findings['stale_manifests']} stale manifests, {findings['document_types']} document types), "
        f"{findings['undone']} undone",
        highlight=False,
    )
    if llm["runs"]:
        out.print(f"LLM use over {llm['runs']} runs: {escape(json.dumps(llm))}", highlight=False)


findings_app = typer.Typer(
    help="What the agent found and wrote back (relationships, stale manifests, document types).",
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
        if persona is not None and kb.store.get_persona(persona) is None:
            raise UnknownPersonaError(persona, [p.slug for p in kb.store.list_personas()])
        found = kb.store.list_findings(persona, include_undone=all_)
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
        shown = f"→ {f.target} ({f.value or ''})" if f.kind == "relationship" else f.value or ""
        kind = f"{f.kind} (undone)" if f.undone else f.kind
        _row(table, str(f.id), kind, f.doc_id, shown, _cut(f.evidence), f.method, _cut(f.question), f.created)
    out.print(table)


@findings_app.command("undo")
def findings_undo(
    finding_id: Annotated[int, typer.Argument(help="The finding's id (`shu findings` lists them).")],
) -> None:
    """Take a finding back: its effects stop; it is kept, marked undone (`shu findings --all`)."""
    with _kb() as kb:
        known = {f.id: f for f in kb.store.list_findings(include_undone=True)}
        if finding_id not in known:
            _fail(f"unknown finding {finding_id} (`shu findings --all` lists them)", code=1)
        if not kb.store.undo_finding(finding_id):
            _fail(f"finding {finding_id} is already undone", code=1)
    undone = known[finding_id]
    if state.as_json:
        _emit_json(undone.model_copy(update={"undone": True}).model_dump())
        return
    out.print(f"undone: finding {finding_id} ({undone.kind} of {escape(undone.doc_id)})", highlight=False)


def _cut(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@app.command(name="eval")
def eval_(
    dataset: Annotated[
        Path | None, typer.Argument(help="A BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/).")
    ] = None,
    configs: Annotated[
        str, typer.Option(help="Comma-separated presets; 'default' is always run.")
    ] = "bm25,dense,hybrid",
    suite: Annotated[
        str | None,
        typer.Option(help="'all' (every dataset found) or dataset names: one table across datasets."),
    ] = None,
    data: Annotated[
        list[Path] | None,
        typer.Option(help="Folder of dataset folders for --suite (repeatable; default ../shared/data)."),
    ] = None,
    split: Annotated[str, typer.Option(help="qrels split to evaluate.")] = "test",
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N queries (a quick run).")] = None,
    output: Annotated[
        Path | None, typer.Option(help="Folder for results.json, results.md, results.png.")
    ] = None,
    per_query: Annotated[bool, typer.Option("--per-query", help="Also write per_query.jsonl.")] = False,
    answers: Annotated[
        bool, typer.Option("--answers", help="Also ask every query with gold answers: answer quality.")
    ] = False,
    answer_configs: Annotated[
        str | None,
        typer.Option(
            help="With --answers: comma-separated answer presets side by side "
            "(configured, plain, +verify, +crag, +agent, agent-always)."
        ),
    ] = None,
    store_url: Annotated[
        str | None,
        typer.Option(
            help="Evaluate on this store (postgresql://…, an empty database): the cached corpus is copied in."
        ),
    ] = None,
) -> None:
    """Measure retrieval quality (nDCG, recall, MRR) and latency of several configurations."""
    from shu.eval.configs import resolve
    from shu.eval.dataset import load_dataset
    from shu.eval.report import markdown_table, write_outputs

    if (dataset is None) == (suite is None):
        _fail("give a dataset folder or --suite (not both)")
    presets = _answer_presets(answer_configs)
    answers = answers or presets is not None
    with _kb() as kb:
        chosen = resolve(configs)
        if store_url and len({c.enrich.model_dump_json() for c in chosen}) > 1:
            _fail("--store-url takes configs that index the corpus the same way (not +questions, +context …)")
        if suite is not None:
            _eval_suite(kb, suite, data, chosen, limit, output, store_url, answers, presets)
            return
        assert dataset is not None
        loaded = load_dataset(dataset, split)
        data_json, results = _eval_one(kb, loaded, chosen, limit, store_url, answers, presets)
        folder = output or kb.settings.home / "eval-cache" / f"{loaded.name}-results"
        write_outputs(data_json, results, loaded, folder, per_query)
    if state.as_json:
        _emit_json(data_json)
        return
    out.print(markdown_table(data_json), highlight=False, markup=False)
    if data_json.get("answers"):
        from shu.eval.answers import answers_markdown

        out.print(answers_markdown({loaded.name: data_json["answers"]}), highlight=False, markup=False)
    out.print(f"written to {folder}", highlight=False, markup=False)


def _eval_one(
    kb: KnowledgeBase,
    loaded: Dataset,
    chosen: list[EvalConfig],
    limit: int | None,
    store_url: str | None,
    answers: bool = False,
    presets: list[str] | None = None,
) -> tuple[dict[str, Any], list[ConfigResult]]:
    from shu.eval.build import copy_to, open_eval_store
    from shu.eval.report import results_json
    from shu.eval.runner import run_eval

    def build(enrich, advance):  # type: ignore[no-untyped-def]
        built = open_eval_store(loaded, kb.settings, kb.embedder, advance, enrich)
        return copy_to(built, store_url, kb.settings.store, advance) if store_url else built

    with _progress() as advance:
        results = run_eval(loaded, chosen, lambda enrich: build(enrich, advance), kb.embedder, limit, advance)
        data = results_json(loaded, len(results[0].per_query), results)
        if answers and loaded.answer_queries:
            data["answers"] = _answers(
                kb, loaded, lambda enrich: build(enrich, advance), limit, advance, presets
            )
    return data, results


def _answer_presets(names: str | None) -> list[str] | None:
    from shu.eval.configs import ANSWER_PRESETS

    if names is None:
        return None
    chosen = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in ANSWER_PRESETS]
    if unknown or not chosen:
        _fail(f"unknown answer config(s) {', '.join(unknown)} (known: {', '.join(ANSWER_PRESETS)})")
    return list(dict.fromkeys(chosen))


def _answers(
    kb: KnowledgeBase,
    loaded: Dataset,
    build: Any,
    limit: int | None,
    advance: Any,
    answer_configs: list[str] | None = None,
) -> dict[str, Any]:
    """The default pipeline and the configured answerer over the queries with gold answers; with
    `answer_configs`, each of those presets too (under `configs`)."""
    from shu.answer.factory import create_responder
    from shu.config.settings import EnrichSettings
    from shu.eval.answers import answers_json, run_answers
    from shu.eval.configs import answer_settings
    from shu.retrieve.pipeline import RetrievalPipeline

    built = build(EnrichSettings(enabled=False))
    client = kb.llm.client if kb.llm else None
    found: dict[str, Any] = {}
    try:
        pipeline = RetrievalPipeline(built.store, kb.embedder, kb.settings.retrieval)
        for name in answer_configs or ["configured"]:
            settings = answer_settings(kb.settings, name)
            responder = create_responder(settings, built.store, kb.embedder, pipeline, client)
            result = run_answers(loaded, built.store, responder, limit, advance)
            found[name] = answers_json(result, responder.name)
    finally:
        built.store.close()
    first = next(iter(found.values()))
    return first | {"configs": found} if answer_configs else first


def _eval_suite(
    kb: KnowledgeBase,
    suite: str,
    data: list[Path] | None,
    chosen: list[EvalConfig],
    limit: int | None,
    output: Path | None,
    store_url: str | None,
    answers: bool = False,
    presets: list[str] | None = None,
) -> None:
    from shu.eval.answers import answers_markdown
    from shu.eval.dataset import load_dataset
    from shu.eval.report import write_outputs
    from shu.eval.suite import discover, select, suite_json, suite_markdown, write_suite

    if store_url:
        _fail("--suite evaluates each dataset in its own cached SQLite store (no --store-url)")
    folders = data if data is not None else [p for p in [Path("../shared/data")] if p.is_dir()]
    cache = kb.settings.home / "eval-cache"
    datasets = select(discover(folders, cache / "converted"), suite)
    folder = output or cache / "suite-results"
    per_dataset = {}
    for found in datasets:
        loaded = load_dataset(found.path)
        if not state.as_json:
            err.print(f"{escape(found.name)}: {len(loaded.queries)} queries", highlight=False)
        per_dataset[found.name], results = _eval_one(kb, loaded, chosen, limit, None, answers, presets)
        write_outputs(per_dataset[found.name], results, loaded, folder / found.name, False)
    summary = suite_json(per_dataset)
    write_suite(summary, folder)
    if state.as_json:
        _emit_json(summary)
        return
    out.print(suite_markdown(summary), highlight=False, markup=False)
    if answers:
        found_answers = {name: data.get("answers") or {} for name, data in per_dataset.items()}
        out.print(answers_markdown(found_answers), highlight=False, markup=False)
        _print_answer_configs(found_answers)
        _print_calibration(found_answers)
        _print_confidence(found_answers, folder)
    out.print(f"written to {folder}", highlight=False, markup=False)


def _print_answer_configs(found_answers: dict[str, dict[str, Any]]) -> None:
    """One table per dataset: the answer presets side by side."""
    from shu.eval.answers import answers_markdown

    for name, data in found_answers.items():
        if data.get("configs"):
            out.print(f"\n{name}", highlight=False, markup=False)
            out.print(answers_markdown(data["configs"]), highlight=False, markup=False)


def _print_confidence(found_answers: dict[str, dict[str, Any]], folder: Path) -> None:
    """Answer confidence calibrated: fitted on the dev half of every dataset's answers, judged
    on the test half (ECE, Brier, reliability diagram), beside the shipped weights."""
    from shu.answer.confidence import WEIGHTS, confidence
    from shu.eval.confidence import (
        calibration_markdown,
        fit,
        reliability_png,
        split,
        summary,
        weights_markdown,
    )

    records, ids, names = [], [], []
    for name, data in found_answers.items():
        for qid, features, ok, _ in data.get("confidence") or []:
            records.append((features, bool(ok)))
            ids.append(f"{name}/{qid}")
            names.append(name)
    if not records:
        return
    dev, test = split(records, ids)
    fitted = fit(dev)
    rows, curves = {}, {}
    for label, weights in (("shipped weights", WEIGHTS), ("fitted on dev", fitted)):
        scores = [confidence(features, weights) for features, _ in test]
        correct = [ok for _, ok in test]
        rows[f"{label} (test)"] = summary(scores, correct)
        curves[label] = (scores, correct)
    png = reliability_png(curves, folder / "confidence.png")
    out.print(
        "\nAnswer confidence on held-out questions\n"
        + calibration_markdown(rows)
        + "\nFitted weights (dev half)\n"
        + weights_markdown(fitted)
        + f"\nreliability diagram: {png}",
        highlight=False,
        markup=False,
    )


def _print_calibration(found_answers: dict[str, dict[str, Any]]) -> None:
    """Where abstention (answer.min_evidence) should sit, from the evidence of every answer."""
    from shu.eval.calibrate import choose, sweep_markdown

    scored = {
        name: [(bool(ok), value) for ok, value in data["evidence"]]
        for name, data in found_answers.items()
        if data.get("evidence")
    }
    if not scored:
        return
    chosen = choose(scored)
    verdict = (
        f"answer.min_evidence calibrated: {chosen:.2f} (the largest threshold at which no dataset "
        "declines more than 5 % of its answerable questions)"
        if chosen is not None
        else "answer.min_evidence: every threshold declines more than 5 % of some dataset's "
        "answerable questions"
    )
    out.print(
        verdict + "\n" + sweep_markdown(scored, chosen),
        highlight=False,
        markup=False,
    )


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
    from shu.store.factory import open_store_url
    from shu.store.migrate import migrate as copy_store

    try:
        settings = load_settings(state.home, state.overrides).store
        origin = open_store_url(source, settings)
        destination = open_store_url(target, settings)
    except ShuError as exc:
        _fail(str(exc))
    try:
        with _progress() as advance:
            report = copy_store(origin, destination, advance, force)
    except ShuError as exc:
        _fail(str(exc))
    finally:
        origin.close()
        destination.close()
    if state.as_json:
        _emit_json(report.__dict__)
        return
    out.print(
        f"{report.personas} personas; {report.copied} documents copied ({report.chunks} chunks), "
        f"{report.unchanged} already there; {report.findings} agent findings; {report.seconds:.1f} s",
        highlight=False,
    )
    if report.only_in_target:
        out.print(f"{len(report.only_in_target)} documents exist only in the target (left as they are)")
    for doc_id, why in report.failed.items():
        err.print(f"[bold red]not copied:[/] {escape(doc_id)}: {escape(why)}")
    if report.failed:
        raise typer.Exit(1)


@app.command()
def faults(
    full: Annotated[
        bool, typer.Option("--full", help="The full suite (≥ 50 crash runs, ≥ 1,000 bad files).")
    ] = False,
    postgres: Annotated[
        str | None,
        typer.Option(help="postgresql://… (may CREATE DATABASE): crash and concurrency checks there too."),
    ] = None,
) -> None:
    """The fault suite: kill -9 and resume, a hostile corpus, concurrent runs, persona walls,
    injected instructions. Prints the table; exits 1 when anything crashed, hung, was lost or crossed."""
    from shu.eval.faults.run import FULL, SHORT, failures, markdown, timed

    scale = FULL if full else SHORT
    checks, seconds = timed(scale, postgres, lambda line: err.print(escape(line), highlight=False))
    out.print(markdown(checks, scale, seconds), highlight=False, markup=False)
    if failures(checks):
        raise typer.Exit(1)


@app.command(name="bench-stores")
def bench_stores(
    url: Annotated[
        str | None, typer.Option(help="postgresql://… (an empty database) to compare with SQLite.")
    ] = None,
    chunks: Annotated[int, typer.Option(min=1000, help="Chunks in the synthetic knowledge base.")] = 100_000,
    queries: Annotated[int, typer.Option(min=10, help="Queries per store.")] = 200,
) -> None:
    """SQLite beside PostgreSQL: load rate, index build, recall@10 vs exact, query latency."""
    from shu.eval.bench_stores import markdown, run

    try:
        results = run(url, chunks, queries)
    except ShuError as exc:
        _fail(str(exc))
    out.print(markdown(results, queries), highlight=False, markup=False)


@app.command(name="bench-peers")
def bench_peers(
    dataset: Annotated[Path, typer.Argument(help="A BEIR-format folder.")],
    split: Annotated[str, typer.Option(help="qrels split.")] = "test",
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N queries.")] = None,
) -> None:
    """Shu's search beside bm25s + Chroma on the same corpus, vectors and queries."""
    from shu.eval.build import open_eval_store
    from shu.eval.dataset import load_dataset
    from shu.eval.peers import markdown, run_peers

    with _kb() as kb:
        loaded = load_dataset(dataset, split)
        with _progress() as advance:
            built = open_eval_store(loaded, kb.settings, kb.embedder, advance)
        results = run_peers(loaded, built, kb.embedder, limit)
        built.store.close()
    queries = min(limit or len(loaded.queries), len(loaded.queries))
    out.print(markdown(results, loaded, queries), highlight=False, markup=False)


@app.command(name="eval-scope")
def eval_scope(
    examples: Annotated[Path, typer.Option(help="The persona folders the questions are about.")] = Path(
        "examples/personas"
    ),
    questions: Annotated[
        Path | None, typer.Option(help="JSONL of labelled questions (default: the shipped set).")
    ] = None,
    output: Annotated[Path | None, typer.Option(help="Folder for scope.jsonl and results.md.")] = None,
) -> None:
    """Answer, decline or defer? Labelled questions (answerable, unanswerable, out of scope) over
    the example knowledge base: confusion matrices, and the rules' thresholds calibrated on dev."""
    from shu.eval.scope import (
        ask_all,
        calibrate,
        confusion_markdown,
        labelled_questions,
        redecide,
        write_rows,
    )

    try:
        asked_questions = labelled_questions(questions)
    except (ValueError, OSError) as exc:
        _fail(f"{questions}: {exc}")
    kb, work = _example_kb(examples, "scope")
    with kb, _progress() as advance:
        asked = ask_all(kb, asked_questions, advance)
        rules = kb.llm is None
        min_evidence = kb.settings.answer.min_evidence
    answerer = asked[0].method if asked else "none"
    parts = [
        confusion_markdown(asked, f"all ({answerer})"),
        confusion_markdown([a for a in asked if a.split == "test"], "test split"),
    ]
    if rules:
        scope, fitted = calibrate(asked, min_evidence)
        test = redecide([a for a in asked if a.split == "test"], scope, min_evidence)
        parts.append(
            f"Calibrated on dev (macro accuracy {fitted:.3f}): answer.scope_threshold={scope:.2f} "
            f"(with answer.min_evidence={min_evidence:.2f}). With it, on test:\n\n"
            + confusion_markdown(test, "test, calibrated")
        )
    folder = output or work / "results"
    write_rows(asked, folder)
    (folder / "results.md").write_text("\n".join(parts), encoding="utf-8")
    out.print("\n".join(parts), highlight=False, markup=False)


def _example_kb(examples: Path, name: str) -> tuple[KnowledgeBase, Path]:
    """A fresh copy of the example personas, ingested into its own knowledge base (same settings
    and overrides, no answer cache) under `<home>/eval-cache/<name>`."""
    import shutil

    if not examples.is_dir():
        _fail(f"{examples}: no such folder of personas")
    with _kb() as main:
        work = main.settings.home / "eval-cache" / name
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(examples, work / "personas")
    try:
        kb = open_kb(work / "kb", [*state.overrides, "answer.cache=false"])
        kb.ingest(work / "personas")
    except ShuError as exc:
        _fail(str(exc))
    return kb, work


@app.command(name="eval-verify")
def eval_verify(
    examples: Annotated[Path, typer.Option(help="The persona folders the claims cite.")] = Path(
        "examples/personas"
    ),
    claims: Annotated[
        Path | None, typer.Option(help="JSONL of planted claims (default: the shipped set).")
    ] = None,
) -> None:
    """How well the verifier finds planted errors (changed numbers, swapped names, wrong
    documents, unstated claims) and keeps correct paraphrases: precision and recall per method."""
    from shu.answer.verify.factory import create_verifier
    from shu.config.settings import VerifySettings
    from shu.eval.verify import check_all, markdown, planted_claims

    try:
        planted = planted_claims(claims)
    except (ValueError, OSError) as exc:
        _fail(f"{claims}: {exc}")
    kb, _ = _example_kb(examples, "verify")
    with kb:
        client = kb.llm.client if kb.llm else None
        methods = {"rules": VerifySettings(method="rules")}
        if client is not None:
            methods["llm"] = VerifySettings(method="llm")
        per_method = {}
        for name, settings in methods.items():
            verifier = create_verifier(settings, kb.embedder, client)
            assert verifier is not None
            per_method[name] = check_all(kb.store, planted, verifier)
    out.print(markdown(per_method), highlight=False, markup=False)


@app.command()
def bench(
    documents: Annotated[int, typer.Option(help="Documents for the ingestion benchmark.")] = 300,
    sizes: Annotated[
        str, typer.Option(help="Comma-separated store sizes (chunks) for search latency.")
    ] = "10000,100000",
    queries: Annotated[int, typer.Option(help="Queries per store size.")] = 200,
) -> None:
    """Benchmark ingestion throughput and hybrid search latency; prints Markdown tables."""
    from shu.eval.bench import markdown_tables, run

    try:
        scale = [int(size) for size in sizes.split(",") if size.strip()]
    except ValueError:
        _fail(f"--sizes {sizes!r}: expected numbers separated by commas")
    try:
        ingest_result, searches = run(documents, scale, queries, overrides=state.overrides)
    except ShuError as exc:
        _fail(str(exc))
    out.print(markdown_tables(ingest_result, searches), highlight=False, markup=False)


@contextmanager
def _progress() -> Iterator[Callable[[str, int, int], None]]:
    if state.as_json or not err.is_terminal:
        yield lambda stage, done, total: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield advance


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
    out.print(
        f"[bold]{escape(report.summary())}[/] — personas: {', '.join(report.personas) or 'none'}; "
        f"{report.chunks_written} chunks written in {report.seconds:.1f}s{rate}",
        highlight=False,
    )


def main() -> None:
    app()


if __name__ == "__main__":
    main()
