"""The commands that measure one decision of the product on a labelled set: `eval-scope`,
`eval-verify`, `eval-personal`, and `tune`, which fits the weights."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from shu.errors import ShuError
from shu.kb import KnowledgeBase, open_kb
from shu.serve.console import fail as _fail
from shu.serve.console import open_from_state as _kb
from shu.serve.console import out, state
from shu.serve.console import progress as _progress
from shu_eval.build import Progress


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
    from shu_eval.scope import (
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
    kb, work = example_kb(examples, "scope")
    with kb, _progress() as advance:
        asked = ask_all(kb, asked_questions, advance)
        rules = kb.parts.enricher is None
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


def example_kb(examples: Path, name: str) -> tuple[KnowledgeBase, Path]:
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


def corpus_kb(corpus: Path, progress: Progress | None = None) -> KnowledgeBase:
    """A knowledge base over a corpus in the BEIR layout (`metadata.persona` its personas,
    `metadata.doc_id` its documents), built once with the configured embedder and enrichment and
    kept under `<home>/eval-cache` like `shu eval`'s stores (same settings and overrides, no
    answer cache): a labelled set's questions about a public corpus are asked of it."""
    from shu_eval.build import open_eval_store
    from shu_eval.dataset import load_dataset

    try:
        main = open_kb(state.home, [*state.overrides, "answer.cache=false"])
        built = open_eval_store(
            load_dataset(corpus),
            main.settings,
            main.parts.embedder,
            progress,
            enrich=main.settings.enrich,
            llm=main.parts.ingest_enricher,
        )
    except ShuError as exc:
        _fail(str(exc))
    main.close()  # the home's store: the corpus has its own
    return KnowledgeBase(main.settings, embedder=main.parts.embedder, store=built.store)


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
    from shu_eval.verify import check_all, markdown, planted_claims

    try:
        planted = planted_claims(claims)
    except (ValueError, OSError) as exc:
        _fail(f"{claims}: {exc}")
    kb, _ = example_kb(examples, "verify")
    with kb:
        client = kb.parts.enricher.client if kb.parts.enricher else None
        methods = {"rules": VerifySettings(method="rules")}
        if client is not None:
            methods["llm"] = VerifySettings(method="llm")
        per_method = {}
        for name, settings in methods.items():
            verifier = create_verifier(settings, kb.parts.embedder, client)
            assert verifier is not None
            per_method[name] = check_all(kb.store, planted, verifier)
    out.print(markdown(per_method), highlight=False, markup=False)


def eval_personal(
    data: Annotated[
        Path, typer.Option(help="The dataset: a persona folder, users.json and queries.jsonl.")
    ] = Path("tests/eval/data/personal"),
) -> None:
    """Personalized retrieval measured: the same ambiguous questions asked by different people,
    without a user, with every boost, and with each boost off or alone; nDCG@10 and Recall@10."""
    from shu_eval.personal import markdown, run

    if not data.is_dir():
        _fail(f"{data}: no such folder")
    try:
        result = run(data, overrides=state.overrides)
    except ShuError as exc:
        _fail(str(exc))
    out.print(markdown(result), highlight=False, markup=False)


def tune(
    persona: Annotated[
        str | None, typer.Argument(help="The persona to fit (not with --dataset).", show_default=False)
    ] = None,
    queries: Annotated[
        Path | None, typer.Option(help='JSONL: {"id", "text", "user", "relevant": {doc: grade}}.')
    ] = None,
    feedback: Annotated[
        bool, typer.Option("--feedback", help="Label questions from the users' recorded feedback.")
    ] = False,
    dataset: Annotated[
        Path | None,
        typer.Option(help="A BEIR folder: fit on its train split, judge on test (printed, never written)."),
    ] = None,
    write: Annotated[bool, typer.Option("--write", help="Keep the best if it wins on held-out.")] = False,
) -> None:
    """Fit the ranking weights (surface weights, expansion, fusion mode, personal boosts and their
    bound) on labelled questions; print the current and the best on a held-out part; with --write
    keep them only if they are better there."""
    from shu_eval import tune as tuning

    if dataset is not None:
        _tune_dataset(dataset)
        return
    if persona is None or (queries is None) == (not feedback):
        _fail("give a persona and one of --queries FILE or --feedback (or --dataset PATH alone)")
    with _kb() as kb:
        try:
            labelled = tuning.load_queries(queries) if queries else tuning.from_feedback(kb.store, persona)
            result = tuning.tune(kb, persona, labelled)
        except ShuError as exc:
            _fail(str(exc))
        out.print(tuning.markdown(result), highlight=False, markup=False)
        if not result.better:
            out.print("The current weights stay: the best on train does not win on the held-out part.")
            return
        if write:
            path = tuning.write(kb.settings.home, persona, result.changed)
            out.print(f"written to {path}", highlight=False)
        else:
            out.print("Better on the held-out part: run again with --write to keep them.")


def _tune_dataset(path: Path) -> None:
    from shu.retrieve.pipeline import RetrievalPipeline
    from shu_eval import tune as tuning
    from shu_eval.build import open_eval_store
    from shu_eval.dataset import load_dataset

    with _kb() as kb, _progress() as advance:
        try:
            test = load_dataset(path, "test")
            train = load_dataset(path, "train") if (path / "qrels" / "train.tsv").is_file() else None
            built = open_eval_store(test, kb.settings, kb.parts.embedder, advance)
        except ShuError as exc:
            _fail(str(exc))
        try:

            def labelled(loaded: Any) -> list[tuning.Labelled]:
                return [
                    tuning.Labelled(q.id, q.text, None, loaded.qrels[q.id], q.persona) for q in loaded.queries
                ]

            fit_on, judge_on = (labelled(train), labelled(test)) if train else tuning.split(labelled(test))
            pipeline = RetrievalPipeline(built.store, kb.parts.embedder, kb.settings.retrieval)
            personas = built.store.list_personas()
            current = tuning.current_weights(kb.settings.retrieval, personas[0], tuning.DATASET_SPACE)
            result = tuning.fit(
                tuning.store_ranker(built.store, pipeline), fit_on, judge_on, current, tuning.DATASET_SPACE
            )
        finally:
            built.store.close()
    split = "train → test" if train else "half of test → the other half"
    out.print(f"{test.name} ({split})", highlight=False, markup=False)
    out.print(tuning.markdown(result), highlight=False, markup=False)
