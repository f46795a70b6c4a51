"""The speed and robustness commands of `shu`: `bench`, `bench-serve`, `bench-formats`,
`bench-stores`, `bench-peers` and the fault suite `faults`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from shu.errors import ShuError
from shu.serve.console import err, out, state
from shu.serve.console import fail as _fail
from shu.serve.console import open_from_state as _kb
from shu.serve.console import progress as _progress


def faults(
    full: Annotated[
        bool, typer.Option("--full", help="The full suite (≥ 50 crash runs, ≥ 1,000 bad files).")
    ] = False,
    postgres: Annotated[
        str | None,
        typer.Option(help="postgresql://… (may CREATE DATABASE): every store-backed check runs there too."),
    ] = None,
) -> None:
    """The fault suite: kill -9 and resume, a hostile corpus, concurrent runs, persona walls,
    injected instructions. Prints the table; exits 1 when anything crashed, hung, was lost or crossed."""
    from shu_eval.faults.run import FULL, SHORT, failures, markdown, timed

    scale = FULL if full else SHORT
    checks, seconds = timed(scale, postgres, lambda line: err.print(escape(line), highlight=False))
    out.print(markdown(checks, scale, seconds), highlight=False, markup=False)
    if failures(checks):
        raise typer.Exit(1)


def bench_stores(
    url: Annotated[
        str | None, typer.Option(help="postgresql://… (an empty database) to compare with SQLite.")
    ] = None,
    chunks: Annotated[int, typer.Option(min=1000, help="Chunks in the synthetic knowledge base.")] = 100_000,
    queries: Annotated[int, typer.Option(min=10, help="Queries per store.")] = 200,
    personas: Annotated[
        int,
        typer.Option(min=1, help="Spread the chunks over this many personas (a fresh process asks each)."),
    ] = 1,
) -> None:
    """SQLite beside PostgreSQL: load rate, index build, recall@10 vs exact, query latency."""
    from shu_eval.bench_stores import markdown, run, run_spread, spread_markdown

    if personas > 1 and queries <= personas:
        _fail(f"--queries must be more than --personas ({personas}): the first round only builds indexes")
    try:
        if personas > 1:
            spread = run_spread(url, chunks, queries, personas)
            out.print(spread_markdown(spread, queries), highlight=False, markup=False)
            return
        results = run(url, chunks, queries)
    except ShuError as exc:
        _fail(str(exc))
    out.print(markdown(results, queries), highlight=False, markup=False)


def bench_peers(
    dataset: Annotated[Path, typer.Argument(help="A BEIR-format folder.")],
    split: Annotated[str, typer.Option(help="qrels split.")] = "test",
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N queries.")] = None,
) -> None:
    """Shu's search beside bm25s + Chroma on the same corpus, vectors and queries."""
    from shu_eval.build import open_eval_store
    from shu_eval.dataset import load_dataset
    from shu_eval.peers import markdown, run_peers

    with _kb() as kb:
        loaded = load_dataset(dataset, split)
        with _progress() as advance:
            built = open_eval_store(loaded, kb.settings, kb.parts.embedder, advance)
        results, embed_ms = run_peers(loaded, built, kb.parts.embedder, limit)
        built.store.close()
    queries = min(limit or len(loaded.queries), len(loaded.queries))
    out.print(markdown(results, loaded, queries, embed_ms), highlight=False, markup=False)


def bench(
    documents: Annotated[int, typer.Option(help="Documents for the ingestion benchmark.")] = 300,
    sizes: Annotated[
        str, typer.Option(help="Comma-separated store sizes (chunks) for search latency.")
    ] = "10000,100000",
    queries: Annotated[int, typer.Option(help="Queries per store size.")] = 200,
) -> None:
    """Benchmark ingestion throughput and hybrid search latency; prints Markdown tables."""
    from shu_eval.bench import markdown_tables, run

    try:
        scale = [int(size) for size in sizes.split(",") if size.strip()]
    except ValueError:
        _fail(f"--sizes {sizes!r}: expected numbers separated by commas")
    try:
        ingest_result, searches = run(documents, scale, queries, overrides=state.overrides)
    except ShuError as exc:
        _fail(str(exc))
    out.print(markdown_tables(ingest_result, searches), highlight=False, markup=False)


def bench_serve(
    examples: Annotated[Path, typer.Option(help="The persona folders to serve.")] = Path("examples/personas"),
    clients: Annotated[int, typer.Option(min=1, max=64, help="Concurrent clients.")] = 8,
    seconds: Annotated[float, typer.Option(min=1, help="How long the load runs.")] = 60.0,
    job: Annotated[bool, typer.Option("--job/--no-job", help="Keep an ingest job running meanwhile.")] = True,
) -> None:
    """`shu serve` under load on loopback: clients searching and asking while an ingest job runs;
    requests/s, p50/p95/p99 and errors."""
    from shu_eval.bench_serve import markdown, run

    if not examples.is_dir():
        _fail(f"{examples}: no such folder of personas")
    result = run(examples, clients, seconds, job)
    out.print(markdown(result), highlight=False, markup=False)
    if result.errors:
        raise typer.Exit(1)


def bench_formats(
    enron: Annotated[
        Path | None, typer.Option(help="The Enron QA JSON (enron_annotated.json), ingested as .eml files.")
    ] = None,
) -> None:
    """Each document format's conversion and ingestion time on generated samples."""
    from shu_eval.bench_formats import markdown, run

    if enron is not None and not enron.is_file():
        _fail(f"{enron}: no such file")
    out.print(markdown(run(enron)), highlight=False, markup=False)
