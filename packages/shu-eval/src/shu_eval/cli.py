"""The measuring commands of `shu`, mounted by `register` through the `shu.commands` entry point
(the product never imports this package): `eval` (retrieval and answers) here, the labelled
decisions and `tune` in `cli_checks`, the benchmarks and `faults` in `cli_bench`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from shu.errors import ShuError
from shu.kb import KnowledgeBase
from shu.serve.console import emit_json as _emit_json
from shu.serve.console import err, out, state
from shu.serve.console import fail as _fail
from shu.serve.console import open_from_state as _kb
from shu.serve.console import progress as _progress
from shu_eval.cli_bench import bench, bench_formats, bench_peers, bench_serve, bench_stores, faults
from shu_eval.cli_checks import corpus_kb, eval_personal, eval_scope, eval_verify, example_kb, tune
from shu_eval.cli_confidence import eval_confidence
from shu_eval.cli_replay import eval_replay

if TYPE_CHECKING:
    from shu.config.settings import EnrichSettings
    from shu_eval.build import BuiltStore, Progress
    from shu_eval.configs import EvalConfig
    from shu_eval.dataset import Dataset
    from shu_eval.runner import ConfigResult


def eval_(
    dataset: Annotated[
        Path | None,
        typer.Argument(
            help="A BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/); with --answers also "
            "'answers' (the shipped labelled answer set) or a folder of labelled questions; "
            "'conversations' (the shipped follow-up set) or a folder with a conversations.jsonl."
        ),
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
    split: Annotated[
        str | None,
        typer.Option(
            help="qrels split to evaluate (default test); for a labelled answer set dev or test "
            "(default both)."
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N queries (a quick run).")] = None,
    sample: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="A labelled answer set: a fixed sample of N questions (the same on every run).",
        ),
    ] = None,
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
    enrich_llm: Annotated[
        bool,
        typer.Option(
            "--enrich-llm",
            help="Configs that enrich the corpus (+profiles, +questions, +context …) have the configured "
            "LLM write the artifacts (needs llm.provider and enrich.method=auto; cached apart by model).",
        ),
    ] = False,
) -> None:
    """Measure retrieval quality (nDCG, recall, MRR) and latency of several configurations (or, on
    a labelled set, answers with --answers, and follow-up questions with 'conversations')."""
    from shu_eval.configs import resolve
    from shu_eval.dataset import load_dataset
    from shu_eval.report import markdown_table, write_outputs

    if (dataset is None) == (suite is None):
        _fail("give a dataset folder or --suite (not both)")
    presets = _answer_presets(answer_configs)
    answers = answers or presets is not None
    if dataset is not None and _conversation_set(dataset, limit, output, split, answers, sample, store_url):
        return
    if dataset is not None and _labelled(dataset, answers, presets, limit, output, split, sample):
        return
    if sample is not None:
        _fail("--sample is for a labelled answer set (use --limit)")
    with _kb() as kb:
        if enrich_llm and kb.parts.ingest_enricher is None:
            _fail(
                "--enrich-llm needs an LLM that writes artifacts: set llm.provider (and for "
                "llm.provider=local also enrich.method=auto)"
            )
        chosen = resolve(configs)
        if store_url and len({c.enrich.model_dump_json() for c in chosen}) > 1:
            _fail("--store-url takes configs that index the corpus the same way (not +questions, +context …)")
        if suite is not None:
            _eval_suite(kb, suite, data, chosen, limit, output, store_url, answers, presets, enrich_llm)
            return
        assert dataset is not None
        loaded = load_dataset(dataset, split or "test")
        data_json, results = _eval_one(kb, loaded, chosen, limit, store_url, answers, presets, enrich_llm)
        folder = output or kb.settings.home / "eval-cache" / f"{loaded.name}-results"
        write_outputs(data_json, results, loaded, folder, per_query)
        if data_json.get("answers"):
            from shu_eval.answers import save_answers

            save_answers(folder, loaded.name, data_json["answers"])
    if state.as_json:
        _emit_json(data_json)
        return
    out.print(markdown_table(data_json), highlight=False, markup=False)
    if data_json.get("answers"):
        from shu_eval.answers import answers_markdown

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
    enrich_llm: bool = False,
) -> tuple[dict[str, Any], list[ConfigResult]]:
    from shu_eval.build import copy_to, open_eval_store
    from shu_eval.report import results_json
    from shu_eval.runner import run_eval

    writer = kb.parts.ingest_enricher if enrich_llm else None
    if writer is not None:
        from shu_eval.configs import written_by

        chosen = [written_by(config, writer.client.name) for config in chosen]

    def build(enrich: EnrichSettings, advance: Progress) -> BuiltStore:
        built = open_eval_store(loaded, kb.settings, kb.parts.embedder, advance, enrich, writer)
        return copy_to(built, store_url, kb.settings.store, advance) if store_url else built

    with _progress() as advance:
        results = run_eval(
            loaded, chosen, lambda enrich: build(enrich, advance), kb.parts.embedder, limit, advance
        )
        data = results_json(loaded, len(results[0].per_query), results)
        if writer is not None:
            data["enrich_llm"] = writer.summary()  # this run's calls (0 when every store was cached)
        if answers and loaded.answer_queries:
            data["answers"] = _answers(
                kb, loaded, lambda enrich: build(enrich, advance), limit, advance, presets
            )
    return data, results


def _labelled(
    dataset: Path,
    answers: bool,
    presets: list[str] | None,
    limit: int | None,
    output: Path | None,
    split: str | None = None,
    sample: int | None = None,
) -> bool:
    """A labelled answer set (`answers`, or a folder with questions.jsonl and no corpus): its
    knowledge bases ingested fresh, every question asked and judged (`shu_eval.labelled`)."""
    from shu_eval import labelled

    if not labelled.is_labelled_set(dataset):
        return False
    if not answers or presets:
        _fail(f"{dataset} is a labelled answer set: run it with --answers (no --answer-configs)")
    with _progress() as advance:
        try:
            graded, data = labelled.evaluate(
                dataset if dataset.exists() else labelled.folder_of(dataset),
                lambda name, path: (
                    corpus_kb(path, advance)
                    if (path / "corpus.jsonl").is_file()
                    else example_kb(path, f"answers-{name}")[0]
                ),
                limit,
                advance,
                split,
                sample,
            )
        except (labelled.LabelledSetError, OSError, ShuError) as exc:
            _fail(str(exc))
    with _kb() as kb:
        written = output or kb.settings.home / "eval-cache" / f"{data['dataset']}-results"
    labelled.write(graded, data, written)
    if state.as_json:
        _emit_json(data)
    else:
        out.print(labelled.markdown(data) + f"written to {written}", highlight=False, markup=False)
    return True


def _conversation_set(
    dataset: Path,
    limit: int | None,
    output: Path | None,
    split: str | None,
    answers: bool,
    sample: int | None,
    store_url: str | None,
) -> bool:
    """A labelled conversation set (`conversations`, or a folder with conversations.jsonl): its
    knowledge bases ingested fresh, every conversation asked turn by turn, each follow-up also
    alone, and retrieved as typed and as rewritten (`shu_eval.conversations`)."""
    from shu_eval import conversations
    from shu_eval.labelled import LabelledSetError

    if not conversations.is_conversation_set(dataset):
        return False
    if answers or sample is not None or store_url:
        _fail(f"{dataset} is a labelled conversation set: it takes --split, --limit and --output only")
    folder = conversations.folder_of(dataset)
    with _progress() as advance:
        try:
            results, data = conversations.evaluate(
                folder,
                lambda name, path: example_kb(path, f"conversations-{name}")[0],
                limit,
                advance,
                split,
            )
        except (LabelledSetError, OSError, ShuError) as exc:
            _fail(str(exc))
    with _kb() as kb:
        written = output or kb.settings.home / "eval-cache" / f"{folder.name}-results"
    conversations.write(results, data, written)
    if state.as_json:
        _emit_json(data)
    else:
        out.print(conversations.markdown(data) + f"written to {written}", highlight=False, markup=False)
    return True


def _answer_presets(names: str | None) -> list[str] | None:
    from shu_eval.configs import ANSWER_PRESETS

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
    build: Callable[[EnrichSettings], BuiltStore],
    limit: int | None,
    advance: Progress,
    answer_configs: list[str] | None = None,
) -> dict[str, Any]:
    """The default pipeline and the configured answerer over the queries with gold answers; with
    `answer_configs`, each of those presets too (under `configs`)."""
    from shu.answer.factory import create_responder
    from shu.config.settings import EnrichSettings
    from shu.retrieve.pipeline import RetrievalPipeline
    from shu_eval.answers import answers_json, run_answers
    from shu_eval.configs import answer_settings

    built = build(EnrichSettings(enabled=False))
    client = kb.parts.enricher.client if kb.parts.enricher else None
    found: dict[str, Any] = {}
    try:
        pipeline = RetrievalPipeline(built.store, kb.parts.embedder, kb.settings.retrieval)
        for name in answer_configs or ["configured"]:
            settings = answer_settings(kb.settings, name)
            responder = create_responder(settings, built.store, kb.parts.embedder, pipeline, client)
            result = run_answers(loaded, built.store, responder, limit, advance)
            found[name] = answers_json(result, responder.name)
    finally:
        built.store.close()
    first: dict[str, Any] = next(iter(found.values()))
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
    enrich_llm: bool = False,
) -> None:
    from shu_eval.answers import answers_markdown, answers_record, save_answers
    from shu_eval.dataset import load_dataset
    from shu_eval.report import write_outputs
    from shu_eval.suite import discover, select, suite_json, suite_markdown, write_suite

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
        per_dataset[found.name], results = _eval_one(
            kb, loaded, chosen, limit, None, answers, presets, enrich_llm
        )
        write_outputs(per_dataset[found.name], results, loaded, folder / found.name, False)
        if per_dataset[found.name].get("answers"):
            save_answers(folder / found.name, found.name, per_dataset[found.name]["answers"])
    summary = suite_json(per_dataset)
    if answers:  # suite.json keeps each dataset's answer metrics (not the per-query lists)
        summary["answers"] = {
            n: answers_record(d["answers"]) for n, d in per_dataset.items() if d.get("answers")
        }
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
    from shu_eval.answers import answers_markdown

    for name, data in found_answers.items():
        if data.get("configs"):
            out.print(f"\n{name}", highlight=False, markup=False)
            out.print(answers_markdown(data["configs"]), highlight=False, markup=False)


def _print_confidence(found_answers: dict[str, dict[str, Any]], folder: Path) -> None:
    """Answer confidence calibrated: fitted on the dev half of every dataset's answers, judged
    on the test half (ECE, Brier, reliability diagram), beside the shipped weights."""
    from shu.answer.confidence import WEIGHTS, confidence
    from shu_eval.confidence import (
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
    from shu_eval.calibrate import choose, sweep_markdown

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


def eval_code_corpus(
    package: Annotated[str, typer.Argument(help="An installed package with shipped questions (httpx).")],
    out: Annotated[Path, typer.Argument(help="Folder to write the BEIR-layout corpus to.")],
) -> None:
    """Build a code corpus from an installed package's source and README, beside its shipped
    questions, for `shu eval OUT` (identifier tokenization is measured on it)."""
    from shu_eval.code_corpus import build_code_corpus

    try:
        documents, chunks = build_code_corpus(package, out)
    except ShuError as exc:
        _fail(str(exc))
    err.print(f"{documents} documents, {chunks} chunks written to {out}", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    """Mount the measuring commands on the `shu` command line."""
    app.command(name="eval")(eval_)
    app.command(name="eval-code-corpus")(eval_code_corpus)
    app.command(name="faults")(faults)
    app.command(name="bench-stores")(bench_stores)
    app.command(name="bench-peers")(bench_peers)
    app.command(name="eval-scope")(eval_scope)
    app.command(name="eval-verify")(eval_verify)
    app.command(name="eval-replay")(eval_replay)
    app.command(name="eval-confidence")(eval_confidence)
    app.command(name="bench")(bench)
    app.command(name="bench-serve")(bench_serve)
    app.command(name="bench-formats")(bench_formats)
    app.command(name="tune")(tune)
    app.command(name="eval-personal")(eval_personal)
