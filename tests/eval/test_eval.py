"""The evaluation harness end to end on a tiny dataset, with the real store and embedder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shu.config.settings import load_settings
from shu.errors import ShuError
from shu.serve.cli import app
from shu_eval.build import open_eval_store
from shu_eval.configs import PRESETS, resolve
from shu_eval.dataset import DatasetError, load_dataset
from shu_eval.runner import run_eval
from tests.conftest import CountingEmbedder
from tests.models.tiny_cross_encoder import build_tiny_cross_encoder

TINY = Path(__file__).parent / "data" / "tiny"


def test_loading_groups_rows_into_documents_and_keeps_personas() -> None:
    dataset = load_dataset(TINY)
    tides = next(d for d in dataset.documents if d.id == "tides")
    assert [c.id for c in tides.chunks] == ["r3a", "r3b"]
    assert [c.section for c in tides.chunks] == ["Spring tides", "Neap tides"]
    assert dataset.personas == ["geo", "kitchen"]
    assert [q.id for q in dataset.queries] == ["q1", "q2", "q3", "q4"], "unjudged queries are left out"
    assert dataset.chunk_count == 6


def test_malformed_datasets_are_named(tmp_path: Path) -> None:
    shutil.copytree(TINY, tmp_path / "bad")
    (tmp_path / "bad" / "corpus.jsonl").write_text('{"_id": "a", "text": "x"}\n{not json}\n')
    with pytest.raises(DatasetError, match=r"corpus.jsonl:2: not valid JSON"):
        load_dataset(tmp_path / "bad")
    with pytest.raises(DatasetError, match="missing"):
        load_dataset(tmp_path / "nowhere")


def test_unknown_configs_are_refused_and_default_always_runs() -> None:
    assert [c.name for c in resolve("bm25")] == ["default", "bm25"]
    with pytest.raises(Exception, match="unknown eval config"):
        resolve("bm25,magic")


def test_every_preset_measures_and_personas_stay_apart(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHU_RERANK_MODEL", str(build_tiny_cross_encoder(tmp_path / "cross-encoder")))
    dataset = load_dataset(TINY)
    settings = load_settings(tmp_path / "home")
    opened = []

    def open_store(enrich):  # type: ignore[no-untyped-def]
        opened.append(enrich)
        return open_eval_store(dataset, settings, embedder, None, enrich)

    results = {r.config.name: r for r in run_eval(dataset, list(PRESETS.values()), open_store, embedder)}
    assert len(opened) == 6, (
        "one store per way of indexing: plain, as ingested, +questions, +profiles, +keywords, +context"
    )
    assert results["bm25"].metrics["nDCG@10"] == 1.0
    assert results["hybrid"].metrics["Hits@10"] == 1.0
    geo_rows = {"r1", "r2", "r3a", "r3b"}
    for result in results.values():
        assert set(result.rankings["q1"]) <= geo_rows and not set(result.rankings["q4"]) & geo_rows
        assert len(result.latencies_ms) == 4


def test_a_second_run_reuses_the_store(tmp_path: Path, embedder: CountingEmbedder) -> None:
    dataset = load_dataset(TINY)
    settings = load_settings(tmp_path / "home")
    first = open_eval_store(dataset, settings, embedder)
    first.store.close()
    embedded = embedder.embedded
    second = open_eval_store(dataset, settings, embedder)
    assert second.reused and not first.reused and second.folder == first.folder
    assert embedder.embedded == embedded, "nothing is embedded again"
    second.store.close()


def test_an_interrupted_build_goes_on_where_it_stopped(tmp_path: Path, embedder: CountingEmbedder) -> None:
    """No marker yet (the build was stopped): the documents written stay, the rest are written."""
    dataset = load_dataset(TINY)
    settings = load_settings(tmp_path / "home")
    first = open_eval_store(dataset, settings, embedder)
    every = {d.id for d in first.store.list_documents()}
    first.store.delete_document("tides")  # stopped before this one was written
    first.store.close()
    (first.folder / "build.json").unlink()
    embedded = embedder.embedded
    again = open_eval_store(dataset, settings, embedder)
    assert not again.reused and {d.id for d in again.store.list_documents()} == every
    tides = next(d for d in dataset.documents if d.id == "tides")
    assert embedder.embedded - embedded == len(tides.chunks), "only the missing document is embedded"
    assert json.loads((again.folder / "build.json").read_text())[
        "documents_kept_from_an_interrupted_build"
    ] == (len(every) - 1)
    again.store.close()


def test_store_settings_reach_the_eval_store(tmp_path: Path, embedder: CountingEmbedder) -> None:
    """`shu --set store.exact_limit=0 eval …` measures the compact vectors, `store.keyword=sql`
    FTS5, on the same cached store: the settings change how it is searched, not what it holds."""
    dataset = load_dataset(TINY)
    plain = open_eval_store(dataset, load_settings(tmp_path / "home"), embedder)
    tuned = open_eval_store(
        dataset, load_settings(tmp_path / "home", ["store.exact_limit=0", "store.keyword=sql"]), embedder
    )
    assert tuned.reused and tuned.folder == plain.folder
    assert tuned.store.keyword_in_sql and not plain.store.keyword_in_sql
    vector = embedder.embed_query("spring tides")
    for persona in dataset.personas:
        exact = plain.store.search_vector(vector, persona, 3)
        compact = tuned.store.search_vector(vector, persona, 3)
        assert [(h.chunk_id, round(h.score, 5)) for h in compact] == [
            (h.chunk_id, round(h.score, 5)) for h in exact
        ]
    assert tuned.store._persona_index("geo").codes is not None  # type: ignore[attr-defined]
    plain.store.close()
    tuned.store.close()


def test_the_command_writes_json_markdown_and_a_chart(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["--home", str(tmp_path / "h"), "eval", str(TINY), "--configs", "bm25,dense", "--output", str(out)]
    result = CliRunner().invoke(app, [*args, "--per-query"])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert list(data["configs"]) == ["default", "bm25", "dense"]
    assert data["configs"]["bm25"]["nDCG@10"] == 1.0 and data["queries"] == 4
    assert "| bm25 | 1.0000 |" in (out / "results.md").read_text()
    assert (out / "results.png").read_bytes()[:4] == b"\x89PNG"
    rows = [json.loads(line) for line in (out / "per_query.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and rows[0]["relevant"] == ["r1"]
    bad = CliRunner().invoke(app, ["--home", str(tmp_path / "h"), "eval", str(TINY), "--configs", "nope"])
    assert bad.exit_code == 2 and "unknown eval config" in bad.output


def test_a_rerank_config_without_a_model_is_a_clear_error(
    tmp_path: Path, embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHU_RERANK_MODEL", raising=False)
    dataset = load_dataset(TINY)
    settings = load_settings(tmp_path / "home")
    with pytest.raises(ShuError, match="SHU_RERANK_MODEL"):
        run_eval(
            dataset,
            [PRESETS["+rerank"]],
            lambda e: open_eval_store(dataset, settings, embedder, None, e),
            embedder,
        )


def test_the_pipeline_with_every_stage_off_ranks_exactly_like_hybrid(
    tmp_path: Path, embedder: CountingEmbedder
) -> None:
    dataset = load_dataset(TINY)
    settings = load_settings(tmp_path / "home")
    configs = [PRESETS["hybrid-convex"], PRESETS["pipeline-off"], PRESETS["+expand"]]
    results = {
        r.config.name: r
        for r in run_eval(
            dataset, configs, lambda e: open_eval_store(dataset, settings, embedder, None, e), embedder
        )
    }
    assert results["pipeline-off"].rankings == results["hybrid-convex"].rankings
    assert results["+expand"].rankings == results["hybrid-convex"].rankings, "no relationships: identity"
